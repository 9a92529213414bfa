"""Consumer-protocol groups (KIP-848): member epochs, a group epoch, a server-side target
assignment and the reconciliation of each member towards it.

The group epoch is bumped whenever membership, a subscription, the preferred assignor or the
subscribed topics' metadata (ids, partition counts) changes; the target assignment is then
recomputed at that epoch. A member moves towards its target on its own heartbeats:
- partitions it holds outside its target are revoked first: the member stays at its epoch
  (state "unrevoked") until it heartbeats without them, or is fenced after its rebalance timeout;
- a target partition still held by another member (assigned or pending revocation) is withheld
  (state "unreleased") until that member has let it go;
- otherwise the member reaches the target epoch ("stable").
Group states: Empty, Assigning, Reconciling, Stable.

``creation_time_ms`` (KIP-1282) is stamped once when the group is created and never changed.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterable, Literal, Mapping, TypeVar

from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups.assignors import ASSIGNORS, TopicPartition
from kcli.broker.groups.config import GroupConfig
from kcli.broker.groups.timers import Timers

LEAVE_EPOCH, STATIC_LEAVE_EPOCH = -1, -2
# A new group starts at group and target assignment epoch 1 (an empty assignment); its first
# computed assignment is epoch 2, as in Kafka 4.3 and 4.4 (KAFKA-20268).
INITIAL_EPOCH = 1
STABLE, UNREVOKED, UNRELEASED = "stable", "unrevoked", "unreleased"

# topic name -> (topic id, partition count), for the topics that exist
TopicsView = Callable[[], Mapping[str, tuple[uuid.UUID, int]]]
# what a member is assigned: a (topic id, partition) in a consumer group, a task in a streams group
K = TypeVar("K", bound=tuple[Any, int])


@dataclass
class ModernMember(Generic[K]):
    """A member of a group that assigns on the server: a consumer group's or a streams group's."""
    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = 300_000
    epoch: int = 0
    previous_epoch: int = -1
    state: str = STABLE
    assigned: dict[K, int] = field(default_factory=dict)       # partition or task -> assignment epoch
    pending_revocation: dict[K, int] = field(default_factory=dict)

    def owned(self) -> set[K]:
        return set(self.assigned) | set(self.pending_revocation)


@dataclass
class ConsumerMember(ModernMember[TopicPartition]):
    subscribed_names: list[str] = field(default_factory=list)
    subscribed_regex: str | None = None
    server_assignor: str | None = None


M = TypeVar("M", bound=ModernMember)


@dataclass
class HeartbeatResult(Generic[K]):
    member_id: str
    epoch: int
    assignment: list[K] | None      # None: not sent in this response


class ModernGroup(Generic[M, K]):
    """What consumer groups and streams groups share: member epochs, the group and target
    assignment epochs, static membership, reconciliation and session timeouts. A subclass
    gives its members (``_new_member``), its subscribed topics and its target assignment."""

    def __init__(self, group_id: str, config: GroupConfig, timers: Timers, topics: TopicsView,
                 creation_time_ms: int, group_epoch: int = INITIAL_EPOCH,
                 assignment_epoch: int | None = None):
        self.group_id = group_id
        self.config = config
        self.timers = timers
        self.topics = topics
        self.creation_time_ms = creation_time_ms
        self.group_epoch = group_epoch
        self.assignment_epoch = group_epoch if assignment_epoch is None else assignment_epoch
        self.members: dict[str, M] = {}
        self.target: dict[str, set[K]] = {}
        self._metadata: tuple = ()
        self.session_timeout_ms = config.consumer_session_timeout_ms
        self.max_size = config.consumer_max_size
        self.on_change = lambda: None       # persistence hook (group epoch changes)

    # ---- queries -------------------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return not self.members

    @property
    def state(self) -> str:
        if not self.members:
            return "Empty"
        if self.group_epoch > self.assignment_epoch:
            return "Assigning"
        if any(m.epoch != self.assignment_epoch or m.state != STABLE for m in self.members.values()):
            return "Reconciling"
        return "Stable"

    def assignor_name(self) -> str:
        raise NotImplementedError

    def subscribed_topic_names(self) -> set[str]:
        raise NotImplementedError

    def is_subscribed_to(self, topic: str) -> bool:
        return topic in self.subscribed_topic_names()

    # ---- members joining and leaving -----------------------------------------------------
    def _member_for(self, member_id: str, epoch: int, instance_id: str | None,
                    owned: list[K] | None) -> M:
        if instance_id is not None:
            holder = next((m for m in self.members.values() if m.instance_id == instance_id), None)
            if holder is not None and holder.member_id != member_id:
                if epoch != 0:
                    raise BrokerError(Err.FENCED_INSTANCE_ID if epoch > 0 else Err.UNKNOWN_MEMBER_ID)
                if holder.epoch != STATIC_LEAVE_EPOCH:
                    raise BrokerError(Err.UNRELEASED_INSTANCE_ID,
                                     f"Static member {instance_id} is still in use by {holder.member_id}.")
                # The static member comes back under a new member id and keeps its assignment.
                self._drop(holder)
                holder.member_id = member_id
                holder.epoch = holder.previous_epoch
                return holder
        member = self.members.get(member_id)
        if member is None:
            if epoch != 0:
                raise BrokerError(Err.UNKNOWN_MEMBER_ID,
                                 f"Member {member_id} is not a member of group {self.group_id}.")
            if len(self.members) >= self.max_size:
                raise BrokerError(Err.GROUP_MAX_SIZE_REACHED)
            return self._new_member(member_id)
        if epoch == 0:
            return member
        if epoch > member.epoch or (epoch < member.epoch and not (
                epoch == member.previous_epoch and owned is not None
                and set(owned) <= set(member.assigned))):
            raise BrokerError(Err.FENCED_MEMBER_EPOCH,
                             f"The member epoch {epoch} does not match the group's {member.epoch}.")
        return member

    def _new_member(self, member_id: str) -> M:
        raise NotImplementedError

    def _leave(self, member_id: str, instance_id: str | None, epoch: int) -> HeartbeatResult[K]:
        member = self.members.get(member_id)
        if member is None:
            raise BrokerError(Err.UNKNOWN_MEMBER_ID,
                             f"Member {member_id} is not a member of group {self.group_id}.")
        if epoch == STATIC_LEAVE_EPOCH and member.instance_id is not None:
            # A static member leaves temporarily: it keeps its assignment for a session timeout.
            member.previous_epoch, member.epoch = member.epoch, STATIC_LEAVE_EPOCH
            self._arm_session(member)
        else:
            self.remove(member)
        return HeartbeatResult(member_id, epoch, None)

    # ---- epochs and the target assignment ------------------------------------------------
    def _metadata_changed(self) -> bool:
        """Whether a subscribed topic appeared, disappeared or grew since the last check."""
        existing = self.topics()
        snapshot = tuple(sorted((name, *existing[name]) for name in self.subscribed_topic_names()
                                if name in existing))
        changed, self._metadata = snapshot != self._metadata, snapshot
        return changed

    def _bump(self) -> None:
        """A new group epoch. Its target assignment is computed on the next member heartbeat
        (as Kafka does); ``remove`` settles an emptied group's at once."""
        self._metadata_changed()
        self.group_epoch += 1

    def _compute_target(self) -> None:
        raise NotImplementedError

    def _owners(self) -> dict[K, str]:
        return {tp: m.member_id for m in self.members.values() for tp in m.owned()}

    def _reconcile(self, member: M, owned: list[K] | None,
                   subscription_changed: bool) -> None:
        owned_set = None if owned is None else set(owned)
        if member.state == UNREVOKED and _still_owns(owned_set, member.pending_revocation):
            return
        if member.state == STABLE and member.epoch == self.assignment_epoch and not subscription_changed:
            return
        target = self.target.get(member.member_id, set())
        owners = self._owners()
        keep = {tp: e for tp, e in member.assigned.items() if tp in target}
        revoke = {tp: e for tp, e in member.assigned.items() if tp not in target}
        wanted = target - set(keep)
        free = {tp for tp in wanted if owners.get(tp, member.member_id) == member.member_id}
        unreleased = wanted != free
        if revoke and _still_owns(owned_set, revoke):
            member.state = UNREVOKED
            member.assigned, member.pending_revocation = keep, revoke
            key = ("revoke", self.group_id, member.member_id)
            if not self.timers.armed(key):
                self.timers.schedule(key, member.rebalance_timeout_ms, lambda: self._revocation_timeout(member))
            return
        self.timers.cancel(("revoke", self.group_id, member.member_id))
        keep.update({tp: self.assignment_epoch for tp in free})
        member.assigned, member.pending_revocation = keep, {}
        member.state = UNRELEASED if unreleased else STABLE
        if member.epoch != self.assignment_epoch:
            member.previous_epoch, member.epoch = member.epoch, self.assignment_epoch

    def _revocation_timeout(self, member: M) -> None:
        if self.members.get(member.member_id) is member and member.state == UNREVOKED:
            self.remove(member)

    # ---- membership upkeep ---------------------------------------------------------------
    def _arm_session(self, member: M) -> None:
        self.timers.schedule(("session", self.group_id, member.member_id),
                             self.session_timeout_ms, lambda: self._expire(member))

    def _expire(self, member: M) -> None:
        if self.members.get(member.member_id) is member:
            self.remove(member)

    def _drop(self, member: M) -> None:
        self.members.pop(member.member_id, None)
        for kind in ("session", "revoke"):
            self.timers.cancel((kind, self.group_id, member.member_id))

    def remove(self, member: M) -> None:
        """The member leaves or is fenced: its partitions are released at once, and go to
        other members once the target is recomputed (on their next heartbeat). When it was the
        last member, the (empty) target takes the new epoch at once, as from Kafka 4.4
        (KAFKA-20442: an empty group's epochs match)."""
        self._drop(member)
        self._bump()
        if not self.members:
            self.target, self.assignment_epoch = {}, self.group_epoch
        self.on_change()

    def shutdown(self) -> None:
        for member in list(self.members.values()):
            self._drop(member)

    # ---- offsets -------------------------------------------------------------------------
    def validate_commit(self, member_id: str, epoch: int, topic_partitions: Iterable[K]) -> None:
        """``topic_partitions``: the (topic id, partition) pairs of the commit."""
        if epoch < 0 and not self.members:
            return
        member = self.members.get(member_id)
        if member is None:
            raise BrokerError(Err.UNKNOWN_MEMBER_ID)
        if epoch == member.epoch:
            return
        if epoch > member.epoch:
            raise BrokerError(Err.STALE_MEMBER_EPOCH)
        for tp in topic_partitions:
            assigned = member.assigned.get(tp, member.pending_revocation.get(tp))
            if assigned is None or epoch < assigned:
                raise BrokerError(Err.STALE_MEMBER_EPOCH)

    def validate_fetch(self, member_id: str | None, epoch: int) -> None:
        if member_id is None and epoch < 0:
            return
        member = self.members.get(member_id or "")
        if member is None:
            raise BrokerError(Err.UNKNOWN_MEMBER_ID)
        if epoch != member.epoch:
            raise BrokerError(Err.STALE_MEMBER_EPOCH)

    def validate_offset_delete(self) -> None:
        return

    def validate_delete(self) -> None:
        if self.members:
            raise BrokerError(Err.NON_EMPTY_GROUP)


class ConsumerGroup(ModernGroup[ConsumerMember, TopicPartition]):
    kind: Literal["consumer"] = "consumer"
    protocol_type = "consumer"

    def assignor_name(self) -> str:
        preferred = [m.server_assignor for m in self.members.values() if m.server_assignor]
        if preferred:
            return max(sorted(set(preferred)), key=preferred.count)
        return self.config.consumer_assignors[0]

    def subscribed_topic_names(self, member: ConsumerMember | None = None) -> set[str]:
        members = [member] if member else self.members.values()
        existing = self.topics()
        names: set[str] = set()
        for m in members:
            names.update(m.subscribed_names)
            if m.subscribed_regex:
                pattern = re.compile(m.subscribed_regex)
                names.update(t for t in existing if pattern.fullmatch(t))
        return names

    # ---- ConsumerGroupHeartbeat ----------------------------------------------------------
    def heartbeat(self, *, member_id: str, epoch: int, instance_id: str | None, rack_id: str | None,
                  rebalance_timeout_ms: int, subscribed_names: list[str] | None,
                  subscribed_regex: str | None, server_assignor: str | None,
                  owned: list[TopicPartition] | None, client_id: str,
                  client_host: str) -> HeartbeatResult[TopicPartition]:
        if epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            return self._leave(member_id, instance_id, epoch)
        member = self._member_for(member_id, epoch, instance_id, owned)
        previous_assigned = dict(member.assigned)
        is_new = member.member_id not in self.members
        changed = is_new
        if subscribed_names is not None and sorted(subscribed_names) != sorted(member.subscribed_names):
            member.subscribed_names, changed = list(subscribed_names), True
        # "" is no regex (librdkafka sends it in every full heartbeat), None: unchanged
        if subscribed_regex is not None and (subscribed_regex or None) != member.subscribed_regex:
            if subscribed_regex:
                _compile(subscribed_regex)
            member.subscribed_regex, changed = subscribed_regex or None, True
        assignor_before = self.assignor_name() if self.members else None
        if server_assignor is not None:
            member.server_assignor = server_assignor
        member.instance_id = instance_id if instance_id is not None else member.instance_id
        member.rack_id = rack_id if rack_id is not None else member.rack_id
        if rebalance_timeout_ms > 0:
            member.rebalance_timeout_ms = rebalance_timeout_ms
        member.client_id, member.client_host = client_id, client_host
        self.members[member.member_id] = member
        epochs = self.group_epoch, self.assignment_epoch
        if self._metadata_changed() or changed or assignor_before != self.assignor_name():
            self._bump()
        if self.group_epoch > self.assignment_epoch:
            self._compute_target()
        if (self.group_epoch, self.assignment_epoch) != epochs:
            self.on_change()
        self._reconcile(member, owned, subscription_changed=changed)
        self._arm_session(member)
        full = rebalance_timeout_ms != -1 and (subscribed_names is not None or subscribed_regex is not None) \
            and owned is not None
        send = epoch == 0 or full or member.assigned.keys() != previous_assigned.keys()
        return HeartbeatResult(member.member_id, member.epoch, sorted(member.assigned) if send else None)

    def _new_member(self, member_id: str) -> ConsumerMember:
        return ConsumerMember(member_id)

    def _compute_target(self) -> None:
        existing = self.topics()
        subscriptions = {m.member_id: frozenset(existing[t][0] for t in self.subscribed_topic_names(m)
                                                if t in existing)
                         for m in self.members.values()}
        counts = {topic_id: count for topic_id, count in existing.values()
                  if any(topic_id in s for s in subscriptions.values())}
        assignor = ASSIGNORS[self.assignor_name()]
        self.target = assignor(subscriptions, counts, self.target)
        self.assignment_epoch = self.group_epoch


def _still_owns(owned: set[K] | None, revoking: Mapping[K, int]) -> bool:
    """Whether the member may still hold partitions being revoked (unknown when it did not say)."""
    return owned is None or bool(owned & set(revoking))


def _compile(regex: str) -> re.Pattern:
    try:
        return re.compile(regex)
    except re.error as exc:
        raise BrokerError(Err.INVALID_REQUEST, f"SubscribedTopicRegex is invalid: {exc}") from None

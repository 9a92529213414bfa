"""Share groups (KIP-932): members and their assignment, and each share-partition's records in
flight.

Membership: a member joins (epoch 0) with the topics it subscribes to; every change of members,
subscriptions or subscribed partition counts bumps the group epoch and recomputes the target
assignment at once (``simple``: a partition may go to several members). There is no revocation
protocol: a member takes its target, and the group's epoch, on its next heartbeat. States: Empty,
Stable.

A share-partition (group, topic id, partition) has a start offset (SPSO) and an end offset
(SPEO): records below the start are done with; records in [start, end) are in flight, each
``AVAILABLE``, ``ACQUIRED`` (by one member, until its acquisition lock expires),
``ACKNOWLEDGED`` or ``ARCHIVED``. A record's delivery count grows each time it is acquired; a
record released (or whose lock expires) at the delivery count limit is archived. The start
offset advances past every leading acknowledged or archived record. On first use the start is
set by ``share.auto.offset.reset`` (latest: the log end; earliest: the log start).

What is durable (``snapshot``): the start offset and the state of each record in flight, an
acquired record as available (a restart loses every lock, as in Kafka), with its delivery count.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping

from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups.assignors import TopicPartition
from kcli.broker.groups.timers import Timers

AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVED = 0, 1, 2, 4     # Kafka's RecordState ids
GAP, ACCEPT, RELEASE, REJECT, RENEW = 0, 1, 2, 3, 4          # AcknowledgeTypes
LEAVE_EPOCH = -1
INITIAL_EPOCH = 0
DONE = (ACKNOWLEDGED, ARCHIVED)

TopicsView = Callable[[], Mapping[str, tuple[uuid.UUID, int]]]

# java.time.Duration.parse's format (PnDTnHnMn.nS), which share.auto.offset.reset's by_duration takes
_DURATION = re.compile(r"([-+]?)P(?:([-+]?\d+)D)?(?:T(?=[-+\d])(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?"
                       r"(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?", re.IGNORECASE)


def duration_ms(text: str) -> int:
    """A non-negative ISO-8601 duration in milliseconds; ValueError if it is not one."""
    m = _DURATION.fullmatch(text)
    if m is None or text.upper() in ("P", "PT") or not any(m.groups()[1:]):
        raise ValueError(text)
    sign, days, hours, minutes, seconds, fraction = m.groups()
    ms = ((int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes or 0)) * 60_000 + int(seconds or 0) * 1000
    if fraction:
        ms += (-1 if (seconds or "").startswith("-") else 1) * int(fraction.ljust(3, "0")[:3])
    ms = -ms if sign == "-" else ms
    if ms < 0:
        raise ValueError(text)
    return ms


def valid_reset(value: str) -> bool:
    """Whether ``value`` is a share.auto.offset.reset: earliest, latest, by_duration:<duration>."""
    lowered = value.lower()
    if lowered in ("earliest", "latest"):
        return True
    if lowered.startswith("by_duration:"):
        try:
            duration_ms(value.partition(":")[2])
        except ValueError:
            return False
        return True
    return False


@dataclass(frozen=True)
class ShareSettings:
    """A share group's effective configs (group configs over the broker's defaults)."""
    auto_offset_reset: str = "latest"
    record_lock_duration_ms: int = 30_000
    delivery_count_limit: int = 5
    partition_max_record_locks: int = 2_000


def simple(subscriptions: Mapping[str, frozenset[uuid.UUID]],
           partition_counts: Mapping[uuid.UUID, int]) -> dict[str, set[TopicPartition]]:
    """Kafka's ``simple`` share assignor, in spirit: per topic, its partitions are dealt round
    the topic's subscribers (ordered by member id); when a topic has fewer partitions than
    subscribers, each subscriber gets one partition, partitions then shared."""
    result: dict[str, set[TopicPartition]] = {m: set() for m in subscriptions}
    for topic, count in sorted(partition_counts.items(), key=lambda kv: str(kv[0])):
        members = sorted(m for m, topics in subscriptions.items() if topic in topics)
        if not members or not count:
            continue
        for i in range(max(count, len(members))):
            result[members[i % len(members)]].add((topic, i % count))
    return result


@dataclass
class ShareMember:
    member_id: str
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_names: list[str] = field(default_factory=list)
    epoch: int = 0
    assigned: set[TopicPartition] = field(default_factory=set)


@dataclass
class InFlight:
    state: int
    delivery_count: int
    member: str | None = None
    deadline: float = 0.0           # the acquisition lock's expiry (loop time, seconds)


class SharePartition:
    def __init__(self, start: int, records: dict[int, InFlight] | None = None, end: int | None = None,
                 leader_epoch: int = 0):
        self.start = start
        self.records: dict[int, InFlight] = dict(records or {})
        self.end = max([start, *(o + 1 for o in self.records)]) if end is None else end
        self.leader_epoch = leader_epoch

    # ---- acquiring -----------------------------------------------------------------------
    def acquire(self, member: str, max_records: int, log_start: int, log_end: int, now: float,
                settings: ShareSettings) -> list[tuple[int, int, int]]:
        """Acquires up to ``max_records`` records for ``member``: available ones in flight first,
        then the next ones of the log. Returns (first offset, last offset, delivery count)
        ranges."""
        if log_start > self.start:          # records deleted under the share-partition
            self.move_start(log_start)
        if self.end < self.start:
            self.end = self.start
        deadline = now + settings.record_lock_duration_ms / 1000
        got: list[tuple[int, int]] = []
        for offset in sorted(self.records):
            if len(got) >= max_records:
                break
            r = self.records[offset]
            if r.state == AVAILABLE:
                r.state, r.member, r.deadline = ACQUIRED, member, deadline
                r.delivery_count += 1
                got.append((offset, r.delivery_count))
        while len(got) < max_records and self.end < log_end and len(self.records) < settings.partition_max_record_locks:
            self.records[self.end] = InFlight(ACQUIRED, 1, member, deadline)
            got.append((self.end, 1))
            self.end += 1
        ranges: list[tuple[int, int, int]] = []
        for offset, count in got:
            if ranges and ranges[-1][1] == offset - 1 and ranges[-1][2] == count:
                ranges[-1] = (ranges[-1][0], offset, count)
            else:
                ranges.append((offset, offset, count))
        return ranges

    def next_deadline(self) -> float | None:
        return min((r.deadline for r in self.records.values() if r.state == ACQUIRED), default=None)

    # ---- acknowledging -------------------------------------------------------------------
    def acknowledge(self, member: str, batches: list[tuple[int, int, list[int]]], now: float,
                    settings: ShareSettings) -> None:
        """Applies acknowledgement batches (first, last, types: one for the range, or one per
        offset) of ``member``'s acquired records, all or none: INVALID_RECORD_STATE when one
        names a record the member does not hold."""
        changes: list[tuple[int, int]] = []
        for first, last, types in batches:
            if last < first or (len(types) != 1 and len(types) != last - first + 1):
                raise BrokerError(Err.INVALID_REQUEST, "Invalid acknowledgement batch.")
            for i, offset in enumerate(range(first, last + 1)):
                kind = types[0] if len(types) == 1 else types[i]
                r = self.records.get(offset)
                if offset < self.start and kind == GAP:
                    continue
                if r is None or r.state != ACQUIRED or r.member != member:
                    raise BrokerError(Err.INVALID_RECORD_STATE, "The record state is invalid. The "
                                      "acknowledgement of delivery could not be completed.")
                if kind not in (GAP, ACCEPT, RELEASE, REJECT, RENEW):
                    raise BrokerError(Err.INVALID_REQUEST, f"Invalid acknowledge type: {kind}")
                changes.append((offset, kind))
        for offset, kind in changes:
            r = self.records[offset]
            if kind == ACCEPT:
                r.state, r.member = ACKNOWLEDGED, None
            elif kind in (GAP, REJECT):
                r.state, r.member = ARCHIVED, None
            elif kind == RELEASE:
                self._release(r, settings)
            else:
                r.deadline = now + settings.record_lock_duration_ms / 1000
        self._advance()

    def release_member(self, member: str, settings: ShareSettings) -> bool:
        """Every record ``member`` holds goes back (a member left, its share session closed)."""
        held = [r for r in self.records.values() if r.state == ACQUIRED and r.member == member]
        for r in held:
            self._release(r, settings)
        self._advance()
        return bool(held)

    def expire(self, now: float, settings: ShareSettings) -> bool:
        """Records whose acquisition lock ran out go back; whether any did."""
        late = [r for r in self.records.values() if r.state == ACQUIRED and r.deadline <= now]
        for r in late:
            self._release(r, settings)
        self._advance()
        return bool(late)

    @staticmethod
    def _release(r: InFlight, settings: ShareSettings) -> None:
        r.state = ARCHIVED if r.delivery_count >= settings.delivery_count_limit else AVAILABLE
        r.member = None

    def _advance(self) -> None:
        while self.start < self.end and self.records.get(self.start, InFlight(AVAILABLE, 0)).state in DONE:
            del self.records[self.start]
            self.start += 1

    def move_start(self, offset: int) -> None:
        """A new start offset (AlterShareGroupOffsets, deleted records): nothing below it is in
        flight any more."""
        self.records = {o: r for o, r in self.records.items() if o >= offset}
        self.start = offset
        self.end = max(self.end, offset)
        self._advance()

    # ---- views and persistence -----------------------------------------------------------
    def done_in_flight(self) -> int:
        return sum(1 for r in self.records.values() if r.state in DONE)

    def snapshot(self) -> dict:
        batches: list[list[int]] = []
        for offset in sorted(self.records):
            r = self.records[offset]
            state = AVAILABLE if r.state == ACQUIRED else r.state
            if batches and batches[-1][1] == offset - 1 and batches[-1][2:] == [state, r.delivery_count]:
                batches[-1][1] = offset
            else:
                batches.append([offset, offset, state, r.delivery_count])
        return {"s": self.start, "end": self.end, "b": batches, "le": self.leader_epoch}

    @classmethod
    def from_snapshot(cls, snap: dict) -> "SharePartition":
        records = {o: InFlight(state, count) for first, last, state, count in snap["b"]
                   for o in range(first, last + 1)}
        return cls(snap["s"], records, snap["end"], snap.get("le", 0))


class ShareGroup:
    kind: Literal["share"] = "share"
    protocol_type = "share"

    def __init__(self, group_id: str, timers: Timers, topics: TopicsView, settings: Callable[[], ShareSettings],
                 session_timeout_ms: int, max_size: int, creation_time_ms: int = -1,
                 group_epoch: int = INITIAL_EPOCH, partitions: dict[TopicPartition, SharePartition] | None = None):
        self.group_id = group_id
        self.timers = timers
        self.topics = topics
        self.settings = settings
        self.session_timeout_ms = session_timeout_ms
        self.max_size = max_size
        self.creation_time_ms = creation_time_ms
        self.group_epoch = group_epoch
        self.assignment_epoch = group_epoch
        self.members: dict[str, ShareMember] = {}
        self.target: dict[str, set[TopicPartition]] = {}
        self.partitions: dict[TopicPartition, SharePartition] = dict(partitions or {})
        self._metadata: tuple = ()
        self.on_change = lambda: None                       # the group record changed
        self.on_partition_change: Callable[[TopicPartition], None] = lambda tp: None
        self.on_release: Callable[[], None] = lambda: None  # records became available

    # ---- queries -------------------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return not self.members

    @property
    def state(self) -> str:
        return "Stable" if self.members else "Empty"

    def assignor_name(self) -> str:
        return "simple"

    def subscribed_topic_names(self) -> set[str]:
        return {t for m in self.members.values() for t in m.subscribed_names}

    # ---- ShareGroupHeartbeat -------------------------------------------------------------
    def heartbeat(self, *, member_id: str, epoch: int, rack_id: str | None, subscribed_names: list[str] | None,
                  client_id: str, client_host: str) -> tuple[int, list[TopicPartition] | None]:
        """(the member's epoch, its assignment when it changed or the member (re)joined)."""
        if epoch == LEAVE_EPOCH:
            member = self.members.get(member_id)
            if member is None:
                raise BrokerError(Err.UNKNOWN_MEMBER_ID,
                                  f"Member {member_id} is not a member of group {self.group_id}.")
            self.remove(member)
            return LEAVE_EPOCH, None
        member = self.members.get(member_id)
        if member is None:
            if epoch != 0:
                raise BrokerError(Err.UNKNOWN_MEMBER_ID,
                                  f"Member {member_id} is not a member of group {self.group_id}.")
            if len(self.members) >= self.max_size:
                raise BrokerError(Err.GROUP_MAX_SIZE_REACHED,
                                  f"The share group has reached its maximum capacity of {self.max_size} members.")
            member = ShareMember(member_id)
        elif epoch not in (0, member.epoch):
            raise BrokerError(Err.FENCED_MEMBER_EPOCH,
                              f"The share group member has a smaller member epoch ({epoch}) than the one "
                              f"known by the group coordinator ({member.epoch}). The member must abandon all "
                              "its partitions and rejoin.")
        changed = member.member_id not in self.members
        if subscribed_names is not None and sorted(subscribed_names) != sorted(member.subscribed_names):
            member.subscribed_names, changed = list(subscribed_names), True
        if rack_id is not None:
            member.rack_id = rack_id
        member.client_id, member.client_host = client_id, client_host
        self.members[member_id] = member
        if self._metadata_changed() or changed:
            self.group_epoch += 1
            self.on_change()
        if self.group_epoch > self.assignment_epoch:
            self._compute_target()
        before = set(member.assigned)
        member.assigned = set(self.target.get(member_id, ()))
        member.epoch = self.assignment_epoch
        self.timers.schedule(("share-session", self.group_id, member_id), self.session_timeout_ms,
                             lambda: self._expire(member))
        send = epoch == 0 or subscribed_names is not None or member.assigned != before
        return member.epoch, sorted(member.assigned, key=lambda tp: (str(tp[0]), tp[1])) if send else None

    def _metadata_changed(self) -> bool:
        existing = self.topics()
        snapshot = tuple(sorted((name, *existing[name]) for name in self.subscribed_topic_names() if name in existing))
        changed, self._metadata = snapshot != self._metadata, snapshot
        return changed

    def _compute_target(self) -> None:
        existing = self.topics()
        subscriptions = {m.member_id: frozenset(existing[t][0] for t in m.subscribed_names if t in existing)
                         for m in self.members.values()}
        counts = {tid: n for tid, n in existing.values() if any(tid in s for s in subscriptions.values())}
        self.target = simple(subscriptions, counts)
        self.assignment_epoch = self.group_epoch

    def _expire(self, member: ShareMember) -> None:
        if self.members.get(member.member_id) is member:
            self.remove(member)

    def remove(self, member: ShareMember) -> None:
        """The member leaves or is fenced: the records it holds go back at once."""
        self.members.pop(member.member_id, None)
        self.timers.cancel(("share-session", self.group_id, member.member_id))
        self.group_epoch += 1
        self._compute_target()
        self.release_member(member.member_id)
        self.on_change()

    def release_member(self, member_id: str, only: set[TopicPartition] | None = None) -> None:
        """What ``member_id`` holds (in ``only``'s partitions, if given) goes back."""
        settings = self.settings()
        released = False
        for tp, sp in self.partitions.items():
            if (only is None or tp in only) and sp.release_member(member_id, settings):
                self.on_partition_change(tp)
                released = True
        if released:
            self.on_release()

    def shutdown(self) -> None:
        for member_id in list(self.members):
            self.timers.cancel(("share-session", self.group_id, member_id))
        self.members.clear()
        for tp in self.partitions:
            self.timers.cancel(("share-locks", self.group_id, tp))

    def validate_delete(self) -> None:
        if self.members:
            raise BrokerError(Err.NON_EMPTY_GROUP)

    def validate_commit(self, *_args) -> None:
        """OffsetCommit: a share group has no committed offsets (its state is
        DescribeShareGroupOffsets', and AlterShareGroupOffsets changes it)."""
        raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {self.group_id} is not a consumer group.")

    # ---- share-partitions ----------------------------------------------------------------
    def share_partition(self, tp: TopicPartition, log, now_ms: int) -> SharePartition:
        """The share-partition of ``tp`` (its PartitionLog: ``log``), initialized on first use
        by ``share.auto.offset.reset``: earliest, latest, or by_duration (the first record at or
        after now minus the duration, else the log end)."""
        sp = self.partitions.get(tp)
        if sp is None:
            reset = self.settings().auto_offset_reset.lower()
            if reset == "earliest":
                start = log.log_start_offset
            elif reset.startswith("by_duration:"):
                found = log.offset_for_timestamp(now_ms - duration_ms(reset.partition(":")[2]))
                start = found[0] if found is not None else log.log_end_offset
            else:
                start = log.log_end_offset
            sp = SharePartition(start)
            self.partitions[tp] = sp
            self.on_partition_change(tp)
        return sp

    def arm_locks(self, tp: TopicPartition, now: float, loop_time: Callable[[], float]) -> None:
        """(Re)arms the timer that expires ``tp``'s acquisition locks at the earliest deadline."""
        sp = self.partitions.get(tp)
        deadline = sp.next_deadline() if sp is not None else None
        key = ("share-locks", self.group_id, tp)
        if deadline is None:
            self.timers.cancel(key)
            return

        def fire():
            current = self.partitions.get(tp)
            if current is None:
                return
            if current.expire(loop_time(), self.settings()):
                self.on_partition_change(tp)
                self.on_release()
            self.arm_locks(tp, loop_time(), loop_time)

        self.timers.schedule(key, int((deadline - now) * 1000) + 1, fire)

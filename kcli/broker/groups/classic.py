"""Classic consumer groups: the JoinGroup/SyncGroup barrier, heartbeats, session and rebalance
timeouts, as Kafka's group coordinator runs them.

States: Empty -> PreparingRebalance -> CompletingRebalance -> Stable (and Dead once deleted).
A rebalance completes when every known member has rejoined, or when the rebalance timeout
(the largest among the members) expires; members that did not rejoin are then removed. The
leader receives every member's metadata for the selected protocol and sends the assignments
in SyncGroup; followers wait for them. Subscription and assignment payloads are opaque bytes.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription

from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups.config import GroupConfig
from kcli.broker.groups.timers import Timers

EMPTY, PREPARING, COMPLETING, STABLE, DEAD = (
    "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead")


@dataclass
class JoinResult:
    error: Err
    member_id: str
    generation: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)


@dataclass
class ClassicMember:
    member_id: str
    instance_id: str | None
    client_id: str
    client_host: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    assignment: bytes = b""
    join_future: asyncio.Future | None = None
    sync_future: asyncio.Future | None = None

    def metadata(self, protocol: str | None) -> bytes:
        return next(meta for name, meta in self.protocols if name == protocol)

    @property
    def protocol_names(self) -> list[str]:
        return [name for name, _ in self.protocols]


class ClassicGroup:
    kind: Literal["classic"] = "classic"

    def __init__(self, group_id: str, config: GroupConfig, timers: Timers, protocol_type: str | None = None):
        self.group_id = group_id
        self.config = config
        self.timers = timers
        self.state = EMPTY
        self.generation = 0
        self.protocol_type = protocol_type
        self.protocol_name: str | None = None
        self.leader: str | None = None
        self.members: dict[str, ClassicMember] = {}
        self.pending: set[str] = set()          # member ids handed out with MEMBER_ID_REQUIRED
        self.static: dict[str, str] = {}        # group.instance.id -> member id
        self._initial_delay = False
        self.on_change = lambda: None           # persistence hook (protocol type changes)

    # ---- queries -------------------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return not self.members

    def subscribed_topics(self) -> set[str] | None:
        """Topics the members subscribe to, when the group runs the consumer protocol and
        every subscription parses; None when unknown."""
        if self.protocol_type != "consumer" or self.protocol_name is None:
            return None
        topics: set[str] = set()
        for member in self.members.values():
            try:
                topics.update(_subscription_topics(member.metadata(self.protocol_name)))
            except Exception:  # noqa: BLE001 - a member's metadata that is not the consumer protocol's
                return None
        return topics

    def is_subscribed_to(self, topic: str) -> bool:
        topics = self.subscribed_topics()
        return self.protocol_type == "consumer" if topics is None else topic in topics

    # ---- JoinGroup -----------------------------------------------------------------------
    async def join(self, *, member_id: str, instance_id: str | None, client_id: str, client_host: str,
                   session_timeout_ms: int, rebalance_timeout_ms: int, protocol_type: str,
                   protocols: list[tuple[str, bytes]], require_known_member_id: bool) -> JoinResult:
        if self.state == DEAD:
            return JoinResult(Err.COORDINATOR_NOT_AVAILABLE, member_id)
        if not (self.config.classic_min_session_timeout_ms <= session_timeout_ms
                <= self.config.classic_max_session_timeout_ms):
            return JoinResult(Err.INVALID_SESSION_TIMEOUT, member_id)
        if not self._supports(protocol_type, protocols):
            return JoinResult(Err.INCONSISTENT_GROUP_PROTOCOL, member_id)
        if rebalance_timeout_ms < 0:
            rebalance_timeout_ms = session_timeout_ms
        args = dict(instance_id=instance_id, client_id=client_id, client_host=client_host,
                    session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=rebalance_timeout_ms,
                    protocol_type=protocol_type, protocols=protocols)

        if not member_id:
            new_id = f"{client_id}-{uuid.uuid4()}"
            if instance_id is not None:
                return await self._join_static_unknown(new_id, **args)
            if len(self.members) + len(self.pending) >= self.config.classic_max_size:
                return JoinResult(Err.GROUP_MAX_SIZE_REACHED, "")
            if require_known_member_id:
                self.pending.add(new_id)
                self.timers.schedule(("pending", self.group_id, new_id), session_timeout_ms,
                                     lambda: self._expire_pending(new_id))
                return JoinResult(Err.MEMBER_ID_REQUIRED, new_id)
            return await self._add_member_and_wait(new_id, **args)

        if member_id in self.pending:
            self.pending.discard(member_id)
            self.timers.cancel(("pending", self.group_id, member_id))
            return await self._add_member_and_wait(member_id, **args)

        member = self.members.get(member_id)
        if member is None:
            return JoinResult(Err.UNKNOWN_MEMBER_ID, member_id)
        if instance_id is not None and self.static.get(instance_id) != member_id:
            return JoinResult(Err.FENCED_INSTANCE_ID, member_id)
        if self.state == PREPARING:
            return await self._update_member_and_wait(member, **args)
        if self.state == COMPLETING:
            if member.protocols == protocols:
                return self._current_generation(member)
            return await self._update_member_and_wait(member, **args)
        # Stable
        if member_id == self.leader or member.protocols != protocols:
            return await self._update_member_and_wait(member, **args)
        return self._current_generation(member)

    def _supports(self, protocol_type: str, protocols: list[tuple[str, bytes]]) -> bool:
        if not protocol_type or not protocols:
            return False
        if not self.members:
            return True
        if protocol_type != self.protocol_type:
            return False
        common = set.intersection(*(set(m.protocol_names) for m in self.members.values()))
        return any(name in common for name, _ in protocols)

    async def _join_static_unknown(self, new_id: str, *, instance_id, **args) -> JoinResult:
        """A static member (re)joins without its member id: it takes over its old identity."""
        old_id = self.static.get(instance_id)
        if old_id is not None and old_id in self.members:
            old = self.members.pop(old_id)
            self.timers.cancel(("session", self.group_id, old_id))
            old.member_id = new_id
            self.members[new_id] = old
            if self.leader == old_id:
                self.leader = new_id
            self.static[instance_id] = new_id
            for fut, result in ((old.join_future, JoinResult(Err.FENCED_INSTANCE_ID, old_id)),
                                (old.sync_future, Err.FENCED_INSTANCE_ID)):
                if fut is not None and not fut.done():
                    fut.set_result(result)
            old.join_future = old.sync_future = None
            return await self._update_member_and_wait(old, instance_id=instance_id, **args)
        return await self._add_member_and_wait(new_id, instance_id=instance_id, **args)

    async def _add_member_and_wait(self, member_id: str, *, instance_id, client_id, client_host,
                                   session_timeout_ms, rebalance_timeout_ms, protocol_type,
                                   protocols) -> JoinResult:
        member = ClassicMember(member_id, instance_id, client_id, client_host, session_timeout_ms,
                               rebalance_timeout_ms, protocol_type, protocols)
        if not self.members:
            if self.protocol_type != protocol_type:
                self.protocol_type = protocol_type
                self.on_change()
        if self.leader is None:
            self.leader = member_id
        self.members[member_id] = member
        if instance_id is not None:
            self.static[instance_id] = member_id
        return await self._wait_for_join(member)

    async def _update_member_and_wait(self, member: ClassicMember, *, instance_id, client_id, client_host,
                                      session_timeout_ms, rebalance_timeout_ms, protocol_type,
                                      protocols) -> JoinResult:
        member.client_id, member.client_host = client_id, client_host
        member.session_timeout_ms, member.rebalance_timeout_ms = session_timeout_ms, rebalance_timeout_ms
        member.protocol_type, member.protocols = protocol_type, protocols
        return await self._wait_for_join(member)

    async def _wait_for_join(self, member: ClassicMember) -> JoinResult:
        if member.join_future is not None and not member.join_future.done():
            member.join_future.set_result(JoinResult(Err.UNKNOWN_MEMBER_ID, member.member_id))
        member.join_future = asyncio.get_running_loop().create_future()
        future = member.join_future
        if self.state in (EMPTY, STABLE, COMPLETING):
            self._prepare_rebalance()
        self._maybe_complete_join()
        return await future

    def _current_generation(self, member: ClassicMember) -> JoinResult:
        return JoinResult(Err.NONE, member.member_id, self.generation, self.protocol_type,
                          self.protocol_name, self.leader or "",
                          self._member_list() if member.member_id == self.leader else [])

    def _member_list(self) -> list[tuple[str, str | None, bytes]]:
        return [(m.member_id, m.instance_id, m.metadata(self.protocol_name))
                for m in self.members.values()]

    # ---- the rebalance -------------------------------------------------------------------
    def _prepare_rebalance(self) -> None:
        if self.state == COMPLETING:
            self._fail_pending_syncs(Err.REBALANCE_IN_PROGRESS)
        self.timers.cancel(("sync", self.group_id))
        was_empty = self.state == EMPTY
        self.state = PREPARING
        timeout = max((m.rebalance_timeout_ms for m in self.members.values()), default=0)
        self._initial_delay = was_empty and self.config.initial_rebalance_delay_ms > 0
        delay = min(self.config.initial_rebalance_delay_ms, timeout) if self._initial_delay else timeout
        self.timers.schedule(("join", self.group_id), delay, self._on_join_timeout)

    def _on_join_timeout(self) -> None:
        if self.state == PREPARING:
            self._initial_delay = False
            self._complete_join()

    def _maybe_complete_join(self) -> None:
        if self.state != PREPARING or self._initial_delay:
            return
        if not self.pending and all(m.join_future is not None for m in self.members.values()):
            self._complete_join()

    def _complete_join(self) -> None:
        self.timers.cancel(("join", self.group_id))
        for member in [m for m in self.members.values() if m.join_future is None]:
            self._remove(member)
        self.generation += 1
        if not self.members:
            self.state, self.protocol_name, self.leader = EMPTY, None, None
            return
        self.protocol_name = self._select_protocol()
        if self.leader not in self.members:
            self.leader = next(iter(self.members))
        self.state = COMPLETING
        for member in self.members.values():
            future, member.join_future = member.join_future, None
            member.assignment = b""
            if future is not None and not future.done():
                future.set_result(self._current_generation(member))
            self._arm_session(member)
        generation = self.generation
        timeout = max(m.rebalance_timeout_ms for m in self.members.values())
        self.timers.schedule(("sync", self.group_id), timeout, lambda: self._on_sync_timeout(generation))

    def _select_protocol(self) -> str:
        common = set.intersection(*(set(m.protocol_names) for m in self.members.values()))
        votes = Counter(next(n for n in m.protocol_names if n in common) for m in self.members.values())
        return max(sorted(votes), key=lambda name: votes[name])

    def _on_sync_timeout(self, generation: int) -> None:
        """The leader's assignment did not arrive in time: members that did not sync are
        removed and the group rebalances."""
        if self.state == COMPLETING and self.generation == generation:
            for member in [m for m in self.members.values() if m.sync_future is None]:
                self._remove(member)
            self._rebalance_after_removal()

    def _fail_pending_syncs(self, error: Err) -> None:
        for member in self.members.values():
            if member.sync_future is not None and not member.sync_future.done():
                member.sync_future.set_result(error)
            member.sync_future = None

    # ---- SyncGroup -----------------------------------------------------------------------
    async def sync(self, *, member_id: str, instance_id: str | None, generation: int,
                   protocol_type: str | None, protocol_name: str | None,
                   assignments: dict[str, bytes]) -> tuple[Err, bytes]:
        error = self._validate_member(member_id, instance_id, generation)
        if error:
            return error, b""
        if (protocol_type is not None and protocol_type != self.protocol_type) or (
                protocol_name is not None and protocol_name != self.protocol_name):
            return Err.INCONSISTENT_GROUP_PROTOCOL, b""
        member = self.members[member_id]
        if self.state == PREPARING:
            return Err.REBALANCE_IN_PROGRESS, b""
        if self.state == STABLE:
            self._arm_session(member)
            return Err.NONE, member.assignment
        member.sync_future = asyncio.get_running_loop().create_future()
        future = member.sync_future
        if member_id == self.leader:
            for m in self.members.values():
                m.assignment = assignments.get(m.member_id, b"")
            self.timers.cancel(("sync", self.group_id))
            self.state = STABLE
            for m in self.members.values():
                if m.sync_future is not None and not m.sync_future.done():
                    m.sync_future.set_result(Err.NONE)
                m.sync_future = None
        error = await future
        if error:
            return error, b""
        self._arm_session(member)
        return Err.NONE, member.assignment

    # ---- Heartbeat -----------------------------------------------------------------------
    def heartbeat(self, member_id: str, instance_id: str | None, generation: int) -> Err:
        if self.state == DEAD:
            return Err.COORDINATOR_NOT_AVAILABLE
        error = self._validate_member(member_id, instance_id, generation)
        if error:
            return error
        self._arm_session(self.members[member_id])
        return Err.REBALANCE_IN_PROGRESS if self.state == PREPARING else Err.NONE

    def _validate_member(self, member_id: str, instance_id: str | None, generation: int) -> Err:
        if self.state == DEAD:
            return Err.COORDINATOR_NOT_AVAILABLE
        if member_id not in self.members:
            return Err.UNKNOWN_MEMBER_ID
        if instance_id is not None and self.static.get(instance_id) != member_id:
            return Err.FENCED_INSTANCE_ID
        if generation != self.generation:
            return Err.ILLEGAL_GENERATION
        return Err.NONE

    # ---- LeaveGroup ----------------------------------------------------------------------
    def leave(self, identities: list[tuple[str, str | None]]) -> list[Err]:
        results = []
        for member_id, instance_id in identities:
            if not member_id and instance_id is not None:
                member_id = self.static.get(instance_id, "")
            elif instance_id is not None and self.static.get(instance_id) != member_id:
                results.append(Err.FENCED_INSTANCE_ID if instance_id in self.static else Err.UNKNOWN_MEMBER_ID)
                continue
            if member_id in self.pending:
                self.pending.discard(member_id)
                self.timers.cancel(("pending", self.group_id, member_id))
                self._maybe_complete_join()
                results.append(Err.NONE)
            elif member_id in self.members:
                self._remove(self.members[member_id])
                self._rebalance_after_removal()
                results.append(Err.NONE)
            else:
                results.append(Err.UNKNOWN_MEMBER_ID)
        return results

    # ---- membership upkeep ---------------------------------------------------------------
    def _arm_session(self, member: ClassicMember) -> None:
        member_id = member.member_id
        self.timers.schedule(("session", self.group_id, member_id), member.session_timeout_ms,
                             lambda: self._expire(member_id))

    def _expire(self, member_id: str) -> None:
        member = self.members.get(member_id)
        if member is None:
            return
        if member.join_future is not None or member.sync_future is not None:
            self._arm_session(member)       # waiting in the barrier keeps the member alive
            return
        self._remove(member)
        self._rebalance_after_removal()

    def _expire_pending(self, member_id: str) -> None:
        if member_id in self.pending:
            self.pending.discard(member_id)
            self._maybe_complete_join()

    def _remove(self, member: ClassicMember) -> None:
        self.members.pop(member.member_id, None)
        self.timers.cancel(("session", self.group_id, member.member_id))
        if member.instance_id is not None and self.static.get(member.instance_id) == member.member_id:
            del self.static[member.instance_id]
        if member.join_future is not None and not member.join_future.done():
            member.join_future.set_result(JoinResult(Err.UNKNOWN_MEMBER_ID, member.member_id))
        if member.sync_future is not None and not member.sync_future.done():
            member.sync_future.set_result(Err.UNKNOWN_MEMBER_ID)
        if self.leader == member.member_id:
            self.leader = next(iter(self.members), None)

    def _rebalance_after_removal(self) -> None:
        if self.state in (STABLE, COMPLETING):
            self._prepare_rebalance()
        self._maybe_complete_join()

    def shutdown(self) -> None:
        """The group is deleted or the coordinator stops: fail every waiter, stop every timer."""
        self.state = DEAD
        for member in list(self.members.values()):
            self._remove(member)
        for key in [("join", self.group_id), ("sync", self.group_id)] + [
                ("pending", self.group_id, p) for p in self.pending]:
            self.timers.cancel(key)
        self.pending.clear()

    # ---- offsets -------------------------------------------------------------------------
    def validate_commit(self, member_id: str, instance_id: str | None, generation: int) -> None:
        if self.state == DEAD:
            raise BrokerError(Err.COORDINATOR_NOT_AVAILABLE)
        if generation < 0 and self.state == EMPTY:
            return
        if generation >= 0 or member_id or instance_id is not None:
            if member_id not in self.members:
                raise BrokerError(Err.UNKNOWN_MEMBER_ID)
            if instance_id is not None and self.static.get(instance_id) != member_id:
                raise BrokerError(Err.FENCED_INSTANCE_ID)
            if generation != self.generation:
                raise BrokerError(Err.ILLEGAL_GENERATION)
        elif self.state != EMPTY:
            raise BrokerError(Err.UNKNOWN_MEMBER_ID)
        if self.state == COMPLETING:
            raise BrokerError(Err.REBALANCE_IN_PROGRESS)
        if self.state in (STABLE, PREPARING):
            self._arm_session(self.members[member_id])

    def validate_offset_delete(self) -> None:
        if self.state == DEAD:
            raise BrokerError(Err.GROUP_ID_NOT_FOUND)
        if self.state != EMPTY and self.protocol_type != "consumer":
            raise BrokerError(Err.NON_EMPTY_GROUP)

    def validate_delete(self) -> None:
        if self.state == DEAD:
            raise BrokerError(Err.GROUP_ID_NOT_FOUND)
        if self.state != EMPTY:
            raise BrokerError(Err.NON_EMPTY_GROUP)


def _subscription_topics(metadata: bytes) -> list[str]:
    version = int.from_bytes(metadata[:2], "big", signed=True)
    version = min(max(version, 0), ConsumerProtocolSubscription.max_version)
    return list(ConsumerProtocolSubscription.decode(metadata, version=version).topics)

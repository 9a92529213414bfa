"""Streams groups (KIP-1071, group.protocol=streams): the topology a Kafka Streams application
declares, its validation against the cluster's topics, the broker-side task assignment and the
reconciliation of each member towards it. The KIP-1282 creation time is stamped once, when the
group is created, as for consumer groups.

A streams group is a consumer-protocol group whose "partitions" are tasks ``(subtopology id,
partition)``: the member epochs, the group and target assignment epochs, static membership, the
revocation of active tasks before another member gets them and the session timeouts are the
consumer group's (``kcli.broker.groups.consumer``). What differs, as Apache Kafka 4.4's
GroupMetadataManager.streamsGroupHeartbeat does it:

- the first member to join (epoch 0, the topology is mandatory then) initializes the group's
  topology; a later member with the same epoch must send the same topology (else
  INVALID_REQUEST "Topology updates are not supported yet."), a lower one gets STALE_TOPOLOGY;
- the topology is "configured" against the cluster's topics on every heartbeat: every source
  topic must exist (else MISSING_SOURCE_TOPICS, state NotReady, no tasks); a subtopology has as
  many tasks as its largest source topic (repartition sources included) has partitions; the
  repartition and changelog topics it declares are created by the coordinator once the source
  topics exist (the heartbeat that finds them missing answers MISSING_INTERNAL_TOPICS; the next
  one finds them and the topology is ready);
- the target assignment gives every task of a ready topology to one member, balanced and sticky
  (members keep the tasks they hold while balance allows); with ``group.streams.num.standby.replicas``
  > 0, each task of a stateful subtopology (one with changelog topics) also gets that many standby
  replicas on members of other processes than its active one, where there are any;
- the group waits ``group.streams.initial.rebalance.delay.ms`` after its first member joined an
  empty group before it computes an assignment (ASSIGNMENT_DELAYED meanwhile).

Not done (versus 4.4): the process-aware StickyTaskAssignor (tasks are balanced over members,
not processes first), warm-up tasks, rack-aware standbys and client tags, copartition
enforcement, source topic regexes, endpoint-to-partitions for interactive queries, task offsets
used for lag, the topology description (KIP-1331, never required here), ShutdownApplication.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal

from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups.assignors import uniform
from kcli.broker.groups.consumer import (STABLE, HeartbeatResult, LEAVE_EPOCH, ModernGroup, ModernMember,
                                         STATIC_LEAVE_EPOCH)

Task = tuple[str, int]                      # (subtopology id, partition)

# StreamsGroupHeartbeatResponse.Status codes
STALE_TOPOLOGY, MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS = 0, 1, 2
MISSING_INTERNAL_TOPICS, SHUTDOWN_APPLICATION, ASSIGNMENT_DELAYED = 3, 4, 5


@dataclass(frozen=True)
class TopicInfo:
    name: str
    partitions: int = 0                     # 0: decided by the coordinator
    replication_factor: int = 0             # 0: the broker's default
    configs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    state_changelog_topics: tuple[TopicInfo, ...] = ()
    repartition_source_topics: tuple[TopicInfo, ...] = ()


@dataclass(frozen=True)
class Topology:
    epoch: int
    subtopologies: tuple[Subtopology, ...]

    @classmethod
    def from_request(cls, t) -> "Topology":
        def info(i):
            return TopicInfo(i.name, i.partitions, i.replication_factor,
                             tuple(sorted((kv.key, kv.value) for kv in i.topic_configs or [])))
        return cls(t.epoch, tuple(sorted((Subtopology(
            s.subtopology_id, tuple(sorted(s.source_topics)), tuple(sorted(s.repartition_sink_topics)),
            tuple(sorted((info(i) for i in s.state_changelog_topics), key=lambda i: i.name)),
            tuple(sorted((info(i) for i in s.repartition_source_topics), key=lambda i: i.name)))
            for s in t.subtopologies), key=lambda s: s.subtopology_id)))

    def to_json(self) -> dict:
        return {"epoch": self.epoch, "subtopologies": [
            {"id": s.subtopology_id, "sources": list(s.source_topics), "sinks": list(s.repartition_sink_topics),
             "changelogs": [_info_json(i) for i in s.state_changelog_topics],
             "repartitions": [_info_json(i) for i in s.repartition_source_topics]}
            for s in self.subtopologies]}

    @classmethod
    def from_json(cls, d: dict) -> "Topology":
        return cls(d["epoch"], tuple(Subtopology(
            s["id"], tuple(s["sources"]), tuple(s["sinks"]),
            tuple(_info_from_json(i) for i in s["changelogs"]),
            tuple(_info_from_json(i) for i in s["repartitions"])) for s in d["subtopologies"]))


def _info_json(i: TopicInfo) -> list:
    return [i.name, i.partitions, i.replication_factor, [list(kv) for kv in i.configs]]


def _info_from_json(v: list) -> TopicInfo:
    return TopicInfo(v[0], v[1], v[2], tuple(tuple(kv) for kv in v[3]))


@dataclass(frozen=True)
class Configured:
    """A topology configured against the cluster's topics: tasks per subtopology and the
    partition count of each internal topic, or why it is not ready (a heartbeat status)."""
    tasks: dict[str, int]                   # subtopology id -> number of tasks
    internal: dict[str, tuple[TopicInfo, int]]    # internal topic -> (declared, partitions)
    status: tuple[int, str] | None = None
    missing_internal: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return self.status is None


def configure(topology: Topology, partition_count: Callable[[str], int | None]) -> Configured:
    """InternalTopicManager.configureTopics for topologies without copartition groups."""
    missing = sorted({t for s in topology.subtopologies for t in s.source_topics if partition_count(t) is None})
    if missing:
        return Configured({}, {}, (MISSING_SOURCE_TOPICS, f"Source topics {_summary(missing)} are missing."))
    decided: dict[str, int] = {}

    def count(topic: str) -> int | None:
        known = partition_count(topic)
        return known if known is not None else decided.get(topic)

    def resolved(topic: str) -> int:
        """``count`` once every topic a subtopology reads has one (past the checks below)."""
        known = partition_count(topic)
        return known if known is not None else decided[topic]

    # Repartition topics without a fixed count take the largest partition count of the source
    # topics of the subtopologies that write to them (RepartitionTopics.setup).
    for s in topology.subtopologies:
        for info in s.repartition_source_topics:
            if info.partitions:
                decided[info.name] = info.partitions
    progress = True
    while progress:
        progress = False
        for s in topology.subtopologies:
            for info in s.repartition_source_topics:
                if count(info.name) is not None:
                    continue
                upstream = [count(t) for w in topology.subtopologies if info.name in w.repartition_sink_topics
                            for t in (*w.source_topics, *(r.name for r in w.repartition_source_topics))]
                known = [c for c in upstream if c is not None]
                if upstream and len(known) == len(upstream):
                    decided[info.name], progress = max(known), True
    unresolved = sorted(i.name for s in topology.subtopologies for i in s.repartition_source_topics
                        if count(i.name) is None)
    if unresolved:
        return Configured({}, {}, (INCORRECTLY_PARTITIONED_TOPICS,
                                   f"Unable to decide the number of partitions of {_summary(unresolved)}."))
    tasks = {s.subtopology_id: max([resolved(t) for t in (*s.source_topics,
                                                          *(r.name for r in s.repartition_source_topics))],
                                   default=0) for s in topology.subtopologies}
    internal: dict[str, tuple[TopicInfo, int]] = {}
    for s in topology.subtopologies:
        for info in s.repartition_source_topics:
            internal[info.name] = (info, resolved(info.name))
        for info in s.state_changelog_topics:       # as many partitions as the subtopology has tasks
            internal[info.name] = (info, info.partitions or tasks[s.subtopology_id])
    wrong = [(name, n, partition_count(name)) for name, (_, n) in sorted(internal.items())
             if partition_count(name) not in (None, n)]
    if wrong:
        name, expected, found = wrong[0]
        return Configured({}, {}, (INCORRECTLY_PARTITIONED_TOPICS, f"Existing topic {name} has different number "
                                   f"of partitions: expected {expected}, found {found}"))
    missing_internal = tuple(sorted(name for name in internal if partition_count(name) is None))
    status = (MISSING_INTERNAL_TOPICS, f"Internal topics are missing: {_summary(missing_internal)}") \
        if missing_internal else None
    return Configured(tasks, internal, status, missing_internal)


def _summary(topics) -> str:
    topics = list(topics)
    shown = ", ".join(topics[:3])
    return shown + (f" and {len(topics) - 3} additional topics" if len(topics) > 3 else "")


@dataclass
class StreamsMember(ModernMember[Task]):
    topology_epoch: int = -1
    process_id: str = ""
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] = field(default_factory=dict)
    standby: set[Task] = field(default_factory=set)
    task_offsets: list[tuple[str, int, int]] = field(default_factory=list)
    task_end_offsets: list[tuple[str, int, int]] = field(default_factory=list)

    def metadata(self) -> tuple:
        return (self.instance_id, self.rack_id, self.rebalance_timeout_ms, self.topology_epoch,
                self.process_id, self.user_endpoint, tuple(sorted(self.client_tags.items())))


@dataclass
class StreamsHeartbeatResult(HeartbeatResult[Task]):
    standby: list[Task] | None = None
    status: list[tuple[int, str]] = field(default_factory=list)


class StreamsGroup(ModernGroup[StreamsMember, Task]):
    kind: Literal["streams"] = "streams"
    protocol_type = "streams"

    def __init__(self, *args, create_topic: Callable[[TopicInfo, int], str | None] = lambda info, n: None,
                 topology: Topology | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.session_timeout_ms = self.config.streams_session_timeout_ms
        self.max_size = self.config.streams_max_size
        self.topology = topology
        self.configured: Configured | None = None
        self.validated_epoch = -1
        self.standby_target: dict[str, set[Task]] = {}
        self._create_topic = create_topic

    # ---- queries -------------------------------------------------------------------------
    @property
    def state(self) -> str:
        if self.members and (self.topology is None or self.validated_epoch != self.topology.epoch):
            return "NotReady"
        return super().state

    def assignor_name(self) -> str:
        return "sticky"

    def subscribed_topic_names(self, member=None) -> set[str]:
        """The topics of the topology: source topics and the internal topics it declares."""
        if self.topology is None:
            return set()
        return {t for s in self.topology.subtopologies
                for t in (*s.source_topics, *(i.name for i in (*s.repartition_source_topics,
                                                                  *s.state_changelog_topics)))}

    def is_subscribed_to(self, topic: str) -> bool:
        return self.topology is not None and any(
            topic in s.source_topics or topic in {i.name for i in s.repartition_source_topics}
            for s in self.topology.subtopologies)

    def source_topics_of(self, subtopology_id: str) -> list[str]:
        for s in (self.topology.subtopologies if self.topology else ()):
            if s.subtopology_id == subtopology_id:
                return [*s.source_topics, *(i.name for i in s.repartition_source_topics)]
        return []

    # ---- StreamsGroupHeartbeat -----------------------------------------------------------
    def streams_heartbeat(self, *, member_id: str, epoch: int, instance_id: str | None, rack_id: str | None,
                          rebalance_timeout_ms: int, topology: Topology | None,
                          owned_active: list[Task] | None, owned_standby: list[Task] | None,
                          process_id: str | None, user_endpoint: tuple[str, int] | None,
                          client_tags: dict[str, str] | None, task_offsets, task_end_offsets,
                          client_id: str, client_host: str) -> StreamsHeartbeatResult:
        if epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            left = self._leave(member_id, instance_id, epoch)
            return StreamsHeartbeatResult(left.member_id, left.epoch, None)
        status: list[tuple[int, str]] = []
        was_empty = not self.members
        member = self._member_for(member_id, epoch, instance_id, owned_active)
        before_meta = member.metadata() if member.member_id in self.members else None
        before_tasks = (set(member.assigned), set(member.standby))
        self._update_member(member, epoch, instance_id=instance_id, rack_id=rack_id,
                            rebalance_timeout_ms=rebalance_timeout_ms, topology=topology, process_id=process_id,
                            user_endpoint=user_endpoint, client_tags=client_tags, task_offsets=task_offsets,
                            task_end_offsets=task_end_offsets, client_id=client_id, client_host=client_host)
        changed = before_meta != member.metadata()
        changed = self._take_topology(member, topology, status) or changed
        self.members[member.member_id] = member
        configured = self._configure()
        changed = self._revalidate(configured, owned_active) or changed
        self._advance_assignment(changed, was_empty, status)
        self._reconcile(member, owned_active, subscription_changed=False)
        if member.state == STABLE and member.epoch == self.assignment_epoch:
            member.standby = set(self.standby_target.get(member.member_id, ()))
        self._arm_session(member)
        if configured.status is not None:
            code, detail = configured.status
            failures = self._create_internal(configured)
            status.append((code, detail + "".join(f"; {name}: {why}" for name, why in failures)))
        send = epoch == 0 or (set(member.assigned), member.standby) != before_tasks
        return StreamsHeartbeatResult(member.member_id, member.epoch, sorted(member.assigned) if send else None,
                                      sorted(member.standby) if send else None, status)

    @staticmethod
    def _update_member(member: StreamsMember, epoch: int, *, instance_id: str | None, rack_id: str | None,
                       rebalance_timeout_ms: int, topology: Topology | None, process_id: str | None,
                       user_endpoint: tuple[str, int] | None, client_tags: dict[str, str] | None,
                       task_offsets, task_end_offsets, client_id: str, client_host: str) -> None:
        """The heartbeat's fields into ``member``: a field the request leaves out (None, or a
        rebalance timeout of 0) keeps its value; the user endpoint is reset on joining."""
        member.instance_id = instance_id if instance_id is not None else member.instance_id
        member.rack_id = rack_id if rack_id is not None else member.rack_id
        if rebalance_timeout_ms > 0:
            member.rebalance_timeout_ms = rebalance_timeout_ms
        if topology is not None:
            member.topology_epoch = topology.epoch
        member.process_id = process_id if process_id is not None else member.process_id
        if epoch == 0 or user_endpoint is not None:
            member.user_endpoint = user_endpoint
        if client_tags is not None:
            member.client_tags = dict(client_tags)
        if task_offsets is not None:
            member.task_offsets = list(task_offsets)
        if task_end_offsets is not None:
            member.task_end_offsets = list(task_end_offsets)
        member.client_id, member.client_host = client_id, client_host

    def _take_topology(self, member: StreamsMember, topology: Topology | None,
                       status: list[tuple[int, str]]) -> bool:
        """The group's topology: initialized by the first member (True: changed), then only
        compared (an update is refused); a member behind it gets STALE_TOPOLOGY in ``status``."""
        changed = False
        if topology is not None:
            if self.topology is None:
                self.topology, changed = topology, True
            elif self.topology.epoch > topology.epoch:
                pass
            elif self.topology != topology:
                raise BrokerError(Err.INVALID_REQUEST, "Topology updates are not supported yet.")
        epoch = self._joined_topology.epoch
        if member.topology_epoch < epoch:
            status.append((STALE_TOPOLOGY, f"The member's topology epoch {member.topology_epoch} is behind "
                                           f"the group's topology epoch {epoch}."))
        return changed

    @property
    def _joined_topology(self) -> Topology:
        """The topology its first member gave the group (none yet: INVALID_REQUEST)."""
        if self.topology is None:
            raise BrokerError(Err.INVALID_REQUEST, "Topology must be non-null when (re-)joining.")
        return self.topology

    def _revalidate(self, configured: Configured, owned_active: list[Task] | None) -> bool:
        """The topology checked against the cluster's topics (``configured``): True when that,
        the topics' metadata or the validated epoch changed; the member's owned tasks checked
        once the topology is ready."""
        changed = self._metadata_changed() or configured != self.configured
        self.configured = configured
        validated = self._joined_topology.epoch if configured.ready else -1
        if validated != self.validated_epoch:
            self.validated_epoch, changed = validated, True
        if configured.ready and owned_active:
            self._check_tasks(owned_active, configured.tasks)
        return changed

    def _advance_assignment(self, changed: bool, was_empty: bool, status: list[tuple[int, str]]) -> None:
        """A change bumps the group epoch; the target assignment follows, unless the initial
        rebalance delay of a group's first member still runs (ASSIGNMENT_DELAYED in ``status``)."""
        epochs = self.group_epoch, self.assignment_epoch
        if changed:
            self._bump()
        delay = self.config.streams_initial_rebalance_delay_ms
        if was_empty and delay > 0 and not self.timers.armed(self._delay_key):
            self.timers.schedule(self._delay_key, delay, self._compute_delayed)
        if self.timers.armed(self._delay_key):
            status.append((ASSIGNMENT_DELAYED, "Assignment delayed due to the configured initial rebalance delay."))
        elif self.group_epoch > self.assignment_epoch:
            self._compute_target()
        if (self.group_epoch, self.assignment_epoch) != epochs:
            self.on_change()

    def _new_member(self, member_id: str) -> StreamsMember:
        return StreamsMember(member_id)

    @property
    def _delay_key(self):
        return ("streams-initial-delay", self.group_id)

    def _compute_delayed(self) -> None:
        if self.members and self.group_epoch > self.assignment_epoch:
            self._compute_target()
            self.on_change()

    def _configure(self) -> Configured:
        existing = self.topics()
        return configure(self._joined_topology, lambda t: existing[t][1] if t in existing else None)

    def _create_internal(self, configured: Configured) -> list[tuple[str, str]]:
        """Creates the missing internal topics; (topic, why) for those that could not be."""
        failures = []
        for name in configured.missing_internal:
            info, partitions = configured.internal[name]
            why = self._create_topic(info, partitions)
            if why is not None:
                failures.append((name, why))
        return failures

    @staticmethod
    def _check_tasks(tasks: list[Task], counts: dict[str, int]) -> None:
        for sub, partition in tasks:
            count = counts.get(sub)
            if count is None:
                raise BrokerError(Err.INVALID_REQUEST, f"Subtopology {sub} does not exist in the topology.")
            if not 0 <= partition < count:
                raise BrokerError(Err.INVALID_REQUEST, f"Task {partition} for subtopology {sub} is invalid. "
                                                      f"Number of tasks for this subtopology: {count}")

    # ---- the target assignment -----------------------------------------------------------
    def _compute_target(self) -> None:
        configured = self.configured
        tasks = configured.tasks if configured is not None and configured.ready else {}
        subtopologies = frozenset(tasks)
        self.target = uniform({m: subtopologies for m in self.members}, tasks, self.target)
        self.standby_target = self._standbys(tasks)
        self.assignment_epoch = self.group_epoch

    def _standbys(self, tasks: dict[str, int]) -> dict[str, set[Task]]:
        """``num.standby.replicas`` standbys of each stateful task, each on a member of another
        process than the task's active one and its other standbys, the least loaded first."""
        replicas = self.config.streams_num_standby_replicas
        out: dict[str, set[Task]] = {m: set() for m in self.members}
        if not replicas or self.topology is None:
            return out
        stateful = {s.subtopology_id for s in self.topology.subtopologies if s.state_changelog_topics}
        active_owner = {t: m for m, ts in self.target.items() for t in ts}
        load = {m: len(self.target.get(m, ())) for m in self.members}
        for task in sorted((s, p) for s in stateful for p in range(tasks.get(s, 0))):
            processes = {self.members[active_owner[task]].process_id} if task in active_owner else set()
            for _ in range(replicas):
                candidates = [m for m in sorted(self.members) if self.members[m].process_id not in processes]
                if not candidates:
                    break
                chosen = min(candidates, key=lambda m: (load[m], m))
                out[chosen].add(task)
                load[chosen] += 1
                processes.add(self.members[chosen].process_id)
        return out

    def remove(self, member) -> None:
        super().remove(member)
        if not self.members:
            self.standby_target = {}
            self.timers.cancel(self._delay_key)

    def shutdown(self) -> None:
        super().shutdown()
        self.timers.cancel(self._delay_key)

    # ---- offsets -------------------------------------------------------------------------
    def validate_commit(self, member_id: str, epoch: int, topic_partitions, api_version: int = 10) -> None:
        """StreamsGroup.validateOffsetCommit: a member commits with OffsetCommit v9+ and its
        member epoch; an older epoch only for the tasks it was assigned at that epoch.
        ``topic_partitions``: the (topic name, partition) pairs of the commit."""
        if epoch < 0 and not self.members:
            return
        member = self.members.get(member_id)
        if member is None:
            raise BrokerError(Err.UNKNOWN_MEMBER_ID)
        if api_version < 9:
            raise BrokerError(Err.UNSUPPORTED_VERSION, "OffsetCommit version 9 or above must be used "
                                                      "by members using the streams group protocol")
        tasks: list[Task] = []
        for topic, partition in topic_partitions:
            tasks.extend((s.subtopology_id, partition) for s in (self.topology.subtopologies if self.topology else ())
                         if topic in self.source_topics_of(s.subtopology_id))
        super().validate_commit(member_id, epoch, tasks)

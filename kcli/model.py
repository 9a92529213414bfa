"""Plain records (``kcli.datatypes``: dataclasses, lighter to import) shared by every layer: what
the admin adapter returns, what planners take and what renderers print. No Kafka client types
cross this boundary.

Conventions: a time is epoch milliseconds; -1 means the broker reported "unknown"; ``None`` means
the broker cannot report the field at all (its API version is too old), and renderers omit it.
"""

from __future__ import annotations

from kcli.datatypes import field, datatype

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})


@datatype
class PartitionInfo:
    partition: int
    leader: int | None                      # None: no leader
    replicas: list[int]
    isr: list[int]
    elr: list[int] | None = None            # None: not available (N/A)
    last_known_elr: list[int] | None = None
    creation_time_ms: int | None = None     # KIP-1327; -1 unknown, None not offered
    leader_epoch: int = -1


@datatype
class TopicInfo:
    name: str
    topic_id: str | None
    partitions: list[PartitionInfo]
    internal: bool = False
    configs: dict[str, str] = field(default_factory=dict)   # non-default entries only

    @property
    def replication_factor(self) -> int:
        return len(self.partitions[0].replicas) if self.partitions else 0


@datatype
class ConfigEntry:
    name: str
    value: str | None
    source: str                      # DEFAULT_CONFIG, DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, ...
    is_default: bool
    is_sensitive: bool = False
    read_only: bool = False
    synonyms: list[tuple[str, str | None, str]] = field(default_factory=list)  # (name, value, source)


@datatype
class ResourceConfig:
    resource_type: str               # "topic" | "broker"
    name: str
    entries: list[ConfigEntry]


@datatype(slots=True)
class OffsetInfo:
    topic: str
    partition: int
    offset: int                      # -1: none (e.g. no record at/after a timestamp)
    timestamp_ms: int | None = None  # the record's timestamp for time lookups; None when N/A
    leader_epoch: int | None = None
    error: str | None = None
    unanswered: bool = False         # the leader gave no answer (``error`` says why): nothing is known


# A RecordTime's error when the partition's last stable offset is at or before the offset asked:
# an open transaction holds the records after it back from read_committed consumers.
HELD_BY_TRANSACTION = "an open transaction holds back the records from offset"


@datatype(slots=True)
class RecordTime:
    """What one bounded Fetch at ``offset`` tells of the first record at or after it (the next
    record a consumer positioned there reads): its timestamp and offset when that record lay
    within the bytes read; otherwise ``bound_ms``, the MaxTimestamp of the batch holding it (the
    record's timestamp is no later). All None with ``error`` None: no record at or after
    ``offset`` below ``high_watermark``. ``log_append_time``: the batch's timestamp type says
    the broker stamped it (LogAppendTime), None when no batch was read."""
    topic: str
    partition: int
    offset: int
    timestamp_ms: int | None = None
    record_offset: int | None = None
    bound_ms: int | None = None
    high_watermark: int | None = None
    error: str | None = None
    log_append_time: bool | None = None


@datatype(frozen=True)
class BrokerError:
    """An error reported for one item (a group, a topic, a partition): Kafka's protocol error
    code (negative for an error of the client library itself), its name and the client's text."""
    code: int
    name: str
    message: str


@datatype
class BrokerInfo:
    node_id: int
    host: str
    port: int
    rack: str | None = None
    fenced: bool = False             # DescribeCluster v2 (KIP-1073): registered, not unfenced


@datatype
class ReplicaLogDir:
    """One replica in one broker's log dir (DescribeLogDirs): its size in bytes, and for a future
    replica (being moved between dirs) how far it lags the current one, in offsets."""
    broker: int
    log_dir: str
    topic: str
    partition: int
    size_bytes: int
    offset_lag: int
    future: bool = False


@datatype
class LogDirInfo:
    """One log dir of one broker (DescribeLogDirs), as the broker answered: its error code (0:
    none; a dir that failed, KAFKA_STORAGE_ERROR) and its replicas in the answer's order."""
    broker: int
    log_dir: str
    error_code: int
    replicas: list[ReplicaLogDir]


@datatype
class ApiSupport:
    """One API kcli sends, against each broker (describe cluster --api-versions): who sends it,
    the version a kcli feature needs and what for (None: any), and per broker its (id, range or
    None without the API, short of the need or not)."""
    api_key: int
    api: str
    sent_by: str
    needs: tuple[int, str] | None
    brokers: list[tuple[int, tuple[int, int] | None, bool]]


@datatype
class QuorumReplica:
    """One replica of the KRaft metadata log (DescribeQuorum), as its leader reports it: times in
    epoch ms (None: unknown, -1 on the wire)."""
    node_id: int
    directory_id: str                # Kafka's Uuid text (AAAAAAAAAAAAAAAAAAAAAA: none, a static voter)
    log_end_offset: int
    last_fetch_ms: int | None
    last_caught_up_ms: int | None


@datatype
class QuorumDescription:
    """The KRaft metadata quorum (DescribeQuorum, as kafka-metadata-quorum describes it): the
    leader, its epoch, the high watermark, voters and observers, and each voter's endpoints."""
    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: list[QuorumReplica]
    observers: list[QuorumReplica]
    endpoints: dict[int, list[str]] = field(default_factory=dict)    # "LISTENER://host:port"

    @property
    def leader(self) -> QuorumReplica | None:
        return next((v for v in self.voters if v.node_id == self.leader_id), None)

    def lag(self, replica: QuorumReplica) -> int:
        """Offsets behind the leader's log end."""
        leader = self.leader
        return (leader.log_end_offset if leader else self.high_watermark) - replica.log_end_offset

    def max_follower_lag(self) -> tuple[int, int | None]:
        """The voter furthest behind: its lag in offsets and in ms (the leader's last caught-up
        time less its; None where either is unknown), as kafka-metadata-quorum --status."""
        leader, furthest = self.leader, min(self.voters, key=lambda v: v.log_end_offset)
        if leader is None or furthest is leader:
            return (0 if leader else self.lag(furthest)), 0
        if leader.last_caught_up_ms is None or furthest.last_caught_up_ms is None:
            return self.lag(furthest), None
        return self.lag(furthest), leader.last_caught_up_ms - furthest.last_caught_up_ms


@datatype
class FeatureLevels:
    """What a broker's ApiVersions (v3+, KIP-584) says of the features: the cluster's finalized
    levels (a level of 0 is left out), the range of each the broker supports, and the finalized
    levels' epoch (None: the broker names none)."""
    finalized: dict[str, int]
    supported: dict[str, tuple[int, int]]
    epoch: int | None


@datatype
class ClusterDescription:
    """``describe cluster``: what DescribeCluster says (Metadata where the broker lacks it)."""
    cluster_id: str | None
    controller_id: int | None        # None: no controller known (-1 on the wire)
    brokers: list[BrokerInfo]
    fenced_known: bool = True        # the answer says which brokers are fenced (DescribeCluster v2)
    # ApiVersions v3+ (KIP-584) of the broker answering: the cluster's finalized feature levels,
    # and the range of each feature that broker supports
    finalized_features: dict[str, int] = field(default_factory=dict)
    supported_features: dict[str, tuple[int, int]] = field(default_factory=dict)
    # the metadata quorum (DescribeQuorum); None with ``quorum_note`` saying why
    quorum: QuorumDescription | None = None
    quorum_note: str | None = None



# -- consumer groups (kafka-consumer-groups) ------------------------------------------------------

# The group states Kafka names (org.apache.kafka.common.GroupState, less Unknown), in the Java
# tool's "Valid states are" order; a listing names any other state "Unknown", as Java's admin does.
GROUP_STATES = ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling")


@datatype
class GroupListing:
    group_id: str
    state: str                       # Stable, Empty, ... ("Unknown" when not reported)
    type: str                        # "Classic" | "Consumer"


@datatype
class GroupMember:
    member_id: str
    client_id: str
    host: str
    assignment: list[tuple[str, int]]                   # current assignment
    group_instance_id: str | None = None
    member_epoch: int | None = None                     # consumer-protocol groups only
    target_assignment: list[tuple[str, int]] | None = None
    upgraded: bool | None = None                        # True: consumer protocol; False: classic


@datatype
class GroupDescription:
    group_id: str
    state: str
    type: str                                           # "Classic" | "Consumer" | "Streams"
    assignor: str
    coordinator: BrokerInfo | None
    members: list[GroupMember] = field(default_factory=list)
    group_epoch: int | None = None                      # consumer-protocol groups only
    target_assignment_epoch: int | None = None
    creation_time_ms: int | None = None                 # KIP-1282; -1 unknown, None not offered
    exists: bool = True
    # a group that does not exist: the broker's GROUP_ID_NOT_FOUND words when it gave any
    # ("Group G is not a consumer group." for a group of another type, a streams group)
    not_found: str | None = None


@datatype(slots=True)
class CommittedOffset:
    topic: str
    partition: int
    offset: int | None                                  # None: no committed offset
    leader_epoch: int | None = None
    metadata: str = ""


@datatype(slots=True)
class PartitionPosition:
    """What a reset plan needs to know about one partition of one group."""
    topic: str
    partition: int
    committed: int | None            # None: the group has no committed offset here
    log_start: int
    log_end: int


@datatype
class AgeBounds:
    """What kcli can prove of one partition's creation time (kcli.ages): created after
    ``created_after_ms`` and at or before ``created_before_ms`` (None: no such bound), each with
    the fact that proves it (``after_source``, ``before_source``: broker, observed, record bound);
    ``now_ms``: the command's time, against which the ages are measured."""
    now_ms: int
    created_after_ms: int | None = None
    after_source: str | None = None
    created_before_ms: int | None = None
    before_source: str | None = None

    @property
    def min_age_ms(self) -> int | None:
        return None if self.created_before_ms is None else self.now_ms - self.created_before_ms

    @property
    def max_age_ms(self) -> int | None:
        return None if self.created_after_ms is None else self.now_ms - self.created_after_ms


@datatype(slots=True)
class PartitionPlan:
    group: str
    topic: str
    partition: int
    current: int | None
    new: int | None                  # None: no committed offset (restoring a rollback file's -1)
    log_start: int
    log_end: int
    timestamp_ms: int | None = None  # time scenarios: the record's timestamp at ``new``; None: no record
    rule: str | None = None          # --max-age: which rule this partition took, and why
    # moving forward: the offset of the first record a read_committed consumer reads from the
    # committed offset (the log end when none); None: not looked up, or unknown
    next_record: int | None = None
    age: AgeBounds | None = None     # --max-age: the bounds the rule decided on
    age_source: str | None = None    # --max-age: broker, observed, record bound, or unknown

    @property
    def delta(self) -> int | None:
        return None if self.current is None or self.new is None else self.new - self.current

    @property
    def skipped(self) -> int:
        """Records the group has not consumed that this plan moves its committed offset past:
        from the committed offset (or the log start, if retention removed what lay before it;
        or the group's next record, ``next_record``, when known: transaction markers and aborted
        records before it are not records it reads) up to the new offset. Counted in offsets, so
        markers and aborted records after the next record are included. 0 when the offset moves
        back, stays or was not committed."""
        if self.current is None or self.new is None:
            return 0
        return max(0, self.new - max(self.current, self.log_start, self.next_record or 0))

    @property
    def replayed(self) -> int:
        """Records the group has consumed that this plan moves its committed offset back over
        (it reads them again): from the new offset up to the committed offset (or the log end).
        0 when the offset moves forward, stays or was not committed."""
        if self.current is None or self.new is None:
            return 0
        return max(0, min(self.current, self.log_end) - max(self.new, self.log_start))


# Kinds of a reset's warnings (PlanWarning.kind, Notice.kind).
CLAMPED, NO_RECORD, SKIPS_UNREAD, REPLAYS, MISSING_GROUP, NO_PLAN = (
    "clamped", "no-record", "skips-unread", "replays", "missing-group", "no-plan")


@datatype(frozen=True)
class PlanWarning:
    """A reset's warning as a value: its kind (above) and what wording it needs. Each front end
    words it its own way: kcli's commands (kcli.render.notices), the drop-ins as the Java tools
    do (kcli.cli.dropin.javawords); nothing decides by a warning's text.

    - CLAMPED: ``asked`` (the offset the scenario gave) set to ``new`` (the log start or end);
    - NO_RECORD: no record at or after the time, ``new`` is the log end;
    - SKIPS_UNREAD: ``new`` skips ``records`` unread records past the committed ``current``;
    - REPLAYS: ``records`` already read replayed on ``partitions`` partitions (group-wide);
    - MISSING_GROUP: the group does not exist; ``execute``: the reset commits (creates it), False
      a dry run, None a comparison (never committed);
    - NO_PLAN: a --from-file reset whose file has no rows for the group."""
    kind: str
    group: str
    topic: str | None = None
    partition: int | None = None
    asked: int | None = None
    new: int | None = None
    current: int | None = None
    records: int = 0
    partitions: int = 0
    execute: bool | None = None


# Kinds of a refusal (Refusal.kind): why a group is not reset.
NOT_INACTIVE, TOPICS_NOT_IN_GROUP, NOT_AUTHORIZED = "not-inactive", "topics-not-in-group", "not-authorized"


@datatype(frozen=True)
class Refusal:
    """Why one group is not reset, as a value (worded by each front end): NOT_INACTIVE, it has
    members (``state``: its state); TOPICS_NOT_IN_GROUP, kafka-streams-groups' rule: a --topic
    partition the group has not committed; NOT_AUTHORIZED, this principal may not describe the
    group (``detail``: the refusal in kcli.errors.NotAuthorized's words)."""
    kind: str
    group: str
    state: str | None = None
    detail: str | None = None


@datatype(frozen=True)
class Notice:
    """A native command's warning in kcli's words, and its kind (above): on stderr each kind is
    summed up after a few examples (kcli.render.notices), every one with --verbose; JSON carries
    them all. ``scope``: what it is about beyond its kind (a --compare policy)."""
    kind: str
    text: str
    scope: str = ""


@datatype
class GroupPlan:
    group: str
    partitions: list[PartitionPlan] = field(default_factory=list)
    warnings: list[PlanWarning] = field(default_factory=list)   # in the order the Java tool prints them
    refused: Refusal | None = None       # why this group is not reset (it is active); no partitions then
    reset_to_ms: int | None = None       # a time scenario's timestamp (--to-start-time: the creation time)


@datatype(slots=True)
class GroupOffsetRow:
    """One row of ``describe groups --offsets`` (kafka-consumer-groups --describe)."""
    group: str
    topic: str
    partition: int
    current: int | None              # committed offset; None: none
    log_end: int | None              # None: unknown (no leader)
    leader_epoch: int | None = None
    consumer_id: str | None = None   # None: not assigned to a member ("-")
    host: str | None = None
    client_id: str | None = None
    # Lag in time (kcli.ops.lag): the timestamp of the next record to consume (None: no commit,
    # caught up or unknown) and now minus it (0 caught up; None no commit or unknown; negative:
    # the next record is stamped after now, records remain). With
    # ``time_lag_bound`` the record lay beyond the bytes read: the timestamp is its batch's
    # MaxTimestamp, so the record is no newer and the lag at least ``time_lag_ms``.
    next_timestamp_ms: int | None = None
    time_lag_ms: int | None = None
    time_lag_bound: bool = False
    time_lag_error: str | None = None
    held_by: OpenTransaction | None = None   # the open transaction holding the LSO at or before current

    @property
    def lag(self) -> int | None:
        return None if self.current is None or self.log_end is None else self.log_end - self.current


def max_time_lag(rows: list[GroupOffsetRow]) -> tuple[int | None, bool]:
    """A group's lag in time: the largest of its partitions' (None when none is known; negative
    when every known one is: all its next records are stamped after now), and whether that is
    only a lower bound: some partition's lag is itself a bound, or unknown."""
    known = [r.time_lag_ms for r in rows if r.time_lag_ms is not None]
    if not known:
        return None, False
    return max(known), any(r.time_lag_bound or r.time_lag_error is not None for r in rows)


@datatype(slots=True)
class LagLine:
    """One line of ``kcli lag show``: a group's partition, a topic's partitions or all of the
    group's (``topic``/``partition`` None when rolled up). ``lag``: the sum of known lags (None:
    none known); ``time_lag_ms``: the largest (``max_time_lag``), ``time_lag_bound`` when it is
    only a lower bound. ``current``/``log_end``: a partition line's only."""
    group: str
    type: str
    state: str
    members: int
    topic: str | None
    partition: int | None
    partitions: int
    current: int | None
    log_end: int | None
    lag: int | None
    time_lag_ms: int | None
    time_lag_bound: bool


# -- the expansion radar (kcli check expansions) --------------------------------------------------

@datatype
class SuspectedLoss:
    """Records ``[from_offset, to_offset)`` were on the partition while the group had no commit
    there (seen by kcli at ``seen_ms``), and the group's commit is now at or past ``to_offset``."""
    from_offset: int
    to_offset: int
    seen_ms: int

    @property
    def records(self) -> int:
        return self.to_offset - self.from_offset


@datatype
class GroupExposure:
    """One consumer group (with commits on the topic) on one recently created partition."""
    group: str
    group_creation_ms: int | None          # KIP-1282; None unknown or not offered
    younger_than_group: bool | None        # the partition; None when a creation time is unknown
    committed: int | None                  # None: no committed offset on the partition
    exposed: int                           # no commit: records a latest start would skip now
    lost: SuspectedLoss | None = None
    status: str = "OK"                     # EXPOSED, LOST?, READING, OK, EMPTY


@datatype
class YoungPartition:
    topic: str
    partition: int
    creation_ms: int                       # the broker's; observed: the latest it can be (first seen)
    log_start: int
    log_end: int
    groups: list[GroupExposure] = field(default_factory=list)
    source: str = "broker"                 # broker, observed (kcli saw the topic without it), unknown
    created_after_ms: int | None = None    # observed: kcli saw its topic without it then


@datatype
class NewTopic:
    """A topic created within the radar's window: its partitions are not expansions."""
    topic: str
    creation_ms: int
    partitions: int                        # its original partitions


@datatype
class ExpansionReport:
    now_ms: int
    within_ms: int
    partitions: list[YoungPartition]       # expansions: created after their topic's first partitions
    unknown_creation: int = 0              # partitions without a recorded creation time: not checked
    memory_file: str | None = None
    new_topics: list[NewTopic] = field(default_factory=list)
    # without the broker's creation times: partitions that may be young expansions (kcli has not
    # seen their topic without them, nor long enough ago), checked for exposure, rows only if exposed
    undecided: list[tuple[str, int]] = field(default_factory=list)

    def found(self, status: str) -> list[tuple[YoungPartition, GroupExposure]]:
        return [(p, g) for p in self.partitions for g in p.groups if g.status == status]

    def records(self, status: str) -> int:
        """The records behind ``status`` (EXPOSED or LOST?), each counted once however many
        groups it concerns: per partition, the union of the groups' offset ranges."""
        total = 0
        for p in self.partitions:
            ranges = sorted((g.lost.from_offset, g.lost.to_offset) if g.status != "EXPOSED" and g.lost is not None else
                            (p.log_start, p.log_end) for g in p.groups
                            if g.status == status and (g.status == "EXPOSED" or g.lost is not None))
            end = None
            for lo, hi in ranges:
                lo = lo if end is None else max(lo, end)
                if hi > lo:
                    total += hi - lo
                end = hi if end is None else max(end, hi)
        return total

    def partitions_with(self, status: str) -> int:
        """How many partitions have a group of ``status``."""
        return sum(1 for p in self.partitions if any(g.status == status for g in p.groups))


# -- streams groups (kafka-streams-groups) ---------------------------------------------------------

@datatype
class StreamsMember:
    """A member of a streams group; tasks are (subtopology id, partition) pairs."""
    member_id: str
    client_id: str
    host: str
    process_id: str
    instance_id: str | None = None
    member_epoch: int | None = None
    topology_epoch: int | None = None
    is_classic: bool = False
    active: list[tuple[str, int]] = field(default_factory=list)
    standby: list[tuple[str, int]] = field(default_factory=list)
    warmup: list[tuple[str, int]] = field(default_factory=list)
    target_active: list[tuple[str, int]] = field(default_factory=list)
    target_standby: list[tuple[str, int]] = field(default_factory=list)
    target_warmup: list[tuple[str, int]] = field(default_factory=list)


@datatype
class StreamsGroupDescription:
    """StreamsGroupDescribe's view of a group. ``creation_time_ms``: KIP-1282, from
    StreamsGroupDescribe v2+ only (-1 unknown, None: the broker's version has no such field)."""
    group_id: str
    state: str
    coordinator: BrokerInfo | None
    group_epoch: int | None = None
    target_assignment_epoch: int | None = None
    topology_epoch: int | None = None
    # subtopology id -> the topics its tasks read (source and repartition source topics)
    source_topics: dict[str, list[str]] = field(default_factory=dict)
    members: list[StreamsMember] = field(default_factory=list)
    creation_time_ms: int | None = None
    assignor: str | None = None                          # v1+ (KIP-1331)
    describe_version: int | None = None
    # the topology's input topics: its subtopologies' source topics, not the repartition topics
    # (kafka-streams-groups' --all-input-topics), sorted
    input_topics: list[str] = field(default_factory=list)
    # its repartition and changelog topics that are not input topics, in the describe's order
    internal_topics: list[str] = field(default_factory=list)


# -- share groups (KIP-932: kafka-share-groups) ---------------------------------------------------
@datatype
class ShareMember:
    """A member of a share group; ``assignment``: (topic, partition) pairs, sorted."""
    member_id: str
    client_id: str
    host: str
    member_epoch: int
    rack: str | None = None
    subscribed: list[str] = field(default_factory=list)
    assignment: list[tuple[str, int]] = field(default_factory=list)


@datatype
class ShareGroupDescription:
    """ShareGroupDescribe's view of a group (v1, KIP-932)."""
    group_id: str
    state: str                                          # Empty, Stable, Dead (ShareGroupState)
    coordinator: BrokerInfo | None
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: list[ShareMember] = field(default_factory=list)


@datatype
class ShareOffset:
    """A share-partition's state (DescribeShareGroupOffsets): its start offset (None: the group
    has not initialized the partition), leader epoch and lag (v1+, KIP-1226; None: not known)."""
    topic: str
    partition: int
    start_offset: int | None
    leader_epoch: int | None = None
    lag: int | None = None
    error: BrokerError | None = None


@datatype
class TopicSize:
    """A topic's size as the streams state view shows an application's internal topics:
    ``partitions`` None when the topic does not exist (not created yet, or deleted); ``records``
    the sum over its partitions of log end minus log start, None when a partition's is unknown;
    ``size_bytes`` the sum of its partitions' leader replicas' bytes (DescribeLogDirs), None
    likewise."""
    topic: str
    partitions: int | None
    records: int | None
    size_bytes: int | None = None


# -- check broker (conformance) -------------------------------------------------------------

@datatype
class ProduceOutcome:
    """One Produce of one batch to one partition, as the broker answered it."""
    error: str | None                      # Kafka's error name, None when appended
    message: str | None = None             # ErrorMessage (v8+)
    record_errors: list[tuple[int, str | None]] = field(default_factory=list)   # KIP-467 (index, message)
    base_offset: int = -1


@datatype
class HeartbeatAnswer:
    """One ConsumerGroupHeartbeat answer."""
    error: str | None
    member_id: str | None
    member_epoch: int
    group_creation_ms: int | None          # v2+ (KIP-1282); None below


@datatype
class LayoutReading:
    """A ConsumerGroupHeartbeat v2 answer's bytes as one layout reads them (check broker's
    heartbeat-v2.layout): ``accepted`` (accepted KIP-1327's, with kcli's tagged GroupCreationTimeMs)
    or ``seed`` (KIP-1282's seed, GroupCreationTimeMs positional)."""
    layout: str
    left: int                              # the bytes left over; -1: the layout could not read them
    error: str | None = None               # the error code's name, None for none
    member_id: str | None = None
    member_epoch: int | None = None
    heartbeat_interval_ms: int | None = None
    group_creation_ms: int | None = None   # as the layout reads it; None when it read none
    partitions: list[int] = field(default_factory=list)          # assigned, over every topic
    new_partitions: list[int] | None = None                      # accepted's tag 0; None when absent


@datatype
class RuleResult:
    """One conformance rule of ``check broker``: pass, fail or unsupported, with its evidence."""
    rule: str                              # a stable id: creation-time.present, kip-734.ties, ...
    kip: str                               # KIP-1327, KIP-1282, KIP-937, KIP-734, ListOffsets
    status: str                            # PASS, FAIL, UNSUPPORTED
    evidence: str                          # what was sent and seen, one line
    data: dict = field(default_factory=dict)   # the evidence's values, for JSON


@datatype
class BrokerCheckReport:
    topic: str
    group: str
    rules: list[RuleResult]
    created: list[str] = field(default_factory=list)     # what the check created ("topic X", "group Y")
    deleted: list[str] = field(default_factory=list)     # what it deleted afterwards
    kept: list[str] = field(default_factory=list)        # left in place (--keep)
    dry_run: bool = False
    saved: str | None = None                             # --save FILE
    baseline: str | None = None                          # --baseline FILE

    def failed(self) -> list[RuleResult]:
        return [r for r in self.rules if r.status == "FAIL"]


# -- ACLs (kafka-acls) ----------------------------------------------------------------------------

# Kafka's names (org.apache.kafka.common.resource.ResourceType, acl.AclOperation, ...), as its
# records print them; the wire codes are the adapter's.
ACL_RESOURCE_TYPES = ("TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER")
ACL_OPERATIONS = ("ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION",
                  "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS",
                  "TWO_PHASE_COMMIT")
CLUSTER_NAME = "kafka-cluster"          # the one cluster resource's name (Resource.CLUSTER_NAME)


@datatype(frozen=True)
class AclRule:
    """One ACL binding: a resource pattern and an access control entry, in Kafka's names
    (``TOPIC``, ``LITERAL``/``PREFIXED``, ``User:alice``, ``*`` or an address, ``READ``,
    ``ALLOW``/``DENY``)."""
    resource_type: str
    name: str
    pattern_type: str
    principal: str
    host: str
    operation: str
    permission: str


@datatype(frozen=True)
class AclFilter:
    """Which bindings a describe or delete names: None is any value (name, principal, host);
    ``ANY`` any resource type, pattern type, operation or permission; pattern type ``MATCH``
    every pattern that matches the name (literal, ``*`` and prefixes)."""
    resource_type: str = "ANY"
    name: str | None = None
    pattern_type: str = "ANY"
    principal: str | None = None
    host: str | None = None
    operation: str = "ANY"
    permission: str = "ANY"
# -- transactions (ListTransactions, DescribeTransactions, DescribeProducers) -------------------

@datatype
class TransactionListing:
    transactional_id: str
    coordinator: int                     # the broker that listed it
    producer_id: int
    state: str                           # Java's TransactionState name: Ongoing, Empty, CompleteCommit...


@datatype
class TransactionDescription:
    transactional_id: str
    coordinator: int
    producer_id: int
    producer_epoch: int
    state: str
    timeout_ms: int
    start_time_ms: int | None            # None: no transaction under way
    partitions: list[tuple[str, int]] = field(default_factory=list)


@datatype
class ProducerState:
    """One active producer of a partition (DescribeProducers)."""
    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int | None        # None: -1 on the wire
    txn_start_offset: int | None         # None: no open transaction on the partition


@datatype
class OpenTransaction:
    """A transaction a partition holds open: its producer, where it starts, and (``check``) what it
    holds back: the records from its start offset to the high watermark that read_committed
    consumers cannot read yet."""
    topic: str
    partition: int
    producer: ProducerState
    transactional_id: str | None = None      # None: no coordinator knows the producer id
    hanging: bool = False
    high_watermark: int | None = None

    @property
    def start_offset(self) -> int:
        return self.producer.txn_start_offset if self.producer.txn_start_offset is not None else -1

    @property
    def held_back(self) -> int | None:
        return None if self.high_watermark is None else max(0, self.high_watermark - self.start_offset)

    def age_ms(self, now_ms: int) -> int:
        return now_ms - self.producer.last_timestamp

    def abort_line(self) -> str:
        return (f"kcli abort transaction --topic {self.topic} --partition {self.partition} "
                f"--start-offset {self.start_offset} --execute")


@datatype
class AbortPlan:
    topic: str
    partition: int
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int


@datatype
class RecordsDeletion:
    """One partition of ``delete-records``: its log start offset moved up to ``offset`` deletes
    the records below it. ``first_ms``/``last_ms``: the timestamps of the first and last record
    that would go (None when none goes, or no record could be read there); ``unread_by``: each
    group whose committed offset is below ``offset`` (it has not read what would go), with that
    offset; ``low_watermark``: the log start offset the broker answered after an --execute."""
    topic: str
    partition: int
    log_start: int
    high_watermark: int
    offset: int
    first_ms: int | None = None
    last_ms: int | None = None
    unread_by: list[tuple[str, int]] = field(default_factory=list)
    low_watermark: int | None = None
    error: BrokerError | None = None        # the broker's, for this partition's DeleteRecords

    @property
    def records(self) -> int:
        """The offsets that go (a compacted or transactional log holds fewer records)."""
        return max(0, self.offset - self.log_start)


@datatype
class Reassignment:
    """A partition reassignment in progress (ListPartitionReassignments): the replicas as the
    controller holds them (the target followed by the ones being removed)."""
    topic: str
    partition: int
    replicas: list[int]
    adding: list[int]
    removing: list[int]

    @property
    def target(self) -> list[int]:
        return [r for r in self.replicas if r not in self.removing]


@datatype
class QuotaEntity:
    """A client-quota entity: its (type, name) parts, name None for the type's default (types
    "user", "client-id", "ip"), and its quotas by key."""
    parts: list[tuple[str, str | None]]
    values: dict[str, float]


@datatype
class ElectionCandidate:
    """A partition an election would change: its leader now (None: none), the replica it would
    get (None: no live replica), whether that replica is in sync (``clean``: a live ISR member,
    or ELR member where the ISR is empty). For an unclean choice, what it may lose: the in-sync
    replicas that are offline (``at_risk_on``: their records beyond the new leader's are lost;
    every offline replica where the partition names none in sync),
    the new leader's log end offset and the highest one a live replica reports (None: not
    known), which bounds the records lost from below."""
    topic: str
    partition: int
    leader: int | None
    proposed: int | None
    clean: bool = True
    at_risk_on: list[int] = field(default_factory=list)
    proposed_end: int | None = None
    highest_end: int | None = None
    highest_end_on: int | None = None

    @property
    def records_lost_at_least(self) -> int | None:
        """Records a live replica holds beyond the new leader's log end (None: not known)."""
        if self.proposed_end is None or self.highest_end is None:
            return None
        return max(self.highest_end - self.proposed_end, 0)

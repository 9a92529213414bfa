"""reset-offsets' cluster reads: the answers a reset and ``--compare`` are planned on, gathered
the same way for both. ``group_answers``: the groups' states and creation times (KIP-1282);
``offset_answers``: the partitions selected (checked: they exist and have a leader), the
committed offsets (one OffsetFetch per coordinator for all the groups), the partition ages
(Metadata v14), the log starts and ends (ListOffsets per leader); then ``time_lookups``
(ListOffsets per timestamp) and ``next_records`` (bounded Fetches, one per leader and 10k
partitions). ``Steps``
counts the request rounds for a progress callback."""

from __future__ import annotations

from kcli import javaorder
from kcli.errors import OperationError, UnsupportedByBroker
from kcli.model import (NOT_AUTHORIZED, NOT_INACTIVE, TOPICS_NOT_IN_GROUP, GroupDescription, PartitionPlan,
                        PartitionPosition, Refusal)
from kcli.offsets import plan as planner
from kcli.ops.ages import age_bounds
from kcli.ops.groups import CLASSIC_REASON, classic_groups
from kcli.ops.streams import describe_any
from kcli.datatypes import datatype, field
from kcli.specs import parse_topic_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import AbstractSet, Sequence

    from kcli.admin import Admin


RESETTABLE = ("Empty", "Dead")


# KIP-1282's wording with the versions kcli really requires: KIP-1282 numbers the streams fields
# v1, which Apache Kafka 4.4 gave to KIP-1331; here they ride on StreamsGroupDescribe v2.
TOO_OLD_FOR_START_TIME = (
    "Cannot reset offsets using --to-start-time. The broker does not support to_start_time "
    "(requires ConsumerGroupDescribe v2+ or StreamsGroupDescribe v2+). Please upgrade the broker.")


NO_CREATION_TIME = (
    "Cannot reset offsets using --to-start-time. The group creation time is not available for "
    "group '{group}'. The group may have been created before KIP-1282 was enabled. Please delete "
    "and recreate the group.")


# KIP-1282 records creation times for group.protocol=consumer groups only: a classic group never
# has one, and deleting and recreating it (NO_CREATION_TIME's advice) cannot help.
CLASSIC_NO_CREATION_TIME = "Cannot reset offsets using --to-start-time: '{group}' is a classic group; " + CLASSIC_REASON


# Why a group has no creation time to reset to (StartTimeUnavailable.reason).
BROKER_TOO_OLD, GROUP_MISSING, CLASSIC_GROUP, NOT_RECORDED = "broker-too-old", "missing", "classic", "not-recorded"


class StartTimeUnavailable(OperationError):
    """KIP-1282: a --to-start-time reset of ``group`` cannot be planned; ``reason`` (above) says
    why, typed, so that each front end words it its own way (the message: kcli's words)."""

    def __init__(self, reason: str, group: str | None, message: str):
        super().__init__(message)
        self.reason, self.group = reason, group


class StartTimeUnsupported(StartTimeUnavailable, UnsupportedByBroker):
    """BROKER_TOO_OLD: the broker (or the group's describe) gives no creation time at all."""


CONSUMER_GROUP_DESCRIBE, STREAMS_GROUP_DESCRIBE = 69, 89      # API keys; v2 has GroupCreationTimeMs


def check_start_time_supported(admin: Admin, streams_only: bool = False) -> None:
    """KIP-1282's capability, asked before any group is described (its state, its existence):
    a broker whose describes have no creation time (ConsumerGroupDescribe and
    StreamsGroupDescribe below v2; ``streams_only``: StreamsGroupDescribe alone) can never reset
    to a start time, so an operator learns it before stopping an application for it."""
    apis = (STREAMS_GROUP_DESCRIBE,) if streams_only else (CONSUMER_GROUP_DESCRIBE, STREAMS_GROUP_DESCRIBE)
    if not any((admin.advertised_version(api) or -1) >= 2 for api in apis):
        raise StartTimeUnsupported(BROKER_TOO_OLD, None, TOO_OLD_FOR_START_TIME)


def group_start_time(admin: Admin, group: str) -> int:
    """One group's creation time (``audit --group``), or the error saying why it has none."""
    return group_answers(admin, [group]).creation_times(admin, [group])[group]


@datatype
class GroupAnswers:
    """What the groups' describe answered (``describe_any``: every group, and a streams group's
    own StreamsGroupDescribe, by id), and what a reset reads of it."""
    descs: list[GroupDescription]
    streams: dict
    refusals: dict[str, Refusal] = field(default_factory=dict)     # the groups this principal may not describe

    @property
    def missing(self) -> set[str]:
        """The groups that do not exist."""
        return {d.group_id for d in self.descs if not d.exists}

    @property
    def active(self) -> dict[str, Refusal]:
        """The groups that cannot be reset, with the reason (``active_groups``)."""
        return active_groups(self.descs)

    @property
    def inputs(self) -> dict[str, set[str]]:
        """Each streams group's input topics (``input_topics``)."""
        return input_topics(self.streams)

    def start_times(self, admin: Admin, ids: list[str]) -> tuple[dict[str, int], dict[str, StartTimeUnavailable]]:
        """The creation times of ``ids`` and the error of each that has none (``start_times``)."""
        return start_times(admin, ids, self.missing, classic_groups(self.descs), self.streams)

    def creation_times(self, admin: Admin, ids: list[str]) -> dict[str, int]:
        """The creation times of ``ids``, or the first one's error (``creation_times``)."""
        return creation_times(admin, ids, self.missing, classic_groups(self.descs), self.streams)


def group_answers(admin: Admin, ids: list[str], refusals: bool = False) -> GroupAnswers:
    """The groups' describe: one DescribeGroups/ConsumerGroupDescribe round, and StreamsGroupDescribe
    for the streams groups. A group this principal may not describe raises its NotAuthorized
    or, with ``refusals``, is left out of ``descs`` and goes into ``refusals``."""
    if not refusals:
        return GroupAnswers(*describe_any(admin, ids))
    refused: list = []
    descs, streams = describe_any(admin, ids, refused)
    return GroupAnswers(descs, streams, {r.name: Refusal(NOT_AUTHORIZED, r.name, detail=r.message) for r in refused})


def active_groups(descs: list[GroupDescription]) -> dict[str, Refusal]:
    """The groups that cannot be reset (they have members), each with its refusal."""
    return {d.group_id: Refusal(NOT_INACTIVE, d.group_id, d.state)
            for d in descs if d.exists and d.state not in RESETTABLE}


def refusal_text(r: Refusal) -> str:
    """kcli's words for a refusal (the native commands' error lines): the Java tools', and for a
    group this principal may not describe, the words of every command (kcli.errors.NotAuthorized)."""
    if r.kind == NOT_AUTHORIZED and r.detail:
        return r.detail
    if r.kind == TOPICS_NOT_IN_GROUP:
        return f"One or more topics are not part of the group '{r.group}'."
    return f"Assignments can only be reset if the group '{r.group}' is inactive, but the current state is {r.state}."


def check_resettable(descs: list[GroupDescription]) -> None:
    refused = active_groups(descs)
    if refused:
        raise OperationError("\n".join(map(refusal_text, refused.values())))


def creation_times(admin: Admin, ids: list[str], missing: AbstractSet[str] = frozenset(),
                   classic: AbstractSet[str] = frozenset(), streams: dict | None = None) -> dict[str, int]:
    """KIP-1282: each group's creation time, or the KIP's error (nothing is reset). A group that
    does not exist has no creation time to reset to (refused before any request)."""
    for g in ids:
        if g in missing:
            raise start_time_errors(None, [g], {g})[g]
    times, errors = start_times(admin, ids, missing, classic, streams)
    for g in ids:
        if g in errors:
            raise errors[g]
    return times


class MissingPartitions(OperationError):
    """Partitions to reset that do not exist; ``whole_topics``: topics named without partitions
    that do not exist at all."""

    def __init__(self, message: str, whole_topics: list[str]):
        super().__init__(message)
        self.whole_topics = whole_topics


class InputsOfMissingGroup(OperationError):
    """kafka-streams-groups --all-input-topics of a group that does not exist: the input topics
    are its topology's, so there is nothing to reset (and no group to create)."""

    def __init__(self, group: str):
        super().__init__(f"Group {group} not found: --all-input-topics resets the input topics of an "
                         "existing streams group's topology; nothing was planned")
        self.group = group


def start_times(admin: Admin, ids: list[str], missing: AbstractSet[str] = frozenset(),
                classic: AbstractSet[str] = frozenset(), streams: dict | None = None
                ) -> tuple[dict[str, int], dict[str, StartTimeUnavailable]]:
    """Each group's creation time (KIP-1282), and for each group that has none the error a
    --to-start-time reset of it meets: one lookup (ConsumerGroupDescribe) for the consumer
    groups; a streams group's (``streams``: its StreamsGroupDescription by id) is the one its
    StreamsGroupDescribe answered, v2+ only (Apache Kafka 4.4 has v1: not supported)."""
    streams = {g: d for g, d in (streams or {}).items() if g in ids}
    asked = [g for g in ids if g not in missing and g not in streams]
    times = admin.group_creation_times(asked) if asked else {}
    unsupported = set(asked) if times is None else set()
    times = dict(times or {})
    for g, d in streams.items():
        times[g] = d.creation_time_ms
        if d.creation_time_ms is None:
            unsupported.add(g)
    errors = start_time_errors(times, ids, missing, classic, unsupported)
    return {g: t for g in ids if g not in missing and g not in errors and (t := times[g]) is not None}, errors


def start_time_errors(times: dict[str, int | None] | None, ids: list[str],
                      missing: AbstractSet[str], classic: AbstractSet[str] = frozenset(),
                      unsupported: AbstractSet[str] = frozenset()) -> dict[str, StartTimeUnavailable]:
    """The rule, in one place: a broker without ConsumerGroupDescribe v2 (``times`` None) or a
    group whose describe has no creation time field (``unsupported``: a streams group below
    StreamsGroupDescribe v2), a missing group, a classic group (never a creation time,
    KIP-1282), a group without a recorded creation time (the KIP's own error: created before
    KIP-1282 was enabled)."""
    errors: dict[str, StartTimeUnavailable] = {}
    for g in ids:
        if (times is None or g in unsupported) and g not in missing:
            errors[g] = StartTimeUnsupported(BROKER_TOO_OLD, g, TOO_OLD_FOR_START_TIME)
        elif g in missing:
            errors[g] = StartTimeUnavailable(GROUP_MISSING, g, f"Cannot reset offsets using --to-start-time: "
                                                              f"group '{g}' does not exist.")
        elif g in classic:
            errors[g] = StartTimeUnavailable(CLASSIC_GROUP, g, CLASSIC_NO_CREATION_TIME.format(group=g))
        elif (t := (times or {}).get(g)) is None or t < 0:
            errors[g] = StartTimeUnavailable(NOT_RECORDED, g, NO_CREATION_TIME.format(group=g))
    return errors


def _refuse_invalid(missing: list[str], leaderless: list[str], whole_topics: Sequence[str] = ()) -> None:
    """Java 4.2+ (checkAllTopicPartitionsValid): every partition to reset exists and has a leader."""
    if missing:
        raise MissingPartitions(f'The partitions "{",".join(missing)}" do not exist', list(whole_topics))
    if leaderless:
        raise OperationError(f'The partitions "{",".join(leaderless)}" have no leader')


def _select_topics(admin: Admin, specs: list[str]) -> list[tuple[str, int]]:
    """The partitions ``specs`` name, in kafka-consumer-groups' order (which decides the order of
    its plan between partitions of one hash bucket): ``topic:p,p`` specs first, as given, then
    the partitions of whole topics in the order its admin client's map gives them."""
    parsed = [parse_topic_spec(s) for s in specs]
    leaders = admin.partition_leaders(sorted({t for t, _ in parsed}))
    whole = javaorder.described_topics(list(dict.fromkeys(t for t, parts in parsed if parts is None)))
    ordered = [(t, parts) for t, parts in parsed if parts is not None] + [(t, None) for t in whole]
    selected: dict[tuple[str, int], None] = {}       # an ordered set
    missing: list[str] = []
    leaderless: list[str] = []
    whole = []
    for topic, parts in ordered:
        known = leaders.get(topic, {})
        for p in (sorted(known) if parts is None else parts):
            if p not in known:
                missing.append(f"{topic}-{p}")
            elif known[p] is None:
                leaderless.append(f"{topic}-{p}")
            else:
                selected[(topic, p)] = None
        if parts is None and not known:
            missing.append(topic)
            whole.append(topic)
    _say_refused(admin, [t for t, _ in ordered if t not in leaders])
    _refuse_invalid(missing, leaderless, whole)
    return list(selected)


def _say_refused(admin: Admin, unknown: list[str]) -> None:
    """A topic the metadata does not show may be one this principal may not describe (Kafka
    answers it TOPIC_AUTHORIZATION_FAILED, and leaves it out): asked by name, its NotAuthorized
    is raised rather than "does not exist"."""
    from kcli.errors import BrokerRejected, NotAuthorized

    for topic in dict.fromkeys(unknown):
        try:
            admin.describe_topics([topic])
        except NotAuthorized:
            raise
        except BrokerRejected:
            pass                                  # no such topic: _refuse_invalid says so


def _check_committed(admin: Admin, partitions: list[tuple[str, int]]) -> None:
    """--all-topics: the committed partitions are checked as --topic's are."""
    if partitions:
        leaders = admin.partition_leaders(sorted({t for t, _ in partitions}))
        known = {(t, p): leader for t, parts in leaders.items() for p, leader in parts.items()}
        _refuse_invalid([f"{t}-{p}" for t, p in partitions if (t, p) not in known],
                        [f"{t}-{p}" for t, p in partitions if (t, p) in known and known[(t, p)] is None])


def next_records(admin: Admin, partitions: list[PartitionPlan]) -> None:
    """For each partition a plan moves forward past unread offsets, where the group's next
    record is (``PartitionPlan.next_record``), so that a move past transaction markers and
    aborted records only is no skip: bounded Fetches, one per leader and 10k partitions
    (``Admin.record_times``, read committed). A broker without Fetch v4+ leaves them unknown
    (offsets counted)."""
    forward = [(p, (p.topic, p.partition, max(p.current, p.log_start)))
               for p in partitions if p.skipped and p.current is not None]
    if not forward:
        return
    try:
        found = admin.record_times(list(dict.fromkeys(key for _, key in forward)))
    except UnsupportedByBroker:
        return
    for p, key in forward:
        rt = found.get(key)
        if rt is None or rt.error is not None and rt.record_offset is None:
            continue
        if rt.record_offset is not None:
            p.next_record = rt.record_offset
        elif rt.timestamp_ms is None and rt.bound_ms is None:      # no record to read: caught up
            p.next_record = p.log_end


def input_topics(streams: dict) -> dict[str, set[str]]:
    """Each streams group's input topics (its topology's source topics), by group id."""
    return {g: set(d.input_topics) for g, d in streams.items()}


def uncommitted_topics(ids: list[str], specs: list[str], selection, committed) -> dict[str, Refusal]:
    """Those of the groups ``ids`` whose --topic partitions are not all committed by the group
    (kafka-streams-groups' rule: its filterExistingGroupTopics), each with its refusal: such a
    group is not reset, as an active one is not."""
    if not specs:
        return {}
    return {g: Refusal(TOPICS_NOT_IN_GROUP, g) for g in ids
            if any(committed[g].get(tp) is None for tp in selection[g])}


def select(admin: Admin, ids: list[str], specs: list[str], all_topics: bool, kind: str | None,
           file_offsets: dict[str, dict[tuple[str, int], int]] | None, steps: "Steps",
           inputs: dict[str, set[str]] | None = None):
    """(selection, committed): each group's partitions in the order kafka-consumer-groups
    collects them (the file's, the committed offsets', the --topic specs'), so plain output can
    follow its maps (javaorder), and its committed offsets there: one OffsetFetch per
    coordinator for all the groups (``committed_of_groups``). ``inputs``: a streams group's
    input topics; --all-topics selects its committed partitions of those only
    (kafka-streams-groups' --all-input-topics), not of its repartition topics."""
    inputs = inputs or {}
    if kind == planner.FILE:
        selection = {g: list((file_offsets or {}).get(g, {})) for g in ids}
        committed = steps.after(committed_of_groups(admin, ids, selection))
    elif all_topics:
        committed = steps.after(committed_of_groups(admin, ids))
        selection = {g: [tp for tp in c if g not in inputs or tp[0] in inputs[g]] for g, c in committed.items()}
        _check_committed(admin, sorted({tp for sel in selection.values() for tp in sel}))
    else:
        tps = _select_topics(admin, specs)
        selection = {g: tps for g in ids}
        committed = steps.after(committed_of_groups(admin, ids, selection))
    if kind == planner.CURRENT:         # its map holds the committed partitions first
        selection = {g: sorted(sel, key=lambda tp: tp not in committed[g]) for g, sel in selection.items()}
    return selection, committed


def positions(selection, committed, starts, ends, group: str) -> list[PartitionPosition]:
    return [PartitionPosition(t, p, committed[group].get((t, p)), starts[(t, p)], ends[(t, p)])
            for t, p in selection[group]]


def time_lookups(admin: Admin, targets: set[tuple[str, int]], selection) -> dict[int, dict]:
    """The ListOffsets answers (offset, record timestamp) for time scenarios, by timestamp: one
    call per distinct timestamp of the (group, timestamp) ``targets``, over the partitions of the
    groups that look it up (the admin client batches each call per leader). An error is not "no
    record": nothing is planned."""
    lookups_by_ts: dict[int, dict] = {}
    for ts in sorted({t for _, t in targets}):
        wanted = sorted({tp for g, t in targets if t == ts for tp in selection[g]})
        lookups_by_ts[ts] = {}
        for o in admin.list_offsets(wanted, ts):
            if o.error is not None:
                raise OperationError(f"Error getting offset by timestamp of topic partition: "
                                     f"{o.topic}-{o.partition}: {o.error}")
            lookups_by_ts[ts][(o.topic, o.partition)] = (o.offset, o.timestamp_ms)
    return lookups_by_ts


class Steps:
    """Counts finished request rounds for a progress callback (done, total)."""

    def __init__(self, progress, total: int):
        self.progress, self.total, self.done = progress, total, 0

    def after(self, value):
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)
        return value


def committed_offsets(admin: Admin, group: str, partitions=None) -> dict[tuple[str, int], int | None]:
    return {(c.topic, c.partition): c.offset for c in admin.committed_offsets(group, partitions)}


def committed_of_groups(admin: Admin, ids: list[str], partitions: dict[str, list[tuple[str, int]]] | None = None
                        ) -> dict[str, dict[tuple[str, int], int | None]]:
    """Each group's committed offsets by (topic, partition): every committed partition, or the
    partitions ``partitions`` names for the group (each, None where nothing is committed), in
    the broker's order, from one OffsetFetch per coordinator (many groups each), whatever the
    number of groups."""
    found = admin.committed_offsets_of_groups(ids, partitions) if ids else {}
    return {g: {(c.topic, c.partition): c.offset for c in found.get(g, [])} for g in ids}


def log_offsets(admin: Admin, partitions: list[tuple[str, int]], time: int) -> dict[tuple[str, int], int]:
    what = "starting" if time == -2 else "ending"
    found = {}
    for o in admin.list_offsets(partitions, time):
        if o.error is not None or o.offset < 0:
            raise OperationError(f"Error getting {what} offset of topic partition: "
                                 f"{o.topic}-{o.partition}: {o.error or 'no offset'}")
        found[(o.topic, o.partition)] = o.offset
    return found


@datatype
class OffsetAnswers:
    """The partitions' answers for the groups planned: each group's selection (its partitions in
    kafka-consumer-groups' order) and committed offsets, the log starts and ends, the partition
    ages (KIP-1327) when asked, and the groups not reset on partitions they have not committed
    (``refused``, with the reason; not in ``selection``)."""
    selection: dict[str, list[tuple[str, int]]]
    committed: dict[str, dict[tuple[str, int], int | None]]
    starts: dict[tuple[str, int], int]
    ends: dict[tuple[str, int], int]
    refused: dict[str, Refusal]
    ages: dict | None = None

    def positions(self, group: str) -> list[PartitionPosition]:
        """``group``'s partitions as the planner takes them."""
        return positions(self.selection, self.committed, self.starts, self.ends, group)


def offset_answers(admin: Admin, ids: list[str], specs: list[str], all_topics: bool, steps: Steps, *,
                   kind: str | None = None, file_offsets: dict[str, dict[tuple[str, int], int]] | None = None,
                   inputs: dict[str, set[str]] | None = None, committed_only: Sequence[str] = (),
                   age_limit_ms: int | None = None, now_ms: int | None = None) -> OffsetAnswers:
    """The partitions' answers a reset (``kind``: its scenario's) or ``--compare`` (``kind``
    None) plans on, in this order: the selection and committed offsets (``select``), the log
    starts, the log ends, and with ``age_limit_ms`` (--max-age) the partitions' AgeBounds at
    ``now_ms`` (kcli.ops.ages: on any broker). A group of
    ``committed_only`` is not reset on --topic partitions it has not committed
    (``uncommitted_topics``): it is ``refused`` and its partitions are not asked for."""
    selection, committed = select(admin, ids, specs, all_topics, kind, file_offsets, steps, inputs)
    refused = uncommitted_topics(list(committed_only), specs, selection, committed)
    selection = {g: sel for g, sel in selection.items() if g not in refused}
    every = sorted({tp for sel in selection.values() for tp in sel})
    starts = steps.after(log_offsets(admin, every, -2))
    ends = steps.after(log_offsets(admin, every, -1))
    found = None
    if age_limit_ms is not None:
        if now_ms is None:
            raise ValueError("partition ages are measured against the command's time: give now_ms")
        found = steps.after(age_bounds(admin, every, starts, ends, now_ms, age_limit_ms))
    return OffsetAnswers(selection, committed, starts, ends, refused, found)

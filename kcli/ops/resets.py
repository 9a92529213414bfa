"""reset-offsets: from selection to commit. Every check that can refuse a reset runs before any
offset is looked up; the plan is the planner's (``kcli.offsets.plan``); ``execute`` writes the
rollback file, commits one group at a time and reads back what got no answer; ``report`` turns
the outcomes into the exit code. Request counts do not grow with the partition count, and
the planning's not with the groups: one OffsetCommit per group (in batches that keep its
records in __consumer_offsets under 512 KiB: kcli.admin.kip.commit_batches), the rest per
reset (Metadata, ListOffsets per leader, Metadata v14, OffsetFetch v8+ and
ConsumerGroupDescribe per coordinator)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from kcli import javaorder
from kcli.errors import (BrokerRejected, KcliError, OperationError, PartialFailure, UnsupportedByBroker,
                         UsageError)
from kcli.inputs import read_text
from kcli.model import (MISSING_GROUP, NO_PLAN, NOT_INACTIVE, TOPICS_NOT_IN_GROUP, GroupDescription, GroupPlan,
                        PartitionPlan, PartitionPosition, PlanWarning, Refusal)
from kcli.offsets import plan as planner
from kcli.offsets.csvfile import export_csv, parse_csv
from kcli.ops.failures import raise_for, unanswered
from kcli.ops.groups import CLASSIC_REASON, check_group_ids, classic_groups, group_ids
from kcli.ops.streams import describe_any
from kcli.specs import datetime_arg, duration_arg, parse_topic_spec
from kcli.times import TimeParseError, timestamp_before
from kcli.xdg import state_dir

if TYPE_CHECKING:
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

    def __init__(self, reason: str, group: str, message: str):
        super().__init__(message)
        self.reason, self.group = reason, group


class StartTimeUnsupported(StartTimeUnavailable, UnsupportedByBroker):
    """BROKER_TOO_OLD: the broker (or the group's describe) gives no creation time at all."""


def group_start_time(admin: Admin, group: str) -> int:
    """One group's creation time (``audit --group``), or the error saying why it has none."""
    descs, streams = describe_any(admin, [group])
    return creation_times(admin, [group], {d.group_id for d in descs if not d.exists},
                          classic_groups(descs), streams)[group]


APPLIED, NOT_APPLIED, UNKNOWN = "applied", "not applied", "unknown"


@dataclass
class ResetResult:
    """A reset's plans and, once executed, what it did: per (group, topic, partition),
    (APPLIED | NOT_APPLIED | UNKNOWN, why) for every partition that was not simply applied, and
    notes (replies lost but read back). ``skips``: the planner's skip warnings, ``replays`` its
    replay warnings (one per group); ``refused``: the plan skips unread records and --allow-skip
    was not given."""
    plans: list[GroupPlan]
    executed: bool = False
    rollback_file: str | None = None
    outcomes: dict[tuple[str, str, int], tuple[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    skips: list[PlanWarning] = field(default_factory=list)
    replays: list[PlanWarning] = field(default_factory=list)
    refused: bool = False


def active_groups(descs: list[GroupDescription]) -> dict[str, str]:
    """The groups that cannot be reset (they have members), each with its refusal."""
    return {d.group_id: Refusal(NOT_INACTIVE, d.group_id, d.state)
            for d in descs if d.exists and d.state not in RESETTABLE}


def refusal_text(r: Refusal) -> str:
    """kcli's words for a refusal (the native commands' error lines): the Java tools'."""
    if r.kind == TOPICS_NOT_IN_GROUP:
        return f"One or more topics are not part of the group '{r.group}'."
    return f"Assignments can only be reset if the group '{r.group}' is inactive, but the current state is {r.state}."


def check_resettable(descs: list[GroupDescription]) -> None:
    refused = active_groups(descs)
    if refused:
        raise OperationError("\n".join(map(refusal_text, refused.values())))


def creation_times(admin: Admin, ids: list[str], missing: set[str] = frozenset(),
                   classic: set[str] = frozenset(), streams: dict | None = None) -> dict[str, int]:
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


def start_times(admin: Admin, ids: list[str], missing: set[str] = frozenset(),
                classic: set[str] = frozenset(), streams: dict | None = None
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
    return {g: times[g] for g in ids if g not in missing and g not in errors}, errors


def start_time_errors(times: dict[str, int | None] | None, ids: list[str],
                      missing: set[str], classic: set[str] = frozenset(),
                      unsupported: set[str] = frozenset()) -> dict[str, StartTimeUnavailable]:
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
        elif times.get(g) is None or times[g] < 0:
            errors[g] = StartTimeUnavailable(NOT_RECORDED, g, NO_CREATION_TIME.format(group=g))
    return errors


def _refuse_invalid(missing: list[str], leaderless: list[str], whole_topics: list[str] = ()) -> None:
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
    selected, missing, leaderless, whole = {}, [], [], []
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
    _refuse_invalid(missing, leaderless, whole)
    return list(selected)


def _check_committed(admin: Admin, partitions: list[tuple[str, int]]) -> None:
    """--all-topics: the committed partitions are checked as --topic's are."""
    if partitions:
        leaders = admin.partition_leaders(sorted({t for t, _ in partitions}))
        known = {(t, p): leader for t, parts in leaders.items() for p, leader in parts.items()}
        _refuse_invalid([f"{t}-{p}" for t, p in partitions if (t, p) not in known],
                        [f"{t}-{p}" for t, p in partitions if (t, p) in known and known[(t, p)] is None])


def plan_reset(admin: Admin, ids: list[str], specs: list[str], all_topics: bool,
               scenario: planner.Scenario, now_ms: int,
               file_offsets: dict[str, dict[tuple[str, int], int]] | None = None,
               progress=None, execute: bool = False, committed_only: bool = False) -> list[GroupPlan]:
    """Every check that can refuse the reset runs before any offset is looked up. ``progress``
    (done, total) is told of each request round: the committed offsets, then the log offsets.
    ``execute``: the plans are to be committed (a missing group's warning says it is created).
    A streams group is not reset on --topic partitions it has not committed; with
    ``committed_only`` no group is (kafka-streams-groups, which takes every group for one)."""
    descs, streams = describe_any(admin, ids)
    active = active_groups(descs)
    every_id, ids = ids, [g for g in ids if g not in active]     # an active group gets no plan
    if not ids:
        return [GroupPlan(g, refused=active[g]) for g in every_id]
    steps = Steps(progress, 3 + scenario.is_time + (scenario.kind == planner.MAX_AGE))
    missing = {d.group_id for d in descs if not d.exists}
    created = (creation_times(admin, ids, missing, classic_groups(descs), streams)
               if scenario.kind == planner.START_TIME else {})
    selection, committed = select(admin, ids, specs, all_topics, scenario.kind, file_offsets, steps,
                                  input_topics(streams))
    if scenario.kind != planner.FILE:
        checked = ids if committed_only else [g for g in ids if g in streams]
        active.update(uncommitted_topics(checked, specs, selection, committed))
    ids = [g for g in ids if g not in active]
    selection = {g: sel for g, sel in selection.items() if g in ids}
    every = sorted({tp for sel in selection.values() for tp in sel})
    ages = None
    if scenario.kind == planner.MAX_AGE:
        ages = steps.after(admin.partition_ages(sorted({t for t, _ in every})))
    starts = steps.after(log_offsets(admin, every, -2))
    ends = steps.after(log_offsets(admin, every, -1))
    lookups_by_ts: dict[int, dict] = {}
    if scenario.is_time:
        targets = {g: planner.lookup_timestamp(scenario, now_ms, created.get(g)) for g in ids}
        lookups_by_ts = steps.after(time_lookups(admin, set(targets.items()), selection))

    plans = []
    for g in every_id:
        if g in active:
            plans.append(GroupPlan(g, refused=active[g]))
            continue
        lookups = lookups_by_ts[targets[g]] if scenario.is_time else None
        plan = planner.plan_group(g, scenario, positions(selection, committed, starts, ends, g),
                                  lookups=lookups, ages=ages, file_offsets=(file_offsets or {}).get(g))
        if scenario.kind == planner.FILE and g not in (file_offsets or {}):
            plan.warnings.append(PlanWarning(NO_PLAN, g))
        if g in missing:
            plan.warnings.append(PlanWarning(MISSING_GROUP, g, execute=execute))
        plans.append(plan)
    next_records(admin, [p for plan in plans for p in plan.partitions])
    return plans


def next_records(admin: Admin, partitions: list[PartitionPlan]) -> None:
    """For each partition a plan moves forward past unread offsets, where the group's next
    record is (``PartitionPlan.next_record``), so that a move past transaction markers and
    aborted records only is no skip: one bounded Fetch per leader (``Admin.record_times``,
    read committed). A broker without Fetch v4+ leaves them unknown (offsets counted)."""
    forward = [(p, (p.topic, p.partition, max(p.current, p.log_start))) for p in partitions if p.skipped]
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


def _committed(admin: Admin, group: str, partitions=None) -> dict[tuple[str, int], int]:
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


def rollback_csv(plans: list[GroupPlan], with_group: bool) -> str:
    """The planned partitions' committed offsets before the reset, as a --from-file CSV: the
    exact undo. A partition without a committed offset is written with -1 (restoring it deletes
    the offset); the Java tool reads every row, moving such a partition to its log start."""
    current = [GroupPlan(plan.group, [replace(p, new=planner.NO_OFFSET if p.current is None else p.current)
                                      for p in sorted(plan.partitions, key=lambda p: (p.topic, p.partition))])
               for plan in plans]
    return export_csv(current, with_group)


def rollback_dir() -> str:
    """``$XDG_STATE_HOME/kcli/rollback/`` (``~/.local/state`` when unset): kcli's rollback files."""
    return state_dir("rollback")


def is_own_rollback(path: str) -> bool:
    """A --from-file that is one of kcli's rollback files: a file in kcli's rollback directory
    (its real path; kcli writes there and nothing else does). Restoring one is the exact undo of
    a reset, so moving offsets forward past unread records needs no --allow-skip. A file
    elsewhere (a --rollback-file of another name included) keeps the rule."""
    real = os.path.realpath(path)
    return os.path.isfile(real) and os.path.dirname(real) == os.path.realpath(rollback_dir())


def rollback_path(cluster_id: str | None, groups: list[str], now_ms: int) -> str:
    """A new file in ``rollback_dir()``, named by cluster, group and time:
    ``<cluster>_<group>_<yyyymmddThhmmss.mmmZ>.csv``."""
    group = groups[0] if len(groups) == 1 else f"{groups[0]}+{len(groups) - 1}"
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_ms / 1000)) + f".{now_ms % 1000:03d}Z"
    name = "_".join(re.sub(r"[^A-Za-z0-9._-]", "-", part) for part in (cluster_id or "cluster", group, stamp))
    return os.path.join(rollback_dir(), name + ".csv")


def write_rollback(path: str, plans: list[GroupPlan], with_group: bool) -> None:
    """Writes the rollback file before anything is committed; never overwrites a file."""
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "x", encoding="utf-8", newline="") as fh:
            fh.write(rollback_csv(plans, with_group))
    except FileExistsError:
        raise UsageError(f"The rollback file {path} exists; kcli never overwrites one") from None
    except OSError as exc:
        raise OperationError(f"Cannot write the rollback file {path}: {exc.strerror}; "
                             "nothing was committed") from None


def classify(planned: dict[tuple[str, int], int], before: dict[tuple[str, int], int | None],
             errors: dict, reread: dict[tuple[str, int], int | None] | None) -> dict:
    """(APPLIED | NOT_APPLIED | UNKNOWN, why) per partition of one group's commit: ``errors`` is
    the commit's answer per partition (a BrokerError or None), ``reread`` the committed offsets
    read back afterwards (None when they could not be read). A commit that was sent and not
    answered is never "not applied": the broker may still apply it (it waits up to
    offsets.commit.timeout.ms), so unless the new offset is read back it is unknown."""
    out = {}
    for tp, new in planned.items():
        err = errors.get(tp)
        if err is None:
            out[tp] = (APPLIED, "")
        elif not unanswered(err):
            out[tp] = (NOT_APPLIED, err.message)
        elif reread is None:
            out[tp] = (UNKNOWN, f"{err.message}; the committed offset could not be read back")
        elif reread.get(tp) == new:
            out[tp] = (APPLIED, f"{err.message}, but the committed offset read back is the new one")
        else:
            got = reread.get(tp)
            was = "unchanged" if got == before.get(tp) else "absent" if got is None else got
            out[tp] = (UNKNOWN, f"{err.message}; the committed offset read back is {was}, but the "
                                "commit may still be applied")
    return out


def execute(admin: Admin, plans: list[GroupPlan], rollback: str, with_group: bool,
            progress=None) -> ResetResult:
    """Writes the rollback file, then commits each group's plan: one OffsetCommit per group and
    batch, on kcli's own connection (and one OffsetDelete where a restore removes offsets). A
    commit without an answer is checked by reading the committed offsets back, within the
    command's deadline: each partition ends up applied, not applied or unknown (``report``).
    ``progress`` (done, total) counts groups."""
    steps = Steps(progress, len(plans))
    write_rollback(rollback, plans, with_group)
    result = ResetResult(plans, executed=True, rollback_file=rollback)
    for plan in plans:
        commits = {(p.topic, p.partition): p.new for p in plan.partitions if p.new is not None}
        before = {(p.topic, p.partition): p.current for p in plan.partitions}
        deletes = [(p.topic, p.partition) for p in plan.partitions if p.new is None]
        outcome = {}
        if commits:
            # A quarter of what is left (2 s at most) is kept for reading an unanswered commit back.
            left = admin.settings.remaining_s()
            errors = admin.alter_group_offsets(plan.group, commits, until=time.monotonic() + left - min(2.0, left / 4))
            reread = None
            if any(unanswered(e) for e in errors.values()):
                try:      # on a new connection: the commit's was closed when it got no answer
                    reread = _committed(admin, plan.group, list(commits))
                except OperationError:      # no answer either: the outcome stays unknown
                    reread = None
            outcome.update(classify(commits, before, errors, reread))
        if deletes:
            outcome.update(_delete_for_restore(admin, plan.group, deletes))
            if not commits and all(status == APPLIED for status, _ in outcome.values()):
                result.notes += _delete_if_vacant(admin, plan.group)
        for (t, p), (status, why) in outcome.items():
            if status != APPLIED:
                result.outcomes[(plan.group, t, p)] = (status, why)
            elif why:
                result.notes.append(f"Group {plan.group}, partition {t}-{p}: {why}")
        steps.after(None)
    return result


def _delete_for_restore(admin: Admin, group: str, partitions: list[tuple[str, int]]) -> dict:
    """A restore's partitions that had no committed offset: their offsets are deleted."""
    try:
        group_error, per = admin.delete_group_offsets(group, partitions)
    except OperationError as exc:    # unanswered: it may or may not have happened; not sent: it did not
        status = UNKNOWN if isinstance(exc, BrokerRejected) and unanswered(exc.error) else NOT_APPLIED
        return {tp: (status, f"deleting the committed offset: {exc}") for tp in partitions}
    return {tp: (APPLIED, "") if (per.get(tp) or group_error) is None
            else (NOT_APPLIED, f"deleting the committed offset: {(per.get(tp) or group_error).message}")
            for tp in partitions}


def _delete_if_vacant(admin: Admin, group: str) -> list[str]:
    """A restore that deleted every offset it names (the rollback of a reset that created the
    group): a group left without any committed offset and without members is deleted too, as
    before that reset (the broker would expire it anyway). The notes saying what happened."""
    try:
        if _committed(admin, group) or describe_any(admin, [group])[0][0].members:
            return []
        error = admin.delete_groups([group])[group]
    except OperationError as exc:
        error = exc
    if error is None:
        return [f"Group {group}: no committed offset and no member left, as before the reset "
                "that created it: the group is deleted too"]
    return [f"Group {group}: no committed offset and no member left, but deleting the group "
            f"failed ({error.message}); `kcli delete groups {group}` removes it"]


def report(result: ResetResult) -> None:
    """Exit 0 when every partition was applied; OperationError (exit 1) when none was and none is
    unknown; otherwise PartialFailure (exit 3) naming what was applied, what was not and what is
    unknown."""
    if not result.outcomes:
        return
    total = sum(len(p.partitions) for p in result.plans)
    by_status: dict[str, list[str]] = {APPLIED: [], NOT_APPLIED: [], UNKNOWN: []}
    for plan in result.plans:
        for p in sorted(plan.partitions, key=lambda p: (p.topic, p.partition)):
            status, why = result.outcomes.get((plan.group, p.topic, p.partition), (APPLIED, ""))
            by_status[status].append(f"group '{plan.group}' {p.topic}-{p.partition}"
                                     + (f" ({why})" if why else ""))
    detail = "; ".join(f"{status}: {', '.join(items)}" for status, items in by_status.items() if items)
    failed, unknown = len(by_status[NOT_APPLIED]), len(by_status[UNKNOWN])
    raise_for(total, failed, f"No offsets were committed ({total} partitions): {detail}"
              if failed == total else f"{len(by_status[APPLIED])} of {total} partitions committed, "
              f"{failed} not, {unknown} unknown: {detail}", unknown)


# -- the command, from its flags to its outcome ----------------------------------------------

SCENARIOS = ("to-earliest", "to-latest", "to-current", "to-offset", "shift-by", "to-datetime",
             "by-duration", "from-file", "to-start-time")


@dataclass
class ResetRequest:
    """A reset as the flags describe it, checked before any request."""
    groups: list[str]
    all_groups: bool
    topics: list[str]
    all_topics: bool
    scenario: planner.Scenario
    label: str                                   # the scenario as the plan's JSON names it
    file_offsets: dict[str, dict[tuple[str, int], int]] | None = None
    execute: bool = False
    allow_skip: bool = False
    rollback_file: str | None = None
    restore: bool = False                        # --from-file is one of kcli's rollback files
    # kafka-streams-groups' reset: --all-groups is every streams group, and no group is reset on
    # --topic partitions it has not committed
    streams_tool: bool = False

    @property
    def may_skip(self) -> bool:
        """--execute may move committed offsets past unread records: --allow-skip, a scenario
        whose purpose is to skip, or the restore of kcli's own rollback file (the exact undo)."""
        return self.allow_skip or self.restore or self.scenario.kind in planner.SKIPPING_KINDS

    @property
    def with_group(self) -> bool:
        """The CSV's layout (--export, rollback files): the group column unless one --group."""
        return not (self.groups and len(set(self.groups)) == 1)


def is_given(value: object) -> bool:
    """A flag's value says it was given: any value (0 and "" too) or a switch that is on; not
    None (no value) nor False (a switch left off). Never a truthiness test: --to-offset 0 is given."""
    return value is not None and value is not False


def given_flags(flags: dict[str, object], names) -> list[str]:
    """Those of ``names`` (in that order) that ``flags`` says were given (``is_given``)."""
    return [name for name in names if is_given(flags.get(name))]


def scenario(given: dict[str, object], max_age: str | None, now_ms: int) -> tuple[planner.Scenario, str]:
    """The one scenario of the flags ``given`` (name in SCENARIOS -> its value, or True), with
    kafka-consumer-groups' messages for none or two; times and durations read and checked."""
    chosen = given_flags(given, SCENARIOS)
    if not chosen:
        raise UsageError("reset-offsets requires one scenario: --to-earliest, --to-latest, --to-current, "
                         "--to-offset, --shift-by, --to-datetime, --by-duration, --from-file or --to-start-time")
    if len(chosen) > 1:
        raise UsageError(f'Option "[{chosen[0]}]" can\'t be used with option "[{chosen[1]}]"')
    name, value = chosen[0], given[chosen[0]]
    if max_age is not None and name != "to-latest":
        raise UsageError("--max-age can only be used with --to-latest")
    if max_age is not None:
        return planner.Scenario(planner.MAX_AGE, duration_arg("--max-age", max_age)), f"to-latest --max-age {max_age}"
    if name == "to-datetime":
        return planner.Scenario(planner.DATETIME, datetime_arg("--to-datetime", value)), f"to-datetime {value}"
    if name == "by-duration":
        ms = duration_arg("--by-duration", value)
        try:
            timestamp_before(now_ms, ms)             # not before the epoch: refused now
        except TimeParseError as exc:
            raise UsageError(f"--by-duration: {exc}") from None
        return planner.Scenario(planner.DURATION, ms), f"by-duration {value}"
    if name in ("to-offset", "shift-by"):
        kind = planner.OFFSET if name == "to-offset" else planner.SHIFT
        return planner.Scenario(kind, value), f"{name} {value}"
    kind = {"to-earliest": planner.EARLIEST, "to-latest": planner.LATEST, "to-current": planner.CURRENT,
            "from-file": planner.FILE, "to-start-time": planner.START_TIME}[name]
    return planner.Scenario(kind), name


def request(*, groups: list[str], all_groups: bool, topics: list[str], all_topics: bool,
            scenario_flags: dict[str, object], max_age: str | None, dry_run: bool, execute: bool,
            allow_skip: bool, rollback_file: str | None, now_ms: int) -> ResetRequest:
    """The flags of reset-offsets, checked (kafka-consumer-groups' rules and messages) and read,
    the --from-file CSV included, before any request: UsageError (exit 2) otherwise."""
    if dry_run and execute:
        raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
    if groups and all_groups:
        raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
    if not groups and not all_groups:
        raise UsageError("Option [reset-offsets] takes one of these options: [group], [all-groups]")
    check_group_ids(groups)
    chosen, label = scenario(scenario_flags, max_age, now_ms)
    from_file = scenario_flags.get("from-file")
    if topics and all_topics:
        raise UsageError('Option "[topic]" can\'t be used with option "[all-topics]"')
    if not (topics or all_topics or from_file):
        raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
    if rollback_file is not None and not rollback_file.strip():
        raise UsageError("--rollback-file needs a value")
    if rollback_file and not execute:
        raise UsageError("--rollback-file is only used with --execute")
    if rollback_file and os.path.lexists(rollback_file):
        raise UsageError(f"The rollback file {rollback_file} exists; kcli never overwrites one")
    for spec in topics:
        parse_topic_spec(spec)
    file_offsets = None
    if from_file is not None:      # read whole before any request (--all-groups: every group's rows)
        file_offsets = parse_csv(read_text(from_file, "--from-file"), list(dict.fromkeys(groups)))
    return ResetRequest(groups, all_groups, topics, all_topics, chosen, label, file_offsets,
                        execute, allow_skip, rollback_file,
                        restore=from_file is not None and is_own_rollback(from_file))


def reset(admin: Admin, req: ResetRequest, now_ms: int, stage=None) -> ResetResult:
    """Plans the reset and, with ``execute``, commits it, unless it skips unread records without
    ``allow_skip`` (then ``refused`` and nothing is committed). ``stage(description)``: a context
    manager yielding a progress callback (done, total), or None."""
    stage = stage or _no_stage
    ids = group_ids(admin, req.groups, req.all_groups, streams=req.streams_tool)
    with stage("Planning the reset") as progress:
        plans = plan_reset(admin, ids, req.topics, req.all_topics, req.scenario, now_ms,
                           req.file_offsets, progress, execute=req.execute, committed_only=req.streams_tool)
    skips = planner.skip_warnings(plans)
    refused = bool(req.execute and skips and not req.may_skip)
    replays = planner.replay_warnings(plans)
    if not req.execute or refused or all(p.refused for p in plans):
        return ResetResult(plans, skips=skips, replays=replays, refused=refused)
    path = req.rollback_file or rollback_path(admin.cluster_id(), ids, now_ms)
    with stage("Committing offsets") as progress:
        result = execute(admin, plans, path, req.with_group, progress)
    result.skips, result.replays = skips, replays
    return result


@contextmanager
def _no_stage(_description):
    yield None


def finish(result: ResetResult) -> None:
    """The exit code of a reset (see ``report``); a refused one is exit 1, nothing committed.
    Active groups are not reset: one line each, then exit 1 when no group was reset (or planned),
    3 when others were."""
    if result.refused:
        raise OperationError(f"Nothing was committed: the reset skips unread records on "
                             f"{len(result.skips)} partition(s) (above); add --allow-skip to commit it")
    active = [p for p in result.plans if p.refused]
    if not active:
        return report(result)
    lines = [refusal_text(p.refused) for p in active]
    if len(active) == len(result.plans):
        raise OperationError("\n".join(lines))
    done = "reset" if result.executed else "planned"
    try:
        report(result)
    except KcliError as exc:
        if exc.exit_code == OperationError.exit_code:        # nothing applied anywhere
            raise OperationError("\n".join([*lines, exc.message])) from None
        lines.append(exc.message)
    raise PartialFailure("\n".join([*lines, f"{len(result.plans) - len(active)} of {len(result.plans)} "
                                             f"groups {done}; not the active ones: "
                                             f"{', '.join(p.group for p in active)}"]))

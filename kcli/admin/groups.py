"""Consumer groups (kafka-consumer-groups): list filters, describe views, reset-offsets from
selection to commit, delete groups and offsets. Talks to the cluster only through the admin
adapter; planning is ``kcli.offsets``. Request counts do not grow with the partition count: every
lookup is one batched call per group (OffsetFetch/OffsetCommit) or per reset (Metadata,
ListOffsets per leader, Metadata v14, ConsumerGroupDescribe per coordinator).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field, replace

from kcli import javaorder
from kcli.admin.offsets import parse_topic_spec
from kcli.errors import OperationError, PartialFailure, UnsupportedByBroker, UsageError
from kcli.model import BrokerError, GroupDescription, GroupOffsetRow, GroupPlan, PartitionPosition
from kcli.offsets import plan as planner
from kcli.offsets.csvfile import export_csv

STATES = ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling")
TYPES = ("Classic", "Consumer")
RESETTABLE = ("Empty", "Dead")
REBALANCING = ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling")

TOO_OLD_FOR_START_TIME = (
    "Cannot reset offsets using --to-start-time. The broker does not support to_start_time "
    "(requires ConsumerGroupDescribe v2+ or StreamsGroupDescribe v1+). Please upgrade the broker.")
NO_CREATION_TIME = (
    "Cannot reset offsets using --to-start-time. The group creation time is not available for "
    "group '{group}'. The group may have been created before KIP-1282 was enabled. Please delete "
    "and recreate the group.")


def _parse_list(text: str, valid: tuple[str, ...], what: str, plural: str) -> set[str]:
    """Comma-separated, trimmed, case-insensitive; trailing empty items dropped, blank ones invalid
    (kafka-consumer-groups' --state / --type parsing)."""
    items = text.split(",")
    while items and items[-1] == "":
        items.pop()
    by_lower = {v.lower(): v for v in valid}
    chosen = set()
    for item in items:
        v = by_lower.get(item.strip().lower())
        if v is None:
            raise UsageError(f"Invalid {what} list '{text}'. Valid {plural} are: {', '.join(valid)}")
        chosen.add(v)
    if not chosen:
        raise UsageError(f"Invalid {what} list '{text}'. Valid {plural} are: {', '.join(valid)}")
    return chosen


def parse_states(text: str) -> set[str]:
    return _parse_list(text, STATES, "state", "states")


def parse_types(text: str) -> set[str]:
    return _parse_list(text, TYPES, "types", "types")


def list_groups(admin, states: set[str] | None, types: set[str] | None):
    """The groups in the given states and of the given types, in kafka-consumer-groups' order."""
    groups = {g.group_id: g for g in admin.list_groups()}
    return [groups[gid] for gid in javaorder.group_listing(list(groups))
            if (not states or groups[gid].state in states) and (not types or groups[gid].type in types)]


def check_group_ids(groups: list[str]) -> None:
    """An empty group id is refused before any request (the admin client refuses it anyway)."""
    if "" in groups:
        raise UsageError("A group id cannot be empty")


def group_ids(admin, groups: list[str], all_groups: bool) -> list[str]:
    if bool(groups) == all_groups:
        raise UsageError("Give one or more groups, or --all-groups")
    check_group_ids(groups)
    return sorted({g.group_id for g in admin.list_groups()}) if all_groups else list(dict.fromkeys(groups))


# -- describe ---------------------------------------------------------------------------------

def describe(admin, ids: list[str]) -> list[GroupDescription]:
    """Sorted by group id; a missing group fails the whole command (as the Java tool, 4.0+)."""
    descs = admin.describe_groups(ids)
    for d in descs:
        if not d.exists:
            raise OperationError(f"Group {d.group_id} not found.")
    return sorted(descs, key=lambda d: d.group_id)


def state_notice(d: GroupDescription) -> str | None:
    """The Java tool's per-group notice (stderr), or None."""
    if d.state == "Empty":
        return f"Consumer group '{d.group_id}' has no active members."
    if d.state in REBALANCING:
        return f"Warning: Consumer group '{d.group_id}' is rebalancing."
    return None


def offset_rows(admin, d: GroupDescription) -> list[GroupOffsetRow]:
    """Assigned partitions of each member (most partitions first), then committed partitions no
    member holds; committed offsets from one OffsetFetch, log ends from one ListOffsets."""
    committed = {(c.topic, c.partition): c for c in admin.committed_offsets(d.group_id)}
    rows: list[GroupOffsetRow] = []
    assigned: set[tuple[str, int]] = set()
    for m in sorted(d.members, key=lambda m: -len(m.assignment)):
        for tp in sorted(m.assignment):
            assigned.add(tp)
            rows.append(GroupOffsetRow(d.group_id, tp[0], tp[1], None, None, None,
                                       m.member_id, m.host, m.client_id))
    for tp in sorted(set(committed) - assigned):
        rows.append(GroupOffsetRow(d.group_id, tp[0], tp[1], None, None))
    ends = {(o.topic, o.partition): o.offset for o in
            admin.list_offsets(sorted({(r.topic, r.partition) for r in rows}), -1) if o.error is None}
    for r in rows:
        c = committed.get((r.topic, r.partition))
        if c is not None:
            r.current, r.leader_epoch = c.offset, c.leader_epoch
        end = ends.get((r.topic, r.partition))
        r.log_end = end if end is not None and end >= 0 else None
    return rows


# -- reset-offsets ----------------------------------------------------------------------------

APPLIED, NOT_APPLIED, UNKNOWN = "applied", "not applied", "unknown"


@dataclass
class ResetResult:
    """What ``--execute`` did: per (group, topic, partition), (APPLIED | NOT_APPLIED | UNKNOWN,
    why) for every partition that was not simply applied, and notes (replies lost but re-read)."""
    plans: list[GroupPlan]
    executed: bool = False
    rollback_file: str | None = None
    outcomes: dict[tuple[str, str, int], tuple[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def check_resettable(descs: list[GroupDescription]) -> None:
    refused = [d for d in descs if d.exists and d.state not in RESETTABLE]
    if refused:
        raise OperationError("\n".join(
            f"Assignments can only be reset if the group '{d.group_id}' is inactive, but the "
            f"current state is {d.state}." for d in refused))


def creation_times(admin, ids: list[str], missing: set[str] = frozenset()) -> dict[str, int]:
    """KIP-1282: each group's creation time, or the KIP's error (nothing is reset). A group that
    does not exist has no creation time to reset to."""
    version = admin.kip.consumer_group_describe_version()
    if version is None or version < 2:
        raise UnsupportedByBroker(TOO_OLD_FOR_START_TIME)
    for g in ids:
        if g in missing:
            raise OperationError(f"Cannot reset offsets using --to-start-time: group '{g}' does not exist.")
    described = admin.kip.describe_consumer_groups_v2(ids)
    times = {}
    for g in ids:
        ms = described[g].group_creation_time_ms if g in described else -1
        if ms is None or ms < 0:
            raise OperationError(NO_CREATION_TIME.format(group=g))
        times[g] = ms
    return times


def _refuse_invalid(missing: list[str], leaderless: list[str]) -> None:
    """Java 4.2+ (checkAllTopicPartitionsValid): every partition to reset exists and has a leader."""
    if missing:
        raise OperationError(f'The partitions "{",".join(missing)}" do not exist')
    if leaderless:
        raise OperationError(f'The partitions "{",".join(leaderless)}" have no leader')


def _select_topics(admin, specs: list[str]) -> list[tuple[str, int]]:
    """The partitions ``specs`` name, in kafka-consumer-groups' order (which decides the order of
    its plan between partitions of one hash bucket): ``topic:p,p`` specs first, as given, then
    the partitions of whole topics in the order its admin client's map gives them."""
    parsed = [parse_topic_spec(s) for s in specs]
    leaders = admin.partition_leaders(sorted({t for t, _ in parsed}))
    whole = javaorder.described_topics(list(dict.fromkeys(t for t, parts in parsed if parts is None)))
    ordered = [(t, parts) for t, parts in parsed if parts is not None] + [(t, None) for t in whole]
    selected, missing, leaderless = {}, [], []
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
    _refuse_invalid(missing, leaderless)
    return list(selected)


def _check_committed(admin, partitions: list[tuple[str, int]]) -> None:
    """--all-topics: the committed partitions are checked as --topic's are."""
    if partitions:
        leaders = admin.partition_leaders(sorted({t for t, _ in partitions}))
        known = {(t, p): leader for t, parts in leaders.items() for p, leader in parts.items()}
        _refuse_invalid([f"{t}-{p}" for t, p in partitions if (t, p) not in known],
                        [f"{t}-{p}" for t, p in partitions if (t, p) in known and known[(t, p)] is None])


def plan_reset(admin, ids: list[str], specs: list[str], all_topics: bool,
               scenario: planner.Scenario, now_ms: int,
               file_offsets: dict[str, dict[tuple[str, int], int]] | None = None,
               progress=None) -> list[GroupPlan]:
    """Every check that can refuse the reset runs before any offset is looked up. ``progress``
    (done, total) is told of each request round: one per group, then the log offsets."""
    steps = _Steps(progress, len(ids) + 2 + scenario.is_time + (scenario.kind == planner.MAX_AGE))
    descs = admin.describe_groups(ids)
    check_resettable(descs)
    missing = {d.group_id for d in descs if not d.exists}
    created = creation_times(admin, ids, missing) if scenario.kind == planner.START_TIME else {}

    # Each group's partitions in the order kafka-consumer-groups collects them (the file's, the
    # committed offsets', the --topic specs'), so plain output can follow its maps (javaorder).
    if scenario.kind == planner.FILE:
        selection = {g: list((file_offsets or {}).get(g, {})) for g in ids}
        committed = {g: steps.after(_committed(admin, g, sel)) for g, sel in selection.items()}
    elif all_topics:
        committed = {g: steps.after(_committed(admin, g)) for g in ids}
        selection = {g: list(c) for g, c in committed.items()}
        _check_committed(admin, sorted({tp for sel in selection.values() for tp in sel}))
    else:
        tps = _select_topics(admin, specs)
        selection = {g: tps for g in ids}
        committed = {g: steps.after(_committed(admin, g, tps)) for g in ids}
    if scenario.kind == planner.CURRENT:         # its map holds the committed partitions first
        selection = {g: sorted(sel, key=lambda tp: tp not in committed[g]) for g, sel in selection.items()}

    every = sorted({tp for sel in selection.values() for tp in sel})
    ages = None
    if scenario.kind == planner.MAX_AGE:
        ages = steps.after(admin.kip.partition_ages(sorted({t for t, _ in every})))
    starts = steps.after(_offsets(admin, every, -2))
    ends = steps.after(_offsets(admin, every, -1))
    lookups_by_ts: dict[int, dict] = {}
    if scenario.is_time:
        targets = {g: planner.lookup_timestamp(scenario, now_ms, created.get(g)) for g in ids}
        for ts in sorted(set(targets.values())):
            wanted = sorted({tp for g in ids if targets[g] == ts for tp in selection[g]})
            lookups_by_ts[ts] = {}
            for o in admin.list_offsets(wanted, ts):
                if o.error is not None:             # an error is not "no record": nothing is planned
                    raise OperationError(f"Error getting offset by timestamp of topic partition: "
                                         f"{o.topic}-{o.partition}: {o.error}")
                lookups_by_ts[ts][(o.topic, o.partition)] = (o.offset, o.timestamp_ms)
        steps.after(None)

    plans = []
    for g in ids:
        positions = [PartitionPosition(t, p, committed[g].get((t, p)), starts[(t, p)], ends[(t, p)])
                     for t, p in selection[g]]
        lookups = lookups_by_ts[targets[g]] if scenario.is_time else None
        plan = planner.plan_group(g, scenario, positions, lookups=lookups, ages=ages,
                                  file_offsets=(file_offsets or {}).get(g))
        if scenario.kind == planner.FILE and g not in (file_offsets or {}):
            plan.warnings.append(f"No reset plan for group {g} found")
        if g in missing:
            plan.warnings.append(f"Group {g} does not exist: --execute would create it with these offsets")
        plans.append(plan)
    return plans


class _Steps:
    """Counts finished request rounds for a progress callback (done, total)."""

    def __init__(self, progress, total: int):
        self.progress, self.total, self.done = progress, total, 0

    def after(self, value):
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)
        return value


def _committed(admin, group: str, partitions=None) -> dict[tuple[str, int], int]:
    return {(c.topic, c.partition): c.offset for c in admin.committed_offsets(group, partitions)}


def _offsets(admin, partitions: list[tuple[str, int]], time: int) -> dict[tuple[str, int], int]:
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


def rollback_path(cluster_id: str | None, groups: list[str], now_ms: int) -> str:
    """A new file under ``$XDG_STATE_HOME/kcli/rollback/`` (``~/.local/state``), named by cluster,
    group and time: ``<cluster>_<group>_<yyyymmddThhmmss.mmmZ>.csv``."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    group = groups[0] if len(groups) == 1 else f"{groups[0]}+{len(groups) - 1}"
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_ms / 1000)) + f".{now_ms % 1000:03d}Z"
    name = "_".join(re.sub(r"[^A-Za-z0-9._-]", "-", part) for part in (cluster_id or "cluster", group, stamp))
    return os.path.join(state, "kcli", "rollback", name + ".csv")


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


# Errors after which a commit may or may not have been applied: no reply, or the broker's own
# timeout. Every other error answer means the broker did not apply it.
_AMBIGUOUS = frozenset({"_TIMED_OUT", "_TRANSPORT", "_MSG_TIMED_OUT", "REQUEST_TIMED_OUT",
                        "NETWORK_EXCEPTION", "_ALL_BROKERS_DOWN"})


def classify(planned: dict[tuple[str, int], int], before: dict[tuple[str, int], int | None],
             errors: dict, reread: dict[tuple[str, int], int | None] | None) -> dict:
    """(APPLIED | NOT_APPLIED | UNKNOWN, why) per partition of one group's commit: ``errors`` is
    the commit's answer per partition (a BrokerError or None), ``reread`` the committed offsets
    read back afterwards (None when they could not be read)."""
    out = {}
    for tp, new in planned.items():
        err = errors.get(tp)
        if err is None:
            out[tp] = (APPLIED, "")
        elif err.name not in _AMBIGUOUS:
            out[tp] = (NOT_APPLIED, err.message)
        elif reread is None:
            out[tp] = (UNKNOWN, f"{err.message}; the committed offset could not be read back")
        elif reread.get(tp) == new:
            out[tp] = (APPLIED, f"{err.message}, but the committed offset read back is the new one")
        elif reread.get(tp) == before.get(tp):
            out[tp] = (NOT_APPLIED, f"{err.message}; the committed offset read back is unchanged")
        else:
            out[tp] = (UNKNOWN, f"{err.message}; the committed offset read back is {reread.get(tp)}")
    return out


def execute(admin, plans: list[GroupPlan], rollback: str, with_group: bool,
            progress=None) -> ResetResult:
    """Writes the rollback file, then commits each group's plan: one OffsetCommit per group (and
    one OffsetDelete where a restore removes offsets). A commit without an answer is checked by
    reading the committed offsets back, within the command's deadline: each partition ends up
    applied, not applied or unknown (``report``). ``progress`` (done, total) counts groups."""
    steps = _Steps(progress, len(plans))
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
            if any(e is not None and e.name in _AMBIGUOUS for e in errors.values()):
                try:      # on kcli's own connection: librdkafka's may still wait on the commit
                    reread = admin.kip.committed_offsets(plan.group, list(commits))
                except Exception:  # noqa: BLE001 - no answer either: the outcome stays unknown
                    reread = None
            outcome.update(classify(commits, before, errors, reread))
        if deletes:
            outcome.update(_delete_for_restore(admin, plan.group, deletes))
        for (t, p), (status, why) in outcome.items():
            if status != APPLIED:
                result.outcomes[(plan.group, t, p)] = (status, why)
            elif why:
                result.notes.append(f"Group {plan.group}, partition {t}-{p}: {why}")
        steps.after(None)
    return result


def _delete_for_restore(admin, group: str, partitions: list[tuple[str, int]]) -> dict:
    """A restore's partitions that had no committed offset: their offsets are deleted."""
    try:
        group_error, per = admin.delete_group_offsets(group, partitions)
    except Exception as exc:  # noqa: BLE001 - no answer: the deletion may or may not have happened
        return {tp: (UNKNOWN, f"deleting the committed offset: {exc}") for tp in partitions}
    return {tp: (APPLIED, "") if (per.get(tp) or group_error) is None
            else (NOT_APPLIED, f"deleting the committed offset: {(per.get(tp) or group_error).message}")
            for tp in partitions}


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
    if not by_status[APPLIED] and not by_status[UNKNOWN]:
        raise OperationError(f"No offsets were committed ({total} partitions): {detail}")
    raise PartialFailure(f"{len(by_status[APPLIED])} of {total} partitions committed, "
                         f"{len(by_status[NOT_APPLIED])} not, {len(by_status[UNKNOWN])} unknown: {detail}")


# -- delete -----------------------------------------------------------------------------------

def delete_offsets(admin, group: str, specs: list[str]):
    """(group-level BrokerError or None, [(topic, partition or -1, BrokerError or None)]) sorted
    as the Java tool sorts (by the string topic+partition). A group-level error applies to every
    partition."""
    check_group_ids([group])
    parsed = [parse_topic_spec(s) for s in specs]
    leaders = admin.partition_leaders(sorted({t for t, parts in parsed if parts is None}))
    partitions, rows = [], []
    for topic, parts in parsed:
        if parts is not None:
            partitions += [(topic, p) for p in parts]
        elif topic in leaders:
            partitions += [(topic, p) for p in sorted(leaders[topic])]
        else:
            rows.append((topic, -1, UNKNOWN_TOPIC))
    group_error, per = admin.delete_group_offsets(group, partitions) if partitions else (None, {})
    rows += [(t, p, per.get((t, p)) or group_error) for t, p in partitions]
    return group_error, sorted(rows, key=lambda r: f"{r[0]}{r[1]}")


UNKNOWN_TOPIC = BrokerError(3, "UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition.")

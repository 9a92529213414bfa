"""The expansion radar (``kcli check expansions``): partitions added recently to a topic (KIP-1327
CreationTimeMs after the topic's first partitions'; a new topic is no expansion and is only
named), and for each consumer group with committed offsets on their topic, where a
``latest`` start loses records.

What can be known, from the broker alone (on a broker without KIP-1327, from kcli's own
sightings of the topics instead, kcli.admin.sightings: a partition kcli saw its topic without is
an expansion made after that; one it never did may be one, and is checked as one):
- when each partition was created (KIP-1327) and when each consumer-protocol group was (KIP-1282),
  so whether the partition is younger than the group: records on it were all written after the
  group existed;
- whether the group has a committed offset on the partition now, and the partition's log start
  and end: with no commit, a ``latest`` start would skip the records between them now (EXPOSED);
- what kcli itself saw on earlier runs: the radar remembers, per group and partition, the records
  that were there while the group had no commit (in ``$XDG_STATE_HOME/kcli/expansions/``).

What cannot: which records a consumer fetched, or how it chose its first position. The broker
keeps neither, and OffsetFetch returns only the latest commit. So a loss is only suspected (LOST?):
kcli saw records ``[start, end)`` on the partition while the group had no commit there, and the
group's commit now is at or past ``end``, so it jumped from none to beyond them. A group that
started at ``earliest``, ``to_start_time`` or ``latest --max-age`` read them and looks the same
from here: check the consumers' ``auto.offset.reset``. A group whose commit is still inside that
range is READING (it started at or before its commit). A commit made before kcli ever saw the
partition without one cannot be judged, and a ``latest`` consumer that positioned itself before
committing anything may have skipped more than kcli saw.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from kcli.errors import OperationError, UsageError
from kcli.model import (INTERNAL_TOPICS, AgeBounds, ExpansionReport, GroupExposure, NewTopic, SuspectedLoss,
                        TopicInfo, YoungPartition)
from kcli.ages import BROKER, UNKNOWN, combine, decide
from kcli.ops.groups import check_group_ids
from kcli.ops.resets.gather import committed_of_groups, log_offsets, start_times
from kcli.specs import duration_arg, parse_topic_spec
from kcli.xdg import state_dir

if TYPE_CHECKING:
    from kcli.admin import Admin

DEFAULT_WITHIN = "24h"
MEMORY_DAYS = 30                 # remembered observations of partitions older than this are dropped
MEMORY_VERSION = 1


def within_ms(text: str | None) -> int:
    """--within, checked before any request."""
    ms = duration_arg("--within", text or DEFAULT_WITHIN)
    if ms <= 0:
        raise UsageError(f"--within must be positive, not '{text}'")
    return ms


def check_names(groups: list[str], topics: list[str]) -> None:
    check_group_ids(groups)
    for t in topics:
        if parse_topic_spec(t)[1] is not None:
            raise UsageError(f"--topic takes a topic name, not partitions: '{t}'")


def memory_path(cluster_id: str | None) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "-", cluster_id or "cluster")
    return state_dir("expansions", name + ".json")


def classify(committed: int | None, log_start: int, log_end: int,
             seen: SuspectedLoss | None) -> tuple[str, int, SuspectedLoss | None]:
    """(status, exposed records, suspected loss) of one group on one young partition; ``seen``:
    the records kcli saw there on an earlier run while the group had no commit."""
    if committed is None:
        exposed = max(0, log_end - log_start)
        return ("EXPOSED" if exposed else "EMPTY"), exposed, None
    if seen is None or seen.records <= 0:
        return "OK", 0, None
    if committed >= seen.to_offset:
        return "LOST?", 0, seen
    return "READING", 0, None


def check_groups_exist(admin: Admin, groups: list[str]) -> None:
    """Groups named with -g must exist: a typo would otherwise check nothing and exit 0 for good
    (OperationError, exit 1, before anything else is looked up)."""
    missing = [d.group_id for d in admin.describe_groups(list(dict.fromkeys(groups))) if not d.exists]
    if missing:
        raise OperationError(f"Consumer group(s) not found: {', '.join(repr(g) for g in missing)}; "
                             "check expansions checks groups the cluster knows")


def expansions_and_new_topics(described, within: int, now_ms: int
                              ) -> tuple[list[tuple[str, int, int]], list[NewTopic]]:
    """The rule: a partition is an expansion when it was created after its topic's first
    partitions (CreationTimeMs, KIP-1327; a topic's original partitions share its creation time,
    and one whose first partitions' time is unknown (-1) counts every known later one). Returns
    the expansions created within ``within``, and the topics themselves created within it: new
    topics, not expansions (a group that has not read a new topic yet loses nothing to an
    expansion), reported apart."""
    young, new = [], []
    for t in described:
        times = [p.creation_time_ms for p in t.partitions if p.creation_time_ms is not None]
        if not times:
            continue
        first = min(times)
        young += [(t.name, p.partition, p.creation_time_ms) for p in t.partitions
                  if p.creation_time_ms is not None and p.creation_time_ms > first
                  and now_ms - p.creation_time_ms <= within]
        if first >= 0 and now_ms - first <= within:
            new.append(NewTopic(t.name, first, sum(1 for c in times if c == first)))
    return young, new


def check_expansions(admin: Admin, groups: list[str], topics: list[str], within: int, now_ms: int,
                     remember: bool = True, described: list[TopicInfo] | None = None) -> ExpansionReport:
    """The radar's report; OperationError (exit 1) for a group named that does not exist. On a
    broker that reports no partition creation times (before KIP-1327), the expansions are the
    ones kcli saw happen (``observed_expansions``), and the partitions it cannot tell from young
    expansions are checked too, reported when exposed. With ``remember``, reads and updates the
    radar's memory file. ``described``: the topics' descriptions when the caller has them (then
    ``topics`` is not read)."""
    if groups:
        check_groups_exist(admin, groups)
    if described is None:
        names = topics or [t for t in admin.topic_names() if t not in INTERNAL_TOPICS]
        described = admin.describe_topics(names) if names else []
    bounds: dict[tuple[str, int], AgeBounds] = {}
    if any(p.creation_time_ms is None for t in described for p in t.partitions):
        young, undecided, bounds = observed_expansions(admin, described, within, now_ms)
        report = ExpansionReport(now_ms, within, [], 0, undecided=undecided)
        young += [(t, p, bounds[(t, p)].created_before_ms) for t, p in undecided]
    else:
        young, new_topics = expansions_and_new_topics(described, within, now_ms)
        unknown = sum(1 for t in described for p in t.partitions if (p.creation_time_ms or 0) < 0)
        report = ExpansionReport(now_ms, within, [], unknown, new_topics=new_topics)
    if not young:
        return report

    tps = [(t, p) for t, p, _ in young]
    starts = log_offsets(admin, tps, -2)
    ends = log_offsets(admin, tps, -1)
    young_topics = {t for t, _ in tps}
    ids = list(dict.fromkeys(groups)) or sorted(g.group_id for g in admin.list_groups())
    commits: dict[str, dict[tuple[str, int], int]] = {}
    for g, offsets in committed_of_groups(admin, ids).items():     # one OffsetFetch per coordinator
        mine = {tp: o for tp, o in offsets.items() if tp[0] in young_topics and o is not None}
        if mine:
            commits[g] = mine
    created = start_times(admin, sorted(commits))[0] if commits else {}    # KIP-1282, where known

    path = memory_path(admin.cluster_id()) if remember else None
    memory = _load(path) if path else {}
    for t, p, creation in young:
        b = bounds.get((t, p))
        part = YoungPartition(t, p, creation, starts[(t, p)], ends[(t, p)],
                              source=(b.after_source or UNKNOWN) if b else BROKER,
                              created_after_ms=b.created_after_ms if b else None)
        for g in sorted(commits):
            if not any(topic == t for topic, _ in commits[g]):
                continue
            g_created = created.get(g)
            key = f"{g}\t{t}\t{p}\t{creation}"
            seen = memory.get(key)
            current = commits[g].get((t, p))
            status, exposed, lost = classify(current, part.log_start, part.log_end,
                                             SuspectedLoss(*seen) if seen else None)
            if status == "EXPOSED":
                memory[key] = [part.log_start, part.log_end, now_ms]
            part.groups.append(GroupExposure(
                g, g_created, younger_than(b, creation, g_created), current, exposed, lost, status))
        if part.source == UNKNOWN and not any(g.status in ("EXPOSED", "LOST?") for g in part.groups):
            continue                            # undecided, nothing at stake: counted, not a row
        report.partitions.append(part)
    if path:
        report.memory_file = path
        _save(path, {k: v for k, v in memory.items()
                     if int(k.rsplit("\t", 1)[1]) >= now_ms - MEMORY_DAYS * 86_400_000})
    return report


def observed_expansions(admin: Admin, described, within: int, now_ms: int):
    """On a broker without creation times: from kcli's sightings (kcli.admin.sightings), the
    expansions kcli saw happen (it saw the topic without them) not proven older than ``within``,
    and the partitions undecided (kcli never saw their topic without them, and first saw them
    less than ``within`` ago: they may be young expansions). Returns (expansions as
    (topic, partition, latest creation time), undecided (topic, partition), their AgeBounds)."""
    seen = admin.partition_sightings([t.name for t in described])
    young, undecided, bounds = [], [], {}
    for t in described:
        for p in t.partitions:
            tp = (t.name, p.partition)
            b = bounds[tp] = combine(now_ms, seen.get(tp))
            hot, source, _ = decide(b, within)
            if not hot:
                continue                                    # proven older than the window
            if b.created_after_ms is not None:
                young.append((t.name, p.partition, b.created_before_ms))
            else:
                undecided.append(tp)
    return young, undecided, bounds


def younger_than(b: AgeBounds | None, creation: int, group_created: int | None) -> bool | None:
    """Whether the partition is younger than the group: the broker's creation time, or kcli's
    bounds when they prove it either way; None when unknown."""
    if group_created is None or group_created < 0:
        return None
    if b is None:
        return creation > group_created
    if b.created_after_ms is not None and b.created_after_ms >= group_created:
        return True
    if b.created_before_ms is not None and b.created_before_ms < group_created:
        return False
    return None


def problems(report: ExpansionReport) -> str | None:
    """The exit-4 summary, or None when nothing is exposed or suspected lost. Records are counted
    once, however many groups they concern."""
    exposed, lost = report.found("EXPOSED"), report.found("LOST?")
    if not exposed and not lost:
        return None
    parts = []
    if exposed:
        parts.append(f"{_pairs(report, 'EXPOSED')} exposed ({report.records('EXPOSED')} "
                     "records a latest start would skip)")
    if lost:
        parts.append(f"{_pairs(report, 'LOST?')} suspected lost ({report.records('LOST?')} records)")
    return "Expansion check: " + "; ".join(parts)


def _pairs(report: ExpansionReport, status: str) -> str:
    pairs, partitions = len(report.found(status)), report.partitions_with(status)
    return f"{pairs} group partition(s)" + (f" on {partitions} partition(s)" if partitions != pairs else "")


def _load(path: str) -> dict[str, list[int]]:
    """The radar's memory: {"group\\ttopic\\tpartition\\tcreation": [log start, log end, seen ms]};
    an unreadable file is an empty memory."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return {}
    entries = doc.get("exposed") if isinstance(doc, dict) and doc.get("version") == MEMORY_VERSION else None
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(k, str) and k.count("\t") == 3
            and k.rsplit("\t", 1)[1].lstrip("-").isdigit()
            and isinstance(v, list) and len(v) == 3 and all(type(x) is int for x in v)}


def _save(path: str, memory: dict[str, list[int]]) -> None:
    """Written whole to a new file, then renamed over the old one."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"version": MEMORY_VERSION, "exposed": memory}, fh, sort_keys=True)
        os.replace(tmp, path)
    except OSError as exc:
        raise OperationError(f"Cannot write the expansion radar's memory {path}: {exc.strerror}") from None

"""Partition age from what can be proven, and the rule that decides on it (pure).

A partition's creation time is bounded by facts (kcli.model.AgeBounds):
- the broker's (KIP-1327: PartitionAgeMs, CreationTimeMs): exact;
- kcli's own sightings (kcli.admin.sightings): created at or before the time kcli first saw
  the partition, and after the last time it saw the topic without it;
- the partition's first record: its append time is no earlier than the partition. A
  LogAppendTime batch carries that time; a CreateTime record only with a finite
  ``message.timestamp.before.max.ms`` B (KIP-937: the broker refused records stamped more than
  B before its clock, so the append was at most B after the record's timestamp). A record
  timestamp alone proves nothing of the partition's age (apache/kafka#23713).

The rule for ``--to-latest --max-age L`` (and the expansion check) is safe by construction: a
partition is cold (latest) only when its age is proven over L, hot (earliest) when proven within
it, and otherwise hot, undecided, with a notice: a replay can be undone, a skip cannot.
"""

from __future__ import annotations

from kcli import kip937
from kcli.model import AgeBounds
from kcli.times import format_duration_ms, rounded_duration

BROKER, OBSERVED, RECORD_BOUND, UNKNOWN = "broker", "observed", "record bound", "unknown"
UNBOUNDED = 2 ** 63 - 1            # Long.MAX_VALUE: message.timestamp.before.max.ms's default


def exact(now_ms: int, created_ms: int) -> AgeBounds:
    """The broker's creation time (or now minus its PartitionAgeMs)."""
    return AgeBounds(now_ms, created_ms, BROKER, created_ms, BROKER)


def record_bound(timestamp_ms: int | None, log_append_time: bool | None,
                 before_max_ms: int | None) -> int | None:
    """The latest time the partition can have been created at, by its first record: the record's
    timestamp for LogAppendTime, that plus message.timestamp.before.max.ms for CreateTime when it
    is finite; None otherwise (no record, its type unknown, or CreateTime unbounded)."""
    if timestamp_ms is None or timestamp_ms < 0 or log_append_time is None:
        return None
    if log_append_time:
        return timestamp_ms
    if before_max_ms is None or before_max_ms < 0 or before_max_ms >= UNBOUNDED:
        return None
    return timestamp_ms + before_max_ms


def before_max_of(configs) -> dict[str, int]:
    """{topic: message.timestamp.before.max.ms as its broker applies it} of DescribeConfigs'
    ResourceConfigs (kcli.kip937)."""
    return {rc.name: kip937.effective_bound({e.name: e for e in rc.entries}, kip937.BEFORE) for rc in configs}


def combine(now_ms: int, observed: tuple[int | None, int] | None = None,
            record_ms: int | None = None) -> AgeBounds:
    """The tightest bounds of kcli's sighting (created after, at or before) and the record bound."""
    after = observed[0] if observed else None
    before, before_source = (observed[1], OBSERVED) if observed else (None, None)
    if record_ms is not None and (before is None or record_ms < before):
        before, before_source = record_ms, RECORD_BOUND
    return AgeBounds(now_ms, after, OBSERVED if after is not None else None, before, before_source)


def gather(tps: list, starts: dict, ends: dict, now_ms: int, limit_ms: int, *, broker, seen, records,
           before_max) -> dict:
    """AgeBounds per partition of ``tps`` from the facts the callables read: ``broker(topics)``
    the broker's ages ({tp: ms}, -1 unknown; {} without Metadata v14), ``seen(topics)`` kcli's
    sightings ({tp: (after, before)}), ``records(wanted)`` the first records ({(t, p, offset):
    RecordTime}) and ``before_max(topics)`` message.timestamp.before.max.ms ({topic: ms}). The
    records are read only for partitions the broker and the sightings leave undecided at
    ``limit_ms``, the configs only for topics whose first record is CreateTime."""
    ages = broker(sorted({t for t, _ in tps}))
    found = {tp: exact(now_ms, now_ms - ages[tp]) for tp in tps if ages.get(tp, -1) >= 0}
    rest = [tp for tp in tps if tp not in found]
    if not rest:
        return found
    sightings = seen(sorted({t for t, _ in rest}))
    for tp in rest:
        found[tp] = combine(now_ms, sightings.get(tp))
    undecided = [tp for tp in rest if decide(found[tp], limit_ms)[1] == UNKNOWN and ends[tp] > starts[tp]]
    if not undecided:
        return found
    times = records([(t, p, starts[(t, p)]) for t, p in undecided])
    firsts = {}
    for t, p in undecided:
        rt = times.get((t, p, starts[(t, p)]))
        if rt is not None and rt.error is None and rt.log_append_time is not None:
            firsts[(t, p)] = (rt.timestamp_ms if rt.timestamp_ms is not None else rt.bound_ms, rt.log_append_time)
    created_time = sorted({t for (t, _), (_, appended) in firsts.items() if not appended})
    bounds = before_max(created_time) if created_time else {}
    for tp, (ts, appended) in firsts.items():
        bound = record_bound(ts, appended, bounds.get(tp[0]))
        if bound is not None:
            found[tp] = combine(now_ms, sightings.get(tp), bound)
    return found


def decide(bounds: AgeBounds | None, limit_ms: int) -> tuple[bool, str, str]:
    """(hot?, the source that decided or ``unknown``, the rule as a plan shows it: the age cut to
    two units, as docs/output.md's tables show durations, the limit as it was given)."""
    limit = format_duration_ms(limit_ms)
    unknown = True, UNKNOWN, f"earliest (age unknown, not proven over {limit})"
    if bounds is None:
        return unknown
    low, high = bounds.min_age_ms, bounds.max_age_ms
    before, after = bounds.before_source or UNKNOWN, bounds.after_source or UNKNOWN

    def age(ms: int) -> str:          # exact where the cut would put it on the limit's other side
        cut = rounded_duration(ms)
        return format_duration_ms(cut if (cut > limit_ms) == (ms > limit_ms) else ms)

    if low is not None and low == high:
        if low <= limit_ms:
            return True, before, f"earliest (hot, {before}: age {age(max(low, 0))} ≤ {limit})"
        return False, before, f"latest (cold, {before}: age {age(low)} > {limit})"
    if low is not None and low > limit_ms:
        return False, before, f"latest (cold, {before}: age ≥ {age(low)} > {limit})"
    if high is not None and high <= limit_ms:
        return True, after, f"earliest (hot, {after}: age ≤ {age(max(high, 0))} ≤ {limit})"
    return unknown


def undecided_reason(bounds: AgeBounds | None) -> str:
    """Why a partition's bounds decide nothing."""
    if bounds is None or (bounds.created_before_ms is None and bounds.created_after_ms is None):
        return "no creation time, sighting or record bound"
    low = format_duration_ms(max(bounds.min_age_ms, 0)) if bounds.min_age_ms is not None else None
    if bounds.created_after_ms is None:
        return f"first seen by kcli {low} ago, its topic never without it"
    high = format_duration_ms(max(bounds.max_age_ms or 0, 0))
    return f"created {low} to {high} ago" if low is not None else f"created at most {high} ago"


DECIDES = ("a broker's CreationTimeMs (KIP-1327), kcli seeing the topic before it grows, a LogAppendTime "
           "topic, or a finite message.timestamp.before.max.ms (KIP-937) would decide them")

"""Partition ages from what kcli can prove, on any broker (the rule: kcli.offsets.ages): the
broker's own (KIP-1327, Metadata v14) where it knows them, else kcli's sightings
(kcli.admin.sightings), else the partition's first record (LogAppendTime; CreateTime with a
finite message.timestamp.before.max.ms, KIP-937). Used by ``--to-latest --max-age`` and
``--compare``; the partitions no fact decides are named in one Warn line."""

from __future__ import annotations

from kcli import kip937
from kcli.errors import UnsupportedByBroker
from kcli.model import AgeBounds
from kcli.offsets.ages import DECIDES, UNKNOWN, combine, decide, exact, record_bound, undecided_reason

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

TP = tuple[str, int]
NAMED = 10                       # partitions a notice names before it counts the rest


def age_bounds(admin: Admin, tps: list[TP], starts: dict[TP, int], ends: dict[TP, int],
               now_ms: int, limit_ms: int) -> dict[TP, AgeBounds]:
    """AgeBounds per partition of ``tps``. The first records are read (one Fetch per leader)
    only for partitions the broker and the sightings leave undecided at ``limit_ms``, and the
    topic configs only for topics whose first record is CreateTime."""
    try:
        broker = admin.partition_ages(sorted({t for t, _ in tps}))
    except UnsupportedByBroker:
        broker = {}
    found = {tp: exact(now_ms, now_ms - broker[tp]) for tp in tps if broker.get(tp) is not None and broker[tp] >= 0}
    rest = [tp for tp in tps if tp not in found]
    if not rest:
        return found
    seen = admin.partition_sightings(sorted({t for t, _ in rest}))
    for tp in rest:
        found[tp] = combine(now_ms, seen.get(tp))
    undecided = [tp for tp in rest if decide(found[tp], limit_ms)[1] == UNKNOWN and ends[tp] > starts[tp]]
    if not undecided:
        return found
    times = admin.record_times([(t, p, starts[(t, p)]) for t, p in undecided])
    firsts = {}
    for t, p in undecided:
        rt = times.get((t, p, starts[(t, p)]))
        if rt is not None and rt.error is None and rt.log_append_time is not None:
            firsts[(t, p)] = (rt.timestamp_ms if rt.timestamp_ms is not None else rt.bound_ms, rt.log_append_time)
    created_time = sorted({t for (t, _), (_, appended) in firsts.items() if not appended})
    before_max = _before_max(admin, created_time) if created_time else {}
    for tp, (ts, appended) in firsts.items():
        bound = record_bound(ts, appended, before_max.get(tp[0]))
        if bound is not None:
            found[tp] = combine(now_ms, seen.get(tp), bound)
    return found


def _before_max(admin: Admin, topics: list[str]) -> dict[str, int]:
    """message.timestamp.before.max.ms as each topic's broker applies it (kip937)."""
    out = {}
    for rc in admin.describe_configs([("topic", t) for t in topics]):
        out[rc.name] = kip937.effective_bound({e.name: e for e in rc.entries}, kip937.BEFORE)
    return out


def undecided_notice(plans, limit_text: str) -> str | None:
    """The Warn line naming the partitions whose age decided nothing (reset to earliest), or None."""
    named: dict[TP, AgeBounds | None] = {}
    for plan in plans:
        for p in plan.partitions:
            if p.age_source == UNKNOWN:
                named.setdefault((p.topic, p.partition), p.age)
    if not named:
        return None
    reasons: dict[str, list[str]] = {}
    for (t, p), bounds in sorted(named.items()):
        reasons.setdefault(undecided_reason(bounds), []).append(f"{t}-{p}")
    parts = []
    for reason, names in reasons.items():
        shown = ", ".join(names[:NAMED]) + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")
        parts.append(f"{shown} ({reason})")
    return (f"--max-age {limit_text}: no proven age for {len(named)} partition(s), so they start at "
            f"earliest (hot): {'; '.join(parts)}. {DECIDES[0].upper()}{DECIDES[1:]}")

"""Partition ages from what kcli can prove, on any broker (the rule: kcli.ages): the
broker's own (KIP-1327, Metadata v14) where it knows them, else kcli's sightings
(kcli.admin.sightings), else the partition's first record (LogAppendTime; CreateTime with a
finite message.timestamp.before.max.ms, KIP-937). Used by ``--to-latest --max-age`` and
``--compare``; the partitions no fact decides are named in one Warn line."""

from __future__ import annotations

from kcli.errors import NotAuthorized, UnsupportedByBroker
from kcli.model import AgeBounds
from kcli.ages import DECIDES, UNKNOWN, before_max_of, gather, undecided_reason

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

TP = tuple[str, int]
NAMED = 10                       # partitions a notice names before it counts the rest


def age_bounds(admin: Admin, tps: list[TP], starts: dict[TP, int], ends: dict[TP, int],
               now_ms: int, limit_ms: int) -> dict[TP, AgeBounds]:
    """AgeBounds per partition of ``tps`` (kcli.ages.gather), read through the adapter."""
    return gather(tps, starts, ends, now_ms, limit_ms, broker=lambda topics: _broker_ages(admin, topics),
                  seen=admin.partition_sightings, records=admin.record_times,
                  before_max=lambda topics: _before_max(admin, topics))


def _broker_ages(admin: Admin, topics: list[str]) -> dict[TP, int]:
    try:
        return admin.partition_ages(topics)
    except UnsupportedByBroker:
        return {}


def _before_max(admin: Admin, topics: list[str]) -> dict[str, int]:
    """message.timestamp.before.max.ms as each topic's broker applies it (kip937). Configs this
    principal may not describe prove no age: the refusal is a Warn line, the ages stay unknown."""
    try:
        return before_max_of(admin.describe_configs([("topic", t) for t in topics]))
    except NotAuthorized as exc:
        admin.warn(f"{exc.message}: no age proven from message.timestamp.before.max.ms")
        return {}


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

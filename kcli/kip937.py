"""KIP-937's timestamp bounds, in one place (describe configs and the audit use it): the bound a
broker applies and what it means for producers. Pure.

The rule is Kafka's LogConfig: a bound is its own value unless that is Long.MAX_VALUE, in which
case the deprecated ``message.timestamp.difference.max.ms`` applies (Kafka 3.6 to 3.9). Kafka 4
removed that key, so there the bound is simply its value. ``tests/inputs/test_kip937.py`` pins the
embedded broker's own implementation to the same answers."""

from __future__ import annotations

from kcli.model import ConfigEntry, ResourceConfig

LONG_MAX = 9223372036854775807
BEFORE, AFTER, DIFF = ("message.timestamp.before.max.ms", "message.timestamp.after.max.ms",
                       "message.timestamp.difference.max.ms")
KIP937 = (BEFORE, AFTER)


def _base(name: str) -> str:
    return name[4:] if name.startswith("log.") else name


def _human(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def effective_bound(entries: dict[str, ConfigEntry], name: str) -> int:
    """The bound the broker applies: the key's value (or its ``log.`` broker synonym's) unless it
    is Long.MAX_VALUE, else the deprecated difference key's when the broker reports one, else no
    limit (Long.MAX_VALUE)."""
    def value(key):
        for k in (key, "log." + key):
            e = entries.get(k)
            if e is not None and e.value not in (None, ""):
                return int(e.value)
        return None

    own = value(name)
    if own is not None and own != LONG_MAX:
        return own
    diff = value(DIFF)
    return diff if diff is not None else LONG_MAX


def meaning(name: str, effective: int) -> str:
    base = _base(name)
    if base not in KIP937:
        return ""
    direction = "in the past" if base == BEFORE else "in the future"
    if effective >= LONG_MAX:
        return f"KIP-937: no limit on record timestamps {direction}"
    return (f"KIP-937: produce is rejected (INVALID_TIMESTAMP) for CreateTime records more than "
            f"{_human(effective)} {direction} of the broker's clock")


def explain(rc: ResourceConfig) -> dict[str, tuple[int, str]]:
    """For each KIP-937 key present: (effective value, meaning)."""
    entries = {e.name: e for e in rc.entries}
    result = {}
    for e in rc.entries:
        if _base(e.name) in KIP937:
            eff = effective_bound(entries, _base(e.name))
            result[e.name] = (eff, meaning(e.name, eff))
    return result

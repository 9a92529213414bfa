"""Config descriptions, with the KIP-937 timestamp bounds explained: their effective value (the
deprecated ``message.timestamp.difference.max.ms`` is the fallback when a bound is not set) and what
it means for producers."""

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
    """The bound the broker applies: the explicit key, else the deprecated difference key when that
    one is set to a non-default value, else no limit."""
    def value(key):
        for k in (key, "log." + key):
            e = entries.get(k)
            if e is not None and e.value not in (None, ""):
                return e, int(e.value)
        return None, None

    entry, v = value(name)
    if entry is not None and not entry.is_default:
        return v
    dentry, dv = value(DIFF)
    if dentry is not None and not dentry.is_default:
        return dv
    return v if v is not None else LONG_MAX


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

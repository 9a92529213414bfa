"""Where an audit's read starts or ends (``--from``, ``--to``; the kcli-kafka data source's
``startingOffsets``/``endingOffsets``), read without pyspark: the audit checks them before any
request or JVM (kcli.pipeline.source reads with them)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping

from kcli.inputs import INT32_MAX, INT64_MAX

EARLIEST = -2
LATEST = -1


class SourceOptionError(ValueError):
    """An option of the kcli-kafka data source is missing or malformed."""


@dataclass(frozen=True)
class Bound:
    """Where a read starts or ends: ``earliest``, ``latest``, ``offsets`` or ``timestamp``."""

    kind: str
    offsets: Mapping[tuple[str, int], int] | None = None
    timestamp: int | None = None


def parse_bound(offsets: str | None, timestamp: str | None, default: str, what: str) -> Bound:
    """A start or end from its ``...Offsets`` / ``...Timestamp`` option pair."""
    if offsets is not None and timestamp is not None:
        raise SourceOptionError(f"give {what}Offsets or {what}Timestamp, not both")
    if timestamp is not None:
        try:
            return Bound("timestamp", timestamp=int(timestamp))
        except ValueError:
            raise SourceOptionError(f"{what}Timestamp must be epoch milliseconds") from None
    text = (offsets or default).strip()
    if text.lower() in ("earliest", "latest"):
        return Bound(text.lower())
    shape = SourceOptionError(f'{what}Offsets must be earliest, latest or JSON like {{"topic": {{"0": 42}}}}')
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise shape from None
    if not isinstance(raw, dict) or not all(isinstance(parts, dict) for parts in raw.values()):
        raise shape
    parsed = {}
    for topic, parts in raw.items():
        for partition, offset in parts.items():
            # an offset is an int64 from 0, or -2 (earliest) or -1 (latest), as Spark's connector
            if not (partition.isascii() and partition.isdigit() and int(partition) <= INT32_MAX):
                raise SourceOptionError(f"{what}Offsets: partition {partition!r} of {topic!r} is not "
                                        f"a partition number (0 to {INT32_MAX})")
            if type(offset) is not int or not (offset in (EARLIEST, LATEST) or 0 <= offset <= INT64_MAX):
                raise SourceOptionError(f"{what}Offsets: offset {offset!r} of {topic}-{partition} is not "
                                        f"an offset (0 to {INT64_MAX}; -2 earliest, -1 latest)")
            parsed[(topic, int(partition))] = offset
    return Bound("offsets", offsets=parsed)

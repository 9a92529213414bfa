"""list-offsets: partition selection (``topic[:p,p...]``) and the ``--time`` grammar of
kafka-get-offsets, plus ISO datetimes."""

from __future__ import annotations

from kcli.admin.topics import topic_filter
from kcli.errors import OperationError, UsageError
from kcli.inputs import INT32_MAX, parse_int, shown
from kcli.model import INTERNAL_TOPICS, OffsetInfo
from kcli.times import TimeParseError, TimeRangeError, parse_datetime_ms

NAMED_TIMES = {"latest": -1, "-1": -1, "earliest": -2, "-2": -2, "max-timestamp": -3, "-3": -3}


def parse_time(text: str) -> int:
    """``--time``: a name (or -1/-2/-3) or a time from the epoch on, which never becomes one of
    the special values."""
    if text in NAMED_TIMES:
        return NAMED_TIMES[text]
    try:
        return parse_datetime_ms(text)
    except TimeRangeError as exc:
        raise UsageError(f"--time {exc}") from None
    except TimeParseError:
        raise UsageError(f"Malformed time argument {shown(text)}. Please use -1 or latest / -2 or earliest / "
                         "-3 or max-timestamp, epoch milliseconds or an ISO-8601 datetime") from None


def parse_topic_spec(spec: str) -> tuple[str, list[int] | None]:
    """``orders`` -> ("orders", None); ``orders:0,2`` -> ("orders", [0, 2]). Partitions are
    int32 ids, as in Kafka's protocol."""
    topic, colon, parts = spec.strip().partition(":")
    if not topic or (colon and not parts) or ":" in parts:
        raise UsageError(f"Invalid topic arg '{shown(spec)}', expected topic name and partitions")
    if not colon:
        return topic, None
    try:
        return topic, sorted({parse_int(p, 0, INT32_MAX) for p in parts.split(",")})
    except ValueError:
        raise UsageError(f"Invalid partition specified in topic arg '{shown(spec)}'") from None


def select_partitions(admin, specs: list[str], exclude_internal: bool) -> list[tuple[str, int]]:
    """Topics are regexes (whole-name match, as kafka-get-offsets); none given means all topics."""
    parsed = [parse_topic_spec(s) for s in specs]
    topic_filter([t for t, _ in parsed])          # validates every regex before any request
    counts = admin.partition_counts()
    selected: set[tuple[str, int]] = set()
    for pattern, parts in parsed or [(".*", None)]:
        rx = topic_filter([pattern])
        for name, count in counts.items():
            if exclude_internal and name in INTERNAL_TOPICS:
                continue
            if rx.fullmatch(name):
                wanted = range(count) if parts is None else [p for p in parts if p < count]
                selected.update((name, p) for p in wanted)
    if not selected:
        raise OperationError("Could not match any topic-partitions with the specified filters")
    return sorted(selected, key=lambda tp: f"{tp[0]}-{tp[1]}")


def list_offsets(admin, specs: list[str], time: int, exclude_internal: bool = False) -> list[OffsetInfo]:
    """One answer per selected partition; a partition the cluster did not answer for carries
    the error (``check_answered`` turns any error into exit 1 once the answers are shown)."""
    partitions = select_partitions(admin, specs, exclude_internal)
    results = {(o.topic, o.partition): o for o in admin.list_offsets(partitions, time)}
    return [results.get(tp) or OffsetInfo(tp[0], tp[1], -1, error="no answer") for tp in partitions]


def check_answered(offsets: list[OffsetInfo]) -> None:
    failed = [f"{o.topic}-{o.partition}" for o in offsets if o.error is not None]
    if failed:
        raise OperationError(f"No offset for {len(failed)} of {len(offsets)} partitions: {', '.join(failed)}")

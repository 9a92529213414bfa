"""list-offsets (kafka-get-offsets): partition selection (topic regexes, ``:p,p``) and one
answer per partition; a partition without an answer fails the command once the others are shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kcli.errors import OperationError
from kcli.model import INTERNAL_TOPICS, OffsetInfo
from kcli.specs import parse_topic_spec, topic_filter

if TYPE_CHECKING:
    from kcli.admin import Admin


def select_partitions(admin: Admin, specs: list[str], exclude_internal: bool) -> list[tuple[str, int]]:
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


def list_offsets(admin: Admin, specs: list[str], time: int, exclude_internal: bool = False) -> list[OffsetInfo]:
    """One answer per selected partition; a partition the cluster did not answer for carries
    the error (``check_answered`` turns any error into exit 1 once the answers are shown)."""
    partitions = select_partitions(admin, specs, exclude_internal)
    results = {(o.topic, o.partition): o for o in admin.list_offsets(partitions, time)}
    return [results.get(tp) or OffsetInfo(tp[0], tp[1], -1, error="no answer") for tp in partitions]


def check_answered(offsets: list[OffsetInfo]) -> None:
    failed = [f"{o.topic}-{o.partition}" for o in offsets if o.error is not None]
    if failed:
        raise OperationError(f"No offset for {len(failed)} of {len(offsets)} partitions: {', '.join(failed)}")

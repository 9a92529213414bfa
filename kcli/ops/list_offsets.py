"""list-offsets (kafka-get-offsets): partition selection by rules (``kcli.specs.PartitionRule``:
a topic regex and partitions, as ``--topic``/``--partitions``, ``--topic-partitions`` and kcli's
``-t REGEX:p,p`` give them) and one answer per partition; a partition without an answer fails
the command once the others are shown."""

from __future__ import annotations

import re

from kcli.errors import OperationError
from kcli.model import INTERNAL_TOPICS, OffsetInfo
from kcli.specs import PartitionRule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

EVERY_PARTITION = PartitionRule(re.compile(".*"))


def select_partitions(admin: Admin, rules: list[PartitionRule], exclude_internal: bool) -> list[tuple[str, int]]:
    """The partitions any rule allows (no rule: every partition), sorted as kafka-get-offsets
    prints them (by the string ``topic-partition``). The rules were read before any request."""
    rules = rules or [EVERY_PARTITION]
    selected = [(name, p) for name, count in admin.partition_counts().items()
                if not (exclude_internal and name in INTERNAL_TOPICS)
                for p in range(count) if any(r.allows(name, p) for r in rules)]
    if not selected:
        raise OperationError("Could not match any topic-partitions with the specified filters")
    return sorted(selected, key=lambda tp: f"{tp[0]}-{tp[1]}")


def list_offsets(admin: Admin, rules: list[PartitionRule], time: int,
                 exclude_internal: bool = False) -> list[OffsetInfo]:
    """One answer per selected partition; a partition the cluster did not answer for carries
    the error (``check_answered`` turns any error into exit 1 once the answers are shown)."""
    partitions = select_partitions(admin, rules, exclude_internal)
    results = {(o.topic, o.partition): o for o in admin.list_offsets(partitions, time)}
    return [results.get(tp) or OffsetInfo(tp[0], tp[1], -1, error="no answer") for tp in partitions]


def check_answered(offsets: list[OffsetInfo]) -> None:
    failed = [f"{o.topic}-{o.partition}" for o in offsets if o.error is not None]
    if failed:
        raise OperationError(f"No offset for {len(failed)} of {len(offsets)} partitions: {', '.join(failed)}")

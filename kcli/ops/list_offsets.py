"""list-offsets (kafka-get-offsets): partition selection by rules (``kcli.specs.PartitionRule``:
a topic regex and partitions, as ``--topic``/``--partitions``, ``--topic-partitions`` and kcli's
``-t REGEX:p,p`` give them) and one answer per partition; a partition without an answer fails
the command once the others are shown."""

from __future__ import annotations

import re

from kcli.errors import BrokerRejected, NotAuthorized, OperationError
from kcli.model import INTERNAL_TOPICS, OffsetInfo
from kcli.specs import PartitionRule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

EVERY_PARTITION = PartitionRule(re.compile(".*"))


def select_partitions(admin: Admin, rules: list[PartitionRule], exclude_internal: bool,
                      explain: bool = False, refusals: list | None = None) -> list[tuple[str, int]]:
    """The partitions any rule allows (no rule: every partition), sorted as kafka-get-offsets
    prints them (by the string ``topic-partition``). The rules were read before any request.
    None allowed fails with kafka-get-offsets' words or, ``explain``, with what kcli knows
    (``no_match_text``). ``explain`` too: a topic named literally that this principal may not
    describe fails the command when nothing else is selected, else goes into ``refusals``
    (``refused``)."""
    rules = rules or [EVERY_PARTITION]
    counts = {name: count for name, count in admin.partition_counts().items()
              if not (exclude_internal and name in INTERNAL_TOPICS)}
    selected = [(name, p) for name, count in counts.items()
                for p in range(count) if any(r.allows(name, p) for r in rules)]
    if explain:
        found = refused(admin, rules, counts)
        if found and not selected:
            raise found[0]
        if refusals is not None:
            refusals.extend(found)
    if not selected:
        raise OperationError(no_match_text(rules, counts) if explain else
                             "Could not match any topic-partitions with the specified filters")
    return sorted(selected, key=lambda tp: f"{tp[0]}-{tp[1]}")


def refused(admin: Admin, rules: list[PartitionRule], counts: dict[str, int]) -> list[NotAuthorized]:
    """A topic named literally that the cluster's listing does not show may be one this client
    is not authorized to describe (Kafka leaves those out of a listing): asked by name (only
    those), the broker says so: their NotAuthorized."""
    from kcli.specs import literal_topic

    found = []
    for rule in rules:
        name = literal_topic([_as_given(rule.topic.pattern)])
        if name is not None and name not in counts:
            try:
                admin.describe_topics([name])
            except NotAuthorized as exc:
                found.append(exc)
            except BrokerRejected:
                pass                          # no such topic: no_match_text says so
    return found


def no_match_text(rules: list[PartitionRule], counts: dict[str, int]) -> str:
    """Why no partition was selected: each rule's topics that exist with the partitions asked
    that they do not have (``Partition orders-99 does not exist: topic orders has 2 partitions
    (0-1)``), or the rules no topic matches."""
    why = []
    for rule in rules:
        topics = sorted(name for name in counts if rule.allows_topic(name))
        if not topics:
            why.append(f"No topic matches '{_as_given(rule.topic.pattern)}'")
        for name in topics:
            if rule.only is not None:
                asked = ", ".join(f"{name}-{p}" for p in sorted(rule.only))
                what = f"Partition {asked} does not exist" if len(rule.only) == 1 else \
                    f"Partitions {asked} do not exist"
            else:
                what = f"No partition {rule.low}-" + ("" if rule.high is None else str(rule.high - 1))
            has = counts[name]
            why.append(f"{what}: topic {name} has {has} partition{'' if has == 1 else 's'}"
                       + (f" (0-{has - 1})" if has else ""))
    return "; ".join(why)


def _as_given(pattern: str) -> str:
    """A topic pattern as the user gave it: kcli.specs wraps each in ``(?:...)``."""
    inner = pattern[3:-1] if pattern.startswith("(?:") and pattern.endswith(")") else None
    return inner if inner is not None and ")|(?:" not in inner else pattern


def list_offsets(admin: Admin, rules: list[PartitionRule], time: int, exclude_internal: bool = False,
                 explain: bool = False, refusals: list | None = None) -> list[OffsetInfo]:
    """One answer per selected partition; a partition the cluster did not answer for carries
    the error (``check_answered`` turns any error into exit 1 once the answers are shown).
    ``explain``: kcli's words when no partition is selected, and ``refusals``
    (``select_partitions``)."""
    partitions = select_partitions(admin, rules, exclude_internal, explain, refusals)
    results = {(o.topic, o.partition): o for o in admin.list_offsets(partitions, time)}
    return [results.get(tp) or OffsetInfo(tp[0], tp[1], -1, error="no answer") for tp in partitions]


def check_answered(offsets: list[OffsetInfo]) -> None:
    failed = [f"{o.topic}-{o.partition}" for o in offsets if o.error is not None]
    if failed:
        raise OperationError(f"No offset for {len(failed)} of {len(offsets)} partitions: {', '.join(failed)}")

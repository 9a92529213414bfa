"""The reset planner: a scenario plus what the cluster said about each selected partition (committed
offset, log start and end, a ListOffsets answer for time scenarios, the partition's age for
``--max-age``) gives a plan per partition. Pure: no Kafka, no clock (the caller passes ``now``).

The rules are kafka-consumer-groups' (Apache Kafka 4.4's
tools/src/main/java/org/apache/kafka/tools/GroupOffsetsResetter.java, OffsetsUtils before):
``--to-offset``, ``--shift-by`` and
``--from-file`` are clamped to [log start, log end] with a warning; time lookups without a record
fall back to the log end with a warning; ``--to-current`` without a commit takes the log end.
A plan that moves a committed offset forward past records the group has not read says so per
partition (``PartitionPlan.skipped``); ``-1`` in a ``--from-file`` CSV means "no committed
offset" (kcli's rollback files write it), so the restore deletes the offset there.
Added: ``--to-start-time`` (KIP-1282: a time lookup at the group's creation time) and
``--to-latest --max-age D`` (KIP-1327: age ≤ D → earliest, otherwise or unknown → latest).
"""

from __future__ import annotations

from kcli import javaorder
from kcli.errors import OperationError
from kcli.model import (CLAMPED, NO_RECORD, REPLAYS, SKIPS_UNREAD, AgeBounds, GroupPlan, PartitionPlan,
                        PartitionPosition, PlanWarning)
from kcli.ages import decide
from kcli.datatypes import datatype
from kcli.times import check_timestamp, timestamp_before

TP = tuple[str, int]

EARLIEST, LATEST, CURRENT, OFFSET, SHIFT = "to-earliest", "to-latest", "to-current", "to-offset", "shift-by"
DATETIME, DURATION, FILE, START_TIME, MAX_AGE = (
    "to-datetime", "by-duration", "from-file", "to-start-time", "max-age")
TIME_KINDS = frozenset({DATETIME, DURATION, START_TIME})
# Scenarios whose purpose is to skip: no --allow-skip needed to execute them.
SKIPPING_KINDS = frozenset({LATEST, MAX_AGE})
NO_OFFSET = -1            # in a --from-file CSV (kcli's rollback files): no committed offset


class NoCommittedOffset(OperationError):
    """--shift-by on a partition the group has no committed offset for (exit 1, nothing
    committed). ``java_message``: kafka-consumer-groups' words (a usage error there)."""

    def __init__(self, topic: str, partition: int):
        self.java_message = (f"Cannot shift offset for partition {topic}-{partition} "
                             "since there is no current committed offset")
        super().__init__(f"{self.java_message}; nothing was committed. --shift-by moves committed "
                         "offsets: use --all-topics (the partitions with a commit), or reset this "
                         "partition first with --to-earliest (or --to-offset, --to-datetime...)")


@datatype(frozen=True)
class Scenario:
    """``value``: N for to-offset/shift-by, epoch ms for to-datetime, ms for by-duration and
    max-age; unused otherwise."""
    kind: str
    value: int | None = None

    @property
    def is_time(self) -> bool:
        return self.kind in TIME_KINDS

    @property
    def number(self) -> int:
        """``value``, for the scenarios that take one."""
        if self.value is None:
            raise ValueError(f"the {self.kind} scenario needs a value")
        return self.value


def lookup_timestamp(scenario: Scenario, now_ms: int, creation_ms: int | None = None) -> int:
    """The timestamp a time scenario asks ListOffsets for: never before the epoch, so never one
    of ListOffsets' special values (TimeRangeError otherwise; the CLI refuses such input first)."""
    if scenario.kind == DATETIME:
        return check_timestamp(scenario.number, "--to-datetime")
    if scenario.kind == DURATION:
        return timestamp_before(now_ms, scenario.number)
    if scenario.kind == START_TIME:
        if creation_ms is None or creation_ms < 0:
            raise ValueError("--to-start-time needs the group's creation time")
        return creation_ms
    raise ValueError(f"{scenario.kind} is not a time scenario")


def _clamp(group: str, pos: PartitionPosition, offset: int, warnings: dict[TP, PlanWarning]) -> int:
    """``offset`` within the log; a clamped one is warned about (``warnings``, by partition)."""
    new = min(max(offset, pos.log_start), pos.log_end)
    if new != offset:
        warnings[(pos.topic, pos.partition)] = PlanWarning(CLAMPED, group, pos.topic, pos.partition,
                                                           asked=offset, new=new)
    return new


def plan_group(group: str, scenario: Scenario, positions: list[PartitionPosition],
               lookups: dict[TP, tuple[int, int | None]] | None = None,
               ages: dict[TP, AgeBounds] | None = None,
               file_offsets: dict[TP, int] | None = None) -> GroupPlan:
    """One group's plan, partitions in the order of ``positions``.

    ``lookups``: time scenarios, the ListOffsets answer (offset, record timestamp) per partition,
    offset -1 when no record is at or after the timestamp. ``ages``: max-age, the AgeBounds per
    partition (kcli.ages; none: unknown, hot). ``file_offsets``: from-file, this group's
    offsets from the CSV.
    The warnings come in the order kafka-consumer-groups prints them (``javaorder.reset_warnings``)."""
    plan = GroupPlan(group)
    kind = scenario.kind
    clamped: dict[TP, PlanWarning] = {}
    empty: dict[TP, PlanWarning] = {}
    for pos in positions:
        tp = (pos.topic, pos.partition)
        ts = rule = bounds = source = None
        new: int | None
        if kind == EARLIEST:
            new = pos.log_start
        elif kind == LATEST:
            new = pos.log_end
        elif kind == MAX_AGE:
            bounds = (ages or {}).get(tp)
            hot, source, rule = decide(bounds, scenario.number)
            new = pos.log_start if hot else pos.log_end
        elif kind == CURRENT:
            new = pos.committed if pos.committed is not None else pos.log_end
        elif kind == OFFSET:
            new = _clamp(group, pos, scenario.number, clamped)
        elif kind == SHIFT:
            if pos.committed is None:
                raise NoCommittedOffset(pos.topic, pos.partition)
            new = _clamp(group, pos, pos.committed + scenario.number, clamped)
        elif kind == FILE:       # -1: the partition had no committed offset (a rollback file)
            in_file = (file_offsets or {})[tp]
            new = None if in_file == NO_OFFSET else _clamp(group, pos, in_file, clamped)
        elif kind in TIME_KINDS:
            offset, ts = (lookups or {}).get(tp, (-1, None))
            if offset is None or offset < 0:
                empty[tp] = PlanWarning(NO_RECORD, group, pos.topic, pos.partition, new=pos.log_end)
                new, ts = pos.log_end, None
            else:
                new = offset
        else:
            raise ValueError(f"unknown scenario {kind}")
        plan.partitions.append(PartitionPlan(group, pos.topic, pos.partition, pos.committed, new,
                                             pos.log_start, pos.log_end, ts, rule, age=bounds, age_source=source))
    plan.warnings = javaorder.reset_warnings([(p.topic, p.partition) for p in positions], clamped, empty)
    return plan


def skip_warnings(plans: list[GroupPlan]) -> list[PlanWarning]:
    """One per partition whose committed offset the plans move past unread records."""
    return [PlanWarning(SKIPS_UNREAD, p.group, p.topic, p.partition, new=p.new, current=p.current, records=p.skipped)
            for plan in plans for p in plan.partitions if p.skipped]


def replay_warnings(plans: list[GroupPlan]) -> list[PlanWarning]:
    """One per group whose committed offsets the plans move back over records it has read."""
    out = []
    for plan in plans:
        back = [p for p in plan.partitions if p.replayed]
        if back:
            out.append(PlanWarning(REPLAYS, plan.group, records=sum(p.replayed for p in back), partitions=len(back)))
    return out

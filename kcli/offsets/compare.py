"""Every reset policy side by side (``reset-offsets --compare``): the plans the reset planner
makes for each policy, one row per partition, and per policy what it replays and skips. Pure:
the operation (``kcli.ops.compare``) gathers the cluster's answers once and plans each policy with
``kcli.offsets.plan``, so each column is exactly what that policy's single dry run plans.

Records moved, against the committed offset, signed as the plan's DELTA (new minus committed): a
target before it replays ``committed - target`` records (-); a target after it skips the unread
records it moves past (+, ``PartitionPlan.skipped``: from the committed offset or, if retention
removed what lay before it, the log start). Without a committed offset the group has read
nothing there: a start at the target skips the records before it (``target - log start``) and
replays none.
"""

from __future__ import annotations

from typing import Iterator

from kcli.model import GroupPlan, PartitionPlan, PlanWarning
from kcli.offsets import plan as planner
from kcli.datatypes import field, datatype


@datatype
class Policy:
    """One column pair: ``label`` as the plan's JSON names the scenario (``to-earliest``,
    ``to-latest --max-age 1h``, ...), ``name`` its short column title; ``asked``: its parameter
    was given on the command line (--max-age, --by-duration, --to-datetime)."""
    name: str
    label: str
    scenario: planner.Scenario
    asked: bool = False


@datatype
class PolicyPlans:
    policy: Policy
    plans: dict[str, GroupPlan] = field(default_factory=dict)     # by group
    unavailable: dict[str, str] = field(default_factory=dict)     # group -> why the broker cannot serve it

    @property
    def available(self) -> bool:
        return bool(self.plans) or not self.unavailable

    def reasons(self) -> list[str]:
        """Why it is n/a, each reason once (groups named when only some are concerned)."""
        by_reason: dict[str, list[str]] = {}
        for g, why in self.unavailable.items():
            by_reason.setdefault(why, []).append(g)
        return list(by_reason)


def moved(p: PartitionPlan) -> int | None:
    """Records skipped (+) or replayed (-) by moving to ``p.new``, the plan's DELTA sign (see the
    module's rule); None when the plan removes the committed offset (a rollback file's -1)."""
    if p.new is None:
        return None
    if p.current is None:
        return p.new - p.log_start
    if p.new < p.current:
        return p.new - min(p.current, p.log_end)
    return p.skipped


def totals(column: PolicyPlans) -> tuple[int, int]:
    """(records skipped, records replayed) over every partition the policy plans."""
    skipped = replayed = 0
    for plan in column.plans.values():
        for p in plan.partitions:
            n = moved(p) or 0
            skipped += n if n > 0 else 0
            replayed += -n if n < 0 else 0
    return skipped, replayed


@datatype
class Comparison:
    """One ``PolicyPlans`` per policy, in the order of the columns, and the rows: each group's
    plan (any one policy's: they all plan the same partitions) with the indexes of its partitions
    sorted by topic and partition, groups sorted. An index is the same in every column (each
    policy is planned over the same positions)."""
    order: list[tuple[GroupPlan, list[int]]]
    columns: list[PolicyPlans]
    warnings: list[tuple[str, PlanWarning]] = field(default_factory=list)     # (policy label or "", warning)
    refused: list[str] = field(default_factory=list)    # the groups this principal may not describe, in words

    def cells(self, group: str | None = None) -> Iterator[tuple[tuple, list[PartitionPlan | None]]]:
        """Each row (group, topic, partition, committed, log start, log end), of every group or
        of ``group``, with each column's plan of it (None: the policy is n/a for the group)."""
        for plan, indexes in self.order:
            if group is not None and plan.group != group:
                continue
            columns = [col.plans.get(plan.group) for col in self.columns]
            for i in indexes:
                p = plan.partitions[i]
                yield ((p.group, p.topic, p.partition, p.current, p.log_start, p.log_end),
                       [None if c is None else c.partitions[i] for c in columns])


def comparison(plans: list[GroupPlan], columns: list[PolicyPlans],
               warnings: list[tuple[str, PlanWarning]], refused: list[str] | None = None) -> Comparison:
    """``plans``: any one policy's."""
    def by_partition(plan: GroupPlan) -> list[int]:
        parts = plan.partitions
        return sorted(range(len(parts)), key=lambda i: (parts[i].topic, parts[i].partition))
    return Comparison([(plan, by_partition(plan)) for plan in sorted(plans, key=lambda plan: plan.group)],
                      columns, warnings, refused or [])

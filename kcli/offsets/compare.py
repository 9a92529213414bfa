"""Every reset policy side by side (``reset-offsets --compare``): the plans the reset planner
makes for each policy, one row per partition, and per policy what it replays and skips. Pure:
the operation (``kcli.ops.compare``) gathers the cluster's answers once and plans each policy with
``kcli.offsets.plan``, so each column is exactly what that policy's single dry run plans.

Records moved, against the committed offset: a target before it replays ``committed - target``
records (+); a target after it skips the unread records it moves past (-, ``PartitionPlan.skipped``:
from the committed offset or, if retention removed what lay before it, the log start). Without a
committed offset the group has read nothing there: a start at the target skips the records before
it (``target - log start``) and replays none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from kcli.model import GroupPlan, PartitionPlan
from kcli.offsets import plan as planner


@dataclass
class Policy:
    """One column pair: ``label`` as the plan's JSON names the scenario (``to-earliest``,
    ``to-latest --max-age 1h``, ...), ``name`` its short column title."""
    name: str
    label: str
    scenario: planner.Scenario


@dataclass
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
    """Records replayed (+) or skipped (-) by moving to ``p.new`` (see the module's rule); None
    when the plan removes the committed offset (a rollback file's -1)."""
    if p.new is None:
        return None
    if p.current is None:
        return -(p.new - p.log_start)
    if p.new < p.current:
        return min(p.current, p.log_end) - p.new
    return -p.skipped


def totals(column: PolicyPlans) -> tuple[int, int]:
    """(records skipped, records replayed) over every partition the policy plans."""
    skipped = replayed = 0
    for plan in column.plans.values():
        for p in plan.partitions:
            n = moved(p) or 0
            skipped += -n if n < 0 else 0
            replayed += n if n > 0 else 0
    return skipped, replayed


@dataclass
class Comparison:
    """The rows (group, topic, partition, committed, log start, log end), sorted, and one
    ``PolicyPlans`` per policy, in the order of the columns. ``at``: each row's index in its
    group's plans, the same in every column (each policy is planned over the same positions)."""
    rows: list[tuple[str, str, int, int | None, int, int]]
    columns: list[PolicyPlans]
    warnings: list[str] = field(default_factory=list)
    at: list[int] = field(default_factory=list)

    def cells(self) -> Iterator[tuple[tuple, list[PartitionPlan | None]]]:
        """Each row with each column's plan of it (None: the policy is n/a for the group)."""
        for row, i in zip(self.rows, self.at):
            yield row, [col.plans[row[0]].partitions[i] if row[0] in col.plans else None
                        for col in self.columns]


def comparison(plans: list[GroupPlan], columns: list[PolicyPlans], warnings: list[str]) -> Comparison:
    """The rows of ``plans`` (any one policy's: they all plan the same partitions), sorted."""
    keyed = sorted(((p.group, p.topic, p.partition, p.current, p.log_start, p.log_end), i)
                   for plan in plans for i, p in enumerate(plan.partitions))
    return Comparison([row for row, _ in keyed], columns, warnings, [i for _, i in keyed])

"""The records a target skips (+) or replays (-) against the committed offset (the sign of the
plan's DELTA), and the totals per policy (pure)."""

from kcli.model import GroupPlan, PartitionPlan
from kcli.offsets import plan as planner
from kcli.offsets.compare import Policy, PolicyPlans, moved, totals


def pp(current, new, start=0, end=100):
    return PartitionPlan("g", "t", 0, current, new, start, end)


def test_moved():
    assert moved(pp(40, 10)) == -30                  # back: replays
    assert moved(pp(40, 70)) == +30                  # forward: skips the unread records
    assert moved(pp(40, 40)) == 0
    assert moved(pp(5, 30, start=20)) == +10         # retention removed 5..19: not the reset's skip
    assert moved(pp(150, 90)) == -10                 # committed past the log end: only 90..99 exist
    assert moved(pp(None, 30, start=10)) == +20      # no commit: the records before the target
    assert moved(pp(None, 10, start=10)) == 0
    assert moved(pp(40, None)) is None               # a rollback's -1: the offset is deleted


def test_totals_and_availability():
    column = PolicyPlans(Policy("X", "x", planner.Scenario(planner.EARLIEST)))
    column.plans["g"] = GroupPlan("g", [pp(40, 10), pp(40, 70), pp(None, 5)])
    assert totals(column) == (35, 30) and column.available
    na = PolicyPlans(Policy("Y", "y", planner.Scenario(planner.START_TIME)), unavailable={"g": "why", "h": "why"})
    assert not na.available and na.reasons() == ["why"]

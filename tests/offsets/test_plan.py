"""The reset planner, every scenario (Apache Kafka's OffsetsUtils rules, KIP-1282, KIP-1327)."""

import pytest

from kcli.model import CLAMPED, NO_RECORD, AgeBounds, PartitionPosition, PlanWarning
from kcli.ages import combine, exact
from kcli.offsets.plan import (CURRENT, DATETIME, DURATION, EARLIEST, FILE, LATEST, MAX_AGE, OFFSET,
                               SHIFT, START_TIME, NoCommittedOffset, Scenario, lookup_timestamp,
                               plan_group)


def pos(committed=100, start=0, end=200, topic="t", partition=0):
    return PartitionPosition(topic, partition, committed, start, end)


def one(scenario, position=None, **kw):
    plan = plan_group("g", scenario, [position or pos()], **kw)
    assert len(plan.partitions) == 1
    return plan.partitions[0], plan.warnings


def test_earliest_latest_current():
    assert one(Scenario(EARLIEST), pos(start=10))[0].new == 10
    assert one(Scenario(LATEST))[0].new == 200
    assert one(Scenario(CURRENT))[0].new == 100


def test_current_without_commit_takes_log_end():
    p, w = one(Scenario(CURRENT), pos(committed=None))
    assert (p.new, p.current, p.delta, w) == (200, None, None, [])


def test_to_offset_in_range_and_delta():
    p, w = one(Scenario(OFFSET, 50))
    assert (p.new, p.delta, p.log_start, p.log_end, w) == (50, -50, 0, 200, [])


def test_to_offset_clamped_high_and_low():
    p, w = one(Scenario(OFFSET, 500))
    assert p.new == 200
    assert w == [PlanWarning(CLAMPED, "g", "t", 0, asked=500, new=200)]
    p, w = one(Scenario(OFFSET, 3), pos(start=10))
    assert p.new == 10
    assert w == [PlanWarning(CLAMPED, "g", "t", 0, asked=3, new=10)]


def test_shift_by_both_ways_and_clamped():
    assert one(Scenario(SHIFT, 50))[0].new == 150
    assert one(Scenario(SHIFT, -50))[0].new == 50
    assert one(Scenario(SHIFT, -150))[0].new == 0
    p, w = one(Scenario(SHIFT, 150))
    assert p.new == 200 and w == [PlanWarning(CLAMPED, "g", "t", 0, asked=250, new=200)]


def test_shift_by_without_commit_fails_naming_the_ways_out():
    """Found after the cluster was asked: exit 1 (not 2, "nothing was sent"); the drop-in keeps
    the Java tool's words."""
    with pytest.raises(NoCommittedOffset) as exc:
        one(Scenario(SHIFT, 1), pos(committed=None, topic="orders", partition=3))
    assert exc.value.java_message == ("Cannot shift offset for partition orders-3 since there is no "
                                      "current committed offset")
    assert exc.value.exit_code == 1
    assert "--all-topics" in exc.value.message and "--to-earliest" in exc.value.message


@pytest.mark.parametrize("kind", [DATETIME, DURATION, START_TIME])
def test_time_lookup_uses_record_and_its_timestamp(kind):
    p, w = one(Scenario(kind, 5), lookups={("t", 0): (42, 1_700_000_000_000)})
    assert (p.new, p.timestamp_ms, w) == (42, 1_700_000_000_000, [])


@pytest.mark.parametrize("kind", [DATETIME, DURATION, START_TIME])
def test_time_lookup_without_record_falls_back_to_log_end(kind):
    p, w = one(Scenario(kind, 5), pos(topic="orders", partition=2), lookups={("orders", 2): (-1, None)})
    assert (p.new, p.timestamp_ms) == (200, None)
    assert w == [PlanWarning(NO_RECORD, "g", "orders", 2, new=200)]


def test_time_lookup_is_not_clamped():
    # the broker's answer is taken as is (the Java tool does not clamp time scenarios)
    assert one(Scenario(DATETIME, 1), lookups={("t", 0): (0, 1)})[0].new == 0


def test_lookup_timestamp():
    assert lookup_timestamp(Scenario(DATETIME, 123), now_ms=1000) == 123
    assert lookup_timestamp(Scenario(DURATION, 60_000), now_ms=100_000) == 40_000
    assert lookup_timestamp(Scenario(START_TIME), now_ms=1, creation_ms=777) == 777
    with pytest.raises(ValueError):
        lookup_timestamp(Scenario(START_TIME), now_ms=1, creation_ms=-1)
    with pytest.raises(ValueError):
        lookup_timestamp(Scenario(LATEST), now_ms=1)


def test_from_file_clamped():
    p, w = one(Scenario(FILE), file_offsets={("t", 0): 250})
    assert p.new == 200 and len(w) == 1
    assert one(Scenario(FILE), file_offsets={("t", 0): 7})[0].new == 7


NOW = 10_000_000


def test_max_age_plan_per_partition():
    """The broker's exact age decides as KIP-1327 says; without it, the bounds decide only what
    they prove, and an unproven partition starts at earliest (hot), the side that loses nothing."""
    positions = [pos(topic="t", partition=p, start=5, end=9) for p in range(6)]
    plan = plan_group("g", Scenario(MAX_AGE, 60_000), positions, ages={
        ("t", 0): exact(NOW, NOW - 3_600_000),
        ("t", 1): exact(NOW, NOW - 1000),
        ("t", 2): combine(NOW, (NOW - 30_000, NOW - 20_000)),          # observed young
        ("t", 3): combine(NOW, (None, NOW - 120_000)),                  # first seen 2m ago: cold
        ("t", 4): combine(NOW, (None, NOW - 10_000)),                   # seen first 10s ago: unknown
        ("t", 5): combine(NOW, None, record_ms=NOW - 7_200_000)})       # a LogAppendTime record 2h ago
    got = [(p.partition, p.new, p.age_source, p.rule) for p in plan.partitions]
    assert got == [(0, 9, "broker", "latest (cold, broker: age 1h > 1m)"),
                   (1, 5, "broker", "earliest (hot, broker: age 1s ≤ 1m)"),
                   (2, 5, "observed", "earliest (hot, observed: age ≤ 30s ≤ 1m)"),
                   (3, 9, "observed", "latest (cold, observed: age ≥ 2m > 1m)"),
                   (4, 5, "unknown", "earliest (age unknown, not proven over 1m)"),
                   (5, 9, "record bound", "latest (cold, record bound: age ≥ 2h > 1m)")]
    assert plan.partitions[2].age == AgeBounds(NOW, NOW - 30_000, "observed", NOW - 20_000, "observed")
    assert plan.warnings == []
    missing = plan_group("g", Scenario(MAX_AGE, 60_000), [pos()], ages={})
    assert (missing.partitions[0].new, missing.partitions[0].age_source) == (0, "unknown")


def test_plan_keeps_the_given_order_and_carries_group():
    """The order is the caller's (kafka-consumer-groups' collection order, for its plain output)."""
    positions = [pos(topic="b", partition=1), pos(topic="a", partition=10), pos(topic="a", partition=2)]
    plan = plan_group("grp", Scenario(EARLIEST), positions)
    assert [(p.group, p.topic, p.partition) for p in plan.partitions] == [
        ("grp", "b", 1), ("grp", "a", 10), ("grp", "a", 2)]


def test_empty_selection_gives_empty_plan():
    plan = plan_group("g", Scenario(LATEST), [])
    assert plan.partitions == [] and plan.warnings == []


def test_warnings_come_in_the_java_tools_order():
    """kafka-consumer-groups (Kafka 4.4, the parity corpus) printed these, for --shift-by 150 and
    for a --to-datetime after the last record: HashMap order, not partition order."""
    positions = [pos(committed=10, end=10, topic="parity-orders", partition=p) for p in range(3)]
    shifted = plan_group("g", Scenario(SHIFT, 150), positions)
    assert [(w.kind, w.partition) for w in shifted.warnings] == [(CLAMPED, 1), (CLAMPED, 2), (CLAMPED, 0)]
    late = plan_group("g", Scenario(DATETIME, 4_000_000_000_000), positions[:2],
                      lookups={("parity-orders", 0): (-1, None), ("parity-orders", 1): (-1, None)})
    assert [(w.kind, w.partition) for w in late.warnings] == [(NO_RECORD, 1), (NO_RECORD, 0)]

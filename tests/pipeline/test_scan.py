"""``RangeScan`` (the audit of one range in one pass, batch by batch) against the audit's rules
written record by record (as ``kcli.pipeline.audit`` states them in Spark SQL): random ranges,
cut into random batches, and crafted edge cases."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from kcli.pipeline.result import CULPRIT_LIMIT
from kcli.pipeline.scan import RangeScan

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def ordered_by_the_rules(stamps):
    """The records kept in order: a longest non-decreasing subsequence of ``stamps`` (quadratic
    dynamic programming: the longest ending at each record), chosen from the end, at each length
    the latest record that fits; their indexes."""
    longest = []
    for i, t in enumerate(stamps):
        longest.append(1 + max((longest[j] for j in range(i) if stamps[j] <= t), default=0))
    need, bound, kept = max(longest, default=0), None, set()
    for i in range(len(stamps) - 1, -1, -1):
        if longest[i] == need and (bound is None or stamps[i] <= bound):
            kept.add(i)
            need, bound = need - 1, stamps[i]
    return kept


def by_the_rules(offsets, stamps, lower, upper, reset, target):
    """Every count, record by record, straight from the definitions."""
    n = len(stamps)
    before = [None] + [max(stamps[:i]) for i in range(1, n)]
    late = [b is not None and t < b for t, b in zip(stamps, before)]
    kept = ordered_by_the_rules(stamps)
    culprit = [i not in kept for i in range(n)]

    def ahead(i):           # above the next record kept, else below the previous one
        after = next((stamps[j] for j in range(i + 1, n) if j in kept), None)
        before_ = next((stamps[j] for j in range(i - 1, -1, -1) if j in kept), None)
        t = stamps[i]
        return t - after if after is not None and t > after else t - before_

    first = [(offsets[i], stamps[i], ahead(i), stamps[i] > upper) for i in range(n) if culprit[i]][:CULPRIT_LIMIT]
    return {
        "records": n, "min_ts": min(stamps), "max_ts": max(stamps),
        "max_ts_offset": max(o for o, t, b in zip(offsets, stamps, before) if b is None or t > b),
        "too_old": sum(t < lower for t in stamps), "too_new": sum(t > upper for t in stamps),
        "out_of_order": sum(late),
        "max_back": max((b - t for t, b, x in zip(stamps, before, late) if x), default=None),
        "culprits": sum(culprit), "first": first,
        "replayed": sum(o >= reset and t < target for o, t in zip(offsets, stamps)),
        "skipped": sum(o < reset and t >= target for o, t in zip(offsets, stamps)),
        "data_target_offset": min((o for o, t in zip(offsets, stamps) if t >= target), default=None),
        "read_from": min((o for o in offsets if o >= reset), default=None),
    }


def scanned(offsets, stamps, lower, upper, reset, target, cuts):
    scan = RangeScan(lower, upper, reset, target)
    for a, b in zip([0, *cuts], [*cuts, len(stamps)]):
        scan.add(pa.array(offsets[a:b], pa.int64()), pa.array(stamps[a:b], pa.int64()))
    row = scan.row("t", 0)
    names = ("records", "min_ts", "max_ts", "max_ts_offset", "too_old", "too_new",
             "out_of_order", "max_back", "culprits", "first", "replayed", "skipped",
             "data_target_offset", "read_from")
    return dict(zip(names, row[2:]))


@pytest.mark.parametrize("seed", range(60))
def test_random_ranges_in_random_batches(seed):
    rnd = random.Random(seed)
    n = rnd.randrange(1, 120)
    offsets = sorted(rnd.sample(range(3 * n), n))      # gaps, as compaction leaves
    spread = rnd.choice((3, 20, 1000))
    stamps = [rnd.randrange(-spread, spread) + (i if rnd.random() < 0.5 else 0) for i in range(n)]
    lower = rnd.choice((LONG_MIN, -spread // 2))
    upper = rnd.choice((LONG_MAX, spread // 2))
    reset, target = rnd.choice(offsets), rnd.randrange(-spread, spread)
    cuts = sorted(rnd.sample(range(1, n), min(n - 1, rnd.randrange(0, 8)))) if n > 1 else []
    assert scanned(offsets, stamps, lower, upper, reset, target, cuts) == by_the_rules(
        offsets, stamps, lower, upper, reset, target)


def test_culprits_are_the_fewest_records_out_of_order():
    """The issue's partition: 1,000 records one second apart, every 100th dated an hour
    earlier: 10 out of order and 10 culprits (the late records themselves, each an hour below
    the record kept before it), not the 941 in-order records the late ones are below."""
    offsets = list(range(1000))
    stamps = [i * 1000 - (3_600_000 if i % 100 == 99 else 0) for i in offsets]
    got = scanned(offsets, stamps, LONG_MIN, LONG_MAX, 0, 0, [250, 500, 750])
    assert (got["out_of_order"], got["culprits"]) == (10, 10)
    assert got["first"] == [(i, stamps[i], stamps[i] - stamps[i - 1], False) for i in range(99, 1000, 100)]
    assert got == by_the_rules(offsets, stamps, LONG_MIN, LONG_MAX, 0, 0)


def test_a_record_dated_ahead_is_the_one_culprit_before_the_records_it_is_above():
    """2 records 30 minutes ahead and 101 in order after them: the 2 are the culprits (removing
    them leaves the range in order), the 101 out of order."""
    offsets = list(range(113))
    stamps = [i * 1000 for i in range(10)] + [1_800_000] * 2 + [10_000 + i * 1000 for i in range(101)]
    got = scanned(offsets, stamps, LONG_MIN, LONG_MAX, 0, 0, [11, 40])
    assert (got["out_of_order"], got["culprits"]) == (101, 2)
    assert got["first"] == [(10, 1_800_000, 1_800_000 - 10_000, False), (11, 1_800_000, 1_800_000 - 10_000, False)]


def test_long_in_order_range_keeps_every_candidate_and_blames_none():
    offsets = list(range(5000))
    got = scanned(offsets, offsets, LONG_MIN, LONG_MAX, 0, 0, list(range(7, 5000, 97)))
    assert (got["culprits"], got["first"], got["out_of_order"]) == (0, [], 0)

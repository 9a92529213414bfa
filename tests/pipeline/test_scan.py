"""``RangeScan`` (the audit of one range in one pass, batch by batch) against the audit's rules
written record by record (as ``kcli.pipeline.audit`` states them in Spark SQL): random ranges,
cut into random batches, and crafted edge cases."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from kcli.pipeline.result import CULPRIT_LIMIT
from kcli.pipeline.scan import LONG_MAX, RangeScan

LONG_MIN = -(2**63)


def by_the_rules(offsets, stamps, lower, upper, reset, target):
    """Every count, record by record, straight from the definitions."""
    n = len(stamps)
    before = [None] + [max(stamps[:i]) for i in range(1, n)]
    after = [min((t for t in stamps[i + 1:] if t >= lower), default=None) for i in range(n)]
    late = [b is not None and t < b for t, b in zip(stamps, before)]
    culprit = [(b is None or t >= b) and (t > upper or (a is not None and t > a))
               for t, b, a in zip(stamps, before, after)]
    first = [(o, t, t - a if a is not None and t > a else None, t > upper)
             for o, t, a, c in zip(offsets, stamps, after, culprit) if c][:CULPRIT_LIMIT]
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


def test_a_culprit_listed_late_still_takes_its_place_by_offset():
    """A too-new record is a culprit at once; an earlier candidate beaten only in a later batch
    comes before it in the list, with its lowest later timestamp from every batch after it."""
    offsets = list(range(6))
    stamps = [5, 100, 7, 8, 3, 1]       # upper 50: offset 1 too new; offset 0 beaten by offset 4
    got = scanned(offsets, stamps, LONG_MIN, 50, 0, 0, [1, 2, 3, 5])
    assert got["culprits"] == 2
    assert got["first"] == [(0, 5, 4, False), (1, 100, 99, True)]
    assert got == by_the_rules(offsets, stamps, LONG_MIN, 50, 0, 0)


def test_long_in_order_range_keeps_every_candidate_and_blames_none():
    offsets = list(range(5000))
    got = scanned(offsets, offsets, LONG_MIN, LONG_MAX, 0, 0, list(range(7, 5000, 97)))
    assert (got["culprits"], got["first"], got["out_of_order"]) == (0, [], 0)

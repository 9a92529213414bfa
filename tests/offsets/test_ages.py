"""The partition-age rule (kcli.ages), pure: bounds from each fact, and a decision that
is cold only when proven over the limit, hot when proven within it, else hot, undecided."""

import pytest

from kcli.model import AgeBounds
from kcli.ages import UNBOUNDED, UNKNOWN, combine, decide, exact, record_bound

NOW = 100_000_000
MIN = 60_000


@pytest.mark.parametrize("ts,appended,before,bound", [
    (5_000, True, None, 5_000),                 # LogAppendTime: the broker's own time
    (5_000, False, 60_000, 65_000),             # CreateTime, KIP-937 bound: appended at most 1m later
    (5_000, False, UNBOUNDED, None),            # CreateTime, no bound: proves nothing
    (5_000, False, None, None),
    (5_000, None, 60_000, None),                # the batch's type unknown
    (None, True, None, None), (-1, True, None, None),
])
def test_record_bound(ts, appended, before, bound):
    assert record_bound(ts, appended, before) == bound


@pytest.mark.parametrize("bounds,hot,source", [
    (exact(NOW, NOW - MIN), True, "broker"),                        # boundary: ≤ is hot
    (exact(NOW, NOW - MIN - 1), False, "broker"),
    (combine(NOW, (NOW - MIN, NOW - 1)), True, "observed"),         # at most 1m old
    (combine(NOW, (NOW - MIN - 1, NOW - 1)), True, UNKNOWN),        # maybe older: unproven, hot
    (combine(NOW, (None, NOW - MIN - 1)), False, "observed"),       # at least 1m1ms old
    (combine(NOW, (None, NOW - MIN)), True, UNKNOWN),
    (combine(NOW, (None, NOW - 1), record_ms=NOW - 2 * MIN), False, "record bound"),
    (combine(NOW, (None, NOW - 3 * MIN), record_ms=NOW - 2 * MIN), False, "observed"),   # the tighter
    (None, True, UNKNOWN), (AgeBounds(NOW), True, UNKNOWN),
])
def test_decide(bounds, hot, source):
    assert decide(bounds, MIN)[:2] == (hot, source)


HOUR = 3_600_000


@pytest.mark.parametrize("bounds,rule", [
    (exact(NOW, NOW - 232_474), "earliest (hot, broker: age 3m52s ≤ 1h)"),              # two units
    (exact(NOW, NOW - 2 * HOUR - 1_474), "latest (cold, broker: age 2h > 1h)"),
    (combine(NOW, (None, NOW - HOUR - 61_474)), "latest (cold, observed: age ≥ 1h1m > 1h)"),
    (combine(NOW, (NOW - 232_474, NOW - 1)), "earliest (hot, observed: age ≤ 3m52s ≤ 1h)"),
    (exact(NOW, NOW - 45_123), "earliest (hot, broker: age 45s123ms ≤ 1h)"),             # under a minute: exact
    # Cut to two units, 1h30s would read "1h > 1h": the age stays exact where the cut crosses the limit.
    (exact(NOW, NOW - HOUR - 30_000), "latest (cold, broker: age 1h30s > 1h)"),
])
def test_the_rule_shows_an_age_in_two_units_on_its_side_of_the_limit(bounds, rule):
    assert decide(bounds, HOUR)[2] == rule

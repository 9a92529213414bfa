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

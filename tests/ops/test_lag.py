"""The lag-in-time rule for one row and a group's maximum (pure: rows and Fetch answers in,
fields out), and the notes for partitions whose lag is unknown."""

from kcli.model import GroupDescription, GroupOffsetRow, RecordTime, max_time_lag
from kcli.ops.lag import future_notes, set_time_lag, unknown_notes

NOW = 1_000_000


def row(current, log_end=10, p=0):
    return GroupOffsetRow("g", "t", p, current, log_end)


def lagged(r, found):
    set_time_lag(r, found, NOW)
    return r.next_timestamp_ms, r.time_lag_ms, r.time_lag_bound, r.time_lag_error


def test_the_rule():
    assert lagged(row(None), None) == (None, None, False, None)                 # no commit
    assert lagged(row(10), None) == (None, 0, False, None)                      # caught up
    assert lagged(row(12), None) == (None, 0, False, None)                      # past the log end
    assert lagged(row(3), RecordTime("t", 0, 3, timestamp_ms=NOW - 500, record_offset=3)) == (
        NOW - 500, 500, False, None)
    assert lagged(row(3), RecordTime("t", 0, 3, bound_ms=NOW - 200)) == (NOW - 200, 200, True, None)
    # A next record stamped after now: behind, not caught up; the lag is negative, not 0.
    assert lagged(row(3), RecordTime("t", 0, 3, timestamp_ms=NOW + 50)) == (NOW + 50, -50, False, None)
    assert lagged(row(3), RecordTime("t", 0, 3, bound_ms=NOW + 70)) == (NOW + 70, -70, True, None)
    assert lagged(row(3), RecordTime("t", 0, 3, high_watermark=10)) == (None, 0, False, None)
    assert lagged(row(3), RecordTime("t", 0, 3, error="OFFSET_OUT_OF_RANGE")) == (
        None, None, False, "OFFSET_OUT_OF_RANGE")
    assert lagged(row(3, log_end=None), None) == (None, None, False, "log end offset unknown")


def test_group_maximum_is_a_bound_when_any_partition_is_one_or_unknown():
    exact = [lagged_row(0, 100), lagged_row(1, 300)]
    assert max_time_lag(exact) == (300, False)
    assert max_time_lag(exact + [lagged_row(2, 50, bound=True)]) == (300, True)
    unknown = row(3, p=3)
    unknown.time_lag_error = "no leader"
    assert max_time_lag(exact + [unknown]) == (300, True)
    assert max_time_lag([row(None)]) == (None, False)


def test_future_dated_partitions_keep_a_negative_lag_and_get_a_note():
    ahead = [lagged_row(0, -90_000), lagged_row(1, -1_000)]
    assert max_time_lag(ahead) == (-1_000, False)                      # every next record ahead
    assert max_time_lag(ahead + [lagged_row(2, 300)]) == (300, False)
    d = GroupDescription("g", "Empty", "Classic", "", None)
    assert future_notes([(d, ahead + [lagged_row(2, 300)])]) == [
        "Time lag of group 'g' negative on 2 partition(s) (t-0, t-1): its next record there is "
        "stamped after now (by up to 1m30s; a producer's clock ahead?), records remain to consume"]
    assert future_notes([(d, [lagged_row(2, 0)])]) == []


def lagged_row(p, lag, bound=False):
    r = row(3, p=p)
    r.time_lag_ms, r.time_lag_bound = lag, bound
    return r


def test_unknown_notes_name_partitions_once_per_reason():
    rows = [row(3, p=p) for p in range(8)]
    for r in rows:
        r.time_lag_error = "TOPIC_AUTHORIZATION_FAILED" if r.partition < 7 else "no leader"
    d = GroupDescription("g", "Empty", "Classic", "", None)
    assert unknown_notes([(d, rows)]) == [
        "Time lag of group 'g' unknown on 7 partition(s) (t-0, t-1, t-2, t-3, t-4 and 2 more): "
        "TOPIC_AUTHORIZATION_FAILED",
        "Time lag of group 'g' unknown on 1 partition(s) (t-7): no leader"]


class CountingRecordTimes:
    """An admin whose only call is record_times: answers from ``answers`` and counts what it was asked."""

    def __init__(self, answers):
        self.answers, self.asked = answers, []

    def record_times(self, wanted):
        self.asked.append(list(wanted))
        return {k: self.answers[k] for k in wanted if k in self.answers}


def test_the_cache_keeps_timestamps_and_bounds_never_errors_nor_nothing_to_read():
    from kcli.ops.lag import RecordTimeCache

    exact, bound = ("t", 0, 3), ("t", 1, 5)
    failed, empty = ("t", 2, 1), ("t", 3, 7)
    admin = CountingRecordTimes({exact: RecordTime("t", 0, 3, timestamp_ms=NOW - 10),
                                 bound: RecordTime("t", 1, 5, bound_ms=NOW - 20),
                                 failed: RecordTime("t", 2, 1, error="NOT_LEADER_OR_FOLLOWER"),
                                 empty: RecordTime("t", 3, 7, high_watermark=9)})
    cache = RecordTimeCache()
    wanted = [exact, bound, failed, empty]
    first = cache.of(admin)(wanted)
    assert first == {k: admin.answers[k] for k in wanted} and len(cache) == 2
    assert cache.of(admin)(wanted) == first                 # the same answers...
    assert admin.asked[1] == [failed, empty]                # ...asking only for what was not kept
    assert cache.fetched == 6


def test_the_cache_forgets_what_no_collection_wants_and_what_the_log_start_passed():
    from kcli.ops.lag import RecordTimeCache

    a, b, c = ("t", 0, 3), ("t", 1, 5), ("t", 2, 1)
    admin = CountingRecordTimes({k: RecordTime(k[0], k[1], k[2], timestamp_ms=NOW) for k in (a, b, c)})
    cache = RecordTimeCache()
    cache.of(admin)([a, b, c])
    cache.keep_only({a, b, c}, {("t", 1): 6})               # retention removed offset 5 of t-1
    cache.keep_only({a, b}, {})                             # nobody reads t-2 at 1 any more
    cache.of(admin)([a, b, c])
    assert admin.asked[-1] == [b, c] and len(cache) == 3

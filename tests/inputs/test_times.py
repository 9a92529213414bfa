import time

import pytest

from kcli.inputs import INT64_MAX
from kcli.times import (TimeParseError, TimeRangeError, check_timestamp, format_ms, parse_datetime_ms,
                        parse_duration_ms, time_field, timestamp_before)


@pytest.mark.parametrize("ms, text", [
    (0, "1970-01-01T00:00:00.000Z"),
    (1736937000000, "2025-01-15T10:30:00.000Z"),
    (1736937000007, "2025-01-15T10:30:00.007Z"),       # millisecond padding
    (1736937000070, "2025-01-15T10:30:00.070Z"),
    (-2, "1969-12-31T23:59:59.998Z"),                  # pre-1970
    (-86_400_000, "1969-12-31T00:00:00.000Z"),
    (253402300799999, "9999-12-31T23:59:59.999Z"),     # last representable millisecond
])
def test_format_ms_is_java_xxx_pattern_in_utc(ms, text):
    assert format_ms(ms) == text


def test_unknown_prints_dash_and_json_null():
    assert format_ms(-1) == "-"
    assert format_ms(None) == "-"
    assert time_field(-1) == {"ms": None, "iso": None}
    assert time_field(5) == {"ms": 5, "iso": "1970-01-01T00:00:00.005Z"}


def test_far_future_beyond_year_9999_prints_raw_epoch_ms():
    assert format_ms(253402300800000) == "253402300800000"
    assert format_ms(9223372036854775807) == "9223372036854775807"


@pytest.mark.parametrize("text, ms", [
    ("PT4S", 4000), ("P1DT2H", 93_600_000), ("PT0.1S", 100), ("pt15m", 900_000),
    ("-PT1M", -60_000), ("PT1M-2S", 58_000), ("PT-1.5S", -1500), ("P2D", 172_800_000),
    ("500ms", 500), ("4s", 4000), ("15m", 900_000), ("1h", 3_600_000), ("2d", 172_800_000),
    ("4 s", 4000), ("2.5m", 150_000), ("PT1.S", 1000), (" PT1S ", 1000),
    ("PT9223372036854775.807S", INT64_MAX),            # the longest duration, to the millisecond
])
def test_durations(text, ms):
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text, ms", [
    ("30", 30), ("5000", 5000), ("1.5", 1), ("0.5", 0), ("00030", 30),
])
def test_a_bare_number_is_milliseconds_rounded_down(text, ms):
    """As every Kafka tool's --timeout (a Java runbook's --timeout 5000 is 5 s) and *.ms property."""
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text, ms", [("-PT0.0005S", -1), ("PT0.0015S", 1), ("1.9999ms", 1)])
def test_fractions_of_a_millisecond_round_down_as_javas_to_millis(text, ms):
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text", ["", "P", "PT", "abc", "1w", "P1Y", "PT1H2", "4 sec", "1.", ".5s",
                                  "PT1.1234567890S", "1.1234567890s", "٣s", "1_000", "P-T1S"])
def test_bad_durations(text):
    with pytest.raises(TimeParseError):
        parse_duration_ms(text)


@pytest.mark.parametrize("text", ["P9999999999999999999D", "9" * 5000, "PT" + "9" * 5000 + "S",
                                  "PT9223372036854775.808S", "-PT9223372036854775.809S",
                                  "106751991167301d"])
def test_durations_beyond_int64_milliseconds_are_out_of_range(text):
    with pytest.raises(TimeRangeError, match="out of range"):
        parse_duration_ms(text)


# Inputs that took quadratic time: '1' + 130,000 spaces + 'x' took 82 s to refuse. Each is
# refused (or read) here well within the bound, which is far above a linear parse's time.
@pytest.mark.parametrize("text", [
    "1" + " " * 130_000 + "x", "PT" + "1" * 130_000 + "X", "1" * 130_000, " " * 130_000,
    "P" + "1D" * 65_000, "1." + "1" * 130_000, "PT1H" + "1" * 130_000,
])
def test_long_durations_are_refused_in_linear_time(text):
    start = time.perf_counter()
    with pytest.raises(TimeParseError):
        parse_duration_ms(text)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize("text, ms", [
    ("2025-01-15T10:30:00.000Z", 1736937000000),
    ("2025-01-15T10:30:00.000", 1736937000000),          # no zone = UTC, as the Kafka tools
    ("2025-01-15T10:30:00.198+08:00", 1736908200198),
    ("2025-01-15T10:30:00.198+0800", 1736908200198),
    ("2025-01-15T10:30:00Z", 1736937000000),
    ("1736937000000", 1736937000000),                    # epoch milliseconds
])
def test_datetimes(text, ms):
    assert parse_datetime_ms(text) == ms


@pytest.mark.parametrize("text", ["yesterday", "2025-13-01T00:00:00", "2025-01-15T25:00", "",
                                  "١٢٣", "-5", "1_000"])
def test_bad_datetimes(text):
    with pytest.raises(TimeParseError):
        parse_datetime_ms(text)


@pytest.mark.parametrize("text", ["0001-01-01", "1969-12-31T23:59:59.999", "1969-12-31T23:59:59.998Z",
                                  "1969-12-31T23:59:59.997", "1970-01-01T00:00:00+01:00"])
def test_times_before_the_epoch_are_refused(text):
    """-1, -2 and -3 would be read by ListOffsets as latest, earliest and max-timestamp."""
    with pytest.raises(TimeRangeError, match="before 1970-01-01T00:00:00.000Z"):
        parse_datetime_ms(text)


def test_the_epoch_and_int64_are_the_bounds_of_a_time():
    assert parse_datetime_ms("1970-01-01T00:00:00.000Z") == 0
    assert parse_datetime_ms("0") == 0
    assert parse_datetime_ms(str(2**63 - 1)) == 2**63 - 1
    for text in (str(2**63), "9" * 5000, "0" * 5000 + "1" + "0" * 19):
        with pytest.raises(TimeRangeError, match="out of range"):
            parse_datetime_ms(text)
    assert parse_datetime_ms("0" * 5000 + "7") == 7


def test_a_duration_reaching_before_the_epoch_is_refused():
    assert timestamp_before(1000, 1000) == 0
    assert timestamp_before(1000, -500) == 1500                     # a negative duration: the future
    for duration in (1001, 9999999999 * 86_400_000):
        with pytest.raises(TimeRangeError, match="before 1970"):
            timestamp_before(1000, duration)
    with pytest.raises(TimeRangeError, match="out of range"):
        timestamp_before(1, -INT64_MAX)
    with pytest.raises(TimeRangeError):
        check_timestamp(-3, "x")


def test_the_planner_never_asks_for_a_special_timestamp():
    from kcli.offsets import plan as planner

    with pytest.raises(TimeRangeError):
        planner.lookup_timestamp(planner.Scenario(planner.DATETIME, -1), 10)
    with pytest.raises(TimeRangeError):
        planner.lookup_timestamp(planner.Scenario(planner.DURATION, 12), 10)
    assert planner.lookup_timestamp(planner.Scenario(planner.DURATION, 10), 10) == 0


def test_durations_over_a_minute_read_rounded_to_two_units():
    from kcli.times import format_duration_rounded

    assert format_duration_rounded(5_973_841) == "1h39m"            # 1h39m33s841ms
    assert format_duration_rounded(7_200_737) == "2h"               # a zero second unit is left out
    assert format_duration_rounded(86_400_000 + 3 * 3_600_000 + 5) == "1d3h"
    assert format_duration_rounded(133_000) == "2m13s"
    assert format_duration_rounded(-1_198_000) == "-19m58s"         # toward zero, sign kept
    assert format_duration_rounded(2_029) == "2s29ms"               # under a minute: exact
    assert format_duration_rounded(0) == "0s"

import pytest

from kcli.times import TimeParseError, format_ms, parse_datetime_ms, parse_duration_ms, time_field


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
    ("30", 30_000), ("0.5", 500),
])
def test_durations(text, ms):
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text", ["", "P", "PT", "abc", "1w", "P1Y", "PT1H2", "4 sec"])
def test_bad_durations(text):
    with pytest.raises(TimeParseError):
        parse_duration_ms(text)


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


@pytest.mark.parametrize("text", ["yesterday", "2025-13-01T00:00:00", "2025-01-15T25:00", ""])
def test_bad_datetimes(text):
    with pytest.raises(TimeParseError):
        parse_datetime_ms(text)

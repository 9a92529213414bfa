"""The time rules, in one place: parsing durations and datetimes given on the command line, and
formatting epoch milliseconds for output.

Output: ISO-8601 in UTC with millisecond precision, Java's ``yyyy-MM-dd'T'HH:mm:ss.SSSXXX``, which
prints UTC as ``Z`` (``2025-01-15T10:30:00.000Z``). -1 (unknown) prints as ``-``.

Durations: Java's ``Duration.parse`` grammar (``PT4S``, ``P1DT2H``, ``-PT0.1S``, signed parts,
case-insensitive), which no Python library parses exactly, and the short form ``500ms``, ``4s``,
``15m``, ``1h``, ``2d``; a bare number is milliseconds, for every duration flag (``--timeout``,
``--max-age``, ``--by-duration``), as Kafka's own durations (``*.ms`` properties, the tools'
``--timeout``). Parsed in linear time, at most int64 milliseconds.

Datetimes: what the Kafka tools accept (ISO-8601, no zone = UTC, as ``Utils.getDateTime``) plus any
ISO-8601 form python-dateutil reads, plus epoch milliseconds (digits only). A time before the epoch
is refused: Kafka has no record there, and as a ListOffsets timestamp -1, -2 and -3 mean latest,
earliest and max-timestamp.
"""

from __future__ import annotations

import re

from kcli.inputs import INT64_MAX, INT64_MIN, parse_int, printable, shown

UNKNOWN = "-"
class TimeParseError(ValueError):
    """A duration or datetime the user gave could not be read."""


class TimeRangeError(TimeParseError):
    """A duration or time that reads well but lies outside what Kafka can take."""


def format_ms(ms: int | None) -> str:
    """Epoch milliseconds as ``yyyy-MM-dd'T'HH:mm:ss.SSSZ`` in UTC; ``-`` for None or -1.

    Values outside the years 1..9999 (which Java would print with a sign or a 5-digit year)
    print as the raw epoch milliseconds, so nothing is ever lost or made up."""
    if ms is None or ms == -1:
        return UNKNOWN
    from datetime import datetime, timedelta, timezone

    try:
        dt = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
    except OverflowError:
        return str(ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def time_field(ms: int | None) -> dict:
    """The JSON pair for a time: epoch ms (null when unknown) and its ISO string (null too)."""
    if ms is None or ms == -1:
        return {"ms": None, "iso": None}
    return {"ms": ms, "iso": format_ms(ms)}


def format_duration_ms(ms: int) -> str:
    """A duration, compact: ``12s``, ``1m``, ``1h30m``, ``500ms`` (``0s`` for zero)."""
    sign, ms = ("-", -ms) if ms < 0 else ("", ms)
    parts = []
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)):
        n, ms = divmod(ms, size)
        if n:
            parts.append(f"{n}{unit}")
    return sign + ("".join(parts) or "0s")


def format_duration_rounded(ms: int) -> str:
    """A duration to read at a glance: under a minute as format_duration_ms (``2s29ms``), longer
    cut to its two largest units, the second left out when it is zero (``1h39m``, ``2h``,
    ``1d3h``); toward zero, sign kept."""
    return format_duration_ms(rounded_duration(ms))


def rounded_duration(ms: int) -> int:
    """The milliseconds ``format_duration_rounded`` shows: ``ms`` under a minute, longer cut
    toward zero to its two largest units."""
    sign, rest = (-1, -ms) if ms < 0 else (1, ms)
    if rest < 60_000:
        return ms
    sizes = (86_400_000, 3_600_000, 60_000, 1000)
    top = next(i for i, size in enumerate(sizes) if rest >= size)
    unit = sizes[top + 1] if top + 1 < len(sizes) else sizes[top]
    return sign * (rest // unit * unit)


# Both grammars are matched without backtracking (possessive quantifiers), so any input is
# accepted or refused in linear time; every number is bounded before it is converted.
_SHORT = re.compile(r"([0-9]++)(?:\.([0-9]++))?+\s*+(ms|s|m|h|d)?+", re.IGNORECASE | re.ASCII)
_NS = {"ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9, "d": 86_400 * 10**9}
# Java's Duration.parse pattern, digit for digit.
_ISO = re.compile(
    r"([-+]?)P(?:([-+]?[0-9]++)D)?+"
    r"(?:(T)(?:([-+]?[0-9]++)H)?+(?:([-+]?[0-9]++)M)?+(?:([-+]?[0-9]++)(?:[.,]([0-9]{0,9}+))?+S)?+)?+",
    re.IGNORECASE | re.ASCII)
DURATION_FORMS = ("ISO-8601 (PT4S, P1DT2H, PT0.1S) or a number with ms, s, m, h or d "
                  "(500ms, 4s, 15m); a bare number is milliseconds")


def _count(digits: str | None, text: str) -> int:
    """One number of a duration (sign included), at most int64 as in Java's Duration."""
    try:
        return parse_int(digits or "0", INT64_MIN, INT64_MAX)
    except ValueError:
        raise TimeRangeError(f"Duration '{shown(text)}' is out of range") from None


def parse_duration_ms(text: str) -> int:
    """A duration in milliseconds, rounded down as Java's Duration.toMillis (negative for ISO
    input such as ``-PT1M``); within int64. A bare number is milliseconds, as in the Kafka tools."""
    if text is None:
        raise TimeParseError("a duration is required")
    raw = text.strip()
    if m := _SHORT.fullmatch(raw):
        frac = m[2] or ""
        if len(frac) > 9:                       # nanoseconds at most, as Java's Duration
            raise TimeParseError(f"Invalid duration '{shown(text)}': at most 9 decimal places")
        unit = _NS[(m[3] or "ms").lower()]
        ns = _count(m[1], text) * unit + int(frac.ljust(9, "0")) * unit // 10**9
    elif (m := _ISO.fullmatch(raw)) and any(m[i] for i in (2, 4, 5, 6)):
        days, hours, minutes, seconds = (_count(m[i], text) for i in (2, 4, 5, 6))
        frac_ns = int((m[7] or "").ljust(9, "0"))
        if (m[6] or "").startswith("-"):
            frac_ns = -frac_ns
        ns = (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 10**9 + frac_ns
        ns = -ns if m[1] == "-" else ns
    else:
        raise TimeParseError(f"Invalid duration '{shown(text)}': use {DURATION_FORMS}")
    ms = ns // 10**6
    if not INT64_MIN <= ms <= INT64_MAX:
        raise TimeRangeError(f"Duration '{shown(text)}' is out of range")
    return ms


BEFORE_EPOCH = "before 1970-01-01T00:00:00.000Z: Kafka has no record there"


def check_timestamp(ms: int, what: str) -> int:
    """``ms`` as a timestamp to look records up by: from the epoch to int64, so that it never
    becomes one of ListOffsets' special values (-1 latest, -2 earliest, -3 max-timestamp)."""
    if ms < 0:
        raise TimeRangeError(f"{what} is {BEFORE_EPOCH}")
    if ms > INT64_MAX:
        raise TimeRangeError(f"{what} is out of range (after {INT64_MAX} ms)")
    return ms


def timestamp_before(now_ms: int, duration_ms: int) -> int:
    """The timestamp ``duration_ms`` before ``now_ms`` (--by-duration), checked as above."""
    return check_timestamp(now_ms - duration_ms,
                           f"{format_duration_ms(duration_ms)} before now")


_EPOCH_MS = re.compile(r"[0-9]+", re.ASCII)


def parse_datetime_ms(text: str) -> int:
    """A point in time as epoch milliseconds, from the epoch on: digits are epoch ms; otherwise
    ISO-8601 with an optional zone (none = UTC, as the Kafka tools do)."""
    from dateutil import parser as dateparser  # python-dateutil; loaded only when a time is given

    raw = (text or "").strip()
    if _EPOCH_MS.fullmatch(raw):
        try:
            return parse_int(raw, 0, INT64_MAX)
        except ValueError:
            raise TimeRangeError(f"Epoch milliseconds '{shown(text)}' are out of range "
                                 f"(at most {INT64_MAX})") from None
    try:
        dt = dateparser.isoparse(raw)
    except (ValueError, OverflowError) as exc:
        raise TimeParseError(
            f"Invalid datetime '{shown(text)}': use ISO-8601 such as 2025-01-15T10:30:00.000Z "
            "(no zone = UTC) or epoch milliseconds"
        ) from exc
    from datetime import datetime, timezone

    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    delta = dt - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return check_timestamp((delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000,
                           f"'{shown(text)}'")


# -- the Java tools' own datetime and duration grammars (the drop-in commands) -----------------

_JAVA_DATETIME = re.compile(r"([0-9]++)-([0-9]++)-([0-9]++)T([0-9]++):([0-9]++):([0-9]++)\.([0-9]++)", re.ASCII)
_JAVA_ZONE_XXX = re.compile(r"Z|([-+])([0-9]{2}):([0-9]{2})", re.ASCII)
_JAVA_ZONE_X = re.compile(r"Z|([-+])([0-9]{2})", re.ASCII)
NO_T = ("java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to "
        "ISO8601 format")


def parse_java_datetime_ms(text: str) -> int:
    """kafka-consumer-groups' ``--to-datetime`` exactly as Kafka's ``Utils.getDateTime`` reads
    it: a ``T`` is required; without ``+``, ``-`` or ``Z`` after the first ``T`` the time is UTC;
    then ``yyyy-MM-dd'T'HH:mm:ss.SSSXXX``, else ``...SSSX`` (hours only), strictly (every field
    in range, the millisecond digits read as a number), and text after the zone ignored, as
    SimpleDateFormat does. Errors carry the Java exception's text."""
    parts = [p for p in text.split("T")]
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if len(parts) < 2:
        raise TimeParseError(NO_T)
    if not any(c in parts[1] for c in "+-Z"):
        text += "Z"
    unparseable = TimeParseError(f'java.text.ParseException: Unparseable date: "{printable(text)}"')
    m = _JAVA_DATETIME.match(text)
    if not m:
        raise unparseable
    if any(len(g.lstrip("0")) > 18 for g in m.groups()):      # beyond a Java long; int() would
        raise unparseable                                     # refuse 4,300 digits itself
    fields = [int(g) for g in m.groups()]
    for zone_rx in (_JAVA_ZONE_XXX, _JAVA_ZONE_X):
        z = zone_rx.match(text, m.end())
        if z:
            break
    else:
        raise unparseable
    year, month, day, hour, minute, second, millis = fields
    offset = 0
    if z.group(0) != "Z":
        hours, minutes = int(z.group(2)), int(z.group(3)) if z.lastindex == 3 else 0
        if hours > 23 or minutes > 59:
            raise unparseable
        offset = (hours * 60 + minutes) * (1 if z.group(1) == "+" else -1)
    if millis > 999 or not 1 <= year <= 9999:
        raise unparseable
    from datetime import datetime, timezone

    try:
        moment = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except (ValueError, OverflowError):       # a field out of range, or beyond a C long
        raise unparseable from None
    delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
    ms = (delta.days * 86_400 + delta.seconds) * 1000 + millis - offset * 60_000
    return check_timestamp(ms, f"'{shown(text)}'")


def parse_java_duration_ms(text: str) -> int:
    """kafka-consumer-groups' ``--by-duration`` as Java's ``Duration.parse`` reads it (ISO-8601
    only), in milliseconds; Java's message otherwise."""
    m = _ISO.fullmatch(text or "")
    if not m or not any(m[i] for i in (2, 4, 5, 6)) or (m[3] and not any(m[i] for i in (4, 5, 6))):
        raise TimeParseError("Text cannot be parsed to a Duration")
    return parse_duration_ms(text)

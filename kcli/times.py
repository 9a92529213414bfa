"""The time rules, in one place: parsing durations and datetimes given on the command line, and
formatting epoch milliseconds for output.

Output: ISO-8601 in UTC with millisecond precision, Java's ``yyyy-MM-dd'T'HH:mm:ss.SSSXXX``, which
prints UTC as ``Z`` (``2025-01-15T10:30:00.000Z``). -1 (unknown) prints as ``-``.

Durations: Java's ``Duration.parse`` grammar (``PT4S``, ``P1DT2H``, ``-PT0.1S``, signed parts,
case-insensitive), which no Python library parses exactly, and the short form ``500ms``, ``4s``,
``15m``, ``1h``, ``2d``; a bare number is seconds.

Datetimes: what the Kafka tools accept (ISO-8601, no zone = UTC, as ``Utils.getDateTime``) plus any
ISO-8601 form python-dateutil reads, plus epoch milliseconds (digits only).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation

UNKNOWN = "-"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class TimeParseError(ValueError):
    """A duration or datetime the user gave could not be read."""


def format_ms(ms: int | None) -> str:
    """Epoch milliseconds as ``yyyy-MM-dd'T'HH:mm:ss.SSSZ`` in UTC; ``-`` for None or -1.

    Values outside the years 1..9999 (which Java would print with a sign or a 5-digit year)
    print as the raw epoch milliseconds, so nothing is ever lost or made up."""
    if ms is None or ms == -1:
        return UNKNOWN
    try:
        dt = _EPOCH + timedelta(milliseconds=ms)
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


_SHORT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$", re.IGNORECASE)
_SHORT_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_ISO = re.compile(
    r"^([-+]?)P(?:([-+]?\d+)D)?"
    r"(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$",
    re.IGNORECASE,
)


def parse_duration_ms(text: str) -> int:
    """A duration in milliseconds (may be negative for ISO input such as ``-PT1M``)."""
    if text is None:
        raise TimeParseError("a duration is required")
    raw = text.strip()
    m = _SHORT.match(raw)
    if m:
        unit = (m.group(2) or "s").lower()
        try:
            return int(Decimal(m.group(1)) * _SHORT_UNITS_MS[unit])
        except InvalidOperation:  # pragma: no cover - the regex admits only decimals
            raise TimeParseError(f"Invalid duration '{text}'") from None
    m = _ISO.match(raw)
    if not m or (m.group(3) is not None and m.group(3).upper() == "T") or not any(
        m.group(i) for i in (2, 4, 5, 6)
    ):
        raise TimeParseError(
            f"Invalid duration '{text}': use ISO-8601 (PT4S, P1DT2H, PT0.1S) "
            "or a number with ms, s, m, h or d (500ms, 4s, 15m)"
        )
    sign = -1 if m.group(1) == "-" else 1
    days, hours, minutes, seconds = (int(m.group(i) or 0) for i in (2, 4, 5, 6))
    frac = m.group(7) or ""
    frac_ms = int((frac + "000")[:3]) if frac else 0
    if seconds < 0 or (m.group(6) or "").startswith("-"):
        frac_ms = -frac_ms
    total = ((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000 + frac_ms
    return sign * total


_EPOCH_MS = re.compile(r"^\d+$")


def parse_datetime_ms(text: str) -> int:
    """A point in time as epoch milliseconds: digits are epoch ms; otherwise ISO-8601 with an
    optional zone (none = UTC, as the Kafka tools do)."""
    from dateutil import parser as dateparser  # python-dateutil; loaded only when a time is given

    raw = (text or "").strip()
    if _EPOCH_MS.match(raw):
        return int(raw)
    try:
        dt = dateparser.isoparse(raw)
    except (ValueError, OverflowError) as exc:
        raise TimeParseError(
            f"Invalid datetime '{text}': use ISO-8601 such as 2025-01-15T10:30:00.000Z "
            "(no zone = UTC) or epoch milliseconds"
        ) from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    delta = dt - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000

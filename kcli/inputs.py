"""The rules every value a user gives passes before anything is sent: integers are ASCII digits
within the range of the Kafka field that carries them, and text files are UTF-8.

Kafka's fields are fixed-width (a partition is an int32, an offset an int64), so a number outside
the field's range is bad input, refused here rather than by a client library after requests went
out. The digit count is checked before ``int()``: Python refuses more than 4,300 digits with a
ValueError of its own, and converting long numbers costs more than linear time.
"""

from __future__ import annotations

import codecs
import re

from kcli.errors import UsageError

INT16_MAX = 2**15 - 1
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

ASCII_INTEGER = re.compile(r"([+-]?+)([0-9]++)", re.ASCII)   # possessive: linear on any input


def parse_int(text: str, lo: int, hi: int) -> int:
    """``text`` (surrounding whitespace allowed) as an integer in [lo, hi], else ValueError with
    a message for the user (it does not quote the text: callers name the value)."""
    m = ASCII_INTEGER.fullmatch(text.strip())
    if not m:
        raise ValueError("not an integer")
    digits = m[2].lstrip("0") or "0"
    if len(digits) > len(str(max(abs(lo), abs(hi)))):
        raise ValueError(f"out of range ({lo} to {hi})")
    value = int(m[1] + digits)
    if not lo <= value <= hi:
        raise ValueError(f"out of range ({lo} to {hi})")
    return value


def decode_utf8(data: bytes, what: str) -> str:
    """``data`` as UTF-8 text; UsageError naming ``what`` (the file) and the first bad byte's
    offset. A leading byte order mark is refused: the Java tools would read it as part of the
    first key or field, so such a file does not mean the same thing to them."""
    if data.startswith(codecs.BOM_UTF8):
        raise UsageError(f"{what} starts with a UTF-8 byte order mark (BOM): save it without one")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what} is not UTF-8: byte 0x{data[exc.start]:02x} at offset "
                         f"{exc.start} cannot be decoded") from None


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of the file at ``path``; ``what`` names it in errors (``--from-file``)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except (OSError, ValueError) as exc:         # ValueError: a NUL in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UsageError(f"Cannot read {what} '{shown(path, 200)}': {reason}") from None
    return decode_utf8(data, f"{what} '{shown(path, 200)}'")


def printable(text: str) -> str:
    """``text`` with its control characters (a newline, a NUL...) escaped, whole: what a message
    quoting it needs to stay one line (the drop-ins quote values whole, as the Java tools do)."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def shown(text: str, limit: int = 80) -> str:
    """``text`` as an error message quotes it: control characters escaped and long values cut,
    so that the message stays one readable line whatever was given."""
    text = printable(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


_TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}+")


def topic_name_error(name: str) -> str | None:
    """Why Kafka would refuse ``name`` as a topic name (its Topic.validate, its messages), or None.
    For names given literally (a reset CSV, create topic), not for regexes."""
    if not name:
        return "Topic name is illegal, it can't be empty"
    if name in (".", ".."):
        return 'Topic name cannot be "." or ".."'
    if len(name) > 249:
        return f"Topic name is illegal, it can't be longer than 249 characters, topic name: {shown(name)}"
    if not _TOPIC_NAME.fullmatch(name):
        return (f'Topic name "{shown(name)}" is illegal, it contains a character other than ASCII '
                "alphanumerics, '.', '_' and '-'")
    return None

"""The rules every user value passes (kcli.inputs): integers within their Kafka type, UTF-8 files,
values quoted in one line."""

from __future__ import annotations

import sys
import time

import pytest

from kcli.errors import UsageError
from kcli.inputs import (INT16_MAX, INT32_MAX, INT64_MAX, INT64_MIN, decode_utf8, parse_int, read_text,
                         shown, topic_name_error)


def test_the_bounds_are_the_kafka_types():
    assert (INT16_MAX, INT32_MAX, INT64_MAX, INT64_MIN) == (32767, 2147483647, 9223372036854775807,
                                                            -9223372036854775808)


@pytest.mark.parametrize("text, value", [("0", 0), ("000", 0), ("+5", 5), (" 7 ", 7), ("-0", 0),
                                         ("2147483647", INT32_MAX), ("0" * 10_000 + "12", 12)])
def test_integers(text, value):
    assert parse_int(text, 0, INT32_MAX) == value


@pytest.mark.parametrize("text", ["", "-", "1_0", "1 2", "0x1f", "1.0", "\u0663", "\uff11", "1e3"])
def test_only_ascii_digits_are_integers(text):
    with pytest.raises(ValueError, match="not an integer"):
        parse_int(text, 0, INT32_MAX)


@pytest.mark.parametrize("text", ["2147483648", "-1", "9" * 5000, str(2**63)])
def test_integers_outside_the_field_are_refused(text):
    """Python's own int() would raise its 4,300-digit limit error on the 5,000 nines."""
    assert sys.get_int_max_str_digits() < 5000
    with pytest.raises(ValueError, match=r"out of range \(0 to 2147483647\)"):
        parse_int(text, 0, INT32_MAX)


def test_int64_bounds():
    assert parse_int(str(INT64_MIN), INT64_MIN, INT64_MAX) == INT64_MIN
    with pytest.raises(ValueError):
        parse_int(str(INT64_MIN - 1), INT64_MIN, INT64_MAX)


def test_a_long_integer_is_refused_in_linear_time():
    start = time.perf_counter()
    for text in ("9" * 1_000_000, "0" * 1_000_000 + "x", "1" * 1_000_000 + " x"):
        with pytest.raises(ValueError):
            parse_int(text, 0, INT64_MAX)
    assert time.perf_counter() - start < 1


@pytest.mark.parametrize("data, offset, byte", [(b"\x80", 0, "0x80"), (b"key=caf\xc3", 7, "0xc3"),
                                                 (b"ok\nok\n\xff\xfe", 6, "0xff")])
def test_bad_utf8_names_the_file_and_the_byte_offset(data, offset, byte):
    with pytest.raises(UsageError) as exc:
        decode_utf8(data, "--from-file 'plan.csv'")
    assert exc.value.message == (f"--from-file 'plan.csv' is not UTF-8: byte {byte} at offset {offset} "
                                 "cannot be decoded")


def test_a_byte_order_mark_is_refused():
    with pytest.raises(UsageError, match="starts with a UTF-8 byte order mark"):
        decode_utf8("\ufeffsecurity.protocol=SSL\n".encode(), "--command-config file 'c'")
    assert decode_utf8("caf\u00e9".encode(), "x") == "caf\u00e9"


def test_read_text(tmp_path):
    (tmp_path / "f").write_bytes(b"\x80")
    with pytest.raises(UsageError, match=rf"--from-file '{tmp_path}/f' is not UTF-8: byte 0x80 at offset 0"):
        read_text(str(tmp_path / "f"), "--from-file")
    with pytest.raises(UsageError, match="Cannot read --from-file .*No such file"):
        read_text(str(tmp_path / "missing"), "--from-file")
    with pytest.raises(UsageError, match="Cannot read --from-file .*Is a directory"):
        read_text(str(tmp_path), "--from-file")


def test_shown_keeps_an_error_on_one_line():
    assert shown("plain value") == "plain value"
    assert shown("a\nb\x00") == "a\\nb\\x00"
    assert shown("x" * 500) == "x" * 77 + "..." and len(shown("x" * 500)) == 80
    assert "\n" not in shown("\u2028" * 3)


@pytest.mark.parametrize("name", ["orders", "a.b_c-D9", "x" * 249, "...", "._"])
def test_legal_topic_names(name):
    assert topic_name_error(name) is None


@pytest.mark.parametrize("name, error", [
    ("", "Topic name is illegal, it can't be empty"),
    (".", 'Topic name cannot be "." or ".."'), ("..", 'Topic name cannot be "." or ".."'),
    ("x" * 250, "Topic name is illegal, it can't be longer than 249 characters, topic name: " + "x" * 77 + "..."),
    ("a b", 'Topic name "a b" is illegal, it contains a character other than ASCII alphanumerics, '
            "'.', '_' and '-'"),
    ("caf\u00e9", 'Topic name "caf\u00e9" is illegal'), ("a\x00b", 'Topic name "a\\x00b" is illegal'),
])
def test_illegal_topic_names_as_kafka_words_them(name, error):
    """org.apache.kafka.common.internals.Topic.validate's rule and messages."""
    assert topic_name_error(name).startswith(error)

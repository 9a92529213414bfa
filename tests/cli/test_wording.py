"""The same input problem gets the same words everywhere: a bad datetime or duration is
``Error: <flag>: Invalid datetime|duration '<value>': use ...`` on every flag that takes one
(then the other forms that flag takes), and nothing is sent to the cluster (exit 2)."""

from __future__ import annotations

import pytest

from kcli.times import DURATION_FORMS
from tests.support.run import run_kcli

RESET = ["reset-offsets", "--group", "g", "--topic", "t"]
DATETIME = ("Invalid datetime 'yesterday': use ISO-8601 such as 2025-01-15T10:30:00.000Z (no zone = UTC) "
            "or epoch milliseconds")
DURATION = f"Invalid duration '5 weeks': use {DURATION_FORMS}"

DATETIME_FLAGS = [
    ([*RESET, "--to-datetime"], "--to-datetime", ""),
    ([*RESET, "--compare", "--to-datetime"], "--to-datetime", ""),
    (["list-offsets", "--time"], "--time", "; or earliest, latest, max-timestamp, earliest-local, latest-tiered, "
                                           "earliest-pending-upload (-2, -1, -3, -4, -5, -6)"),
    (["audit", "timestamps", "-t", "t", "--target"], "--target", ""),
    (["audit", "timestamps", "-t", "t", "--reference"], "--reference", "; or now"),
    (["audit", "timestamps", "-t", "t", "--from"], "--from",
     "; or earliest, or offsets as JSON {topic: {partition: offset}}"),
    (["audit", "timestamps", "-t", "t", "--to"], "--to",
     "; or latest, or offsets as JSON {topic: {partition: offset}}"),
]
DURATION_FLAGS = [
    ([*RESET, "--by-duration"], "--by-duration"),
    ([*RESET, "--to-latest", "--max-age"], "--max-age"),
    (["list", "topics", "--timeout"], "--timeout"),
    ([*RESET, "--compare", "--max-age"], "--max-age"),
    ([*RESET, "--compare", "--by-duration"], "--by-duration"),
    ([*RESET, "--compare", "--by-duration", "1h", "--max-age"], "--max-age"),
    ([*RESET, "--compare", "--max-age", "1h", "--by-duration"], "--by-duration"),
    (["check", "expansions", "--within"], "--within"),
    (["check", "broker", "--clock-skew"], "--clock-skew"),
]


@pytest.mark.parametrize("args, flag, also", DATETIME_FLAGS, ids=[f for _, f, _ in DATETIME_FLAGS])
def test_a_bad_datetime_is_worded_the_same_by_every_flag(args, flag, also):
    r = run_kcli("127.0.0.1:1", *args, "yesterday")
    assert (r.code, r.out, r.err) == (2, "", f"Error: {flag}: {DATETIME}{also}\n")


@pytest.mark.parametrize("args, flag", DURATION_FLAGS,
                         ids=[" ".join([a[0]] + [w for w in a[1:] if w.startswith("--")]) for a, _ in DURATION_FLAGS])
def test_a_bad_duration_is_worded_the_same_by_every_flag(args, flag):
    from kcli.cli.main import run
    import io

    out, err = io.StringIO(), io.StringIO()           # run_kcli adds its own --timeout
    code = run(["-b", "127.0.0.1:1", *args, "5 weeks"] + ([] if flag == "--timeout" else ["--timeout", "1s"]),
               out, err)
    assert (code, out.getvalue(), err.getvalue()) == (2, "", f"Error: {flag}: {DURATION}\n")


def test_a_time_before_the_epoch_is_worded_the_same():
    for args, flag, _ in DATETIME_FLAGS[:3]:
        r = run_kcli("127.0.0.1:1", *args, "1969-12-31T23:59:59.999")
        assert r.err == (f"Error: {flag}: '1969-12-31T23:59:59.999' is before 1970-01-01T00:00:00.000Z: "
                         "Kafka has no record there\n"), flag

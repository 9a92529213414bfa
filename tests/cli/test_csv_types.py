"""CSV for spreadsheets, one rule in every CSV kcli writes: a null is an empty cell (never ``-``,
``N/A`` or ``n/a``), a duration is integer milliseconds under a ``-MS`` header, a time is
ISO-8601; every column holds one type (int, ISO time or text) besides empty cells. Each command
with CSV output runs through the real entry point on the expansion story of
docs/lag-and-expansions.md (the embedded broker) and its output is read with the csv module; audit's
through render_audit with
a real AuditResult (a Spark run is slow). Tables round durations over a minute."""

from __future__ import annotations

import csv
import io
import re

import pytest

from kcli.pipeline.result import AuditResult, AuditTotal, PartitionAudit
from kcli.render.audit import render_audit
from kcli.render.output import Output
from kcli.times import format_ms
from tests.support.clients import commit_groups
from tests.support.groups import fast_cluster
from tests.support.stories import HOUR, NOW, expansion_story
from tests.support.run import run_kcli

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
INT = re.compile(r"^-?\d+$")
NULL_WORDS = {"-", "N/A", "n/a", "none", "null", "None"}


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    with fast_cluster(1) as ec:
        expansion_story(ec)
        yield ec.bootstrap_servers


def kind(cell: str) -> str:
    return "empty" if cell == "" else "int" if INT.match(cell) else "time" if ISO.match(cell) else "text"


def check_csv(text: str, context) -> dict[str, set[str]]:
    """Per column, the kinds of its cells; fails on a null word, a column of two kinds, a
    duration column that is not integer milliseconds."""
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert body, (context, text)
    kinds: dict[str, set[str]] = {}
    for row in body:
        assert len(row) == len(header), (context, row)
        for name, cell in zip(header, row):
            assert cell not in NULL_WORDS, (context, name, cell)      # nulls are empty cells
            kinds.setdefault(name, set()).add(kind(cell))
    for name, found in kinds.items():
        assert len(found - {"empty"}) <= 1, (context, name, found)    # one type per column
        if name.endswith("-MS"):
            assert found <= {"int", "empty"}, (context, name, found)
        assert name not in ("AGE", "TIME-LAG", "MAX-BACK"), (context, name)  # durations say -MS
    return kinds


COMMANDS = [
    ("list", "topics"),
    ("describe", "topics", "orders"),
    ("describe", "topics", "orders", "--topics-with-overrides"),
    ("describe", "configs", "--topic", "orders"),
    ("list-offsets", "--topic", "orders", "--max-timestamp"),
    ("list-offsets", "--topic", "orders", "--time", format_ms(NOW)),
    ("list", "groups"),
    ("describe", "groups", "billing"),
    ("describe", "groups", "billing", "--verbose"),
    ("describe", "groups", "billing", "--members", "--verbose"),
    ("describe", "groups", "billing", "--state", "--verbose"),
    ("reset-offsets", "-g", "billing", "-t", "orders", "--to-datetime", format_ms(NOW - HOUR)),
    ("reset-offsets", "-g", "billing", "-t", "orders", "--to-latest", "--max-age", "1h"),
    ("reset-offsets", "-g", "billing", "-t", "orders", "--to-earliest"),
    ("reset-offsets", "-g", "billing", "-t", "orders", "--compare"),
    ("check", "expansions"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_csv_has_empty_nulls_and_typed_columns(story, args):
    r = run_kcli(story, *args, "-o", "csv")
    assert r.code in (0, 4), r.err
    if args[:2] == ("describe", "groups") and "--members" in args:
        return      # no member: the group is empty, nothing to list
    kinds = check_csv(r.out, args)
    if args == ("describe", "groups", "billing"):
        assert kinds["TIME-LAG-MS"] == {"int"} and kinds["NEXT-RECORD-TIME"] == {"time", "empty"}
        assert kinds["CONSUMER-ID"] == {"empty"} and kinds["CURRENT-OFFSET"] == {"int"}
    if args == ("check", "expansions"):
        assert kinds["AGE-MS"] == {"int"} and kinds["COMMITTED"] == {"empty"} and kinds["CREATED"] == {"time"}
    if args[-1] == "--compare":
        assert kinds["CURRENT-OFFSET"] == {"int", "empty"}


def test_time_lag_reads_rounded_in_a_table_and_exact_in_csv(story):
    table = run_kcli(story, "describe", "groups", "billing").out
    row = next(line.split() for line in table.splitlines() if line.split()[:3] == ["billing", "orders", "0"])
    # 2 h and however long the session has run since the story was made: two units at most, no
    # seconds (the story is shared, so the minutes are not known here)
    assert re.fullmatch(r"2h(\d{1,2}m)?", row[-1]), table
    assert f"Max time lag of group 'billing': {row[-1]}\n" in table
    rows = list(csv.DictReader(io.StringIO(run_kcli(story, "describe", "groups", "billing", "-o", "csv").out)))
    lag = int(next(r for r in rows if r["PARTITION"] == "0")["TIME-LAG-MS"])
    assert 2 * HOUR <= lag < 3 * HOUR
    minutes = int(row[-1][2:-1] or 0)
    assert abs(lag - (2 * HOUR + minutes * 60_000)) < 2 * 60_000, (row[-1], lag)


def test_audit_csv_has_empty_nulls_and_milliseconds():
    parts = [PartitionAudit("orders", 0, 0, 10, 0, 10, records=10, min_timestamp=NOW - 5 * HOUR,
                            max_timestamp=NOW, max_timestamp_offset=9, broker_max_timestamp=NOW,
                            max_timestamp_check="agree", max_out_of_order_ms=5_999_123, out_of_order=2,
                            target_offset=3, replayed=1, skipped=0, target_check="agree"),
             PartitionAudit("orders", 1, 0, 0, 0, 0, records=0, min_timestamp=None, max_timestamp=None,
                            max_timestamp_offset=None, broker_max_timestamp=None, max_timestamp_check="agree",
                            target_offset=None, replayed=None, skipped=None, target_check="agree")]
    result = AuditResult(["orders"], NOW, NOW - HOUR, parts, AuditTotal.of(parts, True))
    out = io.StringIO()
    render_audit(Output("csv", out, io.StringIO()), result)
    kinds = check_csv(out.getvalue(), "audit")
    assert kinds["MAX-BACK-MS"] == {"int", "empty"} and "5999123" in out.getvalue()
    assert kinds["MIN-TIMESTAMP"] == {"time", "empty"} and kinds["TARGET-OFFSET"] == {"int", "empty"}
    table = io.StringIO()
    render_audit(Output("table", table, io.StringIO()), result)
    assert " 1h39m " in table.getvalue()            # 1h39m59s123ms, rounded in the table


UNTRUSTED = ["=HYPERLINK(\"http://x\")", "+1+cmd", "-2+cmd", "@SUM(1)", "\ttabbed", "\rreturned",
             "bare\rreturn", "plain"]


def test_csv_quotes_a_bare_cr_and_guards_formulas_but_keeps_negative_numbers():
    """Group ids are anyone's text: a cell a spreadsheet would run as a formula (OWASP: one
    starting with =, +, -, @, TAB or CR) gets a single quote before it; a field with a bare CR
    is quoted (it was written as it was, ending the row in some readers). -1, a number, stays."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("-dash", 1)
        commit_groups(b, UNTRUSTED, {("-dash", 0): 0})
        r = run_kcli(b, "list", "groups", "-o", "csv")
        assert r.code == 0, r
        assert '"bare\rreturn"' in r.out and "\"'\rreturned\"" in r.out, repr(r.out)
        rows = list(csv.reader(io.StringIO(r.out, newline="")))
        ids = sorted(row[0] for row in rows[1:])
        assert ids == sorted(("'" + g if g[0] in "=+-@\t\r" else g) for g in UNTRUSTED), ids
        r = run_kcli(b, "describe", "groups", "plain", "-o", "csv")
        assert r.code == 0, r
        (header, row), = [list(csv.reader(io.StringIO(r.out)))]
        cells = dict(zip(header, row))
        assert cells["TOPIC"] == "'-dash", cells
        r = run_kcli(b, "describe", "configs", "--topic", "-dash", "--all", "-o", "csv")
        assert r.code == 0, r
        values = {row[1]: row[2] for row in csv.reader(io.StringIO(r.out))}
        assert values["retention.bytes"] == "-1", values               # a number, not a formula

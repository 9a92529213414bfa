"""Tables fit the terminal: every table kcli prints, rendered as on a terminal of 80, 120 and 200
columns, never splits an identifier (topic, group, config name, host:port, member and client id)
or a timestamp; free text (MEANING) wraps; a column left out to fit is named in one dim line,
and -o csv still has it. Through the real entry point, against the embedded broker (a member
that stays in its group, records with chosen timestamps); stdout is a terminal of that width."""

from __future__ import annotations

import io
import json
import re
import time

import pytest

from kcli.broker import EmbeddedCluster
from kcli.cli.main import run
from kcli.pipeline.result import AuditResult, AuditTotal, PartitionAudit
from kcli.render.audit import render_audit
from kcli.render.output import Output
from kcli.times import format_ms
from tests.support.run import run_kcli
from tests.support.clients import active_member, consume_and_commit, create_topic, produce, unique

WIDTHS = (80, 120, 200)
NOW = int(time.time() * 1000) // 1000 * 1000      # records are dated around the broker's real clock
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def on_terminal(monkeypatch, width: int, bootstrap: str | None, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("NO_COLOR", "1")
    out, err = Terminal(), io.StringIO()
    argv = [*args, *(["-b", bootstrap] if bootstrap else [])]
    assert run(argv, out, err) == 0, err.getvalue()
    return ANSI.sub("", out.getvalue())


@pytest.fixture(scope="module")
def made():
    with EmbeddedCluster(nodes=1) as cluster:
        b = cluster.bootstrap_servers
        topic = unique("orders.eu-west-1.v2")
        group = unique("billing-eu-west")
        create_topic(b, topic, partitions=2, config={"message.timestamp.after.max.ms": "3600000",
                                                     "retention.ms": "604800000"})
        produce(b, topic, [(0, NOW - 5_000, None, b"a"), (1, NOW - 4_000, None, b"b")])
        consume_and_commit(b, group, [topic], 2)
        live = unique("ledger-eu-west")
        with active_member(b, live, [topic], partitions=2,
                           **{"client.id": "billing-service-instance-0042.eu-west-1.internal"}):
            yield cluster, b, topic, group, live


def _commands(topic: str, group: str, live: str):
    return [
        ["describe", "topics", topic],
        ["describe", "configs", "--topic", topic],
        ["list", "groups"],
        ["describe", "groups", group, "--verbose"],
        ["describe", "groups", live, "--members", "--verbose"],
        ["describe", "groups", live, "--state", "--verbose"],
        ["list-offsets", "-t", topic, "--time", "max-timestamp"],
        ["reset-offsets", "-g", group, "-t", topic, "--to-datetime", format_ms(NOW - 4_500)],
    ]


def _tokens(doc) -> set[str]:
    """Every identifier-like string and every ISO time of a JSON document (no blanks)."""
    found: set[str] = set()
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key not in ("meaning", "schema", "error"):
                found |= _tokens(value)
    elif isinstance(doc, list):
        for item in doc:
            found |= _tokens(item)
    elif isinstance(doc, str) and " " not in doc and len(doc) >= 6:
        found.add(doc)
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_no_identifier_or_timestamp_is_split(made, monkeypatch, width):
    cluster, b, topic, group, live = made
    coordinator = f"{cluster.bootstrap_servers.split(',')[0]}"
    for args in _commands(topic, group, live):
        text = on_terminal(monkeypatch, width, b, *args)
        doc = json.loads(run_kcli(b, *args, "-o", "json").out)
        csv_header = run_kcli(b, *args, "-o", "csv").out.splitlines()[0].split(",")
        if args[:2] == ["describe", "topics"]:      # the summary table's csv is --topics-with-overrides'
            csv_header += run_kcli(b, *args, "--topics-with-overrides", "-o", "csv").out.splitlines()[0].split(",")
        hidden = re.search(r"\(not shown at \d+ columns: ([^;]+);", " ".join(text.splitlines()))
        hidden = [name.split("(every row:")[0].strip() for name in hidden.group(1).split(", ")] if hidden else []
        # csv keeps every column (a coordinator in two: COORDINATOR and COORDINATOR-ID)
        assert {"COORDINATOR" if h == "COORDINATOR (ID)" else h for h in hidden} <= set(csv_header), (args, hidden)
        header = text.splitlines()[0].split()
        for name in hidden:
            assert name not in header
        tokens = _tokens(doc) | {topic}
        if "COORDINATOR" in header:
            tokens.add(coordinator.split(":")[1])
        for token in tokens:
            if token in text:
                continue
            # Not shown whole: then it is not shown at all (its column left out), never cut.
            assert token[: len(token) // 2] not in text, (args, width, token, text)
        for must in [name for name in (topic, group, live) if name in args]:
            assert must in text, (args, width)
        table = text.split("\n(not shown")[0].splitlines()
        assert max(len(line) for line in table) <= width, (args, width, text)   # 80 columns too


def test_free_text_wraps_and_the_dim_line_says_what_is_left_out(made, monkeypatch):
    _, b, topic, _, _ = made
    wide = on_terminal(monkeypatch, 200, b, "describe", "configs", "--topic", topic)
    narrow = on_terminal(monkeypatch, 120, b, "describe", "configs", "--topic", topic)
    assert "not shown" not in wide and "MEANING" in wide.splitlines()[0]
    meaning_lines = [line for line in narrow.splitlines() if line.startswith(" " * 40)]
    assert meaning_lines, narrow                       # MEANING continues on lines of its own
    assert "message.timestamp.after.max.ms" in narrow
    tiny = on_terminal(monkeypatch, 80, b, "describe", "configs", "--topic", topic)
    assert re.search(r"^\(not shown at 80 columns: .+; -o csv or json show all\)$", tiny, re.M | re.S), tiny
    assert all(len(line) <= 80 for line in tiny.split("\n(not shown")[1].splitlines()), tiny


@pytest.mark.parametrize("width", WIDTHS)
def test_audit_table_keeps_timestamps_whole(width):
    parts = [PartitionAudit("width-orders-events-of-the-eu-region", p, 0, 10, 0, 10, records=10,
                            min_timestamp=NOW - 86_400_000, max_timestamp=NOW + p,
                            max_timestamp_offset=9, broker_max_timestamp=NOW + p,
                            max_timestamp_check="agree", target_offset=3, replayed=1, skipped=0,
                            target_check="agree") for p in range(3)]
    result = AuditResult(["width-orders-events-of-the-eu-region"], NOW, NOW - 3_600_000, parts,
                         AuditTotal.of(parts, True))
    out = Terminal()
    import os
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        render_audit(Output("table", out, io.StringIO()), result)
    finally:
        os.environ.pop("COLUMNS") if old is None else os.environ.__setitem__("COLUMNS", old)
    text = ANSI.sub("", out.getvalue())
    assert max(len(line) for line in text.splitlines()) <= width, text         # 80 columns too
    # Whole, or shortened in the middle before a count the audit is for is left out (80 columns).
    assert "width-orders-events-of-the-eu-region" in text or re.search(r" width-orde\S*…\S*eu-region ", text), text
    hidden = text.split("(not shown")[-1]
    assert format_ms(NOW + 2) in text or "MAX-TIMESTAMP" in hidden
    assert "REPLAYED" in text.splitlines()[0] and "SKIPPED" in text     # what a reset meets stays
    assert format_ms(NOW - 86_400_000) in text or "MIN-TIMESTAMP" in text.split("not shown")[-1]

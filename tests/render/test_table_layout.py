"""Off a terminal, ``Output.table`` lays simple tables out itself (rich needs about a millisecond
per row): the text must be exactly what rich prints, and rich must still get every table whose
layout could differ. Cells are data: markup and emoji codes print as they are."""

import io
import json
import random
import re

import pytest

from kcli.render.output import Output, Rows, Table, simple_layout

PIECES = ["a", "Z", "0", "42", "-", ".", "_", "orders", " ", "[", "]", ":", "/", "é", "≤", "中",
          "\t", "\n", "[bold]", "[/bold]", "[/]", ":smile:", ":thumbs_up:", "\\[", "[red]x[/red]",
          "2025-01-15T10:30:00.000Z", "latest (cold, age 2h)", "", "\u0301", "\xa0", "x" * 30]


def printed(fn, table) -> str:
    """What ``fn`` (``table``, or ``_rich_table`` for rich's own layout) writes for ``table``."""
    out = Output("table", stdout=io.StringIO(), stderr=io.StringIO())
    getattr(out, fn)(table)
    return out.stdout.getvalue()


def simple(table) -> bool:
    return simple_layout(table, Output("table", stdout=io.StringIO()).console) is not None


def random_table(rng: random.Random, weird: float) -> Table:
    def cell():
        pieces = PIECES if rng.random() < weird else PIECES[:13]
        return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
    ncols = rng.randint(1, 6)
    columns = [rng.choice(["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET", "RULE", "X"]) for _ in range(ncols)]
    return Table(columns, [[cell() for _ in range(ncols)] for _ in range(rng.randint(0, 8))])


def test_same_text_as_rich_for_random_tables():
    rng = random.Random(1282)
    fast = 0
    for _ in range(600):
        table = random_table(rng, weird=rng.choice([0.0, 0.1, 0.5]))
        if not table.rows:                     # no row: "(none)", never a bare header (below)
            assert printed("table", table) == (f"{table.title}\n" if table.title else "") + "(none)\n"
            continue
        assert printed("table", table) == printed("_rich_table", table), table
        fast += simple(table)
    assert 200 < fast < 600          # both paths are exercised


@pytest.mark.parametrize("table", [
    Table(["A"], [["x"]], title="T"),
    Table(["A", "B"], [["x"]]),
    Table(["A"], [["x" * 5000]]),
    Table(["A"], [["中文"]]),
    Table(["A"], [["two\nlines"]]),
])
def test_rich_lays_out_what_could_differ(table):
    assert not simple(table)
    assert printed("table", table) == printed("_rich_table", table)


@pytest.mark.parametrize("fn", ["table", "_rich_table"])
def test_cells_are_printed_as_they_are(fn):
    table = Table(["NAME", "VALUE"], [["sasl.password", "[redacted]"], ["[/]", ":smile:"]])
    assert printed(fn, table).splitlines()[2:] == [" sasl.password   [redacted]", " [/]             :smile:"]


def test_plan_sized_table_takes_the_simple_layout():
    rows = [["g", "t", str(p), "1", "0", "-1", "0", "2", "2025-01-15T10:30:00.000Z", "earliest (hot, age 1s ≤ 1m)"]
            for p in range(2000)]
    table = Table(["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "NEW-OFFSET", "DELTA", "LOG-START",
                   "LOG-END", "RECORD-TIMESTAMP", "RULE"], rows)
    assert simple(table)
    assert printed("table", table) == printed("_rich_table", table)


@pytest.mark.parametrize("fmt", ["table", "plain", "csv"])
def test_rows_made_on_each_pass_print_as_a_list_of_rows_does(fmt):
    """Big views (plans, --compare, group offsets) hand their rows over as ``Rows``, made again
    for each pass: the text is the same as from a list, in every layout, rich's included."""
    def text(table):
        out = Output(fmt, stdout=io.StringIO(), stderr=io.StringIO())
        out.view(table)
        return out.stdout.getvalue()

    rng = random.Random(734)
    for _ in range(300):
        table = random_table(rng, weird=rng.choice([0.0, 0.3]))
        lazy = Table(table.columns, Rows(lambda rows=table.rows: iter(rows)), table.title)
        assert text(lazy) == text(table), table


@pytest.mark.parametrize("outer, inner", [(False, False), (True, True), (False, True)])
def test_json_is_written_as_json_dumps_writes_it(outer, inner):
    """Big documents (plans, --compare, group offsets) make their arrays as they are written
    (``Rows``), in lists or not: the text is json.dumps's, at every depth, empty arrays and dicts
    included."""
    def array(lazy):
        return (lambda items: Rows(lambda: iter(items))) if lazy else list

    def document(outer, inner):
        return {"schema": "kcli.x/v1", "groups": outer([
            {"group": f"g{i}", "partitions": inner([{"topic": "é中\n", "partition": p, "lag": None, "ok": True,
                                                      "cells": {"a": {"n": p}, "b": None}, "list": [1, [2]]}
                                                     for p in range(i * 700)]), "warnings": []}
            for i in range(3)]), "empty": inner([]), "nested": {}, "after": 1}

    out = Output("json", stdout=io.StringIO())
    out.json(document(array(outer), array(inner)))
    assert out.stdout.getvalue() == json.dumps(document(list, list), indent=2) + "\n"


def test_on_a_terminal_the_same_text_as_rich_for_random_tables(monkeypatch):
    """On a terminal a table that fits in the simple layout is printed in it, header in bold (rich
    takes a millisecond per row: 11 s for a 10k-partition --compare): the same text as rich's."""
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    def text(table, fast):
        out = Output("table", stdout=Terminal(), stderr=io.StringIO())
        out._rich_table(table, fast=fast)
        return out.stdout.getvalue()

    ansi = re.compile(r"\x1b\[[0-9;]*m")
    rng = random.Random(1327)
    fast = 0
    for width in (40, 80, 200):
        monkeypatch.setenv("COLUMNS", str(width))
        for _ in range(200):
            table = random_table(rng, weird=rng.choice([0.0, 0.1]))
            table.title = rng.choice([None, None, "T"])
            printed_fast = text(table, True)
            assert ansi.sub("", printed_fast) == ansi.sub("", text(table, False)), (width, table)
            fast += "\x1b[1m" in printed_fast and printed_fast.count("\x1b[1m") == 1
    assert fast > 100                         # the simple layout is taken, header bold


def test_a_name_is_shortened_in_the_middle_before_a_column_a_view_is_for_goes():
    """fit: at 80 columns a 62-character topic is cut in the middle (both ends kept) so that
    CURRENT-OFFSET, LAG and TIME-LAG stay; where it fits whole, nothing is cut; a column of no
    rule (MEMBER) goes before any name is cut."""
    from kcli.render.output import fit, middle_ellipsis

    topic = "wordcount-KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition"
    table = Table(["TOPIC", "PARTITION", "CURRENT-OFFSET", "LAG", "MEMBER", "TIME-LAG"],
                  [[t, str(p), "0", "10", f"member-{p}", "1m"] for t in (topic, "words") for p in range(2)])
    narrow = fit(table, 80)
    assert [table.columns[i] for i in narrow.shown] == ["TOPIC", "PARTITION", "CURRENT-OFFSET", "LAG", "TIME-LAG"]
    assert narrow.hidden == ["MEMBER"] and narrow.needed <= 80
    cut = middle_ellipsis(topic, narrow.short[0])
    assert len(cut) == narrow.short[0] == 80 - (9 + 14 + 3 + 8) - (3 * 5 - 1) == 32     # what the rest leaves
    assert cut == topic[:16] + "…" + topic[-15:]
    wide = fit(table, 200)
    assert (wide.hidden, wide.short) == ([], {})
    assert middle_ellipsis("中文中文中文", 6) in ("中…文", "中…") and middle_ellipsis("short", 20) == "short"


def test_free_text_keeps_its_column_by_folding_a_word_too_long_for_it():
    """check broker's EVIDENCE: a `name=value` word wider than what 80 columns leave folds
    rather than the column going."""
    from kcli.render.output import fit

    evidence = "message.timestamp.after.max.ms=3600000; record 1 of 3 at +7200000 ms: INVALID_TIMESTAMP"
    table = Table(["RULE", "KIP", "STATUS", "EVIDENCE"],
                  [["creation-time.leader-change", "KIP-1327", "UNSUPPORTED", evidence]])
    chosen = fit(table, 80)
    assert [table.columns[i] for i in chosen.shown] == ["RULE", "STATUS", "EVIDENCE"] and chosen.hidden == ["KIP"]
    assert chosen.needed <= 80 and chosen.fold[3] < len("message.timestamp.after.max.ms=3600000;")

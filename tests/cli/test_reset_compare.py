"""reset-offsets --compare against the embedded broker, on a partition-expansion story made by
real confluent-kafka clients: every policy's target and the records it replays or skips, as the
story's own records say; each column equal to that policy's single dry run; the ListOffsets
requests batched as the planner's (the same at 4 and 256 partitions); policies a broker posing
as 4.1 cannot serve shown n/a with the reason; never a commit; usage errors before any request."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.groups import consume, fast_cluster, on_coordinator
from tests.support.clients import (committed, consume_and_commit, consumer, expand, latest_group_reads, produce,
                                   tagged)
from tests.support.requests import same_requests, sent, snapshot
from tests.support.run import run_kcli

HOUR = 3_600_000


def compared(b, *args):
    r = run_kcli(b, "reset-offsets", *args, "--compare", "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    cells = {(g["group"], p["topic"], p["partition"], label): cell
             for g in doc["groups"] for p in g["partitions"] for label, cell in p["policies"].items()}
    return doc, cells


def dry_run(b, *args) -> dict:
    r = run_kcli(b, "reset-offsets", *args, "-o", "json")
    assert r.code == 0, r.err
    return {(g["group"], p["topic"], p["partition"]): p
            for g in json.loads(r.out)["groups"] for p in g["partitions"]}


@pytest.fixture(scope="module")
def story():
    """Old records (two hours old, a minute apart), a consumer-protocol group that starts at
    latest, reads the 3 records produced after it and commits; then the topic grows from 2 to 4
    partitions, 4 records land on each new one and 2 more on partition 0 that nobody reads."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        now = int(time.time() * 1000)
        ec.create_topic("cmp", 2, creation_time_ms=now - 3 * HOUR)
        old = [now - 2 * HOUR + i * 60_000 for i in range(5)]
        for p in (0, 1):
            for ts in old:
                produce(b, "cmp", tagged(f"old{p}", p, 1, ts))
        latest_group_reads(b, "cmp-g", "cmp", 2,
                           lambda: [produce(b, "cmp", tagged(f"new{p}", p, 3)) for p in (0, 1)], 6)
        expand(b, "cmp", 2, 4, 4)
        produce(b, "cmp", tagged("unread", 0, 2))
        assert committed(b, "cmp-g") == {("cmp", 0): 8, ("cmp", 1): 8}
        ec.old = old
        yield ec


def test_every_policy_as_the_story_says_and_as_each_dry_run_plans(story):
    b = story.bootstrap_servers
    at = story.old[2]                                        # the third old record's timestamp
    doc, cells = compared(b, "-g", "cmp-g", "-t", "cmp", "--max-age", "1m", "--by-duration", "1h",
                          "--to-datetime", str(at))
    # (target, +replayed / -skipped) per partition 0..3, from the records the story produced:
    # committed 8 on 0 and 1 (5 old + 3 new), log ends 10, 8, 4, 4; no commit on 2 and 3.
    expected = {
        "to-earliest": [(0, +8), (0, +8), (0, 0), (0, 0)],
        "to-latest": [(10, -2), (8, 0), (4, -4), (4, -4)],
        "to-start-time": [(5, +3), (5, +3), (0, 0), (0, 0)],        # the group started after the old ones
        "to-latest --max-age 1m": [(10, -2), (8, 0), (0, 0), (0, 0)],  # 0, 1 cold; 2, 3 hot
        "by-duration 1h": [(5, +3), (5, +3), (0, 0), (0, 0)],
        f"to-datetime {at}": [(2, +6), (2, +6), (0, 0), (0, 0)]}
    assert [p["policy"] for p in doc["policies"]] == list(expected)
    for label, want in expected.items():
        got = [cells[("cmp-g", "cmp", p, label)] for p in range(4)]
        assert [(c["newOffset"], c["replayed"] - c["skipped"]) for c in got] == want, label
    totals = {p["policy"]: (p["totalSkipped"], p["totalReplayed"]) for p in doc["policies"]}
    assert totals["to-latest"] == (10, 0) and totals["to-earliest"] == (0, 16)

    single = {"to-earliest": ["--to-earliest"], "to-latest": ["--to-latest"],
              "to-start-time": ["--to-start-time"], "to-latest --max-age 1m": ["--to-latest", "--max-age", "1m"],
              "by-duration 1h": ["--by-duration", "1h"], f"to-datetime {at}": ["--to-datetime", str(at)]}
    for label, args in single.items():
        plan = dry_run(b, "-g", "cmp-g", "-t", "cmp", *args)
        for key, p in plan.items():
            cell = cells[(*key, label)]
            assert cell["newOffset"] == p["newOffset"], (label, key)
            if p["currentOffset"] is not None:
                assert cell["skipped"] == p["skippedUnread"], (label, key)
                assert cell["replayed"] == max(0, -p["delta"]), (label, key)
            else:
                assert (cell["skipped"], cell["replayed"]) == (p["newOffset"] - p["logStartOffset"], 0)
    assert committed(b, "cmp-g") == {("cmp", 0): 8, ("cmp", 1): 8}          # never commits


def test_text_formats_and_usage_errors(story):
    b = story.bootstrap_servers
    base = ["reset-offsets", "-g", "cmp-g", "-t", "cmp", "--compare"]
    table = run_kcli(b, *base)
    assert table.code == 0 and "Dry run: nothing was committed." in table.err
    header = table.out.split("\n")[0].split()
    assert header[6:10] == ["EARLIEST", "EARLIEST+/-", "LATEST", "LATEST+/-"]
    assert header[-2:] == ["BY-DURATION-1h", "BY-DURATION-1h+/-"]
    plain = run_kcli(b, *base, "-o", "plain").out.splitlines()
    assert plain[0] == "" and plain[1].split() == header
    assert plain[2].split()[:10] == ["cmp-g", "cmp", "0", "8", "0", "10", "0", "-8", "10", "+2"]
    assert plain[-2].split()[:2] == ["(total)", "skipped"] and plain[-1].split()[:2] == ["(total)", "replayed"]
    csv_rows = run_kcli(b, *base, "-o", "csv").out.splitlines()
    assert csv_rows[0].split(",") == header and csv_rows[1].startswith("cmp-g,cmp,0,8,0,10,0,-8,10,2,")
    before = snapshot(story)
    for extra, flag in ((["--execute"], "--execute"), (["--export"], "--export"),
                        (["--to-earliest"], "--to-earliest"), (["--from-file", "x.csv"], "--from-file"),
                        (["--to-offset", "0"], "--to-offset"), (["--shift-by", "0"], "--shift-by"),
                        (["--max-age", ""], "Invalid duration ''"), (["--by-duration", ""], "Invalid duration ''")):
        r = run_kcli(b, *base, *extra)
        assert r.code == 2 and flag in r.err, (extra, r.err)
    assert sent(story, before) == {}
    assert committed(b, "cmp-g") == {("cmp", 0): 8, ("cmp", 1): 8}


def test_at_80_columns_the_policies_asked_for_stay_and_signs_are_the_plans_delta(story, monkeypatch):
    """--max-age 1h --by-duration 30m at 80 columns: both policies' +/- columns are shown (the
    default policies' go first); every +/- is signed as the plan's DELTA (new minus committed: a
    replay is negative, a skip positive), column by column against each policy's dry run."""
    import io
    import re

    from kcli.cli.main import run

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    b = story.bootstrap_servers
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    out, err = Terminal(), io.StringIO()
    assert run(["reset-offsets", "-g", "cmp-g", "-t", "cmp", "--compare", "--max-age", "1h", "--by-duration",
                "30m", "-b", b], out, err) == 0, err.getvalue()
    lines = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).splitlines()
    header = lines[0].split()
    assert {"MAX-AGE-1h+/-", "BY-DURATION-30m+/-"} <= set(header), lines
    assert max(len(line) for line in lines[:8]) <= 80
    assert "+N: records skipped, -N: records replayed" in err.getvalue()
    plans = {"EARLIEST+/-": ["--to-earliest"], "LATEST+/-": ["--to-latest"],
             "MAX-AGE-1h+/-": ["--to-latest", "--max-age", "1h"], "BY-DURATION-30m+/-": ["--by-duration", "30m"]}
    for column, args in plans.items():
        if column not in header:
            continue
        plan = dry_run(b, "-g", "cmp-g", "-t", "cmp", *args)
        i = header.index(column)
        for line in lines[2:6]:
            cells = line.split()
            p = plan[("cmp-g", "cmp", int(cells[2]))]
            if p["currentOffset"] is not None:
                sign = (int(cells[i]) > 0) - (int(cells[i]) < 0)
                assert sign == (p["delta"] > 0) - (p["delta"] < 0), (column, cells, p)


def test_active_group_is_refused_as_by_every_reset(story):
    b = story.bootstrap_servers
    c = consumer(b, "cmp-active", "classic")
    c.subscribe(["cmp"])
    consume([c], 24)
    try:
        r = run_kcli(b, "reset-offsets", "-g", "cmp-active", "-t", "cmp", "--compare")
        assert r.code == 1 and "can only be reset if the group 'cmp-active' is inactive" in r.err
    finally:
        c.close()


def test_list_offsets_batched_as_the_planner_and_independent_of_partitions():
    """ListOffsets: log starts, log ends, then one call per distinct timestamp (here the group's
    creation time, now - 1h and the --to-datetime), each one request to the one leader, as the
    planner sends them; every count the same at 4 and 256 partitions."""
    with fast_cluster(1) as ec:
        counts = {}
        for n in (4, 256):
            ec.create_topic(f"wide{n}", n)
            on_coordinator(ec, lambda co: co.create_consumer_group(f"w{n}"))
            args = ["reset-offsets", "-g", f"w{n}", "-t", f"wide{n}", "--compare", "--to-datetime", "2000-01-01"]
            before = snapshot(ec)
            assert run_kcli(ec.bootstrap_servers, *args).code == 0
            counts[n] = sent(ec, before)
            plan_before = snapshot(ec)
            assert run_kcli(ec.bootstrap_servers, "reset-offsets", "-g", f"w{n}", "-t", f"wide{n}",
                            "--to-datetime", "2000-01-01").code == 0
            assert sent(ec, plan_before)["ListOffsets"] == 3         # start, end, one timestamp
        same_requests(counts[4], counts[256])
        assert counts[256]["ListOffsets"] == 5 and "OffsetCommit" not in counts[256]


def test_policies_a_4_1_broker_cannot_serve_are_na_with_the_reason():
    with fast_cluster(1, pose_as="4.1") as ec:
        b = ec.bootstrap_servers
        ec.create_topic("old41", 1)
        produce(b, "old41", tagged("r", 0, 5))
        consume_and_commit(b, "g41", ["old41"], 5)
        r = run_kcli(b, "reset-offsets", "-g", "g41", "-t", "old41", "--compare")
        assert r.code == 0, r.err
        row = r.out.splitlines()[2].split()
        assert row[:8] == ["g41", "old41", "0", "5", "0", "5", "0", "-5"]
        assert row[10:12] == ["n/a", "n/a"] and row[12:14] == ["0", "-5"]    # max-age: unproven, hot
        notes = [x for x in r.err.splitlines() if " is n/a: " in x]
        assert notes == [
            "START-TIME is n/a: Cannot reset offsets using --to-start-time. The broker does not support "
            "to_start_time (requires ConsumerGroupDescribe v2+ or StreamsGroupDescribe v2+). Please upgrade the "
            "broker."]
        assert "Warn: --max-age 1h: no proven age for 1 partition(s)" in r.err

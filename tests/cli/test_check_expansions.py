"""kcli check expansions against the embedded broker, on the partition-expansion story made by
real confluent-kafka consumers: the exposed partitions found before the group resumes (exit 4),
the suspected loss reported after a latest consumer skipped them (exit 4, record by record: the
consumer never received them), a group that read them with earliest never flagged, exit 0 when
nothing is exposed or lost; on a broker without KIP-1327, from kcli's own sightings."""

from __future__ import annotations

import csv
import io
import json
import time

from tests.support.groups import fast_cluster
from tests.support.clients import consume_and_commit, expand, latest_group_reads, produce, tagged
from tests.support.clients import commit
from tests.support.run import run_kcli

DAY = 86_400_000


def radar(b, *args):
    r = run_kcli(b, "check", "expansions", *args, "-o", "json")
    doc = json.loads(r.out) if r.out else None
    rows = {(p["topic"], p["partition"], g["group"]): g
            for p in (doc or {}).get("partitions", []) for g in p["groups"]}
    return r, doc, rows


def test_expansion_story_exposed_then_suspected_lost():
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("story", 2, creation_time_ms=int(time.time() * 1000) - 2 * DAY)
        for p in (0, 1):
            produce(b, "story", tagged(f"old{p}", p, 5))
        # The group reads at latest, commits and stops; a second group follows with earliest.
        latest_group_reads(b, "story-g", "story", 2,
                           lambda: [produce(b, "story", tagged(f"new{p}", p, 3)) for p in (0, 1)], 6)
        # The topic grows; producers write to the new partitions before the group comes back.
        expand(b, "story", 2, 4, 4)
        consume_and_commit(b, "reader", ["story"], 24, protocol="consumer")    # earliest: reads all

        r, doc, rows = radar(b)
        assert r.code == 4, r.err
        assert [(p["topic"], p["partition"]) for p in doc["partitions"]] == [("story", 2), ("story", 3)]
        for p in (2, 3):
            g = rows[("story", p, "story-g")]
            assert (g["status"], g["exposed"], g["committedOffset"], g["youngerThanGroup"]) == (
                "EXPOSED", 4, None, True)
            row = rows[("story", p, "reader")]
            assert (row["status"], row["committedOffset"]) == ("OK", 4)
        assert doc["exposed"] == {"partitions": 2, "groupPartitions": 2, "records": 8}
        assert doc["suspectedLost"]["partitions"] == 0
        assert "exposed (8 records a latest start would skip)" in json.loads(r.err)["error"]

        # The group resumes at latest: it skips exp records, reads what comes after, commits.
        got = latest_group_reads(b, "story-g", "story", 4,
                                 lambda: [produce(b, "story", tagged(f"late{p}", p, 2)) for p in (2, 3)], 4)
        got = sorted((p, o, v.decode()) for _, p, o, v in got)
        assert got == [(p, 4 + i, f"late{p}-{i}") for p in (2, 3) for i in range(2)]   # exp0..3 never read

        r, doc, rows = radar(b)
        assert r.code == 4, r.err
        for p in (2, 3):
            g = rows[("story", p, "story-g")]
            assert (g["status"], g["committedOffset"], g["exposed"]) == ("LOST?", 6, 0)
            assert (g["suspectedLost"]["records"], g["suspectedLost"]["fromOffset"],
                    g["suspectedLost"]["toOffset"]) == (4, 0, 4)
            assert rows[("story", p, "reader")]["status"] == "OK"
        assert doc["suspectedLost"] == {"partitions": 2, "groupPartitions": 2, "records": 8}
        table = run_kcli(b, "check", "expansions")
        assert table.code == 4 and "LOST? is suspected, not known" in table.err
        assert "suspected lost: 2 (8 records)" in table.out

        # Exit 0: the group that read everything; and no partition young enough.
        assert radar(b, "-g", "reader")[0].code == 0
        r, doc, _ = radar(b, "--within", "1ms")
        assert (r.code, doc["partitions"]) == (0, [])
        plain = run_kcli(b, "check", "expansions", "-g", "reader", "-o", "plain")
        assert plain.code == 0 and plain.out.splitlines()[1].split() == [
            "TOPIC", "PARTITION", "CREATED", "AGE", "SOURCE", "GROUP", "YOUNGER-THAN-GROUP", "COMMITTED",
            "LOG-START", "LOG-END", "EXPOSED", "SUSPECTED-LOST", "STATUS"]
        assert [line.split()[-1] for line in plain.out.splitlines()[2:]] == ["OK", "OK"]
        assert [line.split()[4] for line in plain.out.splitlines()[2:]] == ["broker", "broker"]
        rows_csv = list(csv.reader(io.StringIO(run_kcli(b, "check", "expansions", "-o", "csv").out)))
        # CSV: the same columns, AGE in milliseconds (AGE-MS), a null an empty cell
        assert rows_csv[0] == [name.replace("AGE", "AGE-MS") for name in plain.out.splitlines()[1].split()]
        assert sorted((r[1], r[5], r[-1], r[-2]) for r in rows_csv[1:]) == [
            ("2", "reader", "OK", ""), ("2", "story-g", "LOST?", "4 (0..3)"),
            ("3", "reader", "OK", ""), ("3", "story-g", "LOST?", "4 (0..3)")]


def test_unknown_creation_times_are_not_checked():
    with fast_cluster(1, record_creation_times=False) as ec:
        ec.create_topic("legacy", 3)
        r = run_kcli(ec.bootstrap_servers, "check", "expansions")
        assert r.code == 0 and "3 partition(s) have no recorded creation time" in r.err


def test_without_creation_times_an_expansion_kcli_watched_is_observed():
    """On a broker without KIP-1327 (posing as 4.4) the radar works from kcli's sightings: the
    partitions added after kcli listed the topic are expansions (SOURCE observed); before that,
    partitions kcli cannot tell from young expansions are checked as such and shown when exposed
    (SOURCE unknown), with a note that says why."""
    with fast_cluster(1, pose_as="4.4") as ec:
        b = ec.bootstrap_servers
        ec.create_topic("seen", 2)
        produce(b, "seen", tagged("old", [0, 1], 3))
        latest_group_reads(b, "seen-g", "seen", 2,
                           lambda: [produce(b, "seen", tagged(f"new{p}", p, 3)) for p in (0, 1)], 6)
        ec.create_topic("unseen", 2)
        produce(b, "unseen", tagged("u", [0, 1], 2))
        commit(b, "unseen-g", {("unseen", 0): 2})                      # none on unseen-1: exposed

        r, doc, rows = radar(b, "-t", "seen", "-t", "unseen")           # kcli sees both first now
        assert r.code == 4, r.err
        sources = [(p["topic"], p["partition"], p["creationSource"]) for p in doc["partitions"]]
        assert sources == [("unseen", 1, "unknown")]
        assert rows[("unseen", 1, "unseen-g")]["status"] == "EXPOSED"
        assert doc["undecided"] == [{"topic": t, "partition": p} for t in ("seen", "unseen") for p in (0, 1)]
        note = run_kcli(b, "check", "expansions", "-t", "seen", "-t", "unseen").err
        assert "4 partition(s) (seen-0, seen-1, unseen-0, unseen-1) may be young expansions" in note

        expand(b, "seen", 2, 4, 2)                                      # grows after kcli saw it
        r, doc, rows = radar(b, "-t", "seen")
        assert r.code == 4, r.err
        assert [(p["partition"], p["creationSource"]) for p in doc["partitions"]] == [(2, "observed"), (3, "observed")]
        for p in doc["partitions"]:
            assert p["createdAfterMs"] < p["creationTimeMs"]
        assert {k[1]: (g["status"], g["exposed"]) for k, g in rows.items()} == {2: ("EXPOSED", 2), 3: ("EXPOSED", 2)}
        table = run_kcli(b, "check", "expansions", "-t", "seen", "-o", "plain")
        assert table.code == 4 and table.out.splitlines()[2].split()[4] == "observed"


def test_usage_errors_before_any_request():
    with fast_cluster(1) as ec:
        before = ec.request_counts()
        for args in (["--within", "soon"], ["--within", "0"], ["-t", "story:1"], ["-g", ""]):
            r = run_kcli(ec.bootstrap_servers, "check", "expansions", *args)
            assert r.code == 2, (args, r.err)
        assert ec.request_counts() == before


def test_an_unknown_group_is_an_error_not_a_silent_exit_0():
    """-g with a typo: one line, exit 1, no report (it listed every partition as NO-GROUP, exit 0,
    and a scheduled alert on it never fired)."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("typo", 1, creation_time_ms=int(time.time() * 1000) - 2 * DAY)
        expand(b, "typo", 1, 2, 3)
        consume_and_commit(b, "real-g", ["typo"], 3)
        for fmt in ("table", "plain", "json"):
            r = run_kcli(b, "check", "expansions", "-g", "nosuch", "-o", fmt)
            assert (r.code, r.out) == (1, ""), (fmt, r)
            assert len(r.err.splitlines()) == 1 and "'nosuch'" in r.err, (fmt, r.err)
        r = run_kcli(b, "check", "expansions", "-g", "real-g", "-g", "nosuch")
        assert (r.code, r.out) == (1, "") and "'nosuch'" in r.err and "real-g" not in r.err
        assert radar(b, "-g", "real-g")[0].code == 0


def test_a_new_topic_is_not_an_expansion():
    """Topics created a moment ago, read in part by a group: none of their partitions is an
    expansion (13 EXPOSED rows and exit 4 before); they are named in a note and in JSON. A
    partition added later to one of them is an expansion."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        for name, n in (("fresh", 8), ("fresh2", 5)):
            ec.create_topic(name, n)
            for p in range(n):
                produce(b, name, tagged(f"{name}{p}", p, 2))
        commit(b, "fresh-g", {("fresh", 0): 2, ("fresh2", 0): 1})    # 11 partitions without a commit
        ec.create_topic("untouched", 2)
        r, doc, rows = radar(b)
        assert (r.code, doc["partitions"]) == (0, []), (r.err, rows)
        assert sorted((t["topic"], t["partitions"]) for t in doc["newTopics"]) == [
            ("fresh", 8), ("fresh2", 5), ("untouched", 2)]
        table = run_kcli(b, "check", "expansions")
        assert table.code == 0 and "3 topic(s) created within 1d: " in table.err
        assert "not expansions" in table.err
        assert table.out.splitlines() == ["(none)", "0 partition(s) added within 1d; exposed: 0 (0 records); "
                                          "suspected lost: 0 (0 records)"]
        time.sleep(0.01)                                       # a later creation time
        expand(b, "fresh", 8, 9, 3)
        r, doc, rows = radar(b)
        assert r.code == 4 and [(p["topic"], p["partition"]) for p in doc["partitions"]] == [("fresh", 8)]
        assert rows[("fresh", 8, "fresh-g")]["status"] == "EXPOSED"


def test_a_new_topic_that_grew_is_checked_counted_once_and_reported_as_a_finding():
    """`orders`, created a moment ago with 6 partitions and grown to 9, read by two groups that
    have no commit on 6-8: the rows list 6-8 as EXPOSED for both groups, so the note must not
    call `orders` unchecked; the summary and the exit-4 line count each record once, not once
    per group; the finding is no `Error:`."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("orders", 6)
        produce(b, "orders", tagged("o", range(6), 2))
        for g in ("billing", "audit"):
            commit(b, g, {("orders", p): 2 for p in range(6)})
        time.sleep(0.01)                                       # a later creation time
        expand(b, "orders", 6, 9, 4)                           # 12 records nobody committed past
        r, doc, rows = radar(b)
        assert r.code == 4, r.err
        assert sorted({(t, p) for t, p, _ in rows}) == [("orders", p) for p in (6, 7, 8)]
        assert {g["status"] for g in rows.values()} == {"EXPOSED"} and len(rows) == 6
        assert doc["exposed"] == {"partitions": 3, "groupPartitions": 6, "records": 12}
        assert json.loads(r.err)["error"] == ("Expansion check: 6 group partition(s) on 3 partition(s) "
                                              "exposed (12 records a latest start would skip)")
        table = run_kcli(b, "check", "expansions")
        assert table.code == 4
        assert "exposed: 3, 6 group partition(s) (12 records)" in " ".join(table.out.split())
        note = next(line for line in table.err.splitlines() if "topic(s) created within" in line)
        assert "orders (6 first partition(s); 3 added since, checked above)" in note, note
        assert "Error:" not in table.err
        assert table.err.splitlines()[-1] == ("Found: Expansion check: 6 group partition(s) on 3 "
                                              "partition(s) exposed (12 records a latest start would skip)")

"""delete-records through the real entry point, against the embedded broker: the dry run (the
records, their time range, the groups that have not read them), --execute, the --allow-loss
refusal, --before and --from-file, and bad input refused before any request."""

from __future__ import annotations

import json

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.support.clients import commit, produce, unique
from tests.support.run import run_kcli

T0 = 1_700_000_000_000       # 2023-11-14T22:13:20.000Z


def _sent(cluster, api: str = "DeleteRecords") -> int:
    return sum(n.get(api, 0) for n in cluster.request_counts().values())


def _low(b: str, topic: str, partition: int) -> int:
    c = Consumer({"bootstrap.servers": b, "group.id": unique("wm")})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)[0]
    finally:
        c.close()


def _first_offset(b: str, topic: str, partition: int) -> int:
    c = Consumer({"bootstrap.servers": b, "group.id": unique("read"), "auto.offset.reset": "earliest"})
    try:
        c.assign([TopicPartition(topic, partition, -2)])
        for _ in range(100):
            m = c.poll(0.2)
            if m is not None and m.error() is None:
                return m.offset()
        raise AssertionError("no record read in 20 s")
    finally:
        c.close()


@pytest.fixture
def topic(cluster):
    """Two partitions of 10 records each, one a second apart from T0 on each."""
    name = unique("recs")
    cluster.create_topic(name, partitions=2)
    produce(cluster.bootstrap_servers, name, [(p, f"v{i}", T0 + i * 1000) for p in (0, 1) for i in range(10)])
    return name


def test_a_dry_run_shows_what_would_go_and_execute_deletes_it(cluster, topic):
    b = cluster.bootstrap_servers
    before = _sent(cluster)
    r = run_kcli(b, "delete-records", "-t", f"{topic}:0=3", "-t", f"{topic}:1=-1", "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert (doc["schema"], doc["executed"]) == ("kcli.records-delete/v1", False)
    rows = {p["partition"]: p for p in doc["partitions"]}
    assert [(rows[p]["logStartOffset"], rows[p]["offset"], rows[p]["records"]) for p in (0, 1)] == [
        (0, 3, 3), (0, 10, 10)]
    assert (rows[0]["firstTimestamp"]["ms"], rows[0]["lastTimestamp"]["ms"]) == (T0, T0 + 2000)
    assert rows[1]["lastTimestamp"]["iso"] == "2023-11-14T22:13:29.000Z" and rows[0]["unreadBy"] == []
    table = run_kcli(b, "delete-records", "-t", f"{topic}:0=3")
    assert table.code == 0
    assert table.err == "Dry run: 3 records in 1 partition would go (add --execute to delete them).\n"
    assert table.out.split("\n")[2].split() == [topic, "0", "0", "3", "3", "2023-11-14T22:13:20.000Z",
                                                "2023-11-14T22:13:22.000Z", "-"]
    assert _sent(cluster) == before and _low(b, topic, 0) == 0          # nothing sent, nothing gone

    r = run_kcli(b, "delete-records", "-t", f"{topic}:0=3", "-t", f"{topic}:1=-1", "--execute", "-o", "plain")
    assert (r.code, r.out) == (0, f"Records delete operation completed:\npartition: {topic}-0\tlow_watermark: 3\n"
                                  f"partition: {topic}-1\tlow_watermark: 10\n"), r
    assert (_low(b, topic, 0), _low(b, topic, 1), _first_offset(b, topic, 0)) == (3, 10, 3)
    again = run_kcli(b, "delete-records", "-t", f"{topic}:0=2", "--execute", "-o", "json")
    row = json.loads(again.out)["partitions"][0]
    assert again.code == 0 and (row["records"], row["lowWatermark"]) == (0, 3)      # below the log start: a no-op


def test_records_a_group_has_not_read_need_allow_loss(cluster, topic):
    b = cluster.bootstrap_servers
    behind, caught_up = unique("behind"), unique("caught-up")
    commit(b, behind, {(topic, 0): 2})
    commit(b, caught_up, {(topic, 0): 5, (topic, 1): 9})
    r = run_kcli(b, "delete-records", "-t", f"{topic}:0=5")
    assert r.code == 0 and r.out.split("\n")[2].split()[-1] == behind
    assert f"Warn: group '{behind}' has not read {topic}-0 from offset 2 (3 records); add --allow-loss" in r.err

    before = _sent(cluster)
    refused = run_kcli(b, "delete-records", "-t", f"{topic}:0=5", "--execute")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == (f"Error: Nothing was deleted: group '{behind}' has not read {topic}-0 from offset 2 "
                           "(3 records); add --allow-loss to delete them\n")
    assert _sent(cluster) == before and _low(b, topic, 0) == 0
    # the group that read up to 5 does not stop a deletion below 5, nor one of partition 1 below 9
    assert run_kcli(b, "delete-records", "-t", f"{topic}:1=9", "--execute").code == 0
    r = run_kcli(b, "delete-records", "-t", f"{topic}:0=5", "--execute", "--allow-loss", "-o", "json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["partitions"][0]["unreadBy"] == [{"group": behind, "committedOffset": 2}]
    assert (_low(b, topic, 0), _low(b, topic, 1)) == (5, 9)


def test_before_a_time_and_from_an_offset_file(cluster, topic, tmp_path):
    b = cluster.bootstrap_servers
    r = run_kcli(b, "delete-records", "--before", "2023-11-14T22:13:24Z", "-t", topic, "-o", "json")
    assert r.code == 0, r.err
    assert [(p["partition"], p["offset"]) for p in json.loads(r.out)["partitions"]] == [(0, 4), (1, 4)]
    late = run_kcli(b, "delete-records", "--before", str(T0 + 60_000), "-t", f"{topic}:1", "-o", "json")
    assert [(p["partition"], p["offset"]) for p in json.loads(late.out)["partitions"]] == [(1, 10)]
    plan = tmp_path / "offsets.json"
    plan.write_text(json.dumps({"partitions": [{"topic": topic, "partition": 1, "offset": 6}], "version": 1}))
    r = run_kcli(b, "delete-records", "--from-file", str(plan), "--execute")
    assert r.code == 0 and r.err == "Deleted 6 records in 1 partition.\n", r
    assert _low(b, topic, 1) == 6


@pytest.mark.parametrize("args, message", [
    (["-t", "t0"], "Invalid records spec 't0': expected TOPIC:PARTITION=OFFSET"),
    (["-t", "t0:x=1"], "Invalid partition in 't0:x=1': not an integer"),
    (["-t", "t0:0=-2"], "Invalid offset in 't0:0=-2': out of range (-1 to 9223372036854775807) (-1: the high "
                        "watermark)"),
    (["-t", "t0:0=1", "-t", "t0:0=2"], "t0:0 is given twice"),
    ([], "Name the records: -t TOPIC:PARTITION=OFFSET ..., --from-file FILE or --before TIME"),
    (["--before", "2024-01-01"], "--before needs the topics: -t TOPIC[:PARTITION,...]"),
    (["--before", "yesterday", "-t", "t0"], None),
    (["--from-file", "/nonexistent/offsets.json"], "Cannot read --from-file '/nonexistent/offsets.json'"),
])
def test_bad_input_is_refused_before_any_request(cluster, args, message):
    before = cluster.request_counts()
    r = run_kcli(cluster.bootstrap_servers, "delete-records", *args)
    assert (r.code, r.out) == (2, "") and len(r.err.splitlines()) == 1, r
    assert message is None or r.err.startswith(f"Error: {message}"), r.err
    assert cluster.request_counts() == before


def test_a_bad_offset_file_is_refused(cluster, tmp_path):
    for text in ("{", '{"partitions": [{"topic": "t", "partition": -1, "offset": 0}]}', "[]"):
        f = tmp_path / "bad.json"
        f.write_text(text)
        r = run_kcli(cluster.bootstrap_servers, "delete-records", "--from-file", str(f))
        assert (r.code, r.out) == (2, "") and len(r.err.splitlines()) == 1, (text, r)


def test_an_offset_above_the_high_watermark_deletes_nothing(cluster, topic):
    r = run_kcli(cluster.bootstrap_servers, "delete-records", "-t", f"{topic}:0=3", "-t", f"{topic}:1=11", "--execute")
    assert (r.code, r.out) == (1, "")
    assert r.err == f"Error: Nothing was deleted: offset 11 of {topic}-1 is above its high watermark 10\n"
    assert _low(cluster.bootstrap_servers, topic, 0) == 0

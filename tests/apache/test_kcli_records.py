"""kcli delete-records against real Apache Kafka 4.4 (three nodes, replicated partitions): the
dry run's numbers are what Apache's kafka-get-offsets says, nothing moves without --execute, a
group that has not read the records stops it without --allow-loss, and after --execute the log
start offsets are what Apache's tool reads back."""

from __future__ import annotations

import json
import time

from tests.support.apache_kafka import ToolSession
from tests.support.clients import commit, create_topic, produce, unique
from tests.support.run import run_kcli
from tests.support.waits import wait_until


def _java_offsets(tools: ToolSession, b: str, topic: str, time_: str) -> dict[int, int]:
    r = tools.run("kafka-get-offsets", "--bootstrap-server", b, "--topic", topic, "--time", time_)
    assert r.code == 0, r.err[-2000:]
    return {int(p): int(o) for _, p, o in (line.split(":") for line in r.out.split())}


def _committed(b: str, group: str, offsets: dict) -> bool:
    """A commit, once the cluster has a group coordinator (a new cluster's offsets topic may not
    be ready: NOT_COORDINATOR)."""
    from confluent_kafka import KafkaException

    try:
        commit(b, group, offsets)
        return True
    except KafkaException:
        return False


def test_delete_records_on_kafka(apache_kafka3):
    with ToolSession() as tools:
        _delete_records_on_kafka(apache_kafka3, tools)


def _delete_records_on_kafka(apache_kafka3, tools: ToolSession):
    b = apache_kafka3.bootstrap_servers
    topic, behind = unique("recs"), unique("behind")
    create_topic(b, topic, partitions=2, replication_factor=3)
    base = int(time.time() * 1000) - 60_000
    produce(b, topic, [(p, f"{p}-{i}", base + i * 1000) for p in (0, 1) for i in range(10)])
    wait_until(lambda: _committed(b, behind, {(topic, 0): 2, (topic, 1): 10}), timeout=60, interval=1,
               what="a group coordinator")

    r = run_kcli(b, "delete-records", "-t", f"{topic}:0=6", "-t", f"{topic}:1=-1", "-o", "json", timeout="30s")
    assert r.code == 0, r.err
    rows = {p["partition"]: p for p in json.loads(r.out)["partitions"]}
    latest = _java_offsets(tools, b, topic, "latest")
    assert {p: (rows[p]["logStartOffset"], rows[p]["highWatermark"]) for p in (0, 1)} == {
        p: (o, latest[p]) for p, o in _java_offsets(tools, b, topic, "earliest").items()}
    assert [(rows[p]["offset"], rows[p]["records"]) for p in (0, 1)] == [(6, 6), (10, 10)]
    assert (rows[0]["firstTimestamp"]["ms"], rows[0]["lastTimestamp"]["ms"]) == (base, base + 5000)
    assert rows[0]["unreadBy"] == [{"group": behind, "committedOffset": 2}] and rows[1]["unreadBy"] == []
    assert _java_offsets(tools, b, topic, "earliest") == {0: 0, 1: 0}             # a dry run

    refused = run_kcli(b, "delete-records", "-t", f"{topic}:0=6", "--execute", timeout="30s")
    assert refused.code == 1 and f"group '{behind}' has not read {topic}-0 from offset 2 (4 records)" in refused.err
    assert _java_offsets(tools, b, topic, "earliest") == {0: 0, 1: 0}

    r = run_kcli(b, "delete-records", "-t", f"{topic}:0=6", "-t", f"{topic}:1=-1", "--execute", "--allow-loss",
                 "-o", "plain", timeout="30s")
    assert (r.code, r.out) == (0, f"Records delete operation completed:\npartition: {topic}-0\tlow_watermark: 6\n"
                                  f"partition: {topic}-1\tlow_watermark: 10\n"), r
    assert _java_offsets(tools, b, topic, "earliest") == {0: 6, 1: 10}
    # --before: the first record at or after the time stays (the group at 2 has not read 6 and 7)
    r = run_kcli(b, "delete-records", "--before", str(base + 8000), "-t", topic, "--execute", "--allow-loss",
                 "-o", "json", timeout="30s")
    assert r.code == 0, r.err
    assert _java_offsets(tools, b, topic, "earliest") == {0: 8, 1: 10}

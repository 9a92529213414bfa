"""kcli against real Apache Kafka 4.4: topics, configs and offsets, end to end. 4.4 has no
DescribeTopicPartitions v1, so KIP-1327's CreationTimeMs is omitted in every format; KIP-734's
max-timestamp is real; the KIP-937 bounds are what the broker reports and enforces."""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka import Producer

from tests.support.apache_kafka import java_tool
from tests.support.clients import create_topic, produce, unique
from tests.support.run import run_kcli

HOUR = 3_600_000


@pytest.fixture(scope="module")
def data(apache_kafka):
    """A 3-partition topic whose records carry chosen timestamps: partition p holds 4 records
    at base + p*1000 + [0, 300, 200, 100] ms, so the max timestamp sits at offset 1."""
    b = apache_kafka.bootstrap_servers
    topic = unique("ts")
    create_topic(b, topic, partitions=3)
    base = int(time.time() * 1000) - HOUR
    records = [(p, f"r{p}-{i}", base + p * 1000 + d)
               for p in range(3) for i, d in enumerate((0, 300, 200, 100))]
    produce(b, topic, records)
    return b, topic, base


def test_describe_topics_omits_creation_time_in_every_format(apache_kafka, data):
    b, topic, _ = data
    plain = run_kcli(b, "-o", "plain", "describe", "topics", topic)
    java = java_tool("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic)
    assert (plain.code, plain.err) == (0, "")
    assert plain.out == java.out                    # no CreationTimeMs field: byte for byte
    doc = json.loads(run_kcli(b, "-o", "json", "describe", "topics", topic).out)
    partitions = doc["topics"][0]["partitions"]
    assert len(partitions) == 3
    assert not any("creationTimeMs" in p or "creationTime" in p for p in partitions)
    table = run_kcli(b, "describe", "topics", topic)
    assert table.code == 0 and "CREATION" not in table.out and topic in table.out
    csv = run_kcli(b, "-o", "csv", "describe", "topics", topic)
    assert "creation" not in csv.out.splitlines()[0].lower()


def test_list_offsets_every_time_form_and_max_timestamp(data):
    b, topic, base = data
    def offsets(*args):
        r = run_kcli(b, "-o", "json", "list-offsets", "-t", topic, *args)
        assert r.code == 0, r.err
        return {o["partition"]: (o["offset"], o.get("timestampMs")) for o in json.loads(r.out)["offsets"]}

    assert {p: o for p, (o, _) in offsets().items()} == {0: 4, 1: 4, 2: 4}
    for form in ("latest", "-1"):
        assert {p: o for p, (o, _) in offsets("--time", form).items()} == {0: 4, 1: 4, 2: 4}
    for form in ("earliest", "-2"):
        assert {p: o for p, (o, _) in offsets("--time", form).items()} == {0: 0, 1: 0, 2: 0}
    # KIP-734: the offset of the record with the highest timestamp, and that timestamp.
    for args in (("--max-timestamp",), ("--time", "max-timestamp"), ("--time", "-3")):
        assert offsets(*args) == {p: (1, base + p * 1000 + 300) for p in range(3)}
    # A timestamp: the first record at or after it; none after the last record.
    assert {p: o for p, (o, _) in offsets("--time", str(base + 1150)).items()} == {0: None, 1: 1, 2: 0}
    iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime((base + 1150) // 1000)) + f".{(base + 1150) % 1000:03d}Z"
    assert {p: o for p, (o, _) in offsets("--time", iso).items()} == {0: None, 1: 1, 2: 0}
    # Plain output is kafka-get-offsets', for every form both tools take.
    for form in ("latest", "earliest", "max-timestamp", "-1", "-2", "-3", str(base + 1150)):
        ours = run_kcli(b, "-o", "plain", "list-offsets", "-t", topic, "--time", form)
        java = java_tool("kafka-get-offsets", "--bootstrap-server", b, "--topic", topic, "--time", form)
        assert (ours.code, ours.out) == (java.code, java.out), form


def test_configs_report_and_enforce_the_kip_937_bounds(apache_kafka):
    b = apache_kafka.bootstrap_servers
    topic = unique("bounds")
    create_topic(b, topic)

    def bounds():
        r = run_kcli(b, "-o", "json", "describe", "configs", "--topic", topic)
        assert r.code == 0, r.err
        return {c["name"]: (c["value"], c["source"], c["effective"])
                for c in json.loads(r.out)["resources"][0]["configs"] if "timestamp" in c["name"]}

    # Kafka 4.4's defaults, as the broker reports them.
    got = bounds()
    assert got["message.timestamp.before.max.ms"] == ("9223372036854775807", "DEFAULT_CONFIG", 9223372036854775807)
    assert got["message.timestamp.after.max.ms"] == ("3600000", "DEFAULT_CONFIG", 3600000)
    r = run_kcli(b, "alter", "configs", "--topic", topic, "--set", "message.timestamp.after.max.ms=60000")
    assert (r.code, r.out) == (0, f"Completed updating config for topic {topic}.\n")
    assert bounds()["message.timestamp.after.max.ms"] == ("60000", "DYNAMIC_TOPIC_CONFIG", 60000)
    table = run_kcli(b, "describe", "configs", "--topic", topic)
    assert "more than 1m in the future" in table.out.replace("\n", " ")
    # The broker enforces what kcli explained: a record 2 minutes ahead is rejected.
    err = []
    p = Producer({"bootstrap.servers": b, "linger.ms": 0, "retries": 0})
    p.produce(topic, b"future", timestamp=int(time.time() * 1000) + 120_000,
              on_delivery=lambda e, _m: err.append(e))
    p.flush(10)
    assert err and err[0] is not None and err[0].name() == "INVALID_TIMESTAMP"
    r = run_kcli(b, "alter", "configs", "--topic", topic, "--delete", "message.timestamp.after.max.ms")
    assert r.code == 0
    assert bounds()["message.timestamp.after.max.ms"] == ("3600000", "DEFAULT_CONFIG", 3600000)


def test_topic_lifecycle(apache_kafka3):
    b = apache_kafka3.bootstrap_servers
    topic = unique("life")
    r = run_kcli(b, "create", "topic", topic, "--partitions", "2", "--replication-factor", "3",
                 "--config", "retention.ms=86400000")
    assert (r.code, r.out) == (0, f"Created topic {topic}.\n")
    r = run_kcli(b, "create", "topic", topic, "--partitions", "2")
    assert (r.code, r.err) == (1, f"Error: Topic '{topic}' already exists.\n")
    assert run_kcli(b, "create", "topic", topic, "--if-not-exists").code == 0
    r = run_kcli(b, "alter", "topic", topic, "--partitions", "4")
    assert r.code == 0, r.err
    java = java_tool("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic)
    assert java.out.splitlines()[0].split("\t")[2:4] == ["PartitionCount: 4", "ReplicationFactor: 3"]
    assert "retention.ms=86400000" in java.out.splitlines()[0]
    assert run_kcli(b, "-o", "plain", "describe", "topics", topic).out == java.out
    placed = unique("placed")
    r = run_kcli(b, "create", "topic", placed, "--replica-assignment", "1:2,2:3,3:1")
    assert r.code == 0, r.err
    java = java_tool("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", placed)
    assert [line.split("\t")[4] for line in java.out.splitlines()[1:]] == [
        "Replicas: 1,2", "Replicas: 2,3", "Replicas: 3,1"]
    for name in (topic, placed):
        r = run_kcli(b, "delete", "topic", name)
        assert r.code == 0, r.err
    r = java_tool("kafka-topics", "--bootstrap-server", b, "--list")
    assert topic not in r.out.split() and placed not in r.out.split()
    r = run_kcli(b, "delete", "topic", topic)
    assert (r.code, r.err) == (1, f"Error: Topic '{topic}' does not exist as expected\n")
    assert run_kcli(b, "delete", "topic", topic, "--if-exists").code == 0


def test_default_after_bound_is_enforced(apache_kafka):
    """The default bound kcli reports (1 h ahead) is the one the broker applies."""
    b = apache_kafka.bootstrap_servers
    topic = unique("future")
    create_topic(b, topic)
    with pytest.raises(AssertionError, match="INVALID_TIMESTAMP"):
        produce(b, topic, [(0, "x", int(time.time() * 1000) + 2 * HOUR)], retries=0)
    produce(b, topic, [(0, "x", int(time.time() * 1000) + HOUR // 2)])

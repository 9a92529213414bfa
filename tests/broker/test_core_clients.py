"""Real clients against the broker: confluent-kafka (librdkafka 2.16) Producer, Consumer
(assign + seek, no group) and AdminClient, and kcat (librdkafka 2.0.2, old API versions), on a
1-node and a 3-node cluster; node stop/start as clients see it."""

from __future__ import annotations

import json
import shutil
import subprocess
import time

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource,
                                   NewPartitions, NewTopic, OffsetSpec)
from tests.support.waits import wait_until

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


def admin(ec):
    return AdminClient({"bootstrap.servers": ec.bootstrap_servers})


def result(futures, timeout=15):
    return {k: f.result(timeout) for k, f in futures.items()}


def consume_all(ec, topic, partitions, expected, timeout_s=20, seek_to=None):
    c = Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": "unused",
                  "enable.auto.commit": False, "fetch.wait.max.ms": 100})
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        if seek_to is not None:
            wait_until(lambda: c.assignment(), 5)
            for p, offset in seek_to.items():
                wait_until(lambda: _try_seek(c, TopicPartition(topic, p, offset)), 10)
        got = []
        deadline = time.monotonic() + timeout_s
        while len(got) < expected and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            assert m.error() is None, m.error()
            got.append(m)
        return got
    finally:
        c.close()


def _try_seek(consumer, tp):
    try:
        consumer.seek(tp)
        return True
    except KafkaException:
        return False


@pytest.mark.parametrize("nodes", [1, 3])
def test_producer_all_codecs_idempotent_and_consumer(nodes, request):
    ec = request.getfixturevalue("broker1" if nodes == 1 else "broker3")
    a = admin(ec)      # keep the client alive until its futures resolve
    result(a.create_topics([NewTopic("codecs", 3, min(nodes, 2))]))
    sent = 0
    for codec in CODECS:
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "enable.idempotence": True,
                      "compression.type": codec, "linger.ms": 5})
        for i in range(40):
            p.produce("codecs", key=f"k{i % 7}", value=f"{codec}-{i}".encode() * 20,
                      headers=[("codec", codec.encode())])
        assert p.flush(15) == 0
        sent += 40
    msgs = consume_all(ec, "codecs", 3, sent)
    assert len(msgs) == sent
    assert {m.headers()[0][1].decode() for m in msgs} == set(CODECS)
    per_partition = {}
    for m in msgs:
        per_partition.setdefault(m.partition(), []).append(m.offset())
    for offsets in per_partition.values():
        assert offsets == list(range(len(offsets)))          # dense, in order
    # seek: re-read partition 0 from its middle
    half = len(per_partition[0]) // 2
    again = consume_all(ec, "codecs", 1, len(per_partition[0]) - half, seek_to={0: half})
    assert [m.offset() for m in again if m.partition() == 0][0] == half
    counts = ec.request_counts()
    assert sum(c.get("Produce", 0) for c in counts.values()) >= 5
    # one per producer (5), unless librdkafka asks again on its own timing: bounded
    assert 5 <= sum(c.get("InitProducerId", 0) for c in counts.values()) <= 10


def test_admin_topic_operations_and_messages(broker1):
    a = admin(broker1)
    result(a.create_topics([NewTopic("adm", 3, 1, config={"retention.ms": "1000"})]))
    with pytest.raises(KafkaException) as e:
        result(a.create_topics([NewTopic("adm", 1, 1)]))
    assert e.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS
    assert "Topic 'adm' already exists." in e.value.args[0].str()
    with pytest.raises(KafkaException) as e:
        result(a.create_partitions([NewPartitions("adm", 3)]))
    assert "Topic already has 3 partition(s)." in e.value.args[0].str()
    with pytest.raises(KafkaException) as e:
        result(a.create_partitions([NewPartitions("adm", 2)]))
    assert "The topic adm currently has 3 partition(s); 2 would not be an increase." \
        in e.value.args[0].str()
    with pytest.raises(KafkaException) as e:
        result(a.create_topics([NewTopic("rf", 1, 2)]))
    assert e.value.args[0].code() == KafkaError.INVALID_REPLICATION_FACTOR
    with pytest.raises(KafkaException) as e:
        result(a.create_topics([NewTopic("badcfg", 1, 1, config={"retention.ms": "x"})]))
    assert e.value.args[0].code() == KafkaError.INVALID_CONFIG
    result(a.create_topics([NewTopic("vonly", 1, 1)], validate_only=True))
    assert "vonly" not in a.list_topics(timeout=5).topics
    result(a.create_partitions([NewPartitions("adm", 5)]))
    assert len(a.list_topics(timeout=5).topics["adm"].partitions) == 5
    result(a.delete_topics(["adm"]))
    wait_until(lambda: "adm" not in a.list_topics(timeout=5).topics)


@pytest.mark.parametrize("pose_as, expected", [(None, ("1", 3)), ("2.8", ("1", 5))])
def test_new_cluster_sets_the_cluster_level_min_insync_replicas(tmp_path, pose_as, expected):
    """A new Kafka 4.1+ cluster (ELR on) writes min.insync.replicas as a cluster-level dynamic
    config (DYNAMIC_DEFAULT_BROKER_CONFIG, 3): kafka-topics --describe lists it on every topic.
    It stays after a restart; a broker posing as 2.8 has only the default (5)."""
    from kcli.broker import EmbeddedCluster

    def min_isr(ec):
        res, a = ConfigResource(ConfigResource.Type.TOPIC, "t"), admin(ec)
        entry = result(a.describe_configs([res]))[res]["min.insync.replicas"]
        return entry.value, entry.source

    with EmbeddedCluster(data_dir=tmp_path, pose_as=pose_as) as ec:
        ec.create_topic("t")
        assert min_isr(ec) == expected
    with EmbeddedCluster(data_dir=tmp_path, pose_as=pose_as) as ec:
        assert min_isr(ec) == expected


def test_admin_configs(broker1):
    a = admin(broker1)
    result(a.create_topics([NewTopic("cfg", 1, 1, config={
        "message.timestamp.before.max.ms": "3600000"})]))
    res = ConfigResource(ConfigResource.Type.TOPIC, "cfg")
    entries = result(a.describe_configs([res]))[res]
    before = entries["message.timestamp.before.max.ms"]
    assert before.value == "3600000"
    assert before.source == 1                                   # DYNAMIC_TOPIC_CONFIG
    assert [s.name for s in before.synonyms.values()][:2] == [
        "message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms"]
    for name in ("message.timestamp.after.max.ms", "message.timestamp.type", "cleanup.policy",
                 "retention.ms", "min.compaction.lag.ms", "segment.jitter.ms"):
        assert entries[name].source == 5, name                  # DEFAULT_CONFIG
    assert "message.timestamp.difference.max.ms" not in entries  # removed in Kafka 4.0
    # As in a new Kafka 4.4 cluster (ELR on): the cluster-level dynamic min.insync.replicas
    assert (entries["min.insync.replicas"].value, entries["min.insync.replicas"].source) == ("1", 3)
    assert entries["message.timestamp.after.max.ms"].value == "3600000"      # Kafka 4's default
    # incremental: set, append to a list, delete an override
    res = ConfigResource(ConfigResource.Type.TOPIC, "cfg", incremental_configs=[
        ConfigEntry("retention.ms", "5000", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND),
        ConfigEntry("message.timestamp.before.max.ms", None,
                    incremental_operation=AlterConfigOpType.DELETE)])
    result(a.incremental_alter_configs([res]))
    entries = result(a.describe_configs([ConfigResource("TOPIC", "cfg")]))
    entries = next(iter(entries.values()))
    assert entries["retention.ms"].value == "5000"
    assert entries["cleanup.policy"].value == "delete,compact"
    assert entries["message.timestamp.before.max.ms"].source == 5
    # broker level (librdkafka only addresses one node: a per-node dynamic config)
    broker_res = ConfigResource(ConfigResource.Type.BROKER, "1", incremental_configs=[
        ConfigEntry("log.message.timestamp.after.max.ms", "60000",
                    incremental_operation=AlterConfigOpType.SET)])
    result(a.incremental_alter_configs([broker_res]))
    entries = next(iter(result(a.describe_configs([ConfigResource("BROKER", "1")])).values()))
    after = entries["log.message.timestamp.after.max.ms"]
    assert after.value == "60000" and after.source == 2         # DYNAMIC_BROKER_CONFIG
    topic_entries = next(iter(result(a.describe_configs([ConfigResource("TOPIC", "cfg")]))
                              .values()))
    assert topic_entries["message.timestamp.after.max.ms"].value == "60000"
    assert topic_entries["message.timestamp.after.max.ms"].source == 2
    with pytest.raises(KafkaException):
        result(a.incremental_alter_configs([ConfigResource("TOPIC", "cfg", incremental_configs=[
            ConfigEntry("no.such.config", "1", incremental_operation=AlterConfigOpType.SET)])]))


def test_admin_list_offsets_and_delete_records(broker1):
    a = admin(broker1)
    result(a.create_topics([NewTopic("lo", 1, 1)]))
    p = Producer({"bootstrap.servers": broker1.bootstrap_servers, "linger.ms": 0})
    for ts in [1000, 5000, 3000, 5000, 2000]:
        p.produce("lo", value=b"x", partition=0, timestamp=ts)
        p.flush(10)
    tp = TopicPartition("lo", 0)

    def offsets(spec):
        return result(a.list_offsets({tp: spec}))[tp]

    assert offsets(OffsetSpec.earliest()).offset == 0
    assert offsets(OffsetSpec.latest()).offset == 5
    mx = offsets(OffsetSpec.max_timestamp())
    assert (mx.offset, mx.timestamp) == (1, 5000)
    assert offsets(OffsetSpec.for_timestamp(2500)).offset == 1
    assert offsets(OffsetSpec.for_timestamp(9999)).offset == -1
    deleted = result(a.delete_records([TopicPartition("lo", 0, 2)]))
    assert next(iter(deleted.values())).low_watermark == 2
    assert offsets(OffsetSpec.earliest()).offset == 2
    assert offsets(OffsetSpec.max_timestamp()).offset == 3


def test_node_stop_makes_partitions_leaderless(broker3):
    a = admin(broker3)
    result(a.create_topics([NewTopic("ha", 3, 2)]))
    leaders = {p.id: p.leader for p in a.list_topics(timeout=5).topics["ha"].partitions.values()}
    assert sorted(leaders.values()) == [1, 2, 3]
    victim = leaders[0]
    broker3.stop_node(victim)
    md = a.list_topics(timeout=10).topics["ha"].partitions
    assert md[0].leader == -1 and md[0].error.code() == KafkaError.LEADER_NOT_AVAILABLE
    assert victim not in md[0].isrs
    assert all(victim not in p.isrs for p in md.values())
    assert victim not in a.list_topics(timeout=10).brokers
    broker3.start_node(victim)
    md = wait_until(lambda: _leader_back(a, victim))
    assert md[0].leader == victim and victim in md[0].isrs


def _leader_back(a, node):
    md = a.list_topics(timeout=10).topics["ha"].partitions
    return md if md[0].leader == node else None


def test_wrong_node_gets_not_leader(broker3, wire):
    from tests.support.broker_wire import req
    broker3.create_topic("nl", partitions=1)
    leader = broker3.cluster.topics["nl"].partitions[0].leader
    other = next(n for n in (1, 2, 3) if n != leader)
    R = req(2, 7, replica_id=-1, isolation_level=0, topics=[])
    T = type(R).ListOffsetsTopic
    R.topics = [T(name="nl", partitions=[T.ListOffsetsPartition(
        partition_index=0, current_leader_epoch=-1, timestamp=-1)])]
    assert wire(broker3, other).send(R).topics[0].partitions[0].error_code == 6
    assert wire(broker3, leader).send(R).topics[0].partitions[0].error_code == 0


KCAT = shutil.which("kcat")


@pytest.mark.kcat
@pytest.mark.parametrize("nodes", [1, 3])
def test_kcat_metadata_produce_consume(nodes, request):
    assert KCAT, "kcat is part of the project's test setup"
    ec = request.getfixturevalue("broker1" if nodes == 1 else "broker3")
    ec.create_topic("kc", partitions=3, replication_factor=min(nodes, 3))
    run = lambda *args, stdin=None: subprocess.run(  # noqa: E731
        [KCAT, "-b", ec.bootstrap_servers, *args], input=stdin, capture_output=True, text=True,
        timeout=30, check=True)
    md = json.loads(run("-L", "-J").stdout)
    assert sorted(b["id"] for b in md["brokers"]) == list(range(1, nodes + 1))
    (topic,) = [t for t in md["topics"] if t["topic"] == "kc"]
    assert len(topic["partitions"]) == 3
    assert all(len(p["isrs"]) == min(nodes, 3) for p in topic["partitions"])
    run("-P", "-t", "kc", "-p", "1", "-z", "zstd", stdin="a\nb\nc\n")
    out = run("-C", "-t", "kc", "-p", "1", "-o", "beginning", "-e", "-f", "%o:%s\n").stdout
    assert out.split() == ["0:a", "1:b", "2:c"]
    versions = ec.request_counts()
    assert any("Produce" in c for c in versions.values())


def test_delete_records_frees_the_log_file_and_survives_a_restart(tmp_path):
    """DeleteRecords drops the batches below the new log start offset from the partition's file
    too (rewritten from the batch holding it), and a restart reads the rest back from there."""
    from kcli.broker import EmbeddedCluster

    with EmbeddedCluster(data_dir=tmp_path) as ec:
        ec.create_topic("freed")
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "linger.ms": 0})
        for i in range(50):
            p.produce("freed", value=b"%02d" % i + b"x" * 998, partition=0)
            p.flush(10)                              # one batch per record
        [log] = (tmp_path / "logs").glob("*-0.log")
        full = log.stat().st_size
        a = admin(ec)                                # held: a collected client never answers
        deleted = result(a.delete_records([TopicPartition("freed", 0, 45)]))
        assert next(iter(deleted.values())).low_watermark == 45
        assert log.stat().st_size * 9 < full                 # 5 of 50 batches are left
    from kcli.broker.log import PartitionLog

    # a crash after the file was rewritten and before the metadata was saved: the file says it
    unsaved = PartitionLog(log, log_start_offset=0)
    assert (unsaved.log_start_offset, unsaved.log_end_offset) == (45, 50)
    unsaved.close()
    with EmbeddedCluster(data_dir=tmp_path) as ec:
        c = Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": "unused"})
        assert c.get_watermark_offsets(TopicPartition("freed", 0), timeout=10) == (45, 50)
        c.close()
        got = consume_all(ec, "freed", 1, 5, seek_to={0: 45})
        assert [(m.offset(), m.value()[:2]) for m in got] == [(i, b"%02d" % i) for i in range(45, 50)]

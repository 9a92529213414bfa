"""Transactions end to end with confluent-kafka (librdkafka), on the embedded broker and on
Apache Kafka 4.4 alike (each test on both): the transactional producer's commit, abort, fencing
and timeout; read_committed and read_uncommitted consumers; send_offsets_to_transaction;
ListOffsets by isolation level."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from confluent_kafka import (Consumer, IsolationLevel, KafkaError, KafkaException, Producer,
                             TopicPartition)
from confluent_kafka.admin import AdminClient, OffsetSpec
from tests.support.clients import create_topic, unique
from tests.support.waits import wait_until

from kcli.broker import EmbeddedCluster


def producer(ec, txn_id, **extra):
    return Producer({"bootstrap.servers": ec.bootstrap_servers, "transactional.id": txn_id,
                     "linger.ms": 5, **extra})


def read(ec, topic, partitions, isolation, expect, timeout_s=15.0):
    """The values a consumer reads from the start of ``topic`` until it has read ``expect``
    records and then nothing more for half a second after a Fetch answered every partition
    (bounded by ``timeout_s``)."""
    c = Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": unique("reader"),
                  "enable.auto.commit": False, "isolation.level": isolation,
                  "fetch.wait.max.ms": 100})
    tps = [TopicPartition(topic, p, 0) for p in range(partitions)]

    def fetched() -> bool:       # librdkafka caches each partition's watermarks from its Fetch
        return all(c.get_watermark_offsets(tp, cached=True)[1] >= 0 for tp in tps)

    try:
        c.assign(tps)
        got: list[str] = []
        deadline = time.monotonic() + timeout_s
        quiet_until = None
        while time.monotonic() < deadline:
            m = c.poll(0.1)
            if m is None:
                if len(got) >= expect and fetched():
                    quiet_until = quiet_until or time.monotonic() + 0.5
                    if time.monotonic() > quiet_until:
                        break
                continue
            assert m.error() is None, m.error()
            got.append(m.value().decode())
        return got
    finally:
        c.close()


def send(p, topic, values, partitions=2):
    for i, v in enumerate(values):
        p.produce(topic, v.encode(), partition=i % partitions)
    p.flush(10)


@dataclass
class Target:
    bootstrap_servers: str
    topic: str                  # two partitions, this test's own
    txn: str                    # a prefix for this test's transactional ids and groups


@pytest.fixture(params=["embedded", "apache_kafka"])
def cluster(request):
    name = unique("t")
    if request.param == "apache_kafka":
        b = request.getfixturevalue("apache_kafka").bootstrap_servers
        create_topic(b, name, 2)
        yield Target(b, name, unique("tx"))
        return
    with EmbeddedCluster(nodes=1) as ec:
        ec.create_topic(name, partitions=2)
        yield Target(ec.bootstrap_servers, name, unique("tx"))


@pytest.fixture
def cluster3():
    """Three nodes: the transaction's coordinator, its group's and its partitions' leaders differ."""
    with EmbeddedCluster(nodes=3) as ec:
        name = unique("t")
        ec.create_topic(name, partitions=2)
        yield Target(ec.bootstrap_servers, name, unique("tx"))


def test_commit_and_abort_read_committed_sees_only_committed(cluster):
    commit_and_abort(cluster)


def test_commit_and_abort_across_three_nodes(cluster3):
    commit_and_abort(cluster3)


def commit_and_abort(cluster):
    p = producer(cluster, cluster.txn + "-tx-1")
    p.init_transactions(15)
    p.begin_transaction()
    send(p, cluster.topic, ["c1", "c2", "c3"])
    p.commit_transaction(15)
    p.begin_transaction()
    send(p, cluster.topic, ["a1", "a2"])
    p.abort_transaction(15)
    p.begin_transaction()
    send(p, cluster.topic, ["c4"])
    p.commit_transaction(15)

    assert sorted(read(cluster, cluster.topic, 2, "read_committed", 4)) == ["c1", "c2", "c3", "c4"]
    assert sorted(read(cluster, cluster.topic, 2, "read_uncommitted", 6)) == [
        "a1", "a2", "c1", "c2", "c3", "c4"]


def test_open_transaction_holds_the_last_stable_offset(cluster):
    p = producer(cluster, cluster.txn + "-tx-open")
    p.init_transactions(15)
    p.begin_transaction()
    send(p, cluster.topic, ["open1", "open2"])            # one record on each partition, not committed
    a = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    tps = [TopicPartition(cluster.topic, i) for i in range(2)]

    def ends(level):
        futures = a.list_offsets({tp: OffsetSpec.latest() for tp in tps}, isolation_level=level)
        return sorted(f.result(10).offset for f in futures.values())

    assert ends(IsolationLevel.READ_UNCOMMITTED) == [1, 1]
    assert ends(IsolationLevel.READ_COMMITTED) == [0, 0]
    assert read(cluster, cluster.topic, 2, "read_committed", 0, timeout_s=3) == []
    p.commit_transaction(15)
    # the records and the markers (Kafka writes the markers after EndTxn answers)
    wait_until(lambda: ends(IsolationLevel.READ_COMMITTED) == [2, 2], 20, 0.1, "the commit markers")
    assert sorted(read(cluster, cluster.topic, 2, "read_committed", 2)) == ["open1", "open2"]


def test_second_producer_fences_the_first(cluster):
    first = producer(cluster, cluster.txn + "-tx-fence")
    first.init_transactions(15)
    first.begin_transaction()
    send(first, cluster.topic, ["zombie"])
    second = producer(cluster, cluster.txn + "-tx-fence")
    second.init_transactions(15)                # aborts the first one's transaction
    with pytest.raises(KafkaException) as raised:
        first.produce(cluster.topic, b"late", partition=0)
        first.flush(10)
        first.commit_transaction(10)
    err = raised.value.args[0]
    assert err.fatal(), err
    assert err.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                          KafkaError.INVALID_PRODUCER_EPOCH), err
    second.begin_transaction()
    send(second, cluster.topic, ["fresh"])
    second.commit_transaction(15)
    assert read(cluster, cluster.topic, 2, "read_committed", 1) == ["fresh"]


def test_transaction_timeout_aborts(cluster):
    p = producer(cluster, cluster.txn + "-tx-slow", **{"transaction.timeout.ms": 2000})
    p.init_transactions(15)
    p.begin_transaction()
    send(p, cluster.topic, ["expired"])
    a = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    tp = TopicPartition(cluster.topic, 0)

    def stable_end():
        f = a.list_offsets({tp: OffsetSpec.latest()}, isolation_level=IsolationLevel.READ_COMMITTED)
        return f[tp].result(10).offset

    assert stable_end() == 0
    wait_until(lambda: stable_end() == 2, 20, 0.2, "the timed-out transaction's abort marker")
    with pytest.raises(KafkaException):
        p.commit_transaction(10)
    assert read(cluster, cluster.topic, 2, "read_committed", 0, timeout_s=3) == []
    assert read(cluster, cluster.topic, 2, "read_uncommitted", 1) == ["expired"]


def test_send_offsets_to_transaction_commits_them_with_it(cluster):
    group = cluster.txn + "-group"
    c = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": group,
                  "enable.auto.commit": False})
    try:
        c.assign([TopicPartition(cluster.topic, 0, 0)])
        p = producer(cluster, cluster.txn + "-tx-offsets")
        p.init_transactions(15)
        offsets = [TopicPartition(cluster.topic, 0, 7), TopicPartition(cluster.topic, 1, 3)]

        p.begin_transaction()
        p.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), 15)
        p.abort_transaction(15)
        tps = [TopicPartition(cluster.topic, 0), TopicPartition(cluster.topic, 1)]
        assert [tp.offset for tp in c.committed(tps, 10)] == [-1001, -1001]      # aborted: nothing committed

        p.begin_transaction()
        p.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), 15)
        p.commit_transaction(15)
        # visible once the commit markers are written (on Kafka, after EndTxn answers)
        wait_until(lambda: [tp.offset for tp in c.committed(tps, 10)] == [7, 3], 20, 0.1, "the committed offsets")
    finally:
        c.close()

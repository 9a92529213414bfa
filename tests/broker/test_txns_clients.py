"""Transactions on the embedded broker, end to end with confluent-kafka (librdkafka): the
transactional producer's commit, abort, fencing and timeout; read_committed and read_uncommitted
consumers; send_offsets_to_transaction; ListOffsets by isolation level."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import (Consumer, IsolationLevel, KafkaError, KafkaException, Producer,
                             TopicPartition)
from confluent_kafka.admin import AdminClient, OffsetSpec
from tests.support.waits import wait_until

from kcli.broker import EmbeddedCluster


def producer(ec, txn_id, **extra):
    return Producer({"bootstrap.servers": ec.bootstrap_servers, "transactional.id": txn_id,
                     "linger.ms": 5, **extra})


def read(ec, topic, partitions, isolation, expect, timeout_s=15.0):
    """The values a consumer reads from the start of ``topic`` until it has read ``expect``
    records and then nothing more for half a second after a Fetch answered every partition
    (bounded by ``timeout_s``)."""
    c = Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": "reader",
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


@pytest.fixture
def cluster():
    with EmbeddedCluster(nodes=1) as ec:
        ec.create_topic("t", partitions=2)
        yield ec


@pytest.fixture
def cluster3():
    """Three nodes: the transaction's coordinator, its group's and its partitions' leaders differ."""
    with EmbeddedCluster(nodes=3) as ec:
        ec.create_topic("t", partitions=2)
        yield ec


@pytest.mark.parametrize("nodes", [1, 3])
def test_commit_and_abort_read_committed_sees_only_committed(nodes, request):
    cluster = request.getfixturevalue("cluster" if nodes == 1 else "cluster3")
    p = producer(cluster, "tx-1")
    p.init_transactions(15)
    p.begin_transaction()
    send(p, "t", ["c1", "c2", "c3"])
    p.commit_transaction(15)
    p.begin_transaction()
    send(p, "t", ["a1", "a2"])
    p.abort_transaction(15)
    p.begin_transaction()
    send(p, "t", ["c4"])
    p.commit_transaction(15)

    assert sorted(read(cluster, "t", 2, "read_committed", 4)) == ["c1", "c2", "c3", "c4"]
    assert sorted(read(cluster, "t", 2, "read_uncommitted", 6)) == [
        "a1", "a2", "c1", "c2", "c3", "c4"]


def test_open_transaction_holds_the_last_stable_offset(cluster):
    p = producer(cluster, "tx-open")
    p.init_transactions(15)
    p.begin_transaction()
    send(p, "t", ["open1", "open2"])            # one record on each partition, not committed
    a = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    tps = [TopicPartition("t", i) for i in range(2)]

    def ends(level):
        futures = a.list_offsets({tp: OffsetSpec.latest() for tp in tps}, isolation_level=level)
        return sorted(f.result(10).offset for f in futures.values())

    assert ends(IsolationLevel.READ_UNCOMMITTED) == [1, 1]
    assert ends(IsolationLevel.READ_COMMITTED) == [0, 0]
    assert read(cluster, "t", 2, "read_committed", 0, timeout_s=3) == []
    p.commit_transaction(15)
    assert ends(IsolationLevel.READ_COMMITTED) == [2, 2]       # the records and the markers
    assert sorted(read(cluster, "t", 2, "read_committed", 2)) == ["open1", "open2"]


def test_second_producer_fences_the_first(cluster):
    first = producer(cluster, "tx-fence")
    first.init_transactions(15)
    first.begin_transaction()
    send(first, "t", ["zombie"])
    second = producer(cluster, "tx-fence")
    second.init_transactions(15)                # aborts the first one's transaction
    with pytest.raises(KafkaException) as raised:
        first.produce("t", b"late", partition=0)
        first.flush(10)
        first.commit_transaction(10)
    err = raised.value.args[0]
    assert err.fatal(), err
    assert err.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                          KafkaError.INVALID_PRODUCER_EPOCH), err
    second.begin_transaction()
    send(second, "t", ["fresh"])
    second.commit_transaction(15)
    assert read(cluster, "t", 2, "read_committed", 1) == ["fresh"]


def test_transaction_timeout_aborts(cluster):
    p = producer(cluster, "tx-slow", **{"transaction.timeout.ms": 2000})
    p.init_transactions(15)
    p.begin_transaction()
    send(p, "t", ["expired"])
    a = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    tp = TopicPartition("t", 0)

    def stable_end():
        f = a.list_offsets({tp: OffsetSpec.latest()}, isolation_level=IsolationLevel.READ_COMMITTED)
        return f[tp].result(10).offset

    assert stable_end() == 0
    wait_until(lambda: stable_end() == 2, 20, 0.2, "the timed-out transaction's abort marker")
    with pytest.raises(KafkaException):
        p.commit_transaction(10)
    assert read(cluster, "t", 2, "read_committed", 0, timeout_s=3) == []
    assert read(cluster, "t", 2, "read_uncommitted", 1) == ["expired"]


def test_send_offsets_to_transaction_commits_them_with_it(cluster):
    group = "txn-group"
    c = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": group,
                  "enable.auto.commit": False})
    try:
        c.assign([TopicPartition("t", 0, 0)])
        p = producer(cluster, "tx-offsets")
        p.init_transactions(15)
        offsets = [TopicPartition("t", 0, 7), TopicPartition("t", 1, 3)]

        p.begin_transaction()
        p.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), 15)
        p.abort_transaction(15)
        assert [tp.offset for tp in c.committed([TopicPartition("t", 0), TopicPartition("t", 1)], 10)] \
            == [-1001, -1001]                   # aborted: nothing committed

        p.begin_transaction()
        p.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), 15)
        p.commit_transaction(15)
        assert [tp.offset for tp in c.committed([TopicPartition("t", 0), TopicPartition("t", 1)], 10)] \
            == [7, 3]
    finally:
        c.close()

"""Producers killed mid-transaction, in a subprocess (SIGKILL): ``killed(...)`` runs ``python -m
tests.support.hanging_producer MODE BOOTSTRAP TOPIC PARTITION TRANSACTIONAL_ID COUNT [TIMESTAMP]``.

MODE ``open``: confluent-kafka's transactional producer (init, begin, COUNT records, flushed),
killed before it ends the transaction: its coordinator counts the partition in it and aborts it
at its timeout (``transaction.timeout.ms`` 15 minutes here): until then it holds the partition's
LSO. MODE ``hanging``: a producer that leaves a hanging transaction behind.

It does what a transactional producer did before KIP-890 when its AddPartitionsToTxn was lost
(KAFKA-12671): InitProducerId for the transactional id at its coordinator, then a Produce of one
transactional batch of COUNT records straight to the partition's leader, without adding the
partition to the transaction. It prints ``ready <producer id> <epoch> <base offset>`` and waits
to be killed (SIGKILL). The coordinator never learns of the partition, so it never writes the
marker that would end the transaction there: the partition's LSO stays at the batch's offset
until an abort marker is written (kafka-transactions abort). A broker verifying transactional
produce (``transaction.partition.verification.enable``, Kafka 3.6+'s default) refuses the batch
(INVALID_TXN_STATE): the cluster under test turns verification off, as older brokers were.
Raw frames over ``tests.support.broker_wire``; 127.0.0.1 only."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time

from kafka.record import MemoryRecordsBuilder

from kcli.protocol import REQUESTS
from tests.support.broker_wire import Wire

METADATA, PRODUCE, FIND_COORDINATOR, INIT_PRODUCER_ID = 3, 0, 10, 22
# COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, CONCURRENT_TRANSACTIONS
RETRIABLE = (14, 15, 16, 51)


def _address(host_port: str) -> tuple[str, int]:
    host, _, port = host_port.rpartition(":")
    return host, int(port)


def killed(mode: str, bootstrap: str, topic: str, partition: int, transactional_id: str, count: int,
           timestamp_ms: int | None = None) -> tuple[int, int, int]:
    """A producer of ``mode`` run until its records are written, then killed with SIGKILL:
    (producer id, epoch, the first offset of its open transaction)."""
    args = [sys.executable, "-m", "tests.support.hanging_producer", mode, bootstrap, topic, str(partition),
            transactional_id, str(count), str(timestamp_ms or int(time.time() * 1000))]
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            line = proc.stdout.readline()        # the child prints at once or dies (its timeouts)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            proc.stdout.close()
        log.seek(0)
        err = log.read()
    words = line.split()
    assert words[:1] == ["ready"], f"{mode} producer ended without writing: {line!r} {err[-2000:]}"
    return int(words[1]), int(words[2]), int(words[3])


def open_transaction(bootstrap: str, topic: str, partition: int, transactional_id: str, count: int,
                     timestamp_ms: int) -> tuple[int, int, int]:
    """confluent-kafka's transactional producer, its transaction left open: (-1, -1, the
    partition's LSO, its start offset when it is the partition's first open one)."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "linger.ms": 0,
                  "transaction.timeout.ms": 900_000})
    p.init_transactions(60)
    p.begin_transaction()
    for i in range(count):
        p.produce(topic, f"open-{i}".encode(), partition=partition, timestamp=timestamp_ms)
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "isolation.level": "read_committed"})
    lso = c.get_watermark_offsets(TopicPartition(topic, partition), 10)[1]     # read_committed: the LSO
    c.close()
    return -1, -1, lso                           # producer id and epoch: kcli's tools tell them


def start(bootstrap: str, topic: str, partition: int, transactional_id: str, count: int,
          timestamp_ms: int) -> tuple[int, int, int]:
    """The hanging batch written: (producer id, epoch, base offset)."""
    first = Wire(_address(bootstrap.split(",")[0]))
    meta = first.send(REQUESTS[METADATA](version=9, topics=[REQUESTS[METADATA].MetadataRequestTopic(name=topic)],
                                         allow_auto_topic_creation=False, include_topic_authorized_operations=False))
    brokers = {b.node_id: (b.host, b.port) for b in meta.brokers}
    leader = next(p.leader_id for t in meta.topics for p in t.partitions if p.partition_index == partition)
    init = None
    for _ in range(150):                         # a fresh cluster's transaction log may be loading: bounded
        found = first.send(REQUESTS[FIND_COORDINATOR](version=4, key_type=1, coordinator_keys=[transactional_id]))
        coordinator = found.coordinators[0]
        if coordinator.error_code == 0:
            c = Wire(brokers[coordinator.node_id])
            init = c.send(REQUESTS[INIT_PRODUCER_ID](version=4, transactional_id=transactional_id,
                                                     transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1))
            c.close()
            if init.error_code not in RETRIABLE:
                break
        elif coordinator.error_code not in RETRIABLE:
            raise AssertionError(coordinator)
        time.sleep(0.2)
    first.close()
    assert init is not None, "no transaction coordinator within 30 s"
    assert init.error_code == 0, init
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 20, transactional=True,
                                   producer_id=init.producer_id, producer_epoch=init.producer_epoch, base_sequence=0)
    for i in range(count):
        builder.append(timestamp_ms, None, f"hanging-{i}".encode())
    builder.close()
    Req = REQUESTS[PRODUCE]
    T = Req.TopicProduceData
    w = Wire(brokers[leader])
    resp = w.send(Req(version=9, transactional_id=transactional_id, acks=-1, timeout_ms=30_000, topic_data=[
        T(name=topic, partition_data=[T.PartitionProduceData(index=partition, records=bytes(builder.buffer()))])]))
    w.close()
    p = resp.responses[0].partition_responses[0]
    assert p.error_code == 0, p
    return init.producer_id, init.producer_epoch, p.base_offset


if __name__ == "__main__":
    mode, b, t, part, tid, n, ts = sys.argv[1:8]
    pid, epoch, offset = (start if mode == "hanging" else open_transaction)(b, t, int(part), tid, int(n), int(ts))
    print(f"ready {pid} {epoch} {offset}", flush=True)
    time.sleep(600)                              # killed long before

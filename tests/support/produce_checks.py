"""Produce validation, the same for any broker: raw Produce requests whose partition answers
(error code, message, KIP-467 record errors, log start offset) real Kafka and the embedded broker
must give alike, and the equivalent of librdkafka's regression test 0011
``test_message_single_partition_record_fail`` with confluent-kafka.

``run_cases`` creates its topics (names from ``suffix``, so a shared cluster can run it again)
and returns one comparable answer per case; a timestamp-bound pair in a message depends on the
broker's clock and is replaced by ``[bounds]``.
"""

from __future__ import annotations

import collections
import re
import socket
import struct
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource,
                                   NewTopic)
from kafka.record import MemoryRecordsBuilder
from kafka.record.util import calc_crc32c

from kcli.protocol import REQUESTS, RESPONSES

TOPICS = {
    "plain": {},
    "compacted": {"cleanup.policy": "compact"},
    "compact-delete": {"cleanup.policy": "compact,delete"},
    "bounded": {"message.timestamp.before.max.ms": "1000",
                "message.timestamp.after.max.ms": "500"},
    "bounded-compacted": {"cleanup.policy": "compact", "message.timestamp.before.max.ms": "1000",
                          "message.timestamp.after.max.ms": "500"},
    "log-append": {"message.timestamp.type": "LogAppendTime"},
    "log-append-compacted": {"message.timestamp.type": "LogAppendTime",
                             "cleanup.policy": "compact"},
    "small": {"max.message.bytes": "100"},
    "min-isr-2": {"min.insync.replicas": "2"},
}
_ATTRIBUTES, _CRC, _LENGTH, _MAX_TS, _LAST_DELTA, _COUNT, _PRODUCER = 21, 17, 8, 35, 23, 57, 43


def batch(records, codec: int = 0, fix=None) -> bytes:
    """A v2 batch of (timestamp, key, value); ``fix(bytearray)`` edits it, after which the
    length and CRC are recomputed (so the edit, not the CRC, is what a broker sees)."""
    builder = MemoryRecordsBuilder(magic=2, compression_type=codec, batch_size=1 << 20)
    for ts, key, value in records:
        builder.append(ts, key, value)
    builder.close()
    data = bytearray(builder.buffer())
    if fix is None:
        return bytes(data)
    edited = fix(data)
    if isinstance(edited, bytearray):              # an edit that made a new buffer
        data = edited
    struct.pack_into(">i", data, _LENGTH, len(data) - 12)
    struct.pack_into(">I", data, _CRC, calc_crc32c(bytes(data[_ATTRIBUTES:])))
    return bytes(data)


def _set(fmt: str, at: int, *values):
    return lambda d: struct.pack_into(fmt, d, at, *values)


def cases(now: int) -> list[tuple[str, str, bytes]]:
    """(name, topic key, records) in the order they are sent."""
    two = [(now, b"k0", b"v0"), (now, b"k1", b"v1")]
    keyless_mix = [(now, b"k0", b"v0"), (now, None, b"v1"), (now, b"k2", b"v2"), (now, None, b"v3")]
    good = batch(two)
    return [
        # KIP-467 record errors: a key on a compacted topic, KIP-937 timestamps, both
        ("keyed and keyless", "compacted", batch(keyless_mix)),
        ("five keyless, gzip", "compacted", batch([(now, None, b"v")] * 5, codec=1)),
        ("empty key", "compacted", batch([(now, b"", b"v")])),
        ("keyed", "compacted", batch(two)),
        ("keyless, compact,delete", "compact-delete", batch([(now, None, b"v")])),
        ("two out of range", "bounded", batch([(now, None, b"a"), (now + 100_000, None, b"b"),
                                               (now, None, b"c"), (now - 100_000, None, b"d")])),
        ("no timestamp", "bounded", batch([(-1, None, b"a")])),
        # the default bounds (after 1 h, before unbounded): one record 2 h ahead fails the batch
        ("one record beyond the default after-bound", "plain",
         batch([(now, b"k", b"a"), (now + 7_200_000, b"k", b"b"), (now, b"k", b"c")])),
        ("within the default after-bound", "plain", batch([(now + 3_000_000, b"k", b"a")])),
        ("keyless and out of range", "bounded-compacted",
         batch([(now + 100_000, None, b"a"), (now + 100_000, b"k", b"b"), (now, None, b"c")])),
        ("keyless, in range", "bounded-compacted", batch([(now, None, b"a")])),
        ("keyless, LogAppendTime topic", "log-append-compacted", batch([(now, None, b"a")])),
        # a producer's LogAppendTime batch
        ("LogAppendTime batch", "plain", batch(two, fix=_set(">h", _ATTRIBUTES, 0x08))),
        ("LogAppendTime batch, no time", "plain",
         batch(two, fix=lambda d: (_set(">h", _ATTRIBUTES, 0x08)(d), _set(">q", _MAX_TS, -1)(d)))),
        ("LogAppendTime batch to a LogAppendTime topic", "log-append",
         batch([(now, b"k", b"a"), (now, None, b"bb")], fix=_set(">h", _ATTRIBUTES, 0x08))),
        ("LogAppendTime batch out of range", "bounded",
         batch(two, fix=lambda d: (_set(">h", _ATTRIBUTES, 0x08)(d),
                                   _set(">q", _MAX_TS, now + 100_000)(d)))),
        # the request's structure, the batch as stored, its header
        ("no records", "plain", b""),
        ("truncated batch", "plain", good[:-3]),
        ("CRC mismatch", "plain", good[:-1] + bytes([good[-1] ^ 1])),
        ("two batches", "plain", good + good),
        ("bytes after the batch", "plain", good + b"\x00\x01\x02"),
        ("magic 1", "plain", good[:16] + b"\x01" + good[17:]),
        ("too large", "small", batch([(now, b"k", b"v" * 200)])),
        ("ISR below min.insync.replicas", "min-isr-2", good),
        ("count 3 of 2", "plain", batch(two, fix=_set(">i", _COUNT, 3))),
        ("count 0", "plain", batch(two, fix=lambda d: (_set(">i", _LAST_DELTA, -1)(d),
                                                       _set(">i", _COUNT, 0)(d)))),
        ("base offset 5", "plain", batch(two, fix=_set(">q", 0, 5))),
        ("control batch", "plain", batch(two, fix=_set(">h", _ATTRIBUTES, 0x20))),
        ("producer id, sequence -1", "plain", batch(two, fix=_set(">qhi", _PRODUCER, 7, 0, -1))),
        ("codec 5", "plain", batch(two, fix=_set(">h", _ATTRIBUTES, 5))),
        # records that do not decode, where Kafka's record rules read them (a compacted topic)
        ("gzip payload corrupt", "compacted",
         batch(two, codec=1, fix=lambda d: d.__setitem__(-20, d[-20] ^ 0xFF))),
        ("record length wrong", "compacted", batch(two, fix=lambda d: d.__setitem__(61, 0x7F))),
        ("bytes after the records", "compacted", batch(two, fix=lambda d: d + b"\x00\x00")),
        ("records cut short", "compacted", batch(two, fix=lambda d: d[:-2])),
        ("more records counted", "compacted", batch(two, fix=lambda d: (
            _set(">i", _LAST_DELTA, 2)(d), _set(">i", _COUNT, 3)(d)))),
        ("header count -1", "compacted",
         batch([(now, b"k", b"v")], fix=lambda d: d.__setitem__(-1, 0x01))),
    ]


def create_topics(bootstrap: str, suffix: str) -> None:
    """The TOPICS, each with a leader in the metadata (a new topic's first produce to Kafka can
    otherwise meet NOT_LEADER_OR_FOLLOWER)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    names = [t + suffix for t in TOPICS]
    futures = admin.create_topics([NewTopic(t + suffix, 1, 1, config=c)
                                   for t, c in TOPICS.items()], operation_timeout=15)
    for f in futures.values():
        f.result(30)
    deadline = time.monotonic() + 30
    for _ in range(300):                                   # bounded: 30 s of 0.1 s waits
        topics = admin.list_topics(timeout=5).topics
        if all(n in topics and topics[n].partitions and topics[n].partitions[0].leader >= 0
               for n in names):
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    raise AssertionError(f"topics {names} without leaders after 30 s")


def _produce(sock: socket.socket, topic: str, records: bytes, correlation_id: int):
    request = REQUESTS[0](version=12, transactional_id=None, acks=-1, timeout_ms=5000,
                          topic_data=[])
    T = type(request).TopicProduceData
    request.topic_data = [T(name=topic, partition_data=[T.PartitionProduceData(index=0,
                                                                               records=records)])]
    request.with_header(correlation_id=correlation_id, client_id="produce-checks")
    sock.sendall(request.encode(header=True, framed=True))
    size = struct.unpack(">i", _read(sock, 4))[0]
    response = RESPONSES[0].decode(_read(sock, size), version=12, header=True)
    return response.responses[0].partition_responses[0]


def _read(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        buf += chunk
    return buf


_BOUNDS = re.compile(r"\[-?\d+, -?\d+\]")
_EPOCH_MS = re.compile(r"\b1\d{12}\b")


def run_cases(bootstrap: str, suffix: str) -> dict[str, tuple]:
    """{case: (error code, message, log start offset, base offset, [(index, message)])}, and
    under "stored in plain" what the "plain" topic holds afterwards: (offset, timestamp type,
    timestamp relative to now, key) of each record, as a consumer reads them."""
    create_topics(bootstrap, suffix)
    now = int(time.time() * 1000)
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    out = {}
    with socket.create_connection((host.strip("[]"), int(port)), timeout=15) as sock:
        correlation_id = 0
        for name, topic, records in cases(now):
            for _ in range(100):       # a new topic's leader may not lead yet: Kafka answers
                correlation_id += 1    # NOT_LEADER_OR_FOLLOWER (retriable, nothing appended)
                p = _produce(sock, topic + suffix, records, correlation_id)
                if p.error_code != 6:
                    break
                time.sleep(0.1)
            def norm(m: str | None) -> str | None:     # times as sent, relative to now
                return m and _EPOCH_MS.sub(lambda t: f"now{int(t[0]) - now:+d}",
                                           _BOUNDS.sub("[bounds]", m))
            out[name] = (p.error_code, norm(p.error_message), p.log_start_offset, p.base_offset,
                         [(e.batch_index, norm(e.batch_index_error_message))
                          for e in p.record_errors])
    stored = read_all(bootstrap, "plain" + suffix)
    out["stored in plain"] = [(m.offset(), m.timestamp()[0], m.timestamp()[1] - now, m.key())
                              for m in stored]
    return out


def read_all(bootstrap: str, topic: str, timeout_s: float = 20) -> list:
    """Every record of partition 0, read with a confluent-kafka consumer."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "produce-checks",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    out = []
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + timeout_s
        for _ in range(10_000):                        # bounded in count and time
            m = consumer.poll(0.2)
            if m is not None and m.error() is not None:
                if m.error().code() == KafkaError._PARTITION_EOF:
                    return out
                raise AssertionError(f"reading {topic}: {m.error()}")
            if m is not None:
                out.append(m)
            if time.monotonic() > deadline:
                break
        raise AssertionError(f"{topic} not read to its end within {timeout_s}s")
    finally:
        consumer.close()


def kafka_python_errors(bootstrap: str, topic: str) -> list[str]:
    """What kafka-python's producer reports for a batch of four records to the compacted
    ``topic`` (from ``run_cases``), keyless and keyed in turn: one line per record."""
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=200, retries=0)
    try:
        futures = [producer.send(topic, key=None if i % 2 == 0 else b"k", value=b"v%d" % i,
                                 partition=0) for i in range(4)]
        producer.flush(20)
        lines = []
        for f in futures:
            try:
                lines.append(f"delivered at {f.get(5).offset}")
            except Exception as e:  # noqa: BLE001 - the delivery error is the result
                lines.append(f"{type(e).__name__}: {e}")
        return lines
    finally:
        producer.close(5)


def record_fail_0011(bootstrap: str, topic: str) -> dict[int, dict]:
    """librdkafka's 0011 ``test_message_single_partition_record_fail``: a topic made compacted
    with IncrementalAlterConfigs APPEND, then 100 messages to partition 0, every tenth without a
    key; variation 0 sends them in one batch, variation 1 one per batch (batch.size=1). Returns
    {variation: {"errors": Counter of delivery error names (None: delivered), "failed keyless":
    indexes of the keyless messages that failed with INVALID_RECORD, "stored": the values the
    topic holds afterwards}}."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)], operation_timeout=15)[topic].result(30)
    resource = ConfigResource("topic", topic, incremental_configs=[ConfigEntry(
        "cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND)])
    admin.incremental_alter_configs([resource])[resource].result(30)
    time.sleep(1)             # as 0011 does: every broker has the new config
    out = {}
    for variation, config in ((0, {"linger.ms": 1000}), (1, {"batch.size": 1})):
        results: list[tuple[int, object]] = []
        producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 20000,
                             **config})
        for i in range(100):
            payload = f"0011-produce_batch.c:record_fail test message #{i}".encode()
            producer.produce(topic, value=payload, key=None if i % 10 == 0 else payload,
                             partition=0,
                             on_delivery=lambda err, _m, i=i: results.append((i, err)))
        remaining = producer.flush(30)
        assert remaining == 0, f"{remaining} messages without a delivery report"
        out[variation] = {
            "errors": collections.Counter(e.name() if e else None for _, e in results),
            "failed keyless": sorted(i for i, e in results
                                     if e is not None and e.name() == "INVALID_RECORD"),
            "stored": [m.value() for m in read_all(bootstrap, topic)],
        }
    return out

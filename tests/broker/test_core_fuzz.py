"""Frame fuzzing: thousands of malformed, mutated and random requests (tests/support/fuzz_frames.py) each get
Kafka's error response or a closed connection, never an exception in the broker, and real
clients work afterwards.

The broker is first driven by real clients (confluent-kafka's admin, idempotent producer, and
consumers of both group protocols, and kcat when installed) while every request is recorded, so
that the fuzzer can replay those requests with one field changed and reach deep into group and
log state. Each frame goes on its own connection; the broker's answer (or close) is awaited
briefly, so a request the broker parks (a long Fetch, a JoinGroup) is left behind and ended when
the broker stops; every 100 frames an ApiVersions must be answered within 2 s (the loop is not
blocked). An ERROR record from the ``kcli.broker`` or ``asyncio`` loggers (a handler's
exception, an unretrieved task exception) fails the test with the frames that caused it. A SASL
listener gets its own, shorter run, frames sent at each SASL step.
"""

from __future__ import annotations

import logging
import os
import random
import select
import shutil
import socket
import subprocess
import time
from collections import Counter

from confluent_kafka import Consumer, Producer, TopicCollection, TopicPartition
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource,
                                   NewPartitions, NewTopic)
from tests.support.waits import wait_until
from tests.support.fuzz_frames import FrameMaker

from kcli.broker import EmbeddedCluster
from kcli.broker import server as broker_server
from kcli.broker.versions import advertised
from kcli.protocol import REQUESTS

# A fixed seed (the failing frames are printed); other seeds and counts for a longer search.
FRAMES = int(os.environ.get("KCLI_FUZZ_FRAMES", "4000"))
SEED = int(os.environ.get("KCLI_FUZZ_SEED", "20240607"))
CONFIGS = {"group.initial.rebalance.delay.ms": "0", "group.min.session.timeout.ms": "500",
           "group.consumer.heartbeat.interval.ms": "500"}


def _api_versions() -> bytes:
    request = REQUESTS[18](version=3, client_software_name="fuzz", client_software_version="1")
    request.with_header(correlation_id=1, client_id="fuzz")
    return request.encode(version=3, header=True, framed=True)


LIVENESS = _api_versions()


class ErrorRecords(logging.Handler):
    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


def record_requests(ec: EmbeddedCluster, drive) -> list[bytes]:
    """Every request frame the broker receives while ``drive()`` runs."""
    captured: list[bytes] = []
    original = broker_server.NodeServer._handle

    async def recording(self, frame, client_host, connection):
        captured.append(bytes(frame))
        return await original(self, frame, client_host, connection)
    broker_server.NodeServer._handle = recording
    try:
        drive(ec.bootstrap_servers)
    finally:
        broker_server.NodeServer._handle = original
    return captured


def real_clients(bootstrap: str) -> None:
    """A short session of what real clients send: admin operations, idempotent compressed
    produce, consumers of both group protocols that read and commit, kcat's metadata."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("orders", 3, 2, config={"retention.ms": "600000"}),
                         NewTopic("table", 2, 1, config={"cleanup.policy": "compact"}),
                         NewTopic("doomed", 1, 1)])["orders"].result(15)
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True,
                         "compression.type": "lz4", "linger.ms": 5})
    for i in range(60):
        producer.produce("orders", key=b"k%d" % (i % 7), value=b"order %d" % i)
        producer.produce("table", key=b"k%d" % (i % 5), value=b"row %d" % i)
    assert producer.flush(15) == 0
    for protocol in ("classic", "consumer"):
        extra = {"session.timeout.ms": 6000} if protocol == "classic" else {}
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{protocol}",
                      "group.protocol": protocol, "auto.offset.reset": "earliest",
                      "enable.auto.commit": False, **extra})
        c.subscribe(["orders", "table"])
        read(c, 60)
        c.commit(asynchronous=False)
        c.close()
    retention = ConfigEntry("retention.ms", "700000", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource("topic", "orders", incremental_configs=[retention])
    admin.incremental_alter_configs([resource])[resource].result(15)
    admin.describe_configs([ConfigResource("topic", "orders"), ConfigResource("broker", "1")])
    admin.create_partitions([NewPartitions("orders", 4)])["orders"].result(15)
    admin.describe_cluster().result(15)
    for future in admin.describe_topics(TopicCollection(["orders", "table"])).values():
        future.result(15)      # (popped from its dict, a future is never resolved)
    admin.list_consumer_groups().result(15)
    admin.describe_consumer_groups(["g-classic", "g-consumer"])["g-classic"].result(15)
    deleted = TopicPartition("orders", 0, 2)
    admin.delete_records([deleted])[deleted].result(15)
    admin.delete_topics(["doomed"])["doomed"].result(15)
    if shutil.which("kcat"):
        subprocess.run(["kcat", "-b", bootstrap, "-L"], capture_output=True, timeout=20)
        subprocess.run(["kcat", "-b", bootstrap, "-C", "-t", "orders", "-p", "0", "-o",
                        "beginning", "-e"], capture_output=True, timeout=20)


def read(consumer: Consumer, count: int, timeout_s: float = 30) -> list[bytes]:
    """The values of the first ``count`` records ``consumer`` polls (bounded in time)."""
    got: list[bytes] = []

    def poll():
        m = consumer.poll(0.2)
        if m is not None and m.error() is None:
            got.append(m.value())
        return len(got) >= count
    wait_until(poll, timeout_s)
    return got


def send(address: tuple[str, int], frame: bytes, wait_s: float = 0.05) -> str:
    """Send one frame on a new connection: "answered", "closed" or "no answer" (within
    ``wait_s``; the connection is then dropped)."""
    with socket.create_connection(address, timeout=5) as s:
        s.sendall(frame)
        if not select.select([s], [], [], wait_s)[0]:
            return "no answer"
        try:
            return "answered" if s.recv(4) else "closed"
        except ConnectionResetError:
            return "closed"


def test_fuzzed_frames_get_answers_or_closes_never_exceptions():
    errors = ErrorRecords()
    loggers = [logging.getLogger(n) for n in ("kcli.broker", "asyncio")]
    for logger in loggers:
        logger.addHandler(errors)
    try:
        with EmbeddedCluster(nodes=2, configs=CONFIGS) as ec:
            captured = record_requests(ec, real_clients)
            assert len({f[:2] for f in captured}) >= 15     # many APIs recorded
            maker = FrameMaker(random.Random(SEED), {k: (lo, hi) for k, lo, hi in advertised(None)},
                               names=["orders", "table", "g-classic", "g-consumer", "nosuch"],
                               topic_ids=[t.topic_id for t in ec.cluster.topics.values()],
                               captured=captured)
            addresses = [ec.cluster.node_address(n) for n in ec.cluster.node_ids]
            outcomes, kinds, culprits = Counter(), Counter(), []
            start = time.monotonic()
            for i in range(FRAMES):
                kind, frame = maker.frame()
                before = len(errors.records)
                outcomes[send(addresses[i % len(addresses)], frame)] += 1
                kinds[kind] += 1
                if len(errors.records) > before:
                    last = errors.records[-1]
                    culprits.append((kind, frame[:1000].hex(), last.getMessage(),
                                     repr(last.exc_info and last.exc_info[1])))
                if i % 100 == 99:     # the loop is not blocked (a parked request is no answer)
                    assert send(addresses[0], LIVENESS, wait_s=2) == "answered", \
                        f"no ApiVersions answer within 2 s after frame {i} ({kind})"
            elapsed = time.monotonic() - start
            logging.getLogger(__name__).warning(
                "fuzz: %d frames in %.1fs, %s, %s", FRAMES, elapsed, dict(kinds), dict(outcomes))
            assert outcomes["answered"] > FRAMES / 4 and outcomes["closed"] > FRAMES / 4

            # a drawn UnregisterBroker takes its node out of the cluster, as on Kafka: restarted,
            # the node registers again
            for node in sorted(ec.call(lambda: set(ec.cluster.unregistered))):
                ec.stop_node(node)
                ec.start_node(node)
            # real clients still work, on a topic made after the fuzzing
            bootstrap = ec.bootstrap_servers
            admin = AdminClient({"bootstrap.servers": bootstrap})
            admin.create_topics([NewTopic("after", 2, 2)])["after"].result(15)
            p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
            sent = [b"after %d" % i for i in range(20)]
            for i, v in enumerate(sent):
                p.produce("after", value=v, partition=i % 2)
            assert p.flush(15) == 0
            c = Consumer({"bootstrap.servers": bootstrap, "group.id": "after",
                          "auto.offset.reset": "earliest"})
            c.subscribe(["after"])
            got = read(c, len(sent))
            c.close()
            assert sorted(got) == sorted(sent)
        messages = [f"{r.name}: {r.getMessage()}" for r in errors.records]
        assert not errors.records, (f"{len(messages)} error records, e.g. {messages[:3]}; "
                                    f"frames (hex, size prefix first): {culprits[:3]}")
    finally:
        for logger in loggers:
            logger.removeHandler(errors)


def _sasl_handshake() -> bytes:
    request = REQUESTS[17](version=1, mechanism="PLAIN")
    request.with_header(correlation_id=1, client_id="fuzz")
    return request.encode(version=1, header=True, framed=True)


def test_fuzzed_frames_at_each_sasl_step():
    """On a SASL listener each connection is at a SASL step: frames sent first, and frames sent
    after a PLAIN handshake (SaslAuthenticate with drawn tokens, recorded real ones mutated),
    get an answer or a close, never an exception; a client with the password works after."""
    errors = ErrorRecords()
    logger = logging.getLogger("kcli.broker")
    logger.addHandler(errors)
    users = {"alice": "alice-secret"}
    try:
        with EmbeddedCluster(nodes=1, sasl_users=users) as ec:
            conf = {"bootstrap.servers": ec.bootstrap_servers,
                    "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                    "sasl.username": "alice", "sasl.password": "alice-secret"}

            def client(bootstrap):
                admin = AdminClient(conf)
                admin.create_topics([NewTopic("s", 1, 1)])["s"].result(15)
            captured = record_requests(ec, client)
            served = {k: (lo, hi) for k, lo, hi in advertised(None)}
            maker = FrameMaker(random.Random(SEED), served, names=["alice", "s", "PLAIN"],
                               topic_ids=[], captured=captured)
            address = ec.cluster.node_address(1)
            handshake = _sasl_handshake()
            outcomes = Counter()
            for i in range(1000):
                if i % 2:
                    frame = maker.valid(api_key=36) if i % 4 == 1 else maker.frame()[1]
                    with socket.create_connection(address, timeout=5) as s:
                        s.sendall(handshake)
                        s.recv(1 << 16)
                        s.sendall(frame)
                        ready = select.select([s], [], [], 0.05)[0]
                        try:
                            outcomes["answered" if ready and s.recv(4) else "other"] += 1
                        except ConnectionResetError:
                            outcomes["other"] += 1
                else:
                    outcomes[send(address, maker.frame()[1])] += 1
            assert outcomes["answered"] > 100
            p = Producer(conf)
            p.produce("s", value=b"after")
            assert p.flush(15) == 0
        assert not errors.records, [r.getMessage() for r in errors.records[:3]]
    finally:
        logger.removeHandler(errors)

"""Cluster state made with real clients (confluent-kafka), for any broker: topics, records with
chosen partitions and timestamps, consumer groups of both protocols (a group that consumed and
left, or a member that stays while a test looks at it), and bounded waits."""

from __future__ import annotations

import threading
import time
import uuid
from contextlib import contextmanager
from typing import Iterable, Iterator

from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, Producer, TopicPartition
from confluent_kafka.admin import (AclBindingFilter, AclOperation, AclPermissionType, AdminClient, NewPartitions,
                                   NewTopic, ResourcePatternType, ResourceType)

from tests.support.waits import wait_until

PROTOCOLS = {"classic": {"group.protocol": "classic", "session.timeout.ms": 6000,
                         "heartbeat.interval.ms": 300},
             "consumer": {"group.protocol": "consumer"}}


def unique(prefix: str) -> str:
    """A name no other test uses on a shared cluster."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"




def create_topic(bootstrap: str, name: str, partitions: int = 1, replication_factor: int = 1,
                 config: dict[str, str] | None = None, **client) -> None:
    """``config``: the topic's; ``client``: more admin client settings (a SASL login)."""
    admin = AdminClient({"bootstrap.servers": bootstrap, **client})
    admin.create_topics([NewTopic(name, partitions, replication_factor, config=config or {})],
                        operation_timeout=15)[name].result(20)
    # Until every partition has a leader in the metadata a client sees.
    wait_until(lambda: (t := admin.list_topics(name, timeout=5).topics.get(name)) is not None
               and t.error is None and len(t.partitions) == partitions
               and all(p.leader >= 0 for p in t.partitions.values()), what=f"topic {name} ready")


def produce(bootstrap: str, topic: str, records: list[tuple], **config) -> None:
    """``(partition, value)``, ``(partition, value, timestamp_ms)`` or ``(partition, value,
    timestamp_ms, key)`` records (a value None is a tombstone, a timestamp None the producer's
    time), acks=all, in order; fails on any delivery error. ``config``: more producer settings."""
    errors: list = []
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, **config})
    for partition, value, *rest in records:
        ts, key = (*rest, None, None)[:2]
        kw = {"timestamp": ts} if ts is not None else {}
        p.produce(topic, value if value is None or isinstance(value, bytes) else str(value).encode(),
                  key=key, partition=partition, on_delivery=lambda err, _m: err and errors.append(err), **kw)
        p.poll(0)
    assert p.flush(30) == 0, "records still in flight after 30s"
    assert not errors, errors


def tagged(tag: str, partitions: int | Iterable[int], count: int, ts: int | None = None) -> list[tuple]:
    """Records for ``produce``: ``count`` on one partition (an int), valued ``{tag}-{i}``, or
    ``count`` on each of a list of partitions, valued ``{tag}-{partition}-{i}``; all stamped
    ``ts`` when given (else the producer's time)."""
    if isinstance(partitions, int):
        return [(partitions, f"{tag}-{i}", ts) for i in range(count)]
    return [(p, f"{tag}-{p}-{i}", ts) for p in partitions for i in range(count)]


def spread(tag: str, partitions: int, count: int) -> list[tuple]:
    """Records for ``produce``: ``count`` round robin over partitions 0..``partitions``-1, valued
    ``{tag}-{i}``."""
    return [(i % partitions, f"{tag}-{i}") for i in range(count)]


def consumer(bootstrap: str, group: str, protocol: str = "classic", reset: str = "earliest",
             **config) -> Consumer:
    return Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": reset,
                     "enable.auto.commit": False, "topic.metadata.refresh.interval.ms": 500,
                     **PROTOCOLS[protocol], **config})


def consume(c: Consumer, expected: int, timeout: float = 30) -> list:
    """Poll until ``expected`` records arrived (or time is up); (topic, partition, offset, value)."""
    got: list = []
    deadline = time.monotonic() + timeout
    while len(got) < expected and time.monotonic() < deadline:
        m = c.poll(0.1)
        if m is not None and not m.error():
            got.append((m.topic(), m.partition(), m.offset(), m.value()))
    return got


def consume_and_commit(bootstrap: str, group: str, topics: list[str], expected: int,
                       protocol: str = "classic", **config) -> list:
    """A member of ``group`` reads ``expected`` records, commits them and leaves. ``config``:
    more consumer settings (a SASL login)."""
    c = consumer(bootstrap, group, protocol, **config)
    try:
        c.subscribe(topics)
        got = consume(c, expected)
        assert len(got) == expected, f"{group} read {len(got)} of {expected} records"
        c.commit(asynchronous=False)
    finally:
        c.close()
    return got


def commit(bootstrap: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commits ``offsets`` for ``group`` without joining it (a simple, assign-based consumer)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        c.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()],
                 asynchronous=False)
    finally:
        c.close()


def commit_groups(bootstrap: str, groups: list[str], offsets: dict[tuple[str, int], int]) -> None:
    """Commits the same ``offsets`` for each of many groups, one OffsetCommit per group on one
    connection (kcli's own admin commit, WireClient.commit_offsets): thousands of groups in seconds,
    where a consumer per group takes a connection and a coordinator lookup each."""
    from kcli.admin.settings import ClientSettings
    from kcli.admin.wire import WireClient

    from kcli.errors import OperationError

    wire = WireClient(ClientSettings(bootstrap, {}, 60_000))

    def located() -> bool:     # a fresh Kafka has no coordinator until __consumer_offsets exists
        try:
            wire.find_coordinators(groups)               # one batched FindCoordinator (v4+)
            return True
        except OperationError:
            return False

    try:
        wait_until(located, what="the groups' coordinators")
        for g in groups:
            failed = {tp: e for tp, e in wire.commit_offsets(g, offsets).items() if e is not None}
            assert not failed, (g, failed)
    finally:
        wire.close()


@contextmanager
def active_member(bootstrap: str, group: str, topics: list[str], protocol: str = "classic",
                  partitions: int = 1, **config) -> Iterator[Consumer]:
    """A member that keeps polling (in a thread) while the block runs, once it owns
    ``partitions`` partitions; it leaves the group at the end."""
    c = consumer(bootstrap, group, protocol, **config)
    c.subscribe(topics)
    stop = threading.Event()
    lock = threading.Lock()

    def loop():
        for _ in range(1_000_000):                   # bounded; stopped by the event
            if stop.is_set():
                return
            with lock:
                c.poll(0.05)

    def owned():
        with lock:
            c.poll(0.05)
            return len(c.assignment()) >= partitions
    wait_until(owned, timeout=30, interval=0, what=f"{group} owning {partitions} partitions")
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield c
    finally:
        stop.set()
        thread.join(10)
        c.close()


def latest_group_reads(b, group, topic, partitions, then, expected):
    """A consumer-protocol group starts at latest on ``partitions`` partitions of ``topic`` (its
    reset is one ListOffsets away: given time to land), ``then()`` produces, and the group reads
    the ``expected`` records that came after it, commits and stops; returns what it received."""
    c = consumer(b, group, "consumer", reset="latest")
    c.subscribe([topic])
    wait_until(lambda: c.poll(0.1) is None and len(c.assignment()) == partitions,
               what=f"assignment of {partitions}")
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        assert c.poll(0.1) is None
    time.sleep(0.05)
    then()
    got = consume(c, expected)
    assert len(got) == expected
    c.commit(asynchronous=False)
    c.close()
    return got


def expand(b, topic, before, after, records):
    """The topic grows from ``before`` to ``after`` partitions, and ``records`` records
    (``exp{p}-i``) land on each new one."""
    admin = AdminClient({"bootstrap.servers": b})
    admin.create_partitions([NewPartitions(topic, after)])[topic].result(10)
    for p in range(before, after):
        produce(b, topic, tagged(f"exp{p}", p, records))


def committed(b, group) -> dict:
    admin = AdminClient({"bootstrap.servers": b})
    res = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(10)
    return {(tp.topic, tp.partition): tp.offset for tp in res.topic_partitions if tp.offset >= 0}


EVERY_ACL = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                             AclPermissionType.ANY)


def delete_every_acl(bootstrap: str, **config) -> None:
    """Deletes every ACL of the cluster and waits until DescribeAcls shows none (Kafka's
    authorizer applies the controller's records after it answers). ``config``: more admin
    client settings (a super user's login)."""
    admin = AdminClient({"bootstrap.servers": bootstrap, **config})
    for fut in admin.delete_acls([EVERY_ACL], request_timeout=30).values():
        fut.result()
    wait_until(lambda: not admin.describe_acls(EVERY_ACL, request_timeout=30).result(), what="no ACL left")

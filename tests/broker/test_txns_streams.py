"""An unmodified Kafka Streams 4.4 application with processing.guarantee=exactly_once_v2 on the
embedded broker and on Apache Kafka 4.4 (tests/support/java/StreamsApp.java, the counting
topology: a repartition topic and a changelog): killed with SIGKILL mid-stream and restarted on
its state directory, it still counts every input record exactly once, as a read_committed reader
of its output sees it. On Kafka the group's streams.session.timeout.ms is set to 6 s first (the
broker's minimum lowered for it: tests/conftest.py STREAMS_CONFIGS), so the killed member's tasks
come back in seconds rather than Kafka's default 45 s."""

from __future__ import annotations

import threading
import time

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.support.apache_kafka import RealKafkaUnavailable, kafka_libs
from tests.support.clients import create_topic, produce, unique
from tests.support.groups import fast_cluster
from tests.support.streams_app import StreamsApp
from tests.support.waits import wait_until

KEYS, PER_BATCH = 10, 200
STREAMS = {"group.streams.initial.rebalance.delay.ms": "0", "group.streams.heartbeat.interval.ms": "300",
           "group.streams.session.timeout.ms": "6000"}


@pytest.fixture(params=["embedded", "apache_kafka_streams"])
def cluster(request):
    """(bootstrap, whether it is real Kafka)."""
    if request.param != "embedded":
        yield request.getfixturevalue(request.param).bootstrap_servers, True
        return
    try:
        kafka_libs()            # as the apache_kafka fixtures: no Java or jars fails, in one line
    except RealKafkaUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
    with fast_cluster(nodes=1, configs=STREAMS) as ec:
        yield ec.bootstrap_servers, False


def short_sessions(b: str, app_id: str) -> None:
    """The group's session timeout, 6 s (a group config, IncrementalAlterConfigs type GROUP)."""
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource,
                                       ResourceType)

    entry = ConfigEntry("streams.session.timeout.ms", "6000",
                        incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ResourceType.GROUP, app_id, incremental_configs=[entry])
    admin = AdminClient({"bootstrap.servers": b})         # kept until the answer: it owns the future
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(30)


def counts(b: str, sink: str) -> dict[str, list[int]]:
    """Each value's counts in the order the application wrote them, as a read_committed consumer
    reads the sink from its start (until nothing more comes for a second; at most 30 s)."""
    c = Consumer({"bootstrap.servers": b, "group.id": unique("reader"), "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    out: dict[str, list[int]] = {}
    try:
        c.assign([TopicPartition(sink, 0, 0)])
        deadline, quiet = time.monotonic() + 30, time.monotonic() + 1.0
        while time.monotonic() < min(deadline, quiet):
            m = c.poll(0.1)
            if m is None or m.error():
                continue
            quiet = time.monotonic() + 1.0
            value, n = m.value().decode().rsplit("=", 1)
            out.setdefault(value, []).append(int(n))
    finally:
        c.close()
    return out


def batch(start: int) -> list[tuple[int, str]]:
    return [(i % 2, f"k{i % KEYS}") for i in range(start, start + PER_BATCH)]


def test_exactly_once_v2_counts_once_across_a_kill_9(cluster):
    b, real = cluster
    app_id, source, sink = unique("eos"), unique("in"), unique("out")
    if real:
        short_sessions(b, app_id)
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    produce(b, source, batch(0))
    app = StreamsApp(b, app_id, source, sink, topology="count", guarantee="exactly_once_v2")
    feeding = threading.Thread(target=lambda: [
        produce(b, source, batch(PER_BATCH)[i:i + 10]) or time.sleep(0.05)
        for i in range(0, PER_BATCH, 10)])
    try:
        app.wait_running()
        wait_until(lambda: counts(b, sink), timeout=60, interval=0.5, what="the first counts")
        feeding.start()                         # the second batch, ten records at a time
        watch = Consumer({"bootstrap.servers": b, "group.id": unique("watch"),
                          "isolation.level": "read_committed"})
        watch.assign([TopicPartition(sink, 0, 0)])
        try:
            wait_until(lambda: (m := watch.poll(0.1)) is not None and not m.error()
                       and int(m.value().decode().rsplit("=", 1)[1]) > PER_BATCH // KEYS,
                       timeout=60, interval=0, what="a count from the second batch")
        finally:
            watch.close()
        app.kill()                              # mid-stream: a transaction left open
    finally:
        app.stop()
        if feeding.is_alive():
            feeding.join(60)
    restarted = StreamsApp(b, app_id, source, sink, topology="count", guarantee="exactly_once_v2",
                           state_dir=app.state_dir)
    expected = 2 * PER_BATCH // KEYS
    try:
        restarted.wait_running()
        wait_until(lambda: {v: n[-1] for v, n in counts(b, sink).items()} == {
            f"k{k}": expected for k in range(KEYS)}, timeout=120, interval=1,
            what="every value counted")
    finally:
        restarted.stop()
    for value, seen in counts(b, sink).items():     # never counted twice: rising to the input's
        assert seen == sorted(set(seen)) and seen[-1] == expected, (value, seen)

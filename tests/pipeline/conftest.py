"""Fixtures for the pipeline tests: one Spark session and one embedded broker per test module,
and a producer helper that writes records with explicit partitions and timestamps."""

from __future__ import annotations

import pytest

NOW = 1_736_937_000_000  # the broker's clock in these tests: 2025-01-15T10:30:00.000Z


@pytest.fixture(scope="module")
def spark():
    from kcli.pipeline.spark import connector_jars, session

    # Spark's Kafka connector (scripts/provision-spark-kafka.sh) for the tests of the JVM source
    jars = {"spark.jars": ",".join(connector_jars())} if connector_jars() else {}
    s = session("local[2]", {"spark.sql.shuffle.partitions": "2",
                             "spark.default.parallelism": "2", **jars})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def broker():
    from kcli.broker import EmbeddedCluster

    # The audit's data holds records hours ahead of the broker's clock on purpose (the audit
    # finds them): no after-bound on the broker, as before Kafka 4 made it 1 h by default.
    with EmbeddedCluster(nodes=1, clock=lambda: NOW,
                         configs={"log.message.timestamp.after.max.ms": str(2**63 - 1)}) as cluster:
        yield cluster


def produce(bootstrap: str, topic: str, records: list[tuple]) -> None:
    """Write ``(partition, timestamp_ms, key, value)`` records in order; fail on any error."""
    from confluent_kafka import Producer

    errors = []
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0,
                         "enable.idempotence": False, "max.in.flight": 1})
    for partition, ts, key, value in records:
        producer.produce(topic, key=key, value=value, partition=partition, timestamp=ts,
                         on_delivery=lambda err, msg: err and errors.append(err))
        producer.poll(0)
    assert producer.flush(30) == 0, "records still in flight after 30s"
    assert not errors, errors


def admin(bootstrap: str):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap})

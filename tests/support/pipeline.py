"""What the pipeline tests share: the broker's clock, a producer that writes keyed records with
explicit partitions and timestamps, and an admin client."""

from __future__ import annotations

NOW = 1_736_937_000_000  # the broker's clock in these tests: 2025-01-15T10:30:00.000Z


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

"""What the pipeline tests share: the broker's clock, a producer that writes keyed records with
explicit partitions and timestamps, and an admin client."""

from __future__ import annotations

from tests.support import clients

NOW = 1_736_937_000_000  # the broker's clock in these tests: 2025-01-15T10:30:00.000Z


def produce(bootstrap: str, topic: str, records: list[tuple]) -> None:
    """Write ``(partition, timestamp_ms, key, value)`` records in order, one in flight at a time
    and without idempotence, as the pipeline tests have always written them; fail on any error."""
    clients.produce(bootstrap, topic, [(p, value, ts, key) for p, ts, key, value in records],
                    **{"enable.idempotence": False, "max.in.flight": 1})


def admin(bootstrap: str):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap})

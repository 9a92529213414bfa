"""Shared helpers for the group coordination tests: a fast-group EmbeddedCluster, raw
kafka-python requests to a chosen node, and bounded waits."""

from __future__ import annotations

import time
from typing import Callable

from kafka.admin import KafkaAdminClient

from kcli.broker import EmbeddedCluster
from kcli.broker.groups import coordinator_for

FAST_GROUPS = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "group.consumer.heartbeat.interval.ms": "300",
    "group.consumer.session.timeout.ms": "6000",
}


def fast_cluster(nodes: int = 1, configs: dict | None = None, **kwargs) -> EmbeddedCluster:
    """An EmbeddedCluster whose group timings suit tests (short heartbeats, no initial delay)."""
    return EmbeddedCluster(nodes=nodes, configs={**FAST_GROUPS, **(configs or {})}, **kwargs)


def on_coordinator(ec: EmbeddedCluster, fn: Callable, *args, **kwargs):
    """Call ``fn(coordinator, *args)`` on the broker's loop."""
    return ec.call(lambda: fn(coordinator_for(ec.cluster), *args, **kwargs))


def coordinator_of(ec: EmbeddedCluster, group_id: str) -> int:
    return ec.call(ec.cluster.coordinator_node, group_id)


class RawClient:
    """kafka-python requests (classes from ``kcli.protocol``) sent to a chosen node."""

    def __init__(self, bootstrap_servers: str):
        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=10000)

    def send(self, request, node_id: int):
        manager = self.admin._manager
        return manager.run(manager.send, request, node_id)

    def close(self) -> None:
        self.admin.close()




def consume(consumers: list, expected: int, timeout: float = 30) -> list[list]:
    """Poll every consumer in turn until ``expected`` records arrived in total (or time is up);
    returns the (topic, partition, offset, value) records each consumer received."""
    received: list[list] = [[] for _ in consumers]
    deadline = time.monotonic() + timeout
    while sum(map(len, received)) < expected and time.monotonic() < deadline:
        for i, c in enumerate(consumers):
            m = c.poll(0.1)
            if m is not None and not m.error():
                received[i].append((m.topic(), m.partition(), m.offset(), m.value()))
    return received

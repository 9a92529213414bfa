"""Fixtures for the group coordination tests: a broker on a background event loop, clients and
bounded wait helpers."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Callable

from kcli.broker.cluster import Cluster
from kcli.broker.groups import coordinator_for
from kcli.broker.server import Broker

FAST_GROUPS = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "group.consumer.heartbeat.interval.ms": "300",
    "group.consumer.session.timeout.ms": "6000",
}


class RunningBroker:
    """A cluster served on 127.0.0.1 ephemeral ports by a loop in a background thread."""

    def __init__(self, nodes: int = 1, data_dir: Path | None = None, configs: dict | None = None,
                 record_creation_times: bool = True):
        self.node_ids = list(range(1, nodes + 1))
        self.data_dir = data_dir
        self.configs = {**FAST_GROUPS, **(configs or {})}
        self.record_creation_times = record_creation_times
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.cluster: Cluster | None = None
        self.broker: Broker | None = None

    def __enter__(self) -> "RunningBroker":
        self.thread.start()

        async def start():
            self.cluster = Cluster(self.node_ids, data_dir=self.data_dir, configs=self.configs,
                                   record_creation_times=self.record_creation_times)
            self.broker = Broker(self.cluster)
            await self.broker.start()

        self.run(start())
        return self

    def __exit__(self, *exc) -> None:
        self.run(self.broker.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    def run(self, coro, timeout: float = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, fn: Callable, *args, **kwargs):
        """Run ``fn`` on the broker's loop (the coordinator's timers need it) and return its result."""
        async def go():
            return fn(*args, **kwargs)
        return self.run(go())

    @property
    def bootstrap_servers(self) -> str:
        return self.broker.bootstrap_servers

    @property
    def coordinator(self):
        return coordinator_for(self.cluster)

    def create_topic(self, name: str, partitions: int, replication_factor: int = 1) -> None:
        self.call(self.cluster.create_topic, name, partitions, replication_factor)


def wait_until(predicate: Callable[[], object], timeout: float = 20, interval: float = 0.05, what: str = ""):
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")
        time.sleep(interval)

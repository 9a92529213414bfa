"""librdkafka's built-in mock cluster (``test.mock.num.brokers``), for the tests and the benches:
a Kafka-protocol cluster librdkafka runs in the process, on loopback ports of its own."""

from __future__ import annotations

import logging
import re
import time

from confluent_kafka import Producer


class MockCluster:
    """``with MockCluster(brokers) as bootstrap:`` the mock cluster, kept alive by the producer
    that owns it (``owner``: produce through it to put records in)."""

    def __init__(self, brokers: int = 1):
        self.brokers = brokers

    def __enter__(self) -> str:
        found: list[str] = []

        class Grab(logging.Handler):
            def emit(self, record):
                m = re.search(r"Mock cluster \S+ bootstrap.servers=(\S+)", record.getMessage())
                if m:
                    found.append(m.group(1))

        logger = logging.getLogger(f"kcli.mock.{id(self)}")
        logger.addHandler(Grab())
        logger.setLevel(logging.DEBUG)
        self.owner = Producer({"bootstrap.servers": "", "test.mock.num.brokers": self.brokers,
                               "logger": logger, "debug": "mock"})
        deadline = time.monotonic() + 10
        while not found and time.monotonic() < deadline:
            self.owner.poll(0.1)
        if not found:
            raise RuntimeError("the mock cluster did not report its bootstrap servers")
        return found[0]

    def __exit__(self, *exc) -> None:
        del self.owner

"""A start-offset policy the broker cannot serve raises from the first poll, before any wait for
an assignment, on a broker without the KIP-848 protocol (the embedded broker posing as 2.8: no
ConsumerGroupHeartbeat, no Metadata v14). Before this check both consumers polled for ever:
librdkafka never assigns anything there and reports nothing."""

from __future__ import annotations

import time

import pytest

from kcli.broker import EmbeddedCluster
from kcli.consumer import (Consumer, DelayRevokeConsumer, GroupCreationTimeNotAvailable,
                           UnsupportedVersion, latest, to_start_time)
from kcli.consumer.errors import BROKER_TOO_OLD


@pytest.fixture(scope="module")
def old_broker():
    with EmbeddedCluster(nodes=1, pose_as="2.8") as ec:
        ec.create_topic("t", 2)
        yield ec


@pytest.mark.parametrize("kind", [Consumer, DelayRevokeConsumer])
@pytest.mark.parametrize("policy, error, message", [
    (to_start_time(), GroupCreationTimeNotAvailable, BROKER_TOO_OLD),
    (latest(max_age="5m"), UnsupportedVersion, "The broker does not support Metadata v14"),
])
def test_first_poll_raises_what_the_broker_cannot_serve(old_broker, kind, policy, error, message):
    c = kind({"bootstrap.servers": old_broker.bootstrap_servers, "group.id": f"g-{kind.__name__}",
              "group.protocol": "consumer"}, start=policy)
    try:
        c.subscribe(["t"])
        started = time.monotonic()
        with pytest.raises(error) as raised:
            c.poll(10)
        assert str(raised.value).startswith(message)
        assert time.monotonic() - started < 8         # raised, not the poll's 10 s
        with pytest.raises(error):
            c.poll(0.1)                          # and again, on every later poll
    finally:
        c.close()

"""Fixtures for running the real kcli entry point against the embedded broker."""

from __future__ import annotations

import pytest

from confluent_kafka import Consumer

from kcli.broker import EmbeddedCluster
from tests.support.clients import produce
from tests.support.groups import consume, fast_cluster
from tests.support.sasl import BASE_TS, PASSWORD
from tests.support.waits import Clock




@pytest.fixture(scope="module")
def clock():
    return Clock(1_736_937_000_000)      # 2025-01-15T10:30:00.000Z


@pytest.fixture(scope="module")
def cluster(clock):
    with EmbeddedCluster(nodes=3, clock=clock) as c:
        yield c


@pytest.fixture(scope="module")
def old_cluster():
    with EmbeddedCluster(nodes=1, pose_as="4.1") as c:
        yield c


@pytest.fixture(scope="module")
def pre_kip_cluster():
    """A broker posing as 2.8: no ListOffsets v7 (KIP-734), no DescribeTopicPartitions."""
    with EmbeddedCluster(nodes=1, pose_as="2.8") as c:
        yield c


@pytest.fixture(scope="module")
def sasl_cluster():
    """One node with SASL/PLAIN; topic "data" (2 partitions, timestamps out of order on 0) and a
    group "sasl-group" that committed 3 records of partition 0, all through SASL clients."""
    with fast_cluster(1, sasl_users={"alice": PASSWORD}) as c:
        c.create_topic("data", partitions=2)
        conf = {"bootstrap.servers": c.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism": "PLAIN", "sasl.username": "alice", "sasl.password": PASSWORD}
        produce(c.bootstrap_servers, "data", [(0, b"v", BASE_TS + d) for d in (1000, 5000, 3000)], **conf)
        consumer = Consumer({**conf, "group.id": "sasl-group", "auto.offset.reset": "earliest",
                             "enable.auto.commit": False, "group.protocol": "classic",
                             "session.timeout.ms": 6000, "heartbeat.interval.ms": 300})
        consumer.subscribe(["data"])
        assert len(consume([consumer], 3)[0]) == 3
        consumer.commit(asynchronous=False)
        consumer.close()
        yield c

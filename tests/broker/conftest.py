"""Fixtures for the broker core tests: embedded 1- and 3-node clusters on ephemeral ports."""

from __future__ import annotations

import pytest
from tests.support.broker_wire import Wire
from tests.support.waits import Clock

from kcli.broker import EmbeddedCluster


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def broker1(clock):
    with EmbeddedCluster(nodes=1, clock=clock) as ec:
        yield ec


@pytest.fixture
def broker3(clock):
    with EmbeddedCluster(nodes=3, clock=clock) as ec:
        yield ec


@pytest.fixture
def wire():
    opened = []

    def connect(ec, node_id=1):
        w = Wire(ec.cluster.node_address(node_id))
        opened.append(w)
        return w
    yield connect
    for w in opened:
        w.close()

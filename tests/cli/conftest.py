"""Fixtures for running the real kcli entry point against the embedded broker."""

from __future__ import annotations

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.waits import Clock
from tests.support.run import Result, run_kcli, run_kcli_process  # noqa: F401 - used by the cli tests




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

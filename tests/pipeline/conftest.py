"""Fixtures for the pipeline tests: one Spark session and one embedded broker per test module
(helpers: tests/support/pipeline.py)."""

from __future__ import annotations

import pytest

from tests.support.pipeline import NOW


@pytest.fixture(scope="module")
def spark():
    from kcli.pipeline.source import KafkaDataSource
    from kcli.pipeline.spark import connector_jars, session

    # Spark's Kafka connector (scripts/provision-spark-kafka.sh) for the tests of the JVM source
    jars = {"spark.jars": ",".join(connector_jars())} if connector_jars() else {}
    s = session("local[2]", {"spark.sql.shuffle.partitions": "2",
                             "spark.default.parallelism": "2", **jars})
    s.dataSource.register(KafkaDataSource)          # the kcli-kafka source's own tests
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

"""The embedded broker's cluster and topic ids are made as Kafka's Uuid.randomUuid makes them:
never the reserved 0 or 1, never a text starting with '-', which Apache's tools would read as an
option (`kafka-topics --topic-id -x...`): about 1 random id in 64 did, and flaked the tests."""

from __future__ import annotations

from kcli.admin.wire.metadata import kafka_uuid as _text
from kcli.broker import EmbeddedCluster
from kcli.broker.cluster import random_uuid


def test_random_ids_never_start_with_a_dash():
    ids = [random_uuid() for _ in range(5000)]          # 5000 uuid4s: ~78 would start with '-'
    assert not [i for i in ids if _text(i).startswith("-") or i.int <= 1]


def test_cluster_and_topic_ids_use_it():
    with EmbeddedCluster(nodes=1) as ec:
        ec.create_topic("t", 1)
        assert not ec.cluster.cluster_id.startswith("-")
        assert not _text(ec.cluster.topics["t"].topic_id).startswith("-")

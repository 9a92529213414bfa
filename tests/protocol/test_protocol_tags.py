"""Metadata v14 tags every partition (PartitionAgeMs, KIP-1327), and kafka-python 3.0.12 decodes a
struct's tags by copying the rest of the answer (docs/upstream/README.md, patch 0001): quadratic in
the partitions. So kcli's own MetadataResponse decodes v14's tags as encoded, and kcli's wire
client asks v14 only for the partition ages; its other Metadata requests are v13 at most."""

from __future__ import annotations


import kcli.protocol as proto
from kcli.admin.wire.connection import Connection

R = proto.MetadataResponse
T, P = R.MetadataResponseTopic, R.MetadataResponseTopic.MetadataResponsePartition


def _response(ages):
    parts = [P(error_code=0, partition_index=i, leader_id=i % 3, leader_epoch=7, replica_nodes=[i % 3, 5],
               isr_nodes=[i % 3], offline_replicas=[], partition_age_ms=age) for i, age in enumerate(ages)]
    return R(version=14, throttle_time_ms=0, brokers=[], cluster_id="c", controller_id=1,
             topics=[T(error_code=0, name="t", topic_id="3b1d9d4c-7f3e-4b8e-9c44-3f9a0d6f1a2b",
                       is_internal=False, partitions=parts), T(error_code=3, name="after", partitions=[])],
             error_code=0)


def test_tagged_partitions_decode_with_every_field_and_what_follows_them():
    ages = [-1, 0, 1, 300, 2**40, -1, 2**62]           # -1 is the default: its tag is not written
    decoded = R.decode(_response(ages).encode(), version=14)
    (topic, after) = decoded.topics
    assert [p.partition_age_ms for p in topic.partitions] == ages
    assert [p.partition_index for p in topic.partitions] == list(range(len(ages)))
    assert [(p.leader_id, p.leader_epoch, list(p.replica_nodes), list(p.isr_nodes))
            for p in topic.partitions] == [(i % 3, 7, [i % 3, 5], [i % 3]) for i in range(len(ages))]
    assert (after.name, after.error_code, decoded.controller_id) == ("after", 3, 1)


def test_only_the_partition_ages_are_asked_at_metadata_v14(monkeypatch):
    from kcli.admin.wire import WireClient
    from kcli.broker import EmbeddedCluster
    from kcli.admin.settings import ClientSettings

    sent: list[int] = []
    real = Connection.request

    def spied(self, request, deadline):
        if type(request).__name__.startswith("MetadataRequest"):
            sent.append(request.API_VERSION)
        return real(self, request, deadline)

    monkeypatch.setattr(Connection, "request", spied)
    with EmbeddedCluster(nodes=2) as c:
        c.create_topic("aged", partitions=3)
        wire = WireClient(ClientSettings(c.bootstrap_servers, {}, 60_000))
        try:
            assert wire.topic_names() == ["aged"]
            assert sorted(wire.partition_leaders(["aged"])["aged"]) == [0, 1, 2]
            assert wire.broker_ids() == [1, 2]
            untagged = list(sent)
            ages = wire.partition_ages(["aged"])
        finally:
            wire.close()
    assert untagged and max(untagged) == proto.UNTAGGED_METADATA_VERSION == 13
    assert sent[len(untagged):] == [14] and sorted(ages) == [("aged", p) for p in range(3)]

"""WireClient.committed_offsets_of_groups with named partitions per group (reset-offsets' --topic
and --from-file selections): one OffsetFetch v8+ for the groups of a coordinator answers as one
OffsetFetch per group (v7, a broker before Kafka 3.0) does: an entry per named partition (None
where nothing is committed), every committed partition for a group not named, none for a group
named with no partitions."""

from __future__ import annotations

from kcli.admin.settings import ClientSettings
from kcli.admin.wire import WireClient
from kcli.broker import EmbeddedCluster
from kcli.protocol import OffsetFetchRequest        # the class the client sends
from tests.support.clients import commit_groups


def test_named_partitions_in_one_request_answer_as_one_request_per_group():
    with EmbeddedCluster(nodes=1) as ec:
        ec.create_topic("ga", 3)
        commit_groups(ec.bootstrap_servers, ["g1", "g2"], {("ga", p): 1 + p for p in range(2)})
        kc = WireClient(ClientSettings(ec.bootstrap_servers))
        try:
            named = {"g1": [("ga", 0), ("ga", 2)], "g3": []}
            fetches = lambda: sum(c.get("OffsetFetch", 0) for c in ec.request_counts("kcli").values())  # noqa: E731
            before = fetches()
            batched = kc.committed_offsets_of_groups(["g1", "g2", "g3"], named)
            assert fetches() - before == 1
            assert {g: [(c.topic, c.partition, c.offset) for c in cs] for g, cs in batched.items()} == {
                "g1": [("ga", 0, 1), ("ga", 2, None)], "g2": [("ga", 0, 1), ("ga", 1, 2)], "g3": []}
            newest = kc.max_version
            kc.max_version = lambda cls: 7 if cls is OffsetFetchRequest else newest(cls)
            before = fetches()
            assert kc.committed_offsets_of_groups(["g1", "g2", "g3"], named) == batched
            assert fetches() - before == 2
        finally:
            kc.close()

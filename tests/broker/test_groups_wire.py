"""Group APIs read over the wire with kafka-python requests (``kcli.protocol`` classes):
KIP-1282 creation times, NOT_COORDINATOR, FindCoordinator, session expiry, OffsetDelete."""

from __future__ import annotations

import uuid

import pytest

from kcli.protocol import REQUESTS
from tests.support.groups import RawClient, coordinator_of, fast_cluster, on_coordinator
from tests.support.waits import Clock, wait_until

FIND_COORDINATOR, OFFSET_COMMIT, OFFSET_FETCH, JOIN_GROUP, HEARTBEAT = 10, 8, 9, 11, 12
SYNC_GROUP, DESCRIBE_GROUPS, LIST_GROUPS, OFFSET_DELETE = 14, 15, 16, 47
CGH, CGD = 68, 69
NOT_COORDINATOR, NON_EMPTY_GROUP = 16, 68
GROUP_SUBSCRIBED_TO_TOPIC, UNKNOWN_MEMBER_ID = 86, 25
T0 = 1_750_000_000_000




def cg_heartbeat(raw: RawClient, node: int, group: str, member: str, epoch: int, topics=("t",),
                 owned=None, version: int = 2):
    req = REQUESTS[CGH]
    return raw.send(req(version=version, group_id=group, member_id=member, member_epoch=epoch,
                        rebalance_timeout_ms=30000 if epoch == 0 else -1,
                        subscribed_topic_names=list(topics) if epoch == 0 else None,
                        topic_partitions=[] if epoch == 0 else owned), node)


def cg_describe(raw: RawClient, node: int, group: str, version: int = 2):
    req = REQUESTS[CGD]
    return raw.send(req(version=version, group_ids=[group], include_authorized_operations=False),
                    node).groups[0]


def test_group_creation_time_is_stamped_once_and_survives_restart(tmp_path):
    clock = Clock(T0)
    with fast_cluster(3, data_dir=tmp_path, clock=clock) as ec:
        ec.create_topic("t", 2)
        raw = RawClient(ec.bootstrap_servers)
        node = coordinator_of(ec, "kip1282")
        joined = cg_heartbeat(raw, node, "kip1282", "m1", 0)
        assert joined.error_code == 0 and joined.group_creation_time_ms == T0
        described = cg_describe(raw, node, "kip1282")
        assert (described.group_creation_time_ms, described.group_state) == (T0, "Stable")
        assert described.members[0].assignment.topic_partitions[0].topic_name == "t"
        assert described.members[0].member_type == 1

        clock.now_ms = T0 + 60_000                       # the group empties and members come back
        assert cg_heartbeat(raw, node, "kip1282", "m1", -1).member_epoch == -1
        assert cg_describe(raw, node, "kip1282").group_state == "Empty"
        again = cg_heartbeat(raw, node, "kip1282", "m2", 0)
        assert again.group_creation_time_ms == T0 and again.member_epoch > joined.member_epoch
        assert cg_describe(raw, node, "kip1282", version=1).group_creation_time_ms == -1  # not in v1
        raw.close()

    clock.now_ms = T0 + 120_000
    with fast_cluster(3, data_dir=tmp_path, clock=clock) as ec:
        raw = RawClient(ec.bootstrap_servers)
        node = coordinator_of(ec, "kip1282")
        assert cg_describe(raw, node, "kip1282").group_creation_time_ms == T0
        assert cg_heartbeat(raw, node, "kip1282", "m3", 0).group_creation_time_ms == T0
        raw.close()


def test_unknown_group_creation_time():
    with fast_cluster(1, record_creation_times=False) as ec:
        ec.create_topic("t", 1)
        raw = RawClient(ec.bootstrap_servers)
        assert cg_heartbeat(raw, 1, "legacy", "m1", 0).group_creation_time_ms == -1
        ec.cluster.record_creation_times = True       # later groups get a time; legacy keeps -1
        assert cg_heartbeat(raw, 1, "fresh", "m1", 0).group_creation_time_ms > 0
        assert cg_describe(raw, 1, "legacy").group_creation_time_ms == -1
        on_coordinator(ec, lambda c: c.create_consumer_group("made-legacy", creation_time_ms=-1))
        assert cg_describe(raw, 1, "made-legacy").group_creation_time_ms == -1
        raw.close()


def test_find_coordinator_and_not_coordinator_on_other_nodes():
    with fast_cluster(3) as ec:
        ec.create_topic("t", 1)
        raw = RawClient(ec.bootstrap_servers)
        node = coordinator_of(ec, "where")
        find = REQUESTS[FIND_COORDINATOR]
        single = raw.send(find(version=2, key="where", key_type=0), 1)
        assert (single.error_code, single.node_id) == (0, node)
        batch = raw.send(find(version=4, key_type=0, coordinator_keys=["where", "else"]), 2)
        assert [c.node_id for c in batch.coordinators] == [node, coordinator_of(ec, "else")]
        txn = raw.send(find(version=4, key_type=1, coordinator_keys=["txn"]), 1)
        assert (txn.coordinators[0].error_code, txn.coordinators[0].node_id) == (
            0, coordinator_of(ec, "txn"))         # transactional ids are placed as groups are

        cg_heartbeat(raw, node, "where", "m1", 0)
        wrong = next(n for n in ec.cluster.node_ids if n != node)
        assert cg_heartbeat(raw, wrong, "where", "m1", 0).error_code == NOT_COORDINATOR
        assert cg_describe(raw, wrong, "where").error_code == NOT_COORDINATOR
        join = REQUESTS[JOIN_GROUP]
        assert raw.send(join(version=5, group_id="where", session_timeout_ms=6000,
                             rebalance_timeout_ms=6000, member_id="", protocol_type="consumer",
                             protocols=[join.JoinGroupRequestProtocol(name="range", metadata=b"")]),
                        wrong).error_code == NOT_COORDINATOR
        hb = REQUESTS[HEARTBEAT]
        assert raw.send(hb(version=3, group_id="where", generation_id=1, member_id="m"),
                        wrong).error_code == NOT_COORDINATOR
        commit = REQUESTS[OFFSET_COMMIT]
        resp = raw.send(commit(version=8, group_id="where", generation_id_or_member_epoch=-1, member_id="",
                               topics=[commit.OffsetCommitRequestTopic(name="t", partitions=[
                                   commit.OffsetCommitRequestTopic.OffsetCommitRequestPartition(
                                       partition_index=0, committed_offset=1, committed_metadata="")])]),
                        wrong)
        assert resp.topics[0].partitions[0].error_code == NOT_COORDINATOR
        fetch = REQUESTS[OFFSET_FETCH]
        resp = raw.send(fetch(version=8, groups=[fetch.OffsetFetchRequestGroup(group_id="where", topics=None)]),
                        wrong)
        assert resp.groups[0].error_code == NOT_COORDINATOR
        describe = REQUESTS[DESCRIBE_GROUPS]
        assert raw.send(describe(version=5, groups=["where"]), wrong).groups[0].error_code == NOT_COORDINATOR
        listed = REQUESTS[LIST_GROUPS]
        assert [g.group_id for g in raw.send(listed(version=5), node).groups] == ["where"]
        assert raw.send(listed(version=5), wrong).groups == []
        raw.close()


def test_sessions_expire_for_both_protocols():
    configs = {"group.consumer.session.timeout.ms": "800"}
    with fast_cluster(1, configs=configs) as ec:
        ec.create_topic("t", 2)
        raw = RawClient(ec.bootstrap_servers)
        joined = cg_heartbeat(raw, 1, "modern", "m1", 0)
        assert joined.member_epoch == 2
        wait_until(lambda: cg_describe(raw, 1, "modern").group_state == "Empty", timeout=10,
                   what="the silent consumer-protocol member to expire")
        assert cg_heartbeat(raw, 1, "modern", "m1", 2, owned=[]).error_code == UNKNOWN_MEMBER_ID

        join, sync = REQUESTS[JOIN_GROUP], REQUESTS[SYNC_GROUP]
        request = join(version=5, group_id="old", session_timeout_ms=1000, rebalance_timeout_ms=1000,
                       member_id="", protocol_type="consumer",
                       protocols=[join.JoinGroupRequestProtocol(name="range", metadata=b"")])
        first = raw.send(request, 1)
        assert first.error_code == 79                 # MEMBER_ID_REQUIRED (KIP-394)
        request.member_id = first.member_id
        joined = raw.send(request, 1)
        assert (joined.error_code, joined.leader) == (0, first.member_id)
        synced = raw.send(sync(version=3, group_id="old", generation_id=joined.generation_id,
                               member_id=first.member_id, assignments=[]), 1)
        assert synced.error_code == 0
        describe = REQUESTS[DESCRIBE_GROUPS]
        assert raw.send(describe(version=5, groups=["old"]), 1).groups[0].group_state == "Stable"
        wait_until(lambda: raw.send(describe(version=5, groups=["old"]), 1).groups[0].group_state == "Empty",
                   timeout=10, what="the silent classic member to expire")
        raw.close()


def test_offset_delete_rules():
    with fast_cluster(1) as ec:
        ec.create_topic("t", 1)
        ec.create_topic("other", 1)
        raw = RawClient(ec.bootstrap_servers)
        commit, delete = REQUESTS[OFFSET_COMMIT], REQUESTS[OFFSET_DELETE]
        part = commit.OffsetCommitRequestTopic.OffsetCommitRequestPartition

        def commit_both(group, member="", epoch=-1):
            return raw.send(commit(version=9, group_id=group, generation_id_or_member_epoch=epoch,
                                   member_id=member, topics=[
                                       commit.OffsetCommitRequestTopic(name=name, partitions=[
                                           part(partition_index=0, committed_offset=5, committed_leader_epoch=0,
                                                committed_metadata="m")]) for name in ("t", "other")]), 1)

        def delete_offsets(group, topic):
            return raw.send(delete(version=0, group_id=group, topics=[delete.OffsetDeleteRequestTopic(
                name=topic, partitions=[delete.OffsetDeleteRequestTopic.OffsetDeleteRequestPartition(
                    partition_index=0)])]), 1)

        joined = cg_heartbeat(raw, 1, "busy", "m1", 0)
        owned = [REQUESTS[CGH].TopicPartitions(topic_id=tp.topic_id, partitions=tp.partitions)
                 for tp in joined.assignment.topic_partitions]
        assert cg_heartbeat(raw, 1, "busy", "m1", joined.member_epoch, owned=owned).error_code == 0
        assert all(p.error_code == 0 for t in commit_both("busy", "m1", joined.member_epoch).topics
                   for p in t.partitions)
        assert delete_offsets("busy", "t").topics[0].partitions[0].error_code == GROUP_SUBSCRIBED_TO_TOPIC
        assert delete_offsets("busy", "other").topics[0].partitions[0].error_code == 0
        assert delete_offsets(f"none-{uuid.uuid4()}", "t").error_code == 69    # GROUP_ID_NOT_FOUND

        commit_both("simple")                                    # a group-less commit: Empty classic group
        assert delete_offsets("simple", "t").error_code == 0
        fetch = REQUESTS[OFFSET_FETCH]
        fetched = raw.send(fetch(version=9, groups=[fetch.OffsetFetchRequestGroup(group_id="simple", topics=None)],
                                 require_stable=True), 1)
        assert [(t.name, p.committed_offset, p.committed_leader_epoch, p.metadata)
                for t in fetched.groups[0].topics for p in t.partitions] == [("other", 5, 0, "m")]
        raw.close()


@pytest.mark.parametrize("version", [1, 7, 8, 10])
def test_offset_fetch_versions(version):
    with fast_cluster(1) as ec:
        topic_id = ec.create_topic("t", 2).topic_id
        raw = RawClient(ec.bootstrap_servers)
        commit, fetch = REQUESTS[OFFSET_COMMIT], REQUESTS[OFFSET_FETCH]
        raw.send(commit(version=10, group_id="g", generation_id_or_member_epoch=-1, member_id="", topics=[
            commit.OffsetCommitRequestTopic(topic_id=topic_id, partitions=[
                commit.OffsetCommitRequestTopic.OffsetCommitRequestPartition(
                    partition_index=1, committed_offset=11, committed_leader_epoch=2,
                    committed_metadata="meta")])]), 1)
        if version >= 8:
            topic = fetch.OffsetFetchRequestGroup.OffsetFetchRequestTopics(
                name="t", topic_id=topic_id, partition_indexes=[0, 1])
            resp = raw.send(fetch(version=version, groups=[
                fetch.OffsetFetchRequestGroup(group_id="g", topics=[topic])]), 1)
            parts = resp.groups[0].topics[0].partitions
        else:
            resp = raw.send(fetch(version=version, group_id="g", topics=[
                fetch.OffsetFetchRequestTopic(name="t", partition_indexes=[0, 1])]), 1)
            parts = resp.topics[0].partitions
        assert [(p.partition_index, p.committed_offset) for p in parts] == [(0, -1), (1, 11)]
        if version >= 5:
            assert parts[1].committed_leader_epoch == 2 and parts[1].metadata == "meta"
        raw.close()

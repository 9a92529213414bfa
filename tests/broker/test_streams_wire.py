"""Streams groups (KIP-1071) over the wire, with raw StreamsGroupHeartbeat / StreamsGroupDescribe
requests (``kcli.protocol`` classes): topology validation (missing source topics: NotReady),
internal topics created by the coordinator, tasks per subtopology from the partition counts,
standby tasks on other processes, the KIP-1282 creation time (v2 only, stamped once, kept across
a restart with a data dir), the other group APIs' answers for a streams group, streams commits
validated by member epoch, and the version rule of a broker posing as Apache Kafka 4.4."""

from __future__ import annotations

import pytest

from kcli.protocol import REQUESTS
from tests.support.groups import RawClient, coordinator_of, fast_cluster
from tests.support.streams_wire import SGH, heartbeat, topology
from tests.support.waits import Clock

OFFSET_COMMIT, OFFSET_FETCH, DESCRIBE_GROUPS, LIST_GROUPS, DELETE_GROUPS, JOIN_GROUP = 8, 9, 15, 16, 42, 11
CGH, CGD, SGD = 68, 69, 89
UNSUPPORTED_VERSION, INVALID_REQUEST, NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND = 35, 42, 68, 69
UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH, FENCED_MEMBER_EPOCH = 25, 113, 110
MISSING_SOURCE_TOPICS, MISSING_INTERNAL_TOPICS = 1, 3
STREAMS = {"group.streams.initial.rebalance.delay.ms": "0", "group.streams.heartbeat.interval.ms": "500"}
T0 = 1_750_000_000_000


def describe(raw, node, group, version=2):
    fields = dict(group_ids=[group], include_authorized_operations=False)
    if version >= 1:
        fields["include_topology_description"] = False
    return raw.send(REQUESTS[SGD](version=version, **fields), node).groups[0]


def active(response):
    return {(t.subtopology_id, p) for t in response.active_tasks for p in t.partitions}


def standby(response):
    return {(t.subtopology_id, p) for t in response.standby_tasks for p in t.partitions}


@pytest.fixture
def ec():
    clock = Clock()
    with fast_cluster(3, configs=STREAMS, clock=clock) as c:
        c.clock = clock
        c.raw = RawClient(c.bootstrap_servers)
        yield c
        c.raw.close()


def test_missing_source_topic_leaves_the_group_not_ready_until_it_exists(ec):
    node = coordinator_of(ec, "g1")
    joined = heartbeat(ec.raw, node, "g1", "m1", 0)
    assert joined.error_code == 0 and active(joined) == set()
    assert [(s.status_code, s.status_detail) for s in joined.status] == [
        (MISSING_SOURCE_TOPICS, "Source topics in are missing.")]
    d = describe(ec.raw, node, "g1")
    assert (d.group_state, d.topology.epoch, d.topology.subtopologies) == ("NotReady", 0, None)

    ec.create_topic("in", 3)
    again = heartbeat(ec.raw, node, "g1", "m1", joined.member_epoch, active=[])
    assert again.status == [] and active(again) == {("0", 0), ("0", 1), ("0", 2)}   # 3 partitions: 3 tasks
    assert again.member_epoch > joined.member_epoch
    d = describe(ec.raw, node, "g1")
    assert d.group_state == "Stable" and [s.source_topics for s in d.topology.subtopologies] == [["in"]]


def test_the_coordinator_creates_the_changelog_and_standbys_go_to_another_process():
    with fast_cluster(1, configs={**STREAMS, "group.streams.num.standby.replicas": "1"}) as ec:
        raw = RawClient(ec.bootstrap_servers)
        ec.create_topic("in", 2)
        topo = topology(changelog="g2-store-changelog")
        first = heartbeat(raw, 1, "g2", "m1", 0, topo=topo)
        assert [s.status_code for s in first.status] == [MISSING_INTERNAL_TOPICS]
        assert first.status[0].status_detail == "Internal topics are missing: g2-store-changelog"
        changelog = ec.cluster.topics["g2-store-changelog"]             # created, one partition per task
        assert len(changelog.partitions) == 2 and changelog.configs == {"cleanup.policy": "compact"}

        ready = heartbeat(raw, 1, "g2", "m1", first.member_epoch, active=[])
        assert ready.status == [] and active(ready) == {("0", 0), ("0", 1)}
        second = heartbeat(raw, 1, "g2", "m2", 0, process="p2", topo=topo)
        m1 = heartbeat(raw, 1, "g2", "m1", ready.member_epoch, active=[("0", [0, 1])])
        assert len(active(m1)) == 1                                      # one task to revoke
        m1 = heartbeat(raw, 1, "g2", "m1", m1.member_epoch, active=[(s, [p]) for s, p in active(m1)])
        m2 = heartbeat(raw, 1, "g2", "m2", second.member_epoch, active=[])
        assert active(m1) | active(m2) == {("0", 0), ("0", 1)} and not active(m1) & active(m2)
        assert standby(m1) == active(m2) and standby(m2) == active(m1)  # each task's standby on the other process
        d = describe(raw, 1, "g2")
        assert d.topology.subtopologies[0].state_changelog_topics[0].partitions == 2

        bad = topology(source="in", changelog="g6-store-changelog")     # a config the broker refuses
        bad.subtopologies[0].state_changelog_topics[0].topic_configs[0].value = "nope"
        refused = heartbeat(raw, 1, "g6", "m1", 0, topo=bad)
        (status,) = refused.status
        assert status.status_code == MISSING_INTERNAL_TOPICS and status.status_detail.startswith(
            "Internal topics are missing: g6-store-changelog; g6-store-changelog: "
            "Invalid value nope for configuration cleanup.policy")
        assert "g6-store-changelog" not in ec.cluster.topics
        assert describe(raw, 1, "g6").group_state == "NotReady"
        raw.close()


def test_the_creation_time_is_stamped_once_rides_on_v2_and_survives_a_restart(tmp_path):
    clock = Clock(T0)
    with fast_cluster(3, configs=STREAMS, clock=clock, data_dir=tmp_path) as ec:
        ec.create_topic("in", 2)
        raw = RawClient(ec.bootstrap_servers)
        node = coordinator_of(ec, "g3")
        joined = heartbeat(raw, node, "g3", "m1", 0)
        assert joined.group_creation_time_ms == T0
        assert heartbeat(raw, node, "g3", "m1", 0, version=1).group_creation_time_ms == -1   # not in v1
        clock.now_ms = T0 + 60_000                     # a rebalance and a leave do not move it
        heartbeat(raw, node, "g3", "m2", 0, process="p2")
        heartbeat(raw, node, "g3", "m2", -1)
        heartbeat(raw, node, "g3", "m1", -1)
        d = describe(raw, node, "g3")
        assert (d.group_state, d.group_creation_time_ms) == ("Empty", T0)
        assert describe(raw, node, "g3", version=1).group_creation_time_ms == -1
        raw.close()
    clock.now_ms = T0 + 120_000
    with fast_cluster(3, configs=STREAMS, clock=clock, data_dir=tmp_path) as ec:
        raw = RawClient(ec.bootstrap_servers)
        node = coordinator_of(ec, "g3")
        d = describe(raw, node, "g3")
        assert (d.error_code, d.group_state, d.group_creation_time_ms) == (0, "Empty", T0)
        assert d.topology.epoch == 0                   # the topology is kept too
        assert heartbeat(raw, node, "g3", "m3", 0).group_creation_time_ms == T0
        raw.close()


def test_other_group_apis_on_a_streams_group(ec):
    ec.create_topic("in", 1)
    node = coordinator_of(ec, "g4")
    joined = heartbeat(ec.raw, node, "g4", "m1", 0)
    req = REQUESTS
    cgd = ec.raw.send(req[CGD](version=1, group_ids=["g4"], include_authorized_operations=False), node).groups[0]
    assert (cgd.error_code, cgd.error_message) == (GROUP_ID_NOT_FOUND, "Group g4 is not a consumer group.")
    dg = ec.raw.send(req[DESCRIBE_GROUPS](version=5, groups=["g4"], include_authorized_operations=False), node)
    assert (dg.groups[0].error_code, dg.groups[0].group_state) == (0, "Dead")
    dg = ec.raw.send(req[DESCRIBE_GROUPS](version=6, groups=["g4"], include_authorized_operations=False), node)
    assert dg.groups[0].error_code == GROUP_ID_NOT_FOUND
    cgh = ec.raw.send(req[CGH](version=1, group_id="g4", member_id="c1", member_epoch=0, rebalance_timeout_ms=1000,
                               subscribed_topic_names=["in"], topic_partitions=[]), node)
    assert (cgh.error_code, cgh.error_message) == (GROUP_ID_NOT_FOUND, "Group g4 is not a consumer group.")
    listed = ec.raw.send(req[LIST_GROUPS](version=5, states_filter=[], types_filter=["streams"]), node).groups
    assert [(g.group_id, g.group_type, g.protocol_type, g.group_state) for g in listed] == [
        ("g4", "streams", "streams", "Stable")]
    assert describe(ec.raw, coordinator_of(ec, "nope"), "nope").error_code == GROUP_ID_NOT_FOUND
    deleted = ec.raw.send(req[DELETE_GROUPS](version=2, groups_names=["g4"]), node).results[0]
    assert deleted.error_code == NON_EMPTY_GROUP
    sgh = heartbeat(ec.raw, node, "g4", "m9", 3)                      # not joining, unknown member
    assert sgh.error_code == UNKNOWN_MEMBER_ID
    assert heartbeat(ec.raw, node, "g4", "m1", joined.member_epoch + 5, active=[]).error_code == FENCED_MEMBER_EPOCH
    no_topology = REQUESTS[SGH](version=1, group_id="g4", member_id="m5", member_epoch=0, endpoint_information_epoch=0,
                                rebalance_timeout_ms=1000, topology=None, active_tasks=[], standby_tasks=[],
                                warmup_tasks=[])
    bad = ec.raw.send(no_topology, node)
    assert (bad.error_code, bad.error_message) == (INVALID_REQUEST, "Topology must be non-null when (re-)joining.")


def _commit(raw, node, group, member, epoch, offset, version=9):
    req = REQUESTS[OFFSET_COMMIT]
    T = req.OffsetCommitRequestTopic
    return raw.send(req(version=version, group_id=group, generation_id_or_member_epoch=epoch, member_id=member,
                        group_instance_id=None, retention_time_ms=-1, topics=[T(name="in", partitions=[
                            T.OffsetCommitRequestPartition(partition_index=0, committed_offset=offset,
                                                           committed_leader_epoch=-1, committed_metadata="")])]),
                    node).topics[0].partitions[0].error_code


def test_streams_commits_are_checked_by_member_and_epoch_then_empty_group_can_be_deleted(ec):
    ec.create_topic("in", 1)
    node = coordinator_of(ec, "g5")
    epoch = heartbeat(ec.raw, node, "g5", "m1", 0).member_epoch
    assert _commit(ec.raw, node, "g5", "m1", epoch, 5) == 0
    assert _commit(ec.raw, node, "g5", "m1", epoch + 1, 6) == STALE_MEMBER_EPOCH
    assert _commit(ec.raw, node, "g5", "other", epoch, 6) == UNKNOWN_MEMBER_ID
    assert _commit(ec.raw, node, "g5", "", -1, 6) == UNKNOWN_MEMBER_ID          # a non-member, group not empty
    assert _commit(ec.raw, node, "g5", "m1", epoch, 6, version=8) == UNSUPPORTED_VERSION
    req = REQUESTS[OFFSET_FETCH]
    G = req.OffsetFetchRequestGroup

    def fetch(member, member_epoch):
        return ec.raw.send(req(version=9, groups=[G(group_id="g5", member_id=member, member_epoch=member_epoch,
                                                   topics=None)], require_stable=False), node).groups[0]
    fetched = fetch("m1", epoch)
    assert fetched.error_code == 0 and fetched.topics[0].partitions[0].committed_offset == 5
    assert fetch("m1", epoch + 1).error_code == STALE_MEMBER_EPOCH
    assert fetch(None, -1).error_code == 0                                       # an admin's fetch

    heartbeat(ec.raw, node, "g5", "m1", -1)
    assert _commit(ec.raw, node, "g5", "", -1, 7) == 0                           # an empty group: anyone
    cgh = ec.raw.send(REQUESTS[CGH](version=1, group_id="g5", member_id="c1", member_epoch=0, rebalance_timeout_ms=1000,
                                    subscribed_topic_names=["in"], topic_partitions=[]), node)
    assert cgh.error_code == GROUP_ID_NOT_FOUND                                  # not converted, even empty
    deleted = ec.raw.send(REQUESTS[DELETE_GROUPS](version=2, groups_names=["g5"]), node).results[0]
    assert deleted.error_code == 0
    assert describe(ec.raw, node, "g5").error_code == GROUP_ID_NOT_FOUND


@pytest.mark.parametrize("pose_as, versions", [(None, (2, 2)), ("4.4", (1, 1)), ("4.1", None), ("2.8", None)])
def test_posed_versions(pose_as, versions):
    with fast_cluster(1, configs=STREAMS, pose_as=pose_as) as ec:
        raw = RawClient(ec.bootstrap_servers)
        served = {k.api_key: k.max_version for k in raw.send(REQUESTS[18](version=3, client_software_name="t",
                                                                       client_software_version="1"), 1).api_keys}
        assert (None if SGH not in served else (served[SGH], served[SGD])) == versions
        raw.close()

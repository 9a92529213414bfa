"""Share groups (KIP-932) over the wire, with raw requests (``kcli.protocol`` classes) to the
embedded broker: the heartbeat's assignment (partitions spread over members), ShareGroupDescribe,
ListGroups type share, group configs (IncrementalAlterConfigs type GROUP), ShareFetch and
ShareAcknowledge with share sessions, acquisition locks and delivery counts, records archived at
the delivery count limit, the start offset advancing, DescribeShareGroupOffsets (v1: Lag),
AlterShareGroupOffsets, DeleteShareGroupOffsets, DeleteGroups, and pose-as 4.1."""

from __future__ import annotations

import uuid

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.broker_wire import Wire, req
from tests.support.clients import produce
from tests.support.groups import fast_cluster

SGH, SGD, SF, SA, DSGO, ASGO, DLSGO = 76, 77, 78, 79, 90, 91, 92
LIST_GROUPS, DESCRIBE_GROUPS, DELETE_GROUPS, INCREMENTAL_ALTER_CONFIGS, API_VERSIONS = 16, 15, 42, 44, 18
ACCEPT, RELEASE, REJECT = 1, 2, 3
INVALID_CONFIG, NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND = 40, 68, 69
INVALID_RECORD_STATE, SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH = 121, 122, 123
GROUP = 32


@pytest.fixture
def ec():
    with fast_cluster(1, configs={"group.share.min.record.lock.duration.ms": "1000"}) as c:
        c.wire = Wire(c.cluster.node_address(1))
        yield c
        c.wire.close()


def heartbeat(w, group, member, epoch, topics=None):
    return w.send(req(SGH, 1, group_id=group, member_id=member, member_epoch=epoch, rack_id=None,
                      subscribed_topic_names=topics))


def assigned(response):
    return {(tp.topic_id, p) for tp in response.assignment.topic_partitions for p in tp.partitions}


def set_configs(w, group, **configs):
    R = req(INCREMENTAL_ALTER_CONFIGS, 1, resources=[], validate_only=False)
    Res = type(R).AlterConfigsResource
    C = Res.AlterableConfig
    r = w.send(req(INCREMENTAL_ALTER_CONFIGS, 1, validate_only=False, resources=[Res(
        resource_type=GROUP, resource_name=group,
        configs=[C(name=k.replace("_", "."), config_operation=0, value=v) for k, v in configs.items()])]))
    return r.responses[0]


def group_configs(w, group):
    described = w.send(req(32, 4, resources=[type(req(32, 4, resources=[])).DescribeConfigsResource(
        resource_type=GROUP, resource_name=group, configuration_keys=None)], include_synonyms=False,
        include_documentation=False)).results[0]
    assert described.error_code == 0
    return {c.name: (c.value, c.config_source) for c in described.configs}


def share_fetch(w, group, member, epoch, tps=(), acks=(), max_records=500, max_wait_ms=0, forget=()):
    R = type(req(SF, 2, topics=[], forgotten_topics_data=[]))
    T, F = R.FetchTopic, R.ForgottenTopic
    P = T.FetchPartition
    by_topic: dict = {}
    for tp in tps:
        by_topic.setdefault(tp[0], {}).setdefault(tp[1], [])
    for topic_id, p, first, last, types in acks:
        by_topic.setdefault(topic_id, {}).setdefault(p, []).append(
            P.AcknowledgementBatch(first_offset=first, last_offset=last, acknowledge_types=types))
    return w.send(req(SF, 2, group_id=group, member_id=member, share_session_epoch=epoch, max_wait_ms=max_wait_ms,
                      min_bytes=1, max_bytes=1 << 20, max_records=max_records, batch_size=max_records,
                      share_acquire_mode=0, is_renew_ack=False,
                      topics=[T(topic_id=t, partitions=[P(partition_index=p, acknowledgement_batches=b)
                                                        for p, b in ps.items()]) for t, ps in by_topic.items()],
                      forgotten_topics_data=[F(topic_id=t, partitions=ps) for t, ps in forget]))


def acknowledge(w, group, member, epoch, acks):
    T = type(req(SA, 2, topics=[])).AcknowledgeTopic
    P = T.AcknowledgePartition
    by_topic: dict = {}
    for topic_id, p, first, last, types in acks:
        by_topic.setdefault(topic_id, {}).setdefault(p, []).append(
            P.AcknowledgementBatch(first_offset=first, last_offset=last, acknowledge_types=types))
    return w.send(req(SA, 2, group_id=group, member_id=member, share_session_epoch=epoch, is_renew_ack=False,
                      topics=[T(topic_id=t, partitions=[P(partition_index=p, acknowledgement_batches=b)
                                                        for p, b in ps.items()]) for t, ps in by_topic.items()]))


def acquired(response):
    return [(a.first_offset, a.last_offset, a.delivery_count)
            for t in response.responses for p in t.partitions for a in p.acquired_records]


def offsets(w, group, version=1, topics=None):
    R = type(req(DSGO, version, groups=[]))
    G = R.DescribeShareGroupOffsetsRequestGroup
    T = G.DescribeShareGroupOffsetsRequestTopic
    r = w.send(req(DSGO, version, groups=[G(group_id=group, topics=None if topics is None else [
        T(topic_name=n, partitions=ps) for n, ps in topics.items()])]))
    (g,) = r.groups
    return g, {(t.topic_name, p.partition_index): (p.start_offset, p.lag) for t in g.topics for p in t.partitions}


def topic_id(ec, name):
    return ec.cluster.topics[name].topic_id


def test_the_heartbeat_spreads_partitions_and_describe_and_list_show_the_group(ec):
    ec.create_topic("t", 4)
    tid = topic_id(ec, "t")
    a = heartbeat(ec.wire, "g", "m-a", 0, ["t"])
    assert (a.error_code, a.heartbeat_interval_ms) == (0, 5000)
    assert assigned(a) == {(tid, p) for p in range(4)}
    b = heartbeat(ec.wire, "g", "m-b", 0, ["t"])
    a2 = heartbeat(ec.wire, "g", "m-a", a.member_epoch)
    assert a2.member_epoch == b.member_epoch > a.member_epoch
    assert assigned(a2) | assigned(b) == {(tid, p) for p in range(4)}
    assert len(assigned(a2)) == len(assigned(b)) == 2 and not assigned(a2) & assigned(b)

    (d,) = ec.wire.send(req(SGD, 1, group_ids=["g"], include_authorized_operations=False)).groups
    assert (d.error_code, d.group_state, d.assignor_name, d.group_epoch) == (0, "Stable", "simple", b.member_epoch)
    members = {m.member_id: m for m in d.members}
    assert sorted(members) == ["m-a", "m-b"] and members["m-a"].subscribed_topic_names == ["t"]
    assert {(tp.topic_name, p) for tp in members["m-b"].assignment.topic_partitions for p in tp.partitions} == {
        ("t", p) for _, p in assigned(b)}
    listed = ec.wire.send(req(LIST_GROUPS, 5, states_filter=[], types_filter=["share"])).groups
    assert [(g.group_id, g.group_type, g.group_state, g.protocol_type) for g in listed] == [
        ("g", "share", "Stable", "share")]
    assert ec.wire.send(req(LIST_GROUPS, 5, states_filter=[], types_filter=["consumer"])).groups == []
    (other,) = ec.wire.send(req(SGD, 1, group_ids=["nope"], include_authorized_operations=False)).groups
    assert other.error_code == GROUP_ID_NOT_FOUND

    # a member that leaves: its partitions go to the other one
    assert heartbeat(ec.wire, "g", "m-b", -1).member_epoch == -1
    a3 = heartbeat(ec.wire, "g", "m-a", a2.member_epoch)
    assert assigned(a3) == {(tid, p) for p in range(4)}


def test_group_configs_are_checked_against_the_broker_bounds(ec):
    def refusal(**configs):
        r = set_configs(ec.wire, "g", **configs)
        return r.error_code, r.error_message

    # Kafka 4.4's words: the config's own definition, then the broker's bounds
    assert refusal(share_record_lock_duration_ms="500") == (
        INVALID_CONFIG,
        "Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000")
    assert refusal(share_record_lock_duration_ms="70000") == (
        INVALID_CONFIG, "share.record.lock.duration.ms must be in the range 1000 to 60000 inclusive.")
    assert refusal(share_delivery_count_limit="11") == (
        INVALID_CONFIG, "share.delivery.count.limit must be in the range 2 to 10 inclusive.")
    assert refusal(share_auto_offset_reset="middle") == (
        INVALID_CONFIG, "Invalid value middle for configuration share.auto.offset.reset: Invalid value `middle` for "
        "configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format "
        "'by_duration:<PnDTnHnMn.nS>'.")
    assert refusal(share_auto_offset_reset="by_duration:PT-1S")[0] == INVALID_CONFIG
    unknown = set_configs(ec.wire, "g", no_such_config="1")
    assert (unknown.error_code, unknown.error_message) == (INVALID_CONFIG, "Unknown group config name: no.such.config")
    assert set_configs(ec.wire, "g", share_record_lock_duration_ms="1000", share_delivery_count_limit="2",
                       share_auto_offset_reset="earliest").error_code == 0
    assert group_configs(ec.wire, "other") == {                         # the broker's
        "share.auto.offset.reset": ("latest", 5), "share.record.lock.duration.ms": ("30000", 5),
        "share.delivery.count.limit": ("5", 5)}
    assert group_configs(ec.wire, "g") == {
        "share.auto.offset.reset": ("earliest", 8), "share.record.lock.duration.ms": ("1000", 8),
        "share.delivery.count.limit": ("2", 8)}                        # DYNAMIC_GROUP_CONFIG


def test_fetch_acknowledge_delivery_counts_archiving_and_the_start_offset(ec):
    ec.create_topic("t", 1)
    tid = topic_id(ec, "t")
    produce(ec.bootstrap_servers, "t", [(0, f"v{i}") for i in range(10)])
    assert set_configs(ec.wire, "g", share_delivery_count_limit="2", share_auto_offset_reset="earliest",
                       share_record_lock_duration_ms="60000").error_code == 0
    heartbeat(ec.wire, "g", "m", 0, ["t"])
    assert share_fetch(ec.wire, "g", "m", 1, [(tid, 0)]).error_code == SHARE_SESSION_NOT_FOUND

    first = share_fetch(ec.wire, "g", "m", 0, [(tid, 0)], max_records=4)
    assert first.error_code == 0 and first.acquisition_lock_timeout_ms == 60000
    assert acquired(first) == [(0, 3, 1)]
    (part,) = first.responses[0].partitions
    assert part.records and part.current_leader.leader_id == 1
    assert share_fetch(ec.wire, "g", "m", 5).error_code == INVALID_SHARE_SESSION_EPOCH

    # 0 accepted, 1 released, 2 rejected, 3 released; then 1 and 3 come back with delivery count 2
    second = share_fetch(ec.wire, "g", "m", 1, acks=[(tid, 0, 0, 3, [ACCEPT, RELEASE, REJECT, RELEASE])], max_records=3)
    assert second.responses[0].partitions[0].acknowledge_error_code == 0
    assert acquired(second) == [(1, 1, 2), (3, 3, 2), (4, 4, 1)]
    _, got = offsets(ec.wire, "g")
    assert got == {("t", 0): (1, 10 - 1 - 1)}       # start 1 (0 accepted); 2 rejected: done, not lag

    # released at the limit (2 deliveries): archived, never again; the start offset moves past it
    a = acknowledge(ec.wire, "g", "m", 2, [(tid, 0, 1, 4, [RELEASE, 0, ACCEPT, ACCEPT])])
    assert a.error_code == 0 and a.acquisition_lock_timeout_ms == 60000
    assert a.responses[0].partitions[0].error_code == INVALID_RECORD_STATE    # 2 is not held: none applied
    a = acknowledge(ec.wire, "g", "m", 3, [(tid, 0, 1, 1, [RELEASE]), (tid, 0, 3, 4, [ACCEPT])])
    assert a.responses[0].partitions[0].error_code == 0
    _, got = offsets(ec.wire, "g")
    assert got == {("t", 0): (5, 5)}
    rest = share_fetch(ec.wire, "g", "m", 4)
    assert acquired(rest) == [(5, 9, 1)]                      # 1 never returns
    g0, _ = offsets(ec.wire, "g", version=0)
    assert g0.topics[0].partitions[0].lag == -1               # v0 has no Lag


def test_an_expired_lock_returns_the_records_and_a_closed_session_releases_them(ec):
    ec.create_topic("t", 1)
    tid = topic_id(ec, "t")
    produce(ec.bootstrap_servers, "t", [(0, f"v{i}") for i in range(3)])
    set_configs(ec.wire, "g", share_auto_offset_reset="earliest", share_record_lock_duration_ms="1000")
    heartbeat(ec.wire, "g", "a", 0, ["t"])
    heartbeat(ec.wire, "g", "b", 0, ["t"])
    assert acquired(share_fetch(ec.wire, "g", "a", 0, [(tid, 0)])) == [(0, 2, 1)]
    # b waits: a holds everything until its locks expire (1 s), then b gets it, delivered twice
    b = share_fetch(ec.wire, "g", "b", 0, [(tid, 0)], max_wait_ms=8000)
    assert acquired(b) == [(0, 2, 2)]
    closed = share_fetch(ec.wire, "g", "b", -1)
    assert closed.error_code == 0
    assert acquired(share_fetch(ec.wire, "g", "a", 1, max_wait_ms=0)) == [(0, 2, 3)]


def test_alter_and_delete_offsets_and_delete_the_group(ec):
    ec.create_topic("t", 2)
    tid = topic_id(ec, "t")
    produce(ec.bootstrap_servers, "t", [(p, f"v{i}") for p in range(2) for i in range(6)])
    set_configs(ec.wire, "g", share_auto_offset_reset="earliest")
    heartbeat(ec.wire, "g", "m", 0, ["t"])
    share_fetch(ec.wire, "g", "m", 0, [(tid, 0), (tid, 1)], acks=[])
    A = type(req(ASGO, 0, group_id="g", topics=[]))
    T = A.AlterShareGroupOffsetsRequestTopic
    alter = req(ASGO, 0, group_id="g", topics=[T(topic_name="t", partitions=[
        T.AlterShareGroupOffsetsRequestPartition(partition_index=1, start_offset=4)])])
    assert ec.wire.send(alter).error_code == NON_EMPTY_GROUP
    D = type(req(DLSGO, 0, group_id="g", topics=[]))
    delete = req(DLSGO, 0, group_id="g", topics=[D.DeleteShareGroupOffsetsRequestTopic(topic_name="t")])
    assert ec.wire.send(delete).error_code == NON_EMPTY_GROUP
    assert ec.wire.send(req(DELETE_GROUPS, 2, groups_names=["g"])).results[0].error_code == NON_EMPTY_GROUP

    assert heartbeat(ec.wire, "g", "m", -1).error_code == 0          # the last member leaves
    _, got = offsets(ec.wire, "g")
    assert got == {("t", 0): (0, 6), ("t", 1): (0, 6)}   # the leaving member's records went back
    altered = ec.wire.send(alter)
    assert altered.error_code == 0 and altered.responses[0].partitions[0].error_code == 0
    _, got = offsets(ec.wire, "g", topics={"t": [0, 1]})
    assert got == {("t", 0): (0, 6), ("t", 1): (4, 2)}
    past = req(ASGO, 0, group_id="g", topics=[T(topic_name="t", partitions=[
        T.AlterShareGroupOffsetsRequestPartition(partition_index=0, start_offset=10)])])
    assert ec.wire.send(past).error_code == 0
    assert offsets(ec.wire, "g", topics={"t": [0]})[1] == {("t", 0): (10, -4)}     # as Kafka: taken as given
    assert ec.wire.send(delete).responses[0].error_code == 0
    _, got = offsets(ec.wire, "g", topics={"t": [0, 1]})
    assert got == {("t", 0): (-1, -1), ("t", 1): (-1, -1)}
    assert ec.wire.send(req(DELETE_GROUPS, 2, groups_names=["g"])).results[0].error_code == 0
    g, got = offsets(ec.wire, "g")              # as Kafka: no group, no state, no error
    assert (g.error_code, g.topics) == (0, [])
    _, got = offsets(ec.wire, "g", topics={"t": [0], "gone": [3]})
    assert got == {("t", 0): (-1, -1), ("gone", 3): (-1, -1)}


def test_share_state_and_group_configs_survive_a_restart(tmp_path):
    with EmbeddedCluster(data_dir=tmp_path) as ec:
        ec.create_topic("t", 1)
        tid = topic_id(ec, "t")
        produce(ec.bootstrap_servers, "t", [(0, f"v{i}") for i in range(5)])
        w = Wire(ec.cluster.node_address(1))
        set_configs(w, "g", share_auto_offset_reset="earliest")
        heartbeat(w, "g", "m", 0, ["t"])
        assert acquired(share_fetch(w, "g", "m", 0, [(tid, 0)])) == [(0, 4, 1)]
        share_fetch(w, "g", "m", 1, acks=[(tid, 0, 0, 1, [ACCEPT]), (tid, 0, 3, 3, [ACCEPT])], max_records=0)
        w.close()
    with EmbeddedCluster(data_dir=tmp_path) as ec:
        w = Wire(ec.cluster.node_address(1))
        _, got = offsets(w, "g")
        assert got == {("t", 0): (2, 2)}
        assert group_configs(w, "g")["share.auto.offset.reset"] == ("earliest", 8)
        heartbeat(w, "g", "m2", 0, ["t"])
        # the unacknowledged records 2 and 4 come back (delivered twice); 0, 1 and 3 never do
        assert acquired(share_fetch(w, "g", "m2", 0, [(tid, 0)])) == [(2, 2, 2), (4, 4, 2)]
        w.close()


def test_pose_as_41_withholds_every_share_group_api():
    with EmbeddedCluster(pose_as="4.1") as ec:
        w = Wire(ec.cluster.node_address(1))
        keys = {k.api_key for k in w.send(req(API_VERSIONS, 3, client_software_name="t",
                                              client_software_version="1")).api_keys}
        assert keys & {SGH, SGD, SF, SA, DSGO, ASGO, DLSGO} == set()
        assert heartbeat(w, "g", "m", 0, ["t"]) is None          # asked anyway: the connection closes
    with EmbeddedCluster() as ec:
        w = Wire(ec.cluster.node_address(1))
        ranges = {k.api_key: (k.min_version, k.max_version) for k in w.send(req(
            API_VERSIONS, 3, client_software_name="t", client_software_version="1")).api_keys}
        assert [ranges[k] for k in (SGH, SGD, SF, SA, DSGO, ASGO, DLSGO)] == [
            (1, 1), (1, 1), (1, 2), (1, 2), (0, 1), (0, 0), (0, 0)]
        w.close()


def test_a_topic_id_the_broker_does_not_know_is_answered_per_partition(ec):
    ec.create_topic("t", 1)
    heartbeat(ec.wire, "g", "m", 0, ["t"])
    r = share_fetch(ec.wire, "g", "m", 0, [(uuid.uuid4(), 0)])
    assert r.error_code == 0 and r.responses[0].partitions[0].error_code == 100     # UNKNOWN_TOPIC_ID


def test_a_share_group_takes_no_committed_offsets(ec):
    ec.create_topic("t", 1)
    heartbeat(ec.wire, "g", "m", 0, ["t"])
    T = type(req(8, 8, topics=[])).OffsetCommitRequestTopic
    r = ec.wire.send(req(8, 8, group_id="g", generation_id_or_member_epoch=-1, member_id="", group_instance_id=None,
                         retention_time_ms=-1, topics=[T(name="t", partitions=[T.OffsetCommitRequestPartition(
                             partition_index=0, committed_offset=1, committed_leader_epoch=-1,
                             committed_metadata="")])]))
    assert r.topics[0].partitions[0].error_code == GROUP_ID_NOT_FOUND


def test_latest_is_the_default_reset_and_renew_keeps_the_records_held(ec):
    ec.create_topic("t", 1)
    tid = topic_id(ec, "t")
    produce(ec.bootstrap_servers, "t", [(0, f"old{i}") for i in range(3)])
    heartbeat(ec.wire, "g", "a", 0, ["t"])
    heartbeat(ec.wire, "g", "b", 0, ["t"])
    idle = share_fetch(ec.wire, "g", "a", 0, [(tid, 0)])
    assert (idle.error_code, idle.responses) == (0, [])     # latest: the log end, 3; an idle partition: left out
    produce(ec.bootstrap_servers, "t", [(0, f"new{i}") for i in range(2)])
    assert acquired(share_fetch(ec.wire, "g", "a", 1, max_wait_ms=5000)) == [(3, 4, 1)]
    renewed = acknowledge(ec.wire, "g", "a", 2, [(tid, 0, 3, 4, [4])])          # RENEW
    assert renewed.responses[0].partitions[0].error_code == 0
    assert acquired(share_fetch(ec.wire, "g", "b", 0, [(tid, 0)])) == []      # still a's
    accepted = acknowledge(ec.wire, "g", "a", 3, [(tid, 0, 3, 4, [ACCEPT])])
    assert accepted.responses[0].partitions[0].error_code == 0
    _, got = offsets(ec.wire, "g")
    assert got == {("t", 0): (5, 0)}


def test_by_duration_starts_at_the_first_record_within_the_duration(ec):
    ec.create_topic("t", 1)
    tid = topic_id(ec, "t")
    now = ec.call(ec.cluster.now_ms)
    produce(ec.bootstrap_servers, "t", [(0, "old", now - 3_600_000), (0, "older-ish", now - 1_800_000),
                                        (0, "recent", now - 60_000), (0, "now", now)])
    assert set_configs(ec.wire, "g", share_auto_offset_reset="by_duration:PT10M").error_code == 0
    heartbeat(ec.wire, "g", "m", 0, ["t"])
    assert acquired(share_fetch(ec.wire, "g", "m", 0, [(tid, 0)])) == [(2, 3, 1)]


def test_closing_a_share_session_releases_only_what_was_fetched_from_that_node():
    with fast_cluster(3) as ec:
        ec.create_topic("t", 2)
        tid = topic_id(ec, "t")
        leaders = [p.leader for p in ec.cluster.topics["t"].partitions]
        assert leaders[0] != leaders[1]
        produce(ec.bootstrap_servers, "t", [(p, f"v{p}{i}") for p in range(2) for i in range(3)])
        coordinator = Wire(ec.cluster.node_address(ec.call(ec.cluster.coordinator_node, "g")))
        wires = {n: Wire(ec.cluster.node_address(n)) for n in leaders}
        try:
            set_configs(coordinator, "g", share_auto_offset_reset="earliest")
            heartbeat(coordinator, "g", "a", 0, ["t"])
            heartbeat(coordinator, "g", "b", 0, ["t"])
            for p, node in enumerate(leaders):
                assert acquired(share_fetch(wires[node], "g", "a", 0, [(tid, p)])) == [(0, 2, 1)]
            assert share_fetch(wires[leaders[0]], "g", "a", -1).error_code == 0      # a's session on p0's leader
            assert acquired(share_fetch(wires[leaders[1]], "g", "b", 0, [(tid, 1)])) == []   # p1: still a's
            assert acquired(share_fetch(wires[leaders[0]], "g", "b", 0, [(tid, 0)])) == [(0, 2, 2)]
        finally:
            coordinator.close()
            for w in wires.values():
                w.close()


def test_a_group_config_falls_back_on_the_broker_s_static_config():
    with fast_cluster(1, configs={"group.share.delivery.count.limit": "3"}) as ec:
        w = Wire(ec.cluster.node_address(1))
        assert group_configs(w, "g")["share.delivery.count.limit"] == ("3", 4)      # STATIC_BROKER_CONFIG
        w.close()

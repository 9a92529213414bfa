"""StreamsGroupDescribe (API key 89) as kcli.protocol declares it: v0, v1 (KIP-1331's layout, as
Apache Kafka 4.4 has it) and v2 (v1 + GroupCreationTimeMs, KIP-1282) encode and decode back to
the same values; v2 puts the creation time after Members and before AuthorizedOperations, and
nothing else moves."""

from __future__ import annotations

import pytest

import kcli.protocol as proto

Req, R = proto.StreamsGroupDescribeRequest, proto.StreamsGroupDescribeResponse
G = R.DescribedGroup
M = G.Member


def _assignment(active):
    A = M.Assignment
    return A(active_tasks=[A.TaskIds(subtopology_id=s, partitions=ps) for s, ps in active],
             standby_tasks=[], warmup_tasks=[])


def _group(version: int, creation: int = 1_700_000_000_123, **extra):
    topology = G.Topology(epoch=1, subtopologies=[G.Topology.Subtopology(
        subtopology_id="0", source_topics=["in"], repartition_sink_topics=[],
        state_changelog_topics=[G.Topology.Subtopology.TopicInfo(
            name="app-store-changelog", partitions=2, replication_factor=1,
            topic_configs=[G.Topology.Subtopology.TopicInfo.KeyValue(key="k", value="v")])],
        repartition_source_topics=[])])
    member = M(member_id="m1", member_epoch=3, instance_id=None, rack_id="r", client_id="app-1",
               client_host="/127.0.0.1", topology_epoch=1, process_id="p-1",
               user_endpoint=M.Endpoint(host="h", port=65535),
               client_tags=[M.KeyValue(key="a", value="b")],
               task_offsets=[M.TaskOffset(subtopology_id="0", partition=1, offset=42)], task_end_offsets=[],
               assignment=_assignment([("0", [0, 1])]), target_assignment=_assignment([("0", [1])]),
               is_classic=False)
    fields = dict(error_code=0, error_message=None, group_id="app", group_state="Stable", group_epoch=5,
                  assignment_epoch=4, topology=topology, members=[member], authorized_operations=-2147483648)
    if version >= 1:
        fields.update(topology_description=None, topology_description_status=2, assignor_name="sticky")
    if version >= 2:
        fields["group_creation_time_ms"] = creation
    fields.update(extra)
    return G(**fields)


def _response(version: int, **extra):
    return R(version=version, throttle_time_ms=0, groups=[_group(version, **extra)])


@pytest.mark.parametrize("version", [0, 1, 2])
def test_the_response_round_trips_at_each_version(version):
    data = _response(version).encode()
    (g,) = R.decode(data, version=version).groups
    assert (g.group_id, g.group_state, g.group_epoch, g.assignment_epoch) == ("app", "Stable", 5, 4)
    assert g.topology.subtopologies[0].state_changelog_topics[0].name == "app-store-changelog"
    (m,) = g.members
    assert (m.member_id, m.client_id, m.process_id, m.user_endpoint.port) == ("m1", "app-1", "p-1", 65535)
    assert [(t.subtopology_id, list(t.partitions)) for t in m.assignment.active_tasks] == [("0", [0, 1])]
    assert [(t.partition, t.offset) for t in m.task_offsets] == [(1, 42)]
    assert g.authorized_operations == -2147483648
    if version >= 1:
        assert (g.topology_description, g.topology_description_status, g.assignor_name) == (None, 2, "sticky")
    if version >= 2:
        assert g.group_creation_time_ms == 1_700_000_000_123


def test_a_topology_description_round_trips_at_v1():
    TD = G.TopologyDescription
    node = TD.TopologyDescriptionSubtopology.TopologyDescriptionNode(
        name="KSTREAM-SOURCE-0", node_type=0, source_topics=["in"], sink_topic=None, stores=[],
        successors=["KSTREAM-SINK-1"])
    desc = TD(subtopologies=[TD.TopologyDescriptionSubtopology(subtopology_id="0", nodes=[node])], global_stores=[])
    (g,) = R.decode(_response(1, topology_description=desc).encode(), version=1).groups
    (n,) = g.topology_description.subtopologies[0].nodes
    assert (n.name, list(n.source_topics), n.sink_topic, list(n.successors)) == (
        "KSTREAM-SOURCE-0", ["in"], None, ["KSTREAM-SINK-1"])


def test_v2_is_v1_with_the_creation_time_before_authorized_operations():
    v1 = _response(1, authorized_operations=0x01020304).encode()
    v2 = _response(2, creation=0x0A0B0C0D0E0F1011, authorized_operations=0x01020304).encode()
    at = v1.index(bytes.fromhex("01020304"))
    assert v2 == v1[:at] + bytes.fromhex("0A0B0C0D0E0F1011") + v1[at:]


@pytest.mark.parametrize("version", [0, 1, 2])
def test_the_request_round_trips(version):
    fields = dict(group_ids=["a", "b"], include_authorized_operations=False)
    if version >= 1:
        fields["include_topology_description"] = True
    decoded = Req.decode(Req(version=version, **fields).encode(), version=version)
    assert list(decoded.group_ids) == ["a", "b"]
    assert getattr(decoded, "include_topology_description", False) is (version >= 1)


def test_list_groups_filters_by_type_from_v5():
    from kafka.protocol.admin.groups import ListGroupsRequest

    r = ListGroupsRequest(version=5, states_filter=[], types_filter=["streams"])
    assert list(ListGroupsRequest.decode(r.encode(), version=5).types_filter) == ["streams"]

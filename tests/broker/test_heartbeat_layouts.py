"""The embedded broker's ConsumerGroupHeartbeat v2 and StreamsGroupHeartbeat v2 answers, read
through real requests with three layouts (docs/kips.md, "KIP-1327 as accepted upstream"):

- accepted KIP-1327's: v1 plus a tagged NewPartitions (tag 0) in each assigned topic (as
  thomhurst/Dekaf#2314 reads it); for streams, Apache Kafka 4.4.0's v1 fields;
- kcli's: KIP-1282's GroupCreationTimeMs as a top-level tagged field (tag 1282);
- the seed's: GroupCreationTimeMs positional, before Assignment (KIP-1282, "Protocol changes").

A client of the accepted layout reads every byte of the answer, the same member, epoch and
assignment as kcli's reader, and skips the tag it does not know; kcli's readers get the group
creation time. The seed's positional layout and the accepted one cannot both read one answer:
the byte after HeartbeatIntervalMs is the int64's high byte for the one and Assignment's
presence marker for the other. The broker speaks the layout a released client will use."""

from __future__ import annotations

import copy
import io

from kafka.protocol.schemas.fields.struct import StructField
from kafka.protocol.schemas.load_json import load_json

import kcli.protocol.schemas as kcli_schemas
from kcli.admin.client import KafkaAdmin
from kcli.admin.settings import ClientSettings
from kcli.protocol import REQUESTS, RESPONSES
from tests.support.broker_wire import Wire
from tests.support.groups import coordinator_of, fast_cluster
from tests.support.streams_wire import topology
from tests.support.waits import Clock

CGH, SGH = 68, 88
T0 = 1_750_000_000_000

_HEAD = [
    {"name": "ThrottleTimeMs", "type": "int32", "versions": "0+"},
    {"name": "ErrorCode", "type": "int16", "versions": "0+"},
    {"name": "ErrorMessage", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": "null"},
    {"name": "MemberId", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": "null"},
    {"name": "MemberEpoch", "type": "int32", "versions": "0+"},
    {"name": "HeartbeatIntervalMs", "type": "int32", "versions": "0+"},
]


def _assignment(topic_extra: list) -> dict:
    return {"name": "Assignment", "type": "Assignment", "versions": "0+", "nullableVersions": "0+",
            "default": "null", "fields": [
                {"name": "TopicPartitions", "type": "[]TopicPartitions", "versions": "0+", "fields": [
                    {"name": "TopicId", "type": "uuid", "versions": "0+"},
                    {"name": "Partitions", "type": "[]int32", "versions": "0+"}, *topic_extra]}]}


def _response(name: str, fields: list) -> dict:
    return {"apiKey": CGH, "type": "response", "name": name, "validVersions": "0-2",
            "flexibleVersions": "0+", "fields": fields}


# Accepted KIP-1327: v2 is v1 plus NewPartitions, tagged (tag 0), in each assigned topic.
ACCEPTED = StructField(_response("ConsumerGroupHeartbeatResponse", [*_HEAD, _assignment([
    {"name": "NewPartitions", "type": "[]int32", "versions": "2+", "taggedVersions": "2+", "tag": 0,
     "nullableVersions": "2+", "default": "null"}])]))
# The seed (KIP-1282): GroupCreationTimeMs, int64, "versions": "2+", before Assignment, untagged.
SEED = StructField(_response("ConsumerGroupHeartbeatResponse", [
    *_HEAD, {"name": "GroupCreationTimeMs", "type": "int64", "versions": "2+", "default": "-1"},
    _assignment([])]))


def _streams_layouts() -> tuple[StructField, StructField]:
    """Apache Kafka 4.4.0's StreamsGroupHeartbeatResponse (kcli's schema file is it, v0-v1, plus
    the v2 field, dropped here), and the seed's: GroupCreationTimeMs after TaskOffsetIntervalMs."""
    apache = load_json("StreamsGroupHeartbeatResponse", package=kcli_schemas)
    apache["fields"] = [f for f in apache["fields"] if f["name"] != "GroupCreationTimeMs"]
    seed = copy.deepcopy(apache)
    at = [f["name"] for f in seed["fields"]].index("TaskOffsetIntervalMs") + 1
    seed["fields"].insert(at, {"name": "GroupCreationTimeMs", "type": "int64", "versions": "2+", "default": "-1"})
    return StructField(apache), StructField(seed)


def _read(layout: StructField, payload: bytes, version: int) -> tuple[dict | None, int]:
    """The answer's body read with ``layout``: (fields, bytes left over), (None, -1) when the
    layout cannot read it at all."""
    assert payload[4] == 0                     # response header v1: correlation id, no tags
    body = io.BytesIO(payload[5:])
    try:
        fields = layout.decode(body, version=version, compact=True, tagged=True)
    except Exception:                           # noqa: BLE001 - any failure is "cannot read it"
        return None, -1
    return fields, len(payload) - 5 - body.tell()


def _send(wire: Wire, request, version: int) -> bytes:
    wire.correlation_id += 1
    request.with_header(correlation_id=wire.correlation_id, client_id="layouts")
    payload = wire.send_raw(request.encode(version=version, header=True, framed=True))
    assert payload is not None
    return payload


def _cg_join(group: str, member: str, version: int):
    return REQUESTS[CGH](version=version, group_id=group, member_id=member, member_epoch=0,
                         rebalance_timeout_ms=30000, subscribed_topic_names=["t"], topic_partitions=[])


def _topics(assignment) -> list:
    return sorted((str(t["topic_id"]), sorted(t["partitions"])) for t in assignment["topic_partitions"])


def test_consumer_heartbeat_v2_reads_as_accepted_kip_1327_and_as_kcli():
    with fast_cluster(1, clock=Clock(T0)) as ec:
        ec.create_topic("t", 3)
        node = coordinator_of(ec, "layouts")
        wire = Wire(ec.cluster.node_address(node))
        try:
            v2 = _send(wire, _cg_join("layouts", "m1", 2), 2)
            v1 = _send(wire, _cg_join("layouts-v1", "m1", 1), 1)
        finally:
            wire.close()

        kcli = RESPONSES[CGH].decode(v2, version=2, header=True)
        assert kcli.error_code == 0 and kcli.group_creation_time_ms == T0
        assert len(kcli.assignment.topic_partitions[0].partitions) == 3

        accepted, left = _read(ACCEPTED, v2, 2)
        assert left == 0                                  # every byte read, none beyond
        assert (accepted["member_id"], accepted["member_epoch"], accepted["heartbeat_interval_ms"]) == \
            (kcli.member_id, kcli.member_epoch, kcli.heartbeat_interval_ms)
        assert _topics(accepted["assignment"]) == \
            [(str(t.topic_id), sorted(t.partitions)) for t in kcli.assignment.topic_partitions]
        # v2 is v1 to this reader: the v1 answer of another group reads the same way
        assert _read(ACCEPTED, v1, 1)[1] == 0

        seed, _ = _read(SEED, v2, 2)                      # the positional layout is not what v2 speaks
        assert seed is None or seed["group_creation_time_ms"] != T0

        admin = KafkaAdmin(ClientSettings(bootstrap_servers=ec.bootstrap_servers))
        try:                                             # kcli's own readers
            assert admin.consumer_group_heartbeat("layouts-admin", "m9", 0, ["t"]).group_creation_ms == T0
            assert admin.group_creation_times(["layouts"]) == {"layouts": T0}
        finally:
            admin.close()


def _sg_join(group: str, version: int):
    req = REQUESTS[SGH]
    return req(version=version, group_id=group, member_id="m1", member_epoch=0, endpoint_information_epoch=0,
               rebalance_timeout_ms=30000, topology=topology(), active_tasks=[], standby_tasks=[],
               warmup_tasks=[], process_id="p1", client_tags=[])


def test_streams_heartbeat_v2_reads_as_apache_v1_and_as_kcli():
    apache, seed_layout = _streams_layouts()
    with fast_cluster(1, clock=Clock(T0), configs={"group.streams.initial.rebalance.delay.ms": "0"}) as ec:
        ec.create_topic("in", 2)
        node = coordinator_of(ec, "s-layouts")
        wire = Wire(ec.cluster.node_address(node))
        try:
            v2 = _send(wire, _sg_join("s-layouts", 2), 2)
        finally:
            wire.close()

        kcli = RESPONSES[SGH].decode(v2, version=2, header=True)
        assert kcli.error_code == 0 and kcli.group_creation_time_ms == T0

        read, left = _read(apache, v2, 2)
        assert left == 0
        assert (read["member_epoch"], read["task_offset_interval_ms"], read["acceptable_recovery_lag"]) == \
            (kcli.member_epoch, kcli.task_offset_interval_ms, kcli.acceptable_recovery_lag)
        assert [(t["subtopology_id"], t["partitions"]) for t in read["active_tasks"] or []] == \
            [(t.subtopology_id, t.partitions) for t in kcli.active_tasks or []]

        seed, _ = _read(seed_layout, v2, 2)
        assert seed is None or seed["group_creation_time_ms"] != T0

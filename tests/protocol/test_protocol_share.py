"""The share-group messages (KIP-932) as kcli.protocol declares them, at the versions Apache Kafka
4.4.0 serves: each request and response encodes and decodes back to the same values; ShareFetch
v2 adds ShareAcquireMode and IsRenewAck, DescribeShareGroupOffsets v1 adds Lag."""

from __future__ import annotations

import uuid

import pytest

import kcli.protocol as proto

TOPIC = uuid.UUID("6f1b2a9e-58c4-4a1e-9a57-0e1f2d3c4b5a")


@pytest.mark.parametrize("name,key,versions", [
    ("ShareGroupHeartbeat", 76, (1, 1)), ("ShareGroupDescribe", 77, (1, 1)),
    ("ShareFetch", 78, (1, 2)), ("ShareAcknowledge", 79, (1, 2)),
    ("DescribeShareGroupOffsets", 90, (0, 1)), ("AlterShareGroupOffsets", 91, (0, 0)),
    ("DeleteShareGroupOffsets", 92, (0, 0))])
def test_each_api_has_4_4s_key_and_versions(name, key, versions):
    for kind in ("Request", "Response"):
        cls = getattr(proto, f"{name}{kind}")
        assert cls.API_KEY == key
        assert tuple(cls.valid_versions) == versions
    assert proto.REQUESTS[key] is getattr(proto, f"{name}Request")


def test_the_heartbeat_round_trips():
    Req, Resp = proto.ShareGroupHeartbeatRequest, proto.ShareGroupHeartbeatResponse
    req = Req.decode(Req(version=1, group_id="g", member_id="m", member_epoch=0, rack_id=None,
                         subscribed_topic_names=["t"]).encode(), version=1)
    assert (req.group_id, req.member_id, req.member_epoch, list(req.subscribed_topic_names)) == ("g", "m", 0, ["t"])
    A = Resp.Assignment
    resp = Resp(version=1, throttle_time_ms=0, error_code=0, error_message=None, member_id="m", member_epoch=2,
                heartbeat_interval_ms=5000,
                assignment=A(topic_partitions=[A.TopicPartitions(topic_id=TOPIC, partitions=[0, 2])]))
    got = Resp.decode(resp.encode(), version=1)
    assert (got.member_epoch, got.heartbeat_interval_ms) == (2, 5000)
    assert [(tp.topic_id, list(tp.partitions)) for tp in got.assignment.topic_partitions] == [(TOPIC, [0, 2])]


@pytest.mark.parametrize("version", [1, 2])
def test_share_fetch_round_trips(version):
    Req = proto.ShareFetchRequest
    T = Req.FetchTopic
    P = T.FetchPartition
    fields = dict(group_id="g", member_id="m", share_session_epoch=3, max_wait_ms=500, min_bytes=1,
                  max_bytes=1 << 20, max_records=500, batch_size=500,
                  topics=[T(topic_id=TOPIC, partitions=[P(partition_index=1, acknowledgement_batches=[
                      P.AcknowledgementBatch(first_offset=4, last_offset=6, acknowledge_types=[1, 2, 3])])])],
                  forgotten_topics_data=[])
    if version >= 2:
        fields.update(share_acquire_mode=1, is_renew_ack=True)
    req = Req.decode(Req(version=version, **fields).encode(), version=version)
    (batch,) = req.topics[0].partitions[0].acknowledgement_batches
    assert (batch.first_offset, batch.last_offset, list(batch.acknowledge_types)) == (4, 6, [1, 2, 3])
    assert (req.max_records, req.share_session_epoch) == (500, 3)
    if version >= 2:
        assert (req.share_acquire_mode, req.is_renew_ack) == (1, True)
    Resp = proto.ShareFetchResponse
    RT = Resp.ShareFetchableTopicResponse
    RP = RT.PartitionData
    part = RP(partition_index=1, error_code=0, error_message=None, acknowledge_error_code=0,
              acknowledge_error_message=None, current_leader=RP.LeaderIdAndEpoch(leader_id=1, leader_epoch=0),
              records=b"", acquired_records=[RP.AcquiredRecords(first_offset=7, last_offset=9, delivery_count=2)])
    resp = Resp(version=version, throttle_time_ms=0, error_code=0, error_message=None,
                acquisition_lock_timeout_ms=30000, responses=[RT(topic_id=TOPIC, partitions=[part])],
                node_endpoints=[])
    got = Resp.decode(resp.encode(), version=version)
    (acquired,) = got.responses[0].partitions[0].acquired_records
    assert (got.acquisition_lock_timeout_ms, acquired.first_offset, acquired.last_offset, acquired.delivery_count) == (
        30000, 7, 9, 2)


def test_share_acknowledge_v2_carries_the_lock_timeout():
    Resp = proto.ShareAcknowledgeResponse
    resp = Resp(version=2, throttle_time_ms=0, error_code=0, error_message=None, acquisition_lock_timeout_ms=1234,
                responses=[], node_endpoints=[])
    assert Resp.decode(resp.encode(), version=2).acquisition_lock_timeout_ms == 1234
    assert len(resp.encode(version=1)) < len(resp.encode(version=2))


@pytest.mark.parametrize("version", [0, 1])
def test_describe_offsets_round_trips_with_lag_from_v1(version):
    Resp = proto.DescribeShareGroupOffsetsResponse
    G = Resp.DescribeShareGroupOffsetsResponseGroup
    T = G.DescribeShareGroupOffsetsResponseTopic
    P = T.DescribeShareGroupOffsetsResponsePartition
    resp = Resp(version=version, throttle_time_ms=0, groups=[G(group_id="g", error_code=0, error_message=None, topics=[
        T(topic_name="t", topic_id=TOPIC, partitions=[P(partition_index=0, start_offset=12, leader_epoch=0, lag=5,
                                                        error_code=0, error_message=None)])])])
    (p,) = Resp.decode(resp.encode(), version=version).groups[0].topics[0].partitions
    assert p.start_offset == 12
    assert p.lag == (5 if version >= 1 else -1)

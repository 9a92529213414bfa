"""kcli.protocol's decoders for strings and unsigned varints (they were a tenth of a 10k-group
ListGroups' and DescribeGroups' decoding): an ASCII string is cut from the answer decoded once as
Latin-1, any other decoded from its UTF-8 bytes; a one-byte varint is read in one step. Every
value decodes as kafka-python encoded it: non-ASCII, null, empty and long strings (two-byte
lengths), arrays of more than 127 items, compact (flexible) and classic versions."""

from __future__ import annotations

import pytest

import kcli.protocol  # noqa: F401  first: its decoders replace kafka-python's

NAMES = ["g", "", "é-ünïcode-☃", "𝄞-clef", "x" * 127, "y" * 128, "z" * 20_000, "ascii-after", "ш"]


def _groups(n: int) -> list[str]:
    return [NAMES[i % len(NAMES)] + (f"-{i}" if i >= len(NAMES) else "") for i in range(n)]


@pytest.mark.parametrize("version", [2, 3, 5])          # 3+: compact strings and arrays
def test_list_groups_answers_decode_as_encoded(version):
    from kafka.protocol.admin.groups import ListGroupsResponse as Resp

    names = _groups(300)
    fields = {"group_state": "Stable"} if version >= 4 else {}
    groups = [Resp.ListedGroup(group_id=g, protocol_type="consumer" if i % 2 else "", **fields)
              for i, g in enumerate(names)]
    data = Resp(version=version, throttle_time_ms=0, error_code=0, groups=groups).encode(version=version)
    decoded = Resp.decode(data, version=version)
    assert [g.group_id for g in decoded.groups] == names
    assert [g.protocol_type for g in decoded.groups] == ["consumer" if i % 2 else "" for i in range(300)]


@pytest.mark.parametrize("version", [4, 5, 6])          # 5+: compact
def test_describe_groups_answers_decode_as_encoded(version):
    from kafka.protocol.admin.groups import DescribeGroupsResponse as Resp

    members = [Resp.DescribedGroup.DescribedGroupMember(
        member_id=f"m-{name}", group_instance_id=None if i % 2 else name, client_id=name,
        client_host="/10.0.0.1", member_metadata=b"\xff\x00meta", member_assignment=b"")
        for i, name in enumerate(NAMES)]
    groups = [Resp.DescribedGroup(error_code=0, group_id=name, group_state="Stable", protocol_type="consumer",
                                  protocol_data="range", members=members if i == 2 else [],
                                  authorized_operations={31}) for i, name in enumerate(_groups(200))]
    data = Resp(version=version, throttle_time_ms=0, groups=groups).encode(version=version)
    decoded = Resp.decode(data, version=version)
    assert [g.group_id for g in decoded.groups] == _groups(200)
    got = decoded.groups[2].members
    assert [(m.member_id, m.group_instance_id, m.client_id, bytes(m.member_metadata)) for m in got] == [
        (f"m-{name}", None if i % 2 else name, name, b"\xff\x00meta") for i, name in enumerate(NAMES)]


def test_a_string_that_is_not_utf8_still_fails_to_decode():
    from kafka.protocol.admin.groups import ListGroupsResponse as Resp

    data = bytearray(Resp(version=5, throttle_time_ms=0, error_code=0, groups=[Resp.ListedGroup(
        group_id="ab", protocol_type="", group_state="", group_type="")]).encode(version=5))
    data[data.index(b"ab")] = 0xC3                      # a lead byte, then 'b': not UTF-8
    with pytest.raises(UnicodeDecodeError):
        Resp.decode(bytes(data), version=5)


def _latin1_view(message, version: int) -> bool:
    decoder = message._struct.compiled_decode_from(
        version, compact=message.flexible_version_q(version), tagged=message.flexible_version_q(version),
        data_class=message[None])
    return "_text" in decoder.__code__.co_varnames


def test_messages_of_record_batches_are_not_copied_whole_as_latin1():
    """A Produce request (the embedded broker decodes it with these decoders) and a Fetch answer
    carry record batches of any size: their decoders keep kafka-python's string decoding, no
    Latin-1 copy of the whole message; group answers and requests keep the one-slice strings."""
    from kafka.protocol.admin.groups import DescribeGroupsRequest, DescribeGroupsResponse, ListGroupsResponse
    from kafka.protocol.consumer.fetch import FetchResponse
    from kafka.protocol.producer.produce import ProduceRequest

    for version in (3, 9, ProduceRequest.max_version):
        assert not _latin1_view(ProduceRequest, version)
    for version in (4, 12, FetchResponse.max_version):
        assert not _latin1_view(FetchResponse, version)
    assert _latin1_view(ListGroupsResponse, 5) and _latin1_view(DescribeGroupsResponse, 5)
    assert _latin1_view(DescribeGroupsRequest, 5)

    records = b"\x00\xffrecord batch \xe9" * 1000
    request = ProduceRequest(version=9, transactional_id=None, acks=-1, timeout_ms=1000, topic_data=[
        ProduceRequest.TopicProduceData(name="t-é", partition_data=[
            ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=records)])])
    decoded = ProduceRequest.decode(request.encode(version=9), version=9)
    assert decoded.topic_data[0].name == "t-é"
    assert bytes(decoded.topic_data[0].partition_data[0].records) == records

"""The group answers kcli reads most (ListGroups, DescribeGroups: 10k groups at a time) decode as
kafka-python encoded them: non-ASCII, null, empty and long strings (two-byte lengths), arrays of
more than 127 items (varints of two bytes), compact (flexible) and classic versions."""

from __future__ import annotations

import pytest

import kcli.protocol  # noqa: F401  first: kafka-python's modules load without the whole client

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

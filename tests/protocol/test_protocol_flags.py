"""32-bit flag fields (AuthorizedOperations), as kcli reads them: the "not asked for" value
(INT32_MIN) decodes to None, any other to its set of bits."""

from __future__ import annotations

import kcli.protocol  # noqa: F401  first: kafka-python's modules load without the whole client


def _round_trip(operations: set[int]):
    """Encoded as kafka-python encodes the flags (a set of bits; {31} is INT32_MIN), decoded."""
    from kafka.protocol.admin.groups import DescribeGroupsResponse as Resp

    group = Resp.DescribedGroup(error_code=0, group_id="g", group_state="Empty", protocol_type="consumer",
                                protocol_data="", members=[], authorized_operations=operations)
    data = Resp(version=6, throttle_time_ms=0, groups=[group]).encode(version=6)
    return Resp.decode(data, version=6).groups[0].authorized_operations


def test_authorized_operations_not_asked_for_decode_to_none():
    assert _round_trip({31}) is None


def test_authorized_operations_decode_to_their_bits():
    assert _round_trip({1, 3}) == {1, 3}
    assert _round_trip(set()) == set()
    assert _round_trip({3, 31}) == {3, 31}

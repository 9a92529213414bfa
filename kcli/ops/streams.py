"""Streams groups (KIP-1071; kafka-streams-groups --describe): which of the described groups are
streams groups, and the rows of their offsets view. No client library speaks StreamsGroupDescribe:
it goes over kcli's own connection (KipClient.describe_streams_groups); the creation time
(KIP-1282) comes from StreamsGroupDescribe v2+ only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kcli.errors import OperationError
from kcli.model import GroupDescription, GroupMember, GroupOffsetRow, StreamsGroupDescription
from kcli.ops.groups import fill_offsets

if TYPE_CHECKING:
    from kcli.admin import Admin


def describe_any(admin: Admin, ids: list[str]) -> tuple[list[GroupDescription], dict[str, StreamsGroupDescription]]:
    """Every group of ``ids`` (in that order) as the group commands see it: DescribeConsumerGroups,
    and for a group it does not know, StreamsGroupDescribe (one per coordinator, only for those):
    a streams group stands in as a GroupDescription of type "Streams" (its state, members and
    creation time), so resets refuse it while it has members, as they refuse a consumer group.
    Also the streams groups' own descriptions, by id. A group neither knows stays ``exists=False``."""
    descs = admin.describe_groups(ids)
    missing = [d.group_id for d in descs if not d.exists]
    streams = admin.describe_streams_groups(missing) if missing else {}
    return [as_group(streams[d.group_id]) if d.group_id in streams else d for d in descs], streams


def as_group(d: StreamsGroupDescription) -> GroupDescription:
    """A streams group as a GroupDescription (type "Streams"; members without assignments)."""
    return GroupDescription(d.group_id, d.state, "Streams", d.assignor or "", d.coordinator,
                            [GroupMember(m.member_id, m.client_id, m.host, [], m.instance_id, m.member_epoch)
                             for m in d.members], d.group_epoch, d.target_assignment_epoch, d.creation_time_ms)


def describe(admin: Admin, ids: list[str]) -> tuple[list[GroupDescription], list[StreamsGroupDescription]]:
    """The consumer groups (DescribeConsumerGroups) and the streams groups among ``ids``, each
    sorted by id. A group neither describe knows fails the command, as a missing group does in
    the Java tools."""
    descs, streams = describe_any(admin, ids)
    for d in descs:
        if not d.exists:
            raise OperationError(f"Group {d.group_id} not found.")
    return (sorted((d for d in descs if d.group_id not in streams), key=lambda d: d.group_id),
            [streams[g] for g in sorted(streams)])


def state_notice(d: StreamsGroupDescription) -> str | None:
    """kafka-streams-groups' notice (stderr) for a group without members, or None."""
    if not d.members:
        return f"Streams group '{d.group_id}' has no active members."
    return None


def offset_rows(admin: Admin, d: StreamsGroupDescription) -> list[GroupOffsetRow]:
    """The partitions of the input topics each member's active tasks read (the member with
    them), then every other partition the group has committed (a stopped application's too:
    kcli's addition); committed offsets from one OffsetFetch, log ends from one ListOffsets per
    leader. Sorted by topic and partition."""
    committed = {(c.topic, c.partition): c for c in admin.committed_offsets(d.group_id)}
    owner: dict[tuple[str, int], object] = {}
    for m in d.members:
        for sub, partition in m.active:
            for topic in d.source_topics.get(sub, []):
                owner.setdefault((topic, partition), m)
    rows = []
    for tp in sorted(set(owner) | set(committed)):
        m = owner.get(tp)
        rows.append(GroupOffsetRow(d.group_id, tp[0], tp[1], None, None, None,
                                   m.member_id if m else None, m.host if m else None,
                                   m.client_id if m else None))
    return fill_offsets(admin, rows, committed)

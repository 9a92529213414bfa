"""Streams groups (KIP-1071; kafka-streams-groups --describe): which of the described groups are
streams groups, and the rows of their offsets view. No client library speaks StreamsGroupDescribe:
it goes over kcli's own connection (KipClient.describe_streams_groups); the creation time
(KIP-1282) comes from StreamsGroupDescribe v2+ only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kcli.errors import OperationError
from kcli.model import GroupDescription, GroupOffsetRow, StreamsGroupDescription
from kcli.ops.groups import fill_offsets

if TYPE_CHECKING:
    from kcli.admin import Admin


def describe(admin: Admin, ids: list[str]) -> tuple[list[GroupDescription], list[StreamsGroupDescription]]:
    """The consumer groups (DescribeConsumerGroups) and the streams groups among ``ids``, each
    sorted by id. A group the consumer-group describe does not know is asked for as a streams
    group (one StreamsGroupDescribe per coordinator, only for those); one neither knows fails the
    command, as a missing group does in the Java tools."""
    descs = admin.describe_groups(ids)
    missing = [d.group_id for d in descs if not d.exists]
    streams = admin.describe_streams_groups(missing) if missing else {}
    for gid in missing:
        if gid not in streams:
            raise OperationError(f"Group {gid} not found.")
    return (sorted((d for d in descs if d.exists), key=lambda d: d.group_id),
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

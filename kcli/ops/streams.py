"""Streams groups (KIP-1071; kafka-streams-groups --describe): which of the described groups are
streams groups, and the rows of their offsets view. No client library speaks StreamsGroupDescribe:
it goes over kcli's own connection (WireClient.describe_streams_groups); the creation time
(KIP-1282) comes from StreamsGroupDescribe v2+ only."""

from __future__ import annotations

import re

from kcli import javaorder
from kcli.errors import OperationError
from kcli.model import (BrokerError, GroupDescription, GroupMember, GroupOffsetRow, StreamsGroupDescription,
                        TopicSize)
from kcli.ops.groups import fill_offsets

TYPE_CHECKING = False                 # typing's, without importing typing (~4 ms of a drop-in)
if TYPE_CHECKING:
    from kcli.admin import Admin


def describe_any(admin: Admin, ids: list[str]) -> tuple[list[GroupDescription], dict[str, StreamsGroupDescription]]:
    """Every group of ``ids`` (in that order) as the group commands see it: DescribeConsumerGroups,
    and for a group it does not know, StreamsGroupDescribe (one per coordinator, only for those):
    a streams group stands in as a GroupDescription of type "Streams" (its state, members and
    creation time), so resets refuse it while it has members, as they refuse a consumer group.
    Also the streams groups' own descriptions, by id. A group neither knows stays ``exists=False``.
    No id, no request (--all-groups on a cluster without groups)."""
    if not ids:
        return [], {}
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
    """``rows_of`` the group with its committed offsets from one OffsetFetch, log ends from one
    ListOffsets per leader."""
    committed = {(c.topic, c.partition): c for c in admin.committed_offsets(d.group_id)}
    return fill_offsets(admin, rows_of(d, committed), committed)


def rows_of(d: StreamsGroupDescription, committed: dict) -> list[GroupOffsetRow]:
    """The partitions of the input topics each member's active tasks read (the member with
    them), then every other partition the group has committed (``committed``, by (topic,
    partition): a stopped application's too, kcli's addition), sorted by topic and partition;
    offsets not filled in."""
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
    return rows


def task_offsets(admin: Admin, d: StreamsGroupDescription) -> list[tuple[GroupOffsetRow, int | None]]:
    """kafka-streams-groups --describe --offsets: the partitions of the members' active tasks
    only (a stopped application's: none), each with its lag by the tool's rule (the log end
    minus the committed offset, or minus the log start where there is none: one more
    ListOffsets for those), in the tool's order (a default HashMap of its partitions)."""
    rows = {(r.topic, r.partition): r for r in offset_rows(admin, d) if r.consumer_id is not None}
    bare = [tp for tp, r in rows.items() if r.current is None]
    starts = {(o.topic, o.partition): o.offset for o in admin.list_offsets(bare, -2) if o.error is None} if bare else {}
    out = []
    for tp in javaorder.topic_partitions(list(rows), javaorder.capacity(len(rows))):
        r = rows[tp]
        base = r.current if r.current is not None else starts.get(tp)
        out.append((r, None if r.log_end is None or base is None else r.log_end - base))
    return out


def described(admin: Admin, group: str) -> StreamsGroupDescription:
    """One streams group's description; a group the broker does not describe as one fails with
    kafka-streams-groups' words (GroupIdNotFoundException and the broker's message: "Group g is
    not a streams group." for a consumer group)."""
    errors: dict[str, str] = {}
    d = admin.describe_streams_groups([group], errors).get(group)
    if d is None:
        raise OperationError("org.apache.kafka.common.errors.GroupIdNotFoundException: "
                             + (errors.get(group) or f"Group {group} not found."))
    return d


def input_partitions(admin: Admin, group: str) -> list[tuple[str, int]]:
    """The partitions of a streams group's input topics (its topology's source topics) that it
    has committed: kafka-streams-groups' --all-input-topics. A group that is not a streams group
    fails, as the tool's StreamsGroupDescribe does."""
    d = described(admin, group)
    inputs = set(d.input_topics)
    return [(c.topic, c.partition) for c in admin.committed_offsets(group)
            if c.offset is not None and c.topic in inputs]


def delete_refusals(admin: Admin, ids: list[str]) -> dict[str, str]:
    """kafka-streams-groups --delete's checks before its DeleteGroups (one ListGroups): a group
    that is not a streams group, one that is Dead or not Empty is not deleted; each with the
    tool's exception text."""
    listed = {g.group_id: g.state for g in admin.list_streams_groups()}
    refused = {}
    for g in dict.fromkeys(ids):
        if g not in listed:
            refused[g] = f"java.lang.IllegalArgumentException: Group '{g}' does not exist or is not a streams group."
        elif listed[g] == "Dead":
            refused[g] = f"java.lang.IllegalStateException: Streams group '{g}' group state is DEAD."
        elif listed[g] != "Empty":
            refused[g] = (f"org.apache.kafka.common.errors.GroupNotEmptyException: Streams group '{g}' is not "
                          "EMPTY.")
    return refused


def _inferred_internal(topic: str, app_id: str) -> bool:
    """kafka-streams-groups' rule: a topic deleted with the group is named after it and ends as
    Kafka Streams names its internal topics."""
    return topic.startswith(app_id + "-") and (
        topic.endswith(("-changelog", "-repartition", "-subscription-registration-topic",
                        "-subscription-response-topic"))
        or re.fullmatch(r".+-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-\d+-topic", topic) is not None)


def internal_topics(admin: Admin, ids: list[str]) -> dict[str, list[str]]:
    """Each streams group's internal topics (repartition and changelog topics named after it),
    for the groups that have any: what --delete-all-internal-topics deletes."""
    found = {g: [t for t in d.internal_topics if _inferred_internal(t, g)]
             for g, d in admin.describe_streams_groups(ids).items()}
    return {g: topics for g, topics in found.items() if topics}


def internal_topic_sizes(admin: Admin, groups: list[StreamsGroupDescription]) -> dict[str, list[TopicSize]]:
    """Each group's internal topics (its topology's repartition and changelog topics) with
    their partition count and records (log end minus log start, summed): one Metadata, then
    ListOffsets (one per leader) for the earliest and the latest offsets. A partition whose
    offsets are not known leaves its topic's records unknown; no internal topic, no request."""
    names = sorted({t for d in groups for t in d.internal_topics})
    if not names:
        return {d.group_id: [] for d in groups}
    leaders = admin.partition_leaders(names)
    tps = [(t, p) for t, parts in leaders.items() for p in parts]

    def known(time: int) -> dict[tuple[str, int], int]:
        return {(o.topic, o.partition): o.offset for o in admin.list_offsets(tps, time)
                if o.error is None and o.offset >= 0}

    starts, ends = known(-2), known(-1)

    def size(t: str) -> TopicSize:
        if t not in leaders:
            return TopicSize(t, None, None)
        parts = [(t, p) for p in leaders[t]]
        records = (sum(ends[tp] - starts[tp] for tp in parts)
                   if all(tp in starts and tp in ends for tp in parts) else None)
        return TopicSize(t, len(parts), records)

    return {d.group_id: [size(t) for t in d.internal_topics] for d in groups}


def delete_topics_of(admin: Admin, topics: dict[str, list[str]]) -> dict[str, dict[str, BrokerError]]:
    """Deletes each group's ``topics``; the topics that were not deleted, with the error, by group
    (groups with none left out)."""
    failed = {}
    for g, names in topics.items():
        errors = {t: e for t, e in admin.delete_topics(names).items() if e is not None} if names else {}
        if errors:
            failed[g] = errors
    return failed

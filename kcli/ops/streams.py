"""Streams groups (KIP-1071; kafka-streams-groups --describe): which of the described groups are
streams groups, and the rows of their offsets view. No client library speaks StreamsGroupDescribe:
it goes over kcli's own connection (WireClient.describe_streams_groups); the creation time
(KIP-1282) comes from StreamsGroupDescribe v2+ only."""

from __future__ import annotations

import re

from kcli import javaorder
from kcli.errors import OperationError
from kcli.model import (BrokerError, GroupDescription, GroupListing, GroupMember, GroupOffsetRow,
                        StreamsGroupDescription, StreamsMember, TopicSize)
from kcli.ops.groups import fill_offsets, not_found_text
from kcli.ops.logdirs import leader_sizes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin


def describe_any(admin: Admin, ids: list[str],
                 refusals: list | None = None) -> tuple[list[GroupDescription], dict[str, StreamsGroupDescription]]:
    """Every group of ``ids`` (in that order) as the group commands see it: DescribeConsumerGroups,
    and for a group it does not know, StreamsGroupDescribe (one per coordinator, only for those):
    a streams group stands in as a GroupDescription of type "Streams" (its state, members and
    creation time), so resets refuse it while it has members, as they refuse a consumer group.
    Also the streams groups' own descriptions, by id. A group neither knows stays ``exists=False``.
    No id, no request (--all-groups on a cluster without groups). ``refusals``: as
    Admin.describe_groups'."""
    if not ids:
        return [], {}
    descs = admin.describe_groups(ids, refusals)
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
            raise OperationError(not_found_text(d))
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
    owner: dict[tuple[str, int], StreamsMember] = {}
    for m in d.members:
        for sub, partition in m.active:
            for topic in d.source_topics.get(sub, []):
                owner.setdefault((topic, partition), m)
    rows = []
    for tp in sorted(set(owner) | set(committed)):
        member = owner.get(tp)
        rows.append(GroupOffsetRow(d.group_id, tp[0], tp[1], None, None, None,
                                   member.member_id if member else None, member.host if member else None,
                                   member.client_id if member else None))
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
    for tp in javaorder.topic_partitions(list(rows)):
        r = rows[tp]
        base = r.current if r.current is not None else starts.get(tp)
        out.append((r, None if r.log_end is None or base is None else r.log_end - base))
    return out


def listed(admin: Admin, states: set[str] | None = None) -> list[GroupListing]:
    """The streams groups in the given states (None: all), as the cluster lists them."""
    return [g for g in admin.list_streams_groups() if not states or g.state in states]


def topology_status(admin: Admin, group: str) -> str:
    """What the broker says of a streams group's topology description (NOT_STORED, ERROR,
    AVAILABLE, ...: ``Admin.streams_topology_status``)."""
    return admin.streams_topology_status(group)


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


def internal_topic_sizes(admin: Admin, groups: list[StreamsGroupDescription]
                         ) -> tuple[dict[str, list[TopicSize]], str | None]:
    """Each group's internal topics (its topology's repartition and changelog topics) with
    their partition count, records (log end minus log start, summed) and bytes (the leader
    replicas', summed: ``kcli.ops.logdirs.leader_sizes``): one Metadata, then ListOffsets (one
    per leader) for the earliest and the latest offsets after DescribeLogDirs (one per leader).
    A partition whose offsets or size are not known leaves its topic's records or bytes
    unknown (a refused DescribeLogDirs: one Warn line); no internal topic, no request.
    With them, what went unanswered (a leader that gave no ListOffsets answer in time, and the
    topics it left without records) or None: the view is then partial, which the caller says."""
    names = sorted({t for d in groups for t in d.internal_topics})
    if not names:
        return {d.group_id: [] for d in groups}, None
    leaders = admin.partition_leaders(names)
    tps = [(t, p) for t, parts in leaders.items() for p in parts]
    unanswered: dict[str, str] = {}              # topic: the first unanswered partition's error

    def known(time: int) -> dict[tuple[str, int], int]:
        answers = admin.list_offsets(tps, time)
        for o in answers:
            if o.unanswered:
                unanswered.setdefault(o.topic, o.error or "no answer")
        return {(o.topic, o.partition): o.offset for o in answers if o.error is None and o.offset >= 0}

    sizes = leader_sizes(admin, {(t, p): leader for t, parts in leaders.items() for p, leader in parts.items()})
    starts, ends = known(-2), known(-1)

    def size(t: str) -> TopicSize:
        if t not in leaders:
            return TopicSize(t, None, None)
        parts = [(t, p) for p in leaders[t]]
        records = (sum(ends[tp] - starts[tp] for tp in parts)
                   if all(tp in starts and tp in ends for tp in parts) else None)
        known_sizes = [n for n in (sizes.get(tp) for tp in parts) if n is not None]
        return TopicSize(t, len(parts), records, sum(known_sizes) if len(known_sizes) == len(parts) else None)

    problem = None
    if unanswered:
        problem = (f"Cannot read the internal topics' records (ListOffsets): "
                   f"{next(iter(unanswered.values()))}; records unknown for {', '.join(sorted(unanswered))}")
    return {d.group_id: [size(t) for t in d.internal_topics] for d in groups}, problem


def delete_topics_of(admin: Admin, topics: dict[str, list[str]]) -> dict[str, dict[str, BrokerError]]:
    """Deletes each group's ``topics``; the topics that were not deleted, with the error, by group
    (groups with none left out)."""
    failed = {}
    for g, names in topics.items():
        errors = {t: e for t, e in admin.delete_topics(names).items() if e is not None} if names else {}
        if errors:
            failed[g] = errors
    return failed


def delete_after_reset(admin: Admin, result, names: list[str] | None
                       ) -> tuple[dict[str, dict[str, BrokerError]], dict[str, str]]:
    """kafka-streams-groups --reset-offsets' last step: each reset group's internal topics
    (``names``, --delete-internal-topic; None: all of them, --delete-all-internal-topics) are
    deleted only once every offset the reset planned for it is read back as committed
    (``kcli.ops.resets.execution.read_back``): an application that keeps its old offsets must
    keep its state too. (The topics not deleted, with the error, by group; the groups whose
    topics were kept, with why.)"""
    from kcli.ops.resets.execution import read_back

    why = read_back(admin, result)
    kept = {g: reason for g, reason in why.items() if reason is not None}
    reset = [g for g, reason in why.items() if reason is None]
    if not reset:
        return {}, kept
    topics = internal_topics(admin, reset) if names is None else {g: names for g in reset}
    return delete_topics_of(admin, topics), kept

"""Share-group APIs (KIP-932) at Apache Kafka 4.4.0's versions: ShareGroupHeartbeat and
ShareGroupDescribe v1, ShareFetch and ShareAcknowledge v1-v2, DescribeShareGroupOffsets v0-v1,
AlterShareGroupOffsets and DeleteShareGroupOffsets v0. The group and share-partition state
machines live in ``kcli.broker.groups.share``; this module maps requests and responses and keeps
each node's share sessions.

A share session (one per node, group and member) holds the partitions a member fetches from that
node: ShareFetch at epoch 0 opens it (a new one replaces an old one), each later request names
the next epoch, and epoch -1 closes it, releasing what the member still holds there.
"""

from __future__ import annotations

import asyncio
import uuid
import weakref
from dataclasses import dataclass, field

from kcli.broker.apikeys import (ALTER_SHARE_GROUP_OFFSETS, DELETE_SHARE_GROUP_OFFSETS,
                                 DESCRIBE_SHARE_GROUP_OFFSETS, SHARE_ACKNOWLEDGE, SHARE_FETCH,
                                 SHARE_GROUP_DESCRIBE, SHARE_GROUP_HEARTBEAT)
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups import coordinator_for
from kcli.broker.groups.share import LEAVE_EPOCH, ShareGroup
from kcli.broker.handlers.data import _leader_partition
from kcli.broker.handlers.groups import _by_topic, _not_coordinator, _response
from kcli.protocol import RESPONSES

CLOSE_SESSION = -1
_ZERO = uuid.UUID(int=0)


# ---- ShareGroupHeartbeat, ShareGroupDescribe ---------------------------------------------

def _invalid_heartbeat(req) -> str | None:
    """GroupCoordinatorService's checks of a ShareGroupHeartbeat: INVALID_REQUEST's message."""
    if not req.group_id or not req.group_id.strip():
        return "GroupId can't be empty."
    if not req.member_id or not req.member_id.strip():
        return "MemberId can't be empty."
    if req.rack_id is not None and not req.rack_id.strip():
        return "RackId can't be empty."
    if req.member_epoch == 0 and not req.subscribed_topic_names:
        return "SubscribedTopicNames must be set in first request."
    if req.member_epoch < LEAVE_EPOCH:
        return "MemberEpoch is invalid."
    return None


@handles(SHARE_GROUP_HEARTBEAT, 1, 1)
async def share_group_heartbeat(ctx: RequestContext, req):
    cls = RESPONSES[SHARE_GROUP_HEARTBEAT]
    coordinator = coordinator_for(ctx.cluster)

    def fail(code: Err, message: str | None = None):
        return _response(ctx, error_code=code, error_message=message, member_id=None, member_epoch=-1,
                         heartbeat_interval_ms=0, assignment=None)

    if _not_coordinator(ctx, req.group_id):
        return fail(Err.NOT_COORDINATOR)
    invalid = _invalid_heartbeat(req)
    if invalid is not None:
        return fail(Err.INVALID_REQUEST, invalid)
    try:
        group = coordinator.share_group(req.group_id, create=req.member_epoch == 0)
        epoch, assigned = group.heartbeat(member_id=req.member_id, epoch=req.member_epoch, rack_id=req.rack_id,
                                          subscribed_names=req.subscribed_topic_names,
                                          client_id=ctx.client_id or "", client_host=ctx.client_host)
    except BrokerError as exc:
        return fail(exc.code, exc.message)
    assignment = None
    if assigned is not None:
        assignment = cls.Assignment(topic_partitions=[
            cls.Assignment.TopicPartitions(topic_id=topic_id, partitions=parts)
            for topic_id, parts in _by_topic(assigned).items()])
    return _response(ctx, error_code=Err.NONE, error_message=None, member_id=req.member_id, member_epoch=epoch,
                     heartbeat_interval_ms=coordinator.config.share_heartbeat_interval_ms, assignment=assignment)


@handles(SHARE_GROUP_DESCRIBE, 1, 1)
async def share_group_describe(ctx: RequestContext, req):
    cls = RESPONSES[SHARE_GROUP_DESCRIBE]
    described, member_cls = cls.DescribedGroup, cls.DescribedGroup.Member
    assignment_cls = member_cls.Assignment
    cluster = ctx.cluster
    coordinator = coordinator_for(cluster)

    def assignment(partitions):
        parts = []
        for topic_id, indexes in _by_topic(partitions).items():
            topic = cluster.topic_by_id(topic_id)
            parts.append(assignment_cls.TopicPartitions(topic_id=topic_id, topic_name=topic.name if topic else "",
                                                        partitions=indexes))
        return assignment_cls(topic_partitions=parts)

    def error(group_id, code, message=None):
        return described(error_code=code, error_message=message, group_id=group_id, group_state="",
                         group_epoch=-1, assignment_epoch=-1, assignor_name="", members=[])

    groups = []
    for group_id in req.group_ids:
        group = coordinator.group(group_id)
        if _not_coordinator(ctx, group_id):
            groups.append(error(group_id, Err.NOT_COORDINATOR))
        elif group is None:
            groups.append(error(group_id, Err.GROUP_ID_NOT_FOUND, f"Group {group_id} not found."))
        elif not isinstance(group, ShareGroup):
            groups.append(error(group_id, Err.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group."))
        else:
            groups.append(described(
                error_code=Err.NONE, error_message=None, group_id=group_id, group_state=group.state,
                group_epoch=group.group_epoch, assignment_epoch=group.assignment_epoch,
                assignor_name=group.assignor_name(),
                members=[member_cls(member_id=m.member_id, rack_id=m.rack_id, member_epoch=m.epoch,
                                    client_id=m.client_id, client_host=m.client_host,
                                    subscribed_topic_names=sorted(m.subscribed_names),
                                    assignment=assignment(m.assigned)) for m in group.members.values()]))
    return _response(ctx, groups=groups)


# ---- share sessions ----------------------------------------------------------------------

@dataclass
class ShareSession:
    epoch: int = 1                                    # the epoch the next request must carry
    partitions: set = field(default_factory=set)      # (topic id, partition)


_SESSIONS: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()


def _session(ctx: RequestContext, group_id: str, member_id: str, epoch: int,
             opens: bool) -> ShareSession:
    """The request's share session, by its epoch (raises SHARE_SESSION_NOT_FOUND or
    INVALID_SHARE_SESSION_EPOCH); closed (forgotten) at epoch -1."""
    sessions = _SESSIONS.setdefault(ctx.cluster, {})
    key = (ctx.node_id, group_id, member_id)
    if epoch == 0:
        if not opens:
            raise BrokerError(Err.INVALID_SHARE_SESSION_EPOCH, "The share session epoch is invalid.")
        sessions[key] = ShareSession()
        return sessions[key]
    session = sessions.get(key)
    if session is None:
        raise BrokerError(Err.SHARE_SESSION_NOT_FOUND, "The share session was not found.")
    if epoch == CLOSE_SESSION:
        del sessions[key]
        return session
    if epoch != session.epoch:
        raise BrokerError(Err.INVALID_SHARE_SESSION_EPOCH, "The share session epoch is invalid.")
    session.epoch = epoch + 1 if epoch < 2**31 - 1 else 1
    return session


def _share_group(ctx: RequestContext, group_id: str | None, member_id: str | None) -> ShareGroup:
    if not group_id:
        raise BrokerError(Err.INVALID_REQUEST, "Group id must be provided.")
    if not member_id:
        raise BrokerError(Err.INVALID_REQUEST, "Member id must be provided.")
    group = coordinator_for(ctx.cluster).group(group_id)
    if not isinstance(group, ShareGroup):
        raise BrokerError(Err.INVALID_REQUEST, f"Group {group_id} is not a share group.")
    return group


def _acknowledge(ctx: RequestContext, group: ShareGroup, member_id: str, topics) -> dict:
    """Applies every partition's acknowledgement batches: {(topic id, partition): error or None}."""
    loop = asyncio.get_running_loop()
    coordinator = coordinator_for(ctx.cluster)
    settings = group.settings()
    out: dict = {}
    for t in topics:
        topic = ctx.cluster.topic_by_id(t.topic_id)
        for p in t.partitions:
            tp = (t.topic_id, p.partition_index)
            batches = [(b.first_offset, b.last_offset, list(b.acknowledge_types)) for b in p.acknowledgement_batches]
            if not batches:
                continue
            try:
                if topic is None:
                    raise BrokerError(Err.UNKNOWN_TOPIC_ID)
                _leader_partition(ctx, topic, p.partition_index)
                sp = group.partitions.get(tp)
                if sp is None:
                    raise BrokerError(Err.INVALID_RECORD_STATE, "The record state is invalid. The "
                                      "acknowledgement of delivery could not be completed.")
                sp.acknowledge(member_id, batches, loop.time(), settings)
                coordinator.save_share_partition(group, tp)
                group.arm_locks(tp, loop.time(), loop.time)
                out[tp] = None
            except BrokerError as exc:
                out[tp] = exc
    if any(e is None for e in out.values()):
        ctx.cluster.notify_append()         # released records wake parked fetches
    return out


def _leader(cls, ctx: RequestContext, topic_id, index: int):
    topic = ctx.cluster.topic_by_id(topic_id)
    if topic is None or not 0 <= index < len(topic.partitions):
        return cls(leader_id=-1, leader_epoch=-1)
    p = topic.partitions[index]
    return cls(leader_id=p.leader, leader_epoch=p.leader_epoch)


# ---- ShareFetch, ShareAcknowledge --------------------------------------------------------

@handles(SHARE_FETCH, 1, 2)
async def share_fetch(ctx: RequestContext, req):
    R = RESPONSES[SHARE_FETCH]
    T = R.ShareFetchableTopicResponse
    P = T.PartitionData
    loop = asyncio.get_running_loop()

    def top(code: Err, message: str | None = None):
        return R(version=ctx.api_version, throttle_time_ms=0, error_code=code, error_message=message,
                 acquisition_lock_timeout_ms=0, responses=[], node_endpoints=[])

    epoch = req.share_session_epoch
    try:
        group = _share_group(ctx, req.group_id, req.member_id)
        session = _session(ctx, req.group_id, req.member_id, epoch, opens=True)
    except BrokerError as exc:
        return top(exc.code, exc.message)
    settings = group.settings()
    named = {(t.topic_id, p.partition_index) for t in req.topics for p in t.partitions}
    if epoch != CLOSE_SESSION:
        session.partitions |= named
        session.partitions -= {(f.topic_id, p) for f in req.forgotten_topics_data for p in f.partitions}
    acked = _acknowledge(ctx, group, req.member_id, req.topics)
    if epoch == CLOSE_SESSION:
        group.release_member(req.member_id, session.partitions)       # what it holds from this node
        fetched: dict = {}
    elif ctx.api_version >= 2 and req.is_renew_ack:     # KIP-1222: renewing locks fetches nothing
        fetched = {}
    else:
        fetched = await _acquire(ctx, group, req, session.partitions, loop)
    by_topic: dict = {}
    for tp in sorted(set(acked) | set(fetched), key=lambda tp: (str(tp[0]), tp[1])):     # as Kafka: none idle
        ack_error = acked.get(tp)
        error, ranges, chunks = fetched.get(tp, (None, [], []))
        by_topic.setdefault(tp[0], []).append(P(
            partition_index=tp[1], error_code=error.code if error else 0,
            error_message=error.message if error else None,
            acknowledge_error_code=ack_error.code if ack_error else 0,
            acknowledge_error_message=ack_error.message if ack_error else None,
            current_leader=_leader(P.LeaderIdAndEpoch, ctx, *tp),
            records=ctx.defer(chunks, sum(map(len, chunks))) if chunks else b"",
            acquired_records=[P.AcquiredRecords(first_offset=f, last_offset=la, delivery_count=c)
                              for f, la, c in ranges]))
    return R(version=ctx.api_version, throttle_time_ms=0, error_code=0, error_message=None,
             acquisition_lock_timeout_ms=settings.record_lock_duration_ms,
             responses=[T(topic_id=topic_id, partitions=parts) for topic_id, parts in by_topic.items()],
             node_endpoints=[])


async def _acquire(ctx: RequestContext, group: ShareGroup, req, partitions, loop) -> dict:
    """Long poll: records acquired for the member from the session's partitions once any are
    available, on any error, or after ``max_wait_ms``. {(topic id, partition): (error, ranges,
    batches)}."""
    deadline = loop.time() + max(req.max_wait_ms, 0) / 1000
    max_records = req.max_records if req.max_records > 0 else 500
    while True:
        out: dict = {}
        left = max_records
        settings = group.settings()
        for tp in sorted(partitions, key=lambda tp: (str(tp[0]), tp[1])):
            try:
                topic = ctx.cluster.topic_by_id(tp[0])
                if topic is None:
                    raise BrokerError(Err.UNKNOWN_TOPIC_ID)
                p = _leader_partition(ctx, topic, tp[1])
                if left <= 0:
                    continue
                log = p.log
                sp = group.share_partition(tp, log, ctx.cluster.now_ms())
                sp.leader_epoch = p.leader_epoch
                ranges = sp.acquire(req.member_id, left, log.log_start_offset, log.log_end_offset, loop.time(),
                                    settings)
                if ranges:
                    left -= sum(last - first + 1 for first, last, _ in ranges)
                    group.arm_locks(tp, loop.time(), loop.time)
                    chunks, seen = [], set()
                    for first, last, _ in ranges:
                        for data in log.batches_between(first, last):
                            if id(data) not in seen:
                                seen.add(id(data))
                                chunks.append(data)
                    out[tp] = (None, ranges, chunks)
            except BrokerError as exc:
                out[tp] = (exc, [], [])
        remaining = deadline - loop.time()
        if out or remaining <= 0:
            return out
        await ctx.cluster.wait_for_append(remaining)


@handles(SHARE_ACKNOWLEDGE, 1, 2)
async def share_acknowledge(ctx: RequestContext, req):
    R = RESPONSES[SHARE_ACKNOWLEDGE]
    T = R.ShareAcknowledgeTopicResponse
    P = T.PartitionData

    def top(code: Err, message: str | None = None):
        return R(version=ctx.api_version, throttle_time_ms=0, error_code=code, error_message=message,
                 acquisition_lock_timeout_ms=0, responses=[], node_endpoints=[])

    try:
        group = _share_group(ctx, req.group_id, req.member_id)
        session = _session(ctx, req.group_id, req.member_id, req.share_session_epoch, opens=False)
    except BrokerError as exc:
        return top(exc.code, exc.message)
    acked = _acknowledge(ctx, group, req.member_id, req.topics)
    if req.share_session_epoch == CLOSE_SESSION:
        group.release_member(req.member_id, session.partitions)
    by_topic: dict = {}
    for tp, error in sorted(acked.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        by_topic.setdefault(tp[0], []).append(P(
            partition_index=tp[1], error_code=error.code if error else 0,
            error_message=error.message if error else None,
            current_leader=_leader(P.LeaderIdAndEpoch, ctx, *tp)))
    return R(version=ctx.api_version, throttle_time_ms=0, error_code=0, error_message=None,
             acquisition_lock_timeout_ms=group.settings().record_lock_duration_ms,
             responses=[T(topic_id=topic_id, partitions=parts) for topic_id, parts in by_topic.items()],
             node_endpoints=[])


# ---- DescribeShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets ----------

@handles(DESCRIBE_SHARE_GROUP_OFFSETS, 0, 1)
async def describe_share_group_offsets(ctx: RequestContext, req):
    """As Kafka's coordinator answers: from the share-partitions' state alone, whatever the group
    (none, or not a share group: no state); -1 (uninitialized) where there is none, an unknown
    topic included (its id zero). Lag (v1): the records from the start offset to the log end not
    yet acknowledged or archived."""
    R = RESPONSES[DESCRIBE_SHARE_GROUP_OFFSETS]
    G = R.DescribeShareGroupOffsetsResponseGroup
    T = G.DescribeShareGroupOffsetsResponseTopic
    P = T.DescribeShareGroupOffsetsResponsePartition
    cluster = ctx.cluster
    coordinator = coordinator_for(cluster)
    out = []
    for g in req.groups:
        if _not_coordinator(ctx, g.group_id):
            out.append(G(group_id=g.group_id, topics=[], error_code=Err.NOT_COORDINATOR, error_message=None))
            continue
        group = coordinator.group(g.group_id)
        states = group.partitions if isinstance(group, ShareGroup) else {}
        if g.topics is None:            # every topic the group has state for
            wanted: dict = {}
            for topic_id, index in states:
                topic = cluster.topic_by_id(topic_id)
                if topic is not None:
                    wanted.setdefault(topic.name, []).append(index)
        else:
            wanted = {t.topic_name: list(t.partitions) for t in g.topics}
        topics = []
        for name, indexes in sorted(wanted.items()):
            topic = cluster.topics.get(name)
            parts = []
            for index in sorted(indexes):
                sp = states.get((topic.topic_id, index)) if topic is not None else None
                if sp is None:
                    parts.append(P(partition_index=index, start_offset=-1, leader_epoch=-1, lag=-1,
                                   error_code=0, error_message=None))
                    continue
                end = topic.partitions[index].log.log_end_offset
                parts.append(P(partition_index=index, start_offset=sp.start, leader_epoch=sp.leader_epoch,
                               lag=end - sp.start - sp.done_in_flight(), error_code=0, error_message=None))
            topics.append(T(topic_name=name, topic_id=topic.topic_id if topic else _ZERO, partitions=parts))
        out.append(G(group_id=g.group_id, topics=topics, error_code=0, error_message=None))
    return _response(ctx, groups=out)


def _empty_share_group(ctx: RequestContext, group_id: str, create: bool = False) -> ShareGroup:
    """The share group ``group_id`` if it has no member; with ``create`` (as Kafka's alter of the
    offsets of an unknown group) created when absent."""
    if _not_coordinator(ctx, group_id):
        raise BrokerError(Err.NOT_COORDINATOR)
    group = coordinator_for(ctx.cluster).group(group_id)
    if group is None and create:
        group = coordinator_for(ctx.cluster).share_group(group_id, create=True)
    if group is None:
        raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
    if not isinstance(group, ShareGroup):
        raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.")
    if group.members:
        raise BrokerError(Err.NON_EMPTY_GROUP, "The group is not empty.")
    return group


@handles(ALTER_SHARE_GROUP_OFFSETS, 0, 0)
async def alter_share_group_offsets(ctx: RequestContext, req):
    R = RESPONSES[ALTER_SHARE_GROUP_OFFSETS]
    T = R.AlterShareGroupOffsetsResponseTopic
    P = T.AlterShareGroupOffsetsResponsePartition
    try:
        group = _empty_share_group(ctx, req.group_id, create=True)
    except BrokerError as exc:
        return _response(ctx, error_code=exc.code, error_message=exc.message, responses=[])
    coordinator = coordinator_for(ctx.cluster)
    out = []
    for t in req.topics:
        topic = ctx.cluster.topics.get(t.topic_name)
        parts = []
        for p in t.partitions:
            if topic is None or not 0 <= p.partition_index < len(topic.partitions):
                parts.append(P(partition_index=p.partition_index, error_code=Err.UNKNOWN_TOPIC_OR_PARTITION,
                               error_message="This server does not host this topic-partition."))
                continue
            tp = (topic.topic_id, p.partition_index)
            log = topic.partitions[p.partition_index].log
            sp = group.share_partition(tp, log, ctx.cluster.now_ms())
            sp.move_start(p.start_offset)               # as Kafka: taken as given, past the end too
            sp.end = sp.start
            sp.records.clear()
            coordinator.save_share_partition(group, tp)
            parts.append(P(partition_index=p.partition_index, error_code=0, error_message=None))
        out.append(T(topic_name=t.topic_name, topic_id=topic.topic_id if topic else _ZERO, partitions=parts))
    return _response(ctx, error_code=0, error_message=None, responses=out)


@handles(DELETE_SHARE_GROUP_OFFSETS, 0, 0)
async def delete_share_group_offsets(ctx: RequestContext, req):
    R = RESPONSES[DELETE_SHARE_GROUP_OFFSETS]
    T = R.DeleteShareGroupOffsetsResponseTopic
    try:
        group = _empty_share_group(ctx, req.group_id)
    except BrokerError as exc:
        return _response(ctx, error_code=exc.code, error_message=exc.message, responses=[])
    coordinator = coordinator_for(ctx.cluster)
    out = []
    for t in req.topics:
        topic = ctx.cluster.topics.get(t.topic_name)
        if topic is None:
            out.append(T(topic_name=t.topic_name, topic_id=_ZERO, error_code=Err.UNKNOWN_TOPIC_OR_PARTITION,
                         error_message="This server does not host this topic-partition."))
            continue
        held = [tp for tp in group.partitions if tp[0] == topic.topic_id]
        if not held:                                    # as Kafka: the group has no state on it
            out.append(T(topic_name=t.topic_name, topic_id=_ZERO, error_code=Err.UNKNOWN_TOPIC_OR_PARTITION,
                         error_message="There is no offset information to delete."))
            continue
        for tp in held:
            del group.partitions[tp]
            coordinator.save_share_partition(group, tp)
        out.append(T(topic_name=t.topic_name, topic_id=topic.topic_id, error_code=0, error_message=None))
    return _response(ctx, error_code=0, error_message=None, responses=out)


"""Group coordination APIs: FindCoordinator, the classic group protocol, the consumer group
protocol (KIP-848, KIP-1282), committed offsets and group administration (the streams group
protocol's own APIs are in ``streams.py``).

Every group request is answered NOT_COORDINATOR on a node that does not coordinate its group.
The state machines live in ``kcli.broker.groups``; this module maps requests and responses.
"""

from __future__ import annotations

import uuid

from kcli.broker.acl import Op, ResourceType
from kcli.broker.apikeys import (CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_HEARTBEAT, DELETE_GROUPS,
                                 DESCRIBE_GROUPS, FIND_COORDINATOR, HEARTBEAT, JOIN_GROUP,
                                 LEAVE_GROUP, LIST_GROUPS, OFFSET_COMMIT, OFFSET_DELETE,
                                 OFFSET_FETCH, SYNC_GROUP)
from kcli.broker.cluster import OMITTED
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups import coordinator_for
from kcli.broker.groups.classic import ClassicGroup
from kcli.broker.groups.store import Committed
from kcli.broker.txns import transactions_for
from kcli.protocol import RESPONSES

GROUP_KEY, TRANSACTION_KEY = 0, 1
ZERO_UUID = uuid.UUID(int=0)


def _not_coordinator(ctx: RequestContext, group_id: str) -> bool:
    return ctx.cluster.coordinator_node(group_id) != ctx.node_id


def _may(ctx: RequestContext, op: int, group_id: str) -> bool:
    return ctx.allowed(op, ResourceType.GROUP, group_id)


def _response(ctx: RequestContext, **fields):
    return RESPONSES[ctx.api_key](version=ctx.api_version, throttle_time_ms=0, **fields)


# ---- FindCoordinator ---------------------------------------------------------------------

@handles(FIND_COORDINATOR, 0, 6)
async def find_coordinator(ctx: RequestContext, req):
    cls = RESPONSES[FIND_COORDINATOR]
    key_type = req.key_type if ctx.api_version >= 1 else GROUP_KEY
    if ctx.api_version >= 4:
        located = ((key, _locate(ctx, key, key_type)) for key in req.coordinator_keys)
        return _response(ctx, coordinators=[cls.Coordinator(key=key, **answer) for key, answer in located
                                            if answer["error_code"] != OMITTED])
    return _response(ctx, **_locate(ctx, req.key, key_type))


def _locate(ctx: RequestContext, key: str, key_type: int) -> dict:
    cluster = ctx.cluster
    unknown = dict(node_id=-1, host="", port=-1)
    if key_type == TRANSACTION_KEY and not ctx.allowed(Op.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key):
        return dict(error_code=Err.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                    error_message="Transactional Id authorization failed.", **unknown)
    if key_type == GROUP_KEY and not _may(ctx, Op.DESCRIBE, key):
        return dict(error_code=Err.GROUP_AUTHORIZATION_FAILED,
                    error_message="Group authorization failed.", **unknown)
    if key_type not in (GROUP_KEY, TRANSACTION_KEY):
        return dict(error_code=Err.INVALID_REQUEST, error_message=f"Unknown key type {key_type}.",
                    **unknown)
    if (refused := cluster.refusal("FindCoordinator")) is not None:
        return dict(error_code=refused, error_message=None, **unknown)
    node = cluster.coordinator_node(key)
    if not cluster.is_up(node):
        return dict(error_code=Err.COORDINATOR_NOT_AVAILABLE, error_message=None, **unknown)
    host, port = cluster.node_address(node)
    return dict(error_code=Err.NONE, error_message=None, node_id=node, host=host, port=port)


# ---- classic groups ----------------------------------------------------------------------

@handles(JOIN_GROUP, 0, 9)
async def join_group(ctx: RequestContext, req):
    cls = RESPONSES[JOIN_GROUP]

    def fail(code: Err, member_id: str):
        return _response(ctx, error_code=code, generation_id=-1, protocol_name=None if ctx.api_version >= 7 else "",
                         leader="", member_id=member_id, members=[])

    if not _may(ctx, Op.READ, req.group_id):
        return fail(Err.GROUP_AUTHORIZATION_FAILED, req.member_id)
    if _not_coordinator(ctx, req.group_id):
        return fail(Err.NOT_COORDINATOR, req.member_id)
    if not req.group_id:
        return fail(Err.INVALID_GROUP_ID, req.member_id)
    try:
        group = coordinator_for(ctx.cluster).classic_group(req.group_id)
    except BrokerError as exc:
        return fail(exc.code, req.member_id)
    result = await group.join(
        member_id=req.member_id, instance_id=req.group_instance_id, client_id=ctx.client_id or "",
        client_host=ctx.client_host, session_timeout_ms=req.session_timeout_ms,
        rebalance_timeout_ms=req.rebalance_timeout_ms if ctx.api_version >= 1 else -1,
        protocol_type=req.protocol_type, protocols=[(p.name, p.metadata) for p in req.protocols],
        require_known_member_id=ctx.api_version >= 4)
    if result.error:
        return fail(result.error, result.member_id)
    return _response(ctx, error_code=Err.NONE, generation_id=result.generation,
                     protocol_type=result.protocol_type, protocol_name=result.protocol_name,
                     leader=result.leader, member_id=result.member_id, members=[
                         cls.JoinGroupResponseMember(member_id=m, group_instance_id=i, metadata=meta)
                         for m, i, meta in result.members])


@handles(SYNC_GROUP, 0, 5)
async def sync_group(ctx: RequestContext, req):
    def answer(code: Err, assignment: bytes = b"", group: ClassicGroup | None = None):
        named = group if code == Err.NONE and ctx.api_version >= 5 else None
        return _response(ctx, error_code=code, assignment=assignment,
                         protocol_type=named.protocol_type if named is not None else None,
                         protocol_name=named.protocol_name if named is not None else None)

    if not _may(ctx, Op.READ, req.group_id):
        return answer(Err.GROUP_AUTHORIZATION_FAILED)
    if _not_coordinator(ctx, req.group_id):
        return answer(Err.NOT_COORDINATOR)
    group = coordinator_for(ctx.cluster).group(req.group_id)
    if group is None or group.kind != "classic":
        return answer(Err.UNKNOWN_MEMBER_ID)
    code, assignment = await group.sync(
        member_id=req.member_id, instance_id=req.group_instance_id, generation=req.generation_id,
        protocol_type=req.protocol_type, protocol_name=req.protocol_name,
        assignments={a.member_id: a.assignment for a in req.assignments})
    return answer(code, assignment, group)


@handles(HEARTBEAT, 0, 4)
async def heartbeat(ctx: RequestContext, req):
    if not _may(ctx, Op.READ, req.group_id):
        return _response(ctx, error_code=Err.GROUP_AUTHORIZATION_FAILED)
    if _not_coordinator(ctx, req.group_id):
        return _response(ctx, error_code=Err.NOT_COORDINATOR)
    group = coordinator_for(ctx.cluster).group(req.group_id)
    if group is None or group.kind != "classic":
        return _response(ctx, error_code=Err.UNKNOWN_MEMBER_ID)
    return _response(ctx, error_code=group.heartbeat(req.member_id, req.group_instance_id, req.generation_id))


@handles(LEAVE_GROUP, 0, 5)
async def leave_group(ctx: RequestContext, req):
    cls = RESPONSES[LEAVE_GROUP]
    identities: list[tuple[str, str | None]] = (
        [(m.member_id, m.group_instance_id) for m in req.members] if ctx.api_version >= 3
        else [(req.member_id, None)])
    if not _may(ctx, Op.READ, req.group_id):
        return _response(ctx, error_code=Err.GROUP_AUTHORIZATION_FAILED, members=[])
    if _not_coordinator(ctx, req.group_id):
        return _response(ctx, error_code=Err.NOT_COORDINATOR, members=[])
    group = coordinator_for(ctx.cluster).group(req.group_id)
    if group is None or group.kind != "classic":
        return _response(ctx, error_code=Err.UNKNOWN_MEMBER_ID, members=[])
    if group.state == "Dead":
        return _response(ctx, error_code=Err.COORDINATOR_NOT_AVAILABLE, members=[])
    codes = group.leave(identities)
    if ctx.api_version < 3:
        return _response(ctx, error_code=codes[0])
    return _response(ctx, error_code=Err.NONE, members=[
        cls.MemberResponse(member_id=m, group_instance_id=i, error_code=code)
        for (m, i), code in zip(identities, codes)])


# ---- consumer-protocol groups (KIP-848) -------------------------------------------------

@handles(CONSUMER_GROUP_HEARTBEAT, 0, 2)
async def consumer_group_heartbeat(ctx: RequestContext, req):
    cls = RESPONSES[CONSUMER_GROUP_HEARTBEAT]
    coordinator = coordinator_for(ctx.cluster)
    interval = coordinator.config.consumer_heartbeat_interval_ms

    def fail(code: Err, message: str | None = None):
        return _response(ctx, error_code=code, error_message=message, member_id=None, member_epoch=-1,
                         heartbeat_interval_ms=0)

    if not _may(ctx, Op.READ, req.group_id):
        return fail(Err.GROUP_AUTHORIZATION_FAILED, "Group authorization failed.")
    if any(not ctx.may(Op.DESCRIBE, name) for name in req.subscribed_topic_names or ()):
        return fail(Err.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.")
    if _not_coordinator(ctx, req.group_id):
        return fail(Err.NOT_COORDINATOR)
    invalid = _invalid_heartbeat(ctx.api_version, req, coordinator.config.consumer_assignors)
    if invalid is not None:
        return fail(*invalid)
    regex = req.subscribed_topic_regex if ctx.api_version >= 1 else None
    try:
        group = coordinator.consumer_group(req.group_id, create=req.member_epoch == 0)
        result = group.heartbeat(
            member_id=req.member_id or str(uuid.uuid4()), epoch=req.member_epoch,
            instance_id=req.instance_id, rack_id=req.rack_id,
            rebalance_timeout_ms=req.rebalance_timeout_ms, subscribed_names=req.subscribed_topic_names,
            subscribed_regex=regex, server_assignor=req.server_assignor,
            owned=None if req.topic_partitions is None else [
                (t.topic_id, p) for t in req.topic_partitions for p in t.partitions],
            client_id=ctx.client_id or "", client_host=ctx.client_host)
    except BrokerError as exc:
        return fail(exc.code, exc.message)
    assignment = None
    if result.assignment is not None:
        assignment = cls.Assignment(topic_partitions=[
            cls.Assignment.TopicPartitions(topic_id=topic_id, partitions=parts)
            for topic_id, parts in _by_topic(result.assignment).items()])
    return _response(ctx, error_code=Err.NONE, error_message=None, member_id=result.member_id,
                     member_epoch=result.epoch, heartbeat_interval_ms=interval,
                     group_creation_time_ms=group.creation_time_ms, assignment=assignment)


def _invalid_heartbeat(version: int, req, assignors) -> tuple[Err, str] | None:
    """Kafka's request validation, before the group is looked at."""
    epoch = req.member_epoch
    if (version >= 1 or epoch > 0 or epoch == -1) and not req.member_id:
        return Err.INVALID_REQUEST, "MemberId can't be empty."
    for name, value in (("GroupId", req.group_id), ("InstanceId", req.instance_id), ("RackId", req.rack_id)):
        if value is not None and not value.strip():
            return Err.INVALID_REQUEST, f"{name} can't be empty."
    if epoch == 0:
        if req.rebalance_timeout_ms == -1:
            return Err.INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request."
        if req.topic_partitions is None or req.topic_partitions:
            return Err.INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining."
        regex = req.subscribed_topic_regex if version >= 1 else None
        if req.subscribed_topic_names is None and regex is None:
            return Err.INVALID_REQUEST, ("Either SubscribedTopicNames or SubscribedTopicRegex must be "
                                         "non-null when (re-)joining.")
    elif epoch == -2:
        if req.instance_id is None:
            return Err.INVALID_REQUEST, "InstanceId can't be null."
    elif epoch < -2:
        return Err.INVALID_REQUEST, "MemberEpoch is invalid."
    if req.server_assignor is not None and req.server_assignor not in assignors:
        return Err.UNSUPPORTED_ASSIGNOR, (f"ServerAssignor {req.server_assignor} is not supported. "
                                          f"Supported assignors: {', '.join(assignors)}.")
    return None


def _by_topic(partitions) -> dict:
    topics: dict = {}
    for topic_id, index in sorted(partitions, key=lambda tp: (str(tp[0]), tp[1])):
        topics.setdefault(topic_id, []).append(index)
    return topics


@handles(CONSUMER_GROUP_DESCRIBE, 0, 2)
async def consumer_group_describe(ctx: RequestContext, req):
    cls = RESPONSES[CONSUMER_GROUP_DESCRIBE]
    described, member_cls = cls.DescribedGroup, cls.DescribedGroup.Member
    assignment_cls = member_cls.Assignment
    cluster = ctx.cluster
    coordinator = coordinator_for(cluster)

    def assignment(partitions):
        parts = []
        for topic_id, indexes in _by_topic(partitions).items():
            topic = cluster.topic_by_id(topic_id)
            parts.append(assignment_cls.TopicPartitions(
                topic_id=topic_id, topic_name=topic.name if topic else "", partitions=indexes))
        return assignment_cls(topic_partitions=parts)

    groups = []
    for group_id in req.group_ids:
        group = coordinator.group(group_id)
        if not _may(ctx, Op.DESCRIBE, group_id):
            groups.append(described(error_code=Err.GROUP_AUTHORIZATION_FAILED,
                                    error_message="Group authorization failed.", group_id=group_id,
                                    group_state="", assignor_name="", members=[]))
        elif (refused := cluster.refusal("ConsumerGroupDescribe")) is not None:
            groups.append(described(error_code=refused, group_id=group_id, group_state="",
                                    assignor_name="", members=[]))
        elif _not_coordinator(ctx, group_id):
            groups.append(described(error_code=Err.NOT_COORDINATOR, group_id=group_id, group_state="",
                                    assignor_name="", members=[]))
        elif group is None or group.kind != "consumer":
            message = (f"Group {group_id} not found." if group is None
                       else f"Group {group_id} is not a consumer group.")
            groups.append(described(error_code=Err.GROUP_ID_NOT_FOUND, error_message=message,
                                    group_id=group_id, group_state="Dead", assignor_name="",
                                    members=[]))
        else:
            groups.append(described(
                error_code=Err.NONE, group_id=group_id, group_state=group.state,
                group_epoch=group.group_epoch, assignment_epoch=group.assignment_epoch,
                assignor_name=group.assignor_name(), group_creation_time_ms=group.creation_time_ms,
                members=[member_cls(
                    member_id=m.member_id, instance_id=m.instance_id, rack_id=m.rack_id,
                    member_epoch=m.epoch, client_id=m.client_id, client_host=m.client_host,
                    subscribed_topic_names=sorted(m.subscribed_names),
                    subscribed_topic_regex=m.subscribed_regex,
                    assignment=assignment(m.assigned),
                    target_assignment=assignment(group.target.get(m.member_id, ())),
                    member_type=1) for m in group.members.values()],
                authorized_operations=sum(1 << op for op in ctx.authorized_operations(
                    ResourceType.GROUP, group_id)) if req.include_authorized_operations else -(1 << 31)))
    return _response(ctx, groups=groups)


# ---- offsets -----------------------------------------------------------------------------

@handles(OFFSET_COMMIT, 2, 10)
async def offset_commit(ctx: RequestContext, req):
    cls = RESPONSES[OFFSET_COMMIT]
    topic_cls, part_cls = cls.OffsetCommitResponseTopic, cls.OffsetCommitResponseTopic.OffsetCommitResponsePartition
    cluster = ctx.cluster
    by_id = ctx.api_version >= 10
    topics = []      # (request topic, resolved name or None)
    for t in req.topics:
        topic = cluster.topic_by_id(t.topic_id) if by_id else cluster.topics.get(t.name)
        topics.append((t, topic))

    def answer(code_for):
        return _response(ctx, topics=[
            topic_cls(name=t.name, topic_id=t.topic_id, partitions=[
                part_cls(partition_index=p.partition_index, error_code=code_for(topic, p))
                for p in t.partitions]) for t, topic in topics])

    if not _may(ctx, Op.READ, req.group_id):
        return answer(lambda topic, p: Err.GROUP_AUTHORIZATION_FAILED)
    if (refused := cluster.refusal("OffsetCommit")) is not None:
        return answer(lambda topic, p: refused)
    if _not_coordinator(ctx, req.group_id):
        return answer(lambda topic, p: Err.NOT_COORDINATOR)
    if not req.group_id:
        return answer(lambda topic, p: Err.INVALID_GROUP_ID)
    coordinator = coordinator_for(cluster)
    generation = req.generation_id_or_member_epoch
    try:
        group = coordinator.group_for_commit(req.group_id, generation, ctx.api_version)
        if group.kind == "classic":
            group.validate_commit(req.member_id, req.group_instance_id, generation)
        elif group.kind == "streams":
            group.validate_commit(req.member_id, generation, [
                (topic.name, p.partition_index) for t, topic in topics if topic for p in t.partitions],
                ctx.api_version)
        else:
            group.validate_commit(req.member_id, generation, [
                (topic.topic_id, p.partition_index) for t, topic in topics if topic for p in t.partitions])
    except BrokerError as exc:
        refusal = exc.code
        return answer(lambda topic, p: refusal)

    now = cluster.now_ms()
    limit = coordinator.config.offset_metadata_max_bytes
    entries = []

    # READ on each topic (by name: whether it exists or not; by id: once it is known)
    denied = {id(p) for t, topic in topics for p in t.partitions
              if (topic is not None or not by_id) and not ctx.may(Op.READ, topic.name if topic else t.name)}

    def code_for(topic, p):
        if id(p) in denied:
            return Err.TOPIC_AUTHORIZATION_FAILED
        if topic is None:
            return Err.UNKNOWN_TOPIC_ID if by_id else Err.UNKNOWN_TOPIC_OR_PARTITION
        if p.committed_metadata is not None and len(p.committed_metadata.encode()) > limit:
            return Err.OFFSET_METADATA_TOO_LARGE
        if not 0 <= p.partition_index < len(topic.partitions):
            return Err.UNKNOWN_TOPIC_OR_PARTITION
        entries.append((topic.name, p.partition_index, Committed(
            p.committed_offset, p.committed_leader_epoch, p.committed_metadata, now, str(topic.topic_id))))
        return Err.NONE

    response = answer(code_for)
    coordinator.commit(req.group_id, entries)
    return response


@handles(OFFSET_FETCH, 1, 10)
async def offset_fetch(ctx: RequestContext, req):
    cls = RESPONSES[OFFSET_FETCH]
    if ctx.api_version >= 8:
        return _response(ctx, groups=[_fetch_group(ctx, g.group_id, g.topics, g.member_id, g.member_epoch,
                                                   req.require_stable)
                                      for g in req.groups])
    group = _fetch_group(ctx, req.group_id, req.topics, None, -1,
                         ctx.api_version >= 7 and req.require_stable)
    topic_cls = cls.OffsetFetchResponseTopic
    part_cls = topic_cls.OffsetFetchResponsePartition
    topics = [topic_cls(name=t.name, partitions=[
        part_cls(partition_index=p.partition_index, committed_offset=p.committed_offset,
                 committed_leader_epoch=p.committed_leader_epoch, metadata=p.metadata,
                 error_code=p.error_code) for p in t.partitions]) for t in group.topics]
    if group.error_code and ctx.api_version < 2:
        for t in topics:
            for p in t.partitions:
                p.error_code = group.error_code
    return _response(ctx, topics=topics, error_code=group.error_code)


def _fetch_group(ctx: RequestContext, group_id: str, topics, member_id, member_epoch,
                 require_stable: bool = False):
    """One group's OffsetFetchResponseGroup (the v8+ shape; older versions are mapped from it).
    With ``require_stable`` (KIP-447), a partition with a transaction's offset not yet committed
    is answered UNSTABLE_OFFSET_COMMIT."""
    cls = RESPONSES[OFFSET_FETCH].OffsetFetchResponseGroup
    topics_cls, part_cls = cls.OffsetFetchResponseTopics, cls.OffsetFetchResponseTopics.OffsetFetchResponsePartitions
    cluster = ctx.cluster
    by_id = ctx.api_version >= 10
    if not _may(ctx, Op.DESCRIBE, group_id):
        return cls(group_id=group_id, topics=[], error_code=Err.GROUP_AUTHORIZATION_FAILED)
    if (refused := cluster.refusal("OffsetFetch")) is not None:
        return cls(group_id=group_id, topics=[], error_code=refused)
    if _not_coordinator(ctx, group_id):
        return cls(group_id=group_id, topics=[], error_code=Err.NOT_COORDINATOR)
    coordinator = coordinator_for(cluster)
    group = coordinator.group(group_id)
    if group is not None and group.kind in ("consumer", "streams"):
        try:
            group.validate_fetch(member_id, member_epoch)
        except BrokerError as exc:
            return cls(group_id=group_id, topics=[], error_code=exc.code)
    committed = coordinator.committed(group_id)
    unstable = transactions_for(cluster).pending_partitions(group_id) if require_stable else set()

    def partition(name: str, index: int, topic_id: uuid.UUID | None):
        if (name, index) in unstable:
            return part_cls(partition_index=index, committed_offset=-1, committed_leader_epoch=-1,
                            metadata="", error_code=Err.UNSTABLE_OFFSET_COMMIT)
        c = committed.get((name, index))
        if c is None or (topic_id is not None and c.topic_id is not None and c.topic_id != str(topic_id)):
            return part_cls(partition_index=index, committed_offset=-1, committed_leader_epoch=-1,
                            metadata="", error_code=Err.NONE)
        return part_cls(partition_index=index, committed_offset=c.offset,
                        committed_leader_epoch=c.leader_epoch, metadata=c.metadata, error_code=Err.NONE)

    out = []
    if topics is None:
        names: dict[str, list[int]] = {}
        for name, index in sorted(committed):
            names.setdefault(name, []).append(index)
        for name, indexes in names.items():
            topic = cluster.topics.get(name)
            if (by_id and topic is None) or not ctx.may(Op.DESCRIBE, name):
                continue
            topic_id = topic.topic_id if topic else ZERO_UUID
            out.append(topics_cls(name=name, topic_id=topic_id,
                                  partitions=[partition(name, i, topic_id if by_id else None) for i in indexes]))
    else:
        for t in topics:
            if by_id:
                topic = cluster.topic_by_id(t.topic_id)
                if topic is None:
                    out.append(topics_cls(topic_id=t.topic_id, partitions=[
                        part_cls(partition_index=i, committed_offset=-1, committed_leader_epoch=-1,
                                 metadata="", error_code=Err.UNKNOWN_TOPIC_ID) for i in t.partition_indexes]))
                    continue
                name, topic_id = topic.name, t.topic_id
            else:
                name, topic_id = t.name, None
            if not ctx.may(Op.DESCRIBE, name):
                out.append(topics_cls(name=name, topic_id=t.topic_id if by_id else ZERO_UUID, partitions=[
                    part_cls(partition_index=i, committed_offset=-1, committed_leader_epoch=-1, metadata="",
                             error_code=Err.TOPIC_AUTHORIZATION_FAILED) for i in t.partition_indexes]))
                continue
            out.append(topics_cls(name=name, topic_id=t.topic_id if by_id else ZERO_UUID,
                                  partitions=[partition(name, i, topic_id) for i in t.partition_indexes]))
    return cls(group_id=group_id, topics=out, error_code=Err.NONE)


@handles(OFFSET_DELETE, 0, 0)
async def offset_delete(ctx: RequestContext, req):
    cls = RESPONSES[OFFSET_DELETE]
    topic_cls, part_cls = cls.OffsetDeleteResponseTopic, cls.OffsetDeleteResponseTopic.OffsetDeleteResponsePartition

    def fail(code: Err):
        return _response(ctx, error_code=code, topics=[])

    if not _may(ctx, Op.DELETE, req.group_id):
        return fail(Err.GROUP_AUTHORIZATION_FAILED)
    if _not_coordinator(ctx, req.group_id):
        return fail(Err.NOT_COORDINATOR)
    coordinator = coordinator_for(ctx.cluster)
    group = coordinator.group(req.group_id)
    if group is None or group.kind == "share":     # a share group has no committed offsets
        return fail(Err.GROUP_ID_NOT_FOUND)
    try:
        group.validate_offset_delete()
    except BrokerError as exc:
        return fail(exc.code)
    topics = []
    deleted: list[tuple[str, int]] = []
    for t in req.topics:
        if not ctx.may(Op.READ, t.name):
            topics.append(topic_cls(name=t.name, partitions=[
                part_cls(partition_index=p.partition_index, error_code=Err.TOPIC_AUTHORIZATION_FAILED)
                for p in t.partitions]))
            continue
        subscribed = not group.is_empty and group.is_subscribed_to(t.name)
        code = Err.GROUP_SUBSCRIBED_TO_TOPIC if subscribed else Err.NONE
        if not subscribed:
            deleted.extend((t.name, p.partition_index) for p in t.partitions)
        topics.append(topic_cls(name=t.name, partitions=[
            part_cls(partition_index=p.partition_index, error_code=code) for p in t.partitions]))
    coordinator.delete_offsets(req.group_id, deleted)
    return _response(ctx, error_code=Err.NONE, topics=topics)


# ---- group administration ----------------------------------------------------------------

@handles(LIST_GROUPS, 0, 5)
async def list_groups(ctx: RequestContext, req):
    cls = RESPONSES[LIST_GROUPS]
    states = {s.lower() for s in req.states_filter} if ctx.api_version >= 4 else set()
    types = {t.lower() for t in req.types_filter} if ctx.api_version >= 5 else set()
    listed = []
    every = ctx.allowed(Op.DESCRIBE)                   # DESCRIBE on the cluster lists every group
    for group_id, group in sorted(coordinator_for(ctx.cluster).groups.items()):
        if _not_coordinator(ctx, group_id) or not (every or _may(ctx, Op.DESCRIBE, group_id)):
            continue
        if (states and group.state.lower() not in states) or (types and group.kind not in types):
            continue
        listed.append(cls.ListedGroup(group_id=group_id, protocol_type=group.protocol_type or "",
                                      group_state=group.state, group_type=group.kind))
    return _response(ctx, error_code=Err.NONE, groups=listed)


@handles(DESCRIBE_GROUPS, 0, 6)
async def describe_groups(ctx: RequestContext, req):
    cls = RESPONSES[DESCRIBE_GROUPS]
    described, member_cls = cls.DescribedGroup, cls.DescribedGroup.DescribedGroupMember
    coordinator = coordinator_for(ctx.cluster)
    out = []
    for group_id in req.groups:
        group = coordinator.group(group_id)
        if not _may(ctx, Op.DESCRIBE, group_id):
            out.append(described(error_code=Err.GROUP_AUTHORIZATION_FAILED, group_id=group_id,
                                 group_state="", protocol_type="", protocol_data="", members=[]))
        elif _not_coordinator(ctx, group_id):
            out.append(described(error_code=Err.NOT_COORDINATOR, group_id=group_id, group_state="",
                                 protocol_type="", protocol_data="", members=[]))
        elif group is None or group.kind != "classic":
            # Kafka answers Dead for a group that is not a classic group (GROUP_ID_NOT_FOUND in v6).
            not_found = ctx.api_version >= 6
            out.append(described(
                error_code=Err.GROUP_ID_NOT_FOUND if not_found else Err.NONE,
                error_message=f"Group {group_id} is not a classic group." if not_found else None,
                group_id=group_id, group_state="Dead", protocol_type="", protocol_data="", members=[]))
        else:
            stable = group.state == "Stable"
            out.append(described(
                error_code=Err.NONE, group_id=group_id, group_state=group.state,
                protocol_type=group.protocol_type or "",
                protocol_data=group.protocol_name if stable else "",
                members=[member_cls(
                    member_id=m.member_id, group_instance_id=m.instance_id, client_id=m.client_id,
                    client_host=m.client_host,
                    member_metadata=m.metadata(group.protocol_name) if stable else b"",
                    member_assignment=m.assignment if stable else b"")
                    for m in group.members.values()],
                authorized_operations=ctx.authorized_operations(ResourceType.GROUP, group_id)
                if ctx.api_version >= 3 and req.include_authorized_operations else None))
    return _response(ctx, groups=out)


@handles(DELETE_GROUPS, 0, 2)
async def delete_groups(ctx: RequestContext, req):
    cls = RESPONSES[DELETE_GROUPS]
    coordinator = coordinator_for(ctx.cluster)
    results = []
    for group_id in req.groups_names:
        code = (Err.GROUP_AUTHORIZATION_FAILED if not _may(ctx, Op.DELETE, group_id)
                else Err.NOT_COORDINATOR if _not_coordinator(ctx, group_id)
                else coordinator.delete_group(group_id))
        results.append(cls.DeletableGroupResult(group_id=group_id, error_code=code))
    return _response(ctx, results=results)



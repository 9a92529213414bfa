"""Streams-group APIs (KIP-1071): StreamsGroupHeartbeat v0-v2 and StreamsGroupDescribe v0-v2.
v1 of both is Apache Kafka 4.4's (KIP-1331); v2 adds GroupCreationTimeMs (KIP-1282). The state
machine lives in ``kcli.broker.groups.streams``; this module maps requests and responses."""

from __future__ import annotations

from kcli.broker.apikeys import STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_HEARTBEAT
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups import coordinator_for
from kcli.broker.groups.streams import Topology
from kcli.broker.acl import Op, ResourceType
from kcli.broker.handlers.groups import _may, _not_coordinator, _response
from kcli.protocol import RESPONSES

LEAVE_STATIC = -2


def _tasks(task_ids) -> list[tuple[str, int]] | None:
    if task_ids is None:
        return None
    return [(t.subtopology_id, p) for t in task_ids for p in t.partitions]


def _by_subtopology(tasks) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for sub, partition in sorted(tasks):
        out.setdefault(sub, []).append(partition)
    return out


def _invalid_heartbeat(req) -> str | None:
    """GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsInvalid (and the regex check
    before it): INVALID_REQUEST's message, or None."""
    if req.topology is not None:
        if any(s.source_topic_regex for s in req.topology.subtopologies):
            return "Regular expressions for source topics are not supported yet."
    for name, value in (("MemberId", req.member_id), ("GroupId", req.group_id),
                        ("InstanceId", req.instance_id), ("RackId", req.rack_id)):
        if value is not None and not value.strip():
            return f"{name} can't be empty."
    epoch = req.member_epoch
    if epoch == 0:
        if req.rebalance_timeout_ms == -1:
            return "RebalanceTimeoutMs must be provided in first request."
        for name, tasks in (("ActiveTasks", req.active_tasks), ("StandbyTasks", req.standby_tasks),
                            ("WarmupTasks", req.warmup_tasks)):
            if tasks:
                return f"{name} must be empty when (re-)joining."
        if req.topology is None:
            return "Topology must be non-null when (re-)joining."
    elif epoch == LEAVE_STATIC:
        if req.instance_id is None:
            return "InstanceId can't be null."
    elif epoch < LEAVE_STATIC:
        return f"MemberEpoch is {epoch}, but must be greater than or equal to -2."
    given = [t is not None for t in (req.active_tasks, req.standby_tasks, req.warmup_tasks)]
    if any(given) and not all(given):
        return "If one task-type is non-null, all must be non-null."
    if epoch != 0 and req.topology is not None:
        return "Topology can only be provided when (re-)joining."
    return None


@handles(STREAMS_GROUP_HEARTBEAT, 0, 2)
async def streams_group_heartbeat(ctx: RequestContext, req):
    cls = RESPONSES[STREAMS_GROUP_HEARTBEAT]
    coordinator = coordinator_for(ctx.cluster)
    config = coordinator.config

    def answer(**fields):
        values = dict(heartbeat_interval_ms=config.streams_heartbeat_interval_ms,
                      task_offset_interval_ms=config.streams_task_offset_interval_ms,
                      acceptable_recovery_lag=config.streams_acceptable_recovery_lag,
                      acceptable_recovery_lag_legacy=min(config.streams_acceptable_recovery_lag, 2**31 - 1))
        return _response(ctx, **{**values, **fields})

    def fail(code: Err, message: str | None = None):
        return answer(error_code=code, error_message=message, member_id="", member_epoch=-1,
                      status=None, endpoint_information_epoch=0, heartbeat_interval_ms=0)

    if not _may(ctx, Op.READ, req.group_id):
        return fail(Err.GROUP_AUTHORIZATION_FAILED, "Group authorization failed.")
    if _not_coordinator(ctx, req.group_id):
        return fail(Err.NOT_COORDINATOR)
    invalid = _invalid_heartbeat(req)
    if invalid is not None:
        return fail(Err.INVALID_REQUEST, invalid)
    endpoint = req.user_endpoint
    try:
        group = coordinator.streams_group(req.group_id, create=req.member_epoch == 0)
        result = group.streams_heartbeat(
            member_id=req.member_id, epoch=req.member_epoch, instance_id=req.instance_id, rack_id=req.rack_id,
            rebalance_timeout_ms=req.rebalance_timeout_ms,
            topology=Topology.from_request(req.topology) if req.topology is not None else None,
            owned_active=_tasks(req.active_tasks), owned_standby=_tasks(req.standby_tasks),
            process_id=req.process_id,
            user_endpoint=(endpoint.host, endpoint.port) if endpoint is not None else None,
            client_tags=None if req.client_tags is None else {kv.key: kv.value for kv in req.client_tags},
            task_offsets=None if req.task_offsets is None else [
                (o.subtopology_id, o.partition, o.offset) for o in req.task_offsets],
            task_end_offsets=None if req.task_end_offsets is None else [
                (o.subtopology_id, o.partition, o.offset) for o in req.task_end_offsets],
            client_id=ctx.client_id or "", client_host=ctx.client_host)
    except BrokerError as exc:
        return fail(exc.code, exc.message)

    def task_ids(tasks):
        if tasks is None:
            return None
        return [cls.TaskIds(subtopology_id=s, partitions=ps) for s, ps in _by_subtopology(tasks).items()]

    return answer(error_code=Err.NONE, error_message=None, member_id=result.member_id, member_epoch=result.epoch,
                  group_creation_time_ms=group.creation_time_ms,
                  status=[cls.Status(status_code=code, status_detail=detail) for code, detail in result.status],
                  active_tasks=task_ids(result.assignment), standby_tasks=task_ids(result.standby),
                  warmup_tasks=None if result.assignment is None else [],
                  endpoint_information_epoch=0, partitions_by_user_endpoint=None)


@handles(STREAMS_GROUP_DESCRIBE, 0, 2)
async def streams_group_describe(ctx: RequestContext, req):
    cls = RESPONSES[STREAMS_GROUP_DESCRIBE]
    described = cls.DescribedGroup
    member_cls, topology_cls = described.Member, described.Topology
    sub_cls = topology_cls.Subtopology
    info_cls = sub_cls.TopicInfo
    assignment_cls = member_cls.Assignment
    coordinator = coordinator_for(ctx.cluster)
    version = ctx.api_version

    def assignment(active, standby):
        return assignment_cls(
            active_tasks=[assignment_cls.TaskIds(subtopology_id=s, partitions=ps)
                          for s, ps in _by_subtopology(active).items()],
            standby_tasks=[assignment_cls.TaskIds(subtopology_id=s, partitions=ps)
                           for s, ps in _by_subtopology(standby).items()],
            warmup_tasks=[])

    def topic_info(info, partitions):
        return info_cls(name=info.name, partitions=partitions, replication_factor=info.replication_factor,
                        topic_configs=[info_cls.KeyValue(key=k, value=v) for k, v in info.configs])

    def topology(group):
        if group.topology is None:
            return None
        configured = group.configured
        subtopologies = None
        if configured is not None and configured.ready:
            subtopologies = [sub_cls(
                subtopology_id=s.subtopology_id, source_topics=list(s.source_topics),
                repartition_sink_topics=list(s.repartition_sink_topics),
                state_changelog_topics=[topic_info(i, configured.internal[i.name][1])
                                        for i in s.state_changelog_topics],
                repartition_source_topics=[topic_info(i, configured.internal[i.name][1])
                                           for i in s.repartition_source_topics])
                for s in group.topology.subtopologies]
        return topology_cls(epoch=group.topology.epoch, subtopologies=subtopologies)

    def error(group_id, code, message=None):
        fields = dict(error_code=code, error_message=message, group_id=group_id, group_state="",
                      group_epoch=-1, assignment_epoch=-1, topology=None, members=[])
        if version >= 1:
            fields.update(topology_description=None, topology_description_status=0, assignor_name=None)
        return described(**fields)

    groups = []
    for group_id in req.group_ids:
        group = coordinator.group(group_id)
        if not _may(ctx, Op.DESCRIBE, group_id):
            groups.append(error(group_id, Err.GROUP_AUTHORIZATION_FAILED, "Group authorization failed."))
        elif _not_coordinator(ctx, group_id):
            groups.append(error(group_id, Err.NOT_COORDINATOR))
        elif (refused := ctx.cluster.refusal("StreamsGroupDescribe")) is not None:
            groups.append(error(group_id, refused))
        elif group is None:
            groups.append(error(group_id, Err.GROUP_ID_NOT_FOUND, f"Group {group_id} not found."))
        elif group.kind != "streams":
            groups.append(error(group_id, Err.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a streams group."))
        else:
            fields = dict(
                error_code=Err.NONE, error_message=None, group_id=group_id, group_state=group.state,
                group_epoch=group.group_epoch, assignment_epoch=group.assignment_epoch, topology=topology(group),
                members=[member_cls(
                    member_id=m.member_id, member_epoch=m.epoch, instance_id=m.instance_id, rack_id=m.rack_id,
                    client_id=m.client_id, client_host=m.client_host, topology_epoch=m.topology_epoch,
                    process_id=m.process_id,
                    user_endpoint=member_cls.Endpoint(host=m.user_endpoint[0], port=m.user_endpoint[1])
                    if m.user_endpoint else None,
                    client_tags=[member_cls.KeyValue(key=k, value=v) for k, v in sorted(m.client_tags.items())],
                    task_offsets=[member_cls.TaskOffset(subtopology_id=s, partition=p, offset=o)
                                  for s, p, o in m.task_offsets],
                    task_end_offsets=[member_cls.TaskOffset(subtopology_id=s, partition=p, offset=o)
                                      for s, p, o in m.task_end_offsets],
                    assignment=assignment(m.assigned, m.standby),
                    target_assignment=assignment(group.target.get(m.member_id, ()),
                                                 group.standby_target.get(m.member_id, ())),
                    is_classic=False) for m in group.members.values()],
                group_creation_time_ms=group.creation_time_ms,
                authorized_operations=sum(1 << op for op in ctx.authorized_operations(ResourceType.GROUP, group_id))
                if req.include_authorized_operations else -(1 << 31))
            if version >= 1:
                # KIP-1331: no topology description is stored here (NOT_STORED when asked for)
                fields.update(topology_description=None,
                              topology_description_status=1 if req.include_topology_description else 0,
                              assignor_name=group.assignor_name())
            groups.append(described(**fields))
    return _response(ctx, groups=groups)


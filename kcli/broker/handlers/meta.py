"""ApiVersions, Metadata, DescribeCluster, DescribeTopicPartitions, UnregisterBroker,
UnregisterController."""

from __future__ import annotations

import re
import uuid

from kcli.broker.acl import Op, ResourceType
from kcli.broker.apikeys import (API_VERSIONS, DESCRIBE_CLUSTER, DESCRIBE_TOPIC_PARTITIONS, METADATA, UNREGISTER_BROKER,
                                 UNREGISTER_CONTROLLER)
from kcli.broker.cluster import Topic, validate_topic_name
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.versions import advertised
from kcli.protocol import RESPONSES

ZERO_UUID = uuid.UUID(int=0)
_SOFTWARE = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")


@handles(API_VERSIONS, 0, 4)
async def api_versions(ctx: RequestContext, req):
    cls = RESPONSES[API_VERSIONS]
    if ctx.api_version >= 3 and not (_SOFTWARE.match(req.client_software_name or "")
                                     and _SOFTWARE.match(req.client_software_version or "")):
        return cls(version=ctx.api_version, error_code=Err.INVALID_REQUEST, api_keys=[])
    controller = ctx.cluster.controller
    return cls(version=ctx.api_version, error_code=0, api_keys=[
        cls.ApiVersion(api_key=k, min_version=lo, max_version=hi)
        for k, lo, hi in advertised(ctx.cluster.pose_as)],
        # KIP-584 (v3+): a feature whose lowest level is 0 is left out before v4 (KAFKA-17492),
        # a feature finalized at 0 always
        supported_features=[cls.SupportedFeatureKey(name=name, min_version=lo, max_version=hi)
                            for name, (lo, hi) in controller.supported().items()
                            if ctx.api_version >= 4 or lo > 0],
        finalized_features_epoch=controller.log_end_offset() if controller.serves_features else -1,
        finalized_features=[cls.FinalizedFeatureKey(name=name, max_version_level=level,
                                                    min_version_level=level)
                            for name, level in controller.finalized.items() if level],
        zk_migration_ready=False)


def _brokers(cluster, cls, id_field: str = "node_id"):
    """The live brokers; Metadata names the id ``node_id``, DescribeCluster ``broker_id``."""
    return [cls(**{id_field: n}, host=cluster.node_address(n)[0], port=cluster.node_address(n)[1],
                rack=None) for n in cluster.node_ids if cluster.is_up(n)]


def _auto_create(cluster, name: str) -> Topic | None:
    if cluster.broker_config("auto.create.topics.enable").lower() != "true":
        return None
    try:
        return cluster.create_topic(name)
    except BrokerError:
        return None


@handles(METADATA, 0, 14)
async def metadata(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[METADATA]
    T = R.MetadataResponseTopic
    P = T.MetadataResponsePartition
    now = cluster.now_ms()
    all_topics = req.topics is None or (v == 0 and not req.topics)
    wanted: list[tuple[str | None, uuid.UUID | None]] = (
        [(name, None) for name in sorted(cluster.topics)] if all_topics
        else [(t.name, getattr(t, "topic_id", None)) for t in req.topics])
    auto_create = v < 4 or req.allow_auto_topic_creation
    topics = []
    for name, topic_id in wanted:
        if name is None or (not name and topic_id not in (None, ZERO_UUID)):     # by id (v10+)
            topic = cluster.topic_by_id(topic_id) if topic_id not in (None, ZERO_UUID) else None
            if topic is None:
                topics.append(T(error_code=Err.UNKNOWN_TOPIC_ID, name=None, topic_id=topic_id,
                                partitions=[]))
                continue
            if not ctx.may(Op.DESCRIBE, topic.name):
                topics.append(T(error_code=Err.TOPIC_AUTHORIZATION_FAILED, name=None,
                                topic_id=topic_id, partitions=[]))
                continue
        else:
            if not ctx.may(Op.DESCRIBE, name):     # every topic: the unauthorized are left out
                if not all_topics:
                    topics.append(T(error_code=Err.TOPIC_AUTHORIZATION_FAILED, name=name,
                                    topic_id=ZERO_UUID, partitions=[]))
                continue
            topic = cluster.topics.get(name)
            if topic is None and auto_create and not (
                    ctx.allowed(Op.CREATE) or ctx.may(Op.CREATE, name)):
                topics.append(T(error_code=Err.TOPIC_AUTHORIZATION_FAILED, name=name,
                                topic_id=ZERO_UUID, partitions=[]))
                continue
            if topic is None:
                try:
                    validate_topic_name(name)
                except BrokerError as e:
                    topics.append(T(error_code=e.code, name=name, topic_id=ZERO_UUID,
                                    partitions=[]))
                    continue
                topic = _auto_create(cluster, name) if auto_create else None
                if topic is None:
                    topics.append(T(error_code=Err.UNKNOWN_TOPIC_OR_PARTITION, name=name,
                                    topic_id=ZERO_UUID, partitions=[]))
                    continue
        partitions = []
        for p in topic.partitions:
            leader = p.leader
            partitions.append(P(
                error_code=Err.NONE if leader >= 0 else Err.LEADER_NOT_AVAILABLE,
                partition_index=p.index, leader_id=leader, leader_epoch=p.leader_epoch,
                replica_nodes=list(p.replicas), isr_nodes=p.isr,
                offline_replicas=p.offline_replicas,
                partition_age_ms=now - p.creation_time_ms if p.creation_time_ms >= 0 else -1))
        topics.append(T(error_code=0, name=topic.name, topic_id=topic.topic_id,
                        is_internal=False, partitions=partitions,
                        authorized_operations=ctx.authorized_operations(ResourceType.TOPIC, topic.name)
                        if v >= 8 and req.include_topic_authorized_operations else None))
    cluster_operations = (ctx.authorized_operations(ResourceType.CLUSTER)
                          if 8 <= v <= 10 and req.include_cluster_authorized_operations else None)
    return R(version=v, throttle_time_ms=0, brokers=_brokers(cluster, R.MetadataResponseBroker),
             cluster_id=cluster.cluster_id, controller_id=cluster.controller_id(), topics=topics,
             error_code=0, authorized_operations=cluster_operations)


@handles(DESCRIBE_CLUSTER, 0, 2)
async def describe_cluster(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[DESCRIBE_CLUSTER]
    B = R.DescribeClusterBroker
    if v >= 1 and req.endpoint_type != 1:
        return R(version=v, error_code=Err.UNSUPPORTED_ENDPOINT_TYPE,
                 error_message="The request was sent to an endpoint of type BROKER, but we "
                               "wanted an endpoint of type CONTROLLER",
                 endpoint_type=req.endpoint_type, cluster_id=cluster.cluster_id, brokers=[])
    brokers = _brokers(cluster, B, "broker_id")
    if v >= 2 and req.include_fenced_brokers:
        brokers += [B(broker_id=n, host=cluster.node_address(n)[0],
                      port=cluster.node_address(n)[1], rack=None, is_fenced=True)
                    for n in cluster.node_ids
                    if not cluster.is_up(n) and n in cluster.addresses and n not in cluster.unregistered]
    return R(version=v, error_code=0, error_message=None, endpoint_type=1,
             cluster_id=cluster.cluster_id, controller_id=cluster.controller_id(),
             brokers=brokers, authorized_operations=ctx.authorized_operations(ResourceType.CLUSTER)
             if req.include_cluster_authorized_operations else None)


@handles(UNREGISTER_BROKER, 0, 0)
async def unregister_broker(ctx: RequestContext, req):
    """The controller's unregistering of a broker (Cluster.unregister); ALTER on the cluster."""
    R = RESPONSES[UNREGISTER_BROKER]
    try:
        if not ctx.allowed(Op.ALTER):
            raise BrokerError(Err.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.")
        ctx.cluster.unregister(req.broker_id)
    except BrokerError as exc:
        return R(version=ctx.api_version, throttle_time_ms=0, error_code=exc.code, error_message=exc.message)
    return R(version=ctx.api_version, throttle_time_ms=0, error_code=0, error_message=None)


@handles(UNREGISTER_CONTROLLER, 0, 0)
async def unregister_controller(ctx: RequestContext, req):
    """The embedded cluster's one controller is its only voter, which Kafka's controller refuses
    to unregister (INVALID_REQUEST); no other controller is registered."""
    R = RESPONSES[UNREGISTER_CONTROLLER]
    controller = ctx.cluster.controller_id()
    if not ctx.allowed(Op.ALTER):
        code, message = Err.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed."
    elif req.controller_id == controller:
        code, message = Err.INVALID_REQUEST, (f"Cannot unregister controller {controller} because it is part of the "
                                              "voter set.")
    else:
        code = Err.CONTROLLER_ID_NOT_REGISTERED
        message = f"Controller ID {req.controller_id} is not currently registered."
    return R(version=ctx.api_version, throttle_time_ms=0, error_code=code, error_message=message)


MAX_DESCRIBE_PARTITIONS = 2000   # max.request.partition.size.limit


@handles(DESCRIBE_TOPIC_PARTITIONS, 0, 1)
async def describe_topic_partitions(ctx: RequestContext, req):
    """Topics sorted by name from the cursor on, at most the partition limit, as Kafka pages."""
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[DESCRIBE_TOPIC_PARTITIONS]
    T = R.DescribeTopicPartitionsResponseTopic
    P = T.DescribeTopicPartitionsResponsePartition
    cursor = req.cursor
    cursor_topic = cursor.topic_name if cursor is not None else ""
    fetch_all = not req.topics
    asked = ({n for n in cluster.topics if ctx.may(Op.DESCRIBE, n)} if fetch_all
             else {t.name for t in req.topics})
    names = sorted(n for n in asked if n >= cursor_topic)
    if cursor is not None and (cursor.partition_index < 0 or (not fetch_all and
                                                              cursor_topic not in names)):
        return R(version=v, topics=[T(error_code=Err.INVALID_REQUEST, name=cursor_topic,
                                      topic_id=ZERO_UUID, partitions=[])], next_cursor=None)
    remaining = max(min(MAX_DESCRIBE_PARTITIONS, req.response_partition_limit), 1)
    topics, next_cursor = [], None
    for name in names:
        if remaining == 0:
            next_cursor = R.Cursor(topic_name=name, partition_index=0)
            break
        topic = cluster.topics.get(name)
        if not ctx.may(Op.DESCRIBE, name):
            topics.append(T(error_code=Err.TOPIC_AUTHORIZATION_FAILED, name=name,
                            topic_id=ZERO_UUID, partitions=[]))
            continue
        if topic is None:
            if not fetch_all:
                try:
                    validate_topic_name(name)
                    code = Err.UNKNOWN_TOPIC_OR_PARTITION
                except BrokerError:
                    code = Err.INVALID_TOPIC_EXCEPTION
                topics.append(T(error_code=code, name=name, topic_id=ZERO_UUID, partitions=[]))
            continue
        start = cursor.partition_index if cursor is not None and name == cursor_topic else 0
        chosen = topic.partitions[start:start + remaining]
        topics.append(T(error_code=0, name=name, topic_id=topic.topic_id, is_internal=False,
                        topic_authorized_operations=sum(
                            1 << op for op in ctx.authorized_operations(ResourceType.TOPIC, name)),
                        partitions=[
                            P(error_code=0, partition_index=p.index, leader_id=p.leader,
                              leader_epoch=p.leader_epoch, replica_nodes=list(p.replicas),
                              # Empty lists, never null: Kafka always sends them (ELR is
                              # off here) and the Java AdminClient dereferences them.
                              isr_nodes=p.isr, eligible_leader_replicas=[],
                              last_known_elr=[], offline_replicas=p.offline_replicas,
                              creation_time_ms=p.creation_time_ms)
                            for p in chosen]))
        if start + len(chosen) < len(topic.partitions):
            next_cursor = R.Cursor(topic_name=name, partition_index=start + len(chosen))
            break
        remaining -= len(chosen)
    return R(version=v, throttle_time_ms=0, topics=topics, next_cursor=next_cursor)

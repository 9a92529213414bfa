"""CreateTopics, CreatePartitions, DeleteTopics."""

from __future__ import annotations

from collections import Counter

from kcli.broker import configs as cfg
from kcli.broker.acl import Op
from kcli.broker.apikeys import CREATE_PARTITIONS, CREATE_TOPICS, DELETE_TOPICS
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups import forget_topic
from kcli.broker.handlers.meta import ZERO_UUID
from kcli.protocol import RESPONSES

UNKNOWN_TOPIC_MESSAGE = "This server does not host this topic-partition."
NOT_AUTHORIZED = "Authorization failed."
# Kafka's controller writes one request's changes as one batch of at most 10,000 records (a
# topic, each partition, each config: one record) and refuses a larger one; CreateTopics also
# checks the partition count first (QuorumController MAX_RECORDS_PER_USER_OP,
# ReplicationControlManager MAX_PARTITIONS_PER_BATCH).
MAX_RECORDS = MAX_PARTITIONS = 10_000


def _java_int(x: int) -> int:
    return (x + (1 << 31)) % (1 << 32) - (1 << 31)


def _request_too_large(cluster, topics) -> BrokerError | None:
    """What Kafka answers every topic of a CreateTopics request too large for one batch."""
    default = int(cluster.broker_config("num.partitions"))
    counts = [len(t.assignments) if t.assignments else
              default if t.num_partitions == -1 else max(t.num_partitions, 0) for t in topics]
    total = 0
    for n in counts:                     # an int sum in Kafka, which may wrap
        total = _java_int(total + n)
    if total > MAX_PARTITIONS:
        return BrokerError(Err.POLICY_VIOLATION,
                           "Excessively large number of partitions per request.")
    if sum(1 + n + len(t.configs) for n, t in zip(counts, topics)) > MAX_RECORDS:
        return BrokerError(Err.POLICY_VIOLATION,
                           "Unable to perform excessively large batch operation.")
    return None


@handles(CREATE_TOPICS, 2, 7)
async def create_topics(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[CREATE_TOPICS]
    T = R.CreatableTopicResult
    counts = Counter(t.name for t in req.topics)
    duplicates = sorted(n for n, c in counts.items() if c > 1)
    too_large = _request_too_large(cluster, [t for t in req.topics if t.name not in duplicates])
    results = []
    cluster_create = ctx.allowed(Op.CREATE)
    for t in req.topics:
        if not (cluster_create or ctx.may(Op.CREATE, t.name)):
            results.append(T(name=t.name, topic_id=ZERO_UUID, error_code=Err.TOPIC_AUTHORIZATION_FAILED,
                             error_message=NOT_AUTHORIZED, configs=None))
            continue
        if too_large is not None:
            results.append(T(name=t.name, topic_id=ZERO_UUID, error_code=too_large.code,
                             error_message=too_large.message, configs=None))
            continue
        if t.name in duplicates:
            results.append(T(name=t.name, topic_id=ZERO_UUID, error_code=Err.INVALID_REQUEST,
                             error_message="Create topics request from client "
                             f"`{ctx.client_id}` contains multiple entries for the following "
                             f"topics: {', '.join(duplicates)}", configs=None))
            continue
        try:
            ordered = sorted(t.assignments, key=lambda a: a.partition_index)
            if [a.partition_index for a in ordered] != list(range(len(ordered))):
                raise BrokerError(Err.INVALID_REPLICA_ASSIGNMENT,
                                  "partitions should be a consecutive 0-based integer sequence")
            assignment = [a.broker_ids for a in ordered]
            topic = cluster.create_topic(
                t.name, t.num_partitions, t.replication_factor, assignment or None,
                {c.name: c.value for c in t.configs}, validate_only=req.validate_only)
        except BrokerError as e:
            results.append(T(name=t.name, topic_id=ZERO_UUID, error_code=e.code,
                             error_message=e.message, configs=None))
            continue
        entries = [cfg.topic_entry(n, topic.configs, cluster.broker_configs, None, cluster.topic_configs)
                   for n in cluster.topic_configs]
        if not ctx.may(Op.DESCRIBE_CONFIGS, topic.name):          # created; its configs withheld
            results.append(T(name=topic.name, topic_id=topic.topic_id, error_code=0, error_message=None,
                             topic_config_error_code=Err.TOPIC_AUTHORIZATION_FAILED, num_partitions=-1,
                             replication_factor=-1, configs=None))
            continue
        results.append(T(
            name=topic.name, topic_id=topic.topic_id, error_code=0, error_message=None,
            num_partitions=len(topic.partitions),
            replication_factor=len(topic.partitions[0].replicas),
            configs=[T.CreatableTopicConfigs(name=e.name, value=e.value, read_only=False,
                                             config_source=e.source, is_sensitive=False)
                     for e in entries]))
    return R(version=v, throttle_time_ms=0, topics=results)


@handles(CREATE_PARTITIONS, 0, 3)
async def create_partitions(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[CREATE_PARTITIONS]
    results = []
    # more new partitions than one controller batch holds: Kafka 4.4 refuses the request for
    # every topic before making any (KAFKA-19673, ReplicationControlManager
    # validateTotalNumberOfPartitions; 4.3 failed it with UNKNOWN_SERVER_ERROR, no message,
    # having made the first 10,000 partitions anyway)
    added = sum(max(t.count - len(cluster.topics[t.name].partitions), 0)
                for t in req.topics if t.name in cluster.topics)
    for t in req.topics:
        if not ctx.may(Op.ALTER, t.name):
            results.append(R.CreatePartitionsTopicResult(
                name=t.name, error_code=Err.TOPIC_AUTHORIZATION_FAILED, error_message=NOT_AUTHORIZED))
            continue
        if added > MAX_PARTITIONS:
            results.append(R.CreatePartitionsTopicResult(
                name=t.name, error_code=Err.POLICY_VIOLATION,
                error_message="Excessively large number of additional partitions per request."))
            continue
        try:
            assignment = None if t.assignments is None else [a.broker_ids for a in t.assignments]
            cluster.create_partitions(t.name, t.count, assignment, req.validate_only)
            results.append(R.CreatePartitionsTopicResult(name=t.name, error_code=0,
                                                         error_message=None))
        except BrokerError as e:
            results.append(R.CreatePartitionsTopicResult(name=t.name, error_code=e.code,
                                                         error_message=e.message))
    return R(version=v, throttle_time_ms=0, results=results)


@handles(DELETE_TOPICS, 1, 6)
async def delete_topics(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[DELETE_TOPICS]
    D = R.DeletableTopicResult
    wanted = [(t.name, t.topic_id) for t in req.topics] if v >= 6 \
        else [(name, None) for name in req.topic_names]
    results = []
    for name, topic_id in wanted:
        if name is None:
            topic = cluster.topic_by_id(topic_id)
            code = Err.UNKNOWN_TOPIC_ID
        else:
            topic = cluster.topics.get(name)
            code = Err.UNKNOWN_TOPIC_OR_PARTITION
        shown = topic.name if topic is not None else name
        if shown is not None and not ctx.may(Op.DELETE, shown):
            results.append(D(name=name, topic_id=topic_id or ZERO_UUID,
                             error_code=Err.TOPIC_AUTHORIZATION_FAILED, error_message=NOT_AUTHORIZED))
            continue
        if topic is None:
            results.append(D(name=name, topic_id=topic_id or ZERO_UUID, error_code=code,
                             error_message=UNKNOWN_TOPIC_MESSAGE if code ==
                             Err.UNKNOWN_TOPIC_OR_PARTITION else None))
            continue
        cluster.delete_topic(topic.name)
        forget_topic(cluster, topic.name)
        results.append(D(name=topic.name, topic_id=topic.topic_id, error_code=0,
                         error_message=None))
    return R(version=v, throttle_time_ms=0, responses=results)

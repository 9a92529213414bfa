"""AlterPartitionReassignments, ListPartitionReassignments, ElectLeaders (the replica moves and
elections of ``kcli.broker.cluster``)."""

from __future__ import annotations

from kcli.broker.apikeys import (ALTER_PARTITION_REASSIGNMENTS, ELECT_LEADERS,
                                 LIST_PARTITION_REASSIGNMENTS)
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.protocol import RESPONSES

PREFERRED, UNCLEAN = 0, 1


@handles(ALTER_PARTITION_REASSIGNMENTS, 0, 1)
async def alter_partition_reassignments(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[ALTER_PARTITION_REASSIGNMENTS]
    T, P = R.ReassignableTopicResponse, R.ReassignableTopicResponse.ReassignablePartitionResponse
    allow_rf_change = v < 1 or req.allow_replication_factor_change
    topics = []
    for t in req.topics:
        parts = []
        for rp in t.partitions:
            try:
                if (not allow_rf_change and rp.replicas is not None
                        and len(rp.replicas) != len(cluster.partition(t.name, rp.partition_index).target)):
                    raise BrokerError(Err.INVALID_REPLICATION_FACTOR, "The replication factor is "
                                      "changed from the original one, which is not allowed.")
                cluster.reassign(t.name, rp.partition_index,
                                 None if rp.replicas is None else list(rp.replicas))
                parts.append(P(partition_index=rp.partition_index, error_code=0,
                               error_message=None))
            except BrokerError as e:
                parts.append(P(partition_index=rp.partition_index, error_code=e.code,
                               error_message=e.message))
        topics.append(T(name=t.name, partitions=parts))
    return R(version=v, throttle_time_ms=0, allow_replication_factor_change=allow_rf_change,
             error_code=0, error_message=None, responses=topics)


@handles(LIST_PARTITION_REASSIGNMENTS, 0, 0)
async def list_partition_reassignments(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[LIST_PARTITION_REASSIGNMENTS]
    T = R.OngoingTopicReassignment
    P = T.OngoingPartitionReassignment
    wanted = None if req.topics is None else {(t.name, i) for t in req.topics
                                              for i in t.partition_indexes}
    by_topic: dict[str, list] = {}
    for name, p in cluster.reassignments():
        if wanted is None or (name, p.index) in wanted:
            by_topic.setdefault(name, []).append(P(
                partition_index=p.index, replicas=list(p.replicas),
                adding_replicas=list(p.adding), removing_replicas=list(p.removing)))
    return R(version=v, throttle_time_ms=0, error_code=0, error_message=None,
             topics=[T(name=n, partitions=ps) for n, ps in by_topic.items()])


@handles(ELECT_LEADERS, 0, 2)
async def elect_leaders(ctx: RequestContext, req):
    """Each named partition's result; for every partition (no names), as Kafka's controller,
    only those it elected a leader for or failed to (no ELECTION_NOT_NEEDED)."""
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[ELECT_LEADERS]
    T, P = R.ReplicaElectionResult, R.ReplicaElectionResult.PartitionResult
    unclean = v >= 1 and req.election_type == UNCLEAN
    if v >= 1 and req.election_type not in (PREFERRED, UNCLEAN):
        return R(version=v, throttle_time_ms=0, error_code=Err.INVALID_REQUEST,
                 replica_election_results=[])
    every = req.topic_partitions is None
    wanted = ([(t.name, range(len(t.partitions))) for t in cluster.topics.values()] if every
              else [(t.topic, t.partitions) for t in req.topic_partitions])
    results = []
    for name, indexes in wanted:
        parts = []
        for i in indexes:
            try:
                cluster.elect_leader(name, i, unclean)
                parts.append(P(partition_id=i, error_code=0, error_message=None))
            except BrokerError as e:
                if not (every and e.code == Err.ELECTION_NOT_NEEDED):
                    parts.append(P(partition_id=i, error_code=e.code, error_message=e.message))
        if parts:
            results.append(T(topic=name, partition_result=parts))
    return R(version=v, throttle_time_ms=0, error_code=0, replica_election_results=results)

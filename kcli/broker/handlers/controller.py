"""DescribeQuorum and UpdateFeatures: the simulated KRaft controller of ``kcli.broker.controller``
(its metadata quorum; the finalized feature levels)."""

from __future__ import annotations

from kcli.broker.acl import Op
from kcli.broker.apikeys import DESCRIBE_QUORUM, UPDATE_FEATURES
from kcli.broker.controller import SAFE_DOWNGRADE, UPGRADE
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.protocol import RESPONSES

METADATA_TOPIC = "__cluster_metadata"
CONTROLLER_LISTENER = "CONTROLLER"
NOT_AUTHORIZED = "Cluster authorization failed."


@handles(DESCRIBE_QUORUM, 0, 2)
async def describe_quorum(ctx: RequestContext, req):
    """As a broker forwards it to the quorum's leader: ``__cluster_metadata`` partition 0 only."""
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[DESCRIBE_QUORUM]
    T, P = R.TopicData, R.TopicData.PartitionData
    if not ctx.allowed(Op.DESCRIBE):
        return R(version=v, error_code=Err.CLUSTER_AUTHORIZATION_FAILED,
                 error_message=NOT_AUTHORIZED, topics=[], nodes=[])

    def failed(code: int, message: str | None):
        return R(version=v, error_code=0, error_message=None, nodes=[], topics=[
            T(topic_name=t.topic_name, partitions=[
                P(partition_index=p.partition_index, error_code=code, error_message=message,
                  leader_id=-1, leader_epoch=-1, high_watermark=-1, current_voters=[],
                  observers=[]) for p in t.partitions]) for t in req.topics])

    if [(t.topic_name, [p.partition_index for p in t.partitions]) for t in req.topics] != [
            (METADATA_TOPIC, [0])]:
        return failed(Err.UNKNOWN_TOPIC_OR_PARTITION,
                      "This server does not host this topic-partition.")
    try:
        q = cluster.controller.quorum()
    except BrokerError as e:
        return failed(e.code, e.message)

    def states(replicas):
        return [P.ReplicaState(replica_id=r.replica_id, replica_directory_id=r.directory_id,
                               log_end_offset=r.log_end_offset,
                               last_fetch_timestamp=r.last_fetch_timestamp,
                               last_caught_up_timestamp=r.last_caught_up_timestamp)
                for r in replicas]

    partition = P(partition_index=0, error_code=0, error_message=None, leader_id=q.leader_id,
                  leader_epoch=q.leader_epoch, high_watermark=q.high_watermark,
                  current_voters=states(q.voters), observers=states(q.observers))
    # the voters' controller listener: here, the node's one listener
    nodes = [R.Node(node_id=r.replica_id, listeners=[R.Node.Listener(
        name=CONTROLLER_LISTENER, host=cluster.node_address(r.replica_id)[0],
        port=cluster.node_address(r.replica_id)[1])]) for r in q.voters
        if r.replica_id in cluster.addresses]
    return R(version=v, error_code=0, error_message=None, nodes=nodes,
             topics=[T(topic_name=METADATA_TOPIC, partitions=[partition])])


@handles(UPDATE_FEATURES, 0, 2)
async def update_features(ctx: RequestContext, req):
    """One error for the request (the first update that fails: nothing is changed then); the
    per-feature results, v0-v1, only when every update succeeded (UpdateFeaturesResponse)."""
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[UPDATE_FEATURES]

    def answer(code: int, message: str | None):
        results = [R.UpdatableFeatureResult(feature=u.feature, error_code=0, error_message=None)
                   for u in req.feature_updates] if code == 0 else []
        return R(version=v, throttle_time_ms=0, error_code=code, error_message=message,
                 results=results)

    if not ctx.allowed(Op.ALTER):
        return answer(Err.CLUSTER_AUTHORIZATION_FAILED, NOT_AUTHORIZED)
    names = [u.feature for u in req.feature_updates]
    if len(set(names)) != len(names):
        return answer(Err.INVALID_REQUEST, "Duplicate feature names in the request.")
    updates = []
    for u in req.feature_updates:
        if v == 0:                                  # AllowDowngrade: a safe downgrade
            kind = SAFE_DOWNGRADE if u.allow_downgrade else UPGRADE
        else:
            kind = u.upgrade_type
        updates.append((u.feature, u.max_version_level, kind))
    try:
        cluster.controller.update_features(updates, validate_only=v >= 1 and req.validate_only)
    except BrokerError as e:
        return answer(e.code, "The update failed for all features since the following feature "
                              f"had an error: {e.message}")
    return answer(0, None)

"""Raw streams-group (KIP-1071) requests shared by the broker's streams tests and the CLI's:
a topology and a StreamsGroupHeartbeat through a ``RawClient`` (tests/support/groups.py)."""

from __future__ import annotations

from kcli.protocol import REQUESTS

SGH = 88        # StreamsGroupHeartbeat


def topology(source="in", changelog=None, epoch=0):
    T = REQUESTS[SGH].Topology
    S = T.Subtopology
    info = S.TopicInfo
    return T(epoch=epoch, subtopologies=[S(
        subtopology_id="0", source_topics=[source], source_topic_regex=[], repartition_sink_topics=[],
        state_changelog_topics=[info(name=changelog, partitions=0, replication_factor=0, topic_configs=[
            info.KeyValue(key="cleanup.policy", value="compact")])] if changelog else [],
        repartition_source_topics=[], copartition_groups=[])])


def heartbeat(raw, node, group, member, epoch, version=2, process="p1", active=None, topo=None, **extra):
    req = REQUESTS[SGH]
    joining = epoch == 0
    tasks = None if active is None else [req.TaskIds(subtopology_id=s, partitions=ps) for s, ps in active]
    return raw.send(req(
        version=version, group_id=group, member_id=member, member_epoch=epoch, endpoint_information_epoch=0,
        rebalance_timeout_ms=30000 if joining else -1, topology=(topo or topology()) if joining else None,
        active_tasks=[] if joining else tasks, standby_tasks=[] if joining else (None if tasks is None else []),
        warmup_tasks=[] if joining else (None if tasks is None else []),
        process_id=process if joining else None, client_tags=[] if joining else None, **extra), node)


def streams_group_committed(ec, group: str, topic: str, offset: int) -> None:
    """A streams group (KIP-1071) joined by one member over the wire, which commits ``offset`` on
    partition 0 of ``topic`` with its member epoch."""
    from tests.support.groups import RawClient, coordinator_of

    raw = RawClient(ec.bootstrap_servers)
    try:
        node = coordinator_of(ec, group)
        joined = heartbeat(raw, node, group, "m1", 0, topo=topology(topic))
        assert joined.error_code == 0, joined
        req = REQUESTS[8]                                   # OffsetCommit, v9: a member epoch
        part = req.OffsetCommitRequestTopic.OffsetCommitRequestPartition
        resp = raw.send(req(version=9, group_id=group, generation_id_or_member_epoch=joined.member_epoch,
                            member_id="m1", topics=[req.OffsetCommitRequestTopic(name=topic, partitions=[
                                part(partition_index=0, committed_offset=offset, committed_metadata="")])]), node)
        assert resp.topics[0].partitions[0].error_code == 0, resp
    finally:
        raw.close()

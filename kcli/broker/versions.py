"""Which API versions the broker serves: the registered handler ranges, narrowed when the
cluster poses as an older broker (the KIP versions withheld, in ApiVersions and on the wire)."""

from __future__ import annotations

from kcli.broker.apikeys import (ADD_OFFSETS_TO_TXN, ADD_PARTITIONS_TO_TXN, ALTER_SHARE_GROUP_OFFSETS,
                                 CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_HEARTBEAT, DELETE_SHARE_GROUP_OFFSETS,
                                 DESCRIBE_CLUSTER, DESCRIBE_LOG_DIRS, DESCRIBE_PRODUCERS, DESCRIBE_QUORUM,
                                 DESCRIBE_SHARE_GROUP_OFFSETS,
                                 DESCRIBE_TOPIC_PARTITIONS, DESCRIBE_TRANSACTIONS, END_TXN, INIT_PRODUCER_ID,
                                 LIST_OFFSETS, LIST_TRANSACTIONS, METADATA, SHARE_ACKNOWLEDGE, SHARE_FETCH,
                                 SHARE_GROUP_DESCRIBE, SHARE_GROUP_HEARTBEAT, STREAMS_GROUP_DESCRIBE,
                                 STREAMS_GROUP_HEARTBEAT, TXN_OFFSET_COMMIT, UNREGISTER_CONTROLLER, UPDATE_FEATURES,
                                 WRITE_TXN_MARKERS)
from kcli.broker.dispatch import HANDLERS

# Share groups (KIP-932): production-ready from Apache Kafka 4.2 (4.1's were a preview, off by
# default); withheld entirely when posing as an older broker.
_NO_SHARE_GROUPS = {key: -1 for key in (SHARE_GROUP_HEARTBEAT, SHARE_GROUP_DESCRIBE, SHARE_FETCH,
                                        SHARE_ACKNOWLEDGE, DESCRIBE_SHARE_GROUP_OFFSETS,
                                        ALTER_SHARE_GROUP_OFFSETS, DELETE_SHARE_GROUP_OFFSETS)}

# pose_as -> {api_key: highest version served}. SaslHandshake (0-1) and SaslAuthenticate (0-2,
# since Kafka 2.5) are the same in every posed version.
POSE_AS_LIMITS: dict[str, dict[int, int]] = {
    # Apache Kafka 4.4: StreamsGroupHeartbeat and StreamsGroupDescribe v1 are KIP-1331's, no v2
    # GroupCreationTimeMs (KIP-1282); nor the KIP-1282/KIP-1327 versions of the other APIs.
    "4.4": {
        DESCRIBE_TOPIC_PARTITIONS: 0,  # no v1 CreationTimeMs (KIP-1327)
        METADATA: 13,  # no v14 PartitionAgeMs (KIP-1327)
        CONSUMER_GROUP_HEARTBEAT: 1,  # no v2 GroupCreationTimeMs (KIP-1282)
        CONSUMER_GROUP_DESCRIBE: 1,  # no v2 GroupCreationTimeMs (KIP-1282)
        STREAMS_GROUP_HEARTBEAT: 1,  # no v2 GroupCreationTimeMs (KIP-1282)
        STREAMS_GROUP_DESCRIBE: 1,  # v1 is KIP-1331's; no v2 GroupCreationTimeMs (KIP-1282)
        INIT_PRODUCER_ID: 5,  # v6 (KIP-939 two-phase commit) is not served by 4.4
    },
    "4.1": {
        DESCRIBE_TOPIC_PARTITIONS: 0,  # no v1 CreationTimeMs (KIP-1327)
        METADATA: 13,  # no v14 PartitionAgeMs (KIP-1327)
        CONSUMER_GROUP_HEARTBEAT: 1,  # no v2 GroupCreationTimeMs (KIP-1282)
        CONSUMER_GROUP_DESCRIBE: 1,  # no v2 GroupCreationTimeMs (KIP-1282)
        STREAMS_GROUP_HEARTBEAT: -1,  # streams groups were early access, off by default
        STREAMS_GROUP_DESCRIBE: -1,
        **_NO_SHARE_GROUPS,
        INIT_PRODUCER_ID: 5,
        UNREGISTER_CONTROLLER: -1,  # Apache Kafka 4.4's
    },
    # Before KIP-734 (ListOffsets v7, max-timestamp), KIP-848 and DescribeTopicPartitions:
    # -1 withholds an API entirely.
    "2.8": {
        LIST_OFFSETS: 6,  # no v7 max-timestamp (KIP-734)
        METADATA: 11,
        # Before the flexible transaction versions of 3.0 and KIP-664's admin APIs (3.0); KIP-890
        # (AddPartitionsToTxn v4-5, EndTxn v5) came in 3.6 and 4.0.
        INIT_PRODUCER_ID: 4,
        ADD_PARTITIONS_TO_TXN: 3,
        ADD_OFFSETS_TO_TXN: 3,
        END_TXN: 3,
        TXN_OFFSET_COMMIT: 3,
        WRITE_TXN_MARKERS: 1,
        LIST_TRANSACTIONS: -1,
        DESCRIBE_TRANSACTIONS: -1,
        DESCRIBE_PRODUCERS: -1,
        DESCRIBE_CLUSTER: 0,  # KIP-700's first version; no v2 fenced brokers (KIP-1073, 4.0)
        DESCRIBE_LOG_DIRS: 2,  # no v3 ErrorCode (3.0): a refusal is an answer without log dirs
        DESCRIBE_QUORUM: -1,  # no KRaft controller: ZooKeeper mode
        UPDATE_FEATURES: -1,  # ZooKeeper mode: feature versioning off, no finalized features
        DESCRIBE_TOPIC_PARTITIONS: -1,
        CONSUMER_GROUP_HEARTBEAT: -1,
        CONSUMER_GROUP_DESCRIBE: -1,
        STREAMS_GROUP_HEARTBEAT: -1,
        STREAMS_GROUP_DESCRIBE: -1,
        **_NO_SHARE_GROUPS,
        UNREGISTER_CONTROLLER: -1,
    },
}


def check_pose_as(pose_as: str | None) -> None:
    if pose_as is not None and pose_as not in POSE_AS_LIMITS:
        raise ValueError(f"cannot pose as {pose_as!r}; supported: {', '.join(POSE_AS_LIMITS)}")


def version_range(pose_as: str | None, api_key: int) -> tuple[int, int] | None:
    handler = HANDLERS.get(api_key)
    if handler is None:
        return None
    limit = POSE_AS_LIMITS.get(pose_as or "", {}).get(api_key, handler.max_version)
    if limit < handler.min_version:
        return None
    return handler.min_version, min(handler.max_version, limit)


def advertised(pose_as: str | None) -> list[tuple[int, int, int]]:
    """(api_key, min_version, max_version) for every served API, by key."""
    return [(key, *served) for key in sorted(HANDLERS)
            if (served := version_range(pose_as, key)) is not None]

"""Which API versions the broker serves: the registered handler ranges, narrowed when the
cluster poses as an older broker (the KIP versions withheld, in ApiVersions and on the wire)."""

from __future__ import annotations

from kcli.broker.apikeys import (CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_HEARTBEAT, DESCRIBE_CLUSTER,
                                 DESCRIBE_TOPIC_PARTITIONS, LIST_OFFSETS, METADATA,
                                 STREAMS_GROUP_DESCRIBE, STREAMS_GROUP_HEARTBEAT)
from kcli.broker.dispatch import HANDLERS

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
    },
    "4.1": {
        DESCRIBE_TOPIC_PARTITIONS: 0,  # no v1 CreationTimeMs (KIP-1327)
        METADATA: 13,  # no v14 PartitionAgeMs (KIP-1327)
        CONSUMER_GROUP_HEARTBEAT: 1,  # no v2 GroupCreationTimeMs (KIP-1282)
        CONSUMER_GROUP_DESCRIBE: 1,  # no v2 GroupCreationTimeMs (KIP-1282)
        STREAMS_GROUP_HEARTBEAT: -1,  # streams groups were early access, off by default
        STREAMS_GROUP_DESCRIBE: -1,
    },
    # Before KIP-734 (ListOffsets v7, max-timestamp), KIP-848 and DescribeTopicPartitions:
    # -1 withholds an API entirely.
    "2.8": {
        LIST_OFFSETS: 6,  # no v7 max-timestamp (KIP-734)
        METADATA: 11,
        DESCRIBE_CLUSTER: 0,  # KIP-700's first version; no v2 fenced brokers (KIP-1073, 4.0)
        DESCRIBE_TOPIC_PARTITIONS: -1,
        CONSUMER_GROUP_HEARTBEAT: -1,
        CONSUMER_GROUP_DESCRIBE: -1,
        STREAMS_GROUP_HEARTBEAT: -1,
        STREAMS_GROUP_DESCRIBE: -1,
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

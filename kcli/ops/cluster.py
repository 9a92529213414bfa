"""describe cluster: the cluster id, the controller and the brokers (fenced ones too, where the
broker says: DescribeCluster v2); kafka-cluster's endpoints, API versions per broker and the
unregistering of a broker or controller."""

from __future__ import annotations

from kcli.errors import BrokerRejected, UnsupportedByBroker
from kcli.model import ApiSupport, BrokerError, BrokerInfo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin
    from kcli.model import ClusterDescription, QuorumDescription


def describe(admin: Admin) -> ClusterDescription:
    """DescribeCluster, then the metadata quorum (DescribeQuorum): where the broker lacks the API
    or refuses it, the description says so (``quorum_note``) and the rest stands."""
    c = admin.describe_cluster()
    try:
        c.quorum = admin.describe_quorum()
    except BrokerRejected as e:
        c.quorum_note = f"not described: {e}"
    if c.quorum is None and c.quorum_note is None:
        c.quorum_note = "not served by this broker (no DescribeQuorum: a KRaft API, Kafka 3.3 on)"
    return c


def quorum(admin: Admin) -> QuorumDescription:
    """The metadata quorum (DescribeQuorum); UnsupportedByBroker where the broker lacks the API,
    in the Java AdminClient's words."""
    q = admin.describe_quorum()
    if q is None:
        raise UnsupportedByBroker("The node does not support DESCRIBE_QUORUM")
    return q


def quorum_status(admin: Admin) -> tuple[str | None, QuorumDescription]:
    """The cluster id and the quorum, as kafka-metadata-quorum describe --status asks them."""
    return admin.describe_cluster().cluster_id, quorum(admin)


# The APIs kcli sends, by key: its name, which client sends it, and the version a kcli feature
# needs, with the KIP (or the reason) behind it; None where any version the broker offers does.
API_NEEDS: list[tuple[int, str, str, tuple[int, str] | None]] = [
    (0, "Produce", "kcli", None),
    (1, "Fetch", "kcli", (4, "record times")),
    (2, "ListOffsets", "kcli", (7, "KIP-734 max-timestamp")),
    (3, "Metadata", "kcli", (14, "KIP-1327 PartitionAgeMs")),
    (8, "OffsetCommit", "kcli", None),
    (9, "OffsetFetch", "kcli", (8, "many groups a request")),
    (10, "FindCoordinator", "kcli", None),
    (15, "DescribeGroups", "kcli", None),
    (16, "ListGroups", "kcli", (5, "streams groups")),
    (18, "ApiVersions", "kcli", None),
    (19, "CreateTopics", "librdkafka", None),
    (20, "DeleteTopics", "librdkafka", None),
    (21, "DeleteRecords", "librdkafka", None),
    (32, "DescribeConfigs", "kcli", None),
    (35, "DescribeLogDirs", "kcli", None),
    (37, "CreatePartitions", "librdkafka", None),
    (42, "DeleteGroups", "librdkafka", None),
    (44, "IncrementalAlterConfigs", "kcli, librdkafka", None),
    (47, "OffsetDelete", "kcli", None),
    (55, "DescribeQuorum", "kcli", None),
    (57, "UpdateFeatures", "kcli", None),
    (60, "DescribeCluster", "kcli", (2, "KIP-1073 fenced brokers")),
    (68, "ConsumerGroupHeartbeat", "kcli", (2, "KIP-1282 GroupCreationTimeMs")),
    (69, "ConsumerGroupDescribe", "kcli", (2, "KIP-1282 GroupCreationTimeMs")),
    (75, "DescribeTopicPartitions", "kcli", (1, "KIP-1327 CreationTimeMs")),
    (89, "StreamsGroupDescribe", "kcli", (2, "KIP-1282 GroupCreationTimeMs")),
]


def api_versions(admin: Admin) -> list[ApiSupport]:
    """Every API kcli sends against every live broker's ApiVersions range (one connection each)."""
    brokers = admin.broker_ids()
    ranges = admin.broker_api_versions(brokers)
    return [ApiSupport(key, name, sender, needed,
                       [(b, ranges[b].get(key), short_of(needed, ranges[b].get(key))) for b in brokers])
            for key, name, sender, needed in API_NEEDS]


def short_of(needed: tuple[int, str] | None, offered: tuple[int, int] | None) -> bool:
    """The broker lacks the API, or the version the feature needs."""
    return offered is None or (needed is not None and offered[1] < needed[0])


def brokers(admin: Admin, include_fenced: bool = False) -> list[BrokerInfo]:
    """The brokers DescribeCluster names, by id: the unfenced ones, the fenced too if asked."""
    return [b for b in admin.describe_cluster().brokers if include_fenced or not b.fenced]


def node_api_versions(admin: Admin) -> list[tuple[BrokerInfo, dict[int, tuple[int, int]]]]:
    """Each unfenced broker, by id, with its ApiVersions ranges (one connection each)."""
    nodes = brokers(admin)
    ranges = admin.broker_api_versions([b.node_id for b in nodes])
    return [(b, ranges[b.node_id]) for b in nodes]


def unregister(admin: Admin, kind: str, node_id: int) -> BrokerError | None:
    """Unregister broker (``kind`` "broker") or controller ("controller") ``node_id``: the
    cluster's refusal, if any; UnsupportedByBroker where the cluster lacks the API."""
    return admin.unregister_node(kind, node_id)

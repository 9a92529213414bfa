"""kafka-cluster's views (the drop-in, ``kcli.cli.dropin.cluster_run``), as Apache Kafka 4.4's
ClusterTool prints them: ``list-endpoints``' table (printf columns as wide as the longest host and
rack) and ``api-versions``' lines (Node's and NodeApiVersions' ``toString``, the Java client's own
API versions beside the broker's: ``JAVA_API_KEYS``)."""

from __future__ import annotations

from kcli.model import BrokerInfo

# Apache Kafka 4.4.0's client, org.apache.kafka.common.protocol.ApiKeys: id -> (name, oldestVersion,
# latestVersion, in clientApis()). tests/apache/test_kcli_cluster.py checks it against the jars.
JAVA_API_KEYS: dict[int, tuple[str, int, int, bool]] = {
    0: ("Produce", 3, 13, True),
    1: ("Fetch", 4, 18, True),
    2: ("ListOffsets", 1, 11, True),
    3: ("Metadata", 0, 13, True),
    4: ("LeaderAndIsr", 0, -1, False),
    5: ("StopReplica", 0, -1, False),
    6: ("UpdateMetadata", 0, -1, False),
    7: ("ControlledShutdown", 0, -1, False),
    8: ("OffsetCommit", 2, 10, True),
    9: ("OffsetFetch", 1, 10, True),
    10: ("FindCoordinator", 0, 6, True),
    11: ("JoinGroup", 0, 9, True),
    12: ("Heartbeat", 0, 4, True),
    13: ("LeaveGroup", 0, 5, True),
    14: ("SyncGroup", 0, 5, True),
    15: ("DescribeGroups", 0, 6, True),
    16: ("ListGroups", 0, 5, True),
    17: ("SaslHandshake", 0, 1, True),
    18: ("ApiVersions", 0, 5, True),
    19: ("CreateTopics", 2, 7, True),
    20: ("DeleteTopics", 1, 6, True),
    21: ("DeleteRecords", 0, 2, True),
    22: ("InitProducerId", 0, 6, True),
    23: ("OffsetForLeaderEpoch", 2, 4, True),
    24: ("AddPartitionsToTxn", 0, 5, True),
    25: ("AddOffsetsToTxn", 0, 4, True),
    26: ("EndTxn", 0, 5, True),
    27: ("WriteTxnMarkers", 1, 2, True),
    28: ("TxnOffsetCommit", 0, 6, True),
    29: ("DescribeAcls", 1, 3, True),
    30: ("CreateAcls", 1, 3, True),
    31: ("DeleteAcls", 1, 3, True),
    32: ("DescribeConfigs", 1, 4, True),
    33: ("AlterConfigs", 0, 2, True),
    34: ("AlterReplicaLogDirs", 1, 2, True),
    35: ("DescribeLogDirs", 1, 5, True),
    36: ("SaslAuthenticate", 0, 2, True),
    37: ("CreatePartitions", 0, 3, True),
    38: ("CreateDelegationToken", 1, 3, True),
    39: ("RenewDelegationToken", 1, 2, True),
    40: ("ExpireDelegationToken", 1, 2, True),
    41: ("DescribeDelegationToken", 1, 3, True),
    42: ("DeleteGroups", 0, 3, True),
    43: ("ElectLeaders", 0, 2, True),
    44: ("IncrementalAlterConfigs", 0, 1, True),
    45: ("AlterPartitionReassignments", 0, 1, True),
    46: ("ListPartitionReassignments", 0, 0, True),
    47: ("OffsetDelete", 0, 0, True),
    48: ("DescribeClientQuotas", 0, 1, True),
    49: ("AlterClientQuotas", 0, 1, True),
    50: ("DescribeUserScramCredentials", 0, 0, True),
    51: ("AlterUserScramCredentials", 0, 0, True),
    52: ("Vote", 0, 2, False),
    53: ("BeginQuorumEpoch", 0, 1, False),
    54: ("EndQuorumEpoch", 0, 1, False),
    55: ("DescribeQuorum", 0, 2, True),
    56: ("AlterPartition", 2, 3, False),
    57: ("UpdateFeatures", 0, 2, True),
    58: ("Envelope", 0, 0, False),
    59: ("FetchSnapshot", 0, 1, False),
    60: ("DescribeCluster", 0, 2, True),
    61: ("DescribeProducers", 0, 0, True),
    62: ("BrokerRegistration", 0, 4, False),
    63: ("BrokerHeartbeat", 0, 2, False),
    64: ("UnregisterBroker", 0, 0, True),
    65: ("DescribeTransactions", 0, 0, True),
    66: ("ListTransactions", 0, 2, True),
    67: ("AllocateProducerIds", 0, 0, False),
    68: ("ConsumerGroupHeartbeat", 0, 1, True),
    69: ("ConsumerGroupDescribe", 0, 1, True),
    70: ("ControllerRegistration", 0, 0, False),
    71: ("GetTelemetrySubscriptions", 0, 0, True),
    72: ("PushTelemetry", 0, 0, True),
    73: ("AssignReplicasToDirs", 0, 0, False),
    74: ("ListConfigResources", 0, 1, True),
    75: ("DescribeTopicPartitions", 0, 0, True),
    76: ("ShareGroupHeartbeat", 1, 1, True),
    77: ("ShareGroupDescribe", 1, 1, True),
    78: ("ShareFetch", 1, 2, True),
    79: ("ShareAcknowledge", 1, 2, True),
    80: ("AddRaftVoter", 0, 1, True),
    81: ("RemoveRaftVoter", 0, 0, True),
    82: ("UpdateRaftVoter", 0, 0, False),
    83: ("InitializeShareGroupState", 0, 0, True),
    84: ("ReadShareGroupState", 0, 0, True),
    85: ("WriteShareGroupState", 0, 1, True),
    86: ("DeleteShareGroupState", 0, 0, True),
    87: ("ReadShareGroupStateSummary", 0, 1, True),
    88: ("StreamsGroupHeartbeat", 0, 1, True),
    89: ("StreamsGroupDescribe", 0, 1, True),
    90: ("DescribeShareGroupOffsets", 0, 1, True),
    91: ("AlterShareGroupOffsets", 0, 0, True),
    92: ("DeleteShareGroupOffsets", 0, 0, True),
    93: ("StreamsGroupTopologyDescriptionUpdate", 0, 0, True),
    94: ("UnregisterController", 0, 0, True),
}


def _s(value) -> str:
    """Java's String.valueOf: null for None."""
    return "null" if value is None else str(value)


def endpoints(brokers: list[BrokerInfo]) -> str:
    """ClusterTool.listEndpoints' table of brokers: ID, HOST, PORT, RACK, STATE, ENDPOINT_TYPE."""
    host = max((len(b.host) for b in brokers), default=100)
    rack = max((len(b.rack) for b in brokers if b.rack is not None), default=10)

    def row(*cells) -> str:
        return " ".join(f"{c:<{w}}" for c, w in zip(cells, (10, host, 10, rack, 10, 15))) + "\n"

    return row("ID", "HOST", "PORT", "RACK", "STATE", "ENDPOINT_TYPE") + "".join(
        row(str(b.node_id), b.host, str(b.port), _s(b.rack), "fenced" if b.fenced else "unfenced", "broker")
        for b in brokers)


def node_text(b: BrokerInfo) -> str:
    """Node.toString."""
    return f"{b.host}:{b.port} (id: {b.node_id} rack: {_s(b.rack)} isFenced: {str(b.fenced).lower()})"


def api_versions(ranges: dict[int, tuple[int, int]]) -> str:
    """NodeApiVersions.toString(true) of a broker's ApiVersions ranges, by API key: every key it
    names (UNKNOWN where the Java client has no name for it), with the version the client would
    use, then UNSUPPORTED for each client API it does not name, in key order."""
    texts = {}
    for key, (low, high) in ranges.items():
        known = JAVA_API_KEYS.get(key)
        text = f"{known[0] if known else 'UNKNOWN'}({key}): " + (str(low) if low == high else f"{low} to {high}")
        if known is not None:
            oldest, latest = known[1], known[2]
            if latest < low:
                text += " [unusable: node too new]"
            elif high < oldest:
                text += " [unusable: node too old]"
            else:
                text += f" [usable: {min(latest, high)}]"
        texts[key] = text
    for key, (name, _, _, client) in JAVA_API_KEYS.items():
        if client and key not in texts:
            texts[key] = f"{name}({key}): UNSUPPORTED"
    return "(\n\t" + ",\n\t".join(texts[k] for k in sorted(texts)) + "\n)"

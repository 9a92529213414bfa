"""The real Apache Kafka fixtures themselves: what 4.4 offers (so the degraded-path tests stand on
a broker without the KIPs), the SASL listener, and a stopped node seen by the others."""

from __future__ import annotations

from kcli.admin.settings import ClientSettings
from kcli.admin.wire import WireClient
from tests.support.apache_kafka import KAFKA_VERSION, java_tool
from tests.support.clients import create_topic, unique
from tests.support.waits import wait_until


def api_versions(bootstrap: str, props: dict | None = None) -> dict[int, tuple[int, int]]:
    wire = WireClient(ClientSettings(bootstrap, props or {}, 10_000))
    try:
        return dict(wire._wire.api_versions)
    finally:
        wire.close()


def test_apache_kafka_lacks_the_kip_versions(apache_kafka):
    versions = api_versions(apache_kafka.bootstrap_servers)
    assert versions[75] == (0, 0)          # DescribeTopicPartitions: no v1 (KIP-1327 CreationTimeMs)
    assert versions[3][1] < 14             # Metadata: no v14 (KIP-1327 PartitionAgeMs)
    assert versions[68][1] < 2             # ConsumerGroupHeartbeat: no v2 (KIP-1282)
    assert versions[69][1] < 2             # ConsumerGroupDescribe: no v2 (KIP-1282)
    assert versions[2][1] >= 7             # ListOffsets v7+: KIP-734 max-timestamp is real
    r = java_tool("kafka-topics", "--version")
    assert (r.code, r.out.split()[0]) == (0, KAFKA_VERSION)


def test_sasl_listener_takes_plain_and_scram(apache_kafka):
    for mechanism in ("PLAIN", "SCRAM-SHA-512"):
        props = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism,
                 "sasl.username": "alice", "sasl.password": "alice-secret"}
        assert 75 in api_versions(apache_kafka.sasl_bootstrap_servers, props)


def test_three_nodes_and_a_stopped_one(apache_kafka3):
    b = apache_kafka3.bootstrap_servers
    topic = unique("rf3")
    create_topic(b, topic, partitions=3, replication_factor=3)
    r = java_tool("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic)
    leaders = {line.split("\tLeader: ")[1].split("\t")[0] for line in r.out.splitlines()[1:]}
    assert leaders == {"1", "2", "3"}
    apache_kafka3.stop_node(3)
    try:
        def isr_shrunk():
            out = java_tool("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic,
                            "--under-replicated-partitions").out
            return len(out.splitlines()) == 3
        wait_until(isr_shrunk, timeout=60, interval=1, what="3 under-replicated partitions")
    finally:
        apache_kafka3.start_node(3)

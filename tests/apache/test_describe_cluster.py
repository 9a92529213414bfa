"""DescribeCluster (API key 60) as the Java AdminClient's describeCluster sends it, against the
embedded broker and Kafka 4.4: the cluster id, a live controller, and the live brokers with
their addresses. (librdkafka's describe_cluster sends Metadata instead; see
tests/broker/test_core_protocol.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from kcli.broker import EmbeddedCluster
from tests.support.apache_kafka import java

JAVA = Path(__file__).parent / "java"


def describe_cluster(bootstrap: str) -> dict:
    r = java(JAVA / "AdminCluster.java", bootstrap, timeout=120)
    assert r.code == 0, r.err[-3000:]
    return json.loads(r.out)


def test_java_describe_cluster_on_kafka_and_the_embedded_broker(apache_kafka):
    kafka = describe_cluster(apache_kafka.bootstrap_servers)
    port = int(apache_kafka.bootstrap_servers.rsplit(":", 1)[1])
    assert kafka["nodes"] == [[1, "127.0.0.1", port]] and kafka["controller"] == 1
    with EmbeddedCluster(nodes=3) as ec:
        ec.stop_node(2)
        embedded = describe_cluster(ec.bootstrap_servers.split(",")[0])
        live = [[n, *ec.cluster.node_address(n)] for n in (1, 3)]
        assert embedded == {"clusterId": ec.cluster.cluster_id, "controller": 1, "nodes": live}
    assert set(embedded) == set(kafka)


def test_kcli_describe_cluster_is_what_the_java_admin_client_says(apache_kafka3):
    """On three Kafka 4.4 nodes: the same cluster id and brokers as the Java AdminClient's
    describeCluster, none fenced (DescribeCluster v2). KRaft brokers answer with a random live
    broker as the controller, so only its being one of them is compared."""
    from tests.support.run import run_kcli

    b = apache_kafka3.bootstrap_servers
    java_view = describe_cluster(b)
    r = run_kcli(b, "describe", "cluster", "-o", "json", timeout="30s")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["clusterId"] == java_view["clusterId"]
    assert [[x["id"], x["host"], x["port"]] for x in doc["brokers"]] == sorted(java_view["nodes"])
    assert all(x["fenced"] is False for x in doc["brokers"]) and doc["controllerId"] in {1, 2, 3}


def test_kcli_describe_cluster_has_the_features_kafka_features_describes(apache_kafka):
    """The finalized feature levels and each feature's supported range (ApiVersions v3+, KIP-584)
    are what Apache's kafka-features --describe prints (metadata.version by its level: the tool
    names it, 4.4-IV0 and so on)."""
    from tests.support.apache_kafka import java_tool
    from tests.support.run import run_kcli

    b = apache_kafka.bootstrap_servers
    r = java_tool("kafka-features", "--bootstrap-server", b, "describe")
    assert r.code == 0, r.err[-2000:]
    import re

    java_rows = {}
    for line in r.out.splitlines():
        fields = dict(re.findall(r"(\w+): (\S+)", line))
        java_rows[fields["Feature"]] = fields
    doc = json.loads(run_kcli(b, "describe", "cluster", "-o", "json", timeout="30s").out)
    ours = {f["name"]: f for f in doc["features"]}
    assert set(ours) == set(java_rows) and "metadata.version" in ours
    for name, row in java_rows.items():
        if name == "metadata.version":
            continue
        assert (str(ours[name]["supportedMin"]), str(ours[name]["supportedMax"])) == (
            row["SupportedMinVersion"], row["SupportedMaxVersion"]), name
        assert str(ours[name]["finalizedLevel"]) == row["FinalizedVersionLevel"], name


def test_kcli_api_versions_are_what_kafka_broker_api_versions_says(apache_kafka3):
    """Each of three 4.4 brokers' ranges for every API kcli sends equal what Apache's
    kafka-broker-api-versions prints for it (``Name(key): min to max [usable: n]``, or ``N`` for
    one version)."""
    import re

    from tests.support.apache_kafka import java_tool
    from tests.support.run import run_kcli

    b = apache_kafka3.bootstrap_servers
    r = java_tool("kafka-broker-api-versions", "--bootstrap-server", b)
    assert r.code == 0, r.err[-2000:]
    java_ranges: dict[int, dict[int, tuple[int, int]]] = {}
    for block in re.split(r"^(?=\S+ \(id: )", r.out.strip(), flags=re.M)[1:]:
        broker = int(re.search(r"\(id: (\d+) ", block).group(1))
        java_ranges[broker] = {int(k): (int(lo), int(hi or lo))          # one version: "N [usable: N]"
                               for k, lo, hi in re.findall(r"\((\d+)\): (\d+)(?: to (\d+))?", block)}
    ours = run_kcli(b, "describe", "cluster", "--api-versions", "-o", "json", timeout="30s")
    assert ours.code == 0, ours.err
    apis = json.loads(ours.out)["apis"]
    assert sorted(java_ranges) == [1, 2, 3]
    for api in apis:
        for x in api["brokers"]:
            expected = java_ranges[x["id"]].get(api["apiKey"])
            assert ((x["min"], x["max"]) if x["min"] is not None else None) == expected, (api["api"], x)
    short = {a["api"] for a in apis if any(x["short"] for x in a["brokers"])}
    assert "DescribeTopicPartitions" in short and "DescribeCluster" not in short      # 4.4: no KIP-1327


def test_kcli_describe_cluster_shows_the_quorum_the_java_admin_client_describes(apache_kafka3):
    """Three combined Kafka 4.4 nodes (a static quorum): the leader, its epoch, the voters with
    their endpoints and no directory ids, no observers, as describeMetadataQuorum says; the
    high watermark and each log end offset between what Java saw before and after (the log
    grows by a no-op every 500 ms)."""
    from tests.support.run import run_kcli

    b = apache_kafka3.bootstrap_servers
    java_quorum = JAVA / "AdminQuorum.java"
    before = json.loads(java(java_quorum, b, "quorum", timeout=120).out)
    r = run_kcli(b, "describe", "cluster", "-o", "json", timeout="30s")
    after = json.loads(java(java_quorum, b, "quorum", timeout=120).out)
    assert r.code == 0, r.err
    q = json.loads(r.out)["quorum"]
    assert (q["leaderId"], q["leaderEpoch"]) == (before["leaderId"], before["leaderEpoch"]) == (
        after["leaderId"], after["leaderEpoch"])
    assert before["highWatermark"] <= q["highWatermark"] <= after["highWatermark"]
    voters = {v[0]: v for v in before["voters"]}
    assert sorted(voters) == [1, 2, 3] and before["observers"] == [] and after["observers"] == []
    assert [x["id"] for x in q["replicas"]] == [q["leaderId"], *sorted(set(voters) - {q["leaderId"]})]
    later = {v[0]: v for v in after["voters"]}
    for x in q["replicas"]:
        assert x["status"] == ("Leader" if x["id"] == q["leaderId"] else "Follower")
        assert x["directoryId"] is None and voters[x["id"]][1] == "AAAAAAAAAAAAAAAAAAAAAA"
        assert x["endpoints"] == before["nodes"][str(x["id"])]
        assert voters[x["id"]][2] <= x["logEndOffset"] <= later[x["id"]][2]
        assert voters[x["id"]][3] <= x["lastFetch"]["ms"] <= later[x["id"]][3]

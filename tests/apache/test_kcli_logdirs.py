"""kcli describe log-dirs against three Kafka 4.4 nodes: every replica's size and offset lag, per
broker and log dir, is what Apache's kafka-log-dirs --describe reports; describe topics' SIZE is
the leader replica's of those; refused DescribeLogDirs (no DESCRIBE on the cluster, with
StandardAuthorizer) leaves it unknown with one Warn line."""

from __future__ import annotations

import json

from tests.support.apache_kafka import java_tool
from tests.support.clients import create_topic, produce, unique
from tests.support.log_dirs import leader_sizes
from tests.support.run import run_kcli
from tests.support.waits import wait_until


def test_describe_log_dirs_is_what_kafka_log_dirs_says(apache_kafka3):
    b = apache_kafka3.bootstrap_servers
    topic = unique("dirs")
    create_topic(b, topic, partitions=2, replication_factor=3)
    produce(b, topic, [(p, "x" * 500) for p in (0, 1) for _ in range(20 + 20 * p)])
    r = java_tool("kafka-log-dirs", "--bootstrap-server", b, "--describe", "--topic-list", topic)
    assert r.code == 0, r.err[-2000:]
    doc = json.loads(r.out.splitlines()[-1])
    java_rows = sorted((topic, int(p["partition"].rsplit("-", 1)[1]), broker["broker"], d["logDir"], p["size"],
                        p["offsetLag"], p["isFuture"])
                       for broker in doc["brokers"] for d in broker["logDirs"] for p in d["partitions"])
    ours = run_kcli(b, "describe", "log-dirs", "--topic", topic, "-o", "json", timeout="30s")
    assert ours.code == 0, ours.err
    rows = sorted((x["topic"], x["partition"], x["broker"], x["logDir"], x["sizeBytes"], x["offsetLag"], x["future"])
                  for x in json.loads(ours.out)["replicas"])
    assert rows == java_rows and len(rows) == 6 and all(row[4] > 0 for row in rows)


def test_describe_topics_size_is_the_leader_replica_kafka_log_dirs_reports(apache_kafka3):
    """describe topics' SIZE on three 4.4 nodes: each partition's leader replica's bytes, the
    number Apache's kafka-log-dirs gives for the replica kafka-topics names the leader."""
    b = apache_kafka3.bootstrap_servers
    topic = unique("sized")
    create_topic(b, topic, partitions=3, replication_factor=2)
    produce(b, topic, [(p, "x" * 700) for p in (0, 1) for _ in range(10 + 30 * p)])       # partition 2 empty
    java = leader_sizes(b, topic)
    r = run_kcli(b, "describe", "topics", topic, "-o", "json", timeout="30s")
    assert (r.code, r.err) == (0, ""), r
    ours = {p["partition"]: p["sizeBytes"] for p in json.loads(r.out)["topics"][0]["partitions"]}
    assert ours == java and ours[1] > ours[0] > 7000 and ours[2] == 0, (ours, java)
    csv = run_kcli(b, "describe", "topics", topic, "-o", "csv", timeout="30s")
    assert [line.split(",")[-1] for line in csv.out.splitlines()] == ["SIZE", *(str(java[p]) for p in range(3))]


def test_without_describe_on_the_cluster_the_sizes_are_unknown_and_one_warn_line_says_why(apache_kafka_acl, tmp_path):
    """carol may describe a topic and its configs, not the cluster: 4.4 refuses her
    DescribeLogDirs (CLUSTER_AUTHORIZATION_FAILED); describe topics still shows the partitions,
    SIZE unknown, and says why in one Warn line."""
    from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                       ResourcePatternType, ResourceType)

    b = apache_kafka_acl.bootstrap_servers
    topic = unique("carols")
    create_topic(b, topic, partitions=2)
    produce(b, topic, [(0, "a" * 100)])
    admin = AdminClient({"bootstrap.servers": b})
    bindings = [AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, "User:carol", "*", op,
                           AclPermissionType.ALLOW) for op in (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS)]
    for fut in admin.create_acls(bindings, request_timeout=30).values():
        fut.result()
    props = tmp_path / "carol.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=carol\n"
                     f"sasl.password={apache_kafka_acl.sasl_users['carol']}\n", encoding="utf-8")
    carol = ["--command-config", str(props), "describe", "topics", topic]
    try:
        warn = "Warn: Sizes unknown: not authorized to DESCRIBE the cluster (User:carol)\n"
        r = wait_until(lambda: (r := run_kcli(apache_kafka_acl.sasl_bootstrap_servers, *carol, "-o", "json",
                                              timeout="20s")).code == 0 and r, timeout=30, what="carol's ACLs")
        assert r.err == warn, r
        assert [p["sizeBytes"] for p in json.loads(r.out)["topics"][0]["partitions"]] == [None, None]
        table = run_kcli(apache_kafka_acl.sasl_bootstrap_servers, *carol, timeout="20s")
        assert (table.code, table.err) == (0, warn), table
        assert [line.split()[-1] for line in table.out.splitlines() if line.startswith(f" {topic} ")][-2:] == [
            "unknown"] * 2, table.out
        ours = run_kcli(b, "describe", "topics", topic, "-o", "json", timeout="20s")        # a super user's
        assert [p["sizeBytes"] > 100 for p in json.loads(ours.out)["topics"][0]["partitions"]] == [True, False]
    finally:
        for fut in admin.delete_acls([AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, "User:carol",
                                                       None, AclOperation.ANY, AclPermissionType.ANY)],
                                     request_timeout=30).values():
            fut.result()

"""kcli describe log-dirs against three Kafka 4.4 nodes: every replica's size and offset lag, per
broker and log dir, is what Apache's kafka-log-dirs --describe reports."""

from __future__ import annotations

import json

from tests.support.apache_kafka import java_tool
from tests.support.clients import create_topic, produce, unique
from tests.support.run import run_kcli


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

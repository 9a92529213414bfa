"""Partition sizes as Apache's own tools report them (real Kafka): the truth describe topics' and
the streams state view's SIZE are checked against."""

from __future__ import annotations

import json
import re

from tests.support.apache_kafka import java_tool


def leader_sizes(b: str, topic: str) -> dict[int, int]:
    """Each partition's leader replica's size, as kafka-log-dirs --describe reports the replicas
    and kafka-topics --describe their leaders."""
    topics = java_tool("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic)
    assert topics.code == 0, topics.err[-2000:]
    leaders = {int(m[1]): int(m[2]) for m in re.finditer(r"\tPartition: (\d+)\tLeader: (\d+)\t", topics.out)}
    assert leaders, topics.out
    r = java_tool("kafka-log-dirs", "--bootstrap-server", b, "--describe", "--topic-list", topic)
    assert r.code == 0, r.err[-2000:]
    doc = json.loads(r.out.splitlines()[-1])
    return {int(p["partition"].rsplit("-", 1)[1]): p["size"] for broker in doc["brokers"] for d in broker["logDirs"]
            for p in d["partitions"] if not p["isFuture"]
            and leaders[int(p["partition"].rsplit("-", 1)[1])] == broker["broker"]}

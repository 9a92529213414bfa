"""What a broker says of topic configs, the same way for the embedded broker and Apache Kafka:
DescribeConfigs of a new topic (name, value, source, type, synonyms) and CreateTopics (validate
only) of invalid values, through confluent-kafka (kafka-python's protocol for the types)."""

from __future__ import annotations

import time

from confluent_kafka.admin import AdminClient, NewTopic

# valid values of configs the embedded broker refused (issue 45), and invalid ones with each
# validator Kafka 4.4 has (Range both ways, ValidString, ValidList, the gzip level's, throttled
# replicas', the types' parsing)
VALID = {"min.compaction.lag.ms": "1000", "segment.jitter.ms": "10", "compression.zstd.level": "-5",
         "local.retention.ms": "-2", "cleanup.policy": "compact,delete", "remote.copy.lag.ms": "-1",
         "follower.replication.throttled.replicas": "0:1,1:2", "leader.replication.throttled.replicas": "*",
         "min.cleanable.dirty.ratio": "0.75", "errors.deadletterqueue.group.enable": "true",
         "segment.bytes": "1048576", "compression.gzip.level": "-1"}
INVALID = {"segment.bytes": "1000", "compression.gzip.level": "0", "min.cleanable.dirty.ratio": "2",
           "cleanup.policy": "foo", "flush.messages": "0", "follower.replication.throttled.replicas": "x",
           "compression.zstd.level": "23", "max.decompressed.message.bytes": "2147483640",
           "preallocate": "maybe", "segment.index.bytes": "abc", "retention.ms": "99999999999999999999",
           "min.cleanable.dirty.ratio ": "1", "message.timestamp.difference.max.ms": "1"}


def admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


def described(bootstrap: str, topic: str) -> dict[str, tuple]:
    """{name: (value, source, type, [(synonym, value, source)])} of ``topic``, from DescribeConfigs v4."""
    import kcli.protocol as proto
    from kcli.admin.wire.connection import Wire

    wire = Wire({"bootstrap_servers": bootstrap.split(","), "client_id": "test"}, lambda: time.monotonic() + 10)
    try:
        req = proto.DescribeConfigsRequest
        resp = wire.send(req(version=4, include_synonyms=True, include_documentation=False, resources=[
            req.DescribeConfigsResource(resource_type=2, resource_name=topic, configuration_keys=None)]))
    finally:
        wire.close()
    return {c.name: (c.value, c.config_source, c.config_type, [(s.name, s.value, s.source) for s in c.synonyms])
            for c in resp.results[0].configs}


def created(bootstrap: str, configs: dict[str, str]) -> str:
    """CreateTopics (validate only) with ``configs``: "OK", or the error's name and message."""
    client = admin(bootstrap)              # kept until the answer: a client destroyed fails it
    future = client.create_topics([NewTopic("probe", 1, 1, config=configs)], validate_only=True)["probe"]
    try:
        future.result(20)
        return "OK"
    except Exception as exc:  # noqa: BLE001 - the broker's answer, whatever it is
        error = exc.args[0]
        return f"{error.name()}: {error.str()}"


def new_topic(bootstrap: str, topic: str) -> None:
    client = admin(bootstrap)
    client.create_topics([NewTopic(topic, 1, 1)])[topic].result(20)

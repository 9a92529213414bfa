"""A broker's own configs are asked of, and changed on, that broker (Kafka answers a broker's
non-default configs only on that node: DescribeConfigs BROKER "2" goes to node 2; the cluster
defaults, name "", to any broker): native and drop-in, on the embedded broker's 3 nodes, whose
bootstrap is node 1."""

from __future__ import annotations

import json

from tests.support.run import run_kcli
from tests.support.run import run_dropin


def _node1(cluster) -> str:
    return cluster.bootstrap_servers.split(",")[0]


def test_embedded_broker_answers_a_brokers_own_configs_only_on_that_node(cluster):
    from kafka.protocol.admin.configs import DescribeConfigsRequest as Req

    from kcli.admin.settings import ClientSettings
    from kcli.admin.wire import WireClient

    wire = WireClient(ClientSettings(_node1(cluster), {}, 10_000))
    try:
        def ask(name, node):
            return wire.send(Req(version=4, include_synonyms=False, include_documentation=False, resources=[
                Req.DescribeConfigsResource(resource_type=4, resource_name=name, configuration_keys=None)]),
                node).results[0]
        elsewhere = ask("2", 1)
        assert elsewhere.error_code == 42 and "expected 1 or empty string" in elsewhere.error_message  # INVALID_REQUEST
        assert ask("2", 2).error_code == 0 and ask("", 1).error_code == 0 and ask("", 3).error_code == 0
    finally:
        wire.close()


def test_describe_and_alter_configs_of_broker_2_through_node_1(cluster):
    b = _node1(cluster)
    r = run_kcli(b, "alter", "configs", "--broker", "2", "--set", "message.max.bytes=2000000")
    assert r.code == 0, r.err
    try:
        r = run_kcli(b, "describe", "configs", "--broker", "2", "--broker", "1", "-o", "json")
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        by_name = {res["name"]: {e["name"]: e for e in res["configs"]} for res in doc["resources"]}
        assert list(by_name) == ["2", "1"]                                   # the order asked
        assert by_name["2"]["message.max.bytes"]["value"] == "2000000"
        assert by_name["2"]["message.max.bytes"]["source"] == "DYNAMIC_BROKER_CONFIG"
        assert by_name["1"].get("message.max.bytes", {}).get("value") != "2000000"

        r = run_dropin("kafka-configs", "--bootstrap-server", b, "--describe", "--entity-type", "brokers",
                       "--entity-name", "2")
        assert r.code == 0, r.out + r.err
        assert r.out.splitlines()[0] == "Dynamic configs for broker 2 are:"
        assert "message.max.bytes=2000000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:message.max.bytes=2000000" \
            in r.out
        r = run_dropin("kafka-configs", "--bootstrap-server", b, "--describe", "--entity-type", "brokers",
                       "--entity-default")
        assert r.code == 0 and "message.max.bytes" not in r.out, r.out
    finally:
        r = run_kcli(b, "alter", "configs", "--broker", "2", "--delete", "message.max.bytes")
        assert r.code == 0, r.err
    r = run_dropin("kafka-configs", "--bootstrap-server", b, "--alter", "--entity-type", "brokers",
                   "--entity-name", "3", "--add-config", "log.cleaner.threads=2")
    assert r.code == 0, r.out + r.err
    r = run_kcli(b, "describe", "configs", "--broker", "3", "-o", "json")
    entries = {e["name"]: e for e in json.loads(r.out)["resources"][0]["configs"]}
    assert entries["log.cleaner.threads"]["value"] == "2"


def test_the_embedded_broker_serves_kafka_4_4s_topic_configs():
    """Kafka 4.4's 37 topic configs with their defaults (DescribeConfigs), the values the
    embedded broker used to refuse accepted, every validator's refusal in Kafka's words, and
    message.timestamp.difference.max.ms (removed in 4.0) only while posing as 2.8."""
    from kcli.broker import EmbeddedCluster
    from tests.support.topic_configs import INVALID, VALID, created, described, new_topic

    with EmbeddedCluster() as c:
        b = c.bootstrap_servers
        new_topic(b, "t")
        got = described(b, "t")
        assert len(got) == 37 and "message.timestamp.difference.max.ms" not in got
        assert got["min.compaction.lag.ms"][:3] == ("0", 5, 5) and got["segment.jitter.ms"][3] == []
        assert got["compression.zstd.level"][3] == [("compression.zstd.level", "3", 5)]
        assert got["min.cleanable.dirty.ratio"][:3] == ("0.5", 5, 6)          # DOUBLE
        for name, value in VALID.items():
            assert created(b, {name: value}) == "OK", (name, value)
        assert created(b, {"segment.bytes": "1000"}) == (
            "INVALID_CONFIG: Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576")
        assert created(b, {"min.cleanable.dirty.ratio": "2"}) == (
            "INVALID_CONFIG: Invalid value 2.0 for configuration min.cleanable.dirty.ratio: "
            "Value must be no more than 1")
        assert created(b, {"message.timestamp.difference.max.ms": "1"}) == (
            "INVALID_CONFIG: Unknown topic config name: message.timestamp.difference.max.ms")
        assert all(created(b, {name: value}).startswith("INVALID_CONFIG: ") for name, value in INVALID.items())
    with EmbeddedCluster(pose_as="2.8") as c:
        assert created(c.bootstrap_servers, {"message.timestamp.difference.max.ms": "1"}) == "OK"
        new_topic(c.bootstrap_servers, "t")
        assert "message.timestamp.difference.max.ms" in described(c.bootstrap_servers, "t")

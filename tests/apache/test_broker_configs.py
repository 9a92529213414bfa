"""A broker's own configs on real Kafka's 3 nodes: Kafka answers a broker's non-default configs
only on that broker, so kcli asks broker 2's of broker 2 whichever bootstrap it is given; the
output is kafka-configs' own, byte for byte, native (``-o plain``) and drop-in."""

from __future__ import annotations

from tests.support.apache_kafka import java_tool
from tests.support.run import run_dropin, run_kcli


def test_describe_configs_of_broker_2_equals_kafka_configs(apache_kafka3):
    servers = apache_kafka3.bootstrap_servers.split(",")
    first = servers[0]                     # node 1: never broker 2's own
    r = run_kcli(first, "alter", "configs", "--broker", "2", "--set", "log.cleaner.threads=2,message.max.bytes=2000000",
                 timeout="30s")
    assert r.code == 0, r.err
    try:
        java = java_tool("kafka-configs", "--bootstrap-server", first, "--describe", "--entity-type", "brokers",
                         "--entity-name", "2")
        assert java.code == 0, java.err
        assert "message.max.bytes=2000000" in java.out and "log.cleaner.threads=2" in java.out
        native = run_kcli(first, "describe", "configs", "--broker", "2", "-o", "plain", timeout="30s")
        assert native.code == 0, native.err
        assert native.out == java.out
        dropin = run_dropin("kafka-configs", "--bootstrap-server", first, "--describe", "--entity-type",
                            "brokers", "--entity-name", "2")
        assert (dropin.code, dropin.out) == (0, java.out)
        other = run_kcli(first, "describe", "configs", "--broker", "1", "-o", "plain", timeout="30s")
        assert other.code == 0 and "message.max.bytes=2000000" not in other.out      # broker 2's alone
        java = java_tool("kafka-configs", "--bootstrap-server", first, "--describe", "--entity-type", "brokers",
                         "--entity-default")
        dropin = run_dropin("kafka-configs", "--bootstrap-server", first, "--describe", "--entity-type",
                            "brokers", "--entity-default")
        assert (dropin.code, dropin.out) == (java.code, java.out)
    finally:
        r = run_kcli(first, "alter", "configs", "--broker", "2", "--delete", "log.cleaner.threads,message.max.bytes",
                     timeout="30s")
        assert r.code == 0, r.err


def test_topic_configs_are_kafka_4_4s_on_the_embedded_broker(apache_kafka):
    """A new topic's configs (every name, value, source, type and synonym) and CreateTopics'
    answer to valid and invalid values (each validator of Kafka's, a removed config) are the
    same on the embedded broker as on Apache Kafka."""
    from kcli.broker import EmbeddedCluster
    from tests.support.clients import unique
    from tests.support.topic_configs import INVALID, VALID, created, described, new_topic

    topic = unique("cfg")
    new_topic(apache_kafka.bootstrap_servers, topic)
    real = described(apache_kafka.bootstrap_servers, topic)
    assert len(real) == 37, sorted(real)
    with EmbeddedCluster() as c:
        new_topic(c.bootstrap_servers, topic)
        assert described(c.bootstrap_servers, topic) == real
        for probes in (VALID, INVALID):
            for name, value in probes.items():
                assert created(c.bootstrap_servers, {name: value}) == created(
                    apache_kafka.bootstrap_servers, {name: value}), (name, value)

"""kcli kafka-cluster beside Apache Kafka 4.4's own tool (ClusterTool) and client: the Java
client's API keys that api-versions prints (``kcli.render.cluster_tool.JAVA_API_KEYS``) as the
4.4 jars have them; the Java tool unregistering a stopped node of the embedded broker (the Java
AdminClient's UnregisterBroker, served as Kafka's controller serves it); list-endpoints and
api-versions byte for byte with the Java tool's on a 3-node Kafka 4.4 cluster, and there
ClusterToolTest's unregister of a stopped broker (as the embedded broker does it). The corpus's
cases (tests/parity/dropin_corpus.py) compare the rest on one node."""

from __future__ import annotations

from pathlib import Path

from kcli.broker import EmbeddedCluster
from kcli.render.cluster_tool import JAVA_API_KEYS
from tests.support.apache_kafka import ToolSession, java
from tests.support.run import Result, run_dropin
from tests.support.waits import wait_until

JAVA = Path(__file__).parent / "java"


def test_the_java_clients_api_keys_are_kclis_table():
    r = java(JAVA / "ApiKeysTable.java", timeout=120)
    assert r.code == 0, r.err[-3000:]
    rows = [line.split("\t") for line in r.out.splitlines()]
    assert {int(i): (name, int(old), int(new), client == "true") for i, name, old, new, client in rows} == JAVA_API_KEYS


def test_the_java_tool_unregisters_a_stopped_node_of_the_embedded_broker():
    with EmbeddedCluster(nodes=3) as ec, ToolSession() as tools:
        b = ec.bootstrap_servers.split(",")[0]
        ec.stop_node(3)
        listed = tools.run("kafka-cluster", "list-endpoints", "-b", b, "--include-fenced-brokers")
        assert (listed.code, listed.out) == (0, run_dropin("kafka-cluster", "list-endpoints", "-b", b,
                                                           "--include-fenced-brokers").out)
        assert listed.out.splitlines()[-1].split() == ["3", "127.0.0.1", str(ec.cluster.node_address(3)[1]), "null",
                                                       "fenced", "broker"]
        r = tools.run("kafka-cluster", "unregister", "-b", b, "--id", "3")
        assert (r.code, r.out) == (0, "Broker 3 is no longer registered.\n"), r.err[-2000:]
        after = tools.run("kafka-cluster", "list-endpoints", "-b", b, "--include-fenced-brokers")
        assert after.code == 0 and [line.split()[4] for line in after.out.splitlines()] == [
            "STATE", "unfenced", "unfenced"]
        assert run_dropin("kafka-cluster", "list-endpoints", "-b", b, "--include-fenced-brokers").out == after.out
        again = tools.run("kafka-cluster", "unregister", "-b", b, "--id", "3")
        assert again.code == 1 and ("org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 3 is "
                                    "not currently registered") in again.err
        assert run_dropin("kafka-cluster", "unregister", "-b", b, "--id", "3") == Result(
            1, "", "org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 3 is not currently "
                   "registered\n")


def test_list_endpoints_and_api_versions_of_three_kafka_nodes(apache_kafka3):
    b = apache_kafka3.bootstrap_servers
    with ToolSession() as tools:
        for command in ("list-endpoints", "api-versions"):
            java_result = tools.run("kafka-cluster", command, "--bootstrap-server", b)
            kcli_result = run_dropin("kafka-cluster", command, "--bootstrap-server", b)
            assert java_result.code == 0, java_result.err[-2000:]
            assert (kcli_result.code, kcli_result.out, kcli_result.err) == (0, java_result.out, "")
            assert java_result.out.count(" (id: " if command == "api-versions" else " broker ") == 3


def test_unregister_of_a_stopped_kafka_broker(apache_kafka3):
    """ClusterToolTest.testUnregister and testListEndpointsArgumentWithBootstrapServer on Kafka 4.4:
    a stopped broker is listed as fenced, kcli unregisters it, it is listed no more (kcli's list
    is the Java tool's at each step), a second unregister is refused; started again, it registers
    again."""
    b = apache_kafka3.bootstrap_servers

    def both(*args):
        java_result = tools.run("kafka-cluster", *args)
        kcli_result = run_dropin("kafka-cluster", *args)
        assert (kcli_result.code, kcli_result.out) == (java_result.code, java_result.out), (java_result, kcli_result)
        return kcli_result

    def states():
        listed = run_dropin("kafka-cluster", "list-endpoints", "-b", b, "--include-fenced-brokers")
        return [line.split()[4] for line in listed.out.splitlines()[1:]]

    with ToolSession() as tools:
        apache_kafka3.stop_node(3)
        try:
            wait_until(lambda: states() == ["unfenced", "unfenced", "fenced"], timeout=60, interval=0.5,
                       what="broker 3 fenced")
            both("list-endpoints", "-b", b, "--include-fenced-brokers")
            assert run_dropin("kafka-cluster", "unregister", "-b", b, "--id", "3") == Result(
                0, "Broker 3 is no longer registered.\n", "")
            wait_until(lambda: states() == ["unfenced", "unfenced"], timeout=30, interval=0.5, what="3 unlisted")
            both("list-endpoints", "-b", b, "--include-fenced-brokers")
            assert run_dropin("kafka-cluster", "unregister", "-b", b, "--id", "3") == Result(
                1, "", "org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 3 is not currently "
                       "registered\n")
        finally:
            apache_kafka3.start_node(3)
        wait_until(lambda: states() == ["unfenced"] * 3, timeout=60, interval=0.5, what="broker 3 registered again")

"""kcli kafka-cluster (Apache Kafka 4.4's ClusterTool's command line) on the embedded broker, 3
nodes of its own (nodes are stopped and unregistered here): cluster-id, list-endpoints with and
without the fenced brokers, unregister of a stopped node (UnregisterBroker, served by the embedded
broker as Kafka's controller does), unregister-controller of the voter and of an unknown id,
api-versions against what each node advertises, and the checks made before any request. The byte
parity with the Java tool on real Kafka 4.4 is the parity corpus's (tests/parity/dropin_corpus.py)."""

from __future__ import annotations

import pytest

from kcli.broker.embedded import EmbeddedCluster
from tests.support.run import Result, run_dropin

dropin = run_dropin


@pytest.fixture(scope="module")
def ec():
    with EmbeddedCluster(nodes=3) as c:
        yield c


def _endpoints(ec: EmbeddedCluster, rows: list[tuple[int, str]]) -> str:
    """ClusterToolTest's expected table: printf columns, HOST as wide as the longest host."""
    width = max(len(ec.cluster.node_address(n)[0]) for n, _ in rows)
    fmt = "{:<10} {:<%d} {:<10} {:<10} {:<10} {:<15}\n" % width
    return fmt.format("ID", "HOST", "PORT", "RACK", "STATE", "ENDPOINT_TYPE") + "".join(
        fmt.format(n, *map(str, ec.cluster.node_address(n)), "null", state, "broker") for n, state in rows)


def test_cluster_id_is_the_clusters(ec):
    r = dropin("kafka-cluster", "cluster-id", "--bootstrap-server", ec.bootstrap_servers)
    assert r == Result(0, f"Cluster ID: {ec.cluster.cluster_id}\n", "")
    short = dropin("kafka-cluster", "cluster-id", "-b", ec.bootstrap_servers.split(",")[1])
    before = run_dropin("--bootstrap-server", ec.bootstrap_servers, "kafka-cluster", "cluster-id")
    assert short == before == r
    twice = run_dropin("-b", ec.bootstrap_servers, "kafka-cluster", "cluster-id", "-b", ec.bootstrap_servers)
    assert twice == Result(2, "", "--bootstrap-server is given both before kafka-cluster and in its line: give it "
                                  "once\n")


def test_the_deprecated_config_option_is_read_with_the_tools_notice(ec, tmp_path):
    props = tmp_path / "admin.properties"
    props.write_text("client.id=my-client\n")
    r = dropin("kafka-cluster", "cluster-id", "-b", ec.bootstrap_servers, "--config", str(props))
    assert r == Result(0, "Option --config has been deprecated and will be removed in a future version. Use "
                          f"--command-config instead.\nCluster ID: {ec.cluster.cluster_id}\n", "")
    assert ec.request_counts("my-client"), "the properties file's client.id was not used"


def test_list_endpoints_and_unregister_of_a_stopped_broker(ec):
    """A stopped node is listed as fenced with --include-fenced-brokers only; unregistered, it is
    listed no more and a second unregister is Kafka's BrokerIdNotRegisteredException; started
    again, it registers again (ClusterToolTest.testUnregister, testListEndpoints*)."""
    b = ec.bootstrap_servers.split(",")[0]

    def endpoints(*extra):
        return dropin("kafka-cluster", "list-endpoints", "--bootstrap-server", b, *extra)

    assert endpoints() == Result(0, _endpoints(ec, [(1, "unfenced"), (2, "unfenced"), (3, "unfenced")]), "")
    ec.stop_node(3)
    try:
        assert endpoints() == Result(0, _endpoints(ec, [(1, "unfenced"), (2, "unfenced")]), "")
        assert endpoints("--include-fenced-brokers") == Result(
            0, _endpoints(ec, [(1, "unfenced"), (2, "unfenced"), (3, "fenced")]), "")
        r = dropin("kafka-cluster", "unregister", "--bootstrap-server", b, "--id", "3")
        assert r == Result(0, "Broker 3 is no longer registered.\n", "")
        assert endpoints("--include-fenced-brokers") == Result(0, _endpoints(ec, [(1, "unfenced"), (2, "unfenced")]),
                                                               "")
        again = dropin("kafka-cluster", "unregister", "--bootstrap-server", b, "-i", "3")
        assert again == Result(1, "", "org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 3 is "
                                      "not currently registered\n")
    finally:
        ec.start_node(3)
    assert endpoints() == Result(0, _endpoints(ec, [(1, "unfenced"), (2, "unfenced"), (3, "unfenced")]), "")


def test_unregister_of_an_id_never_registered_is_refused(ec):
    r = dropin("kafka-cluster", "unregister", "--bootstrap-server", ec.bootstrap_servers, "--id", "42")
    assert r == Result(1, "", "org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 42 is not "
                              "currently registered\n")


def test_unregister_controller_refuses_the_voter_and_an_unknown_id(ec):
    """The embedded cluster's controller is its one voter (Kafka refuses to unregister a voter);
    no other controller is registered. A broker posing as Kafka 4.1 has no UnregisterController."""
    controller = ec.cluster.controller_id()
    r = dropin("kafka-cluster", "unregister-controller", "--bootstrap-server", ec.bootstrap_servers, "--id",
               str(controller))
    assert r == Result(1, "", f"org.apache.kafka.common.errors.InvalidRequestException: Cannot unregister controller "
                              f"{controller} because it is part of the voter set.\n")
    r = dropin("kafka-cluster", "unregister-controller", "--bootstrap-server", ec.bootstrap_servers, "-i", "99")
    assert r == Result(1, "", "org.apache.kafka.common.errors.ControllerIdNotRegisteredException: Controller ID 99 is "
                              "not currently registered.\n")
    with EmbeddedCluster(nodes=1, pose_as="4.1") as old:
        r = dropin("kafka-cluster", "unregister-controller", "--bootstrap-server", old.bootstrap_servers, "--id", "1")
    assert r == Result(0, "The target cluster does not support the controller unregistration API.\n", "")


def test_api_versions_are_each_nodes_ranges_beside_the_java_clients(ec):
    """One entry per live broker, by id: its advertised range of every API, the version Kafka
    4.4's Java client would use, UNSUPPORTED for a client API the broker lacks."""
    from kcli.broker.versions import advertised
    from kcli.render.cluster_tool import JAVA_API_KEYS

    r = dropin("kafka-cluster", "api-versions", "--bootstrap-server", ec.bootstrap_servers)
    assert r.code == 0 and r.err == "", r
    served = {k: (lo, hi) for k, lo, hi in advertised(None)}
    blocks = r.out.split("\n)\n")
    assert blocks[-1] == "" and len(blocks) == 4
    for n, block in zip((1, 2, 3), blocks):
        head, *lines = block.split("\n")
        host, port = ec.cluster.node_address(n)
        assert head == f"{host}:{port} (id: {n} rack: null isFenced: false) -> ("
        assert all(line.startswith("\t") for line in lines) and lines[-1][-1] != ","
        assert f"\tMetadata(3): {served[3][0]} to {served[3][1]} [usable: 13]," in lines
        assert "\tUnregisterBroker(64): 0 [usable: 0]," in lines
        assert "\tUnregisterController(94): 0 [usable: 0]" == lines[-1]
        keys = [int(line.split("(", 1)[1].split(")", 1)[0]) for line in lines]
        assert keys == sorted(set(served) | {k for k, (_, _, _, client) in JAVA_API_KEYS.items() if client})


@pytest.mark.parametrize("args, err", [
    (["cluster-id"], "kafka-cluster: error: one of the arguments --bootstrap-server/-b --bootstrap-controller/-C "
                     "is required"),
    (["list-endpoints", "-b", "{b}", "-C", "{b}"], "kafka-cluster: error: argument --bootstrap-controller/-C: not "
                                                   "allowed with argument --bootstrap-server/-b"),
    (["unregister", "-b", "{b}"], "kafka-cluster: error: argument --id/-i is required"),
    (["unregister", "-b", "{b}", "--id", "x"], "kafka-cluster: error: argument --id/-i: could not convert 'x' to "
                                               "Integer (For input string: \"x\")"),
    (["unreg", "-b", "{b}", "--id", "1"], "kafka-cluster: error: ambiguous command: unreg could match unregister, "
                                          "unregister-controller"),
    (["cluster-id", "-b", "{b}", "--config", "a", "--command-config", "b"],
     "--config and --command-config cannot be specified together."),
    (["list-endpoints", "-C", "{b}", "--include-fenced-brokers"],
     "The option --include-fenced-brokers is only supported with --bootstrap-server option"),
    (["list-endpoints", "-b", "{b}", "--include-fenced-brokers=yes"],
     "kafka-cluster: error: argument --include-fenced-brokers: ignore implicit argument 'yes'"),
    (["cluster-id", "--bootstrap-controller", "{b}"],
     "kcli kafka-cluster: --bootstrap-controller is not supported (kcli connects to brokers only): give "
     "--bootstrap-server"),
])
def test_bad_usage_is_one_line_exit_2_before_any_request(ec, args, err):
    before = ec.request_counts()
    r = dropin("kafka-cluster", *(a.format(b=ec.bootstrap_servers) for a in args))
    assert r == Result(2, "", err + "\n")
    assert ec.request_counts() == before


def test_help_is_argparse4js_screen_on_stdout():
    r = dropin("kafka-cluster", "-h")
    assert r.code == 1 and r.err == "" and r.out.startswith(
        "usage: kafka-cluster [-h]\n"
        "                     {cluster-id,unregister,unregister-controller,list-endpoints,api-versions}\n"
        "                     ...\n\nThe Kafka cluster tool.\n\npositional arguments:\n")
    r = dropin("kafka-cluster", "unregister", "--help")
    assert r.code == 1 and "  --id ID, -i ID         The ID of the broker to unregister.\n" in r.out


def test_unregister_of_a_running_broker_takes_it_out_as_kafka_does(ec):
    """Kafka's controller does not refuse a running broker (ReplicationControlManager.unregisterBroker;
    a 3-node Kafka 4.4 cluster lists it no more, seen by hand): it is out of the cluster until it
    starts again and registers again."""
    b = ec.bootstrap_servers.split(",")[0]
    r = dropin("kafka-cluster", "unregister", "--bootstrap-server", b, "--id", "2")
    assert r == Result(0, "Broker 2 is no longer registered.\n", "")
    try:
        listed = dropin("kafka-cluster", "list-endpoints", "-b", b, "--include-fenced-brokers")
        assert listed == Result(0, _endpoints(ec, [(1, "unfenced"), (3, "unfenced")]), "")
    finally:
        ec.stop_node(2)
        ec.start_node(2)
    listed = dropin("kafka-cluster", "list-endpoints", "-b", b, "--include-fenced-brokers")
    assert listed == Result(0, _endpoints(ec, [(1, "unfenced"), (2, "unfenced"), (3, "unfenced")]), "")

"""The drop-in commands through kcli's entry point and their console scripts, against the
embedded broker (3 nodes, the clock at 2025-01-15T10:30:00.000Z, the time KIP-1327's and
KIP-1282's examples print). The byte parity with Apache's tools is the parity corpus's
(tests/parity); these need no JVM: the console scripts, defects once found through the Java
spellings, and KIP-1327's example line as the KIP prints it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from tests.support.run import Result
from tests.support.run import run_dropin
from tests.support.clients import commit, create_topic

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("kafka-topics", "kafka-consumer-groups", "kafka-get-offsets", "kafka-configs", "kafka-streams-groups",
         "kafka-acls", "kafka-transactions", "kafka-delete-records",
         "kafka-share-groups", "kafka-log-dirs", "kafka-cluster", "kafka-metadata-quorum", "kafka-features",
         "kafka-reassign-partitions")


dropin = run_dropin


def test_each_tool_is_a_console_script_never_named_like_apaches():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    for tool in TOOLS:
        module, function = scripts[f"kcli-{tool}"].split(":")
        proc = subprocess.run([sys.executable, "-c", f"from {module} import {function}; {function}()", "--help"],
                              capture_output=True, text=True, timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL)
        if tool == "kafka-transactions":            # argparse4j's help: on stdout, exit 1
            assert proc.returncode == 1 and proc.stderr == "", (tool, proc)
            assert proc.stdout.startswith("usage: kafka-transactions.sh [-h]") and "--bootstrap-server" in proc.stdout
            continue
        if tool == "kafka-cluster":                 # argparse4j's, its commands' options under each
            assert proc.returncode == 1 and proc.stderr == "", (tool, proc)
            assert proc.stdout.startswith("usage: kafka-cluster [-h]") and "list-endpoints" in proc.stdout
            continue
        if tool in ("kafka-metadata-quorum", "kafka-features"):     # argparse4j's help: on stdout, exit 0
            assert proc.returncode == 0 and proc.stderr == "", (tool, proc)
            assert proc.stdout.startswith(f"usage: {tool} [-h]") and "--bootstrap-server" in proc.stdout
            continue
        assert proc.returncode == 1 and proc.stdout == "", (tool, proc)       # the Java tools' help: stderr, 1
        assert "--bootstrap-server" in proc.stderr and "Option" in proc.stderr.splitlines()[1], (tool, proc.stderr)
    assert not {name for name in scripts if name.startswith("kafka") or name.endswith(".sh")}


def test_kip_1327_example_line(cluster):
    """KIP-1327: ``kafka-topics.sh --describe --bootstrap-server localhost:9092 --topic foo``."""
    b = cluster.bootstrap_servers
    r = dropin("kafka-topics", "--create", "--bootstrap-server", b, "--topic", "foo", "--partitions", "2",
               "--replication-factor", "2")
    assert (r.code, r.out) == (0, "Created topic foo.\n"), r
    r = dropin("kafka-topics", "--describe", "--bootstrap-server", b, "--topic", "foo")
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[0].startswith("Topic: foo\tTopicId: ")
    assert "\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: " in lines[0]
    for p, line in enumerate(lines[1:]):
        assert line.startswith(f"\tTopic: foo\tPartition: {p}\tLeader: ")
        assert line.endswith("\tElr: \tLastKnownElr: \tCreationTimeMs: 2025-01-15T10:30:00.000Z"), line


def test_streams_groups_on_a_cluster_without_any(cluster):
    """kafka-streams-groups' --all-groups with no streams group: nothing to list, describe or
    reset (the reset printed librdkafka's "Expected at least one group to be described", exit 1)."""
    b = cluster.bootstrap_servers
    assert dropin("kafka-streams-groups", "--bootstrap-server", b, "--list") == Result(0, "", "")
    assert dropin("kafka-streams-groups", "--bootstrap-server", b, "--describe", "--all-groups") == Result(0, "", "")
    r = dropin("kafka-streams-groups", "--bootstrap-server", b, "--reset-offsets", "--all-groups", "--all-input-topics",
               "--to-earliest", "--dry-run")
    assert (r.code, r.out, r.err) == (0, "\n", ""), r


def test_share_groups_on_a_broker_without_them(cluster):
    """kafka-share-groups on a broker that hosts no share groups (no ShareGroupDescribe): nothing
    to list, a group is not found (the tool's line, exit 1), and a reset plans nothing."""
    b = cluster.bootstrap_servers
    assert dropin("kafka-share-groups", "--bootstrap-server", b, "--list") == Result(0, "", "")
    assert dropin("kafka-share-groups", "--bootstrap-server", b, "--describe", "--all-groups") == Result(0, "", "")
    r = dropin("kafka-share-groups", "--bootstrap-server", b, "--describe", "--group", "nosuch")
    assert (r.code, r.out) == (1, "\nError: Executing share group command failed due to org.apache.kafka.common."
                                  "errors.GroupIdNotFoundException: Group nosuch not found.\n"), r


def test_create_with_a_replica_assignment_the_java_way(cluster):
    b = cluster.bootstrap_servers
    r = dropin("kafka-topics", "--bootstrap-server", b, "--create", "--topic", "placed-java",
               "--replica-assignment", "1:2,2:3,3:1")
    assert (r.code, r.out, r.err) == (0, "Created topic placed-java.\n", "")
    r = dropin("kafka-topics", "--bootstrap-server", b, "--describe", "--topic=placed-java")
    assert [line.split("\tReplicas: ")[1].split("\t")[0] for line in r.out.splitlines()[1:]] == ["1,2", "2,3", "3,1"]


def test_delete_config_a_b_deletes_both(cluster):
    b = cluster.bootstrap_servers
    create_topic(b, "two-overrides", config={"retention.ms": "1000", "segment.ms": "3600000"})
    r = dropin("kafka-configs", "--bootstrap-server", b, "--alter", "--topic", "two-overrides",
               "--delete-config", "retention.ms,segment.ms")
    assert (r.code, r.out) == (0, "Completed updating config for topic two-overrides.\n"), r
    r = dropin("kafka-configs", "--bootstrap-server", b, "--describe", "--topic", "two-overrides")
    assert (r.code, r.out) == (0, "Dynamic configs for topic two-overrides are:\n"), r


def test_state_and_type_without_a_value_are_columns(cluster):
    b = cluster.bootstrap_servers
    create_topic(b, "listed")
    commit(b, "listed-group", {("listed", 0): 0})
    r = dropin("kafka-consumer-groups", "--bootstrap-server", b, "--list", "--state", "--type")
    assert r.code == 0, r
    header, *rows = r.out.splitlines()
    assert header.split() == ["GROUP", "TYPE", "STATE"]
    assert ["listed-group", "Classic", "Empty"] in [row.split() for row in rows]


def test_delete_offsets_takes_one_group(cluster):
    b = cluster.bootstrap_servers
    before = dict(cluster.request_counts())
    r = dropin("kafka-consumer-groups", "--bootstrap-server", b, "--delete-offsets", "--group", "a",
               "--group", "b", "--topic", "t")
    assert (r.code, r.err) == (2, ""), r                  # the Java tool's line, on stdout as there
    assert r.out == ("\nError: Executing consumer group command failed due to Found multiple arguments for "
                     "option group, but you asked for only one\n")
    assert cluster.request_counts() == before


def test_bootstrap_server_is_required_as_in_java():
    """Each tool's own message (exit 2 rather than Java's 1: the one intended difference)."""
    for args, message in ((("kafka-topics", "--list"), "--bootstrap-server must be specified"),
                          (("kafka-consumer-groups", "--list"), 'Missing required argument "[bootstrap-server]"'),
                          (("kafka-get-offsets", "--topic=x"), 'Missing required argument "[bootstrap-server]"'),
                          (("kafka-configs", "--describe"),
                           "Either --bootstrap-server or --bootstrap-controller must be specified.")):
        assert dropin(*args) == Result(2, "", message + "\n"), args


def test_a_bad_topic_partitions_rule_is_the_tools_terse_exception():
    """kafka-get-offsets throws a TerseException for a rule that does not parse; the drop-in
    tells it by its type (kcli.specs.InvalidRule), not by its words: a --partitions list that
    does not parse is another error line."""
    b = "127.0.0.1:1"            # refused before any request
    for rule in ("t:x", "t:99999999999"):
        assert dropin("kafka-get-offsets", "--bootstrap-server", b, "--topic-partitions", rule) == Result(
            2, "", f"Error occurred: org.apache.kafka.tools.TerseException: Invalid rule specification: {rule}\n")
    assert dropin("kafka-get-offsets", "--bootstrap-server", b, "--topic", "t", "--partitions", "x") == Result(
        2, "", "Error occurred: --partitions expects a comma separated list of numeric partition ids, but "
               "received: x\n")


def test_an_unforeseen_error_is_one_line_never_a_traceback(monkeypatch):
    """The drop-ins' last resort, as the native commands' (kcli.cli.main): what no tool's own
    reporting foresaw is one line on stderr (a value jopt refuses to convert or read twice:
    usage, 2; anything else: 1); tracebacks were printed before."""
    from kcli.cli.dropin import jopt, run

    def raising(exc):
        def execute(request, streams):
            raise exc
        return execute

    for exc, code, line in ((OverflowError("int too large"), 1, "Error: int too large\n"),
                            (RuntimeError(), 1, "Error: RuntimeError\n"),
                            (jopt.JoptError("Found multiple arguments for option x, but you asked for only one"), 2,
                             "Found multiple arguments for option x, but you asked for only one\n")):
        monkeypatch.setitem(run._EXECUTORS, "kafka-topics", raising(exc))
        assert dropin("kafka-topics", "--bootstrap-server", "127.0.0.1:1", "--list") == Result(code, "", line)


# What bench/java_tools.py's four drop-ins never load: librdkafka (kcli's own connection does their
# work) and pkgutil (only kcli.protocol's message tables, the broker's, walk packages).
# (importlib.resources and what it brings come with kafka-python's schema loader: docs/upstream.)
NOT_LOADED = ("confluent_kafka", "pkgutil")


def test_a_dropin_loads_no_cli_framework(cluster):
    """A drop-in parses with its own grammar: a whole command line, request and output included,
    imports neither typer (click) nor rich, which the native commands need; the four commands
    bench/java_tools.py times, run first, load none of NOT_LOADED either."""
    b = cluster.bootstrap_servers
    create_topic(b, "lean", 2)
    commit(b, "lean-group", {("lean", 0): 1, ("lean", 1): 0})
    bench = [("kafka-topics", "--describe", "--topic", "lean"),
             ("kafka-consumer-groups", "--describe", "--group", "lean-group", "--state", "--verbose"),
             ("kafka-consumer-groups", "--reset-offsets", "--group", "lean-group", "--topic", "lean",
              "--to-earliest", "--dry-run"),
             ("kafka-get-offsets", "--topic", "lean")]
    rest = [("kafka-topics", "--describe"), ("kafka-consumer-groups", "--list"),
            ("kafka-configs", "--describe", "--entity-type", "brokers")]
    code = ("import io, sys; from kcli.cli.main import run\n"
            "def lines(ls): return [run([tool, '--bootstrap-server', %r, *rest], io.StringIO()) for tool, *rest in "
            "ls]\n"
            "print(lines(%r), sorted(m for m in sys.modules if m in %r or m.split('.')[0] in %r))\n"
            "print(lines(%r), sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'click', 'rich'}))\n"
            % (b, bench, NOT_LOADED, NOT_LOADED, rest))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=ROOT, stdin=subprocess.DEVNULL)
    assert proc.stdout.splitlines()[-2:] == ["[0, 0, 0, 0] []", "[0, 0, 0] []"], proc


def test_an_offset_file_that_cannot_be_read_is_named_on_one_line():
    """The name as given, control characters escaped (hypothesis found a newline printed raw)."""
    r = run_dropin("kafka-delete-records", "--bootstrap-server", "127.0.0.1:1", "--offset-json-file",
                   "no\nsuch\x00file")
    assert (r.code, r.out, r.err) == (2, "", "Unable to read file no\\nsuch\\x00file\n"), r


def test_delete_records_the_java_way(cluster, tmp_path):
    """kafka-delete-records deletes at once (no dry run, as the Java tool): the partitions sorted,
    one that does not exist named at once (Java retries it for 60 s), exit 3 when others went;
    a duplicate refused before any request, in the tool's words."""
    from confluent_kafka import Consumer, TopicPartition

    from tests.support.clients import produce

    b = cluster.bootstrap_servers
    create_topic(b, "dr-java", partitions=3)
    produce(b, "dr-java", [(p, f"{p}-{i}", 1_736_937_000_000) for p in range(3) for i in range(5)])   # the clock's
    offsets = tmp_path / "offsets.json"
    entries = [("dr-java", 2, 2), ("dr-java", 0, 1), ("dr-java", 1, -1), ("dr-java", 42, 42)]
    offsets.write_text('{"partitions": [' + ", ".join(
        f'{{"topic": "{t}", "partition": {p}, "offset": {o}}}' for t, p, o in entries) + "]}")
    r = dropin("kafka-delete-records", "--bootstrap-server", b, "--offset-json-file", str(offsets))
    assert (r.code, r.err) == (3, ""), r
    assert r.out == ("Executing records delete operation\nRecords delete operation completed:\n"
                     "partition: dr-java-0\tlow_watermark: 1\npartition: dr-java-1\tlow_watermark: 5\n"
                     "partition: dr-java-2\tlow_watermark: 2\npartition: dr-java-42\terror: "
                     "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host "
                     "this topic-partition.\n")
    c = Consumer({"bootstrap.servers": b, "group.id": "dr-java-wm"})
    assert [c.get_watermark_offsets(TopicPartition("dr-java", p), timeout=10)[0] for p in range(3)] == [1, 5, 2]
    c.close()
    offsets.write_text('{"partitions": [{"topic": "t", "partition": 1, "offset": 1}, '
                       '{"topic": "t", "partition": 1, "offset": 2}]}')
    before = cluster.request_counts()
    r = dropin("kafka-delete-records", "--bootstrap-server", b, "--offset-json-file", str(offsets))
    assert r == Result(2, "", "Offset json file contains duplicate topic partitions: t-1\n")
    assert cluster.request_counts() == before


def test_log_dirs_the_java_way(cluster):
    """kafka-log-dirs --describe: the tool's two lines, then one JSON line with every log dir of
    each broker asked and, with --topic-list, only those topics' replicas (sizes as describe
    log-dirs reports them); a broker that is not live refused in the tool's words before any
    DescribeLogDirs; a broker id that is not a number refused before any request."""
    import json

    from tests.support.clients import produce
    from tests.support.run import run_kcli

    b = cluster.bootstrap_servers
    create_topic(b, "ld-java", partitions=2, replication_factor=2)
    create_topic(b, "ld-other", partitions=1)
    produce(b, "ld-java", [(p, "x" * 100, 1_736_937_000_000) for p in (0, 1) for _ in range(3 + p)])  # the clock
    r = dropin("kafka-log-dirs", "--bootstrap-server", b, "--describe", "--topic-list", "ld-java", "--broker-list",
               "3,1,2")
    assert (r.code, r.err) == (0, ""), r
    first, second, line, *rest = r.out.split("\n")
    assert (first, second, rest) == ("Querying brokers for log directories information",
                                     "Received log directory information from brokers 1,2,3", [""])
    doc = json.loads(line)
    assert list(doc) == ["brokers", "version"] and doc["version"] == 1
    assert [x["broker"] for x in doc["brokers"]] == [1, 2, 3]
    assert all(list(d) == ["partitions", "error", "logDir"] and d["error"] is None
               for x in doc["brokers"] for d in x["logDirs"]) and all(len(x["logDirs"]) == 1 for x in doc["brokers"])
    got = sorted((x["broker"], p["partition"], p["size"], p["offsetLag"], p["isFuture"])
                 for x in doc["brokers"] for d in x["logDirs"] for p in d["partitions"])
    every = dropin("kafka-log-dirs", "--bootstrap-server", b, "--describe")
    assert "ld-other-0" in every.out and "ld-other" not in line
    native = json.loads(run_kcli(b, "describe", "log-dirs", "--topic", "ld-java", "-o", "json").out)["replicas"]
    assert got == sorted((x["broker"], f"ld-java-{x['partition']}", x["sizeBytes"], 0, False) for x in native)
    assert len(got) == 4 and all(size > 0 for _, _, size, _, _ in got)

    before = cluster.request_counts()
    r = dropin("kafka-log-dirs", "--bootstrap-server", b, "--describe", "--broker-list", "1,7")
    assert r == Result(1, "", "ERROR: The given brokers do not exist from --broker-list: 7. Current existent "
                              "brokers: 1,2,3\n")
    assert not any(counts.get("DescribeLogDirs") != before[node].get("DescribeLogDirs")
                   for node, counts in cluster.request_counts().items())
    before = cluster.request_counts()
    r = dropin("kafka-log-dirs", "--bootstrap-server", b, "--describe", "--broker-list", "1,x")
    assert r == Result(2, "", 'For input string: "x"\n') and cluster.request_counts() == before


def test_metadata_quorum_refuses_what_kcli_cannot_do_before_any_request(cluster, tmp_path):
    """kcli connects to brokers only and sends neither AddRaftVoter nor RemoveRaftVoter: the
    controllers' bootstrap, add-controller and remove-controller (a dry run too) are refused in
    one line, exit 1, nothing sent; a broker posing as 2.8 lacks DescribeQuorum, in the Java
    AdminClient's words."""
    from kcli.broker import EmbeddedCluster

    b = cluster.bootstrap_servers
    config = tmp_path / "controller.properties"
    config.write_text("node.id=4\nprocess.roles=controller\n")
    before = cluster.request_counts()
    r = dropin("kafka-metadata-quorum", "--bootstrap-controller", b, "describe", "--status")
    assert r == Result(1, "", "kcli kafka-metadata-quorum connects to brokers only: give --bootstrap-server (a "
                              "broker forwards DescribeQuorum to the controllers)\n")
    r = dropin("kafka-metadata-quorum", "--bootstrap-server", b, "--command-config", str(config), "add-controller")
    assert r == Result(1, "", "kcli kafka-metadata-quorum cannot add controllers: kcli does not send AddRaftVoter "
                              "(KIP-853); use Apache's kafka-metadata-quorum\n")
    r = dropin("kafka-metadata-quorum", "--bootstrap-server", b, "remove-controller", "-i", "2", "-d",
               "_KWDkTahTVaiVVVTaugNew", "--dry-run")
    assert (r.code, r.out) == (1, "") and "does not send RemoveRaftVoter" in r.err
    assert cluster.request_counts() == before
    with EmbeddedCluster(nodes=1, pose_as="2.8") as old:
        r = dropin("kafka-metadata-quorum", "--bootstrap-server", old.bootstrap_servers, "describe", "--replication")
        assert r == Result(1, "", "The node does not support DESCRIBE_QUORUM\n")


def test_features_change_the_embedded_brokers_levels_the_java_way():
    """kafka-features on the embedded broker: a dry run changes nothing, a safe downgrade and an
    upgrade back do, disable takes a feature to 0 (describe then shows 0), and a request with
    one failing update changes nothing and exits 1 with the tool's count; the controllers'
    bootstrap is refused in one line."""
    from kcli.broker import EmbeddedCluster

    def levels(b):
        out = dropin("kafka-features", "--bootstrap-server", b, "describe").out
        return {line.split()[1]: line.split()[7] for line in out.splitlines()}

    with EmbeddedCluster(nodes=1) as ec:
        b = ec.bootstrap_servers
        assert levels(b)["transaction.version"] == "2"
        r = dropin("kafka-features", "--bootstrap-server", b, "downgrade", "--feature", "transaction.version=1",
                   "--dry-run")
        assert r == Result(0, "transaction.version can be downgraded to 1.\n", "")
        assert levels(b)["transaction.version"] == "2"
        r = dropin("kafka-features", "--bootstrap-server", b, "downgrade", "--feature", "transaction.version=1")
        assert r == Result(0, "transaction.version was downgraded to 1.\n", "")
        assert levels(b)["transaction.version"] == "1"
        r = dropin("kafka-features", "--bootstrap-server", b, "upgrade", "--feature", "transaction.version=2")
        assert r.out == "transaction.version was upgraded to 2.\n" and levels(b)["transaction.version"] == "2"
        r = dropin("kafka-features", "--bootstrap-server", b, "disable", "--feature", "streams.version")
        assert r.out == "streams.version was disabled.\n" and levels(b)["streams.version"] == "0"
        r = dropin("kafka-features", "--bootstrap-server", b, "upgrade", "--feature", "streams.version=1",
                   "--feature", "group.version=7")
        assert r.code == 1 and r.err == "2 out of 2 operation(s) failed.\n"
        assert r.out.splitlines()[0].startswith("Could not upgrade group.version to 7. The update failed for all "
                                                "features since the following feature had an error: ")
        assert levels(b)["streams.version"] == "0"
        r = dropin("kafka-features", "--bootstrap-controller", b, "describe")
        assert r == Result(1, "", "kcli kafka-features connects to brokers only: give --bootstrap-server\n")

"""A cluster that cannot be reached ends every command at once with the precise cause: a refused
connection or an unknown host is certain at the first attempt, on both client paths
(confluent-kafka's and kcli's own connection). ``--timeout`` stays the bound for a broker that
accepts the connection and never answers. Through the real entry point; the timings are of the
command itself (in-process), with a --timeout far above them."""

from __future__ import annotations

import io
import socket
import time

import pytest

from kcli.cli.main import run
from kcli.cli.tree import COMMANDS, DROPINS
from tests.support.run import run_kcli

# Every command that talks to a cluster, with arguments that make it send requests.
CASES = [
    ("list transactions", []), ("describe transactions", ["tx"]), ("check transactions", []),
    ("abort transaction", ["--topic", "t", "--partition", "0", "--start-offset", "0"]),
    ("list topics", []), ("list groups", []), ("describe topics", []), ("describe topics", ["t"]),
    ("describe configs", ["--topic", "t"]), ("describe cluster", []),
    ("describe log-dirs", []), ("describe groups", ["g"]),
    ("describe groups", ["g", "--state"]), ("describe groups", ["g", "--members"]),
    ("create topic", ["t"]), ("alter topics", ["t", "--partitions", "3"]),
    ("alter configs", ["--topic", "t", "--set", "retention.ms=1"]), ("delete topics", ["t"]),
    ("delete groups", ["g"]), ("list-offsets", ["-t", "t"]),
    ("list-offsets", ["-t", "t", "--time", "max-timestamp"]),
    ("reset-offsets", ["-g", "g", "--all-topics", "--to-earliest"]),
    ("delete-offsets", ["-g", "g", "-t", "t"]), ("delete-records", ["-t", "t:0=1"]),
    ("check expansions", []), ("check broker", []),
    ("lag show", []), ("list acls", []), ("create acl", ["--topic", "t", "--allow-principal", "User:a", "--operation",
                                                        "read"]),
    ("delete acls", ["--topic", "t", "--execute"]),
    ("reassign partitions", ["--list"]), ("elect leaders", ["--preferred"]), ("describe quotas", []),
    ("alter quotas", ["--user", "u", "--set", "producer_byte_rate=1"]),
]
# audit: tests/cli/test_audit_cli.py; lag serve serves on through failed collections:
# tests/cli/test_lag_serve.py
NOT_CLUSTER = {"demo", "broker start", "audit timestamps", "__complete-names", "completion", "lag serve"}
CLUSTER_COMMANDS = {" ".join([words, *args]): [*words.split(), *args] for words, args in CASES}


def _command(case: str) -> list[str]:
    return CLUSTER_COMMANDS[case]


def test_every_cluster_command_is_covered():
    assert {words for words, _ in CASES} == set(COMMANDS) - NOT_CLUSTER - DROPINS
    assert set(DROPIN_CASES) == DROPINS


# The drop-ins wrap the same cause as their Java tool wraps its errors, on the tool's stream.
DROPIN_CASES = {
    "kafka-topics": (["--list"], "Error while executing topic command : {cause}\n", ""),
    "kafka-consumer-groups": (["--list"], "\nError: Executing consumer group command failed due to {cause}\n", ""),
    "kafka-get-offsets": ([], "", "Error occurred: {cause}\n"),
    "kafka-configs": (["--describe", "--entity-type", "topics"], "", "{cause}\n"),
    "kafka-streams-groups": (["--list"], "\nError: Executing streams group command failed due to {cause}\n", ""),
    "kafka-acls": (["--list"], "Error while executing ACL command: {cause}\n", ""),
    "kafka-transactions": (["list"], "", "Failed to list transactions: {cause}. Enable debug logging for additional "
                                         "detail.\n"),
    "kafka-delete-records": (["--offset-json-file", "{offsets}"], "Executing records delete operation\n",
                             "Error: {cause}\n"),
    # the Java tool waits out its timeout ("Timeout waiting for election results" on stdout, a stack
    # trace on stderr); kcli names the cause at once, on stderr
    "kafka-leader-election": (["--election-type", "preferred", "--all-topic-partitions"], "", "{cause}\n"),
    "kafka-log-dirs": (["--describe"], "", "Error: {cause}\n"),
    "kafka-metadata-quorum": (["describe", "--status"], "", "{cause}\n"),
    "kafka-features": (["describe"], "", "{cause}\n"),
    "kafka-reassign-partitions": (["--list"], "", "{cause}\n"),
    "kafka-share-groups": (["--list"], "\nError: Executing share group command failed due to {cause}\n", ""),
    # argparse4j's subcommand first, its connection options after it
    "kafka-cluster": (["cluster-id", "--bootstrap-server", "{bootstrap}"], "", "Error: {cause}\n"),
}


@pytest.mark.parametrize("tool", sorted(DROPIN_CASES))
def test_refused_connection_ends_a_dropin_at_once(tool, refused_port, tmp_path):
    bootstrap = f"127.0.0.1:{refused_port}"
    args, out, err = DROPIN_CASES[tool]
    offsets = tmp_path / "offsets.json"
    offsets.write_text('{"partitions": [{"topic": "t", "partition": 0, "offset": 1}]}')
    server = [] if "{bootstrap}" in args else ["--bootstrap-server", bootstrap]
    args = [a.format(offsets=offsets, bootstrap=bootstrap) for a in args]
    cause = f"Cannot connect to the cluster at {bootstrap}: {bootstrap}: Connection refused"
    t0 = time.monotonic()
    out_, err_ = io.StringIO(), io.StringIO()
    code = run([tool, *server, *args], out_, err_)    # as the console script
    assert (code, out_.getvalue(), err_.getvalue()) == (1, out.format(cause=cause), err.format(cause=cause))
    assert time.monotonic() - t0 < 5.0, tool      # not the 30 s default timeout


@pytest.fixture(scope="module")
def refused_port():
    with socket.socket() as s:           # bound, not listening: the kernel refuses connections
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


@pytest.mark.parametrize("case", list(CLUSTER_COMMANDS))
def test_refused_connection_fails_long_before_the_timeout(case, refused_port):
    bootstrap = f"127.0.0.1:{refused_port}"
    t0 = time.monotonic()
    r = run_kcli(bootstrap, *_command(case), timeout="20s")
    elapsed = time.monotonic() - t0
    assert r.code == 1 and r.out == "", (case, r.out)
    assert r.err == f"Error: Cannot connect to the cluster at {bootstrap}: {bootstrap}: Connection refused\n", case
    assert elapsed < 10, (case, elapsed)        # far below --timeout 20s (bench/refused_latency.py measures it)


@pytest.mark.parametrize("case", ["list groups", "describe groups g", "list-offsets -t t", "list topics"])
def test_unknown_host_fails_long_before_the_timeout(case):
    bootstrap = "no-such-host.invalid:9092"
    t0 = time.monotonic()
    r = run_kcli(bootstrap, *_command(case), timeout="20s")
    elapsed = time.monotonic() - t0
    assert r.code == 1 and r.err.startswith(f"Error: Cannot connect to the cluster at {bootstrap}: {bootstrap}: ")
    assert r.err.count("\n") == 1, r.err                  # the resolver's own words follow
    assert elapsed < 10, (case, elapsed)        # far below --timeout 20s (bench/refused_latency.py measures it)


@pytest.mark.parametrize("case", ["list groups", "describe groups g", "list-offsets -t t", "list topics"])
def test_silent_broker_runs_to_the_timeout_and_says_so(case):
    with socket.socket() as s:           # accepts connections (the backlog), never answers
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        bootstrap = f"127.0.0.1:{s.getsockname()[1]}"
        t0 = time.monotonic()
        r = run_kcli(bootstrap, *_command(case), timeout="1500ms")
        elapsed = time.monotonic() - t0
    assert r.code == 1 and r.out == "", (case, r.out)     # never an empty table as if no groups
    assert bootstrap in r.err and r.err.count("\n") == 1, r.err
    assert 1.4 < elapsed < 8, (case, elapsed)      # the 1.5 s deadline, a margin of seconds

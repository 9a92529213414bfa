"""The drop-ins' whole command lines, fuzzed end to end (tests/cli/test_fuzz_cli.py does the
native commands' values): each line is built from the tool's own jopt grammar
(``kcli.cli.dropin.<tool>.OPTIONS``) — its option names as ``--name``, ``-name`` and
``--name=value``, repeated or missing their value — and values of the kinds that break parsers
(numbers beyond int64, NUL, empty, blank, other Unicode, times, durations, partition specs). The
bootstrap server, when there is one, is 127.0.0.1:1, which refuses every connection at once.

No parser is an oracle for a whole command line; what must hold for every line: no traceback;
exit 0, 1, 2 or 3; exit 2 (bad usage or input) is one line (beside the tool's notices, as the
Java tool prints them) and kcli opened no connection (librdkafka's client or kcli's own) for it;
exit 1 is the tool's help (the Java tools exit 1 after it; kafka-transactions' on stdout) or an operation that tried the
cluster, never a bad input reported as a failure. No time is bounded (a loaded machine stretches any
clock); the parsers' linear work is counted in tests/inputs/test_fuzz_parsers.py.

KCLI_FUZZ_EXAMPLES sets the examples as for the other fuzz tests: a fifth of it per tool here
(600 lines per tool by default; 1,000 took about 15 s per tool on 2 cores, 4,000 took 57 s). It found:
a --time or --timeout of 4,301 digits (Python's int() limit, exit 1), a NUL in a file name
(exit 1), a bootstrap server that is not host:port (exit 1 with no request), and values with a
newline quoted raw (two lines)."""

from __future__ import annotations

import importlib
import io
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcli.cli.dropin import cluster, groups, topics
from kcli.cli.dropin.jopt import FLAG
from kcli.cli.dropin.run import TOOLS
from kcli.ops.topics import COLLISION_WARNING
from tests.support.fuzz import EXAMPLES, FUZZ, Stats, text_with

LINES = settings(FUZZ, max_examples=max(1, EXAMPLES // 5))
STATS = Stats()
UNREACHABLE = "127.0.0.1:1"
NOTICES = {groups.NO_EXECUTE_WARNING, topics.DELETE_CONFIG_NOTICE, topics.BOTH_IDS_NOTICE,
           COLLISION_WARNING, cluster.DEPRECATED_CONFIG}   # the Java tools' own notices, before an error
HELP_HEADER = "Option"        # the first word of the jopt help table's first row

VALUE = text_with(["0", "", " ", "\0", "1", "-1", "-3", "+1", "9" * 20, "9223372036854775808",
                   "-9223372036854775809", "2147483648", "é", "\u2028", "\ufeff", "t", "g", "kept", ".", "..",
                   ",", ":", "=", "a=b", "[a,b]", "t:0", "t:0-2", "1:2,2:1", "2025-01-15T10:30:00.000",
                   "2025-01-" + "9" * 30 + "T00:00:00.000", "PT1S", "P" + "9" * 30 + "D", "earliest",
                   "latest", "max-timestamp", "stable,empty", "classic", "topics", "brokers", "x.csv",
                   "--", "-", "--help", "retention.ms=1"])


V = None                      # a value's place in a skeleton
# Lines each tool reads, a value in each V: the fuzzed words come on top of them, so the values
# reach the checks after the grammar's (the conversions, the operations' own rules).
SKELETONS = {
    "kafka-topics": [["--list"], ["--describe", "--topic", V], ["--delete", "--topic", V],
                     ["--create", "--topic", V, "--partitions", V, "--replication-factor", V],
                     ["--create", "--topic", V, "--replica-assignment", V], ["--create", "--topic", V, "--config", V],
                     ["--alter", "--topic", V, "--partitions", V]],
    "kafka-consumer-groups": [["--list", "--state", V], ["--list", "--type", V], ["--list", "--timeout", V],
                              ["--describe", "--group", V], ["--delete", "--group", V], ["--validate-regex", V],
                              ["--delete-offsets", "--group", V, "--topic", V],
                              ["--reset-offsets", "--group", V, "--topic", V, "--to-offset", V, "--dry-run"],
                              ["--reset-offsets", "--group", V, "--topic", V, "--shift-by", V, "--execute"],
                              ["--reset-offsets", "--group", V, "--all-topics", "--to-datetime", V, "--dry-run"],
                              ["--reset-offsets", "--all-groups", "--topic", V, "--by-duration", V, "--dry-run"],
                              ["--reset-offsets", "--group", V, "--from-file", V, "--dry-run"]],
    "kafka-share-groups": [["--list", "--state", V], ["--describe", "--group", V], ["--delete", "--group", V],
                           ["--describe", "--group", V, "--members", "--verbose"],
                           ["--delete-offsets", "--group", V, "--topic", V],
                           ["--reset-offsets", "--group", V, "--topic", V, "--to-offset", V, "--dry-run"],
                           ["--reset-offsets", "--group", V, "--all-topics", "--to-datetime", V, "--execute"],
                           ["--reset-offsets", "--group", V, "--from-file", V, "--dry-run"]],
    "kafka-streams-groups": [["--list", "--state", V], ["--describe", "--group", V], ["--delete", "--group", V],
                             ["--describe", "--group", V, "--members", "--verbose"],
                             ["--delete-offsets", "--group", V, "--input-topic", V],
                             ["--reset-offsets", "--group", V, "--input-topic", V, "--to-offset", V, "--dry-run"],
                             ["--reset-offsets", "--group", V, "--all-input-topics", "--shift-by", V, "--execute"],
                             ["--reset-offsets", "--all-groups", "--input-topic", V, "--to-datetime", V, "--dry-run"],
                             ["--reset-offsets", "--group", V, "--from-file", V, "--dry-run"]],
    "kafka-transactions": [["list", "--duration-filter", V], ["list", "--transactional-id-pattern", V],
                           ["describe", "--transactional-id", V],
                           ["describe-producers", "--topic", V, "--partition", V],
                           ["find-hanging", "--topic", V, "--max-transaction-timeout", V],
                           ["abort", "--topic", V, "--partition", V, "--start-offset", V]],
    "kafka-get-offsets": [["--topic", V, "--time", V], ["--topic-partitions", V], ["--topic", V, "--partitions", V]],
    "kafka-acls": [["--list", "--topic", V, "--resource-pattern-type", V], ["--list", "--principal", V],
                   ["--add", "--topic", V, "--allow-principal", V, "--operation", V],
                   ["--add", "--group", V, "--deny-principal", V, "--deny-host", V],
                   ["--add", "--producer", "--topic", V, "--transactional-id", V, "--allow-principal", V],
                   ["--remove", "--force", "--cluster", "--allow-principal", V, "--operation", V]],
    "kafka-configs": [["--describe", "--entity-type", V, "--entity-name", V], ["--describe", "--broker-defaults"],
                      ["--alter", "--topic", V, "--add-config", V], ["--alter", "--broker", V, "--delete-config", V],
                      ["--alter", "--topic", V, "--add-config-file", V]],
    "kafka-delete-records": [["--offset-json-file", V], ["--offset-json-file", V, "--command-config", V]],
    "kafka-log-dirs": [["--describe", "--broker-list", V], ["--describe", "--topic-list", V, "--command-config", V]],
    "kafka-cluster": [["cluster-id"], ["list-endpoints", "--include-fenced-brokers"], ["unregister", "--id", V],
                      ["unregister-controller", "-i", V], ["api-versions", "--command-config", V],
                      ["cluster-id", "--config", V]],
    "kafka-features": [["describe", "--node-id", V], ["upgrade", "--feature", V, "--dry-run"],
                       ["downgrade", "--release-version", V, "--unsafe"], ["disable", "--feature", V],
                       ["version-mapping", "--release-version", V], ["feature-dependencies", "--feature", V]],
    "kafka-metadata-quorum": [["describe", "--status"], ["--command-config", V, "describe", "--replication"],
                              ["remove-controller", "--controller-id", V, "--controller-directory-id", V]],
    "kafka-reassign-partitions": [["--generate", "--topics-to-move-json-file", V, "--broker-list", V],
                                  ["--execute", "--reassignment-json-file", V, "--throttle", V],
                                  ["--verify", "--reassignment-json-file", V, "--preserve-throttles"],
                                  ["--cancel", "--reassignment-json-file", V, "--timeout", V], ["--list", V]],
    "kafka-leader-election": [["--election-type", V, "--all-topic-partitions"],
                              ["--election-type", V, "--topic", V, "--partition", V],
                              ["--election-type", V, "--path-to-json-file", V]],
}


def _skeleton(tool: str):
    def fill(drawn):
        line, values = drawn
        values = iter(values)
        return [next(values) if word is V else word for word in line]
    return st.sampled_from(SKELETONS[tool]).flatmap(
        lambda line: st.tuples(st.just(line), st.lists(VALUE, min_size=line.count(V), max_size=line.count(V))))\
        .map(fill)


def _word(names: list[str], takes_value: set[str]):
    """One word of a command line: an option (as jopt reads it, an argument attached or not) or a value."""
    name = st.sampled_from(names)
    return st.one_of(
        name.map(lambda n: f"--{n}"),
        name.map(lambda n: f"-{n}"),
        st.tuples(st.sampled_from(sorted(takes_value)), VALUE).map(lambda nv: f"--{nv[0]}={nv[1]}"),
        VALUE,
    )


def _command_line(tool: str):
    options = importlib.import_module(f"kcli.cli.dropin.{TOOLS[tool]}").OPTIONS
    names = [o.name for o in options if o.name not in ("bootstrap-server", "bootstrap-controller")]
    takes_value = {o.name for o in options if o.arg != FLAG}
    pairs = st.tuples(st.sampled_from(sorted(takes_value - {"bootstrap-server"})), VALUE).map(
        lambda nv: [f"--{nv[0]}", nv[1]])                           # an option and its value, in two words
    words = st.lists(st.one_of(_word(names, takes_value), pairs.map(tuple)), max_size=8)
    words = st.one_of(words, st.tuples(_skeleton(tool), st.lists(_word(names, takes_value), max_size=3)).map(
        lambda sw: [tuple(sw[0]), *sw[1]]))                  # a skeleton, a few words after it
    server = st.sampled_from([[], ["--bootstrap-server", UNREACHABLE], ["--bootstrap-server"],
                              ["--bootstrap-server", UNREACHABLE, "--bootstrap-server", UNREACHABLE]])
    return st.tuples(words, server, st.integers(0, 8)).map(
        lambda w: _flatten(w[0][:w[2]]) + w[1] + _flatten(w[0][w[2]:]))


def _flatten(words) -> list[str]:
    return [part for w in words for part in (w if isinstance(w, tuple) else (w,))]


@pytest.fixture(scope="module")
def connections():
    """Every connection kcli opens, counted: librdkafka's client (created on first use) and
    kcli's own (kcli.admin.wire.connection)."""
    from kcli.admin import client
    from kcli.admin.wire import connection

    opened = [0]
    admin_property, connection_init = client.KafkaAdmin._admin, connection.Connection.__init__

    def counted_admin(self):
        if self._client is None:
            opened[0] += 1
        return admin_property.fget(self)

    def counted_connection(self, *args, **kwargs):
        opened[0] += 1
        connection_init(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(client.KafkaAdmin, "_admin", property(counted_admin))
        patch.setattr(connection.Connection, "__init__", counted_connection)
        yield opened
    STATS.write()


@pytest.fixture(scope="module")
def isolated(tmp_path_factory):
    """Nothing of the user's is read or written: the state and config homes are a new directory."""
    home = tmp_path_factory.mktemp("fuzz-dropin")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(home / "state"))
        patch.setenv("XDG_CONFIG_HOME", str(home / "config"))
        patch.chdir(home)                  # a relative file name a line gives lands here
        yield home


def _run(argv: list[str]):
    from kcli.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out, err)
    return code, out.getvalue(), err.getvalue()


@LINES
@given(data=st.data())
@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_drop_in_command_line_ends_in_one_line_or_a_request(connections, isolated, tool, data):
    args = data.draw(_command_line(tool), label="args")
    before = connections[0]
    start = time.thread_time()    # for the report only: no test bounds a time
    code, out, err = _run([tool, *args])
    elapsed = time.thread_time() - start
    STATS.record(f"drop-in {tool}", code, elapsed)
    opened = connections[0] - before
    said = [line for line in (out + err).split("\n") if line.strip() and line not in NOTICES]
    assert "Traceback" not in out + err and code in (0, 1, 2, 3), (args, code, out, err)
    if code == 2:
        assert len(said) == 1, (args, out, err)
        assert opened == 0, (args, out, err)
    if code == 1:
        helped = any(line.startswith(HELP_HEADER) for line in err.splitlines()) or out.startswith("usage: ")
        assert helped or opened, ("a failure without trying the cluster", args, out, err)

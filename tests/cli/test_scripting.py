"""kcli in scripts: every command's --output json document carries a versioned schema name; errors
in JSON mode are JSON on stderr; no command waits on a non-terminal stdin; --verbose never prints
a secret, even from a real client failure."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer

from kcli.broker import EmbeddedCluster
from tests.support.run import run_kcli

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = re.compile(r"^kcli\.[a-z-]+/v\d+$")
# Commands whose JSON is checked elsewhere or which are not one-document commands.
NOT_HERE = {
    "demo": "a narrated story for humans (tests/cli/test_demo.py)",
    "broker start": "long-running; checked by test_broker_start_announces_itself_in_json",
    "audit timestamps": "needs Spark (tests/pipeline)",
    **{tool: "a drop-in: the Java tool's own output, no -o (tests/parity, tests/cli/test_dropin.py)"
       for tool in ("kafka-topics", "kafka-consumer-groups", "kafka-get-offsets", "kafka-configs",
                    "kafka-streams-groups", "kafka-acls", "kafka-transactions",
                    "kafka-delete-records", "kafka-leader-election", "kafka-reassign-partitions",
                    "kafka-share-groups", "kafka-log-dirs", "kafka-cluster", "kafka-metadata-quorum",
                    "kafka-features")},
    "completion": "prints a shell script, not a document (tests/cli/test_installed.py)",
    **{words: "ACLs: this test's embedded broker has no users (SECURITY_DISABLED); the documents on real "
              "Kafka (tests/apache/test_kcli_acls.py)" for words in ("list acls", "create acl", "delete acls")},
    **{name: "transactions: their documents on real Kafka (tests/apache/test_kcli_transactions.py)"
       for name in ("list transactions", "describe transactions", "check transactions", "abort transaction")},
    "lag serve": "long-running; serves Prometheus' formats, not a document (tests/cli/test_lag_serve.py)",
}


@pytest.fixture(scope="module")
def node():
    with EmbeddedCluster(nodes=1) as c:
        c.create_topic("events", partitions=2)
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": c.bootstrap_servers, "group.id": "scripted",
                             "enable.auto.commit": False})
        consumer.commit(offsets=[TopicPartition("events", 0, 0)], asynchronous=False)
        consumer.close()
        yield c


def leaf_commands() -> set[str]:
    from kcli.cli.tree import build

    app = build()

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if not subs:
            yield " ".join(path)
        for name, sub in (subs or {}).items():
            if not getattr(sub, "hidden", False):
                yield from walk(sub, [*path, name])

    return set(walk(typer.main.get_command(app), []))


JSON_RUNS = [  # (command, args...) in an order that works on one cluster
    ("create topic", "create", "topic", "scripted-t", "--partitions", "1"),
    ("alter topics", "alter", "topics", "scripted-t", "--partitions", "2"),
    ("list topics", "list", "topics"),
    ("describe topics", "describe", "topics", "events"),
    ("describe configs", "describe", "configs", "--topic", "events"),
    ("describe cluster", "describe", "cluster"),
    ("describe log-dirs", "describe", "log-dirs", "--topic", "events"),
    ("describe quotas", "describe", "quotas"),
    ("alter quotas", "alter", "quotas", "--user", "scripted-u", "--set", "producer_byte_rate=1000"),
    ("elect leaders", "elect", "leaders", "--preferred", "--topic", "events"),
    ("reassign partitions", "reassign", "partitions", "--list"),
    ("alter configs", "alter", "configs", "--topic", "events", "--set", "retention.ms=1000"),
    ("list-offsets", "list-offsets", "-t", "events"),
    ("list groups", "list", "groups"),
    ("describe groups", "describe", "groups", "scripted"),
    ("reset-offsets", "reset-offsets", "-g", "scripted", "-t", "events", "--to-earliest"),
    ("check expansions", "check", "expansions"),
    ("check broker", "check", "broker"),
    ("lag show", "lag", "show", "scripted"),
    ("delete-records", "delete-records", "-t", "events:0=0"),
    ("delete-offsets", "delete-offsets", "-g", "scripted", "-t", "events"),
    ("delete groups", "delete", "groups", "scripted"),
    ("delete topics", "delete", "topics", "scripted-t"),
]


def test_every_command_is_covered_by_the_json_check():
    assert leaf_commands() == {name for name, *_ in JSON_RUNS} | set(NOT_HERE)


def test_every_command_prints_one_json_document_with_a_schema(node):
    for name, *args in JSON_RUNS:
        r = run_kcli(node.bootstrap_servers, *args, "-o", "json")
        assert r.code in (0, 3, 4), (name, r.err)
        doc = json.loads(r.out)
        assert SCHEMA.match(doc["schema"]), (name, doc)


@pytest.mark.parametrize("args", [
    ("create", "topic", "x", "--partitions", "0"),
    ("describe", "configs"),
    ("list-offsets", "--time", "not-a-time"),
    ("reset-offsets", "-g", "g", "-t", "t"),
    ("describe", "topics", "--no-such-option"),
    ("list", "topics", "--profile", "no-such-profile"),
])
def test_usage_errors_are_json_on_stderr(args):
    r = run_kcli("127.0.0.1:1", *args, "-o", "json")
    assert r.code == 2 and r.out == ""
    doc = json.loads(r.err)
    assert doc["schema"] == "kcli.error/v2" and doc["exitCode"] == 2 and doc["error"]


def _subprocess(args, stdin, timeout=25, cwd=ROOT, **env):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("KCLI_")}
    full_env.update(XDG_CONFIG_HOME="/nonexistent", **env)
    return subprocess.run([sys.executable, "-m", "kcli", *args], stdin=stdin, capture_output=True,
                          text=True, timeout=timeout, env=full_env, cwd=cwd)


def test_no_command_prompts_without_a_terminal(node, tmp_path):
    b = node.bootstrap_servers
    node.create_topic("doomed", partitions=1)
    runs = [
        ["delete", "topic", "doomed", "-b", b],                                  # destructive: no "are you sure"
        ["reset-offsets", "-g", "nobody", "-t", "events", "--to-latest", "--execute", "-b", b],
        ["alter", "topic", "events", "--partitions", "3", "-b", b],
        ["list", "topics", "-b", "127.0.0.1:1", "--timeout", "1s"],
        ["describe", "topics"],                                                  # no -b: default broker
    ]
    read, write = os.pipe()
    os.close(write)                                                              # a closed stdin (EOF)
    try:
        for i, args in enumerate(runs):
            t0 = time.monotonic()
            r = _subprocess([*args, "--timeout", "5s"] if "--timeout" not in args else args,
                            stdin=subprocess.DEVNULL if i % 2 else read, cwd=tmp_path)  # rollback file
            assert time.monotonic() - t0 < 20, args
            assert "?" not in r.stdout.splitlines()[-1:] and "[y/N]" not in r.stdout + r.stderr, args
    finally:
        os.close(read)
    assert "doomed" not in _subprocess(["list", "topics", "-b", b], stdin=subprocess.DEVNULL).stdout


def test_no_parameter_or_code_path_can_prompt():
    from kcli.cli.tree import build

    app = build()

    def params(cmd):
        yield from cmd.params
        for sub in (getattr(cmd, "commands", None) or {}).values():
            yield from params(sub)

    assert not [p.name for p in params(typer.main.get_command(app)) if getattr(p, "prompt", None)]
    pattern = re.compile(r"\b(typer|click)\.(prompt|confirm)\b|(?<![\w.])input\(")
    offenders = [str(f.relative_to(ROOT)) for f in (ROOT / "kcli").rglob("*.py")
                 if pattern.search(f.read_text(encoding="utf-8"))]
    assert offenders == []


def test_broker_start_announces_itself_in_json():
    proc = subprocess.Popen([sys.executable, "-m", "kcli", "broker", "start", "--listen", "127.0.0.1:0",
                             "-o", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    try:
        doc = json.loads(proc.stdout.readline())
        assert doc["schema"] == "kcli.broker/v1" and doc["bootstrap"].startswith("127.0.0.1:")
    finally:
        proc.terminate()
        assert proc.wait(timeout=15) == 0


def test_verbose_never_prints_a_secret_from_a_real_client_failure(node, tmp_path):
    cfg = tmp_path / "sasl.properties"
    cfg.write_text("security.protocol=SASL_PLAINTEXT\nsasl.jaas.config="
                   "org.apache.kafka.common.security.scram.ScramLoginModule required "
                   'username="ops" password="hunter2-very-secret";\nsasl.mechanism=SCRAM-SHA-256\n')
    for fmt in ("table", "json"):
        r = _subprocess(["describe", "topics", "--command-config", str(cfg), "--verbose", "-o", fmt,
                         "-b", node.bootstrap_servers, "--timeout", "2s"], stdin=subprocess.DEVNULL)
        assert r.returncode == 1, r.stderr
        assert "hunter2" not in r.stdout + r.stderr


@pytest.mark.parametrize("props, command", [
    ("no.such.property=1\n", ["list", "topics"]),                                   # librdkafka
    ("security.protocol=SSL\nssl.ca.location=/nonexistent/ca.pem\n", ["list", "topics"]),
    ("security.protocol=SSL\nssl.ca.location=/nonexistent/ca.pem\n", ["describe", "topics"]),  # wire
])
def test_unusable_client_properties_are_usage_errors(node, tmp_path, props, command):
    cfg = tmp_path / "client.properties"
    cfg.write_text(props)
    before = node.request_counts()
    r = _subprocess([*command, "--command-config", str(cfg), "-b", node.bootstrap_servers],
                    stdin=subprocess.DEVNULL)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("Error: Invalid client configuration: ") and r.stderr.count("\n") == 1
    assert node.request_counts() == before            # nothing was sent


@pytest.fixture(scope="module")
def wide():
    with EmbeddedCluster(nodes=1) as c:
        c.create_topic("wide", partitions=12000)
        yield c


EARLY_STOPS = [("-b", "B", *args, "-o", fmt) for fmt in ("table", "plain", "csv", "json")
               for args in (("describe", "topics", "wide"), ("reset-offsets", "-g", "new", "-t", "wide",
                                                             "--to-earliest"))]
EARLY_STOPS += [("kafka-topics", "--bootstrap-server", "B", "--describe", "--topic", "wide"),
                ("kafka-get-offsets", "--bootstrap-server", "B", "--topic", "wide")]


@pytest.mark.parametrize("args", EARLY_STOPS)
def test_a_reader_that_stops_early_is_no_failure(wide, args):
    """``kcli ... | head``: the output (far more than a pipe holds) meets a closed pipe; kcli exits
    0 and says no more than when the reader takes everything (as the Java tools do)."""
    argv = [wide.bootstrap_servers if a == "B" else a for a in args]
    proc = subprocess.Popen([sys.executable, "-m", "kcli", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        first = proc.stdout.readline()
        proc.stdout.close()                  # the reader is gone; kcli has more to write
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=60)
    finally:
        proc.kill()
    whole = subprocess.run([sys.executable, "-m", "kcli", *argv], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
    assert whole.returncode == 0 and len(whole.stdout) > 2 * 65536          # twice what a pipe holds
    assert first and code == 0 and whole.stderr.startswith(err), (code, err)

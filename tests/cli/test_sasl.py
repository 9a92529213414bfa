"""kcli with ``--command-config`` against a SASL_PLAINTEXT (PLAIN) embedded broker: the
sasl.username/sasl.password properties and the Java sasl.jaas.config form, through every client
kcli uses (kafka-python's protocol client for describe topics, librdkafka for the rest); a wrong
password is one line on stderr, exit 1, never the password."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.run import run_kcli, run_kcli_process
from tests.support.sasl import BASE_TS, PASSWORD, properties

WRONG = "hunter2-wrong"



@pytest.fixture(params=["properties", "jaas"])
def config_file(request, tmp_path):
    def write(password: str) -> str:
        path = tmp_path / f"{request.param}.properties"
        path.write_text(properties(request.param, password))
        return str(path)
    write.form = request.param
    return write


def test_commands_authenticate_with_command_config(sasl_cluster, config_file):
    b, cfg, topic = sasl_cluster.bootstrap_servers, config_file(PASSWORD), f"created-{config_file.form}"

    def kcli(*args: str, note: str = ""):
        r = run_kcli(b, "--command-config", cfg, *args)
        assert (r.code, r.err) == (0, note), r.err
        return r.out

    assert kcli("create", "topic", topic, "--partitions", "3") == f"Created topic {topic}.\n"
    stamps = sasl_cluster.call(lambda: [p.creation_time_ms for p in sasl_cluster.cluster.topics[topic].partitions])

    doc = json.loads(kcli("describe", "topics", topic, "-o", "json"))      # kafka-python client
    (described,) = doc["topics"]
    assert [p["partition"] for p in described["partitions"]] == [0, 1, 2]
    assert [p["creationTimeMs"] for p in described["partitions"]] == stamps

    doc = json.loads(kcli("list-offsets", "-t", "data", "--max-timestamp", "-o", "json"))
    p0, p1 = doc["offsets"]
    assert (p0["partition"], p0["offset"], p0["timestampMs"]) == (0, 1, BASE_TS + 5000)
    assert (p1["partition"], p1["offset"]) == (1, None)

    lines = kcli("describe", "groups", "sasl-group", "-o", "plain",
                 note="\nConsumer group 'sasl-group' has no active members.\n").splitlines()
    assert [line.split()[:6] for line in lines[2:]] == [["sasl-group", "data", "0", "3", "3", "0"]]

    counts = sasl_cluster.request_counts()[1]
    assert counts["SaslAuthenticate"] >= 4 and counts["DescribeTopicPartitions"] >= 1


COMMANDS = {
    "describe-topics": ("describe", "topics", "data"),
    "list-offsets": ("list-offsets", "-t", "data", "--max-timestamp"),
    "create-topic": ("create", "topic", "never-created"),
    "describe-groups": ("describe", "groups", "sasl-group"),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_wrong_password_is_one_line_and_exit_1(sasl_cluster, config_file, command):
    """Every client path reports the broker's reason at once: the 30 s --timeout is not waited."""
    cfg = config_file(WRONG)
    started = time.monotonic()
    r = run_kcli_process(sasl_cluster.bootstrap_servers, "--command-config", cfg, "--timeout", "30s",
                         *COMMANDS[command], timeout=60)
    assert r.code == 1, (r.out, r.err)
    assert r.out == ""
    assert r.err.startswith("Error: ") and r.err.endswith("\n") and r.err.count("\n") == 1, r.err
    assert "Traceback" not in r.err
    assert f"Cannot connect to the cluster at {sasl_cluster.bootstrap_servers}: " in r.err
    assert "Authentication failed: Invalid username or password" in r.err
    assert WRONG not in r.err and "PlainLoginModule" not in r.err
    assert time.monotonic() - started < 15
    assert "never-created" not in sasl_cluster.call(lambda: list(sasl_cluster.cluster.topics))


@pytest.mark.spark
def test_audit_reads_with_the_command_config_through_both_sources(sasl_cluster, tmp_path):
    """``audit timestamps --source jvm`` passes the Java form (sasl.jaas.config) to Spark's Kafka
    connector as Java client properties: the same JSON as kcli's own source."""
    cfg = tmp_path / "jaas.properties"
    cfg.write_text(properties("jaas", PASSWORD))
    docs = {}
    for source in ("jvm", "python"):
        r = run_kcli_process(sasl_cluster.bootstrap_servers, "--command-config", str(cfg), "audit", "timestamps",
                             "-t", "data", "--reference", str(BASE_TS + 10_000), "--master", "local[1]",
                             "--source", source, "-o", "json", timeout=300)
        assert (r.code, r.err) == (0, ""), r.err     # no librdkafka log line on the terminal
        docs[source] = json.loads(r.out)
        assert docs[source].pop("source") == source
    assert docs["jvm"] == docs["python"]
    assert docs["jvm"]["total"]["records"] == 3 and docs["jvm"]["total"]["outOfOrder"] == 1


def test_audit_jvm_source_refuses_what_the_connector_cannot_take_before_a_jvm_starts(sasl_cluster, tmp_path):
    """A librdkafka-only setting has no Java counterpart: --source jvm is one line, exit 2, before
    Spark starts; auto takes kcli's source, which reads with it."""
    cfg = tmp_path / "librdkafka.properties"
    cfg.write_text(properties("properties", PASSWORD) + "enable.ssl.certificate.verification=false\n")
    r = run_kcli(sasl_cluster.bootstrap_servers, "--command-config", str(cfg), "audit", "timestamps", "-t", "data",
                 "--master", "local[1]", "--source", "jvm")
    assert (r.code, r.out) == (2, ""), r
    assert r.err == ("Error: --source jvm (Spark's Kafka connector) cannot take these client properties: "
                     "enable.ssl.certificate.verification; --source python reads with them\n")

"""``kcli broker start`` loads what serving needs and nothing of kafka-python's client (for
the embedded broker's start to first ack). kafka-python's package ``__init__`` imports its whole
client (KafkaAdminClient, KafkaConsumer, the asyncio network layer); kcli.protocol registers its
packages bare, which only holds if it runs before any broker module reaches into ``kafka``."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support.clients import create_topic, produce

CLIENT = re.compile(r"\| +(kafka\.(?:admin|net|consumer|producer|coordinator|client_async|conn)"
                    r"|kafka\.protocol\.old\.\w+)(?:\.\S*)?$")


def test_broker_start_serves_a_first_ack_without_kafka_pythons_client():
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "kcli", "broker", "start",
                             "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        bootstrap = proc.stdout.readline().removeprefix("bootstrap: ").strip()
        create_topic(bootstrap, "first-ack")
        produce(bootstrap, "first-ack", [(0, b"x")], acks="all")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    imported = [line.rsplit("|", 1)[1].strip() for line in err.splitlines()
                if line.startswith("import time:")]
    assert "kcli.broker.embedded" in imported and "kafka.record.default_records" in imported
    assert [line for line in err.splitlines() if CLIENT.search(line)] == []


@pytest.mark.parametrize("level, traced", [("info", True), (None, False)])
def test_log_level_info_leaves_a_trace_of_a_connection_closed_for_an_unserved_api(level, traced):
    """A request for an API the broker does not serve (here key 38, CreateDelegationToken, which
    the broker's codec does not name, and an unknown key) closes the connection, as Kafka's;
    with --log-level info stderr names why, at the default level (warning) nothing is printed."""
    import socket
    import struct

    args = ["--log-level", level] if level else []
    proc = subprocess.Popen([sys.executable, "-m", "kcli", "broker", "start", "--listen", "127.0.0.1:0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        host, port = proc.stdout.readline().removeprefix("bootstrap: ").strip().split(":")
        for key in (38, 999):
            with socket.create_connection((host, int(port)), timeout=10) as s:
                body = struct.pack(">hhih", key, 0, 7, 4) + b"test"
                s.sendall(struct.pack(">i", len(body)) + body)
                assert s.recv(100) == b""                           # closed, unanswered
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    lines = [line for line in err.splitlines() if "is not served" in line]
    if traced:
        assert len(lines) == 2, err
        assert "an unknown API (API key 38) is not served; closing the connection" in lines[0], err
        assert "an unknown API (API key 999) is not served" in lines[1], err
    else:
        assert lines == [] and "Traceback" not in err, err


def test_an_unknown_log_level_is_refused_before_serving():
    from tests.support.run import run_kcli

    r = run_kcli(None, "broker", "start", "--listen", "127.0.0.1:0", "--log-level", "loud")
    assert (r.code, r.out) == (2, "") and r.err == (
        "Error: --log-level must be one of error, warning, info, debug, not 'loud'\n"), r.err

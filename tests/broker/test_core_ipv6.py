"""An IPv6 listener: ``kcli broker start --listen [::1]:0`` prints ``bootstrap: [::1]:P`` (an
IPv6 host:port needs brackets, or clients split the address at the wrong colon), and clients
using what it printed produce and consume (metadata carries host and port apart, ``::1``)."""

from __future__ import annotations

import json
import re
import select
import signal
import socket
import subprocess
import sys
import warnings

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from tests.support.clients import produce
from tests.support.waits import wait_until

from kcli.broker import EmbeddedCluster


def _ipv6_loopback() -> str | None:
    """Why this machine cannot serve on ::1, or None when it can."""
    if not socket.has_ipv6:
        return "Python built without IPv6 (socket.has_ipv6 is False)"
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError as e:
        return f"cannot bind ::1 ({e})"
    return None


NO_IPV6 = _ipv6_loopback()
if NO_IPV6 is not None:     # in the warnings summary too: pytest lists skip reasons only on -rs
    warnings.warn(pytest.PytestWarning(f"IPv6 broker tests skipped: {NO_IPV6}"), stacklevel=1)
pytestmark = pytest.mark.skipif(NO_IPV6 is not None,
                                reason=f"no IPv6 loopback on this machine: {NO_IPV6}")

BRACKETED = re.compile(r"^\[::1\]:(\d+)$")


def start(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "kcli", *args, "broker", "start",
                             "--listen", "[::1]:0", "--nodes", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not select.select([proc.stdout], [], [], 20)[0]:
        proc.kill()
        proc.wait(10)
        raise AssertionError("broker not ready within 20s")
    return proc, proc.stdout.readline()


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def produce_and_consume(bootstrap: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("six", 2, 2)])["six"].result(15)
    sent = [f"v{i}".encode() for i in range(10)]
    produce(bootstrap, "six", [(i % 2, value) for i, value in enumerate(sent)])
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "six", "enable.auto.commit": False})
    c.assign([TopicPartition("six", 0, 0), TopicPartition("six", 1, 0)])
    got = []

    def poll():
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            got.append(m.value())
        return len(got) == len(sent)
    try:
        wait_until(poll, 15)
    finally:
        c.close()
    assert sorted(got) == sorted(sent)


def test_broker_start_prints_bracketed_ipv6_bootstrap_that_clients_use():
    proc, line = start()
    try:
        assert line.startswith("bootstrap: "), line
        addresses = line.split(": ", 1)[1].strip().split(",")
        assert len(addresses) == 2 and all(BRACKETED.match(a) for a in addresses), line
        produce_and_consume(line.split(": ", 1)[1].strip())
    finally:
        stop(proc)


def test_broker_start_json_bootstrap_is_bracketed():
    proc, line = start("-o", "json")
    try:
        addresses = json.loads(line)["bootstrap"].split(",")
        assert len(addresses) == 2 and all(BRACKETED.match(a) for a in addresses), line
    finally:
        stop(proc)


def test_embedded_cluster_on_ipv6():
    with EmbeddedCluster(nodes=2, host="::1") as ec:
        ports = [ec.cluster.node_address(n)[1] for n in (1, 2)]
        assert ec.bootstrap_servers == ",".join(f"[::1]:{p}" for p in ports)
        assert ec.cluster.node_address(1)[0] == "::1"       # metadata: the host alone
        produce_and_consume(ec.bootstrap_servers)

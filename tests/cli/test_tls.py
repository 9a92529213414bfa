"""kcli with ``--command-config`` against TLS listeners of the embedded broker (SSL, and SASL_SSL
with PLAIN), through both clients kcli has: its own connection (kcli/admin/wire/connection.py, the stdlib ssl
module) for describe topics and list-offsets, librdkafka for create topic. A CA that did not sign
the broker's certificate is one line on stderr and exit 1 at once, never the --timeout; so is a
certificate for another name, unless ssl.endpoint.identification.algorithm=none."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager

import pytest
from confluent_kafka import Producer

from kcli.broker import EmbeddedCluster
from tests.support.tls_certs import make_certs
from tests.support.run import run_kcli, run_kcli_process

PASSWORD = "alice-secret"
BASE_TS = 1_700_000_000_000
VERIFY_FAILED = "certificate verify failed"
NO_NAME_CHECK = {"ssl.endpoint.identification.algorithm": "none"}
COMMANDS = {      # kcli's client path for each
    "describe-topics": ("describe", "topics", "data"),                          # kcli.admin.wire
    "list-offsets": ("list-offsets", "-t", "data", "--max-timestamp"),         # kcli.admin.wire
    "create-topic": ("create", "topic", "never-created"),                       # librdkafka
}


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


def client_properties(protocol: str, ca: str, **extra: str) -> dict[str, str]:
    props = {"security.protocol": protocol, "ssl.ca.location": ca}
    if protocol == "SASL_SSL":
        props.update({"sasl.mechanism": "PLAIN", "sasl.username": "alice",
                      "sasl.password": PASSWORD})
    return {**props, **extra}


@contextmanager
def serve(tls, protocol: str, ca: str):
    """A one-node cluster on ``tls``; topic "data" (2 partitions, timestamps out of order on 0)
    produced over TLS by librdkafka."""
    sasl_users = {"alice": PASSWORD} if protocol == "SASL_SSL" else None
    with EmbeddedCluster(nodes=1, tls=tls, sasl_users=sasl_users) as ec:
        ec.create_topic("data", partitions=2)
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "linger.ms": 0,
                      **client_properties(protocol, ca, **NO_NAME_CHECK)})
        for ts in (BASE_TS + 1000, BASE_TS + 5000, BASE_TS + 3000):
            p.produce("data", b"v", partition=0, timestamp=ts)
        assert p.flush(10) == 0
        yield ec


@pytest.fixture(scope="module", params=["SSL", "SASL_SSL"])
def secured(request, certs):
    with serve(certs.server, request.param, certs.ca) as ec:
        ec.protocol = request.param
        yield ec


@pytest.fixture(scope="module")
def mismatched(certs):
    """SSL with a certificate its CA signed for kafka.example.invalid only."""
    with serve(certs.mismatched, "SSL", certs.ca) as ec:
        yield ec


@pytest.fixture
def command_config(tmp_path):
    def write(props: dict[str, str]) -> str:
        path = tmp_path / "client.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        return str(path)
    return write


def topics(ec) -> list[str]:
    return ec.call(lambda: sorted(ec.cluster.topics))


def check_max_timestamp(out: str) -> None:
    p0, p1 = json.loads(out)["offsets"]
    assert (p0["partition"], p0["offset"], p0["timestampMs"]) == (0, 1, BASE_TS + 5000)
    assert (p1["partition"], p1["offset"]) == (1, None)


def test_commands_over_tls(secured, certs, command_config):
    b = secured.bootstrap_servers
    cfg = command_config(client_properties(secured.protocol, certs.ca))

    def kcli(*args: str) -> str:
        r = run_kcli(b, "--command-config", cfg, *args)
        assert (r.code, r.err) == (0, ""), r.err
        return r.out

    topic = f"created-{secured.protocol.lower().replace('_', '-')}"
    assert kcli("create", "topic", topic, "--partitions", "3") == f"Created topic {topic}.\n"
    stamps = secured.call(lambda: [p.creation_time_ms
                                   for p in secured.cluster.topics[topic].partitions])
    (described,) = json.loads(kcli("describe", "topics", topic, "-o", "json"))["topics"]
    assert [p["partition"] for p in described["partitions"]] == [0, 1, 2]
    assert [p["creationTimeMs"] for p in described["partitions"]] == stamps
    check_max_timestamp(kcli("list-offsets", "-t", "data", "--max-timestamp", "-o", "json"))
    counts = secured.request_counts()[1]
    assert counts["DescribeTopicPartitions"] >= 1 and counts["CreateTopics"] >= 1
    if secured.protocol == "SASL_SSL":
        assert counts["SaslAuthenticate"] >= 3


def failed_at_once(ec, cfg: str, command: str) -> str:
    """Runs ``command`` with a 30 s --timeout: exit 1 (not a signal: librdkafka's threads once
    crashed in OpenSSL's exit cleanup), one stderr line, well before the timeout, and the broker
    served no request; returns the line."""
    before, started = ec.request_counts(), time.monotonic()
    r = run_kcli_process(ec.bootstrap_servers, "--command-config", cfg, "--timeout", "30s",
                         *COMMANDS[command], timeout=60)
    assert time.monotonic() - started < 15
    assert (r.code, r.out) == (1, ""), (r.out, r.err)
    assert r.err.startswith("Error: ") and r.err.count("\n") == 1 and r.err.endswith("\n"), r.err
    assert "Traceback" not in r.err
    assert ec.request_counts() == before
    assert "never-created" not in topics(ec)
    return r.err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_untrusted_broker_certificate_fails_at_once(secured, certs, command_config, command):
    cfg = command_config(client_properties(secured.protocol, certs.other_ca))
    err = failed_at_once(secured, cfg, command)
    assert f"Cannot connect to the cluster at {secured.bootstrap_servers}: " in err
    assert VERIFY_FAILED in err
    assert PASSWORD not in err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_name_check_and_turning_it_off(mismatched, certs, command_config, command):
    """127.0.0.1 is not in the certificate: refused by default (https), served with none."""
    err = failed_at_once(mismatched, command_config(client_properties("SSL", certs.ca)), command)
    assert VERIFY_FAILED in err
    cfg = command_config(client_properties("SSL", certs.ca, **NO_NAME_CHECK))
    args = ("create", "topic", "unchecked") if command == "create-topic" else (
        *COMMANDS[command], "-o", "json")
    r = run_kcli(mismatched.bootstrap_servers, "--command-config", cfg, *args)
    assert (r.code, r.err) == (0, ""), r.err
    if command == "describe-topics":
        (described,) = json.loads(r.out)["topics"]
        assert [p["partition"] for p in described["partitions"]] == [0, 1]
    elif command == "list-offsets":
        check_max_timestamp(r.out)
    else:
        assert "unchecked" in topics(mismatched)

"""SASL/PLAIN on the embedded broker (EmbeddedCluster(sasl_users=...)): the wire exchange as
Kafka's SaslServerAuthenticator and PlainSaslServer serve it, then real clients (librdkafka through
confluent-kafka, kcat) with right and wrong credentials, and clients without SASL refused."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from tests.support.sasl import AUTH_FAILED, KCAT, USERS, kcat, wait_for_error
from tests.support.broker_wire import req

from kcli.broker import EmbeddedCluster

SASL_ILLEGAL_STATE, UNSUPPORTED_MECHANISM, AUTHENTICATION_FAILED = 34, 33, 58
MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]


@pytest.fixture(scope="module")
def sasl1():
    with EmbeddedCluster(nodes=1, sasl_users=USERS) as ec:
        yield ec


def served(ec) -> dict[str, int]:
    return ec.request_counts()[1]


def topics(ec) -> list[str]:
    return ec.call(lambda: sorted(ec.cluster.topics))


def sasl_conf(ec, password: str, user: str = "alice", **extra) -> dict:
    """librdkafka's SASL/PLAIN settings for ``ec``."""
    return {"bootstrap.servers": ec.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN", "sasl.username": user, "sasl.password": password, **extra}


# -- the wire exchange (kcli.protocol's classes, one connection each) -----------------------

def closed(send) -> bool:
    """Whether the broker closed the connection instead of answering ``send()``."""
    try:
        return send() is None
    except ConnectionError:
        return True


def api_versions(w):
    return w.send(req(18, 3, client_software_name="kcli-tests", client_software_version="1.0"))


def handshake(w, mechanism="PLAIN", version=1):
    return w.send(req(17, version, mechanism=mechanism))


def authenticate(w, token: bytes, version=2):
    return w.send(req(36, version, auth_bytes=token))


def metadata(w):
    return w.send(req(3, 12, topics=None, allow_auto_topic_creation=False,
                      include_topic_authorized_operations=False))


@pytest.mark.parametrize("version", [0, 1, 2])
def test_plain_exchange_then_other_apis(sasl1, wire, version):
    w = wire(sasl1)
    ranges = {k.api_key: (k.min_version, k.max_version) for k in api_versions(w).api_keys}
    assert ranges[17] == (0, 1) and ranges[36] == (0, 2)
    hs = handshake(w)
    assert (hs.error_code, hs.mechanisms) == (0, MECHANISMS)
    auth = authenticate(w, b"\0alice\0alice-secret", version)
    assert (auth.error_code, auth.error_message, auth.auth_bytes) == (0, None, b"")
    if version >= 1:
        assert auth.session_lifetime_ms == 0          # no re-authentication
    assert metadata(w).cluster_id == sasl1.cluster.cluster_id
    # authenticated: KafkaApis' answers, and the connection stays open
    hs = handshake(w)
    assert (hs.error_code, hs.mechanisms) == (SASL_ILLEGAL_STATE, [])
    again = authenticate(w, b"\0alice\0alice-secret", version)
    assert (again.error_code, again.error_message) == (
        SASL_ILLEGAL_STATE, "SaslAuthenticate request received after successful authentication")
    assert metadata(w) is not None


def test_authzid_equal_to_the_user_is_accepted(sasl1, wire):
    w = wire(sasl1)
    assert handshake(w).error_code == 0               # ApiVersions first is optional
    assert authenticate(w, b"bob\0bob\0bob-secret").error_code == 0
    assert metadata(w) is not None


@pytest.mark.parametrize("token, message", [
    (b"\0alice\0wrong", AUTH_FAILED),
    (b"\0mallory\0alice-secret", AUTH_FAILED),
    (b"\0alice\0bob-secret", AUTH_FAILED),
    (b"bob\0alice\0alice-secret",
     "Authentication failed: Client requested an authorization id that is different from username"),
    (b"\0\0alice-secret", "Authentication failed: username not specified"),
    (b"\0alice\0", "Authentication failed: password not specified"),
    (b"alice\0alice-secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 2"),
    (b"\0alice\0alice-secret\0\0", "Invalid SASL/PLAIN response: expected 3 tokens, got 4"),
])
def test_failed_authentication_answers_then_closes(sasl1, wire, token, message):
    w = wire(sasl1)
    assert handshake(w).error_code == 0
    auth = authenticate(w, token)
    assert (auth.error_code, auth.error_message) == (AUTHENTICATION_FAILED, message)
    assert closed(lambda: api_versions(w))


def test_other_mechanism_gets_the_enabled_list_then_closes(sasl1, wire):
    w = wire(sasl1)
    hs = handshake(w, "GSSAPI")
    assert (hs.error_code, hs.mechanisms) == (UNSUPPORTED_MECHANISM, MECHANISMS)
    assert closed(lambda: handshake(w))


@pytest.mark.parametrize("steps", [
    ["metadata"],                                     # nothing before authenticating
    ["api_versions", "metadata"],
    ["authenticate"],                                 # SaslAuthenticate before the handshake
    ["handshake", "metadata"],                        # after it, SaslAuthenticate only
    ["handshake", "api_versions"],
    ["handshake_v0"],                                 # the raw-token exchange is not served
])
def test_out_of_step_requests_close_the_connection(sasl1, wire, steps):
    before = served(sasl1).get("Metadata", 0)
    w = wire(sasl1)
    send = {"metadata": lambda: metadata(w), "api_versions": lambda: api_versions(w),
            "authenticate": lambda: authenticate(w, b"\0alice\0alice-secret"),
            "handshake": lambda: handshake(w), "handshake_v0": lambda: handshake(w, version=0)}
    *ok, last = steps
    for step in ok:
        assert send[step]().error_code == 0
    assert closed(send[last])
    assert served(sasl1).get("Metadata", 0) == before


def test_plaintext_listener_answers_sasl_apis_as_kafka(broker1, wire):
    w = wire(broker1)
    for version in (0, 1):
        hs = handshake(w, version=version)
        assert (hs.error_code, hs.mechanisms) == (SASL_ILLEGAL_STATE, [])
    assert authenticate(w, b"\0alice\0alice-secret").error_code == SASL_ILLEGAL_STATE
    assert metadata(w).cluster_id == broker1.cluster.cluster_id


@pytest.mark.parametrize("pose_as", [None, "4.1", "2.8"])
def test_sasl_versions_under_every_pose(wire, pose_as):
    with EmbeddedCluster(nodes=1, pose_as=pose_as, sasl_users=USERS) as ec:
        w = wire(ec)
        ranges = {k.api_key: (k.min_version, k.max_version) for k in api_versions(w).api_keys}
        assert (ranges[17], ranges[36]) == ((0, 1), (0, 2))   # as Kafka 2.8 and 4.x serve them
        assert handshake(w).error_code == 0
        assert authenticate(w, b"\0alice\0alice-secret").error_code == 0
        md = AdminClient(sasl_conf(ec, "alice-secret")).list_topics(timeout=10)
        assert list(md.brokers) == [1]


# -- real clients ---------------------------------------------------------------------------

def test_librdkafka_admin_producer_consumer(sasl1):
    conf = sasl_conf(sasl1, "alice-secret")
    admin = AdminClient(conf)
    admin.create_topics([NewTopic("sasl-data", 2, 1)])["sasl-data"].result(10)
    producer = Producer({**conf, "linger.ms": 0})
    for i in range(3):
        producer.produce("sasl-data", f"v{i}".encode(), partition=1)
    assert producer.flush(10) == 0
    consumer = Consumer({**sasl_conf(sasl1, "bob-secret", user="bob"), "group.id": "sasl-g",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.subscribe(["sasl-data"])
        got, deadline = [], time.monotonic() + 20
        while len(got) < 3 and time.monotonic() < deadline:
            m = consumer.poll(0.2)
            if m is not None and not m.error():
                got.append((m.partition(), m.offset(), m.value()))
        assert got == [(1, i, f"v{i}".encode()) for i in range(3)]
        consumer.commit(asynchronous=False)
        committed = consumer.committed([TopicPartition("sasl-data", 1)], timeout=10)
        assert committed[0].offset == 3
    finally:
        consumer.close()
    counts = served(sasl1)
    assert counts["SaslAuthenticate"] >= 2 and counts["CreateTopics"] >= 1





def test_librdkafka_wrong_password_is_an_authentication_failure(sasl1):
    errors: list[KafkaError] = []
    conf = sasl_conf(sasl1, "not-the-secret", error_cb=errors.append, log_level=0)
    admin = AdminClient(conf)
    future = admin.create_topics([NewTopic("sasl-never", 1, 1)], request_timeout=2)["sasl-never"]
    err = wait_for_error(admin, errors, KafkaError._AUTHENTICATION)
    assert AUTH_FAILED in err.str()
    with pytest.raises(KafkaException):
        future.result(10)
    errors.clear()
    producer = Producer({**conf, "message.timeout.ms": 2000})
    delivered = []
    producer.produce("sasl-never", b"x", on_delivery=lambda e, m: delivered.append(e))
    err = wait_for_error(producer, errors, KafkaError._AUTHENTICATION)
    assert AUTH_FAILED in err.str()
    producer.flush(10)
    assert [e.code() for e in delivered] == [KafkaError._MSG_TIMED_OUT]
    assert "sasl-never" not in topics(sasl1)


def test_client_without_sasl_is_refused():
    with EmbeddedCluster(nodes=1, sasl_users=USERS) as ec:
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers, "log_level": 0})
        with pytest.raises(KafkaException):
            admin.list_topics(timeout=2)
        with pytest.raises(KafkaException):
            admin.create_topics([NewTopic("plain", 1, 1)], request_timeout=2)["plain"].result(10)
        # ApiVersions is answered; its next request (Metadata) closed the connection
        assert list(served(ec)) == ["ApiVersions"]
        assert topics(ec) == []







def kcat_sasl(ec, password: str, *args: str, wait_s: int = 2) -> subprocess.CompletedProcess:
    return kcat(ec, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
                "-X", "sasl.username=alice", "-X", f"sasl.password={password}", *args,
                wait_s=wait_s)


@pytest.mark.kcat
def test_kcat_lists_with_the_right_password_only(sasl1):
    assert KCAT, "kcat is part of the project's test setup"
    sasl1.create_topic("sasl-kcat", partitions=2)
    r = kcat_sasl(sasl1, "alice-secret", "-L", "-J", wait_s=10)
    assert r.returncode == 0, r.stderr
    md = json.loads(r.stdout)
    (topic,) = [t for t in md["topics"] if t["topic"] == "sasl-kcat"]
    assert [p["partition"] for p in topic["partitions"]] == [0, 1]
    r = kcat_sasl(sasl1, "not-the-secret", "-L", "-J")
    assert r.returncode != 0 and r.stdout == ""
    assert f"SASL authentication error: {AUTH_FAILED}" in r.stderr
    r = kcat(sasl1, "-L", "-J")                         # no SASL at all
    assert r.returncode != 0 and r.stdout == ""
    assert "Failed to acquire metadata" in r.stderr

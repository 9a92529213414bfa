"""TLS listeners on the embedded broker (EmbeddedCluster(tls=...)), alone (SSL) and with SASL/PLAIN
(SASL_SSL), proven with real clients: librdkafka through confluent-kafka, and kcat. Certificates
come from tests/support/tls_certs.py (openssl): a client trusting another CA, or checking the
broker's name against a certificate for another name, is refused before any request is served.

librdkafka's ssl.endpoint.identification.algorithm defaults to https (since 2.0), and an IP
address host is checked too: librdkafka passes the bootstrap or advertised host to OpenSSL's
SSL_set1_host (rdkafka_ssl.c), which with OpenSSL 3 treats an IP literal as an IP address and
matches it against the certificate's IP SANs only (sending no SNI for it). So the certificate for
IP:127.0.0.1 passes, the one for DNS:kafka.example.invalid fails the handshake with librdkafka's
"certificate verify failed" (confluent-kafka 2.16 and kcat's librdkafka 2.0.2 alike), and
ssl.endpoint.identification.algorithm=none accepts it.
"""

from __future__ import annotations

import json
import ssl

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from tests.support.sasl import AUTH_FAILED, KCAT, USERS, kcat, wait_for_error

from kcli.broker import EmbeddedCluster
from tests.support.groups import consume
from tests.support.tls_certs import make_certs

VERIFY_FAILED = "certificate verify failed"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def ssl3(certs):
    with EmbeddedCluster(nodes=3, tls=certs.server) as ec:
        yield ec


@pytest.fixture(scope="module")
def sasl_ssl1(certs):
    with EmbeddedCluster(nodes=1, tls=certs.server, sasl_users=USERS) as ec:
        yield ec


@pytest.fixture(scope="module")
def mismatched(certs):
    """Served with a certificate for kafka.example.invalid (built as an ssl.SSLContext)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certs.mismatched)
    with EmbeddedCluster(nodes=1, tls=context) as ec:
        yield ec


def tls_conf(ec, ca: str, password: str | None = None, **extra) -> dict:
    """librdkafka's settings for ``ec``: SSL trusting ``ca``, SASL_SSL (alice) with ``password``."""
    conf = {"bootstrap.servers": ec.bootstrap_servers, "security.protocol": "SSL",
            "ssl.ca.location": ca}
    if password is not None:
        conf.update({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
                     "sasl.username": "alice", "sasl.password": password})
    return {**conf, **extra}


def topics(ec) -> list[str]:
    return ec.call(lambda: sorted(ec.cluster.topics))


def served(ec) -> dict[int, dict[str, int]]:
    return {node: counts for node, counts in ec.request_counts().items() if counts}


# -- confluent-kafka ------------------------------------------------------------------------

@pytest.mark.parametrize("protocol", ["SSL", "SASL_SSL"])
def test_librdkafka_admin_producer_consumer(request, certs, protocol):
    """On 3 nodes (SSL) every partition leader's listener is TLS: each is produced to and read."""
    ec = request.getfixturevalue("ssl3" if protocol == "SSL" else "sasl_ssl1")
    conf = tls_conf(ec, certs.ca, "alice-secret" if protocol == "SASL_SSL" else None)
    topic, n = f"tls-{protocol}", len(ec.cluster.node_ids)
    admin = AdminClient(conf)
    admin.create_topics([NewTopic(topic, n, 1)])[topic].result(10)
    leaders = ec.call(lambda: sorted(p.leader for p in ec.cluster.topics[topic].partitions))
    assert leaders == ec.cluster.node_ids
    producer = Producer({**conf, "linger.ms": 0})
    for p in range(n):
        producer.produce(topic, f"v{p}".encode(), partition=p)
    assert producer.flush(10) == 0
    consumer = Consumer({**conf, "group.id": f"g-{protocol}", "auto.offset.reset": "earliest",
                         "enable.auto.commit": False})
    try:
        consumer.subscribe([topic])
        (got,) = consume([consumer], n, timeout=20)
    finally:
        consumer.close()
    assert sorted(got) == [(topic, p, 0, f"v{p}".encode()) for p in range(n)]
    counts = served(ec)
    assert all(counts[node]["Produce"] == 1 and counts[node]["Fetch"] >= 1 for node in leaders)
    if protocol == "SASL_SSL":
        assert counts[1]["SaslAuthenticate"] >= 3


def refused_by_tls(ec, conf: dict, topic: str) -> KafkaError:
    """A client with ``conf`` fails with an SSL error (error_cb, bounded wait); its create_topics
    fails, and the broker served no request at all."""
    before, errors = served(ec), []
    admin = AdminClient({**conf, "error_cb": errors.append, "log_level": 0})
    future = admin.create_topics([NewTopic(topic, 1, 1)], request_timeout=2)[topic]
    err = wait_for_error(admin, errors, KafkaError._SSL)
    with pytest.raises(KafkaException):
        future.result(10)
    assert topic not in topics(ec)
    assert served(ec) == before
    return err


def test_librdkafka_refuses_a_broker_another_ca_did_not_sign(certs):
    with EmbeddedCluster(nodes=1, tls=certs.server) as ec:
        err = refused_by_tls(ec, tls_conf(ec, certs.other_ca), "tls-never")
    assert "SSL handshake failed" in err.str() and VERIFY_FAILED in err.str()


def test_librdkafka_checks_an_ip_host_against_the_certificate(certs, mismatched):
    err = refused_by_tls(mismatched, tls_conf(mismatched, certs.ca), "tls-never")
    assert VERIFY_FAILED in err.str()
    conf = tls_conf(mismatched, certs.ca, **{"ssl.endpoint.identification.algorithm": "none"})
    assert list(AdminClient(conf).list_topics(timeout=10).brokers) == [1]
    # the CA is still checked without the name check
    conf["ssl.ca.location"] = certs.other_ca
    with pytest.raises(KafkaException):
        AdminClient({**conf, "log_level": 0}).list_topics(timeout=1)


def test_plaintext_clients_are_dropped_unserved(certs):
    with EmbeddedCluster(nodes=1, tls=certs.server, sasl_users=USERS) as ec:
        for protocol in ("PLAINTEXT", "SASL_PLAINTEXT"):
            conf = {"bootstrap.servers": ec.bootstrap_servers, "security.protocol": protocol,
                    "sasl.mechanism": "PLAIN", "sasl.username": "alice",
                    "sasl.password": "alice-secret", "log_level": 0}
            if protocol == "PLAINTEXT":
                conf = {k: v for k, v in conf.items() if not k.startswith("sasl")}
            with pytest.raises(KafkaException):
                AdminClient(conf).list_topics(timeout=1)
        assert served(ec) == {}


def test_sasl_ssl_wrong_password_is_an_authentication_failure(certs, sasl_ssl1):
    errors: list[KafkaError] = []
    admin = AdminClient({**tls_conf(sasl_ssl1, certs.ca, "not-the-secret"),
                         "error_cb": errors.append, "log_level": 0})
    future = admin.create_topics([NewTopic("sasl-ssl-never", 1, 1)],
                                 request_timeout=2)["sasl-ssl-never"]
    err = wait_for_error(admin, errors, KafkaError._AUTHENTICATION)
    assert AUTH_FAILED in err.str()                   # the broker's answer came over TLS
    with pytest.raises(KafkaException):
        future.result(10)
    assert "sasl-ssl-never" not in topics(sasl_ssl1)


# -- kcat -----------------------------------------------------------------------------------

def kcat_tls(ec, ca: str, *args: str, password: str | None = None, wait_s: int = 2):
    props = tls_conf(ec, ca, password)
    props["security.protocol"] = props["security.protocol"].lower()
    settings = [arg for k, v in props.items() if k != "bootstrap.servers"
                for arg in ("-X", f"{k}={v}")]
    return kcat(ec, *settings, *args, "-L", "-J", wait_s=wait_s)


def kcat_topics(r) -> dict[str, list[int]]:
    assert r.returncode == 0, r.stderr
    return {t["topic"]: [p["partition"] for p in t["partitions"]]
            for t in json.loads(r.stdout)["topics"]}


@pytest.mark.kcat
@pytest.mark.parametrize("protocol", ["SSL", "SASL_SSL"])
def test_kcat_lists_over_tls_trusting_the_right_ca_only(request, certs, protocol):
    assert KCAT, "kcat is part of the project's test setup"
    ec = request.getfixturevalue("ssl3" if protocol == "SSL" else "sasl_ssl1")
    password = "alice-secret" if protocol == "SASL_SSL" else None
    ec.create_topic(f"kcat-{protocol}", partitions=2)
    listed = kcat_topics(kcat_tls(ec, certs.ca, password=password, wait_s=10))
    assert listed[f"kcat-{protocol}"] == [0, 1]
    r = kcat_tls(ec, certs.other_ca, password=password)
    assert r.returncode != 0 and r.stdout == ""
    assert VERIFY_FAILED in r.stderr
    if password:
        r = kcat_tls(ec, certs.ca, password="not-the-secret")
        assert r.returncode != 0 and r.stdout == ""
        assert f"SASL authentication error: {AUTH_FAILED}" in r.stderr


@pytest.mark.kcat
def test_kcat_checks_the_name_unless_told_not_to(certs, mismatched):
    assert KCAT, "kcat is part of the project's test setup"
    r = kcat_tls(mismatched, certs.ca)
    assert r.returncode != 0 and VERIFY_FAILED in r.stderr
    r = kcat_tls(mismatched, certs.ca, "-X", "ssl.endpoint.identification.algorithm=none",
                 wait_s=10)
    assert kcat_topics(r) == {}

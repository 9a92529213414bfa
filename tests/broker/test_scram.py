"""SCRAM's server side (kcli.broker.scram) against RFC 7677's SCRAM-SHA-256 example exchange, and
SCRAM-SHA-256/512 logins of real clients (librdkafka) on the embedded broker."""

from __future__ import annotations

import base64

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kcli.broker import EmbeddedCluster
from kcli.broker.scram import ScramError, ScramServer, from_salted, make_credential, salted_password
from tests.support.sasl import USERS, wait_for_error

# RFC 7677 section 3
SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
CLIENT_FIRST = b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
CLIENT_FINAL = (b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="


def rfc_server(password: str = "pencil") -> ScramServer:
    server = ScramServer("SCRAM-SHA-256", server_nonce=SERVER_NONCE)
    credential = make_credential("SCRAM-SHA-256", password, 4096, SALT)
    first = server.first(CLIENT_FIRST, {"user": credential}.get)
    assert first == (b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                     b"s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
    return server


def test_rfc7677_exchange():
    assert rfc_server().final(CLIENT_FINAL) == SERVER_FINAL
    assert rfc_server().user == "user"


def test_a_salted_password_gives_the_same_credential():
    salted = salted_password("SCRAM-SHA-256", b"pencil", SALT, 4096)
    assert from_salted("SCRAM-SHA-256", salted, SALT, 4096) == make_credential(
        "SCRAM-SHA-256", "pencil", 4096, SALT)


@pytest.mark.parametrize("final", [
    CLIENT_FINAL.replace(b"p=dHzb", b"p=eHzb"),               # another proof
    CLIENT_FINAL.replace(b"r=rOpr", b"r=xOpr"),               # another nonce
    b"c=biws,r=rOprNGfwEbeRWgbNEkqO",                          # no proof
])
def test_a_wrong_final_message_fails(final):
    with pytest.raises(ScramError):
        rfc_server().final(final)


def test_a_wrong_password_fails_at_the_proof():
    with pytest.raises(ScramError):
        rfc_server("not-pencil").final(CLIENT_FINAL)


@pytest.mark.parametrize("first, message", [
    (b"n,,n=nobody,r=abc", None),                              # unknown user
    (b"n,a=other,n=user,r=abc", "Authentication failed: Client requested an authorization id "
                                "that is different from username"),
    (b"n,,n=user,r=abc,tokenauth=true", None),                 # delegation tokens: none here
    (b"y,,n=user,r=abc", None),                                # channel binding flag
])
def test_a_wrong_first_message_fails(first, message):
    credential = make_credential("SCRAM-SHA-256", "pencil", 4096, SALT)
    with pytest.raises(ScramError) as e:
        ScramServer("SCRAM-SHA-256").first(first, {"user": credential}.get)
    assert e.value.message == message


# -- real clients ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sasl1():
    with EmbeddedCluster(nodes=1, sasl_users=USERS) as ec:
        yield ec


def conf(ec, mechanism: str, password: str, user: str = "alice", **extra) -> dict:
    return {"bootstrap.servers": ec.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password,
            **extra}


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_librdkafka_scram_login_creates_and_produces(sasl1, mechanism):
    topic = f"scram-{mechanism[-3:]}"
    admin = AdminClient(conf(sasl1, mechanism, "bob-secret", user="bob"))
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(10)
    producer = Producer(conf(sasl1, mechanism, "bob-secret", user="bob", **{"linger.ms": 0}))
    producer.produce(topic, b"x")
    assert producer.flush(10) == 0
    assert sasl1.call(lambda: sasl1.cluster.topics[topic].partitions[0].log.log_end_offset) == 1


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
@pytest.mark.parametrize("user, password", [("alice", "bob-secret"), ("mallory", "x")])
def test_librdkafka_scram_wrong_password_fails_in_one_line(sasl1, mechanism, user, password):
    errors: list[KafkaError] = []
    admin = AdminClient(conf(sasl1, mechanism, password, user=user, error_cb=errors.append,
                             log_level=0))
    future = admin.create_topics([NewTopic("scram-never", 1, 1)], request_timeout=2)["scram-never"]
    err = wait_for_error(admin, errors, KafkaError._AUTHENTICATION)
    assert ("Authentication failed during authentication due to invalid credentials with SASL "
            f"mechanism {mechanism}") in err.str()
    with pytest.raises(KafkaException):
        future.result(10)
    assert "scram-never" not in sasl1.call(lambda: list(sasl1.cluster.topics))

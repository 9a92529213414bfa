"""SASL/OAUTHBEARER on the embedded broker (``EmbeddedCluster(unsecured_oauthbearer=True)``) with
Kafka's default unsecured validator: the validator's decisions (kcli.broker.oauth, pure), the
wire exchange as OAuthBearerSaslServer answers an invalid token (the error challenge, then the
failure), then librdkafka's unsecured JWT login (confluent-kafka) authorized as its ``sub``, and a
broker that does not offer the mechanism refusing it. Java's login: tests/apache/
test_java_sasl_embedded.py."""

from __future__ import annotations

import base64
import json
import time

import pytest
from confluent_kafka import KafkaError
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, NewTopic,
                                   ResourcePatternType, ResourceType)

from kcli.broker import EmbeddedCluster
from kcli.broker.oauth import INVALID_TOKEN, OAuthError, principal_name
from tests.support.broker_wire import req
from tests.support.sasl import wait_for_error

NOW_MS = 1_700_000_000_000


def part(doc) -> str:
    return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")


def jws(claims: dict, header: dict | None = None, signature: str = "") -> str:
    return f"{part(header or {'alg': 'none'})}.{part(claims)}.{signature}"


def first(token: str, gs2: str = "n,,") -> bytes:
    return f"{gs2}\x01auth=Bearer {token}\x01\x01".encode()


VALID = {"sub": "alice", "iat": NOW_MS / 1000 - 10, "exp": NOW_MS / 1000 + 3600}


def test_a_valid_unsecured_token_authenticates_its_sub():
    assert principal_name(first(jws(VALID)), NOW_MS) == "alice"
    assert principal_name(first(jws({"sub": "bob", "exp": NOW_MS // 1000 + 1})), NOW_MS) == "bob"   # no iat
    assert principal_name(first(jws(VALID), "n,a=alice,"), NOW_MS) == "alice"


@pytest.mark.parametrize("token", [
    jws({**VALID, "exp": NOW_MS / 1000}),                        # expired
    jws({**VALID, "iat": NOW_MS / 1000 + 60}),                   # issued in the future
    jws({"sub": "alice", "iat": VALID["iat"]}),                  # no exp
    jws({"iat": VALID["iat"], "exp": VALID["exp"]}),             # no sub
    jws({**VALID, "sub": " "}),
    jws({**VALID, "exp": "soon"}),
    jws(VALID, header={"alg": "HS256"}),
    jws(VALID, signature="c2ln"),
    "not-a-jws",
    f"{part({'alg': 'none'})}.bm90IGpzb24.",                     # claims that are not JSON
])
def test_an_invalid_token_gets_the_error_challenge(token):
    with pytest.raises(OAuthError) as e:
        principal_name(first(token), NOW_MS)
    assert (e.value.message, e.value.challenge) == (INVALID_TOKEN, True)
    assert INVALID_TOKEN == '{"status":"invalid_token"}'


@pytest.mark.parametrize("message, error", [
    (b"n,,auth=Bearer x\x01\x01", "Invalid OAUTHBEARER client first message"),
    (b"n,,\x01auth=Basic x\x01\x01", "Invalid OAUTHBEARER client first message"),
    (first(jws(VALID), "n,a=bob,"), "Authentication failed: Client requested an authorization id (bob) that is "
                                    "different from the token's principal name (alice)"),
])
def test_a_bad_first_message_or_a_foreign_authzid_fails_at_once(message, error):
    with pytest.raises(OAuthError) as e:
        principal_name(message, NOW_MS)
    assert (e.value.message, e.value.challenge) == (error, False)


# -- on the broker --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def oauth():
    with EmbeddedCluster(nodes=1, sasl_users={}, authorize=True, super_users=["admin"],
                         unsecured_oauthbearer=True) as ec:
        yield ec


def login(ec, principal: str, **extra) -> dict:
    return {"bootstrap.servers": ec.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt": True,
            "sasl.oauthbearer.config": f"principal={principal}", **extra}


def test_an_invalid_token_is_challenged_then_refused_on_the_wire(oauth, wire):
    w = wire(oauth)
    assert w.send(req(17, 1, mechanism="OAUTHBEARER")).mechanisms[-1] == "OAUTHBEARER"
    expired = {"sub": "alice", "exp": int(time.time()) - 60}
    challenge = w.send(req(36, 2, auth_bytes=first(jws(expired))))
    assert (challenge.error_code, challenge.auth_bytes) == (0, INVALID_TOKEN.encode())
    failed = w.send(req(36, 2, auth_bytes=b"\x01"))
    assert (failed.error_code, failed.error_message) == (58, INVALID_TOKEN)        # SASL_AUTHENTICATION_FAILED
    ok = wire(oauth)
    ok.send(req(17, 1, mechanism="OAUTHBEARER"))
    fresh = {"sub": "alice", "iat": int(time.time()), "exp": int(time.time()) + 60}
    assert ok.send(req(36, 2, auth_bytes=first(jws(fresh)))).error_code == 0
    assert ok.send(req(3, 12, topics=None, allow_auto_topic_creation=False)).brokers    # authenticated


def test_librdkafkas_unsecured_login_is_authorized_as_its_sub(oauth):
    root = AdminClient(login(oauth, "admin"))
    root.create_topics([NewTopic("oauth-t", 1, 1)])["oauth-t"].result(15)           # a super user
    bob = AdminClient(login(oauth, "bob"))
    assert bob.list_topics(topic="oauth-t", timeout=10).topics["oauth-t"].error.name() == "TOPIC_AUTHORIZATION_FAILED"
    grant = AclBinding(ResourceType.TOPIC, "oauth-t", ResourcePatternType.LITERAL, "User:bob", "*",
                       AclOperation.DESCRIBE, AclPermissionType.ALLOW)
    root.create_acls([grant])[grant].result(10)
    assert bob.list_topics(topic="oauth-t", timeout=10).topics["oauth-t"].error is None


def test_a_broker_that_does_not_offer_it_refuses_the_mechanism():
    with EmbeddedCluster(nodes=1, sasl_users={"alice": "a-secret"}) as ec:
        errors: list = []
        admin = AdminClient(login(ec, "alice", error_cb=errors.append, log_level=0))
        err = wait_for_error(admin, errors, KafkaError._AUTHENTICATION)
        assert "OAUTHBEARER" in err.str(), err.str()

"""SASL/OAUTHBEARER against real Apache Kafka 4.4 with a Java client's ``--command-config``, on
both of kcli's client paths (its own connection for describe topics, librdkafka for
list-offsets): the unsecured login (``unsecuredLoginStringClaim_sub``) and OIDC's
client-credentials login (``sasl.oauthbearer.token.endpoint.url`` with the JAAS clientId,
clientSecret and scope), the token fetched from an endpoint on 127.0.0.1. The same file is given
to Apache's kafka-topics too: it is a Java client configuration, not one written for kcli.

The broker validates with Kafka's default, unsecured validator, which takes only unsigned JWTs,
while Java's OIDC login insists on a signed one: with the OIDC file, kafka-topics is shown to
ask the endpoint for the same token (client, secret, scope) and to stop at its signature check."""

from __future__ import annotations

import json

import pytest

from tests.support.apache_kafka import FAST_TOOL_JVM, java_tool
from tests.support.clients import create_topic, unique
from tests.support.oidc import TokenEndpoint
from tests.support.run import run_kcli

MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"


@pytest.fixture(scope="module")
def topic(apache_kafka):
    name = unique("oauth")
    create_topic(apache_kafka.bootstrap_servers, name, partitions=2)
    return name


@pytest.fixture(scope="module")
def idp():
    with TokenEndpoint({"kcli-client": "kcli-secret"}) as endpoint:
        yield endpoint


def check_both_paths(bootstrap: str, topic: str, config, idp: TokenEndpoint | None = None):
    """describe topics (kcli's own connection), then list-offsets (librdkafka); with ``idp``,
    each of them fetched its token there."""
    for args, key in ((("describe", "topics", topic), "topics"), (("list-offsets", "-t", topic), "offsets")):
        before = len(idp.issued) if idp else 0
        r = run_kcli(bootstrap, "--command-config", str(config), "-o", "json", *args)
        assert (r.code, r.err) == (0, ""), r
        doc = json.loads(r.out)[key]
        assert [p["partition"] for p in (doc[0]["partitions"] if key == "topics" else doc)] == [0, 1]
        if idp:
            assert idp.issued[before:] and set(idp.issued[before:]) == {("kcli-client", "kafka")}, args


def test_unsecured_oauthbearer(apache_kafka, topic, tmp_path):
    config = tmp_path / "unsecured.properties"
    config.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                      f'sasl.jaas.config={MODULE} required unsecuredLoginStringClaim_sub="alice";\n')
    java = java_tool("kafka-topics", "--bootstrap-server", apache_kafka.sasl_bootstrap_servers,
                     "--command-config", str(config), "--list")
    assert java.code == 0 and topic in java.out.split(), java
    check_both_paths(apache_kafka.sasl_bootstrap_servers, topic, config)


def test_oidc_client_credentials(apache_kafka, topic, idp, tmp_path):
    config = tmp_path / "oidc.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
        "sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer."
        "OAuthBearerLoginCallbackHandler\n"
        f"sasl.oauthbearer.token.endpoint.url={idp.url}\n"
        f'sasl.jaas.config={MODULE} required clientId="kcli-client" clientSecret="kcli-secret" scope="kafka";\n')
    java = java_tool("kafka-topics", "--bootstrap-server", apache_kafka.sasl_bootstrap_servers,
                     "--command-config", str(config), "--list",
                     jvm=[*FAST_TOOL_JVM, f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={idp.url}"])
    assert java.code == 1 and "Malformed JWT provided" in java.err, java      # the unsigned token
    assert idp.issued == [("kcli-client", "kafka")]
    check_both_paths(apache_kafka.sasl_bootstrap_servers, topic, config, idp)

    config.write_text(config.read_text().replace('clientSecret="kcli-secret"', 'clientSecret="wrong"'))
    r = run_kcli(apache_kafka.sasl_bootstrap_servers, "--command-config", str(config), "--timeout", "10s",
                 "describe", "topics", topic)
    assert r.code == 1 and r.err.startswith("Error: ") and r.err.count("\n") == 1, r
    assert "wrong" not in r.err

"""Apache Kafka 4.4's Java clients (kafka-topics' AdminClient, unmodified) log in to the embedded
broker with SASL/PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, and OAUTHBEARER's unsecured login
(Kafka's default validator on the broker); a wrong password, and an expired token, fail in one
line, the line real Kafka 4.4 prints for the same mistake (its SASL listener has PLAIN,
SCRAM-SHA-512 and unsecured OAUTHBEARER for the same users)."""

from __future__ import annotations

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.apache_kafka import ToolSession
from tests.support.sasl import USERS

pytestmark = pytest.mark.apache


@pytest.fixture(scope="module")
def embedded():
    with EmbeddedCluster(nodes=1, sasl_users=USERS, unsecured_oauthbearer=True) as ec:
        ec.create_topic("java-sasl")
        yield ec


@pytest.fixture(scope="module")
def tools():
    with ToolSession() as t:
        yield t


def command_config(tmp_path, mechanism: str, password: str) -> str:
    module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
              else "org.apache.kafka.common.security.scram.ScramLoginModule")
    path = tmp_path / f"{mechanism}-{password}.properties"
    path.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={mechanism}\n"
                    f'sasl.jaas.config={module} required username="alice" password="{password}";\n'
                    "request.timeout.ms=5000\ndefault.api.timeout.ms=10000\n")
    return str(path)


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_java_admin_logs_in(embedded, tools, tmp_path, mechanism):
    r = tools.run("kafka-topics", "--bootstrap-server", embedded.bootstrap_servers, "--list",
                  "--command-config", command_config(tmp_path, mechanism, USERS["alice"]))
    assert (r.code, r.out) == (0, "java-sasl\n"), r.err


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_a_wrong_password_fails_in_the_line_real_kafka_prints(embedded, apache_kafka, tools, tmp_path,
                                                               mechanism):
    conf = command_config(tmp_path, mechanism, "not-the-secret")
    answers = []
    for bootstrap in (embedded.bootstrap_servers, apache_kafka.sasl_bootstrap_servers):
        r = tools.run("kafka-topics", "--bootstrap-server", bootstrap, "--list", "--command-config", conf)
        answers.append((r.code, r.out))
    assert answers[0] == answers[1]
    code, out = answers[0]
    assert code == 1 and out.count("\n") == 1, out
    assert out.startswith("Error while executing topic command : Authentication failed"), out


def oauth_config(tmp_path, lifetime_s: int) -> str:
    path = tmp_path / f"oauth-{lifetime_s}.properties"
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                    f'unsecuredLoginStringClaim_sub="alice" unsecuredLoginLifetimeSeconds="{lifetime_s}";\n'
                    "request.timeout.ms=5000\ndefault.api.timeout.ms=10000\n")
    return str(path)


def test_java_admin_logs_in_with_an_unsecured_token(embedded, tools, tmp_path):
    r = tools.run("kafka-topics", "--bootstrap-server", embedded.bootstrap_servers, "--list",
                  "--command-config", oauth_config(tmp_path, 3600))
    assert (r.code, r.out) == (0, "java-sasl\n"), r.err


def test_an_expired_token_fails_in_the_line_real_kafka_prints(embedded, apache_kafka, tools, tmp_path):
    conf = oauth_config(tmp_path, 0)                     # expires as it is issued
    answers = []
    for bootstrap in (embedded.bootstrap_servers, apache_kafka.sasl_bootstrap_servers):
        r = tools.run("kafka-topics", "--bootstrap-server", bootstrap, "--list", "--command-config", conf)
        answers.append((r.code, r.out))
    assert answers[0] == answers[1]
    code, out = answers[0]
    assert (code, out) == (1, 'Error while executing topic command : {"status":"invalid_token"}\n')

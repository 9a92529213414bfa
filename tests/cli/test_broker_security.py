"""``kcli broker start --user/--users-file/--super-user/--tls-cert/--tls-key/--insecure``, run as
a process on 127.0.0.1 and used by real clients (confluent-kafka): SASL logins (PLAIN, SCRAM)
with the users given, a wrong password refused in one line, TLS from the given files, bad input
refused (exit 2, one line) before anything listens."""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.sasl import wait_for_error
from tests.support.tls_certs import make_certs


@contextmanager
def broker(*args: str):
    proc = subprocess.Popen([sys.executable, "-m", "kcli", "broker", "start", "--listen", "127.0.0.1:0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("bootstrap: "), proc.stderr.read() if proc.poll() is not None else line
        yield line.removeprefix("bootstrap: ").strip()
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def sasl(bootstrap: str, mechanism: str, user: str, password: str, protocol="SASL_PLAINTEXT", **extra) -> dict:
    return {"bootstrap.servers": bootstrap, "security.protocol": protocol, "sasl.mechanism": mechanism,
            "sasl.username": user, "sasl.password": password, **extra}


def create(conf: dict, topic: str) -> None:
    admin = AdminClient(conf)
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(15)


def test_users_and_users_file_log_in_with_every_mechanism(tmp_path):
    users = tmp_path / "users"
    users.write_text("# the operators\nbob:bob:with:colons\n\n  carol:c-secret\n")
    with broker("--user", "alice:a-secret", "--users-file", str(users), "--super-user", "alice",
                "--super-user", "bob", "--super-user", "carol") as b:
        for i, (mechanism, user, password) in enumerate([
                ("PLAIN", "alice", "a-secret"), ("SCRAM-SHA-256", "bob", "bob:with:colons"),
                ("SCRAM-SHA-512", "carol", "c-secret"), ("SCRAM-SHA-512", "alice", "a-secret")]):
            topic = f"t{i}"
            create(sasl(b, mechanism, user, password), topic)
            md = AdminClient(sasl(b, mechanism, user, password)).list_topics(timeout=10)
            assert topic in md.topics


@pytest.mark.parametrize("mechanism, message", [
    ("PLAIN", "Authentication failed: Invalid username or password"),
    ("SCRAM-SHA-256", "Authentication failed during authentication due to invalid credentials "
                      "with SASL mechanism SCRAM-SHA-256"),
])
def test_a_wrong_password_is_refused_in_one_line(mechanism, message):
    with broker("--user", "alice:a-secret", "--super-user", "alice") as b:
        errors: list = []
        admin = AdminClient(sasl(b, mechanism, "alice", "wrong", error_cb=errors.append, log_level=0))
        err = wait_for_error(admin, errors, KafkaError._AUTHENTICATION)
        assert message in err.str() and "\n" not in err.str()
        # a client without SASL is not served either
        plain = AdminClient({"bootstrap.servers": b, "log_level": 0})
        with pytest.raises(KafkaException):
            plain.list_topics(timeout=2)


def test_tls_listener_from_cert_and_key(tmp_path):
    certs = make_certs(tmp_path)
    cert, key = certs.server
    with broker("--user", "alice:a-secret", "--super-user", "alice", "--tls-cert", cert, "--tls-key", key) as b:
        create(sasl(b, "SCRAM-SHA-256", "alice", "a-secret", protocol="SASL_SSL", **{"ssl.ca.location": certs.ca}),
               "over-tls")


@pytest.mark.parametrize("args, message", [
    (["--user", "alice"], "Error: Invalid --user 'alice': expected NAME:PASSWORD"),
    (["--user", ":secret"], "Error: Invalid --user '': expected NAME:PASSWORD"),
    (["--user", "alice:"], "Error: Invalid --user 'alice': expected NAME:PASSWORD"),
    (["--users-file", "/nonexistent/users"], "Error: Cannot read --users-file '/nonexistent/users'"),
    (["--super-user", "alice"], "Error: --super-user needs users"),
    (["--user", "a:b", "--tls-cert", "c.pem"], "Error: --tls-cert and --tls-key go together"),
    (["--user", "a:b", "--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"],
     "Error: Cannot load --tls-cert/--tls-key"),
    (["--listen", "10.1.2.3:9092"], "Error: --listen 10.1.2.3 is not a loopback address: give users"),
    (["--listen", "10.1.2.3:9092", "--unsecured-oauthbearer"], "Error: --listen 10.1.2.3 is not a loopback"),
    (["--listen", "kafka-1.example:0", "--tls-cert", "x"], "Error: --listen kafka-1.example is not a loopback"),
])
def test_bad_input_exits_2_in_one_line_before_listening(args, message):
    r = subprocess.run([sys.executable, "-m", "kcli", "broker", "start", *args], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert (r.returncode, r.stdout) == (2, ""), r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(message), r.stderr


def test_a_bad_users_file_line_is_named_without_its_password(tmp_path):
    users = tmp_path / "users"
    users.write_text("alice:ok\nbob-no-colon-secret\n")
    r = subprocess.run([sys.executable, "-m", "kcli", "broker", "start", "--users-file", str(users)],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert r.stderr == (f"Error: Invalid line 2 of --users-file '{users}': expected NAME:PASSWORD "
                        "(a name, ':', a password)\n")


def test_users_without_acls_get_nothing_and_users_and_acls_outlive_a_restart(tmp_path):
    from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

    data = str(tmp_path / "data")
    alice, bob = ("SCRAM-SHA-512", "alice", "a-secret"), ("SCRAM-SHA-256", "bob", "b-secret")
    grant = AclBinding(ResourceType.TOPIC, "kept", ResourcePatternType.LITERAL, "User:bob", "*",
                       AclOperation.DESCRIBE, AclPermissionType.ALLOW)
    with broker("--data-dir", data, "--user", "alice:a-secret", "--user", "bob:b-secret", "--super-user", "alice") as b:
        create(sasl(b, *alice), "kept")
        bobs = AdminClient(sasl(b, *bob))
        assert bobs.list_topics(topic="kept", timeout=10).topics["kept"].error.name() == "TOPIC_AUTHORIZATION_FAILED"
        admin = AdminClient(sasl(b, *alice))
        admin.create_acls([grant])[grant].result(10)
        assert bobs.list_topics(topic="kept", timeout=10).topics["kept"].error is None
    # bob is no --user now: his salted credentials, and his ACL, are in the data dir
    with broker("--data-dir", data, "--user", "alice:a-secret", "--super-user", "alice") as b:
        bobs = AdminClient(sasl(b, *bob))
        assert bobs.list_topics(topic="kept", timeout=10).topics["kept"].error is None
    assert "b-secret" not in (tmp_path / "data" / "cluster.json").read_text()


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_kcli_itself_logs_in_with_scram_and_sees_what_its_acls_allow(tmp_path, mechanism):
    from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

    from kcli.broker import EmbeddedCluster
    from tests.support.run import run_dropin

    users = {"admin": "admin-secret", "bob": "bob-secret"}
    with EmbeddedCluster(nodes=1, sasl_users=users, authorize=True, super_users=["admin"]) as ec:
        for t in ("seen", "hidden"):
            ec.create_topic(t)
        grant = AclBinding(ResourceType.TOPIC, "seen", ResourcePatternType.LITERAL, "User:bob", "*",
                           AclOperation.DESCRIBE, AclPermissionType.ALLOW)
        admin = AdminClient(sasl(ec.bootstrap_servers, mechanism, "admin", "admin-secret"))
        admin.create_acls([grant])[grant].result(10)

        def props(password: str) -> str:
            path = tmp_path / f"{password}.properties"
            path.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={mechanism}\n"
                            f"sasl.username=bob\nsasl.password={password}\n")
            return str(path)

        del admin
        b = ec.bootstrap_servers
        r = run_dropin("-b", b, "--command-config", props("bob-secret"), "kafka-topics", "--list")
        assert (r.code, r.out) == (0, "seen\n"), r.err
        r = run_dropin("-b", b, "--command-config", props("wrong"), "--timeout", "PT5S", "kafka-topics", "--list")
        assert (r.code, r.out.count("\n")) == (1, 1), r          # on stdout, as Java's kafka-topics
        assert r.out.startswith("Error while executing topic command : ") and r.out.endswith(
            f"Authentication failed during authentication due to invalid credentials with SASL mechanism {mechanism}\n")


def test_super_users_outlive_a_restart_until_others_are_given(tmp_path):
    data = str(tmp_path / "data")
    alice, bob = ("SCRAM-SHA-256", "alice", "a-secret"), ("PLAIN", "bob", "b-secret")
    with broker("--data-dir", data, "--user", "alice:a-secret", "--user", "bob:b-secret", "--super-user", "alice") as b:
        create(sasl(b, *alice), "made")
    with broker("--data-dir", data) as b:                 # users, and alice a super user, from the data dir
        create(sasl(b, *alice), "again")
        refused = AdminClient(sasl(b, *bob)).list_topics(topic="again", timeout=10).topics["again"]
        assert refused.error.name() == "TOPIC_AUTHORIZATION_FAILED"
    with broker("--data-dir", data, "--user", "bob:b-secret", "--super-user", "bob") as b:     # replaced
        assert AdminClient(sasl(b, *bob)).list_topics(topic="again", timeout=10).topics["again"].error is None
        mine = AdminClient(sasl(b, *alice)).list_topics(topic="again", timeout=10).topics["again"]
        assert mine.error.name() == "TOPIC_AUTHORIZATION_FAILED"


def test_unsecured_oauthbearer_logs_in_as_the_tokens_sub(tmp_path):
    """librdkafka's unsecured JWT (``sub`` = its principal) on ``--unsecured-oauthbearer``: no
    --user needed, the authorizer on (admin is a super user, bob gets nothing)."""
    def oauth(b: str, principal: str) -> dict:
        return {"bootstrap.servers": b, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
                "enable.sasl.oauthbearer.unsecure.jwt": True, "sasl.oauthbearer.config": f"principal={principal}"}

    with broker("--unsecured-oauthbearer", "--super-user", "admin") as b:
        create(oauth(b, "admin"), "by-token")
        bobs = AdminClient(oauth(b, "bob")).list_topics(topic="by-token", timeout=10).topics["by-token"]
        assert bobs.error.name() == "TOPIC_AUTHORIZATION_FAILED"

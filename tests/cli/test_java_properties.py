"""A --command-config written for the Java client works on both of kcli's client paths (its
own connection for describe topics, librdkafka for list-offsets), through the one translation
table in kcli/admin/settings.py: PKCS12 and PEM stores, Java's empty
ssl.endpoint.identification.algorithm, Java-only keys named in one warning line, JKS refused with
the keytool command, and the JAAS login modules (PLAIN/SCRAM are tested against Apache Kafka in
tests/apache/, OAUTHBEARER too)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kcli.admin.settings import ClientSettings, normalize_properties
from kcli.broker import EmbeddedCluster
from tests.support.tls_certs import OPENSSL, make_certs
from tests.support.run import run_kcli
from tests.support.waits import wait_until

KEYTOOL = shutil.which("keytool")


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_broker(certs):
    with EmbeddedCluster(nodes=1, tls=certs.server) as ec:
        ec.create_topic("secured", 2)
        yield ec


@pytest.fixture(scope="module")
def mismatched_broker(certs):
    with EmbeddedCluster(nodes=1, tls=certs.mismatched) as ec:
        ec.create_topic("secured", 1)
        yield ec


def both_paths(bootstrap: str, config: str):
    """describe topics (kcli's own connection) and list-offsets (librdkafka)."""
    return [run_kcli(bootstrap, "--command-config", config, "-o", "json", *args)
            for args in (("describe", "topics", "secured"), ("list-offsets", "-t", "secured"))]


def test_pkcs12_stores_and_java_only_keys(certs, tls_broker, tmp_path):
    trust, keystore = tmp_path / "trust.p12", tmp_path / "client.p12"
    subprocess.run([OPENSSL, "pkcs12", "-export", "-nokeys", "-in", certs.ca, "-out", str(trust),
                    "-passout", "pass:changeit"], check=True, capture_output=True)
    subprocess.run([OPENSSL, "pkcs12", "-export", "-in", certs.server[0], "-inkey", certs.server[1],
                    "-out", str(keystore), "-passout", "pass:changeit"], check=True, capture_output=True)
    config = tmp_path / "client.properties"
    config.write_text(f"security.protocol=SSL\nssl.truststore.location={trust}\n"
                      f"ssl.truststore.type=PKCS12\nssl.truststore.password=changeit\n"
                      f"ssl.keystore.location={keystore}\nssl.keystore.type=PKCS12\n"
                      f"ssl.keystore.password=changeit\ndefault.api.timeout.ms=20000\n")
    for r in both_paths(tls_broker.bootstrap_servers, str(config)):
        assert r.code == 0, r.err
        assert r.err == ("Warn: ignored Java-only client properties (kcli's clients have no such setting; "
                         "--timeout bounds every call): default.api.timeout.ms\n")
        assert "changeit" not in r.err
    doc = json.loads(both_paths(tls_broker.bootstrap_servers, str(config))[0].out)
    assert [p["partition"] for p in doc["topics"][0]["partitions"]] == [0, 1]


def _pkcs12_config(certs, tmp_path) -> str:
    keystore = tmp_path / "client.p12"
    subprocess.run([OPENSSL, "pkcs12", "-export", "-in", certs.server[0], "-inkey", certs.server[1],
                    "-out", str(keystore), "-passout", "pass:changeit"], check=True, capture_output=True)
    config = tmp_path / "client.properties"
    config.write_text(f"security.protocol=SSL\nssl.ca.location={certs.ca}\nssl.keystore.location={keystore}\n"
                      f"ssl.keystore.type=PKCS12\nssl.keystore.password=changeit\n")
    return str(config)


def _key_dirs(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("kcli-stores-*"))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_key_files_from_a_pkcs12_store_do_not_outlive_the_process(certs, tls_broker, tmp_path, sig):
    """The PEM files a PKCS12 keystore is written as (its private key among them) stayed in the
    temporary directory after SIGTERM, SIGHUP or SIGKILL. SIGTERM and SIGHUP remove them before
    the process ends (by the signal, as before); after a SIGKILL, which nothing can catch, the
    next kcli process that opens a PKCS12 store removes them."""
    config = _pkcs12_config(certs, tmp_path)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    tls_broker.fault("Metadata", "hang")
    try:
        proc = subprocess.Popen([sys.executable, "-m", "kcli", "-b", tls_broker.bootstrap_servers,
                                 "--command-config", config, "--timeout", "60s", "describe", "topics"],
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_until(lambda: _key_dirs(tmp) and any(_key_dirs(tmp)[0].iterdir()), 30,
                       what="the store's key files")
            assert proc.poll() is None, proc.communicate()
            proc.send_signal(sig)
            assert proc.wait(30) == -sig                # ended by the signal, as it was before
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    finally:
        tls_broker.fault("Metadata", None)
    if sig is not signal.SIGKILL:
        assert _key_dirs(tmp) == []
        return
    (left,) = _key_dirs(tmp)
    assert left.name.startswith(f"kcli-stores-{proc.pid}-") and any(left.iterdir())
    r = subprocess.run([sys.executable, "-m", "kcli", "-b", tls_broker.bootstrap_servers, "--command-config",
                        config, "describe", "topics", "secured"], env=env, capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    assert _key_dirs(tmp) == []                 # the dead process's, and the new one's at its end


def test_an_empty_endpoint_identification_turns_the_host_check_off(certs, mismatched_broker, tmp_path):
    config = tmp_path / "client.properties"
    config.write_text(f"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={certs.ca}\n")
    for r in both_paths(mismatched_broker.bootstrap_servers, str(config)):
        assert r.code == 1 and "certificate" in json.loads(r.err)["error"], r   # it names another host
    config.write_text(config.read_text() + "ssl.endpoint.identification.algorithm=\n")
    for r in both_paths(mismatched_broker.bootstrap_servers, str(config)):
        assert r.code == 0, r.err


def test_a_jks_store_is_refused_with_the_keytool_command(certs, tls_broker, tmp_path):
    if KEYTOOL is None:
        pytest.fail("keytool not found: it comes with the JDK scripts/test.sh installs")
    jks = tmp_path / "trust.jks"
    subprocess.run([KEYTOOL, "-importcert", "-noprompt", "-file", certs.ca, "-alias", "ca",
                    "-keystore", str(jks), "-storepass", "changeit", "-storetype", "JKS"],
                   check=True, capture_output=True)
    config = tmp_path / "client.properties"
    config.write_text(f"security.protocol=SSL\nssl.truststore.location={jks}\nssl.truststore.password=changeit\n")
    before = tls_broker.request_counts()
    r = run_kcli(tls_broker.bootstrap_servers, "--command-config", str(config), "describe", "topics")
    assert r.code == 2 and r.out == ""
    assert r.err == (f"Error: ssl.truststore.location '{jks}' is a Java KeyStore (JKS), which kcli's clients "
                     f"cannot read; convert it: keytool -importkeystore -srckeystore {jks} -destkeystore "
                     f"{jks}.p12 -deststoretype PKCS12, then give the .p12 file\n")
    assert tls_broker.request_counts() == before


def test_oauthbearer_and_kerberos_jaas_become_librdkafka_settings():
    oidc = normalize_properties({
        "security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
        "sasl.login.callback.handler.class":
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
        "sasl.jaas.config": 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
                            'clientId="kcli" clientSecret="s3cret" scope="kafka";'})
    settings = ClientSettings("b:9092", oidc)
    assert {k: v for k, v in settings.librdkafka_config().items() if k.startswith("sasl.")} == {
        "sasl.mechanism": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
        "sasl.oauthbearer.client.id": "kcli", "sasl.oauthbearer.client.secret": "s3cret",
        "sasl.oauthbearer.scope": "kafka"}
    assert settings.ignored() == []             # Java's OIDC login handler: implied by the endpoint
    unsecured = normalize_properties({"sasl.jaas.config": 'org.apache.kafka.common.security.oauthbearer.'
                                      'OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="alice";'})
    assert unsecured == {"enable.sasl.oauthbearer.unsecure.jwt": "true",
                         "sasl.oauthbearer.config": "principal=alice", "sasl.mechanism": "OAUTHBEARER"}
    kerberos = normalize_properties({"sasl.kerberos.service.name": "kafka", "sasl.jaas.config":
                                     'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true '
                                     'keyTab="/etc/kcli.keytab" principal="kcli@EXAMPLE.COM";'})
    assert kerberos == {"sasl.kerberos.service.name": "kafka", "sasl.kerberos.keytab": "/etc/kcli.keytab",
                        "sasl.kerberos.principal": "kcli@EXAMPLE.COM", "sasl.mechanism": "GSSAPI"}


def test_gssapi_where_librdkafka_lacks_it_is_one_line_and_exit_2(tls_broker, tmp_path):
    config = tmp_path / "kerberos.properties"
    config.write_text("security.protocol=SASL_PLAINTEXT\nsasl.kerberos.service.name=kafka\n"
                      'sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required '
                      'useKeyTab=true keyTab="/etc/kcli.keytab" principal="kcli@EXAMPLE.COM";\n')
    r = run_kcli(tls_broker.bootstrap_servers, "--command-config", str(config), "describe", "topics")
    from confluent_kafka.admin import AdminClient
    try:
        AdminClient({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI"})
        supported = True
    except Exception:  # noqa: BLE001 - this librdkafka build has no GSSAPI provider
        supported = False
    if supported:                     # a build with GSSAPI: the settings are accepted as they are
        assert r.code in (0, 1), r.err
    else:
        assert r.code == 2 and r.err.startswith("Error: Invalid client configuration: ") and "GSSAPI" in r.err
        assert r.err.count("\n") == 1

"""Profiles (resolution order, property merge), sasl.jaas.config translation and secret redaction
in every message kcli prints, --verbose and JSON included. No broker: the admin adapter is
replaced by one that records its settings and fails the way a client library might."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest

from kcli.admin import client as admin_client
from kcli.admin.settings import ClientSettings, normalize_properties, parse_jaas, read_properties
from kcli.errors import UsageError

PASSWORD = "pa$$-w0rd;\"x"
JAAS_PLAIN = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="alice" password="pa$$-w0rd;\\"x";')
JAAS_SCRAM = ('org.apache.kafka.common.security.scram.ScramLoginModule required\n'
              '    username="bob"\n    password="scram-secret";')

CONFIG = """
default_profile = "dev"

[profiles.dev]
bootstrap_servers = "dev-1:9092"
properties = { "client.id" = "from-dev", "security.protocol" = "PLAINTEXT" }

[profiles.prod]
bootstrap_servers = ["prod-1:9093", "prod-2:9093"]
properties_file = "prod.properties"
properties = { "client.id" = "from-prod-inline", "request.timeout.ms" = 5000 }
"""

PROD_PROPERTIES = f"""security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
client.id=from-prod-file
sasl.jaas.config={JAAS_SCRAM}
""".replace("\n    ", " ")


class Recorded(Exception):
    pass


@pytest.fixture
def recorded(monkeypatch):
    """Replaces the admin adapter: records the settings, then fails echoing its whole config."""
    seen: list[ClientSettings] = []

    class FakeAdmin:
        def __init__(self, settings):
            seen.append(settings)
            raise Recorded(f"client failed with config {settings.librdkafka_config()!s}")

    monkeypatch.setattr(admin_client, "KafkaAdmin", FakeAdmin)
    return seen


@pytest.fixture
def config_home(tmp_path, monkeypatch):
    home = tmp_path / "xdg"
    (home / "kcli").mkdir(parents=True)
    (home / "kcli" / "config.toml").write_text(CONFIG)
    (home / "kcli" / "prod.properties").write_text(PROD_PROPERTIES)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("KCLI_PROFILE", raising=False)
    monkeypatch.delenv("KCLI_BOOTSTRAP_SERVER", raising=False)
    return home


def run(*args: str) -> tuple[int, str, str]:
    from kcli.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


# -- sasl.jaas.config -------------------------------------------------------------------------
def test_jaas_plain_translates_to_username_password_and_implies_plain():
    props = normalize_properties({"sasl.jaas.config": JAAS_PLAIN, "security.protocol": "SASL_SSL"})
    assert props == {"sasl.username": "alice", "sasl.password": PASSWORD,
                     "sasl.mechanism": "PLAIN", "security.protocol": "SASL_SSL"}


def test_jaas_scram_keeps_the_given_mechanism():
    props = normalize_properties({"sasl.jaas.config": JAAS_SCRAM, "sasl.mechanism": "SCRAM-SHA-256"})
    assert props == {"sasl.username": "bob", "sasl.password": "scram-secret",
                     "sasl.mechanism": "SCRAM-SHA-256"}


def test_explicit_username_password_win_over_jaas():
    props = normalize_properties({"sasl.jaas.config": JAAS_PLAIN, "sasl.password": "explicit"})
    assert props["sasl.password"] == "explicit" and props["sasl.username"] == "alice"


def test_unsupported_login_module_is_a_usage_error():
    with pytest.raises(UsageError, match="LdapLoginModule is not supported"):
        parse_jaas('com.sun.security.auth.module.LdapLoginModule required userProvider="ldap://x";')
    with pytest.raises(UsageError):
        parse_jaas("not jaas at all")


def test_jaas_from_a_properties_file_reaches_both_clients(tmp_path):
    path = tmp_path / "client.properties"
    path.write_text("security.protocol=sasl_plaintext\nsasl.mechanism=SCRAM-SHA-256\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule \\\n"
                    '    required username="bob" password="scram-secret";\n')
    settings = ClientSettings("h:1", read_properties(str(path)))
    rd = settings.librdkafka_config()
    assert "sasl.jaas.config" not in rd
    assert rd["sasl.username"] == "bob" and rd["sasl.password"] == "scram-secret"
    assert rd["sasl.mechanism"] == "SCRAM-SHA-256"
    kp = settings.kafka_python_config()
    assert kp["sasl_plain_username"] == "bob" and kp["sasl_plain_password"] == "scram-secret"
    assert kp["sasl_mechanism"] == "SCRAM-SHA-256" and kp["security_protocol"] == "SASL_PLAINTEXT"
    # librdkafka accepts the Java name sasl.mechanism and the translated config as a whole
    from confluent_kafka.admin import AdminClient

    AdminClient({**rd, "bootstrap.servers": "127.0.0.1:1"})


# -- profile resolution order ------------------------------------------------------------------
def test_default_profile_applies_without_flags(config_home, recorded):
    code, _, _ = run("list", "topics")
    assert code == 1
    assert recorded[-1].bootstrap_servers == "dev-1:9092"
    assert recorded[-1].properties["client.id"] == "from-dev"


def test_env_profile_beats_default_and_flag_beats_env(config_home, recorded, monkeypatch):
    monkeypatch.setenv("KCLI_PROFILE", "prod")
    run("list", "topics")
    prod = recorded[-1]
    assert prod.bootstrap_servers == "prod-1:9093,prod-2:9093"
    # file, then inline table (inline wins), jaas translated from the file
    assert prod.properties["client.id"] == "from-prod-inline"
    assert prod.properties["request.timeout.ms"] == "5000"
    assert prod.properties["sasl.mechanism"] == "SCRAM-SHA-512"
    assert prod.properties["sasl.username"] == "bob"
    run("list", "topics", "--profile", "dev")
    assert recorded[-1].bootstrap_servers == "dev-1:9092"


def test_command_line_overrides_profile_key_by_key(config_home, recorded, monkeypatch, tmp_path):
    override = tmp_path / "override.properties"
    override.write_text("client.id=from-command-config\n")
    run("list", "topics", "--profile", "prod", "--command-config", str(override))
    s = recorded[-1]
    assert s.properties["client.id"] == "from-command-config"
    assert s.properties["sasl.mechanism"] == "SCRAM-SHA-512"          # the rest of the profile stays
    assert s.bootstrap_servers == "prod-1:9093,prod-2:9093"
    run("list", "topics", "--profile", "prod", "-b", "flag-host:9092")
    assert recorded[-1].bootstrap_servers == "flag-host:9092"


def test_a_typed_profile_beats_the_environment_and_the_environment_a_chosen_one(config_home, recorded,
                                                                                 monkeypatch):
    """-b typed, then --profile typed, then KCLI_BOOTSTRAP_SERVER, then the profile KCLI_PROFILE
    or default_profile chose: an exported variable once sent a --profile's command elsewhere."""
    monkeypatch.setenv("KCLI_BOOTSTRAP_SERVER", "env-host:9092")
    run("list", "topics", "--profile", "prod")
    assert recorded[-1].bootstrap_servers == "prod-1:9093,prod-2:9093"
    assert recorded[-1].properties["sasl.mechanism"] == "SCRAM-SHA-512"
    run("list", "topics", "--profile", "prod", "-b", "flag-host:9092")
    assert recorded[-1].bootstrap_servers == "flag-host:9092"
    run("list", "topics")                                               # default_profile: dev
    assert recorded[-1].bootstrap_servers == "env-host:9092"
    assert recorded[-1].properties["client.id"] == "from-dev"           # the rest of the profile
    monkeypatch.setenv("KCLI_PROFILE", "prod")
    run("list", "topics")
    assert recorded[-1].bootstrap_servers == "env-host:9092"


def test_no_config_file_means_no_profile(tmp_path, monkeypatch, recorded):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty"))
    monkeypatch.delenv("KCLI_PROFILE", raising=False)
    monkeypatch.delenv("KCLI_BOOTSTRAP_SERVER", raising=False)
    run("list", "topics")
    assert recorded[-1].bootstrap_servers == "localhost:9092" and recorded[-1].properties == {}


def test_unknown_profile_is_usage_error_naming_the_known_ones(config_home, recorded):
    code, out, err = run("list", "topics", "--profile", "staging")
    assert code == 2 and not recorded
    assert "Unknown profile 'staging'" in err and "dev, prod" in err
    code, _, err = run("list", "topics", "--profile", "staging", "-o", "json")
    doc = json.loads(err)
    assert code == 2 and doc["schema"] == "kcli.error/v2" and doc["exitCode"] == 2


def test_unreadable_config_is_usage_error(config_home):
    (config_home / "kcli" / "config.toml").write_text("profiles = [\n")
    code, _, err = run("list", "topics")
    assert code == 2 and "Cannot read the kcli config file" in err


# -- secrets never printed ----------------------------------------------------------------------
@pytest.mark.parametrize("extra", [[], ["--verbose"], ["-o", "json"], ["--verbose", "-o", "json"]])
def test_error_messages_never_echo_secrets(config_home, recorded, tmp_path, extra):
    cfg = tmp_path / "client.properties"
    cfg.write_text(f"security.protocol=SASL_SSL\nsasl.jaas.config={JAAS_PLAIN}\n"
                   "ssl.key.password=key-secret-42\n")
    code, out, err = run("list", "topics", "--command-config", str(cfg), *extra)
    assert code == 1 and recorded
    assert "client failed with config" in err and "alice" in err      # the message itself is kept
    for secret in (PASSWORD, "pa$$-w0rd", "key-secret-42", "scram-secret"):
        assert secret not in out + err
    assert "[redacted]" in err


def test_profile_secrets_are_redacted_too(config_home, recorded):
    code, out, err = run("list", "topics", "--profile", "prod", "--verbose")
    assert code == 1 and "scram-secret" not in out + err and "[redacted]" in err


# -- a config file that cannot be used: exit 2, one line naming the file ------------------------
BEFORE_BAD_BYTE = b'default_profile = "dev"\n# caf'


@pytest.mark.parametrize("data, message", [
    (b"\x80", r"the kcli config file '.*config.toml' is not UTF-8: byte 0x80 at offset 0"),
    (BEFORE_BAD_BYTE + b"\xe9\n", rf"is not UTF-8: byte 0xe9 at offset {len(BEFORE_BAD_BYTE)}"),
    ('\ufeffdefault_profile = "dev"\n'.encode(), r"starts with a UTF-8 byte order mark"),
    (b"default_profile = [false]\n", r"default_profile must be the name of a profile \(a string\)"),
    (b"default_profile = 7\n", r"default_profile must be the name of a profile"),
    (b'default_profile = " "\n', r"default_profile must be the name of a profile"),
    (b"x = " + b"9" * 5000 + b"\n", r"Cannot read the kcli config file .*: Exceeds the limit \(4300 digits\)"),
    (b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", r"values nested too deeply"),
    (b"x = " + b"{a=" * 100_000 + b"1" + b"}" * 100_000 + b"\n", r"values nested too deeply"),
    (b"profiles = 1\n", r"profiles must be a table of \[profiles.NAME\] tables"),
    (b"[profiles]\ndev = 1\n", r"profiles must be a table of \[profiles.NAME\] tables"),
    (b'default_profile = "dev"\n[profiles.dev]\nbootstrap_servers = ""\n',
     r"Profile 'dev': bootstrap_servers must be a non-empty string"),
    (b'default_profile = "dev"\n[profiles.dev]\nbootstrap_servers = []\n',
     r"Profile 'dev': bootstrap_servers must be host:port strings"),
    (b'default_profile = "dev"\n[profiles.dev]\nbootstrap_servers = ["h:1", 2]\n',
     r"Profile 'dev': bootstrap_servers must be host:port strings"),
    (b'default_profile = "dev"\n[profiles.dev]\nproperties_file = 5\n',
     r"Profile 'dev': properties_file must be a non-empty string"),
    (b'default_profile = "dev"\n[profiles.dev]\nproperties = { "a" = [1] }\n',
     r"Profile property 'a' must be a string, number or boolean"),
])
def test_a_config_file_that_cannot_be_used_is_a_usage_error(config_home, recorded, data, message):
    """Each was exit 1 (a codec error, TypeError: unhashable list, Python's digit limit, a
    RecursionError) or, for an empty bootstrap_servers, the default localhost:9092."""
    (config_home / "kcli" / "config.toml").write_bytes(data)
    code, out, err = run("list", "topics")
    assert code == 2 and not recorded, err
    assert err.startswith("Error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert re.search(message, err), err


def test_a_profile_properties_file_must_be_utf8(config_home, recorded):
    (config_home / "kcli" / "prod.properties").write_bytes(b"client.id=\xff\n")
    code, _, err = run("list", "topics", "--profile", "prod")
    assert code == 2 and not recorded
    assert "profile 'prod' properties_file '" in err and "byte 0xff at offset 10" in err

"""Client properties before any connection: librdkafka's own validation of the whole
configuration (for both client paths), security.protocol never silently PLAINTEXT, and the
properties and JAAS readers in linear time."""

from __future__ import annotations

import pytest

from kcli.admin.settings import ClientSettings, parse_jaas, parse_properties, read_properties
from kcli.errors import UsageError
from tests.support.work import work

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


@pytest.mark.parametrize("props, reason", [
    ({"no.such.property": "1"}, 'No such configuration property: "no.such.property"'),
    ({"\ufeffsecurity.protocol": "SSL"}, "No such configuration property"),
    ({"security.protocol": "BOGUS"}, 'Invalid value "BOGUS" for configuration property "security.protocol"'),
    ({"request.timeout.ms": "0"}, "value 0 is outside allowed range 1..900000"),
    ({"ssl.truststore.location": "/x.jks"}, "Java TrustStores are not supported"),
    ({"security.protocol": "SSL", "ssl.ca.location": "/nonexistent/ca.pem"}, "ssl.ca.location failed"),
    ({"enable.auto.commit": "maybe"}, "Expected bool value"),
])
def test_librdkafka_validates_the_whole_configuration(props, reason):
    settings = ClientSettings("127.0.0.1:1", props)
    with pytest.raises(UsageError) as exc:
        settings.validate()
    message = exc.value.message
    assert message.startswith("Invalid client configuration: ") and reason in message
    assert "\n" not in message                     # librdkafka ends some reasons with a newline


def test_a_valid_configuration_passes_and_is_checked_once(monkeypatch):
    settings = ClientSettings("127.0.0.1:1", {"security.protocol": "sasl_plaintext",
                                              "sasl.mechanism": "PLAIN", "sasl.username": "u",
                                              "sasl.password": "p", "client.id": "x"})
    settings.validate()
    import confluent_kafka.admin

    monkeypatch.setattr(confluent_kafka.admin, "AdminClient", None)   # a second check would fail
    settings.validate()


@pytest.mark.parametrize("protocol", ["BOGUS", "plaintext2", "SASL", ""])
def test_an_unknown_security_protocol_never_becomes_plaintext_on_kclis_connection(protocol):
    with pytest.raises(UsageError, match="security.protocol .* is not one of PLAINTEXT, SSL"):
        ClientSettings("h:1", {"security.protocol": protocol}).kafka_python_config()


def test_known_security_protocols_in_any_case():
    for given, expected in (("sasl_ssl", "SASL_SSL"), ("Ssl", "SSL"), (None, "PLAINTEXT")):
        props = {"security.protocol": given} if given else {}
        assert ClientSettings("h:1", props).kafka_python_config()["security_protocol"] == expected


# -- properties files -----------------------------------------------------------------------------
def test_properties_lines_and_continuations():
    text = "# c\n! c\n\nk1 = v1\r\nk2: v2\rk3=a\\\n    b\\\n c\nk4=x=y\nk5=tail\\"
    assert parse_properties(text, "f") == {"k1": "v1", "k2": "v2", "k3": "abc", "k4": "x=y",
                                           "k5": "tail"}


def test_a_bad_line_is_named_by_its_number():
    with pytest.raises(UsageError, match=r"^Invalid line 3 in f: expected key=value$"):
        parse_properties("a=1\n\njunk\n", "f")


def test_many_continued_lines_are_read_in_linear_time():
    """Each continued line was appended to the whole line so far (quadratic); javaproperties takes
    39 s over 20,000 of them. Counted work (tests/support/work.py), not a clock: 8 times the lines,
    at most about 8 times the work."""
    def read(n):
        count, props = work(lambda: parse_properties("k=" + "a\\\n" * n + "z\n", "f"))
        assert props["k"] == "a" * n + "z"
        return count

    assert read(200_000) <= 9 * read(25_000)


@pytest.mark.parametrize("data, message", [
    (b"\x80", r"--command-config file '.*' is not UTF-8: byte 0x80 at offset 0"),
    (b"a=1\nclient.id=caf\xe9\n", r"is not UTF-8: byte 0xe9 at offset 17"),
    ("\ufeffsecurity.protocol=SSL\n".encode(), r"starts with a UTF-8 byte order mark"),
])
def test_properties_files_must_be_utf8(tmp_path, data, message):
    path = tmp_path / "client.properties"
    path.write_bytes(data)
    with pytest.raises(UsageError, match=message):
        read_properties(str(path))


# -- sasl.jaas.config ---------------------------------------------------------------------------
def test_jaas_values_with_escapes_and_spacing():
    mechanism, options = parse_jaas(f' {PLAIN}  required\n username = "a\\"b"\tpassword=p==  ; ')
    assert mechanism == "PLAIN" and options == {"username": 'a"b', "password": "p=="}


@pytest.mark.parametrize("value", [f"{PLAIN} required username=", f'{PLAIN} required username="x',
                                   f"{PLAIN} required ; extra", f"{PLAIN} required a=b c"])
def test_malformed_jaas_options(value):
    with pytest.raises(UsageError, match='expected key="value" options'):
        parse_jaas(value)


@pytest.mark.parametrize("value", [
    lambda n: f"{PLAIN} required" + " " * n + "x",                      # 5 s at 32,000 spaces before
    lambda n: f'{PLAIN} required username="' + "a" * n,
    lambda n: f"{PLAIN} required" + " a=b" * (n // 4) + " ?",
    lambda n: " " * n + "x",
    lambda n: f"{PLAIN} required " + "\\" * n,
])
def test_jaas_values_are_refused_in_linear_time(value):
    """Counted work (tests/support/work.py), not a clock: 8 times the repeated part, at most
    about 8 times the work. The JAAS regexes are possessive, so a match cannot backtrack in C,
    where no count sees it."""
    counts = []
    for n in (25_000, 200_000):
        count, refused = work(lambda: parse_jaas(value(n)))
        assert isinstance(refused, UsageError), refused
        counts.append(count)
    assert counts[1] <= 9 * counts[0] + 100, counts


def test_java_client_properties_for_a_jvm_client(tmp_path):
    """kcli's settings as Java's client takes them (Spark's Kafka connector): PLAIN and SCRAM as a
    JAAS line kcli's own reader gives back unchanged, PEM files as PEM stores, the host check."""
    from kcli.admin.settings import java_client_properties, normalize_properties

    password = 'p"a\\ss word;'
    java = java_client_properties(normalize_properties({
        "security.protocol": "SASL_SSL",
        "sasl.jaas.config": PLAIN + r' required username="alice" password="p\"a\\ss word;";',
        "ssl.endpoint.identification.algorithm": "", "client.id": "me", "receive.buffer.bytes": "65536",
        "bootstrap.servers": "ignored:1"}), "reader")
    assert parse_jaas(java.pop("sasl.jaas.config")) == ("PLAIN", {"username": "alice", "password": password})
    assert java == {"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "client.id": "me",
                    "ssl.endpoint.identification.algorithm": "", "receive.buffer.bytes": "65536"}
    jaas = java_client_properties({"sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "alice",
                                   "sasl.password": password}, "reader")["sasl.jaas.config"]
    assert parse_jaas(jaas) == (None, {"username": "alice", "password": password})   # SCRAM: either hash
    (tmp_path / "cert.pem").write_text("CERT"), (tmp_path / "key.pem").write_text("KEY")
    assert java_client_properties({"ssl.ca.location": "/ca.pem", "ssl.certificate.location": str(tmp_path / "cert.pem"),
                                   "ssl.key.location": str(tmp_path / "key.pem")}, "reader") == {
        "ssl.truststore.type": "PEM", "ssl.truststore.location": "/ca.pem", "ssl.keystore.type": "PEM",
        "ssl.keystore.certificate.chain": "CERT", "ssl.keystore.key": "KEY"}


@pytest.mark.parametrize("props, named", [
    ({"sasl.mechanism": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc"}, "sasl.mechanism, sasl.oauthbearer.method"),
    ({"enable.ssl.certificate.verification": "false"}, "enable.ssl.certificate.verification"),
])
def test_java_client_properties_names_what_a_jvm_client_cannot_take(props, named):
    from kcli.admin.settings import java_client_properties

    with pytest.raises(UsageError) as exc:
        java_client_properties(props, "the reader", "use the other")
    assert exc.value.message == f"the reader cannot take these client properties: {named}; use the other"

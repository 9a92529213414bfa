"""Connection settings and Kafka client properties (``--command-config``), translated for each
client kcli uses: librdkafka (confluent-kafka) and kafka-python's protocol client."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from kcli.errors import UsageError
from kcli.inputs import shown

DEFAULT_BOOTSTRAP = "localhost:9092"
DEFAULT_TIMEOUT_MS = 30_000
MAX_TIMEOUT_MS = 3_600_000        # librdkafka refuses request timeouts above one hour
SECRET_KEYS = ("password", "secret", "jaas", "token", "key.pem", "credentials")


def parse_timeout_ms(text: str) -> int:
    """``--timeout``: a duration (a bare number is milliseconds) from 1 ms to 1 h, the longest
    request timeout librdkafka takes (every librdkafka command would fail beyond it)."""
    from kcli.times import TimeParseError, parse_duration_ms

    try:
        ms = parse_duration_ms(text)
    except TimeParseError as exc:
        raise UsageError(f"--timeout: {exc}") from None
    if not 1 <= ms <= MAX_TIMEOUT_MS:
        raise UsageError(f"--timeout must be from 1 ms to 1 h ({MAX_TIMEOUT_MS} ms); "
                         f"'{shown(text)}' is {ms} ms")
    return ms


@dataclass
class ClientSettings:
    bootstrap_servers: str = DEFAULT_BOOTSTRAP
    properties: dict[str, str] = field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    @property
    def timeout_s(self) -> float:
        return self.timeout_ms / 1000.0

    def librdkafka_config(self) -> dict[str, str]:
        conf = {"bootstrap.servers": self.bootstrap_servers}
        conf.update(self.properties)
        return conf

    def kafka_python_config(self) -> dict:
        p = self.properties
        conf = {"bootstrap_servers": self.bootstrap_servers.split(","),
                "request_timeout_ms": max(1000, self.timeout_ms),
                "client_id": p.get("client.id", "kcli")}
        mapping = {
            "security.protocol": "security_protocol",
            "sasl.mechanism": "sasl_mechanism", "sasl.mechanisms": "sasl_mechanism",
            "sasl.username": "sasl_plain_username", "sasl.password": "sasl_plain_password",
            "ssl.ca.location": "ssl_cafile", "ssl.certificate.location": "ssl_certfile",
            "ssl.key.location": "ssl_keyfile", "ssl.key.password": "ssl_password",
        }
        for key, target in mapping.items():
            if key in p:
                conf[target] = p[key].upper() if target == "security_protocol" else p[key]
        if p.get("ssl.endpoint.identification.algorithm", "https").lower() == "none":
            conf["ssl_check_hostname"] = False
        return conf


def redact(key: str, value: str) -> str:
    return "[redacted]" if any(s in key.lower() for s in SECRET_KEYS) else value


JAAS_MODULES = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": "PLAIN",
    "org.apache.kafka.common.security.scram.ScramLoginModule": None,   # SCRAM-SHA-256 or -512
}
_JAAS = re.compile(r'^\s*(?P<module>[\w.$]+)\s+(?P<flag>required|requisite|sufficient|optional)'
                   r'(?P<options>.*?);?\s*$', re.S)
_JAAS_OPTION = re.compile(r'\s*(?P<key>[\w.-]+)\s*=\s*(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<bare>[^\s;"]+))')


def parse_jaas(value: str) -> tuple[str | None, dict[str, str]]:
    """``<LoginModule> required key="value" ...;`` -> (the SASL mechanism it implies, options).
    Only the PLAIN and SCRAM modules are understood: librdkafka has no JAAS."""
    m = _JAAS.match(value)
    if not m or m["module"] not in JAAS_MODULES:
        module = m["module"] if m else "an unparsable value"
        raise UsageError(f"sasl.jaas.config: {module} is not supported (only PlainLoginModule and "
                         "ScramLoginModule); give sasl.username/sasl.password instead")
    options, rest = {}, m["options"]
    pos = 0
    while pos < len(rest.rstrip()):
        om = _JAAS_OPTION.match(rest, pos)
        if not om:
            raise UsageError("sasl.jaas.config: expected key=\"value\" options after the login module")
        raw = om["quoted"] if om["quoted"] is not None else om["bare"]
        options[om["key"]] = re.sub(r"\\(.)", r"\1", raw)
        pos = om.end()
    return JAAS_MODULES[m["module"]], options


def normalize_properties(props: dict[str, str]) -> dict[str, str]:
    """Java client properties as both clients kcli uses need them: ``sasl.jaas.config`` (PLAIN,
    SCRAM) becomes ``sasl.username``/``sasl.password`` (explicit ones win); ``sasl.mechanism`` is
    kept (librdkafka accepts it as ``sasl.mechanisms``), PLAIN is implied by PlainLoginModule."""
    out = {k: v for k, v in props.items() if k != "sasl.jaas.config"}
    if "sasl.jaas.config" in props:
        mechanism, options = parse_jaas(props["sasl.jaas.config"])
        for opt, key in (("username", "sasl.username"), ("password", "sasl.password")):
            if opt in options:
                out.setdefault(key, options[opt])
        if mechanism and "sasl.mechanism" not in out and "sasl.mechanisms" not in out:
            out["sasl.mechanism"] = mechanism
    return out


def is_secret(key: str) -> bool:
    return any(s in key.lower() for s in SECRET_KEYS)


def secret_values(props: dict[str, str]) -> list[str]:
    """Every secret value in ``props`` (longest first), for redacting free text."""
    return sorted({v for k, v in props.items() if is_secret(k) and v}, key=len, reverse=True)


def redact_text(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text


def read_properties(path: str) -> dict[str, str]:
    """A Java-style properties file: ``key=value`` or ``key: value``, ``#``/``!`` comments."""
    if not os.path.isfile(path):
        raise UsageError(f"Cannot read --command-config file '{path}'")
    props: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        pending = ""
        for raw in fh:
            line = pending + raw.strip()
            pending = ""
            if not line or line[0] in "#!":
                continue
            if line.endswith("\\"):
                pending = line[:-1]
                continue
            seps = [i for i in (line.find("="), line.find(":")) if i > 0]
            if not seps:
                raise UsageError(f"Invalid line in '{path}': expected key=value")
            i = min(seps)
            props[line[:i].strip()] = line[i + 1:].strip()
    return normalize_properties(props)

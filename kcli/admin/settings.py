"""Connection settings and Kafka client properties (``--command-config``), translated for each
client kcli uses: librdkafka (confluent-kafka) and kafka-python's protocol client."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from kcli.errors import UsageError

DEFAULT_BOOTSTRAP = "localhost:9092"
DEFAULT_TIMEOUT_MS = 30_000
SECRET_KEYS = ("password", "secret", "jaas", "token", "key.pem", "credentials")


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
        return conf


def redact(key: str, value: str) -> str:
    return "[redacted]" if any(s in key.lower() for s in SECRET_KEYS) else value


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
    return props

"""Connection settings and Kafka client properties (``--command-config``), translated for each
client kcli uses: librdkafka (confluent-kafka) and kafka-python's protocol client.

Every reader here runs in linear time on any input (no backtracking regex, no repeated
concatenation): a properties file, a ``sasl.jaas.config`` value, a ``--timeout``."""

from __future__ import annotations

import logging
import re
import time

from kcli.errors import UsageError
from kcli.inputs import read_text, shown
from kcli.datatypes import field, datatype

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

DEFAULT_BOOTSTRAP = "localhost:9092"
DEFAULT_TIMEOUT_MS = 30_000
MAX_TIMEOUT_MS = 3_600_000        # librdkafka refuses request timeouts above one hour
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")

_quiet = logging.getLogger("kcli.librdkafka.validation")
_quiet.addHandler(logging.NullHandler())
_quiet.propagate = False


def parse_timeout_ms(text: str) -> int:
    """``--timeout``: a duration (a bare number is milliseconds) from 1 ms to 1 h, the longest
    request timeout librdkafka takes (every librdkafka command would fail beyond it)."""
    from kcli.specs import duration_arg

    ms = duration_arg("--timeout", text)
    if not 1 <= ms <= MAX_TIMEOUT_MS:
        raise UsageError(f"--timeout must be from 1 ms to 1 h ({MAX_TIMEOUT_MS} ms); "
                         f"'{shown(text)}' is {ms} ms")
    return ms


def host_port(server: str) -> tuple[str, int] | None:
    """``host:port`` (``[v6]:port`` too) as (host, port), or None when it is not one: the rule
    for every bootstrap server (kcli's own connection reads them with it)."""
    host, sep, port = server.strip().rpartition(":")
    host = host.strip().strip("[]")
    if not sep or not host or not (port.isascii() and port.isdigit()) or len(port) > 5 or int(port) > 65535:
        return None
    return host, int(port)


def check_bootstrap(servers: str) -> None:
    """Every comma-separated bootstrap server is host:port: UsageError (exit 2) before any
    connection otherwise (kcli's own connection failed on it, exit 1)."""
    if any(host_port(server) is None for server in servers.split(",")):
        raise UsageError(f"Invalid bootstrap server list '{shown(servers)}': expected host:port[,host:port...]")


class _OwnDeadline:
    def __init__(self, settings: "ClientSettings", seconds: float):
        self.settings, self.seconds = settings, seconds
        self.saved: float | None = None

    def __enter__(self):
        self.saved = self.settings.deadline
        self.settings.deadline = time.monotonic() + self.seconds

    def __exit__(self, *exc):
        self.settings.deadline = self.saved


@datatype
class ClientSettings:
    """Where and how to connect. ``timeout_ms`` bounds each call; with ``deadline`` (a
    ``time.monotonic()`` instant: a command's whole ``--timeout``) every call ends by then too,
    so one deadline is threaded through every request of the command, on both client paths."""
    bootstrap_servers: str = DEFAULT_BOOTSTRAP
    properties: dict[str, str] = field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    deadline: float | None = None
    _validated: object = field(default=None, init=False, repr=False, compare=False)

    def validate(self) -> None:
        """librdkafka's own validation of the whole configuration (every property, its value, the
        files it names) before any client connects: a client built without bootstrap.servers
        checks everything, connects nowhere, and is destroyed at once. Both client paths rely on
        it; kcli's own connection (``kcli.admin.wire``) would otherwise ignore what it does not
        understand. Without properties there is nothing of the user's to check."""
        refuse_nul(self.librdkafka_config())
        check_bootstrap(self.bootstrap_servers)
        conf: dict[str, str | int | float | bool] = {
            k: v for k, v in self.librdkafka_config().items() if k != "bootstrap.servers"}
        if not conf or self._validated == conf:
            return
        check_credentials(conf)
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import AdminClient

        try:
            AdminClient(conf, logger=_quiet)          # no reference kept: destroyed here
        except KafkaException as exc:
            reason = exc.args[0].str() if exc.args and hasattr(exc.args[0], "str") else str(exc)
            raise UsageError(f"Invalid client configuration: {' '.join(reason.split())}") from None
        except Exception as exc:  # noqa: BLE001 - a value the binding cannot even pass on
            raise UsageError(f"Invalid client configuration: {type(exc).__name__}") from None
        self._validated = conf

    @property
    def timeout_s(self) -> float:
        return self.timeout_ms / 1000.0

    def until(self) -> float:
        """The instant a call starting now must end by."""
        call = time.monotonic() + self.timeout_s
        return call if self.deadline is None else min(call, self.deadline)

    def own_deadline(self, seconds: float):
        """A context in which calls end by ``seconds`` from now instead of the command's
        deadline: a clean-up after a step that used up the command's time still gets its own."""
        return _OwnDeadline(self, seconds)

    def remaining_s(self) -> float:
        """Seconds left for a call starting now (0 when the deadline has passed)."""
        return max(0.0, self.until() - time.monotonic())

    def principal(self) -> str | None:
        """The principal Kafka's default principal builder makes of these settings: ``User:NAME``
        for SASL PLAIN and SCRAM (``sasl.username``), ``User:ANONYMOUS`` on a PLAINTEXT listener;
        None where kcli cannot tell (OAUTHBEARER's subject, GSSAPI, a TLS certificate's name)."""
        p = self.properties
        protocol = p.get("security.protocol", "PLAINTEXT").upper()
        mechanism = (p.get("sasl.mechanism") or p.get("sasl.mechanisms") or "GSSAPI").upper()
        if protocol == "PLAINTEXT":
            return "User:ANONYMOUS"
        if protocol.startswith("SASL") and mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") \
                and p.get("sasl.username"):
            return f"User:{p['sasl.username']}"
        return None

    def librdkafka_config(self) -> dict[str, str]:
        conf = {"bootstrap.servers": self.bootstrap_servers}
        conf.update({k: v for k, v in self.properties.items() if k not in IGNORED})
        return conf

    def ignored(self) -> list[str]:
        """The Java-only properties given, which no client of kcli's takes (IGNORED)."""
        return sorted(k for k in self.properties if k in IGNORED)

    def ignored_warning(self) -> str | None:
        """The one line naming the ignored properties, if any."""
        keys = self.ignored()
        if not keys:
            return None
        hint = "; --timeout bounds every call" if any(k.endswith(".ms") for k in keys) else ""
        return (f"Warn: ignored Java-only client properties (kcli's clients have no such setting{hint}): "
                f"{', '.join(keys)}")

    def kafka_python_config(self) -> dict[str, Any]:
        p = self.properties
        conf: dict[str, Any] = {"bootstrap_servers": self.bootstrap_servers.split(","),
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
                conf[target] = p[key]
        protocol = p.get("security.protocol", "PLAINTEXT").upper()
        if protocol not in SECURITY_PROTOCOLS:         # never a silent PLAINTEXT
            raise UsageError(f"Invalid client configuration: security.protocol "
                             f"'{shown(p['security.protocol'])}' is not one of {', '.join(SECURITY_PROTOCOLS)}")
        conf["security_protocol"] = protocol
        if p.get("ssl.endpoint.identification.algorithm", "https").lower() == "none":
            conf["ssl_check_hostname"] = False
        if conf.get("sasl_mechanism", "").upper() == "OAUTHBEARER":
            from kcli.admin.oauth import token_provider

            conf["sasl_oauth_token_provider"] = token_provider(p)
        return conf


# librdkafka settings Java's client takes under the same name and with the same values.
SAME_IN_JAVA = ("security.protocol", "client.id", "isolation.level", "sasl.kerberos.service.name",
                "ssl.key.password", "socket.receive.buffer.bytes", "socket.send.buffer.bytes")
_JAAS_LOGIN = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
               "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
               "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule"}


def java_client_properties(props: Mapping[str, str], reader: str, instead: str = "") -> dict[str, str]:
    """kcli's client settings (librdkafka's names, as ``normalize_properties`` leaves them) as
    Java's Kafka client takes them, for a JVM client (Spark's Kafka connector): SASL PLAIN and
    SCRAM as a ``sasl.jaas.config``, PEM files as PEM stores, the host check, and the keys both
    clients share (SAME_IN_JAVA and RENAMED); Java-only keys (IGNORED) as given. A setting with
    no Java counterpart here (OAUTHBEARER, GSSAPI, librdkafka-only keys) is one UsageError that
    names it, ``reader`` and what takes it ``instead``."""
    out: dict[str, str] = {}
    rest = {k: v for k, v in props.items() if k != "bootstrap.servers"}
    java_names = {ours: java for java, ours in RENAMED.items()}
    for key in [k for k in rest if k in SAME_IN_JAVA or k in IGNORED]:
        out[java_names.get(key, key)] = rest.pop(key)
    mechanism = (rest.pop("sasl.mechanism", None) or rest.pop("sasl.mechanisms", None) or "").upper()
    if mechanism in _JAAS_LOGIN:
        user, password = rest.pop("sasl.username", ""), rest.pop("sasl.password", "")
        out["sasl.mechanism"] = mechanism
        out["sasl.jaas.config"] = (f"{_JAAS_LOGIN[mechanism]} required username={_jaas_quoted(user)} "
                                   f"password={_jaas_quoted(password)};")
    elif mechanism:
        rest["sasl.mechanism"] = mechanism
    if "ssl.ca.location" in rest:
        out.update({"ssl.truststore.type": "PEM", "ssl.truststore.location": rest.pop("ssl.ca.location")})
    if "ssl.certificate.location" in rest and "ssl.key.location" in rest:
        out["ssl.keystore.type"] = "PEM"
        out["ssl.keystore.certificate.chain"] = read_text(rest.pop("ssl.certificate.location"),
                                                          "ssl.certificate.location")
        out["ssl.keystore.key"] = read_text(rest.pop("ssl.key.location"), "ssl.key.location")
    check = rest.pop("ssl.endpoint.identification.algorithm", None)
    if check is not None:
        out["ssl.endpoint.identification.algorithm"] = "" if check.strip().lower() == "none" else check
    if rest:
        raise UsageError(f"{reader} cannot take these client properties: {', '.join(sorted(rest))}"
                         + (f"; {instead}" if instead else ""))
    return out


def _jaas_quoted(value: str) -> str:
    """A JAAS option value in double quotes, with backslash escapes (``parse_jaas`` reads them)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


JAAS_MODULES = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": "PLAIN",
    "org.apache.kafka.common.security.scram.ScramLoginModule": None,   # SCRAM-SHA-256 or -512
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule": "OAUTHBEARER",
    "com.sun.security.auth.module.Krb5LoginModule": "GSSAPI",
}
# Matched at a position, possessively (no backtracking): linear in the value's length.
_JAAS_HEAD = re.compile(r"\s*+([\w.$]++)\s++(required|requisite|sufficient|optional)")
_JAAS_OPTION = re.compile(r'\s*+([\w.-]++)\s*+=\s*+(?:"((?:[^"\\]++|\\.)*+)"|([^\s;"]++))', re.S)
_JAAS_END = re.compile(r"\s*+;?+\s*+")
_ESCAPE = re.compile(r"\\(.)")


def parse_jaas(value: str) -> tuple[str | None, dict[str, str]]:
    """``<LoginModule> required key="value" ...;`` -> (the SASL mechanism it implies, options).
    The PLAIN, SCRAM, OAUTHBEARER and Kerberos (GSSAPI) modules are understood: librdkafka has no
    JAAS, so ``normalize_properties`` turns their options into its settings."""
    m = _JAAS_HEAD.match(value)
    if not m or m[1] not in JAAS_MODULES:
        module = shown(m[1]) if m else "an unparsable value"
        raise UsageError(f"sasl.jaas.config: {module} is not supported (only PlainLoginModule, "
                         "ScramLoginModule, OAuthBearerLoginModule and Krb5LoginModule)")
    options, pos = {}, m.end()
    while om := _JAAS_OPTION.match(value, pos):
        options[om[1]] = _ESCAPE.sub(r"\1", om[2]) if om[2] is not None else om[3]
        pos = om.end()
    if not _JAAS_END.fullmatch(value, pos):
        raise UsageError("sasl.jaas.config: expected key=\"value\" options after the login module")
    return JAAS_MODULES[m[1]], options


OIDC_LOGIN_HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
# The one table from Java client properties to what kcli's clients take (both paths read the
# result: librdkafka as is, kafka-python through ClientSettings.kafka_python_config).
RENAMED = {"receive.buffer.bytes": "socket.receive.buffer.bytes",
           "send.buffer.bytes": "socket.send.buffer.bytes"}
# Java-only settings with no librdkafka counterpart: dropped, named in one warning line.
IGNORED = frozenset({
    "default.api.timeout.ms",                  # kcli's --timeout bounds every call
    "ssl.protocol", "ssl.enabled.protocols", "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm", "ssl.secure.random.implementation", "ssl.engine.factory.class",
    "security.providers", "sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
    "sasl.login.class", "sasl.login.connect.timeout.ms", "sasl.login.read.timeout.ms",
    "sasl.login.retry.backoff.ms", "sasl.login.retry.backoff.max.ms",
    "sasl.login.refresh.buffer.seconds", "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter",
    "sasl.oauthbearer.scope.claim.name", "sasl.oauthbearer.sub.claim.name",
    "sasl.oauthbearer.jwks.endpoint.url", "sasl.oauthbearer.expected.audience",
    "sasl.oauthbearer.expected.issuer", "sasl.oauthbearer.clock.skew.seconds",
    "sasl.kerberos.kinit.cmd", "sasl.kerberos.min.time.before.relogin",
    "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.ticket.renew.window.factor",
    "metric.reporters", "metrics.num.samples", "metrics.sample.window.ms",
    "metrics.recording.level", "auto.include.jmx.reporter", "enable.metrics.push",
})


def refuse_nul(settings: dict[str, str]) -> None:
    """No client setting holds a NUL character: librdkafka would cut the value there (a
    client.id, a CA path) and a path with one names no file. UsageError (exit 2) otherwise."""
    for key, value in settings.items():
        if "\0" in key or "\0" in str(value):
            where = "name" if "\0" in key else "value"
            raise UsageError(f"Invalid client configuration: the {where} of "
                             f"{shown(key)} contains a NUL character")


def normalize_properties(props: dict[str, str]) -> dict[str, str]:
    """Java client properties as kcli's clients take them (the table above):
    - ``sasl.jaas.config``: PLAIN/SCRAM become ``sasl.username``/``sasl.password``;
      OAUTHBEARER becomes librdkafka's OIDC settings (``sasl.oauthbearer.method=oidc`` with the
      client id, secret and scope, when ``sasl.oauthbearer.token.endpoint.url`` is given) or its
      unsecured JWT (``unsecuredLoginStringClaim_sub``); Krb5LoginModule becomes
      ``sasl.kerberos.principal``/``keytab`` (GSSAPI, where librdkafka is built with it);
      explicit librdkafka keys win;
    - ``ssl.truststore.*``/``ssl.keystore.*``: PEM and PKCS12 stores (``kcli.admin.stores``);
      a JKS store is refused with the keytool command that converts it;
    - an empty ``ssl.endpoint.identification.algorithm`` (Java's way to skip the host check) is
      ``none``; renamed keys are renamed; Java-only keys stay, to be named once and dropped.
    A NUL anywhere is refused first (``refuse_nul``)."""
    refuse_nul(props)
    out = {k: v for k, v in props.items() if k != "sasl.jaas.config"}
    if out.get("sasl.login.callback.handler.class") == OIDC_LOGIN_HANDLER:
        del out["sasl.login.callback.handler.class"]    # Java's OIDC login: implied by the endpoint URL
    if "sasl.jaas.config" in props:
        mechanism, options = parse_jaas(props["sasl.jaas.config"])
        for key, value in _jaas_settings(mechanism, options, out).items():
            out.setdefault(key, value)
        if mechanism and "sasl.mechanism" not in out and "sasl.mechanisms" not in out:
            out["sasl.mechanism"] = mechanism
    for java, ours in RENAMED.items():
        if java in out:
            out.setdefault(ours, out.pop(java))
    if out.get("ssl.endpoint.identification.algorithm", "https").strip() == "":
        out["ssl.endpoint.identification.algorithm"] = "none"
    if any(k.startswith(("ssl.truststore.", "ssl.keystore.")) for k in out):
        from kcli.admin.stores import translate_stores

        out = translate_stores(out)
    return out


def check_credentials(conf: dict[str, str | int | float | bool]) -> None:
    """SASL PLAIN or SCRAM without a user name or password, said in the names of the Java
    properties a --command-config file holds (librdkafka's own words are "sasl.username and
    sasl.password must be set", keys the user may never have written)."""
    mechanism = str(conf.get("sasl.mechanism") or conf.get("sasl.mechanisms") or "").upper()
    if (not str(conf.get("security.protocol", "")).upper().startswith("SASL") or mechanism not in _JAAS_LOGIN
            or ("sasl.username" in conf and "sasl.password" in conf)):
        return
    missing = [o for o, k in (("username", "sasl.username"), ("password", "sasl.password")) if k not in conf]
    raise UsageError(f"SASL/{mechanism} needs a user name and password: sasl.jaas.config={_JAAS_LOGIN[mechanism]} "
                     f'required username="..." password="..."; (no {" or ".join(missing)} given; librdkafka\'s '
                     "names: sasl.username, sasl.password)")


def _jaas_settings(mechanism: str | None, options: dict[str, str], props: dict[str, str]) -> dict[str, str]:
    if mechanism == "OAUTHBEARER":
        if props.get("sasl.oauthbearer.token.endpoint.url"):
            settings = {"sasl.oauthbearer.method": "oidc",
                        "sasl.oauthbearer.client.id": options.get("clientId", ""),
                        "sasl.oauthbearer.client.secret": options.get("clientSecret", "")}
            if options.get("scope"):
                settings["sasl.oauthbearer.scope"] = options["scope"]
            return settings
        sub = options.get("unsecuredLoginStringClaim_sub")
        if not sub:
            raise UsageError("sasl.jaas.config: OAuthBearerLoginModule needs "
                             "sasl.oauthbearer.token.endpoint.url (OIDC) or unsecuredLoginStringClaim_sub")
        return {"enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": f"principal={sub}"}
    if mechanism == "GSSAPI":
        return {k: options[o] for o, k in (("principal", "sasl.kerberos.principal"),
                                            ("keyTab", "sasl.kerberos.keytab")) if o in options}
    return {key: options[opt] for opt, key in (("username", "sasl.username"), ("password", "sasl.password"))
            if opt in options}


_NEWLINE = re.compile(r"\r\n|\r|\n")             # Java's natural lines


def parse_properties(text: str, where: str) -> dict[str, str]:
    """A Java-style properties text: ``key=value`` or ``key: value``, ``#``/``!`` comments, a
    trailing ``\\`` continues the line (the next one's leading spaces dropped). ``where`` names
    the file in errors. (The javaproperties library reads the full Java grammar but takes
    quadratic time over continued lines, so this subset is read here, in linear time.)"""
    props: dict[str, str] = {}
    parts: list[str] = []                        # the pieces of a continued line

    def add(entry: str, lineno: int) -> None:
        seps = [i for i in (entry.find("="), entry.find(":")) if i > 0]
        if not seps:
            raise UsageError(f"Invalid line {lineno} in {where}: expected key=value")
        i = min(seps)
        props[entry[:i].strip()] = entry[i + 1:].strip()

    lineno = 0
    for lineno, raw in enumerate(_NEWLINE.split(text), start=1):
        line = raw.strip()
        if not parts and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\"):
            parts.append(line[:-1])
            continue
        parts.append(line)
        add("".join(parts), lineno)
        parts = []
    if parts and "".join(parts).strip():         # the file ends in a continued line
        add("".join(parts), lineno)
    return normalize_properties(props)


def read_properties(path: str, what: str = "--command-config file") -> dict[str, str]:
    """The properties file at ``path`` (UTF-8); ``what`` names it in errors."""
    return parse_properties(read_text(path, what), f"{what} '{shown(path, 200)}'")

"""``kcli lag serve``'s HTTP side: the collector's last snapshot (``kcli.ops.lag_service``) as
Prometheus metric families, written by ``prometheus_client`` (its WSGI app: Prometheus text or
OpenMetrics as the scraper's Accept header asks, gzip when it accepts it), and ``/healthz``.
Nothing here calls Kafka: a scrape reads what the last collection left.

Not ``kcli.render``: render draws terminal views with rich; this is a service's wire format and
its server. The metric names and labels are kafka-lag-exporter's (dashboards and alerts keep
working), plus kcli's own (``kcli_*``), each in docs/lag-service.md. A failed collection leaves
no snapshot: its lag series are dropped, only the collector's own are served.

    server = bind("127.0.0.1", 8000, app(collector))      # UsageError / OperationError
    serve(server, collector, stop_event, print)           # until stop_event is set
"""

from __future__ import annotations

import base64
import errno
import gzip
import hmac
import os
import socket
import ssl
import threading
from socketserver import ThreadingMixIn
from typing import Callable, Iterable, Iterator
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder, gzip_accepted
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from kcli.errors import OperationError, UsageError
from kcli.inputs import parse_int, read_text, shown
from kcli.model import max_time_lag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.ops.lag_service import Collector, Health, LagSnapshot

ROW = ["cluster_name", "group", "topic", "partition", "member_host", "consumer_id", "client_id"]
PARTITION = ["cluster_name", "topic", "partition"]
GROUP_TYPED = ["cluster_name", "group", "group_type"]
PARTITION_OF_GROUP = ROW[:4]
GRANULARITIES = ("partition", "topic", "group")
# the families a coarser --granularity leaves out (large clusters: a series per partition and group)
PER_PARTITION = frozenset({"kafka_consumergroup_group_offset", "kafka_consumergroup_group_lag",
                           "kafka_consumergroup_group_lag_seconds", "kcli_consumergroup_group_lag_seconds_is_bound",
                           "kcli_consumergroup_group_retention_lost_records", "kafka_partition_latest_offset",
                           "kafka_partition_earliest_offset"})
PER_TOPIC = frozenset({"kafka_consumergroup_group_topic_sum_lag", "kcli_consumergroup_group_topic_max_lag_seconds"})


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6), port 0 to 65535 (0: any free one)."""
    host, _, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        if not (host and port.isascii() and port.isdigit()):
            raise ValueError(port)
        return host, parse_int(port, 0, 65535)
    except ValueError:
        raise UsageError(f"Invalid --listen '{shown(text)}': expected HOST:PORT (port 0 to 65535)") from None


class LagMetrics:
    """A prometheus_client collector over ``source`` (a ``kcli.ops.lag_service.Collector``);
    ``granularity`` "topic" leaves out the per-partition families, "group" the per-topic ones too."""

    def __init__(self, source: Collector, granularity: str = "partition"):
        self.source, self.granularity = source, granularity

    def collect(self) -> Iterator[Metric]:
        snap, health = self.source.last              # one read: a whole collection (or none) and its health
        yield from collector_families(health, snap is not None)
        if snap is not None:
            left_out = {"partition": frozenset(), "topic": PER_PARTITION, "group": PER_PARTITION | PER_TOPIC}
            yield from (f for f in lag_families(snap) if f.name not in left_out[self.granularity])


def _gauge(name: str, doc: str, labels: list[str]) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, doc, labels=labels)


def collector_families(h: Health, fresh: bool) -> Iterable[Metric]:
    up = _gauge("kcli_lag_collector_up", "1 when the last collection succeeded (its series are served), 0 when it "
                "failed (the lag series are dropped)", [])
    up.add_metric([], 1 if fresh else 0)
    collections = CounterMetricFamily("kcli_lag_collector_collections", "Collections attempted", labels=[])
    collections.add_metric([], h.collections)
    failures = CounterMetricFamily("kcli_lag_collector_failures", "Collections failed", labels=[])
    failures.add_metric([], h.failures)
    in_row = _gauge("kcli_lag_collector_failures_in_row", "Collections failed since the last success", [])
    in_row.add_metric([], h.failures_in_row)
    fetched = CounterMetricFamily("kcli_lag_collector_record_times_fetched",
                                  "Next-record timestamps asked of the cluster (the others came from the cache)",
                                  labels=[])
    fetched.add_metric([], h.fetched_record_times)
    cached = _gauge("kcli_lag_collector_record_times_cached", "Next-record timestamps kept by (partition, offset)", [])
    cached.add_metric([], h.cached_record_times)
    calls = _gauge("kcli_lag_collector_calls", "Adapter calls the last collection made, by call (each is one Kafka "
                   "request or more: one per broker or coordinator it concerns)", ["call"])
    for name, n in sorted(h.calls.items()):
        calls.add_metric([name], n)
    errors = CounterMetricFamily("kcli_lag_collector_call_errors", "Adapter calls that failed, by call",
                                 labels=["call"])
    for name, n in sorted(h.call_errors.items()):
        errors.add_metric([name], n)
    families: list[Metric] = [up, collections, failures, in_row, fetched, cached, calls, errors]
    if h.last_duration_s is not None:
        duration = _gauge("kcli_lag_collector_duration_seconds", "Wall time of the last collection", [])
        duration.add_metric([], h.last_duration_s)
        families.append(duration)
    if h.last_success_s is not None:
        last = _gauge("kcli_lag_collector_last_success_timestamp_seconds",
                      "When the last successful collection ended (epoch seconds)", [])
        last.add_metric([], h.last_success_s)
        families.append(last)
    return families


def lag_families(snap: LagSnapshot) -> Iterable[Metric]:
    """kafka-lag-exporter's families and kcli's, from one snapshot."""
    c = snap.cluster_name
    offset = _gauge("kafka_consumergroup_group_offset", "The group's committed offset on the partition", ROW)
    lag = _gauge("kafka_consumergroup_group_lag", "Log end offset minus the committed offset", ROW)
    lag_s = _gauge("kafka_consumergroup_group_lag_seconds",
                   "Now minus the timestamp of the next record the group will read (exact; a lower bound when "
                   "kcli_consumergroup_group_lag_seconds_is_bound; negative when that record is future-dated)", ROW)
    bound = _gauge("kcli_consumergroup_group_lag_seconds_is_bound",
                   "1 when the partition's lag in seconds is a lower bound (the next record lay in a batch the "
                   "Fetch cut short: its batch's max timestamp was used)", ROW[:4])
    lost = _gauge("kcli_consumergroup_group_retention_lost_records",
                  "Records removed below the log start that the group had not read (committed offset under "
                  "the log start)", ROW[:4])
    max_lag = _gauge("kafka_consumergroup_group_max_lag", "The group's largest partition lag in offsets",
                     ["cluster_name", "group", "is_simple_consumer"])
    max_lag_s = _gauge("kafka_consumergroup_group_max_lag_seconds", "The group's largest partition lag in seconds",
                       ["cluster_name", "group", "is_simple_consumer"])
    max_bound = _gauge("kcli_consumergroup_group_max_lag_seconds_is_bound",
                       "1 when the group's max lag in seconds is a lower bound (a partition's is one, or unknown)",
                       ["cluster_name", "group"])
    sum_lag = _gauge("kafka_consumergroup_group_sum_lag", "The sum of the group's partition lags in offsets",
                     ["cluster_name", "group"])
    topic_sum = _gauge("kafka_consumergroup_group_topic_sum_lag",
                       "The sum of the group's partition lags in offsets on one topic",
                       ["cluster_name", "group", "topic"])
    topic_max_s = _gauge("kcli_consumergroup_group_topic_max_lag_seconds",
                         "The group's largest partition lag in seconds on one topic",
                         ["cluster_name", "group", "topic"])
    state = _gauge("kcli_consumergroup_group_state", "1 for the group's state (the state label)",
                   GROUP_TYPED + ["state"])
    members = _gauge("kcli_consumergroup_group_members", "The group's members", GROUP_TYPED)
    held = ROW[:4] + ["transactional_id", "producer_id", "hanging"]
    held_records = _gauge("kcli_consumergroup_group_lso_held_records",
                          "Records an open transaction holds back from the group (its start offset, the last "
                          "stable offset, to the high watermark): read_committed consumers read none of them", held)
    held_age = _gauge("kcli_consumergroup_group_lso_held_seconds",
                      "How long the open transaction holding the group's last stable offset has been open (since "
                      "its producer last wrote); hanging=\"true\": its coordinator will never end it", held)
    for g in snap.groups:
        state.add_metric([c, g.group_id, g.type, g.state], 1)
        members.add_metric([c, g.group_id, g.type], g.members)
        simple = "true" if g.simple else "false"
        lags = [r.lag for r in g.rows if r.lag is not None]
        by_topic: dict[str, int] = {}
        for r in g.rows:
            if r.current is None:
                continue
            labels = [c, g.group_id, r.topic, str(r.partition), r.host or "", r.consumer_id or "", r.client_id or ""]
            offset.add_metric(labels, r.current)
            if r.lag is not None:
                lag.add_metric(labels, r.lag)
                by_topic[r.topic] = by_topic.get(r.topic, 0) + r.lag
            if r.time_lag_ms is not None:
                lag_s.add_metric(labels, r.time_lag_ms / 1000)
                bound.add_metric(labels[:4], 1 if r.time_lag_bound else 0)
            start = snap.log_starts.get((r.topic, r.partition))
            if start is not None:
                lost.add_metric(labels[:4], max(0, start - r.current))
            t = r.held_by
            if t is not None:
                tx = [*labels[:4], t.transactional_id or "", str(t.producer.producer_id), str(t.hanging).lower()]
                held_records.add_metric(tx, t.held_back or 0)
                held_age.add_metric(tx, t.age_ms(snap.now_ms) / 1000)
        if lags:
            max_lag.add_metric([c, g.group_id, simple], max(lags))
            sum_lag.add_metric([c, g.group_id], sum(lags))
        for topic, total in sorted(by_topic.items()):
            topic_sum.add_metric([c, g.group_id, topic], total)
        for topic in sorted({r.topic for r in g.rows}):
            top, _ = max_time_lag([r for r in g.rows if r.topic == topic])
            if top is not None:
                topic_max_s.add_metric([c, g.group_id, topic], top / 1000)
        most, is_bound = max_time_lag(g.rows)
        if most is not None:
            max_lag_s.add_metric([c, g.group_id, simple], most / 1000)
            max_bound.add_metric([c, g.group_id], 1 if is_bound else 0)
    latest = _gauge("kafka_partition_latest_offset", "The partition's log end offset", PARTITION)
    for (topic, p), end in sorted(snap.log_ends.items()):
        latest.add_metric([c, topic, str(p)], end)
    earliest = _gauge("kafka_partition_earliest_offset", "The partition's log start offset", PARTITION)
    for (topic, p), start in sorted(snap.log_starts.items()):
        earliest.add_metric([c, topic, str(p)], start)
    exposed = _gauge("kcli_consumergroup_expansion_exposed_records",
                     "The expansion radar: records on a recently created partition that a latest start would skip "
                     "now (the group has offsets on the topic, none on the partition)", PARTITION_OF_GROUP)
    suspected = _gauge("kcli_consumergroup_expansion_suspected_lost_records",
                       "The expansion radar: records kcli saw on a recently created partition while the group had "
                       "no commit there, which its commit has since passed (suspected lost)", PARTITION_OF_GROUP)
    for e in snap.exposures:
        labels = [c, e.group, e.topic, str(e.partition)]
        if e.exposed:
            exposed.add_metric(labels, e.exposed)
        if e.lost:
            suspected.add_metric(labels, e.lost)
    return [offset, lag, lag_s, bound, lost, max_lag, max_lag_s, max_bound, sum_lag, topic_sum, topic_max_s,
            latest, earliest, state, members, exposed, suspected, held_records, held_age]


def tls_context(cert_file: str, key_file: str) -> ssl.SSLContext:
    """A server context from a PEM certificate (chain) and its key; a file that cannot be read or
    does not match is bad input (exit 2, before anything starts)."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        ctx.load_cert_chain(cert_file, key_file)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"Invalid --tls-cert-file/--tls-key-file ({shown(cert_file)}, {shown(key_file)}): "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    return ctx


def web_access(cert_file: str | None, key_file: str | None, user: str | None, password_file: str | None,
               config_file: str | None = None) -> tuple[ssl.SSLContext | None, Callable[[dict], bool] | None]:
    """``--tls-cert-file``/``--tls-key-file`` and ``--basic-auth-user``/``--basic-auth-password-file``,
    or ``--web-config-file`` (``web_config``), as the server's TLS context and its request check
    (each None when not given); given by half, both ways, or unreadable, bad input (exit 2, before
    anything starts)."""
    if config_file is not None:
        if any(v is not None for v in (cert_file, key_file, user, password_file)):
            raise UsageError("--web-config-file replaces --tls-* and --basic-auth-*: give one or the other")
        return web_config(config_file)
    if (cert_file is None) != (key_file is None):
        raise UsageError("--tls-cert-file and --tls-key-file go together")
    if (user is None) != (password_file is None):
        raise UsageError("--basic-auth-user and --basic-auth-password-file go together")
    tls = tls_context(cert_file, key_file) if cert_file is not None and key_file is not None else None
    if user is None or password_file is None:
        return tls, None
    password = (read_text(password_file, "--basic-auth-password-file").splitlines() or [""])[0]
    if not user or not password or ":" in user:
        raise UsageError("--basic-auth-user (without ':') and its password cannot be empty")
    return tls, basic_auth(user, password)


# exporter-toolkit's web configuration (Prometheus' --web.config.file), the parts kcli serves.
WEB_CONFIG_TLS = ("cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version")
CLIENT_AUTH = {"NoClientCert": ssl.CERT_NONE, "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
               "RequireAndVerifyClientCert": ssl.CERT_REQUIRED}
TLS_VERSIONS = {"TLS10": ssl.TLSVersion.TLSv1, "TLS11": ssl.TLSVersion.TLSv1_1, "TLS12": ssl.TLSVersion.TLSv1_2,
                "TLS13": ssl.TLSVersion.TLSv1_3}


def web_config(path: str) -> tuple[ssl.SSLContext | None, Callable[[dict], bool] | None]:
    """A web configuration file as Prometheus and its exporters read it (exporter-toolkit's YAML:
    ``tls_server_config`` and ``basic_auth_users`` with bcrypt hashes), as the server's TLS context
    and request check. Files it names are relative to it. A key kcli does not serve (cipher
    suites, client SANs, HTTP headers...) is refused rather than ignored: it would be a security
    setting silently dropped. Bad input, exit 2, before anything starts."""
    import yaml

    what = f"--web-config-file '{shown(path)}'"
    try:
        doc = yaml.safe_load(read_text(path, "--web-config-file")) or {}
    except yaml.YAMLError as exc:
        raise UsageError(f"Invalid {what}: not YAML ({' '.join(str(exc).split())})") from None
    if not isinstance(doc, dict):
        raise UsageError(f"Invalid {what}: expected a mapping")
    unknown = sorted(set(doc) - {"tls_server_config", "basic_auth_users"})
    tls_doc, users = doc.get("tls_server_config") or {}, doc.get("basic_auth_users") or {}
    if not isinstance(tls_doc, dict) or not isinstance(users, dict):
        raise UsageError(f"Invalid {what}: tls_server_config and basic_auth_users are mappings")
    unknown += sorted(f"tls_server_config.{k}" for k in set(tls_doc) - set(WEB_CONFIG_TLS))
    if unknown:
        raise UsageError(f"Invalid {what}: kcli does not serve {', '.join(map(str, unknown))}")
    base = os.path.dirname(os.path.abspath(path))
    file_of = lambda key: os.path.join(base, str(tls_doc[key])) if tls_doc.get(key) else None  # noqa: E731
    tls = None
    if tls_doc:
        cert, key = file_of("cert_file"), file_of("key_file")
        if cert is None or key is None:
            raise UsageError(f"Invalid {what}: tls_server_config needs cert_file and key_file")
        tls = tls_context(cert, key)
        auth = str(tls_doc.get("client_auth_type") or "NoClientCert")
        if auth not in CLIENT_AUTH:
            raise UsageError(f"Invalid {what}: client_auth_type '{shown(auth)}': use one of {', '.join(CLIENT_AUTH)}")
        tls.verify_mode = CLIENT_AUTH[auth]
        ca = file_of("client_ca_file")
        if tls.verify_mode != ssl.CERT_NONE:
            if ca is None:
                raise UsageError(f"Invalid {what}: client_auth_type {auth} needs client_ca_file")
            try:
                tls.load_verify_locations(ca)
            except (OSError, ssl.SSLError) as exc:
                raise UsageError(f"Invalid {what}: client_ca_file: {getattr(exc, 'strerror', None) or exc}") from None
        versions = {b: tls_doc[b] for b in ("min_version", "max_version") if tls_doc.get(b) is not None}
        for bound, version in versions.items():
            if version not in TLS_VERSIONS:
                raise UsageError(f"Invalid {what}: {bound} '{shown(str(version))}': use one of "
                                 f"{', '.join(TLS_VERSIONS)}")
        if "min_version" in versions:
            tls.minimum_version = TLS_VERSIONS[versions["min_version"]]
        if "max_version" in versions:
            tls.maximum_version = TLS_VERSIONS[versions["max_version"]]
    hashes = {str(u): str(h).encode() for u, h in users.items()}
    if any(not u or ":" in u or not h.startswith(b"$2") for u, h in hashes.items()):
        raise UsageError(f"Invalid {what}: basic_auth_users maps a user (without ':') to a bcrypt hash")
    return tls, bcrypt_auth(hashes) if hashes else None


def bcrypt_auth(hashes: dict[str, bytes]) -> Callable[[dict], bool]:
    """Whether a request's basic credentials match a user's bcrypt hash. A bcrypt check costs
    tens of milliseconds by design; a Prometheus scrapes every few seconds with the same
    credentials, so the ones verified are remembered (as a SHA-256 of the header, a few at most:
    exporter-toolkit caches them too)."""
    import hashlib

    import bcrypt

    verified: set[bytes] = set()

    def allowed(environ: dict) -> bool:
        header = environ.get("HTTP_AUTHORIZATION", "")
        digest = hashlib.sha256(header.encode()).digest()
        if digest in verified:
            return True
        scheme, _, encoded = header.partition(" ")
        try:
            user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (ValueError, UnicodeError):
            return False
        try:
            if scheme != "Basic" or user not in hashes or not bcrypt.checkpw(password.encode(), hashes[user]):
                return False
        except ValueError:                   # a hash bcrypt cannot read: nobody gets in with it
            return False
        if len(verified) < 64:
            verified.add(digest)
        return True

    return allowed


def basic_auth(user: str, password: str) -> Callable[[dict], bool]:
    """Whether a request's Authorization header names ``user`` with ``password`` (HTTP basic
    authentication, compared in constant time)."""
    expected = b"Basic " + base64.b64encode(f"{user}:{password}".encode())

    def allowed(environ: dict) -> bool:
        return hmac.compare_digest(environ.get("HTTP_AUTHORIZATION", "").encode(), expected)

    return allowed


def app(source: Collector, granularity: str = "partition",
        allowed: Callable[[dict], bool] | None = None) -> Callable:
    """The WSGI app: ``/metrics`` (prometheus_client's), ``/healthz`` (200 ready and healthy, 503
    otherwise, the reason as the body), 404 for anything else; with ``allowed`` (``basic_auth``)
    every path answers 401 to a request it refuses."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(LagMetrics(source, granularity))
    metrics = Baked(source, registry)

    def serve(environ: dict, start_response: Callable) -> list[bytes]:
        if allowed is not None and not allowed(environ):
            start_response("401 Unauthorized", [("Content-Type", "text/plain; charset=utf-8"),
                                                ("WWW-Authenticate", 'Basic realm="kcli lag serve"')])
            return [b"Unauthorized\n"]
        path = environ.get("PATH_INFO", "")
        if path == "/metrics":
            return metrics(environ, start_response)
        if path == "/healthz":
            h = source.health
            body = (h.reason() + "\n").encode()
            start_response("200 OK" if h.healthy else "503 Service Unavailable",
                           [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
            return [body]
        body = b"Not found: /metrics and /healthz are served\n"
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [body]

    return serve


class Baked:
    """``/metrics``, written once per collection and format: a collection is replaced whole
    (``Collector.last``), so every scrape until the next one would write the same bytes, and at
    hundreds of thousands of series writing them takes seconds. The format (Prometheus text or
    OpenMetrics) and gzip are prometheus_client's choice from the request's headers, as its own
    WSGI app makes it. A query (prometheus_client's ``name[]=`` filter) is not served: every
    family, always."""

    def __init__(self, source: Collector, registry: CollectorRegistry):
        self.source, self.registry = source, registry
        self.lock = threading.Lock()
        self.baked_for: object = None                   # the collection (Collector.last) baked
        self.baked: dict[tuple[str, bool], bytes] = {}  # (content type, gzip) -> body

    def __call__(self, environ: dict, start_response: Callable) -> list[bytes]:
        encoder, content_type = choose_encoder(environ.get("HTTP_ACCEPT", ""))
        gz = gzip_accepted(environ.get("HTTP_ACCEPT_ENCODING", ""))
        with self.lock:                                 # a second scrape waits for the same bytes
            if self.baked_for is not self.source.last:
                self.baked_for, self.baked = self.source.last, {}
            body = self.baked.get((content_type, gz))
            if body is None:
                body = encoder(self.registry)
                body = self.baked[(content_type, gz)] = gzip.compress(body) if gz else body
        headers = [("Content-Type", content_type), ("Content-Length", str(len(body)))]
        start_response("200 OK", headers + [("Content-Encoding", "gzip")] if gz else headers)
        return [body]


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """No line per scrape on stderr."""


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    tls: ssl.SSLContext | None = None

    def finish_request(self, request, client_address) -> None:
        """In the request's own thread: the TLS handshake first (a slow or failed one holds no
        other request)."""
        if self.tls is not None:
            request = self.tls.wrap_socket(request, server_side=True)
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address) -> None:
        """A client gone or a failed handshake is the client's: no traceback on stderr."""


def bind(host: str, port: int, wsgi_app: Callable, tls: ssl.SSLContext | None = None) -> WSGIServer:
    """A threading WSGI server bound to ``host:port``, speaking TLS with ``tls``: a host that
    resolves to nothing is bad input (UsageError, exit 2); a port in use or not ours to take
    fails (OperationError, exit 1)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (socket.gaierror, UnicodeError):
        raise UsageError(f"Invalid --listen '{shown(host)}:{port}': {shown(host)} is no address of this host") from None
    server_class = type("_Server", (_Server,), {"address_family": family, "tls": tls})
    try:
        server = server_class((host, port), _Quiet)
    except OSError as exc:
        if exc.errno == errno.EADDRNOTAVAIL:
            raise UsageError(f"Invalid --listen '{shown(host)}:{port}': {shown(host)} is no address of this "
                             "host") from None
        why = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
        raise OperationError(f"Cannot listen on {shown(host)}:{port}: {why}") from None
    server.set_app(wsgi_app)
    return server


def serve(server: WSGIServer, collector: Collector, stop: threading.Event, ready: Callable[[str], None]) -> None:
    """Starts the collector and the server (each in a daemon thread), says the URL to ``ready``,
    and when ``stop`` is set shuts the server and the collector down (within a second: a
    collection in flight is left to its daemon thread)."""
    host, port = server.server_address[:2]
    host = host.decode() if isinstance(host, bytes) else host
    shown_host = f"[{host}]" if ":" in host else host
    collector.start()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, name="kcli-lag-http",
                     daemon=True).start()
    ready(f"{'https' if getattr(server, 'tls', None) else 'http'}://{shown_host}:{port}")
    while not stop.wait(0.1):
        pass
    server.shutdown()
    server.server_close()
    collector.stop()

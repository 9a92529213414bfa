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
import hmac
import socket
import ssl
import threading
from socketserver import ThreadingMixIn
from typing import Callable, Iterable, Iterator
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from prometheus_client import CollectorRegistry, make_wsgi_app
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
    families: list[Metric] = [up, collections, failures, in_row, fetched, cached]
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
    return [offset, lag, lag_s, bound, lost, max_lag, max_lag_s, max_bound, sum_lag, topic_sum, topic_max_s,
            latest, earliest, state, members, held_records, held_age]


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


def web_access(cert_file: str | None, key_file: str | None, user: str | None, password_file: str | None
               ) -> tuple[ssl.SSLContext | None, Callable[[dict], bool] | None]:
    """``--tls-cert-file``/``--tls-key-file`` and ``--basic-auth-user``/``--basic-auth-password-file``
    as the server's TLS context and its request check (each None when not given); given by half,
    or unreadable, bad input (exit 2, before anything starts)."""
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
    metrics = make_wsgi_app(registry)

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

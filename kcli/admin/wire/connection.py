"""Blocking connections to the brokers for the requests kcli sends with kafka-python's protocol
layer. kafka-python's sans-IO ``KafkaProtocol`` frames, correlates and decodes; kafka-python's SASL
mechanisms compute the tokens; this module only moves the bytes (a socket, TLS when asked) and
runs the ApiVersions and SASL exchanges in order. It stands in for kafka-python's asyncio client
(``kafka.net``), whose import alone cost ~35 ms of every ``describe topics`` (bench/cli_latency.py):
kcli sends a handful of requests one at a time and needs no event loop, metrics or reconnects.
"""

from __future__ import annotations

import io
import socket
import time

import kcli.protocol as proto                    # first: it lets kafka-python's modules load alone
from kafka.protocol.metadata import ApiVersionsRequest
from kafka.protocol.parser import KafkaProtocol

from kcli import __version__
from kcli.errors import Answer

API_VERSIONS_KEY = ApiVersionsRequest.API_KEY
UNSUPPORTED_VERSION = 35
# A response's bytes, its size prefix included: the size is an INT32. A response may come in as
# many pieces as it has bytes (a slow link, a sender that writes small parts): reading is bounded
# by its bytes (every recv returns at least one, or the connection closed) and the deadline.
MAX_RESPONSE_BYTES = 4 + (1 << 31) - 1


class WireError(Exception):
    """A broker could not be reached or answered with a failure that ends the connection.
    ``sent``: the request had gone out whole before the failure, so the broker may have acted on
    it (a change sent and not answered has an unknown outcome); False when it was not sent (a
    connection that could not be opened, a deadline already passed, a send cut short: a frame
    the broker never got whole, and its connection is closed)."""

    def __init__(self, message: str, sent: bool = False):
        super().__init__(message)
        self.sent = sent


class WireUnreadable(WireError):
    """A broker's answer that kafka-python's codec could not decode: ``answer`` names it as the
    broker sent it (``MetadataResponse v12``). The request went out and was answered; only kcli's
    own client cannot read the answer (librdkafka may: kcli.admin.fallback)."""

    def __init__(self, message: str, answer: Answer, sent: bool = True, head: bytes = b""):
        super().__init__(message, sent)
        self.answer = answer
        self.head = head                 # the answer's first bytes: size, correlation id, ...


def answer_name(request) -> Answer:
    """The response a request gets: its API (the request class's name without ``Request``) and
    version, printed as Kafka names it (``MetadataResponse v12``)."""
    name = type(request).__name__
    return Answer(name.removesuffix("Request"), request.version)


class WireTimeout(WireError):
    """A broker did not answer before the deadline."""


class WireNotSent(WireTimeout):
    """The deadline had passed before the request could be sent: it was not."""


class WireConfigError(WireError):
    """The client properties cannot work (a TLS file that cannot be read, say)."""


def split_host_port(server: str) -> tuple[str, int]:
    from kcli.admin.settings import host_port

    address = host_port(server)
    if address is None:
        raise WireError(f"'{server}' is not host:port")
    return address


class Connection:
    """One socket to one broker, ready for requests once ApiVersions (and SASL) went through."""

    def __init__(self, host: str, port: int, config: dict, tls, deadline: float):
        self.host, self.port, self.config = host, port, config
        self._tls = tls
        self._sock: socket.socket | None = None
        self._raw_correlation_id = 1 << 30          # request_raw's, apart from KafkaProtocol's
        self._open(deadline)
        self.finalized_features: dict[str, int] = {}       # ApiVersions v3+ (KIP-584): name -> level
        self.supported_features: dict[str, tuple[int, int]] = {}
        self.finalized_features_epoch = -1
        try:
            self.api_versions = self._negotiate(deadline)
            if config.get("security_protocol", "").startswith("SASL_"):
                self._authenticate(deadline)
        except BaseException:
            self.close()
            raise

    def _open(self, deadline: float) -> None:
        self._protocol = KafkaProtocol(client_id=self.config.get("client_id", "kcli"))
        try:
            # bytes: getaddrinfo takes them as they are (_lookup_name), where typeshed says str
            self._sock = socket.create_connection((_lookup_name(self.host), self.port),  # type: ignore[arg-type]
                                                  timeout=_remaining(deadline))
            if self._tls is not None:
                self._sock = self._tls.wrap_socket(self._sock, server_hostname=self.host)
        except OSError as exc:
            self.close()
            raise self._error(exc) from None

    @property
    def closed(self) -> bool:
        return self._sock is None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _error(self, exc: OSError, started: float | None = None, sent: bool = False) -> WireError:
        if isinstance(exc, TimeoutError):
            waited = "" if started is None else f" (waited {round((time.monotonic() - started) * 1000)} ms)"
            return WireTimeout(f"{self.host}:{self.port} did not answer in time{waited}", sent)
        verify = getattr(exc, "verify_message", None)     # ssl.SSLCertVerificationError (ssl loads lazily)
        if verify:
            return WireError(f"{self.host}:{self.port}: certificate verify failed: {verify}", sent)
        return WireError(f"{self.host}:{self.port}: {getattr(exc, 'reason', None) or exc.strerror or exc}", sent)

    def request(self, request, deadline: float):
        """Sends ``request`` and waits for its response until ``deadline`` (time.monotonic). Any
        failure closes the connection: an answer that comes late must never be read as the next
        request's (the next request opens a new connection)."""
        return self.receive(request, deadline, self.send(request, deadline))

    def send(self, request, deadline: float) -> float:
        """``request`` sent (the first half of ``request``: ``receive`` reads its answer); the
        instant it was sent. A failure closes the connection (its request was not sent)."""
        if self._sock is None:
            raise WireError(f"{self.host}:{self.port}: the connection is closed")
        self._protocol.send_request(request)
        started = time.monotonic()
        try:
            self._sock.settimeout(_remaining(deadline))
            self._sock.sendall(self._protocol.send_bytes())
        except OSError as exc:
            self.close()
            raise self._error(exc, started, False) from None
        except Exception as exc:  # noqa: BLE001 - as receive's, for a request that did not go out
            self.close()
            raise WireUnreadable(f"{self.host}:{self.port}: unreadable answer ({type(exc).__name__}: {exc})",
                                 answer_name(request), False, b"") from None
        except BaseException:
            self.close()
            raise
        return started

    def receive(self, request, deadline: float, started: float):
        """The answer to ``request``, sent at ``started`` (``send``), read by ``deadline``."""
        sent, head, received = True, b"", 0
        sock = self._sock
        if sock is None:
            raise WireError(f"{self.host}:{self.port}: the connection is closed", sent)
        try:
            while received <= MAX_RESPONSE_BYTES:       # bounded: see MAX_RESPONSE_BYTES
                sock.settimeout(_remaining(deadline))
                data = sock.recv(1 << 16)
                if not data:
                    raise WireError(f"{self.host}:{self.port} closed the connection", sent)
                received += len(data)
                head = head or data[:16]
                responses = self._protocol.receive_bytes(data)
                if responses:
                    return responses[0][1]
            raise WireError(f"{self.host}:{self.port}: response too large", sent)
        except OSError as exc:
            self.close()
            raise self._error(exc, started, sent) from None
        except WireError:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - an answer that cannot be read: sent all the same
            self.close()
            raise WireUnreadable(f"{self.host}:{self.port}: unreadable answer ({type(exc).__name__}: {exc})",
                                 answer_name(request), sent, head) from None
        except BaseException:
            self.close()
            raise

    def request_raw(self, request, deadline: float) -> bytes:
        """``request``'s answer as the broker sent it: the bytes after the response header, not
        decoded (for a reader with schemas of its own: ``kcli check broker``'s heartbeat layouts).
        It is framed and read here, beside kafka-python's ``KafkaProtocol``, which would decode it
        with the class registered for its API; the correlation ids are the connection's own.
        Failures as ``request``'s; an answer whose header is not this request's is unreadable."""
        from kafka.protocol.api_header import ResponseHeader

        sock = self._sock
        if sock is None:
            raise WireError(f"{self.host}:{self.port}: the connection is closed")
        self._raw_correlation_id = (self._raw_correlation_id + 1) % 2**31
        request.with_header(correlation_id=self._raw_correlation_id, client_id=self.config.get("client_id", "kcli"))
        data, started, sent, frame = request.encode(header=True, framed=True), time.monotonic(), False, b""
        try:
            sock.settimeout(_remaining(deadline))
            sock.sendall(data)
            sent = True
            while len(frame) < 4 or len(frame) < 4 + int.from_bytes(frame[:4], "big"):
                if len(frame) > MAX_RESPONSE_BYTES:         # bounded: see MAX_RESPONSE_BYTES
                    raise WireError(f"{self.host}:{self.port}: response too large", sent)
                sock.settimeout(_remaining(deadline))
                chunk = sock.recv(1 << 16)
                if not chunk:
                    raise WireError(f"{self.host}:{self.port} closed the connection", sent)
                frame += chunk
            body = io.BytesIO(frame[4:])
            header = ResponseHeader.decode(body, flexible=request.flexible_version_q(request.API_VERSION))
            if header.correlation_id != self._raw_correlation_id or len(frame) > 4 + int.from_bytes(frame[:4], "big"):
                raise ValueError(f"correlation id {header.correlation_id}, {len(frame) - 4} bytes")
            return frame[4 + body.tell():]
        except OSError as exc:
            self.close()
            raise self._error(exc, started, sent) from None
        except WireError:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - a header that is not this answer's
            self.close()
            raise WireUnreadable(f"{self.host}:{self.port}: unreadable answer ({type(exc).__name__}: {exc})",
                                 answer_name(request), sent, frame[:16]) from None
        except BaseException:
            self.close()
            raise

    def _negotiate(self, deadline: float) -> dict[int, tuple[int, int]]:
        """ApiVersions at our highest version; a broker that does not speak it answers v0 with
        UNSUPPORTED_VERSION and its own range, which the retry uses (KIP-511). An answer that
        cannot be read whole but starts with UNSUPPORTED_VERSION (librdkafka's mock cluster
        answers it in a layout of its own) is asked again at v0, on a new connection (Java's
        client reads such an answer at v0): every broker speaks ApiVersions v0."""
        version = ApiVersionsRequest.max_version
        for _ in range(3):
            try:
                resp = self.request(ApiVersionsRequest(
                    version=version, client_software_name="kcli",
                    client_software_version=__version__), deadline)
            except WireUnreadable as exc:
                # size (4), correlation id (4), then every version's first field: the error code
                if version == 0 or exc.head[8:10] != UNSUPPORTED_VERSION.to_bytes(2, "big"):
                    raise
                version = 0
                self._open(deadline)
                continue
            ranges = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}
            if resp.error_code != UNSUPPORTED_VERSION or API_VERSIONS_KEY not in ranges:
                break
            version = min(version, ranges[API_VERSIONS_KEY][1])
        if resp.error_code:
            raise WireError(f"{self.host}:{self.port}: ApiVersions failed with error {resp.error_code}")
        epoch = getattr(resp, "finalized_features_epoch", None)
        self.finalized_features_epoch = -1 if epoch is None else epoch
        if self.finalized_features_epoch >= 0:
            self.finalized_features = {f.name: f.max_version_level for f in resp.finalized_features or []}
        self.supported_features = {f.name: (f.min_version, f.max_version)
                                   for f in getattr(resp, "supported_features", None) or []}
        return ranges

    def _authenticate(self, deadline: float) -> None:
        """SaslHandshake v1 then SaslAuthenticate rounds, the tokens from kafka-python's mechanism."""
        from kafka.net.sasl import get_sasl_mechanism
        from kafka.protocol.sasl import SaslAuthenticateRequest, SaslHandshakeRequest

        name = self.config.get("sasl_mechanism", "PLAIN").upper()
        resp = self.request(SaslHandshakeRequest(version=1, mechanism=name), deadline)
        if resp.error_code:
            raise WireError(f"the broker does not offer SASL mechanism {name} "
                            f"(it offers {', '.join(resp.mechanisms) or 'none'})")
        try:
            mechanism = get_sasl_mechanism(name)(host=self.host, **self.config)
        except KeyError:
            raise WireError(f"unknown SASL mechanism {name}") from None
        top = self.api_versions.get(SaslAuthenticateRequest.API_KEY, (0, 0))[1]
        for _ in range(16):                      # SCRAM takes two rounds, PLAIN one
            if mechanism.is_done():
                break
            resp = self.request(SaslAuthenticateRequest(
                version=min(top, SaslAuthenticateRequest.max_version),
                auth_bytes=mechanism.auth_bytes()), deadline)
            if resp.error_code:
                raise WireError(resp.error_message or f"SASL authentication failed ({resp.error_code})")
            mechanism.receive(resp.auth_bytes)
        if not mechanism.is_authenticated():
            raise WireError(f"SASL {name} authentication failed")


class ClusterPart:
    """The cluster-wide part of a Metadata answer: its brokers and its cluster id (None below
    v2, which has none)."""

    __slots__ = ("brokers", "cluster_id")

    def __init__(self, answer):
        self.brokers = answer.brokers
        self.cluster_id = getattr(answer, "cluster_id", None)


class Wire:
    """Connections by node id, opened on first use; requests without a node go to the bootstrap
    connection. Every call ends by the instant ``until()`` gives when it starts."""

    def __init__(self, config: dict, until):
        proto.claim_response_classes()
        self.config = config
        self._deadline = until
        self._nodes: dict[int, Connection] = {}
        self._unanswered: str | None = None          # the last request that got no answer in time
        self._addresses: dict[int, tuple[str, int]] = {}
        self.cluster: ClusterPart | None = None      # the last Metadata answer (learn_cluster)
        self._tls = _tls_context(config)
        deadline = self._deadline()
        errors: list[WireError] = []
        for server in config["bootstrap_servers"]:
            try:
                self._bootstrap = Connection(*split_host_port(server), config, self._tls, deadline)
                self._bootstrap_address = (self._bootstrap.host, self._bootstrap.port)
                break
            except WireError as exc:
                errors.append(exc)
        else:
            unreadable = [e for e in errors if isinstance(e, WireUnreadable)]
            if errors and len(unreadable) == len(errors):
                raise WireUnreadable("; ".join(map(str, errors)), unreadable[0].answer)
            kind = WireTimeout if all(isinstance(e, WireTimeout) for e in errors) else WireError
            raise kind("; ".join(map(str, errors)))
        self.api_versions = self._bootstrap.api_versions
        self.finalized_features = self._bootstrap.finalized_features
        self.supported_features = self._bootstrap.supported_features

    def close(self) -> None:
        for conn in {self._bootstrap, *self._nodes.values()}:
            conn.close()

    def send(self, request, node_id: int | None = None, until: float | None = None, raw: bool = False):
        """``request``'s response (``raw``: its bytes after the header, Connection.request_raw),
        by the command's deadline or ``until`` (time.monotonic) when that is sooner: a change
        whose outcome must be read back afterwards keeps time for it.
        A request the deadline leaves no time for is not sent, and the error says so, naming the
        earlier request that got no answer (it is not this one's fault). A failure before the
        request went out (its connection could not be opened) is a WireError with ``sent``
        False; one after, ``sent`` True, and its connection is closed (see Connection.request)."""
        deadline = self._deadline()
        if until is not None:
            deadline = min(deadline, until)
        if deadline <= time.monotonic():
            raise WireNotSent("not sent: the command's deadline had passed"
                              + (f" while {self._unanswered}" if self._unanswered else ""))
        try:
            conn = self._connection(node_id, deadline)
        except WireError as exc:
            exc.sent = False                     # whatever failed, this request did not go out
            raise
        started = time.monotonic()
        try:
            return conn.request_raw(request, deadline) if raw else conn.request(request, deadline)
        except WireTimeout as exc:
            if exc.sent:
                self._unanswered = (f"{type(request).__name__} to {conn.host}:{conn.port} waited "
                                    f"{round((time.monotonic() - started) * 1000)} ms for an answer")
            raise

    def send_each(self, requests: list[tuple[int, object]]) -> list:
        """The responses to ``requests`` ((node id, request), one per node), each sent before any
        answer is read: the brokers work on them at once, where ``send`` one after the other
        waits for each. The errors are ``send``'s; on one, every connection still owing an
        answer is closed (a late answer must never be read as another request's)."""
        deadline = self._deadline()
        if deadline <= time.monotonic():
            raise WireNotSent("not sent: the command's deadline had passed"
                              + (f" while {self._unanswered}" if self._unanswered else ""))
        pending = []
        try:
            conns = []
            for node_id, _ in requests:
                try:
                    conns.append(self._connection(node_id, deadline))
                except WireError as exc:
                    exc.sent = False
                    raise
            if len({id(c) for c in conns}) < len(conns):    # two nodes on one address: in turn
                return [self.send(request, node_id) for node_id, request in requests]
            for conn, (_, request) in zip(conns, requests):
                pending.append((conn, request, conn.send(request, deadline)))
            responses = []
            for conn, request, started in list(pending):
                try:
                    responses.append(conn.receive(request, deadline, started))
                except WireTimeout:
                    self._unanswered = (f"{type(request).__name__} to {conn.host}:{conn.port} waited "
                                        f"{round((time.monotonic() - started) * 1000)} ms for an answer")
                    raise
                pending.pop(0)
            return responses
        finally:
            for conn, _, _ in pending:
                conn.close()

    def learn_cluster(self, answer) -> None:
        """A Metadata answer (for any topics) read on this client: the brokers' addresses the
        connections to them use, and its cluster-wide part kept as ``cluster`` (ClusterPart:
        brokers, cluster id), which serves this client's later asks for it without a second
        Metadata (MetadataRequests.cluster_metadata). Its topics are not kept: a reset over 40k
        partitions held the last 40k-partition answer to its end (~20 MiB). A client lives for
        one command (KafkaAdmin.wire): the cache never outlives it."""
        self.cluster = ClusterPart(answer)
        self._addresses = {b.node_id: (b.host, b.port) for b in answer.brokers}

    def node_features(self, node_id: int | None):
        """The connection that answered ApiVersions for ``node_id`` (None: the bootstrap
        broker's): its finalized and supported features and finalized epoch are read from it."""
        return self._connection(node_id, self._deadline())

    def node_api_versions(self, node_id: int) -> dict[int, tuple[int, int]]:
        """What broker ``node_id`` answered to ApiVersions on its connection (opened if need be)."""
        return self._node(node_id, self._deadline()).api_versions

    def _connection(self, node_id: int | None, deadline: float) -> Connection:
        """The open connection for ``node_id`` (None: the bootstrap broker's); one closed after a
        failure is opened again."""
        if self._bootstrap.closed:
            self._bootstrap = Connection(*self._bootstrap_address, self.config, self._tls, deadline)
        return self._bootstrap if node_id is None else self._node(node_id, deadline)

    def _node(self, node_id: int, deadline: float) -> Connection:
        conn = self._nodes.get(node_id)
        if conn is not None and not conn.closed:
            return conn
        if node_id not in self._addresses:
            Req = proto.MetadataRequest
            version = min(self.api_versions.get(Req.API_KEY, (0, 0))[1], proto.UNTAGGED_METADATA_VERSION)
            self.learn_cluster(self._bootstrap.request(Req(version=version, topics=[],
                                                           allow_auto_topic_creation=False), deadline))
        if node_id not in self._addresses:
            raise WireError(f"broker {node_id} is not in the cluster metadata")
        address = self._addresses[node_id]
        if address == (self._bootstrap.host, self._bootstrap.port):
            conn = self._bootstrap
        else:
            conn = Connection(*address, self.config, self._tls, deadline)
        self._nodes[node_id] = conn
        return conn


def _lookup_name(host: str) -> str | bytes:
    """``host`` as getaddrinfo takes it: an ASCII name (an address, most host names) as bytes,
    which it uses as they are, where a str goes through the ``idna`` codec, whose import
    (encodings.idna, stringprep, unicodedata) is start-up time every command would pay."""
    return host.encode("ascii") if host.isascii() else host


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _tls_context(config: dict):
    """The TLS context for SSL and SASL_SSL (None otherwise), built once for every connection."""
    if config.get("security_protocol", "PLAINTEXT") not in ("SSL", "SASL_SSL"):
        return None
    import ssl

    try:
        context = ssl.create_default_context(cafile=config.get("ssl_cafile"))
        if config.get("ssl_certfile"):
            context.load_cert_chain(config["ssl_certfile"], config.get("ssl_keyfile"),
                                    config.get("ssl_password"))
    except (OSError, ValueError) as exc:             # ssl.SSLError is an OSError
        raise WireConfigError(f"the TLS settings cannot be used: {getattr(exc, 'reason', None) or exc}") from None
    if not config.get("ssl_check_hostname", True):
        context.check_hostname = False
    return context

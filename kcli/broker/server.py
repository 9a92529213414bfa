"""The network side: one asyncio listening socket per node id, Kafka framing, dispatch.

Each connection is served in order, one request at a time (as Kafka mutes a channel while a
request is in flight). What Kafka does with bad input, this does too: a frame whose size is
negative or above ``socket.request.max.bytes`` (100 MiB), an unknown API key, an unsupported
version (other than ApiVersions) or an undecodable request (a null where the schema forbids one
included) closes the connection. ApiVersions above the served maximum gets the KIP-511 answer:
v0, UNSUPPORTED_VERSION and the ranges. A handler that fails unexpectedly is logged and its
connection closed; the broker keeps running (tests/broker/test_core_fuzz.py holds that none does).

With ``Cluster.sasl`` set (users given), every listener is SASL_PLAINTEXT: until a connection has
authenticated (handlers/sasl.py), only the APIs of its SASL step are served and any other request
closes it, as Kafka's SaslServerAuthenticator does. With a TLS context (``tls_context``) every
listener is SSL, or SASL_SSL with both: asyncio runs the handshake before a connection is served,
and a client that fails it (an untrusted certificate, plaintext bytes) is dropped unserved.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import struct
from collections import Counter

from kcli.broker import handlers  # noqa: F401  (registers every handler)
from kcli.broker.apikeys import API_VERSIONS
from kcli.broker.cluster import Cluster
from kcli.broker.dispatch import HANDLERS, SASL_STEPS, Connection, RequestContext, splice
from kcli.broker.errors import Err
from kcli.broker.txns import close_transactions, transactions_for
from kcli.broker.versions import advertised, version_range
from kcli.protocol import REQUESTS, RESPONSES

log = logging.getLogger("kcli.broker")

MAX_REQUEST_BYTES = 104857600
_SIZE = struct.Struct(">i")
_HEADER = struct.Struct(">hhi")
_CLIENT_ID_SIZE = struct.Struct(">h")


def host_port(host: str, port: int) -> str:
    """``host:port``, with an IPv6 host in brackets (``[::1]:9092``) as clients parse it."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def api_name(api_key: int) -> str:
    return REQUESTS[api_key].__name__.removesuffix("Request")


def api_versions_fallback(pose_as: str | None, correlation_id: int) -> bytes:
    """KIP-511: a client asked for an ApiVersions version this broker does not know."""
    cls = RESPONSES[API_VERSIONS]
    resp = cls(version=0, error_code=Err.UNSUPPORTED_VERSION, api_keys=[
        cls.ApiVersion(api_key=k, min_version=lo, max_version=hi)
        for k, lo, hi in advertised(pose_as)])
    resp.with_header(correlation_id=correlation_id)
    return resp.encode(header=True, framed=True)


def null_field(data, struct, version: int) -> str | None:
    """The first field of ``data`` (decoded at ``version``) that is null where the schema does
    not allow it, else None. kafka-python decodes a -1 length as null whatever the schema says;
    Kafka's generated readers refuse it, and the request is then unparseable."""
    for field in struct.fields.values():
        if not field.for_version_q(version) or field.tag is not None:
            continue
        value = getattr(data, field.name, None)
        if value is None:           # (kafka-python decodes the all-zero uuid as null too)
            if not field.nullable_for_version_q(version) and field.type_str != "uuid":
                return field.name
        elif field.is_struct_array():
            for item in value:
                if (bad := null_field(item, field, version)) is not None:
                    return f"{field.name}.{bad}"
        elif field.is_struct():
            if (bad := null_field(value, field, version)) is not None:
                return f"{field.name}.{bad}"
        elif field.is_array() and any(item is None for item in value):
            return field.name
    return None


def tls_context(tls: ssl.SSLContext | tuple[str, str] | None) -> ssl.SSLContext | None:
    """A server-side TLS context: ``tls`` itself, or one serving a (certfile, keyfile) pair
    (PEM; the certfile may hold the chain after the certificate)."""
    if tls is None or isinstance(tls, ssl.SSLContext):
        return tls
    certfile, keyfile = tls
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certfile, keyfile)
    return context


# Faults a test can inject per API (by name, e.g. "OffsetCommit"): "hang" never answers and
# applies nothing (a stuck broker); "lose-reply" applies the request and never answers (the
# reply lost on the way); "late" applies and answers it LATE_S seconds late (a commit Kafka
# holds up to offsets.commit.timeout.ms). The connection stays open, as with a real stuck broker.
FAULTS = ("hang", "lose-reply", "late")
LATE_S = 2.5


class NodeServer:
    """The listening socket of one node id."""

    def __init__(self, cluster: Cluster, node_id: int, host: str, port: int,
                 tls: ssl.SSLContext | None = None, faults: dict[str, str] | None = None):
        self.cluster = cluster
        self.node_id = node_id
        self.host = host
        self.port = port
        self.tls = tls
        self.faults = {} if faults is None else faults
        self.counts: Counter[str] = Counter()
        self.client_counts: Counter[tuple[str, str]] = Counter()    # (client id, API name)
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.StreamWriter, asyncio.Task] = {}

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, self.port, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        self.cluster.addresses[self.node_id] = (self.host, self.port)
        self.cluster.set_node_up(self.node_id, True)

    async def stop(self) -> None:
        """Close the listener and every connection; requests in flight (a parked Fetch, a
        JoinGroup waiting for its rebalance) end unanswered, at once."""
        self.cluster.set_node_up(self.node_id, False)
        server, self._server = self._server, None     # a second, concurrent stop does nothing
        if server is not None:
            server.close()
            tasks = list(self._connections.values())
            for writer, task in list(self._connections.items()):
                writer.close()
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if (task := asyncio.current_task()) is not None:
            self._connections[writer] = task
        peer = writer.get_extra_info("peername") or ("?", 0)
        connection = Connection("handshake" if self.cluster.sasl else "done")
        try:
            while not connection.close:
                frame = await self._read_frame(reader)
                if frame is None:
                    break
                out = await self._handle(frame, f"/{peer[0]}", connection)
                if isinstance(out, bool):       # False: close the connection
                    break
                if out is not None:
                    for buffer in _coalesced(out):
                        writer.write(buffer)
                    await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:   # the node stops; end quietly (asyncio 3.11 would
            pass                         # log a cancelled connection task as an error)
        except Exception:
            log.exception("node %d: closing connection from %s", self.node_id, peer)
        finally:
            self._connections.pop(writer, None)
            writer.close()

    @staticmethod
    async def _read_frame(reader: asyncio.StreamReader) -> bytes | None:
        try:
            size, = _SIZE.unpack(await reader.readexactly(4))
        except asyncio.IncompleteReadError:
            return None
        if size < _HEADER.size or size > MAX_REQUEST_BYTES:
            return None
        return await reader.readexactly(size)

    def _count(self, api_key: int, frame: bytes) -> None:
        """Counts a request served, in all and per client id (the header's, after the
        correlation id in every header version: tests tell kcli's own connection, client id
        ``kcli``, from librdkafka's, ``rdkafka``)."""
        self.counts[api_name(api_key)] += 1
        size = _CLIENT_ID_SIZE.unpack_from(frame, _HEADER.size)[0] if len(frame) >= _HEADER.size + 2 else -1
        client_id = frame[_HEADER.size + 2:_HEADER.size + 2 + size].decode("utf-8", "replace") if size > 0 else ""
        self.client_counts[(client_id, api_name(api_key))] += 1

    async def _handle(self, frame: bytes, client_host: str,
                      connection: Connection) -> list | None | bool:
        """The framed response (the buffers to write), None for no response, False to close
        the connection."""
        api_key, api_version, correlation_id = _HEADER.unpack_from(frame)
        served = version_range(self.cluster.pose_as, api_key)
        if served is None:
            log.info("node %d: %s (API key %d) is not served%s; closing the connection", self.node_id,
                     api_name(api_key) if api_key in REQUESTS else "an unknown API", api_key,
                     f" posing as {self.cluster.pose_as}" if self.cluster.pose_as else "")
            return False
        if connection.sasl != "done" and api_key not in SASL_STEPS[connection.sasl]:
            log.info("node %d: %s request before SASL authentication; closing the connection",
                     self.node_id, api_name(api_key))
            return False
        if api_key == API_VERSIONS and api_version > served[1]:
            self._count(api_key, frame)
            return [api_versions_fallback(self.cluster.pose_as, correlation_id)]
        if not served[0] <= api_version <= served[1]:
            log.info("node %d: %s v%d is not served (v%d-v%d); closing the connection", self.node_id,
                     api_name(api_key), api_version, *served)
            return False
        try:
            request = REQUESTS[api_key].decode(frame, version=api_version, header=True)
            bad = null_field(request, REQUESTS[api_key]._struct, api_version)
        except Exception:           # noqa: BLE001 - the codec raises many types on malformed bytes
            bad = "?"
        if bad is not None:
            log.info("node %d: undecodable %s v%d request (%s)", self.node_id,
                     api_name(api_key), api_version, bad)
            return False
        self._count(api_key, frame)
        fault = self.faults.get(api_name(api_key))
        if fault == "hang":
            await asyncio.Event().wait()            # until the node stops (the task is cancelled)
        if fault == "late":
            await asyncio.sleep(LATE_S)
        ctx = RequestContext(cluster=self.cluster, node_id=self.node_id, api_key=api_key,
                             api_version=api_version, correlation_id=correlation_id,
                             client_id=request.header.client_id, client_host=client_host,
                             connection=connection)
        response = await HANDLERS[api_key].fn(ctx, request)
        if response is None or fault == "lose-reply":
            return None
        response.with_header(correlation_id=correlation_id)
        framed = response.encode(header=True, framed=True)
        if not ctx.deferred:
            return [framed]
        return splice(framed, ctx.deferred, response.flexible_version_q(api_version))


class Broker:
    """All node servers of one cluster, on the running event loop."""

    def __init__(self, cluster: Cluster, host: str = "127.0.0.1", port: int = 0,
                 tls: ssl.SSLContext | None = None):
        self.cluster = cluster
        self.faults: dict[str, str] = {}           # shared by every node (see FAULTS)
        self.nodes = {node_id: NodeServer(cluster, node_id, host, port + i if port else 0, tls,
                                          self.faults)
                      for i, node_id in enumerate(cluster.node_ids)}

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(host_port(s.host, s.port) for s in self.nodes.values())

    async def start(self) -> None:
        transactions_for(self.cluster)      # a restart's open transactions time out again
        for server in self.nodes.values():
            await server.start()
        self.cluster.resume_replication()

    async def stop(self) -> None:
        for server in self.nodes.values():
            await server.stop()
        close_transactions(self.cluster)
        self.cluster.close()

    async def stop_node(self, node_id: int) -> None:
        await self.nodes[node_id].stop()

    async def start_node(self, node_id: int) -> None:
        await self.nodes[node_id].start()

    def request_counts(self, client_id: str | None = None) -> dict[int, dict[str, int]]:
        if client_id is None:
            return {node_id: dict(s.counts) for node_id, s in self.nodes.items()}
        return {node_id: {api: n for (c, api), n in s.client_counts.items() if c == client_id}
                for node_id, s in self.nodes.items()}


WRITE_ALONE = 16 << 10      # a part at least this big is written as it is; smaller ones are joined


def _coalesced(parts: list):
    """A response's parts (dispatch.splice's: a Fetch answer's encoded pieces, length prefixes of
    a few bytes and its record batches, three per partition) as few writes: consecutive small parts
    joined, a big batch written as stored. Each write the transport could send at once was a send
    of its own: 30k sends of a 10k-partition Fetch, which a client then read in as many pieces."""
    run: list = []
    for part in parts:
        if len(part) < WRITE_ALONE:
            run.append(part)
            continue
        if run:
            yield b"".join(run)
            run = []
        yield part
    if run:
        yield b"".join(run)


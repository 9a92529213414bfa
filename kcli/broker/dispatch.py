"""The broker's handler registry: the one contract between the network server and the API handlers.

A handler module registers coroutines with ``@handles(api_key, min_version, max_version)``. The
server decodes each request with ``kcli.protocol.REQUESTS[api_key]`` and calls
``await fn(ctx, request)``; the handler returns a response object built from
``kcli.protocol.RESPONSES[api_key]`` at ``ctx.api_version`` (or ``None`` for no response, as for
Produce with acks=0). The server adds the header and frames it. ApiVersions advertises exactly
the registered ranges, narrowed when the cluster poses as an older broker. Per-connection state
(SASL progress) is ``ctx.connection``.

A handler answering with large byte fields (Fetch's records) may put ``ctx.defer(chunks, size)``
in a field instead of the bytes: kafka-python encodes the response around that 16-byte stand-in,
and the server then writes the encoded parts and the chunks themselves (``splice``), so records
are never copied into the encoded response.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import kcli.protocol  # noqa: F401 - first: kafka-python's packages bare (see broker/log.py)
from kafka.protocol.schemas.fields.codecs.types import Int32, UnsignedVarInt32

from kcli.broker.acl import CLUSTER_NAME, ResourceType
from kcli.broker.apikeys import API_VERSIONS, SASL_AUTHENTICATE, SASL_HANDSHAKE


@dataclass(frozen=True)
class Handler:
    api_key: int
    min_version: int
    max_version: int
    fn: Callable[["RequestContext", Any], Awaitable[Any]]


HANDLERS: dict[int, Handler] = {}


def handles(api_key: int, min_version: int, max_version: int):
    def register(fn):
        if api_key in HANDLERS:             # one handler per API: a second would silently win
            raise RuntimeError(f"API key {api_key} already has a handler: {HANDLERS[api_key].fn.__qualname__}")
        HANDLERS[api_key] = Handler(api_key, min_version, max_version, fn)
        return fn
    return register


# On a SASL listener, the APIs a connection may use before it has authenticated, by SASL step
# (as Kafka's SaslServerAuthenticator): any other request closes the connection. (Kafka also
# refuses a second ApiVersions, and answers an out-of-step request before closing.)
SASL_STEPS: dict[str, frozenset[int]] = {
    "handshake": frozenset({API_VERSIONS, SASL_HANDSHAKE}),
    "authenticate": frozenset({SASL_AUTHENTICATE}),
}


@dataclass
class Connection:
    """One client connection's state, which handlers may change. ``sasl`` is the connection's
    SASL step (a key of ``SASL_STEPS``, or "done": authenticated, or a PLAINTEXT listener),
    ``user`` whom it authenticated as (its principal is ``User:<user>``, or User:ANONYMOUS);
    ``close`` asks the server to close the connection once the current response is written."""
    sasl: str = "done"
    close: bool = False
    user: str | None = None          # the authenticated SASL user (None: ANONYMOUS)
    exchange: Any = None             # a SCRAM exchange in progress (scram.ScramServer)
    mechanism: str | None = None


@dataclass
class RequestContext:
    cluster: Any            # kcli.broker.cluster.Cluster
    node_id: int            # the node (port) that received the request
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    client_host: str        # "/127.0.0.1", as Kafka reports member hosts
    connection: Connection = field(default_factory=Connection)
    extra: dict = field(default_factory=dict)
    deferred: list = field(default_factory=list)     # (stand-in, chunks, size), in field order

    @property
    def principal(self) -> str:
        user = self.connection.user
        return f"User:{user}" if user is not None else "User:ANONYMOUS"

    def allowed(self, op: int, resource_type: int = ResourceType.CLUSTER,
                name: str = CLUSTER_NAME) -> bool:
        """Whether this connection's principal may ``op`` the resource (always, with the
        cluster's authorizer off)."""
        cluster = self.cluster
        return not cluster.authorize or cluster.authorizer.authorize(
            self.principal, self.client_host.lstrip("/"), op, resource_type, name)

    def may(self, op: int, topic: str) -> bool:
        """``allowed`` for a topic."""
        return self.allowed(op, ResourceType.TOPIC, topic)

    def authorized_operations(self, resource_type: int, name: str = CLUSTER_NAME) -> set[int]:
        """The operations of the resource this principal may do (every one the type has, with
        the authorizer off), for the authorized-operations fields."""
        from kcli.broker.acl import SUPPORTED

        if not self.cluster.authorize:
            return {int(op) for op in SUPPORTED[resource_type]}
        return self.cluster.authorizer.authorized_operations(
            self.principal, self.client_host.lstrip("/"), resource_type, name)

    def defer(self, chunks: list, size: int) -> bytes:
        """The stand-in for a bytes field whose value is ``chunks`` (bytes-like, ``size`` bytes
        in all): ``splice`` puts them in its place. Fields must be deferred in the order the
        response encodes them."""
        stand_in = _TOKEN + _INDEX.pack(len(self.deferred))
        self.deferred.append((stand_in, chunks, size))
        return stand_in


_TOKEN = os.urandom(12)        # a stand-in is this process's token and its index: 16 bytes no
_INDEX = struct.Struct(">I")   # other field of a response can hold by chance
_INT32 = struct.Struct(">i")


def splice(framed: bytes | bytearray, deferred: list, compact: bool) -> list:
    """The buffers to write for ``framed`` (an encoded, framed response holding the stand-ins
    ``deferred``): each stand-in and its length prefix (INT32, or UNSIGNED_VARINT length + 1 when
    ``compact``) replaced by the real length prefix and its chunks, the frame size corrected."""
    out: list = []
    start, grown = 0, 0
    framed = framed if isinstance(framed, bytearray) else bytearray(framed)
    view = memoryview(framed)
    for stand_in, chunks, size in deferred:
        prefix, real = ((UnsignedVarInt32.encode(len(stand_in) + 1),
                         UnsignedVarInt32.encode(size + 1)) if compact
                        else (Int32.encode(len(stand_in)), Int32.encode(size)))
        at = framed.find(prefix + stand_in, start)
        if at < 0:
            raise AssertionError("a deferred field's stand-in is missing from the response")
        out += (view[start:at], real, *chunks)
        start = at + len(prefix) + len(stand_in)
        grown += len(real) + size - len(prefix) - len(stand_in)
    out.append(view[start:])
    _INT32.pack_into(framed, 0, _INT32.unpack_from(framed)[0] + grown)
    return out

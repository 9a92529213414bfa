"""The broker's handler registry: the one contract between the network server and the API handlers.

A handler module registers coroutines with ``@handles(api_key, min_version, max_version)``. The
server decodes each request with ``kcli.protocol.REQUESTS[api_key]`` and calls
``await fn(ctx, request)``; the handler returns a response object built from
``kcli.protocol.RESPONSES[api_key]`` at ``ctx.api_version`` (or ``None`` for no response, as for
Produce with acks=0). The server adds the header and frames it. ApiVersions advertises exactly
the registered ranges, narrowed when the cluster poses as an older broker. Per-connection state
(SASL progress) is ``ctx.connection``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable


@dataclass(frozen=True)
class Handler:
    api_key: int
    min_version: int
    max_version: int
    fn: Callable[["RequestContext", Any], Awaitable[Any]]


HANDLERS: dict[int, Handler] = {}


def handles(api_key: int, min_version: int, max_version: int):
    def register(fn):
        HANDLERS[api_key] = Handler(api_key, min_version, max_version, fn)
        return fn
    return register


# On a SASL listener, the APIs a connection may use before it has authenticated, by SASL step
# (as Kafka's SaslServerAuthenticator): any other request closes the connection. (Kafka also
# refuses a second ApiVersions, and answers an out-of-step request before closing.)
SASL_STEPS: dict[str, frozenset[int]] = {
    "handshake": frozenset({18, 17}),     # ApiVersions, SaslHandshake
    "authenticate": frozenset({36}),      # SaslAuthenticate
}


@dataclass
class Connection:
    """One client connection's state, which handlers may change. ``sasl`` is the connection's
    SASL step (a key of ``SASL_STEPS``, or "done": authenticated, or a PLAINTEXT listener);
    ``close`` asks the server to close the connection once the current response is written."""
    sasl: str = "done"
    close: bool = False


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

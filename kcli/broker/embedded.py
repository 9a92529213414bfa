"""Running the broker: ``EmbeddedCluster`` (a background thread, for tests and the demo) and
``run_forever`` (the foreground process behind ``kcli broker start``)."""

from __future__ import annotations

import asyncio
import signal
import ssl
import threading
from pathlib import Path
from typing import Any, Callable

from kcli.broker.cluster import OMITTED, Cluster, Topic
from kcli.broker.server import Broker, tls_context
from kcli.broker.versions import check_pose_as


def parse_listen(listen: str) -> tuple[str, int]:
    host, _, port = listen.rpartition(":")
    return host.strip("[]") or "127.0.0.1", int(port)


def exposure_warning(host: str) -> str | None:
    """The ``Warn:`` line for a listen host that is not loopback (None for 127.0.0.0/8, ::1,
    localhost): the broker has no authorization, so whoever reaches it may read, write and
    delete every topic. Pure: nothing is resolved or bound."""
    import ipaddress

    name = host.strip("[]")
    if name.lower() == "localhost":
        return None
    try:
        if ipaddress.ip_address(name).is_loopback:
            return None
    except ValueError:
        pass                             # a host name: whatever it resolves to may be reachable
    return (f"Warn: listening on {name}, not a loopback address: the embedded broker has no "
            f"authentication or authorization, so anyone who reaches it can read, write and "
            f"delete every topic")


def unadvertisable(host: str) -> str | None:
    """Why clients cannot be sent to ``host`` (None when they can). Each node tells clients, in
    Metadata, the address it listens on; the unspecified address (0.0.0.0, ::) listens on every
    interface but is no place to connect to, so clients that bootstrapped would be sent to
    nowhere. Kafka refuses to advertise it too ("advertised.listeners cannot use the nonroutable
    meta-address 0.0.0.0"). One of this machine's addresses is advertised as it is."""
    import ipaddress

    try:
        if not ipaddress.ip_address(host.strip("[]")).is_unspecified:
            return None
    except ValueError:
        return None
    return (f"{host} (every interface) is no address a client can connect to, and each node "
            "advertises to clients the address it listens on: listen on 127.0.0.1, or on an "
            "address of this machine that clients reach")


class EmbeddedCluster:
    """An N-node broker serving on ``host`` (ports ``port``, ``port+1``, ... or ephemeral with
    port 0), its asyncio loop running on a background thread. Node ids are 1..N.

    Use as a context manager, or call ``start()`` and ``stop()``. ``clock`` is a callable
    returning epoch milliseconds (the broker's notion of now: creation times, partition ages,
    KIP-937 bounds, LogAppendTime). ``record_creation_times=False`` creates partitions with an
    unknown (-1) creation time, as after an upgrade. ``sasl_users`` ({user: password}) makes
    every listener SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (salted credentials
    made at start; default None: PLAINTEXT). ``tls`` (a
    (certfile, keyfile) pair of PEM paths, or a server-side ``ssl.SSLContext``) makes every
    listener SSL, or SASL_SSL with ``sasl_users``; metadata still advertises ``host``.
    ``authorize`` turns on the authorizer (kcli.broker.acl, as Kafka's StandardAuthorizer: no
    ACL, no access), ``super_users`` (user names) pass every check. ``unsecured_oauthbearer``
    (with ``sasl_users``, ``{}`` for none) offers SASL/OAUTHBEARER too, with Kafka's default
    unsecured validator (kcli.broker.oauth: the token's ``sub`` is the principal; anyone may
    make one for any name).
    """

    def __init__(self, nodes: int = 1, data_dir: str | Path | None = None,
                 clock: Callable[[], int] | None = None, configs: dict[str, str] | None = None,
                 pose_as: str | None = None, host: str = "127.0.0.1", port: int = 0,
                 record_creation_times: bool = True, sasl_users: dict[str, str] | None = None,
                 tls: ssl.SSLContext | tuple[str, str] | None = None, authorize: bool = False,
                 super_users: list[str] | None = None, unsecured_oauthbearer: bool = False):
        check_pose_as(pose_as)
        self._args: dict[str, Any] = dict(node_ids=list(range(1, nodes + 1)), data_dir=data_dir, clock=clock,
                          configs=configs, pose_as=pose_as,
                          record_creation_times=record_creation_times, sasl_users=sasl_users,
                          authorize=authorize, super_users=super_users,
                          unsecured_oauthbearer=unsecured_oauthbearer)
        self._host, self._port = host, port
        self._tls = tls_context(tls)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Broker | None = None

    @property
    def _running(self) -> Broker:
        if self._broker is None:
            raise RuntimeError("the embedded cluster is not started")
        return self._broker

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> "EmbeddedCluster":
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="kcli-broker",
                                        daemon=True)
        self._thread.start()

        async def boot():
            broker = Broker(Cluster(**self._args), self._host, self._port, self._tls)
            await broker.start()
            return broker

        try:
            self._broker = self._run(boot())
        except BaseException:
            self._shutdown_loop()
            raise
        return self

    def stop(self) -> None:
        if self._broker is not None:
            self._run(self._broker.stop())
            self._broker = None
        self._shutdown_loop()

    def _shutdown_loop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=10)
            self._loop.close()
            self._loop = None

    def __enter__(self) -> "EmbeddedCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _run(self, coro, timeout: float = 30) -> Any:
        if self._loop is None:
            raise RuntimeError("the embedded cluster is not started")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def call(self, fn: Callable[..., Any], *args, **kwargs) -> Any:
        """Run ``fn`` on the broker's loop thread (where the cluster state lives)."""
        async def run():
            return fn(*args, **kwargs)
        return self._run(run())

    # -- what tests use --------------------------------------------------------------------

    @property
    def cluster(self) -> Cluster:
        return self._running.cluster

    @property
    def bootstrap_servers(self) -> str:
        return self._running.bootstrap_servers

    def stop_node(self, node_id: int) -> None:
        self._run(self._running.stop_node(node_id))

    def start_node(self, node_id: int) -> None:
        self._run(self._running.start_node(node_id))

    def fault(self, api: str, mode: str | None) -> None:
        """Inject a fault for every request of one API (by name, e.g. "OffsetCommit"): "hang"
        (never answered, nothing applied), "lose-reply" (applied, never answered) or "late"
        (applied and answered 2.5 s late); None clears it. For tests of what clients do with a stuck or lossy broker."""
        from kcli.broker.server import FAULTS, REQUESTS, api_name

        if mode not in (None, *FAULTS):
            raise ValueError(f"fault mode must be one of {FAULTS} or None")
        if api not in {api_name(k) for k in REQUESTS}:
            raise ValueError(f"unknown API {api!r}")

        def apply():
            if mode is None:
                self._running.faults.pop(api, None)
            else:
                self._running.faults[api] = mode
        self.call(apply)

    REFUSABLE = ("FindCoordinator", "OffsetFetch", "OffsetCommit", "ConsumerGroupDescribe",
                 "StreamsGroupDescribe")

    def refuse(self, api: str, error: str | None, count: int | None = None) -> None:
        """Answer the next ``count`` group keys of ``api`` (one of REFUSABLE: a FindCoordinator
        key, an OffsetFetch, ConsumerGroupDescribe or StreamsGroupDescribe group, an OffsetCommit
        request) with the Kafka error ``error`` (by
        name, e.g. "COORDINATOR_NOT_AVAILABLE", as a fresh cluster answers until
        __consumer_offsets exists), from any client; ``count`` None: every one until cleared
        (``error`` None). For tests of what clients do while the coordinator is not there.
        ``error`` OMIT (FindCoordinator v4+ only): the key is left out of the answer."""
        from kcli.broker.errors import Err

        if api not in self.REFUSABLE:
            raise ValueError(f"api must be one of {self.REFUSABLE}")
        if error == "OMIT" and api != "FindCoordinator":
            raise ValueError("only FindCoordinator keys can be left out of an answer")
        code = (None if error is None else OMITTED if error == "OMIT"
                else Err[error] if error in Err.__members__ else None)
        if error is not None and code is None:
            raise ValueError(f"unknown coordinator error {error!r}")

        def apply():
            if code is None or count == 0:
                self.cluster.refusals.pop(api, None)
            else:
                self.cluster.refusals[api] = [code, count]
        self.call(apply)

    def request_counts(self, client_id: str | None = None) -> dict[int, dict[str, int]]:
        """{node id: {API name: requests served}}, e.g. ``{1: {"Metadata": 3}}``; with
        ``client_id``, only the requests whose header carries it (kcli's own connection:
        ``kcli``; librdkafka's: ``rdkafka``)."""
        return self.call(lambda: self._running.request_counts(client_id))

    def create_topic(self, name: str, partitions: int = 1, replication_factor: int = 1,
                     configs: dict[str, str] | None = None,
                     creation_time_ms: int | None = None) -> Topic:
        """Create a topic directly (``creation_time_ms=-1``: unknown creation time)."""
        return self.call(self.cluster.create_topic, name, partitions, replication_factor,
                         configs=configs, creation_time_ms=creation_time_ms)


def run_forever(listen: str = "127.0.0.1:9092", nodes: int = 1,
                data_dir: str | Path | None = None, configs: dict[str, str] | None = None,
                pose_as: str | None = None,
                ready_callback: Callable[[str], None] | None = None,
                sasl_users: dict[str, str] | None = None, super_users: list[str] | None = None,
                tls: ssl.SSLContext | tuple[str, str] | None = None, unsecured_oauthbearer: bool = False) -> None:
    """Serve in the foreground until SIGINT or SIGTERM, then shut down cleanly and return.

    Installs its own SIGINT/SIGTERM handlers for the duration (so call it from the main
    thread). Node ``i`` listens on ``listen``'s port + i - 1. ``sasl_users`` ({name: password})
    turn on SASL and the authorizer (``super_users`` pass every ACL check), and so does
    ``unsecured_oauthbearer`` (OAUTHBEARER offered too); ``tls`` as
    EmbeddedCluster's. Prints nothing but the ``exposure_warning`` of a non-loopback host served
    without users (stderr); calls
    ``ready_callback(bootstrap_servers)`` once every node listens.
    """
    check_pose_as(pose_as)
    host, port = parse_listen(listen)
    if reason := unadvertisable(host):
        raise ValueError(reason)
    if not sasl_users and (warning := exposure_warning(host)):
        import sys

        print(warning, file=sys.stderr, flush=True)

    secured = bool(sasl_users) or unsecured_oauthbearer

    async def main():
        broker = Broker(Cluster(list(range(1, nodes + 1)), data_dir=data_dir, configs=configs,
                                pose_as=pose_as, sasl_users=sasl_users or ({} if secured else None),
                                authorize=secured, super_users=super_users,
                                unsecured_oauthbearer=unsecured_oauthbearer),
                        host, port, tls_context(tls))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await broker.start()
            if ready_callback is not None:
                ready_callback(broker.bootstrap_servers)
            await stop.wait()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
            await broker.stop()

    asyncio.run(main())

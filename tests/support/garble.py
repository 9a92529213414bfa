"""A broker stub for the fallback tests: a proxy on 127.0.0.1 (ephemeral port) in front of one
broker that passes every frame through, except the answers to some APIs for one client id,
which it replaces with a frame no codec can read (the request's correlation id, then bytes
that end short). With client id ``kcli`` (kcli's own connection) librdkafka's requests, sent
with ``rdkafka``, still get the real answers: a broker whose answers only kcli's own client
cannot read. Every socket is bounded by a timeout; the proxy stops at the end of its ``with``."""

from __future__ import annotations

import socket
import struct
import threading

API_KEYS = {"Metadata": 3, "ApiVersions": 18, "DescribeConfigs": 32, "DescribeTopicPartitions": 75,
            "ListOffsets": 2, "OffsetFetch": 9, "FindCoordinator": 10, "ConsumerGroupDescribe": 69}
GARBLED = b"\xff\xff\xff\xff\x7f"       # a length that runs past the end of the frame
IDLE_S = 30.0


def _frame(sock) -> bytes | None:
    head = _exactly(sock, 4)
    if head is None:
        return None
    body = _exactly(sock, struct.unpack(">i", head)[0])
    return None if body is None else head + body


def _exactly(sock, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _end(sock) -> None:
    """Shut down, then close: a shutdown ends another thread's blocked read at once (a close does not)."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


class GarblingProxy:
    def __init__(self, upstream: str, apis: list[str], client_id: str = "kcli"):
        host, port = upstream.split(",")[0].rsplit(":", 1)
        self.upstream = (host, int(port))
        self.keys = {API_KEYS[a] for a in apis}
        self.client_id = client_id.encode()
        self.garbled: list[str] = []                 # "api_key v version" of each answer garbled
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sockets: list[socket.socket] = []

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self._server.getsockname()[1]}"

    def __enter__(self) -> "GarblingProxy":
        self._spawn(self._accept)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for sock in self._sockets:
            _end(sock)
        for t in self._threads:
            t.join(0.5)                               # daemons: a straggler ends with the process
        self._server.close()

    def _spawn(self, fn, *args) -> None:
        t = threading.Thread(target=fn, args=args, daemon=True)
        self._threads.append(t)
        t.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                continue
            upstream = socket.create_connection(self.upstream, timeout=IDLE_S)
            client.settimeout(IDLE_S)
            self._sockets += [client, upstream]
            pending: dict[int, tuple[int, int]] = {}   # correlation id -> (api key, version) to garble
            self._spawn(self._requests, client, upstream, pending)
            self._spawn(self._answers, upstream, client, pending)

    def _requests(self, client, upstream, pending) -> None:
        try:
            while not self._stop.is_set() and (frame := _frame(client)) is not None:
                key, version, corr, id_len = struct.unpack(">hhih", frame[4:14])
                client_id = frame[14:14 + id_len] if id_len >= 0 else b""
                if key in self.keys and client_id == self.client_id:
                    pending[corr] = (key, version)
                upstream.sendall(frame)
        except OSError:
            pass
        finally:
            _end(upstream)

    def _answers(self, upstream, client, pending) -> None:
        try:
            while not self._stop.is_set() and (frame := _frame(upstream)) is not None:
                corr = struct.unpack(">i", frame[4:8])[0]
                if corr in pending:
                    key, version = pending.pop(corr)
                    self.garbled.append(f"{key} v{version}")
                    body = frame[4:8] + GARBLED
                    frame = struct.pack(">i", len(body)) + body
                client.sendall(frame)
        except OSError:
            pass
        finally:
            _end(client)

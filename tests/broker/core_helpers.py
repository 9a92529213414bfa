"""Helpers for the broker core tests: an injectable clock, a raw wire client that sends
kcli.protocol requests at an exact version and decodes the answer with the same codec, and a
bounded wait."""

from __future__ import annotations

import socket
import struct
import time

from kcli.protocol import REQUESTS, RESPONSES


class Clock:
    """An injectable broker clock (epoch ms) the test moves by hand."""

    def __init__(self, now_ms: int | None = None):
        # Real time by default: clients stamp records with it, and Kafka 4's broker refuses
        # records over an hour ahead of its clock (message.timestamp.after.max.ms).
        self.now_ms = int(time.time() * 1000) if now_ms is None else now_ms

    def __call__(self) -> int:
        return self.now_ms


class Wire:
    """One connection to one node; ``send`` returns the decoded response (None when the broker
    closed the connection)."""

    def __init__(self, address: tuple[str, int]):
        self.sock = socket.create_connection(address, timeout=10)
        self.correlation_id = 0

    def send_raw(self, frame: bytes) -> bytes | None:
        self.sock.sendall(frame)
        head = self._read(4)
        if head is None:
            return None
        return self._read(struct.unpack(">i", head)[0])

    def _read(self, n: int) -> bytes | None:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def send(self, request, version: int | None = None):
        version = request.API_VERSION if version is None else version
        self.correlation_id += 1
        request.with_header(correlation_id=self.correlation_id, client_id="core-tests")
        payload = self.send_raw(request.encode(version=version, header=True, framed=True))
        if payload is None:
            return None
        response = RESPONSES[request.API_KEY].decode(payload, version=version, header=True)
        assert response.header.correlation_id == self.correlation_id
        return response

    def close(self) -> None:
        self.sock.close()


def req(api_key: int, version: int, **fields):
    return REQUESTS[api_key](version=version, **fields)


def wait_until(predicate, timeout_s: float = 10.0, interval_s: float = 0.05):
    """Poll ``predicate`` (bounded in time); return its last truthy value or fail."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout_s}s")
        time.sleep(interval_s)

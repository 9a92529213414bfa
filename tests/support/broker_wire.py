"""Helpers for the broker core tests: an injectable clock, a raw wire client that sends
kcli.protocol requests at an exact version and decodes the answer with the same codec, and a
bounded wait."""

from __future__ import annotations

import socket
import struct

from kcli.protocol import REQUESTS, RESPONSES


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



"""Stopping does not wait for parked requests: a long-polling Fetch ends with its node.

A Fetch without partitions can never reach min_bytes, so it parks for its whole max_wait_ms
(up to 2^31 - 1 ms): stopping its node, the broker, or the ``kcli broker start`` process must end
it at once (the connection closes), not when the wait runs out."""

from __future__ import annotations

import select
import signal
import socket
import subprocess
import sys
import time

from tests.support.broker_wire import Wire, req
from tests.support.waits import wait_until

from kcli.broker import EmbeddedCluster

FOREVER_MS = 2**31 - 1


def park_fetch(address: tuple[str, int], node_counts=None) -> Wire:
    """Send a Fetch that parks for FOREVER_MS and return its connection (no answer is read)."""
    w = Wire(address)
    r = req(1, 12, replica_id=-1, max_wait_ms=FOREVER_MS, min_bytes=1, max_bytes=1 << 20,
            isolation_level=0, session_id=0, session_epoch=-1, topics=[],
            forgotten_topics_data=[], rack_id="")
    r.with_header(correlation_id=1, client_id="parked")
    w.sock.sendall(r.encode(version=12, header=True, framed=True))
    if node_counts is not None:                  # the broker has it (parked, not yet read)
        wait_until(lambda: node_counts().get("Fetch", 0) == 1, 5)
    return w


def closed_by_broker(w: Wire, timeout_s: float = 2.0) -> bool:
    """True when the broker closed the connection without answering the parked Fetch."""
    w.sock.settimeout(timeout_s)
    try:
        return w.sock.recv(1) == b""
    except (ConnectionResetError, socket.timeout):
        return False


def timed(fn) -> float:
    start = time.monotonic()
    fn()
    return time.monotonic() - start


def test_stop_node_and_stop_end_parked_fetches_at_once(clock):
    ec = EmbeddedCluster(nodes=2, clock=clock).start()
    parked = []
    try:
        for node in (1, 2):
            parked.append(park_fetch(ec.cluster.node_address(node),
                                     lambda: ec.request_counts()[node]))
        assert timed(lambda: ec.stop_node(1)) < 5      # the parked fetch waits forever
        assert closed_by_broker(parked[0])
        assert timed(ec.stop) < 5
        assert closed_by_broker(parked[1])
    finally:
        ec.stop()
        for w in parked:
            w.close()


def test_broker_start_exits_at_once_on_sigterm_with_a_parked_fetch():
    proc = subprocess.Popen([sys.executable, "-m", "kcli", "broker", "start",
                             "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    parked = None
    try:
        assert select.select([proc.stdout], [], [], 20)[0], "broker not ready within 20s"
        line = proc.stdout.readline()
        assert line.startswith("bootstrap: "), line
        host, port = line.split(": ", 1)[1].strip().rsplit(":", 1)
        parked = park_fetch((host, int(port)))
        # parked: no answer within 0.5 s (an empty Fetch of max_wait_ms 0 is answered at once)
        assert not select.select([parked.sock], [], [], 0.5)[0]
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        assert proc.wait(10) == 0
        assert time.monotonic() - start < 5     # the parked fetch waits forever
        assert closed_by_broker(parked)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if parked is not None:
            parked.close()

"""``kcli lag serve`` as a user runs it: a child process (``python -m kcli``) on an ephemeral
loopback port, scraped over HTTP; every wait bounded.

    with LagServe(bootstrap, "--interval", "500ms") as s:
        s.wait_collections(2)
        s.value("kafka_consumergroup_group_lag", group="g", partition="0")
    s.code        # its exit code after SIGTERM

``Prometheus``: Debian's prometheus binary scraping one target every second, queried through
its HTTP API.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from prometheus_client.parser import text_string_to_metric_families

from tests.support.waits import wait_until

STARTUP_S = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url: str, headers: dict | None = None, context=None) -> tuple[int, str, dict]:
    """(status, body, headers) of a GET, 5 s at most; an HTTP error status is returned too.
    ``context``: an ssl.SSLContext for https."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5, context=context) as resp:
            return resp.status, resp.read().decode(), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def samples(text: str) -> list[tuple[str, dict, float]]:
    """Every sample of a Prometheus text exposition: (name, labels, value)."""
    return [(s.name, dict(s.labels), s.value) for fam in text_string_to_metric_families(text) for s in fam.samples]


class LagServe:
    def __init__(self, bootstrap: str, *args: str, timeout: str = "2s", context=None, headers: dict | None = None):
        self.argv = [sys.executable, "-m", "kcli", "-b", bootstrap, "--timeout", timeout, "lag", "serve",
                     "--listen", "127.0.0.1:0", *args]
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.code: int | None = None
        self.err = ""
        self.stopped_in_s: float | None = None
        self.context, self.headers = context, headers or {}      # https, and an Authorization header

    def __enter__(self) -> "LagServe":
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        ready = sel.select(STARTUP_S)
        sel.close()
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("listening: "):
            self.stop()
            raise AssertionError(f"kcli lag serve did not start: {line!r} {self.err}")
        self.url = line.split()[1]
        return self

    def __exit__(self, *exc) -> None:
        if self.code is None:
            self.stop()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Sends ``sig``; the exit code (waited for 10 s at most: the test asserts its own margin)."""
        assert self.proc is not None
        started = time.monotonic()
        self.proc.send_signal(sig)
        try:
            self.code = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.code = self.proc.wait(10)
        self.stopped_in_s = time.monotonic() - started
        self.err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.code

    def get(self, path: str, headers: dict | None = None) -> tuple[int, str, dict]:
        return http_get(self.url + path, {**self.headers, **(headers or {})}, self.context)

    def metrics(self) -> list[tuple[str, dict, float]]:
        status, body, _ = self.get("/metrics")
        assert status == 200, (status, body)
        return samples(body)

    def value(self, name: str, found: list | None = None, **labels: str) -> float | None:
        """The one sample of ``name`` whose labels include ``labels`` (None: no such sample)."""
        hits = [v for n, ls, v in (found if found is not None else self.metrics())
                if n == name and all(ls.get(k) == v2 for k, v2 in labels.items())]
        assert len(hits) <= 1, (name, labels, hits)
        return hits[0] if hits else None

    def wait_collections(self, more: int = 1, ok: bool = True, timeout: float = 30) -> list:
        """Waits until ``more`` further collections (successful ones when ``ok``) ended after
        now; returns the scrape that saw it."""
        key = "kcli_lag_collector_collections_total"
        start = self.value(key) or 0
        start_ok = start - (self.value("kcli_lag_collector_failures_total") or 0)

        def done():
            found = self.metrics()
            total = self.value(key, found) or 0
            good = total - (self.value("kcli_lag_collector_failures_total", found) or 0)
            return found if (good - start_ok if ok else total - start) >= more else None

        return wait_until(done, timeout=timeout, interval=0.1, what=f"{more} more collection(s)")


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is needed (apt-get install prometheus: scripts/test.sh installs it)")
    return path


class Prometheus:
    """The prometheus binary with its own config and storage under ``tmp``, on a free loopback
    port, scraping ``target`` every second; stopped by its PID."""

    def __init__(self, tmp: Path, target: str, **scrape: object):
        self.port = free_port()
        config = tmp / "prometheus.yml"
        config.write_text(json.dumps({        # JSON is YAML
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [{"job_name": "kcli-lag", "static_configs": [{"targets": [target]}], **scrape}]}))
        self.proc = subprocess.Popen(
            [tool("prometheus"), f"--config.file={config}", f"--storage.tsdb.path={tmp / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"

    def ready(self) -> bool:
        try:
            return http_get(self.url + "/-/ready")[0] == 200
        except OSError:
            return False

    def query(self, promql: str) -> list[dict]:
        status, body, _ = http_get(self.url + "/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
        assert status == 200, body
        doc = json.loads(body)
        assert doc["status"] == "success", doc
        return doc["data"]["result"]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(15)

"""A real Prometheus (Debian's ``prometheus`` package, scripts/test.sh installs it) scrapes ``kcli
lag serve`` on the embedded broker every second; the values read back through Prometheus's HTTP
API (/api/v1/query) are the ground truth: the offset lag, and the time lag (now minus the next
record's own timestamp) within the span between the records and the query. The shipped alerting
rules pass ``promtool check rules`` and ``promtool test rules``."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
from pathlib import Path

import pytest

from tests.support.clients import commit, produce
from tests.support.groups import fast_cluster
from tests.support.lag_serve import LagServe, free_port, http_get
from tests.support.waits import wait_until

RULES = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is needed (apt-get install prometheus: scripts/test.sh installs it)")
    return path


class Prometheus:
    """The prometheus binary with its own config and storage under ``tmp``, on a free loopback
    port, scraping ``target`` every second; stopped by its PID."""

    def __init__(self, tmp: Path, target: str):
        self.port = free_port()
        config = tmp / "prometheus.yml"
        config.write_text(json.dumps({        # JSON is YAML
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [{"job_name": "kcli-lag", "static_configs": [{"targets": [target]}]}]}))
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


def test_prometheus_scrapes_kcli_lag_serve_and_reads_back_the_ground_truth(tmp_path):
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("prom", 1)
        t0 = int(time.time() * 1000)
        ts = [t0 - 90_000 + i * 1000 for i in range(8)]
        produce(b, "prom", [(0, f"r{i}", t) for i, t in enumerate(ts)])
        commit(b, "prom-g", {("prom", 0): 3})
        with LagServe(b, "--interval", "500ms", "--cluster-name", "embedded") as s:
            s.wait_collections(1)
            prom = Prometheus(tmp_path, s.url.removeprefix("http://"))
            try:
                wait_until(prom.ready, timeout=60, interval=0.2, what="Prometheus ready")
                selector = '{job="kcli-lag",cluster_name="embedded",group="prom-g",topic="prom",partition="0"}'
                (lag,) = wait_until(lambda: prom.query("kafka_consumergroup_group_lag" + selector),
                                    timeout=60, interval=0.2, what="the lag scraped into Prometheus")
                assert float(lag["value"][1]) == 5
                asked_ms = time.time() * 1000
                (seconds,) = prom.query("kafka_consumergroup_group_lag_seconds" + selector)
                at_ms = float(seconds["value"][0]) * 1000                  # the query's evaluation time
                lag_ms = float(seconds["value"][1]) * 1000
                # the sample Prometheus holds was measured before the query and after the records
                assert t0 - ts[3] <= lag_ms <= max(asked_ms, at_ms) - ts[3], (lag_ms, at_ms - ts[3])
                assert at_ms - ts[3] - lag_ms <= 10_000          # a scrape interval or a few old
                assert [r["metric"]["group_type"] for r in prom.query('kcli_consumergroup_group_state{group="prom-g"}')] == ["classic"]
                (up,) = prom.query('up{job="kcli-lag"}')
                assert up["value"][1] == "1"
            finally:
                prom.stop()
        assert s.code == 0, s.err


def test_the_shipped_alerting_rules_pass_promtool(tmp_path):
    rules = RULES / "kcli-lag-rules.yml"
    checked = subprocess.run([tool("promtool"), "check", "rules", str(rules)], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run([tool("promtool"), "test", "rules", str(RULES / "kcli-lag-rules.test.yml")],
                            capture_output=True, text=True, timeout=60, cwd=RULES)
    assert tested.returncode == 0, tested.stdout + tested.stderr

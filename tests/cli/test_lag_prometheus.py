"""A real Prometheus (Debian's ``prometheus`` package, scripts/test.sh installs it) scrapes ``kcli
lag serve`` on the embedded broker every second; the values read back through Prometheus's HTTP
API (/api/v1/query) are the ground truth: the offset lag, and the time lag (now minus the next
record's own timestamp) within the span between the records and the query. The shipped alerting
rules pass ``promtool check rules`` and ``promtool test rules``; every metric the rules and the
Grafana dashboard name is one ``kcli lag serve`` exports."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

from tests.support.clients import commit, produce
from tests.support.groups import fast_cluster
from tests.support.lag_serve import LagServe, Prometheus, tool
from tests.support.waits import wait_until

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
RULES = DEPLOY / "prometheus"
DASHBOARD = DEPLOY / "grafana" / "kcli-lag-dashboard.json"
NAME = re.compile(r"\b(?:kafka|kcli)_[a-z_]+\b")


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
                states = prom.query('kcli_consumergroup_group_state{group="prom-g"}')
                assert [r["metric"]["group_type"] for r in states] == ["classic"]
                (up,) = prom.query('up{job="kcli-lag"}')
                assert up["value"][1] == "1"
            finally:
                prom.stop()
        assert s.code == 0, s.err


def test_tls_and_basic_auth_for_a_client_and_for_prometheus(tmp_path):
    """HTTPS with a certificate for 127.0.0.1 and basic authentication on every path: a client
    without the password gets 401, with it the metrics; Prometheus scrapes with its tls_config and
    basic_auth (password_file) and reads the lag back."""
    import base64
    import ssl

    from tests.support.lag_serve import http_get
    from tests.support.tls_certs import make_certs

    (tmp_path / "certs").mkdir()
    certs = make_certs(tmp_path / "certs")
    secret = tmp_path / "password"
    secret.write_text("s3cret\n")
    trust = ssl.create_default_context(cafile=certs.ca)
    auth = {"Authorization": "Basic " + base64.b64encode(b"prom:s3cret").decode()}
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("sec", 1)
        produce(b, "sec", [(0, f"r{i}", int(time.time() * 1000) - 5000) for i in range(4)])
        commit(b, "sec-g", {("sec", 0): 1})
        with LagServe(b, "--interval", "500ms", "--tls-cert-file", certs.server[0], "--tls-key-file", certs.server[1],
                      "--basic-auth-user", "prom", "--basic-auth-password-file", str(secret),
                      context=trust, headers=auth) as s:
            assert s.url.startswith("https://127.0.0.1:")
            found = s.wait_collections(1)
            assert s.value("kafka_consumergroup_group_lag", found, group="sec-g") == 3
            for path in ("/metrics", "/healthz"):
                status, _, headers = http_get(s.url + path, context=trust)
                assert status == 401 and headers["WWW-Authenticate"] == 'Basic realm="kcli lag serve"'
                wrong = {"Authorization": "Basic " + base64.b64encode(b"prom:guess").decode()}
                assert http_get(s.url + path, wrong, trust)[0] == 401
            try:
                http_get(s.url.replace("https", "http") + "/metrics", auth)
                raise AssertionError("plain HTTP was answered")
            except OSError:
                pass
            prom = Prometheus(tmp_path, s.url.removeprefix("https://"), scheme="https",
                              tls_config={"ca_file": certs.ca},
                              basic_auth={"username": "prom", "password_file": str(secret)})
            try:
                wait_until(prom.ready, timeout=60, interval=0.2, what="Prometheus ready")
                (lag,) = wait_until(lambda: prom.query('kafka_consumergroup_group_lag{group="sec-g"}'),
                                    timeout=60, interval=0.2, what="the lag scraped over TLS")
                assert float(lag["value"][1]) == 3
            finally:
                prom.stop()
        assert s.code == 0, s.err
        assert "s3cret" not in s.err


def test_the_shipped_alerting_rules_pass_promtool(tmp_path):
    rules = RULES / "kcli-lag-rules.yml"
    checked = subprocess.run([tool("promtool"), "check", "rules", str(rules)], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run([tool("promtool"), "test", "rules", str(RULES / "kcli-lag-rules.test.yml")],
                            capture_output=True, text=True, timeout=60, cwd=RULES)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def dashboard_exprs() -> list[str]:
    doc = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exprs = [t["expr"] for panel in doc["panels"] for t in panel["targets"]]
    return exprs + [v["query"] for v in doc["templating"]["list"] if v["type"] == "query"]


def test_every_metric_the_dashboard_and_the_rules_name_is_exported():
    names = {n for e in dashboard_exprs() for n in NAME.findall(e)}
    names |= set(NAME.findall((RULES / "kcli-lag-rules.yml").read_text(encoding="utf-8")))
    assert len(names) >= 15, names
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("dash", 1)
        produce(b, "dash", [(0, "r", int(time.time() * 1000) - 1000)])
        commit(b, "dash-g", {("dash", 0): 0})
        with LagServe(b, "--interval", "500ms") as s:
            exported = {name for name, _, _ in s.wait_collections(1)}
    # a group held back by an open transaction: the embedded broker has no transactions yet;
    # tests/apache/test_kcli_transactions.py reads these series from the collector on real Kafka
    needs_transactions = {"kcli_consumergroup_group_lso_held_seconds", "kcli_consumergroup_group_lso_held_records"}
    assert names - exported - needs_transactions == set(), names - exported

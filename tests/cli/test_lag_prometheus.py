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

from prometheus_client.parser import text_string_to_metric_families

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


def test_a_prometheus_web_config_file_tls_client_certificates_and_bcrypt_users(tmp_path):
    """The web configuration file Prometheus itself reads (``promtool check web-config`` passes
    it), relative file names and all: HTTPS that requires a client certificate from the CA, and a
    user with a bcrypt hash. Prometheus scrapes with its certificate and the password; a client
    without the certificate fails the handshake, one without the password gets 401."""
    import base64
    import ssl

    import bcrypt

    from tests.support.lag_serve import http_get
    from tests.support.tls_certs import client_cert, make_certs

    certs_dir = tmp_path / "certs"
    certs_dir.mkdir()
    certs = make_certs(certs_dir)
    client = client_cert(certs_dir, certs_dir)
    (tmp_path / "password").write_text("s3cret\n")
    config = tmp_path / "web.yml"
    config.write_text(json.dumps({          # JSON is YAML
        "tls_server_config": {"cert_file": "certs/server.pem", "key_file": "certs/server.key",
                              "client_auth_type": "RequireAndVerifyClientCert", "client_ca_file": "certs/ca.pem",
                              "min_version": "TLS12"},
        "basic_auth_users": {"prom": bcrypt.hashpw(b"s3cret", bcrypt.gensalt(4)).decode()}}))
    checked = subprocess.run([tool("promtool"), "check", "web-config", str(config)], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with_cert = ssl.create_default_context(cafile=certs.ca)
    with_cert.load_cert_chain(*client)
    auth = {"Authorization": "Basic " + base64.b64encode(b"prom:s3cret").decode()}
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("web", 1)
        produce(b, "web", [(0, f"r{i}", int(time.time() * 1000) - 5000) for i in range(4)])
        commit(b, "web-g", {("web", 0): 1})
        with LagServe(b, "--interval", "500ms", "--web-config-file", str(config), context=with_cert,
                      headers=auth) as s:
            found = s.wait_collections(1)
            assert s.value("kafka_consumergroup_group_lag", found, group="web-g") == 3
            assert http_get(s.url + "/metrics", context=with_cert)[0] == 401
            wrong = {"Authorization": "Basic " + base64.b64encode(b"prom:guess").decode()}
            assert http_get(s.url + "/metrics", wrong, with_cert)[0] == 401
            try:
                http_get(s.url + "/metrics", auth, ssl.create_default_context(cafile=certs.ca))
                raise AssertionError("a client without a certificate was answered")
            except OSError:
                pass
            prom = Prometheus(tmp_path, s.url.removeprefix("https://"), scheme="https",
                              tls_config={"ca_file": certs.ca, "cert_file": client[0], "key_file": client[1]},
                              basic_auth={"username": "prom", "password_file": str(tmp_path / "password")})
            try:
                wait_until(prom.ready, timeout=60, interval=0.2, what="Prometheus ready")
                (lag,) = wait_until(lambda: prom.query('kafka_consumergroup_group_lag{group="web-g"}'),
                                    timeout=60, interval=0.2, what="the lag scraped with the web config")
                assert float(lag["value"][1]) == 3
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
            s.wait_collections(1)
            status, body, _ = s.get("/metrics")
    assert status == 200, body
    # a family is exported when it is declared, samples or not (the expansion radar's and the
    # failed calls' have none on a healthy cluster): its name, and a counter's _total
    exported = {name for fam in text_string_to_metric_families(body)
                for name in (fam.name, fam.name + "_total" if fam.type == "counter" else fam.name)}
    assert names - exported == set(), names - exported


def test_prometheus_reads_a_running_then_stopped_kafka_streams_application(tmp_path):
    """An unmodified Kafka Streams 4.4 application on the embedded broker: while it runs, its
    streams group is Stable with a member and no lag; stopped, the group is Empty and records
    produced after it, stamped known times, are its lag, in offsets and in time, read back
    through Prometheus' API."""
    from kcli.broker import EmbeddedCluster
    from tests.support.clients import create_topic, unique
    from tests.support.streams_app import group_members, run_until_caught_up

    streams = {"group.streams.initial.rebalance.delay.ms": "0", "group.streams.heartbeat.interval.ms": "300"}
    with EmbeddedCluster(nodes=1, configs=streams) as ec:
        b = ec.bootstrap_servers
        app_id, source, sink = unique("lag-app"), unique("lag-in"), unique("lag-out")
        create_topic(b, source, partitions=2)
        create_topic(b, sink, partitions=1)
        produce(b, source, [(p, f"v{p}") for p in range(2)])
        app = run_until_caught_up(b, app_id, source, sink, 2, stop=False)
        with LagServe(b, "--interval", "500ms", "--group", app_id, "--cluster-name", "embedded", timeout="10s") as s:
            prom = Prometheus(tmp_path, s.url.removeprefix("http://"))
            try:
                wait_until(prom.ready, timeout=60, interval=0.2, what="Prometheus ready")
                group = f'{{job="kcli-lag",group="{app_id}"}}'

                def running():
                    states = prom.query("kcli_consumergroup_group_state" + group)
                    members = prom.query("kcli_consumergroup_group_members" + group)
                    lag = prom.query("kafka_consumergroup_group_sum_lag" + group)
                    return (states and members and lag and states[0]["metric"]["state"] == "Stable"
                            and float(members[0]["value"][1]) >= 1 and float(lag[0]["value"][1]) == 0)

                wait_until(running, timeout=60, interval=0.2, what="the running application's series")
                (st,) = prom.query("kcli_consumergroup_group_state" + group)
                assert st["metric"]["group_type"] == "streams"
                app.stop()
                wait_until(lambda: group_members(b, app_id) == 0, timeout=60, what="the group left empty")
                stamp = int(time.time() * 1000) - 60_000
                produce(b, source, [(0, f"late{i}", stamp + i * 1000) for i in range(3)])

                def stopped():
                    lag = prom.query(f'kafka_consumergroup_group_lag{{group="{app_id}",partition="0"}}')
                    states = prom.query("kcli_consumergroup_group_state" + group)
                    return (lag and states and float(lag[0]["value"][1]) == 3
                            and states[0]["metric"]["state"] == "Empty")

                wait_until(stopped, timeout=60, interval=0.2, what="the stopped application's lag")
                asked_ms = time.time() * 1000
                (seconds,) = prom.query(f'kafka_consumergroup_group_lag_seconds{{group="{app_id}",partition="0"}}')
                lag_ms = float(seconds["value"][1]) * 1000
                assert 0 <= asked_ms - stamp - lag_ms <= 30_000, (lag_ms, asked_ms - stamp)  # a scrape or a few old
                assert lag_ms >= 60_000 - 1000, lag_ms     # at least the age of the next record when produced
            finally:
                prom.stop()
                app.stop()
        assert s.code == 0, s.err

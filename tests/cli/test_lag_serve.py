"""``kcli lag serve`` as a child process against the embedded broker, scraped over HTTP: a classic
and a KIP-848 consumer group with live members and records produced with known timestamps give
kafka-lag-exporter's series with the true offset lag (a streams group's too) and time lag (now minus the next record's
own timestamp, within the collection's span), 0 when caught up, negative for future-dated
records; a commit that has not moved costs no Fetch; /healthz before the first collection, after
it, with the broker stopped (no lag series served) and back; SIGTERM and SIGINT exit 0; bad input
exits 2 before anything starts, a port in use 1."""

from __future__ import annotations

import signal
import socket
import time

import pytest
from confluent_kafka import TopicPartition

from kcli.broker import EmbeddedCluster
from tests.support.clients import commit, consume, consumer, expand, produce, tagged
from tests.support.groups import FAST_GROUPS, fast_cluster
from tests.support.lag_serve import LagServe, free_port
from tests.support.requests import snapshot, sent
from tests.support.run import run_kcli
from tests.support.streams_wire import streams_group_committed
from tests.support.waits import wait_until

INTERVAL_S = 0.5
STOP_MARGIN_S = 5          # SIGTERM within a second; a margin of seconds for a loaded machine


def member(b: str, group: str, protocol: str, topic: str, records: int, offsets: dict[int, int]):
    """A live member of ``group`` that read ``records`` of ``topic`` and committed ``offsets``."""
    c = consumer(b, group, protocol, **{"client.id": f"{group}-client"})
    c.subscribe([topic])
    assert len(consume(c, records)) == records
    c.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    return c


def collection_now_ms(s: LagServe, found: list) -> tuple[float, float]:
    """The span the last collection's ``now`` lies in (epoch ms)."""
    end = s.value("kcli_lag_collector_last_success_timestamp_seconds", found) * 1000
    return end - s.value("kcli_lag_collector_duration_seconds", found) * 1000 - 1, end + 1


def test_exact_lag_of_classic_and_consumer_groups_against_the_records_own_timestamps():
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("orders", 2)
        ec.create_topic("other", 1)
        now = int(time.time() * 1000)
        past = [now - 120_000 + i * 1000 for i in range(10)]          # partition 0
        future = [now + 600_000 + i * 1000 for i in range(5)]         # partition 1: a clock ahead
        produce(b, "orders", [(0, f"p{i}", ts) for i, ts in enumerate(past)]
                + [(1, f"f{i}", ts) for i, ts in enumerate(future)])
        produce(b, "other", [(0, "o", now)])
        classic = member(b, "classic-g", "classic", "orders", 15, {0: 4, 1: 0})
        modern = member(b, "modern-g", "consumer", "orders", 15, {0: 10, 1: 2})
        commit(b, "simple-g", {("orders", 0): 10, ("orders", 1): 5, ("other", 0): 0})
        commit(b, "ignored-g", {("orders", 0): 0})
        try:
            with LagServe(b, "--interval", f"{int(INTERVAL_S * 1000)}ms", "--exclude-group", "ignored-.*",
                          "--topic", "ord.rs", "--cluster-name", "test-cluster") as s:
                found = s.wait_collections(1)
                scraped_ms = time.time() * 1000
                lo, hi = collection_now_ms(s, found)

                def v(name, **labels):
                    return s.value(name, found, cluster_name="test-cluster", **labels)

                # offsets: committed, lag, sums and maxima, log ends and starts
                for g, p, offset, lag in [("classic-g", 0, 4, 6), ("classic-g", 1, 0, 5),
                                          ("modern-g", 0, 10, 0), ("modern-g", 1, 2, 3),
                                          ("simple-g", 0, 10, 0), ("simple-g", 1, 5, 0)]:
                    labels = dict(group=g, topic="orders", partition=str(p))
                    assert (v("kafka_consumergroup_group_offset", **labels),
                            v("kafka_consumergroup_group_lag", **labels)) == (offset, lag), labels
                sums = [v("kafka_consumergroup_group_sum_lag", group=g) for g in ("classic-g", "modern-g", "simple-g")]
                assert sums == [11, 3, 0]
                assert v("kafka_consumergroup_group_topic_sum_lag", group="classic-g", topic="orders") == 11
                assert v("kafka_consumergroup_group_max_lag", group="classic-g", is_simple_consumer="false") == 6
                assert v("kafka_consumergroup_group_max_lag", group="simple-g", is_simple_consumer="true") == 0
                assert [v("kafka_partition_latest_offset", topic="orders", partition=p) for p in "01"] == [10, 5]
                assert [v("kafka_partition_earliest_offset", topic="orders", partition=p) for p in "01"] == [0, 0]
                # the members' labels on the partitions they hold
                (labels,) = [ls for n, ls, _ in found if n == "kafka_consumergroup_group_lag"
                             and ls["group"] == "classic-g" and ls["partition"] == "0"]
                assert labels["client_id"] == "classic-g-client" and labels["consumer_id"] and labels["member_host"]
                # time lag: now minus the timestamp of the record at the committed offset
                for g, p, ts in [("classic-g", 0, past[4]), ("classic-g", 1, future[0]), ("modern-g", 1, future[2])]:
                    where = {"group": g, "topic": "orders", "partition": str(p)}
                    lag_ms = v("kafka_consumergroup_group_lag_seconds", **where) * 1000
                    assert lo - ts <= lag_ms <= hi - ts, (g, p, lag_ms, lo - ts, hi - ts)
                    assert scraped_ms - ts - lag_ms <= (INTERVAL_S + 5) * 1000           # within an interval
                    assert v("kcli_consumergroup_group_lag_seconds_is_bound", **where) == 0
                assert v("kafka_consumergroup_group_lag_seconds", group="classic-g", partition="1") < -500
                for p in "01":                                                        # caught up: 0, not absent
                    assert v("kafka_consumergroup_group_lag_seconds", group="simple-g", partition=p) == 0
                assert v("kafka_consumergroup_group_lag_seconds", group="modern-g", partition="0") == 0
                most = v("kafka_consumergroup_group_max_lag_seconds", group="classic-g", is_simple_consumer="false")
                assert lo - past[4] <= most * 1000 <= hi - past[4]
                assert v("kafka_consumergroup_group_max_lag_seconds", group="modern-g") == 0
                # kcli's own: group type and state, members
                assert v("kcli_consumergroup_group_state", group="classic-g", group_type="classic", state="Stable") == 1
                assert v("kcli_consumergroup_group_state", group="modern-g", group_type="consumer", state="Stable") == 1
                assert v("kcli_consumergroup_group_members", group="modern-g", group_type="consumer") == 1
                # the selection: --exclude-group and --topic
                assert not [ls for _, ls, _ in found if ls.get("group") == "ignored-g" or ls.get("topic") == "other"]
                assert s.get("/healthz")[0] == 200
            assert s.code == 0 and s.stopped_in_s < STOP_MARGIN_S, (s.code, s.stopped_in_s, s.err)
        finally:
            classic.close()
            modern.close()


def test_the_next_records_time_is_fetched_again_only_when_the_commit_moves():
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("steady", 1)
        base = int(time.time() * 1000) - 300_000
        produce(b, "steady", [(0, f"r{i}", base + i * 1000) for i in range(6)])
        commit(b, "steady-g", {("steady", 0): 2})
        with LagServe(b, "--interval", "300ms", "--group", "steady-g") as s:
            s.wait_collections(2)
            before = snapshot(ec)
            found = s.wait_collections(3)
            quiet = sent(ec, before).kcli
            assert quiet["Fetch"] == 0 and quiet["ListOffsets"] >= 3, quiet    # the cache answered
            lo, hi = collection_now_ms(s, found)
            lag_ms = s.value("kafka_consumergroup_group_lag_seconds", found) * 1000
            assert lo - base - 2000 <= lag_ms <= hi - base - 2000
            commit(b, "steady-g", {("steady", 0): 3})
            before = snapshot(ec)

            def moved():
                f = s.metrics()
                return f if s.value("kafka_consumergroup_group_offset", f) == 3 else None

            found = wait_until(moved, timeout=30, interval=0.1, what="the moved commit")
            assert sent(ec, before).kcli["Fetch"] >= 1
            lo, hi = collection_now_ms(s, found)
            lag_ms = s.value("kafka_consumergroup_group_lag_seconds", found) * 1000
            assert lo - base - 3000 <= lag_ms <= hi - base - 3000
            assert s.value("kcli_lag_collector_record_times_cached", found) == 1


def test_healthz_from_start_to_broker_loss_and_back_and_no_stale_series():
    port = free_port()
    with LagServe(f"127.0.0.1:{port}", "--interval", "300ms", timeout="1s") as s:
        status, body, _ = s.get("/healthz")                 # no broker yet: never collected
        assert status == 503 and body.startswith("not ready: no collection has succeeded yet"), body
        assert s.value("kcli_lag_collector_up") == 0
        with EmbeddedCluster(nodes=1, port=port, configs=FAST_GROUPS) as ec:
            ec.create_topic("h", 1)
            produce(ec.bootstrap_servers, "h", [(0, "x", int(time.time() * 1000) - 10_000)])
            commit(ec.bootstrap_servers, "h-g", {("h", 0): 0})
            wait_until(lambda: s.get("/healthz")[0] == 200, timeout=30, interval=0.1, what="ready")
            assert s.get("/healthz")[1].startswith("ok: ")
            found = s.wait_collections(1)
            assert s.value("kafka_consumergroup_group_lag", found, group="h-g") == 1
            assert s.value("kcli_lag_collector_calls", found, call="list_groups") == 1
            errors_before = sum(v for n, _, v in found if n == "kcli_lag_collector_call_errors_total")
            ec.stop_node(1)
            wait_until(lambda: s.get("/healthz")[0] == 503, timeout=30, interval=0.1, what="unhealthy")
            status, body, _ = s.get("/healthz")
            assert body.startswith("unhealthy: 3 collections failed in a row; the last: "), body
            found = s.metrics()
            assert s.value("kcli_lag_collector_up", found) == 0
            assert not [n for n, _, _ in found if not n.startswith("kcli_lag_collector_")], found
            errors = sum(v for n, _, v in found if n == "kcli_lag_collector_call_errors_total")
            assert errors - errors_before >= 3, found        # each failed collection's failed call
            ec.start_node(1)
            found = s.wait_collections(1, timeout=30)
            assert s.value("kafka_consumergroup_group_lag", found, group="h-g") == 1
            assert s.get("/healthz")[0] == 200
        code = s.stop(signal.SIGINT)
    assert code == 0 and s.stopped_in_s < STOP_MARGIN_S, (code, s.stopped_in_s, s.err)
    assert "Warn: collection failed: " in s.err


def test_a_cut_batch_is_read_again_whole_and_records_lost_to_retention_are_counted():
    """Partition 0 answers the Fetch first with a small batch; partition 1 holds one batch larger
    than the bytes left for it: the record at offset 150 lies beyond them, and the collector asks
    for that batch again whole, so its lag is exact, not a bound (a bound is left only for a batch
    larger than a whole Fetch answer). On partition 2 DeleteRecords moves the log start to 4 past
    a commit at 1: 3 records the group never read are lost."""
    from confluent_kafka.admin import AdminClient

    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("cut", 3)
        base = int(time.time() * 1000) - 600_000
        ts = [base + i * 100 for i in range(200)]
        produce(b, "cut", [(0, "small", base)])
        produce(b, "cut", [(1, "v" * 100, t) for t in ts], **{"linger.ms": 200})
        produce(b, "cut", [(2, f"r{i}", base + i) for i in range(6)])
        commit(b, "cut-g", {("cut", 0): 0, ("cut", 1): 150, ("cut", 2): 1})
        admin = AdminClient({"bootstrap.servers": b})             # kept: its futures need it alive
        for fut in admin.delete_records([TopicPartition("cut", 2, 4)]).values():
            fut.result(15)
        with LagServe(b, "--interval", "500ms") as s:
            found = s.wait_collections(1)
            lo, hi = collection_now_ms(s, found)

            def v(name, **labels):
                return s.value(name, found, group="cut-g", topic="cut", **labels)

            assert v("kcli_consumergroup_group_lag_seconds_is_bound", partition="0") == 0
            assert v("kcli_consumergroup_group_lag_seconds_is_bound", partition="1") == 0
            lag_ms = v("kafka_consumergroup_group_lag_seconds", partition="1") * 1000
            assert lo - ts[150] <= lag_ms <= hi - ts[150], (lag_ms, lo - ts[150], hi - ts[150])
            # partition 2's next record (offset 1) is gone: its lag in time is unknown (no series),
            # so the group's largest is only a lower bound
            assert not [m for m in found if m[0] == "kafka_consumergroup_group_lag_seconds"
                        and m[1].get("partition") == "2"]
            assert s.value("kcli_consumergroup_group_max_lag_seconds_is_bound", found, group="cut-g") == 1
            assert s.value("kafka_partition_earliest_offset", found, topic="cut", partition="2") == 4
            assert v("kcli_consumergroup_group_retention_lost_records", partition="2") == 3
            assert v("kcli_consumergroup_group_retention_lost_records", partition="1") == 0


def test_the_expansion_radar_exposed_then_suspected_lost_as_series():
    """kcli check expansions' story (tests/cli/test_check_expansions.py) as the service sees it:
    records on partitions added after the group's commits are exposed until it commits there;
    a commit past them turns them into suspected lost, from the radar's memory of the exposure."""
    day = 86_400_000
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("grown", 2, creation_time_ms=int(time.time() * 1000) - 2 * day)
        produce(b, "grown", tagged("old", [0, 1], 3))
        commit(b, "grown-g", {("grown", 0): 3, ("grown", 1): 3})
        expand(b, "grown", 2, 4, 4)
        with LagServe(b, "--interval", "300ms", timeout="10s") as s:      # a loaded machine
            found = s.wait_collections(1)
            exposed = {ls["partition"]: v for n, ls, v in found
                       if n == "kcli_consumergroup_expansion_exposed_records" and ls["group"] == "grown-g"}
            assert exposed == {"2": 4, "3": 4}, found
            assert s.value("kcli_consumergroup_expansion_suspected_lost_records", found) is None
            before = snapshot(ec)
            s.wait_collections(2)
            assert sent(ec, before).kcli["DescribeTopicPartitions"] == 0     # the counts did not change
            expand(b, "grown", 4, 5, 4)                                      # they do: described again

            def exposed_on(f):
                return {ls["partition"] for n, ls, _ in f if n == "kcli_consumergroup_expansion_exposed_records"}

            wait_until(lambda: exposed_on(s.metrics()) == {"2", "3", "4"}, timeout=30, interval=0.1,
                       what="the partition added while serving")
            produce(b, "grown", tagged("late", [2, 3], 2))
            commit(b, "grown-g", {("grown", 2): 6, ("grown", 3): 6})     # as a latest start would

            def lost():
                f = s.metrics()
                gone = {ls["partition"]: v for n, ls, v in f
                        if n == "kcli_consumergroup_expansion_suspected_lost_records"}
                return f if gone == {"2": 4, "3": 4} else None

            found = wait_until(lost, timeout=30, interval=0.1, what="the suspected loss")
            assert exposed_on(found) == {"4"}
        with LagServe(b, "--interval", "300ms", "--expansion-within", "0") as s:
            found = s.wait_collections(1)
            assert not [n for n, _, _ in found if n.startswith("kcli_consumergroup_expansion_")], found
            assert s.value("kcli_lag_collector_calls", found, call="topic_names") is None


def test_a_streams_groups_lag_with_its_group_type():
    with fast_cluster(1) as ec:
        ec.create_topic("in", 1)
        ts = [int(time.time() * 1000) - 30_000 + i * 1000 for i in range(4)]
        produce(ec.bootstrap_servers, "in", [(0, f"s{i}", t) for i, t in enumerate(ts)])
        streams_group_committed(ec, "sg-app", "in", 1)
        with LagServe(ec.bootstrap_servers, "--interval", "500ms") as s:
            found = s.wait_collections(1)
            lo, hi = collection_now_ms(s, found)
            assert s.value("kafka_consumergroup_group_lag", found, group="sg-app", topic="in", partition="0") == 3
            lag_ms = s.value("kafka_consumergroup_group_lag_seconds", found, group="sg-app") * 1000
            assert lo - ts[1] <= lag_ms <= hi - ts[1]
            (state,) = [ls for n, ls, _ in found if n == "kcli_consumergroup_group_state" and ls["group"] == "sg-app"]
            assert state["group_type"] == "streams"
            assert s.value("kcli_consumergroup_group_members", found, group="sg-app") == 1


def test_a_coarser_granularity_leaves_out_the_per_partition_and_per_topic_series():
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("gran", 2)
        ts = int(time.time() * 1000) - 50_000
        produce(b, "gran", [(p, f"r{i}", ts + i) for p in range(2) for i in range(3)])
        commit(b, "gran-g", {("gran", 0): 0, ("gran", 1): 3})
        per_partition = {"kafka_consumergroup_group_offset", "kafka_consumergroup_group_lag",
                         "kafka_consumergroup_group_lag_seconds", "kafka_partition_latest_offset",
                         "kafka_partition_earliest_offset", "kcli_consumergroup_group_lag_seconds_is_bound",
                         "kcli_consumergroup_group_retention_lost_records"}
        per_topic = {"kafka_consumergroup_group_topic_sum_lag", "kcli_consumergroup_group_topic_max_lag_seconds"}
        served = {}
        for granularity in ("partition", "topic", "group"):
            with LagServe(b, "--interval", "500ms", "--granularity", granularity) as s:
                found = s.wait_collections(1)
                served[granularity] = {name for name, _, _ in found}
                assert s.value("kafka_consumergroup_group_sum_lag", found, group="gran-g") == 3
                if granularity == "topic":
                    lo, hi = collection_now_ms(s, found)
                    top = s.value("kcli_consumergroup_group_topic_max_lag_seconds", found, group="gran-g", topic="gran")
                    assert lo - ts <= top * 1000 <= hi - ts
        assert per_partition | per_topic <= served["partition"]
        assert served["topic"] == served["partition"] - per_partition
        assert served["group"] == served["partition"] - per_partition - per_topic


def test_openmetrics_by_content_negotiation():
    with fast_cluster(1) as ec:
        with LagServe(ec.bootstrap_servers, "--interval", "1s") as s:
            s.wait_collections(1)
            status, body, headers = s.get("/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"})
            assert status == 200 and headers["Content-Type"].startswith("application/openmetrics-text")
            assert body.endswith("# EOF\n")
            status, body, headers = s.get("/metrics")
            assert headers["Content-Type"].startswith("text/plain") and "# EOF" not in body
            assert s.get("/other")[0] == 404


@pytest.mark.parametrize("args, message", [
    (["--group", "("], "Invalid --group '(': not a regex"),
    (["--exclude-group", "a["], "Invalid --exclude-group 'a[': not a regex"),
    (["--topic", "*"], "Invalid --topic '*': not a regex"),
    (["--interval", "soon"], "--interval: Invalid duration 'soon'"),
    (["--interval", "0s"], "--interval: '0s' is out of range: from 1 ms to 1 day"),
    (["--listen", "8000"], "Invalid --listen '8000': expected HOST:PORT"),
    (["--granularity", "member"], "Invalid --granularity 'member': use one of partition, topic, group"),
    (["--tls-cert-file", "c.pem"], "--tls-cert-file and --tls-key-file go together"),
    (["--tls-cert-file", "/nonexistent/c.pem", "--tls-key-file", "/nonexistent/k.pem"],
     "Invalid --tls-cert-file/--tls-key-file (/nonexistent/c.pem, /nonexistent/k.pem): No such file or directory"),
    (["--basic-auth-user", "prom"], "--basic-auth-user and --basic-auth-password-file go together"),
    (["--basic-auth-user", "prom", "--basic-auth-password-file", "/nonexistent/pw"],
     "Cannot read --basic-auth-password-file '/nonexistent/pw'"),
    (["--basic-auth-user", "prom", "--basic-auth-password-file", "/dev/null"],
     "--basic-auth-user (without ':') and its password cannot be empty"),
    (["--listen", "127.0.0.1:99999"], "Invalid --listen '127.0.0.1:99999'"),
    (["--web-config-file", "/nonexistent/web.yml"], "Cannot read --web-config-file '/nonexistent/web.yml'"),
    (["--web-config-file", "/dev/null", "--basic-auth-user", "prom"],
     "--web-config-file replaces --tls-* and --basic-auth-*: give one or the other"),
    (["--listen", "no-such-host.invalid:8000"], "Invalid --listen 'no-such-host.invalid:8000'"),
])
def test_bad_input_is_one_line_and_exit_2_before_anything_starts(args, message):
    r = run_kcli("127.0.0.1:1", "lag", "serve", *args)
    assert r.code == 2 and r.out == "" and len(r.err.splitlines()) == 1 and message in r.err, r


@pytest.mark.parametrize("text, message", [
    ("tls_server_config: [", "not YAML"),
    ("- a\n- b\n", "expected a mapping"),
    ("http_server_config: {http2: false}\n", "kcli does not serve http_server_config"),
    ("tls_server_config: {cert_file: c.pem, key_file: k.pem, cipher_suites: [X]}\n",
     "kcli does not serve tls_server_config.cipher_suites"),
    ("tls_server_config: {cert_file: c.pem}\n", "tls_server_config needs cert_file and key_file"),
    ("basic_auth_users: {prom: plain-text}\n", "basic_auth_users maps a user (without ':') to a bcrypt hash"),
])
def test_a_bad_web_config_file_is_one_line_and_exit_2(tmp_path, text, message):
    config = tmp_path / "web.yml"
    config.write_text(text)
    r = run_kcli("127.0.0.1:1", "lag", "serve", "--web-config-file", str(config))
    assert r.code == 2 and r.out == "" and len(r.err.splitlines()) == 1 and message in r.err, r


def test_a_port_in_use_is_one_line_and_exit_1():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = run_kcli("127.0.0.1:1", "lag", "serve", "--listen", f"127.0.0.1:{port}")
    assert r.code == 1 and r.err.strip() == f"Error: Cannot listen on 127.0.0.1:{port}: the port is in use", r


def test_metrics_are_written_once_per_collection_and_format(monkeypatch):
    """Every scrape between two collections would write the same bytes: they are written once per
    collection, format (text, OpenMetrics) and encoding (gzip), and again after the next one."""
    import gzip
    import io
    from wsgiref.util import setup_testing_defaults

    from kcli import exporter
    from kcli.admin.settings import ClientSettings
    from kcli.ops.lag_service import Collector, selection

    written = []
    collect = exporter.LagMetrics.collect
    monkeypatch.setattr(exporter.LagMetrics, "collect", lambda self: written.append(1) or collect(self))

    def get(app, accept="", encoding=""):
        environ = {"PATH_INFO": "/metrics", "HTTP_ACCEPT": accept, "HTTP_ACCEPT_ENCODING": encoding,
                   "wsgi.input": io.BytesIO()}
        setup_testing_defaults(environ)
        got = {}
        body = b"".join(app(environ, lambda status, headers: got.update(headers)))
        return gzip.decompress(body) if got.get("Content-Encoding") == "gzip" else body

    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("baked", 1)
        produce(b, "baked", [(0, "r", int(time.time() * 1000) - 1000)] * 3)
        commit(b, "baked-g", {("baked", 0): 1})
        c = Collector(ClientSettings(b, {}, 10_000), selection([], [], []), 3600)
        try:
            c.collect_once()
            app = exporter.app(c)
            text = get(app)
            assert get(app) == text and b'kafka_consumergroup_group_lag{' in text
            assert get(app, encoding="gzip") == text
            om = "application/openmetrics-text; version=1.0.0"
            openmetrics = get(app, accept=om)
            assert openmetrics.endswith(b"# EOF\n") and get(app, accept=om) == openmetrics
            assert len(written) == 3                       # text, gzipped text, OpenMetrics
            commit(b, "baked-g", {("baked", 0): 2})
            c.collect_once()
            again = get(app)
            assert again != text and b'group="baked-g"' in again and len(written) == 4
            assert get(app) == again and len(written) == 4
        finally:
            c.close()

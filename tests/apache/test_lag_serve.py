"""``kcli lag serve`` against real Apache Kafka 4.4, scraped by a real Prometheus (Debian's
package): a classic and a KIP-848 consumer group with live members, records produced with known
timestamps; the offset lag and the time lag read back through Prometheus's HTTP API equal the
ground truth (the time lag between the records' age at the start and at the query), 0 when
caught up, negative for future-dated records; the group types and states as Kafka reports them."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import TopicPartition

from tests.support.clients import consume, consumer, create_topic, produce, unique
from tests.support.lag_serve import LagServe, Prometheus
from tests.support.waits import wait_until

pytestmark = pytest.mark.apache


def member(b: str, group: str, protocol: str, topic: str, records: int, offsets: dict[int, int]):
    c = consumer(b, group, protocol)
    c.subscribe([topic])
    assert len(consume(c, records, timeout=60)) == records
    c.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    return c


def test_prometheus_reads_kcli_lag_serve_on_real_kafka(apache_kafka, tmp_path):
    b = apache_kafka.bootstrap_servers
    topic, classic_g, modern_g = unique("lagsrv"), unique("lagsrv-classic"), unique("lagsrv-modern")
    create_topic(b, topic, partitions=2)
    t0 = int(time.time() * 1000)
    past = [t0 - 120_000 + i * 1000 for i in range(6)]
    future = [t0 + 600_000 + i * 1000 for i in range(3)]
    records = [(0, f"p{i}", ts) for i, ts in enumerate(past)] + [(1, f"f{i}", ts) for i, ts in enumerate(future)]
    produce(b, topic, records)
    classic = member(b, classic_g, "classic", topic, 9, {0: 2, 1: 0})
    modern = member(b, modern_g, "consumer", topic, 9, {0: 6, 1: 1})
    try:
        with LagServe(b, "--interval", "1s", "--group", f"{classic_g}|{modern_g}", "--cluster-name", "real",
                      timeout="10s") as s:
            s.wait_collections(1, timeout=60)
            prom = Prometheus(tmp_path, s.url.removeprefix("http://"))
            try:
                wait_until(prom.ready, timeout=60, interval=0.2, what="Prometheus ready")

                def one(metric: str, group: str, partition: int) -> tuple[float, float]:
                    sel = f'{{cluster_name="real",group="{group}",topic="{topic}",partition="{partition}"}}'
                    (found,) = wait_until(lambda: prom.query(metric + sel), timeout=60, interval=0.2,
                                          what=f"{metric} of {group} in Prometheus")
                    return float(found["value"][0]) * 1000, float(found["value"][1])

                assert [one("kafka_consumergroup_group_lag", g, p)[1]
                        for g, p in [(classic_g, 0), (classic_g, 1), (modern_g, 0), (modern_g, 1)]] == [4, 3, 0, 2]
                for g, p, ts in [(classic_g, 0, past[2]), (classic_g, 1, future[0]), (modern_g, 1, future[1])]:
                    at_ms, seconds = one("kafka_consumergroup_group_lag_seconds", g, p)
                    assert t0 - ts <= seconds * 1000 <= at_ms - ts, (g, p, seconds, at_ms - ts)
                assert one("kafka_consumergroup_group_lag_seconds", classic_g, 1)[1] < 0
                assert one("kafka_consumergroup_group_lag_seconds", modern_g, 0)[1] == 0
                types = {r["metric"]["group"]: (r["metric"]["group_type"], r["metric"]["state"])
                         for r in prom.query('kcli_consumergroup_group_state{cluster_name="real"}')}
                assert types == {classic_g: ("classic", "Stable"), modern_g: ("consumer", "Stable")}
            finally:
                prom.stop()
        assert s.code == 0, s.err
    finally:
        classic.close()
        modern.close()

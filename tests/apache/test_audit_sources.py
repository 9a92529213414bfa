"""``kcli audit timestamps`` on real Apache Kafka 4.4 through both sources, end to end as an
operator runs it (a kcli process, its own JVM): crafted out-of-order, future-dated and too-old
records give the same JSON with kcli's source and with Spark's Kafka connector, and the counts the
data says. Every expected value comes from the records as produced."""

from __future__ import annotations

import json
import time

from tests.support.clients import create_topic, produce, unique
from tests.support.run import run_kcli_process

H, MIN = 3_600_000, 60_000


def test_both_sources_agree_on_crafted_records(apache_kafka):
    b, topic = apache_kafka.bootstrap_servers, unique("audit")
    create_topic(b, topic, partitions=2)
    now = int(time.time() * 1000)
    # partition 0: two in order, one 30 min ahead (a culprit), two below it, one 2 h old (too
    # old for a 1 h past bound: out of order, the other culprit), one more below the first;
    # partition 1: in order
    p0 = [now - 10_000, now - 9_000, now + 30 * MIN, now - 8_000, now - 7_000, now - 2 * H, now - 6_000]
    p1 = [now - 5_000, now - 4_000, now - 3_000]
    produce(b, topic, [(0, b"v", ts) for ts in p0] + [(1, b"v", ts) for ts in p1])
    docs = {}
    for source in ("python", "jvm"):
        r = run_kcli_process(b, "audit", "timestamps", "-t", topic, "--master", "local[1]",
                             "--source", source, "--reference", str(now), "--before-max-ms", str(H),
                             "--after-max-ms", str(H), "-o", "json", "--timeout", "60s", timeout=300)
        assert r.code == 0 and r.err == "", r
        docs[source] = json.loads(r.out)
        assert docs[source].pop("source") == source
    assert docs["jvm"] == docs["python"]
    parts = {p["partition"]: p for p in docs["python"]["partitions"]}
    assert (parts[0]["records"], parts[0]["maxTimestampOffset"], parts[0]["outOfOrder"]) == (7, 2, 4)
    assert (parts[0]["tooOld"], parts[0]["tooNew"], parts[0]["culprits"]) == (1, 0, 2)
    assert [(c["offset"], c["timestampMs"]) for c in docs["python"]["total"]["firstCulprits"]] == [
        (2, now + 30 * MIN), (5, now - 2 * H)]
    assert (parts[1]["records"], parts[1]["outOfOrder"], parts[1]["culprits"]) == (3, 0, 0)

"""`kcli audit timestamps` through the entry point, on Spark local, against the embedded broker."""

from __future__ import annotations

import json

import pytest
from confluent_kafka import Producer

from kcli.broker import EmbeddedCluster
from tests.cli.conftest import run_kcli_process

pytestmark = pytest.mark.spark
BASE = 1_736_937_000_000


def test_audit_reports_bounds_order_and_reset_target():
    with EmbeddedCluster(nodes=1, clock=lambda: BASE + 60_000) as cluster:
        b = cluster.bootstrap_servers
        # No bound on the broker (Kafka 4's default refuses records over 1 h ahead): the audit
        # itself applies the bounds given below.
        cluster.create_topic("audited", partitions=1,
                             configs={"message.timestamp.after.max.ms": str(2**63 - 1)})
        p = Producer({"bootstrap.servers": b, "linger.ms": 0})
        # offsets:   0      1       2      3 (2 h in the future)   4 (a day in the past)
        for ts in (BASE, BASE + 20_000, BASE + 10_000, BASE + 7_260_000, BASE - 86_400_000):
            p.produce("audited", value=b"x", timestamp=ts)
            p.flush(10)
        r = run_kcli_process(b, "audit", "timestamps", "-t", "audited", "--after-max-ms", "3600000",
                             "--before-max-ms", "3600000", "--reference", str(BASE + 60_000),
                             "--target", str(BASE + 15_000), "--master", "local[1]", "-o", "json",
                             timeout=180)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["schema"] == "kcli.audit-timestamps/v2"
    part = doc["partitions"][0]
    assert part["records"] == 5
    assert part["tooNew"] == 1 and part["tooOld"] == 1
    assert part["outOfOrder"] == 2          # offsets 2 and 4 are below the running max
    assert part["targetOffset"] == 1         # first offset with a timestamp >= target
    assert part["replayed"] == 2              # offsets 2 and 4 are older than the target
    assert part["skipped"] == 0
    assert part["maxTimestampCheck"] == "agree"

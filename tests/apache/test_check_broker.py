"""kcli check broker against real Apache Kafka: 4.4 (the session cluster) and the older releases
of the compatibility subset. None has KIP-1327 or KIP-1282: those rows are UNSUPPORTED (4.4's
ConsumerGroupHeartbeat is 0-1: no v2 answer to read with both layouts). KIP-937, KIP-734 and
ListOffsets' special timestamps are Apache Kafka's own and pass, but for what a release lacks:
3.7 has no ListOffsets v9 (-5, latest tiered: UNSUPPORTED) and answers max-timestamp with the
last offset of the batch holding the maximum (KAFKA-16310, fixed in 3.8): kip-734.ties FAILs
there, exit 1. The check leaves no topic or group behind."""

from __future__ import annotations

import csv
import io
import json

from kcli.ops.broker_check import RULES
from tests.support.run import run_kcli

KIP_RULES = {rule for rule, kip, _ in RULES if kip in ("KIP-1327", "KIP-1282")}
# release -> {rule: status} where it is neither KIP_RULES' UNSUPPORTED nor PASS
LACKS = {
    "3.7.2": {"list-offsets.latest-tiered": "UNSUPPORTED", "kip-734.ties": "FAIL"},
}


def expected(version: str) -> dict[str, str]:
    lacks = LACKS.get(version, {})
    return {rule: lacks.get(rule, "UNSUPPORTED" if rule in KIP_RULES else "PASS") for rule, _, _ in RULES}


def names(b) -> tuple[list[str], list[str]]:
    topics = json.loads(run_kcli(b, "list", "topics", "-o", "json", timeout="30s").out)["topics"]
    groups = json.loads(run_kcli(b, "list", "groups", "-o", "json", timeout="30s").out)["groups"]
    return sorted(topics), sorted(g["group"] for g in groups)


def check_every_format(b: str, version: str) -> dict:
    want = expected(version)
    code = 1 if "FAIL" in want.values() else 0
    before = names(b)
    r = run_kcli(b, "check", "broker", "-o", "json", timeout="60s")
    assert r.code == code, r.err
    doc = json.loads(r.out)
    got = {x["rule"]: x["status"] for x in doc["rules"]}
    assert got == want, [x for x in doc["rules"] if x["status"] != want[x["rule"]]]
    assert names(b) == before and sorted(doc["deleted"]) == sorted(doc["created"])
    if "kip-734.ties" in LACKS.get(version, {}):
        ties = next(x for x in doc["rules"] if x["rule"] == "kip-734.ties")
        assert ties["data"]["offset"] == 2 and "KAFKA-16310" in ties["evidence"]
    for fmt in ("table", "plain", "csv"):
        r = run_kcli(b, "check", "broker", "-o", fmt, timeout="60s")
        assert r.code == code, (fmt, r.err)
        if fmt == "csv":
            rows = {row[0]: row[2] for row in list(csv.reader(io.StringIO(r.out)))[1:]}
        else:
            rows = {line.split()[0]: line.split()[2] for line in r.out.splitlines()
                    if line.split() and line.split()[0] in want}
        assert rows == want, (fmt, r.out)
    r = run_kcli(b, "check", "broker", "--dry-run", "-o", "json", timeout="30s")
    assert r.code == 0 and json.loads(r.out)["dryRun"] and names(b) == before
    return doc


def test_check_broker_on_kafka_4_4(apache_kafka):
    doc = check_every_format(apache_kafka.bootstrap_servers, apache_kafka.version)
    if apache_kafka.version.startswith("4.4."):      # ConsumerGroupHeartbeat 0-1: no v2 to read both ways
        row = next(x for x in doc["rules"] if x["rule"] == "heartbeat-v2.layout")
        assert (row["status"], row["data"]) == ("UNSUPPORTED", {"heartbeatVersions": [0, 1]}), row
        assert row["evidence"].startswith("ConsumerGroupHeartbeat v0-1 advertised")


def test_check_broker_on_older_releases(apache_kafka_compat):
    check_every_format(apache_kafka_compat.bootstrap_servers, apache_kafka_compat.version)

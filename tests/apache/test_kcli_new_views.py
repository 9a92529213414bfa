"""The three views no Kafka tool had (lag in time, every reset policy side by side, the
expansion radar) against real Apache Kafka 4.4, which has none of the KIPs: lag in
time works (plain Fetch), and equals the age of the record the group reads next, produced here
with known timestamps; ``reset-offsets --compare`` plans every policy the broker can serve
exactly as its single dry run does, shows to-start-time (KIP-1282) as n/a with the reason, and
--max-age (KIP-1327) by what kcli can prove; ``check expansions`` works from kcli's own
sightings, after a real expansion."""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka.admin import AdminClient, NewPartitions

from kcli.ops.resets import TOO_OLD_FOR_START_TIME
from tests.support.clients import commit, consume_and_commit, create_topic, produce, unique
from tests.support.run import run_kcli

RECORDS = 8
COMMITS = {0: 2, 1: 0, 2: RECORDS}           # mid-log, at the start, caught up; 3: no commit


@pytest.fixture(scope="module")
def lagging(apache_kafka):
    """Four partitions of 8 records each, a second apart and up to an hour old; a group committed
    at ``COMMITS``."""
    b = apache_kafka.bootstrap_servers
    topic, group = unique("views"), unique("views-g")
    create_topic(b, topic, partitions=4)
    base = int(time.time() * 1000) - 3_600_000
    stamps = {p: [base + p * 600_000 + i * 1000 for i in range(RECORDS)] for p in range(4)}
    produce(b, topic, [(p, f"{p}-{i}", ts) for p in range(4) for i, ts in enumerate(stamps[p])])
    commit(b, group, {(topic, p): o for p, o in COMMITS.items()})
    return b, topic, group, stamps


def test_time_lag_is_the_true_record_age(lagging):
    b, topic, group, stamps = lagging
    t0 = int(time.time() * 1000)
    r = run_kcli(b, "describe", "groups", group, "-o", "json")
    t1 = int(time.time() * 1000)
    assert r.code == 0, r.err
    (doc,) = json.loads(r.out)["groups"]
    rows = {row["partition"]: row for row in doc["partitions"]}
    assert sorted(rows) == sorted(COMMITS)
    for p, c in COMMITS.items():
        row = rows[p]
        if c == RECORDS:
            assert (row["nextRecordTimestampMs"], row["timeLagMs"]) == (None, 0), row
            continue
        assert row["nextRecordTimestampMs"] == stamps[p][c], row
        assert t0 - stamps[p][c] <= row["timeLagMs"] <= t1 - stamps[p][c]
        assert (row["timeLagIsLowerBound"], row["timeLagError"]) == (False, None)
    oldest = min(stamps[p][c] for p, c in COMMITS.items() if c < RECORDS)
    assert t0 - oldest <= doc["maxTimeLagMs"] <= t1 - oldest
    plain = run_kcli(b, "describe", "groups", group, "-o", "plain", "--time-lag")
    assert plain.code == 0 and plain.out.splitlines()[1].split()[-2:] == ["NEXT-RECORD-TIME", "TIME-LAG"]


def test_compare_serves_what_real_kafka_can_and_says_why_not_the_rest(lagging):
    b, topic, group, stamps = lagging
    at = stamps[0][5]
    r = run_kcli(b, "reset-offsets", "-g", group, "-t", topic, "--compare", "--by-duration", "30m",
                 "--to-datetime", str(at), "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    available = {p["policy"]: p["available"] for p in doc["policies"]}
    assert available == {"to-earliest": True, "to-latest": True, "to-start-time": False,
                         "to-latest --max-age 30m": True, "by-duration 30m": True,
                         f"to-datetime {at}": True}
    reasons = {p["policy"]: set(p["unavailable"].values()) for p in doc["policies"] if not p["available"]}
    assert reasons == {"to-start-time": {TOO_OLD_FOR_START_TIME}}
    assert "--max-age 30m: no proven age for 4 partition(s)" in r.err       # kcli never saw the topic grow
    cells = {(p["partition"], label): cell for g in doc["groups"] for p in g["partitions"]
             for label, cell in p["policies"].items()}
    single = {"to-earliest": ["--to-earliest"], "to-latest": ["--to-latest"],
              "by-duration 30m": ["--by-duration", "30m"], f"to-datetime {at}": ["--to-datetime", str(at)]}
    for label, args in single.items():
        dry = run_kcli(b, "reset-offsets", "-g", group, "-t", topic, *args, "-o", "json")
        assert dry.code == 0, dry.err
        plan = {p["partition"]: p for g in json.loads(dry.out)["groups"] for p in g["partitions"]}
        assert sorted(plan) == [0, 1, 2, 3]
        for p, planned in plan.items():
            assert cells[(p, label)]["newOffset"] == planned["newOffset"], (label, p)
        assert all(cells[(p, "to-start-time")] is None for p in plan)
    table = run_kcli(b, "reset-offsets", "-g", group, "-t", topic, "--compare")
    assert table.code == 0 and f"START-TIME is n/a: {TOO_OLD_FOR_START_TIME}" in table.err
    assert "MAX-AGE-1h is n/a" not in table.err


def test_check_expansions_without_creation_times_checks_what_it_cannot_tell_apart(apache_kafka):
    """Kafka 4.4 reports no creation times and kcli never saw the topic before it grew: its
    partitions may be young expansions, checked as such; the exposed ones are rows (SOURCE
    unknown), all are named in JSON and in a note."""
    b = apache_kafka.bootstrap_servers
    topic, group = unique("grows"), unique("grows-g")
    create_topic(b, topic, partitions=1)
    produce(b, topic, [(0, "before")])
    consume_and_commit(b, group, [topic], 1)
    admin = AdminClient({"bootstrap.servers": b})
    admin.create_partitions([NewPartitions(topic, 3)])[topic].result(20)
    produce(b, topic, [(p, f"after-{p}") for p in (1, 2)])
    r = run_kcli(b, "check", "expansions", "-t", topic, "-o", "json")
    assert r.code == 4, r.err
    doc = json.loads(r.out)
    assert [(p["partition"], p["creationSource"], [g["status"] for g in p["groups"]]) for p in doc["partitions"]] == \
        [(1, "unknown", ["EXPOSED"]), (2, "unknown", ["EXPOSED"])]
    assert doc["undecided"] == [{"topic": topic, "partition": p} for p in range(3)]
    r = run_kcli(b, "check", "expansions", "-t", topic)
    assert r.code == 4 and f"3 partition(s) ({topic}-0, {topic}-1, {topic}-2) may be young expansions" in r.err

"""``--to-latest --max-age`` on a broker without KIP-1327 (the embedded broker posing as Apache
Kafka 4.4: no Metadata v14, no DescribeTopicPartitions v1): partition age from what kcli can
prove (kcli.ages). A partition is cold only when its age is proven over the limit, hot
when proven within it, and otherwise hot with a Warn line naming it; the plan says which source
decided (observed, record bound, unknown) and its JSON carries the bounds."""

from __future__ import annotations

import json
import re
import time

from tests.support.clients import committed, consume_and_commit, expand, produce, tagged
from tests.support.groups import fast_cluster
from tests.support.run import run_kcli
from tests.support.waits import Clock

HOUR = 3_600_000


def plan(r) -> dict:
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    return {p["partition"]: p for g in doc["groups"] for p in g["partitions"]}


def decided(rows: dict) -> dict:
    return {p: (row["newOffset"], row["age"]["source"]) for p, row in rows.items()}


def test_a_topic_expanded_while_kcli_watched_is_decided_by_observation():
    limit_s = 4
    with fast_cluster(1, pose_as="4.4") as ec:
        b = ec.bootstrap_servers
        ec.create_topic("watched", 2)
        produce(b, "watched", tagged("old", [0, 1], 3))
        consume_and_commit(b, "wg", ["watched"], 6)
        assert run_kcli(b, "describe", "topics", "watched").code == 0       # kcli sees 0, 1
        time.sleep(limit_s + 0.5)                                           # 0, 1 are older than the limit
        assert run_kcli(b, "describe", "topics", "watched").code == 0       # still 2 partitions
        expand(b, "watched", 2, 4, 2)                                       # 2, 3 come after that
        r = run_kcli(b, "-o", "json", "reset-offsets", "-g", "wg", "-t", "watched", "--to-latest",
                     "--max-age", f"{limit_s}s")
        rows = plan(r)
        assert decided(rows) == {0: (3, "observed"), 1: (3, "observed"), 2: (0, "observed"), 3: (0, "observed")}
        assert rows[0]["rule"].startswith("latest (cold, observed: age ≥ ")
        assert rows[2]["rule"].startswith("earliest (hot, observed: age ≤ ")
        new, old = rows[2]["age"], rows[0]["age"]
        assert new["createdAfterMs"] < new["createdBeforeMs"] and new["maxAgeMs"] <= limit_s * 1000
        assert old["createdAfterMs"] is None and old["minAgeMs"] > limit_s * 1000
        assert "no proven age" not in r.err

        r = run_kcli(b, "reset-offsets", "-g", "wg", "-t", "watched", "--to-latest", "--max-age", f"{limit_s}s",
                     "--execute")
        assert r.code == 0, r.err
        assert committed(b, "wg") == {("watched", 0): 3, ("watched", 1): 3, ("watched", 2): 0, ("watched", 3): 0}


def test_a_topic_kcli_never_saw_takes_the_safe_side_and_says_why():
    with fast_cluster(1, pose_as="4.4") as ec:
        b = ec.bootstrap_servers
        ec.create_topic("unseen", 1)
        produce(b, "unseen", tagged("old", 0, 4))
        consume_and_commit(b, "ug", ["unseen"], 4)
        expand(b, "unseen", 1, 3, 2)
        r = run_kcli(b, "-o", "json", "reset-offsets", "-g", "ug", "-t", "unseen", "--to-latest", "--max-age", "1h")
        rows = plan(r)
        assert decided(rows) == {0: (0, "unknown"), 1: (0, "unknown"), 2: (0, "unknown")}
        assert rows[1]["rule"] == "earliest (age unknown, not proven over 1h)"
        assert rows[1]["age"]["createdAfterMs"] is None            # kcli saw it first now: an upper bound only
        warn = [line for line in r.err.splitlines() if "no proven age" in line]
        assert warn == ["Warn: --max-age 1h: no proven age for 3 partition(s), so they start at earliest (hot): "
                        "unseen-0, unseen-1, unseen-2 (first seen by kcli 0s ago, its topic never without it). "
                        "A broker's CreationTimeMs (KIP-1327), kcli seeing the topic before it grows, a LogAppendTime "
                        "topic, or a finite message.timestamp.before.max.ms (KIP-937) would decide them"]


def test_a_log_append_time_topic_decides_by_its_first_record():
    now = int(time.time() * 1000)
    clock = Clock(now - 2 * HOUR)                       # the broker stamped the records two hours ago
    with fast_cluster(1, pose_as="4.4", clock=clock) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("appended", 2, configs={"message.timestamp.type": "LogAppendTime"})
        produce(b, "appended", tagged("old", 0, 3))            # partition 1 stays empty: no bound
        consume_and_commit(b, "ag", ["appended"], 3)
        clock.now_ms = now
        rows = plan(run_kcli(b, "-o", "json", "reset-offsets", "-g", "ag", "-t", "appended", "--to-latest",
                             "--max-age", "1h"))
        assert decided(rows) == {0: (3, "record bound"), 1: (0, "unknown")}
        assert rows[0]["age"]["createdBeforeSource"] == "record bound"
        assert rows[0]["age"]["createdBeforeMs"] == now - 2 * HOUR
        assert rows[0]["rule"].startswith("latest (cold, record bound: age ≥ 2h")


def test_create_time_bounds_only_with_a_finite_before_max():
    now = int(time.time() * 1000)
    clock = Clock(now - 2 * HOUR)
    with fast_cluster(1, pose_as="4.4", clock=clock) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("unbounded", 1)                                     # before.max.ms: Long.MAX
        ec.create_topic("bounded", 1, configs={"message.timestamp.before.max.ms": "60000"})
        for topic in ("unbounded", "bounded"):
            produce(b, topic, tagged("old", 0, 3, ts=now - 2 * HOUR))        # CreateTime, two hours ago
        consume_and_commit(b, "cg", ["unbounded", "bounded"], 6)
        clock.now_ms = now
        r = run_kcli(b, "-o", "json", "reset-offsets", "-g", "cg", "-t", "unbounded", "-t", "bounded",
                     "--to-latest", "--max-age", "1h")
        assert r.code == 0, r.err
        rows = {(p["topic"], p["partition"]): p for g in json.loads(r.out)["groups"] for p in g["partitions"]}
        assert (rows[("unbounded", 0)]["newOffset"], rows[("unbounded", 0)]["age"]["source"]) == (0, "unknown")
        assert (rows[("bounded", 0)]["newOffset"], rows[("bounded", 0)]["age"]["source"]) == (3, "record bound")
        assert rows[("bounded", 0)]["age"]["createdBeforeMs"] == now - 2 * HOUR + 60_000
        warn = next(line for line in r.err.splitlines() if "no proven age" in line)
        assert "unbounded-0" in warn and re.search(r"\bbounded-0", warn) is None


def test_compare_plans_max_age_by_the_same_bounds():
    """--compare's max-age column is the --max-age dry run: same offsets, same source, the bounds
    in its JSON cells (it was n/a on a broker without Metadata v14)."""
    now = int(time.time() * 1000)
    clock = Clock(now - 2 * HOUR)
    with fast_cluster(1, pose_as="4.4", clock=clock) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("cmp", 2, configs={"message.timestamp.type": "LogAppendTime"})
        produce(b, "cmp", tagged("old", 0, 3))
        consume_and_commit(b, "cmpg", ["cmp"], 3)
        clock.now_ms = now
        r = run_kcli(b, "-o", "json", "reset-offsets", "-g", "cmpg", "-t", "cmp", "--compare", "--max-age", "1h")
        assert r.code == 0, r.err
        cells = {p["partition"]: p["policies"]["to-latest --max-age 1h"]
                 for g in json.loads(r.out)["groups"] for p in g["partitions"]}
        assert {p: (c["newOffset"], c["age"]["source"]) for p, c in cells.items()} == \
            {0: (3, "record bound"), 1: (0, "unknown")}
        single = plan(run_kcli(b, "-o", "json", "reset-offsets", "-g", "cmpg", "-t", "cmp", "--to-latest",
                               "--max-age", "1h"))
        def decided(rows):
            return {p: (x["newOffset"], x["age"]["source"], x["rule"].split(":")[0]) for p, x in rows.items()}

        assert decided(single) == decided(cells)
        assert "cmp-1 (first seen by kcli" in r.err

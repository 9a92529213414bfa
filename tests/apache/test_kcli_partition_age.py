"""Partition age from what kcli can prove, on real Apache Kafka 4.4 (no Metadata v14, no
DescribeTopicPartitions v1: no creation time from the broker). ``--to-latest --max-age`` and
``check expansions`` decide by kcli's own sightings (``observed``), by the first record's
LogAppendTime (``record bound``), and otherwise take the safe side, hot (earliest), saying why
(``unknown``): docs/kips.md, "Partition age without the broker's creation times"."""

from __future__ import annotations

import json
import time

from tests.support.clients import committed, consume_and_commit, create_topic, expand, produce, unique
from tests.support.run import run_kcli

LIMIT_S = 10          # old partitions are first seen longer ago; the reset runs within it of the growth


def reset_plan(b: str, group: str, topic: str, limit: str, *extra: str) -> tuple[dict, str]:
    r = run_kcli(b, "-o", "json", "reset-offsets", "-g", group, "-t", topic, "--to-latest", "--max-age", limit, *extra)
    assert r.code == 0, r.err
    return {p["partition"]: p for g in json.loads(r.out)["groups"] for p in g["partitions"]}, r.err


def decided(rows: dict) -> dict:
    return {p: (row["newOffset"], row["age"]["source"]) for p, row in rows.items()}


def test_a_topic_expanded_while_kcli_watched(apache_kafka):
    b = apache_kafka.bootstrap_servers
    topic, group = unique("watched"), unique("watched-g")
    create_topic(b, topic, partitions=2)
    produce(b, topic, [(p, f"old{p}-{i}") for p in (0, 1) for i in range(3)])
    consume_and_commit(b, group, [topic], 6)
    assert run_kcli(b, "describe", "topics", topic).code == 0          # kcli sees 0 and 1
    time.sleep(LIMIT_S + 0.5)
    assert run_kcli(b, "describe", "topics", topic).code == 0          # still two partitions
    expand(b, topic, 2, 4, 2)

    rows, err = reset_plan(b, group, topic, f"{LIMIT_S}s")
    assert decided(rows) == {0: (3, "observed"), 1: (3, "observed"), 2: (0, "observed"), 3: (0, "observed")}
    assert rows[0]["rule"].startswith("latest (cold, observed: age ≥ ")
    assert rows[3]["rule"].startswith("earliest (hot, observed: age ≤ ")
    assert rows[3]["age"]["createdAfterMs"] < rows[3]["age"]["createdBeforeMs"]
    assert "no proven age" not in err

    r = run_kcli(b, "check", "expansions", "-t", topic, "-o", "json")
    assert r.code == 4, r.err
    doc = json.loads(r.out)
    assert [(p["partition"], p["creationSource"]) for p in doc["partitions"]] == [(2, "observed"), (3, "observed")]
    assert [(g["group"], g["status"], g["exposed"]) for p in doc["partitions"] for g in p["groups"]] == \
        [(group, "EXPOSED", 2), (group, "EXPOSED", 2)]

    _, err = reset_plan(b, group, topic, f"{LIMIT_S}s", "--execute")
    assert committed(b, group) == {(topic, 0): 3, (topic, 1): 3, (topic, 2): 0, (topic, 3): 0}


def test_a_topic_kcli_never_saw_takes_the_safe_side(apache_kafka):
    b = apache_kafka.bootstrap_servers
    topic, group = unique("unseen"), unique("unseen-g")
    create_topic(b, topic, partitions=1)
    produce(b, topic, [(0, f"old-{i}") for i in range(4)])
    consume_and_commit(b, group, [topic], 4)
    expand(b, topic, 1, 2, 3)

    rows, err = reset_plan(b, group, topic, "1h")
    assert decided(rows) == {0: (0, "unknown"), 1: (0, "unknown")}
    assert f"no proven age for 2 partition(s), so they start at earliest (hot): {topic}-0, {topic}-1 " \
           "(first seen by kcli" in err

    r = run_kcli(b, "check", "expansions", "-t", topic)
    assert r.code == 4, r.err
    assert f"2 partition(s) ({topic}-0, {topic}-1) may be young expansions" in r.err
    rows = [line.split() for line in r.out.splitlines()[2:] if line.split()[:1] == [topic]]
    assert [(row[1], row[4], row[-1]) for row in rows] == [("1", "unknown", "EXPOSED")]


def test_a_log_append_time_topic_decides_by_its_record_bound(apache_kafka):
    b = apache_kafka.bootstrap_servers
    topic, group = unique("appended"), unique("appended-g")
    create_topic(b, topic, partitions=2, config={"message.timestamp.type": "LogAppendTime"})
    produce(b, topic, [(0, f"r-{i}") for i in range(3)])                  # partition 1 stays empty
    consume_and_commit(b, group, [topic], 3)
    time.sleep(3.5)
    rows, err = reset_plan(b, group, topic, "3s")
    assert decided(rows) == {0: (3, "record bound"), 1: (0, "unknown")}
    assert rows[0]["age"]["createdBeforeSource"] == "record bound" and rows[0]["age"]["minAgeMs"] > 3000
    assert f"{topic}-1 (first seen by kcli" in err and f"{topic}-0" not in err


def test_a_create_time_topic_without_a_before_bound_is_unknown(apache_kafka):
    b = apache_kafka.bootstrap_servers
    topic, group = unique("created"), unique("created-g")
    create_topic(b, topic, partitions=1)                                   # before.max.ms: Long.MAX
    produce(b, topic, [(0, f"r-{i}", int(time.time() * 1000) - 7_200_000) for i in range(3)])
    consume_and_commit(b, group, [topic], 3)
    rows, err = reset_plan(b, group, topic, "1h")
    assert decided(rows) == {0: (0, "unknown")}                            # a 2h-old stamp proves nothing
    assert rows[0]["age"]["createdBeforeSource"] == "observed"
    assert f"{topic}-0 (first seen by kcli" in err

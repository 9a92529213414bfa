"""Transactional topics on real Apache Kafka 4.4: a committed transaction, an aborted one in the
middle, a commit marker as a partition's last offset, plain records in between. Every expected
value below comes from the data as produced (the layout in ``txn_topic``), not from kcli:

- describe groups: LAG is kafka-consumer-groups' (log end minus committed, markers and aborted
  records counted; the drop-in's stdout is the Java tool's byte for byte); the next record and
  the time lag are a read_committed consumer's (markers and aborted records passed over; only a
  trailing marker left: nothing to read, time lag 0);
- reset-offsets dry runs land where kafka-consumer-groups lands (time lookups are the broker's
  ListOffsets answers, which may name an aborted record or a marker: markers are stamped when
  written, so a time before that finds the first marker written after it); a forward move past only
  markers and aborted records skips nothing; --to-start-time is refused (4.4: no KIP-1282);
- list-offsets --max-timestamp is the broker's ListOffsets -3 answer, which names a marker when a
  marker carries the largest timestamp and an aborted record when that record does;
- the audit counts the records a read_committed consumer reads, and a reset target the broker
  answers with a marker before the data's answer agrees with it.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from kcli.ops.resets import TOO_OLD_FOR_START_TIME
from tests.support.apache_kafka import ToolSession
from tests.support.clients import commit, create_topic, produce, unique
from tests.support.run import run_dropin, run_kcli
from tests.support.waits import wait_until

FUTURE_MS = 600_000          # the aborted record of partition 1 is stamped 10 min ahead


def transaction(b: str, topic: str, records: list[tuple[int, str, int]], commit_it: bool,
                ends: dict[int, int]) -> None:
    """One transaction, committed or aborted; returns once its markers are written, the last
    stable offset of each partition at ``ends`` (EndTxn is answered before the markers are
    written: a record produced at once could land before them)."""
    p = Producer({"bootstrap.servers": b, "transactional.id": unique("txn"), "linger.ms": 0})
    p.init_transactions(60)
    p.begin_transaction()
    for partition, value, ts in records:
        p.produce(topic, value.encode(), partition=partition, timestamp=ts)
    assert p.flush(30) == 0
    (p.commit_transaction if commit_it else p.abort_transaction)(30)
    c = Consumer({"bootstrap.servers": b, "group.id": "unused", "isolation.level": "read_committed"})
    try:
        for partition, end in ends.items():
            wait_until(lambda: c.get_watermark_offsets(TopicPartition(topic, partition), 5)[1] == end,
                       what=f"{topic}-{partition}'s last stable offset at {end}")
    finally:
        c.close()


@pytest.fixture(scope="module")
def txn_topic(apache_kafka):
    """Partition 0 (log end 11) and partition 1 (log end 4); C = commit marker, A = abort marker,
    x = aborted record; T = B + n s:

        p0: 0 p@B  1 p@B+1  2 t@B+2  3 t@B+3  4 C  5 x@B+4  6 x@B+5  7 A  8 p@B+6  9 t@B+7  10 C
        p1: 0 p@B  1 x@now+10min  2 A  3 p@B+1

    The markers are stamped by the broker when written (after every record's B + n s)."""
    b = apache_kafka.bootstrap_servers
    topic = unique("txn")
    create_topic(b, topic, partitions=2)
    now = int(time.time() * 1000)
    base = now - 3_600_000
    produce(b, topic, [(0, "p0", base), (0, "p1", base + 1000), (1, "q0", base)])
    transaction(b, topic, [(0, "a2", base + 2000), (0, "a3", base + 3000)], True, {0: 5})
    transaction(b, topic, [(0, "x5", base + 4000), (0, "x6", base + 5000), (1, "x1", now + FUTURE_MS)],
                False, {0: 8, 1: 3})
    produce(b, topic, [(0, "p8", base + 6000), (1, "q3", base + 1000)])
    transaction(b, topic, [(0, "c9", base + 7000)], True, {0: 11})
    time.sleep(0.01)                                 # the markers are older than any test's "now"
    return b, topic, base, now


@pytest.fixture(scope="module")
def tools():
    with ToolSession() as session:
        yield session


def _group(b: str, topic: str, p0: int, p1: int) -> str:
    group = unique(f"txn-{p0}-{p1}")
    commit(b, group, {(topic, 0): p0, (topic, 1): p1})
    return group


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


# (committed p0, committed p1) -> per partition (lag, next record's timestamp as base + ms, or
# None when a read_committed consumer has nothing left to read)
LAGS = {
    (2, 0): ((9, 2000), (4, 0)),            # committed transaction's records are delivered
    (4, 1): ((7, 6000), (3, 1000)),         # at a commit marker, then an aborted transaction
    (5, 2): ((6, 6000), (2, 1000)),         # inside the aborted transaction, at an abort marker
    (9, 3): ((2, 7000), (1, 1000)),         # at the last record, before the trailing marker
    (10, 4): ((1, None), (0, None)),        # at the trailing commit marker: nothing to read
    (11, 4): ((0, None), (0, None)),        # at the log end
}


@pytest.mark.parametrize("committed", list(LAGS), ids=lambda c: f"at-{c[0]}-{c[1]}")
def test_lag_and_time_lag(txn_topic, tools, committed):
    b, topic, base, _ = txn_topic
    group = _group(b, topic, *committed)
    before = int(time.time() * 1000)
    r = run_kcli(b, "-o", "json", "describe", "groups", group)
    after = int(time.time() * 1000)
    assert r.code == 0, r.err
    assert "unknown" not in r.err and "negative" not in r.err, r.err
    rows = {p["partition"]: p for p in json.loads(r.out)["groups"][0]["partitions"]}
    for partition, (lag, next_at) in enumerate(LAGS[committed]):
        row = rows[partition]
        assert row["lag"] == lag, (partition, row)
        assert row["logEndOffset"] == (11, 4)[partition]
        assert row["timeLagError"] is None and row["timeLagIsLowerBound"] is False, row
        if next_at is None:
            assert (row["nextRecordTimestampMs"], row["timeLagMs"]) == (None, 0), row
        else:
            assert row["nextRecordTimestampMs"] == base + next_at, (partition, row)
            assert before - base - next_at <= row["timeLagMs"] <= after - base - next_at
    # the drop-in is kafka-consumer-groups to the byte (LAG counts markers and aborted records)
    args = ("--bootstrap-server", b, "--describe", "--group", group)
    mine, java = run_dropin("kafka-consumer-groups", *args), tools.run("kafka-consumer-groups", *args)
    assert (mine.code, mine.out) == (java.code, java.out)
    assert [line.split()[5] for line in java.out.splitlines()[2:]] == [str(lag) for lag, _ in LAGS[committed]]


def _plan(r) -> dict[int, tuple[int, int]]:
    """partition -> (new offset, skipped unread)."""
    assert r.code == 0, r.err
    return {p["partition"]: (p["newOffset"], p["skippedUnread"])
            for g in json.loads(r.out)["groups"] for p in g["partitions"]}


def test_reset_scenarios_land_as_kafka_consumer_groups(txn_topic, tools):
    b, topic, base, now = txn_topic
    group = _group(b, topic, 4, 1)
    time.sleep(max(0.0, (now + 1500 - time.time() * 1000) / 1000))    # the markers are > 1 s old
    # scenario -> {partition: (new offset, skipped unread records)}
    cases = [
        (["--to-earliest"], {0: (0, 0), 1: (0, 0)}),
        # p0: 4..10 holds 3 records (p8, c9 and nothing else deliverable from 4): counted in
        # offsets from the next record (8); p1: 1..3 holds q3 only
        (["--to-latest"], {0: (11, 3), 1: (4, 1)}),
        (["--to-offset", "8"], {0: (8, 0), 1: (4, 1)}),         # p0: only markers, aborted records
        (["--shift-by", "3"], {0: (7, 0), 1: (4, 1)}),
        (["--shift-by", "-2"], {0: (2, 0), 1: (0, 0)}),
        # the broker's answers: the first batch stamped at or after the time, markers and aborted
        # records included. p0: the commit marker at 4, stamped when written (after every
        # record), comes before x6 (base + 5 s) and before any record after base + 7.5 s; p1:
        # the future-stamped aborted x1
        (["--to-datetime", _iso(base + 4500)], {0: (4, 0), 1: (1, 0)}),
        (["--to-datetime", _iso(base + 7500)], {0: (4, 0), 1: (1, 0)}),
        (["--by-duration", "PT2H"], {0: (0, 0), 1: (0, 0)}),
        # nothing stamped in the last second on p0: the log end; p1's future aborted record
        (["--by-duration", "PT1S"], {0: (11, 3), 1: (1, 0)}),
    ]
    for scenario, expected in cases:
        dry = run_kcli(b, "-o", "json", "reset-offsets", "--group", group, "--topic", topic, *scenario)
        assert _plan(dry) == expected, scenario
        args = ("--bootstrap-server", b, "--reset-offsets", "--group", group, "--topic", topic, *scenario,
                "--dry-run")
        mine, java = run_dropin("kafka-consumer-groups", *args), tools.run("kafka-consumer-groups", *args)
        assert (mine.code, mine.out) == (java.code, java.out), scenario
        assert sorted(tuple(map(int, line.split()[2:4])) for line in java.out.splitlines()
                      if line.startswith(group)) == sorted(
            (p, new) for p, (new, _) in expected.items()), scenario
    r = run_kcli(b, "reset-offsets", "--group", group, "--topic", topic, "--to-start-time")
    assert (r.code, r.err) == (1, f"Error: {TOO_OLD_FOR_START_TIME}\n")


def test_a_move_past_markers_only_is_no_skip(txn_topic):
    """Committed at the trailing marker (10): --to-offset 11 skips nothing a read_committed
    consumer reads, so it executes without --allow-skip; past q3 on p1 it is refused."""
    b, topic, _, _ = txn_topic
    group = _group(b, topic, 10, 3)
    r = run_kcli(b, "reset-offsets", "--group", group, "--topic", f"{topic}:0", "--to-offset", "11", "--execute")
    assert r.code == 0 and "skips" not in r.err, r.err
    r = run_kcli(b, "reset-offsets", "--group", group, "--topic", f"{topic}:1", "--to-offset", "4", "--execute")
    assert r.code == 1 and "skips 1 unread records (committed offset 3)" in r.err, r.err
    doc = json.loads(run_kcli(b, "-o", "json", "describe", "groups", group).out)
    assert [(p["currentOffset"], p["lag"]) for p in doc["groups"][0]["partitions"]] == [(11, 0), (3, 1)]


def test_max_timestamp_is_the_brokers_answer(txn_topic, tools):
    """ListOffsets -3 on Kafka 4.4: p0's largest timestamp is the trailing commit marker's (offset
    10, stamped when written); p1's is the aborted, future-stamped record (offset 1)."""
    b, topic, _, now = txn_topic
    r = run_kcli(b, "-o", "json", "list-offsets", "--topic", topic, "--max-timestamp")
    assert r.code == 0, r.err
    rows = {o["partition"]: o for o in json.loads(r.out)["offsets"]}
    assert rows[0]["offset"] == 10 and now <= rows[0]["timestampMs"] <= int(time.time() * 1000)
    assert (rows[1]["offset"], rows[1]["timestampMs"]) == (1, now + FUTURE_MS)
    args = ("--bootstrap-server", b, "--topic", topic, "--time", "-3")
    mine, java = run_dropin("kafka-get-offsets", *args), tools.run("kafka-get-offsets", *args)
    assert (mine.code, mine.out) == (java.code, java.out) == (0, f"{topic}:0:10\n{topic}:1:1\n")


def test_audit_counts_what_a_read_committed_consumer_reads(txn_topic):
    from kcli.pipeline.audit import audit_timestamps
    from kcli.pipeline.result import AGREE, DISAGREE
    from kcli.pipeline.spark import session

    b, topic, base, now = txn_topic
    spark = session("local[1]", {"spark.sql.shuffle.partitions": "1", "spark.default.parallelism": "1"})
    try:
        result = audit_timestamps(spark, b, [topic], target_ms=base + 4500, timeout_s=60)
        # Spark's Kafka connector reads as a read_committed consumer too: the same answer
        jvm = audit_timestamps(spark, b, [topic], target_ms=base + 4500, timeout_s=60, source="jvm",
                               reference_ms=result.reference_ms)
    finally:
        spark.stop()
    assert {**jvm.to_json_dict(), "source": "python"} == result.to_json_dict()
    parts = {p.partition: p for p in result.partitions}
    p0, p1 = parts[0], parts[1]
    assert (p0.records, p0.min_timestamp, p0.max_timestamp, p0.max_timestamp_offset) == (
        6, base, base + 7000, 9)                       # offsets 0 1 2 3 8 9
    assert (p1.records, p1.min_timestamp, p1.max_timestamp, p1.max_timestamp_offset) == (
        2, base, base + 1000, 3)                       # offsets 0 3
    assert (p0.out_of_order, p1.out_of_order) == (0, 0)
    assert result.total.records == 8
    # the broker names a marker (p0) and an aborted record (p1): not a record consumers read
    assert (p0.broker_max_timestamp_offset, p1.broker_max_timestamp_offset) == (10, 1)
    assert p0.max_timestamp_check == p1.max_timestamp_check == DISAGREE
    # a reset to base + 4.5 s lands on the commit marker at 4 (p0: nothing read is skipped or
    # replayed) and on x1 (p1: q3, older than the target, is read again)
    assert (p0.target_offset, p0.data_target_offset, p0.skipped, p0.replayed) == (4, 8, 0, 0)
    assert (p1.target_offset, p1.data_target_offset, p1.skipped, p1.replayed) == (1, None, 0, 1)
    # the broker's answer agrees where a consumer reset there reads on from the data's answer
    assert (p0.target_check, p1.target_check) == (AGREE, DISAGREE)


def test_an_open_transaction_leaves_the_time_lag_unknown(apache_kafka):
    """Committed at the last stable offset, with a transaction still open after it: a
    read_committed consumer waits there; the time lag is unknown, and says why."""
    b = apache_kafka.bootstrap_servers
    topic = unique("open")
    create_topic(b, topic)
    produce(b, topic, [(0, "p0")])
    p = Producer({"bootstrap.servers": b, "transactional.id": unique("open"), "linger.ms": 0})
    p.init_transactions(60)
    p.begin_transaction()
    try:
        p.produce(topic, b"o1", partition=0)
        assert p.flush(30) == 0
        group = unique("open")
        commit(b, group, {(topic, 0): 1})
        r = run_kcli(b, "-o", "json", "describe", "groups", group)
        assert r.code == 0, r.err
        (row,) = json.loads(r.out)["groups"][0]["partitions"]
        assert (row["lag"], row["timeLagMs"]) == (1, None)
        assert row["timeLagError"] == "an open transaction holds back the records from offset 1"
        r = run_kcli(b, "describe", "groups", group)
        assert r.code == 0 and (f"Time lag of group '{group}' unknown on 1 partition(s) ({topic}-0): an open "
                                "transaction holds back the records from offset 1") in r.err, r.err
    finally:
        p.abort_transaction(30)

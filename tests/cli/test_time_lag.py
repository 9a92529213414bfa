"""Lag in time in ``describe groups`` against the embedded broker, with records produced and
offsets committed by real clients: each partition's next-record timestamp equals the timestamp
the test produced at the committed offset, and TIME-LAG is now minus it, at 3 and at 300
partitions with the same requests; batches cut at the Fetch's byte limit give a lower bound that
holds; LogAppendTime records are read exactly; -o plain stays kafka-consumer-groups' unless
--time-lag is given."""

from __future__ import annotations

import json
import os
import time
from confluent_kafka import Consumer, TopicPartition

from tests.support.groups import fast_cluster
from tests.support.run import run_kcli
from tests.support.clients import commit, produce
from tests.support.requests import same_requests, sent, snapshot

RECORDS = 6


def stamps(base: int, p: int) -> list[int]:
    """The timestamps produced on partition ``p``: older partitions further back, one second
    apart inside each, not in partition order."""
    return [base - (p * 7 % 11) * 60_000 - (RECORDS - i) * 1000 for i in range(RECORDS)]


def committed_at(p: int) -> int | None:
    """Mid-log, at the start, caught up, or no commit at all."""
    return [2, 0, 5, RECORDS, None][p % 5]


def describe_json(ec, group):
    before = snapshot(ec)
    t0 = int(time.time() * 1000)
    r = run_kcli(ec.bootstrap_servers, "describe", "groups", group, "-o", "json")
    t1 = int(time.time() * 1000)
    assert r.code == 0, r.err
    (doc,) = json.loads(r.out)["groups"]
    return doc, t0, t1, sent(ec, before)


def test_time_lag_is_the_true_record_age_at_3_and_300_partitions():
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        requests = {}
        for n in (3, 300):
            topic, group = f"lag{n}", f"lag-g{n}"
            ec.create_topic(topic, n)
            base = int(time.time() * 1000)
            produce(b, topic, [(p, f"{p}-{i}", ts) for p in range(n) for i, ts in enumerate(stamps(base, p))],
                    **{"linger.ms": 20})
            commit(b, group, {(topic, p): committed_at(p) for p in range(n) if committed_at(p) is not None})
            doc, t0, t1, requests[n] = describe_json(ec, group)
            rows = {r["partition"]: r for r in doc["partitions"]}
            assert sorted(rows) == [p for p in range(n) if committed_at(p) is not None]
            for p, row in rows.items():
                c = committed_at(p)
                if c == RECORDS:
                    assert (row["nextRecordTimestampMs"], row["timeLagMs"]) == (None, 0), row
                    continue
                truth = stamps(base, p)[c]              # the record the group reads next
                assert row["nextRecordTimestampMs"] == truth, (p, row)
                assert t0 - truth <= row["timeLagMs"] <= t1 - truth, (p, row, t0, t1)
                assert row["timeLagIsLowerBound"] is False and row["timeLagError"] is None
            oldest = min(stamps(base, p)[committed_at(p)] for p in rows if committed_at(p) < RECORDS)
            assert t0 - oldest <= doc["maxTimeLagMs"] <= t1 - oldest
            assert doc["maxTimeLagIsLowerBound"] is False
        same_requests(requests[3], requests[300])
        assert requests[300].kcli["Fetch"] == 3            # one per leader (3 nodes)


def test_plain_is_the_java_layout_unless_time_lag_is_asked():
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("pl", 2)
        base = int(time.time() * 1000) - 3_600_000
        produce(b, "pl", [(p, "x", base + p * 1000 + i) for p in range(2) for i in range(3)])
        commit(b, "pl-g", {("pl", 0): 1, ("pl", 1): 3})
        before = snapshot(ec)
        plain = run_kcli(b, "describe", "groups", "pl-g", "-o", "plain")
        assert plain.code == 0 and "Fetch" not in sent(ec, before)
        assert plain.out.splitlines()[1].split()[-1] == "CLIENT-ID"
        r = run_kcli(b, "describe", "groups", "pl-g", "-o", "plain", "--time-lag")
        header, first, second = r.out.splitlines()[1:]
        assert header.split()[-3:] == ["CLIENT-ID", "NEXT-RECORD-TIME", "TIME-LAG"]
        assert first.startswith(plain.out.splitlines()[2].rstrip())        # the tool's columns first
        assert first.split()[-2] == time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime((base + 1) / 1000)) + \
            f".{(base + 1) % 1000:03d}Z"
        assert second.split()[-2:] == ["-", "0s"]
        table = run_kcli(b, "describe", "groups", "pl-g")
        assert "NEXT-RECORD-TIME" in table.out and "Max time lag of group 'pl-g': 1h" in table.out
        csv_out = run_kcli(b, "describe", "groups", "pl-g", "-o", "csv").out.splitlines()
        assert csv_out[0].endswith("CLIENT-ID,NEXT-RECORD-TIME,TIME-LAG-MS")


def test_a_group_behind_future_dated_records_shows_a_negative_lag_never_0s():
    """100 records to consume, stamped 20 minutes ahead of now (a producer's clock ahead): the
    lag is negative in every view, the note names the partition; 0s would read as caught up."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("ahead", 2)
        future = int(time.time() * 1000) + 20 * 60_000
        produce(b, "ahead", [(0, f"r{i}", future + i) for i in range(100)] + [(1, "x", future - 3_600_000)])
        commit(b, "ahead-g", {("ahead", 0): 0, ("ahead", 1): 1})
        t0 = int(time.time() * 1000)
        r = run_kcli(b, "describe", "groups", "ahead-g", "-o", "json")
        t1 = int(time.time() * 1000)
        assert r.code == 0, r.err
        (doc,) = json.loads(r.out)["groups"]
        rows = {p["partition"]: p for p in doc["partitions"]}
        assert rows[0]["lag"] == 100 and rows[0]["nextRecordTimestampMs"] == future
        assert t0 - future <= rows[0]["timeLagMs"] <= t1 - future < 0, rows[0]
        assert (rows[1]["timeLagMs"], doc["maxTimeLagMs"]) == (0, 0)     # caught up on 1
        plain = run_kcli(b, "describe", "groups", "ahead-g", "-o", "plain", "--time-lag")
        line = next(x for x in plain.out.splitlines() if x.startswith("ahead-g") and x.split()[2] == "0")
        assert line.split()[-1].startswith("-19m") and line.split()[-1] != "0s", line
        assert "Time lag of group 'ahead-g' negative on 1 partition(s) (ahead-0)" in plain.err
        table = run_kcli(b, "describe", "groups", "ahead-g")
        assert "-19m" in table.out and "Time lag of group 'ahead-g' negative" in table.err


def test_cut_batches_are_asked_again_whole_and_log_append_time_is_exact():
    """Partition 0 answers first with a small batch; partitions 1 (200 records, uncompressed)
    and 2 (lz4) hold one batch each larger than the 4 KiB a partition may return, so the
    broker answers them without data (Kafka's answer to a first batch larger than the bytes a
    partition that is not the answer's first may return). They are asked again for twice the
    bytes until their batch comes: every time exact, never a bound."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("big", 3)
        base = int(time.time() * 1000) - 600_000
        ts = [base + i * 100 for i in range(200)]
        produce(b, "big", [(0, "small", base)])
        produce(b, "big", [(1, "v" * 100, t) for t in ts], **{"linger.ms": 200})
        produce(b, "big", [(2, os.urandom(100).hex(), t) for t in ts],        # compresses to ~22 KB
                **{"linger.ms": 200, "compression.type": "lz4"})
        commit(b, "big-a", {("big", 0): 0, ("big", 1): 150, ("big", 2): 5})
        commit(b, "big-b", {("big", 0): 0, ("big", 1): 5, ("big", 2): 150})
        before = snapshot(ec)
        r = run_kcli(b, "describe", "groups", "big-a", "big-b", "-o", "json")
        assert r.code == 0, r.err
        # layer 1 (big-a's offsets): partitions 1 and 2 come back empty, as Kafka answers a partition
        # whose first batch is larger than its 4 KiB (not the answer's first); asked for 8 KiB,
        # partition 1 is the first, whole, partition 2 still empty; then alone. Layer 2: two.
        assert sent(ec, before).kcli["Fetch"] == 5
        rows = {(g["group"], p["partition"]): p for g in json.loads(r.out)["groups"] for p in g["partitions"]}
        for key, offset in ((("big-b", 1), 5), (("big-a", 1), 150), (("big-a", 2), 5), (("big-b", 2), 150)):
            row = rows[key]
            assert (row["nextRecordTimestampMs"], row["timeLagIsLowerBound"]) == (ts[offset], False), (key, row)
        plain = run_kcli(b, "describe", "groups", "big-a", "-o", "plain", "--time-lag").out
        line = next(x for x in plain.splitlines() if x.startswith("big-a") and x.split()[2] == "1")
        assert "≤" not in line and "≥" not in line, line

        ec.create_topic("appended", 1, configs={"message.timestamp.type": "LogAppendTime"})
        produce(b, "appended", [(0, f"a{i}", base) for i in range(5)])
        commit(b, "app-g", {("appended", 0): 2})
        reader = Consumer({"bootstrap.servers": b, "group.id": "reader", "enable.auto.commit": False})
        reader.assign([TopicPartition("appended", 0, 2)])
        msg = next(m for m in iter(lambda: reader.poll(0.2), 0) if m is not None and m.error() is None)
        reader.close()
        (doc,) = json.loads(run_kcli(b, "describe", "groups", "app-g", "-o", "json").out)["groups"]
        assert msg.timestamp()[1] != base
        assert doc["partitions"][0]["nextRecordTimestampMs"] == msg.timestamp()[1]


def test_a_partition_sharing_the_fetch_with_many_is_as_exact_as_alone():
    """`billing` alone: its partition is the Fetch's first and gets its whole batch (KIP-74), an
    exact time. With --all-groups, `audit`'s 300 partitions share the Fetch and the broker cuts
    `billing`'s batch at 4 KiB: it is asked again for the whole batch, so the time is the same
    exact one, in one Fetch more however many partitions shared it."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        n = 300
        ec.create_topic("many", n)
        ec.create_topic("orders", 1)
        produce(b, "many", [(p, "x") for p in range(n) for _ in range(2)])
        base = int(time.time() * 1000) - 90_000
        produce(b, "orders", [(0, "v" * 200, base + i) for i in range(50)], **{"linger.ms": 200})
        commit(b, "audit", {("many", p): 1 for p in range(n)})
        commit(b, "billing", {("orders", 0): 30})

        def billing(*args):
            before = snapshot(ec)
            r = run_kcli(b, "describe", "groups", *args, "-o", "json")
            assert r.code == 0, r.err
            (row,) = [p for g in json.loads(r.out)["groups"] if g["group"] == "billing" for p in g["partitions"]]
            return (row["nextRecordTimestampMs"], row["timeLagIsLowerBound"]), sent(ec, before).kcli["Fetch"]

        assert billing("billing") == ((base + 30, False), 1)
        assert billing("--all-groups") == ((base + 30, False), 2)


def test_many_partitions_of_big_batches_take_rounds_by_batch_size_not_by_partition_count():
    """200 partitions whose batch at the committed offset is ~10 KiB (more than the 4 KiB a
    partition is first asked for): each round doubles the bytes asked of those answered without
    data, so all are exact within a few Fetches (4 KiB, 8 KiB, 16 KiB), not one per partition."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        n = 200
        ec.create_topic("wide", n)
        base = int(time.time() * 1000) - 60_000
        produce(b, "wide", [(p, "v" * 300, base + i) for p in range(n) for i in range(30)], **{"linger.ms": 500})
        commit(b, "wide-g", {("wide", p): 20 for p in range(n)})
        before = snapshot(ec)
        r = run_kcli(b, "describe", "groups", "wide-g", "-o", "json")
        assert r.code == 0, r.err
        rows = json.loads(r.out)["groups"][0]["partitions"]
        assert {(row["nextRecordTimestampMs"], row["timeLagIsLowerBound"]) for row in rows} == {(base + 20, False)}
        assert sent(ec, before).kcli["Fetch"] <= 3

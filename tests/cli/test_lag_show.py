"""``kcli lag show`` (``kcli lag [GROUP...]``) against the embedded broker, records produced with
known timestamps and offsets committed by real clients: its roll-ups by group, topic and
partition sum the lags and take the largest lag in time (the next record's own timestamp: 0
caught up, negative future-dated); --min-lag, --min-time-lag and --sort filter and order the
lines; every format; --watch redraws in place on a terminal (a pty) with a sparkline of the time
lag, appends off one; bad input exits 2 before any request."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest
from confluent_kafka import TopicPartition

from tests.support.clients import commit, consume, consumer, produce
from tests.support.groups import fast_cluster
from tests.support.run import run_kcli


@pytest.fixture(scope="module")
def lagging():
    """Topic a (2 partitions) and b (1); group g1 (simple) behind on a-0 by 3 from the record
    stamped base+2s, on a-1 by 1 future-dated record, on b-0 by 1 record an hour old; g2 a live
    KIP-848 member caught up on a-0; g3 (simple) 5 behind on a-0."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("a", 2)
        ec.create_topic("b", 1)
        base = int(time.time() * 1000) - 60_000
        produce(b, "a", [(0, f"x{i}", base + i * 1000) for i in range(5)] + [(1, "f", base + 3_600_000)])
        produce(b, "b", [(0, "old", base - 3_600_000)])
        commit(b, "g1", {("a", 0): 2, ("a", 1): 0, ("b", 0): 0})
        commit(b, "g3", {("a", 0): 0})
        c = consumer(b, "g2", "consumer")
        c.subscribe(["a"])
        assert len(consume(c, 6)) == 6
        c.commit(offsets=[TopicPartition("a", 0, 5)], asynchronous=False)
        try:
            yield b, base
        finally:
            c.close()


def lines(b, *args):
    t0 = int(time.time() * 1000)
    r = run_kcli(b, "lag", "show", *args, "-o", "json")
    t1 = int(time.time() * 1000)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["schema"] == "kcli.lag/v1"
    return doc["lines"], t0, t1


def test_by_partition_the_lag_and_the_time_lag_of_each_committed_partition(lagging):
    b, base = lagging
    found, t0, t1 = lines(b, "--by", "partition")
    rows = {(x["group"], x["topic"], x["partition"]): x for x in found}
    assert list(rows) == [("g1", "a", 0), ("g1", "a", 1), ("g1", "b", 0), ("g2", "a", 0), ("g3", "a", 0)]
    assert [(x["currentOffset"], x["logEndOffset"], x["lag"]) for x in rows.values()] == [
        (2, 5, 3), (0, 1, 1), (0, 1, 1), (5, 5, 0), (0, 5, 5)]
    for key, ts in [(("g1", "a", 0), base + 2000), (("g1", "a", 1), base + 3_600_000),
                    (("g1", "b", 0), base - 3_600_000)]:
        assert t0 - ts <= rows[key]["timeLagMs"] <= t1 - ts, key
    assert rows[("g1", "a", 1)]["timeLagMs"] < 0                 # future-dated: behind, not caught up
    assert rows[("g2", "a", 0)]["timeLagMs"] == 0                # caught up


def test_by_topic_and_by_group_sum_the_lags_and_take_the_largest_time_lag(lagging):
    b, base = lagging
    found, t0, t1 = lines(b, "--by", "topic")
    assert [(x["group"], x["topic"], x["partitions"], x["lag"]) for x in found] == [
        ("g1", "a", 2, 4), ("g1", "b", 1, 1), ("g2", "a", 1, 0), ("g3", "a", 1, 5)]
    assert t0 - base - 2000 <= found[0]["timeLagMs"] <= t1 - base - 2000
    found, t0, t1 = lines(b)                                     # --by group, the default
    assert [(x["group"], x["type"], x["state"], x["members"], x["partitions"], x["lag"]) for x in found] == [
        ("g1", "classic", "Empty", 0, 3, 5), ("g2", "consumer", "Stable", 1, 1, 0), ("g3", "classic", "Empty", 0, 1, 5)]
    assert t0 - base + 3_600_000 <= found[0]["timeLagMs"] <= t1 - base + 3_600_000
    assert found[1]["timeLagMs"] == 0


def test_filters_and_sorts(lagging):
    b, _ = lagging
    found, _, _ = lines(b, "--by", "partition", "--min-lag", "2")
    assert [(x["group"], x["topic"], x["partition"]) for x in found] == [("g1", "a", 0), ("g3", "a", 0)]
    found, _, _ = lines(b, "--by", "partition", "--min-time-lag", "30m")
    assert [(x["group"], x["topic"]) for x in found] == [("g1", "b")]
    found, _, _ = lines(b, "--by", "partition", "--sort", "lag")
    assert [(x["group"], x["lag"]) for x in found] == [("g3", 5), ("g1", 3), ("g1", 1), ("g1", 1), ("g2", 0)]
    found, _, _ = lines(b, "--by", "partition", "--sort", "time-lag")
    assert [(x["topic"], x["partition"], x["group"]) for x in found] == [
        ("b", 0, "g1"), ("a", 0, "g3"), ("a", 0, "g1"), ("a", 0, "g2"), ("a", 1, "g1")]
    found, _, _ = lines(b, "g2", "--topic", "a")
    assert [x["group"] for x in found] == ["g2"]


def test_kcli_lag_is_kcli_lag_show_and_every_format(lagging):
    b, _ = lagging
    short = run_kcli(b, "lag", "g1", "--by", "topic", "-o", "csv")
    assert short.code == 0, short.err
    rows = list(csv.reader(io.StringIO(short.out)))
    assert rows[0] == ["GROUP", "TOPIC", "PARTITIONS", "LAG", "MAX-TIME-LAG-MS"]
    assert [r[:4] for r in rows[1:]] == [["g1", "a", "2", "4"], ["g1", "b", "1", "1"]]
    assert int(rows[2][4]) >= 3_600_000                          # milliseconds in CSV
    plain = run_kcli(b, "lag", "--by", "partition", "-o", "plain")
    assert plain.out.split("\n")[1].split() == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET",
                                                "LAG", "TIME-LAG"]
    table = run_kcli(b, "lag")
    assert table.code == 0 and "MAX-TIME-LAG" in table.out and "g2" in table.out
    assert "Time lag of group 'g1' negative on 1 partition(s) (a-1)" in table.err     # describe groups' note
    assert run_kcli(None, "lag", "--help").out.count("serve") >= 1      # the group's help, not show's


@pytest.mark.parametrize("args, message", [
    (["--by", "member"], "Invalid --by 'member': use one of group, topic, partition"),
    (["--sort", "size"], "Invalid --sort 'size': use one of name, lag, time-lag"),
    (["--min-time-lag", "soon"], "--min-time-lag: Invalid duration 'soon'"),
    (["--min-lag", "-1"], "Invalid value for '--min-lag'"),
    (["--topic", "("], "Invalid --topic '(': not a regex"),
    ([""], "A group id cannot be empty"),
    (["--watch", "soon"], "--watch: Invalid duration 'soon'"),
    (["--watch", "10ms"], "--watch: '10ms' is out of range: from 100 ms to 1 day"),
])
def test_bad_input_exits_2_before_any_request(args, message):
    r = run_kcli("127.0.0.1:1", "lag", "show", *args)
    assert r.code == 2 and len(r.err.splitlines()) == 1 and message in r.err, r


def test_a_missing_group_fails_as_in_describe_groups(lagging):
    b, _ = lagging
    r = run_kcli(b, "lag", "g1", "nosuch")
    assert (r.code, r.out, r.err) == (1, "", "Error: Group nosuch not found.\n")


CLEAR = "\x1b[H\x1b[2J"


class Pty:
    """``python -m kcli ARGS`` on a pseudo terminal 200 columns wide; its output read as it comes."""

    def __init__(self, *args: str):
        import fcntl
        import os
        import pty
        import struct
        import subprocess
        import sys
        import termios

        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.proc = subprocess.Popen([sys.executable, "-m", "kcli", *args], stdin=slave, stdout=slave,
                                     stderr=slave, close_fds=True, env={**os.environ, "COLUMNS": "200"})
        os.close(slave)
        self.master, self.seen = master, ""

    def read_until(self, predicate, timeout: float = 30) -> str:
        import os
        import select

        deadline = time.monotonic() + timeout
        while not predicate(self.seen) and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    break
        assert predicate(self.seen), self.seen[-2000:]
        return self.seen

    def stop(self) -> tuple[int, float]:
        import os
        import signal

        started = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(15)
        os.close(self.master)
        return code, time.monotonic() - started


def test_watch_redraws_in_place_with_a_sparkline_of_the_time_lag_in_a_pty():
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("w", 1)
        base = int(time.time() * 1000) - 30_000
        produce(b, "w", [(0, f"r{i}", base + i * 1000) for i in range(5)])
        commit(b, "wg", {("w", 0): 1})
        term = Pty("-b", b, "lag", "show", "--by", "partition", "--watch", "300ms")
        try:
            seen = term.read_until(lambda s: s.count(CLEAR) >= 4)
            frames = [f for f in seen.split(CLEAR)[1:4]]
            for n, frame in enumerate(frames, start=1):        # one more sample a frame: a bar each
                assert frame.startswith("Every 300ms: kcli lag, at "), frame
                (row,) = [line for line in frame.splitlines() if line.split()[:1] == ["wg"]]
                trend = row.split()[-1]
                assert set(trend) <= set("▁▂▃▄▅▆▇█") and len(trend) >= n, (n, row)
                assert row.split()[:6] == ["wg", "w", "0", "1", "5", "4"], row
            assert trend[-1] == "█"                           # the lag in time grows while nothing is read
            commit(b, "wg", {("w", 0): 5})                     # caught up: 0, the lowest bar
            seen = term.read_until(lambda s: any(" 0s " in f and f.rstrip().count("\n") >= 3
                                                 for f in s.split(CLEAR)[-2:-1]))
        finally:
            code, took = term.stop()
        caught = seen.split(CLEAR)[-2]
        (row,) = [line for line in caught.splitlines() if line.split()[:1] == ["wg"]]
        assert row.split()[3:7] == ["5", "5", "0", "0s"] and row.split()[-1].endswith("▁"), row
        assert code == 0 and took < 5, (code, took)


def test_watch_off_a_terminal_appends_each_sample_and_json_carries_the_trend():
    import subprocess
    import sys

    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("wj", 1)
        produce(b, "wj", [(0, "r", int(time.time() * 1000) - 10_000)])
        commit(b, "wjg", {("wj", 0): 0})
        argv = [sys.executable, "-m", "kcli", "-b", b, "-o", "json", "lag", "show", "--watch", "200ms"]
        proc = subprocess.Popen(argv,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        docs = []
        try:
            decoder, text = json.JSONDecoder(), ""
            deadline = time.monotonic() + 30
            while len(docs) < 3 and time.monotonic() < deadline:
                text += proc.stdout.readline()
                try:
                    doc, _ = decoder.raw_decode(text.strip())
                except ValueError:
                    continue
                docs.append(doc)
                text = ""
        finally:
            proc.send_signal(2)
            code = proc.wait(15)
        assert code == 0 and len(docs) == 3
        trends = [d["lines"][0]["timeLagTrendMs"] for d in docs]
        assert [len(t) for t in trends] == [1, 2, 3] and trends[2][0] < trends[2][2], trends


def test_streams_groups_are_read_in_the_same_requests_at_1_and_at_4_groups():
    """A collection's requests grow with the brokers, not with the streams groups: the committed
    offsets in one OffsetFetch, the log ends in one ListOffsets, whatever their number."""
    from tests.support.requests import sent, snapshot
    from tests.support.streams_wire import streams_group_committed

    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("sin", 1)
        produce(b, "sin", [(0, f"s{i}", int(time.time() * 1000) - 5000 + i) for i in range(5)])
        counts = {}
        for n, offset in ((1, 1), (4, 2)):
            for i in range(n):
                streams_group_committed(ec, f"app-{n}-{i}", "sin", offset)
            before = snapshot(ec)
            found, _, _ = lines(b, *[f"app-{n}-{i}" for i in range(n)])
            counts[n] = sent(ec, before).kcli
            assert [(x["group"], x["type"], x["lag"]) for x in found] == [
                (f"app-{n}-{i}", "streams", 5 - offset) for i in range(n)]
        for api in ("OffsetFetch", "ListOffsets", "StreamsGroupDescribe"):
            assert counts[1][api] == counts[4][api], (api, counts)


def test_a_collection_sends_the_same_requests_at_20_and_at_60_groups():
    """Every request of a collection (ListGroups, the descriptions, OffsetFetch, ListOffsets,
    Fetch for the next records' timestamps) grows with the brokers, not with the groups: on 3
    nodes, 20 groups already have every node as a coordinator."""
    from tests.support.clients import commit_groups
    from tests.support.requests import same_requests, sent, snapshot

    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("many", 6)
        produce(b, "many", [(p, f"r{i}", int(time.time() * 1000) - 9000 + i) for p in range(6) for i in range(3)])
        counts = {}
        for n in (20, 60):
            ids = [f"many-{n}-{i}" for i in range(n)]
            commit_groups(b, ids, {("many", p): 1 for p in range(6)})
            before = snapshot(ec)
            found, _, _ = lines(b, *ids)
            counts[n] = sent(ec, before)
            assert [(x["group"], x["lag"]) for x in found] == [(g, 12) for g in sorted(ids)]
        same_requests(counts[20], counts[60])
        assert counts[60].kcli["Fetch"] <= 3 and counts[60].kcli["OffsetFetch"] <= 3   # per node at most

"""Transaction markers and what kcli makes of a partition that ends in one: nothing left to read
(time lag 0), a move past it skips no record, and --to-start-time's lookup lands on it as on Kafka
(a marker is stamped when written). The marker is written straight into the embedded broker's log,
as Kafka's coordinator writes one; the broker's own transactions are tested with real clients in
tests/broker/test_txns_clients.py, aborted records under kcli on real Kafka in
tests/apache/test_transactions.py."""
from __future__ import annotations

import json
import time

import pytest

from tests.support.groups import fast_cluster, on_coordinator
from tests.support.clients import commit, produce
from tests.support.records import marker
from tests.support.run import run_kcli

T0 = int(time.time() * 1000) - 600_000          # the records: T0, T0 + 1 s, T0 + 2 s
MARKER_TS = T0 + 10_000
STARTED = T0 + 5_000                            # a group created between the records and the marker
COORDINATOR_NOT_AVAILABLE, INVALID_REQUEST = 15, 42


@pytest.fixture(scope="module")
def marked():
    """Topic ``m``: records at offsets 0-2, a commit marker at 3 (log end 4)."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("m", 1)
        produce(b, "m", [(0, f"r{i}", T0 + i * 1000) for i in range(3)])
        log = ec.cluster.topics["m"].partitions[0].log
        ec.call(log.append, marker(0, 4242, True, MARKER_TS), 0)
        assert ec.call(lambda: log.log_end_offset) == 4
        yield ec


def _rows(b: str, group: str) -> list[dict]:
    r = run_kcli(b, "-o", "json", "describe", "groups", group)
    assert r.code == 0 and "unknown" not in r.err, r.err
    return json.loads(r.out)["groups"][0]["partitions"]


def test_a_trailing_marker_leaves_nothing_to_read(marked):
    b = marked.bootstrap_servers
    commit(b, "at-marker", {("m", 0): 3})
    commit(b, "before", {("m", 0): 2})
    row = _rows(b, "at-marker")[0]
    assert (row["lag"], row["nextRecordTimestampMs"], row["timeLagMs"], row["timeLagError"]) == (1, None, 0, None)
    row = _rows(b, "before")[0]
    assert (row["lag"], row["nextRecordTimestampMs"]) == (2, T0 + 2000)


def test_a_move_past_the_marker_only_skips_nothing(marked):
    b = marked.bootstrap_servers
    commit(b, "past", {("m", 0): 3})
    r = run_kcli(b, "-o", "json", "reset-offsets", "--group", "past", "--topic", "m", "--to-offset", "4")
    assert [p["skippedUnread"] for p in json.loads(r.out)["groups"][0]["partitions"]] == [0]
    r = run_kcli(b, "reset-offsets", "--group", "past", "--topic", "m", "--to-offset", "4", "--execute")
    assert r.code == 0 and "skips" not in r.err, r.err
    commit(b, "past2", {("m", 0): 2})
    r = run_kcli(b, "reset-offsets", "--group", "past2", "--topic", "m", "--to-offset", "4", "--execute")
    # one record (r2) is skipped, counted in offsets from it: the marker after it counts too
    assert r.code == 1 and "skips 2 unread records (committed offset 2)" in r.err, r.err


def test_compare_counts_as_the_dry_run(marked):
    """--compare's LATEST column equals --to-latest's dry run: past the marker only, no skip."""
    b = marked.bootstrap_servers
    commit(b, "cmp", {("m", 0): 3})
    r = run_kcli(b, "-o", "json", "reset-offsets", "--group", "cmp", "--topic", "m", "--compare")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    latest = next(p for p in doc["policies"] if p["policy"] == "to-latest")
    assert (latest["totalSkipped"], latest["totalReplayed"]) == (0, 0)
    (row,) = doc["groups"][0]["partitions"]
    assert row["policies"]["to-latest"] == {"newOffset": 4, "replayed": 0, "skipped": 0}
    assert "skips" not in r.err


def test_to_start_time_lands_on_the_marker(marked):
    """The group was created after every record and before the marker was written: the lookup
    at its creation time finds the marker (Kafka's ListOffsets counts control batches' times),
    where a read_committed consumer has nothing to read."""
    b = marked.bootstrap_servers
    on_coordinator(marked, lambda co: co.create_consumer_group("started", creation_time_ms=STARTED))
    r = run_kcli(b, "reset-offsets", "--group", "started", "--topic", "m", "--to-earliest", "--execute")
    assert r.code == 0, r.err
    r = run_kcli(b, "-o", "json", "reset-offsets", "--group", "started", "--topic", "m", "--to-start-time")
    assert r.code == 0, r.err
    (p,) = json.loads(r.out)["groups"][0]["partitions"]
    assert (p["currentOffset"], p["newOffset"], p["skippedUnread"]) == (0, 3, 3)

"""kcli and streams groups on real Apache Kafka 4.4.0 (always that release): a Kafka Streams
application (group.protocol=streams, tests/support/java/StreamsApp.java) joins a streams group on
a cluster with Kafka's defaults, then ``kcli list groups --type streams`` and every ``describe
groups`` view see it; once it stopped, the offsets view still shows its committed offsets and lag.
The version rule: 4.4 has StreamsGroupDescribe v1 (KIP-1331), no v2, so no creation time (`-`)."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.apache_kafka import java_tool
from tests.support.clients import create_topic, produce, unique
from tests.support.run import run_dropin, run_kcli
from tests.support.streams_app import STREAMS_KAFKA, StreamsApp
from tests.support.waits import wait_until


@pytest.fixture(scope="module")
def streams_cluster(apache_kafka_streams):
    """The session's streams cluster (tests/conftest.py: 4.4.0, Kafka's defaults)."""
    return apache_kafka_streams


@pytest.fixture(scope="module")
def app(streams_cluster):
    """A running streams application that has processed 10 records of a 2-partition topic."""
    b = streams_cluster.bootstrap_servers
    app_id, source, sink = unique("app"), unique("in"), unique("out")
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    produce(b, source, [(p, f"v{p}-{i}") for p in range(2) for i in range(5)])
    running = StreamsApp(b, app_id, source, sink)
    try:
        running.wait_running()
        wait_until(lambda: _lags(b, app_id) == {(source, 0): 0, (source, 1): 0}, timeout=60)
        yield b, app_id, source, running
    finally:
        running.stop()


def _lags(b, group):
    r = run_kcli(b, "-o", "json", "describe", "groups", group)
    if r.code:
        return None
    (g,) = json.loads(r.out)["groups"]
    return {(p["topic"], p["partition"]): p["lag"] for p in g["partitions"]}


def test_list_groups_type_streams_lists_the_application(app):
    b, app_id, _, _ = app
    r = run_kcli(b, "-o", "json", "list", "groups", "--type", "streams")
    assert r.code == 0, r.err
    assert {"group": app_id, "type": "Streams", "state": "Stable"} in json.loads(r.out)["groups"]
    plain = run_kcli(b, "-o", "plain", "list", "groups", "--type", "Streams,consumer")
    assert any(line.split() == [app_id, "Streams"] for line in plain.out.splitlines()), plain.out
    assert app_id in run_kcli(b, "-o", "plain", "list", "groups").out            # every group, streams too
    # kafka-consumer-groups' list stays consumer groups only, as Java's
    assert app_id not in run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--list").out


def test_every_describe_view_shows_the_running_application(app):
    b, app_id, source, _ = app
    state = run_kcli(b, "-o", "json", "describe", "groups", app_id, "--state", "--verbose")
    assert (state.code, state.err) == (0, "")
    (g,) = json.loads(state.out)["groups"]
    assert json.loads(state.out)["schema"] == "kcli.streams-group-state/v1"
    assert (g["group"], g["type"], g["state"], g["members"]) == (app_id, "Streams", "Stable", 1)
    assert g["groupEpoch"] >= 1 and g["targetAssignmentEpoch"] >= 1

    members = run_kcli(b, "-o", "json", "describe", "groups", app_id, "--members", "--verbose")
    (m,) = json.loads(members.out)["groups"][0]["members"]
    assert m["activeTasks"] == [{"subtopology": "0", "partition": 0}, {"subtopology": "0", "partition": 1}]
    assert m["clientId"].startswith(app_id) and not m["isClassic"]
    for view in (["--members"], ["--members", "--verbose"], ["--state"], []):
        for fmt in ("table", "plain", "csv"):
            r = run_kcli(b, "-o", fmt, "describe", "groups", app_id, *view)
            assert r.code == 0 and app_id in r.out, (view, fmt, r)
    offsets = run_kcli(b, "-o", "csv", "describe", "groups", app_id)
    rows = [line.split(",") for line in offsets.out.splitlines()]
    assert rows[0][:9] == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "MEMBER",
                           "HOST", "CLIENT-ID"]
    assert rows[0][9:10] == ["NEXT-RECORD-TIME"] and len(rows[0]) == 11       # the lag in time, as for consumer groups
    assert [r[:6] for r in rows[1:]] == [[app_id, source, "0", "5", "5", "0"], [app_id, source, "1", "5", "5", "0"]]
    assert all(r[6] == m["memberId"] for r in rows[1:])


def test_the_state_view_is_kafka_streams_groups_layout_plus_the_creation_time(app):
    b, app_id, _, _ = app
    for verbose in ([], ["--verbose"]):
        r = run_kcli(b, "-o", "plain", "describe", "groups", app_id, "--state", *verbose)
        java = java_tool("kafka-streams-groups", "--bootstrap-server", b, "--describe", "--group", app_id,
                         "--state", *verbose, version=STREAMS_KAFKA)
        assert r.code == 0 and java.code == 0, (r, java)
        if not verbose:
            assert r.out == java.out
        else:               # the same, then KIP-1282's column: `-` on 4.4 (no StreamsGroupDescribe v2)
            kcli_lines, java_lines = r.out.splitlines(), java.out.splitlines()
            assert [k[:len(j)] for k, j in zip(kcli_lines, java_lines)] == java_lines
            assert kcli_lines[0].endswith("   GROUP-CREATION-TIME") and kcli_lines[1].endswith(" -")


def test_4_4_speaks_streams_group_describe_v1_so_no_creation_time(app):
    b, app_id, _, _ = app
    r = run_kcli(b, "-o", "json", "describe", "groups", app_id, "--state")
    (g,) = json.loads(r.out)["groups"]
    assert g["describeVersion"] == 1                     # KIP-1331's v1, decoded: its AssignorName
    assert g["assignor"] == "sticky"
    assert (g["groupCreationTimeMs"], g["groupCreationTime"]) == (None, None)


def test_a_stopped_application_keeps_its_offsets_and_lag_in_view(streams_cluster):
    b = streams_cluster.bootstrap_servers
    app_id, source, sink = unique("stopped"), unique("in"), unique("out")
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    produce(b, source, [(p, f"v{p}-{i}") for p in range(2) for i in range(3)])
    running = StreamsApp(b, app_id, source, sink)
    try:
        running.wait_running()
        wait_until(lambda: _lags(b, app_id) == {(source, 0): 0, (source, 1): 0}, timeout=60)
    finally:
        running.stop()
    an_hour_ago = int(time.time() * 1000) - 3_600_000
    produce(b, source, [(0, "late-1", an_hour_ago), (0, "late-2", an_hour_ago + 1000),
                        (1, "late-3", an_hour_ago + 2000)])
    wait_until(lambda: json.loads(run_kcli(b, "-o", "json", "describe", "groups", app_id, "--state").out)
               ["groups"][0]["members"] == 0, timeout=60)
    r = run_kcli(b, "-o", "json", "describe", "groups", app_id)
    assert r.code == 0, r.err
    (g,) = json.loads(r.out)["groups"]
    assert json.loads(r.out)["schema"] == "kcli.streams-group-offsets/v1"
    assert g["totalLag"] == 3
    assert [(p["partition"], p["currentOffset"], p["logEndOffset"], p["lag"], p["memberId"])
            for p in g["partitions"]] == [(0, 3, 5, 2, None), (1, 3, 4, 1, None)]
    # the lag in time, from the committed offsets: the next record to read was stamped an hour ago
    assert [p["nextRecordTimestampMs"] for p in g["partitions"]] == [an_hour_ago, an_hour_ago + 2000]
    assert all(3_600_000 - 2000 <= p["timeLagMs"] < 3_600_000 + 600_000 for p in g["partitions"]), g
    assert g["maxTimeLagMs"] == g["partitions"][0]["timeLagMs"] and g["maxTimeLagIsLowerBound"] is False
    table = run_kcli(b, "describe", "groups", app_id)
    assert f"Streams group '{app_id}' has no active members." in table.err
    assert f"Total lag of group '{app_id}': 3" in table.out
    assert f"Max time lag of group '{app_id}': 1h" in table.out, table.out
    plain = run_kcli(b, "-o", "plain", "describe", "groups", app_id, "--time-lag").out.splitlines()
    assert plain[1].split()[-2:] == ["NEXT-RECORD-TIME", "TIME-LAG"] and plain[2].split()[-1] == "1h", plain
    # kafka-streams-groups prints nothing for a group without members
    java = java_tool("kafka-streams-groups", "--bootstrap-server", b, "--describe", "--group", app_id,
                     version=STREAMS_KAFKA)
    assert (java.code, java.out) == (0, "")


def test_the_state_view_gives_the_internal_topics_bytes_kafka_log_dirs_reports(streams_cluster):
    """A stateful application (a repartition topic and the count store's changelog) on 4.4: once
    it stopped, --state gives each internal topic's bytes, the sum of its partitions' leader
    replicas as Apache's kafka-log-dirs reports them, next to its records."""
    from tests.support.log_dirs import leader_sizes
    from tests.support.streams_app import group_members

    b = streams_cluster.bootstrap_servers
    app_id, source, sink = unique("sized"), unique("in"), unique("out")
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    produce(b, source, [(0, "a"), (1, "b"), (0, "a")])

    def internal():
        r = run_kcli(b, "-o", "json", "describe", "groups", app_id, "--state")
        return json.loads(r.out)["groups"][0]["internalTopics"] if r.code == 0 else []

    app = StreamsApp(b, app_id, source, sink, topology="count")
    try:
        app.wait_running()
        wait_until(lambda: len(topics := internal()) == 2 and topics[1]["records"] >= 2, timeout=90,
                   what="the counts in the changelog")
    finally:
        app.stop()
    wait_until(lambda: group_members(b, app_id) == 0, timeout=60, what="the group without members")
    topics = internal()
    java = {t["topic"]: sum(leader_sizes(b, t["topic"]).values()) for t in topics}
    assert {t["topic"]: t["sizeBytes"] for t in topics} == java and java[topics[1]["topic"]] > 0, (topics, java)
    table = run_kcli(b, "-o", "table", "describe", "groups", app_id, "--state")
    rows = [line.split() for line in table.out.splitlines()]
    assert ["GROUP", "INTERNAL-TOPIC", "PARTITIONS", "RECORDS", "SIZE"] in rows, table.out
    assert "Warn" not in table.err, table.err

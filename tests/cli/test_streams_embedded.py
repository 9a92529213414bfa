"""An unmodified Kafka Streams 4.4 application (tests/support/java/StreamsApp.java,
group.protocol=streams) on the embedded broker: it joins a streams group, reaches RUNNING, copies
the source topic to the sink upper-cased and commits; two instances share the tasks and the one
left takes them all back when the other stops. kcli lists and describes the group in every view;
GROUP-CREATION-TIME comes from StreamsGroupDescribe v2, `-` when the broker poses as Apache
Kafka 4.4 (v1 only), and the creation time survives a broker restart with a data dir. Resets:
refused while the application runs, planned and executed once it is stopped (the restarted
application re-processes from there), --to-start-time through a source expansion record by
record; the state view names a stateful application's internal topics with their sizes."""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions

from kcli.broker import EmbeddedCluster
from tests.support.clients import consume, consumer, create_topic, produce, unique
from tests.support.run import run_dropin, run_kcli
from tests.support.streams_app import StreamsApp, group_members, run_until_caught_up
from tests.support.waits import Clock, wait_until

STREAMS = {"group.streams.initial.rebalance.delay.ms": "0", "group.streams.heartbeat.interval.ms": "300"}
CREATED_MS = 1_764_000_000_000        # 2025-11-24T16:00:00.000Z, the broker's clock when the group is created
CREATED = "2025-11-24T16:00:00.000Z"


def _json(b, *args):
    r = run_kcli(b, "-o", "json", *args)
    assert r.code == 0, r.err
    return json.loads(r.out)


def _members(b, app_id):
    return _json(b, "describe", "groups", app_id, "--members", "--verbose")["groups"][0]["members"]


def _lags(b, app_id):
    r = run_kcli(b, "-o", "json", "describe", "groups", app_id)
    if r.code:
        return None
    return {(p["topic"], p["partition"]): p["lag"] for p in json.loads(r.out)["groups"][0]["partitions"]}


def _sink(b, sink, expected):
    c = consumer(b, unique("reader"))
    c.subscribe([sink])
    try:
        return sorted(v.decode() for _, _, _, v in consume(c, expected, timeout=60))
    finally:
        c.close()


@pytest.fixture(scope="module")
def cluster():
    """A 3-node embedded broker with a clock the tests set (real time when made)."""
    clock = Clock()
    with EmbeddedCluster(nodes=3, configs=STREAMS, clock=clock) as ec:
        yield ec.bootstrap_servers, clock


@pytest.fixture(scope="module")
def streams(cluster):
    """On ``cluster``, one running application (its group's creation stamped at CREATED_MS) that
    has processed 8 records of a 4-partition topic."""
    b, clock = cluster
    now = clock.now_ms
    app_id, source, sink = unique("app"), unique("in"), unique("out")
    create_topic(b, source, partitions=4)
    create_topic(b, sink, partitions=1)
    produce(b, source, [(p, f"v{p}-{i}") for p in range(4) for i in range(2)])
    clock.now_ms = CREATED_MS
    app = StreamsApp(b, app_id, source, sink)
    try:
        app.wait_running()
        clock.now_ms = now                # the creation is stamped; the clock moves on
        wait_until(lambda: _lags(b, app_id) == {(source, p): 0 for p in range(4)}, timeout=60,
                   what="the application committed every record")
        yield b, app_id, source, sink
    finally:
        app.stop()


def test_the_application_processes_source_to_sink_and_commits(streams):
    """The fixture's 8 records reach the sink first, and every partition is committed to its log
    end (2 records each, or more when another test of the module produced since: random order)."""
    b, app_id, source, sink = streams
    assert _sink(b, sink, 8) == sorted(f"V{p}-{i}" for p in range(4) for i in range(2))
    wait_until(lambda: _lags(b, app_id) == {(source, p): 0 for p in range(4)}, timeout=60,
               what="the application committed every record")
    offsets = _json(b, "describe", "groups", app_id)
    assert offsets["schema"] == "kcli.streams-group-offsets/v1"
    rows = offsets["groups"][0]["partitions"]
    assert [(p["partition"], p["lag"]) for p in rows] == [(p, 0) for p in range(4)]
    assert all(p["currentOffset"] == p["logEndOffset"] >= 2 for p in rows), rows


def test_two_instances_share_the_tasks_and_a_stopped_one_gives_them_back(streams):
    b, app_id, source, sink = streams
    all_tasks = [{"subtopology": "0", "partition": p} for p in range(4)]
    second = StreamsApp(b, app_id, source, sink)
    try:
        second.wait_running()
        shared = wait_until(lambda: (ms := _members(b, app_id)) and len(ms) == 2
                            and all(m["activeTasks"] for m in ms) and ms, timeout=60, what="two members with tasks")
        tasks = [t for m in shared for t in m["activeTasks"]]
        assert sorted(tasks, key=lambda t: t["partition"]) == all_tasks          # each task once
        assert len({m["processId"] for m in shared}) == 2
        produce(b, source, [(p, f"w{p}") for p in range(4)])                    # both instances process
        assert _sink(b, sink, 12)[8:] == sorted(f"W{p}" for p in range(4))
    finally:
        second.stop()
    alone = wait_until(lambda: (ms := _members(b, app_id)) and len(ms) == 1 and ms[0]["activeTasks"] == all_tasks
                       and ms, timeout=60, what="the remaining member has every task")
    assert alone[0]["targetActiveTasks"] == all_tasks
    produce(b, source, [(p, f"x{p}") for p in range(4)])
    wait_until(lambda: _lags(b, app_id) == {(source, p): 0 for p in range(4)}, timeout=60)
    assert _sink(b, sink, 16)[12:] == sorted(f"X{p}" for p in range(4))


def test_list_groups_type_streams(streams):
    b, app_id, _, _ = streams
    listed = _json(b, "list", "groups", "--type", "streams")["groups"]
    assert {"group": app_id, "type": "Streams", "state": "Stable"} in listed
    assert app_id in run_kcli(b, "-o", "plain", "list", "groups").out            # every group, streams too
    assert app_id not in run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--list").out   # Java's


def test_every_describe_view(streams):
    b, app_id, source, _ = streams
    for view in ([], ["--members"], ["--members", "--verbose"], ["--state"], ["--state", "--verbose"]):
        for fmt in ("table", "plain", "csv", "json"):
            r = run_kcli(b, "-o", fmt, "describe", "groups", app_id, *view)
            assert r.code == 0 and app_id in r.out, (view, fmt, r)
    state = _json(b, "describe", "groups", app_id, "--state", "--verbose")
    (g,) = state["groups"]
    assert state["schema"] == "kcli.streams-group-state/v1"
    assert (g["type"], g["state"], g["members"], g["assignor"], g["describeVersion"]) == (
        "Streams", "Stable", 1, "sticky", 2)
    assert (g["groupCreationTimeMs"], g["groupCreationTime"]) == (CREATED_MS, CREATED)   # not moved since
    plain = run_kcli(b, "-o", "plain", "describe", "groups", app_id, "--state", "--verbose").out.splitlines()
    assert plain[0].endswith("GROUP-CREATION-TIME") and plain[1].endswith(CREATED)
    (m,) = _members(b, app_id)
    assert m["clientId"].startswith(app_id) and not m["isClassic"] and m["memberEpoch"] >= 1


def test_a_broker_posing_as_4_4_gives_no_creation_time():
    with EmbeddedCluster(nodes=1, configs=STREAMS, pose_as="4.4") as ec:
        b = ec.bootstrap_servers
        app_id, source, sink = unique("app"), unique("in"), unique("out")
        create_topic(b, source, partitions=2)
        create_topic(b, sink, partitions=1)
        app = StreamsApp(b, app_id, source, sink)
        try:
            app.wait_running()
            wait_until(lambda: _json(b, "describe", "groups", app_id, "--state")["groups"][0]["state"] == "Stable",
                       timeout=60)
            (g,) = _json(b, "describe", "groups", app_id, "--state", "--verbose")["groups"]
            assert (g["describeVersion"], g["assignor"]) == (1, "sticky")
            assert (g["groupCreationTimeMs"], g["groupCreationTime"]) == (None, None)
            plain = run_kcli(b, "-o", "plain", "describe", "groups", app_id, "--state", "--verbose").out.splitlines()
            assert plain[0].endswith("GROUP-CREATION-TIME") and plain[1].endswith(" -")
        finally:
            app.stop()


def test_the_creation_time_survives_a_broker_restart(tmp_path):
    clock = Clock()
    now = clock.now_ms
    app_id, source, sink = unique("app"), unique("in"), unique("out")
    with EmbeddedCluster(nodes=1, configs=STREAMS, clock=clock, data_dir=tmp_path) as ec:
        b = ec.bootstrap_servers
        create_topic(b, source, partitions=2)
        create_topic(b, sink, partitions=1)
        produce(b, source, [(0, "a"), (1, "b")])
        clock.now_ms = CREATED_MS
        app = StreamsApp(b, app_id, source, sink)
        try:
            app.wait_running()
            clock.now_ms = now
            wait_until(lambda: _lags(b, app_id) == {(source, 0): 0, (source, 1): 0}, timeout=60)
        finally:
            app.stop()
        wait_until(lambda: _json(b, "describe", "groups", app_id, "--state")["groups"][0]["state"] == "Empty")
    with EmbeddedCluster(nodes=1, configs=STREAMS, clock=clock, data_dir=tmp_path) as ec:
        b = ec.bootstrap_servers
        (g,) = _json(b, "describe", "groups", app_id, "--state", "--verbose")["groups"]
        assert (g["type"], g["state"], g["groupCreationTimeMs"]) == ("Streams", "Empty", CREATED_MS)
        assert _lags(b, app_id) == {(source, 0): 0, (source, 1): 0}            # the offsets are kept too
        app = StreamsApp(b, app_id, source, sink)                              # it rejoins: same group
        try:
            app.wait_running()
            wait_until(lambda: _json(b, "describe", "groups", app_id, "--state")["groups"][0]["state"] == "Stable",
                       timeout=60)
            (g,) = _json(b, "describe", "groups", app_id, "--state", "--verbose")["groups"]
            assert g["groupCreationTimeMs"] == CREATED_MS
        finally:
            app.stop()
        # an empty streams group: its offsets and then the group can be deleted
        wait_until(lambda: _json(b, "describe", "groups", app_id, "--state")["groups"][0]["state"] == "Empty")
        r = run_kcli(b, "delete-offsets", "--group", app_id, "--topic", f"{source}:0")
        assert r.code == 0, r.err
        assert _lags(b, app_id) == {(source, 1): 0}
        r = run_kcli(b, "delete", "groups", app_id)
        assert r.code == 0, r.err
        assert run_kcli(b, "describe", "groups", app_id).code != 0


def _sink_all(b, sink) -> list[str]:
    """Every value of the 1-partition ``sink``, in order, read to its end."""
    c = consumer(b, unique("reader"))
    try:
        end = c.get_watermark_offsets(TopicPartition(sink, 0), timeout=10)[1]
        c.assign([TopicPartition(sink, 0, 0)])
        got = consume(c, end, timeout=60)
        assert len(got) == end, f"read {len(got)} of the sink's {end} records"
        return [v.decode() for _, _, _, v in got]
    finally:
        c.close()


def _committed(b, app_id, source):
    (g,) = _json(b, "describe", "groups", app_id)["groups"]
    return {p["partition"]: p["currentOffset"] for p in g["partitions"] if p["topic"] == source}


def _plan(r):
    assert r.code == 0, r.err
    (g,) = json.loads(r.out)["groups"]
    return [(p["topic"], p["partition"], p["currentOffset"], p["newOffset"]) for p in g["partitions"]]


def test_reset_offsets_refused_while_running_then_planned_executed_and_reprocessed(cluster):
    b, _ = cluster
    app_id, source, sink = unique("app"), unique("in"), unique("out")
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    first = [f"r{p}-{i}" for p in range(2) for i in range(3)]
    produce(b, source, [(int(v[1]), v) for v in first])
    app = run_until_caught_up(b, app_id, source, sink, 2, stop=False)
    try:
        for scope in (["--all-topics"], ["--all-input-topics"], ["-t", source]):
            for execute in ([], ["--execute"]):
                r = run_kcli(b, "reset-offsets", "-g", app_id, *scope, "--to-offset", "1", *execute)
                assert r.code == 1, (scope, execute, r)
                assert r.err.splitlines()[-1] == (
                    f"Error: Assignments can only be reset if the group '{app_id}' is inactive, "
                    "but the current state is Stable."), r.err
    finally:
        app.stop()
    wait_until(lambda: group_members(b, app_id) == 0, timeout=60, what="the group without members")
    assert _committed(b, app_id, source) == {0: 3, 1: 3}
    assert sorted(_sink_all(b, sink)) == sorted(v.upper() for v in first)
    # the dry run: the planned offsets, nothing committed
    for scope in (["--all-topics"], ["--all-input-topics"], ["-t", source]):
        r = run_kcli(b, "-o", "json", "reset-offsets", "-g", app_id, *scope, "--to-offset", "1")
        assert _plan(r) == [(source, 0, 3, 1), (source, 1, 3, 1)], (scope, r.out)
        assert json.loads(r.out)["executed"] is False
        plain = run_kcli(b, "-o", "plain", "reset-offsets", "-g", app_id, *scope, "--to-offset", "1")
        assert plain.code == 0, plain.err
        rows = [line.split() for line in plain.out.splitlines() if line.strip()]
        assert rows[0] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"], plain.out     # rows in Java's map order
        assert sorted(rows[1:]) == [[app_id, source, "0", "1"], [app_id, source, "1", "1"]], plain.out
    assert _committed(b, app_id, source) == {0: 3, 1: 3}
    # --execute with the application stopped: the planned offsets are committed
    r = run_kcli(b, "-o", "json", "reset-offsets", "-g", app_id, "--all-input-topics", "--to-offset", "1",
                 "--execute")
    assert _plan(r) == [(source, 0, 3, 1), (source, 1, 3, 1)]
    assert json.loads(r.out)["executed"] is True
    assert _committed(b, app_id, source) == {0: 1, 1: 1}
    state = _json(b, "describe", "groups", app_id, "--state")["groups"][0]
    assert (state["type"], state["state"], state["members"]) == ("Streams", "Empty", 0)
    # the restarted application re-processes from there: offsets 1 and 2 of each partition again
    run_until_caught_up(b, app_id, source, sink, 2, stop=True)
    again = [f"R{p}-{i}" for p in range(2) for i in (1, 2)]
    assert sorted(_sink_all(b, sink)) == sorted([v.upper() for v in first] + again)
    # the stopped application's offsets, then its group, are deleted
    r = run_kcli(b, "delete-offsets", "--group", app_id, "--topic", f"{source}:0")
    assert r.code == 0, r.err
    assert _committed(b, app_id, source) == {1: 3}
    r = run_kcli(b, "delete", "groups", app_id)
    assert r.code == 0, r.err
    assert app_id not in run_kcli(b, "-o", "plain", "list", "groups", "--type", "streams").out
    assert run_kcli(b, "describe", "groups", app_id).code != 0


def _expand(b, topic, partitions):
    admin = AdminClient({"bootstrap.servers": b})
    admin.create_partitions([NewPartitions(topic, partitions)], operation_timeout=15)[topic].result(20)
    wait_until(lambda: (t := admin.list_topics(topic, timeout=5).topics.get(topic)) is not None
               and len(t.partitions) == partitions and all(p.leader >= 0 for p in t.partitions.values()),
               what=f"{topic} has {partitions} partitions")


def _records(kind, partitions, n):
    """``n`` records on each of ``partitions``, each value its own id."""
    return [(p, f"{kind}{p}-{i}") for p in partitions for i in range(n)]


def _app_created_after(b, clock, records):
    """A 2-partition source holding ``records``, then a running application whose group the
    broker creates after them (its clock is set to the real time between the two); with the
    creation time."""
    app_id, source, sink = unique("app"), unique("in"), unique("out")
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    produce(b, source, records)
    time.sleep(0.01)
    clock.now_ms = created = int(time.time() * 1000)      # the broker's clock when the group is created
    time.sleep(0.01)                                      # every later record is stamped after it
    app = StreamsApp(b, app_id, source, sink)
    try:
        app.wait_running()
    except BaseException:
        app.stop()
        raise
    return app_id, source, sink, app, created


def _upper(records):
    return sorted(v.upper() for _, v in records)


def test_to_start_time_through_a_source_expansion_replays_exactly_what_followed_the_creation(cluster):
    """Records carry an id; the ones produced before the group existed are not replayed, every
    one produced after its creation is, the expanded partitions' included (produced as soon as
    they exist, whether or not the application has seen them yet)."""
    b, clock = cluster
    before = _records("pre", (0, 1), 3)
    app_id, source, sink, app, created = _app_created_after(b, clock, before)
    try:
        (g,) = _json(b, "describe", "groups", app_id, "--state", "--verbose")["groups"]
        assert g["groupCreationTimeMs"] == created
        after = _records("post", (0, 1), 2)
        produce(b, source, after)
        _expand(b, source, 4)
        added = _records("new", (2, 3), 3) + _records("late", (0, 1), 1)
        produce(b, source, added)
        after += added
        wait_until(lambda: _lags(b, app_id) == {(source, p): 0 for p in range(4)}, timeout=60,
                   what="the application committed every record of the 4 partitions")
    finally:
        app.stop()
    wait_until(lambda: group_members(b, app_id) == 0, timeout=60, what="the group without members")
    first_run = _sink_all(b, sink)
    assert sorted(first_run) == _upper(before + after)
    expected = [(source, 0, 6, 3), (source, 1, 6, 3), (source, 2, 3, 0), (source, 3, 3, 0)]
    r = run_kcli(b, "-o", "json", "reset-offsets", "-g", app_id, "-t", source, "--to-start-time")
    assert _plan(r) == expected, r.out
    assert _committed(b, app_id, source) == {0: 6, 1: 6, 2: 3, 3: 3}         # a dry run
    r = run_kcli(b, "-o", "json", "reset-offsets", "-g", app_id, "--all-input-topics", "--to-start-time",
                 "--execute")
    assert _plan(r) == expected, r.out
    assert _committed(b, app_id, source) == {0: 3, 1: 3, 2: 0, 3: 0}
    run_until_caught_up(b, app_id, source, sink, 4, stop=True)
    replayed = _sink_all(b, sink)[len(first_run):]
    assert sorted(replayed) == _upper(after)                # each once, none from before


def test_to_start_time_after_an_expansion_the_stopped_app_never_saw(cluster):
    """The source expanded while the application is stopped: the group has no offset on the new
    partition, so --all-input-topics resets the committed ones (-t SOURCE is refused, as
    kafka-streams-groups refuses a topic partition the group has not committed) and the restarted
    application reads the new one from its start (Kafka Streams' auto.offset.reset earliest):
    every record after the creation is processed again, none from before."""
    b, clock = cluster
    app_id, source, sink, app, _ = _app_created_after(b, clock, _records("pre", (0, 1), 2))
    try:
        after = _records("post", (0, 1), 2)
        produce(b, source, after)
        wait_until(lambda: _lags(b, app_id) == {(source, p): 0 for p in range(2)}, timeout=60)
    finally:
        app.stop()
    wait_until(lambda: group_members(b, app_id) == 0, timeout=60, what="the group without members")
    _expand(b, source, 3)
    added = _records("new", (2,), 2) + _records("late", (0,), 1)
    produce(b, source, added)
    after += added
    first_run = _sink_all(b, sink)
    r = run_kcli(b, "reset-offsets", "-g", app_id, "-t", source, "--to-start-time")
    assert r.code == 1, r
    assert r.err.splitlines()[-1] == f"Error: One or more topics are not part of the group '{app_id}'.", r.err
    r = run_kcli(b, "-o", "json", "reset-offsets", "-g", app_id, "--all-input-topics", "--to-start-time",
                 "--execute")
    assert _plan(r) == [(source, 0, 4, 2), (source, 1, 4, 2)], r.out
    run_until_caught_up(b, app_id, source, sink, 3, stop=True)
    replayed = _sink_all(b, sink)[len(first_run):]
    assert sorted(replayed) == _upper(after)


def _state(b, app_id):
    (g,) = _json(b, "describe", "groups", app_id, "--state")["groups"]
    return g


def _log_records(b, topic, partitions):
    c = consumer(b, unique("reader"))
    try:
        return sum(hi - lo for lo, hi in (c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
                                          for p in range(partitions)))
    finally:
        c.close()


def _leader_bytes(b, topic):
    """The bytes of the topic's leader replicas, as describe log-dirs reports each replica."""
    leaders = {p["partition"]: p["leader"] for p in _json(b, "describe", "topics", topic)["topics"][0]["partitions"]}
    replicas = _json(b, "describe", "log-dirs", "--topic", topic)["replicas"]
    return sum(r["sizeBytes"] for r in replicas if leaders[r["partition"]] == r["broker"])


def test_the_state_view_names_the_internal_topics_and_their_sizes(cluster):
    """A stateful application (it counts the values: a repartition topic and the count store's
    changelog, both created by the group's coordinator): --state names them with their partitions,
    records (log end minus log start, as the topics' watermarks say) and bytes (their leader
    replicas', as describe log-dirs reports them) in table and json, the input topic apart; plain
    keeps kafka-streams-groups' layout, csv its one table; a deleted internal topic is shown
    without a size."""
    b, _ = cluster
    app_id, source, sink = unique("app"), unique("in"), unique("out")
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    produce(b, source, [(0, "a"), (1, "b"), (0, "a")])
    store = f"{app_id}-KSTREAM-AGGREGATE-STATE-STORE-0000000002"
    internal = [f"{store}-repartition", f"{store}-changelog"]
    app = StreamsApp(b, app_id, source, sink, topology="count")
    try:
        app.wait_running()
        g = wait_until(lambda: (g := _state(b, app_id))["internalTopics"][0]["records"] == 3 and g, timeout=60,
                       what="the 3 records repartitioned")
        assert g["inputTopics"] == [source]
        assert [(t["topic"], t["partitions"]) for t in g["internalTopics"]] == [(t, 2) for t in internal]
        wait_until(lambda: {"a=2", "b=1"} <= set(_sink_all(b, sink)), timeout=60, interval=0.5,
                   what="the counts in the sink")
    finally:
        app.stop()
    wait_until(lambda: group_members(b, app_id) == 0, timeout=60, what="the group without members")
    g = _state(b, app_id)
    assert g["internalTopics"] == [{"topic": t, "partitions": 2, "records": _log_records(b, t, 2),
                                    "sizeBytes": _leader_bytes(b, t)} for t in internal]
    assert g["internalTopics"][0]["records"] == 3 and g["internalTopics"][1]["records"] >= 2
    assert all(t["sizeBytes"] > 0 for t in g["internalTopics"]), g
    table = run_kcli(b, "-o", "table", "describe", "groups", app_id, "--state")
    assert table.code == 0 and "Warn" not in table.err, table
    rows = [line.split() for line in table.out.splitlines()]
    assert ["GROUP", "INTERNAL-TOPIC", "PARTITIONS", "RECORDS", "SIZE"] in rows, table.out
    for t in g["internalTopics"]:
        assert [app_id, t["topic"], "2", str(t["records"]), str(t["sizeBytes"]), "B"] in rows, table.out
    for fmt in ("plain", "csv"):
        r = run_kcli(b, "-o", fmt, "describe", "groups", app_id, "--state")
        assert r.code == 0 and len(r.out.splitlines()) == 2 and store not in r.out, (fmt, r.out)
    # an internal topic deleted: still named, without a size
    admin = AdminClient({"bootstrap.servers": b})
    admin.delete_topics([internal[1]], operation_timeout=15)[internal[1]].result(20)
    g = wait_until(lambda: (g := _state(b, app_id))["internalTopics"][1]["partitions"] is None and g, timeout=20)
    assert g["internalTopics"][1] == {"topic": internal[1], "partitions": None, "records": None, "sizeBytes": None}
    rows = [line.split() for line in run_kcli(b, "-o", "table", "describe", "groups", app_id, "--state")
            .out.splitlines()]
    assert [app_id, internal[1], "-", "-", "-"] in rows

"""kcli reassign partitions and kcli elect leaders, end to end on the embedded broker (3 nodes):
plans, the rollback file, throttles set and cleared, progress, cancel, a move under load, and
elections with their dry run and refusals."""

from __future__ import annotations

import json
import threading
import time

import pytest
from confluent_kafka import Consumer, Producer

from kcli.broker import EmbeddedCluster
from tests.support.run import run_kcli
from tests.support.waits import wait_until


@pytest.fixture
def ec(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    with EmbeddedCluster(nodes=3) as c:
        yield c


def _replicas(ec, topic):
    return ec.call(lambda: [list(p.replicas) for p in ec.cluster.topics[topic].partitions])


def _configs(ec, topic):
    return ec.call(lambda: dict(ec.cluster.topics[topic].configs))


def _broker_dynamic(ec):
    return ec.call(lambda: {k: dict(v) for k, v in ec.cluster.broker_configs.dynamic.items() if k})


def _fill(ec, topic, n, size=1000):
    p = Producer({"bootstrap.servers": ec.bootstrap_servers})
    for i in range(n):
        p.produce(topic, b"x" * size, partition=i % 2)
    assert p.flush(20) == 0


def test_generate_proposes_a_balanced_plan_and_changes_nothing(ec):
    ec.create_topic("a", 4, 2)
    before = _replicas(ec, "a")
    r = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--generate", "--topics", "a",
                 "--broker-list", "2,3")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "Current partition replica assignment"
    assert json.loads(lines[1])["partitions"][0]["replicas"] == before[0]
    assert lines[3] == "Proposed partition reassignment configuration"
    proposed = {p["partition"]: p["replicas"] for p in json.loads(lines[4])["partitions"]}
    assert proposed == {0: [2, 3], 1: [3, 2], 2: [2, 3], 3: [3, 2]}
    assert _replicas(ec, "a") == before


def test_execute_writes_the_rollback_plan_first_throttles_and_verify_clears_them(ec, tmp_path):
    ec.create_topic("t", 2, 1)
    _fill(ec, "t", 40)                                  # 20 kB per partition to copy
    before = _replicas(ec, "t")
    plan = tmp_path / "plan.json"
    target = {0: [3, 2], 1: [2, 3]}
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "t", "partition": p, "replicas": r} for p, r in target.items()]}))
    rollback = tmp_path / "rollback.json"
    r = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--execute",
                 "--reassignment-json-file", str(plan), "--throttle", "2000",
                 "--rollback-file", str(rollback))
    assert r.code == 0, r.err
    assert f"rollback: {rollback}" in r.out
    saved = json.loads(rollback.read_text())["partitions"]
    assert [(p["partition"], p["replicas"]) for p in saved] == [(0, before[0]), (1, before[1])]
    # the throttles as kafka-reassign-partitions sets them: leaders' current replicas, followers'
    # moving ones, the rate on every broker involved
    configs = _configs(ec, "t")
    assert configs["leader.replication.throttled.replicas"] == f"0:{before[0][0]},1:{before[1][0]}"
    assert set(configs["follower.replication.throttled.replicas"].split(",")) == \
        {f"{p}:{b}" for p, rs in target.items() for b in rs if b not in before[p]}
    assert _broker_dynamic(ec)["2"]["follower.replication.throttled.rate"] == "2000"
    # at 2 kB/s a 20 kB copy is still running: verify says so (exit 4) and keeps the throttles
    v = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--verify",
                 "--reassignment-json-file", str(plan))
    assert v.code == 4, v.err
    assert "is still in progress" in v.out
    assert "leader.replication.throttled.replicas" in _configs(ec, "t")
    listed = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--list")
    assert listed.code == 0, listed.err
    assert before == [[1], [2]]                         # a new cluster's first topic
    assert listed.out.splitlines() == ["Current partition reassignments:",
                                       "t-0: replicas: 3,2,1. adding: 3,2. removing: 1.",
                                       "t-1: replicas: 2,3. adding: 3."]
    # the throttle raised, verify --wait shows progress until done, then clears every throttle
    for b in ("1", "2", "3"):
        ec.call(lambda b=b: ec.cluster.broker_configs.dynamic[b].update(
            {"leader.replication.throttled.rate": "1000000", "follower.replication.throttled.rate": "1000000"}))
    w = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--verify", "--wait",
                 "--reassignment-json-file", str(plan), timeout="20s")
    assert w.code == 0, w.err
    assert "Reassignment of partition t-0 is completed." in w.out
    assert "Clearing broker-level throttles on brokers 1,2,3" in w.out
    assert _replicas(ec, "t") == [target[0], target[1]]
    assert not any(k.endswith("throttled.replicas") for k in _configs(ec, "t"))
    assert not any(k.endswith("throttled.rate") for v in _broker_dynamic(ec).values() for k in v)
    listed = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--list")
    assert listed.out == "No partition reassignments found.\n"
    # the rollback plan moves them back
    back = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--execute",
                    "--reassignment-json-file", str(rollback), "--rollback-file", str(tmp_path / "r2"))
    assert back.code == 0, back.err
    wait_until(lambda: _replicas(ec, "t") == before, timeout=10)


def test_cancel_puts_the_replicas_back_and_clears_the_throttles(ec, tmp_path):
    ec.create_topic("c", 1, 1)
    _fill(ec, "c", 10)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "c", "partition": 0, "replicas": [2]}]}))
    before = _replicas(ec, "c")
    assert before != [[2]]
    r = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--execute", "--reassignment-json-file",
                 str(plan), "--throttle", "1")
    assert r.code == 0, r.err
    # a second plan while one moves: refused, nothing changed, unless --additional
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"version": 1, "partitions": [{"topic": "c", "partition": 0, "replicas": [3]}]}))
    again = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--execute", "--reassignment-json-file",
                     str(other), "--rollback-file", str(tmp_path / "other-rollback.json"))
    assert again.code == 1 and "Reassignments are in progress (c-0)" in again.err, again.err
    assert _replicas(ec, "c") == [[2, *before[0]]] and not (tmp_path / "other-rollback.json").exists()
    c = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--cancel", "--reassignment-json-file", str(plan))
    assert c.code == 0, c.err
    assert "Successfully cancelled partition reassignment(s) for: c-0" in c.out
    assert _replicas(ec, "c") == before
    assert not any(k.endswith("throttled.replicas") for k in _configs(ec, "c"))


@pytest.mark.parametrize("content, message", [
    ("not json", "is not JSON"),
    ('{"partitions": []}', 'has no "partitions"'),
    ('{"partitions": [{"topic": "t", "partition": 0, "replicas": [1, 1]}]}', "duplicate replica"),
    ('{"partitions": [{"topic": "t", "partition": 0}]}', 'needs a "topic"'),
])
def test_a_bad_plan_is_refused_before_any_request(ec, tmp_path, content, message):
    plan = tmp_path / "plan.json"
    plan.write_text(content)
    before = ec.request_counts()
    r = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--execute", "--reassignment-json-file", str(plan))
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1
    assert ec.request_counts() == before


def test_a_move_under_load_loses_no_acknowledged_record(ec, tmp_path):
    ec.create_topic("load", 2, 1)
    acked, stop = [], threading.Event()

    def produce():
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "acks": "all", "linger.ms": 5,
                      "enable.idempotence": True})
        i = 0
        while not stop.is_set() and i < 100_000:
            p.produce("load", str(i).encode(), partition=i % 2,
                      on_delivery=lambda err, m: err is None and acked.append(m.value()))
            p.poll(0.001)
            i += 1
        assert p.flush(20) == 0

    producer = threading.Thread(target=produce)
    producer.start()
    consumer = Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": "load-reader",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe(["load"])
    seen, errors = set(), []
    try:
        wait_until(lambda: len(acked) > 200, timeout=20)
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": "load", "partition": 0, "replicas": [2, 3]},
            {"topic": "load", "partition": 1, "replicas": [3, 1]}]}))
        r = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--execute",
                     "--reassignment-json-file", str(plan))
        assert r.code == 0, r.err
        w = run_kcli(ec.bootstrap_servers, "reassign", "partitions", "--verify", "--wait",
                     "--reassignment-json-file", str(plan), timeout="20s")
        assert w.code == 0, w.out + w.err
        assert _replicas(ec, "load") == [[2, 3], [3, 1]]
        moved_at = len(acked)
        wait_until(lambda: len(acked) > moved_at + 200, timeout=20)   # still producing after
    finally:
        stop.set()
        producer.join(30)
    try:
        for _ in range(120):                             # bounded: 120 reads of at most 0.5 s
            for m in consumer.consume(1000, 0.5):
                if m.error() is None:
                    seen.add(m.value())
                else:
                    errors.append(m.error())
            if seen >= set(acked):
                break
    finally:
        consumer.close()
    missing = set(acked) - seen
    assert acked and not missing, (len(missing), errors[:5])


def test_elect_leaders_dry_run_then_execute_and_unclean_needs_allow_data_loss(ec):
    ec.create_topic("e", 1, 2)
    first = _replicas(ec, "e")[0]
    ec.stop_node(first[0])
    dry = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "e")
    assert dry.code == 0, dry.err
    assert "e-0: leader none -> " in dry.out and "Dry run" in dry.out
    before = ec.request_counts()
    refused = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "e", "--execute")
    assert refused.code == 2 and "--allow-data-loss" in refused.err
    assert ec.request_counts() == before
    done = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "e", "--execute",
                    "--allow-data-loss")
    assert done.code == 0, done.err
    assert ec.call(lambda: ec.cluster.topics["e"].partitions[0].leader) == first[1]
    ec.start_node(first[0])
    pref = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--preferred", "--topic", "e")
    assert f"e-0: leader {first[1]} -> {first[0]}" in pref.out
    assert ec.call(lambda: ec.cluster.topics["e"].partitions[0].leader) == first[1]   # dry run
    run = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--preferred", "--execute")
    assert run.code == 0, run.err
    assert f"e-0: leader {first[1]} -> {first[0]} elected" in run.out
    assert ec.call(lambda: ec.cluster.topics["e"].partitions[0].leader) == first[0]
    again = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--preferred")
    assert "No partition needs a preferred leader election." in again.out


def test_unclean_election_of_a_lagging_replica_names_what_it_may_lose(ec):
    """The scenario of tests/apache/test_kcli_elect_unclean.py on the embedded broker, with a
    third replica: 2 stops at offset 5, 3 at 15, leader 1 at 20; 2 and 3 start while 1 is down,
    so they lag. The unclean election's choice is the first live replica, 2 (not the ISR's
    first), and the dry run says what it may lose; the refusal sends nothing; the election
    happens with --allow-data-loss."""
    ec.create_topic("u", 1, 3)
    assert _replicas(ec, "u") == [[1, 2, 3]]
    ec.create_topic("w", 3, 1)                           # one partition on each node

    def produce(n):
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "acks": "1"})
        for _ in range(n):
            p.produce("u", b"x", partition=0)
        assert p.flush(20) == 0

    produce(5)
    ec.stop_node(2)
    produce(10)
    ec.stop_node(3)
    produce(5)
    ec.stop_node(1)
    ec.start_node(2)
    ec.start_node(3)
    try:
        dry = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "u")
        assert dry.code == 0, dry.err
        assert dry.out.splitlines() == [
            "u-0: leader none -> 2 (out of sync: may lose the records after its log end offset 5; "
            "at least 10: replica 3 ends at 15; replica 1 offline: what it holds beyond that is not known)",
            "Dry run: 1 partition(s) would get an unclean leader, 1 of them an out-of-sync one; "
            "add --execute to elect them."]
        doc = json.loads(run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "u",
                                  "-o", "json").out)
        assert doc["partitions"] == [{
            "partition": "u-0", "leader": None, "proposedLeader": 2, "inSync": False, "mayLoseRecordsOf": [1],
            "newLeaderLogEndOffset": 5, "highestLogEndOffset": 15, "highestLogEndOffsetOn": 3,
            "recordsLostAtLeast": 10, "error": None}]
        assert ec.call(lambda: ec.cluster.topics["u"].partitions[0].leader) == -1   # dry runs
        on_1 = [i for i, r in enumerate(_replicas(ec, "w")) if r == [1]]
        assert len(on_1) == 1
        alone = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "w")
        assert alone.out.splitlines()[:-1] == [f"w-{i}: leader none -> none (no live replica)" for i in on_1]
        before = ec.request_counts()
        refused = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "u", "--execute")
        assert (refused.code, refused.out, len(refused.err.splitlines())) == (2, "", 1)
        assert ec.request_counts() == before
        done = run_kcli(ec.bootstrap_servers, "elect", "leaders", "--unclean", "--topic", "u", "--execute",
                        "--allow-data-loss")
        assert done.code == 0, done.err
        assert done.out.splitlines()[0].endswith(" elected")
        assert ec.call(lambda: ec.cluster.topics["u"].partitions[0].leader) == 2
        assert ec.call(lambda: ec.cluster.topics["u"].partitions[0].isr) == [2, 3]   # 3 copies from 2
    finally:
        ec.start_node(1)


def _dropin(ec, *args):
    from tests.support.run import run_dropin

    return run_dropin("kafka-reassign-partitions", "--bootstrap-server", ec.bootstrap_servers, *args)


def test_the_dropin_executes_verifies_until_complete_and_clears_the_throttles(ec, tmp_path):
    """kafka-reassign-partitions' runbook through the drop-in: --execute with a throttle, --verify
    while the copy runs (throttles kept), the throttle raised by resubmitting with --additional (as
    the tool's help says), --verify until complete, which removes every throttle."""
    ec.create_topic("t", 2, 1)
    _fill(ec, "t", 40)                                  # 20 kB per partition to copy
    before = _replicas(ec, "t")
    plan = tmp_path / "plan.json"
    target = {0: [3, 2], 1: [2, 3]}
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "t", "partition": p, "replicas": r} for p, r in target.items()]}))
    r = _dropin(ec, "--execute", "--reassignment-json-file", str(plan), "--throttle", "2000")
    assert r.code == 0, r.out + r.err
    saved = json.loads(r.out.split("\n\n")[1])          # the rollback JSON the tool says to save
    assert [(p["partition"], p["replicas"]) for p in saved["partitions"]] == [(0, before[0]), (1, before[1])]
    assert r.out.endswith("The inter-broker throttle limit was set to 2000 B/s\n"
                          "Successfully started partition reassignments for t-0,t-1\n")
    configs = _configs(ec, "t")
    assert configs["leader.replication.throttled.replicas"] == f"0:{before[0][0]},1:{before[1][0]}"
    assert _broker_dynamic(ec)["3"]["follower.replication.throttled.rate"] == "2000"
    v = _dropin(ec, "--verify", "--reassignment-json-file", str(plan))
    assert (v.code, v.out) == (0, "Status of partition reassignment:\n"
                                  "Reassignment of partition t-0 is still in progress.\n"
                                  "Reassignment of partition t-1 is still in progress.\n\n")
    assert "leader.replication.throttled.replicas" in _configs(ec, "t")
    faster = _dropin(ec, "--execute", "--reassignment-json-file", str(plan), "--additional", "--throttle", "100000000")
    assert faster.code == 0, faster.out + faster.err
    assert _broker_dynamic(ec)["3"]["follower.replication.throttled.rate"] == "100000000"
    done = None
    for _ in range(100):                                # bounded: 100 verifies, 0.1 s apart
        done = _dropin(ec, "--verify", "--reassignment-json-file", str(plan))
        if "in progress" not in done.out:
            break
        time.sleep(0.1)
    assert done.code == 0 and done.out == ("Status of partition reassignment:\n"
                                           "Reassignment of partition t-0 is completed.\n"
                                           "Reassignment of partition t-1 is completed.\n\n"
                                           "Clearing broker-level throttles on brokers 1,2,3\n"
                                           "Clearing topic-level throttles on topic t\n"), done.out
    assert _replicas(ec, "t") == [target[0], target[1]]
    assert not any(k.endswith("throttled.replicas") for k in _configs(ec, "t"))
    assert not any(k.endswith("throttled.rate") for v in _broker_dynamic(ec).values() for k in v)


def test_the_dropin_cancels_a_move_and_puts_the_replicas_back(ec, tmp_path):
    ec.create_topic("c", 1, 1)
    _fill(ec, "c", 10)
    before = _replicas(ec, "c")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "c", "partition": 0, "replicas": [2, 3]}]}))
    r = _dropin(ec, "--execute", "--reassignment-json-file", str(plan), "--throttle", "1")
    assert r.code == 0, r.out + r.err
    listed = _dropin(ec, "--list")
    assert listed.out.startswith("Current partition reassignments:\nc-0: replicas: 2,3,1. adding: ")
    c = _dropin(ec, "--cancel", "--reassignment-json-file", str(plan))
    assert (c.code, c.out) == (0, "Successfully cancelled partition reassignment for: c-0\n"
                                  "None of the specified partition moves are active.Clearing broker-level throttles "
                                  "on brokers 1,2,3\nClearing topic-level throttles on topic c\n")
    assert _replicas(ec, "c") == before
    assert not any(k.endswith("throttled.replicas") for k in _configs(ec, "c"))
    assert not any(k.endswith("throttled.rate") for v in _broker_dynamic(ec).values() for k in v)
    assert _dropin(ec, "--list").out == "No partition reassignments found.\n"


@pytest.mark.parametrize("args, message", [
    (["--execute", "--reassignment-json-file", "{dirs}"], "cannot move replicas between log dirs"),
    (["--list", "--bootstrap-controller", "{b}"], "connects to brokers: use --bootstrap-server"),
])
def test_what_the_dropin_cannot_do_is_one_line_before_any_request(ec, tmp_path, args, message):
    """A plan naming log dirs (AlterReplicaLogDirs, which kcli lacks) and --bootstrap-controller:
    one line on stderr, exit 2, nothing sent."""
    from tests.support.run import run_dropin

    ec.create_topic("t", 1, 1)
    dirs = tmp_path / "dirs.json"
    dirs.write_text(json.dumps({"partitions": [{"topic": "t", "partition": 0, "replicas": [2],
                                                "log_dirs": ["/data/1"]}]}))
    before = ec.request_counts()
    line = [a.format(b=ec.bootstrap_servers, dirs=dirs) for a in args]
    bootstrap = [] if "--bootstrap-controller" in args else ["--bootstrap-server", ec.bootstrap_servers]
    r = run_dropin("kafka-reassign-partitions", *bootstrap, *line)
    assert (r.code, r.out) == (2, "") and message in r.err and len(r.err.splitlines()) == 1, r
    assert ec.request_counts() == before
    assert _replicas(ec, "t") == [[1]]
    nothing = run_dropin("kafka-reassign-partitions", "--bootstrap-server", "--list")
    assert (nothing.code, nothing.out, nothing.err) == (2, "", "--bootstrap-server needs host:port\n")

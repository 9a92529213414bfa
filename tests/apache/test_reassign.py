"""kcli reassign partitions and kcli elect leaders on real Kafka 4.4 (3 nodes): replicas move
between brokers while a producer and a consumer run, no acknowledged record lost; Apache's
kafka-reassign-partitions --verify agrees the moves are done; the throttles are removed."""

from __future__ import annotations

import json
import threading
import uuid

from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.apache_kafka import java_tool
from tests.support.run import run_kcli
from tests.support.waits import wait_until


def _replicas(admin, topic):
    from confluent_kafka import TopicCollection

    t = admin.describe_topics(TopicCollection([topic]))[topic].result(20)
    return [[r.id for r in p.replicas] for p in sorted(t.partitions, key=lambda p: p.id)]


def test_a_move_under_load_on_real_kafka_loses_no_acknowledged_record(apache_kafka3, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    b = apache_kafka3.bootstrap_servers
    topic = f"move-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": b})
    admin.create_topics([NewTopic(topic, 2, replica_assignment=[[1], [2]])])[topic].result(30)
    acked, stop = [], threading.Event()

    def produce():
        p = Producer({"bootstrap.servers": b, "acks": "all", "linger.ms": 5, "enable.idempotence": True})
        i = 0
        while not stop.is_set() and i < 200_000:
            p.produce(topic, str(i).encode(), partition=i % 2,
                      on_delivery=lambda err, m: err is None and acked.append(m.value()))
            p.poll(0.001)
            i += 1
        assert p.flush(30) == 0

    producer = threading.Thread(target=produce)
    producer.start()
    consumer = Consumer({"bootstrap.servers": b, "group.id": f"{topic}-reader",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [2, 3]},
        {"topic": topic, "partition": 1, "replicas": [3, 1]}]}))
    seen = set()
    try:
        wait_until(lambda: len(acked) > 500, timeout=30)
        r = run_kcli(b, "reassign", "partitions", "--execute", "--reassignment-json-file", str(plan),
                     "--throttle", "50000000", timeout="30s")
        assert r.code == 0, r.err
        w = run_kcli(b, "reassign", "partitions", "--verify", "--wait", "--reassignment-json-file",
                     str(plan), timeout="60s")
        assert w.code == 0, w.out + w.err
        assert "Clearing broker-level throttles" in w.out
        assert _replicas(admin, topic) == [[2, 3], [3, 1]]
        java = java_tool("kafka-reassign-partitions", "--bootstrap-server", b.split(",")[0], "--verify",
                         "--reassignment-json-file", str(plan))
        assert java.code == 0 and "is completed" in java.out and "in progress" not in java.out, java.out
        plain = run_kcli(b, "-o", "plain", "reassign", "partitions", "--verify", "--reassignment-json-file",
                         str(plan), timeout="30s")
        assert (plain.code, plain.out) == (0, java.out)                 # kafka-reassign-partitions' text
        moved_at = len(acked)
        wait_until(lambda: len(acked) > moved_at + 500, timeout=30)
    finally:
        stop.set()
        producer.join(60)
    try:
        for _ in range(120):                               # bounded: 120 reads of at most 0.5 s
            seen.update(m.value() for m in consumer.consume(1000, 0.5) if m.error() is None)
            if seen >= set(acked):
                break
    finally:
        consumer.close()
    assert acked and set(acked) <= seen
    from confluent_kafka.admin import ConfigResource

    configs = admin.describe_configs([ConfigResource("topic", topic)])
    values = {k: v.value for k, v in list(configs.values())[0].result(20).items()}
    assert not values.get("leader.replication.throttled.replicas")
    # the preferred leaders are already leading: nothing to elect
    e = run_kcli(b, "elect", "leaders", "--preferred", "--topic", topic, timeout="30s")
    assert e.code == 0 and "No partition needs a preferred leader election." in e.out, e.out + e.err


def test_preferred_elections_on_real_kafka_native_and_drop_in_as_the_java_tool(apache_kafka3, tmp_path, monkeypatch):
    """A partition whose replicas are reordered keeps its leader, so its preferred replica does
    not lead: kcli elect leaders shows it (dry run), then elects it; the drop-in prints what
    kafka-leader-election prints for the same election."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    from confluent_kafka import TopicCollection

    b = apache_kafka3.bootstrap_servers
    topic = f"elect-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": b})
    admin.create_topics([NewTopic(topic, 1, replica_assignment=[[1, 2]])])[topic].result(30)

    def leader():
        try:
            t = admin.describe_topics(TopicCollection([topic]))[topic].result(20)
        except KafkaException:              # a broker that does not know the new topic yet
            return None
        return t.partitions[0].leader.id

    def reorder(replicas):
        plan = tmp_path / f"order-{replicas[0]}.json"
        plan.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": topic, "partition": 0, "replicas": replicas}]}))
        r = run_kcli(b, "reassign", "partitions", "--execute", "--reassignment-json-file", str(plan),
                     "--rollback-file", str(tmp_path / f"rb-{replicas[0]}.json"), timeout="30s")
        assert r.code == 0, r.err
        w = run_kcli(b, "reassign", "partitions", "--verify", "--wait", "--reassignment-json-file", str(plan),
                     timeout="30s")
        assert w.code == 0, w.out + w.err

    wait_until(lambda: leader() == 1, timeout=30)
    reorder([2, 1])
    assert leader() == 1
    dry = run_kcli(b, "elect", "leaders", "--preferred", "--topic", topic, timeout="30s")
    assert dry.code == 0 and f"{topic}-0: leader 1 -> 2" in dry.out and "Dry run" in dry.out, dry.out + dry.err
    assert leader() == 1
    done = run_kcli(b, "elect", "leaders", "--preferred", "--topic", topic, "--execute", timeout="30s")
    assert done.code == 0 and f"{topic}-0: leader 1 -> 2 elected" in done.out, done.out + done.err
    wait_until(lambda: leader() == 2, timeout=30)
    reorder([1, 2])
    line = ("--bootstrap-server", b.split(",")[0], "--election-type", "preferred", "--topic", topic, "--partition", "0")
    java = java_tool("kafka-leader-election", *line)
    assert java.code == 0
    assert java.out == f"Successfully completed leader election (PREFERRED) for partitions {topic}-0\n"
    reorder([2, 1])
    from tests.support.run import run_dropin

    dropin = run_dropin("kafka-leader-election", *line)
    assert (dropin.code, dropin.out) == (0, java.out)
    again = run_dropin("kafka-leader-election", *line)
    assert again.out == f"Valid replica already elected for partitions {topic}-0\n"

"""kcli elect leaders --unclean on real Kafka 4.4 (3 nodes, the session's cluster): a partition
whose leader went offline while its only live replica was out of sync. The dry run names the
candidate the controller would elect and the records at risk, and changes nothing; without
--allow-data-loss nothing is sent; with it the partition has a leader again. The nodes stopped
are started again whatever happens."""

from __future__ import annotations

import json
import uuid

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, ConfigEntry, ConfigResource, NewTopic, AlterConfigOpType

from tests.support.run import run_kcli
from tests.support.waits import wait_until

BEFORE, WHILE_DOWN, SIZE = 100, 3000, 1000      # 3 MB while the follower is down: > its first fetch


def _partition(admin, topic):
    """(leader, ISR) of the topic's partition from a Metadata answer (None: no leader); while a
    node stops or starts an answer may fail: asked again, a bounded number of times."""
    from confluent_kafka import KafkaException

    for attempt in range(6):                        # at most 6 x 5 s
        try:
            p = admin.list_topics(topic, timeout=5).topics[topic].partitions[0]
        except KafkaException:
            if attempt == 5:
                raise
            continue
        return (p.leader if p.leader >= 0 else None), sorted(p.isrs)
    raise AssertionError("unreachable")


def _produce(b, topic, n, acks):
    p = Producer({"bootstrap.servers": b, "acks": acks, "linger.ms": 5})
    for _ in range(n):
        p.produce(topic, b"x" * SIZE, partition=0)
        p.poll(0)
    assert p.flush(30) == 0


def _stop(kafka, node):
    """Stop ``node``, then unregister it (as tests/apache/test_kcli_cluster.py does), so that it
    registers again as soon as it starts rather than after its old session expires (9 s)."""
    from tests.support.run import run_dropin

    kafka.stop_node(node)
    wait_until(lambda: run_dropin("kafka-cluster", "unregister", "-b", kafka.bootstrap_servers, "--id",
                                  str(node)).code == 0, timeout=30, interval=0.2, what=f"{node} unregistered")


def _throttle(b, rate):
    """The replication throttle rate of leader 3 and follower 2 (None: removed); each broker's
    AlterConfigs goes to that broker, just started perhaps: a fresh client, asked again (bounded)."""
    from confluent_kafka import KafkaException

    op = AlterConfigOpType.SET if rate is not None else AlterConfigOpType.DELETE
    for broker, name in (("3", "leader.replication.throttled.rate"), ("2", "follower.replication.throttled.rate")):
        r = ConfigResource("broker", broker, incremental_configs=[
            ConfigEntry(name, str(rate or ""), incremental_operation=op)])
        for attempt in range(4):
            try:
                client = AdminClient({"bootstrap.servers": b})
                client.incremental_alter_configs([r], request_timeout=5)[r].result(10)
                break
            except (KafkaException, TimeoutError):
                if attempt == 3:
                    raise


def test_unclean_election_of_an_out_of_sync_replica_on_real_kafka(apache_kafka3):
    kafka = apache_kafka3
    b = kafka.bootstrap_servers
    topic = f"unclean-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": b})
    # leader 3, follower 2; the follower, once out of sync, copies at 1 B/s after its first fetch
    # (Kafka throttles only replicas out of the ISR)
    admin.create_topics([NewTopic(topic, 1, replica_assignment=[[3, 2]], config={
        "min.insync.replicas": "1", "leader.replication.throttled.replicas": "0:3",
        "follower.replication.throttled.replicas": "0:2"})])[topic].result(30)
    _throttle(b, 1)
    stopped = []
    try:
        _produce(b, topic, BEFORE, "all")
        stopped.append(2)
        _stop(kafka, 2)
        wait_until(lambda: _partition(admin, topic) == (3, [3]), timeout=30, interval=0.2, what="2 out of the ISR")
        _produce(b, topic, WHILE_DOWN, "1")
        kafka.start_node(2)
        stopped.remove(2)
        assert _partition(admin, topic) == (3, [3]), "the follower caught up: the throttle did not hold it"
        stopped.append(3)
        _stop(kafka, 3)
        wait_until(lambda: _partition(admin, topic)[0] is None, timeout=30, interval=0.2, what="no leader")

        dry = run_kcli(b, "elect", "leaders", "--unclean", "--topic", topic, timeout="20s")
        assert dry.code == 0, dry.err
        line = dry.out.splitlines()[0]
        assert line.startswith(f"{topic}-0: leader none -> 2 (out of sync: may lose the records after its "
                               "log end offset "), line
        end = int(line.split("log end offset ")[1].split(";")[0].rstrip(")"))
        assert BEFORE <= end < BEFORE + WHILE_DOWN          # what 2 copied: not what 3 acknowledged
        assert "replica 3 offline: what it holds beyond that is not known" in line
        assert "1 of them an out-of-sync one" in dry.out
        doc = json.loads(run_kcli(b, "elect", "leaders", "--unclean", "--topic", topic, "-o", "json",
                                  timeout="20s").out)
        [entry] = doc["partitions"]
        assert (entry["proposedLeader"], entry["inSync"], entry["mayLoseRecordsOf"],
                entry["newLeaderLogEndOffset"]) == (2, False, [3], end)
        assert _partition(admin, topic)[0] is None          # the dry runs elected nobody

        refused = run_kcli(b, "elect", "leaders", "--unclean", "--topic", topic, "--execute")
        assert refused.code == 2 and "--allow-data-loss" in refused.err
        assert len(refused.err.strip().splitlines()) == 1 and refused.out == ""
        assert _partition(admin, topic)[0] is None

        done = run_kcli(b, "elect", "leaders", "--unclean", "--topic", topic, "--execute",
                        "--allow-data-loss", timeout="20s")
        assert done.code == 0, done.out + done.err
        assert f"{topic}-0: leader none -> 2 " in done.out and done.out.rstrip().endswith("elected")
        assert wait_until(lambda: _partition(admin, topic) == (2, [2]), timeout=30, interval=0.2,
                          what="2 leads")
    finally:
        for node in stopped:
            kafka.start_node(node)
        _throttle(b, None)
        admin.delete_topics([topic])[topic].result(30)

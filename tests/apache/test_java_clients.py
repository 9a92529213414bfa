"""Apache Kafka 4.4's Java clients, unmodified, against a 3-node embedded broker: small Java
programs of ours (``java/``) run on the provisioned jars, print what the clients saw as JSON, and
the tests check it against the produced data and the broker's state."""

from __future__ import annotations

import base64
import json
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka.admin import AdminClient

from kcli.broker.groups import coordinator_for
from tests.support.groups import fast_cluster
from tests.support.apache_kafka import RealKafkaUnavailable, java, kafka_libs
from tests.support.clients import active_member, commit, create_topic, produce, unique

JAVA = Path(__file__).parent / "java"
RECORDS = 600
PARTITIONS = 6


pytestmark = pytest.mark.apache


@pytest.fixture(scope="module")
def cluster():
    missing = None
    try:
        kafka_libs()        # as the apache_kafka fixtures: no Java or jars fails, in one line
    except RealKafkaUnavailable as exc:
        missing = str(exc)
    if missing:
        pytest.fail(missing, pytrace=False)
    with fast_cluster(nodes=3) as ec:
        yield ec


def run_java(program: str, *args: str) -> list[dict]:
    """The JSON lines a program of ``java/`` printed (it must exit 0)."""
    r = java(JAVA / program, *args, timeout=120)
    assert r.code == 0, f"{program} exited {r.code}: {r.err[-3000:]}"
    return [json.loads(line) for line in r.out.splitlines()]


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_java_producer_and_two_consumers_read_every_record_once(cluster, protocol):
    """An idempotent acks=all producer and two consumers of one group (the second joining while
    records flow): every record acknowledged is read once, by one of them, and committed."""
    b = cluster.bootstrap_servers
    topic, group = unique(f"java-{protocol}"), unique(f"java-{protocol}")
    create_topic(b, topic, PARTITIONS, replication_factor=3)
    events = run_java("ProduceConsume.java", b, topic, group, protocol, str(RECORDS))
    assert [e["error"] for e in events if "error" in e] == []

    produced = {(e["partition"], e["offset"]): e["key"] for e in (e.get("produced") for e in events) if e}
    assert sorted(produced.values()) == sorted(f"k{i}" for i in range(RECORDS))
    end = Counter(p for p, _ in produced)
    assert sorted(produced) == sorted((p, o) for p, n in end.items() for o in range(n))

    consumed = [e["consumed"] for e in events if "consumed" in e]
    read = Counter((c["partition"], c["offset"]) for c in consumed)
    assert [tp for tp, n in read.items() if n > 1] == []                   # no duplicate
    assert set(read) == set(produced)                                      # no loss
    assert all(c["key"] == produced[(c["partition"], c["offset"])] and c["value"] == "v" + c["key"][1:]
               for c in consumed)
    by_consumer = Counter(c["consumer"] for c in consumed)
    assert by_consumer["a"] > 0 and by_consumer["b"] > 0, by_consumer     # the group was shared

    admin = AdminClient({"bootstrap.servers": b})
    offsets = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(15)
    assert {tp.partition: tp.offset for tp in offsets.topic_partitions if tp.topic == topic} == dict(end)


def _topic_id(uuid) -> str:
    """A topic id as Kafka's Uuid.toString() prints it."""
    return base64.urlsafe_b64encode(uuid.bytes).decode().rstrip("=")


def test_java_admin_describes_topics_and_groups(cluster):
    """describeTopics and describeConsumerGroups as the Java AdminClient returns them: the
    broker's partition placement, and groups of both protocols as their members see them."""
    b = cluster.bootstrap_servers
    topic = unique("java-admin")
    classic, modern, simple = unique("java-classic"), unique("java-modern"), unique("java-simple")
    create_topic(b, topic, 4, replication_factor=2)
    produce(b, topic, [(p, f"r{p}") for p in range(4)])
    commit(b, simple, {(topic, 1): 1})
    with active_member(b, classic, [topic], "classic", partitions=4), \
            active_member(b, modern, [topic], "consumer", partitions=4):
        [described] = run_java("AdminDescribe.java", b, topic, ",".join([classic, modern, simple]))
        member_ids = cluster.call(lambda: {g: list(coordinator_for(cluster.cluster).group(g).members)
                                           for g in (classic, modern)})

    [t] = described["topics"]
    expected = cluster.call(lambda: cluster.cluster.topics[topic])
    assert (t["name"], t["id"], t["internal"]) == (topic, _topic_id(expected.topic_id), False)
    assert t["partitions"] == [{"partition": p.index, "leader": p.leader, "replicas": p.replicas,
                                "isr": p.isr} for p in expected.partitions]
    assert len({p["leader"] for p in t["partitions"]}) > 1          # leaders spread over nodes

    groups = {g["id"]: g for g in described["groups"]}
    everything = [f"{topic}:{p}" for p in range(4)]
    for group_id, g in groups.items():
        assert g["coordinator"] == cluster.call(cluster.cluster.coordinator_node, group_id)
    assert {k: groups[classic][k] for k in ("simple", "type", "state", "assignor")} == \
        {"simple": False, "type": "Classic", "state": "Stable", "assignor": "range"}
    [member] = groups[classic]["members"]
    assert member == {"memberId": member_ids[classic][0], "instanceId": None, "clientId": "rdkafka",
                      "host": "/127.0.0.1", "assignment": everything, "targetAssignment": None,
                      "memberEpoch": None}
    # The epochs are Kafka 4.4's (a new group is at epoch 1, its first assignment epoch 2), as the
    # tools' parity test shows against real Kafka.
    assert {k: groups[modern][k] for k in ("type", "state", "assignor", "groupEpoch",
                                           "targetAssignmentEpoch")} == \
        {"type": "Consumer", "state": "Stable", "assignor": "uniform", "groupEpoch": 2,
         "targetAssignmentEpoch": 2}
    [member] = groups[modern]["members"]
    assert member == {"memberId": member_ids[modern][0], "instanceId": None, "clientId": "rdkafka",
                      "host": "/127.0.0.1", "assignment": everything,
                      "targetAssignment": everything, "memberEpoch": 2}
    assert {k: groups[simple][k] for k in ("simple", "type", "state", "members")} == \
        {"simple": True, "type": "Classic", "state": "Empty", "members": []}

"""Real confluent-kafka consumers and AdminClient against the embedded broker's groups."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest
from confluent_kafka import (ConsumerGroupState, ConsumerGroupTopicPartitions, ConsumerGroupType,
                             Consumer, TopicPartition)
from confluent_kafka.admin import AdminClient, NewPartitions

from tests.support.groups import consume, fast_cluster
from tests.support.clients import produce, spread
from tests.support.waits import wait_until

PROTOCOLS = {
    "classic-range": {"group.protocol": "classic", "partition.assignment.strategy": "range",
                      "session.timeout.ms": 6000, "heartbeat.interval.ms": 300},
    "classic-cooperative": {"group.protocol": "classic",
                            "partition.assignment.strategy": "cooperative-sticky",
                            "session.timeout.ms": 6000, "heartbeat.interval.ms": 300},
    "consumer": {"group.protocol": "consumer"},
}


def consumer(ec, group: str, protocol: str, **extra) -> Consumer:
    return Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": group,
                     "auto.offset.reset": "earliest", "enable.auto.commit": True,
                     "auto.commit.interval.ms": 200, "topic.metadata.refresh.interval.ms": 1000,
                     **PROTOCOLS[protocol], **extra})


def assert_exactly_once(received: list[list], expected: int) -> None:
    everything = [r for member in received for r in member]
    keys = Counter((t, p, o) for t, p, o, _ in everything)
    assert [k for k, n in keys.items() if n > 1] == []
    assert len(keys) == expected


@pytest.mark.parametrize("nodes", [1, 3])
@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_two_members_consume_every_record_once_across_join_and_leave(protocol, nodes):
    with fast_cluster(nodes) as ec:
        ec.create_topic("orders", 6)
        group = f"g-{protocol}"
        produce(ec.bootstrap_servers, "orders", spread("first", 6, 60))
        a = consumer(ec, group, protocol)
        a.subscribe(["orders"])
        received = consume([a], 60)
        b = consumer(ec, group, protocol)
        b.subscribe(["orders"])
        both = [received[0], []]
        wait_until(lambda: _poll_all([a, b], both) and a.assignment() and b.assignment(),
                   what="a rebalance giving both members partitions")
        assert len(a.assignment()) + len(b.assignment()) == 6
        produce(ec.bootstrap_servers, "orders", spread("second", 6, 60))
        got = consume([a, b], 120 - sum(map(len, both)))
        both = [both[0] + got[0], both[1] + got[1]]
        assert both[1], "the second member received records"
        b.close()                                   # leaves: its partitions go back to a
        wait_until(lambda: _poll_all([a], both) and len(a.assignment()) == 6,
                   what="a owning all partitions again")
        produce(ec.bootstrap_servers, "orders", spread("third", 6, 30))
        both[0] += consume([a], 150 - sum(map(len, both)))[0]
        assert_exactly_once(both, 150)
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})

        def committed_total():
            offsets = admin.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group)])[group].result(15)
            return sum(tp.offset for tp in offsets.topic_partitions if tp.offset >= 0)
        wait_until(lambda: committed_total() == 150, what="auto-commits of all 150 records")
        a.close()


def _poll_all(consumers, buckets) -> bool:
    for c, bucket in zip(consumers, buckets):
        m = c.poll(0.05)
        if m is not None and not m.error():
            bucket.append((m.topic(), m.partition(), m.offset(), m.value()))
    return True


def test_consumer_protocol_group_picks_up_new_partitions():
    with fast_cluster(1) as ec:
        ec.create_topic("grow", 2)
        c = consumer(ec, "g-grow", "consumer")
        c.subscribe(["grow"])
        wait_until(lambda: c.poll(0.05) is None and len(c.assignment()) == 2, what="assignment")
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        admin.create_partitions([NewPartitions("grow", 4)])["grow"].result(15)
        wait_until(lambda: c.poll(0.05) is None and len(c.assignment()) == 4, timeout=15,
                   what="the new partitions in the assignment")
        produce(ec.bootstrap_servers, "grow", spread("x", 4, 8))
        received = consume([c], 8)
        assert {p for _, p, _, _ in received[0]} == {0, 1, 2, 3}
        c.close()


def test_admin_operations_on_both_group_types():
    with fast_cluster(3) as ec:
        ec.create_topic("adm", 3)
        produce(ec.bootstrap_servers, "adm", spread("r", 3, 9))
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        modern = consumer(ec, "g-modern", "consumer")
        classic = consumer(ec, "g-classic", "classic-range")
        for c in (modern, classic):
            c.subscribe(["adm"])
        consume([modern, classic], 18)
        wait_until(lambda: _states(admin) >= {("g-modern", ConsumerGroupState.STABLE),
                                              ("g-classic", ConsumerGroupState.STABLE)},
                   what="both groups stable")

        described = {g: f.result(15) for g, f in
                     admin.describe_consumer_groups(["g-modern", "g-classic"]).items()}
        assert described["g-modern"].type == ConsumerGroupType.CONSUMER
        assert described["g-classic"].type == ConsumerGroupType.CLASSIC
        for d in described.values():
            assert len(d.members) == 1 and len(d.members[0].assignment.topic_partitions) == 3
        assert described["g-modern"].partition_assignor == "uniform"
        assert described["g-classic"].partition_assignor == "range"

        def listed(**filters):
            return {g.group_id for g in admin.list_consumer_groups(**filters).result(15).valid}
        assert listed(types={ConsumerGroupType.CONSUMER}) == {"g-modern"}
        assert listed(types={ConsumerGroupType.CLASSIC}) == {"g-classic"}
        assert listed(states={ConsumerGroupState.EMPTY}) == set()

        result = admin.delete_consumer_groups(["g-modern"])["g-modern"]
        with pytest.raises(Exception) as err:
            result.result(15)
        assert "NON_EMPTY_GROUP" in str(err.value)
        modern.close()
        classic.close()
        wait_until(lambda: listed(states={ConsumerGroupState.EMPTY}) == {"g-modern", "g-classic"},
                   what="both groups empty")

        request = ConsumerGroupTopicPartitions("g-classic", [TopicPartition("adm", 0, 1),
                                                             TopicPartition("adm", 1, 2)])
        admin.alter_consumer_group_offsets([request])["g-classic"].result(15)
        offsets = admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions("g-classic")])["g-classic"].result(15)
        assert {(tp.partition, tp.offset) for tp in offsets.topic_partitions} == {(0, 1), (1, 2), (2, 3)}

        admin.delete_consumer_groups(["g-modern"])["g-modern"].result(15)
        assert listed() == {"g-classic"}
        missing = admin.delete_consumer_groups([f"nope-{uuid.uuid4()}"])
        with pytest.raises(Exception) as err:
            next(iter(missing.values())).result(15)
        assert "GROUP_ID_NOT_FOUND" in str(err.value)


def test_deleting_a_topic_drops_its_committed_offsets():
    """Kafka's coordinator forgets a deleted topic's offsets; the group's others stay."""
    with fast_cluster(1) as ec:
        for topic in ("gone", "kept"):
            ec.create_topic(topic, 2)
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions("g", [
            TopicPartition("gone", 0, 3), TopicPartition("gone", 1, 4),
            TopicPartition("kept", 1, 5)])])["g"].result(15)
        admin.delete_topics(["gone"])["gone"].result(15)

        offsets = admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions("g")])["g"].result(15)
        assert {(tp.topic, tp.partition, tp.offset) for tp in offsets.topic_partitions} == {
            ("kept", 1, 5)}


def _states(admin) -> set:
    return {(g.group_id, g.state) for g in admin.list_consumer_groups().result(15).valid}


@pytest.mark.parametrize("protocol", ["classic-range", "consumer"])
def test_static_member_restarts_and_resumes_from_its_commits(protocol):
    with fast_cluster(1) as ec:
        ec.create_topic("static", 2)
        produce(ec.bootstrap_servers, "static", spread("before", 2, 10))
        first = consumer(ec, "g-static", protocol, **{"group.instance.id": "instance-1"})
        first.subscribe(["static"])
        assert len(consume([first], 10)[0]) == 10
        first.close()
        second = consumer(ec, "g-static", protocol, **{"group.instance.id": "instance-1"})
        second.subscribe(["static"])
        produce(ec.bootstrap_servers, "static", spread("after", 2, 4))
        received = consume([second], 4)[0]
        assert sorted(v for _, _, _, v in received) == [f"after-{i}".encode() for i in range(4)]
        second.close()

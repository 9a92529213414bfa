"""The embedded broker's replica moves, leader elections and client quotas, asked by real
clients (kafka-python's KafkaAdminClient, confluent-kafka) and at the wire."""

from __future__ import annotations

from confluent_kafka import Producer
from tests.support.broker_wire import req
from tests.support.waits import wait_until

from kcli.broker import EmbeddedCluster
from kcli.broker.apikeys import (ALTER_CLIENT_QUOTAS, ALTER_PARTITION_REASSIGNMENTS,
                                 DESCRIBE_CLIENT_QUOTAS, ELECT_LEADERS, LIST_OFFSETS,
                                 LIST_PARTITION_REASSIGNMENTS)


def _produce(ec, topic, n, size=1000):
    p = Producer({"bootstrap.servers": ec.bootstrap_servers, "linger.ms": 0})
    for _ in range(n):
        p.produce(topic, b"x" * size, partition=0)
        p.poll(0)
    assert p.flush(20) == 0


def _state(ec, topic, index=0):
    return ec.call(lambda: (lambda p: (list(p.replicas), p.leader, p.isr, list(p.adding),
                                       list(p.removing)))(ec.cluster.topics[topic].partitions[index]))


def _move(w, topic, index, replicas, version=0):
    R = req(ALTER_PARTITION_REASSIGNMENTS, version, timeout_ms=1000, topics=[])
    T = type(R).ReassignableTopic
    r = req(ALTER_PARTITION_REASSIGNMENTS, version, timeout_ms=1000, topics=[T(
        name=topic, partitions=[T.ReassignablePartition(partition_index=index, replicas=replicas)])])
    resp = w.send(r)
    return resp.responses[0].partitions[0]


def _ongoing(w):
    resp = w.send(req(LIST_PARTITION_REASSIGNMENTS, 0, timeout_ms=1000, topics=None))
    return [(t.name, p.partition_index, list(p.replicas), list(p.adding_replicas),
             list(p.removing_replicas)) for t in resp.topics for p in t.partitions]


def test_a_throttled_move_is_listed_while_the_new_replica_copies_then_completes(wire):
    with EmbeddedCluster(nodes=3) as ec:
        ec.create_topic("t", 1, 2)                       # replicas [1, 2]
        _produce(ec, "t", 20)                            # ~20 kB to copy
        w = wire(ec)
        ec.call(lambda: ec.cluster.broker_configs.dynamic.setdefault("3", {}).update(
            {"follower.replication.throttled.rate": "4000"}))
        ec.call(ec.cluster.set_topic_configs, "t", {"follower.replication.throttled.replicas": "0:3"})
        assert _move(w, "t", 0, [3, 2]).error_code == 0
        replicas, leader, isr, adding, removing = _state(ec, "t")
        assert (replicas, leader, adding, removing) == ([3, 2, 1], 1, [3], [1])
        assert 3 not in isr                              # still copying, at 4 kB/s
        assert _ongoing(w) == [("t", 0, [3, 2, 1], [3], [1])]
        # the throttle lifted, the copy completes: 3 joins, 1 leaves, 3 (first live target) leads
        ec.call(lambda: ec.cluster.broker_configs.dynamic["3"].clear())
        wait_until(lambda: _ongoing(w) == [], timeout=10)
        assert _state(ec, "t")[:3] == ([3, 2], 3, [3, 2])


def test_a_cancel_puts_the_original_replicas_back_and_cancelling_nothing_is_refused(wire):
    with EmbeddedCluster(nodes=3) as ec:
        ec.create_topic("t", 1, 1)
        _produce(ec, "t", 5)
        ec.call(lambda: ec.cluster.broker_configs.dynamic.setdefault("2", {}).update(
            {"follower.replication.throttled.rate": "1"}))
        ec.call(ec.cluster.set_topic_configs, "t", {"follower.replication.throttled.replicas": "*"})
        w = wire(ec)
        assert _move(w, "t", 0, [2]).error_code == 0
        assert _state(ec, "t")[0] == [2, 1]
        assert _move(w, "t", 0, None).error_code == 0
        assert _state(ec, "t") == ([1], 1, [1], [], [])
        assert _move(w, "t", 0, None).error_code == 85   # NO_REASSIGNMENT_IN_PROGRESS
        assert _move(w, "t", 0, [1, 1]).error_code == 39  # INVALID_REPLICA_ASSIGNMENT
        assert _move(w, "t", 0, [7]).error_code == 39
        assert _move(w, "t", 5, [1]).error_code == 3      # UNKNOWN_TOPIC_OR_PARTITION
        assert _move(w, "t", 0, [1, 2], version=1).error_code == 0   # v1: RF change allowed


def test_a_reassignment_survives_a_restart_from_its_data_dir(tmp_path):
    with EmbeddedCluster(nodes=2, data_dir=tmp_path) as ec:
        ec.create_topic("t", 1, 1)
        ec.call(lambda: ec.cluster.broker_configs.dynamic.setdefault("2", {}).update(
            {"follower.replication.throttled.rate": "0"}))
        ec.call(ec.cluster.set_topic_configs, "t", {"follower.replication.throttled.replicas": "*"})
        _produce(ec, "t", 1)
        ec.call(ec.cluster.reassign, "t", 0, [2])
    with EmbeddedCluster(nodes=2, data_dir=tmp_path) as ec:
        assert _state(ec, "t")[0] == [2, 1] and _state(ec, "t")[3] == [2]
        ec.call(lambda: ec.cluster.broker_configs.dynamic["2"].clear())
        wait_until(lambda: _state(ec, "t")[0] == [2], timeout=10)


def test_kafka_python_moves_replicas_and_elects_the_preferred_leader():
    from kafka import KafkaAdminClient
    from kafka.structs import TopicPartition

    with EmbeddedCluster(nodes=3) as ec:
        ec.create_topic("t", 2, 2)                       # [1, 2] and [2, 3]
        admin = KafkaAdminClient(bootstrap_servers=ec.bootstrap_servers, request_timeout_ms=10000)
        try:
            admin.alter_partition_reassignments({TopicPartition("t", 0): [3, 1]})
            wait_until(lambda: _state(ec, "t")[0] == [3, 1], timeout=10)
            assert _state(ec, "t")[1] == 1               # the leader stayed on 1, a kept replica
            wait_until(lambda: admin.list_partition_reassignments() == {}, timeout=10)
        finally:
            admin.close()
        with wire_to(ec) as w:
            resp = w.send(req(ELECT_LEADERS, 2, election_type=0, timeout_ms=1000, topic_partitions=None))
            assert [(t.topic, [(p.partition_id, p.error_code) for p in t.partition_result])
                    for t in resp.replica_election_results] == [("t", [(0, 0)])]
            assert _state(ec, "t")[1] == 3               # preferred: the first replica
            again = w.send(req(ELECT_LEADERS, 2, election_type=0, timeout_ms=1000, topic_partitions=[
                type(req(ELECT_LEADERS, 2, topic_partitions=[])).TopicPartitions(topic="t", partitions=[0])]))
            assert again.replica_election_results[0].partition_result[0].error_code == 84


def test_unclean_election_picks_a_live_replica_only_where_there_is_no_leader(wire):
    from confluent_kafka import ElectionType, TopicPartition
    from confluent_kafka.admin import AdminClient

    with EmbeddedCluster(nodes=3) as ec:
        ec.create_topic("t", 1, 2)                       # [1, 2]
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        ec.stop_node(1)
        assert _state(ec, "t")[1] == -1
        preferred = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition("t", 0)]).result(10)
        assert [e.code() for e in preferred.values()] == [80]   # PREFERRED_LEADER_NOT_AVAILABLE
        unclean = admin.elect_leaders(ElectionType.UNCLEAN, [TopicPartition("t", 0)]).result(10)
        assert list(unclean.values()) == [None]
        assert _state(ec, "t")[1] == 2
        ec.start_node(1)
        assert _state(ec, "t")[1] == 2                   # no automatic move back
        again = admin.elect_leaders(ElectionType.UNCLEAN, [TopicPartition("t", 0)]).result(10)
        assert [e.code() for e in again.values()] == [84]       # ELECTION_NOT_NEEDED
        back = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition("t", 0)]).result(10)
        assert list(back.values()) == [None] and _state(ec, "t")[1] == 1


def _end_on(w, topic, replica_id):
    R = req(LIST_OFFSETS, 7, replica_id=replica_id, isolation_level=0, topics=[])
    T = type(R).ListOffsetsTopic
    resp = w.send(req(LIST_OFFSETS, 7, replica_id=replica_id, isolation_level=0, topics=[
        T(name=topic, partitions=[T.ListOffsetsPartition(partition_index=0, current_leader_epoch=-1,
                                                         timestamp=-1)])]))
    p = resp.topics[0].partitions[0]
    return p.error_code, p.offset


def test_a_replica_stopped_while_records_were_appended_lags_until_its_leader_is_up(wire):
    """A replica whose node stopped keeps its log end of then; started while the leader is down it
    stays out of the ISR, and Kafka's debugging replica (ListOffsets replica id -2) reads its
    own log end from it, a follower; the unclean election takes the first live in-sync replica,
    else the first live one; the others copy from the new leader."""
    from confluent_kafka import ElectionType, TopicPartition
    from confluent_kafka.admin import AdminClient

    with EmbeddedCluster(nodes=3) as ec:
        ec.create_topic("t", 1, 3)                       # [1, 2, 3]
        _produce(ec, "t", 4, size=10)
        ec.stop_node(3)
        _produce(ec, "t", 6, size=10)
        ec.stop_node(1)
        ec.start_node(3)
        assert _state(ec, "t")[1:3] == (-1, [2])         # 3 lags: no leader to copy from
        w3, w2 = wire(ec, 3), wire(ec, 2)
        assert _end_on(w3, "t", -2) == (0, 4) and _end_on(w2, "t", -2) == (0, 10)
        assert _end_on(w3, "t", -1)[0] == 6              # a consumer's: NOT_LEADER_OR_FOLLOWER
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        ec.stop_node(2)
        assert _state(ec, "t")[1:3] == (-1, [])
        unclean = admin.elect_leaders(ElectionType.UNCLEAN, [TopicPartition("t", 0)]).result(10)
        assert list(unclean.values()) == [None]
        assert _state(ec, "t")[1:3] == (3, [3])          # the first live replica, lagging
        ec.start_node(2)
        ec.start_node(1)
        assert _state(ec, "t")[2] == [1, 2, 3]           # caught up from 3
        ec.stop_node(1)
        _produce(ec, "t", 2, size=10)
        ec.stop_node(3)
        ec.start_node(1)                                 # 1 lagging, 2 in sync: 2 is chosen
        assert _state(ec, "t")[1:3] == (-1, [2])
        assert list(admin.elect_leaders(ElectionType.UNCLEAN, [TopicPartition("t", 0)]).result(10).values()) == [None]
        assert _state(ec, "t")[1] == 2


class wire_to:
    def __init__(self, ec):
        from tests.support.broker_wire import Wire
        self.w = Wire(ec.cluster.node_address(1))

    def __enter__(self):
        return self.w

    def __exit__(self, *exc):
        self.w.close()


def _alter(w, entity, ops, validate_only=False):
    R = type(req(ALTER_CLIENT_QUOTAS, 1, entries=[], validate_only=False))
    E = R.EntryData
    resp = w.send(req(ALTER_CLIENT_QUOTAS, 1, validate_only=validate_only, entries=[E(
        entity=[E.EntityData(entity_type=t, entity_name=n) for t, n in entity],
        ops=[E.OpData(key=k, value=v or 0.0, remove=v is None) for k, v in ops])]))
    return resp.entries[0].error_code, resp.entries[0].error_message


def _describe(w, components, strict=False):
    R = type(req(DESCRIBE_CLIENT_QUOTAS, 1, components=[], strict=False))
    C = R.ComponentData
    resp = w.send(req(DESCRIBE_CLIENT_QUOTAS, 1, strict=strict, components=[
        C(entity_type=t, match_type=m, match=n) for t, m, n in components]))
    if resp.error_code:
        return resp.error_code
    return sorted(((tuple((e.entity_type, e.entity_name) for e in x.entity),
                    {v.key: v.value for v in x.values}) for x in resp.entries), key=repr)


def test_client_quotas_are_stored_filtered_and_validated(wire):
    with EmbeddedCluster(nodes=1) as ec:
        w = wire(ec)
        assert _alter(w, [("user", "alice")], [("producer_byte_rate", 1024.0)]) == (0, None)
        assert _alter(w, [("user", "alice"), ("client-id", "app")],
                      [("consumer_byte_rate", 2048.0)]) == (0, None)
        assert _alter(w, [("user", None)], [("request_percentage", 12.5)]) == (0, None)
        assert _alter(w, [("ip", "127.0.0.1")], [("connection_creation_rate", 5.0)]) == (0, None)
        assert _alter(w, [("user", "bob")], [("producer_byte_rate", 1.0)],
                      validate_only=True) == (0, None)
        assert _describe(w, [("user", 0, "alice")], strict=True) == [
            ((("user", "alice"),), {"producer_byte_rate": 1024.0})]
        assert len(_describe(w, [("user", 2, None)])) == 3    # any user, default included
        assert _describe(w, [("user", 1, None)]) == [((("user", None),), {"request_percentage": 12.5})]
        assert _describe(w, [("ip", 2, None)]) == [((("ip", "127.0.0.1"),),
                                                     {"connection_creation_rate": 5.0})]
        assert _describe(w, [("ip", 2, None), ("user", 2, None)]) == 42     # INVALID_REQUEST
        # refused: an IP key on a user, a fraction of bytes, IP with user, an unknown type
        assert _alter(w, [("user", "x")], [("connection_creation_rate", 1.0)])[0] == 42
        assert _alter(w, [("user", "x")], [("producer_byte_rate", 1.5)])[0] == 42
        assert _alter(w, [("ip", "h"), ("user", "x")], [("connection_creation_rate", 1.0)])[0] == 42
        assert _alter(w, [("group", "g")], [("producer_byte_rate", 1.0)])[0] == 42
        # removing the last key removes the entity
        assert _alter(w, [("user", "alice")], [("producer_byte_rate", None)]) == (0, None)
        assert _describe(w, [("user", 0, "alice")], strict=True) == []


def test_a_client_id_over_its_produce_quota_is_told_to_back_off(wire):
    """producer_byte_rate of a client id (or the client-id default) answers Produce with a
    throttle time; librdkafka reports it (throttle_cb); a client without a quota gets none."""
    with EmbeddedCluster(nodes=1) as ec:
        ec.create_topic("q", 1, 1)
        w = wire(ec)
        assert _alter(w, [("client-id", "slow")], [("producer_byte_rate", 1000.0)]) == (0, None)
        events = {"slow": [], "fast": []}
        for client in events:
            # one Produce of 5 kB (one batch, lingered): over the 1 kB/s quota, and nothing after it
            # for librdkafka to hold back
            p = Producer({"bootstrap.servers": ec.bootstrap_servers, "client.id": client, "linger.ms": 200,
                          "throttle_cb": lambda e, client=client: events[client].append(e.throttle_time)})
            for _ in range(5):
                p.produce("q", b"x" * 1000)
            assert p.flush(20) == 0
            for _ in range(20 if client == "slow" else 3):    # throttle events are served by poll
                if events[client]:
                    break
                p.poll(0.1)
        assert events["slow"] and max(events["slow"]) > 0
        assert not any(t > 0 for t in events["fast"])

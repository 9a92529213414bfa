"""kcli.consumer's ``new_partitions`` policy (accepted KIP-1327, ``auto.offset.reset.new.partitions``)
through a real expansion with real confluent-kafka consumers: with ``latest`` as the policy and
``new_partitions=earliest``, the old partitions start at latest and no record of the partitions
added after the group is lost; the other way round, the new ones skip what came before. On the
embedded broker "after the group" comes from its creation times (KIP-1282, KIP-1327); on a
broker without them (posing as 4.4) from what the consumer saw: the group did not exist when it
listed the old partitions, and it had been assigned before the new ones appeared."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from confluent_kafka.admin import AdminClient, NewPartitions

from kcli.consumer import ConfigurationError, Consumer, latest
from kcli.consumer.policies import BY_DURATION, LATEST, from_config
from tests.consumer.test_policies import Reader, wait_fetching
from tests.support.clients import produce, tagged
from tests.support.groups import fast_cluster
from tests.support.run import run_kcli
from tests.support.waits import Clock


def expansion_story(bootstrap: str, topic: str, group: str, **policy) -> Counter:
    """``topic`` (2 partitions, 5 records each before the group) read by a new group, grown to
    4 partitions written to before the consumer is assigned them: the records it received."""
    produce(bootstrap, topic, tagged("pre", [0, 1], 5))
    reader = Reader()
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer",
                  "enable.auto.commit": True, "auto.commit.interval.ms": 200,
                  "topic.metadata.refresh.interval.ms": 1000}, **policy)
    try:
        c.subscribe([topic])
        wait_fetching(reader, c, 2)
        produce(bootstrap, topic, tagged("live", [0, 1], 5))
        reader.until(c, "live", 10)
        reader.drain(c)
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.create_partitions([NewPartitions(topic, 4)])[topic].result(15)
        produce(bootstrap, topic, tagged("exp", [2, 3], 5))
        wait_fetching(reader, c, 4)
        produce(bootstrap, topic, tagged("post", [0, 1, 2, 3], 5))
        reader.until(c, "post", 20)
        reader.drain(c)
    finally:
        c.close()
    return reader.tags()


@pytest.mark.parametrize("pose_as", [None, "4.4"])
def test_new_partitions_start_at_earliest_old_ones_at_latest(pose_as):
    with fast_cluster(pose_as=pose_as) as ec:
        ec.create_topic("np", 2)
        tags = expansion_story(ec.bootstrap_servers, "np", f"np-{pose_as}", start="latest",
                               new_partitions="earliest")
        assert tags == Counter({"live": 10, "exp": 10, "post": 20})      # no "pre": old at latest


@pytest.mark.parametrize("pose_as", [None, "4.4"])
def test_new_partitions_at_latest_skip_what_came_before_the_consumer(pose_as):
    """The accepted KIP's own case (its integration test): earliest as the policy, latest for new
    partitions. Skipping needs proof that the partitions are new: the broker's times, or, posing
    as 4.4, the consumer having been assigned before they appeared."""
    with fast_cluster(pose_as=pose_as) as ec:
        ec.create_topic("npl", 2)
        tags = expansion_story(ec.bootstrap_servers, "npl", f"npl-{pose_as}", start="earliest",
                               new_partitions="latest")
        assert tags == Counter({"pre": 10, "live": 10, "post": 20})      # no "exp": new at latest


def test_the_policy_from_kafka_keys_and_bad_combinations():
    p = from_config({"auto.offset.reset": "latest", "auto.offset.reset.new.partitions": "by_duration:PT1H"}, None)
    new = p.new_partitions
    assert (p.name, new.name, new.duration_ms, p.native) == (LATEST, BY_DURATION, 3_600_000, False)
    for start, new in (("to_start_time", "earliest"), ("latest", "to_start_time"), ("latest", "by_duration:soon")):
        with pytest.raises(ConfigurationError):
            from_config({}, start, new)
    with pytest.raises(ConfigurationError):                 # the consumer protocol only
        Consumer({"bootstrap.servers": "127.0.0.1:9", "group.id": "g"}, start="latest", new_partitions="earliest")


def test_latest_max_age_with_bounds_decides_without_metadata_v14():
    """latest(max_age) keeps the KIP's behaviour by default (UnsupportedVersion without Metadata
    v14: tests/consumer/test_policies.py); with bounds=True kcli's bounds decide, as --max-age
    does: the partitions the broker stamped two hours ago (LogAppendTime) start at latest, the one
    added after a kcli command listed the topic (observed) at its beginning."""
    now = int(time.time() * 1000)
    clock = Clock(now - 2 * 3_600_000)
    with fast_cluster(pose_as="4.4", clock=clock) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("lb", 2, configs={"message.timestamp.type": "LogAppendTime"})
        produce(b, "lb", tagged("pre", [0, 1], 5))
        clock.now_ms = now
        assert run_kcli(b, "describe", "topics", "lb").code == 0           # kcli sees 0 and 1
        admin = AdminClient({"bootstrap.servers": b})
        admin.create_partitions([NewPartitions("lb", 3)])["lb"].result(15)
        produce(b, "lb", tagged("exp", [2], 5))
        reader = Reader()
        c = Consumer({"bootstrap.servers": b, "group.id": "lb-g", "group.protocol": "consumer"},
                     start=latest("1h", bounds=True))
        try:
            c.subscribe(["lb"])
            wait_fetching(reader, c, 3)
            produce(b, "lb", tagged("post", [0, 1, 2], 2))
            reader.until(c, "post", 6)
            reader.drain(c)
        finally:
            c.close()
        assert reader.tags() == Counter({"exp": 5, "post": 6})

"""kcli.consumer start-offset policies with real confluent-kafka consumers against the embedded
broker: the partition-expansion story (KIP-1282, KIP-1327), commits winning on restart,
out-of-range commits, and the error paths."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions

from kcli.consumer import (ConfigurationError, Consumer, GroupCreationTimeNotAvailable,
                           UnsupportedVersion, earliest, latest, to_start_time)
from kcli.consumer.errors import BROKER_TOO_OLD, NO_CREATION_TIME
from kcli.broker import EmbeddedCluster
from kcli.consumer.policies import from_config
from tests.support.groups import fast_cluster
from tests.support.clients import produce, tagged
from tests.support.waits import wait_until

HOUR_MS = 3_600_000
POLICIES = {"latest": latest(), "to_start_time": to_start_time(), "latest-max-age": latest("5m")}


def make(ec, group: str, policy) -> Consumer:
    return Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": group,
                     "group.protocol": "consumer", "enable.auto.commit": True,
                     "auto.commit.interval.ms": 200, "topic.metadata.refresh.interval.ms": 1000},
                    start=policy)


class Reader:
    """Polls a consumer, keeping (partition, offset, tag) of every record received."""

    def __init__(self):
        self.records: list[tuple[int, int, str]] = []

    def poll_once(self, c: Consumer, timeout: float = 0.05) -> None:
        m = c.poll(timeout)
        if m is not None:
            assert m.error() is None, m.error()
            self.records.append((m.partition(), m.offset(), m.value().decode().split("-")[0]))

    def tags(self) -> Counter:
        return Counter(tag for _, _, tag in self.records)

    def until(self, c: Consumer, tag: str, count: int, timeout: float = 15) -> None:
        wait_until(lambda: self.poll_once(c) or self.tags()[tag] >= count, timeout=timeout,
                   interval=0, what=f"{count} '{tag}' records (have {self.tags()})")

    def drain(self, c: Consumer, seconds: float = 0.5) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.poll_once(c)


def wait_fetching(reader: Reader, c: Consumer, partitions: int) -> None:
    """Until ``c`` owns ``partitions`` partitions and has a fetch answer for each (so its start
    positions are resolved and records produced from now on are ahead of them)."""
    def ready():
        reader.poll_once(c)
        owned = c.assignment()
        return len(owned) == partitions and all(
            c.get_watermark_offsets(tp, cached=True)[1] >= 0 for tp in owned)
    wait_until(ready, timeout=20, interval=0, what=f"{partitions} partitions being fetched")


@pytest.mark.parametrize("name", list(POLICIES))
def test_partition_expansion_story(name):
    policy = POLICIES[name]
    recovers = name != "latest"
    with fast_cluster() as ec:
        ec.create_topic("exp", 2, creation_time_ms=int(time.time() * 1000) - HOUR_MS)
        # before the group: skipped by every policy
        produce(ec.bootstrap_servers, "exp", tagged("pre", [0, 1], 5))
        time.sleep(0.05)
        group = f"g-{name}"
        first = Reader()
        c = make(ec, group, policy)
        c.subscribe(["exp"])
        wait_fetching(first, c, 2)
        produce(ec.bootstrap_servers, "exp", tagged("live", [0, 1], 5))
        first.until(c, "live", 10)

        # Partitions added and written to before the consumer discovers them (it is not polled).
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        admin.create_partitions([NewPartitions("exp", 4)])["exp"].result(15)
        produce(ec.bootstrap_servers, "exp", tagged("exp", [2, 3], 5))
        wait_fetching(first, c, 4)
        produce(ec.bootstrap_servers, "exp", tagged("post", [0, 1, 2, 3], 5))
        first.until(c, "post", 20)
        first.drain(c)
        c.close()
        assert first.tags() == Counter({"live": 10, "post": 20, **({"exp": 10} if recovers else {})})

        # Restart: the committed offsets win over the policy.
        produce(ec.bootstrap_servers, "exp", tagged("offline", [0, 1, 2, 3], 5))
        second = Reader()
        c = make(ec, group, policy)
        c.subscribe(["exp"])
        second.until(c, "offline", 20)
        second.drain(c)
        c.close()
        assert second.tags() == Counter({"offline": 20})

        # Out of range: records deleted past the commit of p0 (20).
        produce(ec.bootstrap_servers, "exp", tagged("gap", [0], 10))          # offsets 20..29
        deleted = admin.delete_records([TopicPartition("exp", 0, 25)])
        list(deleted.values())[0].result(15)
        third = Reader()
        c = make(ec, group, policy)
        c.subscribe(["exp"])
        # the reset to latest has no visible end: write one record at a time until one arrives
        wait_until(lambda: produce(ec.bootstrap_servers, "exp", tagged("tail", [0], 1)) or third.drain(c, 0.3)
                   or third.tags()["tail"], timeout=20, interval=0, what="a 'tail' record")
        third.drain(c)
        c.close()
        gap = sorted(o for p, o, tag in third.records if tag == "gap")
        # to_start_time: the first surviving record after the group creation; the others: latest
        assert gap == ([25, 26, 27, 28, 29] if policy.name == "to_start_time" else [])

        everything = first.records + second.records + third.records
        dups = [k for k, n in Counter((p, o) for p, o, _ in everything).items() if n > 1]
        assert dups == []


def _poll_raises(c: Consumer, exc_type, seconds: float = 20) -> Exception:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            m = c.poll(0.1)
        except exc_type as exc:
            return exc
        assert m is None or m.error() is not None, "no record may be delivered"
    raise AssertionError(f"poll() did not raise {exc_type.__name__} within {seconds}s")


def _assert_keeps_raising(c: Consumer, exc_type, message: str) -> None:
    """No fallback: later polls raise the same error and deliver nothing."""
    raised = 0
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        try:
            m = c.poll(0.1)
            assert m is None, "no record may be delivered"
        except exc_type as exc:
            assert str(exc) == message
            raised += 1
    assert raised >= 1


def test_to_start_time_without_a_recorded_creation_time_raises_and_never_falls_back():
    with fast_cluster() as ec:
        ec.create_topic("t", 2)
        produce(ec.bootstrap_servers, "t", tagged("old", [0, 1], 5))
        ec.cluster.record_creation_times = False          # the group is created without a time
        c = make(ec, "legacy", to_start_time())
        c.subscribe(["t"])
        exc = _poll_raises(c, GroupCreationTimeNotAvailable)
        message = NO_CREATION_TIME.format(group="legacy")
        assert str(exc) == message == (
            "The group creation time is not available for group 'legacy'. The group may have been "
            "created before KIP-1282 was enabled. Please delete and recreate the group.")
        produce(ec.bootstrap_servers, "t", tagged("new", [0, 1], 5))
        _assert_keeps_raising(c, GroupCreationTimeNotAvailable, message)
        with pytest.raises(GroupCreationTimeNotAvailable, match="not available for group 'legacy'"):
            c.consume(10, 0.5)
        c.close()


def test_old_broker_to_start_time_and_max_age_raise():
    with fast_cluster(pose_as="4.1") as ec:
        ec.create_topic("t", 1)
        c = make(ec, "g-old", to_start_time())
        c.subscribe(["t"])
        exc = _poll_raises(c, GroupCreationTimeNotAvailable)
        assert str(exc) == BROKER_TOO_OLD == (
            "The broker does not support to_start_time (requires ConsumerGroupHeartbeat v2+ or "
            "StreamsGroupHeartbeat v2+).")
        c.close()
        c = make(ec, "g-old-age", latest(max_age=60_000))
        c.subscribe(["t"])
        exc = _poll_raises(c, UnsupportedVersion)
        assert "Metadata v14" in str(exc)
        c.close()


@pytest.mark.parametrize("policy", [to_start_time(), latest(max_age="30s")], ids=str)
@pytest.mark.parametrize("protocol", [None, "classic"])
def test_classic_protocol_is_a_configuration_error(policy, protocol):
    config = {"bootstrap.servers": "127.0.0.1:9", "group.id": "g"}
    if protocol:
        config["group.protocol"] = protocol
    with pytest.raises(ConfigurationError, match="requires group.protocol=consumer"):
        Consumer(config, start=policy)


def test_policy_configuration():
    assert latest("PT1M").max_age_ms == 60_000 and latest(1500).max_age_ms == 1500
    assert latest(-1).native and earliest().native and not to_start_time().native
    assert from_config({"auto.offset.reset": "latest",
                        "auto.offset.reset.latest.max.age": "2s"}, None) == latest(2000)
    assert from_config({"auto.offset.reset": "smallest"}, None) == earliest()
    assert latest("1500").max_age_ms == 1500 and latest("-1").max_age_ms == -1
    for bad in ("soon", -2, "-2", "9" * 5000, "1" + " " * 130_000 + "x"):   # Python's int() raised
        with pytest.raises(ConfigurationError):                             # ValueError for 5,000 digits
            latest(bad)
    with pytest.raises(ConfigurationError, match="not both"):
        from_config({"auto.offset.reset": "earliest"}, latest())
    with pytest.raises(ConfigurationError, match="Invalid start-offset policy"):
        from_config({"auto.offset.reset": "nearest"}, None)


def test_to_start_time_over_tls_with_the_name_check_off(tmp_path):
    """The broker anchors (kafka-python) take every client setting librdkafka takes, the same
    way as the CLI: here a certificate for another name, accepted with
    ssl.endpoint.identification.algorithm=none. The anchors used to take a list of their own,
    which had dropped that setting (and the OAUTHBEARER ones): the group creation time was then
    unreadable and to_start_time raised."""
    from tests.support.tls_certs import make_certs

    certs = make_certs(tmp_path)
    tls = {"security.protocol": "SSL", "ssl.ca.location": certs.ca,
           "ssl.endpoint.identification.algorithm": "none"}
    with EmbeddedCluster(nodes=1, tls=certs.mismatched) as ec:
        ec.create_topic("tls", 1)
        c = Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": "g-tls",
                      "group.protocol": "consumer", **tls}, start=to_start_time())
        c.subscribe(["tls"])
        reader = Reader()
        wait_until(lambda: reader.poll_once(c) or c.assignment(), timeout=20, interval=0,
                   what="an assignment")
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "linger.ms": 0, **tls})
        p.produce("tls", b"after-0")
        assert p.flush(15) == 0
        reader.until(c, "after", 1)
        c.close()

"""kcli.consumer.DelayRevokeConsumer with real confluent-kafka clients against the embedded broker:
a cooperative rebalance beside the naive baseline, the revoke deadline,
commits of partitions not owned, a fenced member, the start-offset policies and the
configuration checks."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions

from kcli.consumer import (ConfigurationError, DelayRevokeConsumer,
                           GroupCreationTimeNotAvailable, earliest, to_start_time)
from tests.support.groups import fast_cluster, on_coordinator
from tests.support.clients import produce, tagged
from tests.support.waits import wait_until
from tests.support import revoke_rig
from tests.support.revoke_rig import PROTOCOLS, Settings, Worker, produce_at_rate, wait_for


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_rebalance_keeps_the_other_partitions_flowing_without_duplicates(protocol):
    settings = Settings(flush_s=1.0)
    with fast_cluster() as ec:
        naive = revoke_rig.run(ec, "naive", protocol, settings)
        split = revoke_rig.run(ec, "split", protocol, settings)
    print()
    print(naive.line())
    print(split.line())
    for r in (naive, split):
        assert len(r.revoked) == 3, r.revoked
        assert r.window_s >= settings.flush_s
        # the revoked partitions' processed records were committed before B took them over
        assert all(last_commit == first_read for last_commit, first_read in r.handover.values()), \
            r.handover
        assert (r.duplicates, r.missing, r.lost) == (0, 0, [])
    assert split.kept_in_window > 0
    assert naive.kept_in_window < split.kept_in_window


def _conf(ec, group: str, protocol: str) -> dict:
    return {"bootstrap.servers": ec.bootstrap_servers, "group.id": group,
            "topic.metadata.refresh.interval.ms": 1000, "fetch.wait.max.ms": 100,
            **PROTOCOLS[protocol]}


def _poll_until(consumers, predicate, timeout: float, what: str, seen: list | None = None):
    """Poll every consumer in turn until ``predicate()``; records go to ``seen``."""
    def step():
        for c in consumers:
            for m in c.poll(0.05):
                assert m.error() is None, m.error()
                if seen is not None:
                    seen.append((c, m.partition(), m.offset(), m.value().decode()))
        return predicate()
    return wait_until(step, timeout=timeout, interval=0, what=what)


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_past_the_deadline_the_partitions_are_lost_and_no_longer_committed(protocol):
    with fast_cluster() as ec:
        ec.create_topic("t", 6)
        produce(ec.bootstrap_servers, "t", tagged("r", range(6), 10))
        conf = _conf(ec, "g-deadline", protocol)
        a = DelayRevokeConsumer(conf, start=earliest(), revoke_deadline_ms=1000)
        a.subscribe(["t"])
        got = []
        _poll_until([a], lambda: len(got) == 60, 20, "A reading all 60 records", got)
        assert [tp.partition for tp in a.commit([TopicPartition("t", p, 3) for p in range(6)])] \
            == list(range(6))
        b = DelayRevokeConsumer(conf, start=earliest())
        b.subscribe(["t"])
        revoking = _poll_until([a, b], a.to_be_revoked, 20, "a revoke request on A")
        requested = time.monotonic()
        revoked = {tp.partition for tp in revoking}
        assert len(revoked) == 3
        delays, lost = 0, set()
        # lost() reports what the last poll() lost, or delay_revoke() since: read after each
        # (a poll starts a new report, so a loss at the deadline in delay_revoke is seen there)
        while not lost and time.monotonic() < requested + 10:   # never lets them go
            if a.to_be_revoked() and a.delay_revoke(a.to_be_revoked()):
                delays += 1                 # refused: only when the deadline just passed
            lost |= {tp.partition for tp in a.lost()}
            a.poll(0.05)
            lost |= {tp.partition for tp in a.lost()}
            b.poll(0.05)
        waited = time.monotonic() - requested
        assert lost == revoked
        assert 0.9 <= waited < 6, waited          # the deadline 1 s; never let go: 10 s
        assert delays >= 2
        assert a.delay_revoke(revoking) is False
        assert {tp.partition for tp in a.assignment()} == set(range(6)) - revoked

        # A commit of a partition A no longer owns is not sent; the owned one is committed.
        gone, kept = min(revoked), min(set(range(6)) - revoked)
        # ([] while the group still rebalances, as commit() says: commit again later; what B
        # reads meanwhile is kept for the check below)
        from_b = []
        sent = _poll_until([a, b], lambda: a.commit([TopicPartition("t", gone, 7),
                                                     TopicPartition("t", kept, 7)]), 20,
                           "A's commit of the partition it kept", from_b)
        assert [(tp.partition, tp.offset) for tp in sent] == [(kept, 7)]
        assert a.commit([TopicPartition("t", gone, 8)]) == []
        committed = {tp.partition: tp.offset
                     for tp in b.committed([TopicPartition("t", p) for p in range(6)])}
        assert committed[gone] == 3 and committed[kept] == 7

        # B took the lost partitions over, at the group's committed offset.
        _poll_until([a, b], lambda: {p for _, p, _, _ in from_b} == revoked, 20,
                    "B reading the partitions A lost", from_b)
        first = {p: min(o for _, q, o, _ in from_b if q == p) for p in revoked}
        assert first == dict.fromkeys(revoked, 3)
        a.close()
        b.close()


def test_a_commit_rejected_as_unknown_member_loses_the_assignment():
    with fast_cluster() as ec:
        ec.create_topic("t", 2)
        produce(ec.bootstrap_servers, "t", tagged("r", range(2), 5))
        a = DelayRevokeConsumer(_conf(ec, "g-fenced", "consumer"), start=earliest())
        a.subscribe(["t"])
        got = []
        _poll_until([a], lambda: len(got) == 10, 20, "A reading 10 records", got)
        assert len(a.commit([TopicPartition("t", 0, 5), TopicPartition("t", 1, 5)])) == 2
        member_id = a._member.memberid()

        def fence(coordinator):
            group = coordinator.group("g-fenced")
            group.remove(group.members[member_id])
        on_coordinator(ec, fence)
        assert a.commit([TopicPartition("t", 0, 5), TopicPartition("t", 1, 5)]) == []
        assert {tp.partition for tp in a.lost()} == {0, 1}
        assert a.assignment() == []
        # librdkafka joins again: the partitions come back, from the group's committed offset
        produce(ec.bootstrap_servers, "t", tagged("after", range(2), 1))
        after = []
        _poll_until([a], lambda: len(after) >= 2, 20, "the records produced after the fencing",
                    after)
        assert sorted((p, o, v) for _, p, o, v in after) == [(0, 5, "after-0-0"),
                                                              (1, 5, "after-1-0")]
        a.close()


def test_start_policy_plugs_in_and_its_errors_come_from_poll():
    with fast_cluster() as ec:
        ec.create_topic("exp", 2)
        produce(ec.bootstrap_servers, "exp", tagged("pre", [0, 1], 3))        # before the group: skipped
        time.sleep(0.05)
        a = DelayRevokeConsumer(_conf(ec, "g-start", "consumer"), start=to_start_time())
        a.subscribe(["exp"])
        got = []
        _poll_until([a], lambda: len(a.assignment()) == 2, 20, "A owning 2 partitions", got)
        # partitions added and written to before A discovers them: to_start_time reads them
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        admin.create_partitions([NewPartitions("exp", 4)])["exp"].result(15)
        produce(ec.bootstrap_servers, "exp", tagged("exp", [2, 3], 3))
        _poll_until([a], lambda: len(a.assignment()) == 4, 20, "A owning 4 partitions", got)
        produce(ec.bootstrap_servers, "exp", tagged("post", [0, 1, 2, 3], 1))
        _poll_until([a], lambda: sum(v.startswith("post") for *_, v in got) == 4, 20,
                    "the 'post' records", got)
        assert sorted(v for *_, v in got) == sorted(
            [f"exp-{p}-{i}" for p in (2, 3) for i in range(3)] + [f"post-{p}-0" for p in range(4)])
        a.close()

        ec.cluster.record_creation_times = False          # a group without a creation time
        c = DelayRevokeConsumer(_conf(ec, "legacy", "consumer"), start=to_start_time())
        c.subscribe(["exp"])
        raised, deadline = 0, time.monotonic() + 20
        while raised < 3 and time.monotonic() < deadline:
            try:
                assert c.poll(0.1) == [], "no fallback: nothing is delivered"
            except GroupCreationTimeNotAvailable as exc:
                assert "not available for group 'legacy'" in str(exc)
                raised += 1
        assert raised == 3
        c.close()


def test_an_out_of_range_commit_resumes_where_the_policy_says():
    """With a policy librdkafka cannot apply, the fetcher runs with auto.offset.reset=error and
    the library re-positions it: to_start_time resumes at the first record that survived."""
    with fast_cluster() as ec:
        ec.create_topic("t", 1)
        conf = _conf(ec, "g-oor", "consumer")
        a = DelayRevokeConsumer(conf, start=to_start_time())
        a.subscribe(["t"])
        _poll_until([a], a.assignment, 20, "A owning the partition")
        produce(ec.bootstrap_servers, "t", tagged("r", [0], 10))
        got = []
        _poll_until([a], lambda: len(got) == 10, 20, "A reading 10 records", got)
        assert len(a.commit([TopicPartition("t", 0, 3)])) == 1
        a.close()
        admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
        list(admin.delete_records([TopicPartition("t", 0, 6)]).values())[0].result(15)
        b = DelayRevokeConsumer(conf, start=to_start_time())
        b.subscribe(["t"])
        again = []
        _poll_until([b], lambda: len(again) >= 4, 20, "B reading what survived", again)
        assert [o for *_, o, _ in again] == [6, 7, 8, 9]
        b.close()


def _readme_example() -> str:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("### Delayed revoke", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_example_hands_partitions_over_without_duplicates():
    """The README's processing loop, run as it stands by two applications sharing 'orders'."""
    code = _readme_example()
    with fast_cluster() as ec:
        ec.create_topic("orders", 6)
        stop_producing, stop = threading.Event(), threading.Event()
        sent: list = []
        processed = {"A": [], "B": []}

        def app(name):
            def handle(msg):
                time.sleep(0.02)
                processed[name].append((msg.partition(), msg.offset()))
            exec(code, {"bootstrap": ec.bootstrap_servers, "handle": handle,
                        "running": lambda: not stop.is_set()})

        producer = Worker(produce_at_rate, ec.bootstrap_servers, "orders", 50, stop_producing, sent)
        a, b = Worker(app, "A"), Worker(app, "B")
        producer.start()
        a.start()
        try:
            wait_for(lambda: len({p for p, _ in list(processed["A"])}) == 6, 20,
                     "A processing every partition", [a, producer])
            b.start()
            wait_for(lambda: len({p for p, _ in list(processed["B"])}) == 3, 30,
                     "B processing 3 partitions", [a, b, producer])
        finally:
            stop_producing.set()
            producer.finish()
        try:
            wait_for(lambda: len(set(processed["A"] + processed["B"])) >= len(sent), 20,
                     "every record processed", [a, b])
        finally:
            stop.set()
            a.finish()
            b.finish()
        counts = Counter(processed["A"] + processed["B"])
        assert [k for k, n in counts.items() if n > 1] == []
        produced = Counter(p for _, p in sent)
        assert set(counts) == {(p, o) for p, n in produced.items() for o in range(n)}


@pytest.mark.parametrize("extra", [
    {},                                                          # librdkafka's default: eager
    {"partition.assignment.strategy": "range"},
    {"partition.assignment.strategy": "roundrobin,range"},
    {"group.protocol": "classic", "partition.assignment.strategy": "range"},
], ids=["default", "range", "roundrobin,range", "classic-range"])
def test_eager_assignment_is_refused(extra):
    with pytest.raises(ConfigurationError, match="needs an incremental protocol"):
        DelayRevokeConsumer({"bootstrap.servers": "127.0.0.1:9", "group.id": "g", **extra})


def test_configuration():
    base = {"bootstrap.servers": "127.0.0.1:9", "group.id": "g", "group.protocol": "consumer"}
    c = DelayRevokeConsumer({**base, "max.poll.interval.ms": 20_000})
    assert c.revoke_deadline_ms == 15_000
    c.close()
    c = DelayRevokeConsumer(base, revoke_deadline_ms=1234)
    assert c.revoke_deadline_ms == 1234
    c.close()
    with pytest.raises(ConfigurationError, match="No time is left"):
        DelayRevokeConsumer({**base, "max.poll.interval.ms": 5000})
    with pytest.raises(ConfigurationError, match="does not auto-commit"):
        DelayRevokeConsumer({**base, "enable.auto.commit": True})
    with pytest.raises(ConfigurationError, match="needs a group.id"):
        DelayRevokeConsumer({"bootstrap.servers": "127.0.0.1:9", "group.protocol": "consumer"})
    with pytest.raises(ConfigurationError, match="requires group.protocol=consumer"):
        DelayRevokeConsumer({**base, "group.protocol": "classic",
                             "partition.assignment.strategy": "cooperative-sticky"},
                            start=to_start_time())

"""The group coordinator's state machines against a tiny fake cluster (no network)."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups.assignors import range_, uniform
from kcli.broker.groups.config import GroupConfig
from kcli.broker.groups.coordinator import GroupCoordinator
from kcli.broker.groups.store import Committed

T1, T2 = uuid.UUID(int=1), uuid.UUID(int=2)


@dataclass
class FakeTopic:
    name: str
    topic_id: uuid.UUID
    partitions: list = field(default_factory=list)


@dataclass
class FakeCluster:
    data_dir: Path | None = None
    record_creation_times: bool = True
    clock: int = 1_700_000_000_000
    topics: dict = field(default_factory=dict)

    def now_ms(self) -> int:
        return self.clock

    def add_topic(self, name: str, topic_id: uuid.UUID, count: int) -> None:
        self.topics[name] = FakeTopic(name, topic_id, list(range(count)))


def run(coro):
    return asyncio.run(coro)


def heartbeat(group, member_id, epoch, topics=("a",), owned=None, **kw):
    args = dict(member_id=member_id, epoch=epoch, instance_id=None, rack_id=None,
                rebalance_timeout_ms=30000 if epoch == 0 else -1,
                subscribed_names=list(topics) if epoch == 0 else None, subscribed_regex=None,
                server_assignor=None, owned=[] if epoch == 0 else owned, client_id="c",
                client_host="/127.0.0.1")
    args.update(kw)
    return group.heartbeat(**args)


# ---- assignors ---------------------------------------------------------------------------

def test_uniform_is_balanced_and_sticky():
    subs = {"a": frozenset({T1}), "b": frozenset({T1}), "c": frozenset({T1})}
    first = uniform({"a": subs["a"]}, {T1: 7}, {})
    assert first == {"a": {(T1, p) for p in range(7)}}
    second = uniform(subs, {T1: 7}, first)
    assert sorted(len(v) for v in second.values()) == [2, 2, 3]
    assert second["a"] <= first["a"]                       # a only gave partitions away
    assert set().union(*second.values()) == {(T1, p) for p in range(7)}


def test_uniform_heterogeneous_subscriptions():
    subs = {"a": frozenset({T1}), "b": frozenset({T1, T2})}
    result = uniform(subs, {T1: 2, T2: 4}, {})
    assert {tp for tp in result["b"] if tp[0] == T2} == {(T2, p) for p in range(4)}
    assert all(tp[0] == T1 for tp in result["a"]) and result["a"]


def test_range_gives_contiguous_ranges():
    subs = {"m1": frozenset({T1}), "m2": frozenset({T1})}
    assert range_(subs, {T1: 5}, {}) == {"m1": {(T1, 0), (T1, 1), (T1, 2)}, "m2": {(T1, 3), (T1, 4)}}


# ---- consumer-protocol groups ------------------------------------------------------------

def _coordinator(cluster=None, **config):
    cluster = cluster or FakeCluster()
    cluster.add_topic("a", T1, 4)
    return GroupCoordinator(cluster, GroupConfig(**config))


def test_revocation_before_reassignment():
    async def scenario():
        coord = _coordinator()
        group = coord.consumer_group("g", create=True)
        a = heartbeat(group, "A", 0)
        assert a.epoch == 2 and len(a.assignment) == 4
        b = heartbeat(group, "B", 0)
        assert b.epoch == 3 and b.assignment == []              # withheld: A still owns them
        assert group.state == "Reconciling"
        a = heartbeat(group, "A", 2, owned=[(T1, p) for p in range(4)])
        assert a.epoch == 2 and len(a.assignment) == 2            # A told to revoke two
        moving = {(T1, p) for p in range(4)} - set(a.assignment)
        assert heartbeat(group, "B", 3, owned=[]).assignment is None   # still withheld
        a = heartbeat(group, "A", 2, owned=sorted(set(a.assignment)))  # A acknowledges
        assert a.epoch == 3
        b = heartbeat(group, "B", 3, owned=[])
        assert set(b.assignment) == moving and b.epoch == 3
        heartbeat(group, "B", 3, owned=b.assignment)
        assert group.state == "Stable"
        coord.close()
    run(scenario())


def test_group_epochs_as_kafka_4_4(tmp_path):
    """A new group is at epoch 1 with an empty target (KAFKA-20268); a member leaving bumps the
    group epoch only, and the target follows on a remaining member's next heartbeat; the last
    member leaving also moves the (empty) target to the new epoch (KAFKA-20442, Kafka 4.4:
    kafka-consumer-groups shows 3 and 3 where 4.3 showed 3 and 2)."""
    async def scenario():
        coord = _coordinator(FakeCluster(data_dir=tmp_path))
        group = coord.consumer_group("g", create=True)
        assert (group.group_epoch, group.assignment_epoch, group.state) == (1, 1, "Empty")
        a = heartbeat(group, "A", 0)
        b = heartbeat(group, "B", 0)
        a = heartbeat(group, "A", a.epoch, owned=a.assignment)
        a = heartbeat(group, "A", a.epoch, owned=a.assignment)
        b = heartbeat(group, "B", b.epoch, owned=[])
        assert (group.group_epoch, group.assignment_epoch, a.epoch, b.epoch) == (3, 3, 3, 3)
        heartbeat(group, "B", -1)
        assert (group.group_epoch, group.assignment_epoch, group.state) == (4, 3, "Assigning")
        a = heartbeat(group, "A", a.epoch, owned=a.assignment)
        assert (group.group_epoch, group.assignment_epoch, group.state) == (4, 4, "Stable")
        assert a.epoch == 4 and len(a.assignment) == 4
        heartbeat(group, "A", -1)
        assert (group.group_epoch, group.assignment_epoch, group.state) == (5, 5, "Empty")
        coord.close()
        coord = _coordinator(FakeCluster(data_dir=tmp_path))                 # both kept on disk
        assert (coord.group("g").group_epoch, coord.group("g").assignment_epoch) == (5, 5)
        coord.close()
    run(scenario())


def test_an_empty_regex_is_no_subscription_change():
    """librdkafka sends SubscribedTopicRegex "" (no regex) in every full heartbeat; Kafka keeps
    "" as the member's regex, so sending it again changes nothing and bumps no epoch."""
    async def scenario():
        coord = _coordinator()
        group = coord.consumer_group("g", create=True)
        a = heartbeat(group, "A", 0, subscribed_regex="")
        epoch = group.group_epoch
        a = heartbeat(group, "A", a.epoch, owned=a.assignment, subscribed_names=["a"],
                      subscribed_regex="", rebalance_timeout_ms=30000)
        assert (group.group_epoch, a.epoch, len(a.assignment)) == (epoch, epoch, 4)
        coord.close()
    run(scenario())


def test_revocation_timeout_fences_the_old_owner():
    async def scenario():
        coord = _coordinator()
        group = coord.consumer_group("g", create=True)
        heartbeat(group, "A", 0, rebalance_timeout_ms=100)
        heartbeat(group, "B", 0)
        heartbeat(group, "A", 2, owned=[(T1, p) for p in range(4)])   # told to revoke, never acks
        await asyncio.sleep(0.3)
        assert "A" not in group.members
        with pytest.raises(BrokerError) as err:
            heartbeat(group, "A", 2, owned=[])
        assert err.value.code == Err.UNKNOWN_MEMBER_ID
        b = heartbeat(group, "B", group.members["B"].epoch, owned=[])
        assert len(b.assignment) == 4
        coord.close()
    run(scenario())


def test_member_epoch_checks():
    async def scenario():
        coord = _coordinator()
        group = coord.consumer_group("g", create=True)
        heartbeat(group, "A", 0)
        for bad in (3, 5):
            with pytest.raises(BrokerError) as err:
                heartbeat(group, "A", bad, owned=None)
            assert err.value.code == Err.FENCED_MEMBER_EPOCH
        with pytest.raises(BrokerError) as err:
            heartbeat(group, "nobody", 1)
        assert err.value.code == Err.UNKNOWN_MEMBER_ID
        with pytest.raises(BrokerError) as err:
            coord.consumer_group("missing", create=False)
        assert err.value.code == Err.GROUP_ID_NOT_FOUND
        coord.close()
    run(scenario())


def test_partition_expansion_reaches_the_member_on_its_next_heartbeat():
    async def scenario():
        cluster = FakeCluster()
        coord = _coordinator(cluster)
        group = coord.consumer_group("g", create=True)
        a = heartbeat(group, "A", 0)
        epoch = group.group_epoch
        cluster.add_topic("a", T1, 6)
        a = heartbeat(group, "A", a.epoch, owned=a.assignment)
        assert group.group_epoch == epoch + 1 and len(a.assignment) == 6
        coord.close()
    run(scenario())


def test_static_member_leaves_temporarily_and_comes_back():
    async def scenario():
        coord = _coordinator()
        group = coord.consumer_group("g", create=True)
        first = heartbeat(group, "A", 0, instance_id="i1")
        assert heartbeat(group, "A", -2, instance_id="i1").epoch == -2
        heartbeat(group, "B", 0, instance_id="i2")
        with pytest.raises(BrokerError) as err:
            heartbeat(group, "C", 0, instance_id="i2")          # i2 is still in use by B
        assert err.value.code == Err.UNRELEASED_INSTANCE_ID
        back = heartbeat(group, "A2", 0, instance_id="i1")
        assert set(back.assignment) <= set(first.assignment) and "A" not in group.members
        coord.close()
    run(scenario())


def test_creation_time_is_stamped_once():
    async def scenario():
        cluster = FakeCluster()
        coord = _coordinator(cluster)
        group = coord.consumer_group("g", create=True)
        created = group.creation_time_ms
        assert created == cluster.clock
        heartbeat(group, "A", 0)
        heartbeat(group, "A", -1)
        assert group.state == "Empty"
        cluster.clock += 60_000
        heartbeat(group, "B", 0)
        assert group.creation_time_ms == created
        cluster.record_creation_times = False
        assert coord.consumer_group("later", create=True).creation_time_ms == -1
        assert coord.create_consumer_group("legacy", creation_time_ms=-1).creation_time_ms == -1
        coord.close()
    run(scenario())


# ---- classic groups ----------------------------------------------------------------------

def _join(group, member_id, protocols=(("range", b"meta"),), **kw):
    args = dict(member_id=member_id, instance_id=None, client_id="c", client_host="/127.0.0.1",
                session_timeout_ms=10000, rebalance_timeout_ms=2000, protocol_type="consumer",
                protocols=list(protocols), require_known_member_id=True)
    args.update(kw)
    return group.join(**args)


def test_classic_join_barrier_and_sync():
    async def scenario():
        coord = _coordinator(initial_rebalance_delay_ms=0)
        group = coord.classic_group("g")
        first = await _join(group, "")
        assert first.error == Err.MEMBER_ID_REQUIRED
        a = await _join(group, first.member_id)
        assert a.generation == 1 and a.leader == a.member_id and len(a.members) == 1
        assert (await group.sync(member_id=a.member_id, instance_id=None, generation=1, protocol_type=None,
                                 protocol_name=None, assignments={a.member_id: b"x"})) == (Err.NONE, b"x")
        b_id = (await _join(group, "")).member_id
        b_join = asyncio.ensure_future(_join(group, b_id))
        await asyncio.sleep(0.05)
        assert group.state == "PreparingRebalance" and not b_join.done()    # waits for A
        assert group.heartbeat(a.member_id, None, 1) == Err.REBALANCE_IN_PROGRESS
        a2 = await _join(group, a.member_id)
        b = await b_join
        assert a2.generation == b.generation == 2
        assert {m for m, _, _ in a2.members} == {a.member_id, b_id} and b.members == []
        follower = asyncio.ensure_future(group.sync(member_id=b_id, instance_id=None, generation=2,
                                                    protocol_type=None, protocol_name=None, assignments={}))
        await asyncio.sleep(0.05)
        assert not follower.done()                                          # waits for the leader
        await group.sync(member_id=a.member_id, instance_id=None, generation=2, protocol_type=None,
                         protocol_name=None, assignments={a.member_id: b"A", b_id: b"B"})
        assert await follower == (Err.NONE, b"B")
        assert group.state == "Stable"
        assert group.heartbeat(b_id, None, 1) == Err.ILLEGAL_GENERATION
        assert group.heartbeat("who", None, 2) == Err.UNKNOWN_MEMBER_ID
        coord.close()
    run(scenario())


def test_classic_rebalance_timeout_drops_members_that_do_not_rejoin():
    async def scenario():
        coord = _coordinator(initial_rebalance_delay_ms=0)
        group = coord.classic_group("g")
        a = await _join(group, "", require_known_member_id=False, rebalance_timeout_ms=200)
        await group.sync(member_id=a.member_id, instance_id=None, generation=1, protocol_type=None,
                         protocol_name=None, assignments={})
        b = await _join(group, "", require_known_member_id=False, rebalance_timeout_ms=200)
        assert b.generation == 2 and a.member_id not in group.members and b.leader == b.member_id
        coord.close()
    run(scenario())


def test_classic_session_expiry_empties_the_group():
    async def scenario():
        coord = _coordinator(initial_rebalance_delay_ms=0, classic_min_session_timeout_ms=100)
        group = coord.classic_group("g")
        a = await _join(group, "", require_known_member_id=False, session_timeout_ms=200)
        await group.sync(member_id=a.member_id, instance_id=None, generation=1, protocol_type=None,
                         protocol_name=None, assignments={})
        await asyncio.sleep(0.4)
        assert group.state == "Empty" and not group.members
        coord.close()
    run(scenario())


def test_classic_commit_generation_checks():
    async def scenario():
        coord = _coordinator(initial_rebalance_delay_ms=0)
        simple = coord.group_for_commit("simple", -1, 8)
        assert simple.kind == "classic" and simple.state == "Empty"
        with pytest.raises(BrokerError) as err:
            coord.group_for_commit("nope", 3, 8)
        assert err.value.code == Err.ILLEGAL_GENERATION
        group = coord.classic_group("g")
        a = await _join(group, "", require_known_member_id=False)
        with pytest.raises(BrokerError) as err:
            group.validate_commit(a.member_id, None, 1)
        assert err.value.code == Err.REBALANCE_IN_PROGRESS                  # CompletingRebalance
        await group.sync(member_id=a.member_id, instance_id=None, generation=1, protocol_type=None,
                         protocol_name=None, assignments={})
        group.validate_commit(a.member_id, None, 1)
        for member, generation, code in ((a.member_id, 0, Err.ILLEGAL_GENERATION),
                                         ("x", 1, Err.UNKNOWN_MEMBER_ID), ("", -1, Err.UNKNOWN_MEMBER_ID)):
            with pytest.raises(BrokerError) as err:
                group.validate_commit(member, None, generation)
            assert err.value.code == code
        coord.close()
    run(scenario())


# ---- persistence -------------------------------------------------------------------------

def test_offsets_and_creation_time_survive_restart_and_a_torn_tail(tmp_path):
    async def first_life():
        coord = _coordinator(FakeCluster(data_dir=tmp_path))
        created = coord.consumer_group("cg", create=True).creation_time_ms
        coord.commit("cg", [("a", 0, Committed(42, 3, "meta", 1, str(T1)))])
        coord.commit("simple", [("a", 1, Committed(7, -1, None, 1, str(T1)))])
        coord.commit("gone", [("a", 1, Committed(9, -1, None, 1, str(T1)))])
        coord.classic_group("gone")
        assert coord.delete_group("gone") == Err.NONE
        coord.close()
        return created

    created = run(first_life())
    with open(tmp_path / "groups" / "groups.log", "a") as f:
        f.write('{"k":"offset","g":"cg","t":"a","p":3,"o"')          # a write torn by a crash

    async def second_life():
        coord = _coordinator(FakeCluster(data_dir=tmp_path, clock=1))
        group = coord.group("cg")
        assert group.kind == "consumer" and group.creation_time_ms == created
        assert coord.committed("cg") == {("a", 0): Committed(42, 3, "meta", 1, str(T1))}
        assert coord.group("simple").kind == "classic" and coord.committed("simple")[("a", 1)].offset == 7
        assert coord.group("gone") is None and coord.committed("gone") == {}
        coord.close()
    run(second_life())

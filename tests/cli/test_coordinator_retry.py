"""A coordinator that is not there yet: a fresh Kafka cluster answers FindCoordinator with
COORDINATOR_NOT_AVAILABLE until __consumer_offsets exists, a loading one
COORDINATOR_LOAD_IN_PROGRESS, a moved one NOT_COORDINATOR. kcli's own connection asks again
after librdkafka's backoff (0.1 s doubling to 1 s) until the command's deadline, as librdkafka
did when it served these calls; at the deadline, one line and exit 1. The embedded broker
refuses the next N group keys of an API (EmbeddedCluster.refuse)."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.groups import fast_cluster
from tests.support.clients import commit_groups, consume_and_commit, produce
from tests.support.requests import sent, snapshot
from tests.support.run import run_kcli

GROUPS = ["cr-a", "cr-b", "cr-c"]


@pytest.fixture(scope="module")
def cluster():
    with fast_cluster(3) as ec:
        ec.create_topic("crt", 3)
        commit_groups(ec.bootstrap_servers, GROUPS, COMMITTED)
        yield ec


@pytest.fixture
def ec(cluster):
    yield cluster
    for api in cluster.REFUSABLE:
        cluster.refuse(api, None)


def _offsets(r) -> dict[str, dict[tuple[str, int], int]]:
    """describe groups -o json: each group's committed offsets."""
    assert r.code == 0, r.err
    return {g["group"]: {(p["topic"], p["partition"]): p["currentOffset"] for p in g["partitions"]}
            for g in json.loads(r.out)["groups"]}


COMMITTED = {("crt", p): 1 + p for p in range(3)}


@pytest.mark.parametrize("error", ["COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS", "NOT_COORDINATOR"])
@pytest.mark.parametrize("which", [["cr-b"], ["--all-groups"]], ids=["one group", "all groups"])
def test_describe_groups_asks_again_until_the_coordinator_answers(ec, error, which):
    """A named group: the first three FindCoordinator answers refuse it, a fourth finds it.
    --all-groups: each broker's ListGroups names the groups it coordinates, so no FindCoordinator
    is sent at all (refused, it would have been)."""
    ec.refuse("FindCoordinator", error, None if which == ["--all-groups"] else 3)
    before = snapshot(ec)
    r = run_kcli(ec.bootstrap_servers, "describe", "groups", *which, "-o", "json")
    assert _offsets(r) == {g: COMMITTED for g in (GROUPS if which == ["--all-groups"] else ["cr-b"])}
    assert sent(ec, before).kcli["FindCoordinator"] == (0 if which == ["--all-groups"] else 4)


def test_describe_groups_ends_at_the_deadline_with_one_line(ec):
    ec.refuse("FindCoordinator", "COORDINATOR_NOT_AVAILABLE")
    for which in (["cr-a"],):        # --all-groups needs no FindCoordinator (the test above)
        start = time.monotonic()
        r = run_kcli(ec.bootstrap_servers, "describe", "groups", *which, timeout="1500ms")
        took = time.monotonic() - start
        assert r.code == 1 and r.out == "", r
        assert len(r.err.splitlines()) == 1, r.err
        assert "Cannot find the coordinator of group 'cr-a'" in r.err and "COORDINATOR_NOT_AVAILABLE" in r.err
        assert "--timeout 1500 ms" in r.err, r.err
        assert 1.2 < took < 6, took     # the 1.5 s deadline, with a margin of seconds


@pytest.mark.parametrize("error", ["NOT_COORDINATOR", "COORDINATOR_LOAD_IN_PROGRESS", "COORDINATOR_NOT_AVAILABLE"])
def test_offset_fetch_asks_again(ec, error):
    """OffsetFetch refused for the first groups: asked again (of the coordinator found anew when
    it moved), the offsets shown."""
    ec.refuse("OffsetFetch", error, 3 * len(GROUPS))     # 4 rounds: more than the old fixed 3
    before = snapshot(ec)
    r = run_kcli(ec.bootstrap_servers, "describe", "groups", "--all-groups", "-o", "json")
    assert _offsets(r) == {g: COMMITTED for g in GROUPS}
    s = sent(ec, before).kcli
    assert s["OffsetFetch"] > 1, s
    if error != "COORDINATOR_LOAD_IN_PROGRESS":      # the coordinator is looked up again
        assert s["FindCoordinator"] >= 2, s


def test_reset_execute_waits_for_the_coordinator(ec):
    """The commit path: FindCoordinator refused, then OffsetCommit answered loading more times
    than the old fixed number of rounds (4): committed once they answer."""
    b = ec.bootstrap_servers
    ec.refuse("FindCoordinator", "COORDINATOR_NOT_AVAILABLE", 3)
    ec.refuse("OffsetCommit", "COORDINATOR_LOAD_IN_PROGRESS", 5)
    r = run_kcli(b, "reset-offsets", "-g", "cr-c", "-t", "crt", "--to-offset", "0", "--execute", "-o", "json")
    assert r.code == 0, (r.out, r.err)
    assert _offsets(run_kcli(b, "describe", "groups", "cr-c", "-o", "json"))["cr-c"] == {tp: 0 for tp in COMMITTED}
    commit_groups(b, ["cr-c"], COMMITTED)


def test_reset_execute_ends_at_the_deadline_with_one_line(ec):
    ec.refuse("FindCoordinator", "COORDINATOR_NOT_AVAILABLE")
    start = time.monotonic()
    r = run_kcli(ec.bootstrap_servers, "reset-offsets", "-g", "cr-c", "-t", "crt", "--to-offset", "0",
                 "--execute", timeout="1500ms")
    assert r.code == 1 and len(r.err.splitlines()) == 1, r
    assert "Cannot find the coordinator of group 'cr-c'" in r.err, r.err
    assert time.monotonic() - start < 3.0


def test_a_group_left_out_of_the_answer_is_asked_again(ec):
    """A FindCoordinator answer without one of the keys asked (v4+ batches them): the key is
    asked again, as Java's admin client does, not a KeyError; at the deadline, one line."""
    ec.refuse("FindCoordinator", "OMIT", 2)
    before = snapshot(ec)
    r = run_kcli(ec.bootstrap_servers, "describe", "groups", *GROUPS, "-o", "json")
    assert _offsets(r) == {g: COMMITTED for g in GROUPS}
    assert sent(ec, before).kcli["FindCoordinator"] == 2      # the two left out asked again
    ec.refuse("FindCoordinator", "OMIT")
    r = run_kcli(ec.bootstrap_servers, "describe", "groups", "cr-b", timeout="1s")
    assert r.code == 1 and r.out == "" and len(r.err.splitlines()) == 1, r
    assert "Cannot find the coordinator of group 'cr-b'" in r.err and "leaving it out" in r.err, r.err


@pytest.fixture(scope="module")
def consumer_cluster():
    with fast_cluster(1) as ec:
        ec.create_topic("crc", 2)
        produce(ec.bootstrap_servers, "crc", [(p, "x") for p in range(2)])
        consume_and_commit(ec.bootstrap_servers, "cr-consumer", ["crc"], 2, protocol="consumer")
        yield ec


def test_a_consumer_group_refused_by_a_loading_coordinator_is_not_missing(consumer_cluster):
    """ConsumerGroupDescribe answered COORDINATOR_LOAD_IN_PROGRESS: the group is asked again, not
    passed on to DescribeGroups (which knows no consumer-protocol group: "not found"), both for
    describe groups and for reset-offsets --to-start-time's creation time (KIP-1282)."""
    ec = consumer_cluster
    b = ec.bootstrap_servers
    try:
        _consumer_group_checks(ec, b)
    finally:
        ec.refuse("ConsumerGroupDescribe", None)


def _consumer_group_checks(ec, b):
    ec.refuse("ConsumerGroupDescribe", "COORDINATOR_LOAD_IN_PROGRESS", 2)
    r = run_kcli(b, "describe", "groups", "cr-consumer", "--state", "--verbose", "-o", "json")
    assert r.code == 0, r.err
    (g,) = json.loads(r.out)["groups"]
    assert g["type"] == "Consumer" and g["groupCreationTimeMs"] > 0, g
    ec.refuse("ConsumerGroupDescribe", "COORDINATOR_LOAD_IN_PROGRESS", 2)
    r = run_kcli(b, "reset-offsets", "-g", "cr-consumer", "-t", "crc", "--to-start-time", "-o", "json")
    assert r.code == 0, r.err
    ec.refuse("ConsumerGroupDescribe", "COORDINATOR_LOAD_IN_PROGRESS")
    r = run_kcli(b, "describe", "groups", "cr-consumer", "--state", timeout="1s")
    assert r.code == 1 and len(r.err.splitlines()) == 1, r
    assert "Cannot describe group 'cr-consumer'" in r.err and "load in progress" in r.err, r.err


def test_a_streams_group_refused_by_a_loading_coordinator_is_not_missing():
    """StreamsGroupDescribe answered COORDINATOR_LOAD_IN_PROGRESS: the streams group is asked
    again until the deadline (it used to be left out: "not found"), then one line, exit 1."""
    from tests.support.groups import RawClient, coordinator_of
    from tests.support.streams_wire import heartbeat

    with fast_cluster(1) as ec:
        ec.create_topic("in", 2)
        raw = RawClient(ec.bootstrap_servers)
        try:
            assert heartbeat(raw, coordinator_of(ec, "sg-app"), "sg-app", "m1", 0).error_code == 0
        finally:
            raw.close()
        b = ec.bootstrap_servers
        ec.refuse("StreamsGroupDescribe", "COORDINATOR_LOAD_IN_PROGRESS", 2)
        r = run_kcli(b, "describe", "groups", "sg-app", "--state", "-o", "json")
        assert r.code == 0, r.err
        (g,) = json.loads(r.out)["groups"]
        assert g["group"] == "sg-app" and g["type"] == "Streams", g
        ec.refuse("StreamsGroupDescribe", "COORDINATOR_LOAD_IN_PROGRESS")
        try:
            r = run_kcli(b, "describe", "groups", "sg-app", "--state", timeout="1s")
        finally:
            ec.refuse("StreamsGroupDescribe", None)
        assert r.code == 1 and len(r.err.splitlines()) == 1 and "streams group 'sg-app'" in r.err, r

"""Groups at scale: ``list groups`` and ``describe groups --all-groups`` in each view,
``reset-offsets --all-groups`` (planned: --all-topics, --topic, --from-file) and ``check
expansions`` send kcli's own requests per broker, never per group: one ListGroups per broker
(each names the groups it coordinates: no FindCoordinator), one ConsumerGroupDescribe (for the
groups listed as consumer-protocol groups) and one DescribeGroups per coordinator, one
OffsetFetch v8+ (many groups) per coordinator, one ListOffsets and one Fetch (time lag) per
leader for all the groups' partitions. Counted by the embedded broker per client id
(tests/support/requests.py): kcli's own exactly; librdkafka sends none."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.groups import fast_cluster
from tests.support.clients import active_member, commit_groups, produce
from tests.support.requests import sent, snapshot
from tests.support.run import run_kcli

VIEWS = {"offsets": ["-o", "json"], "offsets plain": ["-o", "plain"], "members": ["--members", "-o", "json"],
         "state": ["--state", "--verbose", "-o", "json"]}


@pytest.fixture(scope="module")
def groups_cluster():
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        for t in ("ga", "gb"):
            ec.create_topic(t, 3)
            produce(b, t, [(p, "x") for p in range(3) for _ in range(4)])
        # a topic grown from 1 to 3 partitions: check expansions has young partitions to check
        ec.create_topic("gx", 1, creation_time_ms=int(time.time() * 1000) - 60_000)
        r = run_kcli(b, "alter", "topic", "gx", "--partitions", "3")
        assert r.code == 0, r.err
        produce(b, "gx", [(p, "x") for p in (1, 2)])
        yield ec


RESETS = {"all topics": ["--all-topics", "--to-earliest"], "topic": ["-t", "ga", "--to-latest"],
          "file": ["--from-file", "FILE"]}


def _counts(ec, n: int, tmp_path) -> dict[str, dict[str, int]]:
    """kcli's own requests per view, with ``n`` groups in the cluster (made up to ``n``)."""
    b = ec.bootstrap_servers
    ids = [f"scale-{i:04d}" for i in range(n)]
    commit_groups(b, ids, {**{(t, p): 1 + (p % 3) for t in ("ga", "gb") for p in range(3)}, ("gx", 0): 0})
    out = {}
    for view, args in VIEWS.items():
        before = snapshot(ec)
        r = run_kcli(b, "describe", "groups", "--all-groups", *args)
        assert r.code == 0, r.err
        if view == "offsets":
            doc = json.loads(r.out)
            groups = doc["groups"] if isinstance(doc, dict) else doc
            assert len(groups) == n, len(groups)
        out[view] = dict(sent(ec, before).kcli)
    before = snapshot(ec)
    r = run_kcli(b, "list", "groups", "-o", "plain")
    assert r.code == 0 and len(r.out.splitlines()) == n, r
    out["list"] = dict(sent(ec, before).kcli)
    plan_file = tmp_path / f"plan-{n}.csv"
    plan_file.write_text("".join(f"{g},ga,{p},0\n" for g in ids for p in range(3)))
    for what, args in RESETS.items():
        before = snapshot(ec)
        r = run_kcli(b, "reset-offsets", "--all-groups", *[str(plan_file) if a == "FILE" else a for a in args],
                     "-o", "json")
        assert r.code == 0, r.err
        plans = json.loads(r.out)["groups"]
        assert len(plans) == n and all(len(g["partitions"]) == (7 if what == "all topics" else 3) for g in plans), r.out
        out[what] = dict(sent(ec, before).kcli)
    before = snapshot(ec)
    r = run_kcli(b, "check", "expansions", "-o", "json")
    assert r.code == 4, r.err                      # every group committed gx-0 only: gx-1, gx-2 exposed
    doc = json.loads(r.out)
    assert {len(p["groups"]) for p in doc["partitions"]} == {n}, doc["partitions"]
    out["expansions"] = dict(sent(ec, before).kcli)
    return out


def test_kclis_requests_do_not_grow_with_the_groups(groups_cluster, tmp_path):
    small, large = _counts(groups_cluster, 50, tmp_path), _counts(groups_cluster, 200, tmp_path)
    assert small == large, (small, large)
    offsets = large["offsets"]
    # per coordinator (3 nodes), per leader (3 nodes): never per group (ListGroups: one per
    # broker, every type of group at once, for --all-groups)
    assert "FindCoordinator" not in offsets and offsets["ListGroups"] == 3
    assert offsets["OffsetFetch"] <= 3 and offsets["DescribeGroups"] <= 3
    assert offsets["ListOffsets"] <= 3 and offsets["Fetch"] <= 3
    assert large["members"].get("OffsetFetch", 0) == 0 and large["state"].get("ListOffsets", 0) == 0
    for what in (*RESETS, "expansions"):          # planned, not executed: no OffsetCommit
        assert large[what]["OffsetFetch"] <= 3 and large[what].get("OffsetCommit", 0) == 0, (what, large[what])


def test_listing_groups_takes_one_list_groups_per_broker_and_no_librdkafka():
    """``list groups`` (each layout) and ``describe groups --all-groups`` list the groups with
    one ListGroups per broker on kcli's own connection (every type of group at once: consumer,
    streams and share groups): no librdkafka
    client is made (its start
    and its import were most of a 10k-group listing's time). A cluster of its own: the scale
    test counts every group of its cluster."""
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("ga", 3)
        commit_groups(b, [f"listed-{i}" for i in range(30)], {("ga", 0): 1})
        for args in (["list", "groups", "-o", "plain"], ["list", "groups", "--state", "--type", "-o", "json"],
                     ["describe", "groups", "--all-groups", "--state", "-o", "json"]):
            before = snapshot(ec)
            r = run_kcli(b, *args)
            assert r.code == 0, r.err
            s = sent(ec, before)
            assert s.kcli["ListGroups"] == 3 and not s.librdkafka, (args, s.kcli, s.librdkafka)
            if args[0] == "describe":              # every group listed as classic: DescribeGroups alone
                assert "ConsumerGroupDescribe" not in s.kcli and s.kcli["DescribeGroups"] <= 3, s.kcli
        listed = json.loads(run_kcli(b, "list", "groups", "--state", "--type", "-o", "json").out)["groups"]
    assert {"group": "listed-0", "type": "Classic", "state": "Empty"} in listed, listed


def test_all_groups_describe_a_consumer_group_with_consumer_group_describe_alone():
    """--all-groups: a group listed as a consumer-protocol group is described by
    ConsumerGroupDescribe (one, its coordinator's), those listed as classic by DescribeGroups;
    each view shows both kinds as when named. A cluster of its own: its consumer-protocol group
    stays (empty) after the test, where the module's tests count on classic groups alone."""
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("gb", 3)
        commit_groups(b, ["classic-a", "classic-b"], {("gb", 0): 1})
        with active_member(b, "cgd-consumer", ["gb"], protocol="consumer"):
            before = snapshot(ec)
            r = run_kcli(b, "describe", "groups", "--all-groups", "--state", "-o", "json")
            assert r.code == 0, r.err
            s = sent(ec, before)
            named = run_kcli(b, "describe", "groups", "cgd-consumer", "--state", "-o", "json")
    assert s.kcli["ConsumerGroupDescribe"] == 1 and 1 <= s.kcli["DescribeGroups"] <= 3, s.kcli
    states = {g["group"]: g for g in json.loads(r.out)["groups"]}
    assert states["cgd-consumer"] == json.loads(named.out)["groups"][0], (states["cgd-consumer"], named.out)
    assert states["cgd-consumer"]["type"] == "Consumer" and states["cgd-consumer"]["members"] == 1
    assert {g["type"] for name, g in states.items() if name != "cgd-consumer"} == {"Classic"}

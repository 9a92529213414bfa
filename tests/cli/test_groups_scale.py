"""Groups at scale (issue 28): ``list groups`` and ``describe groups --all-groups`` in each view
send kcli's own requests per broker, never per group: a batched FindCoordinator, one
ConsumerGroupDescribe and one DescribeGroups per coordinator, one OffsetFetch v8+ (many groups)
per coordinator, one ListOffsets and one Fetch (time lag) per leader for all the groups'
partitions. Counted by the embedded broker per client id (tests/support/requests.py): kcli's own
exactly, librdkafka's (ListGroups, on its own timing) not at all."""

from __future__ import annotations

import json

import pytest

from tests.broker.groups_fixtures import fast_cluster
from tests.support.clients import commit_groups, produce
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
        yield ec


def _counts(ec, n: int) -> dict[str, dict[str, int]]:
    """kcli's own requests per view, with ``n`` groups in the cluster (made up to ``n``)."""
    b = ec.bootstrap_servers
    commit_groups(b, [f"scale-{i:04d}" for i in range(n)],
                  {(t, p): 1 + (p % 3) for t in ("ga", "gb") for p in range(3)})
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
    return out


def test_kclis_requests_do_not_grow_with_the_groups(groups_cluster):
    small, large = _counts(groups_cluster, 50), _counts(groups_cluster, 200)
    assert small == large, (small, large)
    offsets = large["offsets"]
    # per coordinator (3 nodes), per leader (3 nodes): never per group
    assert offsets["FindCoordinator"] == 1 and offsets["OffsetFetch"] <= 3 and offsets["DescribeGroups"] <= 3
    assert offsets["ListOffsets"] <= 3 and offsets["Fetch"] <= 3
    assert large["members"].get("OffsetFetch", 0) == 0 and large["state"].get("ListOffsets", 0) == 0

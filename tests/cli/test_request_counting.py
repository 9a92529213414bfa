"""The request counts the tests compare, told apart by connection (tests/support/requests.py):
kcli's own (client id ``kcli``) exactly, librdkafka's connections, metadata refreshes and
coordinator lookups within bounds. A fresh clone's suite once failed on librdkafka opening one
more connection (ApiVersions 5 vs 6, Metadata 4 vs 5, FindCoordinator 2 vs 3)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.groups import fast_cluster
from tests.support.clients import commit, produce
from tests.support.requests import Sent, same_requests, sent, snapshot
from tests.support.run import run_kcli


def made(kcli: dict, librdkafka: dict) -> Sent:
    s = Sent(Counter(kcli) + Counter(librdkafka))
    s.kcli, s.librdkafka = Counter(kcli), Counter(librdkafka)
    return s


def test_librdkafkas_own_timing_is_bounded_and_kclis_requests_are_exact():
    ours = {"ApiVersions": 3, "Metadata": 2, "Fetch": 3, "ListOffsets": 3}
    # the flake: one more librdkafka connection, so one more of each connection-level request
    same_requests(made(ours, {"ApiVersions": 5, "Metadata": 4, "FindCoordinator": 2, "DescribeGroups": 1}),
                  made(ours, {"ApiVersions": 6, "Metadata": 5, "FindCoordinator": 3, "DescribeGroups": 1}))
    with pytest.raises(AssertionError):        # kcli's own: every one counts
        same_requests(made(ours, {}), made({**ours, "ApiVersions": 4}, {}))
    with pytest.raises(AssertionError):        # librdkafka's admin calls are kcli's to make
        same_requests(made(ours, {"DescribeGroups": 1}), made(ours, {"DescribeGroups": 2}))
    with pytest.raises(AssertionError):        # bounded, not unbounded
        same_requests(made(ours, {"Metadata": 40}), made(ours, {"Metadata": 40}))


def test_the_broker_counts_requests_per_client_id():
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("split", 3)
        produce(b, "split", [(p, "x") for p in range(3)])
        commit(b, "split-g", {("split", p): 0 for p in range(3)})
        before = snapshot(ec)
        assert run_kcli(b, "describe", "groups", "--all-groups", "-o", "json").code == 0
        s = sent(ec, before)
        # kcli's own connections: one per node it asks (ApiVersions each), Fetch and ListOffsets
        # per leader, the group and its offsets from the coordinator, the groups listed per
        # broker; librdkafka is not started
        assert s.kcli["ApiVersions"] == 3 and s.kcli["Fetch"] == 3 and s.kcli["OffsetFetch"] == 1
        assert s.kcli["DescribeGroups"] == 1 and s.kcli["ListGroups"] == 3 and not s.librdkafka
        assert s == s.kcli + s.librdkafka                     # nobody else spoke

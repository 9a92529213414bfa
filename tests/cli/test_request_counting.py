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
from tests.support.run import run_dropin, run_kcli


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
        # broker (every type at once); librdkafka is not started
        assert s.kcli["ApiVersions"] == 3 and s.kcli["Fetch"] == 3 and s.kcli["OffsetFetch"] == 1
        assert s.kcli["DescribeGroups"] == 1 and s.kcli["ListGroups"] == 3 and not s.librdkafka
        assert s == s.kcli + s.librdkafka                     # nobody else spoke


def test_a_reset_dry_run_and_get_offsets_ask_for_the_cluster_metadata_once():
    """One Metadata answer serves a command's every ask for the brokers (the
    coordinator's address, the COORDINATOR column, the leaders' addresses); a reset dry run sent
    two identical Metadata requests for no topic, get-offsets one for no topic after one for
    every topic. kcli's own requests, exactly; librdkafka is not started."""
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("spread", 3)
        produce(b, "spread", [(p, "x") for p in range(3)] * 2)
        commit(b, "spread-g", {("spread", p): 1 for p in range(3)})
        before = snapshot(ec)
        r = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", "spread-g",
                       "--topic", "spread", "--to-earliest", "--dry-run")
        assert r.code == 0 and r.out.count("spread-g") == 3, r.err
        s = sent(ec, before)
        # the coordinator's address and the brokers from one Metadata, the topic's leaders from
        # another; earliest and latest offsets from each of the three leaders
        assert s.kcli["Metadata"] == 2 and s.kcli["FindCoordinator"] == 1 and s.kcli["ListOffsets"] == 6
        assert s.kcli["OffsetFetch"] == 1 and not s.librdkafka and s == s.kcli
        before = snapshot(ec)
        r = run_dropin("kafka-get-offsets", "--bootstrap-server", b, "--topic", "spread")
        assert r.code == 0 and r.out == "spread:0:2\nspread:1:2\nspread:2:2\n", r.err
        s = sent(ec, before)
        # every topic's leaders and the brokers' addresses from one Metadata; one ListOffsets per leader
        assert s.kcli["Metadata"] == 1 and s.kcli["ListOffsets"] == 3 and not s.librdkafka and s == s.kcli

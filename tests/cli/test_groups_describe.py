"""list/describe/delete groups and delete-offsets through the real entry point, groups made by
real consumers of both protocols (Apache Kafka's DescribeConsumerGroupTest, ListConsumerGroupTest,
DeleteConsumerGroupsTest)."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys

import pytest

from tests.support.groups import consume, fast_cluster, on_coordinator
from tests.support.run import run_dropin, run_kcli
from tests.support.clients import consume_and_commit, consumer, produce


@pytest.fixture(scope="module")
def ec():
    with fast_cluster(1) as c:
        c.create_topic("d", 2)
        for p in (0, 1):
            produce(c.bootstrap_servers, "d", [(p, f"r-{i}") for i in range(5)])
        yield c


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_describe_views_of_a_stable_then_empty_group(ec, protocol):
    b, group = ec.bootstrap_servers, f"desc-{protocol}"
    c = consumer(b, group, protocol)
    c.subscribe(["d"])
    consume([c], 10)
    c.commit(asynchronous=False)
    try:
        r = run_kcli(b, "describe", "groups", group, "-o", "plain")
        assert r.code == 0 and r.err == ""
        lines = r.out.splitlines()
        assert lines[0] == "" and lines[1].split()[:6] == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                                                          "LOG-END-OFFSET", "LAG"]
        assert [line.split()[:6] for line in lines[2:]] == [[group, "d", str(p), "5", "5", "0"] for p in (0, 1)]
        assert all(line.split()[7] == "/127.0.0.1" for line in lines[2:])
        r = run_kcli(b, "describe", "groups", group, "--members", "--verbose", "-o", "plain")
        row = r.out.splitlines()[2].split()
        assert row[4:] == (["2", "-", "d:0,1", "-", "-"] if protocol == "classic" else ["2", row[5], "d:0,1", row[7],
                                                                                        "d:0,1"])
        r = run_kcli(b, "describe", "groups", group, "--state", "--verbose", "-o", "plain")
        header, row = r.out.splitlines()[1:]
        assert header.split()[-2:] == ["#MEMBERS", "GROUP-CREATION-TIME"]
        assert row.split()[4] == "Stable" and row.split()[-2] == "1"
        assert (row.split()[-1] == "-") == (protocol == "classic")
        r = run_kcli(b, "reset-offsets", "-g", group, "--all-topics", "--to-earliest", "--execute")
        assert r.code == 1 and "is inactive, but the current state is Stable." in r.err
    finally:
        c.close()
    r = run_kcli(b, "describe", "groups", group, "-o", "plain")
    assert r.code == 0 and f"Consumer group '{group}' has no active members." in r.err
    assert [line.split()[6:] for line in r.out.splitlines()[2:]] == [["-", "-", "-"]] * 2
    r = run_kcli(b, "list", "groups", "--state", "empty", "-o", "plain")
    assert group in [line.split()[0] for line in r.out.splitlines()[1:]]


def test_list_names_the_consumer_protocol_states_as_kafka_does(ec):
    """A consumer-protocol group between assignments is Reconciling in the listing, as
    kafka-consumer-groups --list --state names it, and --state Reconciling finds it (it was
    "Unknown", librdkafka's name, so the filter missed it)."""
    b, group = ec.bootstrap_servers, "list-reconciling"

    def two_members(coordinator):
        g = coordinator.consumer_group(group, create=True)
        for member in ("A", "B"):     # B's partitions are withheld until A revokes them: A never heartbeats again
            g.heartbeat(member_id=member, epoch=0, instance_id=None, rack_id=None, rebalance_timeout_ms=30000,
                        subscribed_names=["d"], subscribed_regex=None, server_assignor=None, owned=[],
                        client_id="c", client_host="/127.0.0.1")
        return g.state

    assert on_coordinator(ec, two_members) == "Reconciling"
    listed = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--list", "--state")
    listed_lines = [line.split() for line in listed.out.splitlines() if line.startswith(group)]
    assert listed_lines == [[group, "Reconciling"]], listed.out
    for spelling in ("Reconciling", "reconciling"):
        r = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--list", "--state", spelling)
        assert [line.split()[0] for line in r.out.splitlines()[1:]] == [group], r.out
    r = run_kcli(b, "list", "groups", "--state", "reconciling", "--type", "-o", "json")
    assert {"group": group, "type": "Consumer", "state": "Reconciling"} in json.loads(r.out)["groups"], r.out


def test_missing_group_and_bad_input(ec):
    b = ec.bootstrap_servers
    r = run_kcli(b, "describe", "groups", "missing.group", "--state")
    assert (r.code, r.err) == (1, "Error: Group missing.group not found.\n")
    r = run_kcli(b, "list", "groups", "--type", "queue")
    assert (r.code, r.err) == (2, "Error: Invalid types list 'queue'. Valid types are: Classic, Consumer, Streams, "
                                  "Share\n")


def test_delete_offsets_and_groups(ec):
    b = ec.bootstrap_servers
    consume_and_commit(b, "del-g", ["d"], 10)
    r = run_kcli(b, "delete-offsets", "-g", "del-g", "-t", "d:0", "-o", "plain")
    assert r.code == 0
    assert r.out.startswith("Request succeeded for deleting offsets from group del-g.\n")
    assert "\nd               0          Successful     " in r.out
    r = run_kcli(b, "delete-offsets", "-g", "del-g", "--group", "other-g", "-t", "d:1", "-o", "plain")
    assert (r.code, r.out, r.err) == (2, "", "Error: delete-offsets takes one --group; given 2: del-g, other-g\n")
    r = run_kcli(b, "delete-offsets", "-g", "nope-group", "-t", "d", "-o", "plain")
    assert r.code == 1 and "Error: The group id does not exist." in r.out
    r = run_kcli(b, "delete", "groups", "del-g", "-o", "plain")
    assert (r.code, r.out) == (0, "Deletion of requested consumer groups ('del-g') was successful.\n")
    r = run_kcli(b, "delete", "groups", "del-g", "-o", "plain")
    assert r.code == 1 and "* Group 'del-g' could not be deleted due to:" in r.out


def test_list_groups_without_an_answer_is_a_failure_not_an_empty_list():
    """Regression: librdkafka reported a broker that never answered in the result's errors, and
    the empty list was printed with exit 0. The groups are now listed on kcli's own connection,
    whose silent broker fails the same way as every other command's."""
    with socket.socket() as s:                      # accepts connections (the backlog), never answers
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        port = s.getsockname()[1]
        r = run_kcli(f"127.0.0.1:{port}", "list", "groups", timeout="1s")
    assert (r.code, r.out) == (1, "") and f"Cannot reach the cluster at 127.0.0.1:{port} within 1000 ms" in r.err


class _Counted(io.StringIO):
    """A stream that counts its writes."""

    def __init__(self):
        super().__init__()
        self.writes = 0

    def write(self, text):
        self.writes += 1
        return super().write(text)


@pytest.mark.parametrize("view", [[], ["--members"], ["--state"]])
def test_dropin_describe_of_many_groups_writes_in_big_pieces_unless_one_file_shows_the_order(view):
    """kafka-consumer-groups --describe --all-groups: each empty group's notice (stderr) comes
    just before its view (stdout), each line flushed by the Java tool. kcli keeps that order
    where it shows, stdout and stderr being one file (a terminal, ``2>&1``); otherwise it writes
    each stream in a few pieces, not one write per group and stream (20k write calls
    at 10k groups, a fifth of a --state's CPU). stdout is the same either way."""
    from kcli.cli.main import run
    from tests.support.clients import commit_groups

    with fast_cluster(1) as c:
        b = c.bootstrap_servers
        c.create_topic("many", 1)
        groups = [f"many-{i:03d}" for i in range(300)]
        commit_groups(b, groups, {("many", 0): 0})
        argv = ["kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--all-groups", *view]
        out, err = _Counted(), _Counted()
        assert run(argv, out, err) == 0
        notices = [f"\nConsumer group '{g}' has no active members.\n" for g in groups]
        assert err.getvalue() == "".join(notices) and err.writes == 1
        named = view != ["--members"]                      # an empty group's members: the header only
        assert out.writes <= 3 and out.getvalue().count("\nGROUP ") == 300
        assert out.getvalue().count("many-") == (300 if named else 0)
        both = _Counted()
        assert run(argv, both, both) == 0                  # one file: the tool's order, group by group
        text = both.getvalue()
        assert [text.index(n) for n in notices] == sorted(text.index(n) for n in notices)
        for g, n, after in zip(groups, notices, notices[1:] + [None]):
            view_text = text[text.index(n) + len(n):text.index(after) if after else len(text)]
            assert view_text.startswith("\nGROUP ") and (f"{g} " in view_text or not named)
        views = text
        for n in notices:
            views = views.replace(n, "", 1)
        assert views == out.getvalue()                     # stdout the same either way
        proc = subprocess.run([sys.executable, "-m", "kcli", *argv], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=120)
        assert proc.returncode == 0 and proc.stdout == text  # 2>&1: one pipe, the same order


def test_a_streams_state_view_whose_list_offsets_hangs_says_so_and_exits_1():
    """describe groups APP --state with ListOffsets unanswered: the state is shown, the internal
    topic's RECORDS unknown, and the command says why (one Error line naming the topic, exit 1:
    the answer is incomplete), where it exited 0 in silence with "records": null."""
    import time

    from kcli.broker import EmbeddedCluster
    from tests.support.groups import RawClient
    from tests.support.streams_wire import heartbeat, topology

    with EmbeddedCluster() as ec:
        b = ec.bootstrap_servers
        ec.create_topic("t", 3)
        raw = RawClient(b)
        node = ec.call(ec.cluster.coordinator_node, "sg")
        joined = heartbeat(raw, node, "sg", "m1", 0, topo=topology("t", changelog="sg-store-changelog"))
        for _ in range(50):                          # bounded: the coordinator creates the changelog
            heartbeat(raw, node, "sg", "m1", joined.member_epoch, active=[])
            r = run_kcli(b, "describe", "groups", "sg", "--state", "-o", "json")
            (g,) = json.loads(r.out)["groups"]
            if g["internalTopics"]:
                break
            time.sleep(0.1)
        assert (r.code, g["internalTopics"]) == (0, [{"topic": "sg-store-changelog", "partitions": 3, "records": 0,
                                                      "sizeBytes": 0}])
        ec.fault("ListOffsets", "hang")
        for fmt in ("json", "table"):
            r = run_kcli(b, "describe", "groups", "sg", "--state", "-o", fmt, timeout="3s")
            assert r.code == 1, (fmt, r)
            error = json.loads(r.err)["error"] if fmt == "json" else r.err.removeprefix("Error: ")
            assert error.startswith("Cannot read the internal topics' records (ListOffsets): ") and error.rstrip(
                ).endswith("records unknown for sg-store-changelog"), (fmt, r.err)
            assert len(r.err.splitlines()) == 1
            if fmt == "json":
                (g,) = json.loads(r.out)["groups"]
                assert g["internalTopics"] == [{"topic": "sg-store-changelog", "partitions": 3, "records": None,
                                                "sizeBytes": 0}]
            else:
                assert "sg-store-changelog" in r.out

"""A drop-in reset whose commit fails: kafka-consumer-groups and kafka-streams-groups print the
tool's error line for the commit (Apache Kafka 4.4's words, checked against its tools run on
this broker) instead of a plan, kcli's account of what was applied, not applied and unknown on
stderr, and kcli's exit code; kafka-streams-groups deletes the internal topics only once every
planned offset is read back as committed. Through kcli's entry point, against the embedded
broker refusing (``ec.refuse``) or never answering (``ec.fault``) the OffsetCommit. Also a
streams group described as a consumer group: the broker's "is not a consumer group"."""

from __future__ import annotations

import os
import re
from contextlib import contextmanager

import pytest

from kcli.broker.groups import coordinator_for
from kcli.broker.groups.store import Committed
from tests.support.clients import commit, committed, produce, unique
from tests.support.groups import RawClient, fast_cluster
from tests.support.run import run_dropin
from tests.support.streams_wire import heartbeat, topology

NODE_ASSIGNMENT = "Timed out waiting for a node assignment. Call: offsetCommit(api=OFFSET_COMMIT)"
UNANSWERED = re.compile(r"Call\(callName=offsetCommit\(api=OFFSET_COMMIT\), deadlineMs=\d+, tries=1, "
                        r"nextAllowedTryMs=\d+\) timed out at \d+ after 1 attempt\(s\)")
CONSUMER_ERROR = "\nError: Executing consumer group command failed due to "
STREAMS_ERROR = "\nError: Executing streams group command failed due to "


@pytest.fixture(scope="module")
def ec():
    with fast_cluster(1) as c:
        yield c


@contextmanager
def commits(ec, refuse: str | None = None, fault: str | None = None):
    """The OffsetCommits refused with ``refuse`` or met by ``fault`` while inside."""
    if refuse:
        ec.refuse("OffsetCommit", refuse)
    if fault:
        ec.fault("OffsetCommit", fault)
    try:
        yield
    finally:
        ec.refuse("OffsetCommit", None)
        ec.fault("OffsetCommit", None)


def consumer_group(ec, topic: str | None = None) -> tuple[str, str]:
    """A topic of 3 partitions with 4 records each, and a group that committed 2 on each."""
    topic, group = topic or unique("t"), unique("g")
    ec.create_topic(topic, 3)
    produce(ec.bootstrap_servers, topic, [(p, b"v", None) for p in range(3) for _ in range(4)])
    commit(ec.bootstrap_servers, group, {(topic, p): 2 for p in range(3)})
    return topic, group


def reset(ec, tool: str, group: str, *scope: str) -> object:
    return run_dropin("--timeout", "3s", tool, "--bootstrap-server", ec.bootstrap_servers, "--group", group,
                      "--reset-offsets", *scope, "--to-earliest", "--execute")


def test_a_refused_commit_is_the_tools_error_and_kcli_names_what_was_not_applied(ec):
    topic, group = consumer_group(ec)
    with commits(ec, refuse="COORDINATOR_NOT_AVAILABLE"):
        r = reset(ec, "kafka-consumer-groups", group, "--all-topics")
    assert r.code == 1, r
    assert r.out == f"{CONSUMER_ERROR}{NODE_ASSIGNMENT}\n"          # no plan: the tool threw before it
    assert r.err.splitlines()[-1] == (
        "No offsets were committed (3 partitions): not applied: "
        + ", ".join(f"group '{group}' {topic}-{p} (Broker: Coordinator not available)" for p in range(3)))
    assert committed(ec.bootstrap_servers, group) == {(topic, p): 2 for p in range(3)}


def test_a_commit_refused_for_its_partitions_lists_them_in_the_tools_order(ec):
    """Kafka 4.4's kafka-consumer-groups on this broker, topic "t": [t-2, t-1, t-0]."""
    topic, group = consumer_group(ec, "t")
    with commits(ec, refuse="UNKNOWN_MEMBER_ID"):
        r = reset(ec, "kafka-consumer-groups", group, "--all-topics")
    assert r.code == 1, r
    assert r.out == f"{CONSUMER_ERROR}Failed altering group offsets for the following partitions: [t-2, t-1, t-0]\n"
    assert "No offsets were committed (3 partitions): not applied:" in r.err


def test_an_unanswered_commit_is_the_tools_timeout_and_its_outcome_unknown(ec):
    topic, group = consumer_group(ec)
    with commits(ec, fault="hang"):
        r = reset(ec, "kafka-consumer-groups", group, "--all-topics")
    assert r.code == 3, r
    assert UNANSWERED.fullmatch(r.out.removeprefix(CONSUMER_ERROR).rstrip("\n")), r.out
    assert r.err.splitlines()[-1].startswith("0 of 3 partitions committed, 0 not, 3 unknown: unknown: "
                                             f"group '{group}' {topic}-0 (")


def test_a_commit_that_succeeds_still_prints_the_plan_and_nothing_more(ec):
    topic, group = consumer_group(ec)
    r = reset(ec, "kafka-consumer-groups", group, "--all-topics")
    assert r.code == 0, r
    rows = sorted(line.split() for line in r.out.strip().splitlines()[1:])
    assert rows == [[group, topic, str(p), "0"] for p in range(3)]
    assert r.err.startswith("Rollback file") and len(r.err.splitlines()) == 1


def streams_group(ec) -> tuple[str, str, str]:
    """An Empty streams group (joined with a changelog topic, then left) that committed 5 on
    each partition of its 3-partition input topic: (input topic, group, changelog topic)."""
    topic, group = unique("in"), unique("sg")
    changelog = f"{group}-store-changelog"
    ec.create_topic(topic, 3)
    produce(ec.bootstrap_servers, topic, [(p, b"v", None) for p in range(3) for _ in range(6)])
    raw = RawClient(ec.bootstrap_servers)
    try:
        node = ec.call(ec.cluster.coordinator_node, group)
        joined = heartbeat(raw, node, group, "m1", 0, topo=topology(topic, changelog=changelog))
        heartbeat(raw, node, group, "m1", joined.member_epoch, active=[])
        heartbeat(raw, node, group, "m1", -1)
    finally:
        raw.close()

    def set_committed():
        tid = str(ec.cluster.topics[topic].topic_id)
        coordinator_for(ec.cluster).commit(group, [(topic, p, Committed(5, -1, "", ec.cluster.now_ms(), tid))
                                                   for p in range(3)])
    ec.call(set_committed)
    assert changelog in ec.call(lambda: set(ec.cluster.topics))
    return topic, group, changelog


@pytest.mark.parametrize("refuse, fault, code", [("COORDINATOR_NOT_AVAILABLE", None, 1), (None, "hang", 3)])
def test_a_streams_reset_whose_commit_fails_keeps_the_internal_topics(ec, refuse, fault, code):
    topic, group, changelog = streams_group(ec)
    with commits(ec, refuse=refuse, fault=fault):
        r = reset(ec, "kafka-streams-groups", group, "--all-input-topics", "--delete-all-internal-topics")
    assert r.code == code, r
    assert r.out.startswith(STREAMS_ERROR) and "GROUP" not in r.out
    assert f"Internal topics of group '{group}' kept: its offsets were not all committed (above)" in r.err
    assert changelog in ec.call(lambda: set(ec.cluster.topics))
    assert committed(ec.bootstrap_servers, group) == {(topic, p): 5 for p in range(3)}


def test_a_streams_reset_keeps_the_named_internal_topic_when_its_commit_is_refused(ec):
    topic, group, changelog = streams_group(ec)
    with commits(ec, refuse="NOT_COORDINATOR"):
        r = reset(ec, "kafka-streams-groups", group, "--all-input-topics", "--delete-internal-topic", changelog)
    assert (r.code, r.out) == (1, f"{STREAMS_ERROR}{NODE_ASSIGNMENT}\n"), r
    assert changelog in ec.call(lambda: set(ec.cluster.topics))


def test_a_streams_reset_that_is_read_back_deletes_the_internal_topics(ec):
    topic, group, changelog = streams_group(ec)
    r = reset(ec, "kafka-streams-groups", group, "--all-input-topics", "--delete-all-internal-topics")
    assert r.code == 0, r
    assert changelog not in ec.call(lambda: set(ec.cluster.topics))
    assert committed(ec.bootstrap_servers, group) == {(topic, p): 0 for p in range(3)}


@pytest.mark.parametrize("mode", ["--execute", "--dry-run"])
def test_a_streams_reset_of_a_missing_group_is_apaches_not_found(ec, mode):
    topic, group = unique("in"), unique("nosuch")
    ec.create_topic(topic, 1)
    state = os.environ["XDG_STATE_HOME"]
    r = run_dropin("--timeout", "3s", "kafka-streams-groups", "--bootstrap-server", ec.bootstrap_servers,
                   "--group", group, "--reset-offsets", "--all-input-topics", "--to-earliest", mode)
    assert (r.code, r.out, r.err) == (1, f"{STREAMS_ERROR}java.util.concurrent.ExecutionException: org.apache.kafka."
                                         f"common.errors.GroupIdNotFoundException: Group {group} not found.\n", "")
    assert not any(group in name for _, _, names in os.walk(state) for name in names)   # no rollback file
    assert group not in [g.split()[0] for g in run_dropin("kafka-consumer-groups", "--bootstrap-server",
                                                          ec.bootstrap_servers, "--list").out.splitlines()]


# -- a streams group described as a consumer group keeps the broker's words --------------------

@pytest.mark.parametrize("view", [[], ["--members"], ["--state"]])
def test_describing_a_streams_group_as_a_consumer_group_is_not_a_consumer_group(ec, view):
    """Kafka 4.4's kafka-consumer-groups on this broker prints the broker's answer to its
    ConsumerGroupDescribe: "Group G is not a consumer group." (its exit code is 0, kcli's 1)."""
    topic, group, _ = streams_group(ec)
    r = run_dropin("kafka-consumer-groups", "--bootstrap-server", ec.bootstrap_servers, "--describe", "--group",
                   group, *view)
    assert (r.code, r.out, r.err) == (1, f"{CONSUMER_ERROR}org.apache.kafka.common.errors.GroupIdNotFoundException: "
                                         f"Group {group} is not a consumer group.\n", "")
    missing = unique("nosuch")
    r = run_dropin("kafka-consumer-groups", "--bootstrap-server", ec.bootstrap_servers, "--describe", "--group",
                   missing, *view)
    assert (r.code, r.out) == (1, f"{CONSUMER_ERROR}org.apache.kafka.common.errors.GroupIdNotFoundException: "
                                  f"Group {missing} not found.\n")


def test_the_librarys_consumer_group_describe_keeps_the_brokers_words(ec):
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings
    from kcli.errors import OperationError
    from kcli.ops import groups

    _, group, _ = streams_group(ec)
    admin = KafkaAdmin(ClientSettings(bootstrap_servers=ec.bootstrap_servers))
    try:
        with pytest.raises(OperationError, match=rf"^Group {group} is not a consumer group\.$"):
            groups.describe(admin, [group])
        missing = unique("nosuch")
        with pytest.raises(OperationError, match=rf"^Group {missing} not found\.$"):
            groups.describe(admin, [missing])
    finally:
        admin.close()

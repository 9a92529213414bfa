"""A change that was sent and got no answer may still be applied (the broker applies it late):
kcli says its outcome is unknown (exit 3), never that it failed (exit 1, nothing applied).
Against the embedded broker, whose "late" fault applies and answers 2.5 s late."""

from __future__ import annotations

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.groups import FAST_GROUPS
from tests.support.clients import commit
from tests.support.run import run_kcli
from tests.support.waits import wait_until


@pytest.fixture
def ec():
    with EmbeddedCluster(nodes=1, configs=FAST_GROUPS) as c:
        c.create_topic("t", 1)
        yield c


def late(ec, api, *args):
    ec.fault(api, "late")
    try:
        return run_kcli(ec.bootstrap_servers, *args, timeout="1500ms")
    finally:
        ec.fault(api, None)


def test_delete_groups_without_an_answer_is_unknown(ec):
    commit(ec.bootstrap_servers, "gone", {("t", 0): 1})
    r = late(ec, "DeleteGroups", "delete", "groups", "gone")
    assert r.code == 3, r.err
    assert "may or may not be deleted" in r.err.splitlines()[-1]
    wait_until(lambda: "gone" not in run_kcli(ec.bootstrap_servers, "-o", "json", "list", "groups").out,
               what="the late delete")


def test_create_topic_without_an_answer_is_unknown(ec):
    r = late(ec, "CreateTopics", "create", "topic", "newt", "--partitions", "1")
    assert r.code == 3, r.err
    assert r.err.splitlines()[-1].endswith("the creation of topic 'newt' may or may not have been applied")
    wait_until(lambda: "newt" in ec.call(lambda: set(ec.cluster.topics)), what="the late creation")


def test_alter_configs_without_an_answer_is_unknown(ec):
    r = late(ec, "IncrementalAlterConfigs", "alter", "configs", "--topic", "t", "--set", "retention.ms=1000")
    assert r.code == 3, r.err
    assert "may or may not have been applied" in r.err


def test_delete_offsets_without_an_answer_is_unknown(ec):
    commit(ec.bootstrap_servers, "g", {("t", 0): 1})
    r = late(ec, "OffsetDelete", "delete-offsets", "-g", "g", "-t", "t")
    assert r.code == 3, r.err
    assert r.err.splitlines()[-1].endswith("the deletion of the offsets of group 'g' may or may not have been applied")

"""WireClient.commit_offsets, the OffsetCommit of reset-offsets --execute on kcli's own connection,
against the embedded broker: an admin's commit (no member), one request per coordinator and
batch, a moved coordinator found again, and each failure told as the reset classifies it: sent
and not answered (unknown) or not sent (not applied)."""

from __future__ import annotations

import time

import pytest

import kcli.admin.wire.group_offsets as group_offsets
from kcli.admin.settings import ClientSettings
from kcli.admin.wire import WireClient
from kcli.admin.wire.group_offsets import commit_batches
from kcli.broker import EmbeddedCluster
from kcli.ops.failures import unanswered

KCLI = "kcli"


def client(ec, timeout_ms: int = 10_000) -> WireClient:
    return WireClient(ClientSettings(ec.bootstrap_servers, timeout_ms=timeout_ms))


def commits(ec, node: int | None = None) -> int:
    counts = ec.request_counts(KCLI)
    return sum(c.get("OffsetCommit", 0) for n, c in counts.items() if node in (None, n))


def committed(kc: WireClient, group: str) -> dict:
    return {(c.topic, c.partition): c.offset for c in kc.committed_offsets(group)}


def test_commit_batches_keep_each_request_under_the_record_budget(monkeypatch):
    offsets = {("t", p): p for p in range(10)}
    assert commit_batches("g", offsets) == [offsets]
    assert commit_batches("g", {}) == []
    monkeypatch.setattr(group_offsets, "COMMIT_BATCH_BYTES",
                        3 * (group_offsets.COMMIT_RECORD_BYTES + 2))   # 3 per batch
    batches = commit_batches("g", offsets)
    assert [len(b) for b in batches] == [3, 3, 3, 1]
    assert {tp: o for b in batches for tp, o in b.items()} == offsets


def test_an_admin_commit_is_one_request_per_batch(monkeypatch):
    with EmbeddedCluster() as ec:
        ec.create_topic("t", 6)
        kc = client(ec)
        try:
            errors = kc.commit_offsets("g", {("t", p): p for p in range(6)})
            assert errors == {("t", p): None for p in range(6)}
            assert committed(kc, "g") == {("t", p): p for p in range(6)}
            assert commits(ec) == 1
            monkeypatch.setattr(group_offsets, "COMMIT_BATCH_BYTES", 2 * (group_offsets.COMMIT_RECORD_BYTES + 2))
            assert set(kc.commit_offsets("g", {("t", p): 0 for p in range(6)}).values()) == {None}
            assert commits(ec) == 1 + 3 and committed(kc, "g") == {("t", p): 0 for p in range(6)}
        finally:
            kc.close()


def test_a_moved_coordinator_is_found_again():
    """The client's coordinator is stale (the group moved): the broker refuses with
    NOT_COORDINATOR, the coordinator is looked up again and the commit goes there."""
    with EmbeddedCluster(nodes=3) as ec:
        ec.create_topic("t", 2)
        kc = client(ec)
        try:
            right = ec.cluster.coordinator_node("moved")
            wrong = next(n for n in (1, 2, 3) if n != right)
            kc._coordinators["moved"] = wrong
            assert kc.commit_offsets("moved", {("t", 0): 1, ("t", 1): 2}) == {("t", 0): None, ("t", 1): None}
            assert commits(ec, wrong) == 1 and commits(ec, right) == 1
            assert committed(kc, "moved") == {("t", 0): 1, ("t", 1): 2}
        finally:
            kc.close()


@pytest.mark.parametrize("fault", ["hang", "lose-reply"])
def test_a_commit_without_an_answer_ends_by_its_own_deadline_and_is_unanswered(fault):
    """Sent and not answered: every partition ``_TIMED_OUT`` (the reset reads it back; unknown
    unless the new offset is there), by ``until``, well before the command's deadline; the read
    back then goes out on a new connection and gets its own answer."""
    with EmbeddedCluster() as ec:
        ec.create_topic("t", 2)
        kc = client(ec)
        try:
            kc.commit_offsets("g", {("t", 0): 5, ("t", 1): 5})
            ec.fault("OffsetCommit", fault)
            start = time.monotonic()
            errors = kc.commit_offsets("g", {("t", 0): 0, ("t", 1): 0}, until=time.monotonic() + 0.4)
            assert time.monotonic() - start < 5          # the client's deadline: 10 s
            assert all(unanswered(e) and e.name == "_TIMED_OUT" for e in errors.values()), errors
            ec.fault("OffsetCommit", None)
            expected = {("t", 0): 5, ("t", 1): 5} if fault == "hang" else {("t", 0): 0, ("t", 1): 0}
            assert committed(kc, "g") == expected
        finally:
            ec.fault("OffsetCommit", None)
            kc.close()


def test_a_commit_that_was_not_sent_is_not_unanswered():
    with EmbeddedCluster() as ec:
        ec.create_topic("t", 1)
        kc = client(ec)
        try:
            errors = kc.commit_offsets("g", {("t", 0): 1}, until=time.monotonic() - 0.01)
            assert errors[("t", 0)].name == "_NOT_SENT" and not unanswered(errors[("t", 0)])
            assert errors[("t", 0)].message.count("not sent") == 1, errors[("t", 0)].message
            assert commits(ec) == 0 and committed(kc, "g") == {}
        finally:
            kc.close()

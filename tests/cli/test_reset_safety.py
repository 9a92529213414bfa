"""Resets that fail safe, against the embedded broker with injected faults: one deadline for the
whole command (a hung OffsetCommit over 3 groups ends within --timeout + 1 s), commits without a
reply read back and reported as applied, not applied or unknown, rollback files that are an exact
undo and never overwritten, forward moves past unread records named and refused without
--allow-skip, groups that do not exist named as such, list-offsets without an answer failing."""

from __future__ import annotations

import json
import time

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.groups import FAST_GROUPS, on_coordinator
from tests.support.clients import commit, produce
from tests.support.run import run_kcli
from tests.support.waits import wait_until

HOUR = 3_600_000


@pytest.fixture
def ec():
    with EmbeddedCluster(nodes=1, configs=FAST_GROUPS) as c:
        c.create_topic("t", 2)
        produce(c.bootstrap_servers, "t", [(p, f"v{i}") for p in range(2) for i in range(10)])
        yield c


def committed(ec, group: str) -> dict:
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
    res = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(10)
    return {(tp.topic, tp.partition): tp.offset for tp in res.topic_partitions if tp.offset >= 0}


def test_a_hung_commit_over_three_groups_ends_within_the_timeout(ec):
    b = ec.bootstrap_servers
    for g in ("h1", "h2", "h3"):
        commit(b, g, {("t", 0): 5, ("t", 1): 5})
    ec.fault("OffsetCommit", "hang")
    started = time.monotonic()
    r = run_kcli(b, "reset-offsets", "-g", "h1", "-g", "h2", "-g", "h3", "-t", "t", "--to-earliest",
                 "--execute", timeout="3s")
    elapsed = time.monotonic() - started
    ec.fault("OffsetCommit", None)
    assert elapsed < 3 + 5, elapsed
    assert r.code == 3, r.err
    report = r.err.splitlines()[-1]
    for g in ("h1", "h2", "h3"):        # every partition accounted for, none reported applied
        for p in (0, 1):
            assert f"group '{g}' t-{p}" in report
    assert "applied: group" not in report.split("unknown: group")[0]
    # The first group's commit had time to be read back: unchanged, but a commit that got no
    # answer may still be applied, so it is unknown, never "not applied".
    assert "not applied" not in report and "unknown: group 'h1' t-0" in report
    assert "read back is unchanged, but the commit may still be applied" in report
    assert all(committed(ec, g) == {("t", 0): 5, ("t", 1): 5} for g in ("h1", "h2", "h3"))


def test_a_commit_applied_late_is_unknown_not_not_applied(ec):
    """The broker applies the commit 2.5 s late, after kcli gave up waiting (--timeout 3s) and
    read back the old offset: kcli says unknown (exit 3), and the commit does land."""
    b = ec.bootstrap_servers
    commit(b, "late", {("t", 0): 5, ("t", 1): 5})
    ec.fault("OffsetCommit", "late")
    try:
        r = run_kcli(b, "reset-offsets", "-g", "late", "-t", "t", "--to-earliest", "--execute", timeout="3s")
        assert r.code == 3, r.err
        report = r.err.splitlines()[-1]
        assert report.startswith("Error: 0 of 2 partitions committed, 0 not, 2 unknown: unknown: "), report
        assert "not applied" not in report
        wait_until(lambda: committed(ec, "late") == {("t", 0): 0, ("t", 1): 0}, what="the late commit")
    finally:
        ec.fault("OffsetCommit", None)


def test_a_commit_whose_reply_is_lost_is_read_back_as_applied(ec):
    b = ec.bootstrap_servers
    commit(b, "lost", {("t", 0): 5, ("t", 1): 5})
    ec.fault("OffsetCommit", "lose-reply")
    r = run_kcli(b, "reset-offsets", "-g", "lost", "-t", "t", "--to-earliest", "--execute", timeout="4s")
    ec.fault("OffsetCommit", None)
    assert r.code == 0, r.err
    assert "Group lost, partition t-0: " in r.err and "read back is the new one" in r.err
    assert committed(ec, "lost") == {("t", 0): 0, ("t", 1): 0}


def test_a_commit_the_deadline_left_unsent_is_not_applied(ec, monkeypatch):
    """The command's deadline passes after the plan: the commit is never sent, so nothing was
    applied (exit 1, each partition "not applied" and why), not "unknown"."""
    import kcli.ops.resets as lib

    b = ec.bootstrap_servers
    commit(b, "ns", {("t", 0): 5, ("t", 1): 5})
    execute = lib.execute

    def after_the_deadline(admin, *args, **kwargs):
        time.sleep(admin.settings.remaining_s() + 0.05)
        return execute(admin, *args, **kwargs)
    monkeypatch.setattr(lib, "execute", after_the_deadline)
    r = run_kcli(b, "reset-offsets", "-g", "ns", "-t", "t", "--to-earliest", "--execute", timeout="3s")
    assert r.code == 1, r.err
    report = r.err.splitlines()[-1]
    assert report.startswith("Error: No offsets were committed (2 partitions): not applied: group 'ns' t-0 ("), report
    assert "not sent: the command's deadline had passed" in report and "unknown" not in report
    assert committed(ec, "ns") == {("t", 0): 5, ("t", 1): 5}


def test_a_restore_whose_offset_delete_was_not_sent_is_not_applied(ec, tmp_path, monkeypatch):
    """A rollback file's -1 rows delete offsets (OffsetDelete): one the deadline left unsent was
    not applied (exit 1); one sent and not answered is unknown (exit 3)."""
    import kcli.ops.resets as lib

    b = ec.bootstrap_servers
    rollback = tmp_path / "rollback.csv"
    rollback.write_text("t,0,-1\n")
    execute = lib.execute

    def after_the_deadline(admin, *args, **kwargs):
        time.sleep(admin.settings.remaining_s() + 0.05)
        return execute(admin, *args, **kwargs)
    commit(b, "rd", {("t", 0): 5})
    with monkeypatch.context() as m:
        m.setattr(lib, "execute", after_the_deadline)
        r = run_kcli(b, "reset-offsets", "-g", "rd", "--from-file", str(rollback), "--execute", timeout="3s")
    assert r.code == 1, r.err
    assert "not applied: group 'rd' t-0 (deleting the committed offset: OffsetDelete" in r.err
    assert committed(ec, "rd") == {("t", 0): 5}
    ec.fault("OffsetDelete", "hang")
    try:
        r = run_kcli(b, "reset-offsets", "-g", "rd", "--from-file", str(rollback), "--execute", timeout="2s")
    finally:
        ec.fault("OffsetDelete", None)
    assert r.code == 3 and "unknown: group 'rd' t-0 (deleting the committed offset: " in r.err, r.err


def test_rollback_files_are_an_exact_undo_and_never_overwritten(ec, tmp_path, monkeypatch):
    b = ec.bootstrap_servers
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    commit(b, "rb", {("t", 0): 4})                     # partition 1 has no committed offset
    r = run_kcli(b, "reset-offsets", "-g", "rb", "-t", "t", "--to-offset", "2", "--execute")
    assert r.code == 0, r.err
    (path,) = (state / "kcli" / "rollback").iterdir()
    cluster_id = ec.call(lambda: ec.cluster.cluster_id)
    assert path.name.startswith(f"{cluster_id}_rb_") and path.name.endswith("Z.csv")
    assert f"Rollback file (the committed offsets before this reset): {path}" in r.err
    assert path.read_text() == "t,0,4\nt,1,-1\n"
    assert committed(ec, "rb") == {("t", 0): 2, ("t", 1): 2}
    # Restoring it puts partition 0 back (forward, past 2 records unread since) and removes
    # partition 1's offset again: the exact undo, which kcli's own rollback file needs no
    # --allow-skip for. An edited copy elsewhere keeps the rule.
    copy = tmp_path / "copy.csv"
    copy.write_text(path.read_text() + "t,1,-1\n")
    r = run_kcli(b, "reset-offsets", "-g", "rb", "--from-file", str(copy), "--execute")
    assert r.code == 1 and "add --allow-skip" in r.err
    assert committed(ec, "rb") == {("t", 0): 2, ("t", 1): 2}
    r = run_kcli(b, "reset-offsets", "-g", "rb", "--from-file", str(path), "--execute")
    assert r.code == 0, r.err
    assert "the new offset 4 skips 2 unread records (committed offset 2)" in r.err
    rows = {line.split()[2]: line.split() for line in r.out.splitlines()[2:]}
    assert rows["1"][3:6] == ["2", "(delete)", "-"]      # partition 1's commit is deleted: it says so
    assert r.err.splitlines()[-1] == "Committed 2 partitions of 1 group"
    assert committed(ec, "rb") == {("t", 0): 4}
    assert len(list((state / "kcli" / "rollback").iterdir())) == 2       # the restore wrote its own
    # A rollback file kcli wrote elsewhere (--rollback-file), then moved, is known by its digest.
    elsewhere = tmp_path / "elsewhere.csv"
    r = run_kcli(b, "reset-offsets", "-g", "rb", "-t", "t:0", "--to-offset", "1", "--execute",
                 "--rollback-file", str(elsewhere))
    assert r.code == 0 and committed(ec, "rb") == {("t", 0): 1}, r.err
    moved = tmp_path / "moved" / "rb.csv"
    moved.parent.mkdir()
    elsewhere.rename(moved)
    r = run_kcli(b, "reset-offsets", "-g", "rb", "--from-file", str(moved), "--execute",
                 "--rollback-file", str(tmp_path / "undo.csv"))
    assert r.code == 0, r.err
    assert "the new offset 4 skips 3 unread records (committed offset 1)" in r.err
    assert committed(ec, "rb") == {("t", 0): 4}
    assert (state / "kcli" / "rollback.sha256").read_text().count("\n") == 4   # 2 here, 2 elsewhere
    # An existing --rollback-file is refused before any request.
    before = ec.request_counts()
    r = run_kcli(b, "reset-offsets", "-g", "rb", "-t", "t", "--to-earliest", "--execute",
                 "--rollback-file", str(path))
    assert (r.code, r.err) == (2, f"Error: The rollback file {path} exists; kcli never overwrites one\n")
    assert ec.request_counts() == before
    assert path.read_text() == "t,0,4\nt,1,-1\n"


def test_forward_moves_past_unread_records_are_named_and_need_allow_skip(ec):
    b = ec.bootstrap_servers
    commit(b, "fw", {("t", 0): 3, ("t", 1): 8})
    dry = run_kcli(b, "-o", "json", "reset-offsets", "-g", "fw", "-t", "t", "--to-offset", "6")
    plan = {p["partition"]: p for p in json.loads(dry.out)["groups"][0]["partitions"]}
    assert (plan[0]["skippedUnread"], plan[1]["skippedUnread"]) == (3, 0)
    assert "Group fw, partition t-0: the new offset 6 skips 3 unread records (committed offset 3)" in dry.err
    r = run_kcli(b, "reset-offsets", "-g", "fw", "-t", "t", "--to-offset", "6", "--execute")
    assert r.code == 1 and r.err.splitlines()[-1] == (
        "Error: Nothing was committed: the reset skips unread records on 1 partition(s) (above); "
        "add --allow-skip to commit it")
    assert committed(ec, "fw") == {("t", 0): 3, ("t", 1): 8}
    r = run_kcli(b, "reset-offsets", "-g", "fw", "-t", "t", "--to-offset", "6", "--execute", "--allow-skip")
    assert r.code == 0 and committed(ec, "fw") == {("t", 0): 6, ("t", 1): 6}
    # --to-latest skips by purpose: it says so, and needs no flag.
    r = run_kcli(b, "reset-offsets", "-g", "fw", "-t", "t", "--to-latest", "--execute")
    assert r.code == 0 and "skips 4 unread records" in r.err
    assert committed(ec, "fw") == {("t", 0): 10, ("t", 1): 10}


def test_replays_are_named_once_per_group_with_a_count(ec):
    """--to-latest --max-age takes a young partition back to its log start: the records the group
    read there are replayed, and it says so (as skips are named), in JSON too."""
    b = ec.bootstrap_servers
    commit(b, "rw", {("t", 0): 10, ("t", 1): 6})
    r = run_kcli(b, "-o", "json", "reset-offsets", "-g", "rw", "-t", "t", "--to-latest", "--max-age", "1h")
    assert r.code == 0, r.err
    plan = {p["partition"]: p for p in json.loads(r.out)["groups"][0]["partitions"]}
    assert (plan[0]["newOffset"], plan[0]["replayed"], plan[1]["replayed"]) == (0, 10, 6)
    assert r.err.splitlines() == ["Warn: Group rw: the reset replays 16 records already read on 2 partition(s)"]
    r = run_kcli(b, "reset-offsets", "-g", "rw", "-t", "t", "--to-latest", "--max-age", "1h", "--execute")
    assert r.code == 0 and "Warn: Group rw: the reset replays 16 records already read on 2 partition(s)" in r.err


def test_to_start_time_past_an_older_record_is_named():
    """A record that arrived after the group was created but carries an older timestamp sits
    before the time lookup's answer: moving the committed offset past it skips it."""
    now = int(time.time() * 1000)
    with EmbeddedCluster(nodes=1, configs=FAST_GROUPS) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("late", 1)
        produce(b, "late", [(0, f"old{i}", now - 2 * HOUR) for i in range(12)])
        on_coordinator(ec, lambda co: co.create_consumer_group("st", now - HOUR))
        commit(b, "st", {("late", 0): 12})
        produce(b, "late", [(0, "late-but-old", now - 2 * HOUR), (0, "new", now)])
        r = run_kcli(b, "-o", "json", "reset-offsets", "-g", "st", "-t", "late", "--to-start-time")
        (p,) = json.loads(r.out)["groups"][0]["partitions"]
        assert (p["currentOffset"], p["newOffset"], p["skippedUnread"]) == (12, 13, 1)
        assert "the new offset 13 skips 1 unread records (committed offset 12)" in r.err
        r = run_kcli(b, "reset-offsets", "-g", "st", "-t", "late", "--to-start-time", "--execute")
        assert r.code == 1 and committed(ec, "st") == {("late", 0): 12}


def test_a_group_that_does_not_exist_is_named(ec, tmp_path, monkeypatch):
    b = ec.bootstrap_servers
    r = run_kcli(b, "reset-offsets", "-g", "typo-grp", "-t", "t", "--to-earliest")
    assert r.code == 0
    assert "Warn: Group typo-grp does not exist: --execute creates it with these offsets" in r.err
    # --execute does create it; restoring its rollback file deletes the offsets and the group.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    r = run_kcli(b, "reset-offsets", "-g", "new-grp", "-t", "t", "--to-earliest", "--execute")
    assert r.code == 0, r.err
    assert ("Warn: Group new-grp does not exist: this reset creates it with these offsets (restoring the "
            "rollback file deletes it again)") in r.err
    assert committed(ec, "new-grp") == {("t", 0): 0, ("t", 1): 0}
    (path,) = (tmp_path / "kcli" / "rollback").iterdir()
    r = run_kcli(b, "reset-offsets", "-g", "new-grp", "--from-file", str(path), "--execute")
    assert r.code == 0, r.err
    assert ("Group new-grp: no committed offset and no member left, as before the reset that created it: "
            "the group is deleted too") in r.err
    groups = run_kcli(b, "-o", "json", "list", "groups")
    assert "new-grp" not in groups.out and groups.code == 0
    r = run_kcli(b, "reset-offsets", "-g", "typo-grp", "-t", "t", "--to-start-time", "--execute")
    assert (r.code, r.err) == (1, "Error: Cannot reset offsets using --to-start-time: group 'typo-grp' "
                                  "does not exist.\n")
    assert committed(ec, "typo-grp") == {}


def test_list_offsets_without_an_answer_fails(ec):
    b = ec.bootstrap_servers
    ec.fault("ListOffsets", "hang")
    started = time.monotonic()
    r = run_kcli(b, "-o", "plain", "list-offsets", "-t", "t", timeout="2s")
    ec.fault("ListOffsets", None)
    assert time.monotonic() - started < 3
    assert r.code == 1 and r.out == ""
    assert r.err.splitlines()[-1] == "Error: No offset for 2 of 2 partitions: t-0, t-1"


def test_describe_groups_with_list_offsets_hung_fails_naming_list_offsets(ec):
    """The groups' log ends come from one ListOffsets per leader for all the groups: when it
    hangs until the deadline, the view fails (exit 1) naming that request and the real wait,
    never an exit 0 with every log end unknown."""
    b = ec.bootstrap_servers
    for g in ("d1", "d2"):
        commit(b, g, {("t", 0): 5})
    ec.fault("ListOffsets", "hang")
    try:
        r = run_kcli(b, "describe", "groups", "d1", "d2", timeout="2s")
    finally:
        ec.fault("ListOffsets", None)
    last = r.err.splitlines()[-1]
    assert r.code == 1 and r.out == "", r
    assert last.startswith("Error: Cannot read the log end offsets (ListOffsets): No answer from broker ") \
        and "did not answer in time" in last, r.err


def test_describe_topics_with_a_hung_broker_ends_within_the_timeout(ec):
    ec.fault("DescribeTopicPartitions", "hang")
    started = time.monotonic()
    r = run_kcli(ec.bootstrap_servers, "describe", "topics", "t", timeout="2s")
    ec.fault("DescribeTopicPartitions", None)
    assert time.monotonic() - started < 3
    assert r.code == 1 and "Traceback" not in r.err and r.err.count("\n") == 1

"""kcli check broker against the embedded broker, through the real entry point: every rule passes
(the two-run rules too, across a leader change and a restart of a --data-dir cluster), in every
output format; --dry-run changes nothing; the check's topic and group are gone afterwards; a
broker posing as an older one gives UNSUPPORTED rows and exit 0; a broker whose clock is off
gives FAIL rows and exit 1 (and passes with --clock-skew wide enough)."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest

from kcli.broker import EmbeddedCluster
from kcli.ops.broker_check import PREFIX, RULES
from tests.support.run import run_kcli, run_kcli_process

RULE_IDS = [rule for rule, _, _ in RULES]
TWO_RUNS = {"creation-time.leader-change", "creation-time.restart"}
KIP_RULES = {rule for rule, kip, _ in RULES if kip in ("KIP-1327", "KIP-1282")}


def check(b, *args, fmt="json", timeout="30s"):
    r = run_kcli(b, "check", "broker", *args, "-o", fmt, timeout=timeout)
    return r, (json.loads(r.out) if fmt == "json" and r.out else None)


def statuses(doc) -> dict[str, str]:
    return {x["rule"]: x["status"] for x in doc["rules"]}


def failures(doc) -> list[str]:
    return [f"{x['rule']}: {x['evidence']}" for x in doc["rules"] if x["status"] == "FAIL"]


def names(b) -> tuple[list[str], list[str]]:
    topics = run_kcli(b, "list", "topics", "-o", "json")
    groups = run_kcli(b, "list", "groups", "-o", "json")
    return (sorted(json.loads(topics.out)["topics"]),
            sorted(g["group"] for g in json.loads(groups.out)["groups"]))


@pytest.fixture(scope="module")
def broker():
    with EmbeddedCluster(nodes=3) as c:
        yield c


def test_every_rule_passes_and_the_check_leaves_nothing_behind(broker):
    b = broker.bootstrap_servers
    before = names(b)
    r, doc = check(b)
    assert r.code == 0, r.err
    assert doc["schema"] == "kcli.check-broker/v1" and not doc["dryRun"]
    assert [x["rule"] for x in doc["rules"]] == RULE_IDS
    assert {rule: s for rule, s in statuses(doc).items() if s != "PASS"} == {
        rule: "UNSUPPORTED" for rule in TWO_RUNS}, doc["rules"]
    assert (doc["passed"], doc["failed"], doc["unsupported"]) == (len(RULES) - 2, 0, 2)
    name = doc["topic"]
    assert name.startswith(PREFIX) and doc["group"] == name
    assert doc["created"] == [f"topic {name}", f"group {name}"]
    assert sorted(doc["deleted"]) == sorted(doc["created"]) and doc["kept"] == []
    assert names(b) == before                    # the topic and the group are deleted
    kip937 = next(x for x in doc["rules"] if x["rule"] == "kip-937.batch")["data"]
    assert (kip937["error"], kip937["recordErrorIndexes"], kip937["logEndBefore"], kip937["logEndAfter"]) == (
        "INVALID_TIMESTAMP", [1], 0, 0)


def test_the_heartbeat_row_says_the_broker_speaks_accepted_kip_1327s_layout(broker):
    """The v2 answer's bytes read whole by the accepted layout (kcli's tag 1282 read, the group's
    own creation time), the seed's positional layout misreads them; in JSON and in the table."""
    r, doc = check(broker.bootstrap_servers)
    assert r.code == 0, r.err
    row = next(x for x in doc["rules"] if x["rule"] == "heartbeat-v2.layout")
    stamped = next(x for x in doc["rules"] if x["rule"] == "group-creation-time")["data"]["groupCreationTimeMs"]
    assert (row["kip"], row["status"], row["data"]["layout"]) == ("KIP-1327", "PASS", "accepted"), row
    assert row["data"]["heartbeatVersions"] == [0, 2]
    assert row["data"]["readings"]["accepted"] == {"bytesLeft": 0, "misread": None, "groupCreationTimeMs": stamped,
                                                   "newPartitions": None}
    assert row["data"]["readings"]["seed"]["misread"]
    assert row["evidence"].startswith("accepted layout: read whole as v1 + tagged NewPartitions")
    assert "the seed's positional layout misreads it" in row["evidence"]
    table = run_kcli(broker.bootstrap_servers, "check", "broker", "-o", "plain", timeout="30s")
    assert any(line.split()[:3] == ["heartbeat-v2.layout", "KIP-1327", "PASS"] for line in table.out.splitlines())


@pytest.mark.parametrize("fmt", ["table", "plain", "csv"])
def test_every_output_format(broker, fmt):
    b = broker.bootstrap_servers
    r, _ = check(b, fmt=fmt)
    assert r.code == 0, r.err
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(r.out)))
        assert rows[0] == ["RULE", "KIP", "STATUS", "EVIDENCE"]
        got = {row[0]: row[2] for row in rows[1:]}
    else:
        lines = r.out.splitlines()
        header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["RULE", "KIP", "STATUS"])
        got = {line.split()[0]: line.split()[2] for line in lines[header + 1:]
               if line.split() and line.split()[0] in RULE_IDS}
    assert got == {rule: "UNSUPPORTED" if rule in TWO_RUNS else "PASS" for rule in RULE_IDS}, r.out
    if fmt == "table":
        assert f"{len(RULES) - 2} passed, 0 failed, 2 unsupported" in r.out


@pytest.mark.parametrize("fmt", ["json", "table", "plain", "csv"])
def test_dry_run_changes_nothing(broker, fmt):
    b = broker.bootstrap_servers
    before = names(b)
    counts = broker.request_counts()
    r, doc = check(b, "--dry-run", fmt=fmt)
    assert r.code == 0, r.err
    assert names(b) == before
    after = broker.request_counts()
    changes = {"CreateTopics", "CreatePartitions", "Produce", "ConsumerGroupHeartbeat", "OffsetCommit",
               "DeleteTopics", "DeleteGroups"}
    assert not any(after.get(n, {}).get(api, 0) != counts.get(n, {}).get(api, 0)
                   for n in after for api in changes)
    assert sum(after[n].get("Metadata", 0) for n in after) > sum(counts[n].get("Metadata", 0) for n in counts)
    check(b)                                     # the counts see a real run's changes
    assert all(sum(n.get(api, 0) for n in broker.request_counts().values()) >
               sum(n.get(api, 0) for n in after.values()) for api in changes)
    if fmt == "json":
        assert doc["dryRun"] and [(a["action"], a["kind"]) for a in doc["actions"]] == [
            ("create", "topic"), ("alter", "topic"), ("produce", "topic"), ("create", "group"),
            ("delete", "topic"), ("delete", "group")]
        assert all(a["name"] == doc["topic"] for a in doc["actions"])
    else:
        assert "kcli-check-broker-" in r.out and "create" in r.out


def test_the_two_run_rules_pass_across_a_leader_change_and_a_restart(tmp_path):
    saved = tmp_path / "baseline.json"
    with EmbeddedCluster(nodes=2, data_dir=tmp_path / "data") as c:
        r, doc = check(c.bootstrap_servers, "--save", str(saved))
        assert r.code == 0, r.err
        name = doc["topic"]
        assert doc["kept"] == [f"topic {name}", f"group {name}"] and doc["deleted"] == []
        assert name in names(c.bootstrap_servers)[0] and "Kept for --baseline" not in r.err
        assert check(c.bootstrap_servers, "--save", str(saved))[0].code == 2      # never overwritten
    with EmbeddedCluster(nodes=2, data_dir=tmp_path / "data") as c:               # the restart
        b = c.bootstrap_servers
        leader = json.loads(saved.read_text())["partitions"]["0"]["leader"]
        c.stop_node(leader)                                                       # the leader change
        time.sleep(0.2)
        c.start_node(leader)
        r, doc = check(b, "--baseline", str(saved))
        assert r.code == 0, r.err
        assert set(statuses(doc).values()) == {"PASS"}, doc["rules"]
        assert f"topic {name}" in doc["deleted"] and f"group {name}" in doc["deleted"]
        topics, groups = names(b)
        assert name not in topics and name not in groups


def test_a_saved_run_in_its_own_process_keeps_creation_times_across_a_restart(tmp_path):
    """kcli as a shell runs it (a process of its own, which no embedded broker's tables shared):
    the run's Produce loads every kafka-python message module, whose stock DescribeTopicPartitions
    class (v0 only) must not take over the decoding of kcli's v1 answers. The saved file holds
    the creation times, and after a clean restart of the 3-node --data-dir cluster (and a leader
    change) --baseline passes, exit 0."""
    saved = tmp_path / "baseline.json"
    with EmbeddedCluster(nodes=3, data_dir=tmp_path / "data") as c:
        r = run_kcli_process(c.bootstrap_servers, "check", "broker", "--save", str(saved), "-o", "json",
                             "--timeout", "30s")
        assert r.code == 0 and "could not be read" not in r.err, r.err
    doc = json.loads(saved.read_text())
    assert doc["partitions"] and all(isinstance(p["creationTimeMs"], int) and p["creationTimeMs"] > 0
                                     for p in doc["partitions"].values()), doc
    with EmbeddedCluster(nodes=3, data_dir=tmp_path / "data") as c:               # the restart
        leader = doc["partitions"]["0"]["leader"]
        c.stop_node(leader)                                                       # the leader change
        time.sleep(0.2)
        c.start_node(leader)
        r = run_kcli_process(c.bootstrap_servers, "check", "broker", "--baseline", str(saved), "-o", "json",
                             "--timeout", "30s")
        assert r.code == 0 and "could not be read" not in r.err, r.err
        got = statuses(json.loads(r.out))
        assert got["creation-time.restart"] == got["creation-time.leader-change"] == "PASS", r.out


@pytest.mark.parametrize("hung", ["Produce", "ConsumerGroupDescribe"])
def test_after_a_hung_step_the_clean_up_still_deletes_the_topic_and_group(broker, hung):
    """A step unanswered until the command's deadline (Produce: the topic exists; the group's
    describe: a member has joined too): the run fails naming it, and the clean-up, on a deadline
    of its own, still deletes the topic and the group (the member is made to leave first)."""
    b = broker.bootstrap_servers
    before = names(b)
    broker.fault(hung, "hang")
    try:
        r = run_kcli(b, "check", "broker", timeout="3s")
    finally:
        broker.fault(hung, None)
    assert r.code == 1 and f"{hung}Request failed" in r.err and "kept" not in r.err, r.err
    assert names(b) == before


def test_what_the_clean_up_cannot_delete_is_named():
    with EmbeddedCluster(nodes=1) as c:
        b = c.bootstrap_servers
        c.fault("ConsumerGroupDescribe", "hang")
        c.fault("DeleteTopics", "hang")
        r = run_kcli(b, "check", "broker", timeout="3s")
        c.fault("DeleteTopics", None)
        c.fault("ConsumerGroupDescribe", None)
        topics, groups = names(b)
        assert r.code == 1 and len(r.err.splitlines()) == 1, r.err
        assert len(topics) == 1 and topics[0].startswith(PREFIX) and groups == [], (topics, groups)
        assert "ConsumerGroupDescribeRequest failed" in r.err
        assert f"check broker could not delete what it created, kept: topic {topics[0]} (" in r.err


def test_a_save_path_that_cannot_be_written_is_refused_before_any_request(tmp_path):
    dangling = tmp_path / "baseline.json"
    dangling.symlink_to(tmp_path / "missing" / "baseline.json")
    too_long = tmp_path / ("x" * 300)
    for path, message in ((dangling, f"--save: '{dangling}' exists (a symlink to a missing file)"),
                          (too_long, f"--save: cannot write '{too_long}': File name too long")):
        r = run_kcli("127.0.0.1:1", "check", "broker", "--save", str(path))
        assert r.code == 2 and message in r.err and len(r.err.splitlines()) == 1, r.err
    assert [p.name for p in tmp_path.iterdir()] == ["baseline.json"]


def test_a_broker_posing_as_older_gives_unsupported_rows_and_exit_0():
    with EmbeddedCluster(nodes=1, pose_as="4.1") as c:
        r, doc = check(c.bootstrap_servers)
        assert r.code == 0, r.err
        got = statuses(doc)
        assert {rule for rule, s in got.items() if s == "UNSUPPORTED"} == KIP_RULES, doc["rules"]
        assert {s for rule, s in got.items() if rule not in KIP_RULES} == {"PASS"}
        assert names(c.bootstrap_servers) == ([], [])
    with EmbeddedCluster(nodes=1, pose_as="2.8") as c:          # before KIP-734: ListOffsets v6
        r, doc = check(c.bootstrap_servers)
        assert r.code == 0, r.err
        older = {"kip-734.ties", "list-offsets.max-timestamp", "list-offsets.earliest-local",
                 "list-offsets.latest-tiered"}
        assert {rule for rule, s in statuses(doc).items() if s == "UNSUPPORTED"} == KIP_RULES | older
        assert "ListOffsets v6 advertised" in next(x["evidence"] for x in doc["rules"] if x["rule"] == "kip-734.ties")


def test_a_broker_posing_as_4_4_has_no_heartbeat_v2_to_read_both_ways():
    with EmbeddedCluster(nodes=1, pose_as="4.4") as c:
        r, doc = check(c.bootstrap_servers)
        assert r.code == 0, r.err
        row = next(x for x in doc["rules"] if x["rule"] == "heartbeat-v2.layout")
        assert row["status"] == "UNSUPPORTED" and row["data"] == {"heartbeatVersions": [0, 1]}, row
        assert row["evidence"] == "ConsumerGroupHeartbeat v0-1 advertised: the two layouts differ in v2 only"
        assert doc["created"] == [f"topic {doc['topic']}"]          # no group: nothing joined
        assert names(c.bootstrap_servers) == ([], [])


def test_a_broker_whose_clock_is_off_fails_and_exits_1():
    """A broker 30 minutes ahead stamps creation times outside the requests' round trips: those
    rules FAIL (exit 1, naming them), the others still pass; --clock-skew 31m accepts it."""
    ahead = 30 * 60_000
    with EmbeddedCluster(nodes=1, clock=lambda: int(time.time() * 1000) + ahead) as c:
        b = c.bootstrap_servers
        r, doc = check(b)
        failed = {"creation-time.present", "creation-time.expansion", "partition-age", "group-creation-time"}
        assert r.code == 1, r.err
        assert {rule for rule, s in statuses(doc).items() if s == "FAIL"} == failed
        assert json.loads(r.err)["error"].startswith("4 rule(s) failed: creation-time.present")
        assert names(b) == ([], [])                   # deleted after a failed run too
        table = run_kcli(b, "check", "broker", timeout="30s")
        assert table.code == 1 and "4 failed" in table.out
        r, doc = check(b, "--clock-skew", "31m")
        assert r.code == 0 and set(statuses(doc).values()) == {"PASS", "UNSUPPORTED"}, failures(doc)


@pytest.mark.parametrize("args, message", [
    (["--clock-skew", "soon"], "soon"),
    (["--baseline", "/nonexistent/baseline.json"], "Cannot read the baseline file"),
    (["--save", "/nonexistent/baseline.json"], "--save: cannot write in '/nonexistent'"),
])
def test_bad_input_is_refused_before_any_request(args, message):
    r = run_kcli("127.0.0.1:1", "check", "broker", *args)
    assert r.code == 2 and message in r.err and len(r.err.splitlines()) == 1, r.err

"""reset-offsets through the real entry point against the embedded broker, with groups made by
real confluent-kafka consumers: the partition-expansion story (KIP-1282 --to-start-time, KIP-1327
--max-age), the degraded paths, Apache Kafka's ResetConsumerGroupOffsetTest scenarios (including
partitions without a leader),
CSV round trip, active-group refusal, commits the broker rejects in part (exit 3) or in full
(exit 1), and request counts that do not grow with the partition count."""

from __future__ import annotations

import json
import re
import time
from datetime import datetime, timedelta, timezone

import pytest
from confluent_kafka.admin import AdminClient

from kcli.broker.groups.store import Committed
from kcli.ops import resets as lib
from kcli.ops.resets import NO_CREATION_TIME, TOO_OLD_FOR_START_TIME
from tests.support.clients import committed, consume_and_commit, consumer, expand, latest_group_reads, produce, tagged
from tests.support.groups import consume, fast_cluster, on_coordinator
from tests.support.waits import wait_until
from tests.support.run import run_kcli
from tests.support.requests import same_requests, sent, snapshot
from tests.support.run import run_dropin

def plan(r) -> dict:
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    return {(g["group"], p["topic"], p["partition"]): p for g in doc["groups"] for p in g["partitions"]}


def new_offsets(r) -> dict:
    return {k: v["newOffset"] for k, v in plan(r).items()}


# -- the partition-expansion story ------------------------------------------------------------

def test_partition_expansion_story():
    hour = 3_600_000
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        now = int(time.time() * 1000)
        ec.create_topic("story", 2, creation_time_ms=now - 2 * hour)      # an old topic
        for p in (0, 1):
            produce(b, "story", tagged(f"old{p}", p, 5, now - hour))             # history before the group

        # A consumer-protocol group starts at latest, reads what comes after it, and stops.
        latest_group_reads(b, "story-g", "story", 2,
                           lambda: [produce(b, "story", tagged(f"new{p}", p, 3)) for p in (0, 1)], 6)

        # Partitions are added and written to before the group catches up.
        expand(b, "story", 2, 4, 4)

        start = plan(run_kcli(b, "reset-offsets", "-g", "story-g", "-t", "story", "--to-start-time", "-o", "json"))
        assert {k[2]: v["newOffset"] for k, v in start.items()} == {0: 5, 1: 5, 2: 0, 3: 0}
        assert start[("story-g", "story", 2)]["currentOffset"] is None
        assert all(v["recordTimestampMs"] is not None for v in start.values())

        latest = new_offsets(run_kcli(b, "reset-offsets", "-g", "story-g", "-t", "story", "--to-latest", "-o", "json"))
        assert {k[2]: v for k, v in latest.items()} == {0: 8, 1: 8, 2: 4, 3: 4}   # skips exp records

        aged = plan(run_kcli(b, "reset-offsets", "-g", "story-g", "-t", "story", "--to-latest",
                             "--max-age", "1m", "-o", "json"))
        assert {k[2]: (v["newOffset"], v["rule"].split(" ")[0]) for k, v in aged.items()} == {
            0: (8, "latest"), 1: (8, "latest"), 2: (0, "earliest"), 3: (0, "earliest")}
        assert aged[("story-g", "story", 0)]["rule"].startswith("latest (cold, broker: age 2h")

        # The plan says the time it resets to: the group's creation time, as describe shows it.
        described = json.loads(run_kcli(b, "describe", "groups", "story-g", "--state", "-o", "json").out)
        created = described["groups"][0]["groupCreationTimeMs"]
        doc = json.loads(run_kcli(b, "reset-offsets", "-g", "story-g", "-t", "story", "--to-start-time",
                                  "-o", "json").out)
        assert doc["groups"][0]["resetToTimestampMs"] == created > 0

        r = run_kcli(b, "reset-offsets", "-g", "story-g", "-t", "story", "--to-start-time", "--execute")
        assert r.code == 0, r.err
        assert committed(b, "story-g") == {("story", 0): 5, ("story", 1): 5, ("story", 2): 0, ("story", 3): 0}
        at = datetime.fromtimestamp(created / 1000, timezone.utc)
        iso = at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{created % 1000:03d}Z"
        assert f"Group story-g: reset to its creation time, {iso}" in r.err.splitlines()
        assert r.err.splitlines()[-1] == "Committed 4 partitions of 1 group"

        # Record by record: the group now reads everything produced since it started, nothing older.
        c = consumer(b, "story-g", "consumer")
        c.subscribe(["story"])
        got = sorted((p, o, v.decode()) for _, p, o, v in consume([c], 14)[0])
        c.close()
        assert got == ([(p, 5 + i, f"new{p}-{i}") for p in (0, 1) for i in range(3)]
                       + [(p, i, f"exp{p}-{i}") for p in (2, 3) for i in range(4)])


# -- degraded paths ---------------------------------------------------------------------------

def test_to_start_time_and_max_age_on_a_broker_posing_as_4_1():
    with fast_cluster(1, pose_as="4.1") as ec:
        b = ec.bootstrap_servers
        ec.create_topic("t41", 2)
        produce(b, "t41", tagged("r", 0, 10))
        consume_and_commit(b, "g41", ["t41"], 10)
        before = committed(b, "g41")
        r = run_kcli(b, "reset-offsets", "-g", "g41", "-t", "t41", "--to-start-time", "--execute")
        assert (r.code, r.err) == (1, f"Error: {TOO_OLD_FOR_START_TIME}\n")
        assert r.out == ""
        assert committed(b, "g41") == before == {("t41", 0): 10}
        # --max-age needs no Metadata v14: kcli never saw t41, so its age is unproven, hot
        r = run_kcli(b, "reset-offsets", "-g", "g41", "-t", "t41", "--to-latest", "--max-age", "1h", "--execute")
        assert r.code == 0 and "no proven age for 2 partition(s)" in r.err
        assert committed(b, "g41") == {("t41", 0): 0, ("t41", 1): 0}
        r = run_kcli(b, "describe", "groups", "g41", "--state", "--verbose", "-o", "plain")
        assert r.code == 0 and r.out.splitlines()[2].split()[-1] == "-"


def test_to_start_time_without_kip_1282_is_refused_before_any_group_is_described():
    """A broker posing as 4.4 (no ConsumerGroupDescribe v2, no StreamsGroupDescribe v2): the
    capability is the answer whatever the group, a running streams application, an active
    consumer group or none at all; not one describe is sent."""
    from tests.support.groups import RawClient
    from tests.support.streams_wire import heartbeat, topology

    with fast_cluster(1, pose_as="4.4") as ec:
        b = ec.bootstrap_servers
        ec.create_topic("t", 1)
        produce(b, "t", tagged("r", 0, 10))
        c = consumer(b, "act", "classic")
        c.subscribe(["t"])
        consume([c], 10)
        raw = RawClient(b)
        try:
            heartbeat(raw, ec.call(ec.cluster.coordinator_node, "app"), "app", "m1", 0, version=1, topo=topology("t"))
            runs = {(tool, g): run_dropin(tool, "--bootstrap-server", b, "--group", g, "--reset-offsets", scope,
                                          "--to-start-time", "--dry-run")
                    for tool, scope in (("kafka-consumer-groups", "--all-topics"),
                                        ("kafka-streams-groups", "--all-input-topics"))
                    for g in ("app", "act", "nosuch")}
            for g in ("app", "act", "nosuch"):
                before = ec.request_counts()
                r = run_kcli(b, "reset-offsets", "-g", g, "--all-topics", "--to-start-time", "--execute")
                assert (r.code, r.out, r.err) == (1, "", f"Error: {TOO_OLD_FOR_START_TIME}\n"), (g, r)
                asked = {api for counts in ec.request_counts().values() for api in counts}
                assert not asked & {"DescribeGroups", "ConsumerGroupDescribe", "StreamsGroupDescribe"}, asked
                assert ec.request_counts() != before            # connected: it asked the broker's versions
        finally:
            raw.close()
            c.close()
        for (tool, g), r in runs.items():
            assert (r.code, r.out) == (1, f"\nError: {TOO_OLD_FOR_START_TIME}\n"), (tool, g, r)


def test_to_start_time_with_unknown_group_creation_time():
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("tl", 1)
        produce(b, "tl", tagged("r", 0, 10))
        on_coordinator(ec, lambda co: co.create_consumer_group("legacy", creation_time_ms=-1))
        consume_and_commit(b, "legacy", ["tl"], 10, protocol="consumer")
        assert committed(b, "legacy") == {("tl", 0): 10}
        r = run_kcli(b, "reset-offsets", "-g", "legacy", "--all-topics", "--to-start-time", "--execute")
        assert (r.code, r.err) == (1, "Error: " + NO_CREATION_TIME.format(group="legacy") + "\n")
        assert "The group creation time is not available for group 'legacy'" in r.err
        assert committed(b, "legacy") == {("tl", 0): 10}
        r = run_kcli(b, "describe", "groups", "legacy", "--state", "--verbose", "-o", "plain")
        assert r.out.splitlines()[2].split()[-1] == "-"


def test_a_classic_group_is_told_it_has_no_creation_time_not_to_recreate_itself():
    """KIP-1282 records creation times for consumer-protocol groups only: for a classic group
    "delete and recreate the group" cannot help. The native commands say why; the drop-in keeps
    the Java tool's stdout; a consumer group without a creation time keeps the KIP's error."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("cl", 1)
        produce(b, "cl", tagged("r", 0, 10))
        consume_and_commit(b, "billing", ["cl"], 10)                         # classic
        on_coordinator(ec, lambda co: co.create_consumer_group("legacy", creation_time_ms=-1))
        consume_and_commit(b, "legacy", ["cl"], 10, protocol="consumer")
        said = ("Cannot reset offsets using --to-start-time: 'billing' is a classic group; creation times "
                "exist for group.protocol=consumer groups (KIP-1282)")
        for args in (["--dry-run"], ["--execute"]):
            r = run_kcli(b, "reset-offsets", "-g", "billing", "-t", "cl", "--to-start-time", *args)
            assert (r.code, r.out, r.err) == (1, "", f"Error: {said}\n"), args
        assert committed(b, "billing") == {("cl", 0): 10}
        r = run_kcli(b, "reset-offsets", "-g", "billing", "-t", "cl", "--compare")
        assert r.code == 0 and f"START-TIME is n/a: {said}" in r.err.splitlines(), r.err
        r = run_kcli(b, "audit", "timestamps", "--group", "billing", "-t", "cl")
        assert (r.code, r.err) == (1, f"Error: {said}\n")
        r = run_kcli(b, "audit", "timestamps", "--group", "legacy", "-t", "cl")
        assert (r.code, r.err) == (1, "Error: " + NO_CREATION_TIME.format(group="legacy") + "\n")
        for fmt in ("table", "plain"):
            r = run_kcli(b, "describe", "groups", "billing", "legacy", "--state", "--verbose", "-o", fmt)
            notes = [x for x in r.err.splitlines() if "GROUP-CREATION-TIME" in x]
            assert r.code == 0 and notes == [
                "GROUP-CREATION-TIME is - for classic group(s) 'billing': "
                "creation times exist for group.protocol=consumer groups (KIP-1282)"], r.err
        assert "GROUP-CREATION-TIME is" not in run_kcli(b, "describe", "groups", "billing", "--state").err
        r = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--group", "billing",
                   "--reset-offsets", "--to-start-time", "--topic", "cl", "--dry-run")
        assert (r.code, r.out, r.err) == (1, "\nError: " + NO_CREATION_TIME.format(group="billing") + "\n", "")


# -- ResetConsumerGroupOffsetTest ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ec():
    with fast_cluster(1) as c:
        b = c.bootstrap_servers
        c.create_topic("t", 1)
        c.create_topic("t2p", 2)
        c.create_topic("u2p", 2)
        c.create_topic("empty", 1)
        produce(b, "t", tagged("a", 0, 50))
        c.checkpoint = int(time.time() * 1000)
        time.sleep(0.05)
        produce(b, "t", tagged("b", 0, 50))
        for p in (0, 1):
            produce(b, "t2p", tagged("x", p, 10))
            produce(b, "u2p", tagged("y", p, 10))
        consume_and_commit(b, "g1", ["t"], 100)
        consume_and_commit(b, "g2", ["t"], 100, protocol="consumer")
        consume_and_commit(b, "g3", ["t2p", "u2p"], 40)
        c.create_topic("grow", 1)                      # g4 read 100 records, 100 more came after
        produce(b, "grow", tagged("c", 0, 100))
        consume_and_commit(b, "g4", ["grow"], 100)
        produce(b, "grow", tagged("d", 0, 100))
        yield c


def reset(ec, *args):
    return run_kcli(ec.bootstrap_servers, "reset-offsets", *args, "-o", "json")


def test_missing_group_all_topics_plans_nothing(ec):
    assert plan(reset(ec, "-g", "missing.group", "--all-topics", "--to-current", "--execute")) == {}
    assert committed(ec.bootstrap_servers, "missing.group") == {}


def test_to_offset_dry_run_by_default_then_execute(ec):
    b = ec.bootstrap_servers
    for extra in ([], ["--dry-run"]):
        assert new_offsets(reset(ec, "-g", "new.group", "-t", "t", "--to-offset", "50", *extra)) == {
            ("new.group", "t", 0): 50}
        assert committed(b, "new.group") == {}
    assert new_offsets(reset(ec, "-g", "new.group", "-t", "t", "--to-offset", "50", "--execute"))
    assert committed(b, "new.group") == {("t", 0): 50}


def test_several_groups_and_all_groups(ec):
    got = new_offsets(reset(ec, "-g", "g1", "-g", "g2", "-t", "t", "--to-offset", "50"))
    assert got == {("g1", "t", 0): 50, ("g2", "t", 0): 50}
    got = new_offsets(reset(ec, "--all-groups", "-t", "t", "--to-offset", "50"))
    assert {k for k, v in got.items() if v == 50} >= {("g1", "t", 0), ("g2", "t", 0), ("g3", "t", 0)}
    got = new_offsets(reset(ec, "-g", "g3", "--all-topics", "--to-offset", "3"))
    assert got == {("g3", t, p): 3 for t in ("t2p", "u2p") for p in (0, 1)}
    got = new_offsets(reset(ec, "--all-groups", "--all-topics", "--to-offset", "50"))   # scenario 6
    assert got.items() >= {("g1", "t", 0): 50, ("g2", "t", 0): 50, ("g4", "grow", 0): 50,
                           **{("g3", t, p): 10 for t in ("t2p", "u2p") for p in (0, 1)}}.items()


def test_several_groups_execute(ec):
    b = ec.bootstrap_servers
    got = new_offsets(reset(ec, "-g", "m1", "-g", "m2", "-t", "t", "--to-offset", "50", "--execute"))
    assert got == {("m1", "t", 0): 50, ("m2", "t", 0): 50}
    assert committed(b, "m1") == committed(b, "m2") == {("t", 0): 50}


AT_END = ("g1", "t")         # committed 100 = the log end
BEHIND = ("g4", "grow")      # committed 100, the log end at 200 (scenarios 13, 14, 16, 17)


@pytest.mark.parametrize("where,args,expected", [
    (AT_END, ["--to-earliest"], 0),
    (AT_END, ["--to-latest"], 100),
    (AT_END, ["--to-current"], 100),
    (AT_END, ["--to-offset", "1"], 1),
    (AT_END, ["--to-offset", "0"], 0),             # 0 is a value, not "not given"
    (AT_END, ["--shift-by", "0"], 100),
    (AT_END, ["--shift-by", "-50"], 50),
    (AT_END, ["--shift-by", "-150"], 0),
    (AT_END, ["--shift-by", "150"], 100),
    (AT_END, ["--by-duration", "PT1H"], 0),
    (AT_END, ["--by-duration", "PT0S"], 100),
    (AT_END, ["--to-datetime", "2000-01-01T00:00:00.000"], 0),
    (BEHIND, ["--to-latest"], 200),
    (BEHIND, ["--to-current"], 100),
    (BEHIND, ["--shift-by", "50"], 150),
    (BEHIND, ["--shift-by", "-50"], 50),
    (BEHIND, ["--shift-by", "150"], 200),
    (BEHIND, ["--shift-by", "0"], 100),
])
def test_scenarios_on_one_partition(ec, where, args, expected):
    group, topic = where
    assert new_offsets(reset(ec, "-g", group, "-t", topic, *args)) == {(group, topic, 0): expected}


@pytest.mark.parametrize("zero", [["--to-offset", "0"], ["--shift-by", "0"]])
def test_a_zero_scenario_with_another_is_two_scenarios(ec, zero):
    """--to-offset 0 and --shift-by 0 are scenarios: with a second one the reset is refused
    (once a 0 counted as not given, and --to-latest --execute committed the log end)."""
    b = ec.bootstrap_servers
    consume_and_commit(b, f"zero{zero[0]}", ["grow"], 200)
    before = committed(b, f"zero{zero[0]}")
    r = run_kcli(b, "reset-offsets", "-g", f"zero{zero[0]}", "-t", "grow", *zero, "--to-earliest", "--execute")
    assert (r.code, r.out) == (2, ""), r
    assert r.err == f'Error: Option "[to-earliest]" can\'t be used with option "[{zero[0][2:]}]"\n'
    assert committed(b, f"zero{zero[0]}") == before
    r = run_kcli(b, "reset-offsets", "-g", "g1", "-t", "t", *zero, "--compare")
    assert (r.code, r.out) == (2, ""), r
    assert f"--compare compares every policy: it cannot be used with {zero[0]}" in r.err


@pytest.mark.parametrize("zero,expected", [(["--to-offset", "0"], 0), (["--shift-by", "0"], 100)])
def test_dropin_zero_scenario(ec, zero, expected):
    from tests.support.run import run_dropin as dropin

    r = dropin("kafka-consumer-groups", "--bootstrap-server", ec.bootstrap_servers, "--group", "g1",
               "--reset-offsets", "--topic", "t", *zero, "--dry-run")
    assert r.code == 0, r
    assert [line.split() for line in r.out.strip().splitlines()][1:] == [["g1", "t", "0", str(expected)]]


def test_to_datetime_at_checkpoint_and_empty_topic(ec):
    r = reset(ec, "-g", "g1", "-t", "t", "--to-datetime", str(ec.checkpoint))
    assert plan(r)[("g1", "t", 0)]["newOffset"] == 50
    at = datetime.fromtimestamp(ec.checkpoint / 1000, timezone(timedelta(hours=2)))
    r = reset(ec, "-g", "g1", "-t", "t", "--to-datetime", at.isoformat(timespec="milliseconds"))
    assert plan(r)[("g1", "t", 0)]["newOffset"] == 50          # scenario 8: a zone offset
    r = reset(ec, "-g", "new.empty", "-t", "empty", "--by-duration", "PT1M")
    assert new_offsets(r) == {("new.empty", "empty", 0): 0}
    assert "Warn: Partition empty-0: no record at or after the time; the reset goes to the log end (0)" in r.err


def test_no_record_after_the_time_is_not_called_empty(ec):
    """Partition t-0 holds 100 records, none at or after the time: kcli says so (the Java tool,
    and so the drop-in, calls the partition empty)."""
    future = str(int(time.time() * 1000) + 3_600_000)
    r = reset(ec, "-g", "g1", "-t", "t", "--to-datetime", future)
    assert new_offsets(r) == {("g1", "t", 0): 100}
    assert r.err == "Warn: Partition t-0: no record at or after the time; the reset goes to the log end (100)\n"
    assert json.loads(r.out)["groups"][0]["warnings"] == [
        "Partition t-0: no record at or after the time; the reset goes to the log end (100)"]
    r = run_dropin("kafka-consumer-groups", "--bootstrap-server", ec.bootstrap_servers, "--reset-offsets",
                   "--group", "g1", "--topic", "t", "--to-datetime", "2999-01-01T00:00:00.000", "--dry-run")
    assert r.out.startswith("\nWarn: Partition 0 from topic t is empty. Falling back to latest known offset.\n")


def test_clamping_warns(ec):
    r = reset(ec, "-g", "g1", "-t", "t", "--to-offset", "500")
    assert new_offsets(r) == {("g1", "t", 0): 100}
    assert ("New offset (500) is higher than latest offset for topic partition t-0. "
            "Value will be set to 100.") in r.err


def test_partition_scopes(ec):
    assert new_offsets(reset(ec, "-g", "g3", "-t", "t2p:1", "--to-earliest")) == {("g3", "t2p", 1): 0}
    got = new_offsets(reset(ec, "-g", "g3", "-t", "t2p:1", "-t", "u2p:1", "--to-earliest"))
    assert got == {("g3", "t2p", 1): 0, ("g3", "u2p", 1): 0}
    r = run_kcli(ec.bootstrap_servers, "reset-offsets", "-g", "g3", "-t", "t:2,3", "--to-earliest")
    assert (r.code, r.err) == (1, 'Error: The partitions "t-2,t-3" do not exist\n')


def test_one_partition_reset_keeps_the_others(ec):
    """Scenario 19, executed: t2p-1 goes to 0, t2p-0 keeps its commit."""
    b = ec.bootstrap_servers
    consume_and_commit(b, "g19", ["t2p"], 20)
    r = reset(ec, "-g", "g19", "-t", "t2p:1", "--to-earliest", "--execute")
    assert new_offsets(r) == {("g19", "t2p", 1): 0}
    assert committed(b, "g19") == {("t2p", 0): 10, ("t2p", 1): 0}


def test_unknown_option_is_usage_error(ec):
    r = run_kcli(ec.bootstrap_servers, "reset-offsets", "-g", "g1", "-t", "t", "--to-earliest", "--new-consumer")
    assert r.code == 2 and "--new-consumer" in r.err           # scenario 24


def test_shift_by_without_commit_fails_naming_the_ways_out(ec):
    """Found once the cluster was asked: exit 1 (exit 2 says nothing was sent), naming --all-topics
    and --to-earliest; the drop-in keeps the Java tool's usage error."""
    r = run_kcli(ec.bootstrap_servers, "reset-offsets", "-g", "nocommit", "-t", "t", "--shift-by", "-50")
    assert r.code == 1 and r.err.count("\n") == 1, r.err
    assert r.err.startswith("Error: Cannot shift offset for partition t-0 since there is no current committed "
                            "offset; nothing was committed.")
    assert "--all-topics" in r.err and "--to-earliest" in r.err
    r = run_dropin("kafka-consumer-groups", "--bootstrap-server", ec.bootstrap_servers, "--reset-offsets",
                   "--group", "nocommit", "--topic", "t", "--shift-by", "-50", "--dry-run")
    assert (r.code, r.out, r.err) == (
        2, "", "Cannot shift offset for partition t-0 since there is no current committed offset\n")


def test_csv_round_trip_single_and_multi_group(ec, tmp_path):
    b = ec.bootstrap_servers
    r = run_kcli(b, "reset-offsets", "-g", "g3", "-t", "t2p", "--to-offset", "2", "--export")
    assert r.out == "t2p,0,2\nt2p,1,2\n\n"
    (tmp_path / "one.csv").write_text(r.out)
    assert new_offsets(reset(ec, "-g", "g3", "--from-file", str(tmp_path / "one.csv"))) == {
        ("g3", "t2p", 0): 2, ("g3", "t2p", 1): 2}
    r = run_kcli(b, "reset-offsets", "-g", "g1", "-g", "g2", "-t", "t", "--to-offset", "7", "--export")
    assert r.out == "g1,t,0,7\ng2,t,0,7\n\n"
    (tmp_path / "multi.csv").write_text(r.out)
    assert new_offsets(reset(ec, "-g", "g1", "-g", "g2", "--from-file", str(tmp_path / "multi.csv"))) == {
        ("g1", "t", 0): 7, ("g2", "t", 0): 7}
    assert new_offsets(reset(ec, "-g", "g1", "--from-file", str(tmp_path / "multi.csv"))) == {("g1", "t", 0): 7}


def test_execute_writes_rollback_file_first(ec, tmp_path):
    b = ec.bootstrap_servers
    consume_and_commit(b, "rb", ["t"], 100)
    path = tmp_path / "rollback.csv"
    r = run_kcli(b, "reset-offsets", "-g", "rb", "-t", "t", "--to-offset", "10", "--execute",
                 "--rollback-file", str(path))
    assert r.code == 0 and str(path) in r.err
    assert path.read_text() == "t,0,100\n"
    assert committed(b, "rb") == {("t", 0): 10}
    # Restoring moves the offset forward past 90 records the group has not read since: it says
    # so, and, the file being one kcli wrote (its digest is kcli's), commits without --allow-skip.
    r = run_kcli(b, "reset-offsets", "-g", "rb", "--from-file", str(path), "--execute")
    assert r.code == 0 and "the new offset 100 skips 90 unread records (committed offset 10)" in r.err
    assert committed(b, "rb") == {("t", 0): 100}


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_active_group_is_refused(ec, protocol):
    b = ec.bootstrap_servers
    group = f"active-{protocol}"
    c = consumer(b, group, protocol)
    c.subscribe(["t"])
    consume([c], 100)
    c.commit(asynchronous=False)
    try:
        r = run_kcli(b, "reset-offsets", "-g", group, "-t", "t", "--to-earliest", "--execute")
        assert r.code == 1
        assert r.err == (f"Error: Assignments can only be reset if the group '{group}' is inactive, "
                         "but the current state is Stable.\n")
        assert committed(b, group) == {("t", 0): 100}
    finally:
        c.close()


def test_all_groups_with_one_active_group_resets_the_others():
    """kafka-consumer-groups prints the active group's error and the others' plans; the native
    command plans the others, names the active one on stderr (an Error: line each) and exits 3;
    --execute commits the inactive groups only."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("t", 1)
        produce(b, "t", tagged("a", 0, 20))
        for g in ("ia", "ib"):
            consume_and_commit(b, g, ["t"], 20)
        c = consumer(b, "act", "classic")
        c.subscribe(["t"])
        consume([c], 20)
        c.commit(asynchronous=False)
        active = "Assignments can only be reset if the group 'act' is inactive, but the current state is Stable."
        try:
            r = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--all-groups",
                         "--topic", "t", "--to-earliest", "--dry-run")
            assert r.out == (f"\nError: {active}\n"
                             "\nGROUP           TOPIC           PARTITION  NEW-OFFSET"
                             "\nia              t               0          0"
                             "\nib              t               0          0\n")
            assert r.code == 3, r.err
            r = run_kcli(b, "reset-offsets", "--all-groups", "-t", "t", "--to-earliest", "-o", "json")
            assert r.code == 3 and json.loads(r.err.splitlines()[-1])["error"] == (
                f"{active}\n2 of 3 groups planned; not the active ones: act")
            assert {(g["group"], len(g["partitions"])) for g in json.loads(r.out)["groups"]} == {
                ("act", 0), ("ia", 1), ("ib", 1)}
            r = run_kcli(b, "reset-offsets", "--all-groups", "-t", "t", "--to-earliest")
            assert r.code == 3 and r.err.splitlines()[-2:] == [
                f"Error: {active}", "Error: 2 of 3 groups planned; not the active ones: act"]
            r = run_kcli(b, "reset-offsets", "--all-groups", "-t", "t", "--to-earliest", "--execute")
            assert r.code == 3 and r.err.splitlines()[-2:] == [
                f"Error: {active}", "Error: 2 of 3 groups reset; not the active ones: act"]
            assert committed(b, "ia") == committed(b, "ib") == {("t", 0): 0}
            assert committed(b, "act") == {("t", 0): 20}
        finally:
            c.close()


def test_all_groups_names_a_running_streams_application_and_resets_a_stopped_one():
    """The native --all-groups takes streams groups too: one whose application runs is named as
    an active group is (exit 3, the others reset), one whose application stopped is reset.
    kafka-consumer-groups --all-groups lists consumer groups only, as the Java tool does."""
    from tests.support.groups import RawClient
    from tests.support.streams_wire import heartbeat, topology

    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("t", 1)
        produce(b, "t", tagged("a", 0, 20))
        consume_and_commit(b, "plain", ["t"], 20)
        raw = RawClient(b)
        try:
            for app in ("running", "stopped"):
                node = ec.call(ec.cluster.coordinator_node, app)
                joined = heartbeat(raw, node, app, "m1", 0, topo=topology("t"))
                heartbeat(raw, node, app, "m1", joined.member_epoch, active=[])
                if app == "stopped":
                    heartbeat(raw, node, app, "m1", -1)
            tid = ec.call(lambda: str(ec.cluster.topics["t"].topic_id))
            for app in ("running", "stopped"):
                on_coordinator(ec, lambda co, g: co.commit(g, [("t", 0, Committed(20, -1, "", 0, tid))]), app)
            r = run_kcli(b, "reset-offsets", "--all-groups", "--all-topics", "--to-earliest", "--execute")
            assert r.code == 3, r.err
            assert re.fullmatch(r"Error: Assignments can only be reset if the group 'running' is inactive, but the "
                                r"current state is \w+\.", r.err.splitlines()[-2]), r.err
            assert r.err.splitlines()[-1] == "Error: 2 of 3 groups reset; not the active ones: running"
            assert committed(b, "plain") == committed(b, "stopped") == {("t", 0): 0}
            assert committed(b, "running") == {("t", 0): 20}
            r = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--all-groups",
                           "--all-topics", "--to-latest", "--dry-run")
            assert (r.code, [line.split()[0] for line in r.out.strip().splitlines()[1:]]) == (0, ["plain"]), r
        finally:
            raw.close()


# -- partitions without a leader (ResetConsumerGroupOffsetTest) ----------------------------------

def leaders(b, topic) -> dict[int, int]:
    admin = AdminClient({"bootstrap.servers": b})
    return {p.id: p.leader for p in admin.list_topics(topic, timeout=10).topics[topic].partitions.values()}


def test_offline_partition_outside_the_scope_does_not_matter(tmp_path):
    """Scenario 2: partition 1's broker is down; resetting only partition 0 works."""
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("half", 2)
        produce(b, "half", tagged("r", 0, 10))
        lead = leaders(b, "half")
        assert lead[0] != lead[1]
        ec.stop_node(lead[1])
        r = reset(ec, "-g", "new.group", "-t", "half:0", "--to-earliest", "--execute",
                  "--rollback-file", str(tmp_path / "rb.csv"))
        assert new_offsets(r) == {("new.group", "half", 0): 0}
        assert committed(b, "new.group") == {("half", 0): 0}


def test_partition_without_leader_in_scope_refuses_the_reset(tmp_path):
    """Scenario 25: the reset works on three partitions; once the broker leading one of them is
    down, every scope that includes it fails with the Java tool's message (exit 1), nothing
    committed; the other partitions can still be reset."""
    with fast_cluster(3) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("three", 3)
        for p in range(3):
            produce(b, "three", tagged("r", p, 10))
        consume_and_commit(b, "g25", ["three"], 30)
        rollback = []                         # each --execute writes its own file
        r = reset(ec, "-g", "g25", "-t", "three:0,1,2", "--to-earliest", "--execute", *rollback)
        assert new_offsets(r) == {("g25", "three", p): 0 for p in range(3)}
        assert committed(b, "g25") == {("three", p): 0 for p in range(3)}

        lead = leaders(b, "three")
        ec.stop_node(lead[1])
        others = [p for p in range(3) if lead[p] != lead[1]]
        for scope in (["-t", "three:0,1,2"], ["-t", "three"], ["--all-topics"]):
            r = run_kcli(b, "reset-offsets", "-g", "g25", *scope, "--to-latest", "--execute", *rollback)
            assert (r.code, r.err) == (1, 'Error: The partitions "three-1" have no leader\n'), scope
        assert committed(b, "g25") == {("three", p): 0 for p in range(3)}
        spec = "three:" + ",".join(map(str, others))
        r = reset(ec, "-g", "g25", "-t", spec, "--to-latest", "--execute", *rollback)
        assert new_offsets(r) == {("g25", "three", p): 10 for p in others}
        assert committed(b, "g25") == {("three", p): 10 if p in others else 0 for p in range(3)}


# -- requests do not grow with partitions -----------------------------------------------------

def _requests(ec, *args):
    before = snapshot(ec)
    r = run_kcli(ec.bootstrap_servers, *args)
    assert r.code == 0, r.err
    return sent(ec, before)


@pytest.mark.parametrize("scenario", [["--to-datetime", "2000-01-01T00:00:00.000"], ["--to-start-time"],
                                      ["--to-latest", "--max-age", "1h"]])
def test_request_count_is_independent_of_partition_count(tmp_path, scenario):
    with fast_cluster(1) as ec:
        counts = {}
        for n in (4, 256):
            ec.create_topic(f"wide{n}", n)
            on_coordinator(ec, lambda co: co.create_consumer_group(f"w{n}"))
            args = ["reset-offsets", "-g", f"w{n}", "-t", f"wide{n}", *scenario, "--execute",
                    "--allow-skip"]
            _requests(ec, *args)                       # first run creates the group's commits
            counts[n] = _requests(ec, *args)
        # kcli's own requests the same; librdkafka's connections, metadata refreshes and
        # coordinator lookups on its own timing: bounded, not per partition
        same_requests(counts[4], counts[256])
        assert counts[256]["OffsetCommit"] == 1 and counts[256]["OffsetFetch"] == 1
        assert counts[256].kcli["OffsetCommit"] == 1      # on kcli's own connection, not librdkafka's
        assert counts[256]["ListOffsets"] <= 3                # log start, log end, the time lookup
        assert sum(counts[256].values()) <= 20


# -- partial commit failure on the broker -----------------------------------------------------

def between_plan_and_commit(monkeypatch, action):
    """Run ``action`` (real changes to the cluster) after the plan is made, before it is executed."""
    execute = lib.execute

    def interleaved(*args, **kwargs):
        action()
        return execute(*args, **kwargs)
    monkeypatch.setattr(lib, "execute", interleaved)


def delete_topic(b, topic):
    admin = AdminClient({"bootstrap.servers": b})
    admin.delete_topics([topic])[topic].result(10)


def test_partial_commit_failure_is_exit_3(tmp_path, monkeypatch):
    """Two groups planned while both are Empty; before the commits, a topic of the plan is deleted
    and a consumer joins one group. The broker takes the other group's commit on the surviving
    topic and rejects the rest: exit 3, each failed partition named with the broker's error, the
    rollback file holding what was committed before."""
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        for topic in ("keep", "gone"):
            ec.create_topic(topic, 1)
            produce(b, topic, tagged(topic, 0, 10))
        consume_and_commit(b, "pf-a", ["keep", "gone"], 20)
        consume_and_commit(b, "pf-b", ["keep"], 10)
        joiner = consumer(b, "pf-b", "classic")

        def interfere():
            delete_topic(b, "gone")
            joiner.subscribe(["keep"])
            wait_until(lambda: joiner.poll(0.1) is None and joiner.assignment(), what="pf-b active")
        between_plan_and_commit(monkeypatch, interfere)
        rollback = tmp_path / "rollback.csv"
        try:
            r = run_kcli(b, "reset-offsets", "-g", "pf-a", "-g", "pf-b", "-t", "keep", "-t", "gone",
                         "--to-offset", "3", "--execute", "--rollback-file", str(rollback))
            assert r.code == 3, r.err
            assert r.err.splitlines()[-1] == (
                "Error: 1 of 4 partitions committed, 3 not, 0 unknown: applied: group 'pf-a' keep-0; "
                "not applied: group 'pf-a' gone-0 (Broker: Unknown topic or partition), "
                "group 'pf-b' gone-0 (Broker: Unknown member), group 'pf-b' keep-0 (Broker: Unknown member)")
            assert rollback.read_text() == "pf-a,gone,0,10\npf-a,keep,0,10\npf-b,gone,0,-1\npf-b,keep,0,10\n"
            assert f"Rollback file (the committed offsets before this reset): {rollback}" in r.err
            after = committed(b, "pf-a")
            assert after[("keep", 0)] == 3 and after.get(("gone", 0)) != 3
            assert committed(b, "pf-b") == {("keep", 0): 10}
        finally:
            joiner.close()


def test_every_commit_failing_is_exit_1(tmp_path, monkeypatch):
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("brief", 2)
        produce(b, "brief", tagged("x", 0, 5))
        consume_and_commit(b, "all-fail", ["brief"], 5)
        between_plan_and_commit(monkeypatch, lambda: delete_topic(b, "brief"))
        r = run_kcli(b, "reset-offsets", "-g", "all-fail", "-t", "brief", "--to-earliest", "--execute",
                     "--rollback-file", str(tmp_path / "rb.csv"))
        assert r.code == 1
        assert r.err.splitlines()[-1].startswith("Error: No offsets were committed (2 partitions): "
                                                 "not applied: group 'all-fail' brief-0 (")
        assert (tmp_path / "rb.csv").read_text() == "brief,0,5\nbrief,1,-1\n"

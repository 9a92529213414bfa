"""kcli against real Apache Kafka 4.4: consumer groups of both protocols made by confluent-kafka
consumers, every describe view in every format (GROUP-CREATION-TIME is `-`: 4.4 has no
ConsumerGroupDescribe v2), the KIP refusal (--to-start-time) with nothing committed,
every reset scenario with --export / --from-file / --execute, delete groups and delete-offsets."""

from __future__ import annotations

import csv
import io
import json
import time
from datetime import datetime, timezone

import pytest
from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka.admin import AdminClient

from kcli.ops.resets import TOO_OLD_FOR_START_TIME
from tests.support.apache_kafka import java_tool
from tests.support.clients import (active_member, commit, consume_and_commit, create_topic, produce,
                                   unique)
from tests.support.run import run_kcli

PROTOCOLS = ("classic", "consumer")


def committed(b: str, group: str) -> dict[tuple[str, int], int]:
    admin = AdminClient({"bootstrap.servers": b})
    res = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(10)
    return {(tp.topic, tp.partition): tp.offset for tp in res.topic_partitions if tp.offset >= 0}


@pytest.fixture(scope="module")
def orders(apache_kafka):
    """A 3-partition topic of 30 records (10 per partition), timestamps one second apart per
    partition, starting an hour ago."""
    b = apache_kafka.bootstrap_servers
    topic = unique("orders")
    create_topic(b, topic, partitions=3)
    base = int(time.time() * 1000) - 3_600_000
    produce(b, topic, [(p, f"{p}-{i}", base + i * 1000) for p in range(3) for i in range(10)])
    return b, topic, base


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_describe_views_show_no_creation_time(orders, protocol):
    b, topic, _ = orders
    group = unique(f"views-{protocol}")
    consume_and_commit(b, group, [topic], 30, protocol)
    with active_member(b, group, [topic], protocol, partitions=3):
        for view in ([], ["--members"], ["--members", "--verbose"], ["--state"], ["--verbose"]):
            r = run_kcli(b, "-o", "plain", "describe", "groups", group, *view)
            java = java_tool("kafka-consumer-groups", "--bootstrap-server", b, "--describe",
                             "--group", group, *view)
            assert (r.code, r.err) == (0, "") and java.code == 0, (view, r, java)
            assert r.out == java.out, view
            assert "CREATION" not in r.out
        r = run_kcli(b, "-o", "plain", "describe", "groups", group, "--state", "--verbose")
        header, row = r.out.splitlines()[1:]
        assert header.split()[-2:] == ["#MEMBERS", "GROUP-CREATION-TIME"]
        assert row.split()[-2:] == ["1", "-"] and row.split()[4] == "Stable"
        doc = json.loads(run_kcli(b, "-o", "json", "describe", "groups", group, "--state").out)
        g = doc["groups"][0]
        assert (g["state"], g["groupCreationTimeMs"], g["groupCreationTime"]) == ("Stable", None, None)
        table = run_kcli(b, "describe", "groups", group, "--state", "--verbose")
        assert table.code == 0 and "GROUP-CREATION-TIME" in table.out
        assert table.out.split("GROUP-CREATION-TIME")[1].split()[-1] == "-"
        csv_rows = list(csv.DictReader(io.StringIO(run_kcli(b, "-o", "csv", "describe", "groups", group,
                                                            "--state", "--verbose").out)))
        assert [row["GROUP-CREATION-TIME"] for row in csv_rows] == [""]          # a null is an empty cell in every CSV


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_to_start_time_is_refused_with_nothing_committed(orders, protocol):
    """--to-start-time needs the broker's group creation time (KIP-1282); --max-age does not:
    tests/apache/test_kcli_partition_age.py."""
    b, topic, _ = orders
    group = unique(f"kip-{protocol}")
    consume_and_commit(b, group, [topic], 30, protocol)
    before = committed(b, group)
    r = run_kcli(b, "reset-offsets", "--group", group, "--topic", topic, "--to-start-time", "--execute")
    assert (r.code, r.err) == (1, f"Error: {TOO_OLD_FOR_START_TIME}\n")
    assert committed(b, group) == before


def _plan(r) -> dict[int, int]:
    assert r.code == 0, r.err
    return {p["partition"]: p["newOffset"] for g in json.loads(r.out)["groups"] for p in g["partitions"]}


def test_every_reset_scenario_executes(orders):
    b, topic, base = orders
    group = unique("reset")
    consume_and_commit(b, group, [topic], 30)
    at = lambda offset: {(topic, p): offset for p in range(3)}          # noqa: E731
    iso = datetime.fromtimestamp((base + 4500) / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
    # (scenario, expected committed offsets after --execute), each from the state the previous left
    steps = [(["--to-earliest"], at(0)),
             (["--to-latest"], at(10)),
             (["--to-offset", "3"], at(3)),
             (["--shift-by", "2"], at(5)),
             (["--shift-by", "-50"], at(0)),                  # clamped to the log start
             (["--to-offset", "99"], at(10)),                 # clamped to the log end
             (["--to-datetime", iso], at(5)),                 # first record at or after base+4.5 s
             (["--by-duration", "PT2H"], at(0)),              # every record is newer than 2 h
             (["--by-duration", "PT1S"], at(10)),             # none newer: the log end
             (["--to-current"], at(10))]
    for scenario, expected in steps:
        dry = run_kcli(b, "-o", "json", "reset-offsets", "--group", group, "--topic", topic, *scenario)
        assert _plan(dry) == {p: o for (_, p), o in expected.items()}, scenario
        r = run_kcli(b, "-o", "plain", "reset-offsets", "--group", group, "--topic", topic, *scenario,
                     "--execute", "--allow-skip")
        assert r.code == 0, (scenario, r.err)
        assert committed(b, group) == expected, scenario


def test_the_rollback_file_is_named_by_the_clusters_id(apache_kafka, orders):
    b, topic, _ = orders
    group = unique("rb")
    consume_and_commit(b, group, [topic], 30)
    r = run_kcli(b, "-o", "json", "reset-offsets", "--group", group, "--topic", topic, "--to-earliest",
                 "--execute", "--allow-skip")
    assert r.code == 0, r.err
    name = json.loads(r.out)["rollbackFile"].rsplit("/", 1)[-1]
    assert name.startswith(f"{apache_kafka.cluster_id}_{group}_"), name


def test_export_then_from_file_round_trip(orders, tmp_path):
    b, topic, _ = orders
    g1, g2 = unique("exp1"), unique("exp2")
    for g in (g1, g2):
        consume_and_commit(b, g, [topic], 30)
    one = run_kcli(b, "-o", "plain", "reset-offsets", "--group", g1, "--topic", topic, "--to-offset", "2",
                   "--export")
    java = java_tool("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", g1,
                     "--topic", topic, "--to-offset", "2", "--export", "--dry-run")
    assert one.code == 0 and one.out == java.out
    assert sorted(one.out.splitlines()) == ["", *(f"{topic},{p},2" for p in range(3))]
    two = run_kcli(b, "-o", "plain", "reset-offsets", "--group", g1, "--group", g2, "--topic", topic,
                   "--to-offset", "4", "--export")
    (tmp_path / "plan.csv").write_text(two.out)
    r = run_kcli(b, "reset-offsets", "--group", g1, "--group", g2, "--from-file",
                 str(tmp_path / "plan.csv"), "--execute")
    assert r.code == 0, r.err
    for g in (g1, g2):
        assert committed(b, g) == {(topic, p): 4 for p in range(3)}
    # The Java tool reads kcli's file the same way.
    java = java_tool("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", g1,
                     "--from-file", str(tmp_path / "plan.csv"), "--dry-run")
    assert sorted(line.split() for line in java.out.splitlines()[2:]) == [[g1, topic, str(p), "4"] for p in range(3)]


def test_active_group_is_refused_and_shown_as_java_does(orders):
    b, topic, _ = orders
    group = unique("active")
    with active_member(b, group, [topic], partitions=3):
        r = run_kcli(b, "reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--execute")
        assert r.code == 1
        assert (f"Assignments can only be reset if the group '{group}' is inactive, "
                "but the current state is Stable.") in r.err


def test_delete_groups_and_offsets(orders):
    b, topic, _ = orders
    group = unique("del")
    consume_and_commit(b, group, [topic], 30)
    r = run_kcli(b, "-o", "plain", "delete-offsets", "--group", group, "--topic", f"{topic}:0")
    assert r.code == 0 and r.out.startswith(f"Request succeeded for deleting offsets from group {group}.\n")
    assert set(committed(b, group)) == {(topic, 1), (topic, 2)}
    with active_member(b, group, [topic], partitions=3):
        r = run_kcli(b, "-o", "plain", "delete-offsets", "--group", group, "--topic", topic)
        assert r.code == 1
        assert "Error: Encountered some partition-level error, see the follow-up details." in r.out
        r = run_kcli(b, "-o", "plain", "delete", "groups", group)
        assert r.code == 1 and f"* Group '{group}' could not be deleted due to:" in r.out
    r = run_kcli(b, "-o", "plain", "delete", "groups", group)
    assert (r.code, r.out) == (0, f"Deletion of requested consumer groups ('{group}') was successful.\n")
    assert committed(b, group) == {}
    r = run_kcli(b, "describe", "groups", group)
    assert (r.code, r.err) == (1, f"Error: Group {group} not found.\n")


def test_simple_consumer_commits_are_a_group(orders):
    """An assign-based consumer's commits (no member ever joined): Empty, two offset rows."""
    b, topic, _ = orders
    group = unique("simple")
    commit(b, group, {(topic, 0): 3, (topic, 1): 4})
    r = run_kcli(b, "-o", "plain", "describe", "groups", group)
    java = java_tool("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group", group)
    assert r.out == java.out and len(r.out.splitlines()) == 4
    assert f"Consumer group '{group}' has no active members." in r.err

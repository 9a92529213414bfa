"""kcli's native reset-offsets, delete-offsets and delete groups on streams groups, on real
Apache Kafka 4.4.0 (tests/conftest.py's apache_kafka_streams) with a Kafka Streams application
(tests/support/streams_app.py): refused while the application runs (kafka-streams-groups: the
group must be inactive), every scenario on the stopped one (dry run by default; --all-topics /
--all-input-topics is the topology's input topics), the rollback file before the commit (an
OffsetCommit with generation -1 and no member, which 4.4 accepts for an empty streams group),
KIP-1282's "does not support" for --to-start-time (4.4 has StreamsGroupDescribe v0-v1 only)."""

from __future__ import annotations

import json

import pytest

from kcli.ops.resets import TOO_OLD_FOR_START_TIME
from tests.support.clients import create_topic, produce, unique
from tests.support.run import run_kcli
from tests.support.streams_app import group_lags, run_until_caught_up


def _app(b, prefix, stop):
    app_id, source, sink = unique(prefix), unique("in"), unique("out")
    create_topic(b, source, partitions=2)
    create_topic(b, sink, partitions=1)
    produce(b, source, [(p, f"v{p}-{i}") for p in range(2) for i in range(5)])
    return app_id, source, sink, run_until_caught_up(b, app_id, source, sink, 2, stop=stop)


@pytest.fixture(scope="module")
def running(apache_kafka_streams):
    """A running application that has read its 2-partition input (5 records each)."""
    b = apache_kafka_streams.bootstrap_servers
    app_id, source, sink, app = _app(b, "running", stop=False)
    try:
        yield b, app_id, source, sink
    finally:
        app.stop()


@pytest.fixture(scope="module")
def stopped(apache_kafka_streams):
    """A stopped application (group Empty) that had read its input to the end (5 and 5), then
    3 more records on partition 0."""
    b = apache_kafka_streams.bootstrap_servers
    app_id, source, sink, _ = _app(b, "stopped", stop=True)
    produce(b, source, [(0, "late-1"), (0, "late-2"), (0, "late-3")])
    return b, app_id, source, sink


def _plan(r) -> list[tuple[str, int, int | None, int]]:
    assert r.code == 0, r.err
    (g,) = json.loads(r.out)["groups"]
    return [(p["topic"], p["partition"], p["currentOffset"], p["newOffset"]) for p in g["partitions"]]


def _committed(b, group, source):
    r = run_kcli(b, "-o", "json", "describe", "groups", group)
    (g,) = json.loads(r.out)["groups"]
    return {p["partition"]: p["currentOffset"] for p in g["partitions"] if p["topic"] == source}


def test_a_running_streams_group_is_not_reset(running):
    b, app_id, source, _ = running
    for scope in (["--all-topics"], ["--all-input-topics"], ["--topic", source]):
        r = run_kcli(b, "reset-offsets", "--group", app_id, *scope, "--to-earliest", "--execute")
        assert r.code == 1, r
        assert r.err.splitlines()[-1] == (f"Error: Assignments can only be reset if the group '{app_id}' is inactive, "
                                          "but the current state is Stable."), r.err
        assert "Rollback file" not in r.err
    assert _committed(b, app_id, source) == {0: 5, 1: 5}


def test_every_scenario_plans_the_stopped_groups_input_topics(stopped, tmp_path):
    b, app_id, source, _ = stopped
    scenarios = {("--to-earliest",): [0, 0], ("--to-latest",): [8, 5], ("--to-current",): [5, 5],
                 ("--to-offset", "2"): [2, 2], ("--shift-by", "-1"): [4, 4],
                 ("--to-datetime", "2000-01-01T00:00:00"): [0, 0], ("--by-duration", "PT0S"): [8, 5]}
    for args, new in scenarios.items():
        for scope in (["--all-topics"], ["--all-input-topics"], ["--topic", source]):
            r = run_kcli(b, "-o", "json", "reset-offsets", "--group", app_id, *scope, *args)
            assert _plan(r) == [(source, 0, 5, new[0]), (source, 1, 5, new[1])], (args, scope, r.out)
            assert json.loads(r.out)["executed"] is False
    # --from-file: the --export of a plan, planned again
    exported = run_kcli(b, "-o", "csv", "reset-offsets", "--group", app_id, "--all-topics", "--to-offset", "3",
                        "--export")
    assert sorted(exported.out.split()) == [f"{source},0,3", f"{source},1,3"]
    plan_file = tmp_path / "plan.csv"
    plan_file.write_text(exported.out)
    r = run_kcli(b, "-o", "json", "reset-offsets", "--group", app_id, "--from-file", str(plan_file))
    assert _plan(r) == [(source, 0, 5, 3), (source, 1, 5, 3)]
    assert _committed(b, app_id, source) == {0: 5, 1: 5}            # dry runs: nothing committed


def test_the_sink_topic_is_not_an_input_of_the_group(stopped):
    b, app_id, _, sink = stopped
    r = run_kcli(b, "reset-offsets", "--group", app_id, "--topic", sink, "--to-earliest")
    assert r.code == 1, r
    assert r.err.splitlines()[-1] == f"Error: One or more topics are not part of the group '{app_id}'."


def test_execute_writes_the_rollback_file_then_commits_and_the_file_restores(stopped):
    b, app_id, source, _ = stopped
    r = run_kcli(b, "-o", "json", "reset-offsets", "--group", app_id, "--topic", f"{source}:0", "--to-offset", "1",
                 "--execute")
    assert _plan(r) == [(source, 0, 5, 1)]
    assert json.loads(r.out)["executed"] is True
    rollback = json.loads(r.out)["rollbackFile"]
    assert f"Rollback file (the committed offsets before this reset): {rollback}" in r.err
    with open(rollback, encoding="utf-8") as fh:
        assert fh.read() == f"{source},0,5\n"
    assert _committed(b, app_id, source) == {0: 1, 1: 5}
    assert group_lags(b, app_id) == {(source, 0): 7, (source, 1): 0}
    # still a streams group, still Empty: the commit did not turn it into a classic group
    state = json.loads(run_kcli(b, "-o", "json", "describe", "groups", app_id, "--state").out)["groups"][0]
    assert (state["type"], state["state"], state["members"]) == ("Streams", "Empty", 0)
    restore = run_kcli(b, "reset-offsets", "--group", app_id, "--from-file", rollback, "--execute")
    assert restore.code == 0, restore.err
    assert _committed(b, app_id, source) == {0: 5, 1: 5}


def test_to_start_time_is_not_supported_by_4_4(stopped, running):
    """The broker's capability is the answer before the group's state: a running application
    is not told to stop first for a reset the broker could never do."""
    b = stopped[0]
    for app_id in (stopped[1], running[1]):
        r = run_kcli(b, "reset-offsets", "--group", app_id, "--all-topics", "--to-start-time")
        assert r.code == 1, r
        assert r.err.splitlines()[-1] == f"Error: {TOO_OLD_FOR_START_TIME}"


def test_delete_offsets_and_delete_groups_work_on_streams_groups(apache_kafka_streams, running):
    b = apache_kafka_streams.bootstrap_servers
    app_id, source, _, _ = _app(b, "deleted", stop=True)
    r = run_kcli(b, "-o", "json", "delete-offsets", "--group", app_id, "--topic", f"{source}:0")
    assert r.code == 0, r.err
    assert _committed(b, app_id, source) == {1: 5}
    r = run_kcli(b, "delete", "groups", app_id)
    assert r.code == 0, r.err
    assert app_id not in run_kcli(b, "-o", "plain", "list", "groups", "--type", "streams").out
    # the running application's group: both refused by the broker, exit 1
    r = run_kcli(b, "delete-offsets", "--group", running[1], "--topic", f"{running[2]}:0")
    assert r.code == 1 and "actively subscribed" in r.out, r
    r = run_kcli(b, "delete", "groups", running[1])
    assert r.code == 1 and "not empty" in r.out, r
    assert _committed(b, running[1], running[2]) == {0: 5, 1: 5}

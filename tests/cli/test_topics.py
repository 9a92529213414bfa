"""describe/create/alter/delete topics and configs through the real entry point, against the
embedded broker (normal and posing as 4.1)."""

from __future__ import annotations

import json

from confluent_kafka.admin import AdminClient

from tests.support.run import run_kcli, run_kcli_process


def _partition_lines(text: str) -> dict[int, str]:
    lines = [line for line in text.splitlines() if line.startswith("\tTopic:")]
    return {int(line.split("\tPartition: ")[1].split("\t")[0]): line for line in lines}


def test_describe_after_expansion_shows_each_partitions_creation_time(cluster, clock):
    b = cluster.bootstrap_servers
    clock.now_ms = 1_736_937_000_000
    assert run_kcli(b, "create", "topic", "expand", "--partitions", "2", "--replication-factor", "3").code == 0
    clock.now_ms += 90_061_007           # 1 day 1 h 1 min 1.007 s later
    r = run_kcli(b, "alter", "topic", "expand", "--partitions", "4")
    assert r.code == 0, r.err
    assert "partitions 2 -> 4" in r.out

    r = run_kcli(b, "describe", "topics", "expand", "-o", "plain")
    assert r.code == 0, r.err
    summary = r.out.splitlines()[0]
    assert summary.startswith("Topic: expand\tTopicId: ")
    assert "\tPartitionCount: 4\tReplicationFactor: 3\tConfigs: " in summary
    lines = _partition_lines(r.out)
    assert sorted(lines) == [0, 1, 2, 3]
    for p in (0, 1):
        assert lines[p].endswith("\tCreationTimeMs: 2025-01-15T10:30:00.000Z")
    for p in (2, 3):
        assert lines[p].endswith("\tCreationTimeMs: 2025-01-16T11:31:01.007Z")
    assert "\tElr: \tLastKnownElr: \t" in lines[0]

    doc = json.loads(run_kcli(b, "describe", "topics", "expand", "-o", "json").out)
    assert doc["schema"] == "kcli.topics/v1"
    parts = doc["topics"][0]["partitions"]
    assert [p["creationTimeMs"] for p in parts] == [1_736_937_000_000] * 2 + [1_737_027_061_007] * 2
    assert parts[3]["creationTime"] == "2025-01-16T11:31:01.007Z"
    assert all(len(p["replicas"]) == 3 and p["leader"] in p["replicas"] for p in parts)


def test_unknown_creation_time_prints_dash(cluster):
    cluster.create_topic("legacy", partitions=1, replication_factor=1, creation_time_ms=-1)
    r = run_kcli(cluster.bootstrap_servers, "describe", "topics", "legacy", "-o", "plain")
    assert _partition_lines(r.out)[0].endswith("\tCreationTimeMs: -")
    doc = json.loads(run_kcli(cluster.bootstrap_servers, "describe", "topics", "legacy", "-o", "json").out)
    assert doc["topics"][0]["partitions"][0]["creationTimeMs"] is None


def test_older_broker_has_no_creation_time_field(old_cluster):
    old_cluster.create_topic("t41", partitions=2)
    r = run_kcli(old_cluster.bootstrap_servers, "describe", "topics", "t41", "-o", "plain")
    assert r.code == 0, r.err
    assert len(_partition_lines(r.out)) == 2 and "CreationTimeMs" not in r.out
    doc = json.loads(run_kcli(old_cluster.bootstrap_servers, "describe", "topics", "-o", "json").out)
    assert all("creationTimeMs" not in p for t in doc["topics"] for p in t["partitions"])


def test_list_create_delete_and_their_errors(cluster):
    b = cluster.bootstrap_servers
    assert run_kcli(b, "create", "topic", "kafka.testTopic1", "--partitions", "1").code == 0
    assert run_kcli(b, "create", "topic", "oooof.testTopic1").code == 0
    r = run_kcli(b, "list", "topics", "kafka.*")
    assert r.out.split() == ["kafka.testTopic1"]
    dup = run_kcli(b, "create", "topic", "kafka.testTopic1")
    assert dup.code == 1 and dup.err.splitlines()[-1] == "Error: Topic 'kafka.testTopic1' already exists."
    assert run_kcli(b, "create", "topic", "kafka.testTopic1", "--if-not-exists").code == 0

    # Known only once the cluster answered: the operation failed (exit 1), as kafka-topics says
    same = run_kcli(b, "alter", "topic", "kafka.testTopic1", "--partitions", "1")
    assert same.code == 1 and "Topic already has 1 partition(s)." in same.err
    assert run_kcli(b, "create", "topic", "four", "--partitions", "4").code == 0
    fewer = run_kcli(b, "alter", "topic", "four", "--partitions", "2")
    assert fewer.code == 1 and "The topic four currently has 4 partition(s); 2 would not be an increase." in fewer.err
    from tests.support.run import run_dropin as dropin

    for count, message in (("2", "The topic four currently has 4 partition(s); 2 would not be an increase."),
                           ("4", "Topic already has 4 partition(s).")):
        r = dropin("kafka-topics", "--bootstrap-server", b, "--alter", "--topic", "four", "--partitions", count)
        assert (r.code, r.out, r.err) == (1, f"Error while executing topic command : {message}\n", ""), r
    r = run_kcli(b, "delete", "topic", "oooof.*")
    assert r.code == 0 and "oooof.testTopic1" in r.out
    assert "oooof.testTopic1" not in AdminClient({"bootstrap.servers": b}).list_topics(timeout=10).topics
    missing = run_kcli(b, "delete", "topic", "nope")
    assert missing.code == 1 and "Topic 'nope' does not exist as expected" in missing.err
    assert run_kcli(b, "delete", "topic", "nope", "--if-exists").code == 0


def _deletes(cluster) -> int:
    return sum(n.get("DeleteTopics", 0) for n in cluster.request_counts().values())


def test_a_regex_matching_several_topics_is_a_dry_run_without_execute(cluster):
    b = cluster.bootstrap_servers
    for name in ("tmp-a", "tmp-b", "tmpkeep"):
        cluster.create_topic(name)
    before = _deletes(cluster)
    r = run_kcli(b, "delete", "topics", "tmp-.*")
    assert (r.code, r.out) == (0, "Would delete topic tmp-a.\nWould delete topic tmp-b.\n"), r
    assert r.err == "Dry run: nothing was deleted (2 topics match; add --execute to delete them).\n"
    plain = run_kcli(b, "delete", "topics", "tmp-.*", "-o", "plain")
    assert (plain.code, plain.out) == (0, "tmp-a\ntmp-b\n")
    doc = json.loads(run_kcli(b, "delete", "topics", "--topic", "tmp-a", "--topic", "tmp-b", "-o", "json").out)
    assert (doc["schema"], doc["topics"], doc["executed"]) == ("kcli.topic-delete/v2", ["tmp-a", "tmp-b"], False)
    assert _deletes(cluster) == before                      # no DeleteTopics sent
    assert {"tmp-a", "tmp-b"} <= set(AdminClient({"bootstrap.servers": b}).list_topics(timeout=10).topics)

    r = run_kcli(b, "delete", "topics", "tmp-.*", "--execute", "-o", "json")
    assert r.code == 0 and json.loads(r.out)["executed"] is True, r
    left = set(AdminClient({"bootstrap.servers": b}).list_topics(timeout=10).topics)
    assert "tmpkeep" in left and not {"tmp-a", "tmp-b"} & left
    # one match (a regex or a name) is deleted at once, as before
    r = run_kcli(b, "delete", "topics", "tmpk.*")
    assert (r.code, r.out, r.err) == (0, "Deleted topic tmpkeep.\n", "")


def test_create_with_a_replica_assignment(cluster):
    """Regression: confluent-kafka refused NewTopic(replica_assignment=...) with its default
    partition count, so every such create failed (found against Apache Kafka)."""
    b = cluster.bootstrap_servers
    r = run_kcli(b, "create", "topic", "placed", "--replica-assignment", "1:2,2:3,3:1")
    assert (r.code, r.out) == (0, "Created topic placed.\n")
    doc = json.loads(run_kcli(b, "-o", "json", "describe", "topics", "placed").out)
    assert [p["replicas"] for p in doc["topics"][0]["partitions"]] == [[1, 2], [2, 3], [3, 1]]


def test_bad_input_is_one_line_and_exit_2_with_nothing_sent(cluster):
    b = cluster.bootstrap_servers
    before = dict(cluster.request_counts())
    for args in (["describe", "topics", "[bad"], ["list-offsets", "-t", "t:x"],
                 ["list-offsets", "--time", "not-a-time"], ["create", "topic", "x", "--partitions", "0"],
                 ["create", "topic", "x", "--config", "novalue"]):
        r = run_kcli(b, *args)
        assert r.code == 2, (args, r)
        assert r.err.startswith("Error: ") and r.err.count("\n") == 1 and "Traceback" not in r.err
    assert run_kcli(b, "describe", "topics", "[bad").err == "Error: [bad is an invalid regex.\n"
    assert _totals(cluster.request_counts()) == _totals(before)


def _totals(counts) -> int:
    return sum(v if isinstance(v, int) else _totals(v) for v in counts.values())


def test_unreachable_cluster_exits_1_in_json_too():
    r = run_kcli_process("127.0.0.1:1", "list", "topics", "--timeout", "1s", "-o", "json")
    assert r.code == 1
    doc = json.loads(r.err)
    assert doc["schema"] == "kcli.error/v2" and doc["exitCode"] == 1
    assert doc["error"].startswith("Cannot connect to the cluster at 127.0.0.1:1") and "refused" in doc["error"]


def test_unreachable_cluster_names_librdkafkas_reason():
    """A refused connection ends the command at once with librdkafka's reason (it waited out
    --timeout and said 'No answer' before; tests/cli/test_fast_failure.py covers every command)."""
    r = run_kcli_process("127.0.0.1:1", "create", "topic", "t", "--timeout", "20s")
    assert r.code == 1
    assert r.err == "Error: Cannot connect to the cluster at 127.0.0.1:1: 127.0.0.1:1: Connection refused\n"


def test_configs_explain_kip937_bounds(cluster):
    b = cluster.bootstrap_servers
    assert run_kcli(b, "create", "topic", "bounded").code == 0
    r = run_kcli(b, "alter", "configs", "--topic", "bounded", "--set", "message.timestamp.after.max.ms=3600000")
    assert r.code == 0, r.err
    doc = json.loads(run_kcli(b, "describe", "configs", "--topic", "bounded", "-o", "json").out)
    cfg = {c["name"]: c for c in doc["resources"][0]["configs"]}
    after = cfg["message.timestamp.after.max.ms"]
    assert after["value"] == "3600000" and after["effective"] == 3600000 and not after["default"]
    assert "1h in the future" in after["meaning"]
    before = cfg["message.timestamp.before.max.ms"]
    assert before["effective"] == 9223372036854775807 and "no limit" in before["meaning"]


def test_entry_point_runs_as_a_process(cluster):
    for name in ("process-a", "process-b"):         # its own topics: tests run in any order
        cluster.create_topic(name, partitions=1)
    r = run_kcli_process(cluster.bootstrap_servers, "list", "topics", "process-.*")
    assert r.code == 0 and r.out.split() == ["process-a", "process-b"]


def test_topic_ids_print_as_kafka_does(cluster):
    import base64

    cluster.create_topic("with-id", partitions=1)
    doc = json.loads(run_kcli(cluster.bootstrap_servers, "describe", "topics", "with-id", "-o", "json").out)
    tid = doc["topics"][0]["topicId"]
    assert len(tid) == 22 and len(base64.urlsafe_b64decode(tid + "==")) == 16   # Uuid.toString


def test_broker_without_describe_topic_partitions_falls_back_to_metadata(pre_kip_cluster):
    pre_kip_cluster.create_topic("old", partitions=2)
    r = run_kcli(pre_kip_cluster.bootstrap_servers, "describe", "topics", "old", "-o", "plain")
    assert r.code == 0, r.err
    lines = _partition_lines(r.out)
    assert sorted(lines) == [0, 1]
    assert all(line.endswith("\tElr: N/A\tLastKnownElr: N/A") for line in lines.values())


def test_table_view_has_the_topic_summary_and_overrides_show_in_every_format(cluster):
    b = cluster.bootstrap_servers
    assert run_kcli(b, "create", "topic", "summarized", "--partitions", "2",
                    "--config", "retention.ms=86400000", "--config", "cleanup.policy=compact").code == 0
    topic_id = json.loads(run_kcli(b, "describe", "topics", "summarized", "-o", "json").out)["topics"][0]["topicId"]
    table = run_kcli(b, "describe", "topics", "summarized").out
    summary, partitions = table.split("\n\n")
    assert summary.split("\n")[0].split() == ["TOPIC", "TOPIC-ID", "PARTITIONS", "REPLICATION-FACTOR", "CONFIGS"]
    row = summary.split("\n")[2]
    assert row.split()[:4] == ["summarized", topic_id, "2", "1"]
    assert "retention.ms=86400000" in row and "cleanup.policy=compact" in row
    assert partitions.split("\n")[0].split()[:2] == ["TOPIC", "PARTITION"]

    overrides = run_kcli(b, "describe", "topics", "summarized", "--topics-with-overrides").out
    assert "summarized" in overrides and "retention.ms=86400000" in overrides and "PARTITION " not in overrides
    csv_rows = run_kcli(b, "describe", "topics", "summarized", "--topics-with-overrides", "-o", "csv").out.splitlines()
    assert csv_rows[0] == "TOPIC,TOPIC-ID,PARTITIONS,REPLICATION-FACTOR,CONFIGS"
    assert csv_rows[1].startswith(f"summarized,{topic_id},2,1,") and "retention.ms=86400000" in csv_rows[1]
    plain = run_kcli(b, "describe", "topics", "summarized", "--topics-with-overrides", "-o", "plain").out
    assert plain.startswith(f"Topic: summarized\tTopicId: {topic_id}\tPartitionCount: 2")
    assert "retention.ms=86400000" in plain
    doc = json.loads(run_kcli(b, "describe", "topics", "summarized", "--topics-with-overrides", "-o", "json").out)
    assert doc["topics"][0]["configs"]["retention.ms"] == "86400000" and doc["topics"][0]["partitions"] == []


def test_an_empty_report_says_none_in_a_table_and_nothing_in_plain(cluster):
    """A report filter on a healthy cluster: ``(none)``, not a header and a rule with nothing
    under them; ``-o plain`` prints what kafka-topics prints (nothing), csv its header."""
    b = cluster.bootstrap_servers
    run_kcli(b, "create", "topic", "healthy-report", "--partitions", "2", "--replication-factor", "3")
    for flag in ("--under-replicated-partitions", "--unavailable-partitions", "--under-min-isr-partitions"):
        r = run_kcli(b, "describe", "topics", "healthy-report", flag)
        assert (r.code, r.out, r.err) == (0, "(none)\n", ""), (flag, r)
        r = run_kcli(b, "describe", "topics", "healthy-report", flag, "-o", "plain")
        assert (r.code, r.out, r.err) == (0, "", ""), (flag, r)
    r = run_kcli(b, "describe", "topics", "healthy-report", "--under-replicated-partitions", "-o", "csv")
    assert r.out == "TOPIC,PARTITION,LEADER,REPLICAS,ISR,ELR,LAST-KNOWN-ELR,SIZE\n", r
    r = run_kcli(b, "describe", "topics", "healthy-report")             # a match still shows its table
    assert r.out.startswith(" TOPIC ") and "(none)" not in r.out, r


def test_every_empty_table_says_none(cluster):
    """The rule for every view (``Output.table``): a table with no row is ``(none)``, not a header
    and a rule; plain keeps the tools' text and csv its header."""
    b = cluster.bootstrap_servers
    r = run_kcli(b, "list", "groups", "--state", "PreparingRebalance")      # no group in that state
    assert (r.code, r.out) == (0, "(none)\n"), r
    r = run_kcli(b, "list", "groups", "--state", "PreparingRebalance", "-o", "csv")
    assert (r.code, r.out) == (0, "GROUP,TYPE,STATE\n"), r

"""describe topics' SIZE through the real entry point, against the embedded broker: each shown
partition's size is its leader replica's log in bytes (the file on disk), from one
DescribeLogDirs to each leader of a shown partition only; in binary units in a table, exact in
csv and json, not in plain (kafka-topics' layout). A principal the broker refuses DescribeLogDirs
(no DESCRIBE on the cluster), or a broker that does not answer it, still gives the view: SIZE
unknown, one Warn line saying why."""

from __future__ import annotations

import json

import pytest
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, ResourcePatternType,
                                   ResourceType)

from kcli.broker import EmbeddedCluster
from tests.support.clients import produce
from tests.support.run import run_kcli
from tests.support.sasl import ACL_USERS


def _log_dirs_requests(ec) -> dict[int, int]:
    return {node: counts.get("DescribeLogDirs", 0) for node, counts in ec.request_counts().items()}


def _rows(text: str) -> list[list[str]]:
    return [line.split(",") for line in text.splitlines()]


def test_the_size_is_the_leader_replicas_bytes_on_disk(tmp_path):
    with EmbeddedCluster(nodes=4, data_dir=tmp_path) as ec:
        b = ec.bootstrap_servers
        topic = ec.create_topic("sized", partitions=3, replication_factor=2)
        ec.create_topic("other", partitions=3)
        for p, batches in ((0, 12), (1, 3)):                       # partition 2 stays empty
            for _ in range(batches):
                produce(b, "sized", [(p, "x" * 1000)])
        produce(b, "other", [(p, "y" * 5000) for p in range(3)])
        on_disk = {p: (tmp_path / "logs" / f"{topic.topic_id}-{p}.log").stat().st_size for p in range(3)}
        assert on_disk[0] > on_disk[1] > 3000 and on_disk[2] == 0
        leaders = {p.index: p.leader for p in topic.partitions}
        assert len(set(leaders.values())) == 3          # node 4 leads none of them: it is asked nothing

        before = _log_dirs_requests(ec)
        doc = json.loads(run_kcli(b, "describe", "topics", "sized", "-o", "json").out)
        after = _log_dirs_requests(ec)
        (t,) = doc["topics"]
        assert [(p["partition"], p["leader"], p["sizeBytes"]) for p in t["partitions"]] == [
            (p, leaders[p], on_disk[p]) for p in range(3)]
        assert {n: after.get(n, 0) - before.get(n, 0) for n in (1, 2, 3, 4)} == {1: 1, 2: 1, 3: 1, 4: 0}

        csv = _rows(run_kcli(b, "describe", "topics", "sized", "-o", "csv").out)
        assert csv[0][-1] == "SIZE" and [r[-1] for r in csv[1:]] == [str(on_disk[p]) for p in range(3)]
        table = run_kcli(b, "describe", "topics", "sized", "--under-replicated-partitions", "--unavailable-partitions")
        assert table.out == "(none)\n"                      # a report filter that shows nothing
        table = run_kcli(b, "describe", "topics", "sized")
        assert table.code == 0 and table.err == "", table
        lines = [line.split() for line in table.out.splitlines() if line.startswith(" sized ")]
        assert lines[-3][-2:] == [f"{on_disk[0] / 1024:.1f}", "KiB"], table.out
        assert lines[-2][-2:] == [f"{on_disk[1] / 1024:.1f}", "KiB"] and lines[-1][-2:] == ["0", "B"], table.out

        before = _log_dirs_requests(ec)
        plain = run_kcli(b, "describe", "topics", "sized", "-o", "plain")
        overrides = run_kcli(b, "describe", "topics", "--topics-with-overrides", "-o", "json")
        assert plain.code == 0 and "Size" not in plain.out and "KiB" not in plain.out
        assert overrides.code == 0 and _log_dirs_requests(ec) == before        # no partition shown, none asked

        ec.fault("DescribeLogDirs", "hang")                   # no answer by the deadline: the view all the same
        r = run_kcli(b, "describe", "topics", "sized", "-o", "json", timeout="3s")
        assert r.code == 0 and r.err.startswith("Warn: Sizes unknown: ") and r.err.count("\n") == 1, r
        assert [p["sizeBytes"] for p in json.loads(r.out)["topics"][0]["partitions"]] == [None] * 3


@pytest.mark.parametrize("pose_as, why", [
    (None, "not authorized to DESCRIBE the cluster (User:alice)"),
    # DescribeLogDirs v2 has no ErrorCode: Kafka 2.8 refuses with an answer without log dirs
    ("2.8", "broker 1 reported no log dir (not authorized to DESCRIBE the cluster?)")])
def test_a_refused_describe_log_dirs_leaves_the_sizes_unknown_with_one_warn_line(tmp_path, pose_as, why):
    with EmbeddedCluster(nodes=1, sasl_users=ACL_USERS, authorize=True, super_users=["admin"],
                         pose_as=pose_as) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("seen", partitions=2)

        def props(user: str) -> str:
            path = tmp_path / f"{user}.properties"
            path.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username={user}\n"
                            f"sasl.password={ACL_USERS[user]}\n", encoding="utf-8")
            return str(path)

        root = AdminClient({"bootstrap.servers": b, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                            "sasl.username": "admin", "sasl.password": ACL_USERS["admin"]})
        bindings = [AclBinding(ResourceType.TOPIC, "seen", ResourcePatternType.LITERAL, "User:alice", "*", op,
                               AclPermissionType.ALLOW)
                    for op in (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS)]
        for fut in root.create_acls(bindings, request_timeout=10).values():
            fut.result()
        produce(b, "seen", [(0, "a" * 100)], **{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                                                   "sasl.username": "admin", "sasl.password": ACL_USERS["admin"]})
        admin = json.loads(run_kcli(b, "--command-config", props("admin"), "describe", "topics", "seen",
                                    "-o", "json").out)
        assert [p["sizeBytes"] > 100 for p in admin["topics"][0]["partitions"]] == [True, False]

        warn = f"Warn: Sizes unknown: {why}\n"
        alice = ["--command-config", props("alice"), "describe", "topics", "seen"]
        r = run_kcli(b, *alice, "-o", "json")
        assert (r.code, r.err) == (0, warn), r
        assert [p["sizeBytes"] for p in json.loads(r.out)["topics"][0]["partitions"]] == [None, None]
        r = run_kcli(b, *alice, "-o", "csv")
        assert (r.code, r.err) == (0, warn) and [row[-1] for row in _rows(r.out)] == ["SIZE", "", ""], r
        r = run_kcli(b, *alice)
        assert (r.code, r.err) == (0, warn), r
        assert [line.split()[-1] for line in r.out.splitlines() if line.startswith(" seen ")][-2:] == ["unknown"] * 2

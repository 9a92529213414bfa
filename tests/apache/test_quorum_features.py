"""DescribeQuorum (API key 55), UpdateFeatures (57) and ApiVersions' features (KIP-584) of the
embedded broker, as the Java AdminClient's describeMetadataQuorum, updateFeatures and
describeFeatures see them; the features and the controller's answers to updates compared with
Kafka 4.4's (validate-only there: the shared cluster is left as it is)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.apache_kafka import java
from tests.support.waits import Clock

from kcli.broker import EmbeddedCluster

JAVA = Path(__file__).parent / "java"
NO_DIRECTORY = "AAAAAAAAAAAAAAAAAAAAAA"


def admin(bootstrap: str, *steps: str) -> list[dict]:
    r = java(JAVA / "AdminQuorum.java", bootstrap, *steps, timeout=120)
    assert r.code == 0, r.err[-3000:]
    return [json.loads(line) for line in r.out.splitlines()]


def test_java_describe_metadata_quorum_on_the_embedded_broker():
    """Four nodes: voters 1-3 (a static quorum: no directory ids, their controller endpoints),
    observer 4. A stopped follower keeps the log end offset and fetch time of its stop while the
    log grows (a record per change, a no-op per 500 ms); the leader's stop elects the lowest
    live voter in the next epoch, and the leader stays when the old one returns."""
    clock = Clock()
    with EmbeddedCluster(nodes=4, clock=clock) as ec:
        b = ec.bootstrap_servers.split(",")[0]
        first, = admin(b, "quorum")
        assert (first["leaderId"], first["leaderEpoch"]) == (1, 1)
        assert [v[0] for v in first["voters"]] == [1, 2, 3]
        assert [o[0] for o in first["observers"]] == [4]
        assert {v[1] for v in first["voters"]} == {NO_DIRECTORY} and first["observers"][0][1] != NO_DIRECTORY
        assert first["nodes"] == {str(n): [f"CONTROLLER://127.0.0.1:{ec.cluster.node_address(n)[1]}"]
                                  for n in (1, 2, 3)}
        hw = first["highWatermark"]
        assert all(r[2:] == [hw, clock.now_ms, clock.now_ms] for r in first["voters"] + first["observers"])

        ec.stop_node(2)
        stopped_at = clock.now_ms
        clock.now_ms += 1600                                   # three idle no-ops
        ec.create_topic("grows-the-log", partitions=1)
        q, = admin(b, "quorum")
        by_id = {r[0]: r for r in q["voters"] + q["observers"]}
        assert q["highWatermark"] >= hw + 4 and (q["leaderId"], q["leaderEpoch"]) == (1, 1)
        assert by_id[2][2] < q["highWatermark"] - 3 and by_id[2][3:] == [stopped_at, stopped_at]
        assert all(by_id[n][2:] == [q["highWatermark"], clock.now_ms, clock.now_ms] for n in (1, 3, 4))

        ec.stop_node(1)
        moved, = admin("%s:%d" % ec.cluster.node_address(3), "quorum")
        assert (moved["leaderId"], moved["leaderEpoch"]) == (3, 2)
        ec.start_node(1)
        ec.start_node(2)
        back, = admin(b, "quorum")
        assert (back["leaderId"], back["leaderEpoch"]) == (3, 2)
        assert all(r[2] == back["highWatermark"] for r in back["voters"])


# Requests a controller answers without changing anything, in order: (step, expected answer on
# both brokers, where it does not change the state).
VALIDATE_ONLY = [
    "update:transaction.version=1/upgrade:validate",     # a downgrade as an upgrade
    "update:transaction.version=1/safe:validate",
    "update:transaction.version=3/upgrade:validate",     # past the supported range
    "update:group.version=2/upgrade:validate",
    "update:metadata.version=32/safe:validate",          # might delete metadata
    "update:metadata.version=32/unsafe:validate",
    "update:kraft.version=0/safe:validate",              # unchanged
    "update:share.version=3/safe:validate",              # a downgrade to a newer version
    "update:no.such.feature=1/upgrade:validate",
    "update:eligible.leader.replicas.version=0/unsafe,transaction.version=0/safe:validate",
    "features",
]


def test_java_update_features_on_the_embedded_broker_answer_as_kafka_does(apache_kafka):
    """The same updates, validate-only, answer the same on Kafka 4.4 and the embedded broker
    (which poses as a new 4.4 cluster: the same supported and finalized levels); then on the
    embedded broker they apply: a safe downgrade, an upgrade back, a disable (level 0: left out
    of the finalized features), and a request with one failing update changes nothing."""
    with EmbeddedCluster(nodes=1) as ec:
        ours = admin(ec.bootstrap_servers, *VALIDATE_ONLY)
        kafka = admin(apache_kafka.bootstrap_servers, *VALIDATE_ONLY)
        for a, k in zip(ours[:-1], kafka[:-1]):
            assert a == k
        assert {x: ours[-1][x] for x in ("finalized", "supported")} == {
            x: kafka[-1][x] for x in ("finalized", "supported")}
        assert ours[1] == {"ok": True} and ours[-1]["finalized"]["transaction.version"] == 2

        applied = admin(ec.bootstrap_servers, "update:transaction.version=1/safe", "features",
                        "update:transaction.version=2/upgrade,eligible.leader.replicas.version=0/unsafe",
                        "features",
                        "update:transaction.version=0/safe,group.version=9/upgrade", "features")
        assert applied[0] == {"ok": True} and applied[1]["finalized"]["transaction.version"] == 1
        assert applied[2] == {"ok": True} and applied[3]["finalized"]["transaction.version"] == 2
        assert "eligible.leader.replicas.version" not in applied[3]["finalized"]
        assert applied[4]["error"] == "InvalidUpdateVersionException"
        assert applied[5]["finalized"] == applied[3]["finalized"]
        assert applied[5]["epoch"] > applied[1]["epoch"] >= 0


def test_kcli_kafka_metadata_quorum_prints_what_apaches_tool_prints_of_a_lagging_quorum():
    """On four embedded nodes with a stopped follower, on a clock the test holds still (nothing
    moves between the two tools' runs): --status and --replication byte for byte as Apache's
    kafka-metadata-quorum prints them, the follower's lag in offsets and time included."""
    from tests.support.apache_kafka import java_tool
    from tests.support.run import run_dropin

    clock = Clock()
    with EmbeddedCluster(nodes=4, clock=clock) as ec:
        ec.stop_node(2)
        clock.now_ms += 1700
        ec.create_topic("lagging-quorum")
        b = ec.bootstrap_servers.split(",")[0]
        for words in (["describe", "--status"], ["describe", "--replication"]):
            java_out = java_tool("kafka-metadata-quorum", "--bootstrap-server", b, *words)
            ours = run_dropin("kafka-metadata-quorum", "--bootstrap-server", b, *words)
            assert java_out.code == 0, java_out.err[-2000:]
            assert (ours.code, ours.out, ours.err) == (0, java_out.out, "")
        follower = next(row.split("\t") for row in ours.out.splitlines() if row.startswith("2 "))
        status = run_dropin("kafka-metadata-quorum", "--bootstrap-server", b, "describe", "--status").out
        assert follower[6].strip() == "Follower" and int(follower[3]) >= 4
        assert f"\nMaxFollowerLag:         {int(follower[3])}\nMaxFollowerLagTimeMs:   1700\n" in status

"""describe cluster through the real entry point, against the embedded broker: the cluster id,
the controller and every broker, a stopped one as fenced (DescribeCluster v2), in every format;
one DescribeCluster request; a broker posing as 2.8 answers without fenced brokers (v0)."""

from __future__ import annotations

import json

from kcli.broker import EmbeddedCluster
from tests.support.run import run_kcli


def test_describe_cluster_names_the_fenced_broker():
    with EmbeddedCluster(nodes=3) as ec:
        ec.stop_node(2)
        b = ec.bootstrap_servers.split(",")[0]
        ports = {n: ec.cluster.node_address(n)[1] for n in (1, 2, 3)}
        before = ec.request_counts()
        doc = json.loads(run_kcli(b, "describe", "cluster", "-o", "json").out)
        after = ec.request_counts()
        assert sum(after[n].get("DescribeCluster", 0) - before[n].get("DescribeCluster", 0) for n in after) == 1
        assert (doc["schema"], doc["clusterId"], doc["controllerId"]) == ("kcli.cluster/v1", ec.cluster.cluster_id, 1)
        assert {f["name"]: (f["finalizedLevel"], f["supportedMin"], f["supportedMax"]) for f in doc["features"]} == {
            "metadata.version": (33, 7, 33), "kraft.version": (0, 0, 1), "transaction.version": (2, 0, 2),
            "group.version": (1, 0, 1), "eligible.leader.replicas.version": (1, 0, 1), "share.version": (2, 0, 2),
            "streams.version": (1, 0, 1)}             # a new 4.4 cluster's (ApiVersions v4)
        assert doc["brokers"] == [{"id": n, "host": "127.0.0.1", "port": ports[n], "rack": None, "fenced": n == 2}
                                  for n in (1, 2, 3)]
        table = run_kcli(b, "describe", "cluster")
        lines = table.out.splitlines()
        assert table.code == 0 and lines[0] == f"Cluster ID: {ec.cluster.cluster_id}   Controller: 1"
        assert [line.split() for line in lines[3:6]] == [
            [str(n), "127.0.0.1", str(ports[n]), "-", "yes" if n == 2 else "no", "yes" if n == 1 else "no"]
            for n in (1, 2, 3)]
        plain = run_kcli(b, "describe", "cluster", "-o", "plain")
        assert plain.out == f"Cluster ID: {ec.cluster.cluster_id}\n" + "".join(
            f"127.0.0.1:{ports[n]} (id: {n} rack: null)\n" for n in (1, 2, 3))
        csv = run_kcli(b, "describe", "cluster", "-o", "csv")
        assert csv.out.splitlines()[:2] == ["ID,HOST,PORT,RACK,FENCED,CONTROLLER", f"1,127.0.0.1,{ports[1]},,no,yes"]


def test_an_old_broker_cannot_say_which_are_fenced():
    with EmbeddedCluster(nodes=1, pose_as="2.8") as ec:
        b = ec.bootstrap_servers
        doc = json.loads(run_kcli(b, "describe", "cluster", "-o", "json").out)
        assert doc["brokers"][0]["fenced"] is None and doc["clusterId"] == ec.cluster.cluster_id
        assert run_kcli(b, "describe", "cluster").out.splitlines()[3].split()[4] == "?"


def _api_rows(b: str) -> dict[str, dict]:
    r = run_kcli(b, "describe", "cluster", "--api-versions", "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["schema"] == "kcli.api-versions/v1"
    return {a["api"]: a for a in doc["apis"]}


def test_api_versions_mark_the_kip_versions_a_broker_lacks():
    with EmbeddedCluster(nodes=2, pose_as="4.4") as ec:
        rows = _api_rows(ec.bootstrap_servers)
        short = {name for name, a in rows.items() if any(b["short"] for b in a["brokers"])}
        assert short == {"Metadata", "ConsumerGroupHeartbeat", "ConsumerGroupDescribe", "DescribeTopicPartitions",
                         "StreamsGroupDescribe"}
        dtp = rows["DescribeTopicPartitions"]
        assert dtp["needs"] == {"version": 1, "for": "KIP-1327 CreationTimeMs"}
        assert [(b["id"], b["min"], b["max"]) for b in dtp["brokers"]] == [(1, 0, 0), (2, 0, 0)]
        table = run_kcli(ec.bootstrap_servers, "describe", "cluster", "--api-versions").out
        line = next(row for row in table.splitlines() if row.split()[:1] == ["DescribeTopicPartitions"])
        assert line.split()[-4:] == ["0-0", "!", "0-0", "!"]
    with EmbeddedCluster(nodes=1) as ec:
        rows = _api_rows(ec.bootstrap_servers)
        assert not any(b["short"] for a in rows.values() for b in a["brokers"])
    with EmbeddedCluster(nodes=1, pose_as="2.8") as ec:
        rows = _api_rows(ec.bootstrap_servers)
        assert rows["DescribeTopicPartitions"]["brokers"][0] == {"id": 1, "min": None, "max": None, "short": True}


def test_describe_cluster_shows_the_metadata_quorum():
    """Voters 1-3 and observer 4 of the embedded broker's simulated quorum, in
    kafka-metadata-quorum --replication's order (leader, followers, observers); a stopped
    follower lags by the records written since its stop, in offsets and in time (the broker's
    clock, moved by the test)."""
    from tests.support.waits import Clock

    clock = Clock()
    with EmbeddedCluster(nodes=4, clock=clock) as ec:
        ec.stop_node(2)
        stopped_at = clock.now_ms
        clock.now_ms += 1250                                   # two idle no-ops
        ec.create_topic("one-more-record")
        b = ec.bootstrap_servers.split(",")[0]
        doc = json.loads(run_kcli(b, "describe", "cluster", "-o", "json").out)
        q = doc["quorum"]
        hw = q["highWatermark"]
        rows = {r["id"]: r for r in q["replicas"]}
        assert [(r["id"], r["status"]) for r in q["replicas"]] == [
            (1, "Leader"), (2, "Follower"), (3, "Follower"), (4, "Observer")]
        assert (q["leaderId"], q["leaderEpoch"], doc["quorumNote"]) == (1, 1, None)
        assert rows[2]["lag"] == hw - rows[2]["logEndOffset"] >= 3 and q["maxFollowerLag"] == rows[2]["lag"]
        assert rows[2]["lastCaughtUp"]["ms"] == stopped_at and q["maxFollowerLagTimeMs"] == clock.now_ms - stopped_at
        assert all((rows[n]["lag"], rows[n]["lastFetch"]["ms"]) == (0, clock.now_ms) for n in (1, 3, 4))
        assert [rows[n]["directoryId"] for n in (1, 2, 3)] == [None] * 3 and rows[4]["directoryId"]
        assert rows[1]["endpoints"] == [f"CONTROLLER://127.0.0.1:{ec.cluster.node_address(1)[1]}"]
        assert rows[4]["endpoints"] == []
        lines = run_kcli(b, "describe", "cluster").out.splitlines()
        status = lines.index(f"Metadata quorum: leader 1, epoch 1, high watermark {hw}, max follower lag "
                             f"{rows[2]['lag']} (1250 ms)")
        assert [line.split()[:4] + line.split()[-1:] for line in lines[status + 3:]] == [
            ["1", "-", str(hw), "0", "Leader"], ["2", "-", str(hw - rows[2]["lag"]), str(rows[2]["lag"]), "Follower"],
            ["3", "-", str(hw), "0", "Follower"], ["4", rows[4]["directoryId"], str(hw), "0", "Observer"]]


def test_describe_cluster_says_where_the_broker_has_no_quorum():
    with EmbeddedCluster(nodes=1, pose_as="2.8") as ec:
        r = run_kcli(ec.bootstrap_servers, "describe", "cluster")
        assert r.code == 0 and r.out.splitlines()[-1] == (
            "Metadata quorum: not served by this broker (no DescribeQuorum: a KRaft API, Kafka 3.3 on)")
        doc = json.loads(run_kcli(ec.bootstrap_servers, "describe", "cluster", "-o", "json").out)
        assert doc["quorum"] is None and doc["quorumNote"].startswith("not served")

"""describe log-dirs through the real entry point, against the embedded broker: each replica's
size is its partition log's bytes on disk, on every broker holding a replica; a deletion shrinks
it; --broker and --topic choose; a broker that is not live is refused."""

from __future__ import annotations

import json

from kcli.broker import EmbeddedCluster
from tests.support.clients import produce
from tests.support.run import run_kcli


def _replicas(b: str, *args: str) -> list[tuple]:
    r = run_kcli(b, "describe", "log-dirs", *args, "-o", "json")
    assert r.code == 0, r.err
    return [(x["topic"], x["partition"], x["broker"], x["sizeBytes"]) for x in json.loads(r.out)["replicas"]]


def test_replica_sizes_are_the_bytes_on_disk(tmp_path):
    with EmbeddedCluster(nodes=3, data_dir=tmp_path) as ec:
        b = ec.bootstrap_servers
        topic = ec.create_topic("sized", partitions=2, replication_factor=2)
        ec.create_topic("other")
        for p in (0, 1):
            for _ in range(5 + 5 * p):               # one batch each: DeleteRecords frees whole batches
                produce(b, "sized", [(p, "x" * 1000)])
        on_disk = {p: (tmp_path / "logs" / f"{topic.topic_id}-{p}.log").stat().st_size for p in (0, 1)}
        assert on_disk[1] > on_disk[0] > 5000
        replicas = {(p.index, n) for p in topic.partitions for n in p.replicas}
        assert _replicas(b, "--topic", "sized") == sorted(("sized", p, n, on_disk[p]) for p, n in replicas)
        on_2 = _replicas(b, "--broker", "2")
        assert {r[2] for r in on_2} == {2} and {("sized", p) for p, n in replicas if n == 2} <= {r[:2] for r in on_2}

        assert run_kcli(b, "delete-records", "-t", "sized:1=9", "--execute").code == 0
        after = {r[1]: r[3] for r in _replicas(b, "--topic", "sized")}
        assert after[1] == (tmp_path / "logs" / f"{topic.topic_id}-1.log").stat().st_size < on_disk[1] // 5
        table = run_kcli(b, "describe", "log-dirs", "--topic", "sized")
        assert table.code == 0 and table.out.splitlines()[0].split() == [
            "TOPIC", "PARTITION", "BROKER", "LOG-DIR", "SIZE", "OFFSET-LAG", "FUTURE"]
        missing = run_kcli(b, "describe", "log-dirs", "--broker", "7")
        assert (missing.code, missing.err) == (1, "Error: No live broker 7 (live: 1, 2, 3)\n")
        bad = run_kcli(b, "describe", "log-dirs", "--topic", "a b")
        assert bad.code == 2 and len(bad.err.splitlines()) == 1

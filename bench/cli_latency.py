"""Start-up and round-trip latency of kcli commands, as ratios against baselines run side by side.

For each of `kcli describe topics T`, `kcli list-offsets -t T --max-timestamp` and `kcli --help`,
the median wall time over N alternated runs, next to a bare confluent-kafka script doing the same
call and `kcat -L -t T`. Target (issue #3): kcli ≤ 1.2× the bare script.

    .venv/bin/python bench/cli_latency.py [--runs 15]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

from kcli.broker import EmbeddedCluster

BARE_DESCRIBE = """
import sys
from confluent_kafka.admin import AdminClient
a = AdminClient({"bootstrap.servers": sys.argv[1]})
md = a.list_topics(sys.argv[2], timeout=10)
for p in md.topics[sys.argv[2]].partitions.values():
    print(p.id, p.leader, p.replicas, p.isrs)
"""
BARE_MAX_TS = """
import sys
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
a = AdminClient({"bootstrap.servers": sys.argv[1]})
md = a.list_topics(sys.argv[2], timeout=10)
req = {TopicPartition(sys.argv[2], p): OffsetSpec.max_timestamp() for p in md.topics[sys.argv[2]].partitions}
for tp, f in a.list_offsets(req).items():
    r = f.result()
    print(tp.partition, r.offset, r.timestamp)
"""
BARE_HELP = "import confluent_kafka.admin"


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    py, kcli = sys.executable, [sys.executable, "-m", "kcli"]
    with EmbeddedCluster(nodes=1) as cluster:
        b = cluster.bootstrap_servers
        cluster.create_topic("bench", partitions=6)
        cases = {
            "describe topics": {"kcli": kcli + ["describe", "topics", "bench", "-b", b],
                                "bare script": [py, "-c", BARE_DESCRIBE, b, "bench"],
                                "kcat -L": ["kcat", "-b", b, "-L", "-t", "bench"]},
            "list-offsets --max-timestamp": {"kcli": kcli + ["list-offsets", "-t", "bench", "--max-timestamp", "-b", b],
                                             "bare script": [py, "-c", BARE_MAX_TS, b, "bench"]},
            "--help": {"kcli": kcli + ["--help"], "bare script": [py, "-c", BARE_HELP]},
        }
        if not shutil.which("kcat"):
            del cases["describe topics"]["kcat -L"]
        print(f"{'case':32} {'runner':12} {'median s':>9} {'ratio':>7}")
        for name, runners in cases.items():
            samples = {r: [] for r in runners}
            for _ in range(args.runs):            # alternate, so machine noise hits all alike
                for r, cmd in runners.items():
                    samples[r].append(timed(cmd))
            base = statistics.median(samples["bare script"])
            for r, s in samples.items():
                med = statistics.median(s)
                print(f"{name:32} {r:12} {med:9.3f} {med / base:7.2f}")


if __name__ == "__main__":
    main()

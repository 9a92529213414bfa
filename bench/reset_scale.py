"""Planning a reset over 1k and 10k partitions: kcli against a bare confluent-kafka script doing
the same admin calls, side by side, with kcli's request counts.

Per partition count N, one topic of N partitions created two hours ago, a consumer-protocol group
created one hour ago with a committed offset on every partition, and two records per partition
(one older than the group, one newer). Each scenario is a dry run of
``kcli reset-offsets -g G -t T <scenario>`` (table output by default); the baseline script makes
the calls confluent-kafka offers for the same plan (DescribeConsumerGroups, Metadata, OffsetFetch,
ListOffsets earliest and latest, plus ListOffsets at the creation time for --to-start-time) and
prints one line per partition. Reported: median wall time over alternated runs and peak RSS of
each process (ru_maxrss from wait4 in a small launcher), both as kcli/baseline ratios, and the
requests kcli sent as counted by the embedded broker (the same at 1k and 10k when nothing grows
with partitions).

    .venv/bin/python bench/reset_scale.py [--partitions 1000 10000] [--runs 3] [-o table]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from kcli.broker import EmbeddedCluster
from kcli.broker.groups import coordinator_for

HOUR = 3_600_000

BASELINE = """
import sys
from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
b, group, topic, at = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
a = AdminClient({"bootstrap.servers": b})
a.describe_consumer_groups([group])[group].result(60)
tps = [TopicPartition(topic, p) for p in a.list_topics(topic, timeout=60).topics[topic].partitions]
res = a.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group, tps)])[group].result(60)
current = {tp.partition: tp.offset for tp in res.topic_partitions}
def offsets(spec):
    futures = a.list_offsets({tp: spec for tp in tps}, request_timeout=60)
    return {tp.partition: f.result(60).offset for tp, f in futures.items()}
start, end = offsets(OffsetSpec.earliest()), offsets(OffsetSpec.latest())
new = offsets(OffsetSpec.for_timestamp(at)) if at >= 0 else start
for p in sorted(current):
    print(group, topic, p, current[p], new[p], start[p], end[p])
"""

SCENARIOS = {"--to-earliest": ["--to-earliest"],
             "--to-start-time": ["--to-start-time"],
             "--to-latest --max-age 1h": ["--to-latest", "--max-age", "1h"]}


def prepare(ec: EmbeddedCluster, n: int) -> tuple[str, str, int]:
    """The topic and group for ``n`` partitions; returns (group, topic, group creation time)."""
    topic, group = f"scale{n}", f"g{n}"
    now = int(time.time() * 1000)
    ec.create_topic(topic, n, creation_time_ms=now - 2 * HOUR)
    ec.call(lambda: coordinator_for(ec.cluster).create_consumer_group(group, creation_time_ms=now - HOUR))
    producer = Producer({"bootstrap.servers": ec.bootstrap_servers, "linger.ms": 20})
    for ts in (now - 2 * HOUR, now):
        for p in range(n):
            producer.produce(topic, b"x", partition=p, timestamp=ts)
            producer.poll(0)
    if producer.flush(120) != 0:
        raise RuntimeError("produce did not complete")
    admin = AdminClient({"bootstrap.servers": ec.bootstrap_servers})
    offsets = [TopicPartition(topic, p, 1) for p in range(n)]
    admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(group, offsets)])[group].result(60)
    return group, topic, now - HOUR


# A child's ru_maxrss starts at the RSS of the process that forked it (Linux keeps the high-water
# mark across exec), and this process holds the broker: children are started by a small launcher.
LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(f"{time.perf_counter() - start} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def measure(cmd: list[str], min_lines: int) -> tuple[float, int]:
    """(wall seconds, peak RSS in KiB) of one run; its stdout must have ``min_lines`` lines."""
    with tempfile.TemporaryFile("w+") as out, tempfile.NamedTemporaryFile("r") as result:
        code = subprocess.call([sys.executable, "-c", LAUNCHER, result.name, *cmd], stdout=out)
        out.seek(0)
        lines = sum(1 for _ in out)
        elapsed, rss = result.read().split()
    if code != 0 or lines < min_lines:
        raise RuntimeError(f"{cmd[:6]}... exited {code} with {lines} lines")
    return float(elapsed), int(rss)


def request_delta(ec: EmbeddedCluster, run) -> tuple[object, dict[str, int]]:
    before = ec.request_counts()[1]
    result = run()
    after = ec.request_counts()[1]
    return result, {k: v - before.get(k, 0) for k, v in sorted(after.items()) if v != before.get(k, 0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("-o", "--output", default="table", choices=("table", "plain", "json"))
    args = ap.parse_args()
    py = sys.executable
    requests: dict[tuple[str, int], dict[str, int]] = {}
    print(f"{'partitions':>10} {'scenario':26} {'runner':9} {'median s':>9} {'ratio':>6} "
          f"{'peak MiB':>9} {'ratio':>6}")
    with EmbeddedCluster(nodes=1) as ec:
        b = ec.bootstrap_servers
        for n in args.partitions:
            group, topic, created = prepare(ec, n)
            for name, scenario in SCENARIOS.items():
                runners = {
                    "kcli": [py, "-m", "kcli", "reset-offsets", "-g", group, "-t", topic, *scenario,
                             "-o", args.output, "-b", b, "--timeout", "60s"],
                    "baseline": [py, "-c", BASELINE, b, group, topic,
                                 str(created if name == "--to-start-time" else -1)]}
                samples = {r: [] for r in runners}
                for i in range(args.runs):          # alternated, so machine noise hits both alike
                    for r, cmd in runners.items():
                        sample, counts = request_delta(ec, lambda: measure(cmd, n))
                        samples[r].append(sample)
                        if i == 0:
                            requests[(f"{r} {name}", n)] = counts
                base_s = statistics.median(s for s, _ in samples["baseline"])
                base_rss = max(m for _, m in samples["baseline"])
                for r, s in samples.items():
                    med, rss = statistics.median(x for x, _ in s), max(m for _, m in s)
                    print(f"{n:>10} {name:26} {r:9} {med:9.2f} {med / base_s:6.2f} "
                          f"{rss / 1024:9.0f} {rss / base_rss:6.2f}", flush=True)
    print("\nrequests sent per run (embedded broker's count):")
    for (label, n), counts in requests.items():
        print(f"{n:>10} {label:36} total {sum(counts.values()):3}  {counts}")


if __name__ == "__main__":
    main()

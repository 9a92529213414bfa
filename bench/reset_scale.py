"""Planning a reset, comparing every reset policy and the time-lag view over 10k and 100k
partitions: kcli against bare confluent-kafka scripts doing the same work, side by side, with
kcli's request counts and its scale check.

Per partition count N, one topic of N partitions created two hours ago, a consumer-protocol group
created one hour ago with a committed offset on every partition, and two records per partition
(one older than the group, one newer; the committed offset is the newer one's). Each view runs
as an operator starts it (``python -m kcli``, table output by default):

    reset --to-earliest / --to-start-time / --to-latest --max-age 1h
        kcli reset-offsets -g G -t T <scenario> (a dry run)
        baseline: DescribeConsumerGroups, Metadata, OffsetFetch, ListOffsets earliest and latest
        (plus at the creation time for --to-start-time); one line per partition
    reset --compare
        kcli reset-offsets -g G -t T --compare
        baseline: the same calls, with ListOffsets earliest, latest, at the group's creation time
        and at now-1h (no client offers partition ages, KIP-1327: the max-age column is kcli's
        alone); one line per partition with every policy's offset
    describe groups (time lag)
        kcli describe groups G (NEXT-RECORD-TIME and TIME-LAG, one bounded Fetch per leader)
        baseline: OffsetFetch and ListOffsets latest, then a consumer assigned at the committed
        offsets reads the next record of each partition; one line per partition with its age
    reset --to-earliest --execute (run last: it commits)
        kcli reset-offsets -g G -t T --to-earliest --execute (its rollback files in a temporary
        $XDG_STATE_HOME)
        baseline: kcli's own dry run of the same reset, so the ratio is what committing adds

Reported: median wall time over alternated runs and peak RSS of each process (ru_maxrss from
wait4 in a small launcher), both as kcli/baseline ratios; the requests kcli sent, as counted by
the embedded broker; and, between the smallest and the largest N, kcli's scale check per view:
time(large) / (time(small) x large/small), bounded at 2 (linear growth), the marginal cost per
partition between each two sizes given (microseconds; start-up cancels out, so give three sizes,
e.g. 1000 10000 100000, to see it grow or not), peak RSS (bound 250 MB)
and whether the request counts are the same (Metadata and FindCoordinator follow librdkafka's
own timing and are shown, not compared; OffsetCommit is compared per batch of partitions).

    .venv/bin/python bench/reset_scale.py [--partitions 10000 100000] [--runs 3] [-o table] [--views execute]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from kcli.admin.wire.group_offsets import commit_batches
from kcli.broker import EmbeddedCluster
from kcli.broker.groups import coordinator_for

HOUR = 3_600_000

PRELUDE = """
import sys, time
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
"""

BASELINE = PRELUDE + """
start, end = offsets(OffsetSpec.earliest()), offsets(OffsetSpec.latest())
new = offsets(OffsetSpec.for_timestamp(at)) if at >= 0 else start
for p in sorted(current):
    print(group, topic, p, current[p], new[p], start[p], end[p])
"""

COMPARE_BASELINE = PRELUDE + """
cols = [offsets(OffsetSpec.earliest()), offsets(OffsetSpec.latest()),
        offsets(OffsetSpec.for_timestamp(at)),
        offsets(OffsetSpec.for_timestamp(int(time.time() * 1000) - 3_600_000))]
for p in sorted(current):
    print(group, topic, p, current[p], *(f"{c[p]} {c[p] - current[p]:+d}" for c in cols))
"""

LAG_BASELINE = """
import sys, time
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
b, group, topic = sys.argv[1], sys.argv[2], sys.argv[3]
a = AdminClient({"bootstrap.servers": b})
tps = [TopicPartition(topic, p) for p in a.list_topics(topic, timeout=60).topics[topic].partitions]
res = a.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group, tps)])[group].result(60)
current = {tp.partition: tp.offset for tp in res.topic_partitions if tp.offset >= 0}
futures = a.list_offsets({TopicPartition(topic, p): OffsetSpec.latest() for p in current}, request_timeout=60)
end = {tp.partition: f.result(60).offset for tp, f in futures.items()}
behind = {p for p in current if current[p] < end[p]}
c = Consumer({"bootstrap.servers": b, "group.id": group + "-bench-reader", "enable.auto.commit": False,
              "fetch.max.bytes": 52428800, "max.partition.fetch.bytes": 4096})
c.assign([TopicPartition(topic, p, current[p]) for p in sorted(behind)])
ts, deadline = {}, time.monotonic() + 600
while len(ts) < len(behind) and time.monotonic() < deadline:
    for m in c.consume(10000, 1.0):
        if not m.error() and m.partition() not in ts:
            ts[m.partition()] = m.timestamp()[1]
c.close()
now = int(time.time() * 1000)
for p in sorted(current):
    print(group, topic, p, current[p], end[p], ts.get(p, "-"), now - ts[p] if p in ts else 0)
"""

SCENARIOS = {"reset --to-earliest": ["--to-earliest"],
             "reset --to-start-time": ["--to-start-time"],
             "reset --to-latest --max-age 1h": ["--to-latest", "--max-age", "1h"],
             "reset --compare": ["--compare"],
             "reset --to-earliest --execute": ["--to-earliest", "--execute"]}
EXECUTE = "reset --to-earliest --execute"           # baseline: kcli's own dry run of the same reset
LAG = "describe groups (time lag)"
OWN_TIMING = ("Metadata", "FindCoordinator")      # librdkafka's own refreshes: shown, not compared
BOUND_TIME, BOUND_RSS_MIB = 2.0, 250


def runners(py: str, b: str, group: str, topic: str, created: int, view: str, output: str) -> dict:
    kcli = [py, "-m", "kcli", "-o", output, "-b", b, "--timeout", "300s"]
    if view == LAG:
        return {"kcli": [*kcli, "describe", "groups", group],
                "baseline": [py, "-c", LAG_BASELINE, b, group, topic]}
    kcli_cmd = [*kcli, "reset-offsets", "-g", group, "-t", topic, *SCENARIOS[view]]
    if view == "reset --compare":
        return {"kcli": kcli_cmd, "baseline": [py, "-c", COMPARE_BASELINE, b, group, topic, str(created)]}
    if view == EXECUTE:
        return {"kcli": kcli_cmd, "baseline": kcli_cmd[:-1]}
    return {"kcli": kcli_cmd,
            "baseline": [py, "-c", BASELINE, b, group, topic,
                         str(created if view == "reset --to-start-time" else -1)]}


def prepare(ec: EmbeddedCluster, n: int) -> tuple[str, str, int]:
    """The topic and group for ``n`` partitions; returns (group, topic, group creation time)."""
    topic, group = f"scale{n}", f"g{n}"
    now = int(time.time() * 1000)
    ec.create_topic(topic, n, creation_time_ms=now - 2 * HOUR)
    ec.call(lambda: coordinator_for(ec.cluster).create_consumer_group(group, creation_time_ms=now - HOUR))
    # librdkafka's queue holds 100,000 messages by default: 2N records overflow it at 100k
    # partitions (BufferError: Local: Queue full); room for all of them, and waiting when full.
    producer = Producer({"bootstrap.servers": ec.bootstrap_servers, "linger.ms": 20,
                         "queue.buffering.max.messages": 2 * n + 1000,
                         "queue.buffering.max.kbytes": 1_048_576})
    for ts in (now - 2 * HOUR, now):
        for p in range(n):
            while True:
                try:
                    producer.produce(topic, b"x", partition=p, timestamp=ts)
                    break
                except BufferError:
                    producer.poll(0.5)
            producer.poll(0)
    if producer.flush(max(120, n * 0.01)) != 0:     # the embedded broker takes ~5 s per 10k partitions
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


def per_batch(counts: dict[str, int], batches: int) -> dict[str, float]:
    """``counts`` with OffsetCommit per batch: --execute sends one per batch of partitions
    (kcli.admin.wire.group_offsets.commit_batches), the only request whose count follows the partition count."""
    return {**counts, "OffsetCommit": counts["OffsetCommit"] / batches} if "OffsetCommit" in counts else counts


def scale_check(times: dict, rss: dict, requests: dict, sizes: list[int], views: list[str],
                batches: dict[int, int]) -> None:
    """kcli between the smallest and the largest partition count, per view."""
    small, large = min(sizes), max(sizes)
    print(f"\nscale check, kcli at {large} vs {small} partitions (bounds: time ratio <= {BOUND_TIME}, "
          f"peak <= {BOUND_RSS_MIB} MiB, same requests but {'/'.join(OWN_TIMING)}, OffsetCommit per batch):")
    ordered = sorted(set(sizes))
    steps = list(zip(ordered, ordered[1:]))

    def short(n: int) -> str:
        return f"{n // 1000}k" if n % 1000 == 0 else str(n)
    marginal_heads = "".join(f" {f'us/p {short(a)}-{short(b)}':>14}" for a, b in steps)
    print(f"{'view':32} {'s @small':>9} {'s @large':>9} {'ratio':>6}{marginal_heads} {'peak MiB':>9} "
          f"{'requests':>9}  verdict")
    for view in views:
        t_small, t_large = times[(view, small)], times[(view, large)]
        ratio = t_large / (t_small * large / small)
        # the marginal cost per partition between sizes: the fixed start-up cancels out, so a
        # superlinear cost shows as a growing figure (the ratio above divides it by 10x start-up)
        marginal = "".join(f" {(times[(view, b)] - times[(view, a)]) / (b - a) * 1e6:14.1f}"
                           for a, b in steps)
        peak = rss[(view, large)] / 1024
        a, b = (per_batch(requests[(f"kcli {view}", n)], batches[n]) for n in (small, large))
        same = {k: v for k, v in a.items() if k not in OWN_TIMING} == \
            {k: v for k, v in b.items() if k not in OWN_TIMING}
        misses = [what for what, ok in (("time", ratio <= BOUND_TIME), ("rss", peak <= BOUND_RSS_MIB),
                                        ("requests", same)) if not ok]
        print(f"{view:32} {t_small:9.2f} {t_large:9.2f} {ratio:6.2f}{marginal} {peak:9.0f} "
              f"{'same' if same else 'DIFFER':>9}  {'ok' if not misses else 'OVER: ' + ', '.join(misses)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("-o", "--output", default="table", choices=("table", "plain", "json"))
    ap.add_argument("--views", nargs="+", metavar="VIEW", help="only the views whose name contains one "
                    "of these words (e.g. --views execute compare); default every view")
    args = ap.parse_args()
    ordered = [*(v for v in SCENARIOS if v != EXECUTE), LAG, EXECUTE]     # the one that commits last
    views = [v for v in ordered if not args.views or any(w in v for w in args.views)]
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="kcli-bench-state-")   # --execute's rollback files
    py = sys.executable
    requests: dict[tuple[str, int], dict[str, int]] = {}
    times: dict[tuple[str, int], float] = {}
    peaks: dict[tuple[str, int], int] = {}
    batches: dict[int, int] = {}          # OffsetCommit batches of --execute, per partition count
    print(f"{'partitions':>10} {'view':32} {'runner':9} {'median s':>9} {'ratio':>6} "
          f"{'peak MiB':>9} {'ratio':>6}", flush=True)
    with EmbeddedCluster(nodes=1) as ec:
        b = ec.bootstrap_servers
        for n in args.partitions:
            t0 = time.perf_counter()
            group, topic, created = prepare(ec, n)
            batches[n] = len(commit_batches(group, {(topic, p): 0 for p in range(n)}))
            print(f"{n:>10} (prepared in {time.perf_counter() - t0:.0f} s)", flush=True)
            for view in views:
                cmds = runners(py, b, group, topic, created, view, args.output)
                samples = {r: [] for r in cmds}
                for i in range(args.runs):          # alternated, so machine noise hits both alike
                    for r, cmd in cmds.items():
                        sample, counts = request_delta(ec, lambda: measure(cmd, n))
                        samples[r].append(sample)
                        if i == 0:
                            requests[(f"{r} {view}", n)] = counts
                base_s = statistics.median(s for s, _ in samples["baseline"])
                base_rss = max(m for _, m in samples["baseline"])
                for r, s in samples.items():
                    med, rss = statistics.median(x for x, _ in s), max(m for _, m in s)
                    if r == "kcli":
                        times[(view, n)], peaks[(view, n)] = med, rss
                    print(f"{n:>10} {view:32} {r:9} {med:9.2f} {med / base_s:6.2f} "
                          f"{rss / 1024:9.0f} {rss / base_rss:6.2f}", flush=True)
    print("\nrequests sent per run (embedded broker's count):")
    for (label, n), counts in requests.items():
        committing = f"  (OffsetCommit batches: {batches[n]})" if "OffsetCommit" in counts else ""
        print(f"{n:>10} {label:42} total {sum(counts.values()):4}  {counts}{committing}")
    if len(set(args.partitions)) > 1:
        scale_check(times, peaks, requests, args.partitions, views, batches)


if __name__ == "__main__":
    main()

"""Throughput of ``kcli audit timestamps`` against kcat reading the same topic, side by side.

Starts the embedded broker as a subprocess (``python -m kcli.broker``), writes N records of 100
bytes with shuffled timestamps into a 4-partition topic, then times, in the same run: the audit on
``local[1]`` and ``local[2]`` (Spark start-up reported apart; the audit timed cold, then warm) and,
alternating with each warm run, ``kcat -C -e`` to /dev/null (the baseline). Medians; the ratio
compares the runs of one block, which saw the same machine load. (The second session reuses the
first one's JVM.) Targets: warm ``local[2]`` audit with kcli's source ≥ 1.0× kcat's
records/s at 1M records; the CLI cold (``--cli``: a fresh kcli process and JVM per run, peak RSS
of its process tree reported) ≥ 0.5× kcat at 10M. Not part of the test suite.

    .venv/bin/python bench/audit_throughput.py [--records 1000000] [--runs 3] [--sources python,jvm]
        [--masters local[1],local[2]] [--cli]

The data has out-of-order records in partitions 0 and 2 (partitions 1 and 3 are in order). With
kcli's source the audit reads every partition once and counts it in the Python worker, culprits
included (kcli.pipeline.scan); with the JVM connector it rereads the partitions with out-of-order
records for the culprits (kcli.pipeline.audit._culprits). Measured on a 2-core machine shared
with other jobs (load 6-25, so only the ratios within one run compare):

- 1M, local[2], warm, back to back at load 2.5-3.7: before (the culprits in a second pass,
  every record shipped to the JVM) python 4.21 s [6.68 3.37 4.21], 0.23x kcat (0.98 s
  alongside), jvm 0.21x; after (one pass in the worker) python 2.04 s [2.04 1.80 2.28], 0.48x
  kcat (0.97 s alongside), jvm 0.15x (its path is unchanged).
- 10M, the CLI cold (--cli), local[2], python, load 3.6: 20.5 s, 0.49 M records/s, 0.20x kcat
  (4.0 s alongside); peak RSS of the audit's process tree 2133 MiB. At load 18-25 the same run
  took 655 s (kcat 23 s; 1806 MiB), seven minutes of it starting the JVM and Spark's Python
  daemons.
- The worker's per-record Python (array('q') columns, consume() by 500, librdkafka's
  default queue) and the daemons importing the installed pyspark, not its zip; side by side at
  load ~2.5: 1M warm local[2] 0.94 s / 0.97 s, 0.98x / 0.90x kcat (before 1.14 s, 0.81x); 10M
  CLI cold 14.6-15.8 s, 0.26-0.29x kcat, peak RSS 1168-1191 MiB (before 22.0 s, 0.18x, 2150
  MiB). At load ~1.9: warm 0.90 s, 0.97x kcat (before 1.02 s, 0.86x), the first (cold) audit in
  the session 4.4 s (before 5.9 s); 10M CLI cold 16.5 s, 0.26x, 1141 MiB (before 21.5 s, 0.19x,
  1939 MiB). At load 5-6 the warm ratio is 0.4-0.6x: the audit is CPU-bound, kcat mostly waits.
- The driver JVM from a class-data-sharing archive (written by the first audit on the machine),
  the quick JIT when Python reads, the scan as a Spark job over the planned ranges, no data
  source registered; load 1.3-1.8: 10M CLI cold 7.12 s [7.14 7.12 7.04], 0.64x kcat (4.54 s
  [4.54 7.71 3.78]), peak RSS 836 MiB (before, same sitting: 14.30 s, 0.39x, 1191 MiB); 1M warm
  local[2] 0.73 s, 1.18x kcat (0.87 s), the session's first audit 1.38 s; the connector warm
  4.88 s, 0.18x.
- The reads with fetch.queue.backoff.ms 10 instead of 0 (librdkafka's broker thread no longer
  re-checks a full queue without pause), load 1.9-2.7 with two other jobs: 10M CLI cold 5.90 s
  [5.90 5.98 5.86], 0.62x kcat (3.63 s [3.53 3.63 3.68]), peak RSS 832 MiB; 1M warm local[2]
  0.56 s, 1.54x kcat (0.87 s); the connector warm 4.54 s, 0.19x.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time

TOPIC = "audit-bench"
PARTITIONS = 4


def start_broker() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "kcli.broker", "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # the broker prints its bootstrap line once ready
    if not line.startswith("bootstrap: "):
        proc.kill()
        raise SystemExit(f"broker did not start: {line!r}")
    return proc, line.split(": ", 1)[1].strip()


def fill(bootstrap: str, records: int) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(timeout=30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20,
                         "batch.num.messages": 10_000, "compression.type": "none"})
    now, rnd, value = int(time.time() * 1000), random.Random(6), b"x" * 100
    for i in range(records):
        ts = now - 60_000 + i // 100 + (rnd.randrange(-5_000, 0) if i % 50 == 0 else 0)
        while True:
            try:
                producer.produce(TOPIC, value=value, partition=i % PARTITIONS, timestamp=ts)
                break
            except BufferError:
                producer.poll(0.05)
    if producer.flush(120) != 0:
        raise SystemExit("records still in flight after 120s")


def kcat_seconds(bootstrap: str) -> float:
    start = time.perf_counter()
    subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", TOPIC, "-o", "beginning", "-e", "-q"],
                   check=True, stdout=subprocess.DEVNULL, timeout=600)
    return time.perf_counter() - start


def audit_seconds(spark, bootstrap: str, records: int, source: str = "python") -> float:
    from kcli.pipeline.audit import audit_timestamps

    start = time.perf_counter()
    result = audit_timestamps(spark, bootstrap, [TOPIC], before_max_ms=3_600_000,
                              after_max_ms=3_600_000, target_ms=int(time.time() * 1000) - 30_000,
                              timeout_s=60, source=source)
    elapsed = time.perf_counter() - start
    if result.total.records != records:
        raise SystemExit(f"audit counted {result.total.records} records, expected {records}")
    return elapsed


def cli_seconds(bootstrap: str, records: int, master: str, source: str) -> tuple[float, int]:
    """``kcli audit timestamps`` end to end in a fresh interpreter (a cold JVM): seconds, and the
    peak of the summed RSS of its process tree (kcli, the JVM, Spark's Python workers; sampled
    every 0.1 s from /proc), in bytes."""
    import json
    import threading

    argv = [sys.executable, "-m", "kcli", "-b", bootstrap, "audit", "timestamps", "-t", TOPIC,
            "--master", master, "--source", source, "--before-max-ms", "3600000",
            "--after-max-ms", "3600000", "--timeout", "60s", "--output", "json"]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak[0] = max(peak[0], _tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate(timeout=3600)
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode not in (0, 4):  # 4: the audit found out-of-order records, as it should
        raise SystemExit(f"kcli audit exited {proc.returncode}")
    counted = json.loads(out)["total"]["records"]
    if counted != records:
        raise SystemExit(f"kcli audit counted {counted} records, expected {records}")
    return elapsed, peak[0]


def _tree_rss(root: int) -> int:
    """The summed resident memory of ``root`` and its descendants, from /proc (Linux)."""
    import os

    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
        rss[int(name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total


def _runs(seconds: list[float]) -> str:
    return "[" + " ".join(f"{x:.2f}" for x in seconds) + "]"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sources", default="python",
                    help="comma-separated: python (kcli's source), jvm (Spark's Kafka connector, "
                         "scripts/provision-spark-kafka.sh)")
    ap.add_argument("--masters", default="local[1],local[2]")
    ap.add_argument("--cli", action="store_true",
                    help="instead of the warm runs, time the CLI cold (a fresh kcli process "
                         "and JVM per run) alternated with kcat, and report peak RSS")
    args = ap.parse_args()
    from kcli.pipeline.spark import connector_jars, session

    sources = args.sources.split(",")
    jars = {"spark.jars": ",".join(connector_jars())} if "jvm" in sources else {}
    if "jvm" in sources and not jars:
        raise SystemExit("no Spark Kafka connector: run scripts/provision-spark-kafka.sh")

    broker, bootstrap = start_broker()
    try:
        t0 = time.perf_counter()
        fill(bootstrap, args.records)
        print(f"produced {args.records} records in {time.perf_counter() - t0:.1f}s")
        kcat_all = []
        if args.cli:
            for master in args.masters.split(","):
                for source in sources:
                    kcats, clis, peaks = [], [], []
                    for _ in range(args.runs):
                        kcats.append(kcat_seconds(bootstrap))
                        seconds, peak = cli_seconds(bootstrap, args.records, master, source)
                        clis.append(seconds)
                        peaks.append(peak)
                    kcat, cli = statistics.median(kcats), statistics.median(clis)
                    kcat_all += kcats
                    print(f"kcli audit (CLI, cold) {master} {source}: {cli:.2f}s {_runs(clis)}, "
                          f"{args.records / cli / 1e6:.2f} M records/s, peak RSS "
                          f"{max(peaks) / 2**20:.0f} MiB; kcat alongside {kcat:.2f}s "
                          f"{_runs(kcats)}: {kcat / cli:.2f}x kcat")
        for master in args.masters.split(",") if not args.cli else ():
            t0 = time.perf_counter()
            spark = session(master, {"spark.sql.shuffle.partitions": str(PARTITIONS), **jars})
            started = time.perf_counter() - t0
            if spark.sparkContext.master != master:
                raise SystemExit(f"got a session on {spark.sparkContext.master}, not {master}")
            for source in sources:
                cold = audit_seconds(spark, bootstrap, args.records, source)
                kcats, warms = [], []
                for _ in range(args.runs):  # alternated, so both see the same machine load
                    kcats.append(kcat_seconds(bootstrap))
                    warms.append(audit_seconds(spark, bootstrap, args.records, source))
                kcat, warm = statistics.median(kcats), statistics.median(warms)
                kcat_all += kcats
                print(f"audit {master} {source}: session {started:.1f}s, cold {cold:.2f}s, warm "
                      f"{warm:.2f}s {_runs(warms)}, {args.records / warm / 1e6:.2f} M records/s; "
                      f"kcat alongside {kcat:.2f}s {_runs(kcats)}: {kcat / warm:.2f}x kcat")
            spark.stop()
        kcat = statistics.median(kcat_all)
        print(f"kcat -C -e to /dev/null: {kcat:.2f}s, {args.records / kcat / 1e6:.2f} M records/s "
              f"(median of {len(kcat_all)})")
    finally:
        broker.terminate()
        broker.wait(timeout=30)


if __name__ == "__main__":
    main()

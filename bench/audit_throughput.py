"""Throughput of ``kcli audit timestamps`` against kcat reading the same topic, side by side.

Starts the embedded broker as a subprocess (``python -m kcli.broker``), writes N records of 100
bytes with shuffled timestamps into a 4-partition topic, then times, in the same run:
``kcat -C -e`` to /dev/null (the baseline), and the audit on ``local[1]`` and ``local[2]``
(Spark start-up reported apart; the audit timed cold, then warm). Target (issue #6): warm
``local[2]`` audit ≥ 0.5× kcat's records/s on a 2-core machine. Not part of the test suite.

    .venv/bin/python bench/audit_throughput.py [--records 1000000] [--runs 3]
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


def audit_seconds(spark, bootstrap: str, records: int) -> float:
    from kcli.pipeline.audit import audit_timestamps

    start = time.perf_counter()
    result = audit_timestamps(spark, bootstrap, [TOPIC], before_max_ms=3_600_000,
                              after_max_ms=3_600_000, target_ms=int(time.time() * 1000) - 30_000,
                              timeout_s=60, max_records_per_task=250_000)
    elapsed = time.perf_counter() - start
    if result.total.records != records:
        raise SystemExit(f"audit counted {result.total.records} records, expected {records}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from kcli.pipeline.spark import session

    broker, bootstrap = start_broker()
    try:
        t0 = time.perf_counter()
        fill(bootstrap, args.records)
        print(f"produced {args.records} records in {time.perf_counter() - t0:.1f}s")
        kcat = statistics.median(kcat_seconds(bootstrap) for _ in range(args.runs))
        kcat_rate = args.records / kcat
        print(f"kcat -C -e to /dev/null: {kcat:.2f}s, {kcat_rate / 1e6:.2f} M records/s "
              f"(median of {args.runs})")
        for master in ("local[1]", "local[2]"):
            t0 = time.perf_counter()
            spark = session(master, {"spark.sql.shuffle.partitions": str(PARTITIONS)})
            started = time.perf_counter() - t0
            if spark.sparkContext.master != master:
                raise SystemExit(f"got a session on {spark.sparkContext.master}, not {master}")
            cold = audit_seconds(spark, bootstrap, args.records)
            warm = statistics.median(audit_seconds(spark, bootstrap, args.records)
                                     for _ in range(args.runs))
            spark.stop()
            rate = args.records / warm
            print(f"audit {master}: session {started:.1f}s, cold {cold:.2f}s, warm {warm:.2f}s, "
                  f"{rate / 1e6:.2f} M records/s, {rate / kcat_rate:.2f}x kcat")
    finally:
        broker.terminate()
        broker.wait(timeout=30)


if __name__ == "__main__":
    main()

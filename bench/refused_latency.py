"""How fast a kcli command fails when the cluster refuses the connection, as a ratio against the
same command succeeding against a live embedded broker, run side by side (alternated, fresh
interpreters both: start-up included on both sides).

A refused connection is certain at the first attempt, so failing should cost no more than
succeeding: target ratio refused/live ≤ 1.1 for every command (a successful call against a local
broker is itself a few ms; 0.1 is the spread of medians between runs on a shared machine), and
the refused median under 1 s (issue 15). Before kcli ended at librdkafka's first all-brokers-down report, list groups,
describe groups and list-offsets waited out --timeout (30 s by default).

    .venv/bin/python bench/refused_latency.py [--runs 7] [--quick]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time

from kcli.broker import EmbeddedCluster

TARGET_RATIO = 1.1
TARGET_SECONDS = 1.0
COMMANDS = [
    ["list", "topics"], ["list", "groups"], ["describe", "topics", "orders"],
    ["describe", "groups", "billing"], ["list-offsets", "-t", "orders"],
    ["describe", "configs", "--topic", "orders"],
    ["reset-offsets", "-g", "billing", "-t", "orders", "--to-earliest"],
]


def timed(args: list[str], bootstrap: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kcli", *args, "-b", bootstrap, "--timeout", "30s"],
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    return time.perf_counter() - t0, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="two commands only (smoke)")
    opts = parser.parse_args()
    commands = COMMANDS[:2] if opts.quick else COMMANDS
    with socket.socket() as closed, EmbeddedCluster(nodes=1) as cluster:
        closed.bind(("127.0.0.1", 0))                    # bound, not listening: refused
        refused = f"127.0.0.1:{closed.getsockname()[1]}"
        live = cluster.bootstrap_servers
        cluster.create_topic("orders", partitions=3)
        from confluent_kafka import Consumer

        c = Consumer({"bootstrap.servers": live, "group.id": "billing", "auto.offset.reset": "earliest"})
        c.subscribe(["orders"])
        c.poll(3)
        c.close()
        print(f"{'command':<50}{'refused (s)':>12}{'live (s)':>10}{'ratio':>8}  verdict")
        ok = True
        for args in commands:
            timed(args, live)                            # warm the file cache
            fail, good = [], []
            for _ in range(opts.runs):
                seconds, code = timed(args, refused)
                assert code == 1, (args, code)
                fail.append(seconds)
                seconds, code = timed(args, live)
                assert code == 0, (args, code)
                good.append(seconds)
            f, g = statistics.median(fail), statistics.median(good)
            verdict = "ok" if f / g <= TARGET_RATIO and f < TARGET_SECONDS else "SLOW"
            ok &= verdict == "ok"
            print(f"{' '.join(args):<50}{f:>12.3f}{g:>10.3f}{f / g:>8.2f}  {verdict}")
        print(f"ratios refused/live (target ≤ {TARGET_RATIO}, refused < {TARGET_SECONDS} s): "
              f"{'all met' if ok else 'NOT all met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Instructions (valgrind's callgrind, ``Ir``) of kcli commands, this tree against other checkouts:
a count that repeat runs reproduce to a fraction of a percent where wall times on a shared machine
spread by tens of percent. Each command runs once per tree against one embedded broker, from a
neutral working directory (so that ``PYTHONPATH`` picks the tree), PYTHONHASHSEED=0, after one
untimed run that warms the file cache and kcli's own caches.

    .venv/bin/python bench/cli_instructions.py --against DIR [--against DIR2 ...] [COMMAND ...]

A ``--against`` value may be a PYTHONPATH of several entries (``a:b``), e.g. a patched kafka-python
before a tree (docs/upstream/README.md).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

import kcli as kcli_package
from kcli.broker import EmbeddedCluster


def _dropin(entry: str) -> list[str]:
    return ["-c", f"import sys; from kcli.cli.dropin import {entry}; sys.exit({entry}())"]


def commands(b: str) -> dict[str, list[str]]:
    return {
        "drop-in describe groups": _dropin("kafka_consumer_groups_main") + [
            "--bootstrap-server", b, "--describe", "--group", "bench-group"],
        "drop-in list groups": _dropin("kafka_consumer_groups_main") + ["--bootstrap-server", b, "--list"],
        "drop-in get-offsets": _dropin("kafka_get_offsets_main") + ["--bootstrap-server", b, "--topic", "bench"],
        "drop-in describe topic": _dropin("kafka_topics_main") + [
            "--bootstrap-server", b, "--describe", "--topic", "bench"],
        "describe topics": ["-m", "kcli", "describe", "topics", "bench", "-b", b],
        "list groups": ["-m", "kcli", "list", "groups", "-b", b],
        "reset-offsets dry run": ["-m", "kcli", "reset-offsets", "-g", "bench-group", "-t", "bench",
                                  "--to-earliest", "-b", b],
        "--help": ["-m", "kcli", "--help"],
    }


def instructions(path: str, args: list[str], cwd: str) -> int:
    env = {**os.environ, "PYTHONPATH": path, "PYTHONHASHSEED": "0"}
    subprocess.run([sys.executable, *args], env=env, capture_output=True, cwd=cwd, timeout=120)
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *args],
                         env=env, capture_output=True, text=True, cwd=cwd, timeout=600)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode or not found:
        raise SystemExit(f"{' '.join(args)} under {path}: exit {run.returncode}\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", action="append", default=[], metavar="DIR")
    ap.add_argument("command", nargs="*", help="names of the commands to run (default: all)")
    args = ap.parse_args()
    trees = {"this": os.path.dirname(os.path.abspath(kcli_package.__path__[0])),
             **{f"against {i + 1}": d for i, d in enumerate(args.against)}}
    for name, path in trees.items():
        print(f"{name}: {path}")
    from confluent_kafka import Consumer, TopicPartition

    with EmbeddedCluster(nodes=1) as c, tempfile.TemporaryDirectory() as cwd:
        b = c.bootstrap_servers
        c.create_topic("bench", partitions=6)
        consumer = Consumer({"bootstrap.servers": b, "group.id": "bench-group", "enable.auto.commit": False})
        consumer.commit(offsets=[TopicPartition("bench", p, 0) for p in range(6)], asynchronous=False)
        consumer.close()
        print(f"\n{'command':26} " + " ".join(f"{t:>22}" for t in trees))
        for name, argv in commands(b).items():
            if args.command and name not in args.command:
                continue
            counts = {t: instructions(path, argv, cwd) for t, path in trees.items()}
            cells = [f"{counts[t] / 1e6:9.1f}M" + (f" ({counts['this'] / counts[t]:.3f}x)" if t != "this" else " " * 9)
                     for t in trees]
            print(f"{name:26} " + " ".join(f"{cell:>22}" for cell in cells), flush=True)
    print("\n(x): this tree's count over that tree's")


if __name__ == "__main__":
    main()

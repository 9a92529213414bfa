"""kcli against Apache's Java tools on the same real Apache Kafka cluster, wall time per command.

One Apache Kafka 4.4 node (``tests.support.apache_kafka.ApacheKafka``) holds a topic of
``--partitions`` partitions (1,000 by default) with two records on each and a group with a
committed offset on each. Each command runs as an operator would start it: kcli as the installed
console script (``.venv/bin/kcli -o plain ...``) and the Java tool as ``kafka-run-class.sh``
launches it (``TOOL_JVM``: -Xmx256M and Kafka's G1 options), runs alternated so machine noise hits
both alike, after one untimed round. Reported per command: median and quartiles of each, and the
ratio of the medians kcli/Java (below 1: kcli is faster). The drop-in runs too, as the console
script an operator aliases (``.venv/bin/kcli-kafka-topics`` with the Java tool's own arguments),
its ratio to the Java tool beside (target ≤ 0.08), its stdout compared with the tool's byte for
byte (KIP-1282's GROUP-CREATION-TIME column aside).

    describe topics   kcli -o plain describe topics T       kafka-topics --describe --topic T
    describe groups   kcli -o plain describe groups G --state --verbose
                      kafka-consumer-groups --describe --group G --state --verbose
    reset dry run     kcli -o plain reset-offsets --group G --topic T --to-earliest --dry-run
                      kafka-consumer-groups --reset-offsets --group G --topic T --to-earliest --dry-run
    get-offsets       kcli -o plain list-offsets -t T       kafka-get-offsets --topic T

The untimed round also compares the two stdouts, as kcli's plain output is meant to reproduce the
tools' layout: "identical"; "same lines" when only the order differs (the Java tool prints a
reset's partitions in hash-map order); for describe groups kcli adds the GROUP-CREATION-TIME column
(KIP-1282, ``-`` on a 4.4 broker), so it is compared with that column removed; any other
difference is printed.

    .venv/bin/python bench/java_tools.py [--runs 9] [--partitions 1000] [--quick]
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the cluster helpers live in tests/

import kcli as kcli_package
from tests.support.apache_kafka import TOOL_JVM, ApacheKafka, java_tool
from tests.support.clients import commit, create_topic, produce

TOPIC, GROUP = "bench-topic", "bench-group"


def cases(topic: str, group: str) -> dict[str, tuple[list[str], list[str]]]:
    """Per command: kcli's arguments (after -o plain) and the Java tool with its arguments."""
    return {
        "describe topics": (["describe", "topics", topic],
                            ["kafka-topics", "--describe", "--topic", topic]),
        "describe groups": (["describe", "groups", group, "--state", "--verbose"],
                            ["kafka-consumer-groups", "--describe", "--group", group, "--state", "--verbose"]),
        "reset dry run": (["reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--dry-run"],
                          ["kafka-consumer-groups", "--reset-offsets", "--group", group, "--topic", topic,
                           "--to-earliest", "--dry-run"]),
        "get-offsets": (["list-offsets", "-t", topic],
                        ["kafka-get-offsets", "--topic", topic]),
    }


def run_kcli(kcli: str, bootstrap: str, args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([kcli, "-o", "plain", "-b", bootstrap, *args], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"kcli {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
    return elapsed, proc.stdout


def run_dropin(bin_dir: Path, bootstrap: str, tool: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([str(bin_dir / f"kcli-{tool[0]}"), "--bootstrap-server", bootstrap, *tool[1:]],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"kcli-{' '.join(tool)} exited {proc.returncode}: {proc.stderr.strip()}")
    return elapsed, proc.stdout


def run_java(bootstrap: str, tool: list[str]) -> tuple[float, str]:
    start = time.perf_counter()   # java_tool is one subprocess.run with captured output, as above
    result = java_tool(tool[0], "--bootstrap-server", bootstrap, *tool[1:], jvm=TOOL_JVM, timeout=120)
    elapsed = time.perf_counter() - start
    if result.code != 0:
        raise SystemExit(f"{' '.join(tool)} exited {result.code}: {result.err.strip()[-500:]}")
    return elapsed, result.out


def drop_creation_time(text: str) -> str:
    """kcli's describe-groups output without its GROUP-CREATION-TIME column (the last one)."""
    lines, in_table = [], False
    for line in text.split("\n"):
        if line.endswith("GROUP-CREATION-TIME"):
            in_table = True
        elif not line:
            in_table = False
        lines.append(line.rsplit(None, 1)[0] if in_table else line)
    return "\n".join(lines)


def parity(name: str, kcli_out: str, java_out: str) -> str:
    if name == "describe groups":
        kcli_out = drop_creation_time(kcli_out)
    if kcli_out == java_out:
        return "identical" + (" (less kcli's GROUP-CREATION-TIME)" if name == "describe groups" else "")
    if sorted(kcli_out.splitlines()) == sorted(java_out.splitlines()):
        return "same lines"
    first = next((i for i, (a, b) in enumerate(zip(kcli_out.splitlines(), java_out.splitlines()))
                  if a != b), min(len(kcli_out.splitlines()), len(java_out.splitlines())))
    return (f"DIFFERS at line {first + 1}: kcli {kcli_out.splitlines()[first:first + 1]!r} "
            f"java {java_out.splitlines()[first:first + 1]!r}")


def quartiles(samples: list[float]) -> tuple[float, float, float]:
    """(p25, median, p75); one sample is its own quartiles."""
    if len(samples) < 2:
        return samples[0], samples[0], samples[0]
    q1, _, q3 = statistics.quantiles(samples, n=4)
    return q1, statistics.median(samples), q3


def prepare(bootstrap: str, partitions: int) -> None:
    """Two records and a committed offset (1) on every partition."""
    create_topic(bootstrap, TOPIC, partitions)
    produce(bootstrap, TOPIC, [(p, b"x") for p in range(partitions)] * 2, **{"linger.ms": 5})
    commit(bootstrap, GROUP, {(TOPIC, p): 1 for p in range(partitions)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9, help="timed runs of each command per runner")
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="10 partitions (a smoke run)")
    args = ap.parse_args()
    partitions = 10 if args.quick else args.partitions
    kcli = Path(sys.executable).parent / "kcli"
    if not kcli.is_file():
        raise SystemExit(f"no kcli console script next to {sys.executable}: pip install -e . first")
    # As pip install would: with PYTHONDONTWRITEBYTECODE set, every run would compile kcli anew.
    compileall.compile_dir(kcli_package.__path__[0], quiet=1)

    with ApacheKafka(nodes=1) as kafka:
        b = kafka.bootstrap_servers
        prepare(b, partitions)
        print(f"Apache Kafka 4.4 (1 node), topic of {partitions} partitions, {args.runs} run(s) each; "
              f"Java tools with {' '.join(TOOL_JVM)}")
        print(f"{'command':16} {'kcli ms':>8} {'p25-p75':>11} {'drop-in':>8} {'java ms':>8} {'p25-p75':>11} "
              f"{'kcli/java':>9} {'drop-in/java':>12}  stdout (kcli; drop-in)")
        ratios, dropin_ratios = {}, {}
        for name, (kcli_args, tool) in cases(TOPIC, GROUP).items():
            _, kcli_out = run_kcli(str(kcli), b, kcli_args)          # untimed: warm the file cache
            _, java_out = run_java(b, tool)
            _, dropin_out = run_dropin(kcli.parent, b, tool)
            same = f"{parity(name, kcli_out, java_out)}; {parity(name, dropin_out, java_out)}"
            samples = {"kcli": [], "dropin": [], "java": []}
            for _ in range(args.runs):                                # alternated
                samples["kcli"].append(run_kcli(str(kcli), b, kcli_args)[0])
                samples["dropin"].append(run_dropin(kcli.parent, b, tool)[0])
                samples["java"].append(run_java(b, tool)[0])
            (kq1, k, kq3), (jq1, j, jq3) = quartiles(samples["kcli"]), quartiles(samples["java"])
            d = statistics.median(samples["dropin"])
            ratios[name], dropin_ratios[name] = k / j, d / j
            print(f"{name:16} {k * 1000:8.0f} {f'{kq1 * 1000:.0f}-{kq3 * 1000:.0f}':>11} {d * 1000:8.0f} "
                  f"{j * 1000:8.0f} {f'{jq1 * 1000:.0f}-{jq3 * 1000:.0f}':>11} {k / j:9.2f} {d / j:12.2f}  {same}",
                  flush=True)
    print("ratios kcli/java (median wall time): "
          + ", ".join(f"{name} {r:.2f}" for name, r in ratios.items()))
    print("ratios drop-in/java (median wall time, target <= 0.08): "
          + ", ".join(f"{name} {r:.2f}" for name, r in dropin_ratios.items()))


if __name__ == "__main__":
    main()

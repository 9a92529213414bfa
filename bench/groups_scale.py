"""Groups at scale: ``kcli list groups`` and ``kcli describe groups --all-groups``
(offsets, members, state; the offsets view with its lag in time) over 1k and 10k groups, against
Apache's ``kafka-consumer-groups`` on the same cluster, side by side, with kcli's request counts.

Per target and group count N: three topics of four partitions, four records on each partition,
and N groups, group i with committed offsets on every partition of topic i mod 3 (made with
kcli's own admin commit, one OffsetCommit per group). Targets: the embedded broker with 1 and 3
nodes, and a real Apache Kafka 4.4 cluster (``tests.support.apache_kafka``: ``--kafka-nodes``
combined broker+controller JVMs). Each command runs as an operator starts it: kcli as
``python -m kcli -o plain`` (the offsets view also with ``--time-lag``: one bounded Fetch per
leader) and the Java tool as its script launches it (``TOOL_JVM``), alternated, after one untimed
round that also counts kcli's own requests (a launcher that counts what kcli's connection sends,
ApiVersions included; librdkafka's requests are not counted) and compares the two stdouts (same
lines, in any order), then ``--warmup`` untimed alternated rounds: a cluster fresh from its
start answers 10k groups' ListGroups slower in its first rounds (native ``list groups`` took
0.14 s there and 0.10-0.11 s on the same cluster once warm), and a cluster in use is warm.

    list                  kcli list groups             kafka-consumer-groups --list
    describe offsets      kcli describe groups --all-groups           ... --describe --all-groups
    describe offsets+lag  kcli describe groups --all-groups --time-lag   (kcli only)
    describe members      kcli ... --members           ... --describe --all-groups --members
    describe state        kcli ... --state             ... --describe --all-groups --state

kcli runs as installed: its modules are compiled to bytecode first (pip does that on install;
with PYTHONDONTWRITEBYTECODE set, every run would otherwise compile kcli's sources, about 0.3 s
here, while the Java tool loads compiled classes).

The drop-in (``python -m kcli kafka-consumer-groups`` with the Java tool's own arguments) is timed
in the same alternation, its stdout compared with the tool's byte for byte ("identical"), else as
lines in any order. For ``list``, so is a bare confluent-kafka script (``BARE_LIST``: one
``list_consumer_groups``, the sorted ids printed; librdkafka's reconnect.backoff.ms as kcli sets
it), the floor of a Python tool making the same call: "bare/java" is its ratio.

Reported per command: median wall time of each, their ratio kcli/Java (below 1: kcli faster),
drop-in/Java and bare/Java,
peak RSS of each process (ru_maxrss from wait4 in a small launcher: a child's high-water mark
would start at this process's, which holds the broker), and kcli's requests (per API, summed).

    .venv/bin/python bench/groups_scale.py [--groups 1000 10000] [--runs 3] [--targets embedded kafka]
"""

from __future__ import annotations

import argparse
import compileall
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the cluster helpers live in tests/

from tests.support.apache_kafka import TOOL_JVM, _tools_log4j, kafka_libs, tool_class
from tests.support.clients import commit_groups, create_topic, produce

import kcli as kcli_package
from bench.reset_scale import LAUNCHER  # runs a command, writes its seconds and peak RSS

TOPICS, PARTITIONS = ("scale-a", "scale-b", "scale-c"), 4
CASES = {       # name: (kcli's arguments after -o plain, the Java tool's after --bootstrap-server B)
    "list": (["list", "groups"], ["--list"]),
    "describe offsets": (["describe", "groups", "--all-groups"], ["--describe", "--all-groups"]),
    "describe offsets+lag": (["describe", "groups", "--all-groups", "--time-lag"], None),
    "describe members": (["describe", "groups", "--all-groups", "--members"],
                         ["--describe", "--all-groups", "--members"]),
    "describe state": (["describe", "groups", "--all-groups", "--state"], ["--describe", "--all-groups", "--state"]),
}

# The bare script for ``list``: the same call as a Python tool on confluent-kafka makes it.
BARE_LIST = """
import sys
from confluent_kafka.admin import AdminClient
admin = AdminClient({"bootstrap.servers": sys.argv[1], "reconnect.backoff.ms": 20})
groups = admin.list_consumer_groups(request_timeout=600).result()
sys.stdout.write("".join(g + "\\n" for g in sorted(g.group_id for g in groups.valid)))
"""

# kcli with every request of its own connection counted (by API), written to argv[1] at exit.
COUNTING = """
import atexit, collections, json, re, sys
from kcli.admin.wire import connection
counts, send = collections.Counter(), connection.Connection.send
def sending(self, req, *args, **kwargs):
    counts[re.sub(r"(_v\\d+)?$", "", type(req).__name__).removesuffix("Request")] += 1
    return send(self, req, *args, **kwargs)
connection.Connection.send = sending
path = sys.argv.pop(1)
atexit.register(lambda: open(path, "w").write(json.dumps(counts)))
sys.argv[0] = "kcli"
from kcli.cli.main import main
main()
"""


def prepare(bootstrap: str, start: int, n: int) -> None:
    """Groups ``start``..``n - 1`` (the topics and records first, when ``start`` is 0)."""
    if start == 0:
        for t in TOPICS:
            create_topic(bootstrap, t, PARTITIONS)
            produce(bootstrap, t, [(p, b"x") for p in range(PARTITIONS) for _ in range(4)])
    for i, t in enumerate(TOPICS):
        groups = [f"scale-group-{g:05d}" for g in range(start, n) if g % len(TOPICS) == i]
        commit_groups(bootstrap, groups, {(t, p): 1 + p % 3 for p in range(PARTITIONS)})


def measure(cmd: list[str], timeout: float) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in KiB, stdout) of one run, which must succeed."""
    with tempfile.TemporaryFile("w+") as out, tempfile.NamedTemporaryFile("r") as result:
        code = subprocess.call([sys.executable, "-c", LAUNCHER, result.name, *cmd], stdout=out,
                               timeout=timeout)
        out.seek(0)
        text = out.read()
        elapsed, rss = result.read().split()
    if code != 0:
        raise SystemExit(f"{' '.join(cmd[:8])}... exited {code}")
    return float(elapsed), int(rss), text


def kcli_cmd(bootstrap: str, args: list[str]) -> list[str]:
    return [sys.executable, "-m", "kcli", "-o", "plain", "-b", bootstrap, "--timeout", "600s", *args]


def dropin_cmd(bootstrap: str, args: list[str]) -> list[str]:
    """kcli's drop-in for the Java tool, with the tool's own arguments."""
    return [sys.executable, "-m", "kcli", "kafka-consumer-groups", "--bootstrap-server", bootstrap, *args]


def java_cmd(bootstrap: str, args: list[str]) -> list[str]:
    return ["java", *TOOL_JVM, _tools_log4j(), "-cp", f"{kafka_libs()}/*",
            tool_class("kafka-consumer-groups"), "--bootstrap-server", bootstrap, *args]


def kcli_requests(bootstrap: str, args: list[str]) -> tuple[dict[str, int], str]:
    with tempfile.NamedTemporaryFile("r") as counts:
        proc = subprocess.run([sys.executable, "-c", COUNTING, counts.name, "-o", "plain", "-b", bootstrap,
                               "--timeout", "600s", *args], capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            raise SystemExit(f"kcli {' '.join(args)} exited {proc.returncode}: {proc.stderr[-500:]}")
        return json.loads(counts.read() or "{}"), proc.stdout


def same_lines(kcli_out: str, java_out: str) -> str:
    strip = lambda text: sorted(" ".join(line.split()) for line in text.splitlines() if line.strip())  # noqa: E731
    return "same lines" if strip(kcli_out) == strip(java_out) else "DIFFERS"


def run_target(label: str, bootstrap: str, n: int, runs: int, java: bool, rows: list[dict], warmup: int = 2) -> None:
    timeout = 120 + n * 0.1
    for name, (kargs, jargs) in CASES.items():
        counts, kout = kcli_requests(bootstrap, kargs)
        jout = measure(java_cmd(bootstrap, jargs), timeout)[2] if java and jargs else None
        dout = measure(dropin_cmd(bootstrap, jargs), timeout)[2] if jout is not None else None
        bare = [sys.executable, "-c", BARE_LIST, bootstrap] if name == "list" and jout is not None else None
        if bare is not None:
            bout = measure(bare, timeout)[2]
            if same_lines(bout, jout) != "same lines":
                raise SystemExit("the bare script's list differs from the Java tool's")
        samples: dict[str, list[tuple[float, int]]] = {"kcli": [], "java": [], "dropin": [], "bare": []}
        for round_ in range(warmup + runs):                       # alternated
            kept = round_ >= warmup                                # the first rounds warm the brokers
            for runner, cmd in (("kcli", kcli_cmd(bootstrap, kargs)),
                                ("java", java_cmd(bootstrap, jargs) if jout is not None else None),
                                ("dropin", dropin_cmd(bootstrap, jargs) if jout is not None else None),
                                ("bare", bare)):
                if cmd is not None:
                    sample = measure(cmd, timeout)[:2]
                    if kept:
                        samples[runner].append(sample)
        k = statistics.median(s for s, _ in samples["kcli"])
        j = statistics.median(s for s, _ in samples["java"]) if samples["java"] else None
        d = statistics.median(s for s, _ in samples["dropin"]) if samples["dropin"] else None
        b = statistics.median(s for s, _ in samples["bare"]) if samples["bare"] else None
        row = dict(target=label, groups=n, command=name, kcli_s=k, java_s=j, ratio=k / j if j else None,
                   dropin_s=d, dropin_ratio=d / j if j else None, bare_s=b, bare_ratio=b / j if b and j else None,
                   dropin_stdout="-" if dout is None else "identical" if dout == jout else same_lines(dout, jout),
                   kcli_rss_mib=max(r for _, r in samples["kcli"]) / 1024,
                   java_rss_mib=max(r for _, r in samples["java"]) / 1024 if samples["java"] else None,
                   requests=counts, total_requests=sum(counts.values()),
                   stdout=same_lines(kout, jout) if jout is not None else "-")
        rows.append(row)
        print_row(row)


HEADER = (f"{'target':18} {'groups':>6} {'command':21} {'kcli s':>7} {'java s':>7} {'kcli/java':>9} "
          f"{'drop-in/java':>12} {'bare/java':>9} "
          f"{'kcli MiB':>8} {'java MiB':>8} {'kcli reqs':>9}  stdout / kcli's requests")


def print_row(r: dict) -> None:
    fmt = lambda v, f: "-" if v is None else format(v, f)  # noqa: E731
    reqs = " ".join(f"{k}:{v}" for k, v in sorted(r["requests"].items()))
    print(f"{r['target']:18} {r['groups']:>6} {r['command']:21} {r['kcli_s']:7.2f} {fmt(r['java_s'], '7.2f'):>7} "
          f"{fmt(r['ratio'], '9.3f'):>9} {fmt(r['dropin_ratio'], '12.3f'):>12} {fmt(r['bare_ratio'], '9.3f'):>9} "
          f"{r['kcli_rss_mib']:8.0f} {fmt(r['java_rss_mib'], '8.0f'):>8} "
          f"{r['total_requests']:9}  {r['stdout']}, drop-in {r['dropin_stdout']} / {reqs}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=3, help="timed runs of each command per runner")
    ap.add_argument("--warmup", type=int, default=2,
                    help="untimed alternated rounds first: a broker fresh from start answers its first "
                         "ListGroups and DescribeGroups of 10k groups 20-30 ms slower (its JIT), which "
                         "would fall on whichever runner comes first")
    ap.add_argument("--targets", nargs="+", default=["embedded", "kafka"], choices=["embedded", "kafka"])
    ap.add_argument("--embedded-nodes", type=int, nargs="+", default=[1, 3])
    ap.add_argument("--kafka-nodes", type=int, nargs="+", default=[3])
    ap.add_argument("--no-java-on-embedded", action="store_true", help="time the Java tool on real Kafka only")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    sizes = sorted(args.groups)
    compileall.compile_dir(kcli_package.__path__[0], quiet=1)      # as pip install would
    rows: list[dict] = []
    print(HEADER)
    if "embedded" in args.targets:
        from tests.support.groups import fast_cluster

        for nodes in args.embedded_nodes:
            with fast_cluster(nodes) as ec:
                made = 0
                for n in sizes:
                    prepare(ec.bootstrap_servers, made, n)
                    made = n
                    run_target(f"embedded {nodes} node(s)", ec.bootstrap_servers, n, args.runs,
                               not args.no_java_on_embedded, rows, args.warmup)
    if "kafka" in args.targets:
        from tests.support.apache_kafka import ApacheKafka

        for nodes in args.kafka_nodes:
            with ApacheKafka(nodes=nodes) as kafka:
                made = 0
                for n in sizes:
                    prepare(kafka.bootstrap_servers, made, n)
                    made = n
                    run_target(f"kafka 4.4 {nodes} node(s)", kafka.bootstrap_servers, n, args.runs, True, rows,
                               args.warmup)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

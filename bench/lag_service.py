"""``kcli lag serve``'s collector at scale, beside a bare confluent-kafka script that computes
offset lag only, in one run.

The cluster: ``--partitions`` partitions over topics of 1,000 (fewer when smaller), three
records on each, stamped an hour ago, one second apart; ``--groups`` groups, group i with offset 1
committed on ten partitions of topic i mod T (so every group has lag 2 per partition, and the
next record's time to fetch). Groups are added between sizes, the partitions stay.

Per size, in child processes (their peak RSS read with wait4, as bench/reset_scale.py does):
- **collector**: ``kcli.ops.lag_service.Collector`` as ``kcli lag serve`` runs it (the expansion
  radar on, 24 h), one first collection (the timestamp cache cold), then ``--runs`` steady ones
  (the cache warm, nothing committed in between: the Fetches are gone); then ``/metrics`` scraped
  over HTTP from kcli's own exposition server, once (written: ``scrape``) and ``--runs`` times
  more (the same collection's bytes again: ``again``).
- **bare** (timed from its imports done to its answer, as the collector is): one
  ``list_consumer_groups``, every group's ``list_consumer_group_offsets`` in flight at once
  (librdkafka takes one group per call), one ``list_offsets`` latest of every committed
  partition; the offset lag summed. Its total must equal the collector's.

On the embedded broker, each one's requests are the broker's counts (every client id, summed
over APIs) of one more run: the first collection's, and the bare script's.

Reported: wall seconds (median of ``--runs`` for steady and scrape), steady/first (target
<= 0.2), first/bare and steady/bare (target <= 1.0: time lag at no more cost than offset lag
alone), peak RSS, requests, series served.

    .venv/bin/python bench/lag_service.py [--groups 1000 10000] [--partitions 30000] [--runs 3]
    .venv/bin/python bench/lag_service.py --quick --runs 1      # the smoke test's size
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the cluster helpers live in tests/

from bench.reset_scale import LAUNCHER  # runs a command, writes its seconds and peak RSS
from tests.support.clients import commit_groups, create_topic, produce

PER_TOPIC, PER_GROUP, RECORDS = 1000, 10, 3

COLLECTOR = """
import json, sys, threading, time, urllib.request
from kcli import exporter
from kcli.admin.settings import ClientSettings
from kcli.ops.lag_service import Collector, selection
bootstrap, runs = sys.argv[1], int(sys.argv[2])
c = Collector(ClientSettings(bootstrap, {}, 600_000), selection([], [], []), 3600,
              expansion_within_ms=86_400_000)
times = []
for _ in range(1 + runs):
    t = time.perf_counter()
    c.collect_once()
    times.append(time.perf_counter() - t)
    assert c.snapshot is not None, c.health.last_error
lag = sum(r.lag or 0 for g in c.snapshot.groups for r in g.rows)
known = sum(1 for g in c.snapshot.groups for r in g.rows if r.time_lag_ms is not None)
rows = sum(len(g.rows) for g in c.snapshot.groups)
scrapes, series = [], 0
if runs:
    server = exporter.bind("127.0.0.1", 0, exporter.app(c))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/metrics" % server.server_address[1]
    for _ in range(runs + 1):
        t = time.perf_counter()
        body = urllib.request.urlopen(url, timeout=600).read()
        scrapes.append(time.perf_counter() - t)
    series = sum(1 for line in body.splitlines() if line and not line.startswith(b"#"))
    server.shutdown()
print(json.dumps(dict(times=times, scrapes=scrapes, lag=lag, rows=rows, time_lags=known, series=series,
                      groups=len(c.snapshot.groups))))
"""

BARE = """
import json, sys, time
from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
started = time.perf_counter()
admin = AdminClient({"bootstrap.servers": sys.argv[1], "reconnect.backoff.ms": 20})
groups = [g.group_id for g in admin.list_consumer_groups(request_timeout=600).result().valid]
futures = [admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(g)], request_timeout=600)[g]
           for g in groups]
committed = [(tp.topic, tp.partition, tp.offset) for f in futures for tp in f.result().topic_partitions
             if tp.offset >= 0]
wanted = {TopicPartition(t, p): OffsetSpec.latest() for t, p in {(t, p) for t, p, _ in committed}}
ends = {(tp.topic, tp.partition): f.result().offset
        for tp, f in (admin.list_offsets(wanted, request_timeout=600).items() if wanted else [])}
lag = sum(ends[(t, p)] - o for t, p, o in committed)
print(json.dumps(dict(lag=lag, groups=len(groups), seconds=time.perf_counter() - started)))
"""


def topics_for(partitions: int) -> list[tuple[str, int]]:
    n = max(1, -(-partitions // PER_TOPIC))
    return [(f"lag-bench-{i:03d}", min(PER_TOPIC, partitions - i * PER_TOPIC)) for i in range(n)]


def prepare_topics(bootstrap: str, topics: list[tuple[str, int]]) -> None:
    stamp = int(time.time() * 1000) - 3_600_000
    for name, count in topics:
        create_topic(bootstrap, name, count)
        produce(bootstrap, name, [(p, b"x", stamp + i * 1000) for p in range(count) for i in range(RECORDS)])


def prepare_groups(bootstrap: str, topics: list[tuple[str, int]], start: int, n: int) -> None:
    """Groups ``start``..``n - 1``: group i on ten partitions of topic i mod T, offset 1."""
    by_slice: dict[tuple[int, int], list[str]] = {}
    for g in range(start, n):
        t = g % len(topics)
        slices = max(1, topics[t][1] // PER_GROUP)
        by_slice.setdefault((t, (g // len(topics)) % slices), []).append(f"lag-bench-g{g:05d}")
    for (t, s), groups in sorted(by_slice.items()):
        name, count = topics[t]
        parts = range(s * PER_GROUP, min(count, (s + 1) * PER_GROUP))
        commit_groups(bootstrap, groups, {(name, p): 1 for p in parts})


def child(code: str, *args: str, timeout: float) -> tuple[dict, int]:
    """(the child's JSON line, its peak RSS in KiB)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.NamedTemporaryFile("r") as result:
        rc = subprocess.call([sys.executable, "-c", LAUNCHER, result.name, sys.executable, "-c", code, *args],
                             stdout=out, timeout=timeout)
        out.seek(0)
        text = out.read()
        _, rss = result.read().split()
    if rc != 0:
        raise SystemExit(f"a bench child exited {rc}: {text[-500:]}")
    return json.loads(text.splitlines()[-1]), int(rss)


def counted(ec, run) -> int:
    """The requests the embedded broker served while ``run()`` ran, summed."""
    total = lambda: sum(n for counts in ec.request_counts().values() for n in counts.values())  # noqa: E731
    before = total()
    run()
    return total() - before


def measure(bootstrap: str, runs: int, ec=None, timeout: float = 3600) -> dict:
    c, c_rss = child(COLLECTOR, bootstrap, str(runs), timeout=timeout)
    b, b_rss = child(BARE, bootstrap, timeout=timeout)
    if c["lag"] != b["lag"] or c["groups"] != b["groups"]:
        raise SystemExit(f"the collector and the bare script disagree: {c['lag']} vs {b['lag']} records, "
                         f"{c['groups']} vs {b['groups']} groups")
    row = dict(first_s=c["times"][0], steady_s=statistics.median(c["times"][1:]),
               scrape_s=c["scrapes"][0], again_s=statistics.median(c["scrapes"][1:]), bare_s=None,
               rows=c["rows"], time_lags=c["time_lags"],
               series=c["series"], lag=c["lag"], collector_mib=c_rss / 1024, bare_mib=b_rss / 1024,
               collector_requests=None, bare_requests=None)
    # the bare script's time from its imports done to its answer, as the collector's is timed
    row["bare_s"] = statistics.median([b["seconds"], *(child(BARE, bootstrap, timeout=timeout)[0]["seconds"]
                                                      for _ in range(runs - 1))])
    if ec is not None:
        row["collector_requests"] = counted(ec, lambda: child(COLLECTOR, bootstrap, "0", timeout=timeout))
        row["bare_requests"] = counted(ec, lambda: child(BARE, bootstrap, timeout=timeout))
    return row


HEADER = (f"{'target':14} {'groups':>6} {'parts':>6} {'rows':>7} {'first s':>8} {'steady s':>8} {'scrape s':>8} "
          f"{'again s':>7} {'bare s':>7} {'steady/first':>12} {'first/bare':>10} {'steady/bare':>11} {'MiB':>5} "
          f"{'bare MiB':>8} "
          f"{'reqs':>6} {'bare reqs':>9} {'series':>7}")


def print_row(label: str, groups: int, partitions: int, r: dict) -> None:
    fmt = lambda v: "-" if v is None else str(v)  # noqa: E731
    print(f"{label:14} {groups:>6} {partitions:>6} {r['rows']:>7} {r['first_s']:8.2f} {r['steady_s']:8.2f} "
          f"{r['scrape_s']:8.3f} {r['again_s']:7.3f} {r['bare_s']:7.2f} {r['steady_s'] / r['first_s']:12.2f} "
          f"{r['first_s'] / r['bare_s']:10.2f} {r['steady_s'] / r['bare_s']:11.2f} {r['collector_mib']:5.0f} "
          f"{r['bare_mib']:8.0f} {fmt(r['collector_requests']):>6} {fmt(r['bare_requests']):>9} "
          f"{r['series']:>7}", flush=True)


def run_sizes(label: str, bootstrap: str, partitions: int, sizes: list[int], runs: int, ec=None) -> list[dict]:
    topics = topics_for(partitions)
    prepare_topics(bootstrap, topics)
    rows, made = [], 0
    for n in sizes:
        prepare_groups(bootstrap, topics, made, n)
        made = n
        r = measure(bootstrap, runs, ec)
        print_row(label, n, partitions, r)
        rows.append(dict(target=label, groups=n, partitions=partitions, **r))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--partitions", type=int, default=30000)
    ap.add_argument("--runs", type=int, default=3, help="steady collections, scrapes and bare runs per size")
    ap.add_argument("--targets", nargs="+", default=["embedded"], choices=["embedded", "kafka"])
    ap.add_argument("--quick", action="store_true", help="100 groups over 300 partitions (the smoke test)")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    sizes, partitions = ([30, 100], 300) if args.quick else (sorted(args.groups), args.partitions)
    rows: list[dict] = []
    print(HEADER)
    if "embedded" in args.targets:
        from tests.support.groups import fast_cluster

        with fast_cluster(1) as ec:
            rows += run_sizes("embedded", ec.bootstrap_servers, partitions, sizes, args.runs, ec)
    if "kafka" in args.targets:
        from tests.support.apache_kafka import ApacheKafka

        with ApacheKafka(nodes=1) as kafka:
            rows += run_sizes("kafka 4.4", kafka.bootstrap_servers, partitions, sizes, args.runs)
    print("ratios: steady/first (target <= 0.2), first/bare and steady/bare (target <= 1.0: the bare script "
          "computes offset lag only)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

"""The embedded broker against real Apache Kafka on this machine, one node each, side by side.

Each run starts both (in alternating order) and, with both up, measures each in turn:

- start to first ack: from the broker's process start to the first acknowledged produce
  (acks=all). The embedded broker is ``kcli broker start --listen 127.0.0.1:PORT`` (in memory, its
  default), the installed console script (kcli compiled to bytecode first, as pip installs it:
  with PYTHONDONTWRITEBYTECODE set, a checkout would compile its sources at every start); Apache
  Kafka 4.4 is one combined broker+controller JVM (``tests.support.apache_kafka.ApacheKafka``)
  with kafka-server-start.sh's defaults: -Xmx1g -Xms1g and Kafka's G1 options; its storage is
  formatted before the clock starts (a one-time step). The client is the same for both: wait
  until the port accepts (polled every 10 ms), create a 1-partition topic and wait for its leader
  (``tests.support.clients.create_topic``), produce one record with acks=all and flush.
- produce and consume MB/s at 100 B and 10 KB (10,000 B) records, ``--mb`` MB of values each, or
  more so that each phase lasts ``--min-seconds`` (3 s) on the faster broker at the rate of an
  untimed tenth of ``--mb`` run first (JIT warm-up), up to ``--max-mb``, into a fresh 3-partition
  topic:
  ``bench/broker_throughput.run``, a confluent-kafka producer (acks=all, linger.ms=5,
  batch.size=1000000, queue.buffering.max.messages=1000000, no compression) then a consumer
  assigned to every partition from offset 0, no group join (fetch.queue.backoff.ms=0, else
  librdkafka pauses fetching for 1 s whenever its queue fills; local queues that hold a
  partition's whole share, see ``consumer_config``; everything else default). The same settings on
  both sides, one client process at a time.

Durability differs: Kafka writes to its log files (page cache, no fsync per request, as by
default), the embedded broker keeps records in memory. Reported: median and quartiles over the
runs, and the ratio of the medians embedded/Kafka (below 1 for a time, above 1 for MB/s: the
embedded broker is better).

    .venv/bin/python bench/broker_vs_kafka.py [--runs 5] [--mb 100] [--quick]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # tests/support and bench/

from bench.broker_throughput import run as throughput
from tests.support.apache_kafka import ApacheKafka, _die_with_parent, free_ports
from tests.support.clients import create_topic, produce

SIZES = {"100 B": 100, "10 KB": 10_000}
PARTITIONS = 3
CONSUMER = {"fetch.queue.backoff.ms": 0}
BROKERS = ("embedded", "kafka")


def first_ack(bootstrap: str, t0: float, alive) -> float:
    """Seconds from ``t0`` to the first acknowledged produce, with the client procedure above."""
    host, port = bootstrap.rsplit(":", 1)
    deadline = t0 + 120
    for _ in range(12_000):                  # bounded: 120 s of 10 ms waits
        if not alive():
            raise SystemExit(f"the broker at {bootstrap} exited during start-up")
        try:
            socket.create_connection((host, int(port)), 1).close()
            break
        except OSError:
            if time.perf_counter() > deadline:
                raise SystemExit(f"{bootstrap} did not accept connections within 120 s") from None
            time.sleep(0.01)
    create_topic(bootstrap, "first-ack")
    produce(bootstrap, "first-ack", [(0, b"x")], acks="all")
    return time.perf_counter() - t0


def start_embedded(stack: contextlib.ExitStack) -> tuple[str, float]:
    kcli = Path(sys.executable).parent / "kcli"
    bootstrap = f"127.0.0.1:{free_ports(1)[0]}"
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(kcli), "broker", "start", "--listen", bootstrap],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            preexec_fn=_die_with_parent)

    def stop():                              # by PID: SIGTERM, a clean shutdown; SIGKILL late
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    stack.callback(stop)
    return bootstrap, first_ack(bootstrap, t0, lambda: proc.poll() is None)


def start_kafka(stack: contextlib.ExitStack) -> tuple[str, float]:
    kafka = ApacheKafka(nodes=1, heap="1g")   # kafka-server-start.sh's KAFKA_HEAP_OPTS; G1 by default
    stack.callback(kafka.stop)
    node = kafka.nodes[1]
    # ApacheKafka.start() without its readiness wait, so the clock starts at the broker's launch.
    fmt = kafka._format(node)
    out, _ = fmt.communicate(timeout=60)
    if fmt.returncode != 0:
        raise SystemExit(f"kafka-storage format failed: {out.strip()[-500:]}")
    t0 = time.perf_counter()
    kafka._launch(node)
    return kafka.bootstrap_servers, first_ack(kafka.bootstrap_servers, t0,
                                              lambda: node.process.poll() is None)


def quartiles(samples: list[float]) -> tuple[float, float, float]:
    """(p25, median, p75); one sample is its own quartiles."""
    if len(samples) < 2:
        return samples[0], samples[0], samples[0]
    q1, _, q3 = statistics.quantiles(samples, n=4)
    return q1, statistics.median(samples), q3


def measure(bootstrap: str, topic: str, records: int, nbytes: int) -> dict:
    create_topic(bootstrap, topic, PARTITIONS)
    return throughput(bootstrap, records, nbytes, "none", PARTITIONS, create=False, topic=topic,
                      consumer_config=consumer_config(records, nbytes))


def consumer_config(records: int, nbytes: int) -> dict:
    """``CONSUMER`` with local queues that hold a whole partition's share of the volume: librdkafka
    leaves a partition whose queue is full out of its next Fetch, and a Fetch that then names
    only partitions read to their end is parked by either broker for ``fetch.wait.max.ms``
    (0.46 s stalls, once or twice a run, on both: CHANGELOG.md, 2026-11-27). With room for every
    record, each Fetch names every partition not yet at its end and the read measures how fast
    the broker delivers."""
    share = -(-records // PARTITIONS)
    return {**CONSUMER, "queued.min.messages": min(share + 1, 10_000_000),
            "queued.max.messages.kbytes": min(share * (nbytes + 100) // 1024 + 1024, 2_097_151)}


def timed_mb(mb: float, fastest_mb_s: float, min_seconds: float, max_mb: float) -> float:
    """The timed volume: ``mb``, or more so that a phase at the warm-up's fastest rate (either
    broker, either phase) lasts ``min_seconds``, capped at ``max_mb`` (the embedded broker holds
    its records in memory)."""
    return min(max(mb, fastest_mb_s * min_seconds * 1.2), max(mb, max_mb))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh pairs of brokers")
    ap.add_argument("--mb", type=float, default=100, help="MB of record values per size and run")
    ap.add_argument("--min-seconds", type=float, default=3,
                    help="more MB where a phase would last less on the faster broker")
    ap.add_argument("--max-mb", type=float, default=1000, help="the most MB per size and run")
    ap.add_argument("--quick", action="store_true", help="1 MB per size, no minimum time (a smoke run)")
    args = ap.parse_args()
    import kcli                                 # compiled as installed (see above)
    compileall.compile_dir(kcli.__path__[0], quiet=1)
    mb = 1 if args.quick else args.mb
    if args.quick:
        args.min_seconds = 0
    volumes = {size: [] for size in SIZES}
    starters = {"embedded": start_embedded, "kafka": start_kafka}
    rows = {"start to first ack (s)": {b: [] for b in BROKERS}}
    for size in SIZES:
        for phase in ("produce", "consume"):
            rows[f"{phase} {size} (MB/s)"] = {b: [] for b in BROKERS}

    for i in range(args.runs):
        order = BROKERS if i % 2 == 0 else BROKERS[::-1]      # neither always starts first
        with contextlib.ExitStack() as stack:
            bootstrap = {}
            for broker in order:
                bootstrap[broker], seconds = starters[broker](stack)
                rows["start to first ack (s)"][broker].append(seconds)
            # An untimed tenth of the volume first: a fresh JVM runs its produce and fetch paths
            # interpreted until the JIT has seen them; a running cluster would be past that. The
            # warm-up's rates also size the timed volume: enough for each phase on the faster
            # broker to last --min-seconds (a 0.2 s phase swings with the scheduler), the same
            # volume for both brokers.
            for size, nbytes in SIZES.items():
                warm = max(1, int(mb * 0.1 * 1e6 / nbytes))
                fastest = 0.0
                for broker in order:
                    r = measure(bootstrap[broker], f"tp-{nbytes}-warm-up", warm, nbytes)
                    fastest = max(fastest, r["produce_mb_s"], r["consume_mb_s"])
                volume = timed_mb(mb, fastest, args.min_seconds, args.max_mb)
                volumes[size].append(volume)
                for broker in order:
                    r = measure(bootstrap[broker], f"tp-{nbytes}-timed", max(1, int(volume * 1e6 / nbytes)), nbytes)
                    rows[f"produce {size} (MB/s)"][broker].append(r["produce_mb_s"])
                    rows[f"consume {size} (MB/s)"][broker].append(r["consume_mb_s"])
        print(f"run {i + 1}/{args.runs} done", file=sys.stderr, flush=True)

    sizes = ", ".join(f"{size} {min(v):g}-{max(v):g} MB" for size, v in volumes.items())
    print(f"one node each, {args.runs} run(s), values per run: {sizes} (at least {mb:g} MB, each "
          f"phase >= {args.min_seconds:g} s on the faster broker), {PARTITIONS} partitions, "
          f"acks=all; embedded in memory, Kafka with -Xmx1g -Xms1g and G1")
    print(f"{'':24}{'embedded':>9} {'p25-p75':>13}{'kafka':>9} {'p25-p75':>13}{'embedded/kafka':>16}")
    ratios = {}
    for name, samples in rows.items():
        (eq1, e, eq3), (kq1, k, kq3) = quartiles(samples["embedded"]), quartiles(samples["kafka"])
        ratios[name] = e / k
        print(f"{name:24}{e:9.2f} {f'{eq1:.2f}-{eq3:.2f}':>13}{k:9.2f} {f'{kq1:.2f}-{kq3:.2f}':>13}"
              f"{e / k:16.2f}")
    print("ratios embedded/kafka (medians): "
          + ", ".join(f"{name} {r:.2f}" for name, r in ratios.items()), flush=True)


if __name__ == "__main__":
    main()

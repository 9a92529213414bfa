"""How fast a kcli command fails when the cluster refuses the connection, as a ratio against the
same command succeeding against a live embedded broker, run side by side (alternated, fresh
interpreters both: start-up included on both sides). Then the same for a TLS handshake that fails
(a certificate the client does not trust) and a SASL password the broker rejects, each against
the same broker with the right CA or password.

A refused connection is certain at the first attempt, so failing should cost no more than
succeeding: target ratio refused/live ≤ 1.1 for every command (a successful call against a local
broker is itself a few ms; 0.1 is the spread of medians between runs on a shared machine), and
the refused median under 1 s. Before kcli ended at librdkafka's first all-brokers-down report, list groups,
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the test certificates live in tests/

from kcli.broker import EmbeddedCluster
from tests.support.tls_certs import make_certs

TARGET_RATIO = 1.1
TARGET_SECONDS = 1.0
COMMANDS = [
    ["list", "topics"], ["list", "groups"], ["describe", "topics", "orders"],
    ["describe", "groups", "billing"], ["list-offsets", "-t", "orders"],
    ["describe", "configs", "--topic", "orders"],
    ["reset-offsets", "-g", "billing", "-t", "orders", "--to-earliest"],
]


# Both client paths: kcli's own connection (describe topics), librdkafka (the others).
REJECTED_COMMANDS = [["list", "topics"], ["describe", "topics", "orders"], ["list-offsets", "-t", "orders"]]


def timed(args: list[str], bootstrap: str, config: str | None = None) -> tuple[float, int]:
    extra = ["--command-config", config] if config else []
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kcli", *args, *extra, "-b", bootstrap, "--timeout", "30s"],
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    return time.perf_counter() - t0, proc.returncode


def compare(label: str, args: list[str], runs: int, failing: tuple, live: tuple) -> bool:
    """Alternated runs of ``args`` against ``failing`` and ``live`` ((bootstrap, config)); prints
    the row, returns whether it meets the targets."""
    timed(args, *live)                                   # warm the file cache
    fail, good = [], []
    for _ in range(runs):
        seconds, code = timed(args, *failing)
        assert code == 1, (label, args, code)
        fail.append(seconds)
        seconds, code = timed(args, *live)
        assert code == 0, (label, args, code)
        good.append(seconds)
    f, g = statistics.median(fail), statistics.median(good)
    verdict = "ok" if f / g <= TARGET_RATIO and f < TARGET_SECONDS else "SLOW"
    print(f"{label + ' ' + ' '.join(args):<60}{f:>12.3f}{g:>10.3f}{f / g:>8.2f}  {verdict}")
    return verdict == "ok"


def rejected_rows(runs: int, commands: list[list[str]]) -> bool:
    """A TLS handshake the client fails (untrusted certificate) and a SASL password the broker
    rejects, against the same broker with the right CA or password."""
    import tempfile

    ok = True
    with tempfile.TemporaryDirectory(prefix="kcli-bench-") as tmp:
        d = Path(tmp)
        certs = make_certs(d)

        def config(name: str, text: str) -> str:
            (d / name).write_text(text)
            return str(d / name)

        with EmbeddedCluster(nodes=1, tls=certs.server) as tls:
            tls.create_topic("orders", partitions=3)
            b = tls.bootstrap_servers
            good = config("tls.properties", f"security.protocol=SSL\nssl.ca.location={certs.ca}\n")
            bad = config("tls-other.properties", f"security.protocol=SSL\nssl.ca.location={certs.other_ca}\n")
            for args in commands:
                ok &= compare("tls:", args, runs, (b, bad), (b, good))
        with EmbeddedCluster(nodes=1, sasl_users={"alice": "alice-secret"}) as sasl:
            sasl.create_topic("orders", partitions=3)
            b = sasl.bootstrap_servers
            plain = "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=alice\n"
            good = config("sasl.properties", plain + "sasl.password=alice-secret\n")
            bad = config("sasl-wrong.properties", plain + "sasl.password=wrong\n")
            for args in commands:
                ok &= compare("sasl:", args, runs, (b, bad), (b, good))
    return ok


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
        print(f"{'command':<60}{'failing (s)':>12}{'live (s)':>10}{'ratio':>8}  verdict")
        ok = True
        for args in commands:
            ok &= compare("refused:", args, opts.runs, (refused, None), (live, None))
    ok &= rejected_rows(opts.runs, REJECTED_COMMANDS[:1] if opts.quick else REJECTED_COMMANDS)
    print(f"ratios failing/live (target ≤ {TARGET_RATIO}, failing < {TARGET_SECONDS} s): "
          f"{'all met' if ok else 'NOT all met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

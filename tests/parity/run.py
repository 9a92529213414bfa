"""``python -m tests.parity.run [--streams] [--bootstrap HOST:PORT] [CASE-ID ...]``: runs corpus
cases (all by default) on a fresh Apache Kafka (or the given cluster) and prints both tools'
output and the differences, for working on a case by hand. ``--streams``: the
kafka-streams-groups corpus (tests/parity/streams_corpus.py), on Apache Kafka 4.4.0."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from tests.parity.corpus import CASES, State
from tests.parity.streams_corpus import STREAMS_CASES, StreamsState
from tests.parity.harness import run_case
from tests.support.apache_kafka import ApacheKafka, ToolSession
from tests.support.streams_app import STREAMS_KAFKA


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.parity.run")
    parser.add_argument("ids", nargs="*", help="case ids (default: all)")
    parser.add_argument("--bootstrap", help="an Apache Kafka to use instead of starting one")
    parser.add_argument("--streams", action="store_true", help="the kafka-streams-groups corpus")
    args = parser.parse_args(argv)
    cases = [c for c in (STREAMS_CASES if args.streams else CASES) if not args.ids or c.id in args.ids]
    version = {"version": STREAMS_KAFKA} if args.streams else {}
    streams_configs = {"configs": {"group.streams.initial.rebalance.delay.ms": "0"}} if args.streams else {}
    scratch = Path(tempfile.mkdtemp(prefix="kcli-parity-"))
    os.chdir(scratch)
    failed = 0
    with ExitStack() as stack:
        bootstrap = args.bootstrap or stack.enter_context(
            ApacheKafka(nodes=1, **version, **streams_configs)).bootstrap_servers
        state = stack.enter_context((StreamsState if args.streams else State)(bootstrap, scratch))
        tools = stack.enter_context(ToolSession(**version))
        for case in cases:
            o = run_case(case, state.values, state.prepare, tools.run)
            print(f"=== {case.id}: {' '.join(o.java_args)}\n--- kcli -o plain {' '.join(o.kcli_args)}")
            for who, r in (("java", o.java), ("kcli", o.kcli)):
                print(f"[{who} exit {r.code}] stdout:\n{r.out}[{who}] stderr:\n{r.err}")
            for finding in o.findings():
                failed += 1
                print("FINDING:", finding)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

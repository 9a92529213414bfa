"""``python -m tests.parity.run [--bootstrap HOST:PORT] [CASE-ID ...]``: runs corpus cases
(all by default) on a fresh Apache Kafka (or the given cluster) and prints both tools' output
and the differences, for working on a case by hand."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from tests.parity.corpus import CASES, State
from tests.parity.harness import run_case
from tests.support.apache_kafka import ApacheKafka, ToolSession


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.parity.run")
    parser.add_argument("ids", nargs="*", help="case ids (default: all)")
    parser.add_argument("--bootstrap", help="an Apache Kafka to use instead of starting one")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.ids or c.id in args.ids]
    scratch = Path(tempfile.mkdtemp(prefix="kcli-parity-"))
    os.chdir(scratch)
    failed = 0
    with ExitStack() as stack:
        bootstrap = args.bootstrap or stack.enter_context(ApacheKafka(nodes=1)).bootstrap_servers
        state = stack.enter_context(State(bootstrap, scratch))
        tools = stack.enter_context(ToolSession())
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

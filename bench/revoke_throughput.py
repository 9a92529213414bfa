"""Records/s of the partitions a consumer keeps while a revoke is pending: the delayed-revoke
consumer (``kcli.consumer.DelayRevokeConsumer``, member/fetcher split) against the naive
approach (a confluent-kafka consumer whose ``on_revoke`` blocks until the revoked partitions are
drained, flushed and committed), side by side against the embedded broker, for both incremental
protocols.

The scenario is tests/support/revoke_rig.py (a cooperative rebalance): a producer writes ``--rate``
records/s to each of 6 partitions, consumer A runs alone, B joins and 3 of A's partitions move to
B; A needs ``--flush`` seconds to let them go. Kept-partition records/s = records of A's other 3
partitions that A received during that window, divided by its length; "of produced" compares
them with what the producer wrote to those partitions meanwhile (1.00 = full rate).

    python bench/revoke_throughput.py [--rate 50] [--flush 2] [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the scenario lives in tests/

from tests.support.groups import fast_cluster
from tests.support.revoke_rig import PROTOCOLS, Settings, run

MODES = ("naive", "split")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=50, help="records/s per partition")
    parser.add_argument("--flush", type=float, default=2.0,
                        help="seconds A needs to let a revoked partition go")
    parser.add_argument("--runs", type=int, default=3, help="runs per protocol and approach")
    parser.add_argument("--protocol", choices=list(PROTOCOLS), action="append",
                        help="only this protocol (repeatable; default both)")
    args = parser.parse_args()
    settings = Settings(rate=args.rate, flush_s=args.flush)

    rows = []
    with fast_cluster() as ec:
        for protocol in args.protocol or list(PROTOCOLS):
            results = {mode: [] for mode in MODES}
            for i in range(args.runs):
                for mode in MODES:                       # interleaved, side by side
                    results[mode].append(run(ec, mode, protocol, settings, tag=f"-{i}"))
            rows.append((protocol, results))

    print(f"{args.rate} records/s per partition x 6 partitions, flush {args.flush} s, "
          f"{args.runs} run(s) each; kept partitions: the 3 A keeps")
    print(f"{'protocol':20}{'approach':10}{'window s':>10}{'kept recs':>11}{'produced':>10}"
          f"{'of produced':>13}{'kept recs/s':>13}{'dups':>6}{'missing':>9}")
    for protocol, results in rows:
        rates = {}
        for mode in MODES:
            rs = results[mode]
            window = sum(r.window_s for r in rs)
            kept, produced = sum(r.kept_in_window for r in rs), sum(r.kept_produced for r in rs)
            rates[mode] = kept / window if window else 0.0
            print(f"{protocol:20}{mode:10}{window / len(rs):>10.2f}{kept:>11}{produced:>10}"
                  f"{kept / max(produced, 1):>13.2f}{rates[mode]:>13.1f}"
                  f"{sum(r.duplicates for r in rs):>6}{sum(r.missing for r in rs):>9}")
        ratio = (f"{rates['split'] / rates['naive']:.2f}" if rates["naive"]
                 else "inf (the naive consumer received none)")
        print(f"{protocol:20}ratio split/naive of kept records/s: {ratio}")


if __name__ == "__main__":
    main()

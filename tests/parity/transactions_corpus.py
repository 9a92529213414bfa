"""The kafka-transactions corpus: the command lines of Apache Kafka's TransactionsCommandTest
(list with and without its filters, describe, describe-producers on the leader and on a replica,
find-hanging by topic, partition and broker, abort by start offset and by producer, the
arguments each command requires, the global options) on a cluster of the corpus's own
(``apache_kafka_txn``: produce unverified), whose state ``TxnState`` makes: a committed
transaction, one left open by a killed producer, and a hanging one. Each line runs through the
Java tool and through ``kcli kafka-transactions`` with the same words."""

from __future__ import annotations

import time
from pathlib import Path

from tests.parity.harness import EXIT, STDERR, Case
from tests.support.clients import create_topic, produce

B = ("--bootstrap-server", "{b}")
BAD = {STDERR: "argparse-usage", EXIT: "usage-exit"}    # argparse4j's message alone, exit 2
CHECK = {EXIT: "usage-exit"}                 # the tool's own check before a request: its words, exit 2


def txn(*args: str, differs=None, prepare=None, id: str, bootstrap: bool = True) -> Case:
    return Case(id, ("kafka-transactions", *(B if bootstrap else ()), *args), (), differs or {}, prepare,
                dropin=True)


HANGING = "same-minute"                      # find-hanging's Duration(min): both tools in one minute

TXN_CASES: list[Case] = [
    # find-hanging first: the hanging transaction's age is fresh (TxnState.same_minute)
    txn("find-hanging", "--topic", "{topic}", "--max-transaction-timeout", "0", prepare=HANGING,
        id="txn-find-hanging-topic"),
    txn("find-hanging", "--topic", "{topic}", "--partition", "1", "--max-transaction-timeout", "0", prepare=HANGING,
        id="txn-find-hanging-partition"),
    txn("find-hanging", "--broker-id", "1", "--topic", "{topic}", "--max-transaction-timeout=0", prepare=HANGING,
        id="txn-find-hanging-broker-topic"),
    txn("find-hanging", "--topic", "{topic}", prepare=HANGING, id="txn-find-hanging-default-timeout"),
    txn("find", "--topic", "{topic}", "--max-transaction-timeout", "0", prepare=HANGING, id="txn-command-prefix"),
    txn("find-hanging", "--topic", "{topic}", "--partition", "0", "--max-transaction-timeout", "0",
        id="txn-find-hanging-open-not-hanging"),
    txn("find-hanging", "--topic", "nosuch-txn-topic", id="txn-find-hanging-missing-topic"),
    txn("find-hanging", differs=CHECK, id="txn-find-hanging-no-scope"),
    txn("find-hanging", "--partition", "0", differs=CHECK, id="txn-find-hanging-partition-without-topic"),
    txn("find-hanging", "--topic", "{topic}", "--max-transaction-timeout", "x", differs=BAD,
        id="txn-find-hanging-bad-timeout"),
    # list (testListTransactions...)
    txn("list", id="txn-list"),
    txn("list", "--duration-filter", "-1", id="txn-list-duration-all"),
    txn("list", "--duration-filter", "86400000", id="txn-list-duration-long"),
    txn("list", "--transactional-id-pattern", "{p}-(done|open)", id="txn-list-pattern"),
    txn("list", "--transactional-id-pattern", "nothing-matches.*", id="txn-list-pattern-none"),
    txn("list", "--duration-filter", id="txn-list-duration-no-value", differs=BAD),
    txn("list", "--duration-filter", "1.5", id="txn-list-duration-not-long", differs=BAD),
    # describe (testDescribeTransaction...)
    txn("describe", "--transactional-id", "{hanging}", id="txn-describe-empty"),
    txn("describe", "--transactional-id", "{p}-unknown", id="txn-describe-unknown"),
    txn("describe", id="txn-describe-no-id", differs=BAD),
    txn("describe", "--transactional", "{hanging}", id="txn-describe-prefix"),
    # describe-producers (testDescribeProducers...)
    txn("describe-producers", "--topic", "{topic}", "--partition", "1", id="txn-producers-hanging"),
    txn("describe-producers", "--topic", "{topic}", "--partition", "0", id="txn-producers-open"),
    txn("describe-producers", "--topic", "{topic}", "--partition", "0", "--broker-id", "1",
        id="txn-producers-replica"),
    txn("describe-producers", "--topic", "{plain}", "--partition", "0", id="txn-producers-none"),
    txn("describe-producers", "--partition", "0", id="txn-producers-topic-required", differs=BAD),
    txn("describe-producers", "--topic", "{topic}", id="txn-producers-partition-required", differs=BAD),
    txn("describe-producers", "--topic", "{topic}", "--partition", "zero", id="txn-producers-bad-partition",
        differs=BAD),
    # abort (testAbortTransaction...): the refusals; the abort itself in tests/apache
    txn("abort", "--topic", "{topic}", "--partition", "1", "--start-offset", "999", id="txn-abort-no-such-start"),
    txn("abort", "--topic", "{topic}", "--partition", "1", differs=CHECK, id="txn-abort-unidentified"),
    txn("abort", "--topic", "{topic}", "--partition", "1", "--producer-id", "5", differs=CHECK,
        id="txn-abort-no-epoch"),
    txn("abort", "--topic", "{topic}", "--partition", "1", "--producer-id", "5", "--producer-epoch", "0",
        differs=CHECK, id="txn-abort-no-coordinator-epoch"),
    txn("abort", "--topic", "{topic}", "--partition", "1", "--producer-epoch", "40000", id="txn-abort-epoch-short",
        differs=BAD),
    txn("abort", "--partition", "1", "--start-offset", "0", id="txn-abort-topic-required", differs=BAD),
    # the global options and the commands
    txn(id="txn-no-command", differs=BAD),
    txn("-h", id="txn-help", bootstrap=False),
    txn("list", "-h", id="txn-list-help"),
    txn("describe", "--help", id="txn-describe-help"),
    txn("describe-producers", "-h", id="txn-producers-help"),
    txn("find-hanging", "-h", id="txn-find-hanging-help"),
    txn("abort", "-h", id="txn-abort-help"),
    txn("forceTerminateTransaction", "-h", id="txn-force-terminate-help"),
    txn("list", id="txn-no-bootstrap", bootstrap=False, differs=BAD),
    txn("lst", id="txn-unknown-command", differs=BAD),
    txn("desc", id="txn-ambiguous-command", differs=BAD),
    txn("list", "--bogus", id="txn-unknown-option", differs=BAD),
    txn("--bogus", "list", id="txn-unknown-global-option", differs=BAD),
    # last: it makes the id (InitProducerId) and fences it
    txn("forceTerminateTransaction", "--transactionalId", "{p}-fenced", id="txn-force-terminate"),
    txn("forceTerminateTransaction", id="txn-force-terminate-no-id", differs=BAD),
]


class TxnState:
    """The corpus's cluster state: topic ``{topic}`` (2 partitions): partition 0 holds a
    committed transaction of ``{done}`` then one ``{open}``'s producer left open when killed;
    partition 1 a transaction a killed producer left hanging, its records stamped 5 minutes
    and 1 second before it was written; topic ``{plain}`` plain records. Fixed names."""

    def __init__(self, bootstrap: str, scratch: Path):
        p = "tparity"
        self.b = bootstrap
        self.values = {"b": bootstrap, "p": p, "topic": f"{p}-t", "plain": f"{p}-plain", "done": f"{p}-done",
                       "open": f"{p}-open", "hanging": f"{p}-hanging"}
        self.scratch = scratch
        self.hanging_ms = 0

    def __enter__(self) -> "TxnState":
        from confluent_kafka import Producer

        from tests.support.hanging_producer import killed

        v, b = self.values, self.b
        create_topic(b, v["topic"], partitions=2)
        create_topic(b, v["plain"], partitions=1)
        produce(b, v["plain"], [(0, "a"), (0, "b")])
        done = Producer({"bootstrap.servers": b, "transactional.id": v["done"], "linger.ms": 0})
        done.init_transactions(60)
        done.begin_transaction()
        done.produce(v["topic"], b"committed", partition=0)
        done.commit_transaction(30)
        done.flush(10)
        killed("open", b, v["topic"], 0, v["open"], 2)
        self.hanging_ms = int(time.time() * 1000) - 301_000
        killed("hanging", b, v["topic"], 1, v["hanging"], 3, self.hanging_ms)
        return self

    def __exit__(self, *exc) -> None:
        pass

    def prepare(self, step: str) -> None:
        getattr(self, "_" + step.replace("-", "_"))()

    def _same_minute(self) -> None:
        """find-hanging prints the hanging transaction's age in whole minutes: when less than 30 s
        of the current minute are left, wait for the next, so that both tools' runs (a second or
        two each) print the same number."""
        into = (int(time.time() * 1000) - self.hanging_ms) % 60_000
        if into > 30_000:
            time.sleep((60_000 - into) / 1000 + 0.5)

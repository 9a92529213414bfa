"""Byte parity of kcli's plain output with Apache's Java tools on a real Kafka 4.4 cluster: the
corpus (``corpus.py``) runs through both on the same state; every difference is declared with
its reason, and the parity tables of docs/dropins.md are exactly the declared differences."""

from __future__ import annotations

import os

import pytest

from tests.parity.acls_corpus import ACL_CASES
from tests.parity.corpus import CASES, State
from tests.parity.harness import BEGIN, DROPIN_BEGIN, DROPIN_END, END, DOCS, dropin_table, run_case, table
from tests.parity.reassign_corpus import REASSIGN_CASES
from tests.parity.share_corpus import SHARE_CASES
from tests.parity.streams_corpus import STREAMS_CASES, StreamsState
from tests.parity.transactions_corpus import TXN_CASES, TxnState
from tests.support.apache_kafka import ToolSession
from tests.support.streams_app import STREAMS_KAFKA



@pytest.fixture(scope="module")
def outcomes(apache_kafka_parity, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("parity")
    cwd = os.getcwd()
    os.chdir(scratch)                         # kcli's default rollback files land here
    try:
        with State(apache_kafka_parity.bootstrap_servers, scratch) as state, ToolSession() as tools:
            return [run_case(case, state.values, state.prepare, tools.run) for case in CASES]
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def streams_outcomes(apache_kafka_streams_parity, tmp_path_factory):
    """The kafka-streams-groups corpus on Apache Kafka 4.4.0, its tool from the same release."""
    scratch = tmp_path_factory.mktemp("streams-parity")
    with StreamsState(apache_kafka_streams_parity.bootstrap_servers, scratch) as state, \
            ToolSession(version=STREAMS_KAFKA) as tools:
        return [run_case(case, state.values, state.prepare, tools.run) for case in STREAMS_CASES]


@pytest.fixture(scope="module")
def txn_outcomes(apache_kafka_txn, tmp_path_factory):
    """The kafka-transactions corpus on its own cluster (``apache_kafka_txn``)."""
    scratch = tmp_path_factory.mktemp("txn-parity")
    with TxnState(apache_kafka_txn.bootstrap_servers, scratch) as state, ToolSession() as tools:
        return [run_case(case, state.values, state.prepare, tools.run) for case in TXN_CASES]


def test_the_corpus_covers_every_tool():
    native, dropins = [c for c in CASES if not c.dropin], [c for c in CASES if c.dropin]
    assert len(native) >= 40 and len(dropins) >= 60 and len({c.id for c in CASES}) == len(CASES)
    tools = {"kafka-topics", "kafka-consumer-groups", "kafka-get-offsets", "kafka-configs"}
    assert {c.java[0] for c in native} == tools and {c.java[0] for c in dropins} == tools | {"kafka-delete-records",
                                                                                      "kafka-leader-election",
                                                                                      "kafka-log-dirs",
                                                                                      "kafka-cluster",
                                                                                      "kafka-metadata-quorum",
                                                                                      "kafka-features"}


def test_every_difference_is_declared_and_happens(outcomes):
    findings = [f for o in outcomes for f in o.findings()]
    assert not findings, "\n".join(findings)


def test_the_streams_corpus_covers_every_action():
    actions = {"--list", "--describe", "--reset-offsets", "--delete", "--delete-offsets"}
    assert len(STREAMS_CASES) >= 30 and len({c.id for c in CASES + STREAMS_CASES}) == len(CASES) + len(STREAMS_CASES)
    assert {c.java[0] for c in STREAMS_CASES} == {"kafka-streams-groups"} and all(c.dropin for c in STREAMS_CASES)
    assert actions <= {a for c in STREAMS_CASES for a in c.java}


def test_every_streams_difference_is_declared_and_happens(streams_outcomes):
    findings = [f for o in streams_outcomes for f in o.findings()]
    assert not findings, "\n".join(findings)


def test_streams_reset_of_a_stopped_application_names_its_rollback_file(streams_outcomes):
    """The --execute case: the same plan as the Java tool's on stdout, kcli's rollback file on stderr."""
    o = next(o for o in streams_outcomes if o.case.id == "streams-reset-execute")
    assert o.kcli.code == 0 and o.kcli.out == o.java.out and o.java.out.count("sparity-stopped") == 2
    assert o.kcli.err.startswith("Rollback file (the committed offsets before this reset): ")


def test_the_dropins_page_tables_are_what_the_harness_sees():
    text = DOCS.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, "docs/dropins.md has no parity table markers"
    assert text.split(BEGIN, 1)[1].split(END, 1)[0] == table(CASES), (
        "docs/dropins.md's parity table is stale: run `python -m tests.parity.update_docs`")
    assert DROPIN_BEGIN in text and DROPIN_END in text, "docs/dropins.md has no drop-in table markers"
    dropins = dropin_table(CASES + STREAMS_CASES + SHARE_CASES + ACL_CASES + TXN_CASES + REASSIGN_CASES)
    assert text.split(DROPIN_BEGIN, 1)[1].split(DROPIN_END, 1)[0] == dropins, (
        "docs/dropins.md's drop-in table is stale: run `python -m tests.parity.update_docs`")


def test_to_start_time_on_real_kafka_is_kip_1282s_refusal(outcomes):
    """Kafka 4.4 has no ConsumerGroupDescribe v2: the drop-in prints KIP-1282's first error (the
    Java tool does not know the option) and resets nothing."""
    o = next(o for o in outcomes if o.case.id == "dropin-reset-to-start-time")
    assert (o.kcli.code, o.kcli.out) == (
        1, "\nError: Cannot reset offsets using --to-start-time. The broker does not support to_start_time "
           "(requires ConsumerGroupDescribe v2+ or StreamsGroupDescribe v2+). Please upgrade the broker.\n")


def test_the_transactions_corpus_covers_every_command():
    commands = {"list", "describe", "describe-producers", "find-hanging", "abort", "forceTerminateTransaction"}
    ids = {c.id for c in CASES + STREAMS_CASES + TXN_CASES}
    assert len(ids) == len(CASES) + len(STREAMS_CASES) + len(TXN_CASES)
    assert {c.java[0] for c in TXN_CASES} == {"kafka-transactions"} and all(c.dropin for c in TXN_CASES)
    assert commands <= {a for c in TXN_CASES for a in c.java}


def test_every_transactions_difference_is_declared_and_happens(txn_outcomes):
    findings = [f for o in txn_outcomes for f in o.findings()]
    assert not findings, "\n".join(findings)


def test_find_hanging_finds_the_hanging_transaction_and_not_the_open_one(txn_outcomes):
    """The corpus's state is what the cases claim: one hanging row (partition 1, at the batch's
    offset 0), none for the open transaction its coordinator still counts (partition 0)."""
    by_id = {o.case.id: o for o in txn_outcomes}
    rows = by_id["txn-find-hanging-topic"].kcli.out.splitlines()[1:]
    assert [r.split("\t")[:2] + r.split("\t")[5:6] for r in rows] == [["tparity-t", "1        ", "0          "]]
    assert by_id["txn-find-hanging-open-not-hanging"].kcli.out.count("\n") == 1
    assert "Ongoing" in by_id["txn-list"].kcli.out and "tparity-hanging" in by_id["txn-list"].kcli.out

"""Apache Kafka 4.4's Java transactional producer and read_committed / read_uncommitted consumers,
unmodified (``java/Transactions.java``): commit, abort, fencing by a second producer of the same
transactional.id, a transaction timeout and sendOffsetsToTransaction give the same results on a
3-node embedded broker as on real Kafka 4.4: both finalize transaction version 2 (KIP-890), so the
client sends no AddPartitionsToTxn or AddOffsetsToTxn (Produce v12 and TxnOffsetCommit v5 add the
partition and the group) and EndTxn v5 bumps the epoch. Posing as 4.4, the broker advertises
4.4's versions of the transaction APIs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.apache.test_cluster import api_versions
from tests.support.apache_kafka import java
from tests.support.clients import create_topic, unique
from tests.support.groups import fast_cluster

JAVA = Path(__file__).parent / "java"


# What the program prints. A commit after the timeout's abort: with transaction version 2 (EndTxn
# v5) the coordinator takes the bumped-from epoch for a retry and answers INVALID_TXN_STATE (a
# commit of an aborted transaction); version 1 answered PRODUCER_FENCED (the abort bumped the epoch).
EXPECTED = [
    {"failed": {"producer": "a", "exception": "ProducerFencedException"}},
    {"failed": {"producer": "c", "exception": "InvalidTxnStateException"}},
    {"read": {"isolation": "read_committed", "values": ["c1", "c2", "c3"]}},
    {"read": {"isolation": "read_uncommitted", "values": ["a1", "c1", "c2", "c3", "open", "t1"]}},
    {"offsets": {"0": 5}},
]


pytestmark = pytest.mark.apache


def run(bootstrap: str, replication_factor: int) -> list[dict]:
    topic = unique("java-txn")
    create_topic(bootstrap, topic, 2, replication_factor=replication_factor)
    r = java(JAVA / "Transactions.java", bootstrap, topic, unique("txn"), unique("txn-group"),
             timeout=150)
    assert r.code == 0, f"Transactions.java exited {r.code}: {r.err[-3000:]}"
    return [json.loads(line) for line in r.out.splitlines()]


def test_java_transactions_on_the_embedded_broker():
    with fast_cluster(nodes=3) as ec:
        assert run(ec.bootstrap_servers, 3) == EXPECTED


def test_java_transactions_on_kafka(apache_kafka):
    assert run(apache_kafka.bootstrap_servers, 1) == EXPECTED


TRANSACTION_APIS = (22, 24, 25, 26, 27, 28, 61, 65, 66)   # InitProducerId ... ListTransactions
TXN_OFFSET_COMMIT = 28


def test_posing_as_4_4_serves_kafkas_transaction_versions(apache_kafka):
    """``--pose-as 4.4`` advertises Kafka 4.4's ranges for every transaction API but
    TxnOffsetCommit's v6, whose schema kafka-python 3.0.12 (the broker's codec) lacks."""
    kafka = api_versions(apache_kafka.bootstrap_servers)
    with fast_cluster(nodes=1, pose_as="4.4") as ec:
        posed = api_versions(ec.bootstrap_servers)
    assert kafka[TXN_OFFSET_COMMIT] == (0, 6) and posed[TXN_OFFSET_COMMIT] == (0, 5)
    same = [k for k in TRANSACTION_APIS if k != TXN_OFFSET_COMMIT]
    assert {k: posed.get(k) for k in same} == {k: kafka.get(k) for k in same}

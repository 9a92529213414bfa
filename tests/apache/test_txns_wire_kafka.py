"""The transaction coordinator's answers, request by request, on the embedded broker and on real
Kafka 4.4: the same error codes for the same requests (epochs and fencing by request version,
KIP-360's producer check, the timeout's bounds, a partial AddPartitionsToTxn, KIP-890's
verify-only form, EndTxn with nothing to end)."""

from __future__ import annotations

import time

import pytest

from tests.broker.test_txns_wire import (INVALID_PRODUCER_EPOCH, INVALID_PRODUCER_ID_MAPPING,
                                         INVALID_TRANSACTION_TIMEOUT, INVALID_TXN_STATE, NONE,
                                         OPERATION_NOT_ATTEMPTED, PRODUCER_FENCED,
                                         TRANSACTION_ABORTABLE,
                                         UNKNOWN_TOPIC_OR_PARTITION, add, end, init, verify)
from tests.support.clients import create_topic, unique
from tests.support.groups import fast_cluster
from tests.support.request_checks import send

RETRIABLE = {14, 15, 16, 51}      # loading, not available, not coordinator, concurrent transactions


def retried(fn):
    """``fn()``'s answer once it is not a retriable error code (a new __transaction_state loads;
    Kafka writes markers after it answers): bounded by 30 s."""
    deadline = time.monotonic() + 30
    while True:
        answer = fn()
        codes = set(answer.values()) if isinstance(answer, dict) else {answer.error_code}
        if not codes & RETRIABLE or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


@pytest.fixture(params=["embedded", "kafka"])
def bootstrap(request):
    if request.param == "kafka":
        yield request.getfixturevalue("apache_kafka").bootstrap_servers
    else:
        with fast_cluster(nodes=1) as ec:
            yield ec.bootstrap_servers


def test_the_coordinators_answers_are_kafkas(bootstrap):
    b, topic, tx = bootstrap, unique("txw"), unique("tx")
    create_topic(b, topic, 2)
    # Kafka creates __transaction_state on the first lookup
    found = retried(lambda: send(b, 10, 4, key_type=1, coordinator_keys=[tx]).coordinators[0])
    assert found.error_code == NONE
    first = retried(lambda: init(b, tx))
    assert (first.error_code, first.producer_epoch) == (NONE, 0)
    pid = first.producer_id
    second = retried(lambda: init(b, tx))
    assert (second.error_code, second.producer_id, second.producer_epoch) == (NONE, pid, 1)
    assert set(add(b, tx, pid, 0, [(topic, 0)], version=1).values()) == {INVALID_PRODUCER_EPOCH}
    assert set(add(b, tx, pid, 0, [(topic, 0)], version=3).values()) == {PRODUCER_FENCED}
    assert end(b, tx, pid, 0, True, version=1).error_code == INVALID_PRODUCER_EPOCH
    assert end(b, tx, pid, 0, True, version=3).error_code == PRODUCER_FENCED
    assert set(add(b, tx, pid + 1_000_000, 1, [(topic, 0)]).values()) == {INVALID_PRODUCER_ID_MAPPING}
    assert init(b, tx, version=4, producer_id=pid, epoch=0).error_code == PRODUCER_FENCED
    assert init(b, tx, version=3, producer_id=pid, epoch=0).error_code == INVALID_PRODUCER_EPOCH
    assert init(b, unique("tx"), timeout_ms=0).error_code == INVALID_TRANSACTION_TIMEOUT
    assert init(b, unique("tx"), timeout_ms=900_001).error_code == INVALID_TRANSACTION_TIMEOUT

    assert end(b, tx, pid, 1, True).error_code == INVALID_TXN_STATE          # nothing to end
    assert add(b, tx, pid, 1, [(topic, 0), ("no-such-topic", 0)]) == {
        (topic, 0): OPERATION_NOT_ATTEMPTED, ("no-such-topic", 0): UNKNOWN_TOPIC_OR_PARTITION}
    assert verify(b, tx, pid, 1, [(topic, 0)]) == {(topic, 0): TRANSACTION_ABORTABLE}
    assert verify(b, tx, pid, 1, [(topic, 0)], version=4) == {(topic, 0): TRANSACTION_ABORTABLE}
    assert add(b, tx, pid, 1, [(topic, 0)]) == {(topic, 0): NONE}
    assert verify(b, tx, pid, 1, [(topic, 0), (topic, 1)]) == {(topic, 0): NONE,
                                                               (topic, 1): TRANSACTION_ABORTABLE}
    assert retried(lambda: end(b, tx, pid, 1, False)).error_code == NONE

"""Requests the frame fuzzer found the embedded broker failing on get the same answers from it
as from Kafka 4.4: nulls where the schema forbids them close the connection, CreateTopics and
CreatePartitions beyond one controller batch are refused alike, and InitProducerId without a
transactional id always gives a new producer id with epoch 0."""

from __future__ import annotations

from kcli.broker import EmbeddedCluster
from tests.support.clients import unique
from tests.support.request_checks import batch_answers, init_producer_id, null_answers

# A producer id and epoch given by a client that has none (the fuzzer's find was 5, 3): far beyond
# any id the session's Kafka hands out, so "not reused" holds whatever ran before (random order).
GIVEN_ID = 10**12
GIVEN = ((-1, -1), (GIVEN_ID, 3), (GIVEN_ID, 32767))


def test_fuzz_findings_answered_as_kafka(apache_kafka):
    suffix = "-" + unique("lim")
    kafka = apache_kafka.bootstrap_servers
    with EmbeddedCluster() as ec:
        embedded = ec.bootstrap_servers
        assert null_answers(embedded) == null_answers(kafka)
        assert batch_answers(embedded, suffix) == batch_answers(kafka, suffix)
        for broker in (kafka, embedded):
            answers = [init_producer_id(broker, pid, epoch) for pid, epoch in GIVEN]
            ids = [pid for _, pid, _ in answers]
            assert [(e, epoch) for e, _, epoch in answers] == [(0, 0)] * 3, broker
            assert len(set(ids)) == 3 and GIVEN_ID not in ids, broker

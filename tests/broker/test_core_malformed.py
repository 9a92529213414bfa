"""What the frame fuzzer found (test_core_fuzz.py), each answered as Kafka 4.4 answers it
(tests/apache/test_request_limits.py compares the two brokers):

- a null where the schema forbids it used to reach the handlers (kafka-python decodes any -1
  length as null) and raise there; Kafka cannot parse such a request and closes the connection;
- CreateTopics or CreatePartitions with an absurd partition count used to build every partition,
  blocking the broker's loop; Kafka refuses more than one controller batch (10,000 records), and
  from 4.4 (KAFKA-19673) more than 10,000 new partitions in one CreatePartitions, before any;
- InitProducerId with the epoch at its maximum raised (the epoch was bumped past 32767); Kafka
  gives an idempotent producer a new id with epoch 0 whatever it sends.
"""

from __future__ import annotations

import logging

from tests.support.broker_wire import req

from tests.support.request_checks import (BATCH_CASES, NULL_REQUESTS, batch_answers,
                                          create_partitions, init_producer_id, null_answers,
                                          partition_count)


def test_null_where_the_schema_forbids_it_closes_the_connection(broker1, wire, caplog):
    with caplog.at_level(logging.INFO, logger="kcli.broker"):
        assert set(null_answers(broker1.bootstrap_servers).values()) == {"closed"}
    # closed as unparseable, not after a handler's exception
    assert [r.levelname for r in caplog.records] == ["INFO"] * len(NULL_REQUESTS)
    assert all("undecodable" in r.getMessage() for r in caplog.records)
    # the all-zero topic id is no null (kafka-python decodes it as None): librdkafka sends it
    broker1.create_topic("t")
    R = req(3, 12, allow_auto_topic_creation=False, include_topic_authorized_operations=False,
            topics=[])
    R.topics = [type(R).MetadataRequestTopic(name="t", topic_id=None)]
    assert wire(broker1).send(R).topics[0].error_code == 0


def test_requests_beyond_one_controller_batch_are_refused_at_once(broker1):
    got = batch_answers(broker1.bootstrap_servers, "")     # no 2^31-partition topic is built (pytest-timeout)
    too_many = "Excessively large number of partitions per request."
    too_large = "Unable to perform excessively large batch operation."
    too_many_added = "Excessively large number of additional partitions per request."
    assert got == {
        "9,999 partitions": [("c1", 0, None)],
        "9,999 partitions and a config": [("c2", 44, too_large)],
        "9,998 partitions and a config": [("c3", 0, None)],
        "two topics of 5,000": [("c4", 44, too_large), ("c5", 44, too_large)],
        "two topics of 4,999": [("c6", 0, None), ("c7", 0, None)],
        "12,001 partitions in three topics": [("c8", 44, too_many), ("c9", 44, too_many),
                                              ("c10", 44, too_many)],
        "2^31-1 partitions": [("c11", 44, too_many)],
        "CreatePartitions adding 10,000": (0, None),
        "CreatePartitions adding 10,001": (44, too_many_added),
    }
    assert set(got) == set(BATCH_CASES) | {"CreatePartitions adding 10,000",
                                           "CreatePartitions adding 10,001"}
    # and not applied, as in Kafka 4.4 (4.3 applied the first 10,000 of them anyway)
    bootstrap = broker1.bootstrap_servers
    assert create_partitions(bootstrap, "grown", 10_002, validate_only=False) == (44, too_many_added)
    assert partition_count(bootstrap, "grown") == 1


def test_init_producer_id_gives_a_new_id_with_epoch_0(broker1):
    answers = [init_producer_id(broker1.bootstrap_servers, pid, epoch)
               for pid, epoch in ((-1, -1), (1000, 3), (1000, 32767))]
    assert [(e, epoch) for e, _, epoch in answers] == [(0, 0)] * 3
    assert len({pid for _, pid, _ in answers}) == 3

"""The embedded broker answers Produce as Kafka 4.4 does: the same raw requests (KIP-467 record
errors for keyless records on compacted topics and KIP-937 timestamps, malformed batches and
records) get the same partition answers from both, the same records are stored, and librdkafka's
regression test 0011 (``test_message_single_partition_record_fail``) and kafka-python's producer
see the same delivery results."""

from __future__ import annotations

from kcli.broker import EmbeddedCluster
from tests.support.clients import unique
from tests.support.produce_checks import kafka_python_errors, record_fail_0011, run_cases


def test_produce_answers_as_kafka(apache_kafka):
    suffix = "-" + unique("pv")
    kafka = run_cases(apache_kafka.bootstrap_servers, suffix)
    with EmbeddedCluster() as ec:
        embedded = run_cases(ec.bootstrap_servers, suffix)
        embedded_python = kafka_python_errors(ec.bootstrap_servers, "compacted" + suffix)
    kafka_python = kafka_python_errors(apache_kafka.bootstrap_servers, "compacted" + suffix)
    differ = {case: {"kafka": kafka[case], "embedded": embedded[case]}
              for case in kafka if kafka[case] != embedded[case]}
    assert not differ
    assert embedded_python == kafka_python
    # the comparison is not vacuous: both rejected records one by one
    assert kafka["keyed and keyless"][0] == 87 and len(kafka["keyed and keyless"][4]) == 2


def test_librdkafka_0011_record_fail_as_kafka(apache_kafka):
    topic = unique("rf0011")
    kafka = record_fail_0011(apache_kafka.bootstrap_servers, topic)
    with EmbeddedCluster() as ec:
        embedded = record_fail_0011(ec.bootstrap_servers, topic)
    assert embedded == kafka

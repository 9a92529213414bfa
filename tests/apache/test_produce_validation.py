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


def test_a_fetch_answers_no_part_of_an_oversized_first_batch_as_kafka_does(apache_kafka):
    """Fetch v12, two partitions of 4 KiB each: the first partition's ~10 KiB batch comes whole
    (KIP-74), the second's the same size comes as no bytes at all (Kafka's ReplicaManager drops
    an incomplete first batch for Fetch v3+), on Apache Kafka and on the embedded broker alike
    (which sent 4 KiB of it)."""
    import time as _time

    from kafka.protocol.consumer.fetch import FetchRequest as Req

    from kcli.admin.wire.connection import Wire
    from kcli.admin.wire.offsets import _fetch_request
    from tests.support.clients import create_topic, produce

    def sizes(bootstrap: str, topic: str) -> list[int]:
        create_topic(bootstrap, topic, partitions=2)
        produce(bootstrap, topic, [(p, "v" * 300) for p in (0, 1) for _ in range(30)], **{"linger.ms": 500})
        wire = Wire({"bootstrap_servers": bootstrap.split(","), "client_id": "test"}, lambda: _time.monotonic() + 10)
        try:
            resp = wire.send(_fetch_request(Req, 12, [((topic, 0), 0, 4096), ((topic, 1), 0, 4096)]))
        finally:
            wire.close()
        return [len(part.records or b"") for t in resp.responses for part in t.partitions]

    real = sizes(apache_kafka.bootstrap_servers, unique("oversized"))
    with EmbeddedCluster() as c:
        embedded = sizes(c.bootstrap_servers, "oversized")
    assert real[0] > 4096 and real[1] == 0, real
    assert embedded[0] > 4096 and embedded[1] == 0, embedded

"""Produce validation with real clients: records without a key are refused on a compacted topic
(INVALID_RECORD with KIP-467 record errors, the whole batch failing), as librdkafka's regression
test 0011 ``test_message_single_partition_record_fail`` expects and as Kafka 4.4 answers (the
messages below are Kafka's; tests/apache/test_produce_validation.py compares the two brokers)."""

from __future__ import annotations

from tests.support.broker_wire import req

from kcli.broker import EmbeddedCluster
from tests.support.produce_checks import (TOPICS, batch, kafka_python_errors, record_fail_0011,
                                          run_cases)


def test_librdkafka_0011_record_fail(broker1):
    """0011's assertions: 10 INVALID_RECORD (the keyless messages); in one batch the 90 keyed
    ones fail too (_INVALID_DIFFERENT_RECORD) and nothing is stored; one message per batch, the
    90 keyed ones are delivered and stored."""
    got = record_fail_0011(broker1.bootstrap_servers, "record-fail")
    keyless = list(range(0, 100, 10))
    assert got[0]["errors"] == {"INVALID_RECORD": 10, "_INVALID_DIFFERENT_RECORD": 90}
    assert got[0]["failed keyless"] == keyless and got[0]["stored"] == []
    assert got[1]["errors"] == {"INVALID_RECORD": 10, None: 90}
    assert got[1]["failed keyless"] == keyless
    assert [int(v.rsplit(b"#", 1)[1]) for v in got[1]["stored"]] == [
        i for i in range(100) if i % 10]


def test_compacted_topic_record_errors():
    with EmbeddedCluster() as ec:       # the wall clock: run_cases sends records stamped now
        answers = run_cases(ec.bootstrap_servers, "")
    why = "Compacted topic cannot accept message without key in topic partition {}-0"
    code, message, log_start, base, errors = answers["keyed and keyless"]
    assert (code, log_start, base) == (87, 0, -1)
    assert errors == [(1, why.format("compacted")), (3, why.format("compacted"))]
    assert message == ("One or more records have been rejected due to 2 record errors in total, "
                       "and only showing the first three errors at most: ["
                       f"RecordError(batchIndex=1, message='{why.format('compacted')}'), "
                       f"RecordError(batchIndex=3, message='{why.format('compacted')}')]")
    code, message, _, _, errors = answers["five keyless, gzip"]
    assert code == 87 and [i for i, _ in errors] == [0, 1, 2, 3, 4]
    assert message.startswith("One or more records have been rejected due to 5 record errors")
    assert message.count("RecordError(") == 3                 # "the first three at most"
    assert answers["keyless, compact,delete"][0] == 87        # any policy with compact
    assert answers["empty key"][:4] == (0, None, 0, 0)        # an empty key is a key
    assert answers["keyed"][:4] == (0, None, 0, 1)
    # with a timestamp out of range in the same batch: INVALID_TIMESTAMP, every error listed
    code, message, _, _, errors = answers["keyless and out of range"]
    assert code == 32
    assert message == "One or more records have been rejected due to invalid timestamp"
    assert [(i, m.split(" ")[0]) for i, m in errors] == [
        (0, "Compacted"), (1, "Timestamp"), (2, "Compacted")]
    # the default after-bound, settled by the batch header unless it fails: then each record
    code, message, _, base, errors = answers["one record beyond the default after-bound"]
    assert (code, base) == (32, -1) and [i for i, _ in errors] == [1]
    assert errors[0][1].startswith("Timestamp ") and errors[0][1].endswith(" is out of range. "
        "The timestamp should be within [bounds]")
    assert answers["within the default after-bound"][0] == 0


def test_kafka_python_producer_sees_each_record_error(broker1, wire):
    """kafka-python reports the broker's per-record message for each keyless record."""
    broker1.create_topic("compacted", configs=TOPICS["compacted"])
    lines = kafka_python_errors(broker1.bootstrap_servers, "compacted")
    keyless = ("InvalidRecordError: [Error 87] InvalidRecordError: Compacted topic cannot "
               "accept message without key in topic partition compacted-0")
    assert lines[0] == lines[2] == keyless
    assert lines[1].startswith("KafkaError") and lines[3].startswith("KafkaError")
    # and nothing was appended
    w = wire(broker1)
    R = req(2, 7, replica_id=-1, isolation_level=0, topics=[])
    T = type(R).ListOffsetsTopic
    R.topics = [T(name="compacted", partitions=[T.ListOffsetsPartition(
        partition_index=0, current_leader_epoch=-1, timestamp=-1)])]
    assert w.send(R).topics[0].partitions[0].offset == 0


def test_keyless_record_on_a_topic_made_compacted_later(broker1, wire):
    """The policy is read at each produce: a keyless record is accepted, then refused once the
    topic is compacted."""
    broker1.create_topic("later")
    w = wire(broker1)

    def produce_keyless():
        R = req(0, 9, transactional_id=None, acks=-1, timeout_ms=5000, topic_data=[])
        T = type(R).TopicProduceData
        R.topic_data = [T(name="later", partition_data=[T.PartitionProduceData(
            index=0, records=batch([(1_700_000_000_000, None, b"v")]))])]
        return w.send(R).responses[0].partition_responses[0].error_code
    assert produce_keyless() == 0
    broker1.call(broker1.cluster.set_topic_configs, "later", {"cleanup.policy": "compact"})
    assert produce_keyless() == 87


def test_min_insync_replicas_is_capped_at_the_replication_factor(broker3, wire):
    """Kafka's effective min ISR is min(min.insync.replicas, replication factor): acks=all to a
    single-replica topic with min.insync.replicas=2 is accepted (as Kafka 4.4 does, compared in
    tests/apache/test_produce_validation.py); with two replicas and one down it is refused."""
    broker3.create_topic("rf1", replication_factor=1, configs={"min.insync.replicas": "2"})
    broker3.create_topic("rf2", replication_factor=2, configs={"min.insync.replicas": "2"})

    def produce(topic):
        leader = broker3.cluster.topics[topic].partitions[0].leader
        R = req(0, 9, transactional_id=None, acks=-1, timeout_ms=5000, topic_data=[])
        T = type(R).TopicProduceData
        R.topic_data = [T(name=topic, partition_data=[T.PartitionProduceData(
            index=0, records=batch([(1_700_000_000_000, b"k", b"v")]))])]
        return wire(broker3, leader).send(R).responses[0].partition_responses[0].error_code
    assert produce("rf1") == 0 and produce("rf2") == 0
    broker3.stop_node(broker3.cluster.topics["rf2"].partitions[0].replicas[1])
    assert produce("rf2") == 19                                   # NOT_ENOUGH_REPLICAS

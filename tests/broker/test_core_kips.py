"""The KIP rules, read over the wire with kcli.protocol requests: KIP-1327 (partition creation
time), KIP-937 (timestamp bounds on produce), KIP-734 (max timestamp), also after a restart from
data_dir and when posing as 4.1."""

from __future__ import annotations

from tests.support.broker_wire import req
from tests.support.waits import Clock
from kafka.record import MemoryRecordsBuilder

from kcli.broker import EmbeddedCluster

LONG_MAX = 9223372036854775807


def batch(timestamps, codec=0, values=None) -> bytes:
    builder = MemoryRecordsBuilder(magic=2, compression_type=codec, batch_size=1 << 20)
    for i, ts in enumerate(timestamps):
        builder.append(ts, None, (values[i] if values else f"v{i}").encode())
    builder.close()
    return bytes(builder.buffer())


def produce(w, topic, records, partition=0, acks=-1, version=9):
    R = req(0, version, transactional_id=None, acks=acks, timeout_ms=5000, topic_data=[])
    T = type(R).TopicProduceData
    R.topic_data = [T(name=topic, partition_data=[
        T.PartitionProduceData(index=partition, records=records)])]
    return w.send(R).responses[0].partition_responses[0]


def list_offset(w, topic, timestamp, partition=0, version=7):
    R = req(2, version, replica_id=-1, isolation_level=0, topics=[])
    T = type(R).ListOffsetsTopic
    R.topics = [T(name=topic, partitions=[T.ListOffsetsPartition(
        partition_index=partition, current_leader_epoch=-1, timestamp=timestamp)])]
    p = w.send(R).topics[0].partitions[0]
    return p.error_code, p.offset, p.timestamp


def metadata(w, version=14, topics=None):
    R = req(3, version, topics=None, allow_auto_topic_creation=False,
            include_topic_authorized_operations=False)
    if topics is not None:
        R.topics = [type(R).MetadataRequestTopic(name=t) for t in topics]
    return w.send(R)


def dtp(w, topics=(), limit=2000, cursor=None, version=1):
    R = req(75, version, topics=[], response_partition_limit=limit, cursor=None)
    R.topics = [type(R).TopicRequest(name=t) for t in topics]
    if cursor is not None:
        R.cursor = type(R).Cursor(topic_name=cursor[0], partition_index=cursor[1])
    return w.send(R)


def creation_times(w, topic, version=1):
    return [p.creation_time_ms for p in dtp(w, [topic], version=version).topics[0].partitions]


# -- KIP-1327 ---------------------------------------------------------------------------------

def test_partition_creation_time_stamped_once(broker1, wire, clock):
    w = wire(broker1)
    t0 = clock.now_ms
    broker1.create_topic("orders", partitions=2)
    assert creation_times(w, "orders") == [t0, t0]
    clock.now_ms += 60_000
    md = metadata(w, topics=["orders"])
    assert [p.partition_age_ms for p in md.topics[0].partitions] == [60_000, 60_000]
    # CreatePartitions over the wire: the new partition gets its own time, old ones keep theirs
    R = req(37, 3, topics=[], timeout_ms=5000, validate_only=False)
    R.topics = [type(R).CreatePartitionsTopic(name="orders", count=3, assignments=None)]
    assert w.send(R).results[0].error_code == 0
    assert creation_times(w, "orders") == [t0, t0, t0 + 60_000]
    clock.now_ms += 1_000
    md = metadata(w, topics=["orders"])
    assert [p.partition_age_ms for p in md.topics[0].partitions] == [61_000, 61_000, 1_000]
    # v0 / v13 carry no KIP field: the decoder reports the default
    assert creation_times(w, "orders", version=0) == [-1, -1, -1]
    assert {p.partition_age_ms for p in metadata(w, 13, ["orders"]).topics[0].partitions} == {-1}


def test_one_request_stamps_its_partitions_alike(wire):
    """A clock that moves on every read: the partitions one request creates still share a stamp."""
    ticks = iter(range(1_700_000_000_000, 1_700_000_100_000))
    with EmbeddedCluster(clock=lambda: next(ticks)) as ec:
        ec.create_topic("t", partitions=2)
        ec.call(ec.cluster.create_partitions, "t", 5)
        first, _, third, fourth, fifth = creation_times(wire(ec), "t")
        assert creation_times(wire(ec), "t")[:2] == [first, first]
        assert third == fourth == fifth > first


def test_unknown_creation_time(broker1, wire):
    w = wire(broker1)
    broker1.create_topic("legacy", partitions=2, creation_time_ms=-1)
    assert creation_times(w, "legacy") == [-1, -1]
    assert [p.partition_age_ms for p in metadata(w, topics=["legacy"]).topics[0].partitions] \
        == [-1, -1]


def test_record_creation_times_off(clock, wire):
    with EmbeddedCluster(clock=clock, record_creation_times=False) as ec:
        ec.create_topic("old", partitions=1)
        assert creation_times(wire(ec), "old") == [-1]


def test_describe_topic_partitions_cursor(broker1, wire):
    w = wire(broker1)
    broker1.create_topic("a", partitions=3)
    broker1.create_topic("b", partitions=2)
    page1 = dtp(w, limit=2)
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in page1.topics] \
        == [("a", [0, 1])]
    assert (page1.next_cursor.topic_name, page1.next_cursor.partition_index) == ("a", 2)
    page2 = dtp(w, limit=2, cursor=("a", 2))
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in page2.topics] \
        == [("a", [2]), ("b", [0])]
    assert (page2.next_cursor.topic_name, page2.next_cursor.partition_index) == ("b", 1)
    page3 = dtp(w, limit=2, cursor=("b", 1))
    assert [p.partition_index for p in page3.topics[0].partitions] == [1]
    assert page3.next_cursor is None
    missing = dtp(w, ["nope"]).topics[0]
    assert missing.error_code == 3


# -- KIP-937 ----------------------------------------------------------------------------------

def test_timestamp_bounds_topic_level(broker1, wire, clock):
    w = wire(broker1)
    now = clock.now_ms
    broker1.create_topic("ts", configs={"message.timestamp.before.max.ms": "1000",
                                        "message.timestamp.after.max.ms": "500"})
    assert produce(w, "ts", batch([now - 1000, now, now + 500])).error_code == 0
    bad = produce(w, "ts", batch([now, now - 1001, now + 10, now + 501], codec=1))
    # Kafka 4.4's answer (tests/apache/test_produce_validation.py compares the two): every
    # record out of range is listed, the partition's message is the general one
    bounds = f"The timestamp should be within [{now - 1000}, {now + 500}]"
    assert bad.error_code == 32
    assert bad.error_message == "One or more records have been rejected due to invalid timestamp"
    assert [(e.batch_index, e.batch_index_error_message) for e in bad.record_errors] == [
        (1, f"Timestamp {now - 1001} of message with offset 1 is out of range. {bounds}"),
        (3, f"Timestamp {now + 501} of message with offset 3 is out of range. {bounds}")]
    assert produce(w, "ts", batch([now + 501])).error_code == 32
    # the whole batch was rejected: only the first batch's 3 records are in the log
    assert list_offset(w, "ts", -1)[1] == 3


def test_timestamp_bounds_broker_level_and_deprecated_fallback(clock, wire):
    """The fallback to difference.max.ms is a release's before 4.0: the broker poses as 2.8."""
    now = clock.now_ms
    with EmbeddedCluster(clock=clock, pose_as="2.8", configs={
            "log.message.timestamp.after.max.ms": "100",
            "log.message.timestamp.difference.max.ms": "2000"}) as ec:
        w = wire(ec)
        ec.create_topic("t")
        # after: broker bound 100; before: not set -> falls back to difference.max.ms 2000
        assert produce(w, "t", batch([now + 100, now - 2000])).error_code == 0
        r = produce(w, "t", batch([now + 101]))
        assert r.error_code == 32
        assert f"[{now - 2000}, {now + 100}]" in r.record_errors[0].batch_index_error_message
        assert produce(w, "t", batch([now - 2001])).error_code == 32
        # a topic override wins over the broker setting
        ec.create_topic("t2", configs={"message.timestamp.after.max.ms": "10000"})
        assert produce(w, "t2", batch([now + 5000])).error_code == 0


def test_log_append_time_skips_check_and_stamps_broker_time(broker1, wire, clock):
    w = wire(broker1)
    broker1.create_topic("lat", configs={"message.timestamp.type": "LogAppendTime",
                                         "message.timestamp.before.max.ms": "0"})
    r = produce(w, "lat", batch([1, 2, 3], codec=4))
    assert r.error_code == 0 and r.log_append_time_ms == clock.now_ms
    assert list_offset(w, "lat", -3) == (0, 0, clock.now_ms)


# -- KIP-734 ----------------------------------------------------------------------------------

def test_max_timestamp_and_lookup(broker1, wire):
    w = wire(broker1)
    broker1.create_topic("mt")
    assert list_offset(w, "mt", -3) == (0, -1, -1)            # empty partition
    produce(w, "mt", batch([100, 300, 200]))                   # offsets 0..2
    produce(w, "mt", batch([300, 50], codec=2))                # offsets 3..4 (tie at 300)
    produce(w, "mt", batch([250], codec=3))                    # offset 5
    assert list_offset(w, "mt", -3) == (0, 1, 300)             # earliest among equal maxima
    assert list_offset(w, "mt", -2)[1] == 0 and list_offset(w, "mt", -1)[1] == 6
    assert list_offset(w, "mt", 150) == (0, 1, 300)            # first offset with ts >= 150
    assert list_offset(w, "mt", 201) == (0, 1, 300)
    assert list_offset(w, "mt", 260, version=2) == (0, 1, 300)
    assert list_offset(w, "mt", 301) == (0, -1, -1)
    assert list_offset(w, "mt", -3, version=6)[0] == 35        # needs v7
    # DeleteRecords past the first maximum: the tie at offset 3 becomes the answer
    R = req(21, 2, topics=[], timeout_ms=5000)
    T = type(R).DeleteRecordsTopic
    R.topics = [T(name="mt", partitions=[T.DeleteRecordsPartition(partition_index=0, offset=2)])]
    assert w.send(R).topics[0].partitions[0].low_watermark == 2
    assert list_offset(w, "mt", -3) == (0, 3, 300)
    assert list_offset(w, "mt", 100) == (0, 2, 200)


def test_special_timestamps_need_their_versions(broker1, wire):
    """As Kafka's ReplicaManager: each special timestamp from its ListOffsets version on, any
    other negative timestamp is UNSUPPORTED_VERSION, and without tiered storage -5 and -6 have
    no offset (kafka-get-offsets --time -6 printed offset 0 as if -6 were a timestamp)."""
    w = wire(broker1)
    broker1.create_topic("special")
    produce(w, "special", batch([100, 200]))
    assert list_offset(w, "special", -4, version=7)[0] == 35      # earliest-local: v8
    assert list_offset(w, "special", -4, version=8) == (0, 0, -1)
    assert list_offset(w, "special", -5, version=8)[0] == 35      # latest-tiered: v9
    assert list_offset(w, "special", -5, version=9) == (0, -1, -1)
    assert list_offset(w, "special", -6, version=10)[0] == 35     # earliest-pending-upload: v11
    assert list_offset(w, "special", -6, version=11) == (0, -1, -1)
    assert list_offset(w, "special", -7, version=11)[0] == 35     # no such special timestamp


def test_kip_fields_survive_restart(tmp_path, wire):
    clock = Clock()
    t0 = clock.now_ms
    with EmbeddedCluster(data_dir=tmp_path, clock=clock) as ec:
        ec.create_topic("keep", partitions=2, configs={"message.timestamp.after.max.ms": "10"})
        ec.create_topic("unknown", creation_time_ms=-1)
        w = wire(ec)
        produce(w, "keep", batch([t0 - 5, t0 + 10, t0 - 1]), acks=-1)
        produce(w, "keep", batch([t0 + 10, t0]), acks=-1, partition=0)
        before = [list_offset(w, "keep", ts) for ts in (-3, -1, t0)]
        assert before[0] == (0, 1, t0 + 10)
    clock.now_ms += 5_000
    with EmbeddedCluster(data_dir=tmp_path, clock=clock) as ec:
        w = wire(ec)
        assert [list_offset(w, "keep", ts) for ts in (-3, -1, t0)] == before
        assert creation_times(w, "keep") == [t0, t0]
        assert creation_times(w, "unknown") == [-1]
        assert [p.partition_age_ms for p in metadata(w, topics=["keep"]).topics[0].partitions] \
            == [5_000, 5_000]
        r = produce(w, "keep", batch([clock.now_ms + 11]))
        assert r.error_code == 32                                 # the config survived too
        assert produce(w, "keep", batch([clock.now_ms])).base_offset == 5


def test_restart_in_pose_as_mode(tmp_path, wire, clock):
    with EmbeddedCluster(data_dir=tmp_path, clock=clock) as ec:
        ec.create_topic("p", partitions=1)
    with EmbeddedCluster(data_dir=tmp_path, clock=clock, pose_as="4.1") as ec:
        w = wire(ec)
        assert creation_times(w, "p", version=0) == [-1]           # not reported at v0
        assert ec.cluster.topics["p"].partitions[0].creation_time_ms == clock.now_ms
        md = metadata(w, version=13, topics=["p"])
        assert md.topics[0].partitions[0].partition_age_ms == -1


def test_metadata_by_topic_id_answers_with_the_id(broker1, wire):
    """Metadata v12+ asks by topic id (the Java admin client's describeTopics(TopicCollection.
    ofTopicIds), kafka-topics --describe --topic-id). The Java client leaves the name at its
    default, "", not null; the answer must carry the id (the Java client refuses a zero id)."""
    w = wire(broker1)
    broker1.create_topic("orders", partitions=1)
    topic_id = metadata(w, topics=["orders"]).topics[0].topic_id
    R = req(3, 12, topics=None, allow_auto_topic_creation=False, include_topic_authorized_operations=False)
    for name in (None, ""):
        R.topics = [type(R).MetadataRequestTopic(name=name, topic_id=topic_id)]
        answer = w.send(R).topics[0]
        assert (answer.error_code, answer.name, answer.topic_id) == (0, "orders", topic_id), name

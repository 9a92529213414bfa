"""The kcli-kafka data source against the embedded broker: exact ranges, splitting, columns."""

from __future__ import annotations

import json

import pytest

from tests.support.pipeline import NOW, admin, produce

pytestmark = pytest.mark.spark

TOPIC = "source-data"
# partition 0: 100 records, partition 1: 37, partition 2: none
P0 = [(0, NOW + (i * 7919) % 1000 - 500, None if i % 10 == 0 else b"k%d" % i, b"v" * i)
      for i in range(100)]
P1 = [(1, NOW + i, b"key", None if i % 3 == 0 else b"x") for i in range(37)]


@pytest.fixture(scope="module")
def data(broker):
    broker.create_topic(TOPIC, partitions=3)
    produce(broker.bootstrap_servers, TOPIC, P0 + P1)
    return broker.bootstrap_servers


def read(spark, bootstrap, **options):
    reader = spark.read.format("kcli-kafka").option("kafka.bootstrap.servers", bootstrap)
    return reader.options(**{"topics": TOPIC, **options}).load()


def expected_rows(records, partition):
    return [
        (TOPIC, partition, offset, ts, 0, -1 if key is None else len(key),
         -1 if value is None else len(value))
        for offset, (_, ts, key, value) in enumerate(records)
    ]


def test_split_into_many_tasks_returns_each_record_once(spark, data):
    df = read(spark, data, maxRecordsPerTask="7")
    assert df.rdd.getNumPartitions() == 15 + 6      # ceil(100/7) + ceil(37/7); none for p2
    rows = [tuple(r) for r in df.collect()]
    assert len(rows) == 137
    assert sorted(rows, key=lambda r: (r[1], r[2])) == (
        expected_rows(P0, 0) + expected_rows(P1, 1))


def test_key_and_value_only_on_request(spark, data):
    assert read(spark, data).columns == [
        "topic", "partition", "offset", "timestamp", "timestampType", "keySize", "valueSize"]
    df = read(spark, data, columns="offset,key,value", maxRecordsPerTask="10",
              startingOffsets=json.dumps({TOPIC: {"1": 0}}))
    assert df.columns == ["offset", "key", "value"]
    got = sorted(tuple(r) for r in df.collect())
    assert got == [(i, b"key", None if i % 3 == 0 else b"x") for i in range(37)]


def test_schema_given_by_the_caller_selects_columns(spark, data):
    df = (spark.read.format("kcli-kafka").schema("partition int, offset bigint")
          .option("kafka.bootstrap.servers", data).option("topics", TOPIC).load())
    assert sorted(tuple(r) for r in df.collect()) == (
        [(0, i) for i in range(100)] + [(1, i) for i in range(37)])


def test_offset_json_range(spark, data):
    df = read(spark, data, columns="partition,offset", maxRecordsPerTask="4",
              startingOffsets=json.dumps({TOPIC: {"0": 10, "1": -2}}),
              endingOffsets=json.dumps({TOPIC: {"0": 23, "1": 5}}))
    assert sorted(tuple(r) for r in df.collect()) == (
        [(0, i) for i in range(10, 23)] + [(1, i) for i in range(5)])


def test_timestamp_range(spark, data):
    def first_at(records, ts):
        return next((i for i, r in enumerate(records) if r[1] >= ts), len(records))

    df = read(spark, data, columns="partition,offset", startingTimestamp=str(NOW + 5),
              endingTimestamp=str(NOW + 9))
    expected = []
    for partition, records in ((0, P0), (1, P1)):
        start, end = first_at(records, NOW + 5), first_at(records, NOW + 9)
        expected += [(partition, i) for i in range(start, max(start, end))]
    assert (1, 5) in expected and (1, 9) not in expected
    assert sorted(tuple(r) for r in df.collect()) == expected


def test_start_after_delete_records(spark, broker):
    from confluent_kafka import TopicPartition

    topic = "source-deleted"
    broker.create_topic(topic, partitions=1)
    produce(broker.bootstrap_servers, topic, [(0, NOW + i, None, b"v") for i in range(30)])
    client = admin(broker.bootstrap_servers)   # kept alive until its futures complete
    for f in client.delete_records([TopicPartition(topic, 0, 12)]).values():
        assert f.result(timeout=30).low_watermark == 12
    df = (spark.read.format("kcli-kafka").option("kafka.bootstrap.servers", broker.bootstrap_servers)
          .option("topics", topic).option("columns", "offset").option("maxRecordsPerTask", "5")
          .load())
    assert sorted(r.offset for r in df.collect()) == list(range(12, 30))


def running_max_before(records):
    out, high = [], None
    for _, ts, _, _ in records:
        out.append(high)
        high = ts if high is None else max(high, ts)
    return out


def test_preceding_max_timestamp_reads_each_partition_in_one_task(spark, data):
    df = read(spark, data, columns="partition,offset,timestamp,precedingMaxTimestamp",
              maxRecordsPerTask="7")
    assert df.rdd.getNumPartitions() == 2           # p0 and p1 whole; nothing for empty p2
    got = sorted(tuple(r) for r in df.collect())
    assert got == [(partition, offset, r[1], before)
                   for partition, records in ((0, P0), (1, P1))
                   for offset, (r, before) in enumerate(zip(records, running_max_before(records)))]


def test_preceding_max_timestamp_carries_across_batches(data, monkeypatch):
    import pyarrow as pa

    from kcli.pipeline import source

    monkeypatch.setattr(source, "_CONSUME_BATCH", 5)  # many Arrow batches for one range
    monkeypatch.setattr(source, "_FLUSH_ROWS", 8)
    conf = source.scan_config({"bootstrap.servers": data})
    (rng,), _ = source.plan_ranges(conf, [], source.parse_bound(
        json.dumps({TOPIC: {"0": 3}}), None, "earliest", "starting"), source.Bound("latest"))
    columns = ["precedingMaxTimestamp"]
    batches = list(source.read_range(conf, rng, columns, pa.schema([("p", pa.int64())]), 30))
    assert len(batches) >= 5
    got = [v for b in batches for v in b.column(0).to_pylist()]
    assert got == running_max_before(P0[3:])


def test_reads_report_their_progress_to_the_driver():
    """The tasks' reports (``progressAddress``) as ReadProgress counts them: per range the highest
    count (a task retried from its start reports lower ones), summed over ranges and passes."""
    import time

    from kcli.pipeline.source import OffsetRange, _Reporter
    from kcli.pipeline.spark import ReadProgress

    reads = ReadProgress()
    try:
        first, second = reads.address_for(150), reads.address_for(100)
        assert reads.total == 250
        rng = OffsetRange(TOPIC, 0, 10, 110)
        for address, position in ((first, 60), (first, 40), (second, 110)):
            report = _Reporter(address, rng)
            report(position, final=True)
            report.close()
        _Reporter(first, OffsetRange(TOPIC, 1, 0, 50))(50, final=True)
        deadline = time.monotonic() + 10
        while reads.read != 50 + 100 + 50 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reads.read == 200
    finally:
        reads.close()


@pytest.mark.parametrize("columns", [["offset", "timestamp"],
                                     ["timestamp", "timestampType", "offset", "valueSize"]])
def test_columns_keep_offsets_with_gaps_and_stop_at_the_range_end(columns):
    """The columns of consecutive consume() batches (``_Columns``, pure code; real Message
    objects): offsets with a gap (a transaction marker, compaction) and without, the records at
    or past the range end dropped, every column the same after the int64 columns' buffers are
    wrapped as Arrow arrays, and again after a flush."""
    from confluent_kafka import Message

    from pyspark.sql.pandas.types import to_arrow_schema

    from kcli.pipeline.source import OffsetRange, _Columns, schema_for

    def msgs(offsets):
        return [Message(topic=TOPIC, partition=0, offset=o, timestamp=(1, NOW + 10 * o - o % 3),
                        value=b"v" * (o % 5)) for o in offsets]

    def expected(offsets):
        values = {"offset": offsets, "timestamp": [NOW + 10 * o - o % 3 for o in offsets],
                  "timestampType": [0] * len(offsets), "valueSize": [o % 5 for o in offsets]}
        return {c: values[c] for c in columns}

    out = _Columns(OffsetRange(TOPIC, 0, 3, 20), columns,
                   to_arrow_schema(schema_for(columns), timezone="UTC"))
    assert out.add(msgs([3, 4, 5])) == 6                  # no gap
    assert out.add(msgs([7, 8, 10])) == 11                # gaps (a marker at 6, 9)
    assert out.flush().to_pydict() == expected([3, 4, 5, 7, 8, 10])
    assert out.add(msgs([11, 12])) == 13
    assert out.add(msgs([18, 19, 20, 21])) == 20          # 20 and 21 are past the range end
    batch = out.flush()
    assert batch.to_pydict() == expected([11, 12, 18, 19])
    assert all(batch.column(c).type == "int64" for c in ("offset", "timestamp"))

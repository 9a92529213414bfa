"""``audit_timestamps`` against the embedded broker with crafted timestamps; every count and offset
is worked out by hand in the comments."""

from __future__ import annotations

import pytest

from kcli.pipeline.audit import audit_timestamps
from kcli.pipeline.result import AGREE, PARTIAL, parquet_row
from tests.support.pipeline import NOW, admin, produce

pytestmark = pytest.mark.spark

H = 3_600_000
TOPIC = "audit-data"
# partition 0, offsets 0..9; reference NOW, bounds 1h each side, target NOW+15
P0 = [0, 10, 5, 20, 20, -10, 2 * H, 30, -2 * H, 2 * H]
#       ooo 5      ooo 30  future  ooo   past    future (= max, later offset)
#  out of order: offsets 2, 5, 7, 8 (back 5, 30, 2h-30, 4h); max 2h first at offset 6
#  too old: offset 8; too new: offsets 6, 9
#  target NOW+15: first offset with ts >= NOW+15 is 3; replayed (offset >= 3, ts < NOW+15): 5, 8
P1 = [i * 1000 for i in range(20)]   # DeleteRecords before offset 6: offsets 6..19 remain
#  culprits (the fewest records whose removal leaves P0 in order: 10 - 6, a longest ordered
#  subsequence being 0, 5, 20, 20, 30, 2h, chosen from the end): offsets 1 (10 above offset 2's
#  5), 5 (-10, 30 below offset 4's 20), 6 (2h above offset 7's 30, too new), 8 (-2h, 2h+30
#  below offset 7)
P3 = [-100, 100, -50]                # the partition added by expansion; offset 2 out of order
#  culprit: offset 1 (150 above offset 2)
TARGET = NOW + 15


@pytest.fixture(scope="module")
def data(broker):
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import NewPartitions

    bootstrap = broker.bootstrap_servers
    broker.create_topic(TOPIC, partitions=3)
    produce(bootstrap, TOPIC, [(0, NOW + d, None, b"v") for d in P0]
            + [(1, NOW + d, b"k", b"v") for d in P1])
    client = admin(bootstrap)
    for f in client.delete_records([TopicPartition(TOPIC, 1, 6)]).values():
        assert f.result(timeout=30).low_watermark == 6
    for f in client.create_partitions([NewPartitions(TOPIC, 4)]).values():
        f.result(timeout=30)
    produce(bootstrap, TOPIC, [(3, NOW + d, None, None) for d in P3])
    return bootstrap


def audit(spark, bootstrap, topics=(TOPIC,), **kw):
    args = dict(before_max_ms=H, after_max_ms=H, reference_ms=NOW, target_ms=TARGET)
    args.update(kw)
    return audit_timestamps(spark, bootstrap, list(topics), **args, timeout_s=30)


def fields(p, *names):
    return tuple(getattr(p, n) for n in names)


def test_per_partition_and_total(spark, data):
    events = []
    result = audit(spark, data, progress=events.append)
    p0, p1, p2, p3 = result.partitions
    assert [(p.topic, p.partition) for p in result.partitions] == [(TOPIC, i) for i in range(4)]

    assert fields(p0, "start_offset", "end_offset", "log_start_offset", "log_end_offset",
                  "records") == (0, 10, 0, 10, 10)
    assert fields(p0, "min_timestamp", "max_timestamp", "max_timestamp_offset") == (
        NOW - 2 * H, NOW + 2 * H, 6)
    assert fields(p0, "before_max_ms", "after_max_ms", "too_old", "too_new") == (H, H, 1, 2)
    assert fields(p0, "out_of_order", "max_out_of_order_ms") == (4, 4 * H)
    assert p0.culprits == 4
    assert [(c.offset, c.timestamp, c.ahead_ms, c.too_new) for c in p0.first_culprits] == [
        (1, NOW + 10, 5, False), (5, NOW - 10, -30, False), (6, NOW + 2 * H, 2 * H - 30, True),
        (8, NOW - 2 * H, -2 * H - 30, False)]
    assert fields(p0, "target_offset", "data_target_offset", "replayed", "skipped") == (
        3, 3, 2, 0)
    assert fields(p0, "broker_max_timestamp", "broker_max_timestamp_offset") == (
        NOW + 2 * H, 6)
    assert (p0.max_timestamp_check, p0.target_check) == (AGREE, AGREE)

    assert fields(p1, "start_offset", "end_offset", "log_start_offset", "log_end_offset",
                  "records") == (6, 20, 6, 20, 14)
    assert fields(p1, "min_timestamp", "max_timestamp", "max_timestamp_offset") == (
        NOW + 6000, NOW + 19000, 19)
    assert fields(p1, "too_old", "too_new", "out_of_order", "max_out_of_order_ms") == (
        0, 0, 0, None)
    assert fields(p1, "target_offset", "data_target_offset", "replayed", "skipped") == (
        6, 6, 0, 0)
    assert (p1.max_timestamp_check, p1.target_check) == (AGREE, AGREE)

    assert fields(p2, "start_offset", "end_offset", "records", "min_timestamp",
                  "max_timestamp", "max_timestamp_offset", "out_of_order") == (
        0, 0, 0, None, None, None, 0)
    assert fields(p2, "target_offset", "data_target_offset", "replayed", "skipped") == (
        None, None, 0, 0)
    assert fields(p2, "broker_max_timestamp", "broker_max_timestamp_offset") == (None, None)
    assert (p2.max_timestamp_check, p2.target_check) == (AGREE, AGREE)

    assert fields(p3, "start_offset", "end_offset", "records", "min_timestamp",
                  "max_timestamp", "max_timestamp_offset") == (0, 3, 3, NOW - 100, NOW + 100, 1)
    assert fields(p3, "too_old", "too_new", "out_of_order", "max_out_of_order_ms") == (
        0, 0, 1, 150)
    assert [(c.offset, c.ahead_ms, c.too_new) for c in p3.first_culprits] == [(1, 150, False)]
    assert (p1.culprits, p2.culprits, p3.culprits) == (0, 0, 1)
    assert fields(p3, "target_offset", "data_target_offset", "replayed", "skipped") == (
        1, 1, 1, 0)
    assert (p3.max_timestamp_check, p3.target_check) == (AGREE, AGREE)

    t = result.total
    assert fields(t, "partitions", "records", "too_old", "too_new", "out_of_order",
                  "max_out_of_order_ms", "replayed", "skipped", "disagreements") == (
        4, 27, 1, 2, 5, 4 * H, 3, 0, 0)
    assert fields(t, "min_timestamp", "max_timestamp", "max_timestamp_topic",
                  "max_timestamp_partition", "max_timestamp_offset") == (
        NOW - 2 * H, NOW + 2 * H, TOPIC, 0, 6)
    assert t.culprits == 5
    assert [(c.topic, c.partition, c.offset) for c in t.first_culprits] == [
        (TOPIC, 0, o) for o in (1, 5, 6, 8)] + [(TOPIC, 3, 1)]

    assert events and events[-1].tasks_total > 0
    # the bar counts records: 27 read once, the culprits found in the same pass (no reread)
    assert events[-1].records_total == 27
    assert 0 < max(e.records_read for e in events) <= 27
    assert events[-1].tasks_done + events[-1].tasks_failed <= events[-1].tasks_total
    assert max(e.tasks_done for e in events) > 0


def test_partial_range_and_no_target(spark, data):
    result = audit(spark, data, from_={TOPIC: {0: 3}}, target_ms=None)
    assert [(p.partition, p.start_offset, p.end_offset, p.records) for p in result.partitions] \
        == [(0, 3, 10, 7)]
    p0 = result.partitions[0]
    # offsets 3..9: [20, 20, -10, 2h, 30, -2h, 2h]; the running max starts afresh at offset 3
    assert fields(p0, "out_of_order", "max_out_of_order_ms", "too_old", "too_new") == (
        3, 4 * H, 1, 2)
    # in order once offsets 5, 6 and 8 are removed (20, 20, 30, 2h kept)
    assert [c.offset for c in p0.first_culprits] == [5, 6, 8] and p0.culprits == 3
    assert p0.max_timestamp_check == PARTIAL
    assert fields(p0, "target_check", "target_offset", "replayed", "skipped") == (
        None, None, None, None)
    assert result.to_json_dict()["total"]["replayed"] is None


def test_bounds_default_to_the_topic_config_and_save(spark, broker, tmp_path):
    import pyarrow.parquet as pq

    topic = "audit-bounded"
    broker.create_topic(topic, partitions=1, configs={
        "message.timestamp.before.max.ms": str(H), "message.timestamp.after.max.ms": str(H)})
    produce(broker.bootstrap_servers, topic,
            [(0, NOW - H // 2, None, b"v"), (0, NOW, None, b"v"), (0, NOW + H // 2, None, b"v")])
    later = audit(spark, broker.bootstrap_servers, [topic], before_max_ms=None, after_max_ms=None,
                  reference_ms=NOW + 3 * H // 4, save_dir=str(tmp_path / "out"))
    (p,) = later.partitions
    # reference +45min: accepted [NOW-15min, NOW+105min]: NOW-30min is too old
    assert fields(p, "before_max_ms", "after_max_ms", "too_old", "too_new") == (H, H, 1, 0)
    earlier = audit(spark, broker.bootstrap_servers, [topic], before_max_ms=None,
                    after_max_ms=None, reference_ms=NOW - 3 * H // 4)
    # reference -45min: accepted [NOW-105min, NOW+15min]: NOW+30min is too new
    assert fields(earlier.partitions[0], "too_old", "too_new") == (0, 1)

    saved = pq.read_table(tmp_path / "out").to_pylist()
    assert saved == [parquet_row(p)]   # the JSON keys, times as epoch ms
    assert "startOffset" in saved[0] and "maxTimestampMs" in saved[0]


def test_several_topics_in_one_audit(spark, broker, data):
    other = "audit-other"
    broker.create_topic(other, partitions=2, configs={
        "message.timestamp.before.max.ms": str(H), "message.timestamp.after.max.ms": str(H)})
    produce(broker.bootstrap_servers, other,
            [(1, NOW - H // 2, None, b"v"), (1, NOW + H // 2, None, b"v"), (1, NOW, None, b"v")])
    reference = NOW + 3 * H // 4
    both = audit(spark, data, [TOPIC, other], before_max_ms=None, after_max_ms=None,
                 reference_ms=reference)
    alone = audit(spark, data, [TOPIC], before_max_ms=None, after_max_ms=None,
                  reference_ms=reference)
    assert both.partitions[:4] == alone.partitions
    assert [(p.topic, p.partition) for p in both.partitions[4:]] == [(other, 0), (other, 1)]
    o0, o1 = both.partitions[4:]
    assert fields(o0, "records", "out_of_order", "replayed", "skipped") == (0, 0, 0, 0)
    # TOPIC has no bounds; other's accepted window is [NOW - H/4, NOW + 7H/4]: NOW - H/2 is too old
    assert fields(o1, "before_max_ms", "after_max_ms", "too_old", "too_new") == (H, H, 1, 0)
    assert fields(o1, "records", "max_timestamp", "max_timestamp_offset", "out_of_order",
                  "max_out_of_order_ms") == (3, NOW + H // 2, 1, 1, H // 2)
    # target NOW+15: the broker answers offset 1; offset 2 (NOW) is replayed
    assert fields(o1, "target_offset", "data_target_offset", "replayed", "skipped") == (
        1, 1, 1, 0)
    assert (o1.max_timestamp_check, o1.target_check) == (AGREE, AGREE)
    assert fields(both.total, "partitions", "records", "too_old", "too_new", "out_of_order",
                  "replayed") == (6, 30, 1, 0, 6, 4)


MIN = 60_000


CULPRITS = "audit-culprits"


@pytest.fixture(scope="module")
def culprit_data(broker):
    broker.create_topic(CULPRITS, partitions=4)
    ahead = ([NOW + i * 1000 for i in range(10)] + [NOW + 30 * MIN] * 2
             + [NOW + 10_000 + i * 1000 for i in range(101)])
    past = [NOW, NOW + 1, NOW - 2 * H, NOW + 2]
    last = [NOW, NOW + 2 * H]
    pairs = [NOW + k * 100 + d for k in range(12) for d in (50, 0)]   # 12 culprits, 12 followers
    produce(broker.bootstrap_servers, CULPRITS,
            [(p, ts, None, b"v") for p, stamps in enumerate((ahead, past, last, pairs))
             for ts in stamps])
    return broker.bootstrap_servers


def test_culprits_are_named_apart_from_the_records_that_follow_them(spark, culprit_data):
    """2 records dated 30 minutes ahead and 101 in-order records after them report 2 culprits
    (both named) and 101 out of order; a record dated too far back is the culprit itself (it
    alone is out of order), a too-new last record in order is none; the list stops at 10 per
    partition and in the total, the count does not."""
    topic = CULPRITS
    result = audit(spark, culprit_data, [topic], target_ms=None)
    p0, p1, p2, p3 = result.partitions
    assert fields(p0, "records", "culprits", "out_of_order", "too_new") == (113, 2, 101, 0)
    assert [(c.offset, c.timestamp, c.ahead_ms, c.too_new) for c in p0.first_culprits] == [
        (10, NOW + 30 * MIN, 30 * MIN - 10_000, False), (11, NOW + 30 * MIN, 30 * MIN - 10_000, False)]
    assert fields(p1, "culprits", "out_of_order", "too_old") == (1, 1, 1)
    assert [(c.offset, c.ahead_ms, c.too_new) for c in p1.first_culprits] == [(2, -2 * H - 1, False)]
    assert fields(p2, "culprits", "out_of_order", "too_new", "first_culprits") == (0, 0, 1, [])
    assert fields(p3, "culprits", "out_of_order") == (12, 12)
    assert [(c.offset, c.ahead_ms) for c in p3.first_culprits] == [(o, 50) for o in range(0, 20, 2)]
    assert result.total.culprits == 15 and result.total.out_of_order == 114
    assert [(c.partition, c.offset) for c in result.total.first_culprits] == [
        (0, 10), (0, 11), (1, 2)] + [(3, o) for o in range(0, 14, 2)]
    doc = result.to_json_dict()
    assert doc["partitions"][0]["firstCulprits"][0] == {
        "topic": topic, "partition": 0, "offset": 10, "timestampMs": NOW + 30 * MIN,
        "timestamp": "2025-01-15T11:00:00.000Z", "aheadMs": 30 * MIN - 10_000, "tooNew": False}
    assert doc["total"]["culprits"] == 15 and len(doc["total"]["firstCulprits"]) == 10


@pytest.mark.parametrize("kw", [
    {},
    {"target_ms": None, "from_": {TOPIC: {0: 3, 1: 8}, CULPRITS: {0: 5, 3: 0}}},
    {"before_max_ms": None, "after_max_ms": None, "reference_ms": NOW + 3 * H // 4},
], ids=["target", "partial-ranges", "topic-bounds"])
def test_both_sources_give_identical_results(spark, data, culprit_data, kw):
    """Spark's own Kafka connector (the window-computed running maximum) and kcli's source give
    the same JSON, every count and offset, culprits included; only "source" differs."""
    from kcli.pipeline.spark import has_connector

    assert has_connector(spark), (
        "Spark's Kafka connector is not on the test session's classpath: run "
        "scripts/provision-spark-kafka.sh (scripts/test.sh does)")
    docs = {}
    for source in ("python", "jvm"):
        doc = audit(spark, data, [TOPIC, CULPRITS], source=source, **kw).to_json_dict()
        assert doc.pop("source") == source
        docs[source] = doc
    assert docs["jvm"] == docs["python"]
    assert docs["python"]["total"]["culprits"] > 0 and docs["python"]["total"]["records"] > 100


def test_a_failed_spark_job_is_one_line(spark):
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    from kcli.errors import OperationError
    from kcli.pipeline.audit import _spark_job

    class Reader(DataSourceReader):
        def partitions(self):
            return [InputPartition(0)]

        def read(self, partition):
            raise RuntimeError("reading t-0 from offset 5: Broker: Offset out of range")

    class Failing(DataSource):
        @classmethod
        def name(cls):
            return "kcli-test-failing"

        def schema(self):
            return "x long"

        def reader(self, schema):
            return Reader()

    spark.dataSource.register(Failing)
    with pytest.raises(OperationError) as failed:
        _spark_job(spark, lambda: spark.read.format("kcli-test-failing").load().collect(), None)
    assert str(failed.value) == (
        "Spark job failed: RuntimeError: reading t-0 from offset 5: Broker: Offset out of range")


ISSUE = "audit-late-records"


def test_the_fewest_records_out_of_order_are_the_culprits_in_both_sources(spark, broker):
    """The issue's case: 2 partitions of 1,000 records one second apart, every 100th dated an
    hour earlier: per partition 10 out of order and 10 culprits, the late records themselves
    (it was 941: every in-order record above a late one), the same through both sources."""
    broker.create_topic(ISSUE, partitions=2)
    stamps = [NOW + i * 1000 - (H if i % 100 == 99 else 0) for i in range(1000)]
    produce(broker.bootstrap_servers, ISSUE, [(p, ts, None, b"v") for p in (0, 1) for ts in stamps])
    docs = {}
    for source in ("python", "jvm"):
        result = audit(spark, broker.bootstrap_servers, [ISSUE], target_ms=None, source=source)
        assert [(p.records, p.out_of_order, p.culprits) for p in result.partitions] == [(1000, 10, 10)] * 2
        assert [(c.offset, c.ahead_ms) for c in result.partitions[0].first_culprits] == [
            (o, -H + 1000) for o in range(99, 1000, 100)]
        assert result.total.culprits == 20
        docs[source] = result.to_json_dict()
        docs[source].pop("source")
    assert docs["jvm"] == docs["python"]

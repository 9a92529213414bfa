"""The ``kcli-kafka`` Spark data source: batch reads of Kafka topics with confluent-kafka.

Register it with ``spark.dataSource.register(KafkaDataSource)`` (the audit reads with its reader
without it: a registration makes Spark look for Python data sources first, in a Python daemon of
its own, ~0.5 s), then::

    spark.read.format("kcli-kafka")
        .option("kafka.bootstrap.servers", "127.0.0.1:9092")
        .option("topics", "orders,payments")
        .load()

Options (names are case-insensitive):

``kafka.<property>``
    Passed to the confluent-kafka consumer as ``<property>``; ``kafka.bootstrap.servers`` is
    required. Security settings (``kafka.security.protocol``, ``kafka.sasl.*``, ...) go here. The
    values are never logged. ``enable.auto.commit`` is always false; no consumer group is joined
    (partitions are assigned, never subscribed), so ``group.id`` only names the client.
``topics``
    Comma-separated topic names. May be omitted when ``startingOffsets`` is JSON.
``startingOffsets``
    ``earliest`` (default), ``latest``, or JSON ``{"topic": {"0": 42, "1": -2}}`` (-2 earliest,
    -1 latest). A JSON start reads exactly the partitions it names.
``endingOffsets``
    ``latest`` (default), ``earliest``, or JSON as above (exclusive end; unnamed partitions end at
    latest).
``startingTimestamp`` / ``endingTimestamp``
    Epoch milliseconds: each partition starts (ends, exclusively) at the first offset whose
    timestamp is at or after it, as the broker's ListOffsets answers; latest when there is none.
    Exclusive with the matching ``...Offsets`` option.
    Offsets given explicitly are clamped into the partition's [log start, high watermark].
``columns``
    Comma-separated subset of the columns below (default: all but ``key`` and ``value``). A schema
    given with ``.schema(...)`` that names a subset of the columns works the same way. Only the
    requested columns are materialised.
``maxRecordsPerTask``
    Upper bound on the offsets one Spark task reads (default 1000000); each partition's range is
    split into consecutive tasks (not when ``precedingMaxTimestamp`` is requested).
``pollTimeoutMs``
    A task fails when it makes no progress for this long (default 120000).
``timeoutMs``
    Timeout for metadata and offset lookups while planning (default 30000).
``failOnDataLoss``
    ``true`` (default): a task whose start offset was deleted (retention, DeleteRecords) after
    planning fails. ``false``: it continues from the log start.
``progressAddress``
    ``host:port/tag``: every task reports the records it has read so far, a few times a second, in
    UDP datagrams to that address (``kcli.pipeline.spark.ReadProgress`` listens on the driver). A
    lost datagram only delays the count; sending never slows or fails a read.

Columns: ``topic`` string, ``partition`` int, ``offset`` bigint, ``timestamp`` bigint (epoch ms,
-1 when the record has none), ``timestampType`` int (0 CreateTime, 1 LogAppendTime, -1 none, as
Kafka's ``TimestampType``), ``keySize`` / ``valueSize`` int (-1 for null, as Kafka's
``serializedKeySize``), ``key`` / ``value`` binary, and ``precedingMaxTimestamp`` bigint: the
highest timestamp at the earlier offsets of the partition's read range (null for its first record).
Spark SQL can only compute that running maximum with a window, which shuffles and sorts every
record; the reader computes it in order, vectorized, and reads each partition's range in one task
when it is requested, so that it covers every earlier record.

Each task assigns its partition at its start offset with a group-less consumer and stops exactly
at its end offset: at the first record at or past the end, or at the partition end (which covers
ranges ending in a gap left by compaction, transaction markers or DeleteRecords).
"""

from __future__ import annotations

import logging
import time
from array import array
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Iterator, Mapping

from confluent_kafka import (
    OFFSET_INVALID,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    TopicPartition,
)
from kcli.pipeline.bounds import EARLIEST, LATEST, Bound, SourceOptionError, parse_bound
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import (
    BinaryType,
    DataType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

FORMAT = "kcli-kafka"

COLUMN_TYPES: dict[str, DataType] = {
    "topic": StringType(),
    "partition": IntegerType(),
    "offset": LongType(),
    "timestamp": LongType(),
    "timestampType": IntegerType(),
    "keySize": IntegerType(),
    "valueSize": IntegerType(),
    "key": BinaryType(),
    "value": BinaryType(),
    "precedingMaxTimestamp": LongType(),
}
DEFAULT_COLUMNS = ("topic", "partition", "offset", "timestamp", "timestampType", "keySize",
                   "valueSize")
_NULLABLE = {"key", "value", "precedingMaxTimestamp"}
_PRECEDING_MAX = "precedingMaxTimestamp"


# Settings a fast Python scan needs (see the perf notes); the user's kafka.* options override
# these, and _FORCED overrides the user. fetch.queue.backoff.ms: when a partition's local queue
# is full, librdkafka's default pauses its fetching for 1 s, and 0 has the broker thread check
# the queue again at once, over and over (a third of a reading worker's CPU); 10 ms lets the
# task drain ~15k of the queue's 100k records meanwhile (1M records: 0.98 -> 0.64 s of CPU).
_SCAN_DEFAULTS = {
    "group.id": "kcli-kafka-source",
    "fetch.queue.backoff.ms": 10,
    "fetch.wait.max.ms": 10,
    "isolation.level": "read_uncommitted",
}
_FORCED = {
    "enable.auto.commit": False,
    "enable.auto.offset.store": False,
    "enable.partition.eof": True,
}
# librdkafka's own log lines (a connection torn down at close...) stay off the driver's stderr,
# which carries only kcli's lines; what fails reaches the caller as an exception.
_QUIET = logging.getLogger("kcli.pipeline.librdkafka")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False
# a consume() of 500 Messages stays in the CPU's cache: 10,000 took ~30% more CPU per record
_CONSUME_BATCH = 500
_FLUSH_ROWS = 65_536
_POLL_S = 0.1
# librdkafka's timestamp type (0 none, 1 create, 2 log append) -> Kafka's TimestampType id.
_TS_TYPE = (-1, 0, 1)
# The per-record work is done by C-level map() over these rather than Python loops: a task's
# Python time is mostly spent here (see bench/audit_throughput.py).
_ERROR, _OFFSET, _TIMESTAMP, _KEY, _VALUE = (
    Message.error, Message.offset, Message.timestamp, Message.key, Message.value)
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


@dataclass(frozen=True)
class OffsetRange:
    """Offsets ``start`` (inclusive) to ``end`` (exclusive) of one Kafka partition."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def count(self) -> int:
        return max(0, self.end - self.start)


class RangePartition(InputPartition):
    """One Spark task: a slice of one Kafka partition."""

    def __init__(self, rng: OffsetRange) -> None:
        super().__init__(rng)
        self.range = rng


def client_config(options: Mapping[str, str]) -> dict[str, Any]:
    """The ``kafka.*`` options as client properties (prefix removed)."""
    conf = {k[len("kafka."):]: v for k, v in options.items() if k.lower().startswith("kafka.")}
    if not conf.get("bootstrap.servers"):
        raise SourceOptionError("option kafka.bootstrap.servers is required")
    return conf


def scan_config(conf: Mapping[str, Any], fail_on_data_loss: bool = True) -> dict[str, Any]:
    """Consumer properties for an assign-and-seek scan of exact offset ranges."""
    reset = {"auto.offset.reset": "error" if fail_on_data_loss else "earliest"}
    return {**_SCAN_DEFAULTS, **reset, **conf, **_FORCED}


def split_range(rng: OffsetRange, max_records: int) -> list[OffsetRange]:
    """Consecutive slices of at most ``max_records`` offsets covering ``rng`` exactly."""
    return [
        OffsetRange(rng.topic, rng.partition, s, min(s + max_records, rng.end))
        for s in range(rng.start, rng.end, max_records)
    ]


def plan_ranges(
    conf: Mapping[str, Any],
    topics: list[str],
    start: Bound,
    end: Bound,
    timeout_s: float = 30.0,
) -> tuple[list[OffsetRange], dict[tuple[str, int], tuple[int, int]]]:
    """Resolve ``start``/``end`` to one offset range per partition, sorted by topic, partition;
    and each partition's (log start, log end) offsets.

    ``topics`` may be empty when ``start`` names the partitions as offsets."""
    consumer = Consumer(scan_config(conf), logger=_QUIET)
    try:
        wanted = _partitions(consumer, topics, start, timeout_s)
        ranges, watermarks = [], {}
        for topic, partition in wanted:
            tp = TopicPartition(topic, partition)
            low, high = watermarks[(topic, partition)] = consumer.get_watermark_offsets(
                tp, timeout=timeout_s)
            first = _resolve(consumer, start, topic, partition, low, high, timeout_s)
            last = _resolve(consumer, end, topic, partition, low, high, timeout_s)
            ranges.append(OffsetRange(topic, partition, first, max(first, last)))
        return ranges, watermarks
    except KafkaException as e:
        raise RuntimeError(f"planning the Kafka read failed: {e.args[0].str()}") from None
    finally:
        consumer.close()


def _partitions(consumer, topics: list[str], start: Bound, timeout_s: float):
    if start.kind == "offsets":
        named = sorted(start.offsets or {})
        topics = sorted({t for t, _ in named})
    if not topics:
        raise SourceOptionError("option topics is required")
    found = []
    for topic in topics:
        meta = consumer.list_topics(topic, timeout=timeout_s).topics.get(topic)
        if meta is None or meta.error is not None:
            reason = meta.error.str() if meta is not None else "not found"
            raise SourceOptionError(f"topic {topic}: {reason}")
        found += [(topic, p) for p in sorted(meta.partitions)]
    if start.kind == "offsets":
        missing = [tp for tp in named if tp not in set(found)]
        if missing:
            raise SourceOptionError(f"partitions not found: {missing}")
        return named
    return found


def _resolve(consumer, bound: Bound, topic: str, partition: int, low: int, high: int,
             timeout_s: float) -> int:
    if bound.kind == "earliest":
        return low
    if bound.kind == "latest":
        return high
    if bound.kind == "timestamp":
        if bound.timestamp is None:
            raise ValueError("a timestamp bound without its timestamp")
        found = consumer.offsets_for_times(
            [TopicPartition(topic, partition, bound.timestamp)], timeout=timeout_s
        )[0]
        if found.error is not None:
            raise RuntimeError(f"offset lookup for {topic}-{partition}: {found.error.str()}")
        return high if found.offset < 0 else min(max(found.offset, low), high)
    offset = (bound.offsets or {}).get((topic, partition), LATEST)
    if offset == EARLIEST:
        return low
    if offset == LATEST:
        return high
    return min(max(offset, low), high)


def schema_for(columns: list[str]) -> StructType:
    return StructType(
        [StructField(c, COLUMN_TYPES[c], nullable=c in _NULLABLE) for c in columns]
    )


def _columns_option(options: Mapping[str, str]) -> list[str]:
    text = options.get("columns")
    if not text:
        return list(DEFAULT_COLUMNS)
    by_lower = {c.lower(): c for c in COLUMN_TYPES}
    cols = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in cols if c.lower() not in by_lower]
    if unknown or not cols:
        raise SourceOptionError(f"unknown columns {unknown}; known: {', '.join(COLUMN_TYPES)}")
    return [by_lower[c.lower()] for c in cols]


class KafkaDataSource(DataSource):
    """``spark.read.format("kcli-kafka")``: see the module documentation for the options."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> StructType:
        return schema_for(_columns_option(self.options))

    def reader(self, schema: StructType) -> "KafkaReader":
        return KafkaReader(self.options, schema)


class KafkaReader(DataSourceReader):
    """Plans offset ranges on the driver; reads one range per task on the executors.

    Holds only picklable option values, so it runs unchanged on a cluster."""

    def __init__(self, options: Mapping[str, str], schema: StructType) -> None:
        by_lower = {c.lower(): c for c in COLUMN_TYPES}
        unknown = [f.name for f in schema.fields if f.name.lower() not in by_lower]
        if unknown:
            raise SourceOptionError(f"unknown columns {unknown}; known: {', '.join(COLUMN_TYPES)}")
        self.schema = schema
        self.columns = [by_lower[f.name.lower()] for f in schema.fields]
        fail_on_data_loss = options.get("failOnDataLoss", "true").strip().lower() != "false"
        self.conf = scan_config(client_config(options), fail_on_data_loss)
        self.topics = [t.strip() for t in options.get("topics", "").split(",") if t.strip()]
        self.start = parse_bound(options.get("startingOffsets"), options.get("startingTimestamp"),
                                 "earliest", "starting")
        self.end = parse_bound(options.get("endingOffsets"), options.get("endingTimestamp"),
                               "latest", "ending")
        self.max_records = _positive_int(options, "maxRecordsPerTask", 1_000_000)
        self.poll_timeout_s = _positive_int(options, "pollTimeoutMs", 120_000) / 1000
        self.timeout_s = _positive_int(options, "timeoutMs", 30_000) / 1000
        self.progress = options.get("progressAddress") or None
        # a running maximum needs the whole range in order, in one task
        self.whole_ranges = _PRECEDING_MAX in self.columns

    def partitions(self) -> list[RangePartition]:
        ranges, _ = plan_ranges(self.conf, self.topics, self.start, self.end, self.timeout_s)
        if self.whole_ranges:
            return [RangePartition(r) for r in ranges if r.count]
        return [RangePartition(s) for r in ranges for s in split_range(r, self.max_records)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        from pyspark.sql.pandas.types import to_arrow_schema

        if not isinstance(partition, RangePartition):  # Spark's stand-in when nothing is planned
            return

        arrow_schema = to_arrow_schema(self.schema, timezone="UTC")
        yield from read_range(self.conf, partition.range, self.columns, arrow_schema,
                              self.poll_timeout_s, self.progress)


def _positive_int(options: Mapping[str, str], name: str, default: int) -> int:
    try:
        value = int(options.get(name, default))
    except ValueError:
        value = 0
    if value <= 0:
        raise SourceOptionError(f"option {name} must be a positive integer")
    return value


def read_range(conf: Mapping[str, Any], rng: OffsetRange, columns: list[str], arrow_schema,
               poll_timeout_s: float, progress: str | None = None) -> Iterator[Any]:
    """Arrow record batches of the requested columns for exactly the records in ``rng``; with
    ``progress`` (``host:port/tag``), the count read so far sent there (``_Reporter``)."""
    if rng.count == 0:
        return
    # librdkafka's own queued.min.messages (100000): a larger one (the whole range, up to 1M)
    # saved no CPU on a 250k-record scan and queued the range in each worker's memory
    consumer = Consumer(dict(conf))
    try:
        consumer.assign([_tp(rng, rng.start)])
        out = _Columns(rng, columns, arrow_schema)
        report = _Reporter(progress, rng)
        position = rng.start
        idle_deadline = time.monotonic() + poll_timeout_s
        while position < rng.end:
            msgs = consumer.consume(min(rng.end - position, _CONSUME_BATCH), timeout=_POLL_S)
            # events (partition end, errors) are rare: test for them without a Python-level loop
            records = [m for m in msgs if m.error() is None] if any(map(_ERROR, msgs)) else msgs
            if records:
                position = out.add(records)
                report(position)
                idle_deadline = time.monotonic() + poll_timeout_s
                if out.rows >= _FLUSH_ROWS:
                    yield out.flush()
            if len(records) < len(msgs):
                position = max(position, _check_events(msgs, rng, position))
            if not msgs and position < rng.end:
                # the consumer's position moves past control records (transaction markers)
                position = max(position, consumer.position([_tp(rng)])[0].offset)
                if position < rng.end and time.monotonic() > idle_deadline:
                    raise TimeoutError(
                        f"no progress reading {rng.topic}-{rng.partition} at offset {position} "
                        f"(range end {rng.end}) for {poll_timeout_s:g}s"
                    )
        if out.rows:
            yield out.flush()
        report(rng.end, final=True)
    finally:
        consumer.close()
        report.close()


class _Reporter:
    """Sends ``tag NUL topic NUL partition NUL start NUL records read`` to the driver's
    ``ReadProgress`` at most every ``_REPORT_S`` (and at the end); a no-op without an address."""

    def __init__(self, address: str | None, rng: OffsetRange) -> None:
        self.sock = None
        self.rng = rng
        self.last = 0.0
        if not address:
            return
        import socket

        hostport, _, tag = address.partition("/")
        host, _, port = hostport.rpartition(":")
        try:
            family, kind, proto, _, target = socket.getaddrinfo(
                host.strip("[]"), int(port), type=socket.SOCK_DGRAM)[0]
            self.sock = socket.socket(family, kind, proto)
            self.sock.setblocking(False)
        except (OSError, ValueError):
            return
        self.target = target
        self.prefix = f"{tag}\0{rng.topic}\0{rng.partition}\0{rng.start}\0"

    def __call__(self, position: int, final: bool = False) -> None:
        if self.sock is None:
            return
        now = time.monotonic()
        if final or now - self.last >= _REPORT_S:
            self.last = now
            try:
                self.sock.sendto((self.prefix + str(position - self.rng.start)).encode(), self.target)
            except OSError:
                pass

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


_REPORT_S = 0.2


def _tp(rng: OffsetRange, offset: int = OFFSET_INVALID) -> TopicPartition:
    return TopicPartition(rng.topic, rng.partition, offset)


def _check_events(msgs: list, rng: OffsetRange, position: int) -> int:
    """Raise on errors that end the read; return the range end when the partition end was reached
    at or beyond it (the range ends in a gap), else ``position``."""
    for m in msgs:
        err = m.error()
        if err is None:
            continue
        if err.code() == KafkaError._PARTITION_EOF:
            if m.offset() >= rng.end:
                position = rng.end
        elif err.fatal() or err.code() in _FAILING:
            raise RuntimeError(
                f"reading {rng.topic}-{rng.partition} from offset {position}: {err.str()}"
            )
    return position


_FAILING = frozenset({
    KafkaError._AUTO_OFFSET_RESET,
    KafkaError.OFFSET_OUT_OF_RANGE,
    KafkaError.UNKNOWN_TOPIC_OR_PART,
    KafkaError.TOPIC_AUTHORIZATION_FAILED,
    KafkaError._UNKNOWN_PARTITION,
    KafkaError._UNKNOWN_TOPIC,
})


class _Columns:
    """Accumulates the requested columns of consecutive records of one range.

    The 64-bit columns (``offset``, ``timestamp``) are filled into ``array.array('q')`` by
    C-level iteration and become Arrow arrays over their buffers, without a Python int list or a
    conversion per record (the scan's per-record Python cost: bench/audit_throughput.py)."""

    def __init__(self, rng: OffsetRange, columns: list[str], arrow_schema) -> None:
        self.rng = rng
        self.columns = columns
        self.types = {name: field.type for name, field in zip(columns, arrow_schema)}
        self.schema = arrow_schema
        self.rows = 0
        listed = set(columns) - {"topic", "partition", _PRECEDING_MAX}
        if _PRECEDING_MAX in columns:
            listed.add("timestamp")
            self.running_max = None  # of the timestamps flushed so far
        self.listed = listed
        self.data: dict[str, Any] = self._empty()

    def _empty(self) -> dict[str, Any]:
        return {c: array("q") if c in _INT64 else [] for c in self.listed}

    def add(self, records: list) -> int:
        """Keep the records before the range end; return the next offset to read."""
        if records[-1].offset() >= self.rng.end:
            records = [m for m in records if m.offset() < self.rng.end]
            next_offset = self.rng.end
        else:
            next_offset = records[-1].offset() + 1
        data = self.data
        if "offset" in data:
            first = records[0].offset() if records else 0
            last = records[-1].offset() if records else -1
            if last - first == len(records) - 1:
                data["offset"].extend(range(first, last + 1))  # no gap: no call per record
            else:
                data["offset"].extend(map(_OFFSET, records))
        if "timestampType" in data:
            stamps = list(map(_TIMESTAMP, records))  # (librdkafka type, ms) pairs
            data["timestampType"] += map(_TS_TYPE.__getitem__, map(_FIRST, stamps))
            if "timestamp" in data:
                data["timestamp"].extend(map(_SECOND, stamps))
        elif "timestamp" in data:
            data["timestamp"].extend(map(_SECOND, map(_TIMESTAMP, records)))
        for name, getter in (("key", _KEY), ("value", _VALUE)):
            size = f"{name}Size"
            if size in data or name in data:
                items = list(map(getter, records))
                if size in data:
                    data[size] += [-1 if x is None else len(x) for x in items]
                if name in data:
                    data[name] += items
        self.rows += len(records)
        return next_offset

    def flush(self):
        import pyarrow as pa

        built = {name: _int64_array(pa, values) if name in _INT64
                 else pa.array(values, self.types.get(name, pa.int64()))
                 for name, values in self.data.items()}
        for name in ("topic", "partition"):
            if name in self.types:
                value = getattr(self.rng, name)
                built[name] = pa.repeat(pa.scalar(value, self.types[name]), self.rows)
        if _PRECEDING_MAX in self.types:
            built[_PRECEDING_MAX] = self._preceding_max(built["timestamp"])
        self.data = self._empty()
        self.rows = 0
        return pa.RecordBatch.from_arrays([built[c] for c in self.columns], schema=self.schema)

    def _preceding_max(self, stamps):
        """Per record, the highest timestamp before it in the range (null for the first)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        head = pa.array([self.running_max], pa.int64())
        # the running maximum including each record, shifted by one: the carried maximum first
        running = pc.cumulative_max(stamps if self.running_max is None
                                    else pa.concat_arrays([head, stamps]))
        self.running_max = running[-1].as_py()
        if len(running) > len(stamps):
            return running.slice(0, len(stamps))
        return pa.concat_arrays([head, running.slice(0, len(stamps) - 1)])


_INT64 = frozenset({"offset", "timestamp"})


def _int64_array(pa, values: array):
    """An int64 Arrow array over the buffer of ``values`` (an ``array('q')``), not copied."""
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])

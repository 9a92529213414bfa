"""``kcli audit timestamps``: what timestamp-based operations will meet in a topic's data.

The broker is asked (confluent-kafka) for the partitions' offsets, the topics' KIP-937 bounds and
its ListOffsets answers. With kcli's source (``python``) one task per partition reads its range
once, in offset order, and counts it in the Python worker, culprits included
(``kcli.pipeline.scan``, a Spark job over the planned ranges): one row per partition reaches the
JVM. With Spark's Kafka connector (``jvm``) every count is a Spark SQL aggregation, the running
maximum a Spark SQL window per partition (``_aggregate``), the culprits each partition's records
sorted in one task (``_culprits``, with kcli's source's ``OrderedCulprits``); both
scale out with the Spark master, a task per partition. The result types and their JSON are in
``kcli.pipeline.result``.

pyspark is imported only when an audit runs.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from kcli import kip937
from kcli.admin.settings import java_client_properties
from kcli.errors import OperationError, UsageError
from kcli.pipeline.result import (
    AGREE,
    DISAGREE,
    PARTIAL,
    UNAVAILABLE,
    AuditResult,
    AuditTotal,
    Culprit,
    PartitionAudit,
)
from kcli.pipeline.spark import (Interrupted, ProgressHook, ReadProgress, check_java,
                                 check_master, check_pyspark, connector_jars, has_connector,
                                 run_with_progress, session, stop_after_interrupt)
from kcli.inputs import shown
from kcli.times import format_ms, parse_datetime_ms

LONG_MAX = kip937.LONG_MAX
PYTHON, JVM, AUTO = "python", "jvm", "auto"
SOURCES = (AUTO, PYTHON, JVM)
JVM_READER = "--source jvm (Spark's Kafka connector)"
LONG_MIN = -(2**63)

# A position in a topic: "earliest", "latest", a time (epoch ms as int, or text kcli.times reads),
# or offsets ({topic: {partition: offset}}, or that as JSON text).
Position = str | int | Mapping[str, Mapping[Any, int]]


@dataclass
class AuditOptions:
    """Everything ``kcli audit timestamps`` needs; the CLI fills it from its flags.

    ``target_ms`` is the reset target: ``--target`` parsed, or, for ``--group G``, the group's
    creation time from the admin adapter. ``reference_ms`` None means now."""

    bootstrap: str
    topics: list[str]
    from_: Position = "earliest"
    to: Position = "latest"
    before_max_ms: int | None = None
    after_max_ms: int | None = None
    reference_ms: int | None = None
    target_ms: int | None = None
    client_config: dict[str, str] = field(default_factory=dict)
    master: str = "local[*]"
    spark_conf: dict[str, str] = field(default_factory=dict)
    save_dir: str | None = None
    timeout_s: float = 30.0
    progress: ProgressHook | None = None
    admin: Any = None            # the adapter to use (kcli.admin.KafkaAdmin); default: one of its own
    log: str | None = None       # where Spark's console output goes (default: the process's stderr)
    source: str = "auto"         # "python", "jvm" or "auto" (SOURCES)
    jars: list[str] = field(default_factory=list)   # for spark.jars (default: connector_jars())


def run_audit(options: AuditOptions) -> AuditResult:
    """Check what can be checked before a JVM starts (pyspark, Java, the master, the topics) and
    ask the broker everything but the records, then start (or reuse) a Spark session on
    ``options.master``, its console output in ``options.log`` (when given), and audit. Ctrl-C
    (KeyboardInterrupt) cancels the jobs, stops Spark and its JVM, and raises ``Interrupted``."""
    try:
        return _run_audit(options)
    except KeyboardInterrupt:
        # Ctrl-C: one line and exit 130 (Interrupted), after Spark is stopped; a second Ctrl-C
        # does not cut the stop short
        main = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            stop_after_interrupt()
        finally:
            if main:
                signal.signal(signal.SIGINT, before)
        raise Interrupted("interrupted (Ctrl-C): the audit's Spark jobs were cancelled and its "
                          "JVM stopped") from None


def _run_audit(options: AuditOptions) -> AuditResult:
    deadline = time.monotonic() + options.timeout_s          # --timeout bounds reaching the master
    check_input(options.from_, options.to, options.save_dir, options.jars)
    if options.source not in SOURCES:
        raise UsageError(f"--source must be one of {', '.join(SOURCES)}, not {options.source!r}")
    if options.source == JVM:                  # what the connector cannot take: exit 2 first
        java_client_properties(options.client_config, JVM_READER, "--source python reads with them")
    check_pyspark()
    check_java()
    check_master(options.master, options.timeout_s)
    if options.admin is not None:
        known = set(options.admin.topic_names())
        missing = [t for t in options.topics if t not in known]
        if missing:
            raise OperationError(f"Topic {', '.join(repr(t) for t in missing)} does not exist")
    # Every broker request but the reads is made before the JVM starts, within --timeout.
    plan = _plan(options.bootstrap, options.topics, options.from_, options.to,
                 options.before_max_ms, options.after_max_ms, options.reference_ms,
                 options.target_ms, options.client_config, options.timeout_s, options.admin)
    conf = dict(options.spark_conf)
    jars = options.jars or (connector_jars() if options.source != PYTHON else [])
    if jars:
        conf["spark.jars"] = ",".join(filter(None, [conf.get("spark.jars"), *jars]))
    # the driver JVM runs no heavy code when Python workers read, or when executors elsewhere do
    quick_jit = not options.master.startswith("local") or not _may_use_connector(options.source, conf)
    spark = session(options.master, conf, log=options.log, deadline=deadline, quick_jit=quick_jit)
    plan.source = pick_source(spark, options.source, options.client_config)
    return _audit(spark, plan, options.progress, options.save_dir)


def pick_source(spark, source: str, client_config: Mapping[str, str] | None = None) -> str:
    """``python`` or ``jvm`` for ``source`` (``auto``: jvm when Spark's Kafka connector is on the
    session's classpath and takes every client property); ``jvm`` without the connector is one
    line."""
    if source == PYTHON:
        return PYTHON
    if source == AUTO:
        try:
            java_client_properties(dict(client_config or {}), JVM_READER)
        except UsageError:
            return PYTHON
    if has_connector(spark):
        return JVM
    if source == JVM:
        raise OperationError(
            "--source jvm: Spark's Kafka connector (spark-sql-kafka-0-10_2.13) is not on Spark's "
            "classpath: run scripts/provision-spark-kafka.sh, or give --jars or "
            "spark.jars.packages")
    return PYTHON


def _may_use_connector(source: str, conf: Mapping[str, str]) -> bool:
    """Before the JVM starts: whether ``pick_source`` may pick Spark's Kafka connector, i.e. the
    source is ``jvm``, or ``auto`` with jars or packages for Spark's classpath (the audit's
    configuration, PYSPARK_SUBMIT_ARGS) or a Kafka jar in the user's SPARK_HOME."""
    if source != AUTO:
        return source == JVM
    if conf.get("spark.jars") or conf.get("spark.jars.packages"):
        return True
    if any(flag in os.environ.get("PYSPARK_SUBMIT_ARGS", "") for flag in ("--jars", "--packages")):
        return True
    home = os.environ.get("SPARK_HOME")
    jars = os.path.join(home, "jars") if home else ""
    return bool(jars) and os.path.isdir(jars) and any("kafka" in name for name in os.listdir(jars))


def audit_timestamps(
    spark,
    bootstrap: str,
    topics: list[str],
    from_: Position = "earliest",
    to: Position = "latest",
    before_max_ms: int | None = None,
    after_max_ms: int | None = None,
    reference_ms: int | None = None,
    target_ms: int | None = None,
    client_config: Mapping[str, str] | None = None,
    *,
    progress: ProgressHook | None = None,
    save_dir: str | None = None,
    timeout_s: float = 30.0,
    admin=None,
    source: str = "python",
) -> AuditResult:
    """Audit the records of ``topics`` in [from_, to) on ``spark`` (see the module docstring).
    ``admin``: the adapter (``kcli.admin``) asked for the topics' configs and the broker's
    ListOffsets answers; by default one made from ``bootstrap``, ``client_config`` and
    ``timeout_s``. ``source``: ``python`` (kcli's data source), ``jvm`` (Spark's Kafka connector)
    or ``auto`` (``pick_source``). ``timeout_s`` also bounds how long a read waits for records that the broker
    reported and does not deliver."""
    plan = _plan(bootstrap, topics, from_, to, before_max_ms, after_max_ms, reference_ms,
                 target_ms, client_config, timeout_s, admin)
    plan.source = pick_source(spark, source, client_config)
    return _audit(spark, plan, progress, save_dir)


@dataclass
class _Plan:
    """What the broker said before any record is read."""

    conf: dict[str, str]
    topics: list[str]
    parts: list[PartitionAudit]
    reference_ms: int
    target_ms: int | None
    broker_max: dict
    broker_target: dict
    timeout_s: float
    source: str = "python"       # which data source reads the records: PYTHON or JVM


def _plan(bootstrap, topics, from_, to, before_max_ms, after_max_ms, reference_ms, target_ms,
          client_config, timeout_s, admin) -> _Plan:
    """The ranges to read, the KIP-937 bounds and the broker's ListOffsets answers."""
    from kcli.pipeline.bounds import SourceOptionError
    from kcli.pipeline.source import plan_ranges

    if not topics:
        raise UsageError("at least one topic is required")
    # the records a read_committed consumer reads: transaction markers and aborted records are
    # not counted (an ``isolation.level`` in the client config overrides it)
    conf = {"isolation.level": "read_committed", **(client_config or {}), "bootstrap.servers": bootstrap}
    reference_ms = int(time.time() * 1000) if reference_ms is None else reference_ms
    try:
        ranges, watermarks = plan_ranges(conf, list(topics), _bound(from_), _bound(to), timeout_s)
    except SourceOptionError as e:
        raise UsageError(str(e)) from None
    except RuntimeError as e:
        raise OperationError(str(e)) from None
    own = admin is None
    if own:
        from kcli.admin.client import KafkaAdmin
        from kcli.admin.settings import ClientSettings

        admin = KafkaAdmin(ClientSettings(bootstrap, dict(client_config or {}), int(timeout_s * 1000)))
    try:
        bounds = _bounds(admin, topics, before_max_ms, after_max_ms)
        broker_max, broker_target = _broker_answers(admin, ranges, target_ms)
    finally:
        if own:
            admin.close()

    parts = [
        PartitionAudit(
            topic=r.topic, partition=r.partition, start_offset=r.start, end_offset=r.end,
            log_start_offset=watermarks[(r.topic, r.partition)][0],
            log_end_offset=watermarks[(r.topic, r.partition)][1],
            before_max_ms=bounds[r.topic][0], after_max_ms=bounds[r.topic][1],
        )
        for r in ranges
    ]
    return _Plan(conf, list(topics), parts, reference_ms, target_ms, broker_max, broker_target,
                 timeout_s)


def _audit(spark, plan: _Plan, progress: ProgressHook | None, save_dir: str | None) -> AuditResult:
    # with a progress hook, the reads report the records they have read (ReadProgress)
    reads = ReadProgress(spark.conf.get("spark.driver.host", "127.0.0.1")) if progress else None
    try:
        stats = _spark_job(spark, lambda: _aggregate(spark, plan, reads), progress, reads)
    finally:
        if reads is not None:
            reads.close()
    for p in plan.parts:
        _fill(p, stats.get((p.topic, p.partition)), plan.target_ms, plan.broker_max,
              plan.broker_target)
    result = AuditResult(plan.topics, plan.reference_ms, plan.target_ms, plan.parts,
                         AuditTotal.of(plan.parts, plan.target_ms is not None), plan.source)
    if save_dir:
        _spark_job(spark, lambda: save_partitions(spark, result, save_dir), None)
    return result


def _spark_job(spark, action, progress: ProgressHook | None, reads: ReadProgress | None = None):
    """``run_with_progress``; a failed Spark job becomes one line: the Python error that ended it
    (a worker's traceback is in Spark's message), else the message's first line."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        return run_with_progress(spark, action, progress, reads=reads)
    except (PySparkException, Py4JJavaError) as e:
        reason, error_class = worker_error_from_spark_text(str(e) or type(e).__name__)
        if error_class == "ModuleNotFoundError":
            python = os.environ.get("PYSPARK_PYTHON", "python3")
            reason += (f" (Spark's Python workers run {python}: on a cluster, every executor "
                       "needs kcli[spark] for that interpreter)")
        raise OperationError(f"Spark job failed: {reason}") from None


def worker_error_from_spark_text(message: str) -> tuple[str, str | None]:
    """The one place kcli reads a foreign library's error text: Spark reports a failed Python
    worker only as text (the Java exception's message carries the worker's traceback; the
    Python exception object never reaches the driver, and the failure can come before any kcli
    code runs there: kcli not importable by the executors' Python). Returns the last Python
    traceback's exception line (else the message's first line) and that exception's class name
    (``ModuleNotFoundError``; None when there is no traceback)."""
    lines = message.strip().splitlines() or [message]
    reason, error_class, in_traceback = lines[0], None, False
    for line in lines:
        if line.endswith("Traceback (most recent call last):"):
            in_traceback = True
        elif in_traceback and line and not line[0].isspace():
            reason, in_traceback = line, False
            error_class = line.split(":", 1)[0].strip().rpartition(".")[2]
    return reason, error_class


def check_input(from_: Position, to: Position, save_dir: str | None, jars: list[str]) -> None:
    """What an audit refuses before any request, JVM or Spark (exit 2): a ``--from`` or ``--to``
    that cannot be read (JSON included: an offset from 0 to int64, or -2/-1), ``--from`` after
    ``--to`` where both say so (offsets of the same partition, or two times), a ``--save``
    directory that exists (the results would be written only after the whole scan), a ``--jars``
    file that does not exist."""
    start, end = _bound(from_), _bound(to)
    if start.kind == end.kind == "timestamp" and start.timestamp > end.timestamp:
        raise UsageError(f"--from ({format_ms(start.timestamp)}) is after --to ({format_ms(end.timestamp)})")
    if start.kind == end.kind == "offsets":
        for tp in sorted(start.offsets.keys() & end.offsets.keys()):
            first, last = start.offsets[tp], end.offsets[tp]
            if first >= 0 and last >= 0 and first > last:
                raise UsageError(f"--from offset {first} of {tp[0]}-{tp[1]} is after --to's {last}")
    if save_dir is not None and os.path.lexists(save_dir):
        raise UsageError(f"--save '{shown(save_dir, 200)}' exists: the audit writes a new directory")
    for jar in jars:
        path = jar[len("file:"):] if jar.startswith("file:") else jar
        if "://" not in jar and not jar.startswith("local:") and not os.path.isfile(path):
            raise UsageError(f"--jars: no such file '{shown(jar, 200)}'")


def _bound(position: Position):
    from kcli.pipeline.bounds import Bound, SourceOptionError, parse_bound

    if isinstance(position, int):
        return Bound("timestamp", timestamp=position)
    if isinstance(position, Mapping):
        position = json.dumps({t: {str(p): o for p, o in ps.items()} for t, ps in position.items()})
    text = position.strip()
    try:
        if text.lower() in ("earliest", "latest") or text.startswith("{"):
            return parse_bound(text, None, "earliest", "from/to ")
        return Bound("timestamp", timestamp=parse_datetime_ms(text))
    except (SourceOptionError, ValueError) as e:
        raise UsageError(f"bad position {text!r}: {e}") from None


def _bounds(admin, topics, before_max_ms, after_max_ms):
    """Per topic (before, after) in ms, None = no limit; explicit values win over the topic's
    (KIP-937's rule: ``kcli.kip937``)."""
    configured: dict[str, dict] = {t: {} for t in topics}
    if before_max_ms is None or after_max_ms is None:
        for rc in admin.describe_configs([("topic", t) for t in topics]):
            configured[rc.name] = {e.name: e for e in rc.entries}

    def pick(explicit, entries, key):
        if explicit is not None:
            return explicit
        value = kip937.effective_bound(entries, key)
        return None if value >= kip937.LONG_MAX else value

    return {t: (pick(before_max_ms, configured[t], kip937.BEFORE),
                pick(after_max_ms, configured[t], kip937.AFTER)) for t in topics}


def _broker_answers(admin, ranges, target_ms):
    """ListOffsets max-timestamp (KIP-734) and, with a target, the target lookup, per partition:
    (offset, timestamp) with -1 as None, or "unavailable" when the broker did not answer."""
    partitions = [(r.topic, r.partition) for r in ranges]

    def ask(time):
        if not partitions:
            return {}
        return {(o.topic, o.partition): UNAVAILABLE if o.error is not None else (
                    None if o.offset < 0 else o.offset,
                    None if o.timestamp_ms is None or o.timestamp_ms < 0 else o.timestamp_ms)
                for o in admin.list_offsets(partitions, time)}

    broker_max = ask(-3)
    broker_target = ask(target_ms) if target_ms is not None else {}
    return broker_max, broker_target


def _records(spark, plan: _Plan, parts: list[PartitionAudit], preceding_max: bool):
    """The records of ``parts``' ranges through Spark's Kafka connector as a DataFrame (the
    partition, and the topic when there are several, then offset, timestamp and, when asked,
    precedingMaxTimestamp); its key columns; the topics. (kcli's source counts in its worker
    instead: ``_scan``.)"""
    start, end = _offsets(parts)
    topics = sorted({p.topic for p in parts})
    # with one topic the partition alone is the key: no string to carry and hash per record
    keys = ["partition"] if len(topics) == 1 else ["topic", "partition"]
    return _jvm_records(spark, plan, start, end, keys, preceding_max), keys, topics


def _offsets(parts: list[PartitionAudit]) -> tuple[dict, dict]:
    """The ranges of ``parts`` as ``startingOffsets`` and ``endingOffsets`` ({topic: {"p": o}})."""
    start: dict[str, dict[str, int]] = {p.topic: {} for p in parts}
    end: dict[str, dict[str, int]] = {p.topic: {} for p in parts}
    for p in parts:
        start[p.topic][str(p.partition)] = p.start_offset
        end[p.topic][str(p.partition)] = p.end_offset
    return start, end


def _jvm_records(spark, plan: _Plan, start: dict, end: dict, keys: list[str], preceding_max: bool):
    """The same columns through Spark's own Kafka connector (the ``kafka`` format): timestamps
    back to epoch ms, and precedingMaxTimestamp as a window per partition in offset order (Spark
    SQL's own running maximum; no Python in the read)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    assign = {topic: sorted(int(p) for p in parts) for topic, parts in start.items()}
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", plan.conf["bootstrap.servers"])
    for key, value in java_client_properties(plan.conf, JVM_READER).items():
        reader = reader.option(f"kafka.{key}", value)  # isolation.level: read_committed, as the source's
    df = (reader
          .option("assign", json.dumps(assign))
          .option("startingOffsets", json.dumps(start))
          .option("endingOffsets", json.dumps(end))
          .option("kafkaConsumer.pollTimeoutMs", str(int(plan.timeout_s * 1000)))
          .load()
          .select(*keys, F.col("offset"), F.unix_millis(F.col("timestamp")).alias("timestamp")))
    if preceding_max:
        earlier = (Window.partitionBy(*keys).orderBy("offset")
                   .rowsBetween(Window.unboundedPreceding, -1))
        df = df.withColumn("precedingMaxTimestamp", F.max("timestamp").over(earlier))
    return df


def _keyed(rows, keys: list[str], topics: list[str]) -> dict[tuple[str, int], Any]:
    return {(r["topic"] if len(keys) > 1 else topics[0], r["partition"]): r for r in rows}


def _bounds_columns(F, plan: _Plan, parts: list[PartitionAudit]) -> list:
    """Per record, the lowest and highest accepted timestamp and the reset offset of its
    partition: literal expressions, not a joined table (no extra job to build and broadcast
    one)."""
    return _by_partition(F, _limits(plan, parts))


def _limits(plan: _Plan, parts: list[PartitionAudit]) -> dict[tuple[str, int], tuple[int, int, int]]:
    """Per (topic, partition): the lowest and highest accepted timestamp and the reset offset."""
    return {(p.topic, p.partition): (*_window(plan.reference_ms, p.before_max_ms, p.after_max_ms),
                                     _reset_offset(p, plan.broker_target))
            for p in parts}


def _aggregate(spark, plan: _Plan, reads: ReadProgress | None = None) -> dict[tuple[str, int], Any]:
    """Per partition, every count of the audit, as dicts keyed by (topic, partition): with kcli's
    source in one pass (``_scan``); with the connector in one Spark query, then, for the
    partitions with out-of-order or too-new records, the culprits (``_culprits``) under
    ``culprits`` and ``culprit_rows`` in the same dict entry.

    The connector's records get the highest timestamp before them (``precedingMaxTimestamp``)
    from a window per partition in offset order; everything else is a hash aggregation."""
    from pyspark.sql import functions as F

    target_ms = plan.target_ms
    scanned = [p for p in plan.parts if p.end_offset > p.start_offset]
    if not scanned:
        return {}
    if plan.source == PYTHON:
        return _scan(spark, plan, scanned, reads)
    df, keys, topics = _records(spark, plan, scanned, True)
    lower, upper, reset = _bounds_columns(F, plan, scanned)
    ts, off, before = F.col("timestamp"), F.col("offset"), F.col("precedingMaxTimestamp")
    late = ts < before
    aggs = [
        F.count(F.lit(1)).alias("records"),
        F.min(ts).alias("min_ts"),
        F.max(ts).alias("max_ts"),
        # the last record above every earlier one holds the maximum at its earliest offset
        F.max(F.when(before.isNull() | (ts > before), off)).alias("max_ts_offset"),
        F.count_if(ts < lower).alias("too_old"),
        F.count_if(ts > upper).alias("too_new"),
        F.count_if(late).alias("out_of_order"),
        F.max(F.when(late, before - ts)).alias("max_back"),
    ]
    if target_ms is not None:
        target = F.lit(target_ms)
        aggs += [
            F.count_if((off >= reset) & (ts < target)).alias("replayed"),
            F.count_if((off < reset) & (ts >= target)).alias("skipped"),
            F.min(F.when(ts >= target, off)).alias("data_target_offset"),
            # where a consumer reset to the broker's answer reads from (a marker or an aborted
            # record there is not read)
            F.min(F.when(off >= reset, off)).alias("read_from"),
        ]
    stats = {k: r.asDict() for k, r in _keyed(df.groupBy(*keys).agg(*aggs).collect(), keys, topics).items()}
    suspect = [p for p in scanned if (row := stats.get((p.topic, p.partition))) and row["out_of_order"]]
    if suspect:
        for key, row in _culprits(spark, plan, suspect).items():
            stats[key].update(culprits=row["culprits"], culprit_rows=row["first"])
    return stats


def _scan(spark, plan: _Plan, parts: list[PartitionAudit],
          reads: ReadProgress | None = None) -> dict[tuple[str, int], Any]:
    """``_aggregate``'s rows, culprits included, through kcli's source: each task reads its
    partition's range once and counts it in the Python worker (``kcli.pipeline.scan``), which
    ships one row per range instead of every record."""
    from kcli.pipeline.scan import scan_ranges
    from kcli.pipeline.source import OffsetRange

    limits = _limits(plan, parts)
    ranges = [(OffsetRange(p.topic, p.partition, p.start_offset, p.end_offset),
               list(limits[(p.topic, p.partition)])) for p in parts]
    progress = reads.address_for(sum(p.end_offset - p.start_offset for p in parts)) if reads else None
    rows = scan_ranges(spark, plan.conf, ranges, plan.target_ms, plan.timeout_s, progress)
    return {(row["topic"], row["partition"]): row for row in rows}


def _culprits(spark, plan: _Plan, parts: list[PartitionAudit]) -> dict[tuple[str, int], Any]:
    """The culprits of ``parts`` (``kcli.pipeline.result``): per partition their count and the
    first ``CULPRIT_LIMIT`` by offset (offset, timestamp, how far out of order, too new), as
    dicts keyed by (topic, partition).

    The culprits are the records outside a longest non-decreasing subsequence of the range's
    timestamps, which no window or aggregation of Spark SQL computes: the records of each
    partition are brought together in one task (a shuffle by partition, one task per
    partition asked), sorted by offset there (Spark's sort, which spills to disk, not memory),
    and fed to the same ``OrderedCulprits`` as kcli's source's, one partition at a time. Run only
    for the partitions with records out of order (no other has a culprit); it rereads just
    those."""
    df, keys, topics = _records(spark, plan, parts, False)
    uppers = {key: limits[1] for key, limits in _limits(plan, parts).items()}
    task = functools.partial(_culprits_task, len(keys) > 1, topics[0], uppers)
    rows = (df.select(*keys, "offset", "timestamp").repartition(len(parts), *keys)
            .sortWithinPartitions(*keys, "offset").rdd.mapPartitions(task).collect())
    from kcli.pipeline.scan import CULPRIT_FIELDS

    return {(topic, partition): {"culprits": count, "first": [dict(zip(CULPRIT_FIELDS, c)) for c in first]}
            for topic, partition, count, first in rows}


def _culprits_task(has_topic: bool, topic: str, uppers: dict, rows) -> Iterator[tuple]:
    """One task's records, sorted by (topic,) partition and offset: each partition's culprits
    (``OrderedCulprits``), fed in slices of 4096 records."""
    from kcli.pipeline.scan import OrderedCulprits

    key: tuple[str, int] | None = None
    order = OrderedCulprits()
    offsets: list[int] = []
    stamps: list[int] = []

    def done(key: tuple[str, int]) -> tuple:
        order.add(offsets, stamps)
        offsets.clear()
        stamps.clear()
        return (*key, *order.result(uppers[key]))

    for row in rows:
        here = (row["topic"] if has_topic else topic, row["partition"])
        if here != key:
            if key is not None:
                yield done(key)
            key, order = here, OrderedCulprits()
        offsets.append(row["offset"])
        stamps.append(row["timestamp"])
        if len(stamps) >= 4096:
            order.add(offsets, stamps)
            offsets.clear()
            stamps.clear()
    if key is not None:
        yield done(key)


def _by_partition(F, values: Mapping[tuple[str, int], tuple[int, ...]]) -> list:
    """Per position in the tuples, a column with the value for the row's (topic, partition): a
    literal array indexed by partition, chosen by topic when there are several."""
    topics = sorted({topic for topic, _ in values})
    columns = []
    for i in range(len(next(iter(values.values())))):
        column = None
        for topic in topics:
            mine = {partition: v[i] for (t, partition), v in values.items() if t == topic}
            array = F.lit([mine.get(n) for n in range(max(mine) + 1)]).cast("array<bigint>")
            here = F.element_at(array, F.col("partition") + 1)
            column = here if column is None else (
                F.when(F.col("topic") == topic, here).otherwise(column))
        columns.append(column)
    return columns


def _window(reference_ms: int, before: int | None, after: int | None) -> tuple[int, int]:
    """The accepted timestamps [lower, upper] around the reference, clamped to 64 bits."""
    lower = LONG_MIN if before is None else max(LONG_MIN, reference_ms - before)
    upper = LONG_MAX if after is None else min(LONG_MAX, reference_ms + after)
    return lower, upper


def _reset_offset(p: PartitionAudit, broker_target) -> int:
    """Where a reset to the target puts the partition: the broker's answer, else its log end."""
    answer = broker_target.get((p.topic, p.partition))
    if isinstance(answer, tuple) and answer[0] is not None:
        return answer[0]
    return p.log_end_offset


def _fill(p: PartitionAudit, row, target_ms, broker_max, broker_target) -> None:
    if row is not None:
        p.records = row["records"]
        p.min_timestamp = row["min_ts"]
        p.max_timestamp, p.max_timestamp_offset = row["max_ts"], row["max_ts_offset"]
        p.too_old, p.too_new = row["too_old"], row["too_new"]
        p.out_of_order, p.max_out_of_order_ms = row["out_of_order"], row["max_back"]
        p.culprits = row.get("culprits", 0)
        p.first_culprits = [Culprit(p.topic, p.partition, c["offset"], c["timestamp"], c["ahead_ms"],
                                    c["too_new"])
                            for c in sorted(row.get("culprit_rows", ()), key=lambda c: c["offset"])]
    full = p.start_offset <= p.log_start_offset and p.end_offset >= p.log_end_offset
    answer = broker_max.get((p.topic, p.partition), UNAVAILABLE)
    if answer == UNAVAILABLE:
        p.max_timestamp_check = UNAVAILABLE
    else:
        p.broker_max_timestamp_offset, p.broker_max_timestamp = answer
        if not full:
            p.max_timestamp_check = PARTIAL
        else:
            agree = answer == (p.max_timestamp_offset, p.max_timestamp)
            p.max_timestamp_check = AGREE if agree else DISAGREE
    if target_ms is None:
        return
    p.replayed = row["replayed"] if row is not None else 0
    p.skipped = row["skipped"] if row is not None else 0
    p.data_target_offset = row["data_target_offset"] if row is not None else None
    answer = broker_target.get((p.topic, p.partition), UNAVAILABLE)
    if answer == UNAVAILABLE:
        p.target_check = UNAVAILABLE
        return
    p.target_offset = answer[0]
    if p.start_offset > p.log_start_offset:
        p.target_check = PARTIAL
    else:
        # the broker's answer agrees when a consumer reset there reads first the first record at
        # or after the target (none when no record is): it may name a transaction marker or an
        # aborted record before it
        read_from = row["read_from"] if row is not None else None
        p.target_check = AGREE if read_from == p.data_target_offset else DISAGREE


def save_partitions(spark, result: AuditResult, directory: str) -> None:
    """Write the per-partition results as Parquet, columns named as the JSON keys (times as the
    epoch-ms keys). Fails if ``directory`` exists."""
    from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

    from kcli.pipeline.result import parquet_row

    rows = [parquet_row(p) for p in result.partitions]
    names = list(parquet_row(PartitionAudit("", 0, 0, 0, 0, 0)))
    texts = {"topic", "maxTimestampCheck", "targetCheck"}
    schema = StructType([
        StructField(n, StringType() if n in texts else IntegerType() if n == "partition"
                    else LongType(), nullable=True)
        for n in names
    ])
    spark.createDataFrame([tuple(r[n] for n in names) for r in rows], schema).coalesce(1).write.parquet(directory)

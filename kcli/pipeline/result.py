"""Results of ``kcli audit timestamps`` and their JSON form (``AuditResult.to_json_dict()``).

Keys are camelCase, as in every kcli document (schema ``kcli.audit-timestamps/v3``; v3 added
``culprits``, ``firstCulprits`` and ``source``; v2 renamed v1's snake_case keys and made its times
``{"ms", "iso"}`` objects key pairs). A time is two keys, as elsewhere in kcli:
``<name>Ms`` (epoch ms, null when unknown) and ``<name>`` (``2025-01-15T10:30:00.000Z``, UTC,
Java's ``yyyy-MM-dd'T'HH:mm:ss.SSSXXX``; null when unknown). Any other value that is unknown, not
applicable (no target given) or not reported by the broker is ``null``. Offsets and counts are
integers.

Top level::

    topics                      [string]   the audited topics
    source                      string     which data source read the records: "python"
                                           (kcli's kcli-kafka source) or "jvm" (Spark's own
                                           Kafka connector); --source auto picks
    referenceMs, reference      time       "now" of the KIP-937 checks
    targetMs, target            time       the reset target (--target, or the group's creation time)
    partitions                  [partition] one entry per audited partition, by topic, partition
    total                       total

partition::

    topic, partition
    startOffset, endOffset            the scanned range [start, end)
    logStartOffset, logEndOffset      the partition's offsets when the audit was planned
    records                           records in the range
    minTimestampMs, minTimestamp      time
    maxTimestampMs, maxTimestamp      time
    maxTimestampOffset                earliest offset holding the max timestamp (as KIP-734)
    beforeMaxMs, afterMaxMs           the KIP-937 bounds applied (the topic's configuration unless
                                      given); null = no limit
    tooOld                            records with timestamp < reference - beforeMaxMs
    tooNew                            records with timestamp > reference + afterMaxMs
    culprits                          the fewest records whose removal leaves the range in
                                      timestamp order: records minus a longest non-decreasing
                                      subsequence of its timestamps (too old and too new records
                                      are counted apart, in tooOld and tooNew)
    firstCulprits                     [culprit] the first 10 culprits by offset, of the
                                      subsequence chosen from the end (at each length the latest
                                      record that fits)
    outOfOrder                        records whose timestamp is below the highest timestamp of
                                      an earlier offset in the range
    maxOutOfOrderMs                   the largest such distance back (null when none)
    targetOffset                      the broker's ListOffsets answer for target (null: none, a
                                      reset to target goes to logEndOffset)
    replayed                          records at or after targetOffset older than target: a reset
                                      to target replays them
    skipped                           records before targetOffset at or after target: a reset to
                                      target skips them
    dataTargetOffset                  the first offset in the range with timestamp >= target
    brokerMaxTimestampMs, brokerMaxTimestamp   time: ListOffsets max-timestamp (KIP-734)
    brokerMaxTimestampOffset          its offset
    maxTimestampCheck, targetCheck    "agree", "disagree", "partial" (the range does not cover
                                      what the answer depends on), "unavailable" (the broker did
                                      not answer) or null (no target)

culprit::

    topic, partition, offset
    timestampMs, timestamp            time
    aheadMs                           how far out of the order kept it is: above the next record
                                      kept in order (positive), else below the previous one
                                      (negative)
    tooNew                            true when above reference + afterMaxMs

total::

    partitions, records, tooOld, tooNew, culprits, outOfOrder, replayed, skipped
    firstCulprits                     [culprit] the first 10 by topic, partition, offset
    minTimestampMs, minTimestamp, maxTimestampMs, maxTimestamp      time
    maxTimestampTopic, maxTimestampPartition, maxTimestampOffset
    maxOutOfOrderMs
    disagreements                     partitions with a check = "disagree"

``--save`` writes the partitions as Parquet with the same column names, times as the ``...Ms``
columns only, and without ``firstCulprits``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kcli.times import time_field

AGREE, DISAGREE, PARTIAL, UNAVAILABLE = "agree", "disagree", "partial", "unavailable"
TIMES = ("min_timestamp", "max_timestamp", "broker_max_timestamp", "timestamp")
CULPRIT_LIMIT = 10   # culprits listed per partition and in the total (all are counted)


def camel(name: str) -> str:
    """A field's JSON key: ``start_offset`` -> ``startOffset``."""
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def json_fields(obj) -> dict:
    """A result's fields under their JSON keys; a time as ``<key>Ms`` and ``<key>`` (ISO)."""
    doc = {}
    for name, value in obj.__dict__.items():
        if name in TIMES:
            t = time_field(value)
            doc[camel(name) + "Ms"], doc[camel(name)] = t["ms"], t["iso"]
        elif isinstance(value, list) and value and isinstance(value[0], Culprit):
            doc[camel(name)] = [json_fields(v) for v in value]
        else:
            doc[camel(name)] = value
    return doc


def parquet_row(p: "PartitionAudit") -> dict:
    """A partition as ``--save`` writes it: the JSON keys, times as epoch ms only."""
    return {key: value for key, value in json_fields(p).items()
            if key not in {camel(name) for name in TIMES} and key != "firstCulprits"}


@dataclass
class Culprit:
    """A record outside the longest ordered subsequence of its partition's range."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    ahead_ms: int | None
    too_new: bool


@dataclass
class PartitionAudit:
    topic: str
    partition: int
    start_offset: int
    end_offset: int
    log_start_offset: int
    log_end_offset: int
    records: int = 0
    min_timestamp: int | None = None
    max_timestamp: int | None = None
    max_timestamp_offset: int | None = None
    before_max_ms: int | None = None
    after_max_ms: int | None = None
    too_old: int = 0
    too_new: int = 0
    culprits: int = 0
    first_culprits: list[Culprit] = field(default_factory=list)
    out_of_order: int = 0
    max_out_of_order_ms: int | None = None
    target_offset: int | None = None
    replayed: int | None = None
    skipped: int | None = None
    data_target_offset: int | None = None
    broker_max_timestamp: int | None = None
    broker_max_timestamp_offset: int | None = None
    max_timestamp_check: str = UNAVAILABLE
    target_check: str | None = None

    def to_json_dict(self) -> dict:
        return json_fields(self)


@dataclass
class AuditTotal:
    partitions: int = 0
    records: int = 0
    min_timestamp: int | None = None
    max_timestamp: int | None = None
    max_timestamp_topic: str | None = None
    max_timestamp_partition: int | None = None
    max_timestamp_offset: int | None = None
    too_old: int = 0
    too_new: int = 0
    culprits: int = 0
    first_culprits: list[Culprit] = field(default_factory=list)
    out_of_order: int = 0
    max_out_of_order_ms: int | None = None
    replayed: int | None = None
    skipped: int | None = None
    disagreements: int = 0

    @classmethod
    def of(cls, parts: list[PartitionAudit], with_target: bool) -> "AuditTotal":
        total = cls(partitions=len(parts))
        for p in parts:
            total.records += p.records
            total.too_old += p.too_old
            total.too_new += p.too_new
            total.out_of_order += p.out_of_order
            total.culprits += p.culprits
            if len(total.first_culprits) < CULPRIT_LIMIT:
                total.first_culprits += p.first_culprits[:CULPRIT_LIMIT - len(total.first_culprits)]
            total.disagreements += DISAGREE in (p.max_timestamp_check, p.target_check)
            if p.min_timestamp is not None and (total.min_timestamp is None
                                                or p.min_timestamp < total.min_timestamp):
                total.min_timestamp = p.min_timestamp
            if p.max_timestamp is not None and (total.max_timestamp is None
                                                or p.max_timestamp > total.max_timestamp):
                total.max_timestamp = p.max_timestamp
                total.max_timestamp_topic = p.topic
                total.max_timestamp_partition = p.partition
                total.max_timestamp_offset = p.max_timestamp_offset
            if p.max_out_of_order_ms is not None:
                total.max_out_of_order_ms = max(total.max_out_of_order_ms or 0,
                                                p.max_out_of_order_ms)
        if with_target:
            total.replayed = sum(p.replayed or 0 for p in parts)
            total.skipped = sum(p.skipped or 0 for p in parts)
        return total

    def to_json_dict(self) -> dict:
        return json_fields(self)


@dataclass
class AuditResult:
    topics: list[str]
    reference_ms: int
    target_ms: int | None
    partitions: list[PartitionAudit] = field(default_factory=list)
    total: AuditTotal = field(default_factory=AuditTotal)
    source: str = "python"

    def to_json_dict(self) -> dict:
        reference, target = time_field(self.reference_ms), time_field(self.target_ms)
        return {
            "topics": list(self.topics),
            "source": self.source,
            "referenceMs": reference["ms"], "reference": reference["iso"],
            "targetMs": target["ms"], "target": target["iso"],
            "partitions": [p.to_json_dict() for p in self.partitions],
            "total": self.total.to_json_dict(),
        }

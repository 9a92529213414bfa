"""Results of ``kcli audit timestamps`` and their JSON form (``AuditResult.to_json_dict()``).

Times are objects ``{"ms": <epoch ms>, "iso": "2025-01-15T10:30:00.000Z"}`` (UTC, Java's
``yyyy-MM-dd'T'HH:mm:ss.SSSXXX``); an unknown time is ``{"ms": null, "iso": null}``. Any other
value that is unknown, not applicable (no target given) or not reported by the broker is
``null``. Offsets and counts are integers. Field names are stable.

Top level::

    topics            [string]   the audited topics
    reference         time       "now" of the KIP-937 checks
    target            time       the reset target (--target, or the group's creation time)
    partitions        [partition] one entry per audited partition, sorted by topic, partition
    total             total

partition::

    topic, partition
    start_offset, end_offset          the scanned range [start, end)
    log_start_offset, log_end_offset  the partition's offsets when the audit was planned
    records                           records in the range
    min_timestamp, max_timestamp      time
    max_timestamp_offset              earliest offset holding max_timestamp (as KIP-734)
    before_max_ms, after_max_ms       the KIP-937 bounds applied (the topic's configuration unless
                                      given); null = no limit
    too_old                           records with timestamp < reference - before_max_ms
    too_new                           records with timestamp > reference + after_max_ms
    out_of_order                      records whose timestamp is below the highest timestamp of
                                      an earlier offset in the range
    max_out_of_order_ms               the largest such distance back (null when none)
    target_offset                     the broker's ListOffsets answer for target (null: none, a
                                      reset to target goes to log_end_offset)
    replayed                          records at or after target_offset older than target: a reset
                                      to target replays them
    skipped                           records before target_offset at or after target: a reset to
                                      target skips them
    data_target_offset                the first offset in the range with timestamp >= target
    broker_max_timestamp              time: ListOffsets max-timestamp (KIP-734) from the broker
    broker_max_timestamp_offset       its offset
    max_timestamp_check, target_check "agree", "disagree", "partial" (the range does not cover
                                      what the answer depends on), "unavailable" (the broker did
                                      not answer) or null (no target)

total::

    partitions, records, too_old, too_new, out_of_order, replayed, skipped
    min_timestamp, max_timestamp      time
    max_timestamp_topic, max_timestamp_partition, max_timestamp_offset
    max_out_of_order_ms
    disagreements                     partitions with a check = "disagree"
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kcli.times import time_field

AGREE, DISAGREE, PARTIAL, UNAVAILABLE = "agree", "disagree", "partial", "unavailable"


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
        d = dict(self.__dict__)
        for key in ("min_timestamp", "max_timestamp", "broker_max_timestamp"):
            d[key] = time_field(d[key])
        return d


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
        d = dict(self.__dict__)
        for key in ("min_timestamp", "max_timestamp"):
            d[key] = time_field(d[key])
        return d


@dataclass
class AuditResult:
    topics: list[str]
    reference_ms: int
    target_ms: int | None
    partitions: list[PartitionAudit] = field(default_factory=list)
    total: AuditTotal = field(default_factory=AuditTotal)

    def to_json_dict(self) -> dict:
        return {
            "topics": list(self.topics),
            "reference": time_field(self.reference_ms),
            "target": time_field(self.target_ms),
            "partitions": [p.to_json_dict() for p in self.partitions],
            "total": self.total.to_json_dict(),
        }

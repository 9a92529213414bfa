"""Broker configs of the group coordinator, with Kafka's names and defaults.

Tests lower ``group.initial.rebalance.delay.ms`` (to 0), ``group.min.session.timeout.ms`` and
the consumer-protocol and streams session and heartbeat intervals (and the streams groups'
``group.streams.initial.rebalance.delay.ms``, ``group.streams.num.standby.replicas``, and the share
groups' ``group.share.*`` timings and limits) through the broker's static configs.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable


@dataclass(frozen=True)
class GroupConfig:
    consumer_session_timeout_ms: int = 45_000
    consumer_heartbeat_interval_ms: int = 5_000
    consumer_assignors: tuple[str, ...] = ("uniform", "range")
    consumer_max_size: int = 2**31 - 1
    classic_min_session_timeout_ms: int = 6_000
    classic_max_session_timeout_ms: int = 1_800_000
    classic_max_size: int = 2**31 - 1
    initial_rebalance_delay_ms: int = 3_000
    offset_metadata_max_bytes: int = 4096
    streams_session_timeout_ms: int = 45_000
    streams_heartbeat_interval_ms: int = 5_000
    streams_max_size: int = 2**31 - 1
    streams_num_standby_replicas: int = 0
    streams_initial_rebalance_delay_ms: int = 3_000
    streams_task_offset_interval_ms: int = 60_000
    streams_acceptable_recovery_lag: int = 10_000
    share_session_timeout_ms: int = 45_000
    share_heartbeat_interval_ms: int = 5_000
    share_max_size: int = 200
    share_record_lock_duration_ms: int = 30_000
    share_min_record_lock_duration_ms: int = 15_000
    share_max_record_lock_duration_ms: int = 60_000
    share_delivery_count_limit: int = 5
    share_min_delivery_count_limit: int = 2
    share_max_delivery_count_limit: int = 10
    share_partition_max_record_locks: int = 2_000

    @classmethod
    def from_lookup(cls, lookup: Callable[[str], str | None]) -> "GroupConfig":
        """Read every setting through ``lookup(config_name)`` (None: Kafka's default)."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = lookup(_KEYS[f.name])
            if raw is None:
                continue
            if f.name == "consumer_assignors":
                values[f.name] = tuple(a.strip() for a in str(raw).split(",") if a.strip())
            else:
                values[f.name] = int(raw)
        return cls(**values)


_KEYS = {
    "consumer_session_timeout_ms": "group.consumer.session.timeout.ms",
    "consumer_heartbeat_interval_ms": "group.consumer.heartbeat.interval.ms",
    "consumer_assignors": "group.consumer.assignors",
    "consumer_max_size": "group.consumer.max.size",
    "classic_min_session_timeout_ms": "group.min.session.timeout.ms",
    "classic_max_session_timeout_ms": "group.max.session.timeout.ms",
    "classic_max_size": "group.max.size",
    "initial_rebalance_delay_ms": "group.initial.rebalance.delay.ms",
    "offset_metadata_max_bytes": "offset.metadata.max.bytes",
    "streams_session_timeout_ms": "group.streams.session.timeout.ms",
    "streams_heartbeat_interval_ms": "group.streams.heartbeat.interval.ms",
    "streams_max_size": "group.streams.max.size",
    "streams_num_standby_replicas": "group.streams.num.standby.replicas",
    "streams_initial_rebalance_delay_ms": "group.streams.initial.rebalance.delay.ms",
    "streams_task_offset_interval_ms": "group.streams.task.offset.interval.ms",
    "streams_acceptable_recovery_lag": "group.streams.acceptable.recovery.lag",
    "share_session_timeout_ms": "group.share.session.timeout.ms",
    "share_heartbeat_interval_ms": "group.share.heartbeat.interval.ms",
    "share_max_size": "group.share.max.size",
    "share_record_lock_duration_ms": "group.share.record.lock.duration.ms",
    "share_min_record_lock_duration_ms": "group.share.min.record.lock.duration.ms",
    "share_max_record_lock_duration_ms": "group.share.max.record.lock.duration.ms",
    "share_delivery_count_limit": "group.share.delivery.count.limit",
    "share_min_delivery_count_limit": "group.share.min.delivery.count.limit",
    "share_max_delivery_count_limit": "group.share.max.delivery.count.limit",
    "share_partition_max_record_locks": "group.share.partition.max.record.locks",
}

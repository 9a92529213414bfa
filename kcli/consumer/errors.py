"""The consumer library's errors. Each is raised from ``Consumer.poll()``/``consume()`` (or the
constructor, for configuration), never from inside a librdkafka callback."""

from __future__ import annotations

from kcli.errors import OperationError, UnsupportedByBroker, UsageError

# KIP-1282, "Exception": the two messages of GroupCreationTimeNotAvailableException (the streams
# version is v2, not the KIP's v1: Apache Kafka 4.4 gave StreamsGroupHeartbeat v1 to KIP-1331).
BROKER_TOO_OLD = ("The broker does not support to_start_time (requires ConsumerGroupHeartbeat "
                  "v2+ or StreamsGroupHeartbeat v2+).")
NO_CREATION_TIME = ("The group creation time is not available for group '{group}'. The group may "
                    "have been created before KIP-1282 was enabled. Please delete and recreate "
                    "the group.")


class ConfigurationError(UsageError, ValueError):
    """The consumer's configuration is invalid (KIP-1282/KIP-1327 ConfigException): raised by
    the constructor, before anything is sent to the cluster."""


class GroupCreationTimeNotAvailable(OperationError):
    """``to_start_time`` cannot determine a start offset: the broker does not report the group's
    creation time. There is no fallback; the affected partitions stay unpositioned."""


class UnsupportedVersion(UnsupportedByBroker):
    """The broker lacks an API version the configured policy needs (KIP-1327: Metadata v14 for
    ``latest`` with a max age)."""


METADATA_V14_MISSING = ("The broker does not support Metadata v14 (PartitionAgeMs, KIP-1327), "
                        "which the start-offset policy latest(max_age={max_age_ms} ms) needs.")

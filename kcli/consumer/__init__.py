"""Consumer-side library for applications on confluent-kafka: start-offset policies
(``earliest``, ``latest``, KIP-1282 ``to_start_time``, KIP-1327 ``latest(max_age=...)``) applied
by the library's own rebalance listener, and the delayed-revoke consumer of
``consumer-delayed-revoke.txt`` (``DelayRevokeConsumer``)."""

from kcli.consumer.consumer import Consumer
from kcli.consumer.delayed import DelayRevokeConsumer
from kcli.consumer.errors import (ConfigurationError, GroupCreationTimeNotAvailable,
                                  UnsupportedVersion)
from kcli.consumer.policies import StartPolicy, earliest, latest, to_start_time

__all__ = ["Consumer", "DelayRevokeConsumer", "StartPolicy", "earliest", "latest", "to_start_time",
           "ConfigurationError", "GroupCreationTimeNotAvailable", "UnsupportedVersion"]

"""Consumer-side library for applications on confluent-kafka: start-offset policies
(``earliest``, ``latest``, KIP-1282 ``to_start_time``, KIP-1327 ``latest(max_age=...)``) applied
by the library's own rebalance listener."""

from kcli.consumer.consumer import Consumer
from kcli.consumer.errors import (ConfigurationError, GroupCreationTimeNotAvailable,
                                  UnsupportedVersion)
from kcli.consumer.policies import StartPolicy, earliest, latest, to_start_time

__all__ = ["Consumer", "StartPolicy", "earliest", "latest", "to_start_time",
           "ConfigurationError", "GroupCreationTimeNotAvailable", "UnsupportedVersion"]

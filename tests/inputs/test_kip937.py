"""One KIP-937 rule: kcli's (describe configs, the audit) and the embedded broker's own
(produce validation) give the same effective bounds for every situation, and it is Kafka's
LogConfig rule (a bound of Long.MAX_VALUE falls back to the deprecated difference key)."""

from __future__ import annotations

import pytest

from kcli import kip937
from kcli.broker.configs import BrokerConfigs, timestamp_bounds, topic_configs
from kcli.model import ConfigEntry

MAX = kip937.LONG_MAX
DIFF = "message.timestamp.difference.max.ms"

# (topic overrides, expected (before, after)); the broker's defaults: before MAX, after 1 h, diff MAX
CASES = [
    ({}, (MAX, 3_600_000)),
    ({"message.timestamp.before.max.ms": "1000"}, (1000, 3_600_000)),
    ({DIFF: "5000"}, (5000, 3_600_000)),
    ({DIFF: "5000", "message.timestamp.after.max.ms": str(MAX)}, (5000, 5000)),
    ({DIFF: "5000", "message.timestamp.before.max.ms": str(MAX)}, (5000, 3_600_000)),  # explicit MAX
    ({DIFF: "5000", "message.timestamp.before.max.ms": "100"}, (100, 3_600_000)),
    ({"message.timestamp.after.max.ms": str(MAX)}, (MAX, MAX)),
]


def described(overrides: dict[str, str]) -> dict[str, ConfigEntry]:
    """What a DescribeConfigs answer holds for a topic of the embedded broker with ``overrides``."""
    defaults = {"message.timestamp.before.max.ms": str(MAX), "message.timestamp.after.max.ms": "3600000",
                DIFF: str(MAX)}
    return {k: ConfigEntry(k, overrides.get(k, v), "DYNAMIC_TOPIC_CONFIG" if k in overrides else "DEFAULT_CONFIG",
                           k not in overrides) for k, v in defaults.items()}


@pytest.mark.parametrize("overrides, expected", CASES)
def test_kcli_and_the_embedded_broker_agree(overrides, expected):
    entries = described(overrides)
    kcli = (kip937.effective_bound(entries, "message.timestamp.before.max.ms"),
            kip937.effective_bound(entries, "message.timestamp.after.max.ms"))
    broker = timestamp_bounds(overrides, BrokerConfigs(), None, topic_configs("2.8"))   # a release with DIFF
    assert kcli == broker == expected
    if DIFF not in overrides:                          # Kafka 4.4's table: the same without DIFF
        assert timestamp_bounds(overrides, BrokerConfigs()) == expected


def test_a_broker_without_the_difference_key_kafka_4():
    entries = described({})
    del entries[DIFF]
    assert kip937.effective_bound(entries, "message.timestamp.before.max.ms") == MAX
    assert kip937.effective_bound(entries, "message.timestamp.after.max.ms") == 3_600_000

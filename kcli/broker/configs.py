"""Topic and broker configuration: definitions, validation and effective values with sources.

A topic config resolves as Kafka resolves it: the topic's override, else its broker synonym
(dynamic per-node, dynamic cluster default, static from ``--config``), else the default. Only the
configs below are known; unknown topic configs are rejected, unknown broker configs given at
start are kept and shown as static.
"""

from __future__ import annotations

from dataclasses import dataclass

LONG_MAX = 9223372036854775807

# DescribeConfigs ConfigSource values
DYNAMIC_TOPIC_CONFIG = 1
DYNAMIC_BROKER_CONFIG = 2
DYNAMIC_DEFAULT_BROKER_CONFIG = 3
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

# DescribeConfigs ConfigType values
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST = 1, 2, 3, 4, 5, 6, 7

_TYPE_NAMES = {BOOLEAN: "BOOLEAN", STRING: "STRING", INT: "INT", SHORT: "SHORT", LONG: "LONG",
               DOUBLE: "DOUBLE", LIST: "LIST"}


class ConfigError(ValueError):
    """An invalid config name or value; the message is Kafka's."""


@dataclass(frozen=True)
class ConfigDef:
    name: str
    type: int
    default: str
    minimum: int | None = None
    choices: tuple[str, ...] | None = None
    read_only: bool = False


def _d(name, type_, default, **kw):
    return name, ConfigDef(name, type_, default, **kw)


TOPIC_CONFIGS: dict[str, ConfigDef] = dict([
    _d("cleanup.policy", LIST, "delete", choices=("delete", "compact")),
    _d("compression.type", STRING, "producer",
       choices=("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    _d("delete.retention.ms", LONG, "86400000", minimum=0),
    _d("max.message.bytes", INT, "1048588", minimum=0),
    _d("message.timestamp.type", STRING, "CreateTime", choices=("CreateTime", "LogAppendTime")),
    _d("message.timestamp.before.max.ms", LONG, str(LONG_MAX), minimum=0),
    _d("message.timestamp.after.max.ms", LONG, "3600000", minimum=0),     # 1 h since Kafka 4.0
    _d("message.timestamp.difference.max.ms", LONG, str(LONG_MAX), minimum=0),
    _d("min.insync.replicas", INT, "1", minimum=1),
    _d("retention.bytes", LONG, "-1"),
    _d("retention.ms", LONG, "604800000", minimum=-1),
    _d("segment.bytes", INT, "1073741824", minimum=14),
    _d("segment.ms", LONG, "604800000", minimum=1),
    _d("unclean.leader.election.enable", BOOLEAN, "false"),
])

# topic config -> its broker synonym (the broker-level name that sets the topic default)
TOPIC_TO_BROKER: dict[str, str] = {
    "cleanup.policy": "log.cleanup.policy",
    "compression.type": "compression.type",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "max.message.bytes": "message.max.bytes",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
    "message.timestamp.difference.max.ms": "log.message.timestamp.difference.max.ms",
    "min.insync.replicas": "min.insync.replicas",
    "retention.bytes": "log.retention.bytes",
    "retention.ms": "log.retention.ms",
    "segment.bytes": "log.segment.bytes",
    "segment.ms": "log.roll.ms",
    "unclean.leader.election.enable": "unclean.leader.election.enable",
}

# Broker synonyms whose Kafka default is null (the value derives from log.retention.hours and
# log.roll.hours): Kafka lists no default synonym for the topic config (ConfigHelper keeps a
# topic config's broker synonyms from its own broker name on, and that one has no default).
DERIVED_DEFAULTS = frozenset({"log.retention.ms", "log.roll.ms"})

BROKER_CONFIGS: dict[str, ConfigDef] = {
    TOPIC_TO_BROKER[name]: ConfigDef(TOPIC_TO_BROKER[name], d.type, d.default, d.minimum, d.choices)
    for name, d in TOPIC_CONFIGS.items()
}
BROKER_CONFIGS.update(dict([
    _d("auto.create.topics.enable", BOOLEAN, "false", read_only=True),
    _d("num.partitions", INT, "1", minimum=1, read_only=True),
    _d("default.replication.factor", SHORT, "1", minimum=1, read_only=True),
    _d("group.consumer.heartbeat.interval.ms", INT, "5000", minimum=1, read_only=True),
    _d("group.consumer.session.timeout.ms", INT, "45000", minimum=1, read_only=True),
    _d("group.min.session.timeout.ms", INT, "6000", minimum=0, read_only=True),
    _d("group.max.session.timeout.ms", INT, "1800000", minimum=0, read_only=True),
    _d("group.initial.rebalance.delay.ms", INT, "3000", minimum=0, read_only=True),
    _d("group.streams.heartbeat.interval.ms", INT, "5000", minimum=1, read_only=True),
    _d("group.streams.session.timeout.ms", INT, "45000", minimum=1, read_only=True),
    _d("group.streams.initial.rebalance.delay.ms", INT, "3000", minimum=0, read_only=True),
    _d("group.streams.num.standby.replicas", INT, "0", minimum=0, read_only=True),
    _d("offsets.retention.minutes", INT, "10080", minimum=1, read_only=True),
    _d("log.cleaner.threads", INT, "1", minimum=0),       # dynamic, per broker or cluster-wide
]))


def validate(defs: dict[str, ConfigDef], name: str, value: str | None, kind: str) -> None:
    """Raise ConfigError unless ``value`` is valid for ``name`` (None means "delete")."""
    d = defs.get(name)
    if d is None:
        raise ConfigError(f"Unknown {kind} config name: {name}")
    if value is None:
        return
    if d.type in (INT, SHORT, LONG):
        try:
            number = int(value.strip())
        except ValueError:
            raise ConfigError(f"Invalid value {value} for configuration {name}: "
                              f"Not a number of type {_TYPE_NAMES[d.type]}") from None
        if d.minimum is not None and number < d.minimum:
            raise ConfigError(f"Invalid value {value} for configuration {name}: "
                              f"Value must be at least {d.minimum}")
    elif d.type == BOOLEAN:
        if value.strip().lower() not in ("true", "false"):
            raise ConfigError(f"Invalid value {value} for configuration {name}: "
                              "Expected value to be either true or false")
    elif d.choices is not None:
        items = [v.strip() for v in value.split(",")] if d.type == LIST else [value]
        for item in items:
            if item not in d.choices:
                raise ConfigError(f"Invalid value {value} for configuration {name}: "
                                  f"String must be one of: {', '.join(d.choices)}")


@dataclass(frozen=True)
class Synonym:
    name: str
    value: str
    source: int


@dataclass(frozen=True)
class ConfigEntry:
    name: str
    value: str
    source: int
    read_only: bool
    type: int
    synonyms: tuple[Synonym, ...]


class BrokerConfigs:
    """Broker-level configs: static (given at start) and dynamic (altered at run time, for the
    cluster default ``""`` or for one node id)."""

    def __init__(self, static: dict[str, str] | None = None):
        self.static = dict(static or {})
        self.dynamic: dict[str, dict[str, str]] = {}   # resource name ("" or node id) -> configs

    def synonyms(self, name: str, node_id: int | None) -> list[Synonym]:
        found = []
        if node_id is not None and name in self.dynamic.get(str(node_id), {}):
            found.append(Synonym(name, self.dynamic[str(node_id)][name], DYNAMIC_BROKER_CONFIG))
        if name in self.dynamic.get("", {}):
            found.append(Synonym(name, self.dynamic[""][name], DYNAMIC_DEFAULT_BROKER_CONFIG))
        if name in self.static:
            found.append(Synonym(name, self.static[name], STATIC_BROKER_CONFIG))
        if name in BROKER_CONFIGS:
            found.append(Synonym(name, BROKER_CONFIGS[name].default, DEFAULT_CONFIG))
        return found

    def value(self, name: str, node_id: int | None = None) -> str | None:
        found = self.synonyms(name, node_id)
        return found[0].value if found else None

    def required(self, name: str, node_id: int | None = None) -> str:
        """``value`` of a config that always has one (a Kafka default)."""
        value = self.value(name, node_id)
        if value is None:
            raise KeyError(name)
        return value

    def entry(self, name: str, node_id: int | None) -> ConfigEntry | None:
        found = self.synonyms(name, node_id)
        if not found:
            return None
        d = BROKER_CONFIGS.get(name)
        return ConfigEntry(name, found[0].value, found[0].source, d.read_only if d else True,
                           d.type if d else STRING, tuple(found))

    def cluster_default_entries(self) -> list[ConfigEntry]:
        """The cluster-level dynamic configs (the broker resource ``""``), as Kafka describes
        them: only those set, each with its dynamic default synonym alone."""
        entries = []
        for name in sorted(self.dynamic.get("", {})):
            found = [s for s in self.synonyms(name, None) if s.source == DYNAMIC_DEFAULT_BROKER_CONFIG]
            d = BROKER_CONFIGS.get(name)
            entries.append(ConfigEntry(name, found[0].value, found[0].source,
                                       d.read_only if d else True, d.type if d else STRING,
                                       tuple(found)))
        return entries

    def names(self, node_id: int | None) -> list[str]:
        names = set(BROKER_CONFIGS) | set(self.static) | set(self.dynamic.get("", {}))
        if node_id is not None:
            names |= set(self.dynamic.get(str(node_id), {}))
        return sorted(names)


def topic_entry(name: str, overrides: dict[str, str], broker: BrokerConfigs,
                node_id: int | None) -> ConfigEntry:
    d = TOPIC_CONFIGS[name]
    found = []
    if name in overrides:
        found.append(Synonym(name, overrides[name], DYNAMIC_TOPIC_CONFIG))
    found += [s for s in broker.synonyms(TOPIC_TO_BROKER[name], node_id)
              if not (s.source == DEFAULT_CONFIG and s.name in DERIVED_DEFAULTS)]
    value = topic_value(name, overrides, broker, node_id)
    return ConfigEntry(name, value, found[0].source if found else DEFAULT_CONFIG, False, d.type,
                       tuple(found))


def topic_value(name: str, overrides: dict[str, str], broker: BrokerConfigs,
                node_id: int | None = None) -> str:
    """The effective value of a topic config on ``node_id`` (per-node dynamic broker configs
    apply to the partitions that node leads)."""
    if name in overrides:
        return overrides[name]
    return broker.required(TOPIC_TO_BROKER[name], node_id)


def timestamp_bounds(overrides: dict[str, str], broker: BrokerConfigs,
                     node_id: int | None = None) -> tuple[int, int]:
    """KIP-937 (before, after) in ms; each falls back to the deprecated difference.max.ms when
    it is left at its default (Long.MAX_VALUE), as Kafka's LogConfig does."""
    diff = int(topic_value("message.timestamp.difference.max.ms", overrides, broker, node_id))
    before = int(topic_value("message.timestamp.before.max.ms", overrides, broker, node_id))
    after = int(topic_value("message.timestamp.after.max.ms", overrides, broker, node_id))
    return (before if before != LONG_MAX else diff), (after if after != LONG_MAX else diff)

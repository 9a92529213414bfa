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
    minimum: int | float | None = None
    choices: tuple[str, ...] | None = None
    read_only: bool = False
    maximum: int | float | None = None
    check: str | None = None              # a validator of its own: "gzip-level", "throttled-replicas"


def _d(name, type_, default, **kw):
    return name, ConfigDef(name, type_, default, **kw)


# Apache Kafka 4.4's topic configs (LogConfig's ConfigDef, read from kafka-storage-4.4.0.jar:
# types, defaults and validators), every one a topic may set and DescribeConfigs lists.
TOPIC_CONFIGS: dict[str, ConfigDef] = dict([
    _d("cleanup.policy", LIST, "delete", choices=("compact", "delete")),
    _d("compression.gzip.level", INT, "-1", check="gzip-level"),
    _d("compression.lz4.level", INT, "9", minimum=1, maximum=17),
    _d("compression.type", STRING, "producer",
       choices=("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    _d("compression.zstd.level", INT, "3", minimum=-131072, maximum=22),
    _d("delete.retention.ms", LONG, "86400000", minimum=0),
    _d("errors.deadletterqueue.group.enable", BOOLEAN, "false"),
    _d("file.delete.delay.ms", LONG, "60000", minimum=0),
    _d("flush.messages", LONG, str(LONG_MAX), minimum=1),
    _d("flush.ms", LONG, str(LONG_MAX), minimum=0),
    _d("follower.replication.throttled.replicas", LIST, "", check="throttled-replicas"),
    _d("index.interval.bytes", INT, "4096", minimum=0),
    _d("leader.replication.throttled.replicas", LIST, "", check="throttled-replicas"),
    _d("local.retention.bytes", LONG, "-2", minimum=-2),
    _d("local.retention.ms", LONG, "-2", minimum=-2),
    _d("max.compaction.lag.ms", LONG, str(LONG_MAX), minimum=1),
    _d("max.decompressed.message.bytes", INT, "2147483639", minimum=1, maximum=2147483639),
    _d("max.message.bytes", INT, "1048588", minimum=0),
    _d("message.timestamp.after.max.ms", LONG, "3600000", minimum=0),     # 1 h since Kafka 4.0
    _d("message.timestamp.before.max.ms", LONG, str(LONG_MAX), minimum=0),
    _d("message.timestamp.type", STRING, "CreateTime", choices=("CreateTime", "LogAppendTime")),
    _d("min.cleanable.dirty.ratio", DOUBLE, "0.5", minimum=0, maximum=1),
    _d("min.compaction.lag.ms", LONG, "0", minimum=0),
    _d("min.insync.replicas", INT, "1", minimum=1),
    _d("preallocate", BOOLEAN, "false"),
    _d("remote.copy.lag.bytes", LONG, "-1", minimum=-1),
    _d("remote.copy.lag.ms", LONG, "0", minimum=-1),
    _d("remote.log.copy.disable", BOOLEAN, "false"),
    _d("remote.log.delete.on.disable", BOOLEAN, "false"),
    _d("remote.storage.enable", BOOLEAN, "false"),
    _d("retention.bytes", LONG, "-1"),
    _d("retention.ms", LONG, "604800000", minimum=-1),
    _d("segment.bytes", INT, "1073741824", minimum=1048576),
    _d("segment.index.bytes", INT, "10485760", minimum=4),
    _d("segment.jitter.ms", LONG, "0", minimum=0),
    _d("segment.ms", LONG, "604800000", minimum=1),
    _d("unclean.leader.election.enable", BOOLEAN, "false"),
])

# Topic configs Kafka removed, with the broker releases (``--pose-as``) that still had them: a
# broker accepts and lists one only while posing as such a release.
REMOVED_TOPIC_CONFIGS: dict[str, tuple[ConfigDef, frozenset[str]]] = {
    "message.timestamp.difference.max.ms": (          # deprecated by KIP-937 (3.6), gone in 4.0
        ConfigDef("message.timestamp.difference.max.ms", LONG, str(LONG_MAX), minimum=0),
        frozenset({"2.8"})),
}


def topic_configs(pose_as: str | None) -> dict[str, ConfigDef]:
    """The topic configs a broker posing as ``pose_as`` (None: itself, Kafka 4.4) knows."""
    removed = {name: d for name, (d, releases) in REMOVED_TOPIC_CONFIGS.items() if pose_as in releases}
    return dict(sorted({**TOPIC_CONFIGS, **removed}.items())) if removed else TOPIC_CONFIGS


# topic config -> its broker synonym (the broker-level name that sets the topic default); the
# topic configs without one have none in Kafka 4.4 either (their default is their own)
TOPIC_TO_BROKER: dict[str, str] = {
    "cleanup.policy": "log.cleanup.policy",
    "compression.gzip.level": "compression.gzip.level",
    "compression.lz4.level": "compression.lz4.level",
    "compression.type": "compression.type",
    "compression.zstd.level": "compression.zstd.level",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "file.delete.delay.ms": "log.segment.delete.delay.ms",
    "flush.messages": "log.flush.interval.messages",
    "flush.ms": "log.flush.interval.ms",
    "index.interval.bytes": "log.index.interval.bytes",
    "local.retention.bytes": "log.local.retention.bytes",
    "local.retention.ms": "log.local.retention.ms",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "max.decompressed.message.bytes": "max.decompressed.message.bytes",
    "max.message.bytes": "message.max.bytes",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
    "message.timestamp.difference.max.ms": "log.message.timestamp.difference.max.ms",
    "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
    "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
    "min.insync.replicas": "min.insync.replicas",
    "preallocate": "log.preallocate",
    "remote.copy.lag.bytes": "log.remote.copy.lag.bytes",
    "remote.copy.lag.ms": "log.remote.copy.lag.ms",
    "retention.bytes": "log.retention.bytes",
    "retention.ms": "log.retention.ms",
    "segment.bytes": "log.segment.bytes",
    "segment.index.bytes": "log.index.size.max.bytes",
    "segment.jitter.ms": "log.roll.jitter.ms",
    "segment.ms": "log.roll.ms",
    "unclean.leader.election.enable": "unclean.leader.election.enable",
}

# Broker synonyms whose Kafka default is null (the value derives from log.retention.hours,
# log.roll.hours, log.roll.jitter.hours, log.flush.scheduler.interval.ms): Kafka lists no default
# synonym for the topic config (ConfigHelper keeps a topic config's broker synonyms from its own
# broker name on, and that one has no default).
DERIVED_DEFAULTS = frozenset({"log.retention.ms", "log.roll.ms", "log.roll.jitter.ms", "log.flush.interval.ms"})

BROKER_CONFIGS: dict[str, ConfigDef] = {
    TOPIC_TO_BROKER[name]: ConfigDef(TOPIC_TO_BROKER[name], d.type, d.default, d.minimum, d.choices,
                                     maximum=d.maximum, check=d.check)
    for name, d in [*TOPIC_CONFIGS.items(), *((n, d) for n, (d, _) in REMOVED_TOPIC_CONFIGS.items())]
    if name in TOPIC_TO_BROKER
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
    _d("transaction.max.timeout.ms", INT, "900000", minimum=1, read_only=True),
    # KIP-890 part 1: a transactional batch must belong to a transaction that holds its
    # partition (kcli.broker.txns.verify); false, a leader appends it unverified, as brokers
    # before 3.6 did. Dynamic, per broker or cluster-wide, as Kafka's.
    _d("transaction.partition.verification.enable", BOOLEAN, "true"),
    _d("log.cleaner.threads", INT, "1", minimum=0),       # dynamic, per broker or cluster-wide
    # replication throttles (kafka-reassign-partitions --throttle sets them per broker): bytes/s
    # a throttled replica is copied at while it catches up (Cluster.advance_replicas)
    _d("leader.replication.throttled.rate", LONG, str(LONG_MAX), minimum=0),
    _d("follower.replication.throttled.rate", LONG, str(LONG_MAX), minimum=0),
    _d("replica.alter.log.dirs.io.max.bytes.per.second", LONG, str(LONG_MAX), minimum=0),
]))


_BITS = {INT: 32, SHORT: 16, LONG: 64}
_THROTTLED = ("must be the literal '*' or a list of replicas in the following format: "
              "[partitionId]:[brokerId],[partitionId]:[brokerId],...")


def validate(defs: dict[str, ConfigDef], name: str, value: str | None, kind: str) -> None:
    """Raise ConfigError unless ``value`` is valid for ``name`` (None means "delete"), in Kafka's
    own words (ConfigDef's parsing and its validators)."""
    d = defs.get(name)
    if d is None:
        raise ConfigError(f"Unknown {kind} config name: {name}")
    if value is None:
        return

    def invalid(why: str, shown: str = value):
        return ConfigError(f"Invalid value {shown} for configuration {name}: {why}")

    if d.type in _BITS:
        text, bits = value.strip(), _BITS[d.type]
        digits = text[1:] if text[:1] in "+-" else text
        if not (digits.isascii() and digits.isdigit() and -(1 << bits - 1) <= int(text) < 1 << bits - 1):
            raise invalid(f"Not a number of type {_TYPE_NAMES[d.type]}")
        number = int(text)
        _check_range(d, number, invalid, value)
        if d.check == "gzip-level" and not (1 <= number <= 9 or number == -1):
            raise invalid("Value must be between 1 and 9 or equal to -1")
    elif d.type == DOUBLE:
        try:
            real = float(value.strip())
        except ValueError:
            raise invalid(f"Not a number of type {_TYPE_NAMES[d.type]}") from None
        _check_range(d, real, invalid, repr(real))         # Kafka shows the parsed double
    elif d.type == BOOLEAN:
        if value.strip().lower() not in ("true", "false"):
            raise invalid("Expected value to be either true or false")
    elif d.check == "throttled-replicas":
        items = [v.strip() for v in value.split(",") if v.strip()]
        if items != ["*"] and not all(_replica(item) for item in items):
            raise invalid(f"{name} {_THROTTLED}", f"[{', '.join(items)}]")
    elif d.choices is not None:
        items = [v.strip() for v in value.split(",") if v.strip()] if d.type == LIST else [value]
        for item in items:
            if item not in d.choices:
                raise invalid(f"String must be one of: {', '.join(d.choices)}")


def _check_range(d: ConfigDef, number, invalid, shown: str) -> None:
    def bound(v) -> str:
        return str(int(v)) if float(v).is_integer() else str(v)

    if d.minimum is not None and number < d.minimum:
        raise invalid(f"Value must be at least {bound(d.minimum)}", shown)
    if d.maximum is not None and number > d.maximum:
        raise invalid(f"Value must be no more than {bound(d.maximum)}", shown)


def _replica(item: str) -> bool:
    """``partition:broker``, both integers (Kafka's ThrottledReplicaListValidator)."""
    parts = [p.strip() for p in item.split(":")]
    return len(parts) == 2 and all(p.isascii() and p.isdigit() for p in parts)


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
                node_id: int | None, defs: dict[str, ConfigDef] = TOPIC_CONFIGS) -> ConfigEntry:
    d = defs[name]
    found = []
    if name in overrides:
        found.append(Synonym(name, overrides[name], DYNAMIC_TOPIC_CONFIG))
    if name in TOPIC_TO_BROKER:
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
    if name not in TOPIC_TO_BROKER:
        return TOPIC_CONFIGS[name].default
    return broker.required(TOPIC_TO_BROKER[name], node_id)


def timestamp_bounds(overrides: dict[str, str], broker: BrokerConfigs, node_id: int | None = None,
                     defs: dict[str, ConfigDef] = TOPIC_CONFIGS) -> tuple[int, int]:
    """KIP-937 (before, after) in ms; each falls back to the deprecated difference.max.ms when
    it is left at its default (Long.MAX_VALUE), as Kafka's LogConfig did before 4.0 (set only
    on a broker posing as a release that had it)."""
    diff = (int(topic_value("message.timestamp.difference.max.ms", overrides, broker, node_id))
            if "message.timestamp.difference.max.ms" in defs else LONG_MAX)
    before = int(topic_value("message.timestamp.before.max.ms", overrides, broker, node_id))
    after = int(topic_value("message.timestamp.after.max.ms", overrides, broker, node_id))
    return (before if before != LONG_MAX else diff), (after if after != LONG_MAX else diff)

"""The broker-side anchors of the KIP policies, read through ``kcli.admin.wire.WireClient``:
the group creation time (ConsumerGroupDescribe v2, KIP-1282) and the partition ages
(Metadata v14 PartitionAgeMs, KIP-1327). The client connects on first use."""

from __future__ import annotations

from kcli import ages
from kcli.admin import sightings
from kcli.admin.settings import ClientSettings
from kcli.consumer.errors import (BROKER_TOO_OLD, METADATA_V14_MISSING, NO_CREATION_TIME,
                                  GroupCreationTimeNotAvailable, UnsupportedVersion)
from kcli.consumer.policies import TO_START_TIME
from kcli.errors import UnsupportedByBroker

TYPE_CHECKING = False                 # typing's, without importing typing (start-up)
if TYPE_CHECKING:
    from kcli.admin.wire import WireClient

def settings_for(config: dict, timeout_ms: int) -> ClientSettings:
    """The consumer's librdkafka settings as the CLI's: ``ClientSettings.kafka_python_config``
    alone decides which of them kcli's own connection takes (security, SASL with OAUTHBEARER,
    TLS and its name check), so the consumer library and the CLI cannot drift apart. Callbacks
    and other objects stay with librdkafka."""
    servers = config.get("bootstrap.servers") or config.get("metadata.broker.list") or ""
    props = {k: str(v) for k, v in config.items()
             if isinstance(v, (str, int, float)) and k not in ("bootstrap.servers", "metadata.broker.list")}
    return ClientSettings(bootstrap_servers=str(servers), properties=props, timeout_ms=timeout_ms)


class BrokerAnchors:
    def __init__(self, settings: ClientSettings, group_id: str):
        self.settings = settings
        self.group_id = group_id
        self._wire: WireClient | None = None
        self._creation: int | None = None
        self._creation_missing: str | None = None   # definitive: the time never appears later
        self._supported: bool | None = None          # the policy's API versions, once known
        self._unsupported: BaseException | None = None
        self._older: dict[str, int] = {}                 # partitions older than the group, per topic
        self._joined: dict[str, int] | None = None       # partitions when the group had assigned us

    def check_supported(self, policy) -> None:
        """Before the consumer waits for an assignment: raises, on every call, what the broker
        cannot serve for ``policy``, from its API versions (a broker without the KIP-848
        protocol never assigns anything, and librdkafka says nothing). A broker that cannot be
        reached yet is asked again on the next call."""
        if policy.native or self._supported:
            return
        if self._unsupported is None:
            try:
                heartbeat = self.wire.max_version(self.wire.proto.ConsumerGroupHeartbeatRequest)
                metadata = self.wire.max_version(self.wire.proto.MetadataRequest)
            except Exception:  # noqa: BLE001 - not reachable (yet): librdkafka keeps trying too
                return
            if policy.name == TO_START_TIME and (heartbeat is None or heartbeat < 2):
                self._unsupported = GroupCreationTimeNotAvailable(BROKER_TOO_OLD)
            elif policy.max_age_ms >= 0 and not policy.age_bounds and (metadata is None or metadata < 14):
                self._unsupported = UnsupportedVersion(METADATA_V14_MISSING.format(max_age_ms=policy.max_age_ms))
            elif heartbeat is None:
                self._unsupported = UnsupportedVersion(
                    f"The broker does not support ConsumerGroupHeartbeat (KIP-848), which the "
                    f"start-offset policy {policy} needs (group.protocol=consumer).")
            else:
                self._supported = True
                return
        raise type(self._unsupported)(*self._unsupported.args)

    @property
    def wire(self):
        if self._wire is None:
            from kcli.admin.wire import WireClient

            self._wire = WireClient(self.settings)
        return self._wire

    def group_creation_time(self) -> int:
        """GroupCreationTimeMs, fetched once (it never changes), or the KIP-1282 exception."""
        if self._creation is not None:
            return self._creation
        if self._creation_missing is None:
            times = self.wire.group_creation_times([self.group_id])
            if times is None:
                self._creation_missing = BROKER_TOO_OLD
            else:
                ms = times[self.group_id]
                message = NO_CREATION_TIME.format(group=self.group_id)
                if ms is None:          # not described (yet): asked again next time
                    raise GroupCreationTimeNotAvailable(message)
                if ms >= 0:
                    self._creation = ms
                    return ms
                self._creation_missing = message
        raise GroupCreationTimeNotAvailable(self._creation_missing)

    def partition_ages(self, topics: list[str], max_age_ms: int) -> dict[tuple[str, int], int]:
        """PartitionAgeMs per (topic, partition), -1 unknown, computed by the broker now."""
        try:
            return self.wire.partition_ages(topics)
        except UnsupportedByBroker:
            raise UnsupportedVersion(METADATA_V14_MISSING.format(max_age_ms=max_age_ms)) from None

    def age_bounds(self, keys: list[tuple[str, int]], starts: dict, ends: dict, now_ms: int,
                   max_age_ms: int) -> dict:
        """latest(max_age, bounds=True): AgeBounds per partition (kcli.ages): the broker's age
        where it has one (Metadata v14), else kcli's sightings (kcli.admin.sightings, written by
        kcli's commands), tightened by the first record (LogAppendTime, or CreateTime with a
        finite message.timestamp.before.max.ms) where they decide nothing."""
        def broker(topics):
            try:
                return self.wire.partition_ages(topics)
            except UnsupportedByBroker:
                return {}

        def records(wanted):
            asked = self.wire.partition_leaders(sorted({t for t, _, _ in wanted}))
            leaders = {(t, p): leader for t, parts in asked.items()
                       for p, leader in parts.items()}
            return self.wire.record_times(wanted, leaders)

        return ages.gather(keys, starts, ends, now_ms, max_age_ms, broker=broker, records=records,
                           seen=lambda topics: sightings.of_topics(sightings.path_for(self.wire.cluster_id()), topics),
                           before_max=lambda topics: ages.before_max_of(
                               self.wire.describe_configs([("topic", t) for t in topics])))

    # -- accepted KIP-1327: which partitions were created after the group ----------------------

    def before_join(self, topics: list[str]) -> None:
        """Before the consumer joins: the topics' partitions (existing now), then whether the group
        exists. A group that does not exist yet is created after those partitions: they are older
        than it (``classify``)."""
        counts = self._counts(topics)
        absent = self.group_id not in {g for g, _, _ in self.wire.list_groups()}
        self._older = counts if absent else {}

    def after_join(self, topics: list[str]) -> None:
        """Once the group has assigned this member (so the group exists): the topics' partitions
        now; any partition beyond them comes later, after the group (``classify``)."""
        if self._joined is None:
            self._joined = self._counts(topics)

    def _counts(self, topics: list[str]) -> dict[str, int]:
        return {t: len(parts) for t, parts in self.wire.partition_leaders(sorted(set(topics)), refresh=True).items()}

    def classify(self, keys: list[tuple[str, int]]) -> dict[tuple[str, int], bool | None]:
        """Whether each partition was created after the group: by the broker's creation times
        where it has both (KIP-1282's group, KIP-1327's partition), else by what this consumer saw
        (``before_join``, ``after_join``); None when neither proves it either way."""
        group_created = (self.wire.group_creation_times([self.group_id]) or {}).get(self.group_id)
        created = {}
        if group_created is not None and group_created >= 0:
            for t in self.wire.describe_topics(sorted({t for t, _ in keys})):
                created.update({(t.name, p.partition): p.creation_time_ms for p in t.partitions})
        out = {}
        for t, p in keys:
            c = created.get((t, p))
            if c is not None and c >= 0:
                out[(t, p)] = True if c > group_created else False if c < group_created else None
            elif p < self._older.get(t, 0):
                out[(t, p)] = False
            elif self._joined is not None and t in self._joined and p >= self._joined[t]:
                out[(t, p)] = True
            else:
                out[(t, p)] = None
        return out

    def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None

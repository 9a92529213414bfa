"""The broker-side anchors of the KIP policies, read through ``kcli.admin.wire.WireClient``:
the group creation time (ConsumerGroupDescribe v2, KIP-1282) and the partition ages
(Metadata v14 PartitionAgeMs, KIP-1327). The client connects on first use."""

from __future__ import annotations

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
            elif policy.max_age_ms >= 0 and (metadata is None or metadata < 14):
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

    def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None

"""The group coordinator of one cluster: every group (classic, consumer protocol, streams and
share) and every committed offset and share-partition state, whichever node coordinates them.
Handlers check the coordinator node; this class owns the state and its persistence."""

from __future__ import annotations

import uuid
from typing import Iterable

from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups.classic import ClassicGroup
from kcli.broker.groups.config import GroupConfig
from kcli.broker.groups.consumer import INITIAL_EPOCH, ConsumerGroup
from kcli.broker.groups.share import INITIAL_EPOCH as SHARE_INITIAL_EPOCH
from kcli.broker.groups.share import ShareGroup, SharePartition, ShareSettings, valid_reset
from kcli.broker.groups.store import Committed, GroupRecord, GroupStore
from kcli.broker.groups.streams import StreamsGroup, TopicInfo, Topology
from kcli.broker.groups.timers import Timers

Group = ClassicGroup | ConsumerGroup | StreamsGroup | ShareGroup

# The share-group configs a group may set (IncrementalAlterConfigs, resource type GROUP), with
# the broker configs that give their defaults and bounds.
SHARE_GROUP_CONFIGS = ("share.auto.offset.reset", "share.record.lock.duration.ms",
                       "share.delivery.count.limit")


class GroupCoordinator:
    def __init__(self, cluster, config: GroupConfig | None = None):
        self.cluster = cluster
        self.config = config or GroupConfig()
        self.timers = Timers()
        self.store = GroupStore(getattr(cluster, "data_dir", None))
        self.groups: dict[str, Group] = {}
        for group_id, record in self.store.groups.items():
            if record.type == "consumer":
                self._add_consumer(group_id, record.creation_time_ms, record.epoch,
                                   record.assignment_epoch)
            elif record.type == "share":
                self._add_share(group_id, record.creation_time_ms, record.epoch)
            elif record.type == "streams":
                self._add_streams(group_id, record.creation_time_ms, record.epoch, record.assignment_epoch,
                                  Topology.from_json(record.topology) if record.topology else None)
            else:
                self._add_classic(group_id, record.protocol_type)
        for group_id in self.store.offsets:
            if group_id not in self.groups:
                self._add_classic(group_id, None)

    # ---- the cluster's topics ------------------------------------------------------------
    def topics_view(self) -> dict[str, tuple[uuid.UUID, int]]:
        return {name: (t.topic_id, len(t.partitions)) for name, t in self.cluster.topics.items()}

    # ---- groups --------------------------------------------------------------------------
    def group(self, group_id: str) -> Group | None:
        return self.groups.get(group_id)

    def create_consumer_group(self, group_id: str, creation_time_ms: int | None = None) -> ConsumerGroup:
        """Create an empty consumer-protocol group. ``creation_time_ms`` defaults to now, or to
        -1 (unknown, as for a group that predates KIP-1282) when the cluster does not record
        creation times; pass -1 to create such a group explicitly."""
        existing = self.groups.get(group_id)
        if existing is not None:
            if isinstance(existing, ConsumerGroup):
                return existing
            if not existing.is_empty:
                raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
            self.groups.pop(group_id).shutdown()      # converted; its offsets stay
        group = self._add_consumer(group_id, self._creation_stamp(creation_time_ms), INITIAL_EPOCH)
        self._persist(group)
        return group

    def _creation_stamp(self, creation_time_ms: int | None) -> int:
        if creation_time_ms is not None:
            return creation_time_ms
        record_times = getattr(self.cluster, "record_creation_times", True)
        return self.cluster.now_ms() if record_times else -1

    def streams_group(self, group_id: str, create: bool) -> StreamsGroup:
        """The streams group ``group_id``; with ``create`` (a member joining), created if absent
        (creation time: now) or in place of an empty classic group, as Kafka's
        getOrCreateStreamsGroup. Any other group of that id: GROUP_ID_NOT_FOUND."""
        existing = self.groups.get(group_id)
        if isinstance(existing, StreamsGroup):
            return existing
        if existing is None and not create:
            raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Streams group {group_id} not found.")
        if existing is not None:
            if not (create and existing.kind == "classic" and existing.is_empty):
                raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a streams group.")
            self.groups.pop(group_id).shutdown()      # converted; its offsets stay
        group = self._add_streams(group_id, self._creation_stamp(None), INITIAL_EPOCH)
        self._persist(group)
        return group

    def share_group(self, group_id: str, create: bool) -> ShareGroup:
        """The share group ``group_id``; with ``create`` (a member joining), created if absent or
        in place of an empty classic group. Any other group of that id: GROUP_ID_NOT_FOUND."""
        existing = self.groups.get(group_id)
        if isinstance(existing, ShareGroup):
            return existing
        if existing is None and not create:
            raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        if existing is not None:
            if not (create and existing.kind == "classic" and existing.is_empty
                    and not self.store.offsets.get(group_id)):
                raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.")
            self.groups.pop(group_id).shutdown()
        group = self._add_share(group_id, self._creation_stamp(None), SHARE_INITIAL_EPOCH)
        self._persist(group)
        return group

    def share_settings(self, group_id: str) -> ShareSettings:
        config, own = self.config, self.store.group_configs.get(group_id, {})
        return ShareSettings(
            auto_offset_reset=own.get("share.auto.offset.reset", "latest"),
            record_lock_duration_ms=int(own.get("share.record.lock.duration.ms",
                                                config.share_record_lock_duration_ms)),
            delivery_count_limit=int(own.get("share.delivery.count.limit", config.share_delivery_count_limit)),
            partition_max_record_locks=config.share_partition_max_record_locks)

    def group_configs(self, group_id: str) -> dict[str, str]:
        return dict(self.store.group_configs.get(group_id, {}))

    def set_group_configs(self, group_id: str, configs: dict[str, str], validate_only: bool = False) -> None:
        """A group's dynamic configs, replaced (Kafka's GroupConfig names and bounds)."""
        c = self.config
        for name, value in configs.items():
            if name not in SHARE_GROUP_CONFIGS:
                raise BrokerError(Err.INVALID_CONFIG, f"Unknown group config name: {name}")
            if name == "share.auto.offset.reset":
                if not valid_reset(value or ""):
                    raise BrokerError(Err.INVALID_CONFIG, f"Invalid value {value} for configuration {name}: "
                                      f"Invalid value `{value}` for configuration {name}. The value must be either "
                                      "'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.")
                continue
            least, low, high = ((1000, c.share_min_record_lock_duration_ms, c.share_max_record_lock_duration_ms)
                                if name == "share.record.lock.duration.ms"
                                else (2, c.share_min_delivery_count_limit, c.share_max_delivery_count_limit))
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise BrokerError(Err.INVALID_CONFIG, f"Invalid value {value} for configuration {name}: "
                                  "Not a number of type INT") from None
            if number < least:          # the config's own definition, then the broker's bounds
                raise BrokerError(Err.INVALID_CONFIG, f"Invalid value {value} for configuration {name}: "
                                  f"Value must be at least {least}")
            if not low <= number <= high:
                raise BrokerError(Err.INVALID_CONFIG, f"{name} must be in the range {low} to {high} inclusive.")
        if not validate_only:
            self.store.put_group_configs(group_id, configs)

    def classic_group(self, group_id: str) -> ClassicGroup:
        """The classic group ``group_id``, created empty if absent; an empty consumer-protocol
        group of that id is converted, a non-empty one refuses classic members."""
        existing = self.groups.get(group_id)
        if isinstance(existing, ClassicGroup):
            return existing
        if existing is not None:
            if not existing.is_empty:
                # a streams group's members are not classic members (Kafka: "not a classic group")
                raise BrokerError(Err.UNKNOWN_MEMBER_ID if existing.kind == "streams"
                                 else Err.INCONSISTENT_GROUP_PROTOCOL)
            self.groups.pop(group_id).shutdown()      # converted; its offsets stay
        group = self._add_classic(group_id, None)
        self._persist(group)
        return group

    def consumer_group(self, group_id: str, create: bool) -> ConsumerGroup:
        existing = self.groups.get(group_id)
        if isinstance(existing, ConsumerGroup):
            return existing
        if existing is None and not create:
            raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
        if existing is not None and not (create and existing.kind == "classic" and existing.is_empty):
            raise BrokerError(Err.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        return self.create_consumer_group(group_id)

    def delete_group(self, group_id: str) -> Err:
        group = self.groups.get(group_id)
        if group is None:
            return Err.GROUP_ID_NOT_FOUND
        try:
            group.validate_delete()
        except BrokerError as exc:
            return exc.code
        self._forget(group_id)
        return Err.NONE

    def _forget(self, group_id: str) -> None:
        group = self.groups.pop(group_id)
        group.shutdown()
        self.store.delete_group(group_id)

    def _add_classic(self, group_id: str, protocol_type: str | None) -> ClassicGroup:
        group = ClassicGroup(group_id, self.config, self.timers, protocol_type)
        group.on_change = lambda: self._persist(group)
        self.groups[group_id] = group
        return group

    def _add_consumer(self, group_id: str, creation_time_ms: int, epoch: int,
                      assignment_epoch: int | None = None) -> ConsumerGroup:
        group = ConsumerGroup(group_id, self.config, self.timers, self.topics_view, creation_time_ms, epoch,
                              assignment_epoch)
        group.on_change = lambda: self._persist(group)
        self.groups[group_id] = group
        return group

    def _add_share(self, group_id: str, creation_time_ms: int, epoch: int) -> ShareGroup:
        stored = {(uuid.UUID(t), p): SharePartition.from_snapshot(snap)
                  for (t, p), snap in self.store.share.get(group_id, {}).items()}
        group = ShareGroup(group_id, self.timers, self.topics_view, lambda: self.share_settings(group_id),
                           self.config.share_session_timeout_ms, self.config.share_max_size, creation_time_ms,
                           epoch, stored)
        group.on_change = lambda: self._persist(group)
        group.on_partition_change = lambda tp: self.save_share_partition(group, tp)
        group.on_release = lambda: getattr(self.cluster, "notify_append", lambda: None)()
        self.groups[group_id] = group
        return group

    def save_share_partition(self, group: ShareGroup, tp) -> None:
        sp = group.partitions.get(tp)
        self.store.put_share(group.group_id, str(tp[0]), tp[1], None if sp is None else sp.snapshot())

    def _add_streams(self, group_id: str, creation_time_ms: int, epoch: int,
                     assignment_epoch: int | None = None, topology: Topology | None = None) -> StreamsGroup:
        group = StreamsGroup(group_id, self.config, self.timers, self.topics_view, creation_time_ms, epoch,
                             assignment_epoch, create_topic=self._create_internal_topic, topology=topology)
        group.on_change = lambda: self._persist(group)
        self.groups[group_id] = group
        return group

    def _create_internal_topic(self, info: TopicInfo, partitions: int) -> str | None:
        """A streams group's repartition or changelog topic, as the coordinator creates it
        (CreateTopics with the declared configs; replication factor 0: the broker's default).
        Returns why it failed (None: created); the topic stays missing and the group's heartbeats
        keep answering MISSING_INTERNAL_TOPICS, with that reason."""
        try:
            self.cluster.create_topic(info.name, partitions, info.replication_factor or -1,
                                      configs=dict(info.configs))
        except BrokerError as exc:
            return str(exc)
        return None

    def _persist(self, group: Group) -> None:
        if isinstance(group, ShareGroup):
            record = GroupRecord("share", "share", group.creation_time_ms, group.group_epoch, group.group_epoch)
        elif isinstance(group, (ConsumerGroup, StreamsGroup)):
            topology = group.topology.to_json() if isinstance(group, StreamsGroup) and group.topology else None
            record = GroupRecord(group.kind, group.protocol_type, group.creation_time_ms, group.group_epoch,
                                 group.assignment_epoch, topology)
        else:
            record = GroupRecord("classic", group.protocol_type)
        self.store.put_group(group.group_id, record)

    # ---- offsets -------------------------------------------------------------------------
    def committed(self, group_id: str) -> dict[tuple[str, int], Committed]:
        return self.store.offsets.get(group_id, {})

    def group_for_commit(self, group_id: str, generation: int, api_version: int) -> Group:
        group = self.groups.get(group_id)
        if group is not None:
            return group
        if generation < 0:
            return self.classic_group(group_id)      # a "simple" group, as Kafka creates
        if api_version >= 9:
            raise BrokerError(Err.GROUP_ID_NOT_FOUND)
        raise BrokerError(Err.ILLEGAL_GENERATION)

    def commit(self, group_id: str, entries: list[tuple[str, int, Committed]]) -> None:
        self.store.commit(group_id, entries)

    def delete_offsets(self, group_id: str, keys: Iterable[tuple[str, int]]) -> None:
        self.store.delete_offsets(group_id, list(keys))

    def forget_topic(self, topic: str) -> None:
        for group_id, offsets in list(self.store.offsets.items()):
            self.delete_offsets(group_id, [k for k in offsets if k[0] == topic])
        live = {t.topic_id for t in self.cluster.topics.values()}
        for group in self.groups.values():
            if isinstance(group, ShareGroup):
                for tp in [tp for tp in group.partitions if tp[0] not in live]:
                    del group.partitions[tp]
                    self.save_share_partition(group, tp)

    def close(self) -> None:
        for group in self.groups.values():
            group.shutdown()
        self.timers.cancel_all()
        self.store.close()

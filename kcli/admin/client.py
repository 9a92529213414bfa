"""The admin adapter: the one interface commands call. Implemented on confluent-kafka's
AdminClient; the KIP requests no client library exposes go through ``kcli.admin.kip`` (kafka-python's
protocol layer), loaded only by the operations that need them."""

from __future__ import annotations

import logging
from typing import Iterable

from confluent_kafka import KafkaException, TopicPartition
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry as CkConfigEntry,
                                   ConfigResource, NewPartitions, NewTopic, OffsetSpec)

from kcli.admin.settings import ClientSettings
from kcli.errors import OperationError, UnsupportedByBroker
from kcli.model import (INTERNAL_TOPICS, ConfigEntry, OffsetInfo, PartitionInfo, ResourceConfig,
                        TopicInfo)

_quiet = logging.getLogger("kcli.librdkafka")
_quiet.addHandler(logging.NullHandler())
_quiet.propagate = False

SPECIAL_TIMES = {"latest": -1, "earliest": -2, "max-timestamp": -3}


def _err(exc: BaseException) -> str:
    if isinstance(exc, KafkaException) and exc.args:
        e = exc.args[0]
        return e.str() if hasattr(e, "str") else str(e)
    return str(exc)


class KafkaAdmin:
    def __init__(self, settings: ClientSettings):
        self.settings = settings
        self._admin = AdminClient(settings.librdkafka_config(), logger=_quiet)
        self._kip = None

    # -- plumbing -------------------------------------------------------------------------
    @property
    def kip(self):
        if self._kip is None:
            from kcli.admin.kip import KipClient

            self._kip = KipClient(self.settings)
        return self._kip

    def close(self) -> None:
        if self._kip is not None:
            self._kip.close()

    def _wait(self, futures: dict, what: str) -> dict:
        results, errors = {}, {}
        for key, fut in futures.items():
            try:
                results[key] = fut.result(timeout=self.settings.timeout_s)
            except Exception as exc:  # noqa: BLE001 - each future's error is reported per item
                errors[key] = exc
        if errors and not results and len(errors) == len(futures) and len(futures) == 1:
            raise OperationError(f"{what} failed: {_err(next(iter(errors.values())))}")
        return {"ok": results, "errors": errors}

    # -- topics ---------------------------------------------------------------------------
    def topic_names(self) -> list[str]:
        try:
            md = self._admin.list_topics(timeout=self.settings.timeout_s)
        except KafkaException as exc:
            raise OperationError(
                f"Cannot reach the cluster at {self.settings.bootstrap_servers} "
                f"within {self.settings.timeout_ms} ms: {_err(exc)}") from None
        return sorted(md.topics)

    def partition_counts(self, names: list[str]) -> dict[str, int]:
        md = self._admin.list_topics(timeout=self.settings.timeout_s)
        return {n: len(md.topics[n].partitions) for n in names if n in md.topics}

    def live_broker_ids(self) -> list[int]:
        md = self._admin.list_topics(timeout=self.settings.timeout_s)
        return sorted(md.brokers)

    def describe_topics(self, names: list[str]) -> list[TopicInfo]:
        """Leader, replicas, ISR, ELR and CreationTimeMs per partition, through
        DescribeTopicPartitions (v1 when offered; CreationTimeMs is None below v1)."""
        topics = self.kip.describe_topic_partitions(names)
        for t in topics:
            t.internal = t.name in INTERNAL_TOPICS
        return topics

    def create_topic(self, name: str, partitions: int | None, replication_factor: int | None,
                     configs: dict[str, str], assignment: list[list[int]] | None,
                     validate_only: bool = False) -> None:
        kwargs = {"config": configs}
        if assignment:
            kwargs["replica_assignment"] = assignment
        else:
            kwargs["num_partitions"] = partitions if partitions is not None else -1
            kwargs["replication_factor"] = replication_factor if replication_factor is not None else -1
        futures = self._admin.create_topics([NewTopic(name, **kwargs)], validate_only=validate_only,
                                            request_timeout=self.settings.timeout_s,
                                            operation_timeout=self.settings.timeout_s)
        self._raise_first(futures)

    def create_partitions(self, name: str, total: int, assignment: list[list[int]] | None) -> None:
        np = NewPartitions(name, total, assignment) if assignment else NewPartitions(name, total)
        self._raise_first(self._admin.create_partitions([np], request_timeout=self.settings.timeout_s))

    def delete_topics(self, names: list[str]) -> dict[str, str | None]:
        futures = self._admin.delete_topics(names, request_timeout=self.settings.timeout_s,
                                            operation_timeout=self.settings.timeout_s)
        return self._per_item(futures)

    # -- configs --------------------------------------------------------------------------
    def describe_configs(self, resources: list[tuple[str, str]]) -> list[ResourceConfig]:
        crs = [ConfigResource(rtype, name) for rtype, name in resources]
        futures = self._admin.describe_configs(crs, request_timeout=self.settings.timeout_s)
        out = []
        for (rtype, name), cr in zip(resources, crs):
            try:
                entries = futures[cr].result(timeout=self.settings.timeout_s)
            except Exception as exc:  # noqa: BLE001
                raise OperationError(f"Cannot describe configs of {rtype} '{name}': {_err(exc)}") from None
            out.append(ResourceConfig(rtype, name, [_config_entry(e) for e in
                                                    sorted(entries.values(), key=lambda e: e.name)]))
        return out

    def alter_configs(self, rtype: str, name: str, set_: dict[str, str], delete: list[str]) -> None:
        entries = [CkConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in set_.items()]
        entries += [CkConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE) for k in delete]
        cr = ConfigResource(rtype, name, incremental_configs=entries)
        self._raise_first(self._admin.incremental_alter_configs([cr], request_timeout=self.settings.timeout_s))

    # -- offsets --------------------------------------------------------------------------
    def list_offsets(self, partitions: Iterable[tuple[str, int]], time: int) -> list[OffsetInfo]:
        """``time``: -1 latest, -2 earliest, -3 max-timestamp (KIP-734), else epoch ms."""
        spec = {-1: OffsetSpec.latest, -2: OffsetSpec.earliest,
                -3: OffsetSpec.max_timestamp}.get(time)
        spec = spec() if spec else OffsetSpec.for_timestamp(time)
        req = {TopicPartition(t, p): spec for t, p in partitions}
        if not req:
            return []
        futures = self._admin.list_offsets(req, request_timeout=self.settings.timeout_s)
        out = []
        for tp, fut in futures.items():
            try:
                r = fut.result(timeout=self.settings.timeout_s)
            except Exception as exc:  # noqa: BLE001
                msg = _err(exc)
                if time == -3 and "UNSUPPORTED_VERSION" in msg.upper().replace(" ", "_"):
                    raise UnsupportedByBroker(
                        "The broker does not support ListOffsets v7, which --max-timestamp "
                        "(KIP-734) needs") from None
                out.append(OffsetInfo(tp.topic, tp.partition, -1, error=msg))
                continue
            ts = r.timestamp if time not in (-1, -2) else None
            out.append(OffsetInfo(tp.topic, tp.partition, r.offset, ts, r.leader_epoch))
        return sorted(out, key=lambda o: (o.topic, o.partition))

    # -- helpers --------------------------------------------------------------------------
    def _raise_first(self, futures: dict) -> None:
        for fut in futures.values():
            try:
                fut.result(timeout=self.settings.timeout_s)
            except Exception as exc:  # noqa: BLE001
                raise OperationError(_err(exc)) from None

    def _per_item(self, futures: dict) -> dict[str, str | None]:
        result = {}
        for key, fut in futures.items():
            try:
                fut.result(timeout=self.settings.timeout_s)
                result[key] = None
            except Exception as exc:  # noqa: BLE001
                result[key] = _err(exc)
        return result


def _config_entry(e) -> ConfigEntry:
    source = e.source.name if hasattr(e.source, "name") else str(e.source)
    return ConfigEntry(
        name=e.name, value=e.value, source=source, is_default=e.is_default,
        is_sensitive=e.is_sensitive, read_only=e.is_read_only,
        synonyms=[(s.name, s.value, s.source.name if hasattr(s.source, "name") else str(s.source))
                  for s in e.synonyms.values()],
    )

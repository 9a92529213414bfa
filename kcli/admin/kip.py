"""The KIP requests no client library exposes, sent with kafka-python's protocol layer after
ApiVersions negotiation: DescribeTopicPartitions v1 (CreationTimeMs, KIP-1327), Metadata v14
(PartitionAgeMs, KIP-1327), ConsumerGroupDescribe v2 (GroupCreationTimeMs, KIP-1282).

kafka-python is imported only here on the client side (its response registry is process-global;
``kcli.protocol`` declares the KIP classes once). ``KafkaNetClient`` is semi-internal, hence the pin.
"""

from __future__ import annotations

import logging

from kcli.admin.settings import ClientSettings
from kcli.errors import OperationError, UnsupportedByBroker
from kcli.model import PartitionInfo, TopicInfo

logging.getLogger("kafka").addHandler(logging.NullHandler())
logging.getLogger("kafka").propagate = False

PARTITION_LIMIT = 2000


class KipClient:
    def __init__(self, settings: ClientSettings):
        from kafka.net.compat import KafkaNetClient

        import kcli.protocol as proto

        self.proto = proto
        self.settings = settings
        try:
            self._client = KafkaNetClient(**settings.kafka_python_config())
            self._client.check_version(timeout_ms=settings.timeout_ms)
        except Exception as exc:  # noqa: BLE001 - any failure to connect is one clear line
            raise OperationError(f"Cannot reach the cluster at {settings.bootstrap_servers} "
                                 f"within {settings.timeout_ms} ms: {exc}") from None

    def close(self) -> None:
        self._client.close()

    def max_version(self, request_class) -> int | None:
        """The highest version both sides speak, or None when the broker lacks the API."""
        data = self._client._manager.broker_version_data
        ranges = data.api_versions if data else {}
        broker = ranges.get(request_class.API_KEY)
        if broker is None:
            return None
        top = min(broker[1], request_class.max_version)
        return top if top >= broker[0] else None

    def send(self, request, node_id=None):
        if node_id is None:
            node_id = self._client.least_loaded_node(bootstrap_fallback=True)
        try:
            return self._client.send_and_receive(node_id, request, timeout_ms=self.settings.timeout_ms)
        except Exception as exc:  # noqa: BLE001
            raise OperationError(f"{type(request).__name__} failed: {exc}") from None

    # -- KIP-1327 -------------------------------------------------------------------------
    def describe_topic_partitions(self, names: list[str]) -> list[TopicInfo]:
        Req = self.proto.DescribeTopicPartitionsRequest
        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support DescribeTopicPartitions")
        by_name: dict[str, TopicInfo] = {}
        cursor = None
        pending = list(names)
        for _ in range(100_000):  # bounded: each round returns at least one partition or ends
            req = Req(version=version, topics=[Req.TopicRequest(name=n) for n in pending],
                      response_partition_limit=PARTITION_LIMIT, cursor=cursor)
            resp = self.send(req)
            for t in resp.topics:
                if t.error_code:
                    from kafka.errors import for_code

                    raise OperationError(f"Topic '{t.name}': {for_code(t.error_code).message}")
                info = by_name.setdefault(t.name, TopicInfo(
                    t.name, str(t.topic_id) if t.topic_id else None, []))
                for p in t.partitions:
                    info.partitions.append(PartitionInfo(
                        partition=p.partition_index,
                        leader=p.leader_id if p.leader_id >= 0 else None,
                        replicas=list(p.replica_nodes), isr=list(p.isr_nodes),
                        elr=list(p.eligible_leader_replicas or []),
                        last_known_elr=list(p.last_known_elr or []),
                        creation_time_ms=p.creation_time_ms if version >= 1 else None,
                        leader_epoch=p.leader_epoch))
            if resp.next_cursor is None:
                break
            cursor = Req.Cursor(topic_name=resp.next_cursor.topic_name,
                                partition_index=resp.next_cursor.partition_index)
            pending = names[names.index(resp.next_cursor.topic_name):]
        for info in by_name.values():
            info.partitions.sort(key=lambda p: p.partition)
        return [by_name[n] for n in names if n in by_name]

"""The KIP requests no client library exposes, sent with kafka-python's protocol layer after
ApiVersions negotiation: DescribeTopicPartitions v1 (CreationTimeMs, KIP-1327), Metadata v14
(PartitionAgeMs, KIP-1327), ConsumerGroupDescribe v2 (GroupCreationTimeMs, KIP-1282).

kafka-python is imported only here on the client side (its response registry is process-global;
``kcli.protocol`` declares the KIP classes once). ``KafkaNetClient`` is semi-internal, hence the pin.
"""

from __future__ import annotations

import base64
import logging

from kcli.admin.settings import ClientSettings
from kcli.errors import OperationError, UnsupportedByBroker
from kcli.model import PartitionInfo, TopicInfo

logging.getLogger("kafka").addHandler(logging.NullHandler())
logging.getLogger("kafka").propagate = False

PARTITION_LIMIT = 2000


def kafka_uuid(value) -> str | None:
    """A topic id as Kafka prints it (Uuid.toString: URL-safe base64, no padding)."""
    if value is None or value.int == 0:
        return None
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


class KipClient:
    def __init__(self, settings: ClientSettings):
        import kcli.protocol as proto             # first: it lets kafka-python's modules load alone
        from kafka.net.compat import KafkaNetClient

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
                info = by_name.setdefault(t.name, TopicInfo(t.name, kafka_uuid(t.topic_id), []))
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

    # -- groups: coordinators -------------------------------------------------------------
    def find_coordinators(self, group_ids: list[str]) -> dict[str, int]:
        """Coordinator node id per group: one FindCoordinator (v4+ batches every key; older
        versions take one request per group)."""
        from kafka.errors import for_code

        Req = self.proto.REQUESTS[10]
        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support FindCoordinator")
        found: dict[str, int] = {}
        if version >= 4:
            resp = self.send(Req(version=version, key_type=0, coordinator_keys=list(group_ids)))
            answers = [(c.key, c.error_code, c.node_id) for c in resp.coordinators]
        else:
            answers = []
            for g in group_ids:
                resp = self.send(Req(version=version, key=g, key_type=0) if version >= 1
                                 else Req(version=version, key=g))
                answers.append((g, resp.error_code, resp.node_id))
        for key, code, node in answers:
            if code:
                raise OperationError(f"Cannot find the coordinator of group '{key}': "
                                     f"{for_code(code).description}")
            found[key] = node
        return found

    # -- KIP-1282 -------------------------------------------------------------------------
    def consumer_group_describe_version(self) -> int | None:
        return self.max_version(self.proto.ConsumerGroupDescribeRequest)

    def describe_consumer_groups_v2(self, group_ids: list[str]) -> dict[str, object]:
        """ConsumerGroupDescribe at the highest common version (GroupCreationTimeMs from v2),
        one request per coordinator. Returns the described group per id, for the groups the
        broker knows as consumer-protocol groups (others come back with an error and are left
        out)."""
        Req = self.proto.ConsumerGroupDescribeRequest
        version = self.max_version(Req)
        if version is None or not group_ids:
            return {}
        by_node: dict[int, list[str]] = {}
        for g, node in self.find_coordinators(group_ids).items():
            by_node.setdefault(node, []).append(g)
        out = {}
        for node, groups in by_node.items():
            resp = self.send(Req(version=version, group_ids=groups,
                                 include_authorized_operations=False), node)
            for g in resp.groups:
                if not g.error_code:
                    out[g.group_id] = g
        return out

    # -- KIP-1327: partition age ----------------------------------------------------------
    def partition_ages(self, topics: list[str]) -> dict[tuple[str, int], int]:
        """PartitionAgeMs per partition (-1 unknown) from one Metadata v14 request."""
        Req = self.proto.MetadataRequest
        version = self.max_version(Req)
        if version is None or version < 14:
            raise UnsupportedByBroker(
                "The broker does not support Metadata v14 (PartitionAgeMs, KIP-1327), which "
                "--max-age needs; nothing was reset")
        resp = self.send(Req(version=14, topics=[Req.MetadataRequestTopic(name=t) for t in topics],
                             allow_auto_topic_creation=False,
                             include_topic_authorized_operations=False))
        return {(t.name, p.partition_index): p.partition_age_ms
                for t in resp.topics for p in t.partitions}

    # -- delete-offsets (OffsetDelete; no client library exposes it) ---------------------
    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]]) -> tuple:
        """(group-level error or None, {(topic, partition): error or None}); an error is the
        pair (NAME, description)."""
        from kafka.errors import for_code

        Req = self.proto.REQUESTS[47]
        version = self.max_version(Req)
        if version is None:
            raise UnsupportedByBroker("The broker does not support OffsetDelete")
        node = self.find_coordinators([group_id])[group_id]
        topics: dict[str, list[int]] = {}
        for t, p in partitions:
            topics.setdefault(t, []).append(p)
        req = Req(version=version, group_id=group_id, topics=[
            Req.OffsetDeleteRequestTopic(name=t, partitions=[
                Req.OffsetDeleteRequestTopic.OffsetDeleteRequestPartition(partition_index=p)
                for p in ps]) for t, ps in topics.items()])
        resp = self.send(req, node)

        def error(code):
            return (for_code(code).message, for_code(code).description) if code else None

        per = {(t.name, p.partition_index): error(p.error_code) for t in resp.topics for p in t.partitions}
        return error(resp.error_code), per

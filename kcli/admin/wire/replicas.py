"""Replicas on kcli's own connection: AlterPartitionReassignments and ListPartitionReassignments
(librdkafka has no call for them) and ElectLeaders (confluent-kafka's call takes no deadline), all
answered by the controller (any broker forwards them)."""

from __future__ import annotations

from kcli.admin.wire.base import WireBase, error_name
from kcli.errors import OperationError
from kcli.model import BrokerError, Reassignment

TP = tuple[str, int]


def _raise_top(resp, what: str) -> None:
    if resp.error_code:
        raise OperationError(f"{what} failed: {resp.error_message or error_name(resp.error_code)}")


class ReplicaRequests(WireBase):
    def alter_reassignments(self, moves: dict[TP, list[int] | None], allow_rf_change: bool = True
                            ) -> dict[TP, BrokerError | None]:
        """Start each partition's move to its replicas (None: cancel its move in progress); each
        partition's outcome. ``allow_rf_change`` False (v1+, KIP-860): the controller refuses a
        move that changes a partition's replication factor."""
        from kafka.protocol.admin.topics import AlterPartitionReassignmentsRequest as Req

        version = self._version(Req, "AlterPartitionReassignments")
        by_topic: dict[str, list] = {}
        for (topic, partition), replicas in moves.items():
            by_topic.setdefault(topic, []).append(Req.ReassignableTopic.ReassignablePartition(
                partition_index=partition, replicas=replicas))
        kwargs = {"allow_replication_factor_change": allow_rf_change} if version >= 1 else {}
        resp = self.send(Req(version=version, timeout_ms=self.settings.timeout_ms, **kwargs,
                             topics=[Req.ReassignableTopic(name=t, partitions=ps)
                                     for t, ps in by_topic.items()]))
        _raise_top(resp, "AlterPartitionReassignments")
        return {(t.name, p.partition_index):
                BrokerError(p.error_code, error_name(p.error_code), p.error_message or "")
                if p.error_code else None
                for t in resp.responses for p in t.partitions}

    def list_reassignments(self, partitions: list[TP] | None = None) -> list[Reassignment]:
        """The reassignments in progress (of ``partitions``, or every one)."""
        from kafka.protocol.admin.topics import ListPartitionReassignmentsRequest as Req

        version = self._version(Req, "ListPartitionReassignments")
        topics = None
        if partitions is not None:
            by_topic: dict[str, list[int]] = {}
            for t, p in partitions:
                by_topic.setdefault(t, []).append(p)
            topics = [Req.ListPartitionReassignmentsTopics(name=t, partition_indexes=ps)
                      for t, ps in by_topic.items()]
        resp = self.send(Req(version=version, timeout_ms=self.settings.timeout_ms, topics=topics))
        _raise_top(resp, "ListPartitionReassignments")
        return sorted((Reassignment(t.name, p.partition_index, list(p.replicas),
                                    list(p.adding_replicas), list(p.removing_replicas))
                       for t in resp.topics for p in t.partitions),
                      key=lambda r: (r.topic, r.partition))

    def elect_leaders(self, unclean: bool, partitions: list[TP] | None) -> dict[TP, BrokerError | None]:
        """Each partition's election outcome (for ``partitions`` None, the controller names only
        the partitions it elected a leader for or failed to)."""
        from kafka.protocol.admin.topics import ElectLeadersRequest as Req

        version = self._version(Req, "ElectLeaders")
        if unclean and version < 1:
            raise OperationError("The broker does not support unclean leader elections "
                                 "(ElectLeaders v1)")
        topics = None
        if partitions is not None:
            by_topic: dict[str, list[int]] = {}
            for t, p in partitions:
                by_topic.setdefault(t, []).append(p)
            topics = [Req.TopicPartitions(topic=t, partitions=ps) for t, ps in by_topic.items()]
        kwargs = {"election_type": 1 if unclean else 0} if version >= 1 else {}
        resp = self.send(Req(version=version, timeout_ms=self.settings.timeout_ms,
                             topic_partitions=topics, **kwargs))
        if getattr(resp, "error_code", 0):
            raise OperationError(f"ElectLeaders failed: {error_name(resp.error_code)}")
        return {(t.topic, p.partition_id):
                BrokerError(p.error_code, error_name(p.error_code), p.error_message or "")
                if p.error_code else None
                for t in resp.replica_election_results for p in t.partition_result}

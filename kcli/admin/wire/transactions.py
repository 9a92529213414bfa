"""Transactions on kcli's own connection (librdkafka has no admin call for any of them):
ListTransactions (v0-2: the duration and transactional-id filters) to every broker,
DescribeTransactions (v0) to each id's transaction coordinator (FindCoordinator, key type 1),
DescribeProducers (v0) to a partition's leader or a named replica, and WriteTxnMarkers (an
abort marker, as Java's ``Admin.abortTransaction`` writes it) to the partition's leader."""

from __future__ import annotations

from kcli.admin.wire.base import error_name
from kcli.admin.wire.offsets import OffsetRequests
from kcli.errors import BrokerRejected, OperationError, UnsupportedByBroker
from kcli.model import BrokerError, ProducerState, TransactionDescription, TransactionListing

TRANSACTION_KEY = 1                        # FindCoordinator's key type for a transactional id
TRANSACTIONAL_ID_NOT_FOUND = 105


def rejected(code: int, message: str | None, what: str) -> BrokerRejected:
    name = error_name(code)
    return BrokerRejected(BrokerError(code, name, message or f"{what}: {name}"))


class TransactionRequests(OffsetRequests):
    def list_transactions(self, producer_ids: list[int] | None = None, duration_ms: int | None = None,
                          pattern: str | None = None) -> list[TransactionListing]:
        """Every broker's transactional ids (each broker answers for those it coordinates), broker
        by broker in node id order, each in its answer's order; ``producer_ids``, ``duration_ms``
        (v1+: running longer than it) and ``pattern`` (v2+: a Java regular expression the broker
        matches) filter them where the broker does."""
        from kafka.protocol.admin.transactions import ListTransactionsRequest as Req

        version = self._version(Req, "ListTransactions")
        if duration_ms is not None and version < 1 or pattern is not None and version < 2:
            raise UnsupportedByBroker("The broker does not support ListTransactions "
                                      f"v{1 if pattern is None else 2} (its filters)")
        fields: dict = {"state_filters": [], "producer_id_filters": list(producer_ids or [])}
        if version >= 1:
            fields["duration_filter"] = -1 if duration_ms is None else duration_ms
        if version >= 2:
            fields["transactional_id_pattern"] = pattern
        nodes = self.broker_ids()
        found = []
        for node, resp in zip(nodes, self.send_each([(n, Req(version=version, **fields)) for n in nodes])):
            if resp.error_code:
                raise rejected(resp.error_code, None, f"ListTransactions on broker {node}")
            found += [TransactionListing(t.transactional_id, node, t.producer_id, t.transaction_state)
                      for t in resp.transaction_states]
        return found

    def last_stable_offsets(self, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """Each partition's last stable offset (ListOffsets latest, read_committed), where its
        leader answered it: the first offset of its oldest open transaction, else its high
        watermark."""
        return {(o.topic, o.partition): o.offset for o in self.list_offsets(partitions, -1, isolation_level=1)
                if o.error is None and o.offset >= 0}

    def transaction_coordinators(self, ids: list[str]) -> dict[str, int]:
        """The transaction coordinator of each id (FindCoordinator v4+ batches them)."""
        from kafka.protocol.metadata import FindCoordinatorRequest as Req

        version = self._version(Req, "FindCoordinator")
        found: dict[str, int] = {}
        if version >= 4:
            resp = self.send(Req(version=version, key_type=TRANSACTION_KEY, coordinator_keys=list(ids)))
            answers = [(c.key, c.error_code, c.error_message, c.node_id) for c in resp.coordinators]
        else:
            answers = []
            for key in ids:
                r = self.send(Req(version=version, key=key, key_type=TRANSACTION_KEY))
                answers.append((key, r.error_code, getattr(r, "error_message", None), r.node_id))
        for key, code, message, node in answers:
            if code:
                raise rejected(code, message, f"The coordinator of transactional id '{key}'")
            found[key] = node
        return found

    def describe_transactions(self, ids: list[str]) -> dict[str, TransactionDescription | BrokerError]:
        """Each id's transaction as its coordinator describes it, or the error it answered
        (TRANSACTIONAL_ID_NOT_FOUND for an id it does not know)."""
        from kafka.protocol.admin.transactions import DescribeTransactionsRequest as Req

        version = self._version(Req, "DescribeTransactions")
        by_node: dict[int, list[str]] = {}
        for key, node in self.transaction_coordinators(list(dict.fromkeys(ids))).items():
            by_node.setdefault(node, []).append(key)
        out: dict[str, TransactionDescription | BrokerError] = {}
        for node, keys in by_node.items():
            for t in self.send(Req(version=version, transactional_ids=keys), node).transaction_states:
                if t.error_code:
                    out[t.transactional_id] = BrokerError(t.error_code, error_name(t.error_code),
                                                          f"Transactional id '{t.transactional_id}': "
                                                          f"{error_name(t.error_code)}")
                    continue
                out[t.transactional_id] = TransactionDescription(
                    t.transactional_id, node, t.producer_id, t.producer_epoch, t.transaction_state,
                    t.transaction_timeout_ms, t.transaction_start_time_ms if t.transaction_start_time_ms >= 0 else None,
                    [(topic.topic, p) for topic in t.topics for p in topic.partitions])
        return out

    def describe_producers(self, partitions: list[tuple[str, int]], broker: int | None = None
                           ) -> dict[tuple[str, int], list[ProducerState] | BrokerError]:
        """The active producers of each partition, from its leader (or ``broker``, a replica):
        one DescribeProducers per broker; a partition's error (UNKNOWN_TOPIC_OR_PARTITION,
        NOT_LEADER_OR_FOLLOWER...) in its place."""
        from kafka.protocol.admin.transactions import DescribeProducersRequest as Req

        version = self._version(Req, "DescribeProducers")
        out: dict[tuple[str, int], list[ProducerState] | BrokerError] = {}
        by_node: dict[int, list[tuple[str, int]]] = {}
        if broker is not None:
            by_node[broker] = list(partitions)
        else:
            leaders = self.partition_leaders(sorted({t for t, _ in partitions}), refresh=True)
            for t, p in partitions:
                node = leaders.get(t, {}).get(p)
                if node is None:
                    code = 3 if p not in leaders.get(t, {}) else 5      # unknown, or no leader
                    out[(t, p)] = BrokerError(code, error_name(code), f"{t}-{p}: {error_name(code)}")
                else:
                    by_node.setdefault(node, []).append((t, p))
        for node, tps in by_node.items():
            topics: dict[str, list[int]] = {}
            for t, p in tps:
                topics.setdefault(t, []).append(p)
            req = Req(version=version, topics=[Req.TopicRequest(name=t, partition_indexes=ps)
                                               for t, ps in topics.items()])
            for topic in self.send(req, node).topics:
                for p in topic.partitions:
                    key = (topic.name, p.partition_index)
                    if p.error_code:
                        out[key] = BrokerError(p.error_code, error_name(p.error_code),
                                               p.error_message or f"{key[0]}-{key[1]}: {error_name(p.error_code)}")
                        continue
                    out[key] = [ProducerState(s.producer_id, s.producer_epoch, s.last_sequence, s.last_timestamp,
                                              s.coordinator_epoch if s.coordinator_epoch >= 0 else None,
                                              s.current_txn_start_offset if s.current_txn_start_offset >= 0 else None)
                                for s in p.active_producers]
        return out

    def fence_producer(self, transactional_id: str, timeout_ms: int = 60_000) -> None:
        """Fence the id's producer and abort its open transaction, as Java's Admin.fenceProducers
        (forceTerminateTransaction) does: InitProducerId with no producer id or epoch, to the id's
        coordinator; BrokerRejected on an error."""
        from kafka.protocol.producer.transaction import InitProducerIdRequest as Req

        version = self._version(Req, "InitProducerId")
        node = self.transaction_coordinators([transactional_id])[transactional_id]
        fields = {"transactional_id": transactional_id, "transaction_timeout_ms": timeout_ms}
        if version >= 3:
            fields.update(producer_id=-1, producer_epoch=-1)
        resp = self.send(Req(version=version, **fields), node)
        if resp.error_code:
            raise rejected(resp.error_code, None, f"Fencing the producer of transactional id '{transactional_id}'")

    def abort_transaction(self, topic: str, partition: int, producer_id: int, producer_epoch: int,
                          coordinator_epoch: int) -> None:
        """An abort marker for the producer's open transaction on the partition (WriteTxnMarkers
        to its leader, as Java's Admin.abortTransaction sends it); BrokerRejected on an error."""
        from kafka.protocol.producer.transaction import WriteTxnMarkersRequest as Req

        version = self._version(Req, "WriteTxnMarkers")
        leader = self.partition_leaders([topic], refresh=True).get(topic, {}).get(partition)
        if leader is None:
            raise OperationError(f"{topic}-{partition} has no leader")
        marker = {"producer_id": producer_id, "producer_epoch": producer_epoch, "transaction_result": False,
                  "topics": [Req.WritableTxnMarker.WritableTxnMarkerTopic(name=topic, partition_indexes=[partition])],
                  "coordinator_epoch": coordinator_epoch}
        if version >= 2:
            marker["transaction_version"] = 0
        resp = self.send(Req(version=version, markers=[Req.WritableTxnMarker(**marker)]), leader)
        for m in resp.markers:
            for t in m.topics:
                for p in t.partitions:
                    if p.error_code:
                        raise rejected(p.error_code, None, f"Aborting the transaction on {topic}-{partition}")

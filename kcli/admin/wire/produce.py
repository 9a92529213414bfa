"""Produce on kcli's own connection: one record batch as ``check broker`` needs it sent (its
timestamps as given, acks=-1, the KIP-467 record errors read back)."""

from __future__ import annotations

from kcli.admin.wire.metadata import MetadataRequests
from kcli.errors import OperationError, UnsupportedByBroker
from kcli.model import ProduceOutcome


class ProduceRequests(MetadataRequests):
    def produce_batch(self, topic: str, partition: int,
                      records: list[tuple[int, bytes | None, bytes | None]]) -> ProduceOutcome:
        """One v2 record batch of (timestamp, key, value), uncompressed, produced with acks=-1 to
        the partition's leader (Produce v3..v12: topics by name), and the broker's answer: the
        error and its message (v8+), the KIP-467 record errors, the base offset."""
        from kafka.errors import for_code
        from kafka.record import MemoryRecordsBuilder

        Req = self.proto.REQUESTS[0]
        version = self.max_version(Req)
        if version is None or version < 3:
            raise UnsupportedByBroker("The broker does not support Produce v3+ (record batches)")
        version = min(version, 12)
        builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 20)
        for ts, key, value in records:
            builder.append(ts, key, value)
        builder.close()
        leader = self.partition_leaders([topic], refresh=True).get(topic, {}).get(partition)
        if leader is None:
            raise OperationError(f"{topic}-{partition} has no leader")
        T = Req.TopicProduceData
        req = Req(version=version, transactional_id=None, acks=-1, timeout_ms=self.settings.timeout_ms,
                  topic_data=[T(name=topic, partition_data=[
                      T.PartitionProduceData(index=partition, records=bytes(builder.buffer()))])])
        p = self.send(req, leader).responses[0].partition_responses[0]
        return ProduceOutcome(for_code(p.error_code).message if p.error_code else None,
                              getattr(p, "error_message", None),
                              [(e.batch_index, e.batch_index_error_message)
                               for e in (getattr(p, "record_errors", None) or [])], p.base_offset)

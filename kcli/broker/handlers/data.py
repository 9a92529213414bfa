"""Produce, Fetch, ListOffsets, OffsetForLeaderEpoch, InitProducerId, DeleteRecords,
DescribeLogDirs.

Fetch and ListOffsets honour the isolation level: read_committed reads up to the last stable
offset (the first offset of the earliest open transaction), and Fetch names the aborted
transactions among the records it returns."""

from __future__ import annotations

import asyncio
import struct

from kafka.record.default_records import DefaultRecordBatch

from kcli.broker.apikeys import (DELETE_RECORDS, DESCRIBE_LOG_DIRS, FETCH, INIT_PRODUCER_ID, LIST_OFFSETS,
                                 OFFSET_FOR_LEADER_EPOCH, PRODUCE)
from kcli.broker.cluster import Cluster, Partition, Topic
from kcli.broker.configs import LONG_MAX, timestamp_bounds
from kcli.broker.acl import Op, ResourceType
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.handlers.txns import fenced
from kcli.broker.txns import transactions_for
from kcli.protocol import RESPONSES


def _java_long(x: int) -> int:
    """Wrap to a signed 64-bit value, as Java's long arithmetic in Kafka's messages does."""
    return (x + (1 << 63)) % (1 << 64) - (1 << 63)


def _resolve(cluster: Cluster, name: str | None, topic_id, by_id: bool) -> Topic:
    topic = cluster.topic_by_id(topic_id) if by_id else cluster.topics.get(name) if name is not None else None
    if topic is None:
        raise BrokerError(Err.UNKNOWN_TOPIC_ID if by_id else Err.UNKNOWN_TOPIC_OR_PARTITION)
    return topic


def _authorized(ctx: RequestContext, op: int, name: str | None, topic_id, by_id: bool) -> Topic:
    """The topic, if the principal may ``op`` it: as KafkaApis, a name is authorized before it
    is looked up (TOPIC_AUTHORIZATION_FAILED whether it exists or not); an id is looked up
    first (UNKNOWN_TOPIC_ID), then its topic authorized."""
    if not by_id and name is not None and not ctx.may(op, name):
        raise BrokerError(Err.TOPIC_AUTHORIZATION_FAILED)
    topic = _resolve(ctx.cluster, name, topic_id, by_id)
    if by_id and not ctx.may(op, topic.name):
        raise BrokerError(Err.TOPIC_AUTHORIZATION_FAILED)
    return topic


def _leader_partition(ctx: RequestContext, topic: Topic | None, index: int,
                      current_leader_epoch: int = -1) -> Partition:
    """The partition if this node leads it at the client's epoch, else BrokerError."""
    if topic is None or not 0 <= index < len(topic.partitions):
        raise BrokerError(Err.UNKNOWN_TOPIC_OR_PARTITION)
    p = topic.partitions[index]
    if p.leader != ctx.node_id:
        raise BrokerError(Err.NOT_LEADER_OR_FOLLOWER)
    if current_leader_epoch >= 0 and current_leader_epoch != p.leader_epoch:
        raise BrokerError(Err.FENCED_LEADER_EPOCH if current_leader_epoch < p.leader_epoch
                          else Err.UNKNOWN_LEADER_EPOCH)
    return p


# -- Produce ----------------------------------------------------------------------------------
#
# A partition's records are checked in Kafka's order, with Kafka's answers (each checked against
# Kafka 4.4, tests/apache/test_produce_validation.py): the request's structure (KafkaApis), the
# leader, the min ISR, the batch as stored (UnifiedLog: size, CRC), its header
# (LogValidator.validateBatch), every record (LogValidator: a key on a compacted topic, the
# timestamp), then the producer's sequence. Kafka sends an error message only with the record
# errors (KIP-467) (this broker also explains NOT_ENOUGH_REPLICAS), and a log start offset of -1
# before the log is reached or for a corrupt or too large batch. A transactional batch must
# belong to a transaction that holds the partition (kcli.broker.txns.verify) unless
# transaction.partition.verification.enable is false.
#
# Unlike Kafka, records are decoded only where a record rule needs them (a compacted topic, a
# finite KIP-937 before-bound, a LogAppendTime batch, a header beyond the after-bound): decoding
# each record in Python would cost the broker most of its produce throughput, and a client's
# CRC-valid batch is well formed in practice. The after-bound alone (finite by default: 1 h, as
# in Kafka 4.x) is settled per batch by the header's MaxTimestamp, which a client writes as the
# largest record timestamp (a batch whose header understates it is not checked record by record).

_LOG_OVERHEAD = 12           # BaseOffset, Length
_RECORD_OVERHEAD_V0 = 14     # the smallest Length any record format has
_BATCH_OVERHEAD = 61         # DefaultRecordBatch.RECORD_BATCH_OVERHEAD
_CODECS = range(5)           # none, gzip, snappy, lz4, zstd


class RecordErrors(BrokerError):
    """Kafka's RecordValidationException: the batch is rejected as a whole and each failing
    record named by its index in the batch (KIP-467)."""

    def __init__(self, errors: list[tuple[Err, int, str]]):
        codes = {code for code, _, _ in errors}
        if Err.INVALID_TIMESTAMP in codes:
            code, message = Err.INVALID_TIMESTAMP, ("One or more records have been rejected due "
                                                    "to invalid timestamp")
        else:
            shown = ", ".join(f"RecordError(batchIndex={i}, message='{m}')"
                              for _, i, m in errors[:3])
            code, message = Err.INVALID_RECORD, (
                f"One or more records have been rejected due to {len(errors)} record errors in "
                f"total, and only showing the first three errors at most: [{shown}]")
        super().__init__(code, message)
        self.record_errors = [(i, m) for _, i, m in errors]


def _next_batch_size(data: bytes, pos: int) -> int | None:
    """The size of the complete batch at ``pos``, None when the bytes left hold none (Kafka's
    ByteBufferLogInputStream: a partial batch at the end is ignored)."""
    if len(data) - pos < _LOG_OVERHEAD:
        return None
    size = struct.unpack_from(">i", data, pos + 8)[0]
    if size < _RECORD_OVERHEAD_V0:
        raise BrokerError(Err.CORRUPT_MESSAGE)
    if len(data) - pos < 17:
        return None
    if not 0 <= data[pos + 16] <= 2:                  # the magic byte
        raise BrokerError(Err.CORRUPT_MESSAGE)
    return _LOG_OVERHEAD + size if len(data) - pos >= _LOG_OVERHEAD + size else None


def _request_batch(records) -> bytes:
    """ProduceRequest.validateRecords: the partition's one v2 batch (any bytes after it that do
    not make a whole batch are dropped, as Kafka does)."""
    data = bytes(records or b"")
    size = _next_batch_size(data, 0)
    if size is None or data[16] != 2 or _next_batch_size(data, size) is not None:
        raise BrokerError(Err.INVALID_RECORD)
    return data if size == len(data) else data[:size]


def _check_batch(data: bytes, topic: Topic, node_id: int) -> DefaultRecordBatch:
    """UnifiedLog.analyzeAndValidateRecords and LogValidator.validateBatch."""
    if struct.unpack_from(">q", data)[0] != 0:        # a client's batch starts at offset 0
        raise BrokerError(Err.INVALID_RECORD)
    if len(data) > int(topic.config("max.message.bytes", node_id)):
        raise BrokerError(Err.MESSAGE_TOO_LARGE)
    if len(data) < _BATCH_OVERHEAD:
        raise BrokerError(Err.CORRUPT_MESSAGE)
    batch = DefaultRecordBatch(data)
    if not batch.validate_crc():
        raise BrokerError(Err.CORRUPT_MESSAGE)
    count = batch.records_count
    if count <= 0 or batch.last_offset_delta + 1 != count or batch.is_control_batch or (
            batch.has_producer_id() and batch.base_sequence < 0):
        raise BrokerError(Err.INVALID_RECORD)
    if batch.compression_type not in _CODECS:         # Java's CompressionType.forId throws
        raise BrokerError(Err.UNKNOWN_SERVER_ERROR)
    return batch


def _java_record(record) -> str:
    """A record as Kafka's DefaultRecord.toString shows it."""
    return (f"DefaultRecord(offset={record.offset}, timestamp={record.timestamp}, "
            f"key={len(record.key or b'')} bytes, value={len(record.value or b'')} bytes)")


def _within_after(batch: DefaultRecordBatch, now: int, after: int) -> bool:
    """The after-bound (KIP-937) settled for every record by the batch header's MaxTimestamp,
    the largest record timestamp as the producer wrote it: no record need be decoded. A header
    without a time (-1), or one beyond the bound, sends the batch to the record by record check,
    which names each failing record."""
    max_ts = batch.max_timestamp
    return max_ts >= 0 and _java_long(max_ts - now) <= after


def _check_records(batch: DefaultRecordBatch, topic: Topic, index: int, now: int,
                   node_id: int) -> None:
    """LogValidator.validateRecord for each record: a key on a compacted topic, then (KIP-937)
    a CreateTime timestamp within [now - before, now + after], and no LogAppendTime batch where
    the broker does not replace its time. Every failing record is reported."""
    compacted = "compact" in topic.config("cleanup.policy", node_id).split(",")
    create_time = topic.config("message.timestamp.type", node_id) == "CreateTime"
    before, after = timestamp_bounds(topic.configs, topic._cluster.broker_configs, node_id,
                                     topic._cluster.topic_configs)
    log_append_batch = batch.timestamp_type == DefaultRecordBatch.LOG_APPEND_TIME
    if not (compacted or log_append_batch or (create_time and (before, after) != (LONG_MAX,) * 2)):
        return
    if not (compacted or log_append_batch) and before == LONG_MAX and _within_after(batch, now, after):
        return
    errors = []
    try:
        for i, record in enumerate(batch):
            ts = record.timestamp
            if compacted and record.key is None:
                errors.append((Err.INVALID_RECORD, i, "Compacted topic cannot accept message "
                               f"without key in topic partition {topic.name}-{index}"))
            elif create_time and ts != -1:
                diff = _java_long(now - ts)            # Java long arithmetic, overflow and all
                if diff > before or _java_long(-diff) > after:
                    errors.append((Err.INVALID_TIMESTAMP, i, f"Timestamp {ts} of message with "
                                   f"offset {record.offset} is out of range. The timestamp should "
                                   f"be within [{_java_long(now - before)}, "
                                   f"{_java_long(now + after)}]"))
            elif log_append_batch:
                errors.append((Err.INVALID_TIMESTAMP, i, "Invalid timestamp type in message "
                               f"{_java_record(record)}. Producer should not set timestamp type "
                               "to LogAppendTime."))
    except Exception:    # noqa: BLE001 - kafka.record and the codecs raise many types on malformed bytes
        raise BrokerError(Err.INVALID_RECORD) from None
    if errors:
        raise RecordErrors(errors)


def _append(ctx: RequestContext, topic: Topic, pd, acks: int, now: int,
            transactional_id: str | None) -> tuple[int, int, Partition]:
    """Validate and append one partition's batch: (base offset, log append time, partition)."""
    if not 0 <= pd.index < len(topic.partitions):      # known partitions first, as KafkaApis
        raise BrokerError(Err.UNKNOWN_TOPIC_OR_PARTITION)
    data = _request_batch(pd.records)
    p = _leader_partition(ctx, topic, pd.index)
    # Kafka's effective min ISR: min.insync.replicas capped at the replication factor
    min_isr = min(int(topic.config("min.insync.replicas", ctx.node_id)), len(p.replicas))
    try:
        if acks == -1 and len(p.isr) < min_isr:
            raise BrokerError(Err.NOT_ENOUGH_REPLICAS, "The size of the current ISR "
                              f"{set(p.isr)} is insufficient to satisfy the min.isr requirement "
                              f"of {min_isr} for partition {topic.name}-{p.index}")
        batch = _check_batch(data, topic, ctx.node_id)
        _check_records(batch, topic, p.index, now, ctx.node_id)
        code, duplicate_of = p.log.check_producer(batch)
        if code:
            raise BrokerError(Err(code))
        if batch.is_transactional and duplicate_of is None:
            _transaction_holds(ctx, transactional_id, batch, topic.name, p.index)
    except BrokerError as e:
        # Kafka answers the partition's log start offset, except for these (ReplicaManager)
        if e.code not in (Err.CORRUPT_MESSAGE, Err.MESSAGE_TOO_LARGE):
            e.log_start_offset = p.log.log_start_offset
        raise
    log_append_time = now if topic.config("message.timestamp.type", ctx.node_id) == "LogAppendTime" else None
    if duplicate_of is not None:
        return duplicate_of, log_append_time or -1, p
    base = p.log.append(data, p.leader_epoch, log_append_time)
    return base, log_append_time or -1, p


def _transaction_holds(ctx: RequestContext, transactional_id: str | None, batch, topic: str,
                       index: int) -> None:
    """KIP-890: Produce v12+ comes from a transaction version 2 producer, which sends no
    AddPartitionsToTxn: the partition joins its transaction here, as Kafka's leader adds it
    (AddPartitionsToTxn v5 to the coordinator); before v12, with verification on (part 1), the
    transaction must already hold the partition."""
    txns = transactions_for(ctx.cluster)
    if ctx.api_version >= 12 and transactional_id:
        code = txns.add_partitions(transactional_id, batch.producer_id, batch.producer_epoch,
                                   [(topic, index)])[(topic, index)]
    elif _verifies(ctx):
        code = txns.verify(batch.producer_id, batch.producer_epoch, topic, index)
    else:
        return
    if code:
        raise BrokerError(code)


def _verifies(ctx: RequestContext) -> bool:
    """transaction.partition.verification.enable on this node (a boolean in any case, as Kafka's)."""
    value = ctx.cluster.broker_config("transaction.partition.verification.enable", ctx.node_id)
    return value.strip().lower() == "true"


def _sync(logs) -> None:
    for log in logs:
        try:
            log.sync()
        except OSError:      # the topic was deleted meanwhile
            pass


@handles(PRODUCE, 3, 13)
async def produce(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[PRODUCE]
    T = R.TopicProduceResponse
    P = T.PartitionProduceResponse
    now = cluster.now_ms()
    written = []
    topics = []
    for td in req.topic_data:
        try:
            topic = _authorized(ctx, Op.WRITE, getattr(td, "name", None),
                                getattr(td, "topic_id", None), v >= 13)
            topic_error = None
        except BrokerError as e:
            topic, topic_error = None, e
        parts = []
        for pd in td.partition_data:
            try:
                if req.acks not in (-1, 0, 1):
                    raise BrokerError(Err.INVALID_REQUIRED_ACKS)
                if topic is None:                   # topic_error says why
                    raise topic_error or BrokerError(Err.UNKNOWN_TOPIC_OR_PARTITION)
                base, append_time, p = _append(ctx, topic, pd, req.acks, now, req.transactional_id)
                written.append(p.log)
                parts.append(P(index=pd.index, error_code=0, base_offset=base,
                               log_append_time_ms=append_time,
                               log_start_offset=p.log.log_start_offset, record_errors=[],
                               error_message=None))
            except BrokerError as e:
                parts.append(P(
                    index=pd.index, error_code=e.code, base_offset=-1, log_append_time_ms=-1,
                    log_start_offset=e.log_start_offset, error_message=e.message,
                    record_errors=[P.BatchIndexAndErrorMessage(batch_index=i,
                                                               batch_index_error_message=m)
                                   for i, m in getattr(e, "record_errors", [])]))
        kw = {"topic_id": td.topic_id} if v >= 13 else {"name": td.name}
        topics.append(T(partition_responses=parts, **kw))
    if written:
        cluster.notify_append()
    if req.acks == -1 and written and cluster.data_dir is not None:
        await asyncio.get_running_loop().run_in_executor(None, _sync, set(written))
    if req.acks == 0:
        return None
    size = sum(len(pd.records or b"") for td in req.topic_data for pd in td.partition_data)
    return R(version=v, responses=topics,
             throttle_time_ms=cluster.throttle_ms("producer_byte_rate", ctx.client_id, size))


# -- Fetch ------------------------------------------------------------------------------------

def _fetch_once(ctx: RequestContext, req) -> tuple[list, int, bool]:
    """One pass over the requested partitions: (topic responses, bytes, any error)."""
    v = ctx.api_version
    R = RESPONSES[FETCH]
    T = R.FetchableTopicResponse
    P = T.PartitionData
    budget = req.max_bytes
    total, errors = 0, False
    topics = []
    for ft in req.topics:
        try:
            topic = _authorized(ctx, Op.READ, getattr(ft, "topic", None),
                                getattr(ft, "topic_id", None), v >= 13)
            topic_error = None
        except BrokerError as e:
            topic, topic_error = None, e
        parts = []
        for fp in ft.partitions:
            try:
                if topic is None:                   # topic_error says why
                    raise topic_error or BrokerError(Err.UNKNOWN_TOPIC_OR_PARTITION)
                p = _leader_partition(ctx, topic, fp.partition, fp.current_leader_epoch)
                log = p.log
                if not log.log_start_offset <= fp.fetch_offset <= log.log_end_offset:
                    raise BrokerError(Err.OFFSET_OUT_OF_RANGE)
                limit, aborted = min(fp.partition_max_bytes, budget), None
                if req.isolation_level == READ_COMMITTED:
                    chunks, size, found = log.read_committed(fp.fetch_offset, limit, total == 0)
                    aborted = [P.AbortedTransaction(producer_id=pid, first_offset=first)
                               for pid, first in found]
                else:
                    chunks, size = log.read(fp.fetch_offset, limit, at_least_one=total == 0)
                budget -= size
                total += size
                parts.append(P(partition_index=fp.partition, error_code=0,
                               high_watermark=log.log_end_offset,
                               last_stable_offset=log.last_stable_offset,
                               log_start_offset=log.log_start_offset, aborted_transactions=aborted,
                               preferred_read_replica=-1, records=chunks))
            except BrokerError as e:
                errors = True
                known = topic.partitions[fp.partition].log if topic and e.code == Err.OFFSET_OUT_OF_RANGE \
                    else None
                parts.append(P(partition_index=fp.partition, error_code=e.code,
                               high_watermark=known.log_end_offset if known else -1,
                               last_stable_offset=known.last_stable_offset if known else -1,
                               log_start_offset=known.log_start_offset if known else -1,
                               aborted_transactions=None, preferred_read_replica=-1,
                               records=b""))
        kw = {"topic_id": ft.topic_id} if v >= 13 else {"topic": ft.topic}
        topics.append(T(partitions=parts, **kw))
    return topics, total, errors


@handles(FETCH, 4, 18)
async def fetch(ctx: RequestContext, req):
    """Long poll: answer once ``min_bytes`` are available, on any error, or after
    ``max_wait_ms``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(req.max_wait_ms, 0) / 1000
    while True:
        topics, total, errors = _fetch_once(ctx, req)
        remaining = deadline - loop.time()
        if total >= req.min_bytes or errors or remaining <= 0:
            break
        await ctx.cluster.wait_for_append(remaining)
    for topic in topics:            # the records go out as stored, uncopied (dispatch.splice)
        for part in topic.partitions:
            chunks = part.records
            part.records = ctx.defer(chunks, sum(map(len, chunks))) if chunks else b""
    return RESPONSES[FETCH](version=ctx.api_version, throttle_time_ms=0, error_code=0, session_id=0,
                        responses=topics)


# -- ListOffsets, OffsetForLeaderEpoch, DeleteRecords, InitProducerId ------------------------

READ_COMMITTED = 1              # a Fetch's or ListOffsets' IsolationLevel
LATEST, EARLIEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD = (
    -1, -2, -3, -4, -5, -6)
# The ListOffsets version each special timestamp needs (Kafka's ReplicaManager): an older
# version, or any other negative timestamp, is answered UNSUPPORTED_VERSION.
SPECIAL_TIMESTAMP_MIN_VERSION = {EARLIEST: 1, LATEST: 1, MAX_TIMESTAMP: 7, EARLIEST_LOCAL: 8,
                                 LATEST_TIERED: 9, EARLIEST_PENDING_UPLOAD: 11}


def _list_offset(p: Partition, target: int, version: int,
                 isolation_level: int = 0) -> tuple[int, int, int]:
    """(offset, timestamp, leader epoch) for one ListOffsets target."""
    if target < 0 and version < SPECIAL_TIMESTAMP_MIN_VERSION.get(target, 1 << 15):
        raise BrokerError(Err.UNSUPPORTED_VERSION)
    log = p.log
    if target == LATEST:
        end = log.last_stable_offset if isolation_level == READ_COMMITTED else log.log_end_offset
        return end, -1, p.leader_epoch
    if target in (EARLIEST, EARLIEST_LOCAL):
        return log.log_start_offset, -1, log.epoch_at(log.log_start_offset, p.leader_epoch)
    if target in (LATEST_TIERED, EARLIEST_PENDING_UPLOAD):   # no tiered storage: no offset
        return -1, -1, -1
    if target == MAX_TIMESTAMP:
        found = log.max_timestamp()
    else:
        found = log.offset_for_timestamp(target)
    return found if found is not None else (-1, -1, -1)


DEBUGGING_REPLICA_ID = -2


def _own_replica(ctx: RequestContext, topic: Topic | None, index: int, replica_id: int,
                 timestamp: int) -> Partition | None:
    """The partition whose latest offset Kafka's debugging replica (replica id -2) asks of this
    node, a follower too (ListOffsets reads this node's log to its end: KafkaApis gives a
    request that is not a consumer's no isolation level); None for any other request."""
    if replica_id != DEBUGGING_REPLICA_ID or timestamp != LATEST or topic is None:
        return None
    if not 0 <= index < len(topic.partitions) or ctx.node_id not in topic.partitions[index].replicas:
        return None
    return topic.partitions[index]


@handles(LIST_OFFSETS, 1, 11)
async def list_offsets(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[LIST_OFFSETS]
    T = R.ListOffsetsTopicResponse
    P = T.ListOffsetsPartitionResponse
    topics = []
    for t in req.topics:
        topic = cluster.topics.get(t.name)
        parts = []
        for lp in t.partitions:
            try:
                if not ctx.may(Op.DESCRIBE, t.name):
                    raise BrokerError(Err.TOPIC_AUTHORIZATION_FAILED)
                own = _own_replica(ctx, topic, lp.partition_index, req.replica_id, lp.timestamp)
                if own is not None:             # Kafka's debugging replica: this node's own copy
                    offset, ts, epoch = own.replica_end(ctx.node_id), -1, own.leader_epoch
                else:
                    p = _leader_partition(ctx, topic, lp.partition_index,
                                          getattr(lp, "current_leader_epoch", -1))
                    offset, ts, epoch = _list_offset(p, lp.timestamp, v,
                                                     req.isolation_level if v >= 2 else 0)
                parts.append(P(partition_index=lp.partition_index, error_code=0, timestamp=ts,
                               offset=offset, leader_epoch=epoch))
            except BrokerError as e:
                parts.append(P(partition_index=lp.partition_index, error_code=e.code,
                               timestamp=-1, offset=-1, leader_epoch=-1))
        topics.append(T(name=t.name, partitions=parts))
    return R(version=v, throttle_time_ms=0, topics=topics)


@handles(OFFSET_FOR_LEADER_EPOCH, 2, 4)
async def offset_for_leader_epoch(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[OFFSET_FOR_LEADER_EPOCH]
    T = R.OffsetForLeaderTopicResult
    P = T.EpochEndOffset
    topics = []
    for t in req.topics:
        topic = cluster.topics.get(t.topic)
        parts = []
        for op in t.partitions:
            try:
                if not ctx.may(Op.DESCRIBE, t.topic):
                    raise BrokerError(Err.TOPIC_AUTHORIZATION_FAILED)
                p = _leader_partition(ctx, topic, op.partition, op.current_leader_epoch)
                epoch, end = p.log.end_offset_for_epoch(op.leader_epoch, p.leader_epoch)
                parts.append(P(error_code=0, partition=op.partition, leader_epoch=epoch,
                               end_offset=end))
            except BrokerError as e:
                parts.append(P(error_code=e.code, partition=op.partition, leader_epoch=-1,
                               end_offset=-1))
        topics.append(T(topic=t.topic, partitions=parts))
    return R(version=v, throttle_time_ms=0, topics=topics)


@handles(DELETE_RECORDS, 0, 2)
async def delete_records(ctx: RequestContext, req):
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[DELETE_RECORDS]
    T = R.DeleteRecordsTopicResult
    P = T.DeleteRecordsPartitionResult
    topics = []
    changed = False
    for t in req.topics:
        topic = cluster.topics.get(t.name)
        parts = []
        for dp in t.partitions:
            try:
                if not ctx.may(Op.DELETE, t.name):
                    raise BrokerError(Err.TOPIC_AUTHORIZATION_FAILED)
                p = _leader_partition(ctx, topic, dp.partition_index)
                offset = p.log.log_end_offset if dp.offset == -1 else dp.offset
                if not 0 <= offset <= p.log.log_end_offset:
                    raise BrokerError(Err.OFFSET_OUT_OF_RANGE)
                p.log.delete_records(offset)
                changed = True
                parts.append(P(partition_index=dp.partition_index,
                               low_watermark=p.log.log_start_offset, error_code=0))
            except BrokerError as e:
                parts.append(P(partition_index=dp.partition_index, low_watermark=-1,
                               error_code=e.code))
        topics.append(T(name=t.name, partitions=parts))
    if changed:
        cluster.save()
    return R(version=v, throttle_time_ms=0, topics=topics)


@handles(DESCRIBE_LOG_DIRS, 1, 4)
async def describe_log_dirs(ctx: RequestContext, req):
    """The node's one log dir and the size of each replica it holds: the bytes of the batches its
    partition log keeps (every replica of a partition shares the one log: the same size on each
    node, no future replicas, offset lag 0). No volume figures (TotalBytes, UsableBytes -1, as
    Kafka answers when it cannot tell). A principal without DESCRIBE on the cluster gets no log
    dir and, from v3, CLUSTER_AUTHORIZATION_FAILED, as Kafka answers."""
    cluster, v = ctx.cluster, ctx.api_version
    R = RESPONSES[DESCRIBE_LOG_DIRS]
    if not ctx.allowed(Op.DESCRIBE):
        return R(version=v, throttle_time_ms=0, error_code=Err.CLUSTER_AUTHORIZATION_FAILED, results=[])
    D = R.DescribeLogDirsResult
    T = D.DescribeLogDirsTopic
    P = T.DescribeLogDirsPartition
    wanted = None if req.topics is None else {t.topic: set(t.partitions) for t in req.topics}
    topics = []
    for name in sorted(cluster.topics):
        if wanted is not None and name not in wanted:
            continue
        parts = [P(partition_index=p.index, partition_size=p.log.size_in_bytes(), offset_lag=0, is_future_key=False)
                 for p in cluster.topics[name].partitions
                 if ctx.node_id in p.replicas and (wanted is None or p.index in wanted[name])]
        if parts:
            topics.append(T(name=name, partitions=parts))
    log_dir = str(cluster.data_dir / "logs") if cluster.data_dir is not None else f"/embedded/node-{ctx.node_id}"
    return R(version=v, throttle_time_ms=0, error_code=0, results=[
        D(error_code=0, log_dir=log_dir, topics=topics, total_bytes=-1, usable_bytes=-1)])


@handles(INIT_PRODUCER_ID, 0, 6)
async def init_producer_id(ctx: RequestContext, req):
    """Without a transactional id, as Kafka's TransactionCoordinator: always a new id with epoch
    0, whatever id and epoch the request carries (an epoch bump, KIP-360, gets a new id too).
    With one, on its coordinator: the id's producer, its epoch bumped (kcli.broker.txns).
    KIP-939's two-phase commit (v6 Enable2Pc) is not served."""
    R = RESPONSES[INIT_PRODUCER_ID]
    v = ctx.api_version
    cluster = ctx.cluster

    def fail(code: Err):
        return R(version=v, throttle_time_ms=0, error_code=fenced(code, v, 4), producer_id=-1,
                 producer_epoch=-1)

    if req.transactional_id is None:
        if cluster.authorize and not (ctx.allowed(Op.IDEMPOTENT_WRITE) or cluster.authorizer.any_allowed(
                ctx.principal, ctx.client_host.lstrip("/"), Op.WRITE, ResourceType.TOPIC)):
            return fail(Err.CLUSTER_AUTHORIZATION_FAILED)
        return R(version=v, throttle_time_ms=0, error_code=0,
                 producer_id=cluster.allocate_producer_id(), producer_epoch=0)
    if not ctx.allowed(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        return fail(Err.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if cluster.coordinator_node(req.transactional_id) != ctx.node_id:
        return fail(Err.NOT_COORDINATOR)
    if v >= 6 and (req.enable2_pc or req.keep_prepared_txn):
        return fail(Err.INVALID_REQUEST)
    try:
        txn = transactions_for(cluster).init_producer_id(
            req.transactional_id, req.transaction_timeout_ms,
            req.producer_id if v >= 3 else -1, req.producer_epoch if v >= 3 else -1,
            int(cluster.broker_config("transaction.max.timeout.ms")))
    except BrokerError as e:
        return fail(e.code)
    return R(version=v, throttle_time_ms=0, error_code=0, producer_id=txn.producer_id,
             producer_epoch=txn.epoch)

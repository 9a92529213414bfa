"""The transaction APIs: AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit,
WriteTxnMarkers (an admin's abort of a hanging transaction; the coordinator writes its own markers
directly), ListTransactions, DescribeTransactions, DescribeProducers (InitProducerId is in
``data.py``, FindCoordinator in ``groups.py``). The state machine is ``kcli.broker.txns``; this module maps
requests and responses. A request for a transactional id (or group) this node does not coordinate
is answered NOT_COORDINATOR.
"""

from __future__ import annotations

import re

from kcli.broker.apikeys import (ADD_OFFSETS_TO_TXN, ADD_PARTITIONS_TO_TXN, DESCRIBE_PRODUCERS,
                                 DESCRIBE_TRANSACTIONS, END_TXN, LIST_TRANSACTIONS,
                                 TXN_OFFSET_COMMIT, WRITE_TXN_MARKERS)
from kcli.broker.log import ABORT, COMMIT
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups import coordinator_for
from kcli.broker.groups.classic import ClassicGroup
from kcli.broker.groups.consumer import ConsumerGroup
from kcli.broker.txns import STATES, transactions_for
from kcli.protocol import RESPONSES


def _response(ctx: RequestContext, **fields):
    return RESPONSES[ctx.api_key](version=ctx.api_version, throttle_time_ms=0, **fields)


def fenced(code: Err, version: int, first_fenced_version: int) -> Err:
    """KIP-588: PRODUCER_FENCED only from the request version that knows it, before that
    INVALID_PRODUCER_EPOCH (as KafkaApis maps it)."""
    if code == Err.PRODUCER_FENCED and version < first_fenced_version:
        return Err.INVALID_PRODUCER_EPOCH
    return code


def _coordinates(ctx: RequestContext, key: str) -> bool:
    return ctx.cluster.coordinator_node(key) == ctx.node_id


# ---- AddPartitionsToTxn ------------------------------------------------------------------

@handles(ADD_PARTITIONS_TO_TXN, 0, 5)
async def add_partitions_to_txn(ctx: RequestContext, req):
    """v0-3: one client's transaction; v4+ (KIP-890): a batch of transactions, each may be
    VerifyOnly (a partition leader's check: no partition is added)."""
    cls = RESPONSES[ADD_PARTITIONS_TO_TXN]
    topic_cls = cls.AddPartitionsToTxnTopicResult
    part_cls = topic_cls.AddPartitionsToTxnPartitionResult
    v = ctx.api_version

    def one(txn_id, producer_id, epoch, topics, verify_only):
        wanted = [(t.name, p) for t in topics for p in t.partitions]
        if not _coordinates(ctx, txn_id):
            results = {tp: Err.NOT_COORDINATOR for tp in wanted}
        else:
            try:
                results = transactions_for(ctx.cluster).add_partitions(
                    txn_id, producer_id, epoch, wanted, verify_only)
                if verify_only:                 # Kafka 4.4's answer for "not in it"
                    results = {tp: Err.TRANSACTION_ABORTABLE if code == Err.INVALID_TXN_STATE
                               else code for tp, code in results.items()}
            except BrokerError as exc:
                code = fenced(exc.code, v, 2)
                results = {tp: code for tp in wanted}
        by_topic: dict[str, list] = {}
        for (name, index), code in results.items():
            by_topic.setdefault(name, []).append(part_cls(partition_index=index,
                                                          partition_error_code=code))
        return [topic_cls(name=name, results_by_partition=parts) for name, parts in by_topic.items()]

    if v <= 3:
        return _response(ctx, results_by_topic_v3_and_below=one(
            req.v3_and_below_transactional_id, req.v3_and_below_producer_id,
            req.v3_and_below_producer_epoch, req.v3_and_below_topics, False))
    return _response(ctx, error_code=Err.NONE, results_by_transaction=[
        cls.AddPartitionsToTxnResult(transactional_id=t.transactional_id, topic_results=one(
            t.transactional_id, t.producer_id, t.producer_epoch, t.topics, t.verify_only))
        for t in req.transactions])


# ---- AddOffsetsToTxn, EndTxn -------------------------------------------------------------

@handles(ADD_OFFSETS_TO_TXN, 0, 4)
async def add_offsets_to_txn(ctx: RequestContext, req):
    if not _coordinates(ctx, req.transactional_id):
        return _response(ctx, error_code=Err.NOT_COORDINATOR)
    try:
        transactions_for(ctx.cluster).add_offsets(req.transactional_id, req.producer_id,
                                                  req.producer_epoch, req.group_id)
    except BrokerError as exc:
        return _response(ctx, error_code=fenced(exc.code, ctx.api_version, 2))
    return _response(ctx, error_code=Err.NONE)


@handles(END_TXN, 0, 5)
async def end_txn(ctx: RequestContext, req):
    if not _coordinates(ctx, req.transactional_id):
        return _response(ctx, error_code=Err.NOT_COORDINATOR, producer_id=-1, producer_epoch=-1)
    try:
        txn = transactions_for(ctx.cluster).end_txn(req.transactional_id, req.producer_id,
                                                    req.producer_epoch, req.committed,
                                                    bump=ctx.api_version >= 5)
    except BrokerError as exc:
        return _response(ctx, error_code=fenced(exc.code, ctx.api_version, 2), producer_id=-1,
                         producer_epoch=-1)
    return _response(ctx, error_code=Err.NONE, producer_id=txn.producer_id, producer_epoch=txn.epoch)


# ---- WriteTxnMarkers (the partition leader's) ---------------------------------------------

@handles(WRITE_TXN_MARKERS, 1, 2)
async def write_txn_markers(ctx: RequestContext, req):
    """Each marker written to each named partition this node leads; a producer epoch older than
    the one the partition has seen is INVALID_PRODUCER_EPOCH (Kafka's ProducerStateManager)."""
    cls = RESPONSES[WRITE_TXN_MARKERS]
    topic_cls = cls.WritableTxnMarkerResult.WritableTxnMarkerTopicResult
    part_cls = topic_cls.WritableTxnMarkerPartitionResult
    cluster = ctx.cluster
    now = cluster.now_ms()
    written, results = set(), []

    def write(marker, name: str, index: int) -> Err:
        topic = cluster.topics.get(name)
        if topic is None or not 0 <= index < len(topic.partitions):
            return Err.UNKNOWN_TOPIC_OR_PARTITION
        p = topic.partitions[index]
        if p.leader != ctx.node_id:
            return Err.NOT_LEADER_OR_FOLLOWER
        seen = p.log.producers.get(marker.producer_id)
        if seen is not None and marker.producer_epoch < seen.epoch:
            return Err.INVALID_PRODUCER_EPOCH
        p.log.write_marker(marker.producer_id, marker.producer_epoch,
                           COMMIT if marker.transaction_result else ABORT, now, p.leader_epoch,
                           marker.coordinator_epoch)
        written.add(p.log)
        return Err.NONE

    for marker in req.markers:
        results.append(cls.WritableTxnMarkerResult(producer_id=marker.producer_id, topics=[
            topic_cls(name=t.name, partitions=[
                part_cls(partition_index=i, error_code=write(marker, t.name, i))
                for i in t.partition_indexes]) for t in marker.topics]))
    for log in written:
        log.sync()
    if written:
        cluster.notify_append()
    return RESPONSES[WRITE_TXN_MARKERS](version=ctx.api_version, markers=results)


# ---- TxnOffsetCommit (the group coordinator's) -------------------------------------------

@handles(TXN_OFFSET_COMMIT, 0, 5)
async def txn_offset_commit(ctx: RequestContext, req):
    cls = RESPONSES[TXN_OFFSET_COMMIT]
    topic_cls = cls.TxnOffsetCommitResponseTopic
    part_cls = topic_cls.TxnOffsetCommitResponsePartition
    cluster = ctx.cluster

    def answer(code_for):
        return _response(ctx, topics=[topic_cls(name=t.name, partitions=[
            part_cls(partition_index=p.partition_index, error_code=code_for(t, p))
            for p in t.partitions]) for t in req.topics])

    if not _coordinates(ctx, req.group_id):
        return answer(lambda t, p: Err.NOT_COORDINATOR)
    group = coordinator_for(cluster).group(req.group_id)
    member_id = req.member_id if ctx.api_version >= 3 else ""
    generation = req.generation_id if ctx.api_version >= 3 else -1
    try:
        if group is not None and (member_id or generation >= 0):      # KIP-447: a group member's
            if isinstance(group, ClassicGroup):
                group.validate_commit(member_id, req.group_instance_id, generation)
            elif isinstance(group, ConsumerGroup):
                group.validate_commit(member_id, generation, [
                    (topic.topic_id, p.partition_index) for t in req.topics
                    if (topic := cluster.topics.get(t.name)) for p in t.partitions])
    except BrokerError as exc:
        refusal = exc.code
        return answer(lambda t, p: refusal)
    offsets = []

    def code_for(t, p):
        topic = cluster.topics.get(t.name)
        if topic is None or not 0 <= p.partition_index < len(topic.partitions):
            return Err.UNKNOWN_TOPIC_OR_PARTITION
        offsets.append((t.name, p.partition_index, p.committed_offset,
                        getattr(p, "committed_leader_epoch", -1), p.committed_metadata))
        return Err.NONE

    response = answer(code_for)
    txns = transactions_for(cluster)
    try:
        if ctx.api_version >= 5:    # KIP-890: a transaction version 2 producer sends no AddOffsetsToTxn
            txns.add_offsets(req.transactional_id, req.producer_id, req.producer_epoch, req.group_id)
        txns.txn_offset_commit(req.transactional_id, req.producer_id,
                                                    req.producer_epoch, req.group_id, offsets)
    except BrokerError as exc:
        refusal = exc.code
        return answer(lambda t, p: refusal)
    return response


# ---- ListTransactions, DescribeTransactions, DescribeProducers ---------------------------

@handles(LIST_TRANSACTIONS, 0, 2)
async def list_transactions(ctx: RequestContext, req):
    cls = RESPONSES[LIST_TRANSACTIONS]
    v = ctx.api_version
    states = set(req.state_filters)
    unknown = [s for s in req.state_filters if s not in STATES]
    producer_ids = set(req.producer_id_filters)
    duration = req.duration_filter if v >= 1 else -1
    pattern = req.transactional_id_pattern if v >= 2 else None
    if pattern:
        try:
            compiled = re.compile(pattern)
        except re.error:
            return _response(ctx, error_code=Err.INVALID_REQUEST, unknown_state_filters=[],
                             transaction_states=[])
    now = ctx.cluster.now_ms()
    listed = []
    for txn_id, txn in sorted(transactions_for(ctx.cluster).txns.items()):
        if not _coordinates(ctx, txn_id):
            continue
        if states and txn.state not in states:
            continue
        if producer_ids and txn.producer_id not in producer_ids:
            continue
        if duration >= 0 and (txn.state != "Ongoing" or now - txn.start_time_ms <= duration):
            continue
        if pattern and not compiled.fullmatch(txn_id):
            continue
        listed.append(cls.TransactionState(transactional_id=txn_id, producer_id=txn.producer_id,
                                           transaction_state=txn.state))
    return _response(ctx, error_code=Err.NONE, unknown_state_filters=unknown,
                     transaction_states=listed)


@handles(DESCRIBE_TRANSACTIONS, 0, 0)
async def describe_transactions(ctx: RequestContext, req):
    cls = RESPONSES[DESCRIBE_TRANSACTIONS]
    state_cls, topic_cls = cls.TransactionState, cls.TransactionState.TopicData
    coordinator = transactions_for(ctx.cluster)
    out = []
    for txn_id in req.transactional_ids:
        txn = coordinator.txns.get(txn_id)
        blank = dict(transactional_id=txn_id, transaction_state="", transaction_timeout_ms=0,
                     transaction_start_time_ms=-1, producer_id=-1, producer_epoch=-1, topics=[])
        if not _coordinates(ctx, txn_id):
            out.append(state_cls(error_code=Err.NOT_COORDINATOR, **blank))
        elif txn is None:
            out.append(state_cls(error_code=Err.TRANSACTIONAL_ID_NOT_FOUND, **blank))
        else:
            by_topic: dict[str, list[int]] = {}
            for name, index in coordinator.partitions_of(txn):
                by_topic.setdefault(name, []).append(index)
            out.append(state_cls(
                error_code=Err.NONE, transactional_id=txn_id, transaction_state=txn.state,
                transaction_timeout_ms=txn.timeout_ms, transaction_start_time_ms=txn.start_time_ms,
                producer_id=txn.producer_id, producer_epoch=txn.epoch,
                topics=[topic_cls(topic=name, partitions=parts) for name, parts in by_topic.items()]))
    return _response(ctx, transaction_states=out)


@handles(DESCRIBE_PRODUCERS, 0, 0)
async def describe_producers(ctx: RequestContext, req):
    cls = RESPONSES[DESCRIBE_PRODUCERS]
    topic_cls = cls.TopicResponse
    part_cls, producer_cls = topic_cls.PartitionResponse, topic_cls.PartitionResponse.ProducerState
    topics = []
    for t in req.topics:
        topic = ctx.cluster.topics.get(t.name)
        parts = []
        for index in t.partition_indexes:
            if topic is None or not 0 <= index < len(topic.partitions):
                parts.append(part_cls(partition_index=index, error_code=Err.UNKNOWN_TOPIC_OR_PARTITION,
                                      error_message=None, active_producers=[]))
                continue
            p = topic.partitions[index]
            if p.leader != ctx.node_id:
                parts.append(part_cls(partition_index=index, error_code=Err.NOT_LEADER_OR_FOLLOWER,
                                      error_message=None, active_producers=[]))
                continue
            parts.append(part_cls(partition_index=index, error_code=Err.NONE, error_message=None,
                                  active_producers=[producer_cls(
                                      producer_id=pid, producer_epoch=e.epoch,
                                      last_sequence=e.last_sequence, last_timestamp=e.last_timestamp,
                                      coordinator_epoch=e.coordinator_epoch,
                                      current_txn_start_offset=-1 if e.txn_start is None else e.txn_start)
                                      for pid, e in sorted(p.log.producers.items())]))
        topics.append(topic_cls(name=t.name, partitions=parts))
    return _response(ctx, topics=topics)

"""The transaction coordinator on the wire, one request at a time (kafka-python's messages): epochs
and fencing with each version's error code (KIP-588), AddPartitionsToTxn's client form and
KIP-890's batched verify-only form, EndTxn v5's epoch bump, TxnOffsetCommit with OffsetFetch's
RequireStable, the log's markers, LSO and aborted transactions in Fetch, and the admin views
(ListTransactions, DescribeTransactions, DescribeProducers)."""

from __future__ import annotations

import pytest
from tests.support.records import txn_batch
from tests.support.request_checks import send
from tests.support.waits import wait_until

from kcli.broker import EmbeddedCluster
from kcli.protocol import REQUESTS

NONE, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST = 0, 3, 42
INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING = 47, 48, 49
INVALID_TRANSACTION_TIMEOUT, OPERATION_NOT_ATTEMPTED = 50, 55
UNSTABLE_OFFSET_COMMIT, PRODUCER_FENCED, TRANSACTIONAL_ID_NOT_FOUND = 88, 90, 105
TRANSACTION_ABORTABLE = 120
ADD_PARTITIONS, ADD_OFFSETS, END_TXN, TXN_OFFSET_COMMIT = 24, 25, 26, 28
INIT, PRODUCE, FETCH, LIST_OFFSETS, OFFSET_FETCH = 22, 0, 1, 2, 9


@pytest.fixture
def b(broker1):
    broker1.create_topic("t", partitions=2)
    return broker1.bootstrap_servers


def init(b, txn_id, version=5, timeout_ms=60_000, producer_id=-1, epoch=-1):
    return send(b, INIT, version, transactional_id=txn_id, transaction_timeout_ms=timeout_ms,
                producer_id=producer_id, producer_epoch=epoch)


def add(b, txn_id, pid, epoch, parts, version=3):
    R = REQUESTS[ADD_PARTITIONS]
    topics = {}
    for topic, p in parts:
        topics.setdefault(topic, []).append(p)
    answer = send(b, ADD_PARTITIONS, version, v3_and_below_transactional_id=txn_id,
                  v3_and_below_producer_id=pid, v3_and_below_producer_epoch=epoch,
                  v3_and_below_topics=[R.AddPartitionsToTxnTopic(name=t, partitions=ps)
                                       for t, ps in topics.items()])
    return {(t.name, p.partition_index): p.partition_error_code
            for t in answer.results_by_topic_v3_and_below for p in t.results_by_partition}


def verify(b, txn_id, pid, epoch, parts, version=5):
    R = REQUESTS[ADD_PARTITIONS]
    answer = send(b, ADD_PARTITIONS, version, transactions=[R.AddPartitionsToTxnTransaction(
        transactional_id=txn_id, producer_id=pid, producer_epoch=epoch, verify_only=True,
        topics=[R.AddPartitionsToTxnTopic(name=t, partitions=[p]) for t, p in parts])])
    (result,) = answer.results_by_transaction
    return {(t.name, p.partition_index): p.partition_error_code
            for t in result.topic_results for p in t.results_by_partition}


def end(b, txn_id, pid, epoch, commit, version=4):
    return send(b, END_TXN, version, transactional_id=txn_id, producer_id=pid,
                producer_epoch=epoch, committed=commit)


def produce_txn(b, pid, partition, count=1, txn_id="tx", epoch=0, sequence=0):
    R = REQUESTS[PRODUCE]
    T = R.TopicProduceData
    answer = send(b, PRODUCE, 9, transactional_id=txn_id, acks=-1, timeout_ms=5000, topic_data=[
        T(name="t", partition_data=[T.PartitionProduceData(
            index=partition, records=txn_batch(0, [1000 + i for i in range(count)], pid, epoch,
                                             sequence))])])
    return answer.responses[0].partition_responses[0]


def fetch(b, partition, offset, isolation, max_bytes=1 << 20):
    R = REQUESTS[FETCH]
    answer = send(b, FETCH, 11, replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes,
                  isolation_level=isolation, session_id=0, session_epoch=-1, topics=[
                      R.FetchTopic(topic="t", partitions=[R.FetchTopic.FetchPartition(
                          partition=partition, current_leader_epoch=-1, fetch_offset=offset,
                          log_start_offset=-1, partition_max_bytes=max_bytes)])],
                  forgotten_topics_data=[], rack_id="")
    return answer.responses[0].partitions[0]


def test_epochs_bump_and_the_older_producer_is_fenced_in_each_versions_words(b):
    first = init(b, "tx")
    assert (first.error_code, first.producer_epoch) == (NONE, 0)
    second = init(b, "tx")
    assert (second.error_code, second.producer_id, second.producer_epoch) == (
        NONE, first.producer_id, 1)
    pid = first.producer_id
    assert set(add(b, "tx", pid, 0, [("t", 0)], version=1).values()) == {INVALID_PRODUCER_EPOCH}
    assert set(add(b, "tx", pid, 0, [("t", 0)], version=3).values()) == {PRODUCER_FENCED}
    assert end(b, "tx", pid, 0, True, version=1).error_code == INVALID_PRODUCER_EPOCH
    assert end(b, "tx", pid, 0, True, version=3).error_code == PRODUCER_FENCED
    assert send(b, ADD_OFFSETS, 3, transactional_id="tx", producer_id=pid, producer_epoch=0,
                group_id="g").error_code == PRODUCER_FENCED
    assert set(add(b, "tx", pid + 1, 1, [("t", 0)]).values()) == {INVALID_PRODUCER_ID_MAPPING}
    # KIP-360: a producer naming itself must be the current one
    assert init(b, "tx", version=4, producer_id=pid, epoch=0).error_code == PRODUCER_FENCED
    assert init(b, "tx", version=3, producer_id=pid, epoch=0).error_code == INVALID_PRODUCER_EPOCH
    assert init(b, "tx", version=4, producer_id=pid, epoch=1).producer_epoch == 2


def test_init_producer_id_checks_the_timeout(b):
    assert init(b, "tx", timeout_ms=0).error_code == INVALID_TRANSACTION_TIMEOUT
    assert init(b, "tx", timeout_ms=900_001).error_code == INVALID_TRANSACTION_TIMEOUT
    assert init(b, "tx", timeout_ms=900_000).error_code == NONE


def test_add_partitions_client_form_and_kip890_verification(b):
    pid = init(b, "tx").producer_id
    assert add(b, "tx", pid, 0, [("t", 0), ("nope", 0)]) == {
        ("t", 0): OPERATION_NOT_ATTEMPTED, ("nope", 0): UNKNOWN_TOPIC_OR_PARTITION}
    assert verify(b, "tx", pid, 0, [("t", 0)]) == {("t", 0): TRANSACTION_ABORTABLE}
    assert verify(b, "tx", pid, 0, [("t", 0)], version=4) == {("t", 0): TRANSACTION_ABORTABLE}
    assert produce_txn(b, pid, 0).error_code == INVALID_TXN_STATE       # not in the transaction
    assert add(b, "tx", pid, 0, [("t", 0)]) == {("t", 0): NONE}
    assert verify(b, "tx", pid, 0, [("t", 0), ("t", 1)]) == {("t", 0): NONE,
                                                             ("t", 1): TRANSACTION_ABORTABLE}
    assert produce_txn(b, pid, 0).error_code == NONE


def test_verification_off_appends_a_batch_its_transaction_never_added(b):
    """transaction.partition.verification.enable (default true, dynamic as Kafka's): false, the
    leader appends a transactional batch unverified, as brokers before 3.6 did, and its open
    transaction holds the LSO; true again, the next such batch is refused."""
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

    a = AdminClient({"bootstrap.servers": b})

    def set_verification(value):
        res = ConfigResource(ConfigResource.Type.BROKER, "1", incremental_configs=[ConfigEntry(
            "transaction.partition.verification.enable", value, incremental_operation=AlterConfigOpType.SET)])
        a.incremental_alter_configs([res])[res].result(15)
        entry = a.describe_configs([ConfigResource("BROKER", "1")])
        return next(iter(entry.values())).result(15)["transaction.partition.verification.enable"].value

    pid = init(b, "tx").producer_id
    assert produce_txn(b, pid, 0).error_code == INVALID_TXN_STATE
    assert set_verification("false") == "false"
    assert produce_txn(b, pid, 0, count=2).error_code == NONE           # never added: appended
    assert fetch(b, 0, 0, isolation=1).last_stable_offset == 0
    assert set_verification("true") == "true"
    assert produce_txn(b, pid, 1).error_code == INVALID_TXN_STATE


def test_end_txn_v5_bumps_the_epoch_and_a_retry_gets_the_same_answer(b):
    pid = init(b, "tx").producer_id
    assert end(b, "tx", pid, 0, True).error_code == INVALID_TXN_STATE   # v4: nothing to end
    ended = end(b, "tx", pid, 0, False, version=5)                      # v5 may abort it
    assert (ended.error_code, ended.producer_id, ended.producer_epoch) == (NONE, pid, 1)
    again = end(b, "tx", pid, 0, False, version=5)
    assert (again.error_code, again.producer_epoch) == (NONE, 1)
    add(b, "tx", pid, 1, [("t", 0)])
    committed = end(b, "tx", pid, 1, True, version=5)
    assert (committed.error_code, committed.producer_epoch) == (NONE, 2)
    # the bumped-from epoch is a retry's: the other outcome is refused; an older one is fenced
    assert end(b, "tx", pid, 1, False, version=5).error_code == INVALID_TXN_STATE
    assert end(b, "tx", pid, 0, False, version=5).error_code == PRODUCER_FENCED


def test_markers_lso_and_aborted_transactions_in_fetch(b):
    pid = init(b, "tx").producer_id
    add(b, "tx", pid, 0, [("t", 0)])
    assert produce_txn(b, pid, 0, count=3).error_code == NONE           # offsets 0-2
    open_ = fetch(b, 0, 0, isolation=1)
    assert (open_.high_watermark, open_.last_stable_offset, open_.records) == (3, 0, b"")
    assert fetch(b, 0, 0, isolation=0).last_stable_offset == 0
    lo = REQUESTS[LIST_OFFSETS]

    def latest(isolation):
        answer = send(b, LIST_OFFSETS, 5, replica_id=-1, isolation_level=isolation, topics=[
            lo.ListOffsetsTopic(name="t", partitions=[lo.ListOffsetsTopic.ListOffsetsPartition(
                partition_index=0, current_leader_epoch=-1, timestamp=-1)])])
        return answer.topics[0].partitions[0].offset

    assert (latest(0), latest(1)) == (3, 0)
    assert end(b, "tx", pid, 0, False).error_code == NONE                 # abort marker at 3
    aborted = fetch(b, 0, 0, isolation=1)
    assert (aborted.high_watermark, aborted.last_stable_offset) == (4, 4)
    assert [(a.producer_id, a.first_offset) for a in aborted.aborted_transactions] == [(pid, 0)]
    assert fetch(b, 0, 0, isolation=0).aborted_transactions is None
    assert fetch(b, 0, 4, isolation=1).aborted_transactions == []        # past it
    assert (latest(0), latest(1)) == (4, 4)
    add(b, "tx", pid, 0, [("t", 0)])
    assert produce_txn(b, pid, 0, count=2, sequence=3).error_code == NONE   # 4-5, marker at 6
    end(b, "tx", pid, 0, False)
    both = fetch(b, 0, 0, isolation=1)
    assert [a.first_offset for a in both.aborted_transactions] == [0, 4]
    first_batch = fetch(b, 0, 0, isolation=1, max_bytes=1)   # one batch (KIP-74): the first
    assert [a.first_offset for a in first_batch.aborted_transactions] == [0]


def test_txn_offsets_are_pending_until_commit_and_require_stable_sees_them(b):
    pid = init(b, "tx").producer_id
    assert send(b, ADD_OFFSETS, 3, transactional_id="tx", producer_id=pid, producer_epoch=0,
                group_id="g").error_code == NONE
    C = REQUESTS[TXN_OFFSET_COMMIT]
    committed = send(b, TXN_OFFSET_COMMIT, 3, transactional_id="tx", group_id="g", producer_id=pid,
                     producer_epoch=0, generation_id=-1, member_id="", group_instance_id=None,
                     topics=[C.TxnOffsetCommitRequestTopic(name="t", partitions=[
                         C.TxnOffsetCommitRequestTopic.TxnOffsetCommitRequestPartition(
                             partition_index=0, committed_offset=42, committed_leader_epoch=-1,
                             committed_metadata="m")])])
    assert committed.topics[0].partitions[0].error_code == NONE
    F = REQUESTS[OFFSET_FETCH]

    def fetched(stable):
        answer = send(b, OFFSET_FETCH, 7, group_id="g", require_stable=stable,
                      topics=[F.OffsetFetchRequestTopic(name="t", partition_indexes=[0])])
        p = answer.topics[0].partitions[0]
        return p.error_code, p.committed_offset

    assert fetched(True) == (UNSTABLE_OFFSET_COMMIT, -1)
    assert fetched(False) == (NONE, -1)
    assert end(b, "tx", pid, 0, True).error_code == NONE
    assert fetched(True) == (NONE, 42)


def test_list_describe_transactions_and_describe_producers(b, clock):
    pid = init(b, "tx-a", timeout_ms=30_000).producer_id
    other = init(b, "tx-b").producer_id
    add(b, "tx-a", pid, 0, [("t", 1)])
    produce_txn(b, pid, 1, count=2)
    clock.now_ms += 5_000

    def listed(version=2, **filters):
        fields = dict(state_filters=[], producer_id_filters=[], duration_filter=-1,
                      transactional_id_pattern=None)
        fields.update(filters)
        answer = send(b, 66, version, **fields)
        return answer.unknown_state_filters, sorted(
            (t.transactional_id, t.producer_id, t.transaction_state) for t in answer.transaction_states)

    assert listed() == ([], [("tx-a", pid, "Ongoing"), ("tx-b", other, "Empty")])
    assert listed(state_filters=["Ongoing", "Bogus"]) == (["Bogus"], [("tx-a", pid, "Ongoing")])
    assert listed(producer_id_filters=[other]) == ([], [("tx-b", other, "Empty")])
    assert listed(duration_filter=4_000)[1] == [("tx-a", pid, "Ongoing")]
    assert listed(duration_filter=6_000)[1] == []
    assert listed(transactional_id_pattern="tx-.")[1] == listed()[1]
    assert listed(transactional_id_pattern="tx")[1] == []                 # the whole id must match

    described = send(b, 65, 0, transactional_ids=["tx-a", "missing"]).transaction_states
    a, missing = described
    assert (a.error_code, a.transaction_state, a.transaction_timeout_ms, a.producer_id,
            a.producer_epoch, a.transaction_start_time_ms) == (
        NONE, "Ongoing", 30_000, pid, 0, clock.now_ms - 5_000)
    assert [(t.topic, t.partitions) for t in a.topics] == [("t", [1])]
    assert missing.error_code == TRANSACTIONAL_ID_NOT_FOUND

    D = REQUESTS[61]
    (part,) = send(b, 61, 0, topics=[D.TopicRequest(name="t", partition_indexes=[1])]).topics[0].partitions
    (producer,) = part.active_producers
    assert (producer.producer_id, producer.producer_epoch, producer.last_sequence,
            producer.current_txn_start_offset) == (pid, 0, 1, 0)
    end(b, "tx-a", pid, 0, True)
    (a,) = send(b, 65, 0, transactional_ids=["tx-a"]).transaction_states
    assert (a.transaction_state, a.topics) == ("CompleteCommit", [])
    (part,) = send(b, 61, 0, topics=[D.TopicRequest(name="t", partition_indexes=[1])]).topics[0].partitions
    assert [(p.current_txn_start_offset, p.coordinator_epoch) for p in part.active_producers] == [
        (-1, 0)]                                        # the marker's coordinator epoch


def test_transaction_state_survives_a_restart_with_a_data_dir(tmp_path, clock):
    """Kafka keeps transactions in __transaction_state and rebuilds the LSO and the aborted index
    from the log; so does the broker, from its data dir."""
    with EmbeddedCluster(nodes=1, data_dir=tmp_path, clock=clock) as ec:
        ec.create_topic("t", partitions=2)
        b = ec.bootstrap_servers
        pid = init(b, "tx", timeout_ms=600_000).producer_id
        add(b, "tx", pid, 0, [("t", 0)])
        assert produce_txn(b, pid, 0, count=2).error_code == NONE      # 0-1, aborted at 2
        end(b, "tx", pid, 0, False)
        add(b, "tx", pid, 0, [("t", 0), ("t", 1)])
        assert send(b, ADD_OFFSETS, 3, transactional_id="tx", producer_id=pid, producer_epoch=0,
                    group_id="g").error_code == NONE
        assert produce_txn(b, pid, 0, sequence=2).error_code == NONE    # 3, left open
    with EmbeddedCluster(nodes=1, data_dir=tmp_path, clock=clock) as ec:
        b = ec.bootstrap_servers
        (state,) = send(b, 65, 0, transactional_ids=["tx"]).transaction_states
        assert (state.transaction_state, state.producer_id, state.producer_epoch) == (
            "Ongoing", pid, 0)
        assert sorted((t.topic, tuple(t.partitions)) for t in state.topics) == [
            ("__consumer_offsets", (ec.cluster.offsets_partition("g"),)), ("t", (0, 1))]
        held = fetch(b, 0, 0, isolation=1)
        assert (held.high_watermark, held.last_stable_offset) == (4, 3)
        assert [(a.producer_id, a.first_offset) for a in held.aborted_transactions] == [(pid, 0)]
        again = init(b, "tx")                                 # fences: the open one is aborted
        assert (again.producer_id, again.producer_epoch) == (pid, 1)
        assert fetch(b, 0, 0, isolation=1).last_stable_offset == 5
        assert produce_txn(b, pid, 1).error_code == INVALID_PRODUCER_EPOCH  # the old epoch


def test_a_timed_out_transaction_is_aborted_at_a_bumped_epoch(b):
    pid = init(b, "tx", timeout_ms=300).producer_id
    add(b, "tx", pid, 0, [("t", 0)])
    assert produce_txn(b, pid, 0).error_code == NONE
    assert fetch(b, 0, 0, isolation=1).last_stable_offset == 0

    def state():
        (s,) = send(b, 65, 0, transactional_ids=["tx"]).transaction_states
        return s.transaction_state, s.producer_epoch

    wait_until(lambda: state() == ("CompleteAbort", 1), 10, 0.05, "the timeout's abort")
    held = fetch(b, 0, 0, isolation=1)
    assert (held.last_stable_offset, [a.first_offset for a in held.aborted_transactions]) == (2, [0])
    assert end(b, "tx", pid, 0, True, version=4).error_code == PRODUCER_FENCED
    assert end(b, "tx", pid, 0, True, version=5).error_code == INVALID_TXN_STATE   # as Kafka's TV2
    assert produce_txn(b, pid, 0, sequence=1).error_code == INVALID_PRODUCER_EPOCH


def test_write_txn_markers_aborts_a_hanging_transaction(b):
    """Admin.abortTransaction's request (kafka-transactions abort): the partition leader writes
    the marker for the producer named, whatever its coordinator knows."""
    pid = init(b, "tx").producer_id
    add(b, "tx", pid, 0, [("t", 0)])
    assert produce_txn(b, pid, 0, count=2).error_code == NONE
    W = REQUESTS[27]

    def write(epoch, index=0):
        answer = send(b, 27, 1, markers=[W.WritableTxnMarker(
            producer_id=pid, producer_epoch=epoch, transaction_result=False, coordinator_epoch=0,
            topics=[W.WritableTxnMarker.WritableTxnMarkerTopic(name="t", partition_indexes=[index])])])
        return answer.markers[0].topics[0].partitions[0].error_code

    assert fetch(b, 0, 0, isolation=1).last_stable_offset == 0
    assert write(epoch=0, index=5) == UNKNOWN_TOPIC_OR_PARTITION
    assert write(epoch=0) == NONE
    after = fetch(b, 0, 0, isolation=1)
    assert (after.last_stable_offset, [a.first_offset for a in after.aborted_transactions]) == (3, [0])
    init(b, "tx")                                     # epoch 1: the coordinator's abort marker
    assert fetch(b, 0, 0, isolation=1).last_stable_offset == 4
    assert write(epoch=0) == INVALID_PRODUCER_EPOCH   # older than the partition has seen

"""The transaction coordinator of one cluster: every transactional id, whichever node coordinates
it (handlers check the node, as for groups).

Transactions complete synchronously, as franz-go's kfake does: EndTxn writes the COMMIT or ABORT
marker to every partition of the transaction and moves its pending offsets into the group's
committed offsets before it answers, so no PrepareCommit/PrepareAbort state is ever seen. States,
by Kafka's names: Empty (initialised, no partition yet), Ongoing, CompleteCommit, CompleteAbort.

Epochs, as Kafka's TransactionCoordinator bumps them: InitProducerId bumps the id's epoch (a new
producer id when it would overflow), aborting an open transaction first, so the older producer is
fenced (PRODUCER_FENCED on its next coordinator request; INVALID_PRODUCER_EPOCH on its next
Produce, which the partition leader checks against the transaction); a transaction that outlives
its ``transaction.timeout.ms`` is aborted with an epoch bump (the producer is fenced the same way);
EndTxn v5+ (KIP-890 part 2) bumps the epoch after each transaction and answers it.

A transactional batch is appended only to a partition its transaction holds (KIP-890 part 1's
verification, done in-process); the partition log keeps the open transaction's first offset (the
LSO) and the aborted transactions (log.py), rebuilt from the markers when the log is read back.

On disk (``data_dir``): ``transactions.json``, every transactional id's state and pending offsets,
replaced durably (files.replace_durably) on each change.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import asdict, dataclass, field

from kcli.broker.errors import BrokerError, Err
from kcli.broker.files import replace_durably
from kcli.broker.groups import coordinator_for
from kcli.broker.groups.store import Committed
from kcli.broker.groups.timers import Timers
from kcli.broker.log import ABORT, COMMIT

EMPTY, ONGOING, COMPLETE_COMMIT, COMPLETE_ABORT = "Empty", "Ongoing", "CompleteCommit", "CompleteAbort"
STATES = ("Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort",
          "Dead", "PrepareEpochFence")
MAX_EPOCH = 32767
OFFSETS_TOPIC = "__consumer_offsets"
FILE_NAME = "transactions.json"


@dataclass
class Txn:
    transactional_id: str
    producer_id: int
    epoch: int
    timeout_ms: int
    state: str = EMPTY
    start_time_ms: int = -1
    last_update_ms: int = -1
    partitions: list[list] = field(default_factory=list)          # [topic, partition], in order
    groups: list[str] = field(default_factory=list)
    # group -> "topic\x00partition" -> [offset, leader epoch, metadata]
    pending: dict[str, dict[str, list]] = field(default_factory=dict)
    last_epoch: int = -1        # the epoch before EndTxn v5+'s bump (a retried EndTxn carries it)


class TransactionCoordinator:
    def __init__(self, cluster):
        self._cluster = weakref.ref(cluster)        # the cluster owns its coordinator
        self.timers = Timers()
        self.txns: dict[str, Txn] = {}
        self._by_producer: dict[int, Txn] = {}      # each Produce's check looks its batch up here
        self._path = None if cluster.data_dir is None else cluster.data_dir / FILE_NAME
        if self._path is not None and self._path.exists():
            for t in json.loads(self._path.read_text())["transactions"]:
                txn = self.txns[t["transactional_id"]] = Txn(**t)
                self._by_producer[txn.producer_id] = txn

    @property
    def cluster(self):
        return self._cluster()

    def start(self) -> None:
        """Arm the timeouts of transactions left open (at a restart): on the running loop."""
        for txn in self.txns.values():
            if txn.state == ONGOING:
                self._arm(txn)

    # ---- the coordinator requests --------------------------------------------------------

    def init_producer_id(self, transactional_id: str, timeout_ms: int, producer_id: int,
                         producer_epoch: int, max_timeout_ms: int) -> Txn:
        if not 0 < timeout_ms <= max_timeout_ms:
            raise BrokerError(Err.INVALID_TRANSACTION_TIMEOUT)
        txn = self.txns.get(transactional_id)
        if txn is None:
            txn = self.txns[transactional_id] = Txn(transactional_id,
                                                    self.cluster.allocate_producer_id(), 0, timeout_ms)
            self._by_producer[txn.producer_id] = txn
            txn.last_update_ms = self.cluster.now_ms()
            self._save()
            return txn
        if producer_id != -1 and not (producer_id == txn.producer_id
                                      and producer_epoch in (txn.epoch, txn.last_epoch)):
            raise BrokerError(Err.PRODUCER_FENCED)        # KIP-360: not the current producer
        if txn.state == ONGOING:
            self._bump(txn)
            self._complete(txn, commit=False)         # fences the producer: markers at the new epoch
        else:
            self._bump(txn)
        txn.timeout_ms = timeout_ms
        txn.last_epoch = -1
        self._save()
        return txn

    def add_partitions(self, transactional_id: str, producer_id: int, epoch: int,
                       partitions: list[tuple[str, int]], verify_only: bool = False) -> dict:
        """{(topic, partition): error} for AddPartitionsToTxn; raises BrokerError for the whole
        transaction."""
        txn = self._check(transactional_id, producer_id, epoch)
        results = {}
        for topic, index in partitions:
            t = self.cluster.topics.get(topic)
            results[(topic, index)] = (Err.NONE if t is not None and 0 <= index < len(t.partitions)
                                       else Err.UNKNOWN_TOPIC_OR_PARTITION)
        if verify_only:
            held = {tuple(p) for p in txn.partitions} if txn.state == ONGOING else set()
            return {tp: code or (Err.NONE if tp in held else Err.INVALID_TXN_STATE)
                    for tp, code in results.items()}
        if any(results.values()):
            return {tp: code or Err.OPERATION_NOT_ATTEMPTED for tp, code in results.items()}
        self._begin(txn)
        for tp in partitions:
            if list(tp) not in txn.partitions:
                txn.partitions.append(list(tp))
        self._save()
        return results

    def add_offsets(self, transactional_id: str, producer_id: int, epoch: int, group_id: str) -> None:
        txn = self._check(transactional_id, producer_id, epoch)
        self._begin(txn)
        if group_id not in txn.groups:
            txn.groups.append(group_id)
        self._save()

    def txn_offset_commit(self, transactional_id: str, producer_id: int, epoch: int, group_id: str,
                          offsets: list[tuple[str, int, int, int, str | None]]) -> None:
        txn = self.txns.get(transactional_id)
        if txn is None or txn.producer_id != producer_id:
            raise BrokerError(Err.INVALID_PRODUCER_ID_MAPPING)
        if epoch != txn.epoch:
            raise BrokerError(Err.INVALID_PRODUCER_EPOCH)
        if txn.state != ONGOING or group_id not in txn.groups:
            raise BrokerError(Err.INVALID_TXN_STATE)
        pending = txn.pending.setdefault(group_id, {})
        for topic, index, offset, leader_epoch, metadata in offsets:
            pending[f"{topic}\x00{index}"] = [offset, leader_epoch, metadata]
        self._save()

    def end_txn(self, transactional_id: str, producer_id: int, epoch: int, commit: bool,
                bump: bool) -> Txn:
        """EndTxn; ``bump`` (v5+, KIP-890): a new epoch after the transaction, answered."""
        txn = self.txns.get(transactional_id)
        if txn is None or txn.producer_id != producer_id:
            raise BrokerError(Err.INVALID_PRODUCER_ID_MAPPING)
        done = COMPLETE_COMMIT if commit else COMPLETE_ABORT
        if bump and epoch == txn.last_epoch and txn.state in (COMPLETE_COMMIT, COMPLETE_ABORT):
            if txn.state == done:
                return txn                              # a retry of the EndTxn that bumped
            raise BrokerError(Err.INVALID_TXN_STATE)    # e.g. a commit after the timeout's abort
        if epoch != txn.epoch:
            raise BrokerError(Err.PRODUCER_FENCED)
        if txn.state == ONGOING:
            self._complete(txn, commit)
        elif txn.state == done and not bump:
            return txn                                  # a retry: already so
        elif not (bump and not commit and txn.state in (EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT)):
            raise BrokerError(Err.INVALID_TXN_STATE)    # v5+ may abort an empty transaction
        else:
            txn.state = done
        if bump:
            txn.last_epoch = txn.epoch
            self._bump(txn)
        self._save()
        return txn

    # ---- checks for the partition leader and the group coordinator -----------------------

    def verify(self, producer_id: int, epoch: int, topic: str, index: int) -> Err:
        """A transactional batch's check (KIP-890 part 1): its transaction holds the partition."""
        txn = self._by_producer.get(producer_id)
        if txn is None:
            return Err.INVALID_PRODUCER_ID_MAPPING
        if epoch < txn.epoch:
            return Err.INVALID_PRODUCER_EPOCH
        if txn.state == ONGOING and epoch == txn.epoch and [topic, index] in txn.partitions:
            return Err.NONE
        return Err.INVALID_TXN_STATE

    def pending_partitions(self, group_id: str) -> set[tuple[str, int]]:
        """The group's partitions with transactional offsets not yet committed (RequireStable)."""
        out = set()
        for txn in self.txns.values():
            for key in txn.pending.get(group_id, {}):
                topic, _, index = key.partition("\x00")
                out.add((topic, int(index)))
        return out

    # ---- state changes -------------------------------------------------------------------

    def _check(self, transactional_id: str, producer_id: int, epoch: int) -> Txn:
        txn = self.txns.get(transactional_id)
        if txn is None or txn.producer_id != producer_id:
            raise BrokerError(Err.INVALID_PRODUCER_ID_MAPPING)
        if epoch != txn.epoch:
            raise BrokerError(Err.PRODUCER_FENCED)
        return txn

    def _begin(self, txn: Txn) -> None:
        now = self.cluster.now_ms()
        if txn.state != ONGOING:
            txn.state, txn.start_time_ms = ONGOING, now
            txn.partitions, txn.groups, txn.pending = [], [], {}
            self._arm(txn)
        txn.last_update_ms = now

    def _bump(self, txn: Txn) -> None:
        if txn.epoch + 1 >= MAX_EPOCH:
            del self._by_producer[txn.producer_id]
            txn.producer_id, txn.epoch = self.cluster.allocate_producer_id(), 0
            self._by_producer[txn.producer_id] = txn
        else:
            txn.epoch += 1

    def _arm(self, txn: Txn) -> None:
        left = txn.start_time_ms + txn.timeout_ms - self.cluster.now_ms()
        self.timers.schedule(txn.transactional_id, left, lambda: self._expire(txn.transactional_id))

    def _expire(self, transactional_id: str) -> None:
        """A transaction past its timeout: aborted at a bumped epoch, fencing its producer."""
        txn = self.txns.get(transactional_id)
        if txn is None or txn.state != ONGOING:
            return
        txn.last_epoch = txn.epoch      # EndTxn v5 from the producer: INVALID_TXN_STATE
        self._bump(txn)
        self._complete(txn, commit=False)
        self._save()

    def _complete(self, txn: Txn, commit: bool) -> None:
        """Write the markers (at the transaction's current epoch) and settle its offsets."""
        self.timers.cancel(txn.transactional_id)
        now = self.cluster.now_ms()
        written = []
        for topic_name, index in txn.partitions:
            topic = self.cluster.topics.get(topic_name)
            if topic is None or index >= len(topic.partitions):
                continue                                # deleted meanwhile
            p = topic.partitions[index]
            p.log.write_marker(txn.producer_id, txn.epoch, COMMIT if commit else ABORT, now,
                               p.leader_epoch)
            written.append(p.log)
        if commit and txn.pending:
            groups = coordinator_for(self.cluster)
            for group_id, offsets in txn.pending.items():
                entries = []
                for key, (offset, leader_epoch, metadata) in offsets.items():
                    topic_name, _, index = key.partition("\x00")
                    topic = self.cluster.topics.get(topic_name)
                    entries.append((topic_name, int(index), Committed(
                        offset, leader_epoch, metadata, now,
                        str(topic.topic_id) if topic is not None else None)))
                groups.commit(group_id, entries)
        txn.pending, txn.partitions, txn.groups = {}, [], []     # as Kafka's prepareComplete
        txn.state = COMPLETE_COMMIT if commit else COMPLETE_ABORT
        txn.last_update_ms = now
        for log in written:
            log.sync()
        if written:
            self.cluster.notify_append()

    def _save(self) -> None:
        if self._path is None:
            return
        state = {"transactions": [asdict(t) for t in self.txns.values()]}
        replace_durably(self._path, lambda f: json.dump(state, f, indent=1))

    # ---- views ---------------------------------------------------------------------------

    def partitions_of(self, txn: Txn) -> list[tuple[str, int]]:
        """The transaction's partitions, with the group's ``__consumer_offsets`` partition for
        each group it commits offsets for (as Kafka adds it)."""
        parts = [tuple(p) for p in txn.partitions]
        for group_id in txn.groups:
            parts.append((OFFSETS_TOPIC, self.cluster.offsets_partition(group_id)))
        return parts

    def close(self) -> None:
        self.timers.cancel_all()


_COORDINATORS: "weakref.WeakKeyDictionary[object, TransactionCoordinator]" = weakref.WeakKeyDictionary()


def transactions_for(cluster) -> TransactionCoordinator:
    """The cluster's transaction coordinator, created (and its state read back, its open
    transactions' timeouts armed) on first use, on the broker's loop."""
    coordinator = _COORDINATORS.get(cluster)
    if coordinator is None:
        coordinator = _COORDINATORS[cluster] = TransactionCoordinator(cluster)
        coordinator.start()
    return coordinator


def close_transactions(cluster) -> None:
    coordinator = _COORDINATORS.pop(cluster, None)
    if coordinator is not None:
        coordinator.close()

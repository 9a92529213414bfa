"""One partition's log: record batches kept exactly as the producer sent them.

The broker rewrites only the base offset (bytes 0-7) and the partition leader epoch (bytes
12-15), which lie outside the CRC; a LogAppendTime topic also gets the broker time stamped into
the batch's timestamp type and max timestamp (and the CRC recomputed), as Kafka does, and a
producer's LogAppendTime batch that a CreateTime topic accepts is stored as CreateTime. Reading
uses ``kafka.record``.

Transactions: each producer's open transaction (its first transactional batch not yet followed
by a COMMIT or ABORT marker) holds the last stable offset; aborted transactions are indexed by
their markers. Both come from the batches themselves, so they are rebuilt when the log is read back.

With a path, batches are appended to one file in Kafka's own batch format. On open, the file is
read back batch by batch; the first torn or corrupt batch and everything after it is cut off.
``sync()`` fsyncs the file (the broker awaits it before answering acks=all).
"""

from __future__ import annotations

import bisect
import os
import struct
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import kcli.protocol  # noqa: F401 - first: registers kafka-python's packages bare (kcli.protocol), so
#                       kafka.errors and kafka.record below do not load its whole client
from kafka.errors import CorruptRecordError
from kafka.record import MemoryRecords
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder
from kafka.record.util import calc_crc32c

_BASE_OFFSET = struct.Struct(">q")                    # at 0
_INT32 = struct.Struct(">i")
_LEADER_EPOCH_AT = DefaultRecordBatch.AFTER_LEN_OFFSET  # PartitionLeaderEpoch follows Length
_MAX_TS_AT = struct.calcsize(">qiibIhiq")             # MaxTimestamp in the batch header
_CRC = struct.Struct(">I")


@dataclass(slots=True)
class BatchInfo:
    base_offset: int
    last_offset: int
    max_timestamp: int
    leader_epoch: int
    data: bytes


@dataclass
class ProducerEntry:
    epoch: int
    last_sequence: int
    recent: deque = field(default_factory=lambda: deque(maxlen=5))  # (first_seq, last_seq, base)
    last_timestamp: int = -1
    txn_start: int | None = None        # the first offset of the producer's open transaction
    coordinator_epoch: int = -1         # of the last transaction marker


ABORT, COMMIT = 0, 1                    # a control record's type (Kafka's ControlRecordType)
_CONTROL = struct.Struct(">hh")         # a control record's key: version, type
_MARKER_VALUE = struct.Struct(">hi")    # an end-transaction marker's value: version, coordinator epoch


def control_batch(producer_id: int, producer_epoch: int, marker: int, timestamp: int,
                  coordinator_epoch: int = 0) -> bytes:
    """A COMMIT or ABORT marker, as Kafka's transaction coordinator has the leader write it: a
    transactional control batch of one record, without a sequence."""
    builder = DefaultRecordBatchBuilder(2, 0, True, producer_id, producer_epoch,
                                        DefaultRecordBatch.NO_SEQUENCE, 1 << 20)
    builder.append(0, timestamp, _CONTROL.pack(0, marker), _MARKER_VALUE.pack(0, coordinator_epoch), [])
    buf = builder.build()
    attrs_at = DefaultRecordBatch.ATTRIBUTES_OFFSET
    attrs = struct.unpack_from(">h", buf, attrs_at)[0] | DefaultRecordBatch.CONTROL_MASK
    struct.pack_into(">h", buf, attrs_at, attrs)
    _CRC.pack_into(buf, DefaultRecordBatch.CRC_OFFSET, calc_crc32c(memoryview(buf)[attrs_at:]))
    return bytes(buf)


def _marker(batch: DefaultRecordBatch) -> tuple[int | None, int]:
    """A control batch's (type, coordinator epoch); (None, -1) for another control record."""
    for record in batch:
        if record.key is not None and len(record.key) >= _CONTROL.size:
            kind = _CONTROL.unpack_from(record.key)[1]
            value = record.value or b""
            epoch = _MARKER_VALUE.unpack_from(value)[1] if len(value) >= _MARKER_VALUE.size else -1
            return kind, epoch
    return None, -1


class PartitionLog:
    def __init__(self, path: Path | None = None, log_start_offset: int = 0):
        self.path = path
        self.log_start_offset = log_start_offset
        self.log_end_offset = 0
        self._batches: list[BatchInfo] = []
        self._bases: list[int] = []
        self._prefix_max: list[int] = []   # running max of batch max timestamps (time index)
        self.size_bytes = 0                # the stored batches' bytes (what a new replica copies)
        self.producers: dict[int, ProducerEntry] = {}
        self.aborted: list[tuple[int, int, int]] = []  # (producer id, first offset, marker offset)
        self._open: dict[int, int] = {}    # producer id -> its open transaction's first offset
        self._fd: int | None = None
        if path is not None:
            self._recover(path)
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.log_end_offset = max(self.log_end_offset, log_start_offset)

    # -- persistence -----------------------------------------------------------------------

    def _recover(self, path: Path) -> None:
        data = path.read_bytes() if path.exists() else b""
        records = MemoryRecords(data)
        valid = 0
        while True:
            try:
                batch = records.next_batch()
            except CorruptRecordError:
                break
            # the first batch may start anywhere: DeleteRecords rewrites the file from the batch
            # holding the new log start offset (delete_records)
            first = not self._batches
            if (batch is None or not isinstance(batch, DefaultRecordBatch)
                    or (not first and batch.base_offset != self.log_end_offset) or not batch.validate_crc()):
                break
            if first:                       # what precedes the file's first batch is gone
                self.log_start_offset = max(self.log_start_offset, batch.base_offset)
            raw = bytes(data[valid:valid + batch.size_in_bytes])
            valid += len(raw)
            self._index(DefaultRecordBatch(raw), raw)
        if valid != len(data):
            with open(path, "r+b") as f:
                f.truncate(valid)
                os.fsync(f.fileno())
        self._drop_below(self.log_start_offset)

    def sync(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def destroy(self) -> None:
        self.close()
        if self.path is not None:
            self.path.unlink(missing_ok=True)

    # -- writing ---------------------------------------------------------------------------

    def check_producer(self, batch: DefaultRecordBatch) -> tuple[int, int | None]:
        """Idempotent-producer checks: (error code, base offset of an identical earlier batch)."""
        if not batch.has_producer_id():
            return 0, None
        entry = self.producers.get(batch.producer_id)
        if entry is None or batch.producer_epoch > entry.epoch:
            return (0, None) if batch.base_sequence == 0 else (45, None)  # OUT_OF_ORDER_SEQUENCE
        if batch.producer_epoch < entry.epoch:
            return 47, None                                                # INVALID_PRODUCER_EPOCH
        for first, last, base in entry.recent:
            if first == batch.base_sequence and last == batch.last_sequence:
                return 0, base                                             # duplicate: ack again
        expected = 0 if entry.last_sequence == DefaultRecordBatch.MAX_INT else entry.last_sequence + 1
        return (0, None) if batch.base_sequence == expected else (45, None)

    def append(self, data: bytes | bytearray, leader_epoch: int,
                   log_append_time: int | None = None) -> int:
        """Store one validated batch given as its received bytes; return its base offset."""
        buf = bytearray(data)
        base = self.log_end_offset
        _BASE_OFFSET.pack_into(buf, 0, base)
        _INT32.pack_into(buf, _LEADER_EPOCH_AT, leader_epoch)
        attrs_at, mask = DefaultRecordBatch.ATTRIBUTES_OFFSET, DefaultRecordBatch.TIMESTAMP_TYPE_MASK
        attrs = struct.unpack_from(">h", buf, attrs_at)[0]
        if log_append_time is not None:
            struct.pack_into(">h", buf, attrs_at, attrs | mask)
            struct.pack_into(">q", buf, _MAX_TS_AT, log_append_time)
        elif attrs & mask:     # a producer's LogAppendTime batch: Kafka stores it as CreateTime
            struct.pack_into(">h", buf, attrs_at, attrs & ~mask)
        if log_append_time is not None or attrs & mask:
            _CRC.pack_into(buf, DefaultRecordBatch.CRC_OFFSET,
                           calc_crc32c(memoryview(buf)[attrs_at:]))
        raw = bytes(buf)
        if self._fd is not None:
            os.write(self._fd, raw)
        self._index(DefaultRecordBatch(raw), raw)
        return base

    def _index(self, batch: DefaultRecordBatch, raw: bytes) -> None:
        info = BatchInfo(batch.base_offset, batch.last_offset, batch.max_timestamp,
                         batch.leader_epoch, raw)
        self._batches.append(info)
        self.size_bytes += len(raw)
        self._bases.append(info.base_offset)
        prev = self._prefix_max[-1] if self._prefix_max else -1
        self._prefix_max.append(max(prev, info.max_timestamp))
        self.log_end_offset = info.last_offset + 1
        if batch.has_producer_id():
            entry = self.producers.get(batch.producer_id)
            if entry is None or entry.epoch != batch.producer_epoch:
                txn_start = entry.txn_start if entry is not None else None
                entry = self.producers[batch.producer_id] = ProducerEntry(batch.producer_epoch, -1)
                entry.txn_start = txn_start      # a marker at a bumped epoch ends it
            entry.last_timestamp = info.max_timestamp
            if batch.is_control_batch:
                marker, entry.coordinator_epoch = _marker(batch)
                if marker == ABORT and entry.txn_start is not None:
                    self.aborted.append((batch.producer_id, entry.txn_start, info.base_offset))
                if marker in (ABORT, COMMIT):
                    entry.txn_start = None
                    self._open.pop(batch.producer_id, None)
                return
            if batch.is_transactional and entry.txn_start is None:
                entry.txn_start = self._open[batch.producer_id] = info.base_offset
            entry.last_sequence = batch.last_sequence
            entry.recent.append((batch.base_sequence, batch.last_sequence, info.base_offset))

    # -- transactions ----------------------------------------------------------------------

    @property
    def last_stable_offset(self) -> int:
        """The LSO: the first offset of the earliest open transaction, else the log end."""
        return min(self._open.values(), default=self.log_end_offset)

    def write_marker(self, producer_id: int, producer_epoch: int, marker: int, timestamp: int,
                     leader_epoch: int, coordinator_epoch: int = 0) -> int:
        """Append a COMMIT or ABORT marker for the producer's transaction; its offset."""
        return self.append(control_batch(producer_id, producer_epoch, marker, timestamp,
                                         coordinator_epoch), leader_epoch)

    def read_committed(self, offset: int, max_bytes: int,
                       at_least_one: bool = True) -> tuple[list, int, list[tuple[int, int]]]:
        """``read`` up to the LSO, and (producer id, first offset) of each aborted transaction
        with records among those read, as Kafka's Fetch answers a read_committed consumer."""
        chunks, size = self.read(offset, max_bytes, at_least_one, self.last_stable_offset)
        whole = [c for c in chunks if len(c) >= _BASE_OFFSET.size]
        if not whole:
            return chunks, size, []
        last = self._batches[bisect.bisect_right(self._bases,
                                                 _BASE_OFFSET.unpack_from(whole[-1])[0]) - 1]
        end = last.last_offset + 1
        # the aborted transactions are in marker order: from the first whose marker is past offset
        i = bisect.bisect_left(self.aborted, offset, key=lambda a: a[2])
        return chunks, size, [(pid, first) for pid, first, _ in self.aborted[i:] if first < end]

    def delete_records(self, offset: int) -> None:
        """Advance the log start offset (DeleteRecords); the caller checks the bounds. The
        batches wholly below it are dropped, from memory and, with a path, from the file: it is
        rewritten from the batch holding the new log start offset (to a temporary file, fsynced,
        then renamed over it), as Kafka frees the segments below it."""
        self.log_start_offset = max(self.log_start_offset, offset)
        before = len(self._batches)
        self._drop_below(self.log_start_offset)
        if self.path is not None and len(self._batches) != before:
            self._rewrite(self.path)

    def size_in_bytes(self) -> int:
        """The bytes of the batches kept: what DescribeLogDirs reports as the partition's size
        (Kafka's sum of its segments' sizes)."""
        return sum(len(b.data) for b in self._batches)

    def _rewrite(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            for b in self._batches:
                os.write(fd, b.data)
            os.fsync(fd)
        finally:
            os.close(fd)
        self.close()
        os.replace(tmp, path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _drop_below(self, offset: int) -> None:
        self.aborted = [a for a in self.aborted if a[2] >= offset]
        keep = [b for b in self._batches if b.last_offset >= offset]
        if len(keep) != len(self._batches):
            self._batches = keep
            self.size_bytes = sum(len(b.data) for b in keep)
            self._bases = [b.base_offset for b in keep]
            self._prefix_max = []
            for b in keep:
                self._prefix_max.append(max(self._prefix_max[-1] if self._prefix_max else -1,
                                            b.max_timestamp))

    # -- reading ---------------------------------------------------------------------------

    def read(self, offset: int, max_bytes: int, at_least_one: bool = True,
             max_offset: int | None = None) -> tuple[list, int]:
        """The log's bytes from the batch holding ``offset``, as Kafka's LogSegment.read gives
        them: at most ``max_bytes``, so the last batch may be cut short (clients drop an
        incomplete trailing batch), except that the whole first batch comes back when it is
        larger and ``at_least_one`` (KIP-74), and nothing when it is larger otherwise (Kafka's
        ReplicaManager answers Fetch v3+ so when the first batch is incomplete: the client asks
        again, rather than read a batch it cannot use). ``max_offset`` (read_committed: the
        LSO) stops before the first batch at or past it. Returned uncopied: (the stored batches,
        the last one maybe a memoryview of its head, their total size)."""
        i = max(bisect.bisect_right(self._bases, offset) - 1, 0)
        out: list[bytes | memoryview] = []
        size, limit = 0, max_bytes
        for b in self._batches[i:]:
            if b.last_offset < offset:
                continue
            if max_offset is not None and b.base_offset >= max_offset:
                break
            if not out and at_least_one:
                limit = max(max_bytes, len(b.data))
            if size >= limit:
                break
            if size + len(b.data) > limit:
                if not out:                      # the first batch incomplete: none (Fetch v3+)
                    return [], 0
                out.append(memoryview(b.data)[:limit - size])
                return out, limit
            out.append(b.data)
            size += len(b.data)
        return out, size

    def batches_between(self, first: int, last: int) -> list[bytes]:
        """The stored batches holding any offset of [first, last], whole and uncopied (a share
        fetch sends the batches around its acquired records)."""
        i = max(bisect.bisect_right(self._bases, first) - 1, 0)
        out = []
        for b in self._batches[i:]:
            if b.base_offset > last:
                break
            if b.last_offset >= first:
                out.append(b.data)
        return out

    def epoch_at(self, offset: int, current_epoch: int) -> int:
        i = bisect.bisect_right(self._bases, offset) - 1
        if 0 <= i < len(self._batches) and self._batches[i].last_offset >= offset:
            return self._batches[i].leader_epoch
        return current_epoch

    def _records_from(self, index: int):
        for b in self._batches[index:]:
            try:
                for record in DefaultRecordBatch(b.data):
                    if record.offset >= self.log_start_offset:
                        yield b, record
            except Exception:   # noqa: BLE001 - records Produce stored undecoded (handlers/data.py) and that
                continue        # do not decode (codecs raise many types): none to be found

    def offset_for_timestamp(self, target: int) -> tuple[int, int, int] | None:
        """(offset, timestamp, epoch) of the earliest record with timestamp >= target."""
        i = bisect.bisect_left(self._prefix_max, target)
        for b, record in self._records_from(i):
            if record.timestamp >= target:
                return record.offset, record.timestamp, b.leader_epoch
        return None

    def max_timestamp(self) -> tuple[int, int, int] | None:
        """KIP-734: (offset, timestamp, epoch) of the record with the highest timestamp, the
        earliest offset among equal maxima; None when the log holds no record."""
        if not self._batches:
            return None
        first = self._batches[0]
        if first.base_offset < self.log_start_offset:   # partly deleted: its max may be gone
            kept = [r.timestamp for _, r in self._records_from(0) if r.offset <= first.last_offset]
            best = max([*kept, *(b.max_timestamp for b in self._batches[1:])], default=None)
        else:
            best = self._prefix_max[-1]
        if best is None:
            return None
        return self.offset_for_timestamp(best)

    def end_offset_for_epoch(self, epoch: int, current_epoch: int) -> tuple[int, int]:
        """OffsetForLeaderEpoch: (largest epoch <= ``epoch``, the offset where it ended)."""
        if epoch >= current_epoch:
            return current_epoch, self.log_end_offset
        found = -1
        for b in self._batches:
            if b.leader_epoch > epoch:
                return (found, b.base_offset) if found >= 0 else (-1, -1)
            found = b.leader_epoch
        return (found, self.log_end_offset) if found >= 0 else (-1, -1)

"""One partition's log: record batches kept exactly as the producer sent them.

The broker rewrites only the base offset (bytes 0-7) and the partition leader epoch (bytes
12-15), which lie outside the CRC; a LogAppendTime topic also gets the broker time stamped into
the batch's timestamp type and max timestamp (and the CRC recomputed), as Kafka does, and a
producer's LogAppendTime batch that a CreateTime topic accepts is stored as CreateTime. Reading
uses ``kafka.record``.

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
from kafka.record.default_records import DefaultRecordBatch
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
            if (batch is None or not isinstance(batch, DefaultRecordBatch)
                    or batch.base_offset != self.log_end_offset or not batch.validate_crc()):
                break
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
                entry = self.producers[batch.producer_id] = ProducerEntry(batch.producer_epoch, -1)
            entry.last_sequence = batch.last_sequence
            entry.recent.append((batch.base_sequence, batch.last_sequence, info.base_offset))

    def delete_records(self, offset: int) -> None:
        """Advance the log start offset (DeleteRecords); the caller checks the bounds."""
        self.log_start_offset = max(self.log_start_offset, offset)
        self._drop_below(self.log_start_offset)

    def _drop_below(self, offset: int) -> None:
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

    def read(self, offset: int, max_bytes: int, at_least_one: bool = True) -> tuple[list, int]:
        """The log's bytes from the batch holding ``offset``, as Kafka's LogSegment.read gives
        them: at most ``max_bytes``, so the last batch may be cut short (clients drop an
        incomplete trailing batch), except that the whole first batch comes back when it is
        larger and ``at_least_one`` (KIP-74), and nothing when it is larger otherwise (Kafka's
        ReplicaManager answers Fetch v3+ so when the first batch is incomplete: the client asks
        again, rather than read a batch it cannot use). Returned uncopied: (the stored batches,
        the last one maybe a memoryview of its head, their total size)."""
        i = max(bisect.bisect_right(self._bases, offset) - 1, 0)
        out: list[bytes | memoryview] = []
        size, limit = 0, max_bytes
        for b in self._batches[i:]:
            if b.last_offset < offset:
                continue
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

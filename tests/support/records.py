"""Record batches as a transactional producer and a transaction coordinator write them, built
with kafka-python's record builder, for tests that read or store them (a broker's log, a Fetch
answer's bytes)."""

from __future__ import annotations

import struct

from kafka.record.default_records import DefaultRecordBatch
from kafka.record.memory_records import MemoryRecordsBuilder
from kafka.record.util import calc_crc32c

NONE = 0


def txn_batch(base: int, timestamps: list[int], producer_id: int, producer_epoch: int = 0,
              base_sequence: int = 0) -> bytes:
    b = MemoryRecordsBuilder(magic=2, compression_type=NONE, batch_size=1 << 20, offset=base,
                             transactional=True, producer_id=producer_id,
                             producer_epoch=producer_epoch, base_sequence=base_sequence)
    for ts in timestamps:
        assert b.append(ts, None, b"v") is not None
    b.close()
    return bytes(b.buffer())


def marker(offset: int, producer_id: int, commit: bool, ts: int = 9_999) -> bytes:
    """A control batch as a transaction coordinator writes it: one record, key (version 0, type
    0 abort / 1 commit), the control bit set in the attributes, the CRC over them."""
    b = MemoryRecordsBuilder(magic=2, compression_type=NONE, batch_size=1 << 20, offset=offset,
                             transactional=True, producer_id=producer_id, producer_epoch=0,
                             base_sequence=0)
    b.append(ts, struct.pack(">hh", 0, 1 if commit else 0), struct.pack(">hi", 0, 0))
    b.close()
    data = bytearray(b.buffer())
    at = DefaultRecordBatch.ATTRIBUTES_OFFSET
    struct.pack_into(">h", data, at, struct.unpack_from(">h", data, at)[0] | DefaultRecordBatch.CONTROL_MASK)
    struct.pack_into(">I", data, DefaultRecordBatch.CRC_OFFSET, calc_crc32c(bytes(data[at:])))
    assert DefaultRecordBatch(bytes(data)).is_control_batch
    return bytes(data)

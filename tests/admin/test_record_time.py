"""next_record_time: the first record at or after an offset in a Fetch answer's bytes, read with
kafka-python's record reader, over record batches kafka-python's own builder writes (whole, cut
short as Kafka cuts the last batch at a partition's byte limit, compressed, with offsets removed
by compaction). Pure: no broker."""

from __future__ import annotations

import pytest
from kafka.record.memory_records import MemoryRecordsBuilder

from kcli.admin.kip import next_record_time

NONE, LZ4 = 0, 3


def batch(base: int, timestamps: list[int], codec: int = NONE, gap_after: int | None = None,
          value: bytes = b"v" * 100) -> bytes:
    b = MemoryRecordsBuilder(magic=2, compression_type=codec, batch_size=1 << 20, offset=base)
    for i, ts in enumerate(timestamps):
        assert b.append(ts, None, value) is not None
        if gap_after == i:
            b.skip(3)                                   # three offsets removed by compaction
    b.close()
    return bytes(b.buffer())


def test_exact_in_whole_batches():
    data = batch(0, [100, 101, 102]) + batch(3, [200, 205, 199, 210])
    assert next_record_time(data, 0) == ("exact", 100, 0)
    assert next_record_time(data, 2) == ("exact", 102, 2)
    assert next_record_time(data, 5) == ("exact", 199, 5)       # out of order: the record's own
    assert next_record_time(data, 7) == ("none", None, None)


def test_compacted_offsets_lead_to_the_next_record():
    data = batch(10, [1, 2, 3], gap_after=0)                   # offsets 10, 14, 15
    assert next_record_time(data, 11) == ("exact", 2, 14)


def test_cut_batch_prefix_is_exact_beyond_it_a_bound():
    stamps = [1_000 + i for i in range(100)]
    stamps[60] = 5_000                                          # the batch's MaxTimestamp
    data = batch(0, stamps)
    cut = data[:4096]
    assert len(data) > 4096
    assert next_record_time(cut, 3) == ("exact", 1_003, 3)
    assert next_record_time(cut, 90) == ("bound", 5_000, None)


def test_cut_compressed_batch_is_a_bound_and_whole_is_exact():
    import os

    values = [os.urandom(100).hex().encode() for _ in range(100)]     # compresses, not below 4 KiB
    b = MemoryRecordsBuilder(magic=2, compression_type=LZ4, batch_size=1 << 20, offset=0)
    for i, v in enumerate(values):
        b.append(2_000 + i, None, v)
    b.close()
    data = bytes(b.buffer())
    from kafka.record.default_records import DefaultRecordBatch

    assert DefaultRecordBatch(data).compression_type == LZ4 and len(data) > 4096
    assert next_record_time(data, 7) == ("exact", 2_007, 7)
    assert next_record_time(data[:4096], 7) == ("bound", 2_099, None)


@pytest.mark.parametrize("cut", [0, 30])
def test_too_little_to_read_a_header(cut):
    assert next_record_time(batch(0, [1, 2])[:cut], 0) == ("none", None, None)

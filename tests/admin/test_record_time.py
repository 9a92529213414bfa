"""next_record_time: the first record at or after an offset in a Fetch answer's bytes, read with
kafka-python's record reader, over record batches kafka-python's own builder writes (whole, cut
short as Kafka cuts the last batch at a partition's byte limit, compressed, with offsets removed
by compaction). Pure: no broker."""

from __future__ import annotations

import pytest
from kafka.record.memory_records import MemoryRecordsBuilder

from kcli.admin.wire.offsets import next_record_time
from tests.support.records import marker, txn_batch

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
    assert next_record_time(cut, 90) == ("bound", 5_000, len(data))     # the bytes the whole batch takes


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
    assert next_record_time(data[:4096], 7) == ("bound", 2_099, len(data))


@pytest.mark.parametrize("cut", [0, 30])
def test_too_little_to_read_a_header(cut):
    assert next_record_time(batch(0, [1, 2])[:cut], 0) == ("none", None, None)


# -- read committed: transaction markers and aborted batches ------------------------------------

# offsets: 0 plain; 1-2 committed (producer 7); 3 commit marker; 4-5 aborted (producer 8);
# 6 abort marker; 7 plain; 8 committed (producer 7); 9 commit marker
LOG = (batch(0, [100]) + txn_batch(1, [101, 102], 7) + marker(3, 7, True)
       + txn_batch(4, [500, 501], 8) + marker(6, 8, False) + batch(7, [107])
       + txn_batch(8, [108], 7) + marker(9, 7, True))
ABORTED = [(8, 4)]                       # what a read_committed Fetch answer lists


@pytest.mark.parametrize("offset, expected", [
    (0, ("exact", 100, 0)), (1, ("exact", 101, 1)), (3, ("exact", 107, 7)),     # marker, aborted passed over
    (4, ("exact", 107, 7)), (6, ("exact", 107, 7)), (8, ("exact", 108, 8)),
    (9, ("skipped", None, 10)),                                                  # a trailing marker only
])
def test_read_committed_passes_over_markers_and_aborted_batches(offset, expected):
    assert next_record_time(LOG, offset, ABORTED) == expected


def test_read_uncommitted_reads_aborted_records():
    assert next_record_time(LOG, 4) == ("exact", 500, 4)
    assert next_record_time(LOG, 3) == ("exact", 500, 4)


def test_only_aborted_data_in_the_bytes_read_is_read_on_past():
    data = txn_batch(4, [500, 501], 8) + marker(6, 8, False)
    assert next_record_time(data, 4, ABORTED) == ("skipped", None, 7)
    # a cut batch after them that is aborted too: still skipped, read on from the whole ones' end
    cut = (txn_batch(4, [500, 501], 8) + txn_batch(6, list(range(100)), 8))[:200]
    assert next_record_time(cut, 4, ABORTED) == ("skipped", None, 6)

"""A share-partition's records in flight (kcli.broker.groups.share.SharePartition), pure: locks
expire at their deadline, a renew moves the deadline, delivery counts grow per acquisition and a
record released at the limit is archived; the snapshot keeps states and counts, not locks."""

from __future__ import annotations

import pytest

from kcli.broker.errors import BrokerError, Err
from kcli.broker.groups.share import (ACCEPT, ARCHIVED, AVAILABLE, RELEASE, RENEW, SharePartition,
                                      ShareSettings)

LOCK = ShareSettings(record_lock_duration_ms=1000, delivery_count_limit=3)


def test_a_lock_expires_at_its_deadline_and_a_renew_moves_it():
    sp = SharePartition(0)
    assert sp.acquire("m", 10, 0, 4, now=0.0, settings=LOCK) == [(0, 3, 1)]
    sp.acknowledge("m", [(0, 1, [RENEW])], now=0.9, settings=LOCK)
    assert sp.expire(1.0, LOCK)                                     # 2 and 3: their lock ran out
    assert [sp.records[o].state for o in range(4)] == [1, 1, AVAILABLE, AVAILABLE]
    assert not sp.expire(1.8, LOCK)                                 # 0 and 1 renewed to 1.9
    assert sp.expire(1.9, LOCK)
    assert sp.acquire("n", 10, 0, 4, now=2.0, settings=LOCK) == [(0, 3, 2)]


def test_release_at_the_delivery_count_limit_archives_and_the_start_offset_moves():
    sp = SharePartition(5)
    for delivery in (1, 2, 3):
        assert sp.acquire("m", 1, 0, 7, now=0.0, settings=LOCK) == [(5, 5, delivery)]
        sp.acknowledge("m", [(5, 5, [RELEASE])], now=0.0, settings=LOCK)
    assert sp.start == 6 and 5 not in sp.records                    # archived at the 3rd release
    assert sp.acquire("m", 5, 0, 7, now=0.0, settings=LOCK) == [(6, 6, 1)]
    with pytest.raises(BrokerError) as exc:
        sp.acknowledge("other", [(6, 6, [ACCEPT])], now=0.0, settings=LOCK)
    assert exc.value.code == Err.INVALID_RECORD_STATE


def test_the_snapshot_keeps_states_and_counts_but_no_lock():
    sp = SharePartition(0)
    sp.acquire("m", 3, 0, 3, now=0.0, settings=LOCK)
    sp.acknowledge("m", [(1, 1, [ACCEPT]), (2, 2, [3])], now=0.0, settings=LOCK)   # 3: REJECT
    back = SharePartition.from_snapshot(sp.snapshot())
    assert (back.start, back.end) == (0, 3)
    assert [(back.records[o].state, back.records[o].delivery_count) for o in range(3)] == [
        (AVAILABLE, 1), (2, 1), (ARCHIVED, 1)]
    assert back.acquire("n", 5, 0, 3, now=0.0, settings=LOCK) == [(0, 0, 2)]

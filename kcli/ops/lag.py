"""Lag in time: for each partition a group has committed, the timestamp of the next record it
will consume (the first record at or after its committed offset that a read_committed consumer
reads: transaction markers and aborted records are passed over) and ``now`` minus it, measured
on the records themselves, not interpolated from offset samples. Only markers left up to the log
end: nothing to consume, 0.

The timestamps come from one bounded Fetch per leader and 10k of its partitions
(``Admin.record_times``: at most a few KB per partition, the request count independent of the
partition count below that). When the next record lies
in a batch the Fetch did not return whole, it is asked again (``WireClient.record_times``: the
rounds grow with the batches' size, not with the partitions); only a batch larger than a whole
answer is bounded by its MaxTimestamp: the lag is then "at least".
``now`` is the caller's clock. A next record stamped after it (a producer's clock ahead) gives a
negative lag, kept as it is: the group is behind by records that are future-dated, which is not
caught up (0), and each such group gets a note naming those partitions.

    from kcli.ops.lag import describe_time_lag
    for desc, rows in describe_time_lag(admin, ["billing"], int(time.time() * 1000)):
        print(desc.group_id, max_time_lag(rows))       # kcli.model.max_time_lag
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from kcli.errors import UnsupportedByBroker
from kcli.model import HELD_BY_TRANSACTION, GroupDescription, GroupOffsetRow, RecordTime
from kcli.ops.groups import describe, offset_views
from kcli.times import format_duration_ms, format_duration_rounded

if TYPE_CHECKING:
    from typing import Protocol, Sequence

    from kcli.admin import Admin

    class Grouped(Protocol):
        """What the time-lag notes need of a group: its id (a description, the lag service's
        GroupLag)."""
        @property
        def group_id(self) -> str: ...

SHOWN = 5           # partitions named per reason in a note


def set_time_lag(row: GroupOffsetRow, found: RecordTime | None, now_ms: int) -> None:
    """The rule, for one row: no commit, no lag (None); at or past the log end, 0; otherwise
    now minus the next record's timestamp (or its bound): negative when that record is stamped
    after ``now``, never clamped to 0 (that would read as caught up)."""
    row.next_timestamp_ms, row.time_lag_ms, row.time_lag_bound, row.time_lag_error = None, None, False, None
    if row.current is None:
        return
    if row.log_end is not None and row.current >= row.log_end:
        row.time_lag_ms = 0
        return
    if found is None:
        row.time_lag_error = "log end offset unknown"
    elif found.error is not None:
        row.time_lag_error = found.error
    elif (stamp := found.timestamp_ms if found.timestamp_ms is not None else found.bound_ms) is not None:
        row.next_timestamp_ms = stamp
        row.time_lag_ms = now_ms - stamp
        row.time_lag_bound = found.timestamp_ms is None
    else:                          # nothing to consume below the high watermark: caught up
        row.time_lag_ms = 0


RecordTimes = Callable[[list[tuple[str, int, int]]], dict[tuple[str, int, int], RecordTime]]


def add_time_lags(admin: Admin, groups: Sequence[tuple[Grouped, list[GroupOffsetRow]]],
                  now_ms: int, record_times: RecordTimes | None = None) -> list[str]:
    """Fills in every row's lag in time (all groups' partitions in one ``record_times`` call,
    default ``admin.record_times``; ``RecordTimeCache.of(admin)`` asks only for what it has
    not kept); returns one note per reason some partitions' lag is unknown, and one per group
    whose next record is future-dated on some partitions (negative lag). A broker without Fetch
    v4+ leaves every lag unknown, with its reason: the offsets view still shows."""
    rows = [r for _, rs in groups for r in rs]
    wanted = [(r.topic, r.partition, r.current) for r in rows
              if r.current is not None and r.log_end is not None and r.current < r.log_end]
    try:
        found = (record_times or admin.record_times)(wanted)
        missing = "log end offset unknown"
    except UnsupportedByBroker as exc:
        found, missing = {}, str(exc)
    for r in rows:
        set_time_lag(r, None if r.current is None else found.get((r.topic, r.partition, r.current)), now_ms)
        if r.time_lag_error == "log end offset unknown":
            r.time_lag_error = missing
    return unknown_notes(groups) + future_notes(groups) + transaction_notes(admin, groups, now_ms)


def transaction_notes(admin: Admin, groups: Sequence[tuple[Grouped, list[GroupOffsetRow]]],
                      now_ms: int) -> list[str]:
    """One note per group and partition whose lag an open transaction holds back (the Fetch for
    its next record found the last stable offset at or before it: HELD_BY_TRANSACTION), naming
    the transaction (``kcli.ops.transactions.lso_holders``): its transactional id, producer, start
    offset, age, whether it hangs; each such row's ``held_by``. Asks the cluster only when some
    row is so held."""
    from kcli.ops.transactions import lso_holders

    stuck = sorted({(r.topic, r.partition) for _, rows in groups for r in rows
                    if (r.time_lag_error or "").startswith(HELD_BY_TRANSACTION)})
    holders = lso_holders(admin, stuck) if stuck else {}
    notes = []
    for d, rows in groups:
        for r in rows:
            t = holders.get((r.topic, r.partition))
            if t is None or r.current is None or r.current < t.start_offset:
                continue
            r.held_by = t
            who = f"transactional id '{t.transactional_id}'" if t.transactional_id else "no transactional id"
            notes.append(f"Lag of group '{d.group_id}' on {r.topic}-{r.partition} is held back by an open "
                         f"transaction: {who}, producer {t.producer.producer_id} (epoch {t.producer.producer_epoch}), "
                         f"open since offset {t.start_offset} for {format_duration_rounded(t.age_ms(now_ms))}"
                         f"{', hanging' if t.hanging else ''}; read_committed consumers read nothing past it "
                         f"(kcli check transactions --topic {r.topic})")
    return notes


class RecordTimeCache:
    """What ``record_times`` found at (topic, partition, offset), kept across collections (``kcli
    lag serve``): the record at an offset never changes, so a group whose commit has not moved
    costs no Fetch. Kept: a timestamp or a batch's bound; never an error nor "nothing below the
    high watermark" (a record may come). ``keep_only`` drops every entry no collection asked
    for, and those under their partition's log start (retention or compaction removed the
    record: the next one read is another): the cache never outgrows one collection's partitions."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, int, int], RecordTime] = {}
        self.fetched = 0                    # offsets asked of the cluster, over the cache's life

    def of(self, admin: Admin) -> RecordTimes:
        """``admin.record_times`` through the cache (for ``add_time_lags``)."""
        return lambda wanted: self._record_times(admin, wanted)

    def _record_times(self, admin: Admin, wanted: list[tuple[str, int, int]]
                      ) -> dict[tuple[str, int, int], RecordTime]:
        missing = [k for k in wanted if k not in self._kept]
        found = admin.record_times(missing) if missing else {}
        self.fetched += len(missing)
        for k, t in found.items():
            if t.error is None and (t.timestamp_ms is not None or t.bound_ms is not None):
                self._kept[k] = t
        return {k: self._kept.get(k) or found[k] for k in wanted if k in self._kept or k in found}

    def keep_only(self, wanted: set[tuple[str, int, int]], log_starts: dict[tuple[str, int], int]) -> None:
        self._kept = {k: t for k, t in self._kept.items()
                      if k in wanted and k[2] >= log_starts.get((k[0], k[1]), 0)}

    def __len__(self) -> int:
        return len(self._kept)


def unknown_notes(groups: Sequence[tuple[Grouped, list[GroupOffsetRow]]]) -> list[str]:
    notes = []
    for d, rows in groups:
        by_reason: dict[str, list[str]] = {}
        for r in rows:
            if r.time_lag_error is not None:
                by_reason.setdefault(r.time_lag_error, []).append(f"{r.topic}-{r.partition}")
        for reason, tps in by_reason.items():
            notes.append(f"Time lag of group '{d.group_id}' unknown on {_named(tps)}: {reason}")
    return notes


def future_notes(groups: Sequence[tuple[Grouped, list[GroupOffsetRow]]]) -> list[str]:
    """One note per group with a negative lag somewhere: records to consume, stamped after now."""
    notes = []
    for d, rows in groups:
        ahead = [r for r in rows if r.time_lag_ms is not None and r.time_lag_ms < 0]
        if ahead:
            most = format_duration_ms(-min(r.time_lag_ms for r in ahead if r.time_lag_ms is not None))
            notes.append(f"Time lag of group '{d.group_id}' negative on "
                         f"{_named([f'{r.topic}-{r.partition}' for r in ahead])}: its next record there "
                         f"is stamped after now (by up to {most}; a producer's clock ahead?), "
                         "records remain to consume")
    return notes


def _named(tps: list[str]) -> str:
    more = f" and {len(tps) - SHOWN} more" if len(tps) > SHOWN else ""
    return f"{len(tps)} partition(s) ({', '.join(tps[:SHOWN])}{more})"


def describe_time_lag(admin: Admin, group_ids: list[str], now_ms: int
                      ) -> list[tuple[GroupDescription, list[GroupOffsetRow]]]:
    """The offsets view of ``group_ids`` (``describe groups``) with every row's lag in time."""
    groups = offset_views(admin, describe(admin, group_ids))
    add_time_lags(admin, groups, now_ms)
    return groups

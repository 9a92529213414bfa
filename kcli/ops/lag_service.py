"""``kcli lag serve``'s collector: on an interval, in a thread of its own, the offsets view of
every selected group (``describe groups``' rows: ``kcli.ops.groups.offset_views``, and
``kcli.ops.streams.rows_of`` for streams groups), each row's lag in time (``kcli.ops.lag``'s
rule, through a ``RecordTimeCache``: a commit that has not moved costs no Fetch) and each
partition's log start. What a collection found is one ``LagSnapshot``, replaced whole: a reader
(the HTTP exposition, ``kcli.exporter``) never calls Kafka and never sees half a collection.

A failed collection leaves no snapshot (``Collector.snapshot`` is None): its series are dropped,
not served as if fresh. The health (``Collector.health``) is ready after the first success and
unhealthy after ``UNHEALTHY_AFTER`` failures in a row, with the last one's reason. Both are
replaced as one (``Collector.last``): a scrape never pairs one collection's snapshot with
another's health (its duration and end, which bound the snapshot's ``now``).

    collector = Collector(settings, selection(["billing.*"], [], []), interval_s=30)
    collector.start()           # collector.snapshot, collector.health; collector.stop()
"""

from __future__ import annotations

import re
import threading
import time
import warnings
from collections import Counter
from typing import Callable, cast

from kcli.errors import UnsupportedByBroker, UsageError
from kcli.inputs import shown
from kcli.model import INTERNAL_TOPICS, GroupOffsetRow, LagLine, TopicInfo, max_time_lag
from kcli.ops.groups import fill_log_ends, offset_views, set_committed
from kcli.ops.lag import RecordTimeCache, add_time_lags
from kcli.ops.streams import rows_of
from kcli.datatypes import field, datatype
from kcli.redaction import redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin
    from kcli.admin.settings import ClientSettings

UNHEALTHY_AFTER = 3          # failed collections in a row that make /healthz unhealthy


@datatype(frozen=True)
class Selection:
    """Which groups and topics a collection covers: a group id matching some ``groups`` regex
    (every group when none) and no ``exclude_groups`` one; a topic matching some ``topics`` regex
    (every topic when none). Each regex must match the whole name, as Prometheus' and the Java
    tools' do."""
    groups: tuple[re.Pattern, ...] = ()
    topics: tuple[re.Pattern, ...] = ()
    exclude_groups: tuple[re.Pattern, ...] = ()

    def wants_group(self, group_id: str) -> bool:
        return ((not self.groups or any(rx.fullmatch(group_id) for rx in self.groups))
                and not any(rx.fullmatch(group_id) for rx in self.exclude_groups))

    def wants_topic(self, topic: str) -> bool:
        return not self.topics or any(rx.fullmatch(topic) for rx in self.topics)


def _compiled(option: str, patterns: list[str]) -> tuple[re.Pattern, ...]:
    out = []
    for text in patterns:
        try:
            with warnings.catch_warnings():      # "Possible nested set": Python's, not the user's concern
                warnings.simplefilter("ignore")
                out.append(re.compile(text))
        except (re.error, RecursionError, OverflowError) as exc:
            raise UsageError(f"Invalid {option} '{shown(text, 200)}': not a regex ({exc})") from None
    return tuple(out)


def selection(groups: list[str], topics: list[str], exclude_groups: list[str]) -> Selection:
    """The options' regexes, compiled (a bad one: one line, exit 2, before anything starts)."""
    return Selection(_compiled("--group", groups), _compiled("--topic", topics),
                     _compiled("--exclude-group", exclude_groups))


@datatype
class GroupLag:
    """One group as a collection found it: its type (classic, consumer, streams, share), state, member
    count and offsets view rows (``GroupOffsetRow``, lag in time filled in) of selected topics.
    ``simple``: a classic group without members or protocol, whose offsets are only committed
    (assign() consumers, offset resets): kafka-lag-exporter's ``is_simple_consumer``."""
    group_id: str
    type: str
    state: str
    members: int
    rows: list[GroupOffsetRow]
    simple: bool = False


@datatype(frozen=True)
class Exposure:
    """The expansion radar's finding for one group on one recently created partition
    (``kcli check expansions``' rows EXPOSED and LOST?): ``exposed``, the records a latest start
    would skip now (no commit there); ``lost``, the records kcli saw there while the group had no
    commit and that its commit has since passed (suspected lost)."""
    group: str
    topic: str
    partition: int
    exposed: int
    lost: int


@datatype
class LagSnapshot:
    """One collection's findings. ``now_ms``: the wall clock the lags in time are measured at;
    ``notes``: ``add_time_lags``' (why some lags in time are unknown, which are future-dated)."""
    cluster_name: str
    now_ms: int
    groups: list[GroupLag]
    log_starts: dict[tuple[str, int], int]
    log_ends: dict[tuple[str, int], int]
    notes: list[str] = field(default_factory=list)
    exposures: list[Exposure] = field(default_factory=list)


def radar_window(text: str) -> int | None:
    """``--expansion-within``: the radar's window in ms, None for ``0`` (off); checked before
    anything starts."""
    from kcli.specs import duration_arg

    return duration_arg("--expansion-within", text) or None


class Topics:
    """The radar's topic descriptions, kept between collections: a partition's creation time
    never changes, so a topic is described again only when its partition count does (one
    Metadata for the counts, instead of describing every partition of the cluster each time). A
    topic deleted and made again with as many partitions keeps the old description: a new
    topic is no expansion, and the next count change describes it again."""

    def __init__(self) -> None:
        self.known: dict[str, TopicInfo] = {}

    def described(self, admin: Admin, chosen: Selection) -> list[TopicInfo]:
        counts = admin.partition_counts()
        names = [t for t in sorted(counts) if t not in INTERNAL_TOPICS and chosen.wants_topic(t)]
        stale = [t for t in names if t not in self.known or len(self.known[t].partitions) != counts[t]]
        fresh = {d.name: d for d in admin.describe_topics(stale)} if stale else {}
        self.known = {t: fresh.get(t) or self.known[t] for t in names if t in fresh or t in self.known}
        return list(self.known.values())


def exposures(admin: Admin, chosen: Selection, within_ms: int, now_ms: int, topics: Topics) -> list[Exposure]:
    """The radar (``kcli.ops.expansions.check_expansions``, its memory kept) over the selected
    topics, kept to the selected groups."""
    from kcli.ops.expansions import check_expansions

    described = topics.described(admin, chosen)
    if not described:
        return []
    report = check_expansions(admin, [], [], within_ms, now_ms, described=described)
    return [Exposure(g.group, p.topic, p.partition, g.exposed, g.lost.records if g.lost else 0)
            for p in report.partitions for g in p.groups
            if g.status in ("EXPOSED", "LOST?") and chosen.wants_group(g.group)]


def unlisted(admin: Admin, ids: list[str], snap: LagSnapshot) -> tuple[list[str], list]:
    """The groups named in ``ids`` that a collection did not find: (those the cluster does not
    know, sorted; the NotAuthorized of those this principal may not describe, which Kafka's
    listing leaves out). Asked by name only when some are missing."""
    missing = sorted(set(ids) - {g.group_id for g in snap.groups})
    refusals: list = []
    if missing:
        admin.describe_groups(missing, refusals)
    refused = {r.name for r in refusals}
    return [g for g in missing if g not in refused], refusals


def collect(admin: Admin, chosen: Selection, cache: RecordTimeCache, now_ms: int,
            cluster_name: str | None = None, expansion_within_ms: int | None = None,
            topics: Topics | None = None) -> LagSnapshot:
    """One collection: ListGroups (consumer, streams and share), the groups' descriptions, committed
    offsets and log ends as ``describe groups`` reads them (streams groups' too, batched: one
    OffsetFetch per coordinator and one ListOffsets per leader for all of them), the log starts
    (one ListOffsets per leader), and the lag in time of each row, the cache asked first. With
    ``expansion_within_ms``, the expansion radar over that window too (``exposures``, its topics
    kept in ``topics`` between collections)."""
    consumer_ids = [g.group_id for g in admin.list_groups() if chosen.wants_group(g.group_id)]
    try:
        streams_ids = [g.group_id for g in admin.list_streams_groups() if chosen.wants_group(g.group_id)]
    except UnsupportedByBroker:              # a broker before KIP-1071: no streams groups
        streams_ids = []
    groups: list[GroupLag] = []
    descs = [d for d in admin.describe_groups(consumer_ids) if d.exists] if consumer_ids else []
    for d, rows in offset_views(admin, sorted(descs, key=lambda d: d.group_id)):
        simple = d.type == "Classic" and not d.members and not d.assignor
        groups.append(GroupLag(d.group_id, d.type.lower(), d.state, len(d.members),
                               [r for r in rows if chosen.wants_topic(r.topic)], simple))
    streams = admin.describe_streams_groups(streams_ids) if streams_ids else {}
    committed = admin.committed_offsets_of_groups(sorted(streams)) if streams else {}
    streams_rows = []
    for gid in sorted(streams):
        mine = {(c.topic, c.partition): c for c in committed.get(gid, [])}
        rows = [r for r in rows_of(streams[gid], mine) if chosen.wants_topic(r.topic)]
        set_committed(rows, mine)
        streams_rows += rows
        groups.append(GroupLag(gid, "streams", streams[gid].state, len(streams[gid].members), rows))
    if streams_rows:
        fill_log_ends(admin, streams_rows)
    groups += _share_groups(admin, chosen)
    partitions = sorted({(r.topic, r.partition) for g in groups for r in g.rows})
    starts = {(o.topic, o.partition): o.offset for o in admin.list_offsets(partitions, -2)
              if o.error is None and o.offset is not None and o.offset >= 0}
    ends = {(r.topic, r.partition): r.log_end for g in groups for r in g.rows if r.log_end is not None}
    cache.keep_only({(r.topic, r.partition, r.current) for g in groups for r in g.rows if r.current is not None},
                    starts)
    notes = add_time_lags(admin, [(g, g.rows) for g in groups], now_ms, cache.of(admin))
    name = cluster_name if cluster_name is not None else (admin.cluster_id() or "")
    found = exposures(admin, chosen, expansion_within_ms, now_ms, topics or Topics()) if expansion_within_ms else []
    return LagSnapshot(name, now_ms, groups, starts, ends, notes, found)


def _share_groups(admin: Admin, chosen: Selection) -> list[GroupLag]:
    """The share groups (KIP-932) chosen, each row a share-partition: its start offset as the
    committed offset, so the lag is the log end minus the start offset (the records from the
    oldest one not yet acknowledged on: the broker's own lag, which leaves out records already
    acknowledged past it, is describe groups') and the lag in time that of the record at the
    start offset. A broker without share groups: none, and no request but the ListGroups."""
    from kcli.ops import share

    ids = [g.group_id for g in admin.list_share_groups() if chosen.wants_group(g.group_id)]
    found = admin.describe_share_groups(ids) if ids else {}
    return [GroupLag(d.group_id, "share", d.state, len(d.members),
                     [r for _, r in pairs if chosen.wants_topic(r.topic)])
            for d, pairs in share.offset_views(admin, [found[g] for g in sorted(found)])]


BY = ("group", "topic", "partition")
SORTS = ("name", "lag", "time-lag")


def _summed(g: GroupLag, topic: str | None, rows: list[GroupOffsetRow]) -> LagLine:
    lags = [r.lag for r in rows if r.lag is not None]
    most, bound = max_time_lag(rows)
    return LagLine(g.group_id, g.type, g.state, g.members, topic, None, len(rows), None, None,
                   sum(lags) if lags else None, most, bound)


def _partition(g: GroupLag, r: GroupOffsetRow) -> LagLine:
    return LagLine(g.group_id, g.type, g.state, g.members, r.topic, r.partition, 1, r.current, r.log_end,
                   r.lag, r.time_lag_ms, r.time_lag_bound)


def rollup(groups: list[GroupLag], by: str, min_lag: int | None = None, min_time_lag_ms: int | None = None,
           sort: str = "name") -> list[LagLine]:
    """``kcli lag show``'s lines: per partition, per topic or per group (``by``) of the partitions
    each group has committed; the sums of their lags and the largest lag in time (a bound when
    any is one or unknown). ``min_lag``/``min_time_lag_ms`` keep the lines at or above them (a
    line whose value is unknown is left out); ``sort``: by group, topic and partition ("name"),
    or the largest lag or time lag first."""
    lines: list[LagLine] = []
    for g in groups:
        rows = [r for r in g.rows if r.current is not None]
        if by == "group":
            lines.append(_summed(g, None, rows))
        elif by == "topic":
            lines += [_summed(g, t, [r for r in rows if r.topic == t]) for t in sorted({r.topic for r in rows})]
        else:
            lines += [_partition(g, r) for r in rows]
    if min_lag is not None:
        lines = [x for x in lines if x.lag is not None and x.lag >= min_lag]
    if min_time_lag_ms is not None:
        lines = [x for x in lines if x.time_lag_ms is not None and x.time_lag_ms >= min_time_lag_ms]
    lines.sort(key=lambda x: (x.group, x.topic or "", -1 if x.partition is None else x.partition))
    if sort == "lag":
        lines.sort(key=lambda x: -1 if x.lag is None else x.lag, reverse=True)
    elif sort == "time-lag":
        lines.sort(key=lambda x: float("-inf") if x.time_lag_ms is None else x.time_lag_ms, reverse=True)
    return lines


class Trends:
    """The last ``keep`` lags in time of each line (by group, topic, partition), for ``kcli lag
    show --watch``'s trend column; a line not seen in a sample gets None there."""

    def __init__(self, keep: int = 20):
        self.keep = keep
        self._seen: dict[tuple, list[int | None]] = {}

    def add(self, lines: list[LagLine]) -> list[list[int | None]]:
        """Records one sample; each line's history, oldest first, in ``lines``' order."""
        now = {(x.group, x.topic, x.partition): x.time_lag_ms for x in lines}
        for key in now.keys() | self._seen.keys():
            self._seen[key] = [*self._seen.get(key, []), now.get(key)][-self.keep:]
        self._seen = {k: v for k, v in self._seen.items() if any(t is not None for t in v)}
        return [self._seen.get((x.group, x.topic, x.partition), []) for x in lines]


@datatype
class Health:
    """The collector's own state, replaced whole after each collection."""
    collections: int = 0                 # attempted
    failures: int = 0                    # failed, over the collector's life
    failures_in_row: int = 0
    last_error: str | None = None
    last_success_s: float | None = None  # wall clock (epoch seconds) of the last success
    last_duration_s: float | None = None
    cached_record_times: int = 0
    fetched_record_times: int = 0        # offsets whose record time was asked of the cluster
    calls: dict[str, int] = field(default_factory=dict)        # the last collection's, by adapter call
    call_errors: dict[str, int] = field(default_factory=dict)  # calls that failed, over the collector's life

    @property
    def ready(self) -> bool:
        return self.last_success_s is not None

    @property
    def healthy(self) -> bool:
        return self.ready and self.failures_in_row < UNHEALTHY_AFTER

    def reason(self) -> str:
        """One line for /healthz."""
        if self.failures_in_row >= UNHEALTHY_AFTER:
            return f"unhealthy: {self.failures_in_row} collections failed in a row; the last: {self.last_error}"
        if not self.ready:
            last = f"; the last attempt failed: {self.last_error}" if self.last_error else ""
            return f"not ready: no collection has succeeded yet{last}"
        return f"ok: last collection succeeded at {self.last_success_s:.3f} in {self.last_duration_s:.3f}s"


class Counting:
    """The adapter, its calls counted by name in ``calls`` and the failed ones in ``errors``
    (each call is one Kafka request or more: one per broker or coordinator it concerns). Only
    the calls made through it count, not the ones an adapter call makes on its own."""

    def __init__(self, admin: Admin, errors: Counter[str]):
        self._admin, self.calls, self.errors = admin, Counter[str](), errors

    def __getattr__(self, name: str):
        attr = getattr(self._admin, name)
        if name.startswith("_") or not callable(attr):
            return attr

        def counted(*args, **kwargs):
            self.calls[name] += 1
            try:
                return attr(*args, **kwargs)
            except Exception:
                self.errors[name] += 1
                raise
        return counted


def _connect(settings: ClientSettings) -> Admin:
    from kcli.admin.client import KafkaAdmin

    return KafkaAdmin(settings)


class Collector:
    """Collects every ``interval_s`` (the next one starts ``interval_s`` after the last one
    started, at once when it took longer) in a daemon thread. Each collection has the settings'
    whole timeout (``--timeout``) as its deadline. After a failure the adapter is closed and a
    new one connects at the next collection. ``on_error`` gets each failure's one line; a
    failure's text (there and in ``/healthz``) never shows ``secrets`` (the client properties')."""

    def __init__(self, settings: ClientSettings, chosen: Selection, interval_s: float,
                 cluster_name: str | None = None, on_error: Callable[[str], None] | None = None,
                 connect: Callable[[ClientSettings], Admin] = _connect, secrets: list[str] | None = None,
                 expansion_within_ms: int | None = None):
        self.settings, self.chosen, self.interval_s = settings, chosen, interval_s
        self.expansion_within_ms = expansion_within_ms
        self.call_errors = Counter[str]()
        self.cluster_name, self.on_error, self._connect = cluster_name, on_error, connect
        self.secrets = secrets or []
        # the last collection's snapshot (None: it failed) and the health after it, replaced as
        # one: a reader never pairs a snapshot with another collection's health
        self.last: tuple[LagSnapshot | None, Health] = (None, Health())
        self.cache = RecordTimeCache()
        self.topics = Topics()
        self._admin: Admin | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kcli-lag-collector", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, wait_s: float = 0.5) -> None:
        """Asks the thread to stop and waits up to ``wait_s`` for it (a request in flight may
        take to its deadline: the thread is a daemon, it never holds the process)."""
        self._stop.set()
        self._thread.join(wait_s)
        if not self._thread.is_alive():
            self.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            self.collect_once()
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - started)))

    def collect_once(self) -> None:
        started = time.monotonic()
        h = self.health
        counting: Counting | None = None
        try:
            self.settings.deadline = started + self.settings.timeout_s
            if self._admin is None:
                self._admin = self._connect(self.settings)
            counting = Counting(self._admin, self.call_errors)
            snap = collect(cast("Admin", counting), self.chosen, self.cache, int(time.time() * 1000),
                           self.cluster_name, self.expansion_within_ms, self.topics)
        except Exception as exc:  # noqa: BLE001 - any failure is this collection's, said once
            self.close()
            error = redact_text(str(exc) or type(exc).__name__, self.secrets)
            self.last = (None, Health(h.collections + 1, h.failures + 1, h.failures_in_row + 1, error,
                                      h.last_success_s, time.monotonic() - started, len(self.cache),
                                      self.cache.fetched, dict(counting.calls) if counting else {},
                                      dict(self.call_errors)))
            if self.on_error is not None:
                self.on_error(f"Warn: collection failed: {error}")
            return
        self.last = (snap, Health(h.collections + 1, h.failures, 0, None, time.time(), time.monotonic() - started,
                                  len(self.cache), self.cache.fetched, dict(counting.calls), dict(self.call_errors)))

    @property
    def snapshot(self) -> LagSnapshot | None:
        return self.last[0]

    @property
    def health(self) -> Health:
        return self.last[1]

    def close(self) -> None:
        """Closes the adapter (a collection after it connects a new one)."""
        admin, self._admin = self._admin, None
        if admin is not None:
            try:
                admin.close()
            except Exception:  # noqa: BLE001 - closing a failed adapter: nothing to report
                pass

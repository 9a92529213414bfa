"""delete-records (kafka-delete-records): which records would go, from explicit offsets, an
offset file or a time, what they are (offsets, timestamps) and which groups have not read them;
then, with --execute, DeleteRecords. A deletion that takes records a group has not read yet is
refused without --allow-loss, naming the groups."""

from __future__ import annotations

from kcli.datatypes import datatype, field
from kcli.errors import OperationError, UnsupportedByBroker, UsageError
from kcli.model import BrokerError, RecordsDeletion
from kcli.ops.failures import per_item, raise_for
from kcli.specs import parse_records_json, parse_records_spec, parse_topic_spec, records_offsets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

TP = tuple[str, int]
HIGH_WATERMARK = -1          # DeleteRecords' offset for "every record below the high watermark"
EARLIEST, LATEST = -2, -1    # ListOffsets' special times
UNKNOWN_PARTITION = BrokerError(3, "UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition.")


@datatype
class RecordsRequest:
    """What to delete: ``offsets`` per partition (-1: up to the high watermark), or every
    record older than ``before_ms`` in the partitions ``topics`` name (None: all of a topic's)."""
    offsets: dict[TP, int] = field(default_factory=dict)
    before_ms: int | None = None
    topics: list[tuple[str, list[int] | None]] = field(default_factory=list)


def _offsets_file(path: str) -> dict[TP, int]:
    from kcli.inputs import read_text, shown

    return parse_records_json(read_text(path, "--from-file"), f"--from-file '{shown(path, 200)}'")


def request(specs: list[str], from_file: str | None, before_ms: int | None) -> RecordsRequest:
    """The flags into a request, checked before any request: one of -t T:P=OFFSET, --from-file or
    --before (whose -t are TOPIC[:P,P], default every topic named)."""
    if before_ms is not None:
        if from_file is not None:
            raise UsageError("Give --before or --from-file, not both")
        if not specs:
            raise UsageError("--before needs the topics: -t TOPIC[:PARTITION,...]")
        return RecordsRequest(before_ms=before_ms, topics=[parse_topic_spec(s) for s in specs])
    if bool(specs) == (from_file is not None):
        raise UsageError("Name the records: -t TOPIC:PARTITION=OFFSET ..., --from-file FILE or --before TIME")
    if from_file is not None:
        return RecordsRequest(offsets=_offsets_file(from_file))
    return RecordsRequest(offsets=records_offsets([parse_records_spec(spec) for spec in specs]))


def _watermarks(admin: Admin, parts: list[TP], time: int) -> dict[TP, int]:
    found = {(o.topic, o.partition): o for o in admin.list_offsets(parts, time)}
    bad = [f"{t}-{p}: {found[(t, p)].error if (t, p) in found else 'no answer'}"
           for t, p in parts if (t, p) not in found or found[(t, p)].error]
    if bad:
        raise OperationError(f"Nothing was deleted: {'; '.join(bad)}")
    return {tp: found[tp].offset for tp in parts}


def _partitions(admin: Admin, req: RecordsRequest) -> list[TP]:
    if req.before_ms is None:
        return list(req.offsets)
    counts = admin.partition_counts()
    parts: list[TP] = []
    for topic, chosen in req.topics:
        if topic not in counts:
            raise OperationError(f"Topic '{topic}' does not exist")
        parts += [(topic, p) for p in (chosen if chosen is not None else range(counts[topic]))]
    return list(dict.fromkeys(parts))


def _unread(admin: Admin, rows: list[RecordsDeletion]) -> None:
    """Each row's groups whose committed offset lies below the offsets that go."""
    going = {(r.topic, r.partition): r for r in rows if r.records}
    if not going:
        return
    ids = sorted({g.group_id for g in admin.list_groups()} | {g.group_id for g in _streams_groups(admin)})
    if not ids:
        return
    wanted = list(going)
    committed = admin.committed_offsets_of_groups(ids, {g: wanted for g in ids})
    for group in ids:
        for c in committed.get(group, []):
            row = going.get((c.topic, c.partition))
            if row is not None and c.offset is not None and max(c.offset, row.log_start) < row.offset:
                row.unread_by.append((group, c.offset))


def _streams_groups(admin: Admin):
    try:
        return admin.list_streams_groups()
    except UnsupportedByBroker:
        return []


def _times(admin: Admin, rows: list[RecordsDeletion]) -> None:
    """The timestamps of the first and the last record that would go (one bounded Fetch each)."""
    wanted = [(r.topic, r.partition, at) for r in rows if r.records for at in (r.log_start, r.offset - 1)]
    times = admin.record_times(wanted)
    for r in rows:
        if not r.records:
            continue
        first, last = times.get((r.topic, r.partition, r.log_start)), times.get((r.topic, r.partition, r.offset - 1))
        if first is not None and first.record_offset is not None and first.record_offset < r.offset:
            r.first_ms = first.timestamp_ms
        if last is not None and last.record_offset == r.offset - 1:
            r.last_ms = last.timestamp_ms


def plan(admin: Admin, req: RecordsRequest) -> list[RecordsDeletion]:
    """Per partition, what DeleteRecords would remove; an offset beyond the high watermark, a
    partition that does not exist, is refused (OperationError) before anything is deleted."""
    parts = _partitions(admin, req)
    starts, ends = _watermarks(admin, parts, EARLIEST), _watermarks(admin, parts, LATEST)
    if req.before_ms is not None:
        found = _watermarks(admin, parts, req.before_ms)    # the first record at or after the time
        asked = {tp: HIGH_WATERMARK if o < 0 else o for tp, o in found.items()}
    else:
        asked = req.offsets
    rows = []
    for (t, p) in parts:
        offset = ends[(t, p)] if asked[(t, p)] == HIGH_WATERMARK else asked[(t, p)]
        if offset > ends[(t, p)]:
            raise OperationError(f"Nothing was deleted: offset {offset} of {t}-{p} is above its high "
                                 f"watermark {ends[(t, p)]}")
        rows.append(RecordsDeletion(t, p, starts[(t, p)], ends[(t, p)], offset))
    _times(admin, rows)
    _unread(admin, rows)
    return sorted(rows, key=lambda r: (r.topic, r.partition))


def refusal(rows: list[RecordsDeletion]) -> str | None:
    """Why --execute without --allow-loss must not delete: the groups that have not read what
    would go, one clause per group and partition."""
    unread = [f"group '{g}' has not read {r.topic}-{r.partition} from offset {max(c, r.log_start)} "
              f"({r.offset - max(c, r.log_start)} records)" for r in rows for g, c in r.unread_by]
    if not unread:
        return None
    return f"Nothing was deleted: {'; '.join(unread)}; add --allow-loss to delete them"


def execute(admin: Admin, rows: list[RecordsDeletion], allow_loss: bool) -> None:
    """DeleteRecords for every row (one below its log start changes nothing); refused
    (OperationError, nothing sent) while a group has not read them, unless ``allow_loss``. Each
    row gets its low watermark or its error (``check_deleted`` gives the exit code)."""
    why = refusal(rows)
    if why and not allow_loss:
        raise OperationError(why)
    results = admin.delete_records({(r.topic, r.partition): r.offset for r in rows})
    for r in rows:
        r.low_watermark, r.error = results[(r.topic, r.partition)]


def check_deleted(rows: list[RecordsDeletion]) -> None:
    """The exit code of an --execute (``check_delete_results``)."""
    check_delete_results({(r.topic, r.partition): (r.low_watermark, r.error) for r in rows})


def delete_before(admin: Admin, offsets: dict[TP, int]) -> dict[TP, tuple[int | None, BrokerError | None]]:
    """DeleteRecords as asked, no questions (kafka-delete-records): each partition's low
    watermark or error, in ``offsets``' order. The leaders first (one Metadata, as the Java
    admin client asks): a partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION at once,
    where the Java client retries it until its timeout."""
    if not offsets:
        return {}
    leaders = admin.partition_leaders(sorted({t for t, _ in offsets}))
    known = {tp: o for tp, o in offsets.items() if tp[1] in leaders.get(tp[0], {})}
    results = admin.delete_records(known) if known else {}
    return {tp: results[tp] if tp in known else (None, UNKNOWN_PARTITION) for tp in offsets}


def check_delete_results(results: dict[TP, tuple[int | None, BrokerError | None]]) -> None:
    """By kcli.ops.failures: 1 when no partition's records were deleted, 3 when some were not
    (or a partition got no answer)."""
    errors = {tp: error for tp, (_, error) in results.items()}
    failed, unknown = per_item(errors)
    detail = "; ".join(f"{t}-{p}: {e.message}" for t, p in [*failed, *unknown] if (e := errors[(t, p)]))
    raise_for(len(errors), len(failed), f"Records not deleted: {detail}", len(unknown))

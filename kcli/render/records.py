"""delete-records' view: one row per partition (the records that go, their time range, the groups
that have not read them; after --execute the new log start offset); JSON schema
``kcli.records-delete/v1``; ``plain`` is kafka-delete-records' result lines."""

from __future__ import annotations

from kcli.model import BrokerError, RecordsDeletion
from kcli.render.output import NULL, Output, Table, json_document, time_cell
from kcli.times import time_field

COLUMNS = ["TOPIC", "PARTITION", "LOG-START", "NEW-LOG-START", "RECORDS", "FIRST-TIMESTAMP", "LAST-TIMESTAMP",
           "UNREAD-BY"]


def _unread(r: RecordsDeletion) -> str:
    return ",".join(g for g, _ in r.unread_by) or NULL


def render_plan(out: Output, rows: list[RecordsDeletion], executed: bool) -> None:
    if out.format == "json":
        out.json(json_document("records-delete", executed=executed, partitions=[
            {"topic": r.topic, "partition": r.partition, "logStartOffset": r.log_start,
             "highWatermark": r.high_watermark, "offset": r.offset, "records": r.records,
             "firstTimestamp": time_field(r.first_ms), "lastTimestamp": time_field(r.last_ms),
             "unreadBy": [{"group": g, "committedOffset": c} for g, c in r.unread_by],
             "lowWatermark": r.low_watermark, "error": r.error.message if r.error else None} for r in rows]))
        return
    if out.format == "plain":
        if executed:                # kafka-delete-records' result lines
            out.line("Records delete operation completed:")
            for r in rows:
                out.line(f"partition: {r.topic}-{r.partition}\t"
                         + (f"error: {r.error.message}" if r.error else f"low_watermark: {r.low_watermark}"))
        else:
            for r in rows:
                out.line(f"partition: {r.topic}-{r.partition}\trecords: {r.records}\t"
                         f"new_log_start: {r.offset}")
        return
    table = Table(list(COLUMNS))
    table.rows = [[r.topic, str(r.partition), str(r.log_start),
                   str(r.low_watermark if executed and r.low_watermark is not None else r.offset),
                   str(r.records), time_cell(r.first_ms), time_cell(r.last_ms), _unread(r)] for r in rows]
    out.view(table)


def render_dropin(results: dict[tuple[str, int], tuple[int | None, BrokerError | None]]) -> str:
    """kafka-delete-records' lines after the deletion: each partition's low watermark, or its
    error as the Java exception prints it."""
    from kcli.render.javatext import exception_text

    lines = ["Records delete operation completed:\n"]
    for (topic, partition), (low, error) in results.items():
        lines.append(f"partition: {topic}-{partition}\t" + (f"error: {exception_text(error.code, error.message)}\n"
                                                         if error else f"low_watermark: {low}\n"))
    return "".join(lines)


def summary(rows: list[RecordsDeletion], executed: bool) -> str:
    records = sum(r.records for r in rows)
    parts = sum(1 for r in rows if r.records)
    what = f"{records} record{'s' * (records != 1)} in {parts} partition{'s' * (parts != 1)}"
    if executed:
        return f"Deleted {what}."
    return f"Dry run: {what} would go (add --execute to delete them)."

"""Offset views: kafka-get-offsets' ``topic:partition:offset`` lines (plain), a table, JSON
(schema kcli.offsets/v1)."""

from __future__ import annotations

from kcli.model import OffsetInfo
from kcli.render.output import NULL, Output, Table, json_document, time_cell
from kcli.times import time_field


def render_offsets(out: Output, offsets: list[OffsetInfo], time_label: str) -> None:
    if out.format == "plain":     # kafka-get-offsets omits partitions whose result is -1
        for o in offsets:
            if o.offset >= 0 and o.error is None:
                out.line(f"{o.topic}:{o.partition}:{o.offset}")
        for o in offsets:
            if o.error:
                out.note(f"Skip getting offsets for topic-partition {o.topic}-{o.partition} due to error: {o.error}")
        return
    if out.format == "json":
        items = []
        for o in offsets:
            item = {"topic": o.topic, "partition": o.partition,
                    "offset": o.offset if o.offset >= 0 else None}
            if o.timestamp_ms is not None:
                t = time_field(o.timestamp_ms)
                item["timestampMs"], item["timestamp"] = t["ms"], t["iso"]
            item["error"] = o.error
            items.append(item)
        out.json(json_document("offsets", time=time_label, offsets=items))
        return
    with_ts = any(o.timestamp_ms is not None for o in offsets)
    table = Table(["TOPIC", "PARTITION", "OFFSET"] + (["TIMESTAMP"] if with_ts else []) + ["ERROR"])
    for o in offsets:
        row = [o.topic, str(o.partition), str(o.offset) if o.offset >= 0 else NULL]
        if with_ts:
            row.append(time_cell(o.timestamp_ms))
        row.append(o.error or "")
        table.add(row)
    if not any(o.error for o in offsets):
        table.columns.pop()
        for r in table.rows:
            r.pop()
    out.table(table)

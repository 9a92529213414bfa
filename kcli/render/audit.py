"""The audit view: per-partition rows and a total (schema kcli.audit-timestamps/v3, keys in kcli.pipeline.result)."""

from __future__ import annotations

from kcli.render.output import NULL, Output, Table, duration_cell, duration_column, json_document, time_cell
from kcli.times import format_duration_rounded, format_ms


def _n(v) -> str:
    return NULL if v is None else str(v)


def _culprit(c) -> str:
    why = ([] if c.ahead_ms is None else [f"{format_duration_rounded(c.ahead_ms)} ahead"] if c.ahead_ms > 0
           else [f"{format_duration_rounded(-c.ahead_ms)} behind"])
    why += ["too new"] if c.too_new else []
    return f"{c.topic}-{c.partition}@{c.offset} {format_ms(c.timestamp)} ({', '.join(why)})"


def render_audit(out: Output, result) -> None:
    if out.format == "json":
        out.json(json_document("audit-timestamps", **result.to_json_dict()))
        return
    with_target = result.target_ms is not None
    cols = ["TOPIC", "PARTITION", "RECORDS", "MIN-TIMESTAMP", "MAX-TIMESTAMP", "MAX-TS-OFFSET",
            "TOO-OLD", "TOO-NEW", "CULPRITS", "OUT-OF-ORDER", duration_column("MAX-BACK")]
    if with_target:
        cols += ["TARGET-OFFSET", "REPLAYED", "SKIPPED", "TARGET-CHECK"]
    cols.append("MAX-TS-CHECK")
    # On a narrow terminal the counts of what a timestamp-based operation meets stay longest.
    table = Table(cols, title=None, drop=("MAX-TS-OFFSET", "MAX-BACK", "TARGET-OFFSET", "MIN-TIMESTAMP",
                                          "TARGET-CHECK", "MAX-TS-CHECK", "RECORDS", "MAX-TIMESTAMP"))
    for p in result.partitions:
        row = [p.topic, str(p.partition), str(p.records), time_cell(p.min_timestamp), time_cell(p.max_timestamp),
               _n(p.max_timestamp_offset), str(p.too_old), str(p.too_new), str(p.culprits), str(p.out_of_order),
               duration_cell(p.max_out_of_order_ms)]
        if with_target:
            row += [_n(p.target_offset), _n(p.replayed), _n(p.skipped), _n(p.target_check)]
        row.append(p.max_timestamp_check)
        table.add(row)
    t = result.total
    total = ["(total)", str(t.partitions), str(t.records), time_cell(t.min_timestamp), time_cell(t.max_timestamp),
             NULL, str(t.too_old), str(t.too_new), str(t.culprits), str(t.out_of_order),
             duration_cell(t.max_out_of_order_ms)]
    if with_target:
        total += [NULL, _n(t.replayed), _n(t.skipped), NULL]
    total.append(f"{t.disagreements} disagreement(s)")
    table.add(total)
    out.table(table)
    if t.culprits:
        shown = "" if len(t.first_culprits) == t.culprits else f" (the first {len(t.first_culprits)})"
        out.note(f"Culprits{shown}, the fewest records whose removal leaves each partition in "
                 "timestamp order: "
                 + ", ".join(_culprit(c) for c in t.first_culprits))
    if with_target:
        out.note(f"Target time {format_ms(result.target_ms)}: a reset to it replays REPLAYED records older "
                 "than the target and skips SKIPPED records at or after it.")

"""describe log-dirs' view: one row per replica (TOPIC, PARTITION, BROKER, LOG-DIR, SIZE,
OFFSET-LAG, FUTURE), sizes in bytes; JSON schema ``kcli.log-dirs/v1``."""

from __future__ import annotations

from kcli.model import ReplicaLogDir
from kcli.render.output import Cell, Output, Table, json_document

COLUMNS = ["TOPIC", "PARTITION", "BROKER", "LOG-DIR", "SIZE", "OFFSET-LAG", "FUTURE"]


def size_cell(n: int) -> str:
    """Bytes: with a binary unit in a table (``1.5 MiB``), exact in CSV."""
    value, unit = float(n), "B"
    for next_unit in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, next_unit
    return Cell(f"{n} B" if unit == "B" else f"{value:.1f} {unit}", str(n))


def render_log_dirs(out: Output, rows: list[ReplicaLogDir]) -> None:
    if out.format == "json":
        out.json(json_document("log-dirs", replicas=[
            {"topic": r.topic, "partition": r.partition, "broker": r.broker, "logDir": r.log_dir,
             "sizeBytes": r.size_bytes, "offsetLag": r.offset_lag, "future": r.future} for r in rows]))
        return
    table = Table(list(COLUMNS))
    table.rows = [[r.topic, str(r.partition), str(r.broker), r.log_dir,
                   size_cell(r.size_bytes) if out.format == "table" else str(r.size_bytes),
                   str(r.offset_lag), "yes" if r.future else "no"] for r in rows]
    out.view(table)

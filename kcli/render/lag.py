"""``kcli lag show``: one row per group, per group and topic, or per group's partition (``--by``),
with the offset lag (summed) and the lag in time (the largest; ``≥`` when a lower bound, negative
when the next record is future-dated). JSON schema ``kcli.lag/v1``; CSV has the time lag in
milliseconds; plain is the table in the Kafka tools' padded layout."""

from __future__ import annotations

from kcli.model import LagLine
from kcli.render.output import NULL, Output, Table, duration_cell, duration_column, json_document


def _v(value: object) -> str:
    return NULL if value is None else str(value)


def columns(by: str) -> list[str]:
    head = ["GROUP", "TYPE", "STATE", "MEMBERS"] if by == "group" else ["GROUP"]
    where = {"group": ["PARTITIONS"], "topic": ["TOPIC", "PARTITIONS"],
             "partition": ["TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET"]}[by]
    return head + where + ["LAG", duration_column("TIME-LAG" if by == "partition" else "MAX-TIME-LAG")]


def cells(x: LagLine, by: str) -> list[str]:
    head = [x.group, x.type, x.state, str(x.members)] if by == "group" else [x.group]
    where = {"group": [str(x.partitions)], "topic": [_v(x.topic), str(x.partitions)],
             "partition": [_v(x.topic), _v(x.partition), _v(x.current), _v(x.log_end)]}[by]
    return head + where + [_v(x.lag), duration_cell(x.time_lag_ms, "≥" if x.time_lag_bound else "")]


def document(x: LagLine, by: str) -> dict:
    doc: dict = {"group": x.group}
    if by == "group":
        doc.update(type=x.type, state=x.state, members=x.members)
    if by != "group":
        doc["topic"] = x.topic
    if by == "partition":
        doc.update(partition=x.partition, currentOffset=x.current, logEndOffset=x.log_end)
    else:
        doc["partitions"] = x.partitions
    doc.update(lag=x.lag, timeLagMs=x.time_lag_ms, timeLagIsLowerBound=x.time_lag_bound)
    return doc


BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[int | None]) -> str:
    """One character per sample, scaled from the smallest to the largest (all equal: the lowest
    bar); a sample without a value as a space."""
    known = [v for v in values if v is not None]
    if not known:
        return ""
    low, span = min(known), max(known) - min(known)
    return "".join(" " if v is None else BARS[0 if span == 0 else (v - low) * (len(BARS) - 1) // span]
                   for v in values)


def render_lag(out: Output, lines: list[LagLine], by: str, trends: list[list[int | None]] | None = None) -> None:
    """``trends``: each line's recent lags in time (``--watch``), a TREND column of sparklines."""
    if out.format == "json":
        docs = [document(x, by) for x in lines]
        for doc, trend in zip(docs, trends or []):
            doc["timeLagTrendMs"] = trend
        out.json(json_document("lag", by=by, lines=docs))
        return
    rows = [cells(x, by) for x in lines]
    if trends is not None:
        rows = [row + [sparkline(t)] for row, t in zip(rows, trends)]
    out.view(Table(columns(by) + (["TREND"] if trends is not None else []), rows))

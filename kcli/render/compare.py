"""``reset-offsets --compare``: one row per partition, one column pair per policy (the target
offset, then the records skipped ``+N`` or replayed ``-N`` against the committed offset, the
sign of the plan's DELTA), two total rows (not in CSV: data rows only), and ``n/a`` where the
broker cannot serve a policy (its reason once, on stderr).
JSON schema ``kcli.reset-compare/v1``; plain is the same table in the Kafka tools' padded layout.
"""

from __future__ import annotations

from typing import Iterator

from kcli.model import Notice
from kcli.offsets.compare import Comparison, PolicyPlans, moved, totals
from kcli.render.groups import age_json
from kcli.render.notices import notice, summary
from kcli.render.output import NULL, Cell, Output, Rows, Table, json_document, null

NA = null("n/a")        # the broker cannot serve the policy; an empty cell in CSV
MISSING = NULL


def _signed(n: int | None) -> str:
    """``+N`` / ``-N`` in a table, the integer in CSV."""
    return MISSING if n is None else Cell(f"{n:+d}", str(n)) if n else "0"


def comparison_table(c: Comparison, with_totals: bool = True) -> Table:
    cols = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-START", "LOG-END"]
    for column in c.columns:
        cols += [column.policy.name, column.policy.name + "+/-"]
    # On a narrow terminal the records skipped or replayed stay longest, those of the policies
    # asked for (--max-age, --by-duration, --to-datetime) longest of all, then the first policies'.
    targets, moves = cols[6::2], cols[7::2]
    asked = [column.policy.asked for column in c.columns]
    last = [m for m, a in zip(moves, asked) if a][::-1]
    return Table(cols, Rows(lambda: _rows(c, with_totals)),
                 drop=("LOG-START", "LOG-END", "CURRENT-OFFSET", *targets[::-1],
                       *[m for m in moves[::-1] if m not in last], *last))


def _rows(c: Comparison, with_totals: bool) -> Iterator[list[str]]:
    for (group, topic, partition, current, start, end), plans in c.cells():
        row = [group, topic, str(partition), MISSING if current is None else str(current), str(start), str(end)]
        for p in plans:
            row += [NA, NA] if p is None else [MISSING if p.new is None else str(p.new), _signed(moved(p))]
        yield row
    if not with_totals:             # CSV: data rows only (the totals are JSON's totalSkipped/totalReplayed)
        return
    for label, index in (("skipped", 0), ("replayed", 1)):
        row = ["(total)", label, "", "", "", ""]
        for column in c.columns:
            if not column.available:
                row += ["", NA]
            else:
                n = totals(column)[index]
                row += ["", _signed(n if index == 0 else -n)]
        yield row


def notes(c: Comparison, verbose: bool = False) -> list[str]:
    """Each unavailable policy's reason, once; then the planner's warnings, summed up per kind
    (every one with ``verbose``)."""
    out = [f"{column.policy.name} is n/a: {why}" for column in c.columns for why in column.reasons()]
    return out + [f"Warn: {w}" for w in summary(notices(c), verbose)]


def notices(c: Comparison) -> list[Notice]:
    return [notice(w, scope) for scope, w in c.warnings]


def render_comparison(out: Output, c: Comparison, verbose: bool = False) -> None:
    if out.format == "json":
        out.json(comparison_document(c))
        return
    out.view(comparison_table(c, with_totals=out.format != "csv"))
    for note in notes(c, verbose):
        out.note(note)
    if out.format == "table":
        out.note("+N: records skipped, -N: records replayed, against the committed offset (the sign of "
                 "a plan's DELTA; no commit: the records before the target). Dry run: nothing was committed.")


def comparison_document(c: Comparison) -> dict:
    def policy(column: PolicyPlans) -> dict:
        skipped, replayed = totals(column) if column.available else (None, None)
        return {"policy": column.policy.label, "column": column.policy.name,
                "available": column.available, "unavailable": dict(column.unavailable),
                "totalSkipped": skipped, "totalReplayed": replayed}

    def partition(row, plans) -> dict:
        group, topic, partition, current, start, end = row
        cells: dict[str, dict | None] = {}
        for column, p in zip(c.columns, plans):
            if p is None:
                cells[column.policy.label] = None
                continue
            n = moved(p) or 0
            cell = {"newOffset": p.new, "replayed": max(-n, 0), "skipped": max(n, 0)}
            if p.age_source is not None:          # --max-age: what decided
                cell.update(rule=p.rule, age=age_json(p))
            cells[column.policy.label] = cell
        return {"topic": topic, "partition": partition, "currentOffset": current,
                "logStartOffset": start, "logEndOffset": end, "policies": cells}

    def partitions(group: str):
        return Rows(lambda: (partition(row, plans) for row, plans in c.cells(group)))
    return json_document("reset-compare", policies=[policy(col) for col in c.columns],
                         groups=[{"group": plan.group, "partitions": partitions(plan.group)} for plan, _ in c.order],
                         warnings=[n.text for n in notices(c)])

"""kafka-consumer-groups' reset CSV (reference §3.4), byte-compatible both ways.

Export: no header, ``,`` separator, ``\\n`` after every record; ``topic,partition,offset`` for a
single ``--group``, ``group,topic,partition,offset`` otherwise. Strings are quoted as Jackson's
CsvMapper does by default (its "loose" check): when longer than 24 characters or containing any
character below ``-`` (space, ``"``, ``#``, ``,``, control characters...); quotes are doubled.

An offset of -1 means "no committed offset" (kcli's rollback files write it for partitions the
group had not committed; restoring them deletes the offset).

Import: with exactly one group and a first line that reads as 3 columns, every line is
``topic,partition,offset`` for that group; otherwise every line is 4 columns and only the groups
being reset are kept. Empty lines are skipped.
"""

from __future__ import annotations

import csv

from kcli.errors import UsageError
from kcli.model import GroupPlan
from kcli.offsets.plan import NO_OFFSET

_MAX_UNQUOTED = 24
_MIN_SAFE = ord("-")     # Jackson: max(separator, quote, line feed) + 1


def _field(value: str) -> str:
    if len(value) > _MAX_UNQUOTED or any(ord(c) < _MIN_SAFE for c in value):
        return '"' + value.replace('"', '""') + '"'
    return value


def export_csv(plans: list[GroupPlan], with_group: bool) -> str:
    """The records, each ending in ``\\n`` (the Java tool prints this with println, adding one
    more newline; callers printing to stdout do the same)."""
    lines = []
    for plan in plans:
        for p in plan.partitions:
            cells = [_field(p.topic), str(p.partition), str(NO_OFFSET if p.new is None else p.new)]
            if with_group:
                cells.insert(0, _field(p.group))
            lines.append(",".join(cells) + "\n")
    return "".join(lines)


def _record(cells: list[str], width: int, lineno: int) -> tuple:
    if len(cells) != width:
        raise ValueError(f"line {lineno}: expected {width} columns, found {len(cells)}")
    *names, partition, offset = cells
    try:
        return (*names, int(partition), int(offset))
    except ValueError:
        raise ValueError(f"line {lineno}: partition and offset must be integers") from None


def parse_csv(text: str, groups: list[str]) -> dict[str, dict[tuple[str, int], int]]:
    """Offsets per group (only ``groups``); a group absent from the file maps to nothing."""
    rows = [(i, cells) for i, cells in enumerate(csv.reader(text.split("\n")), start=1) if cells]
    result: dict[str, dict[tuple[str, int], int]] = {}
    try:
        three = False
        if len(groups) == 1 and rows:
            try:
                _record(rows[0][1], 3, rows[0][0])
                three = True
            except ValueError:
                pass
        for lineno, cells in rows:
            if three:
                topic, partition, offset = _record(cells, 3, lineno)
                group = groups[0]
            else:
                group, topic, partition, offset = _record(cells, 4, lineno)
            if group in groups:
                result.setdefault(group, {})[(topic, partition)] = offset
    except (ValueError, csv.Error) as exc:
        raise UsageError(f"Invalid reset CSV: {exc}") from None
    return result

"""kafka-consumer-groups' reset CSV (Apache Kafka's
tools/src/main/java/org/apache/kafka/tools/consumer/group/CsvUtils.java), byte-compatible both ways.

Export: no header, ``,`` separator, ``\\n`` after every record; ``topic,partition,offset`` for a
single ``--group``, ``group,topic,partition,offset`` otherwise. Strings are quoted as Jackson's
CsvMapper does by default (its "loose" check): when longer than 24 characters or containing any
character below ``-`` (space, ``"``, ``#``, ``,``, control characters...); quotes are doubled.

Import: with exactly one ``--group`` and a first line of 3 columns, every line is
``topic,partition,offset`` for that group; otherwise every line is 4 columns (``--all-groups``
included, as the Java tool decides by the ``--group`` options given). Empty lines are skipped.
Topic names follow Kafka's rule (a name the broker would refuse was sent, and waited on for the
whole --timeout). Partitions are int32, offsets int64 and not negative, as Kafka's OffsetCommit
takes them, except -1: "no committed offset" (kcli's rollback files write it for partitions the
group had not committed; restoring them deletes the offset). The file is read whole before any
request (its groups need no cluster to be known).
"""

from __future__ import annotations

from kcli.errors import UsageError
from kcli.inputs import INT32_MAX, INT64_MAX, parse_int, shown, topic_name_error
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


LAYOUTS = {3: "topic,partition,offset", 4: "group,topic,partition,offset"}


def _record(cells: list[str], width: int, lineno: int) -> tuple:
    if len(cells) != width:
        raise ValueError(f"line {lineno}: expected {width} columns ({LAYOUTS[width]}) as on the "
                         f"first line, found {len(cells)}")
    *names, partition, offset = cells
    if not all(names):
        raise ValueError(f"line {lineno}: empty {'group or topic' if width == 4 else 'topic'}")
    if error := topic_name_error(names[-1]):
        raise ValueError(f"line {lineno}: {error}")
    if "\x00" in names[0]:
        raise ValueError(f"line {lineno}: a group id cannot contain a NUL character")
    try:
        return (*names, parse_int(partition, 0, INT32_MAX), parse_int(offset, NO_OFFSET, INT64_MAX))
    except ValueError:
        raise ValueError(f"line {lineno}: the partition must be an integer from 0 to {INT32_MAX} "
                         f"and the offset one from 0 to {INT64_MAX} (or -1: no committed offset)") from None


def parse_csv(text: str, groups: list[str]) -> dict[str, dict[tuple[str, int], int]]:
    """Offsets per group. ``groups``: the ``--group`` ids given; only those are kept (with none,
    as with ``--all-groups``, every group of the file is, and the caller picks its groups)."""
    import csv          # only here: a reset that reads no file does without (start-up)

    result: dict[str, dict[tuple[str, int], int]] = {}
    wanted = set(groups)
    try:
        rows = [(i, cells) for i, cells in enumerate(csv.reader(text.split("\n")), start=1) if cells]
        widths = (3, 4) if len(groups) == 1 else (4,)      # the layout: the first line's, of these
        if rows and len(rows[0][1]) not in widths:
            lineno, cells = rows[0]
            expected = " or ".join(f"{w} columns ({LAYOUTS[w]})" for w in widths)
            why = "" if len(groups) == 1 else " (3 columns need exactly one --group)"
            raise ValueError(f"line {lineno}: expected {expected}, found {len(cells)}{why}")
        three = bool(rows) and len(rows[0][1]) == 3
        for lineno, cells in rows:
            if three:
                topic, partition, offset = _record(cells, 3, lineno)
                group = groups[0]
            else:
                group, topic, partition, offset = _record(cells, 4, lineno)
            if not wanted or group in wanted:
                result.setdefault(group, {})[(topic, partition)] = offset
    except (ValueError, csv.Error) as exc:
        raise UsageError(f"Invalid reset CSV: {shown(str(exc), 300)}") from None
    return result

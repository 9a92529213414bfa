"""Where every command's output goes: a rich table on a terminal (colour only there, NO_COLOR
respected), the Kafka tools' text layout (plain), JSON documents with a versioned schema name, or
CSV. Commands build a ``Table`` and a JSON document; this module prints the one asked for."""

from __future__ import annotations

import functools
import os
import sys
from contextlib import contextmanager
from types import SimpleNamespace

from kcli.errors import EXIT_FOUND
from kcli.datatypes import field, datatype

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Iterator

    from rich.console import Console

    ProgressUpdate = Callable[[int, "int | None"], None]     # progress(done, total): total None while unknown

FORMATS = ("table", "plain", "json", "csv")
SCHEMA_PREFIX = "kcli."
# Each document's version: 1, unless its keys changed. Every key is camelCase; v2 of these four
# renamed their snake_case keys (audit-timestamps also made its times key pairs, as elsewhere).
SCHEMA_VERSIONS = {"audit-timestamps": 3, "topic-alter": 2, "topic-delete": 2, "config-alter": 2, "error": 2}
OFF_TERMINAL_WIDTH = 4096        # off a terminal nothing is folded: scripts and pagers get whole cells


class Cell(str):
    """A table cell (or column name) whose CSV text is not what a table shows. One rule for every
    CSV: a null is an empty cell (``-`` in a table: NULL), a duration integer milliseconds
    (rounded in a table: ``duration_cell``), a time ISO-8601 without a table's bound mark
    (``time_cell``), and a duration column's name ends in ``-MS`` (``duration_column``)."""

    csv: str

    def __new__(cls, text: str, csv: str):
        cell = super().__new__(cls, text)
        cell.csv = csv
        return cell


NULL = Cell("-", "")


class Fields(str):
    """A table cell (or column name) that CSV writes as several fields: a coordinator's
    ``host:port  (id)`` is one cell in a table, ``host:port`` and ``id`` in CSV. Every row's cell
    in its column is a Fields of as many."""

    fields: tuple[str, ...]

    def __new__(cls, text: str, fields: tuple[str, ...]):
        cell = super().__new__(cls, text)
        cell.fields = fields
        return cell


# a group's coordinator in a table: ``host:port  (id)``; in CSV COORDINATOR (host:port) and COORDINATOR-ID
NO_COORDINATOR = Fields("-", ("", ""))
COORDINATOR_COLUMN = Fields("COORDINATOR (ID)", ("COORDINATOR", "COORDINATOR-ID"))


def null(text: str) -> Cell:
    """A null shown as ``text`` in a table (``N/A``, ``n/a``, ``none``), empty in CSV."""
    return Cell(text, "")


def duration_cell(ms: int | None, mark: str = "", resolution: int = 1) -> str:
    """A duration: rounded in a table (to ``resolution`` ms first, ``mark`` before it, as ``≥``),
    exact integer milliseconds in CSV; NULL for None."""
    from kcli.times import format_duration_rounded

    return NULL if ms is None else Cell(mark + format_duration_rounded(ms // resolution * resolution), str(ms))


def duration_column(name: str) -> Cell:
    return Cell(name, name + "-MS")


UNKNOWN_SIZE = null("unknown")


def size_cell(n: int | None) -> str:
    """Bytes: with a binary unit in a table (``1.5 MiB``), exact in CSV; ``unknown`` (an empty
    CSV cell) for None, a size the broker did not tell."""
    if n is None:
        return UNKNOWN_SIZE
    value, unit = float(n), "B"
    for next_unit in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, next_unit
    return Cell(f"{n} B" if unit == "B" else f"{value:.1f} {unit}", str(n))


def time_cell(ms: int | None, mark: str = "") -> str:
    """Epoch milliseconds as ISO-8601 (``mark`` before it in a table, as ``≤``); NULL for None or -1."""
    from kcli.times import format_ms

    return NULL if ms is None or ms == -1 else Cell(mark + format_ms(ms), format_ms(ms))


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")     # what a spreadsheet reads as a formula's start


def csv_text(cell: str) -> str:
    """A cell's CSV text, guarded against formula injection as OWASP describes: a text starting
    with ``=``, ``+``, ``-``, ``@``, TAB or CR gets a single quote before it (a spreadsheet shows
    it as text), unless it is a number (``-1``, a negative lag, ``-0.5``), which stays a number."""
    text = cell.csv if isinstance(cell, Cell) else cell
    if text.startswith(FORMULA_START) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    digits = text[1:] if text[0] in "+-" else text
    return digits.isascii() and digits.replace(".", "", 1).isdigit()


def csv_row(row: list[str]) -> list[str]:
    return [csv_text(text) for cell in row for text in (cell.fields if isinstance(cell, Fields) else (cell,))]


def write_csv(out, columns: list[str], rows: Iterable[list[str]]) -> None:
    """The header and ``rows`` as CSV lines ended by ``\n``, quoted by the csv module: a field holding a comma,
    a quote, a line feed or a bare carriage return is quoted (the module quotes a CR only when
    its line terminator has one, so each line is written with ``\r\n`` and ended with ``\n``)."""
    import csv          # -o csv only (issue 28: a listing's start-up)
    import io
    import itertools

    line = io.StringIO()
    writer = csv.writer(line, lineterminator="\r\n")
    for row in itertools.chain([columns], rows):
        line.seek(0)
        line.truncate()
        writer.writerow(csv_row(row))
        out.write(line.getvalue()[:-2] + "\n")


class Rows:
    """A table's rows, or a JSON array's items, made anew for each pass over them (``make``
    returns an iterator), never all held: a reset plan over 100k partitions is about 100 MB of
    cell strings, its JSON document more. Off a terminal the table layouts take two passes (the
    widths, then the lines); rich, on a terminal, takes the rows as a list."""

    def __init__(self, make: Callable[[], Iterator]):
        self._make = make

    def __iter__(self) -> Iterator:
        return self._make()


@datatype
class Table:
    columns: list[str]
    rows: list[list[str]] | Rows = field(default_factory=list)
    title: str | None = None
    drop: tuple[str, ...] = ()      # this view's columns to leave out first on a narrow terminal

    def add(self, row: list[str]) -> None:
        """One row more, for a table made row by row (its rows a list)."""
        if not isinstance(self.rows, list):
            raise TypeError("a table of Rows takes no rows one by one")
        self.rows.append(row)


# Fitting a table to a terminal. Identifiers (topic, group, config name, host:port, ids) and
# timestamps are never broken: only these free-text columns wrap (at spaces) ...
FREE_TEXT = frozenset({"MEANING", "ERROR", "RESULT", "STATUS", "RULE", "CONFIGS", "EVIDENCE"})
FREE_TEXT_MIN = 20
# ... and when the table is still too wide, columns go, in an order defined for every column:
# first those the view names (``Table.drop``), then those named in DROP_ORDER (least important
# first); then a column with the same value in every row, said once below the table instead; then
# any column not named anywhere, the rightmost first. Then, before a column of DROP_LAST goes (the
# reason for its view: offsets, lag, the reset's outcome, the time lag, tasks, the audit's counts,
# the evidence, MEANING), the NAMES are shortened in the middle (``middle_ellipsis``), down to
# NAME_MIN; only then do DROP_LAST's columns go, in that order. KEY columns (and a table's first
# column) identify a row and are never left out. The plain, json and csv outputs keep everything.
DROP_ORDER = ("LAST-KNOWN-ELR", "ELR", "TOPIC-ID", "LEADER-EPOCH", "GROUP-INSTANCE-ID", "CLIENT-ID", "HOST",
              "UPGRADED", "CURRENT-EPOCH", "TARGET-EPOCH", "CONSUMER-ID", "ASSIGNMENT-STRATEGY",
              "TARGET-ASSIGNMENT-EPOCH", "GROUP-EPOCH", "COORDINATOR (ID)", "LOG-START", "LOG-END",
              "LOG-END-OFFSET", "EFFECTIVE", "SOURCE", "MAX-TS-OFFSET", "MAX-BACK", "TARGET-OFFSET",
              "MIN-TIMESTAMP", "CREATED", "YOUNGER-THAN-GROUP")
DROP_LAST = ("CURRENT-OFFSET", "TOO-OLD", "TOO-NEW", "CULPRITS", "OUT-OF-ORDER", "REPLAYED", "SKIPPED",
             "ACTIVE-TASKS", "LAG", "DELTA", "RECORD-TIMESTAMP", "SKIPS-UNREAD", "NEW-OFFSET", "TIME-LAG",
             "EVIDENCE", "RULE", "STATUS", "MEANING")
KEY = frozenset({"GROUP", "TOPIC", "PARTITION", "NAME", "RESOURCE"})
NAMES = frozenset({"GROUP", "TOPIC", "INTERNAL-TOPIC", "MEMBER", "PROCESS", "CONSUMER-ID", "CLIENT-ID",
                   "GROUP-INSTANCE-ID", "HOST"})
NAME_MIN = 20
ELLIPSIS = "…"


def middle_ellipsis(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal columns, its middle replaced by an ellipsis: both ends
    of a name tell names apart (Kafka Streams' internal topics share the application id before and
    differ in ``-repartition`` or ``-changelog`` after). rich's own ``overflow="ellipsis"`` keeps
    only the start, so the cells are cut here, to the widths ``fit`` chose, before rich sees them."""
    from rich.cells import cell_len

    if cell_len(text) <= width:
        return text

    def take(chars, budget: int) -> list[str]:
        kept: list[str] = []
        for ch in chars:
            budget -= cell_len(ch)
            if budget < 0:
                break
            kept.append(ch)
        return kept

    room = max(width - 1, 0)
    head = take(text, (room + 1) // 2)
    tail = take(reversed(text), room - (room + 1) // 2)
    return "".join(head) + ELLIPSIS + "".join(reversed(tail))


def free_text_width(table: Table, i: int) -> int:
    """The narrowest a free-text column gets: FREE_TEXT_MIN, its header, or its longest word
    (a config ``name=value`` in a list is a word: it wraps between words, never inside one)."""
    from rich.cells import cell_len

    cells = [table.columns[i], *(r[i] for r in table.rows if i < len(r))]
    longest = max((cell_len(word) for cell in cells for word in cell.split()), default=0)
    natural = max((cell_len(line) for cell in cells for line in cell.splitlines()), default=0)
    return min(natural, max(FREE_TEXT_MIN, longest))


@datatype
class Fit:
    """What ``fit`` chose: the columns shown (their indexes), the names of those left out, the
    width the lines need, the width each shortened name column is cut to, and the narrowest each
    free-text column may get where its longest words fold (both by index)."""
    shown: list[int]
    hidden: list[str]
    needed: int
    short: dict[int, int]
    fold: dict[int, int]


def fit(table: Table, width: int) -> Fit:
    """The columns of ``table`` to show within ``width`` terminal columns. Identifier columns keep
    their whole width, free text may wrap down to its longest word; columns go in the order above
    until the rest fits. Before a column of DROP_LAST goes, the NAMES are shortened, then free
    text's longest words may fold (down to FREE_TEXT_MIN); only KEY columns left, the lines are
    wider than the terminal."""
    from rich.cells import cell_len

    def natural(i: int) -> int:
        return max(cell_len(line) for cell in [table.columns[i], *(r[i] for r in table.rows if i < len(r))]
                   for line in (cell.splitlines() or [""]))

    widths = {i: natural(i) for i in range(len(table.columns))}
    squeeze = 0            # 1: names shortened; 2: free text's long words fold as well

    def narrowest(i: int) -> int:
        name = table.columns[i]
        if name in FREE_TEXT:
            words = free_text_width(table, i)
            return min(words, max(FREE_TEXT_MIN, cell_len(name))) if squeeze == 2 else words
        if squeeze and name in NAMES:
            return min(widths[i], max(NAME_MIN, cell_len(name)))
        return widths[i]

    def needed(shown: list[int]) -> int:
        return sum(map(narrowest, shown)) + 3 * len(shown) - 1

    shown = list(range(len(table.columns)))
    hidden: list[str] = []

    def drop(i: int, said: str = "") -> bool:
        if needed(shown) <= width:
            return True
        if i in shown and (said or i != 0) and len(shown) > 1:
            shown.remove(i)
            hidden.append(table.columns[i] + said)
        return False

    def done() -> Fit:
        short = _name_widths(table, shown, widths, 0 if squeeze == 2 else width - needed(shown)) if squeeze else {}
        fold = {i: narrowest(i) for i in shown if table.columns[i] in FREE_TEXT} if squeeze == 2 else {}
        return Fit(shown, hidden, needed(shown), short, fold)

    index = {name: i for i, name in enumerate(table.columns)}
    last = [index[name] for name in DROP_LAST if name in index]
    for name in (*table.drop, *DROP_ORDER):
        if name in index and drop(index[name]):
            return done()
    # A column with the same value in every row (one group's plan) is said once instead.
    rows = table.rows if isinstance(table.rows, list) else list(table.rows)

    def said_once(i: int) -> str:
        values = {r[i] if i < len(r) else "" for r in rows} if len(rows) >= 2 else set()
        return f" (every row: {values.pop()})" if len(values) == 1 and "" not in values else ""

    for i in list(shown):
        said = "" if i in last else said_once(i)
        if said and drop(i, said):
            return done()
    for i in [i for i in reversed(shown) if i not in last and table.columns[i] not in KEY]:
        if drop(i):
            return done()

    def squeezed() -> bool:          # the least squeeze that fits (2 where none does); does it fit
        nonlocal squeeze
        squeeze = 1
        if needed(shown) > width:
            squeeze = 2
        return needed(shown) <= width

    for i in last:
        if squeezed():
            break
        drop(i, said_once(i))
    squeezed()
    return done()


def _name_widths(table: Table, shown: list[int], widths: dict[int, int], spare: int) -> dict[int, int]:
    """The width each NAMES column of ``shown`` narrower than its cells is cut to: ``spare``
    columns (what the table leaves with those at their narrowest) shared out, each name given
    what it needs, up to an equal share of what is left (the narrowest needs first)."""
    from rich.cells import cell_len

    names = [i for i in shown if table.columns[i] in NAMES
             and widths[i] > max(NAME_MIN, cell_len(table.columns[i]))]
    if not names:
        return {}
    floor = {i: max(NAME_MIN, cell_len(table.columns[i])) for i in names}
    room = max(spare, 0) + sum(floor.values())
    cut: dict[int, int] = {}
    for n, i in enumerate(sorted(names, key=lambda i: widths[i])):
        share = max(floor[i], room // (len(names) - n))
        cut[i] = min(widths[i], share)
        room -= cut[i]
    return {i: w for i, w in cut.items() if w < widths[i]}


def schema_name(kind: str) -> str:
    return f"{SCHEMA_PREFIX}{kind}/v{SCHEMA_VERSIONS.get(kind, 1)}"


def json_document(kind: str, **body) -> dict:
    return {"schema": schema_name(kind), **body}


def simple_layout(table: Table, console) -> Iterator[str] | None:
    """What rich prints for ``table`` off a terminal (box SIMPLE_HEAD without edges, one space of
    padding, no styles), computed directly, line by line: rich takes about a millisecond per row,
    too slow for a plan over 10k partitions. None where rich's layout could differ: a title, a row
    of another width, a cell that is not one line of single-width characters, an empty column, a
    table wider than the console, a console without box-drawing characters."""
    def plain(cell: str) -> bool:
        if not cell.isprintable():
            return False                        # line breaks, tabs
        if not cell.isascii():
            from rich.cells import cell_len

            return cell_len(cell) == len(cell)  # not wide characters
        return True

    if (table.title is not None or not table.columns or console.legacy_windows
            or console.options.ascii_only):
        return None
    widths = [0] * len(table.columns)
    for row in _with_header(table):
        if len(row) != len(widths):
            return None
        for i, cell in enumerate(row):
            if not plain(cell):
                return None
            if len(cell) > widths[i]:
                widths[i] = len(cell)
    total = sum(widths) + 3 * len(widths) - 1
    if 0 in widths or total > console.width:
        return None

    def lines() -> Iterator[str]:
        for n, row in enumerate(_with_header(table)):
            yield " ".join(f" {c.ljust(w)} " for c, w in zip(row, widths)) + "\n"
            if n == 0:
                yield "─" * total + "\n"
    return lines()


def unpadded(lines: Iterable[str]) -> Iterator[str]:
    """A table's lines off a terminal, each without the spaces that pad it to the widest cell
    (its last column's, the right padding): a script or a diff sees no trailing blanks."""
    return (line.rstrip(" \n") + "\n" for line in lines)


def _with_header(table: Table) -> Iterator[list[str]]:
    yield table.columns
    yield from table.rows


def padded(table: Table) -> Iterator[str]:
    """A table in the Kafka tools' text layout, line by line: a leading empty line, each column
    left-aligned to its widest cell, one space between columns, the last column unpadded."""
    widths = [0] * len(table.columns)
    for row in _with_header(table):
        for i, cell in enumerate(row):
            if len(cell) > widths[i]:
                widths[i] = len(cell)
    yield "\n"
    for row in _with_header(table):
        yield " ".join(c.ljust(w) for c, w in zip(row[:-1], widths)) + " " + row[-1] + "\n"


@functools.cache
def _encoder():
    """The json module's encoder, made on first use: the json module loads only in a command
    that writes JSON."""
    import json

    return json.JSONEncoder(indent=2)


def json_pieces(value, level: int = 0) -> Iterator[str]:
    """``json.dumps(value, indent=2)`` nested ``level`` deep, piece by piece. A ``Rows`` is an
    array whose items are made while it is written; it and the arrays and dicts around it are
    written item by item, anything else by the json module, its lines indented to ``level`` (a
    JSON text has no line break but those of its layout)."""
    import json

    inner = "\n" + "  " * (level + 1)
    if isinstance(value, Rows) or (isinstance(value, list) and _holds_rows(value)):
        opened = False
        for item in value:
            yield ("," if opened else "[") + inner
            yield from json_pieces(item, level + 1)
            opened = True
        yield "\n" + "  " * level + "]" if opened else "[]"
    elif isinstance(value, dict) and _holds_rows(value):
        for n, (key, item) in enumerate(value.items()):
            yield ("," if n else "{") + inner + json.dumps(key) + ": "
            yield from json_pieces(item, level + 1)
        yield "\n" + "  " * level + "}"
    elif level:
        yield _encoder().encode(value).replace("\n", "\n" + "  " * level)
    else:
        yield from _encoder().iterencode(value)


def _holds_rows(value) -> bool:
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return isinstance(value, Rows)
    return any(map(_holds_rows, value))


def same_file(stdout, stderr) -> bool:
    """``stdout`` and ``stderr`` reach one file (a terminal, ``2>&1``): what goes to each shows
    in the order it is written. Not a file (a test's StringIO): only when they are one object."""
    if stdout is stderr:
        return True
    try:
        out, err = os.fstat(stdout.fileno()), os.fstat(stderr.fileno())
    except (AttributeError, OSError, ValueError):
        return False
    return (out.st_dev, out.st_ino) == (err.st_dev, err.st_ino)


class Output:
    def __init__(self, fmt: str = "table", stdout=None, stderr=None):
        self.format = fmt
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self._console: Console | None = None

    @property
    def console(self):
        if self._console is None:
            from rich.console import Console

            tty = hasattr(self.stdout, "isatty") and self.stdout.isatty()
            self._console = Console(file=self.stdout, no_color="NO_COLOR" in os.environ,
                                    highlight=False, soft_wrap=True,
                                    width=None if tty else OFF_TERMINAL_WIDTH)
        return self._console

    def _plain_console(self):
        """What simple_layout reads of the console, when it is sure without loading rich (~25 ms of
        start-up) that stdout is no terminal: not a tty, neither TTY_COMPATIBLE nor FORCE_COLOR
        (rich's overrides) set, a UTF encoding, not Windows. None when rich has to decide."""
        encoding = (getattr(self.stdout, "encoding", None) or "utf-8").lower()
        if (os.name == "nt" or "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ
                or not encoding.startswith("utf") or (hasattr(self.stdout, "isatty") and self.stdout.isatty())):
            return None
        return SimpleNamespace(width=OFF_TERMINAL_WIDTH, legacy_windows=False,
                               options=SimpleNamespace(ascii_only=False))

    def write(self, text: str) -> None:
        self.stdout.write(text)

    def write_lines(self, lines: Iterator[str]) -> None:
        """Text made piece by piece, written in pieces of about 64 kB."""
        chunk: list[str] = []
        size = 0
        for line in lines:
            chunk.append(line)
            size += len(line)
            if size >= 65536:
                self.stdout.write("".join(chunk))
                chunk, size = [], 0
        self.stdout.write("".join(chunk))

    def line(self, text: str = "") -> None:
        self.stdout.write(text + "\n")

    def prose(self, text: str) -> None:
        """A sentence on stdout after a table: on a terminal wrapped at blanks to its width (as the
        table fits it), elsewhere one line."""
        if self.format == "table" and hasattr(self.stdout, "isatty") and self.stdout.isatty():
            from rich.text import Text

            self.console.print(Text(text), soft_wrap=False)
        else:
            self.line(text)

    def note(self, text: str) -> None:
        """A notice for humans (warnings, fallbacks): stderr, so data on stdout stays clean."""
        self.stderr.write(text + "\n")

    def one_file(self) -> bool:
        """stdout and stderr reach one file (``same_file``): a notice about one group of many
        shows next to that group's view only if it is written just before it."""
        return same_file(self.stdout, self.stderr)

    def notes(self, texts: Iterable[str]) -> None:
        """Many notices (one per group of 10k), written together: stderr writes each at once."""
        self.stderr.write("".join(text + "\n" for text in texts))

    def table(self, table: Table) -> None:
        if self.format == "csv":
            write_csv(self.stdout, table.columns, table.rows)
            return
        if self.format == "table" and next(iter(table.rows), None) is None:
            if table.title:         # nothing to list: no bare header and rule ('-o plain' keeps the tools' text)
                self.line(table.title)
            self.line("(none)")
            return
        plain_console = self._plain_console()
        if plain_console is not None or not self.console.is_terminal:
            lines = simple_layout(table, plain_console or self.console)
            if lines is not None:
                self.write_lines(unpadded(lines))
                return
        self._rich_table(table)

    def view(self, table: Table) -> None:
        """A kcli view's table: with -o plain in the Kafka tools' padded layout, else as table()."""
        if self.format == "plain":
            self.write_lines(padded(table))
        else:
            self.table(table)

    def _rich_table(self, table: Table, fast: bool = True) -> None:
        """Cells are data, printed as they are (a group id "[x]" or a value "[redacted]" is no
        markup, ":smile:" no emoji). On a terminal the table fits its width (``fit``): a dim line
        names the columns left out. ``fast``: a table the simple layout can print is printed so
        (the header in bold), as rich would print it."""
        from rich.table import Table as RichTable
        from rich.text import Text
        from rich import box

        table = Table(table.columns, list(table.rows), table.title, table.drop)  # fit takes several passes
        hidden: list[str] = []
        shortened: list[str] = []
        shown, width, fold = list(range(len(table.columns))), self.console.width, {}
        if self.console.is_terminal:
            chosen = fit(table, width)
            shown, hidden, fold = chosen.shown, chosen.hidden, chosen.fold
            width = max(width, chosen.needed)   # never squeeze a KEY column: wider lines instead
            if chosen.short:                    # names cut in the middle to the widths fit chose
                shortened = [table.columns[i] for i in shown if i in chosen.short]
                table.rows = [[middle_ellipsis(cell, chosen.short[i]) if i in chosen.short else cell
                               for i, cell in enumerate(row)] for row in table.rows]
            lines = fast and simple_layout(Table([table.columns[i] for i in shown],
                                                 Rows(lambda: ([r[i] if i < len(r) else "" for i in shown]
                                                               for r in table.rows)), table.title), self.console)
            if lines:                           # what rich prints, without its millisecond per row
                self.console.print(Text(next(lines).rstrip("\n"), style="bold"), crop=False)
                self.write_lines(lines)
                self._not_shown(hidden, shortened)
                return
        rich_table = RichTable(title=table.title, box=box.SIMPLE_HEAD, show_edge=False,
                               header_style="bold" if self.console.is_terminal else None)
        for i in shown:
            col = table.columns[i]
            if col in FREE_TEXT:
                rich_table.add_column(Text(col), overflow="fold", min_width=fold.get(i, free_text_width(table, i)))
            else:
                rich_table.add_column(Text(col), no_wrap=True, overflow="ignore")
        for row in table.rows:
            rich_table.add_row(*(Text(row[i]) if i < len(row) else Text("") for i in shown))
        terminal_width = self.console.width
        self.console.width = width              # rich squeezes anything wider than its console
        try:
            if self.console.is_terminal:
                self.console.print(rich_table, crop=False)
            else:
                with self.console.capture() as captured:
                    self.console.print(rich_table, crop=False)
                self.write_lines(unpadded(captured.get().splitlines(keepends=True)))
        finally:
            self.console.width = terminal_width
        self._not_shown(hidden, shortened)

    def _not_shown(self, hidden: list[str], shortened: list[str]) -> None:
        """One dim line, wrapped at blanks to the terminal's width, naming the columns left out
        and those whose names were shortened (``…``)."""
        from rich.text import Text

        said = ([f"not shown at {self.console.width} columns: {', '.join(hidden)}"] if hidden else []) + (
            [f"{'' if hidden else f'at {self.console.width} columns, '}names shortened ({ELLIPSIS}) in "
             + ", ".join(shortened)] if shortened else [])
        if said:
            self.console.print(Text(f"({'; '.join(said)}; -o csv or json show all)", style="dim"), soft_wrap=False)

    @contextmanager
    def progress(self, description: str) -> Iterator["ProgressUpdate | None"]:
        """A transient rich progress bar on stderr for a long operation, shown only when stderr is
        a terminal and the output is not JSON; elsewhere it yields None instead of an update function
        (so the operation skips its progress bookkeeping)."""
        if self.format == "json" or not (hasattr(self.stderr, "isatty") and self.stderr.isatty()):
            yield None
            return
        from rich.console import Console
        from rich.progress import Progress

        console = Console(file=self.stderr, no_color="NO_COLOR" in os.environ)
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task(description, total=None)

            def update(done: int, total: int | None = None) -> None:
                bar.update(task, completed=done, total=total or None)

            yield update

    def json(self, document: dict) -> None:
        """As ``json.dumps(document, indent=2)``, written as it is encoded (``json_pieces``): the
        text of a 100k-partition document, and its items where they are ``Rows``, are never all
        held."""
        self.write_lines(json_pieces(document))
        self.write("\n")

    def error(self, message: str, exit_code: int) -> None:
        if self.format == "json":
            import json

            doc = json_document("error", error=message, exitCode=exit_code)
            self.stderr.write(json.dumps(doc) + "\n")
        else:
            label = "Found" if exit_code == EXIT_FOUND else "Error"      # a check's finding is no error
            self.stderr.write("".join(f"{label}: {line}\n" for line in message.split("\n")))

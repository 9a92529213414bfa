"""The command-line grammar of the Java tools built on argparse4j 0.7 (kafka-transactions,
kafka-metadata-quorum, kafka-features), pure: a parser of ``--flag value`` options (``store`` and
``append`` actions) and flags (``store_true``) with subcommands, argument groups and mutually
exclusive groups, so a drop-in accepts and refuses what the Java tool does, with argparse4j's
messages, usage lines and help screens (``Parser.help_text``), wrapped as argparse4j wraps them
(75 columns, lines justified: ``wrap``).

Parsing, as argparse4j's: a word starting with ``-`` that is not a negative number is an option,
``--name=value`` embeds the value, a unique prefix of a long option's name is that option
(``ambiguous option`` otherwise), the first word that is not an option names the subcommand (a
unique prefix too), ``--`` ends the options; an option's value is the next word unless it is an
option itself (``expected one argument``); a value is converted when read (``could not convert``);
a missing required option is reported after the whole line is read (the last one of a parser
missing, the main parser's first).
"""

from __future__ import annotations

from kcli.cli.dropin.jopt import line_words
from kcli.inputs import printable
from kcli.datatypes import datatype, field

WIDTH = 75
INDENT = 25                              # the help column


class ArgparseError(Exception):
    """A parse error: the parser that met it and argparse4j's message."""

    def __init__(self, parser: "Parser", message: str):
        super().__init__(message)
        self.parser, self.message = parser, message


class HelpRequested(Exception):
    def __init__(self, parser: "Parser"):
        super().__init__(parser.prog)
        self.parser = parser


class VersionRequested(Exception):
    pass


@datatype(frozen=True)
class Arg:
    flags: tuple[str, ...]
    help: str
    type: str = "String"                  # String, Integer, Long, Short; "flag": no value
    required: bool = False
    metavar: str | None = None
    default: object = None
    action: str = "store"                 # store, append, store_true, help, version

    @property
    def dest(self) -> str:
        return next((f for f in self.flags if f.startswith("--")), self.flags[0]).lstrip("-").replace("-", "_")

    @property
    def takes_value(self) -> bool:
        return self.action in ("store", "append")

    def shown_metavar(self) -> str:
        return self.metavar or self.dest.upper()

    def short_syntax(self) -> str:
        """How the usage line shows it: ``[-h]``, ``--topic TOPIC`` (required), ``[--broker-id BROKER_ID]``."""
        text = self.flags[0] + (f" {self.shown_metavar()}" if self.takes_value else "")
        return text if self.required else f"[{text}]"

    def title(self) -> str:
        """The help row's title: each flag, with the metavar after each where it takes a value."""
        return ", ".join(f + (f" {self.shown_metavar()}" if self.takes_value else "") for f in self.flags)

    @property
    def textual_name(self) -> str:
        return "/".join(self.flags)


@datatype
class Group:
    title: str
    description: str
    args: list[Arg] = field(default_factory=list)


@datatype
class Exclusive:
    """A mutually exclusive group: at most one of its arguments (``required``: exactly one)."""
    required: bool
    args: list[Arg] = field(default_factory=list)

    def usage_words(self) -> list[str]:
        """``(A | B)`` (required) or ``[A | B]``, as usage words: the brackets stay on the
        arguments, the bars are words of their own."""
        words: list[str] = []
        for a in self.args:
            words += ["|"] if words else []
            words.append(a.flags[0] + (f" {a.shown_metavar()}" if a.takes_value else ""))
        opening, closing = "()" if self.required else "[]"
        words[0], words[-1] = opening + words[0], words[-1] + closing
        return words


@datatype
class Parser:
    prog: str
    command: str | None = None            # a subparser's command name
    description: str = ""
    help: str = ""                        # a subparser's line in its parent's help
    args: list[Arg] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    exclusives: list[Exclusive] = field(default_factory=list)
    subparsers: list["Parser"] = field(default_factory=list)
    subparsers_title: str = ""
    subparsers_metavar: str = ""
    parent: "Parser | None" = None

    def add(self, *flags: str, help: str, group: Group | None = None, exclusive: Exclusive | None = None,
            **kw) -> Arg:
        arg = Arg(tuple(flags), help, **kw)
        self.args.append(arg)
        if group is not None:
            group.args.append(arg)
        if exclusive is not None:
            exclusive.args.append(arg)
        return arg

    def exclusive(self, required: bool = False) -> Exclusive:
        g = Exclusive(required)
        self.exclusives.append(g)
        return g

    def _usage_words(self, required_only: bool) -> list[str]:
        """The arguments' usage words: those outside the exclusive groups, then each group (only
        the required ones for ``required_only``: a subcommand's usage shows its parents' so)."""
        grouped = {id(a) for g in self.exclusives for a in g.args}
        words = [a.short_syntax() for a in self.args if id(a) not in grouped and (a.required or not required_only)]
        for g in self.exclusives:
            if g.required or not required_only:
                words += g.usage_words()
        return words

    def group(self, title: str, description: str) -> Group:
        g = Group(title, description)
        self.groups.append(g)
        return g

    def sub(self, command: str, help: str, description: str = "") -> "Parser":
        p = Parser(self.prog, command, description, help, parent=self)
        p.add("-h", "--help", help="show this help message and exit", type="flag", action="help")
        self.subparsers.append(p)
        return p

    # -- help and usage ---------------------------------------------------------------------
    def usage(self) -> str:
        head = f"usage: {self.prog}"
        if len(head) > 30:
            offset, first, rest = 6, "\n" + " " * 6, " " * 6
        else:
            offset, first, rest = len(head), "", " " * len(head)
        words = []
        for upper in self._uppers():
            if upper.command is not None:
                words.append(upper.command)
            words += upper._usage_words(required_only=True)
        if self.command is not None:
            words.append(self.command)
        words += self._usage_words(required_only=False)
        if self.subparsers:
            words += [self.subparsers_metavar, "..."]
        out, width, first_word = head + first, offset + len(first.strip("\n")), True
        for w in words:
            if not first_word and width + len(w) + 1 > WIDTH:
                out += "\n" + rest + " " + w
                width = len(rest) + 1 + len(w)
            else:
                out += " " + w
                width += 1 + len(w)
                first_word = False
        return out + "\n"

    def _uppers(self) -> list["Parser"]:
        chain: list[Parser] = []
        p = self.parent
        while p is not None:
            chain.insert(0, p)
            p = p.parent
        return chain

    def help_text(self) -> str:
        grouped = {id(a) for g in self.groups for a in g.args}
        out = self.usage()
        if self.description:
            out += "\n" + wrap(self.description, 0, "", "") + "\n"
        plain = [a for a in self.args if id(a) not in grouped]
        commands = ""
        if self.subparsers:
            commands = _help_row(self.subparsers_metavar, "") + "".join(
                _help_row(f"  {p.command}", p.help) for p in self.subparsers if p.help)
        if commands and not self.subparsers_title:      # untitled: positional arguments, first
            out += "\npositional arguments:\n" + commands
        if plain:
            out += "\noptional arguments:\n" + "".join(_help_row(a.title(), a.help) for a in plain)
        if commands and self.subparsers_title:
            out += f"\n{self.subparsers_title}:\n" + commands
        for g in self.groups:
            out += f"\n{g.title}:\n"
            if g.description:
                out += "  " + wrap(g.description, 2, "", "  ") + "\n\n"
            out += "".join(_help_row(a.title(), a.help) for a in g.args)
        return out

    # -- parsing ----------------------------------------------------------------------------
    def parse(self, words: list[str]) -> dict[str, object]:
        """The namespace (dest -> value, ``command``: the subcommand's name), or ArgparseError,
        HelpRequested, VersionRequested."""
        values: dict[str, object] = {}
        state: dict = {"i": 0, "deferred": None, "separated": False}
        self._parse(words, state, values)
        if state["deferred"] is not None:
            raise state["deferred"]
        return values

    def _parse(self, words: list[str], state: dict, values: dict) -> None:
        for a in self.args:
            if a.takes_value:
                values.setdefault(a.dest, a.default)
            elif a.action == "store_true":
                values.setdefault(a.dest, False)
        used: set[str] = set()
        while state["i"] < len(words):
            word = words[state["i"]]
            if word == "--" and not state["separated"]:
                state["separated"] = True
                state["i"] += 1
            elif not state["separated"] and _is_flag(word):
                flag, eq, embedded = word.partition("=")
                arg = self._resolve(flag)
                if arg is None:
                    raise ArgparseError(self, f"unrecognized arguments: '{printable(word)}'")
                state["i"] += 1
                self._check_exclusive(arg, used)
                used.add(arg.dest)
                if arg.action == "help":
                    raise HelpRequested(self)
                if arg.action == "version":
                    raise VersionRequested()
                if arg.action == "store_true":
                    if eq:
                        raise ArgparseError(self, f"argument {arg.textual_name}: ignore implicit argument "
                                                  f"'{printable(embedded)}'")
                    values[arg.dest] = True
                    continue
                if eq:
                    value = embedded
                elif state["i"] < len(words) and not _is_flag(words[state["i"]]):
                    value = words[state["i"]]
                    state["i"] += 1
                else:
                    raise ArgparseError(self, f"argument {arg.textual_name}: expected one argument")
                converted = self._convert(arg, value)
                values[arg.dest] = [*(values.get(arg.dest) or []), converted] if arg.action == "append" else converted
            elif self.subparsers:
                self._check_required(state, used)
                sub = self._resolve_command(word)
                state["i"] += 1
                sub._parse(words, state, values)
                values["command"] = sub.command
                return
            else:
                raise ArgparseError(self, f"unrecognized arguments: '{printable(' '.join(words[state['i']:]))}'")
        if self.subparsers:
            raise ArgparseError(self, "too few arguments")
        self._check_required(state, used)

    def _check_required(self, state: dict, used: set[str]) -> None:
        if state["deferred"] is not None:
            return
        for a in self.args:
            if a.required and a.dest not in used:
                state["deferred"] = ArgparseError(self, f"argument {a.textual_name} is required")
        for g in self.exclusives:
            if state["deferred"] is None and g.required and not any(a.dest in used for a in g.args):
                names = " ".join(a.textual_name for a in g.args)
                state["deferred"] = ArgparseError(self, f"one of the arguments {names} is required")

    def _check_exclusive(self, arg: Arg, used: set[str]) -> None:
        for g in self.exclusives:
            if any(a is arg for a in g.args):
                other = next((a for a in g.args if a.dest in used and a is not arg), None)
                if other is not None:
                    raise ArgparseError(self, f"argument {arg.textual_name}: not allowed with argument "
                                              f"{other.textual_name}")

    def _resolve(self, flag: str) -> Arg | None:
        table = {f: a for a in self.args for f in a.flags}
        if flag in table:
            return table[flag]
        found = sorted(f for f in table if f.startswith(flag))
        if len(found) == 1:
            return table[found[0]]
        if found:
            raise ArgparseError(self, f"ambiguous option: {printable(flag)} could match {', '.join(found)}")
        return None

    def _resolve_command(self, word: str) -> "Parser":
        names = [p.command or "" for p in self.subparsers]
        exact = [p for p in self.subparsers if p.command == word]
        if exact:
            return exact[0]
        found = sorted(n for n in names if word and n.startswith(word))
        if len(found) == 1:
            return next(p for p in self.subparsers if p.command == found[0])
        if found:
            raise ArgparseError(self, f"ambiguous command: {printable(word)} could match {', '.join(found)}")
        choices = ", ".join(f"'{n}'" for n in names)
        raise ArgparseError(self, f"invalid choice: '{printable(word)}' (choose from {choices})")

    def _convert(self, arg: Arg, value: str):
        if arg.type == "String":
            return value
        number = java_number(value, arg.type)
        if isinstance(number, str):
            raise ArgparseError(self, f"argument {arg.textual_name}: could not convert '{printable(value)}' to "
                                      f"{arg.type} ({printable(number)})")
        return number


BOUNDS = {"Short": 16, "Integer": 32, "Long": 64}


def java_number(value: str, java_type: str) -> int | str:
    """``value`` as Java's Short/Integer/Long.valueOf reads it, or the NumberFormatException's
    message."""
    text = value[1:] if value[:1] in "+-" else value
    if not (text and text.isascii() and text.isdigit()):
        return f'For input string: "{value}"'
    bits = BOUNDS[java_type]
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if len(text) > 25 or not low <= int(value) <= high:
        if java_type == "Short" and len(text) <= 10 and -(1 << 31) <= int(value) < (1 << 31):
            return f'Value out of range. Value:"{value}" Radix:10'
        return f'For input string: "{value}"'
    return int(value)


def _is_flag(word: str) -> bool:
    if not word.startswith("-") or word == "-":
        return False
    body = word[1:]
    return not (body.replace(".", "", 1).isdigit())          # a negative number is a value


# -- text -------------------------------------------------------------------------------------

def _segments(text: str) -> list[str]:
    """Java's line BreakIterator's pieces of ``text``: each line's words, its line break kept on
    the last one."""
    pieces: list[str] = []
    lines = text.split("\n")
    for k, line in enumerate(lines):
        words = line_words(line) if line else []
        last = k == len(lines) - 1
        if not last:
            if words:
                words[-1] += "\n"
            else:
                words = ["\n"]
        pieces += words
    return pieces


def wrap(text: str, offset: int, first_indent: str, indent: str) -> str:
    """argparse4j's TextHelper.wrap: words added while they fit in WIDTH, each full line justified
    (its spaces widened, the extra ones to the middle blocks: ``_justify``)."""
    out, line = first_indent, ""
    width = offset + len(first_indent)
    for piece in _segments(text):
        width += len(piece)
        if width > WIDTH:
            out += _justify(line, width - len(piece)) + "\n" + indent
            line, width = "", len(indent) + len(piece)
        line += piece
        if piece.endswith("\n"):
            out += line + indent
            line, width = "", len(indent)
    return out + line


def _justify(line: str, width_used: int) -> str:
    stripped = line.strip(" ")
    width_used -= len(line) - len(stripped)
    blocks = []                                   # (start, end) of each run of spaces
    i = 0
    while i < len(stripped):
        if stripped[i] == " ":
            j = i
            while j < len(stripped) and stripped[j] == " ":
                j += 1
            blocks.append((i, j))
            i = j
        else:
            i += 1
    if not blocks:
        return stripped
    need = WIDTH - width_used
    each, rem = divmod(need, len(blocks))
    rem_start = (len(blocks) - rem + 1) // 2
    out, last = "", 0
    for b, (start, end) in enumerate(blocks):
        add = each + (1 if rem_start <= b < rem_start + rem else 0)
        out += stripped[last:start] + " " * add + stripped[start:end]
        last = end
    return out + stripped[last:]


def _help_row(title: str, help: str) -> str:
    """TextHelper.printHelp: the title indented by two, the help from column INDENT (on the next
    line when the title is longer than 21)."""
    row = "  " + title
    if not help:
        return row + "\n"
    if len(title) <= 21:
        row += " " * (INDENT - len(title) - 2)
    else:
        row += "\n" + " " * INDENT
    return row + wrap(help, INDENT, "", " " * INDENT) + "\n"

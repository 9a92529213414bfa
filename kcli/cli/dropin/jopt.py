"""The command-line grammar of Apache's Java tools, pure: jopt-simple as Kafka configures it
(``OptionParser(false)``: long options only, no abbreviations), so a drop-in command accepts and
refuses exactly what the Java tool does, with jopt's messages, and prints jopt's help table.

Parsing: ``--name value``, ``--name=value`` and ``-name`` (jopt reads a single-dash word as the
long option of that name); ``--`` ends the options; other words are non-option arguments, which
the tools ignore. An option taking a required argument takes the next word whatever it looks
like; an optional argument only a word that does not look like an option; a flag given
``=value`` ignores the value, as jopt does. Values are converted when read (``Parsed.value``),
as jopt converts them lazily: ``Cannot parse argument 'x' of option partitions``.

Help (``help_text``): jopt's BuiltinHelpFormatter (80 columns, 2 between them): options sorted
by name, ``--name <Type: description>`` (``[...]`` for an optional argument), the description
with ``(default: v)``, both columns wrapped at the break opportunities of Java's line
BreakIterator for the ASCII text the tools use (``_breaks``).
"""

from __future__ import annotations

from kcli.inputs import parse_int, printable
from kcli.datatypes import field, datatype

FLAG, REQUIRED, OPTIONAL = "flag", "required", "optional"


class JoptError(Exception):
    """A parse or conversion error, with jopt's message (the Java tools print it as it is)."""


@datatype(frozen=True)
class Opt:
    name: str
    help: str
    arg: str = FLAG                   # FLAG, REQUIRED or OPTIONAL
    type: str = "String"              # the Java type shown in help and used to convert
    describe: str = ""                # jopt's describedAs
    default: str | None = None
    separator: str | None = None      # withValuesSeparatedBy
    available_if: tuple[str, ...] = ()

    def __str__(self) -> str:         # how jopt names a spec in messages: [name]
        return f"[{self.name}]"


@datatype
class Parsed:
    """What jopt's OptionSet answers: which options were given, their values in order."""
    specs: dict[str, Opt]
    given: dict[str, list[str | None]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)        # option names in order of appearance
    non_options: list[str] = field(default_factory=list)

    def has(self, name: str) -> bool:
        return name in self.given

    def values(self, name: str) -> list:
        """Every value given (converted), or [default] when none was given."""
        raw = [v for v in self.given.get(name, []) if v is not None]
        spec = self.specs[name]
        if not raw and spec.default is not None and name not in self.given:
            raw = [spec.default]
        return [convert(spec, v) for v in raw]

    def value(self, name: str):
        """The one value (or the default, or None): jopt's valueOf, which refuses several."""
        values = self.values(name)
        if len(values) > 1:
            raise JoptError(f"Found multiple arguments for option {name}, but you asked for only one")
        return values[0] if values else None

    def raw(self, name: str) -> str | None:
        """An optional argument as given (None: the option came without one)."""
        values = self.texts(name)
        return values[0] if values else None

    def texts(self, name: str) -> list[str]:
        """Every argument given, as typed (an optional argument's absence left out)."""
        return [v for v in self.given.get(name, []) if v is not None]


INT_BOUNDS = {"Integer": (-(1 << 31), (1 << 31) - 1), "Long": (-(1 << 63), (1 << 63) - 1)}


def java_integer(value: str, java_type: str) -> int | None:
    """``value`` as Java's Integer.valueOf or Long.valueOf (``java_type``) reads it: an optional
    sign and ASCII digits, within range (any number of digits: never Python's int() on 4,301 of
    them); None otherwise."""
    text = value[1:] if value[:1] in "+-" else value
    if not (text and text.isascii() and text.isdigit()):
        return None
    try:
        return parse_int(value, *INT_BOUNDS[java_type])
    except ValueError:
        return None


def convert(spec: Opt, value: str):
    """jopt's conversion: Integer and Long as Java's valueOf reads them (``java_integer``),
    anything else as the string."""
    if spec.type not in INT_BOUNDS:
        return value
    number = java_integer(value, spec.type)
    if number is None:
        raise JoptError(f"Cannot parse argument '{printable(value)}' of option {spec.name}")
    return number


def _looks_like_option(word: str) -> bool:
    if not word.startswith("-") or word == "-":
        return False
    try:
        float(word)                   # a negative number is an argument
        return False
    except ValueError:
        return True


def parse(specs: list[Opt], args: list[str]) -> Parsed:
    table = {s.name: s for s in specs}
    out = Parsed(table)
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            out.non_options += args[i:]
            break
        if not word.startswith("-") or word == "-":
            out.non_options.append(word)
            continue
        text = word[2:] if word.startswith("--") else word[1:]
        name, eq, inline = text.partition("=")
        spec = table.get(name)
        if spec is None:
            raise JoptError(f"{printable(name)} is not a recognized option")
        values: list[str | None]
        if spec.arg == FLAG:
            values = [None]
        elif eq:
            values = [inline]
        elif spec.arg == REQUIRED:
            if i >= len(args):
                raise JoptError(f"Option {name} requires an argument")
            values = [args[i]]
            i += 1
        elif i < len(args) and not _looks_like_option(args[i]):
            values = [args[i]]
            i += 1
        else:
            values = [None]
        if spec.separator is not None:      # a StringTokenizer: empty pieces are dropped
            values = [part for v in values
                      for part in ([v] if v is None or not v.strip(spec.separator) else
                                   [x for x in v.split(spec.separator) if x])]
        out.given.setdefault(name, []).extend(values)
        out.order.append(name)
    for name in out.order:
        spec = table[name]
        if spec.available_if and not any(out.has(other) for other in spec.available_if):
            raise JoptError(f"Option(s) [{name}] are unavailable given other options on the command line")
    return out


# -- help -------------------------------------------------------------------------------------

WIDTH, SEPARATOR, INDENT = 80, 2, 2


def _option_display(spec: Opt) -> str:
    text = f"--{spec.name}"
    if spec.arg == FLAG:
        return text
    inner = spec.type + (f": {spec.describe}" if spec.describe else "")
    return f"{text} <{inner}>" if spec.arg == REQUIRED else f"{text} [{inner}]"


def _description_display(spec: Opt) -> str:
    if spec.default is None:
        return spec.help
    return f"{spec.help} (default: {spec.default})" if spec.help else f"(default: {spec.default})"


# Java's line BreakIterator, for printable ASCII: after a run of spaces; after a tab; after a
# closing punctuation mark or a hyphen before the start of a word; never after an opening one;
# a number (digits with inner ``,`` or ``.``, or a sign: a hyphen after a space or a closing mark)
# stays whole, and a line may break after such a number before a symbol; never next to a
# quotation mark (``"``: UAX #14's QU).
_CLOSE = set('!"%),.:;?]}')
_NO_BREAK_AFTER = set("$'([{")
_WORD_START = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#&(*+-/<=>@[\\^_`{|~")
_OPEN = set("([{")


def _is_sign(text: str, j: int) -> bool:
    """The hyphen at ``j`` is a sign, not a dash."""
    return j == 0 or text[j - 1] in _CLOSE or text[j - 1] == " "


def _signed_digits_follow(text: str, i: int) -> bool:
    while i < len(text) and text[i] in _OPEN:
        i += 1
    return i < len(text) and text[i].isdigit()


def _decorated_number_before(text: str, i: int) -> bool:
    """text[:i] ends with a number that has a sign or an inner separator."""
    j, separated = i - 1, False
    while j >= 0 and (text[j].isdigit() or (text[j] in ",." and 0 < j < i - 1
                                               and text[j - 1].isdigit() and text[j + 1].isdigit())):
        separated |= not text[j].isdigit()
        j -= 1
    return separated or (j >= 0 and text[j] == "-" and _is_sign(text, j))


def _can_break(text: str, i: int) -> bool:
    """A line may break between text[i-1] and text[i]."""
    a, b = text[i - 1], text[i]
    if a == "\t":
        return True
    if a == " ":
        return b != " "
    if b in " \t" or a in _NO_BREAK_AFTER or '"' in (a, b):     # a quotation mark: no break either side
        return False
    if a == "-":
        if b in "$'- \t":
            return False
        return not (_is_sign(text, i - 1) and _signed_digits_follow(text, i))
    if a in _CLOSE:
        if a in ",." and b.isdigit() and i >= 2 and text[i - 2].isdigit():
            return False                          # 1,000 and 3.5 are one number
        return b in _WORD_START
    if a.isdigit() and b in _WORD_START and not b.isalnum() and _decorated_number_before(text, i):
        return True
    return b in _OPEN


def line_words(line: str) -> list[str]:
    """``line`` cut at the break opportunities of Java's line BreakIterator (``_can_break``)."""
    cuts = [0] + [i for i in range(1, len(line)) if _can_break(line, i)] + [len(line)]
    return [line[a:b] for a, b in zip(cuts, cuts[1:])]


def _pieces(raw: str, width: int) -> list[str]:
    """jopt's Columns.piecesOf: each embedded line, words added while they fit, a new piece
    indented by two spaces otherwise, trailing blanks of a finished piece dropped."""
    pieces: list[str] = []
    for line in raw.strip().split("\n"):
        piece = ""
        for word in line_words(line):
            if len(piece) + len(word) > width:
                pieces.append(piece.rstrip())
                piece = " " * INDENT + word
            else:
                piece += word
        if piece:
            pieces.append(piece)
    return pieces


def _render(rows: list[tuple[str, str]]) -> str:
    opt_w = min((WIDTH - SEPARATOR) // 2, max(len(o) for o, _ in rows))
    desc_w = min(WIDTH - opt_w - SEPARATOR, max(len(d) for _, d in rows))
    fitted: list[tuple[str, str]] = []
    for option, description in rows:
        opts, descs = _pieces(option, opt_w), _pieces(description, desc_w)
        for k in range(max(len(opts), len(descs))):
            fitted.append((opts[k] if k < len(opts) else "", descs[k] if k < len(descs) else ""))
    opt_w = min((WIDTH - SEPARATOR) // 2, max(len(o) for o, _ in fitted))
    desc_w = min(WIDTH - opt_w - SEPARATOR, max(len(d) for _, d in fitted))
    return "".join(o.ljust(opt_w) + " " * SEPARATOR + d.ljust(desc_w) + "\n" for o, d in fitted)


def help_text(specs: list[Opt]) -> str:
    """jopt's help table for ``specs`` (what ``parser.printHelpOn`` prints)."""
    rows = [("Option", "Description"), ("------", "-----------")]
    rows += [(_option_display(s), _description_display(s)) for s in sorted(specs, key=lambda s: s.name)]
    return _render(rows)

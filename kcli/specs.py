"""The grammars of kcli's arguments, pure (no Kafka, no I/O): topic filters (kafka-topics'
regex rule), ``topic[:p,p]`` specs, ``key=value`` config pairs, replica assignments, partition
counts and replication factors, ``--time`` values (kafka-get-offsets' names plus times), and the
group state and type lists. Each refuses bad input with a UsageError (exit 2) before any request.
The low-level rules (integers within their Kafka type, text files, quoting) are in
``kcli.inputs``; durations and datetimes in ``kcli.times``."""

from __future__ import annotations

import re
import warnings

from kcli.errors import UsageError
from kcli.inputs import INT16_MAX, INT32_MAX, INT64_MAX, parse_int, shown, topic_name_error
from kcli.datatypes import datatype
from kcli.times import TimeParseError, TimeRangeError, parse_datetime_ms, parse_duration_ms


def _topic_patterns(patterns: list[str]) -> list[str]:
    """kafka-topics' ``--topic`` patterns as its IncludeList reads them: trimmed, ``,`` means
    ``|``, spaces deleted, surrounding quotes stripped."""
    cleaned = []
    for raw in patterns:
        text = raw.strip().replace(",", "|").replace(" ", "").strip("\"'")
        if not text:        # an empty pattern is a mistake, never "every topic" (think delete)
            raise UsageError(f"Invalid topic '{shown(raw)}': a topic name or regex is required")
        cleaned.append(text)
    return cleaned


def topic_filter(patterns: list[str]) -> re.Pattern | None:
    """kafka-topics' ``--topic`` rule: the patterns (``_topic_patterns``) OR-ed, a regex that
    must match the whole name."""
    cleaned = _topic_patterns(patterns)
    return _compiled(cleaned) if cleaned else None


def topic_regex(pattern: str) -> re.Pattern:
    """``topic_filter`` of one pattern."""
    return _compiled(_topic_patterns([pattern]))


def _compiled(cleaned: list[str]) -> re.Pattern:
    regex = "|".join(f"(?:{c})" for c in cleaned)
    try:
        with warnings.catch_warnings():      # "Possible nested set": Python's, not the user's concern
            warnings.simplefilter("ignore")
            return re.compile(regex)
    except (re.error, RecursionError, OverflowError):   # too deeply nested, {n} too large
        raise UsageError(f"{shown('|'.join(cleaned), 200)} is an invalid regex.") from None


_LITERAL = re.compile(r"[A-Za-z0-9_-]+")       # no character a regex reads as anything but itself


def literal_topic(patterns: list[str]) -> str | None:
    """The one name ``topic_filter(patterns)`` can match when it is a single pattern of letters,
    digits, ``_`` and ``-`` only (the legal topic characters but ``.``, which a regex reads as
    any character): a topic's name given literally. None for a regex, several patterns, or none."""
    cleaned = _topic_patterns(patterns)
    if len(cleaned) == 1 and _LITERAL.fullmatch(cleaned[0]):
        return cleaned[0]
    return None


def check_topic_name(name: str) -> None:
    """Kafka's rule for a topic's name (a new one, or one given literally, never a regex), checked
    before any request (the broker's refusal came after five requests, or ten)."""
    if error := topic_name_error(name):
        raise UsageError(error)


def check_partition_count(count: int) -> None:
    """A partition count is an int32, as CreateTopics and CreatePartitions carry it."""
    if count < 1:
        raise UsageError("The partitions must be greater than 0")
    if count > INT32_MAX:
        raise UsageError(f"The partitions must be at most {INT32_MAX}")


def check_replication_factor(factor: int) -> None:
    """An int16, as CreateTopics carries it (kafka-topics' message)."""
    if not 1 <= factor <= INT16_MAX:
        raise UsageError("The replication factor must be between 1 and 32767 inclusive")


def parse_replica_assignment(text: str) -> list[list[int]]:
    """``5:4,3:2,1:0`` -> [[5, 4], [3, 2], [1, 0]] with kafka-topics' checks; broker ids are
    int32 node ids."""
    result: list[list[int]] = []
    for i, part in enumerate(text.split(",")):
        try:
            replicas = [parse_int(x, 0, INT32_MAX) for x in part.split(":")]
        except ValueError:
            raise UsageError(f"Invalid --replica-assignment '{shown(text)}': expected b1:b2,b3:b4,... "
                             "(broker ids)") from None
        seen: set[int] = set()
        for r in replicas:
            if r in seen:
                raise UsageError(f"Partition replica lists may not contain duplicate entries: {r}")
            seen.add(r)
        if result and len(replicas) != len(result[0]):
            raise UsageError(f"Partition {i} has different replication factor: {shown(str(replicas))}")
        result.append(replicas)
    return result


def parse_user(spec: str, where: str) -> tuple[str, str]:
    """A ``NAME:PASSWORD`` spec (the password may hold ':'); errors never show the password."""
    name, colon, password = spec.partition(":")
    if not colon or not name.strip() or not password:
        raise UsageError(f"Invalid {where}: expected NAME:PASSWORD (a name, ':', a password)")
    return name.strip(), password


def parse_users(specs: list[str], users_file: str | None = None) -> dict[str, str]:
    """{name: password} from ``--user`` specs and a users file (one ``NAME:PASSWORD`` a line;
    blank lines and ``#`` comments skipped); a --user overrides the file's line."""
    users: dict[str, str] = {}
    if users_file is not None:
        try:
            with open(users_file, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"Cannot read --users-file '{shown(users_file)}': "
                             f"{getattr(e, 'strerror', None) or e}") from None
        for n, line in enumerate(lines, 1):
            if line.strip() and not line.lstrip().startswith("#"):
                name, password = parse_user(line, f"line {n} of --users-file '{shown(users_file)}'")
                users[name] = password
    for spec in specs:
        name, password = parse_user(spec, f"--user '{shown(spec.partition(':')[0])}'")
        users[name] = password
    return users


def parse_config_pairs(pairs: list[str], what: str = "config") -> dict[str, str]:
    """``key=value`` pairs (spaces around ``=`` dropped); a key and a value are required, as
    kafka-topics requires them."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.strip().partition("=")
        key, value = key.rstrip(), value.lstrip()
        if not eq or not key or not value:
            raise UsageError(f'Invalid topic {what}: all configs must be in the format "key=val": '
                             f"{shown(pair)}")
        out[key] = value
    return out


# kafka-get-offsets' names, the tiered-storage ones included (ListOffsets v8, v9, v11).
NAMED_TIMES = {"latest": -1, "-1": -1, "earliest": -2, "-2": -2, "max-timestamp": -3, "-3": -3,
               "earliest-local": -4, "-4": -4, "latest-tiered": -5, "-5": -5,
               "earliest-pending-upload": -6, "-6": -6}


def datetime_arg(flag: str, text: str, also: str = "") -> int:
    """A datetime flag's value as epoch milliseconds (``kcli.times``). Every datetime flag words a
    bad value the same way, ``<flag>: Invalid datetime '<value>': use ISO-8601 ... or epoch
    milliseconds``, then ``also``: the other forms that flag takes."""
    try:
        return parse_datetime_ms(text)
    except TimeRangeError as exc:         # read well, but no time Kafka has records at
        raise UsageError(f"{flag}: {exc}") from None
    except TimeParseError as exc:
        raise UsageError(f"{flag}: {exc}{'; ' + also if also else ''}") from None


def duration_arg(flag: str, text: str) -> int:
    """A duration flag's value in milliseconds (``kcli.times``), a bad one worded as
    ``<flag>: Invalid duration '<value>': use ...`` by every duration flag."""
    try:
        return parse_duration_ms(text)
    except TimeParseError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def parse_time(text: str) -> int:
    """``--time``: a name (or -1/-2/-3) or a time from the epoch on, which never becomes one of
    the special values."""
    if text in NAMED_TIMES:
        return NAMED_TIMES[text]
    return datetime_arg("--time", text, "or earliest, latest, max-timestamp, earliest-local, latest-tiered, "
                        "earliest-pending-upload (-2, -1, -3, -4, -5, -6)")


def parse_topic_spec(spec: str, regex: bool = False) -> tuple[str, list[int] | None]:
    """``orders`` -> ("orders", None); ``orders:0,2`` -> ("orders", [0, 2]). Partitions are
    int32 ids, as in Kafka's protocol. The topic is a name, checked by Kafka's rule
    (``check_topic_name``) before any request, unless ``regex`` (list-offsets' -t)."""
    topic, colon, parts = spec.strip().partition(":")
    if not topic or (colon and not parts) or ":" in parts:
        raise UsageError(f"Invalid topic arg '{shown(spec)}', expected topic name and partitions")
    if not regex:
        check_topic_name(topic)
    if not colon:
        return topic, None
    try:
        return topic, sorted({parse_int(p, 0, INT32_MAX) for p in parts.split(",")})
    except ValueError:
        raise UsageError(f"Invalid partition specified in topic arg '{shown(spec)}'") from None


def parse_records_spec(spec: str) -> tuple[str, int, int]:
    """delete-records' ``-t TOPIC:PARTITION=OFFSET``: the records below OFFSET go (-1: up to the
    high watermark, as Kafka's DeleteRecords takes it)."""
    head, eq, offset = spec.strip().rpartition("=")
    topic, colon, partition = head.rpartition(":")
    if not eq or not colon or not topic:
        raise UsageError(f"Invalid records spec '{shown(spec)}': expected TOPIC:PARTITION=OFFSET")
    check_topic_name(topic)
    try:
        p = parse_int(partition, 0, INT32_MAX)
    except ValueError as exc:
        raise UsageError(f"Invalid partition in '{shown(spec)}': {exc}") from None
    try:
        return topic, p, parse_int(offset, -1, INT64_MAX)
    except ValueError as exc:
        raise UsageError(f"Invalid offset in '{shown(spec)}': {exc} (-1: the high watermark)") from None


def records_offsets(entries: list[tuple[str, int, int]]) -> dict[tuple[str, int], int]:
    """delete-records' (topic, partition, offset) entries by partition; a partition given twice
    is refused (kafka-delete-records refuses duplicates too)."""
    offsets: dict[tuple[str, int], int] = {}
    for topic, partition, offset in entries:
        if (topic, partition) in offsets:
            raise UsageError(f"{shown(topic)}:{partition} is given twice")
        offsets[(topic, partition)] = offset
    return offsets


def parse_records_json(text: str, what: str) -> dict[tuple[str, int], int]:
    """kafka-delete-records' --offset-json-file (kcli delete-records --from-file): ``{"partitions":
    [{"topic": T, "partition": P, "offset": O}, ...], "version": 1}``; ``what`` names the file."""
    import json

    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{what} is not JSON: {exc}") from None
    except RecursionError:              # arrays or objects nested thousands deep
        raise UsageError(f"{what} is nested too deep to be an offset file") from None
    parts = doc.get("partitions") if isinstance(doc, dict) else None
    if not isinstance(parts, list):
        raise UsageError(f'{what}: expected {{"partitions": [{{"topic": ..., "partition": ..., "offset": ...}}]}}')
    entries = []
    for i, p in enumerate(parts):
        ok = (isinstance(p, dict) and isinstance(p.get("topic"), str) and p["topic"] != ""
              and all(type(p.get(k)) is int for k in ("partition", "offset"))
              and 0 <= p["partition"] <= INT32_MAX and -1 <= p["offset"] <= INT64_MAX)
        if not ok:
            raise UsageError(f"{what}: partitions[{i}] needs a topic, a partition (0 or more) and an offset "
                             "(-1: the high watermark)")
        check_topic_name(p["topic"])
        entries.append((p["topic"], p["partition"], p["offset"]))
    return records_offsets(entries)


TYPES = ("Classic", "Consumer")
# kcli list groups --type also takes streams and share groups (kafka-consumer-groups lists neither).
NATIVE_TYPES = (*TYPES, "Streams", "Share")


def _parse_list(text: str, valid: tuple[str, ...], what: str, plural: str) -> set[str]:
    """Comma-separated, trimmed, case-insensitive; trailing empty items dropped, blank ones invalid
    (kafka-consumer-groups' --state / --type parsing)."""
    items = text.split(",")
    while items and items[-1] == "":
        items.pop()
    by_lower = {v.lower(): v for v in valid}
    chosen = set()
    for item in items:
        v = by_lower.get(item.strip().lower())
        if v is None:
            raise UsageError(f"Invalid {what} list '{text}'. Valid {plural} are: {', '.join(valid)}")
        chosen.add(v)
    if not chosen:
        raise UsageError(f"Invalid {what} list '{text}'. Valid {plural} are: {', '.join(valid)}")
    return chosen


def parse_states(text: str) -> set[str]:
    from kcli.model import GROUP_STATES      # here: --help, which loads this module, needs no model

    return _parse_list(text, GROUP_STATES, "state", "states")


def parse_types(text: str, native: bool = False) -> set[str]:
    return _parse_list(text, NATIVE_TYPES if native else TYPES, "types", "types")


# -- kafka-get-offsets' partition selectors -----------------------------------------------------

@datatype(frozen=True)
class PartitionRule:
    """Selects (topic, partition) pairs: a topic regex (kafka-topics' rule, ``topic_filter``) and
    partitions ``low <= p < high`` (high None: no bound), or exactly ``only``."""
    topic: re.Pattern
    low: int = 0
    high: int | None = None
    only: frozenset[int] | None = None

    def allows_topic(self, name: str) -> bool:
        return self.topic.fullmatch(name) is not None

    def allows(self, name: str, partition: int) -> bool:
        if not self.allows_topic(name):
            return False
        if self.only is not None:
            return partition in self.only
        return partition >= self.low and (self.high is None or partition < self.high)


_RULE = re.compile(r"([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?")


def _java_split(text: str, sep: str) -> list[str]:
    """String.split: trailing empty strings dropped (an empty text stays one empty item)."""
    items = text.split(sep)
    while len(items) > 1 and items[-1] == "":
        items.pop()
    return items


class InvalidRule(UsageError):
    """A --topic-partitions rule that does not parse (kafka-get-offsets throws a TerseException)."""


def _partition_number(digits: str, rule: str) -> int:
    try:
        return parse_int(digits, 0, INT32_MAX)
    except ValueError:
        raise InvalidRule(f"Invalid rule specification: {shown(rule)}") from None


def parse_topic_partitions(text: str) -> list[PartitionRule]:
    """kafka-get-offsets' ``--topic-partitions``: comma-separated rules ``REGEX[:N | :A-B | :A- |
    :-B]`` (B exclusive); an empty regex is every topic; rules are OR-ed."""
    rules = []
    for item in _java_split(text, ","):
        m = _RULE.fullmatch(item)
        if not m:
            raise InvalidRule(f"Invalid rule specification: {shown(item)}")
        topic = topic_regex(m.group(1)) if m.group(1) else re.compile(".*")
        if m.group(2):
            rules.append(PartitionRule(topic, only=frozenset({_partition_number(m.group(2), item)})))
        else:
            low = _partition_number(m.group(3), item) if m.group(3) else 0
            high = _partition_number(m.group(4), item) if m.group(4) else None
            rules.append(PartitionRule(topic, low, high))
    return rules


def parse_partition_list(text: str | None) -> frozenset[int] | None:
    """kafka-get-offsets' ``--partitions 0,1,2`` (None or empty: every partition)."""
    if not text:
        return None
    try:
        return frozenset(parse_int(p, 0, INT32_MAX) for p in _java_split(text, ","))
    except ValueError:
        raise UsageError("--partitions expects a comma separated list of numeric partition ids, but "
                         f"received: {shown(text)}") from None


_REGEX_SYNTAX = frozenset("\\^$|?*+()[]{}")     # what makes a -t value a regex ("." is in names too)


def check_literal_topics(topic: str) -> None:
    """Each ``,``-separated piece of a ``-t`` value that has no regex syntax is a topic's name
    given literally: checked by Kafka's rule (``check_topic_name``) before any request, so
    ``-t 'a b'`` is refused rather than matched against nothing."""
    for piece in topic.split(","):
        piece = piece.strip().strip("\"'")
        if piece and not _REGEX_SYNTAX.intersection(piece):
            check_topic_name(piece)


def topic_spec_rule(spec: str, check_names: bool = False) -> PartitionRule:
    """kcli's ``-t REGEX[:P,P...]`` as a rule; ``check_names``: a literal name must be a legal
    one (``check_literal_topics``)."""
    topic, parts = parse_topic_spec(spec, regex=True)
    if check_names:
        check_literal_topics(topic)
    return PartitionRule(topic_regex(topic), only=None if parts is None else frozenset(parts))


def partition_rules(topics: list[str], partitions: str | None, topic_partitions: str | None,
                    check_names: bool = False) -> list[PartitionRule]:
    """The rules of a list-offsets command line: ``--topic-partitions``, or the topics
    (``REGEX[:P,P...]``, none: every topic) limited to ``--partitions``; never both, as
    kafka-get-offsets refuses. ``check_names`` (kcli's own command, not kafka-get-offsets, which
    matches such a regex against nothing): a topic given literally must have a legal name."""
    if topic_partitions is not None:
        if topics or partitions is not None:
            raise UsageError("--topic-partitions cannot be used with --topic or --partitions")
        return parse_topic_partitions(topic_partitions)
    wanted = parse_partition_list(partitions)
    rules = [topic_spec_rule(t, check_names) for t in topics] or [PartitionRule(re.compile(".*"))]
    if wanted is None:
        return rules if topics else []
    return [PartitionRule(r.topic, only=wanted if r.only is None else r.only & wanted) for r in rules]


# -- kafka-configs' --add-config / --delete-config (kcli's alter configs --set / --delete too) ---

_CONFIG_KEY = re.compile(r"[$a-zA-Z0-9._-]*")
_JAVA_TRIM = "".join(chr(c) for c in range(33))        # String.trim: every char up to U+0020
ADD_CONFIG_FORMAT = ('Invalid entity config: all configs to be added must be in the '
                     'format "key=val" or  "key=[val1,val2]" to group values which contain commas.')


def _split_outside_brackets(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` not inside square brackets (kafka-configs' rule: the next
    bracket after it, if any, opens one), in one pass from the right."""
    cuts, opening_next = [], True
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch == "[":
            opening_next = True
        elif ch == "]":
            opening_next = False
        elif ch == sep and opening_next:
            cuts.append(i)
    pieces, start = [], 0
    for cut in reversed(cuts):
        pieces.append(text[start:cut])
        start = cut + 1
    return pieces + [text[start:]]


def parse_add_config(text: str) -> dict[str, str]:
    """kafka-configs' ``--add-config 'k1=v1,k2=[a,b]'``: pairs split on the commas outside square
    brackets, each ``key=value`` (an empty value kept); the brackets are removed from the value
    and both are trimmed; a key is ``[$a-zA-Z0-9._-]*``. Linear in the text."""
    pairs = _split_outside_brackets(text, ",")
    while len(pairs) > 1 and pairs[-1] == "":          # String.split drops trailing empty pieces
        pairs.pop()
    split = [_split_outside_brackets(pair, "=") for pair in pairs]
    if not all(len(kv) == 2 for kv in split):
        raise UsageError(ADD_CONFIG_FORMAT)
    out = {key.strip(_JAVA_TRIM): value.replace("[", "").replace("]", "").strip(_JAVA_TRIM)
           for key, value in split}
    for key in out:
        if not _CONFIG_KEY.fullmatch(key):
            raise UsageError(f"Invalid character found for config key: {shown(key)}")
    return out


def parse_delete_config(values: list[str], flag: str = "--delete-config") -> list[str]:
    """kafka-configs' ``--delete-config k1,k2`` (repeatable): names split on commas, empty pieces
    dropped, each trimmed (kcli's ``alter configs --delete`` too)."""
    names = [piece.strip(_JAVA_TRIM) for value in values for piece in value.split(",") if piece]
    if not names or any(not n for n in names):
        raise UsageError(f"{flag} needs a config name")
    return names


# -- kafka-consumer-groups --validate-regex: RE2's verdict, with RE2's descriptions -------------

_RE2_DESCRIPTIONS = (          # Python's complaint -> RE2J's PatternSyntaxException description
    ("unterminated character set", "missing closing ]"),
    ("missing ), unterminated subpattern", "missing closing )"),
    ("unbalanced parenthesis", "unexpected )"),
    ("min repeat greater than max repeat", "invalid repeat count"),
    ("nothing to repeat", "missing argument to repetition operator"),
    ("multiple repeat", "invalid nested repetition operator"),
    ("bad escape (end of pattern)", "trailing backslash at end of expression"),
    ("bad escape", "invalid escape sequence"),
    ("bad character range", "invalid character class range"),
)
_PERL_ONLY = re.compile(r"\(\?(?:[=!]|<[=!])")        # lookaround: RE2 has none
_BACKREFERENCE = re.compile(r"(?<!\\)(?:\\\\)*\\[1-9]")


def re2_description_of_python_text(message: str) -> str:
    """The one place kcli reads a foreign library's error text here: Python's ``re.error`` has
    no error code, only its message (``exc.msg``), so RE2's words for the same problem are found
    by the message's first words (``_RE2_DESCRIPTIONS``); an unknown one is given as it is."""
    return next((re2 for py, re2 in _RE2_DESCRIPTIONS if message.startswith(py)), message)


def re2_error(regex: str) -> str | None:
    """None when RE2 (the syntax kafka-consumer-groups --validate-regex checks) accepts
    ``regex``, else RE2's description of the problem. Python's parser decides; what RE2 lacks
    (lookaround, backreferences) is refused as RE2 refuses it."""
    if _PERL_ONLY.search(regex):
        return "invalid or unsupported Perl syntax"
    if _BACKREFERENCE.search(regex):
        return "invalid escape sequence"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(regex)
    except re.error as exc:
        return re2_description_of_python_text(str(exc.msg))
    except (RecursionError, OverflowError):
        return "expression too large"
    return None


TOPIC_CONFIG_FORMAT = ('requirement failed: Invalid topic config: all configs to be added must be in the format '
                       '"key=val".')


def parse_topic_config_java(values: list[str]) -> dict[str, str]:
    """kafka-topics' own ``--config`` rule (the drop-in command): each value split at every ``=``
    with the spaces around it (``\\s*=\\s*``, trailing empty pieces dropped) must give exactly a
    key and a value, both then trimmed. Linear in the text."""
    out = {}
    for value in values:
        pieces = value.split("=")
        pieces = [p if i == 0 else p.lstrip(" \t\n\x0b\f\r") for i, p in enumerate(pieces)]
        pieces = [p if i == len(pieces) - 1 else p.rstrip(" \t\n\x0b\f\r") for i, p in enumerate(pieces)]
        while len(pieces) > 1 and pieces[-1] == "":
            pieces.pop()
        if len(pieces) != 2:
            raise UsageError(TOPIC_CONFIG_FORMAT)
        out[pieces[0].strip(_JAVA_TRIM)] = pieces[1].strip(_JAVA_TRIM)
    return out

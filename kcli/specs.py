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
from kcli.inputs import INT16_MAX, INT32_MAX, parse_int, shown, topic_name_error
from kcli.times import TimeParseError, TimeRangeError, parse_datetime_ms, parse_duration_ms


def topic_filter(patterns: list[str]) -> re.Pattern | None:
    """kafka-topics' ``--topic`` rule: trimmed, ``,`` means ``|``, spaces deleted, surrounding
    quotes stripped, and the regex must match the whole name. Several patterns are OR-ed."""
    cleaned = []
    for raw in patterns:
        text = raw.strip().replace(",", "|").replace(" ", "").strip("\"'")
        if not text:        # an empty pattern is a mistake, never "every topic" (think delete)
            raise UsageError(f"Invalid topic '{shown(raw)}': a topic name or regex is required")
        cleaned.append(text)
    if not cleaned:
        return None
    regex = "|".join(f"(?:{c})" for c in cleaned)
    try:
        with warnings.catch_warnings():      # "Possible nested set": Python's, not the user's concern
            warnings.simplefilter("ignore")
            return re.compile(regex)
    except (re.error, RecursionError, OverflowError):   # too deeply nested, {n} too large
        raise UsageError(f"{shown('|'.join(cleaned), 200)} is an invalid regex.") from None


def check_topic_name(name: str) -> None:
    """Kafka's rule for a new topic's name, checked before the request (the broker's refusal came
    after five requests)."""
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
        dup = next((r for r in replicas if r in seen or seen.add(r)), None)
        if dup is not None:
            raise UsageError(f"Partition replica lists may not contain duplicate entries: {dup}")
        if result and len(replicas) != len(result[0]):
            raise UsageError(f"Partition {i} has different replication factor: {shown(str(replicas))}")
        result.append(replicas)
    return result


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


NAMED_TIMES = {"latest": -1, "-1": -1, "earliest": -2, "-2": -2, "max-timestamp": -3, "-3": -3}


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
    return datetime_arg("--time", text, "or earliest, latest, max-timestamp (-2, -1, -3)")


def parse_topic_spec(spec: str) -> tuple[str, list[int] | None]:
    """``orders`` -> ("orders", None); ``orders:0,2`` -> ("orders", [0, 2]). Partitions are
    int32 ids, as in Kafka's protocol."""
    topic, colon, parts = spec.strip().partition(":")
    if not topic or (colon and not parts) or ":" in parts:
        raise UsageError(f"Invalid topic arg '{shown(spec)}', expected topic name and partitions")
    if not colon:
        return topic, None
    try:
        return topic, sorted({parse_int(p, 0, INT32_MAX) for p in parts.split(",")})
    except ValueError:
        raise UsageError(f"Invalid partition specified in topic arg '{shown(spec)}'") from None


STATES = ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling")


TYPES = ("Classic", "Consumer")


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
    return _parse_list(text, STATES, "state", "states")


def parse_types(text: str) -> set[str]:
    return _parse_list(text, TYPES, "types", "types")

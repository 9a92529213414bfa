"""Fuzzing every parser of user input with hypothesis, called directly: for each, KCLI_FUZZ_EXAMPLES
inputs (3,000 by default, as CI runs them), mixing random text (or bytes, for files), long
repetitions of grammar fragments (a quadratic parser shows there), and a tenth as many well-formed
values built from known parts (tests/support/fuzz.py).

Every input must end in one of two ways:
- read: the value meets its type's invariants, and a value built from known parts reads back as
  those parts (the expected result comes from the parts, not from the parser);
- refused: the parser's usage error (exit 2 in the CLI, tests/cli/test_fuzz_cli.py checks that
  wiring), with a message of one line; never another exception.

No input is timed: a loaded machine stretches any clock (a cyclic garbage collection of hypothesis'
objects, charged to whichever call set it off, took 0.5 s of CPU in one datetime parse). That
every parser reads in linear time is proved by counting its work (tests/support/work.py) on each
grammar fragment repeated n and 8n times: test_parsers_do_linear_work below."""

from __future__ import annotations

import re

import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcli.specs import NAMED_TIMES, parse_time, parse_topic_spec
from kcli.admin.settings import parse_jaas, parse_properties
from kcli.specs import parse_config_pairs, parse_records_json, parse_records_spec, parse_replica_assignment
from kcli.errors import UsageError
from kcli.inputs import INT32_MAX, INT64_MAX, INT64_MIN, decode_utf8
from kcli.model import GroupPlan, PartitionPlan
from kcli.offsets.csvfile import export_csv, parse_csv
from kcli.profiles import Profile, load_profile
from kcli.times import TimeParseError, parse_datetime_ms, parse_duration_ms
from tests.support.fuzz import BUILT, FUZZ, Stats, file_bytes, text_with
from tests.support.work import work

STATS = Stats()


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    STATS.write()


def attempt(parser: str, call, *refusals: type[Exception]):
    """``call()``'s value, or None when it refused the input with one of ``refusals`` (a
    usage error of one line); records the outcome and its time for the report (not a bound)."""
    start = time.thread_time()
    try:
        value, code = call(), 0
    except (UsageError, *refusals) as exc:
        message = exc.message if isinstance(exc, UsageError) else str(exc)
        assert message and "\n" not in message and "\r" not in message, message
        assert len(message) < 800, message
        value, code = None, 2
    elapsed = time.thread_time() - start
    STATS.record(parser, code, elapsed)
    return value


# -- durations ----------------------------------------------------------------------------------
DURATION_PIECES = ["P", "T", "D", "H", "M", "S", "ms", "s", "m", "h", "d", "-", "+", ".", ",",
                   "0", "1", "9", "12", "00", " ", "\t", "PT", "9" * 19, "\u0663"]
UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "": 1}


@FUZZ
@given(text_with(DURATION_PIECES))
def test_durations(text):
    ms = attempt("durations", lambda: parse_duration_ms(text), TimeParseError)
    assert ms is None or (type(ms) is int and INT64_MIN <= ms <= INT64_MAX)


@BUILT
@given(st.integers(0, 10**15), st.sampled_from(sorted(UNITS_MS)), st.sampled_from(["", " "]))
def test_short_durations_read_as_built(n, unit, space):
    expected = n * UNITS_MS[unit]
    assert attempt("durations", lambda: parse_duration_ms(f"{n}{space if unit else ''}{unit}"),
                   TimeParseError) == (expected if expected <= INT64_MAX else None)


@BUILT
@given(st.lists(st.integers(-10**6, 10**6), min_size=4, max_size=4), st.integers(0, 999),
       st.booleans())
def test_iso_durations_read_as_built(parts, millis, negate):
    days, hours, minutes, seconds = parts
    text = f"{'-' if negate else ''}P{days}DT{hours}H{minutes}M{seconds}.{millis:03d}S"
    expected_ns = ((((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000
                   + (millis if seconds >= 0 else -millis)) * (-1 if negate else 1)
    assert attempt("durations", lambda: parse_duration_ms(text)) == expected_ns


# -- datetimes and --time -----------------------------------------------------------------------
DATETIME_PIECES = ["2025", "1969", "0001", "9999", "-", ":", "T", "Z", "+", "01", "12", "31", "59",
                   "60", ".", "000", "+08:00", "-0130", " ", "2025-01-15", "T10:30:00", "1736937000000",
                   "9" * 20]
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
ZONES = st.sampled_from([None, timezone.utc, timezone(timedelta(hours=8)), timezone(timedelta(hours=-13, minutes=-30))])


@FUZZ
@given(text_with(DATETIME_PIECES))
def test_datetimes(text):
    ms = attempt("datetimes", lambda: parse_datetime_ms(text), TimeParseError)
    assert ms is None or (type(ms) is int and 0 <= ms <= INT64_MAX)


@BUILT
@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)), ZONES)
def test_datetimes_read_as_built(moment, zone):
    moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000, tzinfo=zone)
    expected = (moment.replace(tzinfo=zone or timezone.utc) - EPOCH) // timedelta(milliseconds=1)
    ms = attempt("datetimes", lambda: parse_datetime_ms(moment.isoformat()), TimeParseError)
    assert ms == (expected if expected >= 0 else None)         # before the epoch: refused


@FUZZ
@given(st.one_of(text_with(DATETIME_PIECES + sorted(NAMED_TIMES) + ["-4", "-0"]),
                 st.integers(-5, 10**15).map(str)))
def test_time_arguments_never_become_a_special_timestamp_by_accident(text):
    ms = attempt("--time", lambda: parse_time(text))
    if text in NAMED_TIMES:
        assert ms == NAMED_TIMES[text]
    else:
        assert ms is None or 0 <= ms <= INT64_MAX


# -- delete-records' specs and offset files -----------------------------------------------------
RECORDS_PIECES = ["t", "orders", ":", "=", ",", "0", "1", "-1", "-2", " ", "2147483648", "9" * 19, "9" * 30]
RECORDS_JSON_PIECES = ['{"partitions": [', '{"topic": "t", "partition": 0, "offset": 1}', ", ", "]", "}",
                       '"version": 1', '"partition": -1', '"offset": -1', "1e3", "true", "null", '"', "[", "{"]


@FUZZ
@given(text_with(RECORDS_PIECES))
def test_records_specs(text):
    spec = attempt("records specs", lambda: parse_records_spec(text))
    if spec is not None:
        topic, partition, offset = spec
        assert re.fullmatch(r"[a-zA-Z0-9._-]{1,249}", topic)
        assert 0 <= partition <= INT32_MAX and -1 <= offset <= INT64_MAX


@BUILT
@given(st.from_regex(r"[a-zA-Z0-9._-]{1,40}", fullmatch=True).filter(lambda t: t not in (".", "..")),
       st.integers(0, INT32_MAX), st.integers(-1, INT64_MAX))
def test_records_specs_read_as_built(topic, partition, offset):
    assert attempt("records specs", lambda: parse_records_spec(f"{topic}:{partition}={offset}")) == (
        topic, partition, offset)


@FUZZ
@given(text_with(RECORDS_JSON_PIECES))
def test_records_offset_files(text):
    offsets = attempt("records offset files", lambda: parse_records_json(text, "f"))
    if offsets is not None:
        assert all(0 <= p <= INT32_MAX and -1 <= o <= INT64_MAX for (_, p), o in offsets.items())


@BUILT
@given(st.dictionaries(st.tuples(st.sampled_from(["t", "orders", "a.b-c_d"]), st.integers(0, INT32_MAX)),
                       st.integers(-1, INT64_MAX), max_size=20))
def test_records_offset_files_read_as_built(offsets):
    import json

    text = json.dumps({"partitions": [{"topic": t, "partition": p, "offset": o} for (t, p), o in offsets.items()],
                       "version": 1})
    assert attempt("records offset files", lambda: parse_records_json(text, "f")) == offsets


# -- topic specs, config pairs, replica assignments ---------------------------------------------
NO_SPACE = ["Zs", "Zl", "Zp", "Cc", "Cs"]          # nothing str.strip() would take off
TOPIC_SPEC_PIECES = ["t", "orders", ":", ",", "0", "1", "-1", " ", "2147483648", "99999999999", "9" * 30]


@FUZZ
@given(text_with(TOPIC_SPEC_PIECES))
def test_topic_specs(text):
    spec = attempt("topic specs", lambda: parse_topic_spec(text))
    if spec is not None:
        topic, parts = spec
        assert topic and not topic[0].isspace()
        assert parts is None or (parts == sorted(set(parts)) and all(0 <= p <= INT32_MAX for p in parts))


@BUILT
@given(st.text(st.characters(blacklist_characters=":", blacklist_categories=NO_SPACE), min_size=1),
       st.lists(st.integers(0, INT32_MAX), min_size=1, max_size=20))
def test_topic_specs_read_as_built(topic, parts):
    """A regex (list-offsets' -t) is any text; a name is read only when Kafka would take it."""
    spec = f"{topic}:{','.join(map(str, parts))}"
    assert attempt("topic specs", lambda: parse_topic_spec(spec, regex=True)) == (topic, sorted(set(parts)))
    legal = re.fullmatch(r"[a-zA-Z0-9._-]{1,249}", topic) and topic not in (".", "..")
    assert attempt("topic specs", lambda: parse_topic_spec(spec)) == ((topic, sorted(set(parts))) if legal else None)


CONFIG_PAIR_PIECES = ["k", "retention.ms", "=", " ", "\t", "v", "1", "==", "x=y"]


@FUZZ
@given(text_with(CONFIG_PAIR_PIECES))
def test_config_pairs(text):
    pairs = attempt("config pairs", lambda: parse_config_pairs([text]))
    if pairs is not None:
        (key, value), = pairs.items()
        assert key and value and "=" not in key


@BUILT
@given(st.text(st.characters(blacklist_characters="=", blacklist_categories=NO_SPACE), min_size=1),
       st.text(st.characters(blacklist_categories=NO_SPACE), min_size=1))
def test_config_pairs_read_as_built(key, value):
    assert attempt("config pairs", lambda: parse_config_pairs([f" {key} = {value} "])) == {key: value}


REPLICA_PIECES = ["1", "2", "0", ":", ",", " ", "-1", "2147483648", "1:1", "1:2,3:4"]


@FUZZ
@given(text_with(REPLICA_PIECES))
def test_replica_assignments(text):
    assignment = attempt("replica assignments", lambda: parse_replica_assignment(text))
    if assignment is not None:
        assert assignment and all(len(r) == len(assignment[0]) for r in assignment)
        assert all(len(set(r)) == len(r) and all(0 <= b <= INT32_MAX for b in r) for r in assignment)


@BUILT
@given(st.integers(1, 5).flatmap(lambda rf: st.lists(
    st.lists(st.integers(0, INT32_MAX), min_size=rf, max_size=rf, unique=True), min_size=1, max_size=10)))
def test_replica_assignments_read_as_built(assignment):
    text = ",".join(":".join(map(str, r)) for r in assignment)
    assert attempt("replica assignments", lambda: parse_replica_assignment(text)) == assignment


# -- files: reset CSV, properties, TOML profiles --------------------------------------------------
CSV_PIECES = ["g", "t", ",", "0", "1", "\n", "\r\n", '"', '""', " ", "-1", "2147483648", "9" * 20]


@FUZZ
@given(file_bytes(CSV_PIECES),
       st.sampled_from([["g"], ["g", "h"], []]))
def test_csv_plans(data, groups):
    plan = attempt("CSV plans", lambda: parse_csv(decode_utf8(data, "--from-file 'f'"), groups))
    if plan is not None:
        assert not groups or set(plan) <= set(groups)
        for offsets in plan.values():
            # -1: no committed offset (a rollback file's row, restored by deleting the offset)
            assert all(t and 0 <= p <= INT32_MAX and -1 <= o <= INT64_MAX for (t, p), o in offsets.items())


GROUP = st.text(st.sampled_from("abz09._- ,\"#'"), min_size=1, max_size=30)
TOPIC = st.text(st.sampled_from("abzAZ09._-"), min_size=1, max_size=249).filter(lambda t: t not in (".", ".."))


@BUILT
@given(st.lists(st.tuples(GROUP, TOPIC, st.integers(0, INT32_MAX), st.integers(0, INT64_MAX)),
                min_size=1, max_size=10, unique_by=lambda r: (r[0], r[1], r[2])))
def test_csv_plans_read_back_as_exported(rows):
    plans = {}
    for group, topic, partition, offset in rows:
        plans.setdefault(group, GroupPlan(group)).partitions.append(
            PartitionPlan(group, topic, partition, None, offset, 0, 0))
    text = export_csv(list(plans.values()), with_group=True)
    expected = {g: {(t, p): o for gg, t, p, o in rows if gg == g} for g in plans}
    assert attempt("CSV plans", lambda: parse_csv(text, sorted(plans))) == expected


PROPERTIES_PIECES = ["k", "=", ":", "\\", "\n", "\r", "#", "!", " ", "security.protocol=SSL\n", "a\\\n",
                     "sasl.jaas.config=", "\ufeff", "\x80"]


@FUZZ
@given(file_bytes(PROPERTIES_PIECES))
def test_properties_files(data):
    props = attempt("properties files", lambda: parse_properties(decode_utf8(data, "f"), "f"))
    if props is not None:
        assert all(isinstance(k, str) and k and isinstance(v, str) for k, v in props.items())


PROPERTY_KEY = st.text(st.sampled_from("abc.XYZ_-09"), min_size=1, max_size=20)
PROPERTY_VALUE = st.text(st.characters(blacklist_categories=["Cc", "Zs", "Zl", "Zp", "Cs"],
                                       blacklist_characters="\\\x85"), max_size=30)


@BUILT
@given(st.dictionaries(PROPERTY_KEY.filter(lambda k: k != "sasl.jaas.config"), PROPERTY_VALUE, max_size=8),
       st.sampled_from(["=", " = ", ":", ": "]), st.sampled_from(["\n", "\r\n", "\r"]))
def test_properties_read_as_written(props, separator, newline):
    text = "# written by the test" + newline + "".join(f"{k}{separator}{v}{newline}" for k, v in props.items())
    assert attempt("properties files", lambda: parse_properties(text, "f")) == props


JAAS_PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


JAAS_PIECES = [JAAS_PLAIN, "org.apache.kafka.common.security.scram.ScramLoginModule", " required",
               f"{JAAS_PLAIN} required",
               " ", "\n", "username", "=", '"', '\\"', "\\", "alice", ";", "x=y", '"a b"']


@FUZZ
@given(text_with(JAAS_PIECES))
def test_jaas_values(text):
    parsed = attempt("JAAS values", lambda: parse_jaas(text))
    if parsed is not None:
        mechanism, options = parsed
        assert mechanism in ("PLAIN", None) and all(isinstance(v, str) for v in options.values())


@BUILT
@given(st.dictionaries(st.text(st.sampled_from("abcxyz_.-09"), min_size=1, max_size=12),
                       st.text(max_size=20), max_size=5),
       st.sampled_from([" ", "\n  ", "\t"]), st.booleans())
def test_jaas_values_read_as_written(options, gap, semicolon):
    quoted = {k: '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for k, v in options.items()}
    text = f"{JAAS_PLAIN} required" + "".join(f"{gap}{k}={q}" for k, q in quoted.items()) + (";" if semicolon else "")
    assert attempt("JAAS values", lambda: parse_jaas(text)) == ("PLAIN", options)


TOML_PIECES = ['default_profile = "dev"\n', "default_profile = [false]\n", "default_profile = 1\n",
               "[profiles.dev]\n", "[profiles]\n", "profiles = 1\n", 'bootstrap_servers = "h:1"\n',
               'bootstrap_servers = ""\n', 'bootstrap_servers = ["a:1", 2]\n', "bootstrap_servers = []\n",
               'properties = { "client.id" = "x", "n" = 5 }\n', "properties = { a = [1] }\n",
               'properties_file = "missing.properties"\n', "properties_file = 3\n", "x = " + "9" * 5000 + "\n",
               "[", "]", "{", "}", "=", '"', "\n", "dev = 1\n", "\ufeff", "\x80", "x = 1979-05-27\n"]


@pytest.fixture(scope="module")
def config_file():
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp) / "config.toml"


@FUZZ
@given(data=file_bytes(TOML_PIECES), requested=st.sampled_from([None, "dev", "prod"]))
def test_toml_profiles(config_file, data, requested):
    config_file.write_bytes(data)
    profile = attempt("TOML profiles", lambda: load_profile(requested, config_file))
    if profile is not None:
        assert isinstance(profile, Profile) and profile.name in ("dev", "prod")
        assert profile.bootstrap_servers is None or profile.bootstrap_servers.strip()
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in profile.properties.items())


# -- linear work: each grammar fragment repeated n and 8n times -----------------------------------
def _toml(text):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "config.toml").write_text(text)
        return load_profile(None, Path(tmp) / "config.toml")


PARSERS = {
    "durations": (parse_duration_ms, DURATION_PIECES),
    "datetimes": (parse_datetime_ms, DATETIME_PIECES),
    "--time": (parse_time, DATETIME_PIECES),
    "topic specs": (parse_topic_spec, TOPIC_SPEC_PIECES),
    "records specs": (parse_records_spec, RECORDS_PIECES),
    "records offset files": (lambda text: parse_records_json(text, "f"), RECORDS_JSON_PIECES),
    "config pairs": (lambda text: parse_config_pairs([text]), CONFIG_PAIR_PIECES),
    "replica assignments": (parse_replica_assignment, REPLICA_PIECES),
    "CSV plans": (lambda text: parse_csv(text, ["g"]), CSV_PIECES),
    "properties files": (lambda text: parse_properties(text, "f"), PROPERTIES_PIECES),
    "JAAS values": (parse_jaas, JAAS_PIECES),
    "TOML profiles": (_toml, [p for p in TOML_PIECES if len(p) < 100]),
}
SMALL = 300             # characters of the smaller input; the larger has 8 times as many pieces


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_parsers_do_linear_work(name):
    """Work (Python lines run plus C calls made, tests/support/work.py) on ``prefix + piece * 8n``
    is at most 8 times that on ``prefix + piece * n``, with a margin (a quadratic parser does 64
    times as much), for every piece after every prefix of one piece. The regexes the parsers use
    are possessive (no backtracking), so the C work of each match is linear too."""
    parse, pieces = PARSERS[name]
    work(lambda: parse(pieces[0]))                  # lazy imports (dateutil, tomllib) done once
    for prefix in ["", *pieces]:
        for piece in pieces:
            n = max(1, SMALL // len(piece))
            small, _ = work(lambda: parse(prefix + piece * n))
            large, _ = work(lambda: parse(prefix + piece * 8 * n))
            assert large <= 10 * small + 100, (name, prefix, piece, n, small, large)

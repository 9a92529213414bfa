"""The CLI's wiring of every parser, fuzzed end to end: a tenth as many inputs as the parsers' own
fuzzing (tests/inputs/test_fuzz_parsers.py), as each runs kcli's entry point against the embedded
broker. It found list-offsets --time '' read as latest (exit 0).

For each input the parser itself is asked first (the oracle). When it refuses the input, kcli
must exit 2 with exactly one line on stderr that carries the parser's message, no traceback,
and the broker must serve no request. When it reads the input, kcli may do
anything a command does (exit 0, 1 or 2 for a later rule), but never print a traceback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcli.specs import parse_time, parse_topic_spec
from kcli.admin.settings import ClientSettings, parse_timeout_ms, read_properties
from kcli.specs import parse_config_pairs, parse_replica_assignment, topic_filter
from kcli.errors import UsageError
from kcli.inputs import read_text
from kcli.offsets.csvfile import parse_csv
from kcli.profiles import load_profile
from kcli.times import TimeParseError, parse_datetime_ms, parse_duration_ms, timestamp_before
from tests.support.run import run_kcli
from tests.support.fuzz import EXAMPLES, FUZZ, Stats, file_bytes, text_with

CLI = settings(FUZZ, max_examples=max(1, EXAMPLES // 10))
STATS = Stats()


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    from kcli.broker import EmbeddedCluster

    home = tmp_path_factory.mktemp("fuzz-cli")
    with EmbeddedCluster(nodes=1) as c:
        c.create_topic("fuzz-t", partitions=1)
        yield c, home
    STATS.write()


def _total(counts) -> int:
    return sum(v if isinstance(v, int) else _total(v) for v in counts.values())


def _refusal(check) -> str | None:
    """The parser's message when it refuses, else None."""
    try:
        check()
    except (UsageError, TimeParseError) as exc:
        return exc.message if isinstance(exc, UsageError) else str(exc)
    return None


def _by_duration(value: str) -> None:
    timestamp_before(int(time.time() * 1000), parse_duration_ms(value))


def _topic_spec(value: str) -> None:
    topic_filter([parse_topic_spec(value, regex=True)[0]])


def _file_check(kind: str, path: Path, config: Path):
    if kind == "--from-file":
        return lambda: parse_csv(read_text(str(path), "--from-file"), ["fuzz-g"])
    if kind == "--command-config":
        return lambda: ClientSettings("h:1", read_properties(str(path))).validate()
    return lambda: ClientSettings("h:1", (load_profile(None, config) or _NO_PROFILE).properties).validate()


class _NO_PROFILE:
    properties: dict = {}


RESET = ["reset-offsets", "--group", "fuzz-g", "--topic", "fuzz-t"]
# flag -> (the command line around the value, the parser the CLI applies to it)
VALUES = {
    "--timeout": (lambda v: (["list", "topics"], v), parse_timeout_ms),
    "--time": (lambda v: (["list-offsets", "--topic", "fuzz-t", "--time", v], None), parse_time),
    "--to-datetime": (lambda v: ([*RESET, "--to-datetime", v], None), parse_datetime_ms),
    "--by-duration": (lambda v: ([*RESET, "--by-duration", v], None), _by_duration),
    "--max-age": (lambda v: ([*RESET, "--to-latest", "--max-age", v], None), parse_duration_ms),
    "--topic": (lambda v: (["list-offsets", "--topic", v], None), _topic_spec),
    "--config": (lambda v: (["create", "topic", "fuzz-created", "--if-not-exists", "--config", v], None),
                 lambda v: parse_config_pairs([v])),
    "--replica-assignment": (lambda v: (["create", "topic", "fuzz-assigned", "--if-not-exists",
                                         "--replica-assignment", v], None), parse_replica_assignment),
}
TEXT = text_with(["P", "T", "1", "0", "S", "ms", "s", "-", ":", ",", "=", " ", "2025-01-15", "T10:30",
                  "Z", "fuzz-t", "9" * 20, "1969-12-31T23:59:59.999", "latest", "k=v", "1:2",
                  # whole values each flag reads, so that accepted values run too
                  "500ms", "PT1S", "2025-01-15T10:30:00Z", "fuzz-t:0", "retention.ms=1000", "1"])
FILES = file_bytes(["fuzz-g,fuzz-t,0,0\n", "fuzz-t,0,1\n", ",", "\n", "k=v\n", "security.protocol=",
                    "BOGUS", "SSL", "\ufeff", "\x80", "client.id=x\n", "[profiles.dev]\n",
                    'default_profile = "dev"\n', 'properties = { "no.such" = "1" }\n', "=", '"'])


def _settled_total(cluster) -> int:
    """The broker's request count once it has stopped moving: a client of an earlier example may
    still be sending as it closes (a Metadata refresh), which no refusal of this one must be
    charged with. Bounded: 100 looks, 0.05 s apart."""
    last = _total(cluster.request_counts())
    for _ in range(100):
        time.sleep(0.05)
        now = _total(cluster.request_counts())
        if now == last:
            return now
        last = now
    return last


def _check(node, name: str, args: list[str], refusal: str | None, timeout: str = "10s") -> None:
    cluster, _ = node
    before = _settled_total(cluster) if refusal is not None else 0
    start = time.thread_time()    # for the report only: no test bounds a time
    r = run_kcli(cluster.bootstrap_servers, *args, timeout=timeout)
    elapsed = time.thread_time() - start
    STATS.record(f"CLI {name}", r.code, elapsed)
    assert "Traceback" not in r.err and r.code in (0, 1, 2, 3), r
    if refusal is not None:
        assert r.code == 2, (args[:8], refusal, r)
        assert r.err.count("\n") == 1 and r.err.startswith("Error: ") and refusal in r.err, (refusal, r.err[:500])
        assert _total(cluster.request_counts()) == before


@CLI
@given(flag=st.sampled_from(sorted(VALUES)), value=TEXT)
def test_every_value_flag_maps_a_parser_refusal_to_exit_2(node, flag, value):
    build, parser = VALUES[flag]
    args, timeout = build(value)
    if flag == "--timeout":
        _check(node, flag, args, _refusal(lambda: parser(value)), timeout=value)
    else:
        _check(node, flag, args, _refusal(lambda: parser(value)))


@CLI
@given(kind=st.sampled_from(["--from-file", "--command-config", "config.toml"]), data=FILES)
def test_every_input_file_maps_a_parser_refusal_to_exit_2(node, monkeypatch, kind, data):
    cluster, home = node
    path, config = home / "input", home / "xdg" / "kcli" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.unlink(missing_ok=True)
    (config if kind == "config.toml" else path).write_bytes(data)
    with monkeypatch.context() as env:
        env.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
        env.delenv("KCLI_PROFILE", raising=False)
        refusal = _refusal(_file_check(kind, path, config))
        args = {"--from-file": ["reset-offsets", "--group", "fuzz-g", "--from-file", str(path)],
                "--command-config": ["list", "topics", "--command-config", str(path)],
                "config.toml": ["list", "topics"]}[kind]
        _check(node, kind, args, refusal)
    config.unlink(missing_ok=True)

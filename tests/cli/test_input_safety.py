"""Safety under bad input, end to end: bad input is one line on stderr and exit 2 before any
request reaches the cluster (the embedded broker counts every request it serves)."""

from __future__ import annotations

import socket
import time

import pytest

from tests.support.run import run_kcli, run_kcli_process


@pytest.fixture(scope="module")
def kept(cluster):
    """The cluster with a topic that no refused command may alter or delete."""
    cluster.create_topic("kept", partitions=1)
    return cluster


def _total(counts) -> int:
    return sum(v if isinstance(v, int) else _total(v) for v in counts.values())


def test_a_bare_timeout_is_milliseconds_as_in_the_kafka_tools():
    """A Java runbook's --timeout 5000 means 5 s; kcli read it as 5000 s."""
    with socket.socket() as silent:              # accepts, never answers: the timeout decides
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        start = time.monotonic()
        r = run_kcli_process(f"127.0.0.1:{silent.getsockname()[1]}", "list", "topics",
                             "--timeout", "1500", timeout=60)
    assert r.code == 1 and "within 1500 ms" in r.err, r
    assert time.monotonic() - start < 30
    r = run_kcli_process(None, "--help")
    assert "a bare number is milliseconds" in " ".join(r.out.split())


@pytest.mark.parametrize("value, shown_ms", [("2h", "7200000"), ("3600001", "3600001"), ("0", "0"),
                                             ("0.5", "0"), ("-PT1S", "-1000")])
def test_timeouts_beyond_what_the_clients_accept_are_usage_errors(cluster, value, shown_ms):
    """librdkafka refuses request timeouts above 1 h: every librdkafka command failed after its
    first requests (list-offsets sent 6)."""
    before = _total(cluster.request_counts())
    for command in (["list-offsets"], ["list", "topics"], ["describe", "topics"]):
        r = run_kcli(cluster.bootstrap_servers, *command, timeout=value)
        assert r.code == 2 and r.err.count("\n") == 1, (command, r)
        assert r.err == (f"Error: --timeout must be from 1 ms to 1 h (3600000 ms); '{value}' is "
                         f"{shown_ms} ms\n")
    assert _total(cluster.request_counts()) == before


def test_the_longest_timeout_works(cluster):
    cluster.create_topic("one-hour", partitions=1)
    r = run_kcli(cluster.bootstrap_servers, "list-offsets", "-t", "one-hour", timeout="PT1H")
    assert r.code == 0 and r.out, r.err


@pytest.mark.parametrize("content, reason", [
    (b"no.such.property=1\n", 'No such configuration property: "no.such.property"'),
    ("\ufeffsecurity.protocol=SSL\n".encode(), "starts with a UTF-8 byte order mark"),
    (b"security.protocol=BOGUS\n", 'Invalid value "BOGUS" for configuration property "security.protocol"'),
    (b"security.protocol=SASL_PLAINTEXT\n", "No provider for SASL mechanism GSSAPI"),
    (b"\x80", "is not UTF-8: byte 0x80 at offset 0"),
    (b"request.timeout.ms=0\n", "outside allowed range"),
    # a NUL: librdkafka cut these two there; a store path with one exited 1 on its file
    (b"ssl.ca.location=a\0b\n", "the value of ssl.ca.location contains a NUL character"),
    (b"client.id=a\0b\n", "the value of client.id contains a NUL character"),
    (b"ssl.truststore.location=a\0b\n", "the value of ssl.truststore.location contains a NUL character"),
])
@pytest.mark.parametrize("command", [["describe", "topics"], ["list", "topics"], ["list-offsets"],
                                     ["describe", "configs", "--broker", "1"]])
def test_client_properties_are_validated_before_connecting_on_every_path(cluster, tmp_path, content,
                                                                         reason, command):
    """describe topics and describe configs run on kcli's own connection (kafka-python), which
    ignored what it did not understand: it exited 0 with no.such.property=1, with a BOM before the
    first key, and connected in PLAINTEXT with security.protocol=BOGUS."""
    cfg = tmp_path / "client.properties"
    cfg.write_bytes(content)
    before = _total(cluster.request_counts())
    r = run_kcli(cluster.bootstrap_servers, *command, "--command-config", str(cfg))
    assert r.code == 2 and r.err.startswith("Error: ") and r.err.count("\n") == 1, r
    assert reason in r.err
    assert _total(cluster.request_counts()) == before


EMPTY_GLOBALS = [
    (["-b", ""], "--bootstrap-server needs a value"),
    (["--command-config", ""], "--command-config needs a value"),
    (["--profile", " "], "--profile needs a value"),
]


@pytest.mark.parametrize("args, message", EMPTY_GLOBALS)
def test_an_empty_global_option_is_a_usage_error(cluster, args, message):
    """--command-config '' and --profile '' were ignored (exit 0); -b '' fell back to localhost."""
    before = _total(cluster.request_counts())
    r = run_kcli(None, "list", "topics", *args)
    assert (r.code, r.err) == (2, f"Error: {message}\n")
    assert _total(cluster.request_counts()) == before


@pytest.mark.parametrize("args, message", EMPTY_GLOBALS)
def test_an_empty_global_option_before_a_dropin_is_refused_by_the_same_rule(cluster, args, message):
    """kcli.cli.globals.check_not_empty, for the native commands and the drop-ins alike."""
    from tests.support.run import run_dropin

    before = _total(cluster.request_counts())
    r = run_dropin(*args, "kafka-topics", "--list", "--bootstrap-server", cluster.bootstrap_servers)
    assert (r.code, r.out, r.err) == (2, "", f"{message}\n")
    assert _total(cluster.request_counts()) == before


@pytest.mark.parametrize("args, message", [
    (["create", "topic", "x", "--partitions", "99999999999"], "The partitions must be at most 2147483647"),
    (["create", "topic", "a b"], 'Topic name "a b" is illegal'),
    (["create", "topic", "x" * 250], "can't be longer than 249 characters"),
    (["create", "topic", "x", "--replication-factor", "40000"], "between 1 and 32767 inclusive"),
    (["create", "topic", "x", "--replica-assignment", ""], "Invalid --replica-assignment ''"),
    (["create", "topic", "x", "--replica-assignment", "1:99999999999"], "Invalid --replica-assignment"),
    (["create", "topic", "x", "--config", "retention.ms="], 'in the format "key=val": retention.ms='),
    (["alter", "topic", "", "--partitions", "5"], "a topic name or regex is required"),
    (["alter", "topic", "t", "--partitions", "3", "--replica-assignment", "1,2"], "has 2 entries for 3"),
    (["delete", "topic", " "], "a topic name or regex is required"),
    (["describe", "topics", ""], "a topic name or regex is required"),
    (["list-offsets", "-t", "t:99999999999"], "Invalid partition specified in topic arg"),
    (["describe", "configs", "--broker", "99999999999"], "--broker takes a node id (0 to 2147483647)"),
    (["describe", "configs", "--topic", " "], "--topic needs a topic name"),
    (["describe", "configs", "--topic", "a b"], 'Topic name "a b" is illegal'),     # sent, exit 1, once
    (["alter", "configs", "--topic", "..", "--set", "retention.ms=1"], 'Topic name cannot be "." or ".."'),
    (["alter", "configs", "--topic", "", "--set", "retention.ms=1"], "--topic needs a topic name"),
    (["alter", "configs", "--topic", "t", "--delete", ""], "--delete needs a config name"),
    (["alter", "configs", "--topic", "t", "--set", "retention.ms"], 'in the format "key=val"'),
    (["alter", "configs", "--topic", "t", "--set", "a b=1"], "Invalid character found for config key: a b"),
    (["broker", "start", "--listen", "127.0.0.1:99999"], "port 0 to 65535"),
    (["broker", "start", "--listen", "127.0.0.1:65535", "--nodes", "2"], "--nodes must be from 1 to 1"),
])
def test_topic_and_config_input_is_checked_before_any_request(kept, args, message):
    """Three of these exited 0: --replica-assignment '' (ignored), alter topic '' (every topic
    altered), delete topic ' ' (every topic deleted)."""
    cluster = kept
    before = _total(cluster.request_counts())
    r = run_kcli(cluster.bootstrap_servers, *args)
    assert r.code == 2 and r.err.startswith("Error: ") and r.err.count("\n") == 1, r
    assert message in r.err
    assert _total(cluster.request_counts()) == before
    assert "kept" in run_kcli(cluster.bootstrap_servers, "list", "topics").out


@pytest.fixture(scope="module")
def groups(kept):
    """Two inactive groups with commits on 'kept', so that listing groups has work to do."""
    from confluent_kafka import Consumer, TopicPartition

    for gid in ("safety-a", "safety-b"):
        consumer = Consumer({"bootstrap.servers": kept.bootstrap_servers, "group.id": gid,
                             "enable.auto.commit": False})
        consumer.commit(offsets=[TopicPartition("kept", 0, 0)], asynchronous=False)
        consumer.close()
    return kept


def _file(tmp_path, content: bytes) -> str:
    path = tmp_path / "input"
    path.write_bytes(content)
    return str(path)


RESET = ["reset-offsets", "--group", "safety-a", "--topic", "kept"]


@pytest.mark.parametrize("args, message", [
    (["reset-offsets", "--all-groups", "--from-file", b"kept,0,1\n"],
     "expected 4 columns (group,topic,partition,offset), found 3"),
    (["reset-offsets", "--group", "safety-a", "--from-file", b"\x80"], "is not UTF-8: byte 0x80 at offset 0"),
    (["reset-offsets", "--group", "safety-a", "--from-file", b"kept,0,-2\n"], "offset one from 0 to"),
    (["reset-offsets", "--group", "safety-a", "--from-file", b"a b,0,1\n"], 'Topic name "a b" is illegal'),
    (["reset-offsets", "--all-groups", "--from-file", b"safety-a,kept,0,99999999999999999999\n"],
     "the offset one from 0 to 9223372036854775807"),
    ([*RESET, "--to-offset", "99999999999999999999"], "99999999999999999999 is out of range"),
    ([*RESET, "--to-offset", "9" * 5000], "is not a valid int"),
    # integers are ASCII (kcli.inputs): int() read these Arabic-Indic digits as 2 and committed it
    ([*RESET, "--to-offset", "\u0662", "--execute"], "'\u0662' is not a valid integer: ASCII digits"),
    ([*RESET, "--shift-by", "-\u0662"], "is not a valid integer: ASCII digits"),
    (["create", "topic", "fresh", "--partitions", "\u0663"], "is not a valid integer: ASCII digits"),
    (["alter", "topics", "kept", "--partitions", "\uff13"], "is not a valid integer: ASCII digits"),
    ([*RESET, "--shift-by", "-9223372036854775809"], "is out of range"),
    (["reset-offsets", "--group", "safety-a", "--topic", "kept:99999999999", "--to-earliest"],
     "Invalid partition specified in topic arg 'kept:99999999999'"),
    ([*RESET, "--to-datetime", "0001-01-01"], "'0001-01-01' is before 1970-01-01T00:00:00.000Z"),
    ([*RESET, "--to-datetime", "1969-12-31T23:59:59.999"], "is before 1970-01-01T00:00:00.000Z"),
    ([*RESET, "--by-duration", "9999999999d"], "9999999999d before now is before 1970-01-01"),
    ([*RESET, "--by-duration", "P" + "9" * 30 + "D"], "is out of range"),
    ([*RESET, "--to-latest", "--max-age", "1" + " " * 130_000 + "x"], "Invalid duration"),
    ([*RESET, "--to-earliest", "--execute", "--rollback-file", ""], "--rollback-file needs a value"),
    (["reset-offsets", "--group", "", "--topic", "kept", "--to-earliest"], "A group id cannot be empty"),
    # a literal topic name given to -t is checked as in a CSV (it was sent: exit 1 after ~10 requests)
    ([*RESET[:3], "--topic", "a b", "--to-earliest"], 'Topic name "a b" is illegal'),
    ([*RESET[:3], "--topic", "a b:0", "--to-earliest", "--execute"], 'Topic name "a b" is illegal'),
    ([*RESET[:3], "--topic", "x" * 250, "--compare"], "can't be longer than 249 characters"),
    (["delete-offsets", "--group", "safety-a", "--topic", "."], 'Topic name cannot be "." or ".."'),
    (["check", "expansions", "--topic", "a b"], 'Topic name "a b" is illegal'),
    (["audit", "timestamps", "--topic", "a b"], 'Topic name "a b" is illegal'),
    (["audit", "timestamps", "--topic", "kept", "--group", ""], "A group id cannot be empty"),
    ([*RESET, "--to-datetime", "2025-01-" + "9" * 30 + "T00:00:00.000"], "Invalid datetime"),
    (["describe", "groups", ""], "A group id cannot be empty"),
    (["delete", "groups", "safety-b", ""], "A group id cannot be empty"),
    (["delete-offsets", "--group", "", "--topic", "kept"], "A group id cannot be empty"),
    (["list-offsets", "--time", "1969-12-31T23:59:59.999"], "is before 1970-01-01T00:00:00.000Z"),
    (["list-offsets", "--time", "99999999999999999999"], "are out of range"),
    (["list-offsets", "--time", ""], "--time: Invalid datetime '': use ISO-8601"),   # was read as latest
])
def test_reset_and_group_input_is_checked_before_any_request(groups, tmp_path, args, message):
    """reset-offsets --all-groups --from-file read the CSV after listing the groups (5 requests);
    --to-offset 99999999999999999999 exited 0 (clamped to the log end); a time before the epoch
    became -1 (latest) in ListOffsets; an empty group id failed in the admin client after 10."""
    args = [_file(tmp_path, a) if isinstance(a, bytes) else a for a in args]
    before = _total(groups.request_counts())
    r = run_kcli(groups.bootstrap_servers, *args)
    assert r.code == 2 and r.err.startswith("Error: ") and r.err.count("\n") == 1, r
    assert message in r.err
    assert _total(groups.request_counts()) == before


def test_a_dropins_datetime_of_over_4300_digits_is_refused_before_any_request(groups):
    """kafka-consumer-groups --to-datetime with 4,400 millisecond digits exited 1 with Python's
    int-limit message; it is the Java tool's unparseable date, exit 2, nothing sent."""
    from tests.support.run import run_dropin

    before = _total(groups.request_counts())
    r = run_dropin("kafka-consumer-groups", "--bootstrap-server", groups.bootstrap_servers, "--group",
                   "safety-a", "--reset-offsets", "--all-topics", "--execute",
                   "--to-datetime", "2025-01-15T10:30:00." + "1" * 4400)
    said = [line for line in (r.out + r.err).splitlines() if line.strip()]      # on stdout, as Java
    assert r.code == 2 and len(said) == 1, r
    assert said[0].startswith("Error: Executing consumer group command failed due to java.text."
                              "ParseException: Unparseable date"), said[0][:300]
    assert _total(groups.request_counts()) == before


def test_a_reset_from_file_with_all_groups_still_plans_every_listed_group(groups, tmp_path):
    path = _file(tmp_path, b"safety-a,kept,0,0\nsafety-b,kept,0,0\nelsewhere,kept,0,0\n")
    r = run_kcli(groups.bootstrap_servers, "reset-offsets", "--all-groups", "--from-file", path,
                 "-o", "json")
    assert r.code == 0, r.err
    import json

    planned = {g["group"] for g in json.loads(r.out)["groups"]}
    assert {"safety-a", "safety-b"} <= planned and "elsewhere" not in planned


# One representative of each class of bad input kcli refuses, all in one place: each exits 2 with
# one line on stderr, and the broker serves no request at all while they run.
BAD_INPUT_CLASSES = {
    "CSV parsed after the groups were listed": (
        ["reset-offsets", "--all-groups", "--from-file", b"kept,0,1\n"], None),
    "an unknown property on kcli's own connection": (
        ["describe", "topics", "--command-config", b"no.such.property=1\n"], None),
    "a BOM before the first key": (["describe", "topics", "--command-config", "\ufeffa=1\n".encode()], None),
    "security.protocol=BOGUS": (["describe", "topics", "--command-config", b"security.protocol=BOGUS\n"], None),
    "non-UTF-8 CSV": (["reset-offsets", "--group", "safety-a", "--from-file", b"\x80"], None),
    "non-UTF-8 properties": (["list", "topics", "--command-config", b"\x80"], None),
    "non-UTF-8 TOML": (["list", "topics"], b"\x80"),
    "default_profile = [false]": (["list", "topics"], b"default_profile = [false]\n"),
    "a number of over 4,300 digits": (["list-offsets", "--time", "9" * 5000], None),
    "an offset outside int64": (["reset-offsets", "--group", "safety-a", "--topic", "kept",
                                 "--to-offset", "9223372036854775808"], None),
    "a partition outside int32": (["list-offsets", "--topic", "kept:99999999999"], None),
    "a request timeout librdkafka rejects (list-offsets sent 6)": (["list-offsets", "--timeout", "2h"], None),
    "an empty value where one is required": (["delete", "topic", " "], None),
    "a quadratic duration": (["list", "topics", "--timeout", "1" + " " * 130_000 + "x"], None),
    "a quadratic JAAS value": (["list", "topics", "--command-config",
                                b"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
                                b"required" + b" " * 100_000 + b"x\n"], None),
    "a time before the epoch": (["list-offsets", "--time", "1969-12-31T23:59:59.999"], None),
    "a duration reaching before the epoch": (["reset-offsets", "--group", "safety-a", "--topic", "kept",
                                              "--by-duration", "9999999999d"], None),
}


@pytest.mark.parametrize("name", BAD_INPUT_CLASSES)
def test_every_class_of_bad_input_sends_nothing(groups, tmp_path, monkeypatch, name):
    args, toml = BAD_INPUT_CLASSES[name]
    args = [_file(tmp_path, a) if isinstance(a, bytes) else a for a in args]
    config = tmp_path / "xdg" / "kcli" / "config.toml"
    config.parent.mkdir(parents=True)
    if toml is not None:
        config.write_bytes(toml)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KCLI_PROFILE", raising=False)
    timeout = args.pop(args.index("--timeout") + 1) if "--timeout" in args else "10s"
    args = [a for a in args if a != "--timeout"]
    before = _total(groups.request_counts())
    started = time.monotonic()
    r = run_kcli(groups.bootstrap_servers, *args, timeout=timeout)
    assert r.code == 2 and r.err.startswith("Error: ") and r.err.count("\n") == 1, (name, r.err[:300])
    assert "Traceback" not in r.err
    assert _total(groups.request_counts()) == before, name
    assert time.monotonic() - started < 5, name


def _requests_to(cluster, argv) -> int:
    from tests.support.run import run_dropin as dropin

    before = _total(cluster.request_counts())
    if "--bootstrap-server" not in argv:
        argv = [*argv, "--bootstrap-server", cluster.bootstrap_servers]
    r = dropin(*argv)
    assert r.code == 2 and (r.out + r.err).strip().count("\n") == 0 and "Traceback" not in r.out + r.err, r
    return _total(cluster.request_counts()) - before, r


@pytest.mark.parametrize("servers", ["", "foo", "host:", ":9092", "h:99999", "h:1,,h:2", "h:x"])
@pytest.mark.parametrize("tool", [["kafka-topics", "--list"], ["kafka-consumer-groups", "--list"],
                                  ["kafka-configs", "--describe", "--topic", "kept"]])
def test_a_bootstrap_server_that_is_not_host_port_is_usage(groups, tool, servers):
    """kcli's own connection refused these after librdkafka had tried (exit 1); now exit 2 before
    any connection, as kafka-get-offsets already did (Java's ToolsUtils.validateBootstrapServer)."""
    sent, r = _requests_to(groups, [*tool, "--bootstrap-server", servers])
    assert "Invalid bootstrap server list" in r.out + r.err
    assert sent == 0


def test_a_native_bootstrap_server_that_is_not_host_port_is_usage(groups):
    before = _total(groups.request_counts())
    r = run_kcli("foo,h:99999", "list", "topics")
    assert (r.code, r.err) == (2, "Error: Invalid bootstrap server list 'foo,h:99999': expected "
                                  "host:port[,host:port...]\n")
    assert _total(groups.request_counts()) == before


@pytest.mark.parametrize("argv, message", [
    (["kafka-consumer-groups", "--group", "safety-a", "--reset-offsets", "--topic", "a b", "--to-earliest",
      "--execute"], 'Topic name "a b" is illegal'),
    (["kafka-consumer-groups", "--group", "safety-a", "--delete-offsets", "--topic", ".."],
     'Topic name cannot be "." or ".."'),
    (["kafka-configs", "--describe", "--entity-type", "topics", "--entity-name", "a b"], 'Topic name "a b" is illegal'),
    (["kafka-configs", "--alter", "--topic", "a b", "--add-config", "retention.ms=1"], 'Topic name "a b" is illegal'),
    (["kafka-topics", "--create", "--topic", "x", "--replica-assignment", ""], "Invalid --replica-assignment ''"),
    (["kafka-consumer-groups", "--group", "safety-a", "--reset-offsets", "--topic", "kept", "--to-datetime",
      "2025-01-" + "9" * 30 + "T00:00:00.000", "--dry-run"], "java.text.ParseException: Unparseable date"),
    (["kafka-consumer-groups", "--list", "--bootstrap-server", "127.0.0.1:1"],
     "Found multiple arguments for option bootstrap-server, but you asked for only one"),
    (["kafka-topics", "--list", "--command-config", b"client.id=a\0b\n"], "the value of client.id contains a NUL"),
    # found by tests/cli/test_fuzz_dropin.py: exit 1 with no request, or a last-resort line
    (["kafka-get-offsets", "--topic", "kept", "--time", "9" * 4301], "Malformed time argument"),
    (["kafka-consumer-groups", "--list", "--timeout", "9" * 4301], "Cannot parse argument"),
    (["kafka-consumer-groups", "--group", "safety-a", "--reset-offsets", "--topic", "kept", "--from-file", "a\0b",
      "--dry-run"], "Cannot read --from-file 'a\\x00b': embedded null byte"),
    (["kafka-topics", "--list", "--command-config", "a\0b"], "embedded null byte"),
    (["kafka-consumer-groups", "--list", "--timeout", "1\n2"], "Cannot parse argument '1\\n2' of option timeout"),
    (["kafka-configs", "--describe", "--entity-type", "\n", "--entity-name", "x"], "Invalid entity type \\n, the"),
    (["kafka-get-offsets", "--topic", "kept", "--time", "1\n2"], "Malformed time argument 1\\n2."),
    (["kafka-consumer-groups", "--list", "--command-config", b"ssl.truststore.location=a\0b\n"],
     "the value of ssl.truststore.location contains a NUL"),
    (["kafka-get-offsets", "--topic", "kept", "--command-config", b"ssl.ca.location=a\0b\n"],
     "the value of ssl.ca.location contains a NUL"),
    (["kafka-configs", "--describe", "--topic", "kept", "--command-config", b"client.id=\0\n"],
     "the value of client.id contains a NUL"),
])
def test_dropin_input_is_checked_before_any_request(groups, tmp_path, argv, message):
    """The drop-ins: one line, exit 2, nothing sent. Tracebacks once: a --to-datetime field beyond
    a C long (OverflowError) and a repeated --bootstrap-server of kafka-consumer-groups; a NUL in
    a store path exited 1, in ssl.ca.location or client.id librdkafka cut the value there."""
    argv = [_file(tmp_path, a) if isinstance(a, bytes) else a for a in argv]
    if "--bootstrap-server" in argv:     # a repeated one
        argv = [*argv, "--bootstrap-server", groups.bootstrap_servers]
    sent, r = _requests_to(groups, argv)
    assert message in r.out + r.err
    assert sent == 0


@pytest.mark.parametrize("shape, message", [
    (["--partitions", "0"], "The partitions must be greater than 0"),
    (["--replication-factor", "0"], "The replication factor must be between 1 and 32767 inclusive"),
    (["--replica-assignment", "1:1"], "Partition replica lists may not contain duplicate entries: 1"),
    (["--replica-assignment", "1:2,3"], "Partition 1 has different replication factor: [3]"),
])
def test_a_new_topic_is_checked_by_one_rule_in_both_front_ends(kept, shape, message):
    """create topic and kafka-topics --create refuse a new topic's shape with the same check
    (ops.topics.check_new_topic), each in its own frame, before any request."""
    cluster = kept
    before = _total(cluster.request_counts())
    native = run_kcli(cluster.bootstrap_servers, "create", "topic", "shaped", *shape)
    sent, dropin = _requests_to(cluster, ["kafka-topics", "--create", "--topic", "shaped", *shape])
    assert (native.code, native.err) == (2, f"Error: {message}\n")
    assert dropin.out + dropin.err == f"Error while executing topic command : {message}\n"
    assert _total(cluster.request_counts()) == before and sent == 0

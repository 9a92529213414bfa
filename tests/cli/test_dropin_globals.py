"""kcli's global options before a drop-in's name (``alias k='kcli --profile prod'``, then a
runbook's ``k kafka-consumer-groups --bootstrap-server B --describe --group G``): each applies to
the Java tool's line, or is refused in one line (exit 2). Against a SASL/PLAIN embedded broker,
so that a profile's properties visibly reach the drop-in's client."""

from __future__ import annotations

import socket
import time

import pytest

from tests.support.sasl import PASSWORD, properties
from tests.support.run import run_dropin

GROUP_LINE = ("kafka-consumer-groups", "--describe", "--group", "sasl-group")


@pytest.fixture
def profiles(tmp_path, monkeypatch, sasl_cluster):
    """Profile ``sasl``: the SASL properties, no bootstrap servers; ``full``: both."""
    (tmp_path / "kcli").mkdir()
    (tmp_path / "kcli" / "config.toml").write_text(
        '[profiles.sasl]\nproperties = { "security.protocol" = "SASL_PLAINTEXT", "sasl.mechanism" = "PLAIN", '
        f'"sasl.username" = "alice", "sasl.password" = "{PASSWORD}" }}\n'
        f'[profiles.full]\nbootstrap_servers = "{sasl_cluster.bootstrap_servers}"\n'
        f'properties = {{ "security.protocol" = "SASL_PLAINTEXT", "sasl.mechanism" = "PLAIN", '
        f'"sasl.username" = "alice", "sasl.password" = "{PASSWORD}" }}\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = tmp_path / "sasl.properties"
    config.write_text(properties("properties", PASSWORD))
    return str(config)


def test_profile_timeout_verbose_and_plain_before_a_dropin_apply_to_it(sasl_cluster, profiles):
    b = sasl_cluster.bootstrap_servers
    reference = run_dropin(*GROUP_LINE, "--bootstrap-server", b, "--command-config", profiles)
    assert reference.code == 0 and "sasl-group" in reference.out, reference
    for before in (["--profile", "sasl"], ["--profile=sasl", "--timeout", "5s"],
                   ["--profile", "sasl", "--verbose"], ["--profile", "sasl", "-o", "plain"],
                   ["--command-config", profiles, "--timeout", "PT10S"]):
        r = run_dropin(*before, *GROUP_LINE, "--bootstrap-server", b)
        assert r == reference, (before, r)
    # the profile's bootstrap servers where the line has none; -b likewise
    r = run_dropin("--profile", "full", "kafka-topics", "--list")
    assert (r.code, r.out, r.err) == (0, "data\n", ""), r
    r = run_dropin("-b", b, "--command-config", profiles, "kafka-topics", "--list")
    assert (r.code, r.out, r.err) == (0, "data\n", ""), r
    # the line's --command-config overrides the profile's properties key by key: a wrong password
    wrong = profiles.replace("sasl.properties", "wrong.properties")
    with open(wrong, "w") as f:
        f.write(f"sasl.password={PASSWORD}-wrong\n")
    r = run_dropin("--profile", "sasl", *GROUP_LINE, "--bootstrap-server", b, "--command-config", wrong)
    assert r.code == 1 and PASSWORD not in r.out + r.err, r


def test_what_does_not_apply_before_a_dropin_is_refused_in_one_line(sasl_cluster, profiles):
    b = sasl_cluster.bootstrap_servers
    for before, words in ((["-o", "json"], "--output json does not apply to kafka-consumer-groups: the drop-ins "
                                           "print the Java tool's text"),
                          (["--output=csv"], "--output csv does not apply"),
                          (["-b", b], "--bootstrap-server is given both before kafka-consumer-groups and in its "
                                      "line: give it once"),
                          (["--command-config", profiles], "--command-config is given both"),
                          (["--timeout", "2h"], "--timeout must be from 1 ms to 1 h"),
                          (["--profile", "nosuch"], "Unknown profile 'nosuch'")):
        r = run_dropin(*before, *GROUP_LINE, "--bootstrap-server", b, "--command-config", profiles)
        assert r.code == 2 and r.out == "" and r.err.startswith(words) and r.err.count("\n") == 1, (before, r)


def test_verbose_before_a_dropin_adds_detail_to_an_error_and_keeps_stdout(sasl_cluster, profiles):
    line = ("kafka-consumer-groups", "--bootstrap-server", sasl_cluster.bootstrap_servers, "--describe", "--group",
            "nosuch")
    plain = run_dropin("--profile", "sasl", *line)
    assert plain.code == 1 and "Group nosuch not found." in plain.out and plain.err == "", plain
    r = run_dropin("--profile", "sasl", "--verbose", *line)
    assert (r.code, r.out) == (1, plain.out), r
    assert r.err.startswith("Detail: ") and f"bootstrap servers {sasl_cluster.bootstrap_servers}" in r.err, r
    assert PASSWORD not in r.err


@pytest.fixture
def silent():
    """A port on 127.0.0.1 that accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("line", [("kafka-topics", "--list"),
                                  ("kafka-consumer-groups", "--list", "--timeout", "20000"),
                                  ("kafka-get-offsets", "--topic", "t"),
                                  ("kafka-configs", "--describe", "--topic", "t")])
def test_timeout_before_a_dropin_bounds_it(silent, line):
    start = time.monotonic()
    r = run_dropin("--timeout", "700ms", "--verbose", line[0], "--bootstrap-server", silent, *line[1:])
    elapsed = time.monotonic() - start
    assert r.code == 1 and elapsed < 10, (elapsed, r)              # the tools' default: 30 s
    assert "timeout 700 ms" in r.err, r

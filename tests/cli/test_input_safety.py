"""Safety under bad input, end to end: bad input is one line on stderr and exit 2 before any
request reaches the cluster (the embedded broker counts every request it serves)."""

from __future__ import annotations

import time

import pytest

from tests.cli.conftest import run_kcli, run_kcli_process


def _total(counts) -> int:
    return sum(v if isinstance(v, int) else _total(v) for v in counts.values())


def test_a_bare_timeout_is_milliseconds_as_in_the_kafka_tools():
    """A Java runbook's --timeout 5000 means 5 s; kcli read it as 5000 s."""
    start = time.monotonic()
    r = run_kcli_process("127.0.0.1:1", "list", "topics", "--timeout", "1500", timeout=60)
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

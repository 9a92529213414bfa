"""A big topic does not flood stderr: on 9,000 partitions a native reset or --compare sums its
warnings up per kind (the first few, then how many more and how to see them all: --verbose),
while the drop-in prints every one of them, as kafka-consumer-groups does. Through the real
entry point against the embedded broker (the topic made directly on it, as test_scripting's)."""

from __future__ import annotations

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.clients import commit, produce
from tests.support.run import run_dropin, run_kcli

PARTITIONS = 9000


@pytest.fixture(scope="module")
def big():
    with EmbeddedCluster(nodes=1) as c:
        c.create_topic("big", partitions=PARTITIONS)
        produce(c.bootstrap_servers, "big", [(0, b"only")])
        commit(c.bootstrap_servers, "g", {("big", 0): 0})
        yield c


def _warn_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("Warn:")]


def test_compare_on_9000_partitions_sums_its_warnings_up(big):
    b = big.bootstrap_servers
    r = run_kcli(b, "reset-offsets", "-g", "g", "-t", "big", "--compare", "-o", "csv", timeout="60s")
    assert r.code == 0, r.err[:2000]
    lines = r.err.splitlines()
    assert len(lines) <= 10, lines
    warns = _warn_lines(r.err)
    assert sum("is empty" in w or "no record at or after" in w for w in warns) == 3, warns
    more = [w for w in warns if "more partitions without a record" in w]
    assert more == ["Warn: [by-duration 1h] ... and 8,996 more partitions without a record at or "
                    "after the time (reset to the log end) (8,999 in all; --verbose lists each)"], warns
    every = run_kcli(b, "reset-offsets", "-g", "g", "-t", "big", "--compare", "-o", "csv", "--verbose",
                     timeout="60s")
    assert sum("no record at or after" in w for w in _warn_lines(every.err)) == PARTITIONS - 1


def test_to_offset_execute_sums_up_natively_and_the_drop_in_prints_every_line(big, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    b = big.bootstrap_servers
    r = run_kcli(b, "reset-offsets", "-g", "g", "-t", "big", "--to-offset", "2", "--execute", "--allow-skip", "-o",
                 "csv",
                 timeout="60s")
    assert r.code == 0, r.err[:2000]
    assert len(r.err.splitlines()) <= 10, r.err
    assert "Warn: ... and 8,997 more partitions whose new offset is clamped to the log (9,000 in all; " \
           "--verbose lists each)" in r.err.splitlines()
    java = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", "g",
                      "--topic", "big", "--to-offset", "2", "--execute")
    assert java.code == 0, java.err[:2000]
    clamped = [line for line in java.err.splitlines() if "is higher than latest offset for topic partition" in line]
    assert len(clamped) == PARTITIONS                       # one log4j WARN per partition, as Java
    assert all(" WARN New offset (2) is higher than latest offset" in line for line in clamped)

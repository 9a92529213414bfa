"""What `kcli audit timestamps` refuses before any request, JVM or Spark session (exit 2, one
line): each used to cost requests (a bad --from's JSON: two), or a whole scan (--save onto an
existing directory failed after it). No Spark is needed: the refusal comes first."""

from __future__ import annotations

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.clients import commit
from tests.support.run import run_kcli

I64 = 2**63 - 1


@pytest.fixture(scope="module")
def cluster():
    with EmbeddedCluster() as ec:
        ec.create_topic("t", 2)
        commit(ec.bootstrap_servers, "g", {("t", 0): 0})
        yield ec


def _requests(ec) -> int:
    return sum(sum(counts.values()) for counts in ec.request_counts().values())


@pytest.mark.parametrize("args, message", [
    (["--from", "{bad"], "from/to Offsets must be earliest, latest or JSON"),
    (["--from", '{"t": [1]}'], "must be earliest, latest or JSON"),
    (["--from", '{"t": {"0": -5}}'], "offset -5 of t-0 is not an offset (0 to 9223372036854775807"),
    (["--to", '{"t": {"0": %d}}' % (I64 + 1)], f"offset {I64 + 1} of t-0 is not an offset"),
    (["--from", '{"t": {"0": 1.5}}'], "offset 1.5 of t-0 is not an offset"),
    (["--from", '{"t": {"x": 1}}'], "partition 'x' of 't' is not a partition number"),
    (["--from", '{"t": {"0": 9}}', "--to", '{"t": {"0": 3}}'], "--from offset 9 of t-0 is after --to's 3"),
    (["--from", "2025-01-02T00:00:00Z", "--to", "2025-01-01T00:00:00Z"],
     "--from (2025-01-02T00:00:00.000Z) is after --to (2025-01-01T00:00:00.000Z)"),
    (["--jars", "JARS"], "--jars: no such file"),
    (["--save", "SAVE"], "exists: the audit writes a new directory"),
])
def test_bad_audit_input_is_refused_before_any_request(cluster, tmp_path, monkeypatch, args, message):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "saved").mkdir()
    args = [str(tmp_path / "saved") if a == "SAVE" else str(tmp_path / "none.jar") if a == "JARS" else a
            for a in args]
    before = _requests(cluster)
    r = run_kcli(cluster.bootstrap_servers, "audit", "timestamps", "-t", "t", "--group", "g", *args)
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, r
    assert message in r.err, r.err
    assert _requests(cluster) == before                      # the group's start time not asked
    assert not (tmp_path / "state" / "kcli" / "spark").exists()      # no Spark session


def test_minus_two_and_minus_one_are_earliest_and_latest_as_in_spark(cluster, tmp_path):
    """Spark's connector reads -2 and -1 in offsets JSON as earliest and latest: not refused."""
    r = run_kcli(cluster.bootstrap_servers, "audit", "timestamps", "-t", "t", "--from",
                 '{"t": {"0": -2, "1": 0}}', "--to", '{"t": {"0": -1, "1": 0}}', "--jars",
                 str(tmp_path / "none.jar"))
    assert r.code == 2 and "--jars: no such file" in r.err, r            # the next check's refusal

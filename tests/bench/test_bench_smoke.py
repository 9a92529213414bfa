"""The benches against real Apache Kafka run end to end on a minimal workload (``--runs 1
--quick``) and print their tables. No timing is asserted: a bench's numbers mean something only as
ratios of a full run, on a quiet machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.apache
BENCH = Path(__file__).resolve().parents[2] / "bench"


def run_bench(name: str) -> str:
    proc = subprocess.run([sys.executable, str(BENCH / name), "--runs", "1", "--quick"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def rows(out: str) -> dict[str, str]:
    """Table rows by their first column (the name before two spaces)."""
    return {line.split("  ")[0].strip(): line for line in out.splitlines() if "  " in line}


def test_java_tools_bench():
    out = run_bench("java_tools.py")
    table = rows(out)
    for command in ("describe topics", "describe groups", "reset dry run", "get-offsets"):
        assert command in table, table
        # The stdout comparison ran; its verdict is the bench's report, not this test's to judge.
        assert any(v in table[command] for v in ("identical", "same lines", "DIFFERS")), table[command]
    assert "ratios kcli/java" in out


def test_broker_vs_kafka_bench():
    out = run_bench("broker_vs_kafka.py")
    table = rows(out)
    for row in ("start to first ack (s)", "produce 100 B (MB/s)", "consume 100 B (MB/s)",
                "produce 10 KB (MB/s)", "consume 10 KB (MB/s)"):
        assert row in table, table
    assert "ratios embedded/kafka" in out


def test_lag_service_bench():
    """The collector and the bare script agree on the offset lag (the bench exits 1 otherwise),
    and the embedded broker's request counts are read."""
    out = run_bench("lag_service.py")
    lines = [line.split() for line in out.splitlines() if line.startswith("embedded")]
    assert [line[1] for line in lines] == ["30", "100"], out
    assert all(line[-3].isdigit() and line[-2].isdigit() for line in lines), out
    assert "ratios: steady/first" in out

"""Fixtures for running the real kcli entry point against the embedded broker."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

import pytest

from kcli.broker import EmbeddedCluster


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_kcli(bootstrap: str | None, *args: str) -> Result:
    """``kcli.cli.main.main`` in this process (the console script's function), with its output."""
    from kcli.cli.main import main

    argv = list(args) + (["-b", bootstrap] if bootstrap else []) + ["--timeout", "10s"]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return Result(code, out.getvalue(), err.getvalue())


def run_kcli_process(bootstrap: str | None, *args: str, timeout: float = 60) -> Result:
    argv = [sys.executable, "-m", "kcli", *args] + (["-b", bootstrap] if bootstrap else [])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return Result(proc.returncode, proc.stdout, proc.stderr)


class Clock:
    """A settable clock for the broker, so creation times are exact."""

    def __init__(self, start_ms: int):
        self.now = start_ms

    def __call__(self) -> int:
        return self.now


@pytest.fixture(scope="module")
def clock():
    return Clock(1_736_937_000_000)      # 2025-01-15T10:30:00.000Z


@pytest.fixture(scope="module")
def cluster(clock):
    with EmbeddedCluster(nodes=3, clock=clock) as c:
        yield c


@pytest.fixture(scope="module")
def old_cluster():
    with EmbeddedCluster(nodes=1, pose_as="4.1") as c:
        yield c


@pytest.fixture(scope="module")
def pre_kip_cluster():
    """A broker posing as 2.8: no ListOffsets v7 (KIP-734), no DescribeTopicPartitions."""
    with EmbeddedCluster(nodes=1, pose_as="2.8") as c:
        yield c

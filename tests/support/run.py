"""Running kcli as a user does: the console script's function in this process (fast), or
``python -m kcli`` in a child process (what a shell sees, start-up included)."""

from __future__ import annotations

import io
import subprocess
import sys
from dataclasses import dataclass


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_kcli(bootstrap: str | None, *args: str, timeout: str = "10s") -> Result:
    """``kcli.cli.main.run`` in this process (what the console script runs), with its exit code
    and output."""
    from kcli.cli.main import run

    argv = list(args) + (["-b", bootstrap] if bootstrap else []) + ["--timeout", timeout]
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out, err)
    return Result(code, out.getvalue(), err.getvalue())


def run_dropin(*args: str) -> Result:
    """A drop-in's own command line (``kafka-consumer-groups ...``), as given: no kcli options added."""
    from kcli.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), out, err)
    return Result(code, out.getvalue(), err.getvalue())


def run_kcli_process(bootstrap: str | None, *args: str, timeout: float = 60, env=None) -> Result:
    argv = [sys.executable, "-m", "kcli", *args] + (["-b", bootstrap] if bootstrap else [])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=env)
    return Result(proc.returncode, proc.stdout, proc.stderr)

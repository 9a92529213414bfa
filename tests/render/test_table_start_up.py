"""Off a terminal, a simple table is printed without loading rich (start-up time of every command
that prints one); where rich's overrides make the output a terminal, rich still decides. Fresh
interpreters, as kcli starts."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = ("import sys\n"
        "from kcli.render.output import Output, Table\n"
        "Output('table').table(Table(['TOPIC', 'PARTITION'], [['orders', '0'], ['orders', '1']]))\n"
        "print('rich' in sys.modules)\n")


def _run(**env: str) -> list[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60,
                          env={**environ, **env})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_a_simple_table_off_a_terminal_needs_no_rich():
    assert _run() == [" TOPIC    PARTITION", "─" * 20, " orders   0", " orders   1", "False"]


def test_rich_decides_when_its_overrides_say_terminal():
    lines = _run(FORCE_COLOR="1")
    assert lines[-1] == "True" and "\x1b[1m" in lines[0]          # rich's bold header

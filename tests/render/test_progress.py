"""The progress bar of long operations: on a terminal's stderr only, never with JSON, never on stdout."""

import io
import os
import pty
import select

from kcli.render.output import Output


def _drain(fd: int) -> bytes:
    data = b""
    for _ in range(100):  # bounded: the bar writes a few hundred bytes at most
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data


def _run_on_terminal(fmt: str) -> tuple[bytes, str]:
    master, slave = pty.openpty()
    stdout = io.StringIO()
    with os.fdopen(slave, "w", closefd=True) as stderr:
        o = Output(fmt, stdout=stdout, stderr=stderr)
        with o.progress("Describing topics") as update:
            if update is not None:
                update(0, 3)
                update(3, 3)
        stderr.flush()
        written = _drain(master)
    os.close(master)
    return written, stdout.getvalue()


def test_bar_is_drawn_on_a_terminal_stderr_and_never_on_stdout():
    written, stdout = _run_on_terminal("table")
    assert b"Describing topics" in written
    assert stdout == ""


def test_json_output_gets_no_bar_even_on_a_terminal():
    written, _ = _run_on_terminal("json")
    assert written == b""


def test_no_bar_off_a_terminal():
    stderr, stdout = io.StringIO(), io.StringIO()
    o = Output("table", stdout=stdout, stderr=stderr)
    with o.progress("Resetting offsets") as update:
        assert update is None
    assert stderr.getvalue() == "" and stdout.getvalue() == ""

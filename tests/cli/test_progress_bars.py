"""Long operations show a progress bar on a terminal's stderr and nothing extra elsewhere, run
through the real entry point against the embedded broker."""

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios

import pytest

from kcli.broker import EmbeddedCluster

from tests.support.run import run_kcli_process

TOPICS = ("wide-a", "wide-b", "wide-c")   # 3 x 1500 partitions: DescribeTopicPartitions pages 3 times


@pytest.fixture(scope="module")
def wide():
    with EmbeddedCluster(nodes=1) as c:
        for name in TOPICS:
            c.create_topic(name, 1500, 1)
        yield c


def run_on_terminal(bootstrap: str, *args: str) -> tuple[int, str, str]:
    """Run kcli with stderr on a pseudo-terminal (stdout goes to a file); returns the exit code,
    stdout and what reached the terminal."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))  # rows, columns
    out = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "kcli", *args, "-b", bootstrap],
                            stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    terminal = b""
    for _ in range(2000):  # bounded: 2000 x 50 ms at most
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:   # the child closed the terminal
                chunk = b""
            terminal += chunk
            if chunk:
                continue
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=60)
    os.close(master)
    out.seek(0)
    return proc.returncode, out.read().decode(), terminal.decode(errors="replace")


def test_describe_topics_shows_a_bar_on_a_terminal_only(wide):
    b = wide.bootstrap_servers
    code, stdout, terminal = run_on_terminal(b, "describe", "topics", "wide-.*")
    assert code == 0, terminal
    assert "Describing topics" in terminal
    plain = run_kcli_process(b, "describe", "topics", "wide-.*")
    assert plain.code == 0 and plain.err == ""
    # A summary row per topic, then every partition.
    assert stdout == plain.out and sum(line.startswith(" wide-") for line in stdout.splitlines()) == len(TOPICS) + 4500
    as_json = run_on_terminal(b, "describe", "topics", "wide-.*", "-o", "json")
    assert as_json[0] == 0 and "Describing topics" not in as_json[2]


def test_reset_shows_planning_and_commit_bars(wide, tmp_path):
    b = wide.bootstrap_servers
    rollback = str(tmp_path / "rollback.csv")
    code, stdout, terminal = run_on_terminal(
        b, "reset-offsets", "--group", "bar-g", "--topic", "wide-a", "--to-earliest",
        "--execute", "--rollback-file", rollback, "-o", "plain")
    assert code == 0, terminal
    assert "Planning the reset" in terminal and "Committing offsets" in terminal
    assert stdout.count("wide-a") == 1500
    dry = run_kcli_process(b, "reset-offsets", "--group", "bar-g", "--topic", "wide-a",
                           "--to-earliest", "-o", "plain")
    assert dry.code == 0 and "Planning the reset" not in dry.err

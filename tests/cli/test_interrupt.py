"""Ctrl-C (SIGINT) while a command waits on a broker that never answers: one line on stderr,
exit 130 (128 + SIGINT, what a shell reports), no traceback, for the drop-ins (a traceback
before) as for the native commands (silent before). A real process, a hung embedded broker."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.waits import wait_until


@pytest.fixture(scope="module")
def hung():
    with EmbeddedCluster() as ec:
        ec.create_topic("t", 1)
        ec.fault("Metadata", "hang")
        yield ec


def _metadata_requests(ec) -> int:
    return sum(counts.get("Metadata", 0) for counts in ec.request_counts().values())


@pytest.mark.parametrize("line", [
    ["kafka-topics", "--bootstrap-server", "B", "--list"],
    ["kafka-consumer-groups", "--bootstrap-server", "B", "--describe", "--group", "g"],
    ["kafka-get-offsets", "--bootstrap-server", "B", "--topic", "t"],
    ["-b", "B", "list", "topics"],
    ["-b", "B", "describe", "groups", "g"],
])
def test_ctrl_c_while_a_broker_hangs_is_one_line_and_exit_130(hung, line):
    before = _metadata_requests(hung)
    argv = [sys.executable, "-m", "kcli", "--timeout", "60s",
            *[hung.bootstrap_servers if word == "B" else word for word in line]]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        wait_until(lambda: _metadata_requests(hung) > before or proc.poll() is not None, 30,
                   what="the command's Metadata request, which hangs")
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)            # far below the command's 60 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert (proc.returncode, out, err) == (130, "", "Error: interrupted (Ctrl-C)\n")

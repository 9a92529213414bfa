"""``kcli broker start`` on an address other than loopback warns (with --insecure; without
users or it, it is refused: tests/cli/test_broker_security.py). The rule is decided by a pure
function (tests never listen on anything but 127.0.0.1); the command is run end to end on
loopback, where it says nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kcli.broker.embedded import exposure_warning, parse_listen
from tests.support.run import run_kcli


@pytest.mark.parametrize("listen", ["0.0.0.0:0", "[::]:9092", "10.1.2.3:9092", "kafka-1.example:9092",
                                    "192.168.0.7:0", "[2001:db8::1]:9092"])
def test_a_non_loopback_listen_address_gets_one_warning(listen):
    warning = exposure_warning(parse_listen(listen)[0])
    assert warning.startswith("Warn: listening on ") and "\n" not in warning
    assert "no authentication or authorization" in warning


@pytest.mark.parametrize("listen", ["127.0.0.1:0", "127.0.0.2:9092", "[::1]:9092", "localhost:9092",
                                    "LOCALHOST:1"])
def test_loopback_gets_none(listen):
    assert exposure_warning(parse_listen(listen)[0]) is None


def test_broker_start_on_loopback_says_nothing_on_stderr_and_help_tells_the_rule():
    proc = subprocess.Popen([sys.executable, "-m", "kcli", "broker", "start", "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout.readline().startswith("bootstrap: 127.0.0.1:")
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0 and err == "", err
    help_text = " ".join(run_kcli(None, "broker", "start", "--help").out.split())
    assert ("Any address but loopback (127.0.0.1, ::1, localhost) needs users (--user, --users-file) or "
            "--insecure") in help_text


@pytest.mark.parametrize("listen", ["0.0.0.0:0", "[::]:0", ":::0"])
def test_the_unspecified_address_is_refused_as_it_would_be_advertised(listen):
    """``--listen 0.0.0.0:0`` advertised 0.0.0.0 to clients, which no client can connect to once
    it has bootstrapped (Kafka refuses to advertise it too): exit 2, one line, nothing bound."""
    r = subprocess.run([sys.executable, "-m", "kcli", "broker", "start", "--listen", listen],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (r.returncode, r.stdout) == (2, ""), r
    assert r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"Error: Invalid --listen '{listen}': ") and "every interface" in r.stderr
    assert "listen on 127.0.0.1" in r.stderr

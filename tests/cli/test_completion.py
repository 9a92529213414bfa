"""Shell completion against the embedded broker: bash completes a topic name through the hidden
``kcli __complete-names`` command, which is silent and bounded when the cluster is unreachable."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kcli.broker import EmbeddedCluster

ROOT = Path(__file__).resolve().parents[2]
BIN = str(Path(sys.executable).parent)


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCLI_")}
    env.update(PATH=BIN + os.pathsep + env.get("PATH", ""), XDG_CONFIG_HOME="/nonexistent", **extra)
    return env


def bash_complete(words: str, env: dict) -> list[str]:
    script = (f"source completions/kcli.bash; COMP_WORDS=({words}); COMP_CWORD={len(words.split()) - 1}; "
              '_kcli_completion; printf "%s\\n" "${COMPREPLY[@]}"')
    proc = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=20, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and proc.stderr == ""
    return [w for w in proc.stdout.splitlines() if w]


@pytest.fixture(scope="module")
def one_node():
    with EmbeddedCluster(nodes=1) as c:
        c.create_topic("orders", partitions=1)
        c.create_topic("payments", partitions=1)
        yield c


def test_bash_completes_topic_names_from_the_cluster(one_node):
    env = _env(KCLI_BOOTSTRAP_SERVER=one_node.bootstrap_servers)
    assert bash_complete("kcli describe topics ord", env) == ["orders"]
    assert bash_complete("kcli list-offsets --topic pay", env) == ["payments"]


def test_bash_passes_bootstrap_from_the_line(one_node):
    assert bash_complete(f"kcli describe topics -b {one_node.bootstrap_servers} ord", _env()) == ["orders"]


def test_bash_static_words():
    env = _env()
    assert bash_complete("kcli describe to", env) == ["topics"]
    assert bash_complete("kcli describe topics --exclude-i", env) == ["--exclude-internal"]
    assert bash_complete("kcli describe topics -o js", env) == ["json"]


def test_complete_names_is_silent_and_bounded_when_unreachable():
    with socket.socket() as s:                 # a port nothing listens on (bound, never accepting)
        s.bind(("127.0.0.1", 0))
        s.listen(0)
        port = s.getsockname()[1]
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "kcli", "__complete-names", "topics", "-b",
                               f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, env=_env())
        elapsed = time.monotonic() - t0
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert elapsed < 5
    assert bash_complete(f"kcli describe topics -b 127.0.0.1:{port} o", _env()) == []


def test_complete_names_hidden_and_silent_on_bad_input():
    proc = subprocess.run([sys.executable, "-m", "kcli", "__complete-names", "topics", "--profile", "nope"],
                          capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL, env=_env())
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    help_text = subprocess.run([sys.executable, "-m", "kcli", "--help"], capture_output=True, text=True,
                               timeout=20, env=_env()).stdout
    assert "__complete" not in help_text

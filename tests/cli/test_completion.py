"""Shell completion against the embedded broker: bash completes a topic name through the hidden
``kcli __complete-names`` command, which is silent and bounded when the cluster is unreachable.
The drop-ins complete their Java options and, after --topic and --group, names from the cluster,
as ``kcli TOOL`` and as their console scripts (``kcli-kafka-consumer-groups``)."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.clients import commit

ROOT = Path(__file__).resolve().parents[2]
BIN = str(Path(sys.executable).parent)


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCLI_")}
    env.update({"PATH": BIN + os.pathsep + env.get("PATH", ""), "XDG_CONFIG_HOME": "/nonexistent", **extra})
    return env


def bash_complete(words: str, env: dict) -> list[str]:
    """The replies of the bash function for the line ``words`` with the cursor at its end (as
    bash calls it: COMP_LINE, COMP_POINT; COMP_WORDS as split at the default COMP_WORDBREAKS)."""
    line = words.removesuffix(" ''") + (" " if words.endswith(" ''") else "")
    script = (f"source completions/kcli.bash; COMP_LINE={shlex.quote(line)}; COMP_POINT=${{#COMP_LINE}}; "
              f"COMP_WORDS=({words}); COMP_CWORD={len(words.split()) - 1}; "
              '_kcli_completion; printf "%s\\n" "${COMPREPLY[@]}"')
    proc = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=20, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and proc.stderr == ""
    return [w for w in proc.stdout.splitlines() if w]


def fish_complete(line: str, cwd, env: dict) -> list[str]:
    """fish's own completion engine (``complete -C``) on ``line``, the script loaded."""
    proc = subprocess.run(["fish", "--no-config", "-c", f"source {ROOT}/completions/kcli.fish; "
                           f"complete -C {shlex.quote(line)}"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return [w.split("\t")[0] for w in proc.stdout.splitlines()]


@pytest.fixture(scope="module")
def one_node():
    with EmbeddedCluster(nodes=1) as c:
        c.create_topic("orders", partitions=1)
        c.create_topic("payments", partitions=1)
        commit(c.bootstrap_servers, "billing", {("orders", 0): 0})
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
    assert bash_complete("kcli completion f", env) == ["fish"]


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


# -- in a real interactive shell under a pseudo terminal (tmux): Tab pressed, screen read -----
class Terminal:
    """An interactive shell in a detached tmux session of its own (own server socket), killed on
    exit."""

    def __init__(self, shell: list[str], cwd: Path, env: dict):
        if shutil.which("tmux") is None:
            pytest.fail("tmux is needed for the interactive completion tests (apt-get install tmux)")
        self.socket = f"kcli-test-{os.getpid()}-{time.monotonic_ns()}"
        self.tmux = ["tmux", "-L", self.socket, "-f", "/dev/null"]
        subprocess.run([*self.tmux, "new-session", "-d", "-x", "200", "-y", "40", "-c", str(cwd),
                        "--", *shell], env=env, check=True, timeout=10)

    def type(self, text: str, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-l", text], check=True, timeout=10)
        for key in keys:
            subprocess.run([*self.tmux, "send-keys", key], check=True, timeout=10)

    def screen(self) -> str:
        return subprocess.run([*self.tmux, "capture-pane", "-p"], capture_output=True, text=True,
                              check=True, timeout=10).stdout

    def wait_for(self, text: str, seconds: float = 15) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:             # bounded
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not on the screen:\n{self.screen()}")

    def wait_prompt(self, seconds: float = 15) -> None:
        """Until the last line is an empty prompt (tmux trims the blank after ``$``)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:             # bounded
            if self.line().rstrip() == "$":
                return
            time.sleep(0.1)
        raise AssertionError(f"no prompt:\n{self.screen()}")

    def line(self) -> str:
        """The last non-empty line: the prompt and what was typed."""
        rows = [row for row in self.screen().splitlines() if row.strip()]
        return rows[-1] if rows else ""

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture()
def shell_home(tmp_path, one_node):
    """A working directory holding a file whose name starts as a topic's does (what bash's
    fallback used to offer), a ``kcli`` on PATH, and a profile ``dev`` for the cluster."""
    (tmp_path / "ordinary.txt").write_text("not a topic\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kcli = bin_dir / "kcli"
    kcli.write_text(f"#!/bin/sh\nexec {sys.executable} -m kcli \"$@\"\n")
    kcli.chmod(0o755)
    script = bin_dir / "kcli-kafka-consumer-groups"          # the console script, as pip writes it
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'from kcli.cli.dropin import "
                      f"kafka_consumer_groups_main as m; m()' \"$@\"\n")
    script.chmod(0o755)
    (tmp_path / "config" / "kcli").mkdir(parents=True)
    (tmp_path / "config" / "kcli" / "config.toml").write_text(
        f'[profiles.dev]\nbootstrap_servers = "{one_node.bootstrap_servers}"\n')
    env = _env(XDG_CONFIG_HOME=str(tmp_path / "config"), PS1="$ ", HOME=str(tmp_path),
               PYTHONPATH=str(ROOT), TERM="xterm")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    return tmp_path, env


LINES = [   # (typed, the line once Tab completed it) with B the cluster's host:port
    ("kcli describe topics -b B ord", "kcli describe topics -b B orders "),
    ("kcli -b B list-offsets --topic pay", "kcli -b B list-offsets --topic payments "),
    ("kcli describe topics --bootstrap-server=B ord", "kcli describe topics --bootstrap-server=B orders "),
    ("kcli describe topics --profile dev pay", "kcli describe topics --profile dev payments "),
    ("kcli describe topics --profile=dev ord", "kcli describe topics --profile=dev orders "),
]


DROPIN_LINES = [   # the drop-ins: the Java tool's options, names after --topic and --group
    ("kcli kafka-consumer-groups --bootstrap-server B --describe --group bil",
     "kcli kafka-consumer-groups --bootstrap-server B --describe --group billing "),
    ("kcli kafka-topics --bootstrap-server B --describe --topic pay",
     "kcli kafka-topics --bootstrap-server B --describe --topic payments "),
    ("kcli --profile dev kafka-consumer-groups --describe --group bil",
     "kcli --profile dev kafka-consumer-groups --describe --group billing "),
    ("kcli kafka-consumer-groups --bootstrap-server B --reset-off",
     "kcli kafka-consumer-groups --bootstrap-server B --reset-offsets "),
    ("kcli kafka-consumer-groups --bootstrap-server B --to-ea",
     "kcli kafka-consumer-groups --bootstrap-server B --to-earliest "),
    ("kcli-kafka-consumer-groups --bootstrap-server B --describe --group bil",
     "kcli-kafka-consumer-groups --bootstrap-server B --describe --group billing "),
    ("kcli-kafka-consumer-groups --bootstrap-server B --all-t",
     "kcli-kafka-consumer-groups --bootstrap-server B --all-topics "),
]


DONE = "#done"       # typed after Tab: the shell takes it once the completion has returned


def _typed(terminal: Terminal, typed: str, b: str) -> str:
    """The line after Tab, as the shell left it once its completion returned (a completion that
    offers nothing leaves the line as typed: the mark typed after Tab shows it has returned)."""
    terminal.type(typed.replace("B", b), "Tab")
    terminal.type(DONE)
    deadline = time.monotonic() + 15
    while not terminal.line().rstrip().endswith(DONE) and time.monotonic() < deadline:
        time.sleep(0.1)                                  # bounded
    line = terminal.line().rstrip()
    assert line.endswith(DONE), f"the completion never returned:\n{terminal.screen()}"
    line = line[:-len(DONE)]
    terminal.type("", "C-c")
    terminal.wait_prompt(5)
    return line.replace(b, "B")


@pytest.mark.parametrize("typed, completed", LINES)
def test_interactive_bash_completes_with_host_port_on_the_line(shell_home, one_node, typed, completed):
    cwd, env = shell_home
    terminal = Terminal(["bash", "--norc", "--noprofile", "-i"], cwd, env)
    try:
        terminal.wait_prompt()
        terminal.type(f"source {ROOT}/completions/kcli.bash; clear", "Enter")
        terminal.wait_prompt()
        assert _typed(terminal, typed, one_node.bootstrap_servers).rstrip() == f"$ {completed}".rstrip()
    finally:
        terminal.close()


def test_interactive_bash_never_offers_files_for_a_topic(shell_home):
    cwd, env = shell_home
    with socket.socket() as s:                      # refused: no names come back
        s.bind(("127.0.0.1", 0))
        b = f"127.0.0.1:{s.getsockname()[1]}"
        terminal = Terminal(["bash", "--norc", "--noprofile", "-i"], cwd, env)
        try:
            terminal.wait_prompt()
            terminal.type(f"source {ROOT}/completions/kcli.bash; clear", "Enter")
            terminal.wait_prompt()
            line = _typed(terminal, "kcli describe topics -b B ord", b)
        finally:
            terminal.close()
    assert "ordinary.txt" not in line and line.rstrip() == "$ kcli describe topics -b B ord"


@pytest.mark.parametrize("typed, completed", [
    ("kcli list-offsets -t t --time ord", "kcli list-offsets -t t --time ord"),        # not ordinary.txt
    ("kcli list-offsets -t t --time earliest-p", "kcli list-offsets -t t --time earliest-pending-upload"),
    ("kcli list-offsets -t t --time=max", "kcli list-offsets -t t --time=max-timestamp"),
    ("kcli --timeout ord", "kcli --timeout ord"),
    ("kcli kafka-consumer-groups --to-datetime ord", "kcli kafka-consumer-groups --to-datetime ord"),
])
def test_interactive_bash_offers_no_file_names_for_a_value(shell_home, typed, completed):
    """A time, a duration, a number: never a file name (bash's fallback offered them); --time
    completes its names."""
    cwd, env = shell_home
    terminal = Terminal(["bash", "--norc", "--noprofile", "-i"], cwd, env)
    try:
        terminal.wait_prompt()
        terminal.type(f"source {ROOT}/completions/kcli.bash; clear", "Enter")
        terminal.wait_prompt()
        line = _typed(terminal, typed, "127.0.0.1:1")
    finally:
        terminal.close()
    assert line.rstrip() == f"$ {completed}", line


@pytest.mark.parametrize("lines", [LINES[:3], DROPIN_LINES], ids=["native", "dropins"])
def test_interactive_zsh_completes_with_host_port_on_the_line(shell_home, one_node, lines):
    cwd, env = shell_home
    terminal = Terminal(["zsh", "-f", "-i"], cwd, {**env, "PS1": "$ "})
    try:
        terminal.wait_prompt()
        terminal.type(f"autoload -Uz compinit; compinit -u -D; source {ROOT}/completions/_kcli; clear", "Enter")
        terminal.wait_prompt()
        for typed, completed in lines:
            assert _typed(terminal, typed, one_node.bootstrap_servers).rstrip() == f"$ {completed}".rstrip()
    finally:
        terminal.close()


@pytest.mark.parametrize("lines", [LINES, DROPIN_LINES], ids=["native", "dropins"])
def test_fish_completes_with_host_port_on_the_line(shell_home, one_node, lines):
    """fish's own completion engine (``complete -C``) on the line, with the script loaded."""
    cwd, env = shell_home
    b = one_node.bootstrap_servers
    for typed, completed in lines:
        assert fish_complete(typed.replace("B", b), cwd, env) == [completed.split()[-1]], typed


def _bash(cwd, env) -> Terminal:
    terminal = Terminal(["bash", "--norc", "--noprofile", "-i"], cwd, env)
    terminal.wait_prompt()
    terminal.type(f"source {ROOT}/completions/kcli.bash; clear", "Enter")
    terminal.wait_prompt()
    return terminal


@pytest.mark.parametrize("typed, completed", DROPIN_LINES)
def test_interactive_bash_completes_the_dropins(shell_home, one_node, typed, completed):
    cwd, env = shell_home
    terminal = _bash(cwd, env)
    try:
        assert _typed(terminal, typed, one_node.bootstrap_servers).rstrip() == f"$ {completed}".rstrip()
    finally:
        terminal.close()


def test_interactive_bash_lists_the_dropins_java_options_never_files(shell_home, one_node):
    """``--to`` Tab Tab lists the reset scenarios and --topic, the Java tool's options (kcli's
    own go before the tool's name); ``--group`` Tab with no cluster offers no file name."""
    cwd, env = shell_home
    terminal = _bash(cwd, env)
    try:
        terminal.type("kcli kafka-consumer-groups --bootstrap-server B --to".replace("B", one_node.bootstrap_servers),
                      "Tab", "Tab")
        screen = terminal.wait_for("--to-start-time")
        listed = {w for row in screen.splitlines()[1:] if not row.startswith("$") for w in row.split()}
        assert listed == {"--topic", "--to-offset", "--to-datetime", "--to-earliest", "--to-latest", "--to-current",
                          "--to-start-time"}, screen
        terminal.type("", "C-c")
        terminal.wait_prompt(5)
        with socket.socket() as s:                   # refused: no names come back
            s.bind(("127.0.0.1", 0))
            line = _typed(terminal, "kcli-kafka-consumer-groups --bootstrap-server B --describe --group ord",
                          f"127.0.0.1:{s.getsockname()[1]}")
        assert "ordinary.txt" not in line and line.rstrip().endswith("--group ord"), line
    finally:
        terminal.close()


def test_kcli_options_are_offered_before_a_dropins_name_not_after(shell_home):
    cwd, env = shell_home
    for line, expected in (("kcli --prof", ["--profile"]), ("kcli kafka-topics --prof", []),
                           ("kcli-kafka-consumer-groups --prof", []),
                           ("kcli --timeout 5s kafka-topics --exclude-i", ["--exclude-internal"])):
        assert fish_complete(line, cwd, env) == expected, line
        assert bash_complete(line, env) == expected, line

"""Every view the README and docs/ show, on a real 80-column terminal: kcli runs in a pseudo terminal under
tmux (its own server socket), its stdout the terminal, and the screen is read back. No table row
is wrapped by the terminal (tmux joins the lines it wrapped with ``capture-pane -J``: a row that
needed more than 80 columns is two lines on the screen and one joined); a view that leaves
columns out says which. The state is the expansion story of docs/lag-and-expansions.md, made by real clients against
the embedded broker: ``billing`` read ``orders`` (2 partitions), stopped, the topic grew to 4."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time

import pytest

from kcli.times import format_ms
from tests.support.groups import fast_cluster
from tests.support.clients import produce, tagged
from tests.support.stories import HOUR, NOW, expansion_story
from tests.support.clients import commit
from tests.support.waits import wait_until

WIDTH = 80


class Pty:
    """A tmux server of its own; each command in a new window of WIDTH columns."""

    def __init__(self, env: dict):
        if shutil.which("tmux") is None:
            pytest.fail("tmux is needed for the terminal tests (apt-get install tmux)")
        self.env = env
        self.socket = f"kcli-views-{os.getpid()}-{time.monotonic_ns()}"
        self.tmux = ["tmux", "-L", self.socket, "-f", "/dev/null"]
        self.n = 0
        # A session that lives as long as the server: the server never exits between commands.
        subprocess.run([*self.tmux, "new-session", "-d", "-s", "keep", "--", "sleep", "900"], env=env,
                       check=True, timeout=10)

    def run(self, bootstrap: str, args: list[str], errfile: str) -> tuple[list[str], list[str]]:
        """The screen after ``kcli args`` (stderr to ``errfile``): its lines as shown, and as
        tmux joins the lines it wrapped."""
        self.n += 1
        name = f"v{self.n}"
        line = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "kcli", *args, "-b", bootstrap])
        script = f"{line} 2>{shlex.quote(errfile)}; echo __EXIT__$?; exec sleep 600"
        subprocess.run([*self.tmux, "new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", "100",
                        "--", "sh", "-c", script], env=self.env, check=True, timeout=10)
        target = ["-t", name]
        screen = wait_until(lambda: (s := self._capture(target)) and "__EXIT__" in s and s,
                            timeout=60, interval=0.1, what=f"kcli {' '.join(args)}")
        joined = self._capture(target, "-J")
        subprocess.run([*self.tmux, "kill-session", *target], capture_output=True, timeout=10)
        shown, whole = screen.rstrip("\n").splitlines(), joined.rstrip("\n").splitlines()
        return shown[: next(i for i, s in enumerate(shown) if "__EXIT__" in s) + 1], \
            whole[: next(i for i, s in enumerate(whole) if "__EXIT__" in s) + 1]

    def _capture(self, target: list[str], *flags: str) -> str:
        return subprocess.run([*self.tmux, "capture-pane", "-p", *flags, *target], capture_output=True,
                              text=True, timeout=10).stdout

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    state = tmp_path_factory.mktemp("state")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")
           and not k.startswith("KCLI_")}
    env.update(XDG_STATE_HOME=str(state), XDG_CONFIG_HOME="/nonexistent", TERM="xterm")
    pty = Pty(env)
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        expansion_story(ec)
        try:
            yield pty, b, str(state)
        finally:
            pty.close()


def _check(pty: Pty, b: str, errfile: str, *args: str) -> list[str]:
    shown, whole = pty.run(b, list(args), errfile)
    assert whole[-1].startswith("__EXIT__"), whole
    table = [line for line in whole if line.startswith((" ", "─"))]
    assert table, (args, shown)                      # a table was printed
    wrapped = [line for line in table if len(line) > WIDTH]
    assert not wrapped, (args, "\n".join(shown))     # no row was wrapped by the terminal ...
    assert len(shown) == len(whole), (args, "\n".join(shown))  # nor any other line of stdout
    header = table[0].split()
    start = next((i for i, line in enumerate(whole) if line.startswith("(not shown")), None)
    note = "" if start is None else " ".join(whole[start: next(
        i for i in range(start, len(whole)) if "show all)" in whole[i]) + 1])
    return header + ([note] if note else [])


def test_every_readme_view_fits_80_columns(story, tmp_path):
    pty, b, _ = story
    err = str(tmp_path / "err")
    views = [
        ("reset-offsets", "--group", "billing", "--topic", "orders", "--to-start-time", "--dry-run"),
        ("describe", "groups", "billing"),
        ("describe", "groups", "billing", "--state", "--verbose"),
        ("describe", "topics", "orders"),
        ("describe", "configs", "--topic", "orders"),
        ("list", "groups"),
        ("list-offsets", "--topic", "orders", "--max-timestamp"),
        ("reset-offsets", "-g", "billing", "-t", "orders", "--to-latest", "--max-age", "1h"),
        # Skips unread records, with a time: SKIPS-UNREAD and RECORD-TIMESTAMP.
        ("reset-offsets", "-g", "billing", "-t", "orders", "--to-datetime", format_ms(NOW - HOUR)),
    ]
    seen = {}
    for args in views:
        seen[args] = _check(pty, b, err, *args)
    # What the view is for stays: the time lag, the reset's outcome, the KIP-937 meaning.
    assert "TIME-LAG" in seen[views[1]] and "NEXT-RECORD-TIME" in seen[views[1]]
    assert "NEW-OFFSET" in seen[views[0]] and "RECORD-TIMESTAMP" in seen[views[0]]
    assert "MEANING" in seen[views[4]]
    skips = seen[views[-1]]
    assert "SKIPS-UNREAD" in skips and "RECORD-TIMESTAMP" in skips


def test_compare_and_the_expansion_radar_fit_80_columns(story, tmp_path):
    pty, b, _ = story
    err = str(tmp_path / "err")
    compare = _check(pty, b, err, "reset-offsets", "-g", "billing", "-t", "orders", "--compare")
    assert "EARLIEST+/-" in compare and "LATEST+/-" in compare
    assert "(not shown at 80 columns:" in compare[-1] and "BY-DURATION-1h+/-" in compare[-1]
    exposed = _check(pty, b, err, "check", "expansions")
    assert {"PARTITION", "AGE", "GROUP", "EXPOSED", "STATUS"} <= set(exposed)
    produce(b, "orders", tagged("late2", 2, 2))
    produce(b, "orders", tagged("late3", 3, 2))
    commit(b, "billing", {("orders", 2): 6, ("orders", 3): 6})
    lost = _check(pty, b, err, "check", "expansions", "-g", "billing")
    assert {"SUSPECTED-LOST", "STATUS"} <= set(lost)

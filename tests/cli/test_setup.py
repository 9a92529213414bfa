"""The README's set-up, as a new user runs it: a fresh copy of the repository (its tracked and
new files, as a clone would have them), the README's first command in bash (kcli installed
editable into .venv, offline from the wheels scripts/test.sh keeps in ~/.cache/kcli/wheels, then
``kcli demo``), then ``man kcli``, ``man kcli-reset-offsets`` and the completion's set-up line
(``source <(kcli completion bash)``) in the same shell: ``kcli`` must be on its PATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHEELS = Path.home() / ".cache" / "kcli" / "wheels"


def _first_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Set up.*?```sh\n(.*?)```", readme, re.S)
    assert block, "the README has no set-up command"
    line = block.group(1).strip()
    assert "kcli demo;" in line, line      # the demo's exit code, read below, is the one before ';'
    return line.replace("kcli demo;", "kcli demo; demo=$?;", 1)


def _fresh_clone(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def test_the_readmes_first_command_leaves_a_working_man_kcli(tmp_path):
    if shutil.which("man") is None:
        pytest.fail("man is not installed: scripts/test.sh installs man-db")
    assert any(WHEELS.glob("setuptools-*.whl")), f"no wheels in {WHEELS}: run scripts/test.sh"
    clone = _fresh_clone(tmp_path / "kcli")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MANPATH", "VIRTUAL_ENV")}
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELS), PIP_DISABLE_PIP_VERSION_CHECK="1",
               MANPAGER="cat", PAGER="cat", MANWIDTH="100", XDG_STATE_HOME=str(tmp_path / "state"))
    script = (f"{_first_command()}\n"
              "echo \"--- demo exit $demo\"\n"
              "echo '--- man -w'; man -w kcli\n"
              "echo '--- man kcli'; man kcli\n"
              "echo '--- man kcli-reset-offsets'; man kcli-reset-offsets\n"
              "echo '--- completion'; source <(kcli completion bash) && complete -p kcli\n")
    r = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True,
                       timeout=600, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]
    demo, rest = r.stdout.split("--- man -w\n", 1)
    assert demo.rstrip().endswith("--- demo exit 0") and "$ kcli describe groups" in demo, demo[-2000:]
    where, rest = rest.split("--- man kcli\n", 1)
    assert where.strip() == str(clone / "man" / "man1" / "kcli.1"), where
    rest, completion = rest.split("--- completion\n", 1)
    assert completion.startswith("complete -o default -F _kcli_completion kcli"), (completion, r.stderr[-2000:])
    root_page, reset_page = rest.split("--- man kcli-reset-offsets\n", 1)
    assert "kcli - operate Apache Kafka topics, consumer groups and offsets" in root_page
    reset_text = " ".join(reset_page.replace("\u2010\n", "").split())
    assert "$XDG_STATE_HOME/kcli/rollback/" in reset_text.split("FILES", 1)[1]
    assert "kcli reset-offsets --from-file ROLLBACK-FILE --execute" in reset_text
    assert "own rollback files restore without --allow-skip" in reset_text

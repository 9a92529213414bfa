"""Installed as a package, kcli brings its completion scripts and man pages: the wheel built from
the repository (``pip wheel .``), installed into a fresh venv, prints the shipped script with
``kcli completion SHELL`` and has its man pages under ``<venv>/share/man/man1``, where ``man``
finds them through PATH. kcli's dependencies come from the test's own environment (a path
entry, not its packages: the editable kcli there stays out)."""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
from pathlib import Path

import pytest

from kcli.cli.complete import SCRIPTS

ROOT = Path(__file__).resolve().parents[2]


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MANPATH", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                            "-w", str(dist)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    (built,) = dist.glob("kcli_kafka-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel):
    tmp = tmp_path_factory.mktemp("installed")
    env = _clean_env()
    subprocess.run([sys.executable, "-m", "venv", str(tmp / "venv")], check=True, timeout=120, env=env)
    python = tmp / "venv" / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                              str(wheel)], capture_output=True, text=True, timeout=300, env=env)
    assert install.returncode == 0, install.stderr
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True, timeout=30, env=env).stdout.strip()
    Path(purelib, "test-dependencies.pth").write_text(site.getsitepackages()[0] + "\n")
    env["PATH"] = f"{tmp / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return tmp / "venv", env, tmp


def _run(env, cwd, *args):
    return subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd, timeout=60,
                          stdin=subprocess.DEVNULL)


def test_installed_kcli_runs_from_the_wheel(venv):
    root, env, cwd = venv
    r = _run(env, cwd, str(root / "bin" / "python"), "-c", "import kcli; print(kcli.__file__)")
    assert r.returncode == 0 and r.stdout.startswith(str(root)), (r.stdout, r.stderr)


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_completion_prints_the_shipped_script(venv, shell):
    root, env, cwd = venv
    r = _run(env, cwd, str(root / "bin" / "kcli"), "completion", shell)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (ROOT / "completions" / SCRIPTS[shell]).read_text(encoding="utf-8")


def test_man_pages_are_installed_where_man_finds_them(venv):
    root, env, cwd = venv
    pages = sorted(p.name for p in (ROOT / "man" / "man1").glob("*.1"))
    installed = root / "share" / "man" / "man1"
    assert sorted(p.name for p in installed.glob("*.1")) == pages
    for name in pages:
        shipped = (ROOT / "man" / "man1" / name).read_text(encoding="utf-8")
        assert (installed / name).read_text(encoding="utf-8") == shipped
    found = _run(env, cwd, "man", "-w", "kcli-describe-topics")      # man-db: MANPATH from PATH
    assert found.returncode == 0 and found.stdout.strip() == str(installed / "kcli-describe-topics.1"), found


def test_bash_sourcing_the_printed_script_completes(venv):
    root, env, cwd = venv
    r = _run(env, cwd, "bash", "-c", "source <(kcli completion bash); COMP_LINE='kcli describe to'; "
             "COMP_POINT=${#COMP_LINE}; _kcli_completion; echo \"${COMPREPLY[@]}\"")
    assert r.returncode == 0 and r.stdout.strip() == "topics", (r.stdout, r.stderr)


def test_uv_tool_install_then_the_readme_lines(wheel, tmp_path):
    """``uv tool install`` of the wheel, offline from the dependency wheels scripts/test.sh
    downloaded; then the README's own MANPATH line finds the pages and the tool's kcli prints
    the completion script."""
    import shutil

    uv = shutil.which("uv", path=str(Path(sys.executable).parent))
    wheels = Path.home() / ".cache" / "kcli" / "wheels"
    assert uv, "uv is not installed: install kcli's [dev] extra (scripts/test.sh does)"
    assert any(wheels.glob("*.whl")), f"no dependency wheels in {wheels}: run scripts/test.sh"
    manpath = re.search(r"`(export MANPATH=[^`]*)`", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert manpath, "the README no longer says how to find the man pages after uv tool install"
    env = {**_clean_env(), "UV_TOOL_DIR": str(tmp_path / "tools"),
           "UV_TOOL_BIN_DIR": str(tmp_path / "bin"), "UV_CACHE_DIR": str(tmp_path / "cache")}
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{Path(uv).parent}{os.pathsep}{env.get('PATH', '')}"
    install = subprocess.run([uv, "tool", "install", "--offline", "--no-index", "--find-links",
                              str(wheels), str(wheel)], capture_output=True, text=True, env=env,
                             timeout=300, stdin=subprocess.DEVNULL)
    assert install.returncode == 0, install.stderr
    r = _run(env, tmp_path, "bash", "-c", f"{manpath.group(1)}; man -w kcli-describe-topics")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "tools" / "kcli-kafka" / "share" / "man" / "man1"
                                   / "kcli-describe-topics.1")
    r = _run(env, tmp_path, "kcli", "completion", "zsh")
    assert r.returncode == 0 and r.stdout == (ROOT / "completions" / SCRIPTS["zsh"]).read_text(encoding="utf-8")

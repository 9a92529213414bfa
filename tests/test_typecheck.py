"""The type checker holds the admin client to the ``Admin`` Protocol: a copy of kcli whose
KafkaAdmin drops a parameter of a method the Protocol declares fails mypy, naming that method,
where the unchanged copy passes (mypy as the test command runs it, pyproject.toml's settings)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DECLARED = "    def list_offsets(self, partitions: Iterable[tuple[str, int]], time: int) -> list[OffsetInfo]:\n"
DROPPED = "    def list_offsets(self, partitions: Iterable[tuple[str, int]]) -> list[OffsetInfo]:\n"


def _mypy(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tree / ".mypy_cache")],
                          cwd=tree, capture_output=True, text=True, timeout=600)


def test_a_client_method_off_the_admin_protocol_fails_mypy(tmp_path):
    shutil.copytree(ROOT / "kcli", tmp_path / "kcli", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    if (ROOT / ".mypy_cache").is_dir():      # the test command's own run: a warm start, same files
        shutil.copytree(ROOT / ".mypy_cache", tmp_path / ".mypy_cache")
    assert "def list_offsets(self, partitions: Iterable[TP], time: int)" in (
        tmp_path / "kcli" / "admin" / "__init__.py").read_text()          # the Protocol's

    unchanged = _mypy(tmp_path)
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr

    client = tmp_path / "kcli" / "admin" / "client.py"
    source = client.read_text()
    assert source.count(DECLARED) == 1
    client.write_text(source.replace(DECLARED, DROPPED))
    changed = _mypy(tmp_path)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    errors = [line for line in changed.stdout.splitlines() if ": error: " in line]
    assert errors and all(line.startswith("kcli/admin/client.py:") for line in errors), changed.stdout
    assert any('Signature of "list_offsets" incompatible with supertype "kcli.admin.Admin"' in line
               for line in errors), changed.stdout

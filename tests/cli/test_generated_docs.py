"""man/ and completions/ are generated from the command tree by scripts/gen_docs.py: these fail when
a committed file differs from what the script generates now (run `python scripts/gen_docs.py`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_docs", module)          # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def files(gen):
    return gen.generate()


def _fresh(gen, files, folder):
    mine = {p: t for p, t in files.items() if p.startswith(folder + "/")}
    stale = [p for p in gen.stale(files) if p.startswith(folder + "/")]
    assert not stale, f"out of date (run: python scripts/gen_docs.py): {stale}"
    return mine


def test_man_pages_are_current(gen, files):
    pages = _fresh(gen, files, "man")
    assert "man/man1/kcli.1" in pages and "man/man1/kcli-describe-topics.1" in pages
    root = pages["man/man1/kcli.1"]
    for needle in (".SH EXIT STATUS", ".SH ENVIRONMENT", "KCLI_BOOTSTRAP_SERVER", "KCLI_PROFILE",
                   "kcli\\-describe\\-groups", "\\-\\-profile"):
        assert needle in root
    assert "__complete" not in "".join(pages)            # the hidden command has no page


def test_completions_are_current(gen, files):
    scripts = _fresh(gen, files, "completions")
    assert set(scripts) == {"completions/kcli.bash", "completions/_kcli", "completions/kcli.fish",
                            "completions/kcli.ps1"}
    for text in scripts.values():
        assert "__complete-names" in text and "'arg:kcli describe topics'" in text


def test_completion_spec_knows_what_names_what(gen):
    spec = gen.completion_spec(gen.command_tree())
    assert spec["arg:kcli describe topics"] == "topics"
    assert spec["arg:kcli describe groups"] == "groups"
    assert spec["kind:kcli reset-offsets --group"] == "groups"
    assert spec["kind:kcli reset-offsets --topic"] == "topics"
    assert spec["kind:global --profile"] == "profiles"
    assert "arg:kcli create topic" not in spec            # a new topic's name is not completed

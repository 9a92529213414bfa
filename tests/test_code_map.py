"""The code map (the block under "## Code layout", in README.md or, once moved, a page of
docs/) is checked against ``kcli/``: it names every package (at any depth) and every top-level
module, and every path or module it names exists. A bare ``name.py`` in an entry is a module of that entry's package."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KCLI = ROOT / "kcli"


def map_page() -> str:
    """The text of the page that holds the code map."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
    found = [p for p in pages if p.is_file() and "\n## Code layout" in p.read_text(encoding="utf-8")]
    assert len(found) == 1, f"one page holds the code map ('## Code layout'), not {found}"
    return found[0].read_text(encoding="utf-8")


def code_map(readme: str) -> dict[str, list[str]]:
    """{entry path: the modules and paths its text mentions (``tree.py``, ``kcli/protocol/``)},
    in the map's order."""
    section = readme.split("\n## Code layout", 1)[1]
    block = section.split("```\n", 2)[1]
    entries: dict[str, list[str]] = {}
    current = None
    for line in block.splitlines():
        if line and not line[0].isspace():
            current, _, text = line.partition(" ")
            entries[current] = []
        else:
            text = line
        if current is not None:
            entries[current] += re.findall(r"(?<![\w/.$])((?:kcli/(?:\w+/)*)?\w+\.py|kcli/(?:\w+/)+)", text)
    return entries


def required() -> set[str]:
    """Every package under kcli/ (``kcli/x/y/``) and every top-level module (``kcli/x.py``)."""
    packages = {str(p.parent.relative_to(ROOT)) + "/" for p in KCLI.rglob("__init__.py")} - {"kcli/"}
    modules = {str(p.relative_to(ROOT)) for p in KCLI.glob("*.py") if p.name != "__init__.py"}
    return packages | modules


def problems(entries: dict[str, list[str]]) -> list[str]:
    out = [f"the code map misses {name}" for name in sorted(required() - set(entries))]
    for entry, names in entries.items():
        path = ROOT / entry
        if not path.exists():
            out.append(f"the code map names {entry}, which does not exist")
            continue
        package = path if path.is_dir() else path.parent
        for name in names:
            if name.startswith("kcli/") and not (ROOT / name).exists():
                out.append(f"the code map's {entry} names {name}, which does not exist")
            elif not name.startswith("kcli/") and not (package / name).is_file():
                out.append(f"the code map's {entry} names {name}, which is not in {package.relative_to(ROOT)}/")
    return out


def test_the_code_map_names_every_package_and_top_level_module_and_nothing_else():
    assert not problems(code_map(map_page()))


def test_the_check_sees_a_missing_and_a_wrong_entry():
    entries = code_map(map_page())
    del entries["kcli/ops/"]
    entries["kcli/gone/"] = []
    entries["kcli/cli/"] = ["tree.py", "nosuch.py", "kcli/protocol/", "kcli/nosuch/"]
    assert problems(entries) == ["the code map misses kcli/ops/",
                                 "the code map's kcli/cli/ names nosuch.py, which is not in kcli/cli/",
                                 "the code map's kcli/cli/ names kcli/nosuch/, which does not exist",
                                 "the code map names kcli/gone/, which does not exist"]
    assert code_map("\n## Code layout\n```\nkcli/a/  x.py and kcli/b/c.py, not $HOME/kcli/d.py\n"
                    "         y.py\n```\n") == {"kcli/a/": ["x.py", "kcli/b/c.py", "y.py"]}

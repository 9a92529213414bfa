"""The documentation holds together: README.md stays the operator's page (at most
``README_MAX_LINES`` lines; the rest lives in docs/), and every relative link in README.md and
docs/*.md points to a file that exists and, with a ``#fragment``, to a heading of that file (as
GitHub names a heading's anchor)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 300
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {anchor(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", FENCE.sub("", text), re.M)}


def broken_links(page: Path, text: str) -> list[str]:
    """The relative links of ``text`` (the page ``page``) that lead nowhere, outside code blocks."""
    out = []
    for target in LINK.findall(FENCE.sub("", text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):         # http:, https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            out.append(f"{page.relative_to(ROOT)}: {target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(
                text if not path else dest.read_text(encoding="utf-8")):
            out.append(f"{page.relative_to(ROOT)}: {target}: no heading #{fragment} in {dest.name}")
    return out


def test_the_readme_is_at_most_300_lines():
    lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines, more than {README_MAX_LINES}: move the details into docs/ and link them")


def test_every_relative_link_of_the_readme_and_docs_leads_to_a_file_and_heading():
    assert (ROOT / "docs").is_dir() and len(pages()) > 1
    problems = [p for page in pages() for p in broken_links(page, page.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


def test_the_readme_links_every_page_of_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not [p.name for p in pages()[1:] if f"(docs/{p.name}" not in readme]


def test_the_link_check_sees_a_missing_file_and_a_missing_heading():
    page = ROOT / "docs" / "developing.md"
    text = ("## Code layout, `kcli/`: the map!\n[a](../README.md#exit-codes) [b](nosuch.md) "
            "[c](../README.md#nosuch) [d](#code-layout-kcli-the-map) [e](https://x.org/y)\n"
            "```\n[f](inside-a-code-block.md)\n```\n")
    assert broken_links(page, text) == ["docs/developing.md: nosuch.md: no such file",
                                        "docs/developing.md: ../README.md#nosuch: no heading #nosuch in README.md"]

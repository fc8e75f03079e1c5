"""Every relative link in the README, docs/ and benchmarks/README.md points at a file that
exists, and a link to a heading (`page.md#section`) at a heading that page has: the README is
short because it links to the rest, so a broken link loses the reader."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", ROOT / "benchmarks" / "README.md",
                *(ROOT / "docs").glob("*.md")])


def links(text: str) -> list[str]:
    """The targets of the page's links and images (never those inside code)."""
    found = []
    inline = (child for block in MarkdownIt("commonmark").enable("table").parse(text)
              for child in block.children or ())
    for token in inline:
        if token.type == "link_open":
            found.append(token.attrGet("href"))
        elif token.type == "image":
            found.append(token.attrGet("src"))
    return found


def anchors(text: str) -> set[str]:
    """GitHub's ids for the page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated id numbered."""
    seen: dict[str, int] = {}
    ids = set()
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    for opening, inline in pairwise(tokens):
        if opening.type != "heading_open":
            continue
        slug = re.sub(r"[^\w\- ]", "", inline.content.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def broken_links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    broken = []
    for href in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", href):  # http:, https:, mailto:
            continue
        path_part, _, fragment = href.partition("#")
        target = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not target.exists():
            broken.append(f"{href}: no such file")
        elif fragment and target.suffix == ".md" and unquote(fragment) not in anchors(
                target.read_text(encoding="utf-8")):
            broken.append(f"{href}: no heading #{fragment} in {target.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_the_check_finds_a_broken_file_and_a_broken_heading(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## The `--vote` flag\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#the---vote-flag) [gone](missing.md) [bad](other.md#nope)\n"
                    "[web](https://example.org/x.md) `[code](missing-too.md)`\n"
                    "![pic](pics/none.png) [self](#top)\n\n# Top\n")
    assert broken_links(page) == ["missing.md: no such file",
                                  "other.md#nope: no heading #nope in other.md",
                                  "pics/none.png: no such file"]

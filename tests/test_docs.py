"""The documentation stands alone: every relative link in the README and docs/ names a
file of the repository (and, with a #fragment, a heading of that file, as GitHub makes
anchors), and nothing points outside the repository's tree."""

from __future__ import annotations

import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def documents() -> list[str]:
    """The README and every page of docs/, as repository paths."""
    return ["README.md", *sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))]


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to dashes."""
    text = heading.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown text's headings (outside fenced blocks)."""
    return {anchor(line.lstrip("#")) for line in FENCED.sub("", text).splitlines() if line.startswith("#")}


def broken_links(path: str, text: str) -> list[str]:
    """The relative links of ``text`` (the document at repository path ``path``) that
    name no file under ROOT, or a heading the file lacks."""
    bad = []
    prose = INLINE_CODE.sub("", FENCED.sub("", text))
    for link in LINK.findall(prose):
        if re.match(r"[a-z]+:", link):
            continue
        target, _, fragment = link.partition("#")
        full = os.path.normpath(os.path.join(ROOT, os.path.dirname(path), target or os.path.basename(path)))
        if not full.startswith(ROOT + os.sep) or not os.path.exists(full):
            bad.append(link)
        elif fragment and full.endswith(".md") and fragment not in anchors(open(full).read()):
            bad.append(link)
    return bad


@pytest.mark.parametrize("path", documents())
def test_relative_links_resolve(path):
    assert broken_links(path, open(os.path.join(ROOT, path)).read()) == []


def test_broken_links_are_found(tmp_path):
    # negative control: a missing file, a missing heading, and a file that exists outside the tree
    outside = tmp_path / "page.md"
    outside.write_text("# Page\n")
    away = os.path.relpath(outside, ROOT)
    text = (
        f"[a](docs/usage.md#blueprints) [b](docs/no-such-page.md) [c](docs/usage.md#no-such-heading) "
        f"[d]({away}) [e](https://example.org/x) `[f](nowhere.md)`"
    )
    expected = ["docs/no-such-page.md", "docs/usage.md#no-such-heading", away]
    assert broken_links("README.md", text) == expected


def test_anchor_follows_github():
    assert anchor(" First run: kernels compiled once (2026-11-27)") == "first-run-kernels-compiled-once-2026-11-27"
    assert anchor(" The `large` preset") == "the-large-preset"


def test_the_evaluation_summary_fits_one_screen():
    """docs/evaluation.md's summary: at most 30 lines and 3,000 bytes, history elsewhere."""
    text = open(os.path.join(ROOT, "docs", "evaluation.md")).read()
    start = text.index("## Where strength stands (summary)")
    end = text.index("\n## ", start + 1)
    summary = text[start:end].rstrip("\n")
    assert len(summary.splitlines()) <= 30 and len(summary.encode()) <= 3000, (len(summary.splitlines()), len(summary))
    assert "evaluation-history.md" in summary

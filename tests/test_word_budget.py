"""The main path stays short enough to read once, from the front (issue 23, item 3).

The main path is the "Start here" pages and Parts I-IV, as ``_toc.yml`` lists them. Words
are counted in every Markdown cell of a chapter notebook, split on white space (an ``{eval}``
role counts as the words of its source, a formula as its pieces): a count a reader of the
notebook file can redo with ``len(cell.source.split())``. Code cells and outputs do not count.
"""

from __future__ import annotations

import nbformat
import pytest
from conftest import ROOT, toc_docnames

#: At most this many words of prose on the whole main path.
MAIN_PATH_WORDS = 35_000
#: At most this many words of prose in any one chapter.
CHAPTER_WORDS = 3_500

MAIN_PATH_PREFIXES = (
    "book/start/",
    "book/part1-speedup-bounds/",
    "book/part2-cost-accounting/",
    "book/part3-beyond/",
    "book/part4-engines/",
)


def main_path() -> list[str]:
    """The main path's chapters, in reading order."""
    return [d for d in toc_docnames() if d.startswith(MAIN_PATH_PREFIXES) and (ROOT / f"{d}.ipynb").exists()]


def prose_words(docname: str) -> int:
    """Whitespace-separated words in the Markdown cells of one chapter notebook."""
    nb = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
    return sum(len(cell.source.split()) for cell in nb.cells if cell.cell_type == "markdown")


def test_main_path_lists_every_part():
    """The word budget sees Start here and all four Parts (a renamed folder would hide a Part)."""
    found = {prefix for prefix in MAIN_PATH_PREFIXES if any(d.startswith(prefix) for d in main_path())}
    assert found == set(MAIN_PATH_PREFIXES)


def test_counting_rule_on_a_known_notebook(tmp_path):
    """The count is Markdown words only: code cells and outputs add nothing."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\nTwo words {eval}`f'{x:.2f}'`."),
                nbformat.v4.new_code_cell("x = 1  # many words in a comment here")]
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, path)
    words = sum(len(c.source.split()) for c in nbformat.read(path, as_version=4).cells
                if c.cell_type == "markdown")
    assert words == 5


@pytest.mark.parametrize("chapter", main_path())
def test_chapter_is_within_its_budget(chapter):
    """No chapter of the main path has more than CHAPTER_WORDS words of prose."""
    words = prose_words(chapter)
    assert words <= CHAPTER_WORDS, f"{chapter}: {words} words of prose, more than {CHAPTER_WORDS}"


def test_main_path_is_within_its_budget():
    """The whole main path has at most MAIN_PATH_WORDS words of prose."""
    counts = {d: prose_words(d) for d in main_path()}
    total = sum(counts.values())
    longest = sorted(counts.items(), key=lambda item: -item[1])[:5]
    assert total <= MAIN_PATH_WORDS, f"{total} words on the main path (longest: {longest})"

"""The one table-of-contents reader (scripts/book_toc.py), and the package standing alone from the book.

The reader's numbering is checked on a hand-written table of contents (Jupyter Book's rule: numbered parts
count on, unnumbered parts use no number); tests/test_built_html.py checks it against the numbers Sphinx
puts in the built pages. No ``specdec`` module may read the book: no path built from ``__file__`` may climb
out of the package, and no module may name the book's table of contents.
"""

from __future__ import annotations

import ast
import pathlib

import book_toc
import pytest

from specdec.exercises import _chapters

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "specdec"

TOC = ("format: jb-book\nroot: intro\nparts:\n"
       "  - caption: Start here\n    chapters:\n      - file: book/start/decide\n"
       "  - caption: Part I\n    numbered: true\n    chapters:\n      - file: a\n        sections:\n"
       "          - file: a/sub\n      - file: b\n"
       "  - caption: Part IV\n    numbered: true\n    chapters:\n      - file: c\n"
       "  - caption: Appendix\n    chapters:\n      - file: z\n")


@pytest.fixture
def toc(tmp_path):
    (tmp_path / "_toc.yml").write_text(TOC)
    return tmp_path


def test_numbering_follows_the_toc_with_unnumbered_parts(toc):
    """An unnumbered part (Start here, the appendix) uses no number; numbered parts count on across parts."""
    assert book_toc.chapter_numbers(toc) == {"a": 1, "b": 2, "c": 3}
    assert book_toc.chapter_order(toc) == {"book/start/decide": 0, "a": 1, "b": 2, "c": 3, "z": 4}
    assert book_toc.documents(toc) == ("intro", "book/start/decide", "a", "a/sub", "b", "c", "z")
    assert [c.sections for c in book_toc.chapters(toc)] == [(), ("a/sub",), (), (), ()]
    assert book_toc.exercise_numbering(toc) == {
        "numbers": {"a": 1, "b": 2, "c": 3}, "order": ["book/start/decide", "a", "b", "c", "z"],
        "captions": {"book/start/decide": "Start here", "z": "Appendix"}}


def test_the_book_has_22_numbered_chapters_start_here_first():
    numbers = book_toc.chapter_numbers(ROOT)
    assert sorted(numbers.values()) == list(range(1, 23))
    assert numbers["book/part2-cost-accounting/01-verification-pass"] == 6
    assert numbers["book/part4-engines/01-calibrated-roofline"] == 16
    assert book_toc.documents(ROOT)[0] == "book/intro"
    assert next(iter(book_toc.chapter_order(ROOT))) == "book/start/answer-in-ten-minutes"
    assert book_toc.title("book/part2-cost-accounting/03-break-even", ROOT) == "The break-even condition"


def test_chapters_without_a_numbering_show_titles_only():
    """The package guesses no number: without one handed in, a chapter shows its title and no number."""
    saved = _chapters.numbering()
    try:
        _chapters.number_chapters()
        chapter = _chapters.Chapter("book/part2-cost-accounting/01-verification-pass", "Why")
        assert (chapter.number, chapter.position, chapter.heading()) == (None, None, "Why")
        _chapters.number_chapters(**book_toc.exercise_numbering(ROOT))
        assert chapter.number == 6 and chapter.heading() == "Chapter 6. Why"
        with pytest.raises(ValueError, match="numbers must map"):
            _chapters.number_chapters({"a": 0})
    finally:
        _chapters.number_chapters(**saved)


def _climbs(node: ast.AST) -> int:
    """How many directories above its file a ``Path(__file__)...parents[n]`` / ``.parent`` chain climbs."""
    up = 0
    while True:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            index = node.slice
            up += (index.value + 1) if isinstance(index, ast.Constant) and isinstance(index.value, int) else 99
            node = node.value.value
        elif isinstance(node, ast.Attribute) and node.attr == "parent":
            up += 1
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("resolve",
                                                                                                       "absolute"):
            node = node.func.value
        else:
            from_file = any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(node))
            return up if from_file else 0


#: The course tooling leaves specdec (issue 27, item 4); until it has, its two repository paths are known.
COURSE = PKG / "exercises"


@pytest.mark.parametrize("path", sorted(p.relative_to(PKG).as_posix() for p in PKG.rglob("*.py")))
def test_no_module_reads_the_book(path):
    """No path from ``__file__`` climbs out of specdec, and no module names the book's table of contents."""
    file = PKG / path
    text = file.read_text(encoding="utf-8")
    depth = len(file.relative_to(PKG).parts) - 1  # directories between the file and the package root
    bad = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith("_toc.yml"):
            bad.append(f"line {node.lineno}: names {node.value!r}")
        up = _climbs(node)
        if up and up - 1 > depth and not file.is_relative_to(COURSE):
            bad.append(f"line {node.lineno}: a path climbs {up} levels from {path}, out of the package")
    assert not bad, f"specdec/{path} reads outside the package: " + "; ".join(bad)

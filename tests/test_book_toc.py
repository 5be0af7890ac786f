"""The one reader of the table of contents (scripts/book_toc.py), the numbering the course package ships, and
the packages standing apart from the book.

The reader's rule is checked on a table of contents written here (Jupyter Book's: numbered parts count on,
unnumbered parts use no number); ``course/specdec_course/_book.json`` must be what the reader writes from the
book's ``_toc.yml`` today (else: ``python scripts/book_toc.py --write``); the Sphinx extension hands the
package Sphinx's own numbers and warns where they differ (tests/test_student_edition.py builds with it). No
module of specdec or specdec_course names the table of contents, or builds a path to a notebook from its own
location.
"""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import book_toc
import pytest

from specdec_course import _chapters

ROOT = pathlib.Path(__file__).resolve().parents[1]

TOC = ("format: jb-book\nroot: intro\nparts:\n"
       "  - caption: Start here\n    chapters:\n      - file: book/start/decide\n"
       "  - caption: Part I\n    numbered: true\n    chapters:\n      - file: a\n        sections:\n"
       "          - file: a/sub\n      - file: b\n"
       "  - caption: Part IV\n    numbered: true\n    chapters:\n      - file: c\n"
       "  - caption: Appendix\n    chapters:\n      - file: z\n")


@pytest.fixture
def toc(tmp_path):
    (tmp_path / "_toc.yml").write_text(TOC)
    (tmp_path / "a.md").write_text("(label)=\n# The A chapter\n\ntext\n")
    return tmp_path


def test_numbering_follows_the_toc_with_unnumbered_parts(toc):
    """An unnumbered part (Start here, the appendix) uses no number; numbered parts count on across parts."""
    assert book_toc.chapter_numbers(toc) == {"a": 1, "b": 2, "c": 3}
    assert book_toc.chapter_order(toc) == {"book/start/decide": 0, "a": 1, "b": 2, "c": 3, "z": 4}
    assert book_toc.documents(toc) == ("intro", "book/start/decide", "a", "a/sub", "b", "c", "z")
    assert [c.sections for c in book_toc.chapters(toc)] == [(), ("a/sub",), (), (), ()]
    data = book_toc.course_data(toc)["chapters"]
    assert [(c["docname"], c["number"], c["caption"]) for c in data][:3] == [
        ("book/start/decide", None, "Start here"), ("a", 1, "Part I"), ("b", 2, "Part I")]
    assert book_toc.title("a", toc) == "The A chapter" and book_toc.title("b", toc) is None


def test_the_book_has_22_numbered_chapters_start_here_first():
    numbers = book_toc.chapter_numbers(ROOT)
    assert sorted(numbers.values()) == list(range(1, 23))
    assert numbers["book/part2-cost-accounting/01-verification-pass"] == 6
    assert numbers["book/part4-engines/01-calibrated-roofline"] == 16
    assert book_toc.documents(ROOT)[0] == "book/intro"
    assert next(iter(book_toc.chapter_order(ROOT))) == "book/start/answer-in-ten-minutes"
    assert book_toc.title("book/part2-cost-accounting/03-break-even", ROOT) == "The break-even condition"


def test_the_course_package_numbering_is_not_stale():
    """_book.json is what scripts/book_toc.py writes from _toc.yml today."""
    shipped = json.loads(book_toc.DATA.read_text(encoding="utf-8"))
    assert shipped == book_toc.course_data(ROOT), "stale: run python scripts/book_toc.py --write"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "book_toc.py"), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_package_numbers_chapters_from_its_data_or_from_the_build():
    """The package's numbers are the reader's; numbers handed in by a build (Sphinx's) replace them."""
    assert _chapters.numbering() == book_toc.chapter_numbers(ROOT)
    chapter = _chapters.Chapter("book/part2-cost-accounting/01-verification-pass", "Declared")
    assert chapter.number == 6 and chapter.heading() == "Chapter 6. Declared"
    start = _chapters.Chapter("book/start/decide-for-your-service", "Decide for your service")
    assert start.number is None and start.heading() == "Start here: Decide for your service"
    outside = _chapters.Chapter("elsewhere/chapter", "Outside")
    assert (outside.number, outside.position, outside.heading()) == (None, None, "Outside")
    try:
        _chapters.number_chapters({"book/part2-cost-accounting/01-verification-pass": 9})
        assert chapter.number == 9 and _chapters.Chapter("book/part1-speedup-bounds/01-expected-tokens", "x").number \
            is None
    finally:
        _chapters.number_chapters(None)
    assert chapter.number == 6
    with pytest.raises(ValueError, match="numbers must map"):
        _chapters.number_chapters({"a": 0})
    with pytest.raises(TypeError, match="numbers must be a mapping"):
        _chapters.number_chapters([("a", 1)])


def test_the_sphinx_extension_reads_sphinx_numbers():
    """The extension takes a chapter's number from its toctree section number (one level: a whole chapter)."""
    import sphinx_exercises

    class Env:
        toc_secnumbers = {"book/p/one": {"": (6,), "#sec": (6, 1)}, "book/p/one/sub": {"": (6, 1)}, "index": {}}

    assert sphinx_exercises.sphinx_chapter_numbers(Env()) == {"book/p/one": 6}


PACKAGES = {"specdec": ROOT / "specdec", "specdec_course": ROOT / "course" / "specdec_course"}


def _reads_the_book(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    uses_file = any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(tree))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if "_toc.yml" in node.value:
                bad.append(f"line {node.lineno}: names {node.value!r}")
            elif uses_file and node.value.endswith(".ipynb"):
                bad.append(f"line {node.lineno}: builds a notebook's path ({node.value!r}) next to __file__")
    return bad


MODULES = sorted(f"{name}/{p.relative_to(base).as_posix()}" if name == "specdec"
                 else f"course/specdec_course/{p.relative_to(base).as_posix()}"
                 for name, base in PACKAGES.items() for p in base.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES)
def test_no_module_reads_the_book(path):
    """No module names the table of contents or builds a notebook's path from its own location (and
    tests/test_architecture.py: none builds a path above its package)."""
    bad = _reads_the_book(ROOT / path)
    assert not bad, f"{path} reads the book: " + "; ".join(bad)

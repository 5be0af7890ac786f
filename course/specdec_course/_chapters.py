"""The chapters exercises belong to: document names, and the book's numbering shipped as data.

A :class:`Chapter` is a chapter's document name (its ``_toc.yml`` entry, e.g.
``"book/part2-cost-accounting/01-verification-pass"``) and its title. The package never reads the
book: the numbers the book shows come with it as data, ``_book.json`` (document names, numbers and
part captions), which
``scripts/book_toc.py --write`` writes from the book's table of contents (a test fails when it is
stale), so that a wheel install numbers exercises as the book does. Jupyter Book numbers the chapters
of numbered parts continuously (Part I = chapters 1-5, Part II = 6-11, ...); a part without numbers
("Start here", the appendix) uses none. "Exercise 6.2" is the second exercise of chapter 6.

In a Sphinx build the extension (``scripts/sphinx_exercises.py``) hands the package the numbers
Sphinx itself gives the chapters, with :func:`number_chapters`; they replace the shipped ones.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources

__all__ = ["Chapter", "number_chapters", "numbering"]

#: Numbers handed in by a build (Sphinx's own), which replace the shipped ones; None: use the data.
_HANDED: dict[str, int] | None = None


@functools.cache
def _book() -> dict[str, dict]:
    """``{docname: {"position", "number", "caption"}}`` from the shipped ``_book.json`` ({} without it)."""
    try:
        text = resources.files(__package__).joinpath("_book.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    chapters = json.loads(text).get("chapters", [])
    return {c["docname"]: {**c, "position": i} for i, c in enumerate(chapters)}


def number_chapters(numbers: Mapping[str, int] | None = None) -> None:
    """Use the chapter numbers a build gives (``{docname: number}``), or the shipped ones again (None).

    Parameters
    ----------
    numbers : mapping of str to int, optional
        The number of every numbered chapter, as Sphinx numbers it; chapters not in it are unnumbered.

    Examples
    --------
    >>> from specdec_course._chapters import Chapter, number_chapters
    >>> chapter = Chapter("book/part2-cost-accounting/01-verification-pass", "Why")
    >>> number_chapters({"book/part2-cost-accounting/01-verification-pass": 7})
    >>> chapter.number
    7
    >>> number_chapters()
    >>> chapter.number
    6
    """
    global _HANDED
    if numbers is None:
        _HANDED = None
        return
    if not isinstance(numbers, Mapping):
        raise TypeError(f"numbers must be a mapping of docnames to chapter numbers, got {type(numbers).__name__}")
    for docname, number in numbers.items():
        if not isinstance(docname, str) or isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"numbers must map docnames (str) to chapter numbers >= 1; got {docname!r}: {number!r}")
    _HANDED = dict(numbers)


def numbering() -> dict[str, int]:
    """``{docname: number}`` of every numbered chapter, as the package numbers them now."""
    if _HANDED is not None:
        return dict(_HANDED)
    return {d: c["number"] for d, c in _book().items() if c.get("number") is not None}


class Chapter:
    """A chapter of the book: its document name (the ``_toc.yml`` entry) and its title.

    Parameters
    ----------
    docname : str
        The chapter's entry in ``_toc.yml``, e.g. ``"book/part1-speedup-bounds/01-expected-tokens"``.
    title : str
        The chapter's title, as its notebook's heading reads (tests/test_docstrings.py checks it).
    """

    __slots__ = ("docname", "declared_title")

    def __init__(self, docname: str, title: str):
        if not isinstance(docname, str) or not docname.strip():
            raise ValueError(f"docname must be a non-empty string, got {docname!r}")
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"title must be a non-empty string, got {title!r}")
        self.docname = docname
        self.declared_title = title

    @property
    def title(self) -> str:
        """The chapter's title."""
        return self.declared_title

    @property
    def number(self) -> int | None:
        """The chapter number the book shows, or None (an unnumbered part, or a chapter outside the book)."""
        if _HANDED is not None:
            return _HANDED.get(self.docname)
        return (_book().get(self.docname) or {}).get("number")

    @property
    def position(self) -> int | None:
        """The chapter's place in the book's table of contents (0 first), or None when it is not in it."""
        return (_book().get(self.docname) or {}).get("position")

    def heading(self) -> str:
        """ "Chapter 6. Why a decode step wastes arithmetic, ...", "Start here: Decide for your service" for a
        chapter of an unnumbered part, or the title alone (a chapter outside the book)."""
        number = self.number
        if number is not None:
            return f"Chapter {number}. {self.title}"
        caption = (_book().get(self.docname) or {}).get("caption")
        return f"{caption}: {self.title}" if caption else self.title

    def __repr__(self) -> str:
        return f"Chapter({self.docname!r}, {self.declared_title!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Chapter) and self.docname == other.docname

    def __hash__(self) -> int:
        return hash(self.docname)

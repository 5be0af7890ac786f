"""The chapters exercises belong to: document names and titles, numbered by the build.

The package never reads the book. A :class:`Chapter` is the chapter's
document name (its ``_toc.yml`` entry, e.g.
``"book/part2-cost-accounting/01-verification-pass"``) and its title. The
numbers a reader sees come from the book: in the HTML, Sphinx numbers the
chapters and the exercise boxes ("Exercise 6.2") itself; outside the HTML,
whoever runs the package next to the book (the Sphinx extension, the tests,
the course scripts) hands the numbering in with :func:`number_chapters`,
read from the book's table of contents by ``scripts/book_toc.py``.

Without a numbering (the package installed on its own) a chapter shows its
title and an exercise its label: nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["Chapter", "number_chapters", "numbering"]

_NUMBERS: dict[str, int] = {}
_ORDER: dict[str, int] = {}
_CAPTIONS: dict[str, str] = {}


def number_chapters(numbers: Mapping[str, int] | None = None, order: Sequence[str] = (),
                    captions: Mapping[str, str] | None = None) -> None:
    """Install the book's chapter numbering (replacing any earlier one; no arguments: remove it).

    Parameters
    ----------
    numbers : mapping of str to int, optional
        ``{docname: chapter number}`` of the numbered chapters, as the book numbers them.
    order : sequence of str, optional
        Every chapter's docname in the book's reading order (numbered or not).
    captions : mapping of str to str, optional
        ``{docname: part caption}`` of the chapters of unnumbered parts ("Start here").

    Examples
    --------
    >>> from specdec.exercises._chapters import Chapter, number_chapters, numbering
    >>> saved = numbering()
    >>> number_chapters({"a/one": 6}, ["a/start", "a/one"], {"a/start": "Start here"})
    >>> Chapter("a/one", "One").heading(), Chapter("a/start", "Go").heading()
    ('Chapter 6. One', 'Start here: Go')
    >>> number_chapters()
    >>> Chapter("a/one", "One").heading()
    'One'
    >>> number_chapters(**saved)
    """
    numbers = dict(numbers or {})
    for docname, number in numbers.items():
        if not isinstance(docname, str) or isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"numbers must map docnames to chapter numbers >= 1; got {docname!r}: {number!r}")
    order = list(order)
    if any(not isinstance(d, str) for d in order) or len(set(order)) != len(order):
        raise ValueError("order must list each chapter's docname (a string) once")
    captions = dict(captions or {})
    if any(not isinstance(d, str) or not isinstance(c, str) for d, c in captions.items()):
        raise ValueError("captions must map docnames to part captions (strings)")
    _NUMBERS.clear()
    _NUMBERS.update(numbers)
    _ORDER.clear()
    _ORDER.update({docname: i for i, docname in enumerate(order)})
    _CAPTIONS.clear()
    _CAPTIONS.update(captions)


def numbering() -> dict:
    """The numbering in use, as :func:`number_chapters` takes it (empty without one)."""
    return {"numbers": dict(_NUMBERS), "order": sorted(_ORDER, key=_ORDER.__getitem__), "captions": dict(_CAPTIONS)}


class Chapter:
    """A chapter of the book: its document name (the ``_toc.yml`` entry) and its title.

    Parameters
    ----------
    docname : str
        The chapter's entry in ``_toc.yml``, e.g. ``"book/part1-speedup-bounds/01-expected-tokens"``.
    title : str
        The chapter's title, as its page's heading reads (the tests check that it does).
    """

    __slots__ = ("docname", "title")

    def __init__(self, docname: str, title: str):
        if not isinstance(docname, str) or not docname.strip():
            raise ValueError(f"docname must be a non-empty string, got {docname!r}")
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"title must be a non-empty string, got {title!r}")
        self.docname = docname
        self.title = title

    @property
    def declared_title(self) -> str:
        """The title given to the chapter (the same as :attr:`title`)."""
        return self.title

    @property
    def number(self) -> int | None:
        """The chapter number the book shows, or None (no numbering handed in, or an unnumbered part)."""
        return _NUMBERS.get(self.docname)

    @property
    def position(self) -> int | None:
        """The chapter's place in the book's reading order (0 first), or None (no numbering, or not in it)."""
        return _ORDER.get(self.docname)

    def heading(self) -> str:
        """ "Chapter 6. Why a decode step wastes arithmetic, ...", "Start here: Decide for your service" for a
        chapter of an unnumbered part, or the title alone (no numbering, or a chapter outside the book)."""
        number = self.number
        if number is not None:
            return f"Chapter {number}. {self.title}"
        caption = _CAPTIONS.get(self.docname)
        return f"{caption}: {self.title}" if caption else self.title

    def __repr__(self) -> str:
        return f"Chapter({self.docname!r}, {self.title!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Chapter) and self.docname == other.docname

    def __hash__(self) -> int:
        return hash(self.docname)

"""Sphinx extension: docstrings' chapter pointers become links with the book's numbering.

Every public ``specdec`` docstring names the chapter that teaches it, by the
chapter's title: ``Defined in chapter "The break-even condition".`` (the habit
of d2l's "Defined in section ..."). On the API pages that sentence becomes
``Defined in chapter 8, The break-even condition`` with a link to the
chapter, the number taken from ``_toc.yml`` (``scripts/book_toc.py``, the one reader) the way
Jupyter Book numbers the chapters (continuously through the numbered parts). A pointer to a title that
no chapter has is a build warning (an error under ``-W``), so a renamed
chapter cannot leave stale pointers behind.
"""

from __future__ import annotations

import pathlib
import re

from sphinx.application import Sphinx
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

#: ``Defined in chapter "Title"`` or ``See chapter "Title"``, optionally followed by an old-style "(Part I, chapter 1)".
POINTER = re.compile(r'\b(Defined in|See|Used in|Introduced in) chapters? "([^"]+)"(\s*\((?:Part [IVX]+, )?chapters? [^)]*\))?')


def chapters(root: pathlib.Path) -> dict[str, tuple[str, int | None]]:
    """Map chapter title -> (docname, number or None), from the table of contents (scripts/book_toc.py)."""
    import book_toc

    found: dict[str, tuple[str, int | None]] = {}
    for chapter in book_toc.chapters(root):
        title = book_toc.title(chapter.docname, root)
        if title:
            found[title] = (chapter.docname, chapter.number)
    return found


def _link_pointers(app: Sphinx, what, name, obj, options, lines: list[str]) -> None:
    table = app.env.specdec_chapters
    for i, line in enumerate(lines):
        def replace(match: re.Match) -> str:
            verb, title = match.group(1), match.group(2)
            if title not in table:
                LOGGER.warning(f'{name}: the docstring points to chapter "{title}", which no chapter of _toc.yml is titled',
                               type="specdec", subtype="chapter")
                return match.group(0)
            docname, number = table[title]
            where = f"chapter {number}, " if number else ""
            return f"{verb} {where}:doc:`{title} </{docname}>`"

        lines[i] = POINTER.sub(replace, line)


def _load(app: Sphinx) -> None:
    app.env.specdec_chapters = chapters(pathlib.Path(app.srcdir))


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _load)
    app.connect("autodoc-process-docstring", _link_pointers)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}

"""Sphinx extension: docstrings' chapter pointers become links with the book's numbering.

Every public ``specdec`` docstring names the chapter that teaches it, by the
chapter's title: ``Defined in chapter "The break-even condition".`` (the habit
of d2l's "Defined in section ..."). On the API pages that sentence becomes
``Defined in chapter 8, The break-even condition`` with a link to the
chapter, the number taken from ``_toc.yml`` the way Jupyter Book numbers the
chapters (continuously through the numbered parts). A pointer to a title that
no chapter has is a build warning (an error under ``-W``), so a renamed
chapter cannot leave stale pointers behind.
"""

from __future__ import annotations

import json
import pathlib
import re

import yaml
from sphinx.application import Sphinx
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

#: ``Defined in chapter "Title"`` or ``See chapter "Title"``, optionally followed by an old-style "(Part I, chapter 1)".
POINTER = re.compile(r'\b(Defined in|See|Used in|Introduced in) chapters? "([^"]+)"(\s*\((?:Part [IVX]+, )?chapters? [^)]*\))?')


def _title(path: pathlib.Path) -> str | None:
    """The first level-1 heading of a notebook or Markdown page."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text()).get("cells", [])
        text = "\n".join("".join(c.get("source", [])) for c in cells if c.get("cell_type") == "markdown")
    else:
        text = path.read_text()
    match = re.search(r"^# (.+)$", text, re.M)
    return match.group(1).strip() if match else None


def chapters(root: pathlib.Path) -> dict[str, tuple[str, int | None]]:
    """Map chapter title -> (docname, number or None) from ``_toc.yml``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    found: dict[str, tuple[str, int | None]] = {}
    number = 0
    for part in toc.get("parts", []):
        for entry in part.get("chapters", []):
            docname = entry.get("file")
            if not docname:
                continue
            path = next((root / f"{docname}{s}" for s in (".ipynb", ".md") if (root / f"{docname}{s}").exists()), None)
            if path is None:
                continue
            if part.get("numbered"):
                number += 1
            title = _title(path)
            if title:
                found[title] = (docname, number if part.get("numbered") else None)
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

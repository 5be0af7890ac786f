"""Chapter numbers as the book shows them, read from the book's ``_toc.yml``.

Jupyter Book numbers the chapters of numbered parts continuously (Part I =
chapters 1-5, Part II = 6-11, ...); a part without ``numbered: true`` (the
"Start here" part, the appendix) does not use up numbers. An exercise's
number is its chapter's number and its position in the chapter: "Exercise
6.2" is the second exercise of chapter 6.

The numbers come from ``_toc.yml`` at the root of the repository the package
lives in (an editable install, as the book uses). Without it (the package
installed on its own) chapters are shown by title, without a number.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re

__all__ = ["Chapter", "toc_numbers", "toc_order", "TOC_PATH"]

#: Where the book's table of contents is, relative to this package.
TOC_PATH = pathlib.Path(__file__).resolve().parents[2] / "_toc.yml"


def _parse_toc_yaml(text: str) -> dict:
    try:
        import yaml
    except ImportError:  # numpy-only installs: a small reader for the subset _toc.yml uses
        return _parse_toc_plain(text)
    return yaml.safe_load(text) or {}


def _parse_toc_plain(text: str) -> dict:
    """Parts, their ``numbered`` flag and their chapters' files (sections ignored)."""
    parts: list[dict] = []
    chapter_indent = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if re.match(r"- caption:", stripped):
            parts.append({"caption": stripped.split(":", 1)[1].strip().strip('"'), "chapters": []})
            chapter_indent = None
        elif parts and re.match(r"numbered:\s*true", stripped):
            parts[-1]["numbered"] = True
        elif parts and stripped.startswith("- file:"):
            if chapter_indent is None:
                chapter_indent = indent
            if indent == chapter_indent:
                parts[-1]["chapters"].append({"file": stripped.split(":", 1)[1].strip()})
    return {"parts": parts}


def _chapters_in_order(path: str) -> list[tuple[str, bool, str]]:
    """``(docname, numbered, part caption)`` of every chapter of ``_toc.yml``, in the book's order."""
    toc = _parse_toc_yaml(pathlib.Path(path).read_text(encoding="utf-8"))
    return [(str(entry["file"]), bool(part.get("numbered")), str(part.get("caption") or ""))
            for part in toc.get("parts", []) or []
            for entry in part.get("chapters", []) or [] if entry.get("file")]


@functools.lru_cache(maxsize=4)
def _numbers_from(path: str, mtime: float) -> dict[str, int]:
    numbers: dict[str, int] = {}
    number = 0
    for docname, numbered, _caption in _chapters_in_order(path):
        if numbered:
            number += 1
            numbers[docname] = number
    return numbers


@functools.lru_cache(maxsize=4)
def _order_from(path: str, mtime: float) -> dict[str, int]:
    return {docname: i for i, (docname, _numbered, _caption) in enumerate(_chapters_in_order(path))}


@functools.lru_cache(maxsize=4)
def _captions_from(path: str, mtime: float) -> dict[str, str]:
    return {docname: caption for docname, _numbered, caption in _chapters_in_order(path)}


def toc_numbers(path: pathlib.Path | None = None) -> dict[str, int]:
    """``{docname: chapter number}`` for every numbered chapter of ``_toc.yml`` ({} without one)."""
    path = pathlib.Path(path) if path is not None else TOC_PATH
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    return dict(_numbers_from(str(path), mtime))


def toc_order(path: pathlib.Path | None = None) -> dict[str, int]:
    """``{docname: position}`` of every chapter of ``_toc.yml`` in the book's order, numbered or not ({} without one).

    "Start here" (an unnumbered part before Part I) comes first, as in the book's table of contents.
    """
    path = pathlib.Path(path) if path is not None else TOC_PATH
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    return dict(_order_from(str(path), mtime))


def _toc_captions() -> dict[str, str]:
    try:
        mtime = TOC_PATH.stat().st_mtime
    except OSError:
        return {}
    return dict(_captions_from(str(TOC_PATH), mtime))


@functools.lru_cache(maxsize=64)
def _notebook_title(path: str) -> str | None:
    try:
        cells = json.loads(pathlib.Path(path).read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return None
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        match = re.search(r"^# (.+)$", "".join(source) if isinstance(source, list) else str(source), re.M)
        if match:
            return match.group(1).strip()
    return None


class Chapter:
    """A chapter of the book: its notebook (the ``_toc.yml`` entry) and its title.

    Parameters
    ----------
    docname : str
        The chapter's entry in ``_toc.yml``, e.g. ``"book/part1-speedup-bounds/01-expected-tokens"``.
    title : str
        The title the chapter's notebook shows (its ``# `` heading).
    """

    __slots__ = ("docname", "declared_title")

    def __init__(self, docname: str, title: str):
        self.docname = docname
        self.declared_title = title

    @property
    def title(self) -> str:
        """The title the chapter's notebook shows (its first ``# `` heading), or the declared one."""
        return _notebook_title(str(TOC_PATH.parent / f"{self.docname}.ipynb")) or self.declared_title

    @property
    def number(self) -> int | None:
        """The chapter number the book shows, or None (no ``_toc.yml``, or an unnumbered part)."""
        return toc_numbers().get(self.docname)

    @property
    def position(self) -> int | None:
        """The chapter's place in the book's table of contents (0 first), or None when it is not in it."""
        return toc_order().get(self.docname)

    def heading(self) -> str:
        """ "Chapter 6. Why a decode step wastes arithmetic, ...", "Start here: Decide for your service" for a
        chapter of an unnumbered part, or the title alone (a chapter outside the book)."""
        number = self.number
        if number is not None:
            return f"Chapter {number}. {self.title}"
        caption = _toc_captions().get(self.docname)
        return f"{caption}: {self.title}" if caption else self.title

    def __repr__(self) -> str:
        return f"Chapter({self.docname!r}, {self.declared_title!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Chapter) and self.docname == other.docname

    def __hash__(self) -> int:
        return hash(self.docname)

"""The book's table of contents, read once for the scripts, the Sphinx extensions and the tests.

``_toc.yml`` (Jupyter Book's ``jb-book`` format) is the only list of the
book's documents. Everything outside the package that needs the documents
in reading order, the chapters of each part, or the chapter numbers the
book shows reads them here; ``specdec`` itself never reads the book (it
keeps document names only, and is handed a numbering by the build side:
:func:`exercise_numbering`).

Chapter numbers follow Jupyter Book: chapters of parts marked
``numbered: true`` are numbered continuously (Part I = 1-5, Part II = 6-11,
...); a part without it ("Start here", the appendix) uses up no number.
The HTML's own numbers come from Sphinx (the section numbers of the
numbered toctrees); ``tests/test_book_toc.py`` checks that the two agree.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re
from dataclasses import dataclass

__all__ = ["ROOT", "TocChapter", "load", "documents", "chapters", "chapter_numbers", "chapter_order",
           "source", "title", "titles", "exercise_numbering"]

#: The repository root (the directory holding ``_toc.yml``).
ROOT = pathlib.Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class TocChapter:
    """One chapter entry of ``_toc.yml`` (a ``file`` directly under a part).

    ``number`` is the chapter number the book shows, or None in an unnumbered
    part; ``sections`` are the documents listed under it, in order.
    """

    docname: str
    caption: str
    numbered: bool
    number: int | None
    sections: tuple[str, ...] = ()


def _toc_path(root: pathlib.Path | str | None) -> pathlib.Path:
    root = ROOT if root is None else pathlib.Path(root)
    return root / "_toc.yml" if root.is_dir() else root


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> dict:
    import yaml

    toc = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8")) or {}
    if not isinstance(toc, dict) or "root" not in toc:
        raise ValueError(f"{path}: not a Jupyter Book table of contents (no 'root')")
    return toc


def load(root: pathlib.Path | str | None = None) -> dict:
    """The parsed ``_toc.yml`` of ``root`` (a repository directory or the file itself; default: this repository)."""
    path = _toc_path(root)
    return _load(str(path), path.stat().st_mtime)


def _files(entries) -> list[str]:
    """Every ``file`` of a list of toc entries and of their sections and chapters, depth first."""
    out: list[str] = []
    for entry in entries or []:
        if entry.get("file"):
            out.append(str(entry["file"]))
        out += _files(entry.get("sections"))
        out += _files(entry.get("chapters"))
    return out


def documents(root: pathlib.Path | str | None = None) -> tuple[str, ...]:
    """Every document of the table of contents in reading order, the root first."""
    toc = load(root)
    names = [str(toc["root"])]
    for part in toc.get("parts", []) or []:
        names += _files(part.get("chapters"))
    names += _files(toc.get("chapters"))
    return tuple(names)


def chapters(root: pathlib.Path | str | None = None) -> tuple[TocChapter, ...]:
    """The chapters (entries directly under a part), in reading order, with the numbers the book shows."""
    out, number = [], 0
    for part in load(root).get("parts", []) or []:
        numbered = bool(part.get("numbered"))
        for entry in part.get("chapters", []) or []:
            if not entry.get("file"):
                continue
            if numbered:
                number += 1
            out.append(TocChapter(str(entry["file"]), str(part.get("caption") or ""), numbered,
                                  number if numbered else None, tuple(_files(entry.get("sections")))))
    return tuple(out)


def chapter_numbers(root: pathlib.Path | str | None = None) -> dict[str, int]:
    """``{docname: number}`` of every chapter of a numbered part."""
    return {c.docname: c.number for c in chapters(root) if c.number is not None}


def chapter_order(root: pathlib.Path | str | None = None) -> dict[str, int]:
    """``{docname: position}`` of every chapter (numbered or not), 0 first, in reading order."""
    return {c.docname: i for i, c in enumerate(chapters(root))}


def source(docname: str, root: pathlib.Path | str | None = None) -> pathlib.Path | None:
    """The file of a document (``<docname>.ipynb`` or ``.md``), or None when neither exists."""
    base = ROOT if root is None else pathlib.Path(root)
    return next((p for p in (base / f"{docname}.ipynb", base / f"{docname}.md") if p.exists()), None)


_HEADING = re.compile(r"^# (.+)$", re.M)


def title(docname: str, root: pathlib.Path | str | None = None) -> str | None:
    """The first level-1 heading of a document (its title as the book shows it), or None."""
    path = source(docname, root)
    if path is None:
        return None
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        for cell in cells:
            if cell.get("cell_type") != "markdown":
                continue
            text = cell.get("source", "")
            match = _HEADING.search("".join(text) if isinstance(text, list) else str(text))
            if match:
                return match.group(1).strip()
        return None
    match = _HEADING.search(path.read_text(encoding="utf-8"))
    return match.group(1).strip() if match else None


def titles(root: pathlib.Path | str | None = None) -> dict[str, str]:
    """``{docname: title}`` of every document of the table of contents that has a title, in reading order."""
    found = {d: title(d, root) for d in documents(root)}
    return {d: t for d, t in found.items() if t}


def exercise_numbering(root: pathlib.Path | str | None = None) -> dict:
    """The keyword arguments of ``specdec.exercises`` ``number_chapters``: the book's numbers, order and part captions.

    The build side (the Sphinx extension, the tests, the course scripts) hands them to the package, which
    never reads the book itself.
    """
    found = chapters(root)
    return {"numbers": {c.docname: c.number for c in found if c.number is not None},
            "order": [c.docname for c in found],
            "captions": {c.docname: c.caption for c in found if c.number is None}}

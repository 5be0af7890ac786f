"""The book's table of contents, read once: for the scripts, the Sphinx extensions, the tests and the course data.

``_toc.yml`` (Jupyter Book's ``jb-book`` format) is the only list of the book's documents. Whatever outside
the packages needs the documents in reading order, the chapters of each part or the chapter numbers the book
shows reads them here. Neither ``specdec`` nor ``specdec_course`` reads the book: the course package ships
the numbering as data, ``course/specdec_course/_book.json``, which this script writes
(``python scripts/book_toc.py --write``) and checks (``--check``; ``tests/test_book_toc.py`` fails when the
file is stale). In a Sphinx build the extension ``scripts/sphinx_exercises.py`` hands the package the
numbers Sphinx itself gives the chapters, and warns when they differ from the data.

Chapter numbers follow Jupyter Book: the chapters of parts marked ``numbered: true`` are numbered
continuously (Part I = 1-5, Part II = 6-11, ...); a part without it ("Start here", the appendix) uses no
number.
"""

from __future__ import annotations

import argparse
import functools
import json
import pathlib
import re
import sys
from dataclasses import dataclass

__all__ = ["ROOT", "DATA", "TocChapter", "load", "documents", "chapters", "chapter_numbers", "chapter_order",
           "title", "course_data", "main"]

#: The repository root (the directory holding ``_toc.yml``).
ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The numbering shipped with the course package, written from the table of contents by this script.
DATA = ROOT / "course" / "specdec_course" / "_book.json"


@dataclass(frozen=True)
class TocChapter:
    """One chapter entry of ``_toc.yml`` (a ``file`` directly under a part): its docname, its part's caption,
    the number the book shows (None in an unnumbered part) and the documents listed under it."""

    docname: str
    caption: str
    number: int | None
    sections: tuple[str, ...] = ()


def _toc_path(root) -> pathlib.Path:
    root = ROOT if root is None else pathlib.Path(root)
    return root / "_toc.yml" if root.is_dir() else root


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> dict:
    import yaml

    toc = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8")) or {}
    if not isinstance(toc, dict) or "root" not in toc:
        raise ValueError(f"{path}: not a Jupyter Book table of contents (no 'root')")
    return toc


def load(root=None) -> dict:
    """The parsed ``_toc.yml`` of ``root`` (a repository directory or the file itself; default: this repository)."""
    path = _toc_path(root)
    return _load(str(path), path.stat().st_mtime)


def _files(entries) -> list[str]:
    out: list[str] = []
    for entry in entries or []:
        if entry.get("file"):
            out.append(str(entry["file"]))
        out += _files(entry.get("sections"))
        out += _files(entry.get("chapters"))
    return out


def documents(root=None) -> tuple[str, ...]:
    """Every document of the table of contents in reading order, the root first."""
    toc = load(root)
    names = [str(toc["root"])]
    for part in toc.get("parts", []) or []:
        names += _files(part.get("chapters"))
    names += _files(toc.get("chapters"))
    return tuple(names)


def chapters(root=None) -> tuple[TocChapter, ...]:
    """The chapters (entries directly under a part), in reading order, with the numbers the book shows."""
    out, number = [], 0
    for part in load(root).get("parts", []) or []:
        numbered = bool(part.get("numbered"))
        for entry in part.get("chapters", []) or []:
            if not entry.get("file"):
                continue
            number += numbered
            out.append(TocChapter(str(entry["file"]), str(part.get("caption") or ""), number if numbered else None,
                                  tuple(_files(entry.get("sections")))))
    return tuple(out)


def chapter_numbers(root=None) -> dict[str, int]:
    """``{docname: number}`` of every chapter of a numbered part."""
    return {c.docname: c.number for c in chapters(root) if c.number is not None}


def chapter_order(root=None) -> dict[str, int]:
    """``{docname: position}`` of every chapter (numbered or not), 0 first, in reading order."""
    return {c.docname: i for i, c in enumerate(chapters(root))}


_HEADING = re.compile(r"^# (.+)$", re.M)


def title(docname: str, root=None) -> str | None:
    """The first level-1 heading of a document (``<docname>.ipynb`` or ``.md``), or None."""
    base = ROOT if root is None else pathlib.Path(root)
    if not base.is_dir():
        base = base.parent
    for path in (base / f"{docname}.ipynb", base / f"{docname}.md"):
        if not path.exists():
            continue
        if path.suffix == ".md":
            match = _HEADING.search(path.read_text(encoding="utf-8"))
            return match.group(1).strip() if match else None
        for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
            if cell.get("cell_type") == "markdown":
                text = cell.get("source", "")
                match = _HEADING.search("".join(text) if isinstance(text, list) else str(text))
                if match:
                    return match.group(1).strip()
        return None
    return None


def course_data(root=None) -> dict:
    """The numbering the course package ships (``_book.json``): every chapter in reading order, with its
    number (null in an unnumbered part) and its part's caption. Titles are not in it: each chapter module of
    the package declares its chapter's title, and tests/test_docstrings.py checks it against the heading."""
    return {"about": "written by scripts/book_toc.py --write from _toc.yml; do not edit",
            "chapters": [{"docname": c.docname, "number": c.number, "caption": c.caption} for c in chapters(root)]}


def _dumps(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The book's table of contents, and the course package's copy.")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help=f"write {DATA.relative_to(ROOT)}")
    action.add_argument("--check", action="store_true", help=f"exit 1 when {DATA.relative_to(ROOT)} is stale")
    args = parser.parse_args(argv)
    text = _dumps(course_data())
    if args.write:
        DATA.write_text(text, encoding="utf-8")
        print(f"wrote {DATA.relative_to(ROOT)}")
        return 0
    if args.check:
        current = DATA.read_text(encoding="utf-8") if DATA.exists() else ""
        if current != text:
            print(f"{DATA.relative_to(ROOT)} is stale: run python scripts/book_toc.py --write", file=sys.stderr)
            return 1
        return 0
    for chapter in chapters():
        print(f"{chapter.number or '-':>3}  {chapter.docname}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Find and remove exercise solutions in notebooks (for the student edition).

sphinx-exercise's ``hide_solutions`` drops a *gated* ``solution-start``
directive but leaves its ``solution-end`` node (Sphinx then fails with
"unknown node type: solution_end_node", sphinx-exercise 1.2.1) and would
leave the solution's code cells in the page. The student edition therefore
removes every solution from a copy of the notebooks before building:
:func:`strip_solutions` deletes the cells from a ``solution-start`` markdown
cell through the matching ``solution-end`` cell, and removes non-gated
``solution`` directives from markdown cells.

Command line (used by ``scripts/build-student.sh`` if it wishes)::

    python -m specdec.exercises._student SRC_DIR   # strips every notebook under SRC_DIR in place

Never run it on the working tree: run it on a copy.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

__all__ = ["solution_spans", "strip_solutions", "strip_tree", "DIRECTIVE_RE"]

#: A MyST directive opening line with its option lines: name, argument and options.
DIRECTIVE_RE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
    r"(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
    re.MULTILINE,
)


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _directive_names(text: str) -> list[str]:
    return [m["name"] for m in DIRECTIVE_RE.finditer(text + "\n")]


def solution_spans(cells: list[dict]) -> list[tuple[int, int, str]]:
    """Return ``(first, last, label)`` cell index ranges of gated solutions (inclusive).

    A span starts at a markdown cell containing ``{solution-start} <label>``
    and ends at the next markdown cell containing ``{solution-end}``.
    """
    spans = []
    start = label = None
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        text = _source(cell)
        for m in DIRECTIVE_RE.finditer(text + "\n"):
            if m["name"] == "solution-start" and start is None:
                start, label = i, m["arg"].strip()
            elif m["name"] == "solution-end" and start is not None:
                spans.append((start, i, label))
                start = label = None
    if start is not None:
        raise ValueError(f"solution-start {label!r} (cell {start}) has no solution-end")
    return spans


_PLAIN_SOLUTION_RE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{solution\}[^\n]*\n.*?^(?P=fence)[ \t]*$\n?", re.MULTILINE | re.DOTALL
)


def strip_solutions(notebook: dict) -> tuple[dict, int]:
    """Return a copy of ``notebook`` (nbformat JSON dict) without solutions, and how many were removed."""
    cells = notebook.get("cells", [])
    drop: set[int] = set()
    spans = solution_spans(cells)
    for first, last, _label in spans:
        drop.update(range(first, last + 1))
    removed = len(spans)
    new_cells = []
    for i, cell in enumerate(cells):
        if i in drop:
            continue
        if cell.get("cell_type") == "markdown":
            text = _source(cell)
            stripped, n = _PLAIN_SOLUTION_RE.subn("", text)
            if n:
                removed += n
                cell = dict(cell, source=stripped)
        new_cells.append(cell)
    return dict(notebook, cells=new_cells), removed


def strip_tree(root: str | pathlib.Path) -> int:
    """Strip the solutions of every notebook under ``root`` in place; return how many were removed."""
    total = 0
    for path in sorted(pathlib.Path(root).rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        nb = json.loads(path.read_text(encoding="utf-8"))
        new, n = strip_solutions(nb)
        if n:
            path.write_text(json.dumps(new, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        total += n
    return total


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m specdec.exercises._student SRC_DIR  (a copy of the book, stripped in place)",
              file=sys.stderr)
        return 2
    root = pathlib.Path(args[0]).resolve()
    if (root / ".git").exists():
        print(f"refusing to strip solutions in a git working tree ({root}); copy it first", file=sys.stderr)
        return 2
    print(f"removed {strip_tree(root)} solutions under {root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

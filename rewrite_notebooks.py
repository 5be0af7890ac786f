"""Rewrite the notebooks for the course package (issue 27, item 4): ``sd.exercises.X`` becomes ``course.X``.

The exercise framework left specdec for its own distribution, ``specdec_course``. Every notebook that
checks or describes an exercise imports it beside specdec (``import specdec_course as course``, right after
``import specdec as sd`` in its import cell) and calls ``course.check(...)``, ``course.describe(...)``, ...;
``specdec.exercises`` in code becomes ``specdec_course``. Idempotent: run it again after a merge.

    python rewrite_notebooks.py            # book/**/*.ipynb and tests/data/grading/*.ipynb
    python rewrite_notebooks.py NB ...     # only these

It prints the notebooks it changed; re-execute those of book/ with scripts/execute_notebooks.py.
"""

from __future__ import annotations

import pathlib
import re
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent
IMPORT = "import specdec_course as course"


def _rewrite_text(text: str) -> str:
    text = text.replace("python -m specdec.exercises", "python -m specdec_course")
    text = text.replace("specdec.exercises", "specdec_course")
    text = text.replace("sd.exercises.", "course.")
    return re.sub(r"\bsd\.exercises\b", "course", text)


def rewrite(path: pathlib.Path) -> bool:
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    uses = False
    for cell in nb.cells:
        new = _rewrite_text(cell.source)
        if new != cell.source:
            cell.source = new
        if cell.cell_type == "code" and re.search(r"\bcourse\.\w", cell.source):
            uses = True
    if uses and not any(cell.cell_type == "code" and re.search(rf"^{re.escape(IMPORT)}$", cell.source, re.M)
                        for cell in nb.cells):
        for cell in nb.cells:
            if cell.cell_type == "code" and re.search(r"^import specdec as sd$", cell.source, re.M):
                cell.source = re.sub(r"^import specdec as sd$", f"import specdec as sd\n{IMPORT}", cell.source,
                                     count=1, flags=re.M)
                break
        else:  # no import cell of specdec: the first code cell that uses the course package imports it
            for cell in nb.cells:
                if cell.cell_type == "code" and re.search(r"\bcourse\.\w", cell.source):
                    cell.source = f"{IMPORT}\n" + cell.source
                    break
    if uses and not any(cell.cell_type == "code" and re.search(r"\bsd\.", cell.source) for cell in nb.cells):
        for cell in nb.cells:  # specdec was imported for its exercises only: the course package replaces it
            if cell.cell_type == "code" and re.search(rf"^{re.escape(IMPORT)}$", cell.source, re.M):
                cell.source = re.sub(r"^import specdec as sd\n", "", cell.source, flags=re.M)
            elif cell.cell_type == "code":
                cell.source = re.sub(r"^import specdec as sd$", IMPORT, cell.source, flags=re.M)
    after = nbformat.writes(nb)
    if after == before:
        return False
    nbformat.write(nb, path)
    return True


def main(argv: list[str]) -> int:
    paths = [pathlib.Path(a) for a in argv] or sorted(
        [*ROOT.glob("book/**/*.ipynb"), *ROOT.glob("tests/data/grading/*.ipynb")])
    for path in paths:
        if rewrite(path):
            print(path.relative_to(ROOT) if path.is_absolute() else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

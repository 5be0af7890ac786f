"""Sphinx extension: show the stored values of ``{eval}`` roles in the HTML book.

The book's Markdown cells write computed numbers as ``{eval}`expression```
(MyST's inline-expression role, which jupyterlab-myst renders in JupyterLab).
MyST-NB evaluates that role only while it executes a notebook itself, and the
book is built from the stored outputs without executing anything. So, when
Sphinx reads a notebook, this extension replaces every role by the value
``scripts/execute_notebooks.py`` stored in the cell's
``metadata.user_expressions`` (see ``scripts/inline_values.py``); nbval checks
that those stored values equal a fresh evaluation.

A role without a stored value, or whose evaluation failed, is a build warning
(an error under ``-W``) naming the notebook and the expression.
"""

from __future__ import annotations

import json
import pathlib
import sys

from sphinx.application import Sphinx
from sphinx.util import logging

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import inline_values  # noqa: E402

LOGGER = logging.getLogger(__name__)


def _substitute_notebook(app: Sphinx, docname: str, source: list[str]) -> None:
    path = pathlib.Path(app.env.doc2path(docname))
    if path.suffix != ".ipynb":
        return
    nb = json.loads(source[0])
    changed = False
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "markdown":
            continue
        text = "".join(cell.get("source", []))
        if not inline_values.EVAL_ROLE.search(text):
            continue
        new, problems = inline_values.substitute(text, inline_values.stored_results(cell))
        for problem in problems:
            LOGGER.warning(f"Markdown cell {index}: {problem}", location=docname, type="specdec", subtype="eval")
        cell["source"] = new
        changed = True
    if changed:
        source[0] = json.dumps(nb)


def setup(app: Sphinx) -> dict:
    app.connect("source-read", _substitute_notebook)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}

#!/usr/bin/env python3
"""Re-execute book notebooks in place, so their stored outputs are a fresh run.

Usage::

    python scripts/execute_notebooks.py                 # every notebook under book/
    python scripts/execute_notebooks.py book/part1-speedup-bounds/01-expected-tokens.ipynb

This is the book's only executor: the HTML build renders the stored outputs
without running anything, and nbval (``bash scripts/run-tests.sh``) proves
that the stored outputs equal a fresh run. It is nbclient's standard
``NotebookClient``; what is custom here is only:

* **computed values in the prose**: after the code cells above a Markdown
  cell have run, each ``{eval}`expression``` role of that cell is evaluated in
  the kernel (the Jupyter ``user_expressions`` request that jupyterlab-myst
  sends when a reader runs the cell) and the results are stored in the cell's
  ``metadata.user_expressions`` (see ``scripts/inline_values.py``);
* **no kernel state in the file**: an output that has a static representation
  (an explorer's ``text/html`` snapshot) does not keep the live
  ``application/vnd.jupyter.widget-view+json`` reference, whose model id is
  random and which needs a kernel; widget state is not stored;
* **what a reader opens in JupyterLab**: every exercise solution (the cells from
  ``solution-start`` to ``solution-end``) is stored collapsed
  (``metadata.jupyter.source_hidden``), and the kernelspec is the one JupyterLab
  writes for the installed ``python3`` kernel, so that opening a chapter does not
  mark it modified;
* **a stable file**: execution counts come from the kernel (1, 2, ...),
  volatile metadata is dropped, and the environment is fixed
  (``PYTHONHASHSEED=0``, the inline matplotlib backend), so re-running an
  unchanged notebook leaves the file byte-identical.

Each notebook runs top to bottom in a fresh ``python3`` kernel with its own
folder as the working directory (as nbval runs it). A cell that raises (unless
tagged ``raises-exception``) or an expression that fails makes the script exit
non-zero and leaves the notebook unchanged.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import sys
import time

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import inline_values  # noqa: E402  (scripts/ is not a package)

ROOT = pathlib.Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ENVIRONMENT = {
    "PYTHONHASHSEED": "0",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}


class ExpressionError(RuntimeError):
    """An ``{eval}`` expression raised when it was evaluated."""


class BookClient(NotebookClient):
    """nbclient's executor, plus the ``{eval}`` roles of Markdown cells."""

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        if cell.cell_type == "markdown":
            await self._evaluate_expressions(cell, cell_index)
            return cell
        return await super().async_execute_cell(cell, cell_index, execution_count, store_history)

    async def _evaluate_expressions(self, cell, cell_index: int) -> None:
        found = inline_values.expressions(cell.source)
        if not found:
            cell.metadata.pop(inline_values.METADATA_KEY, None)
            return
        request = {str(i): expression for i, expression in enumerate(found)}
        msg_id = self.kc.execute("", silent=True, store_history=False, user_expressions=request)
        reply = await self.async_wait_for_reply(msg_id, cell)
        content = (reply or {}).get("content", {})
        if content.get("status") != "ok":
            raise ExpressionError(f"cell {cell_index}: the kernel did not evaluate the expressions ({content.get('status')})")
        results = content.get("user_expressions", {})
        stored = []
        for key, expression in request.items():
            result = results[key]
            if result.get("status") != "ok":
                raise ExpressionError(
                    f"Markdown cell {cell_index}: {{eval}}`{expression}` raised "
                    f"{inline_values.error_text(result)}"
                )
            stored.append({"expression": expression, "result": result})
        cell.metadata[inline_values.METADATA_KEY] = stored


SOLUTION_START = re.compile(r"^```\{solution-start\}", re.M)
SOLUTION_END = re.compile(r"^```\{solution-end\}", re.M)


def solution_cells(nb: nbformat.NotebookNode) -> list[int]:
    """Indices of the cells of every exercise solution: from its ``solution-start`` cell to its
    ``solution-end`` cell, both included."""
    inside, found = False, []
    for index, cell in enumerate(nb.cells):
        starts = cell.cell_type == "markdown" and SOLUTION_START.search(cell.source)
        ends = cell.cell_type == "markdown" and SOLUTION_END.search(cell.source)
        if starts:
            inside = True
        if inside:
            found.append(index)
        if ends:
            inside = False
    return found


def collapse_solutions(nb: nbformat.NotebookNode) -> None:
    """Store every solution cell collapsed, so that a student who opens the notebook in JupyterLab
    sees the exercises and not their solutions (a click on the collapsed cell shows it)."""
    for index in solution_cells(nb):
        cell = nb.cells[index]
        hidden = {"source_hidden": True}
        if cell.cell_type == "code":
            hidden["outputs_hidden"] = True
        cell.metadata["jupyter"] = hidden


def python3_kernelspec() -> dict:
    """The kernelspec JupyterLab writes for the installed ``python3`` kernel. A notebook that stores
    another ``display_name`` is marked modified as soon as JupyterLab opens it and starts its kernel."""
    spec = KernelSpecManager().get_kernel_spec("python3")
    return {"display_name": spec.display_name, "language": spec.language, "name": "python3"}


def tidy(nb: nbformat.NotebookNode) -> None:
    """Drop what changes between runs or needs a kernel; keep what a reader sees."""
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = python3_kernelspec()
    collapse_solutions(nb)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            output.get("metadata", {}).pop("execution", None)
            data = output.get("data")
            if data and WIDGET_VIEW in data and set(data) - {WIDGET_VIEW, "text/plain"}:
                del data[WIDGET_VIEW]


def run(path: pathlib.Path, timeout: int) -> float:
    """Execute one notebook and write it back; return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    saved = dict(os.environ)
    os.environ.update(ENVIRONMENT)
    start = time.perf_counter()
    try:
        client = BookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=False,
            record_timing=False,
        )
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    elapsed = time.perf_counter() - start
    tidy(nb)
    nbformat.write(nb, path)
    return elapsed


def book_notebooks() -> list[pathlib.Path]:
    """Every notebook of the book (not checkpoints or build output)."""
    return sorted(
        p for p in (ROOT / "book").rglob("*.ipynb")
        if "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=pathlib.Path, help="notebooks (default: all under book/)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell (default 300)")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.paths or book_notebooks():
        try:
            seconds = run(path.resolve(), args.timeout)
            print(f"executed {path} in {seconds:.1f} s")
        except (CellExecutionError, ExpressionError) as exc:
            failed += 1
            print(f"FAILED {path}:\n{exc}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

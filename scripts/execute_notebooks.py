#!/usr/bin/env python3
"""Re-execute book notebooks in place so their stored outputs match a fresh run.

Usage::

    python scripts/execute_notebooks.py                 # every notebook under book/
    python scripts/execute_notebooks.py book/part1-speedup-bounds/01-expected-tokens.ipynb

Each notebook runs top to bottom in a fresh ``python3`` kernel with its own
folder as the working directory (as nbval and the book build run it), with
``PYTHONHASHSEED=0`` and a fixed matplotlib backend. Execution counts are
renumbered from 1 and volatile metadata is removed, so that re-running on an
unchanged notebook produces an identical file. A notebook that raises in a
cell not tagged ``raises-exception`` makes the script exit non-zero.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = pathlib.Path(__file__).resolve().parents[1]


def clean(nb: nbformat.NotebookNode) -> None:
    """Drop metadata that changes between runs without changing content."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            for output in cell.get("outputs", []):
                output.get("metadata", {}).pop("execution", None)


def run(path: pathlib.Path, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    env_backup = dict(os.environ)
    os.environ["PYTHONHASHSEED"] = "0"
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    start = time.perf_counter()
    try:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=True,
            record_timing=False,
        )
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(env_backup)
    elapsed = time.perf_counter() - start
    clean(nb)
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=pathlib.Path, help="notebooks (default: all under book/)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(p for p in (ROOT / "book").rglob("*.ipynb") if "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts)
    failed = 0
    for path in paths:
        try:
            seconds = run(path.resolve(), args.timeout)
            print(f"executed {path} in {seconds:.1f} s")
        except CellExecutionError as exc:
            failed += 1
            print(f"FAILED {path}:\n{exc}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Re-execute book notebooks in place so their stored outputs match a fresh run.

Usage::

    python scripts/execute_notebooks.py                 # every notebook under book/
    python scripts/execute_notebooks.py book/part1-speedup-bounds/01-expected-tokens.ipynb

Each notebook runs top to bottom in a fresh ``python3`` kernel with its own
folder as the working directory (as nbval and the book build run it), with
``PYTHONHASHSEED=0`` and a fixed matplotlib backend. Execution counts are
renumbered from 1, volatile metadata is removed and the random ids the kernel
gives widget models are replaced by ids derived from the notebook's path and
the order in which the models are reached, so that re-running on an unchanged
notebook produces an identical file. A notebook that raises in a
cell not tagged ``raises-exception`` makes the script exit non-zero.
"""

from __future__ import annotations

import argparse
import hashlib
import json
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


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MODEL_REF = "IPY_MODEL_"


def stable_widget_ids(nb: nbformat.NotebookNode, key: str) -> int:
    """Rename widget model ids to ones that do not change between runs; return how many.

    Models are numbered in a deterministic order: first the displayed views in
    cell order, each followed depth-first by the models its state refers to
    (``IPY_MODEL_<id>`` strings, attributes in sorted order); models nothing
    refers to come last, ordered by their content. The new id of model ``n`` is
    the first 32 hex digits of ``sha256(f"{key}:{n}")``.
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if not state:
        return 0
    order: list[str] = []

    def refs(value):
        if isinstance(value, str):
            if value.startswith(MODEL_REF):
                yield value[len(MODEL_REF):]
        elif isinstance(value, dict):
            for name in sorted(value):
                yield from refs(value[name])
        elif isinstance(value, list):
            for item in value:
                yield from refs(item)

    def visit(model_id: str) -> None:
        stack = [model_id]
        while stack:
            current = stack.pop()
            if current in order or current not in state:
                continue
            order.append(current)
            stack.extend(reversed(list(refs(state[current].get("state", {})))))

    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view:
                visit(view["model_id"])
    rest = [m for m in state if m not in order]
    pattern_free = {m: json.dumps(state[m], sort_keys=True) for m in rest}
    for model_id in list(pattern_free):
        for other in state:
            pattern_free[model_id] = pattern_free[model_id].replace(other, "")
    for model_id in sorted(rest, key=lambda m: pattern_free[m]):
        visit(model_id)
    mapping = {old: hashlib.sha256(f"{key}:{n}".encode()).hexdigest()[:32] for n, old in enumerate(order)}

    text = json.dumps(nb)
    for old, new in mapping.items():
        text = text.replace(old, new)
    renamed = nbformat.from_dict(json.loads(text))
    nb.clear()
    nb.update(renamed)
    return len(mapping)


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
    stable_widget_ids(nb, path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name)
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

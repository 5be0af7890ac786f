"""Run one submitted notebook for the grader (``python -m specdec.exercises._grade_worker``).

The grader (``_grade.py``) starts this module in a separate process for every
notebook. It executes the notebook top to bottom in a fresh ``python3``
kernel (nbclient), with

* a time limit for the whole notebook (each cell gets what is left of it,
  and at most the per-cell limit); when it runs out the kernel is shut down;
* errors allowed: a cell that raises is noted and the next cell runs;
* no outputs kept: what the notebook prints or displays is counted and
  dropped, so a huge output cannot exhaust the grader's memory;
* optionally a limit on the address space of the kernel (``--memory-limit``).

The notebook's calls of ``sd.exercises.check`` append their answers to the
file named by ``SPECDEC_GRADE_RECORD`` (set by the grader); the grader
re-checks them itself. This process writes a JSON status file at the end:
``{"status": "ok" | "errors" | "timeout" | "crashed" | "unreadable", ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time


def _write(path: pathlib.Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


def _size(msg: dict) -> int:
    content = msg.get("content", {})
    size = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        size += len(value) if isinstance(value, str) else len(json.dumps(value))
    return size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="execute one notebook for the grader")
    parser.add_argument("notebook", type=pathlib.Path)
    parser.add_argument("status", type=pathlib.Path)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for the whole notebook")
    parser.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell at most")
    parser.add_argument("--memory-limit", type=int, default=0, help="MB of address space for the kernel (0: none)")
    args = parser.parse_args(argv)

    status: dict = {"status": "ok", "detail": "", "errors": [], "output_bytes": 0, "kernel_pid": None}
    started = time.monotonic()
    deadline = started + args.timeout
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellTimeoutError, DeadKernelError
    except ImportError as exc:  # pragma: no cover - the book's environment has them
        status.update(status="crashed", detail=f"grading needs nbclient and ipykernel ({exc})")
        _write(args.status, status)
        return 0
    try:
        nb = nbformat.read(str(args.notebook), as_version=4)
    except Exception as exc:
        status.update(status="unreadable", detail=f"not a readable notebook ({type(exc).__name__}: {exc})"[:300])
        _write(args.status, status)
        return 0

    if args.memory_limit > 0:
        try:
            import resource
            limit = args.memory_limit * 2**20
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))  # inherited by the kernel process
        except (ImportError, ValueError, OSError) as exc:
            status["detail"] = f"memory limit not applied ({exc})"

    class GradingClient(NotebookClient):
        """nbclient's executor that keeps no outputs (it counts their size)."""

        def output(self, outs, msg, display_id, cell_index):
            status["output_bytes"] += _size(msg)
            return None

    def remaining(cell) -> int:
        left = deadline - time.monotonic()
        return max(1, int(min(args.cell_timeout, left)))

    def on_start(notebook=None, **_):
        try:
            status["kernel_pid"] = client.km.provisioner.pid
            _write(args.status, dict(status, status="running"))
        except Exception:
            pass

    def on_error(cell=None, cell_index=None, execute_reply=None, **_):
        content = (execute_reply or {}).get("content", {})
        status["errors"].append({"cell": cell_index, "error": f"{content.get('ename', 'Error')}: "
                                                               f"{content.get('evalue', '')}"[:200]})

    client = GradingClient(
        nb, kernel_name="python3", timeout_func=remaining, allow_errors=True, interrupt_on_timeout=False,
        resources={"metadata": {"path": str(args.notebook.parent)}}, record_timing=False,
        store_widget_state=False, on_notebook_start=on_start, on_cell_error=on_error,
    )
    try:
        client.execute()
    except CellTimeoutError:
        status.update(status="timeout", detail=f"stopped at the time limit ({args.timeout:g} s for the notebook)")
    except DeadKernelError:
        status.update(status="crashed", detail="the kernel died (out of memory, or the notebook killed it)")
    except Exception as exc:
        status.update(status="crashed", detail=f"{type(exc).__name__}: {exc}"[:300])
    else:
        if status["errors"]:
            status.update(status="errors", detail=f"{len(status['errors'])} cell(s) raised an error")
    status["seconds"] = round(time.monotonic() - started, 3)
    _write(args.status, status)
    return 0


if __name__ == "__main__":
    sys.exit(main())

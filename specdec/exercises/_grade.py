"""Grade a folder of student notebooks: ``python -m specdec.exercises grade DIR``.

A notebook's stored outputs prove nothing (anyone can type "[correct]" into
a JSON file), so the grader re-checks every answer itself:

1. each notebook is copied alone into a fresh temporary folder and executed
   there from top to bottom by a separate process (``_grade_worker``, with
   nbclient and a fresh kernel), with a time limit for the whole notebook;
   a crash, a hang or a flood of output in one notebook does not affect the
   others;
2. while it runs, every call of ``sd.exercises.check(label, answer, seed=...)``
   appends the answer to a record file (numbers, tuples, arrays and letters
   as values; for a function, its results on the exercise's cases);
3. the grader then checks the last recorded answer of every exercise again,
   in its own process, against the registry, with the seed the instructor
   assigned (``--seeds``) if any. The kernel's own verdict is ignored.

Running a student's notebook runs the student's code, with the grader's
rights: grade inside a container or a throwaway virtual machine (the
instructors' page shows how).
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ._core import RECORD_ENV, sorted_exercises, recheck
from ._registry import REGISTRY

__all__ = ["NotebookRun", "GradeRow", "GradeReport", "grade", "select_labels", "read_seeds"]


@dataclass
class NotebookRun:
    """How one notebook ran: its status, what it recorded and how long it took."""

    path: pathlib.Path
    status: str
    detail: str = ""
    seconds: float = 0.0
    records: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    output_bytes: int = 0
    kernel_pid: int | None = None

    def status_text(self) -> str:
        """ "ran to the end", "was stopped at the time limit", "crashed: ...", ..."""
        return {"ok": "ran to the end", "errors": f"ran to the end; {self.detail}",
                "timeout": "was stopped at the time limit", "crashed": f"crashed: {self.detail}",
                "unreadable": f"is unreadable: {self.detail}"}.get(self.status, self.status)


@dataclass(frozen=True)
class GradeRow:
    """One notebook and one exercise: ``result`` is "pass", "fail" or "missing"."""

    notebook: str
    number: str
    label: str
    seed: Any
    result: str
    detail: str


def select_labels(spec: str | None) -> list[str]:
    """Labels in book order from "1.1,1.2", "expected-tokens-*", "3" (a chapter) or "all"."""
    ordered = [e.label for e in sorted_exercises()]
    if spec is None or spec.strip().lower() == "all":
        return ordered
    chosen: list[str] = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        if item in REGISTRY:
            matches = [item]
        elif item.isdigit():  # a chapter number (the unnumbered "Start here" chapter is chosen by its labels)
            matches = [e.label for e in sorted_exercises() if e.chapter.number == int(item)]
        elif any(e.number == item for e in REGISTRY.values()):
            matches = [e.label for e in REGISTRY.values() if e.number == item]
        else:
            matches = [label for label in ordered if fnmatch.fnmatchcase(label, item)]
        if not matches:
            raise ValueError(f"no exercise matches {item!r} (use a label, a glob, an exercise number such as 1.2, "
                             f"or a chapter number)")
        chosen += [m for m in matches if m not in chosen]
    return sorted(chosen, key=ordered.index)


def read_seeds(path: str | os.PathLike) -> dict[str, str]:
    """``{notebook name or stem: seed}`` from a CSV file with columns ``notebook,seed``."""
    seeds: dict[str, str] = {}
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            name = (row.get("notebook") or row.get("student") or "").strip()
            seed = (row.get("seed") or "").strip()
            if name and seed:
                seeds[name] = seed
    return seeds


def _seed_value(text: str) -> Any:
    return int(text) if text.isdigit() else text


def _kill_group(proc: subprocess.Popen, kernel_pid: int | None) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in filter(None, (kernel_pid,)):
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(5)
            return
        except subprocess.TimeoutExpired:
            continue


def run_notebook(path: pathlib.Path, timeout: float = 300.0, cell_timeout: float = 120.0,
                 memory_limit: int = 4096) -> NotebookRun:
    """Execute one notebook in a separate process and collect the answers it checked."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="specdec-grade-") as tmp:
        work = pathlib.Path(tmp)
        notebook = work / "submission.ipynb"
        try:
            shutil.copyfile(path, notebook)
        except OSError as exc:
            return NotebookRun(path, "unreadable", f"cannot read it ({exc})")
        record, status_file = work / "record.jsonl", work / "status.json"
        env = dict(os.environ, **{RECORD_ENV: str(record), "PYTHONHASHSEED": "0", "MPLBACKEND": "agg"})
        command = [sys.executable, "-m", "specdec.exercises._grade_worker", str(notebook), str(status_file),
                   "--timeout", str(timeout), "--cell-timeout", str(cell_timeout),
                   "--memory-limit", str(memory_limit)]
        with open(work / "worker.log", "wb") as log:
            proc = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                    start_new_session=hasattr(os, "killpg"))
            try:
                proc.wait(timeout + 60)  # the worker enforces the limit; this is the backstop
                backstop = False
            except subprocess.TimeoutExpired:
                backstop = True
        status = {}
        try:
            status = json.loads(status_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        if backstop:
            _kill_group(proc, status.get("kernel_pid"))
            status.update(status="timeout", detail=f"stopped at the time limit ({timeout:g} s for the notebook)")
        elif status.get("kernel_pid"):
            try:  # the worker shuts its kernel down; make sure nothing is left running
                os.kill(int(status["kernel_pid"]), signal.SIGKILL)
            except (ProcessLookupError, PermissionError, ValueError, OSError):
                pass
        if not status or status.get("status") == "running":
            tail = (work / "worker.log").read_text(errors="replace")[-300:].strip()
            status = dict(status, status="crashed", detail=f"the grading process stopped ({tail or 'no message'})")
        records = []
        try:
            with open(record, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        continue
        except OSError:
            pass
    return NotebookRun(path, str(status.get("status", "crashed")), str(status.get("detail", "")),
                       round(time.monotonic() - start, 3), records, list(status.get("errors", [])),
                       int(status.get("output_bytes", 0)), status.get("kernel_pid"))


def _grade_run(run: NotebookRun, labels: list[str], seed: Any, root: pathlib.Path) -> list[GradeRow]:
    name = run.path.relative_to(root).as_posix() if run.path.is_relative_to(root) else run.path.name
    last: dict[str, dict] = {}
    for record in run.records:
        label = str(record.get("label", ""))
        if label in REGISTRY:
            last[label] = record
    rows = []
    for label in labels:
        exercise = REGISTRY[label]
        record = last.get(label)
        if record is None:
            detail = "no check call for this exercise"
            if run.status in ("timeout", "crashed", "unreadable"):
                detail += f" (the notebook {run.status_text()})"
            rows.append(GradeRow(name, exercise.number, label, seed if exercise.has_variants else None, "missing",
                                 detail))
            continue
        used = record.get("seed")
        if not exercise.has_variants:
            chosen = None  # every student answers the book's version
        else:
            chosen = seed if seed is not None else used
        result = recheck(record, seed=chosen)
        detail = "" if result.passed else result.message
        if chosen is None:
            pass
        elif seed is not None and used is not None and str(used) != str(seed):
            detail = (detail + " " if detail else "") + f"(the notebook used seed {used!r}; graded with {seed!r})"
        elif seed is not None and used is None:
            detail = (detail + " " if detail else "") + f"(the notebook checked the book's version; graded with seed {seed!r})"
        rows.append(GradeRow(name, exercise.number, label, chosen, "pass" if result.passed else "fail", detail))
    return rows


@dataclass
class GradeReport:
    """The grades: one row per notebook and exercise, and how each notebook ran."""

    rows: list[GradeRow]
    runs: list[NotebookRun]
    root: pathlib.Path

    def totals(self) -> dict[str, tuple[int, int]]:
        """``{notebook: (passed, assigned)}``."""
        out: dict[str, tuple[int, int]] = {}
        for row in self.rows:
            passed, total = out.get(row.notebook, (0, 0))
            out[row.notebook] = (passed + (row.result == "pass"), total + 1)
        return out

    def _name(self, run: NotebookRun) -> str:
        return run.path.relative_to(self.root).as_posix() if run.path.is_relative_to(self.root) else run.path.name

    def to_text(self) -> str:
        """A table for the terminal, notebook by notebook, with a total for each."""
        header = ("notebook", "exercise", "label", "seed", "result", "detail")
        body = [(r.notebook, r.number, r.label, "" if r.seed is None else str(r.seed), r.result, r.detail)
                for r in self.rows]
        widths = [max([len(header[i])] + [len(row[i]) for row in body]) for i in range(5)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header[:5], widths)) + "  detail"]
        totals = self.totals()
        for run in self.runs:
            name = self._name(run)
            for row in (b for b in body if b[0] == name):
                lines.append("  ".join(c.ljust(w) for c, w in zip(row[:5], widths)) + ("  " + row[5] if row[5] else ""))
            passed, total = totals.get(name, (0, 0))
            lines.append(f"{name}: total {passed}/{total}; the notebook {run.status_text()} in {run.seconds:.1f} s"
                         + (f"; printed {run.output_bytes / 2**20:.1f} MB (not kept)"
                            if run.output_bytes > 2**20 else ""))
            lines.append("")
        graded = len(self.runs)
        lines.append(f"{graded} notebook{'s' if graded != 1 else ''} graded")
        return "\n".join(lines)

    def to_csv(self) -> str:
        """CSV: one row per notebook and exercise, then one ``total`` row per notebook."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["notebook", "exercise", "label", "seed", "result", "detail"])
        for row in self.rows:
            writer.writerow([row.notebook, row.number, row.label, "" if row.seed is None else row.seed, row.result,
                             row.detail])
        totals = self.totals()
        for run in self.runs:
            name = self._name(run)
            passed, total = totals.get(name, (0, 0))
            writer.writerow([name, "total", "", "", f"{passed}/{total}", f"the notebook {run.status_text()}"])
        return buffer.getvalue()

    def __str__(self) -> str:
        return self.to_text()


def grade(directory: str | os.PathLike, labels: str | list[str] | None = None,
          seeds: dict[str, Any] | None = None, seed_from_filename: bool = False, timeout: float = 300.0,
          cell_timeout: float = 120.0, memory_limit: int = 4096, jobs: int = 1) -> GradeReport:
    """Grade every notebook under ``directory`` (see the module docstring).

    ``labels``: the assigned exercises, a list or a string of labels, globs
    (``expected-tokens-*``), exercise numbers (``1.2``) or chapter numbers
    (``3``), comma-separated; by default every exercise any notebook checked.
    ``seeds``: ``{notebook file name or stem: seed}``; ``seed_from_filename``
    uses each notebook's file stem (e.g. a student id) as its seed.
    """
    root = pathlib.Path(directory).resolve()
    if not root.is_dir():
        raise ValueError(f"directory must be a folder of notebooks, got {str(directory)!r}")
    notebooks = sorted(p for p in root.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    if jobs > 1:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            runs = list(pool.map(lambda p: run_notebook(p, timeout, cell_timeout, memory_limit), notebooks))
    else:
        runs = [run_notebook(p, timeout, cell_timeout, memory_limit) for p in notebooks]
    if labels is None:
        seen = {str(r.get("label")) for run in runs for r in run.records}
        chosen = [e.label for e in sorted_exercises() if e.label in seen]
    elif isinstance(labels, str):
        chosen = select_labels(labels)
    else:
        chosen = select_labels(",".join(labels))
    rows: list[GradeRow] = []
    for run in runs:
        seed = None
        if seed_from_filename:
            seed = _seed_value(run.path.stem)
        elif seeds:
            raw = seeds.get(run.path.name, seeds.get(run.path.stem))
            seed = _seed_value(str(raw)) if raw is not None else None
        rows += _grade_run(run, chosen, seed, root)
    return GradeReport(rows, runs, root)

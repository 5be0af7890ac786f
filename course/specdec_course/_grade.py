"""Grade a class's notebooks: ``python -m specdec_course grade DIR --course-key K --roster R ...``.

A notebook's stored outputs prove nothing (anyone can type "[correct]" into
a JSON file), and neither does anything the notebook writes to a file: the
grader runs every notebook again and grades the answers it receives over
that notebook's own pipe, against the student's keyed variants.

For every notebook, the grader

1. matches the file to a roster student by its name (``_course``); an
   unknown name is reported and not run;
2. copies it alone into a fresh private temporary folder and runs it with
   ``_grade_worker`` in a new session and, where ``unshare`` works (root, or
   unprivileged user namespaces), in its own PID, mount, network and IPC namespace: the
   notebook cannot see, signal or trace any process outside it (not the
   grader, not another notebook), every mount but its own folder is
   read-only and it has no capabilities, even when the grader is root;
3. reads what the kernel's ``check`` calls send over the pipe (the write end
   is held by that notebook's kernel only; nothing is read from files), and
   how the notebook ran from a second pipe that only the worker holds; the
   course key's folder (or the files in it that hold the key), the roster,
   the submissions and the outputs are hidden from the notebook;
4. when the notebook ends or runs out of time, kills everything it started
   (the whole namespace; outside a namespace, every descendant, which cannot
   escape the worker, its subreaper), and removes its folder;
5. grades the last answer of each exercise against that student's keyed
   variant (a function on hidden cases drawn for that student), with points
   and partial credit, and appends the result to a progress file and the
   gradebook at once, so a run that is killed keeps what it has graded and a
   new run resumes from there.
"""

from __future__ import annotations

import atexit
import csv
import hashlib
import io
import json
import os
import pathlib
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from . import _core
from ._channel import CHANNEL_ENV
from ._course import AssignmentSpec, Roster, match_submissions, select_labels
from ._forms import Seq
from ._grade_worker import hideable, key_copies
from ._record import from_jsonable, to_jsonable
from ._registry import REGISTRY
from ._sandbox import Outcome
from ._variants import CourseKey, keyed_cases, keyed_inputs

__all__ = ["NotebookRun", "ExerciseGrade", "StudentGrade", "Gradebook", "grade", "run_notebook", "select_labels",
           "isolation_available"]

_MAX_CHANNEL_BYTES = 64 * 2**20
_MAX_LINE = 16 * 2**20
#: Seconds past the notebook's and the grader's cell's limits after which a worker that has not ended is killed.
_BACKSTOP = 20.0


# --------------------------------------------------------------------------
# Running one notebook
# --------------------------------------------------------------------------
@dataclass
class NotebookRun:
    """How one notebook ran and what its pipe carried."""

    path: pathlib.Path
    status: str
    detail: str = ""
    seconds: float = 0.0
    checks: dict = field(default_factory=dict)      # label -> last recorded answer (JSON-able)
    counts: dict = field(default_factory=dict)      # label -> number of check calls received
    outcomes: dict = field(default_factory=dict)    # label -> list of outcome dicts (function exercises)
    output_bytes: int = 0
    isolation: str = ""
    errors: list = field(default_factory=list)      # the first cell errors: {"cell": index, "error": text}
    confinement: list = field(default_factory=list)  # what the sandbox could not set up (empty when all is done)

    def status_text(self) -> str:
        """ "ran to the end", "was stopped at the time limit", "crashed: ...", ..."""
        return {"ok": "ran to the end", "errors": f"ran to the end; {self.detail}",
                "timeout": f"was {self.detail}" if self.detail.startswith("stopped") else
                "was stopped at the time limit" + (f" ({self.detail})" if self.detail else ""),
                "crashed": f"crashed: {self.detail}", "unreadable": f"is unreadable: {self.detail}"}.get(
                    self.status, self.status)


_PROBE: dict = {}
_PROBE_LOCK = threading.Lock()


def isolation_available() -> str:
    """ "namespace" when ``unshare`` can give each notebook its own PID namespace here, else "session"."""
    with _PROBE_LOCK:
        if "mode" not in _PROBE:
            _PROBE["mode"], _PROBE["prefix"] = "session", []
            unshare = shutil.which("unshare")
            if unshare and sys.platform.startswith("linux"):
                base = [unshare, "--pid", "--net", "--ipc", "--fork", "--mount-proc", "--kill-child"]
                for prefix in ((base,) if os.geteuid() == 0 else ()) + \
                        ([unshare, "--user", "--map-root-user", "--pid", "--net", "--ipc", "--fork", "--mount-proc",
                          "--kill-child"],):
                    try:
                        done = subprocess.run(prefix + [sys.executable, "-c", "import os; print(os.getpid())"],
                                              capture_output=True, text=True, timeout=20)
                    except (OSError, subprocess.SubprocessError):
                        continue
                    if done.returncode == 0 and done.stdout.strip() == "1":
                        _PROBE["mode"], _PROBE["prefix"] = "namespace", prefix
                        break
        return _PROBE["mode"]


def _prefix() -> list[str]:
    isolation_available()
    return list(_PROBE["prefix"])


def _proc_children(pid: int) -> list[int]:
    from ._grade_worker import children
    try:
        return children(pid)
    except OSError:
        return []


_ACTIVE: set = set()
_ACTIVE_LOCK = threading.Lock()


def _kill_run(proc: subprocess.Popen) -> None:
    """Kill the run's whole process tree: its descendants, its session (the namespace dies with its first
    process), and any process orphaned by it that came back to the grader (a subreaper outside namespaces)."""
    from ._grade_worker import kill_descendants
    try:
        kill_descendants(proc.pid, rounds=5)
    except OSError:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        pass
    with _ACTIVE_LOCK:
        _ACTIVE.discard(proc.pid)
        active = set(_ACTIVE)
    if _SUBREAPER:
        _reap_strays(active)


def _reap_strays(active: set) -> None:
    """Kill the grader's children that are no running notebook's worker (orphans of a finished notebook)."""
    from ._grade_worker import kill_descendants
    for pid in _proc_children(os.getpid()):
        if pid in active:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read()
        except OSError:
            continue
        if not _from_this_grader(pid):
            continue   # the grading process's own children (a test runner's browser or kernels) are not strays
        if b"_grade_worker" in command or b"ipykernel" in command or _is_stray(pid):
            try:
                kill_descendants(pid, rounds=3)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, PermissionError, ChildProcessError, OSError):
                pass


_RUN_MARK = "SPECDEC_GRADED_BY"
_MARK: list = []


def _run_mark() -> str:
    """This grading process's mark, put in every worker's environment (its pid and a random token)."""
    with _ACTIVE_LOCK:
        if not _MARK:
            _MARK.append(f"{os.getpid()}-{os.urandom(8).hex()}")
        return _MARK[0]


def _from_this_grader(pid: int) -> bool:
    """True when the process's environment carries this grader's mark: it descends from one of its workers."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read().split(b"\0")
    except OSError:
        return False
    return f"{_RUN_MARK}={_run_mark()}".encode() in environ


def _is_stray(pid: int) -> bool:
    """A child of the grader it did not start itself: reparented to it as their subreaper."""
    return pid not in _STARTED


_STARTED: set = set()
_SUBREAPER: list = []


def _become_subreaper() -> None:
    from ._grade_worker import PR_SET_CHILD_SUBREAPER, prctl
    if sys.platform.startswith("linux") and not _SUBREAPER and prctl(PR_SET_CHILD_SUBREAPER, 1):
        _SUBREAPER.append(True)


def _stop_being_subreaper() -> None:
    """Give the subreaper role back when grading ends: the process that called grade() (a test runner, say)
    must not keep adopting, and reaping, orphans that have nothing to do with grading."""
    from ._grade_worker import PR_SET_CHILD_SUBREAPER, prctl
    prctl(PR_SET_CHILD_SUBREAPER, 0)
    _SUBREAPER.clear()


_MPL: list = []


def _matplotlib_cache() -> str | None:
    """A matplotlib config folder with its font cache built (read-only for notebooks; saves seconds each)."""
    with _PROBE_LOCK:
        if not _MPL:
            folder = tempfile.mkdtemp(prefix="specdec-grade-mpl-")
            atexit.register(shutil.rmtree, folder, True)   # one per grading process, removed when it ends
            try:
                subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], timeout=120,
                               env=dict(os.environ, MPLCONFIGDIR=folder), capture_output=True)
                os.chmod(folder, 0o755)
                _MPL.append(folder)
            except (OSError, subprocess.SubprocessError):
                _MPL.append(None)
        return _MPL[0]


def _final_code(final: dict) -> str:
    if not final:
        return "pass"
    return f"import specdec_course._channel as _grader\n_grader.final({json.dumps(json.dumps(final))})"


def run_notebook(path: str | os.PathLike, final: dict | None = None, timeout: float = 300.0,
                 cell_timeout: float = 120.0, memory_limit: int = 4096, isolation: str = "auto",
                 hide=(), parent: str | os.PathLike | None = None) -> NotebookRun:
    """Execute one notebook in its own process tree and collect what its pipe carries.

    ``final``: ``{label: {"cases": [...], "time_limit": s}}``, the hidden cases its checked functions run on
    after the last cell. ``hide``: paths the notebook must not see (the course key, the roster, the
    submissions, the grader's output); ``parent``: the folder for the notebooks' work folders (hidden from
    every notebook but for its own).
    """
    path = pathlib.Path(path)
    start = time.monotonic()
    mode = isolation_available() if isolation == "auto" else isolation
    if mode not in ("namespace", "session"):
        raise ValueError(f"isolation must be 'auto', 'namespace' or 'session', got {isolation!r}")
    if mode == "namespace" and isolation_available() != "namespace":
        raise ValueError("isolation='namespace' needs `unshare` with PID namespaces, which does not work here")
    prefix = _prefix() if mode == "namespace" else []
    own_parent = parent is None
    parent = pathlib.Path(tempfile.mkdtemp(prefix="specdec-grade-run-") if own_parent else parent)
    work = pathlib.Path(tempfile.mkdtemp(prefix="specdec-grade-", dir=parent))
    run = NotebookRun(path, "crashed", isolation=mode)
    try:
        os.chmod(work, 0o700)
        notebook = work / "submission.ipynb"
        try:
            shutil.copyfile(path, notebook)
        except OSError as exc:
            run.status, run.detail = "unreadable", f"cannot read it ({exc})"
            return run
        read_fd, write_fd = os.pipe()
        status_read, status_write = os.pipe()   # the worker's status: the kernel never holds this one
        config_read, config_write = os.pipe()
        env = {k: v for k, v in os.environ.items() if k != CHANNEL_ENV and not k.startswith("SPECDEC_GRADE")}
        env[_RUN_MARK] = _run_mark()   # inherited by the kernel and whatever it starts: how strays are known
        final = final or {}
        config = {"channel_fd": write_fd, "status_fd": status_write, "notebook": str(notebook), "home": str(work), "hide": [str(pathlib.Path(h).resolve()) for h in hide],
                  "timeout": timeout, "cell_timeout": cell_timeout, "memory_limit": memory_limit,
                  "final_code": _final_code(final), "mplconfigdir": _matplotlib_cache(),
                  "final_timeout": 30 + sum(float(item["time_limit"]) for item in final.values())}
        log = open(work / "worker.log", "wb")
        try:
            proc = subprocess.Popen(prefix + [sys.executable, "-m", "specdec_course._grade_worker"],
                                    cwd=work, env=env, stdin=config_read, stdout=log, stderr=log,
                                    pass_fds=(write_fd, status_write), start_new_session=True)
        finally:
            os.close(write_fd)
            os.close(status_write)
            os.close(config_read)
            log.close()
        with _ACTIVE_LOCK:
            _ACTIVE.add(proc.pid)
            _STARTED.add(proc.pid)
        try:
            os.write(config_write, json.dumps(config).encode("utf-8"))
        finally:
            os.close(config_write)
        # the worker stops itself GRACE s past each limit; this backstop also covers its start (before its clock)
        messages, reports = _read_channel(read_fd, proc, status_fd=status_read,
                                          deadline=start + timeout + config["final_timeout"] + _BACKSTOP)
        try:
            proc.wait(5)  # the pipe closed: the worker is exiting
        except subprocess.TimeoutExpired:
            pass
        backstop = proc.poll() is None
        _kill_run(proc)
        # the status comes from the worker's own pipe only: a "status" line on the notebook's pipe is ignored
        status = next((m for m in reversed(reports) if m.get("type") == "status" and m.get("final")), None)
        if backstop:
            run.status, run.detail = "timeout", f"stopped at the time limit ({timeout:g} s for the notebook)"
        elif status is None:
            tail = (work / "worker.log").read_text(errors="replace")[-300:].strip()
            run.status, run.detail = "crashed", f"the grading process stopped ({tail or 'no message'})"
        else:
            run.status, run.detail = str(status.get("status", "crashed")), str(status.get("detail", ""))
            output = status.get("output_bytes")
            run.output_bytes = int(output) if isinstance(output, (int, float)) else 0
            run.errors = [e for e in status.get("errors") or [] if isinstance(e, dict)]
            run.confinement = [str(c) for c in status.get("confinement") or []]
        for message in messages:
            label = str(message.get("label", ""))
            if message.get("type") == "check" and label in REGISTRY:
                run.checks[label] = message.get("answer")
                run.counts[label] = run.counts.get(label, 0) + 1
            elif message.get("type") == "outcomes" and label in final:
                run.outcomes[label] = message.get("outcomes") or []
        return run
    finally:
        shutil.rmtree(work if not own_parent else parent, ignore_errors=True)
        run.seconds = round(time.monotonic() - start, 3)


class _Lines:
    """JSON objects read line by line from one pipe, with caps on the total and on one line."""

    def __init__(self, fd: int):
        self.fd, self.buffer, self.total, self.messages, self.open = fd, bytearray(), 0, [], True

    def read(self) -> None:
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            self.open = False
            return
        self.total += len(chunk)
        if self.total > _MAX_CHANNEL_BYTES:
            return  # a flood: drop the rest (the grader keeps what came before)
        self.buffer += chunk
        while b"\n" in self.buffer:
            line, _, rest = bytes(self.buffer).partition(b"\n")
            self.buffer = bytearray(rest)
            if len(line) > _MAX_LINE:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):   # anything else (a list, a number, garbage) is dropped
                self.messages.append(message)
        if len(self.buffer) > _MAX_LINE:
            self.buffer.clear()


def _read_channel(fd: int, proc: subprocess.Popen, deadline: float,
                  status_fd: int | None = None) -> tuple[list[dict], list[dict]]:
    """What the notebook's pipe carried and what the worker reported on its own pipe (read at the same time)."""
    channel = _Lines(fd)
    worker = _Lines(status_fd) if status_fd is not None else None
    pipes = [p for p in (channel, worker) if p is not None]
    ended_at = None
    try:
        while any(p.open for p in pipes):
            now = time.monotonic()
            if now >= deadline:
                break
            if ended_at is None and proc.poll() is not None:
                ended_at = now
            if ended_at is not None and now - ended_at > 0.5:
                break  # the worker is gone; whatever still holds the pipe is killed next
            ready, _, _ = select.select([p.fd for p in pipes if p.open], [], [], 0.2)
            for pipe in pipes:
                if pipe.fd in ready:
                    pipe.read()
    finally:
        for pipe in pipes:
            os.close(pipe.fd)
    return channel.messages, (worker.messages if worker else [])


# --------------------------------------------------------------------------
# Grading one student's answers
# --------------------------------------------------------------------------
@dataclass
class ExerciseGrade:
    """One student's result on one exercise."""

    label: str
    number: str
    kind: str              # "variant", "function" or "practice"
    result: str            # "pass", "partial", "fail", "missing" or "practice"
    points: float
    out_of: float
    checks: int
    message: str = ""
    hint: str = ""


@dataclass
class StudentGrade:
    """One roster student: the file graded (if any), how it ran and the grade of each exercise."""

    id: str
    name: str
    file: str
    status: str
    exercises: list
    seconds: float = 0.0
    sha256: str = ""

    @property
    def total(self) -> float:
        return round(sum(e.points for e in self.exercises), 4)

    @property
    def out_of(self) -> float:
        return round(sum(e.out_of for e in self.exercises), 4)


def _parts_credit(form, answer: Any, expected: Any, weights: tuple) -> float:
    """Share of the weight of the parts of a tuple answer that are right (0 when the answer is not a tuple)."""
    items = getattr(form, "items", None)
    if not isinstance(form, Seq) or not items:
        return 0.0
    try:
        parts = list(answer)
        wanted = list(expected)
    except TypeError:
        return 0.0
    if len(parts) != len(items):
        return 0.0
    weights = weights or (1.0,) * len(items)
    earned = sum(w for w, item, a, e in zip(weights, items, parts, wanted, strict=False) if item.accepts(a, e))
    return earned / sum(weights)


def _function_outcomes(items: list) -> list[Outcome]:
    return [Outcome(str(o.get("status", "crashed")), from_jsonable(o.get("value")), str(o.get("error", "")))
            for o in items if isinstance(o, dict)]


def grade_answers(run: NotebookRun | None, student: str, slot: int, spec: AssignmentSpec, key: CourseKey,
                  cases: dict) -> list[ExerciseGrade]:
    """Grade what a notebook recorded (``run=None``: no submission) against the student's keyed variants."""
    grades = []
    for label in spec.labels:
        exercise = REGISTRY[label]
        kind = spec.kind(label)
        out_of = 0.0 if kind == "practice" else spec.points[label]
        count = (run.counts.get(label, 0) if run else 0)
        hint = _core.first_hint(exercise)

        def add(result, points, message, show_hint=True):   # called in this iteration only
            grades.append(ExerciseGrade(label, exercise.number, kind, result, round(points, 4), out_of, count,  # noqa: B023
                                        message, hint if show_hint and result != "pass" else ""))  # noqa: B023

        if run is None:
            add("missing", 0.0, "no submission", False)
            continue
        if label not in run.checks:
            detail = "no check call for this exercise"
            if run.status in ("timeout", "crashed", "unreadable"):
                detail += f" (the notebook {run.status_text()})"
            add("missing", 0.0, detail, False)
            continue
        try:
            if kind == "function":
                outcomes = _function_outcomes(run.outcomes.get(label) or [])
                if not outcomes:
                    add("missing", 0.0, "the checked function was not run on the hidden cases "
                                        f"(the notebook {run.status_text()})", False)
                    continue
                result = _core.grade_function(exercise, cases[(label, student)], outcomes, float(exercise.time_limit))
                add("pass" if result.passed else "fail", out_of if result.passed else 0.0, result.message)
                continue
            answer = from_jsonable(run.checks[label])
            params = keyed_inputs(exercise, key, slot) if kind == "variant" else exercise.inputs()
            result = _core.grade_value(exercise, answer, params)
            if kind == "practice":
                add("practice", 0.0, f"{'Correct.' if result.passed else result.message} "
                                     "(self-check practice, not graded)")
                continue
            if result.passed:
                add("pass", out_of, result.message)
                continue
            share = _parts_credit(exercise.form(params), answer, exercise.reference(params),
                                  spec.parts.get(label, ()))
            if share > 0:
                add("partial", out_of * share, f"{result.message} (partial credit: {share:.0%} of the parts)")
            else:
                add("fail", 0.0, result.message)
        except Exception as exc:  # a grading bug must not stop the class
            add("fail", 0.0, f"could not grade this answer ({type(exc).__name__}: {exc})")
    return grades


# --------------------------------------------------------------------------
# The gradebook
# --------------------------------------------------------------------------
def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


@dataclass
class Gradebook:
    """The grades of a class: one :class:`StudentGrade` per roster student, and what could not be matched."""

    spec: AssignmentSpec
    students: list
    unknown: list = field(default_factory=list)
    ambiguous: list = field(default_factory=list)
    superseded: list = field(default_factory=list)
    isolation: str = ""
    seconds: float = 0.0

    def student(self, sid: str) -> StudentGrade:
        return next(s for s in self.students if s.id == sid)

    def to_csv(self) -> str:
        """One row per roster student: points per exercise, the total, then the number of check calls."""
        labels = self.spec.labels
        heads = [f"{REGISTRY[label].number} {label}" for label in labels]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["id", "name", "file", "status", *heads, "total", "out_of", *[f"checks {h}" for h in heads]])
        for s in self.students:
            by = {e.label: e for e in s.exercises}
            writer.writerow([s.id, s.name, s.file, s.status,
                             *[_fmt(by[label].points) if by[label].kind != "practice" else by[label].result
                               for label in labels],
                             _fmt(s.total), _fmt(s.out_of), *[by[label].checks for label in labels]])
        return buffer.getvalue()

    def feedback(self, s: StudentGrade) -> str:
        """A student's feedback as Markdown: each exercise's result, points, check calls, message and hint."""
        lines = [f"# {self.spec.title}: feedback for {s.name + ' ' if s.name else ''}({s.id})", ""]
        lines.append(f"Notebook: {s.file or 'none was handed in'}; {s.status}.")
        lines.append(f"Total: {_fmt(s.total)} of {_fmt(s.out_of)} points.")
        lines.append("")
        for e in s.exercises:
            points = "not graded" if e.kind == "practice" else f"{_fmt(e.points)}/{_fmt(e.out_of)}"
            lines.append(f"## Exercise {e.number} (`{e.label}`): {e.result}, {points}")
            lines.append("")
            lines.append(f"check() was called {e.checks} time{'s' if e.checks != 1 else ''}.")
            if e.message:
                lines += ["", e.message]
            if e.hint:
                lines += ["", f"Hint: {e.hint}"]
            lines.append("")
        return "\n".join(lines)

    def to_text(self) -> str:
        """A summary for the terminal."""
        width = max([len(s.id) for s in self.students] + [7])
        lines = [f"{'student':<{width}}  {'total':>7}  file / how it ran"]
        for s in self.students:
            lines.append(f"{s.id:<{width}}  {_fmt(s.total):>3}/{_fmt(s.out_of):<3}  "
                         f"{(s.file + ': ') if s.file else ''}{s.status}" + (f" in {s.seconds:.1f} s" if s.file else ""))
        for path in self.unknown:
            lines.append(f"unknown file (no roster id in its name; not graded): {path}")
        for path, ids in self.ambiguous:
            lines.append(f"ambiguous file (names several roster ids: {', '.join(ids)}; not graded): {path}")
        for path, sid in self.superseded:
            lines.append(f"superseded by a later submission of {sid}: {path}")
        lines.append(f"{len(self.students)} students, {sum(1 for s in self.students if s.file)} notebooks graded "
                     f"in {self.seconds:.1f} s ({self.isolation})")
        if self.isolation.endswith("session"):
            lines.append("warning: without a namespace per notebook, a notebook can read what the grading user "
                         "can read (the course key too) and signal its processes; grade in a container (see the "
                         "instructors' page, 'The trust boundary')")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _sha256(path: pathlib.Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _atomic_write(path: pathlib.Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _load_progress(path: pathlib.Path, key: CourseKey, spec: AssignmentSpec) -> dict:
    done = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return done
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if item.get("key") == key.fingerprint and item.get("assignment") == spec.fingerprint():
            grade_ = item["grade"]
            grade_["exercises"] = [ExerciseGrade(**e) for e in grade_["exercises"]]
            done[(grade_["id"], grade_["sha256"])] = StudentGrade(**grade_)
    return done


def grade(directory: str | os.PathLike, spec: AssignmentSpec, roster: Roster, course_key: CourseKey,
          csv_path: str | os.PathLike | None = None, feedback_dir: str | os.PathLike | None = None,
          timeout: float = 300.0, cell_timeout: float = 120.0, memory_limit: int = 4096, jobs: int = 1,
          isolation: str = "auto", resume: bool = True, hide=()) -> Gradebook:
    """Grade every notebook under ``directory`` for the roster (see the module docstring).

    With ``csv_path`` the gradebook is written there (and rewritten after every notebook), with a progress file
    ``<csv>.progress.jsonl`` beside it (a new run with the same key and assignment reuses what it holds for
    unchanged files); with ``feedback_dir`` a Markdown feedback file per student is written there.
    ``hide``: more paths no notebook may see (the course key's file, the roster's, ``directory`` and the
    outputs are hidden anyway).
    """
    started = time.monotonic()
    root = pathlib.Path(directory).resolve()
    if not root.is_dir():
        raise ValueError(f"directory must be a folder of notebooks, got {str(directory)!r}")
    if not isinstance(course_key, CourseKey):
        raise TypeError("course_key must be a CourseKey (CourseKey.read(path))")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    notebooks = sorted(p for p in root.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    matches = match_submissions(notebooks, roster)
    csv_file = pathlib.Path(csv_path) if csv_path else None
    progress = csv_file.with_name(csv_file.name + ".progress.jsonl") if csv_file else None
    feedback = pathlib.Path(feedback_dir) if feedback_dir else None
    if feedback:
        feedback.mkdir(parents=True, exist_ok=True)
    done = _load_progress(progress, course_key, spec) if (progress and resume) else {}
    if progress and not resume:
        progress.unlink(missing_ok=True)

    cases = {}
    for sid in roster.ids:
        for label in spec.labels:
            if spec.kind(label) == "function":
                exercise = REGISTRY[label]
                cases[(label, sid)] = keyed_cases(exercise, course_key, sid, _core.exercise_cases(exercise))
    if progress:
        progress.touch()
    run_parent = tempfile.mkdtemp(prefix="specdec-grade-run-")
    os.chmod(run_parent, 0o700)
    keep = [run_parent, *(p for p in (_matplotlib_cache(),) if p)]
    secret = [p for p in (course_key.path, roster.path) if p] + key_copies(course_key, keep)
    hidden = hideable([*secret, root, *(p for p in (csv_file, progress, feedback) if p), *hide], keep)
    mode = isolation_available() if isolation == "auto" else isolation
    if mode == "session":
        _become_subreaper()
    book = Gradebook(spec, [], matches.unknown, matches.ambiguous, matches.superseded,
                     isolation=f"isolation: {mode}")
    results: dict[str, StudentGrade] = {}
    lock = threading.Lock()

    def absent(slot, sid):
        return StudentGrade(sid, roster.names[slot], "", "no submission",
                            grade_answers(None, sid, slot, spec, course_key, cases))

    def publish():
        book.students = [results.get(sid) or absent(slot, sid) for slot, sid in enumerate(roster.ids)]
        if csv_file:
            _atomic_write(csv_file, book.to_csv())

    def one(sid: str) -> None:
        slot = roster.ids.index(sid)
        path = matches.files[sid]
        digest = _sha256(path)
        name = path.relative_to(root).as_posix()
        previous = done.get((sid, digest))
        if previous is not None:
            result = previous
        else:
            final = {label: {"cases": [[to_jsonable(a) for a in case] for case in cases[(label, sid)]],
                             "time_limit": float(REGISTRY[label].time_limit)}
                     for label in spec.labels if spec.kind(label) == "function"}
            try:
                run = run_notebook(path, final, timeout=timeout, cell_timeout=cell_timeout,
                                   memory_limit=memory_limit, isolation=isolation, hide=hidden, parent=run_parent)
            except Exception as exc:   # whatever went wrong with one notebook, the others are graded
                run = NotebookRun(path, "crashed", f"the grader could not run it ({type(exc).__name__}: {exc})"[:300])
            how = f"the notebook {run.status_text()}"
            if run.confinement:   # the instructor must know when a sandbox was not complete
                how += f" (sandbox incomplete: {'; '.join(run.confinement)})"
            result = StudentGrade(sid, roster.names[slot], name, how,
                                  grade_answers(run, sid, slot, spec, course_key, cases), run.seconds, digest)
        with lock:
            results[sid] = result
            if progress and previous is None:
                with open(progress, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"key": course_key.fingerprint, "assignment": spec.fingerprint(),
                                             "grade": asdict(result)}) + "\n")
            if feedback:
                _atomic_write(feedback / f"{_safe(sid)}.md", book.feedback(result))
            publish()

    order = [sid for sid in roster.ids if sid in matches.files]
    publish()
    try:
        if jobs > 1:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                list(pool.map(one, order))
        else:
            for sid in order:
                one(sid)
    finally:
        shutil.rmtree(run_parent, ignore_errors=True)
        if _SUBREAPER:
            _stop_being_subreaper()
    with lock:
        publish()
        if feedback:
            for s in book.students:
                if not s.file:
                    _atomic_write(feedback / f"{_safe(s.id)}.md", book.feedback(s))
    book.seconds = round(time.monotonic() - started, 3)
    return book


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text) or "student"

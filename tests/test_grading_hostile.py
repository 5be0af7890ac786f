"""Acceptance checks of issue 26 with hostile notebooks of another kind than those of ``tests/test_grading.py``.

One grading run (two notebooks at a time, each in its own PID, mount and network namespace) of a roster of seven:

* ``s26001`` (``doe_42_s26001.ipynb``, an LMS name) and ``s26005`` (``s26005-2.ipynb``, a resubmission): honest;
* ``s26010``, the **descriptor writer** (``tests/data/grading/fdwriter_s26010.ipynb``): writes junk and forged
  grader messages (a final status with fields of the wrong type, outcomes that are not a list, a 17 MB line) to
  every file descriptor it holds and every descriptor of every process it can see;
* ``s26011``, the **gradebook rewriter**: a detached process and a forked child that it waits for look for the
  CSV, the progress file and the feedback files (in the grader's command line and on disk) and rewrite them;
* ``s26012``, the **key scanner**: looks for the course key in every environment, command line and small file it
  can read; the instructor left an editor's backup copy, ``course.key~``, next to the key;
* ``s26013``, the **patcher**: monkeypatches the recording functions and the grader's own last cell;
* ``s26014``: hands in nothing.

Each attack must gain nothing, hurt nobody and stop nothing; the honest notebooks keep full marks.
"""

from __future__ import annotations

import csv
import io
import os
import pathlib
import re
import shutil
import time

import pytest

from specdec_course import REGISTRY, _grade_worker
from specdec_course._course import Roster, read_assignment
from specdec_course._grade import grade, isolation_available
from specdec_course._handout import sheet
from specdec_course._variants import CourseKey, keyed_inputs

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

DATA = pathlib.Path(__file__).resolve().parent / "data" / "grading"
IDS = ["s26001", "s26005", "s26010", "s26011", "s26012", "s26013", "s26014"]
HOSTILE = {"s26010": "fdwriter_s26010", "s26011": "csvrewriter_s26011", "s26012": "keyscanner_s26012",
           "s26013": "patcher_s26013"}
ASSIGNMENT = 'title = "Homework 3"\n\n[points]\n"1.1" = 2\n"1.2" = [2, 1]\n"1.5" = 2\n"4.1" = 1\n'
FULL = {"expected-tokens-1": 2, "expected-tokens-2": 3, "expected-tokens-5": 2}
#: The run's limits: the descriptor writer's cell never returns and is stopped at CELL_TIMEOUT, while the other
#: notebooks (the longest, the rewriter and the scanner, take 10 s and 7 s) run beside it.
TIMEOUT, CELL_TIMEOUT = 45, 20


def _code(key, roster, spec, sid):
    return re.search(r'course\.assignment\("([^"]+)"\)', sheet(spec, key, roster, sid)).group(1)


def _filled(text, key, roster, spec, sid):
    """A hostile notebook with its handout's code and its roster row (the key scanner knows its row, as a student
    who sees the class list does: trying every row instead, a wrong key found on the machine would give some row
    the handout's inputs by chance, once in a few hundred keys)."""
    return text.replace("__ASSIGNMENT_CODE__", _code(key, roster, spec, sid)).replace(
        "__ROSTER_ROW__", str(roster.slot(sid)))


def _honest(key, roster, spec, sid):
    p1 = keyed_inputs(REGISTRY["expected-tokens-1"], key, roster.slot(sid))
    p2 = keyed_inputs(REGISTRY["expected-tokens-2"], key, roster.slot(sid))
    no_help = REGISTRY["no-help-1"].reference(REGISTRY["no-help-1"].inputs())
    cells = [f"import numpy as np\nimport specdec as sd\nimport specdec_course as course\ncourse.assignment({_code(key, roster, spec, sid)!r})",
             f"course.check('expected-tokens-1', sd.expected_tokens({p1['alpha']!r}, {p1['k']!r}))",
             f"pmf = sd.accepted_tokens_pmf({p2['alpha']!r}, {p2['k']!r})\n"
             "course.check('expected-tokens-2', (pmf, int(np.argmax(pmf)) + 1))",
             "def f(alpha, k):\n    return float(np.sum(np.arange(1, k + 2) * sd.accepted_tokens_pmf(alpha, k)))\n"
             "course.check('expected-tokens-5', f)",
             f"course.check('no-help-1', {no_help!r})"]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return nb


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    assert isolation_available() == "namespace", "this machine must give each notebook its own PID namespace"
    course = tmp_path_factory.mktemp("hostile-course")
    key = CourseKey.create(course / "course.key")
    shutil.copyfile(course / "course.key", course / "course.key~")   # an editor's backup the instructor forgot
    (course / "roster.csv").write_text("id,name\n" + "".join(f"{sid},Student {sid}\n" for sid in IDS))
    (course / "hw3.toml").write_text(ASSIGNMENT)
    roster, spec = Roster.read(course / "roster.csv"), read_assignment(course / "hw3.toml")
    subs = tmp_path_factory.mktemp("hostile-submissions")
    nbformat.write(_honest(key, roster, spec, "s26001"), str(subs / "doe_42_s26001.ipynb"))
    nbformat.write(_honest(key, roster, spec, "s26005"), str(subs / "s26005-2.ipynb"))
    for sid, name in HOSTILE.items():
        text = (DATA / f"{name}.ipynb").read_text(encoding="utf-8")
        (subs / f"{name}.ipynb").write_text(_filled(text, key, roster, spec, sid), encoding="utf-8")
    out = tmp_path_factory.mktemp("hostile-out")
    start = time.monotonic()
    book = grade(subs, spec, roster, key, csv_path=out / "grades.csv", feedback_dir=out / "feedback",
                 timeout=TIMEOUT, cell_timeout=CELL_TIMEOUT, jobs=2)
    book.elapsed = time.monotonic() - start
    return book, out, course, key


def _grades(book, sid):
    return {e.label: e for e in book.student(sid).exercises}


def _rows(out):
    return {r["id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def _left_running(marker: bytes) -> list[str]:
    left = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if marker in handle.read():
                    left.append(entry)
        except OSError:
            continue
    return left


def test_honest_notebooks_keep_full_marks_next_to_the_hostile_ones(run):
    book, out, _, _ = run
    rows = _rows(out)
    assert list(rows) == IDS
    for sid in ("s26001", "s26005"):
        grades = _grades(book, sid)
        assert {label: grades[label].points for label in FULL} == FULL, [vars(e) for e in grades.values()]
        assert book.student(sid).total == 7 and rows[sid]["total"] == "7"
        assert "REWRITTEN" not in (out / "feedback" / f"{sid}.md").read_text()
    assert rows["s26014"]["status"] == "no submission" and rows["s26014"]["total"] == "0"
    # every hostile notebook was run to its end or its limit, none stopped the run
    assert all(book.student(sid).file for sid in HOSTILE)


def test_descriptor_writer_gains_nothing_and_cannot_forge_its_status(run):
    """Junk, non-object JSON and forged messages on every descriptor: dropped; the status is the worker's own."""
    book, _, course, _ = run
    writer = book.student("s26010")
    assert writer.total == 0, [vars(e) for e in writer.exercises]
    # its kernel takes no more requests after its attack: its cell is stopped at the cell limit, and the
    # worker, finding the kernel deaf (no answer on the control channel within GRACE s, and idle), does not wait
    # for the grader's cell (its limit plus the checked functions' limits, then GRACE s more, as it did before)
    assert f"stopped at the time limit ({CELL_TIMEOUT} s for cell 2)" in writer.status, writer.status
    assert "the kernel no longer answered" in writer.status, writer.status
    # 1: the interrupt; 10: the kernel's start, the first cell and the kill on a loaded machine
    assert writer.seconds < CELL_TIMEOUT + 1 + _grade_worker.GRACE + 10, writer.seconds
    assert "FORGED" not in writer.status and "FORGED" not in book.to_text()
    assert _grades(book, "s26010")["expected-tokens-1"].result == "fail"


def test_gradebook_rewriter_changes_no_file_and_does_not_survive(run):
    book, out, _, _ = run
    rows = _rows(out)
    assert rows["s26011"]["total"] == "0" and book.student("s26011").total == 0
    assert rows["s26001"]["total"] == "7"
    progress = (out / "grades.csv.progress.jsonl").read_text()
    assert '"total": 99' not in progress and len(progress.splitlines()) == len(HOSTILE) + 2
    assert all("REWRITTEN" not in p.read_text() for p in (out / "feedback").glob("*.md"))
    assert not _left_running(b"specdec-rewriter-marker")


def test_key_scanner_finds_no_key(run):
    """The key's folder is hidden from notebooks (with the backup beside the key), so the scanner records the
    wrong answers it records without a key; with the key it would have recorded its row's right answers."""
    book, _, course, key = run
    assert key.appears_in((course / "course.key~").read_text())   # the attack was live
    scanner = _grades(book, "s26012")
    assert book.student("s26012").total == 0, [vars(e) for e in scanner.values()]
    assert scanner["expected-tokens-1"].result == "fail" and scanner["expected-tokens-1"].checks == 1


def test_patched_recording_counts_for_nothing(run):
    """The kernel's checker and the grader's last cell are the student's to patch; the grader re-checks everything."""
    book, _, _, _ = run
    patched = _grades(book, "s26013")
    assert book.student("s26013").total == 0, [vars(e) for e in patched.values()]
    assert patched["expected-tokens-5"].result == "fail"


def test_the_run_stays_bounded(run):
    book, _, _, _ = run
    assert book.elapsed < 6 * (TIMEOUT + CELL_TIMEOUT)


def test_key_scanner_works_when_only_the_key_file_is_hidden(tmp_path, monkeypatch):
    """The scanner is a real attack: when the grader hid only the key file (before issue 26 was closed), it found
    the backup beside it and recorded its row's right answers. (A fresh run with that hiding put back.)"""
    from specdec_course import _grade
    from specdec_course._course import parse_labels

    monkeypatch.setattr(_grade, "key_copies", lambda key, keep=(): [])
    (tmp_path / "course").mkdir()
    (tmp_path / "subs").mkdir()
    key = CourseKey.create(tmp_path / "course" / "course.key")
    shutil.copyfile(tmp_path / "course" / "course.key", tmp_path / "course" / "course.key~")
    (tmp_path / "course" / "roster.csv").write_text("id\ns26011\ns26012\n")
    roster, spec = Roster.read(tmp_path / "course" / "roster.csv"), parse_labels("1.1:2,1.2:3", title="Scan")
    text = (DATA / "keyscanner_s26012.ipynb").read_text(encoding="utf-8")
    (tmp_path / "subs" / "keyscanner_s26012.ipynb").write_text(_filled(text, key, roster, spec, "s26012"),
                                                                 encoding="utf-8")
    book = grade(tmp_path / "subs", spec, roster, key, timeout=60, cell_timeout=45)
    assert book.student("s26012").total == 5, book.feedback(book.student("s26012"))


def test_each_notebook_has_its_own_namespaces(tmp_path):
    """PID, mount, network and System V IPC namespaces of its own (no shared memory or message queue with a
    notebook beside it), and the grader's pipe as its only channel."""
    from specdec_course._grade import run_notebook

    kinds = ("pid", "mnt", "net", "ipc")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(
        "import os\nimport specdec as sd\nimport specdec_course as course\n"
        f"course.check('expected-tokens-1', [os.readlink(f'/proc/self/ns/{{k}}') for k in {kinds!r}])")]
    nbformat.write(nb, str(tmp_path / "ns.ipynb"))
    run = run_notebook(tmp_path / "ns.ipynb", timeout=60, cell_timeout=45)
    assert run.isolation == "namespace" and not run.confinement, (run.status, run.detail, run.confinement)
    theirs = run.checks["expected-tokens-1"]
    ours = [os.readlink(f"/proc/self/ns/{k}") for k in kinds]
    assert len(theirs) == len(kinds) and all(a != b for a, b in zip(theirs, ours, strict=True)), (theirs, ours)


def test_a_kernel_busy_in_one_long_call_still_gets_the_graders_cell(tmp_path):
    """The deaf-kernel probe does not mistake a busy kernel for one whose connections were written over.

    ``sum(range(...))`` is one C call that keeps the interpreter's lock: the kernel's control thread cannot answer
    the probe, but the kernel uses a core, so after the cell limit the grader's cell is still sent, and it runs
    once the call returns (the grader's cell waits 30 s for it). The cell sizes its call from its own speed, timed
    just before it, to last about 12 s: a fixed count took 7 s alone on one machine's core and 36 s in a full
    run on a slower one. The call must outlast the probe (7 s); it would fall short only if the kernel ran more
    than 1.7 times as fast during the call as in the timing just before it.
    """
    from specdec_course._grade import run_notebook

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(
        "import time\n"
        "start = time.perf_counter(); sum(range(10**7)); per_second = 10**7 / (time.perf_counter() - start)\n"
        "total = sum(range(int(12 * per_second)))   # one C call of about 12 s at that speed")]
    nbformat.write(nb, str(tmp_path / "busy.ipynb"))
    run = run_notebook(tmp_path / "busy.ipynb", timeout=120, cell_timeout=1)
    assert run.status == "timeout" and run.detail == "stopped at the time limit (1 s for cell 0)", \
        (run.status, run.detail)
    # the call outlasted the probe (the cell limit, the interrupt's second, GRACE): else this proves nothing
    assert run.seconds > 1 + 1 + _grade_worker.GRACE, run.seconds

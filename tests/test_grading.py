"""Grading a class's notebooks end to end: ``python -m specdec.exercises grade DIR`` (issue 15, item 5).

Fake submissions, each graded with its own variant (the file name is the seed):

* ``right``: every answer right (its variant's, a function, a letter, flags as booleans);
* ``wrong``: every answer wrong, one of them the book's answer checked without the seed;
* ``edited``: wrong answers whose stored outputs were edited to say "[correct]";
* ``loop``: one right answer, then a cell that never ends (it sleeps, so it holds no core);
* ``crash``: one right answer, then a cell that kills its kernel;
* ``huge``: prints 40 MB, then a right answer.

The grader must tell them apart, finish in a bounded time, and leave no
kernel running.
"""

from __future__ import annotations

import csv
import io
import os
import pathlib
import subprocess
import sys
import time

import pytest

import specdec as sd
from specdec.exercises import instructors

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

ROOT = pathlib.Path(__file__).resolve().parents[1]
LABELS = "1.1,1.5,4.1,5.1"
TIMEOUT = 30.0       # seconds per notebook
CELL_TIMEOUT = 10.0  # seconds per cell: the endless cell is stopped by this one

HEAD = "import numpy as np\nimport specdec as sd\nSEED = {seed!r}"
RIGHT_1 = ("v = sd.exercises.variant('expected-tokens-1', SEED)\n"
           "answer = sd.expected_tokens(v.params['alpha'], v.params['k'])\n"
           "sd.exercises.check('expected-tokens-1', answer, seed=SEED)")
RIGHT_5 = ("def expected_from_pmf(alpha, k):\n"
           "    return float(np.sum(np.arange(1, k + 2) * sd.accepted_tokens_pmf(alpha, k)))\n"
           "sd.exercises.check('expected-tokens-5', expected_from_pmf)")
# the right letter in lower case (the checker ignores case); taken from the registry so reordering options keeps it
RIGHT_41 = f"sd.exercises.check('no-help-1', {instructors.reference('no-help-1').lower()!r})"
RIGHT_51 = ("v = sd.exercises.variant('checklist-1', SEED)\n"
            "w = sd.checklist.Workload(**{k: v.params[k] for k in v.params})\n"
            "sd.exercises.check('checklist-1', tuple(c.passed for c in sd.checklist.assess(w).checks), seed=SEED)")
WRONG = ["sd.exercises.check('expected-tokens-1', sd.expected_tokens(0.75, 5))",   # the book's answer, no seed
         "def expected_from_pmf(alpha, k):\n    return 1.0\nsd.exercises.check('expected-tokens-5', expected_from_pmf)",
         "sd.exercises.check('no-help-1', 'a')",
         "sd.exercises.check('checklist-1', (0, 0, 0, 0, 0), seed=SEED)"]


def _notebook(cells, seed, fake_correct=False):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(HEAD.format(seed=seed))] + [nbformat.v4.new_code_cell(c) for c in cells]
    if fake_correct:
        for cell in nb.cells[1:]:
            cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "[correct] edited: Correct."},
                                                   execution_count=1)]
            cell.execution_count = 1
    return nb


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    plans = {
        "right": ([RIGHT_1, RIGHT_5, RIGHT_41, RIGHT_51], False),
        "wrong": (WRONG, False),
        "edited": (WRONG, True),
        "loop": ([RIGHT_1, "import time\nwhile True:\n    time.sleep(0.1)", RIGHT_41], False),   # endless, not busy
        "crash": ([RIGHT_1, "import os\nos._exit(1)", RIGHT_41], False),
        "huge": (["for _ in range(40):\n    print('x' * 2**20)", RIGHT_1], False),
    }
    for name, (cells, fake) in plans.items():
        nbformat.write(_notebook(cells, name, fake), str(folder / f"{name}.ipynb"))
    (folder / "broken.ipynb").write_text("{ not a notebook", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def report(submissions):
    start = time.monotonic()
    result = instructors.grade(submissions, labels=LABELS, seed_from_filename=True, timeout=TIMEOUT,
                               cell_timeout=CELL_TIMEOUT, jobs=2)
    result.elapsed = time.monotonic() - start
    return result


def _results(report, notebook):
    return {row.label: row for row in report.rows if row.notebook == f"{notebook}.ipynb"}


def test_grading_finishes_in_bounded_time(report):
    """Seven notebooks, two at a time, one of them endless: grading ends within the time limits (plus kernel starts)."""
    assert report.elapsed < CELL_TIMEOUT + 7 * 15, report.elapsed
    runs = {run.path.stem: run for run in report.runs}
    assert set(runs) == {"right", "wrong", "edited", "loop", "crash", "huge", "broken"}
    assert CELL_TIMEOUT <= runs["loop"].seconds < CELL_TIMEOUT + 30


def test_right_notebook_passes_everything(report):
    rows = _results(report, "right")
    assert [rows[label].result for label in sd.exercises.labels() if label in rows] == ["pass"] * 4, rows
    assert report.totals()["right.ipynb"] == (4, 4)
    assert rows["expected-tokens-1"].seed == "right"


def test_wrong_and_edited_notebooks_fail_everything(report):
    """Edited stored outputs that say '[correct]' do not count: the grader re-checks the answers itself."""
    for name in ("wrong", "edited"):
        rows = _results(report, name)
        assert {row.result for row in rows.values()} == {"fail"}, (name, rows)
        assert report.totals()[f"{name}.ipynb"] == (0, 4)
        assert "checked the book's version" in rows["expected-tokens-1"].detail
        assert rows["expected-tokens-5"].detail.startswith("On the example case")


def test_endless_crashing_and_huge_notebooks_keep_what_they_checked(report):
    """A hang, a dead kernel or 40 MB of output stop only that notebook; answers checked before count."""
    runs = {run.path.stem: run for run in report.runs}
    loop, crash, huge = _results(report, "loop"), _results(report, "crash"), _results(report, "huge")
    assert runs["loop"].status == "timeout" and loop["expected-tokens-1"].result == "pass"
    assert loop["no-help-1"].result == "missing" and "time limit" in loop["no-help-1"].detail
    assert runs["crash"].status == "crashed" and crash["expected-tokens-1"].result == "pass"
    assert crash["no-help-1"].result == "missing"
    assert runs["huge"].status == "ok" and runs["huge"].output_bytes >= 40 * 2**20
    assert huge["expected-tokens-1"].result == "pass"
    assert runs["broken"].status == "unreadable"
    assert {row.result for row in _results(report, "broken").values()} == {"missing"}


def test_no_kernel_is_left_running(report):
    for run in report.runs:
        if run.kernel_pid:
            with pytest.raises(ProcessLookupError):
                os.kill(int(run.kernel_pid), 0)


def test_text_and_csv_reports(report):
    text = report.to_text()
    assert text.splitlines()[0].split() == ["notebook", "exercise", "label", "seed", "result", "detail"]
    assert "right.ipynb: total 4/4; the notebook ran to the end" in text
    assert "loop.ipynb: total 1/4; the notebook was stopped at the time limit" in text
    rows = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert {r["result"] for r in rows if r["exercise"] != "total"} == {"pass", "fail", "missing"}
    totals = {r["notebook"]: r["result"] for r in rows if r["exercise"] == "total"}
    assert totals["right.ipynb"] == "4/4" and totals["edited.ipynb"] == "0/4"
    assert len([r for r in rows if r["exercise"] != "total"]) == 7 * 4


def test_command_line_with_a_seeds_file(submissions, tmp_path):
    """`python -m specdec.exercises grade DIR --seeds FILE --csv`: the assigned seed decides the variant."""
    only = tmp_path / "two"
    only.mkdir()
    for name in ("right", "edited"):
        (only / f"{name}.ipynb").write_bytes((submissions / f"{name}.ipynb").read_bytes())
    seeds = tmp_path / "seeds.csv"
    seeds.write_text("notebook,seed\nright.ipynb,right\nedited.ipynb,someone-else\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "specdec.exercises", "grade", str(only), "--labels", "1.1,4.1",
                           "--seeds", str(seeds), "--csv", "--timeout", "60", "--jobs", "2"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    by = {(r["notebook"], r["label"]): r for r in rows}
    assert by[("right.ipynb", "expected-tokens-1")]["result"] == "pass"
    assert by[("edited.ipynb", "expected-tokens-1")]["seed"] == "someone-else"
    bad = subprocess.run([sys.executable, "-m", "specdec.exercises", "grade", str(only), "--labels", "99.9"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "no exercise matches '99.9'" in bad.stderr


def test_instructors_page_shows_the_real_report_layout(report):
    page = (ROOT / "book" / "appendix" / "instructors.md").read_text(encoding="utf-8")
    assert "notebook      exercise  label              seed   result   detail" in page
    assert report.to_text().splitlines()[0].split() == "notebook exercise label seed result detail".split()
    assert "untrusted code" in page and "docker run --rm --network none" in page and "multipass" in page

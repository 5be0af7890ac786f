"""How long grading takes: one notebook, and a class (``python benchmarks/bench_grading.py [--class N] [--jobs J]``).

Each submission is an honest notebook of a four-exercise assignment (two numeric variants, a function on hidden
cases, a choice question), graded exactly as ``python -m specdec_course grade`` does (its own PID, mount and
network namespace where ``unshare`` works). Prints seconds per notebook (kernel start and ``import specdec``
included) and the wall time for the class; the machine's load is printed too, as it dominates on shared cores.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "course"))  # the course package, where it is not installed

import nbformat  # noqa: E402

from specdec_course import REGISTRY  # noqa: E402
from specdec_course._course import Roster, parse_labels  # noqa: E402
from specdec_course._grade import grade, isolation_available  # noqa: E402
from specdec_course._handout import sheet  # noqa: E402
from specdec_course._variants import CourseKey, keyed_inputs  # noqa: E402

LABELS = "1.1:2,1.2:3,1.5:2,4.1"


def _notebook(key, roster, spec, sid):
    code = re.search(r'assignment\("([^"]+)"\)', sheet(spec, key, roster, sid)).group(1)
    p1 = keyed_inputs(REGISTRY["expected-tokens-1"], key, roster.slot(sid))
    p2 = keyed_inputs(REGISTRY["expected-tokens-2"], key, roster.slot(sid))
    cells = [f"import numpy as np\nimport specdec as sd\nimport specdec_course as course\ncourse.assignment({code!r})",
             f"course.check('expected-tokens-1', sd.expected_tokens({p1['alpha']!r}, {p1['k']!r}))",
             f"pmf = sd.accepted_tokens_pmf({p2['alpha']!r}, {p2['k']!r})\n"
             "course.check('expected-tokens-2', (pmf, int(np.argmax(pmf)) + 1))",
             "def f(alpha, k):\n    return float(np.sum(np.arange(1, k + 2) * sd.accepted_tokens_pmf(alpha, k)))\n"
             "course.check('expected-tokens-5', f)",
             "course.check('no-help-1', 'd')"]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return nb


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="size", type=int, default=40, help="students in the class (default 40)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks at the same time (default 2)")
    parser.add_argument("--single", type=int, default=3, help="runs of one notebook alone (default 3)")
    args = parser.parse_args()
    key, spec = CourseKey(os.urandom(32)), parse_labels(LABELS, title="Benchmark")
    ids = [f"s{26001 + i}" for i in range(args.size)]
    roster = Roster.of(ids)
    print(f"isolation: {isolation_available()}; load average before: {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        alone = folder / "alone"
        alone.mkdir()
        nbformat.write(_notebook(key, roster, spec, ids[0]), str(alone / f"{ids[0]}.ipynb"))
        single = []
        for _ in range(args.single):
            book = grade(alone, spec, roster, key, timeout=300, cell_timeout=120, jobs=1)
            single.append(book.student(ids[0]).seconds)
            assert book.student(ids[0]).total == 7, book.feedback(book.student(ids[0]))
        print(f"one notebook alone: {', '.join(f'{s:.1f}' for s in single)} s "
              f"(median {statistics.median(single):.1f} s)")
        klass = folder / "class"
        klass.mkdir()
        for sid in ids:
            nbformat.write(_notebook(key, roster, spec, sid), str(klass / f"{sid}.ipynb"))
        start = time.monotonic()
        book = grade(klass, spec, roster, key, csv_path=folder / "grades.csv", timeout=300, cell_timeout=120,
                     jobs=args.jobs)
        wall = time.monotonic() - start
        seconds = [s.seconds for s in book.students]
        full = sum(s.total == 7 for s in book.students)
        print(f"class of {args.size}, --jobs {args.jobs}: {wall:.0f} s wall ({wall / 60:.1f} min), "
              f"{wall / args.size:.1f} s per student; per notebook median {statistics.median(seconds):.1f} s, "
              f"max {max(seconds):.1f} s; {full}/{args.size} full marks")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The instructors' page's one-command sandbox: the whole grading run without a network (``unshare --net``).

The notebook records the right answer only if it cannot reach a server the test listens on at 127.0.0.1 (in a
fresh network namespace the loopback is its own, and down); with the network it would record a wrong one.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import socket
import subprocess
import sys

import pytest

from specdec_course import REGISTRY
from specdec_course._course import Roster, parse_labels
from specdec_course._handout import sheet
from specdec_course._variants import CourseKey, keyed_inputs

nbformat = pytest.importorskip("nbformat")


def test_grading_inside_unshare_net(tmp_path):
    assert shutil.which("unshare"), "the instructors' page's recipe needs unshare (util-linux)"
    key = CourseKey.create(tmp_path / "course.key")
    (tmp_path / "roster.csv").write_text("id\ns1\n")
    roster, spec = Roster.read(tmp_path / "roster.csv"), parse_labels("1.1:2", title="Net")
    code = sheet(spec, key, roster, "s1").split('assignment("')[1].split('")')[0]
    params = keyed_inputs(REGISTRY["expected-tokens-1"], key, 0)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (
        f"import socket\nimport specdec as sd\nimport specdec_course as course\ncourse.assignment({code!r})",
        f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n    online = True\n"
        "except OSError:\n    online = False",
        f"course.check('expected-tokens-1', sd.expected_tokens({params['alpha']!r}, {params['k']!r})"
        " + (1.0 if online else 0.0))")]
    (tmp_path / "subs").mkdir()
    nbformat.write(nb, str(tmp_path / "subs" / "s1.ipynb"))
    try:
        done = subprocess.run(["unshare", "--net", "--fork", "--pid", "--mount-proc", sys.executable, "-m",
                               "specdec_course", "grade", str(tmp_path / "subs"), "--course-key",
                               str(tmp_path / "course.key"), "--roster", str(tmp_path / "roster.csv"), "--labels",
                               "1.1:2", "--csv", str(tmp_path / "grades.csv"), "--cell-timeout", "60"],
                              capture_output=True, text=True, timeout=400)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert "isolation: namespace" in done.stdout   # a namespace per notebook, inside the network-less one
    row = next(csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text())))
    assert row["total"] == "2", (row, done.stdout)


def test_session_fallback_grades_and_leaves_no_process_behind(tmp_path):
    """Without namespaces (``--isolation session``) the worker is its notebook's subreaper: a detached process
    the notebook leaves is killed when the notebook ends, and the honest answer still counts."""
    from specdec_course._grade import grade

    key = CourseKey(os.urandom(32))
    roster, spec = Roster.of(["s1"]), parse_labels("1.1:2", title="Session")
    code = sheet(spec, key, roster, "s1").split('assignment("')[1].split('")')[0]
    params = keyed_inputs(REGISTRY["expected-tokens-1"], key, 0)
    marker = f"specdec-session-marker-{os.getpid()}"
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (
        f"import subprocess, sys\nimport specdec as sd\nimport specdec_course as course\ncourse.assignment({code!r})",
        "subprocess.Popen([sys.executable, '-c', 'import os, time\\nif os.fork(): os._exit(0)\\nos.setsid()\\n"
        f"time.sleep(300)', {marker!r}], start_new_session=True)",
        f"course.check('expected-tokens-1', sd.expected_tokens({params['alpha']!r}, {params['k']!r}))")]
    (tmp_path / "subs").mkdir()
    nbformat.write(nb, str(tmp_path / "subs" / "s1.ipynb"))
    book = grade(tmp_path / "subs", spec, roster, key, isolation="session", timeout=120, cell_timeout=60)
    assert book.student("s1").total == 2, book.feedback(book.student("s1"))
    assert "session" in book.isolation
    left = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    left.append(entry)
        except OSError:
            continue
    assert not left, f"left running: {left}"

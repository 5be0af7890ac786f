"""The kernel's side of grading: every ``check`` call is sent to the grader over a pipe it holds.

The grader (``_grade.py``) creates a pipe for each notebook and passes its
write end down to the notebook's kernel (and only to it); the file
descriptor's number is in ``SPECDEC_GRADE_CHANNEL``. Each message is one JSON
line. Nothing is written to a file: an answer that does not come through the
notebook's own pipe counts for nothing, and no other notebook (another
process namespace and, when the grader runs as root, another user) can write
to it.

After the notebook's last cell the grader runs one more cell, :func:`final`:
the function of every function exercise the notebook checked is run on that
student's hidden cases (drawn with the course key, so the notebook never saw
them), and the results are sent over the same pipe.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["CHANNEL_ENV", "active", "send", "remember_function", "final"]

#: Environment variable with the number of the file descriptor to write to (set only by the grader).
CHANNEL_ENV = "SPECDEC_GRADE_CHANNEL"

_LOCK = threading.Lock()
#: The last function checked for each function exercise (run on the hidden cases by :func:`final`).
_FUNCTIONS: dict[str, Callable] = {}
#: How many times ``check`` was called for each label in this kernel.
COUNTS: dict[str, int] = {}


def _fd() -> int | None:
    text = os.environ.get(CHANNEL_ENV, "")
    if not text.isdigit():
        return None
    fd = int(text)
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
    except OSError:
        return None
    return fd


def active() -> bool:
    """Whether this kernel is being graded (it holds a grading pipe)."""
    return _fd() is not None


def send(message: dict) -> bool:
    """Write one JSON line to the grading pipe; False when there is none (or it is closed)."""
    fd = _fd()
    if fd is None:
        return False
    try:
        data = (json.dumps(message, allow_nan=True) + "\n").encode("utf-8")
    except (TypeError, ValueError):
        return False
    with _LOCK:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            return False
    return True


def count(label: str) -> int:
    """Count one more ``check`` call of ``label``; returns the new count."""
    with _LOCK:
        COUNTS[label] = COUNTS.get(label, 0) + 1
        return COUNTS[label]


def remember_function(label: str, function: Callable) -> None:
    _FUNCTIONS[label] = function


def final(spec: str) -> None:
    """Run every checked function on its hidden cases and send the outcomes (the grader's last cell)."""
    from . import _sandbox
    from ._record import from_jsonable, to_jsonable

    for label, item in json.loads(spec).items():
        function = _FUNCTIONS.get(label)
        if function is None:
            continue
        cases = [tuple(from_jsonable(arg) for arg in case) for case in item["cases"]]
        outcomes, _printed = _sandbox.run_calls(function, cases, float(item["time_limit"]))
        send({"type": "outcomes", "label": label,
              "outcomes": [{"status": o.status, "value": to_jsonable(o.value), "error": o.error} for o in outcomes]})


def record_check(label: str, n: int, answer: Any, kind: str) -> None:
    from ._record import to_jsonable

    send({"type": "check", "label": label, "n": n, "kind": kind,
          "answer": {"__type__": "a function"} if kind == "function" else to_jsonable(answer)})

"""Graded assignments in a student's notebook: ``course.assignment(code)``.

An instructor's handout gives every student a line such as::

    course.assignment("sdx1.eJy...")

The code names the assignment and the student, and carries the *inputs* of
the student's variants (the numbers their handout states, nothing secret) so
that :func:`specdec_course.check` can tell whether an answer has the right
form: its type, shape, whole numbers, precision. It carries no answer, and
nothing in it lets the package compute one: the variants were drawn with the
instructor's course key. After this call, ``check`` for an exercise of the
assignment only says whether the form is right and records the answer; the
grader decides whether it is correct. Exercises not in the assignment keep
the self-check feedback.
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass
from typing import Any

from ._record import from_jsonable, to_jsonable
from ._registry import Params

__all__ = ["Assignment", "assignment", "encode", "decode", "ACTIVE"]

_PREFIX = "sdx1."


@dataclass(frozen=True)
class Assignment:
    """A graded assignment as a student's kernel knows it (see :func:`specdec_course.assignment`).

    Attributes
    ----------
    title : str
        The assignment's title.
    student : str
        The student's id.
    exercises : dict
        ``{label: "variant" | "function" | "practice"}`` in handout order.
    inputs : dict
        ``{label: Params}``: the inputs of the student's variants (as the handout states them).
    """

    title: str
    student: str
    exercises: dict
    inputs: dict

    def graded(self, label: str) -> bool:
        """Whether ``check(label, ...)`` is graded (form feedback only) rather than self-check practice."""
        return self.exercises.get(label, "practice") != "practice"

    def __str__(self) -> str:
        graded = [label for label in self.exercises if self.graded(label)]
        practice = [label for label in self.exercises if not self.graded(label)]
        text = (f"Graded assignment {self.title!r} for {self.student}: {len(graded)} graded exercise"
                f"{'s' if len(graded) != 1 else ''}. For these, check() tells whether the form of your answer "
                "is right (type, shape, precision) and records it; whether it is correct is decided by the grader "
                "when you hand in this notebook.")
        if practice:
            text += f" Self-check practice (not graded, full feedback): {', '.join(practice)}."
        return text

    __repr__ = __str__

    def _repr_html_(self) -> str:
        import html
        return f'<div class="specdec-assignment" style="font-family:sans-serif">{html.escape(str(self))}</div>'


#: The assignment this kernel works on (set by ``course.assignment``), or None.
ACTIVE: list = [None]


def encode(title: str, student: str, exercises: dict, inputs: dict) -> str:
    """The code of a handout (``inputs``: ``{label: mapping}`` of the variants' inputs)."""
    payload = {"t": str(title), "s": str(student), "e": dict(exercises),
               "i": {label: {k: to_jsonable(v) for k, v in dict(p).items()} for label, p in inputs.items()}}
    raw = zlib.compress(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8"), 9)
    return _PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _plain(value: Any) -> Any:
    value = from_jsonable(value)
    return tuple(_plain(v) for v in value) if isinstance(value, list) else value


def decode(code: Any) -> Assignment:
    """Read a handout's code (``ValueError`` for anything else)."""
    if not isinstance(code, str) or not code.strip().startswith(_PREFIX):
        raise ValueError("code must be the assignment code from your handout, a string that starts with "
                         f"{_PREFIX!r}")
    text = code.strip()[len(_PREFIX):]
    try:
        raw = zlib.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        payload = json.loads(raw.decode("utf-8"))
        exercises = {str(k): str(v) for k, v in payload["e"].items()}
        inputs = {str(label): Params({k: _plain(v) for k, v in values.items()})
                  for label, values in payload["i"].items()}
        return Assignment(str(payload["t"]), str(payload["s"]), exercises, inputs)
    except Exception:
        raise ValueError("code is not a valid assignment code: copy it again from your handout") from None


def assignment(code: str) -> Assignment:
    """Start a graded assignment in this notebook: paste the line your handout gives.

    Parameters
    ----------
    code : str
        The assignment code printed on your handout (it starts with ``"sdx1."``).

    Returns
    -------
    Assignment
        The assignment: its title, your id and its exercises. From now on,
        :func:`check` for an exercise of the assignment tells you whether the
        *form* of your answer is right (type, shape, precision) and records
        it; it does not say whether the answer is correct (the grader decides
        that when you hand in the notebook). Other exercises keep the
        self-check feedback.

    Raises
    ------
    ValueError
        If ``code`` is not an assignment code.

    Examples
    --------
    >>> import specdec_course as course
    >>> course.assignment("not a code")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: code must be the assignment code from your handout, ...

    Defined in chapter "Expected tokens per round".
    """
    active = decode(code)
    ACTIVE[0] = active
    return active

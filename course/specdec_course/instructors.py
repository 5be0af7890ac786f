"""For instructors: the course key, reference answers, the answer key, handouts and grading.

Marked work needs a **course key**, a secret file the instructor keeps
(``CourseKey.create(path)`` or ``python -m specdec_course new-key FILE``),
and a **roster** (a CSV file of student ids). A student's graded variants
come from the key and their row in the roster: without the key, nothing in
the package (this module included) computes a student's inputs, answers or
hidden cases. Without a key this module gives the book's own answers only,
the ones the full edition prints.

Command line (the same functions)::

    python -m specdec_course new-key course.key
    python -m specdec_course handout --course-key course.key \\
        --roster roster.csv --assignment hw1.toml --out handouts/
    python -m specdec_course key --course-key course.key \\
        --roster roster.csv --assignment hw1.toml [--student s26001]
    python -m specdec_course grade submissions/ --course-key course.key \\
        --roster roster.csv --assignment hw1.toml --csv grades.csv

Defined in chapter "For instructors".
"""

from __future__ import annotations

from typing import Any

from specdec.tables import Table

from ._core import describe, exercise_cases, lookup
from ._course import AssignmentSpec, Roster, parse_labels, read_assignment
from ._forms import Flag, Float, Function, Integer, Letter, Seq
from ._grade import Gradebook, grade, select_labels
from ._handout import sheet, write_handouts
from ._registry import REGISTRY, Exercise, Mistake, Params, register, render
from ._variants import CourseKey, graded_kind, keyed_inputs

__all__ = ["exercise", "reference", "formatted_reference", "mistakes", "answer_key", "AnswerKey", "handout",
           "write_handouts", "grade", "Gradebook", "select_labels", "CourseKey", "Roster", "AssignmentSpec",
           "read_assignment", "parse_labels", "graded_kind", "Exercise", "Mistake", "Params", "register", "Float",
           "Integer", "Flag", "Letter", "Seq", "Function", "REGISTRY"]


def exercise(label: str) -> Exercise:
    """The registry entry of an exercise (its reference, mistakes and book inputs).

    Defined in chapter "For instructors".
    """
    return lookup(label)


def _student_inputs(ex: Exercise, seed: Any, course_key: CourseKey | None, roster: Roster | None) -> Params:
    if seed is None:
        return ex.inputs()
    if not isinstance(course_key, CourseKey) or not isinstance(roster, Roster):
        raise ValueError("a student's answers need the course key and the roster: "
                         "reference(label, seed, course_key=CourseKey.read(path), roster=Roster.read(path))")
    if graded_kind(ex) != "variant":
        return ex.inputs()
    return keyed_inputs(ex, course_key, roster.slot(seed))


def reference(label: str, seed: int | str | None = None, *, course_key: CourseKey | None = None,
              roster: Roster | None = None) -> Any:
    """The reference answer of an exercise, computed now: the book's, or a student's graded variant's.

    ``seed`` (a student id) needs ``course_key`` and ``roster``. For a function exercise this is the
    reference implementation.

    Defined in chapter "For instructors".
    """
    ex = lookup(label)
    params = _student_inputs(ex, seed, course_key, roster)
    if ex.kind == "function":
        return ex.reference
    return ex.reference(params)


def formatted_reference(label: str, seed: int | str | None = None, *, course_key: CourseKey | None = None,
                        roster: Roster | None = None) -> str:
    """The reference answer as the answer key prints it, at the exercise's stated precision.

    Defined in chapter "For instructors".
    """
    ex = lookup(label)
    params = _student_inputs(ex, seed, course_key, roster)
    if ex.kind == "function":
        n_cases = len(exercise_cases(ex))
        return f"a function; compared with the reference on {n_cases} cases ({n_cases - ex.n_visible} hidden)"
    return ex.form(params).format(ex.reference(params))


def mistakes(label: str) -> list[tuple[str, str]]:
    """``(name, message)`` of every typical mistake the checker recognises for an exercise.

    Defined in chapter "For instructors".
    """
    return [(m.name, m.message) for m in lookup(label).mistakes]


class AnswerKey(tuple):
    """Rows ``(number, label, question, form, answer)``; shows as a Markdown or HTML table."""

    def table(self, markdown: bool = True) -> Table:
        """The key as a :class:`specdec.tables.Table` (labels in backticks for Markdown)."""
        code = "`{}`" if markdown else "{}"
        return Table(("exercise", "label", "question", "form of the answer", "answer"),
                     tuple((str(n), code.format(label), str(q), str(f), str(a)) for n, label, q, f, a in self),
                     ("l",) * 5)

    def to_markdown(self) -> str:
        return self.table().to_markdown()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        return self.table(markdown=False).to_html()

    def __str__(self) -> str:
        return "\n".join(f"{n:<6} {label:<24} {a}" for n, label, _q, _f, a in self)

    __repr__ = __str__


def answer_key(labels: str | list[str] | None = None, seed: int | str | None = None, *,
               course_key: CourseKey | None = None, roster: Roster | None = None) -> AnswerKey:
    """Every exercise (or the selected ones) with its computed reference answer and its form.

    Without ``seed``: the book's answers. With ``seed`` (a student id, which needs ``course_key`` and
    ``roster``): that student's graded variants (practice exercises show the book's answer).

    Defined in chapter "For instructors".
    """
    chosen = select_labels(labels if isinstance(labels, str) or labels is None else ",".join(labels))
    rows = []
    for label in chosen:
        ex = REGISTRY[label]
        params = _student_inputs(ex, seed, course_key, roster)
        question = render(ex.statement, params) if (seed is not None and ex.statement) else ex.question
        answer = formatted_reference(label, seed, course_key=course_key, roster=roster)
        rows.append((ex.number, label, question, ex.form(params).describe(), answer))
    return AnswerKey(rows)


def handout(spec: AssignmentSpec | str, student: str, *, course_key: CourseKey, roster: Roster) -> str:
    """One student's handout as Markdown: their graded variants, the options of choice questions, the form of each
    answer and the line that starts the assignment in their notebook (``write_handouts`` writes the whole class,
    as Markdown and HTML).

    Defined in chapter "For instructors".
    """
    if isinstance(spec, str):
        spec = parse_labels(spec)
    if not isinstance(course_key, CourseKey):
        raise TypeError("course_key must be a CourseKey (CourseKey.read(path))")
    return sheet(spec, course_key, roster, student)


def book_check_line(label: str) -> str:
    """The book's "Check your answer" line of an exercise (as under its box)."""
    return describe(label)

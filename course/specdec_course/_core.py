"""The checker behind ``course.check``: compare a reader's answer to the reference.

Nothing in this module knows about speculative decoding. It compares a
reader's answer (a number, a tuple, an array, a function or a letter) with
an exercise's reference answer, in the form the exercise declares (type,
units, precision: see ``_forms``), and says what is wrong *without* ever
showing the expected value.

Guarantees (each one is tested in ``tests/test_exercises.py``):

* :func:`check` never raises, whatever it is given; a crashing or endless
  reader function, a wrong type or an unknown label all become a failed
  :class:`CheckResult` with a message.
* On a wrong attempt the message never contains the expected value (in any
  rounding, as a percentage or as a fraction), nor the expected output of a
  test case (visible cases show their *inputs* only; hidden cases are only
  reported as "a hidden case failed").
* The displayed text is deterministic (no ids, timestamps or addresses), so
  notebooks that call :func:`check` have reproducible stored outputs.
* In a graded assignment (after :func:`assignment`), :func:`check` says only
  whether the *form* of an assigned exercise's answer is right and records
  it; it never compares it with a reference (there is no oracle to probe).
"""

from __future__ import annotations

import builtins
import copy
import difflib
import html
import zlib
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from specdec.tables import Table

from . import _assignment, _channel, _sandbox
from ._forms import Function, check_form, short_repr, type_name
from ._registry import REGISTRY, Exercise, Params, render
from ._variants import NoVariants, inputs_for, seed_literal

__all__ = ["CheckResult", "ExerciseInfo", "ExerciseList", "Variant", "check", "describe", "get", "labels",
           "list_exercises", "hints", "variant"]

_MISSING = object()

#: Modules of this package that failed to import: ``{module name: "Type: message"}``.
IMPORT_ERRORS: dict[str, str] = {}

#: Reasons of a graded-mode result whose answer was recorded (its form is right).
RECORDED = ("recorded", "recorded-few-decimals")


# --------------------------------------------------------------------------
# The result object
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckResult:
    """The outcome of :func:`check`: truthy when the answer is correct.

    Attributes
    ----------
    label : str
        The exercise label that was checked (as given).
    passed : bool
        ``True`` when the answer is correct; an autograder only needs this.
    message : str
        One friendly sentence: "Correct." or what is wrong (too high, too
        low, wrong shape, wrong type, a known mistake, ...). It never
        contains the expected answer.
    hint : str
        A hint towards the answer (empty when ``passed``).
    reason : str
        A short machine-readable code for what happened: ``"correct"``,
        ``"mistake:<name>"``, ``"too-high"``, ``"too-low"``, ``"mixed"``,
        ``"units"``, ``"not-integer"``, ``"wrong-flag"``, ``"wrong-shape"``,
        ``"wrong-type"``, ``"nan"``, ``"raised"``, ``"timeout"``,
        ``"crashed"``, ``"visible-case"``, ``"hidden-case"``,
        ``"invalid-choice"``, ``"wrong-choice"``, ``"unknown-label"``,
        ``"no-variants"``, ``"bad-seed"``, ``"no-answer"`` or
        ``"internal-error"``; in a graded assignment ``"recorded"`` (or
        ``"recorded-few-decimals"``) when the form of the answer is right
        (``passed`` is then ``False``: only the grader knows).

    Examples
    --------
    >>> import specdec_course as course
    >>> result = course.CheckResult("demo-1", True, "Correct.")
    >>> bool(result), str(result)
    (True, '[correct] demo-1: Correct.')
    """

    label: str
    passed: bool
    message: str
    hint: str = ""
    reason: str = ""

    def __bool__(self) -> bool:
        return bool(self.passed)

    def __str__(self) -> str:
        head = "[correct]" if self.passed else "[recorded]" if self.reason in RECORDED else "[not yet]"
        text = f"{head} {self.label}: {self.message}"
        if self.hint and not self.passed and self.reason not in RECORDED:
            text += f"\n  Hint: {self.hint}"
        return text

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        if self.passed:
            border, background, icon, head = "#2e7d32", "#e8f5e9", "&#10004;", "Correct"
        elif self.reason in RECORDED:
            border, background, icon, head = "#1565c0", "#e3f2fd", "&#8505;", "Recorded"
        else:
            border, background, icon, head = "#c62828", "#fdecea", "&#10008;", "Not yet"
        body = html.escape(self.message)
        if self.hint and not self.passed:
            body += f'<br><span style="opacity:0.85"><b>Hint:</b> {html.escape(self.hint)}</span>'
        return (
            f'<div class="specdec-check specdec-check-{"pass" if self.passed else "fail"}" '
            f'style="border-left:4px solid {border};background:{background};'
            f'padding:6px 10px;margin:4px 0;border-radius:3px;font-family:sans-serif;font-size:0.95em">'
            f'<b style="color:{border}">{icon} {head}</b> '
            f'<code>{html.escape(self.label)}</code>: {body}</div>'
        )


# --------------------------------------------------------------------------
# Registry access (what a reader may see: no reference answers)
# --------------------------------------------------------------------------
def lookup(label: str) -> Exercise:
    """The registry entry of ``label`` (KeyError naming close labels; TypeError for a non-string)."""
    if not isinstance(label, str):
        raise TypeError(f"label must be a string such as 'expected-tokens-1', got {short_repr(label)}")
    exercise = REGISTRY.get(label) or REGISTRY.get(label.strip().lower())
    if exercise is None:
        raise KeyError(_unknown_label_message(label))
    return exercise


def _sort_key(exercise: Exercise) -> tuple:
    """Book order: chapters as ``_toc.yml`` lists them ("Start here" first), then chapters outside the book."""
    place = exercise.chapter.position
    return (place is None, place or 0, exercise.chapter.title.lower(), exercise.position)


def sorted_exercises() -> list[Exercise]:
    return sorted(REGISTRY.values(), key=_sort_key)


def labels() -> list[str]:
    """Return every registered exercise label, in book order.

    Returns
    -------
    list of str
        Labels sorted by chapter number (as the book numbers chapters) and by
        position within a chapter.

    Examples
    --------
    >>> import specdec_course as course
    >>> all(isinstance(label, str) for label in course.labels())
    True

    Defined in chapter "Expected tokens per round".
    """
    return [exercise.label for exercise in sorted_exercises()]


@dataclass(frozen=True)
class ExerciseInfo:
    """What :func:`get` tells about an exercise: everything except its answer.

    Attributes
    ----------
    label, number : str
        ``"verification-pass-2"`` and ``"6.2"`` (chapter 6, exercise 2).
    chapter : str
        The chapter as the book shows it: "Chapter 6. Why a decode step ...".
    question : str
        The question in one or two sentences.
    kind : str
        ``"numeric"``, ``"function"`` or ``"choice"``.
    form : str
        The form of the answer: type, units, precision.
    hints : tuple of str
        The hints, gentlest first.
    choices : dict or None
        The options of a multiple-choice exercise.
    has_variants : bool
        Whether :func:`variant` can make per-student versions of it.
    """

    label: str
    number: str
    chapter: str
    question: str
    kind: str
    form: str
    hints: tuple
    choices: dict | None
    has_variants: bool

    def describe(self, seed: int | str | None = None) -> str:
        """The "Check your answer" line (see :func:`describe`)."""
        return describe(self.label, seed)


def get(label: str) -> ExerciseInfo:
    """Return what is known about an exercise: its number, question, answer form and hints.

    Parameters
    ----------
    label : str
        An exercise label such as ``"expected-tokens-1"``.

    Returns
    -------
    ExerciseInfo
        The exercise's number as the book shows it, its chapter, question,
        kind, answer form, hints and options (for a multiple-choice
        question). The answer itself is not part of it.

    Raises
    ------
    KeyError
        If no exercise has this label; the message lists close labels.
    TypeError
        If ``label`` is not a string.

    Examples
    --------
    >>> import specdec_course as course
    >>> course.get("expected-tokens-1").kind
    'numeric'
    >>> course.get("no-such-exercise-1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "no exercise is labelled 'no-such-exercise-1'..."

    Defined in chapter "Expected tokens per round".
    """
    exercise = lookup(label)
    return ExerciseInfo(
        label=exercise.label, number=exercise.number, chapter=exercise.chapter.heading(),
        question=exercise.question, kind=exercise.kind, form=exercise.form().describe(),
        hints=tuple(exercise.hints), choices=dict(exercise.choices) if exercise.choices else None,
        has_variants=exercise.has_variants)


def hints(label: str) -> list[str]:
    """Return all hints of an exercise, from gentlest to most direct.

    Parameters
    ----------
    label : str
        An exercise label such as ``"expected-tokens-1"``.

    Returns
    -------
    list of str
        The hints; none of them contains the answer.

    Examples
    --------
    >>> import specdec_course as course
    >>> all(len(course.hints(label)) >= 1 for label in course.labels())
    True

    Defined in chapter "Expected tokens per round".
    """
    return builtins.list(lookup(label).hints)


_Row = namedtuple("_Row", ["number", "label", "chapter", "kind", "question"])


class ExerciseList(tuple):
    """The table returned by ``course.list()``.

    A tuple of rows ``(number, label, chapter, kind, question)`` in book order
    (``number`` is "6.2" for the second exercise of chapter 6), shown as a
    table grouped by chapter: text in a terminal, HTML in a notebook.
    """

    def __repr__(self) -> str:
        if not self:
            return "No exercises are registered."
        lines: list[str] = []
        chapter = None
        width = max(len(row.label) for row in self)
        for row in self:
            if row.chapter != chapter:
                if lines:
                    lines.append("")
                lines.append(row.chapter)
                chapter = row.chapter
            short = row.question if len(row.question) <= 64 else row.question[:61] + "..."
            lines.append(f"  {row.number:<6} {row.label:<{width}} {row.kind:<8} {short}")
        return "\n".join(lines)

    __str__ = __repr__

    def _repr_html_(self) -> str:
        if not self:
            return "<p>No exercises are registered.</p>"
        chapters: dict[str, builtins.list] = {}
        for row in self:
            chapters.setdefault(row.chapter, []).append((row.number, row.label, row.kind, row.question))
        return "".join(f"<p><b>{html.escape(chapter)}</b></p>"
                       + Table(("exercise", "label", "kind", "question"), tuple(rows), ("l",) * 4).to_html(
                           {"class": "specdec-exercise-list"}) for chapter, rows in chapters.items())

    def by_chapter(self) -> dict[str, builtins.list[str]]:
        """Return ``{chapter: [labels]}`` in book order."""
        grouped: dict[str, builtins.list[str]] = {}
        for row in self:
            grouped.setdefault(row.chapter, []).append(row.label)
        return grouped


def list_exercises() -> ExerciseList:
    """List every exercise by chapter, numbered as the book numbers them (``course.list()``).

    Returns
    -------
    ExerciseList
        Rows ``(number, label, chapter, kind, question)`` in book order; it
        displays as a table grouped by chapter ("Chapter 6. ...", exercises
        6.1, 6.2, ...). The unnumbered "Start here" chapter comes first, its
        exercises numbered 1, 2, ... as its boxes show them.

    Examples
    --------
    >>> import specdec_course as course
    >>> table = course.list()
    >>> table[0].number, table[0].label, table[0].chapter
    ('1', 'decide-for-your-service-1', 'Start here: Decide for your service')
    >>> next(row.label for row in table if row.number == "1.1")
    'expected-tokens-1'

    Defined in chapter "Expected tokens per round".
    """
    return ExerciseList(_Row(e.number, e.label, e.chapter.heading(), e.kind, e.question) for e in sorted_exercises())


# --------------------------------------------------------------------------
# Variants
# --------------------------------------------------------------------------
def _call_text(exercise: Exercise, seed: Any = None) -> str:
    name = "answer"
    form = exercise.form()
    if isinstance(form, Function):
        name = form.signature.split("(")[0].strip() or "your_function"
    seed_part = f", seed={seed_literal(seed)}" if seed is not None else ""
    return f'course.check("{exercise.label}", {name}{seed_part})'


def check_line(label: str, seed: Any = None) -> tuple[str, str]:
    """``(call, form)`` of an exercise's "Check your answer" line (the Sphinx extension uses it)."""
    exercise = lookup(label)
    params = inputs_for(exercise, seed)
    return _call_text(exercise, seed), exercise.form(params).describe()


def describe(label: str, seed: int | str | None = None) -> str:
    """The line that tells how to check an exercise and in what form to answer.

    Parameters
    ----------
    label : str
        An exercise label such as ``"expected-tokens-1"``.
    seed : int or str, optional
        A variant's seed (see :func:`variant`).

    Returns
    -------
    str
        "Check your answer: course.check("expected-tokens-1", answer):
        a float, tokens per round, to 2 decimals." The same line is printed
        under every exercise box of the book; the checker accepts any answer
        correct to the stated precision.

    Raises
    ------
    KeyError
        If no exercise has this label.

    Examples
    --------
    >>> import specdec_course as course
    >>> course.describe("expected-tokens-1")
    'Check your answer: course.check("expected-tokens-1", answer): a float, tokens per round, to 2 decimals.'

    Defined in chapter "Expected tokens per round".
    """
    call, form = check_line(label, seed)
    return f"Check your answer: {call}: {form}."


@dataclass(frozen=True)
class Variant:
    """One student's version of an exercise (see :func:`variant`).

    Attributes
    ----------
    label : str
        The exercise's label.
    seed : int or str
        The seed that chose the inputs.
    number : str
        The exercise's number in the book ("1.1").
    params : Params
        The variant's inputs.
    statement : str
        The question with these inputs, as Markdown with math (``$...$``),
        ready to hand out.
    """

    label: str
    seed: Any
    number: str
    params: Params
    statement: str

    def check(self, answer: Any) -> CheckResult:
        """Check an answer to this variant: the same as ``course.check(label, answer, seed=seed)``."""
        return check(self.label, answer, seed=self.seed)

    def describe(self) -> str:
        """The variant's "Check your answer" line."""
        return describe(self.label, self.seed)

    def markdown(self) -> str:
        """The statement with a heading and its check line, as Markdown."""
        return (f"**Exercise {self.number}** (variant {seed_literal(self.seed)})\n\n{self.statement}\n\n"
                f"{self.describe()}\n")

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def __str__(self) -> str:
        return self.markdown()


def variant(label: str, seed: int | str) -> Variant:
    """A per-student version of an exercise: the same question with other inputs.

    Parameters
    ----------
    label : str
        An exercise label such as ``"expected-tokens-1"``. The numeric
        exercises of the "Start here" chapter and of Parts I, II and IV (and
        most of Part III) have variants; ``course.get(label).has_variants``
        says whether one does.
    seed : int or str
        Chooses the inputs: a non-negative integer, or a string such as a
        student id. The same seed always gives the same variant, on any
        machine.

    Returns
    -------
    Variant
        ``.statement`` (Markdown with math, to hand out), ``.params`` (the
        inputs), ``.check(answer)`` and ``.describe()``. Students can also
        check with ``course.check(label, answer, seed=seed)``.

    Raises
    ------
    KeyError
        If no exercise has this label.
    ValueError
        If the exercise has no variants, or the seed is negative or empty.
    TypeError
        If the seed is not an integer or a string.

    Examples
    --------
    >>> import specdec_course as course
    >>> v = course.variant("expected-tokens-1", 7)
    >>> v.params == course.variant("expected-tokens-1", 7).params
    True
    >>> v.describe()
    'Check your answer: course.check("expected-tokens-1", answer, seed=7): a float, tokens per round, to 2 decimals.'

    Defined in chapter "Expected tokens per round".
    """
    exercise = lookup(label)
    try:
        params = inputs_for(exercise, seed)
    except NoVariants:
        raise ValueError(f"exercise {exercise.label!r} ({exercise.kind}) has no variants; "
                         f"every reader answers the book's version") from None
    template = exercise.statement or exercise.question
    return Variant(exercise.label, seed, exercise.number, params, render(template, params))


# --------------------------------------------------------------------------
# Checking the three kinds of exercise
# --------------------------------------------------------------------------
def _first_hint(exercise: Exercise) -> str:
    hints_ = builtins.list(exercise.hints or ())
    return str(hints_[0]) if hints_ else ""


def _check_value(exercise: Exercise, answer: Any, params: Params) -> CheckResult:
    """Numeric and choice exercises: compare a value with the reference."""
    form = exercise.form(params)
    expected = exercise.reference(params)
    verdict = form.compare(answer, expected)
    if verdict.ok:
        return CheckResult(exercise.label, True, "Correct.", "", "correct")
    if verdict.reason not in ("wrong-type", "invalid-choice"):
        for mistake in exercise.mistakes:
            try:
                wrong = mistake.compute(params)
            except Exception:
                continue
            if form.accepts(wrong, expected):
                continue  # a mistake that equals the answer cannot be diagnosed
            if form.accepts(answer, wrong):
                return CheckResult(exercise.label, False, mistake.message, _first_hint(exercise),
                                   f"mistake:{mistake.name}")
    return CheckResult(exercise.label, False, verdict.text, _first_hint(exercise), verdict.reason)


def _case_seed(label: str) -> int:
    return zlib.crc32(label.encode("utf-8"))


def exercise_cases(exercise: Exercise) -> list[tuple]:
    """The argument tuples a function exercise is checked on (seeded by the label)."""
    if exercise.cases is None:
        raise ValueError(f"function exercise {exercise.label!r} has no `cases`")
    rng = np.random.default_rng(_case_seed(exercise.label))
    cases = builtins.list(exercise.cases(rng))
    return [case if isinstance(case, tuple) else (case,) for case in cases]


def describe_case(reference: Callable, args: tuple) -> str:
    """ "(alpha=0.8, k=5)": the inputs of a visible case (never its expected output)."""
    import inspect
    try:
        names = builtins.list(inspect.signature(reference).parameters)
    except (TypeError, ValueError):
        names = []
    parts = []
    for i, arg in enumerate(args):
        value = short_repr(arg, limit=40)
        parts.append(f"{names[i]}={value}" if i < len(names) else value)
    return "(" + ", ".join(parts) + ")"


def _trusted_call(function: Callable, args: tuple) -> tuple[bool, Any]:
    try:
        return True, function(*copy.deepcopy(args))
    except Exception as exc:
        return False, exc


def _function_verdict(exercise: Exercise, cases: list[tuple], outcomes: list, time_limit: float) -> CheckResult:
    """Judge a reader's function from its outcomes on the cases (also used by the grader)."""
    label, hint, form = exercise.label, _first_hint(exercise), exercise.form().returns
    n_visible = max(0, min(int(exercise.n_visible), len(cases)))
    expected = [exercise.reference(*copy.deepcopy(case)) for case in cases]
    complete = len(outcomes) == len(cases) and all(o.status == "ok" for o in outcomes)

    # A known wrong implementation? (Its outputs match the reader's on every case.)
    if complete:
        for mistake in exercise.mistakes:
            wrong = [_trusted_call(mistake.compute, case) for case in cases]
            if not all(ok for ok, _ in wrong):
                continue
            if not any(not form.accepts(w, e) for (_, w), e in zip(wrong, expected, strict=False)):
                continue
            if all(form.accepts(o.value, w) for o, (_, w) in zip(outcomes, wrong, strict=False)) and \
                    any(not form.accepts(o.value, e) for o, e in zip(outcomes, expected, strict=False)):
                return CheckResult(label, False, mistake.message, hint, f"mistake:{mistake.name}")

    for i, (outcome, exp, case) in enumerate(zip(outcomes, expected, cases, strict=False)):
        visible = i < n_visible
        where = f"on the example case {describe_case(exercise.reference, case)}" if visible else "on a hidden case"
        if outcome.status == "timeout":
            background = (" It is still running in the background; restart the kernel to stop it."
                          if outcome.error else "")
            return CheckResult(label, False, f"{where}, your function took longer than {time_limit:g} s "
                               f"and was stopped.{background}", hint, "timeout")
        if outcome.status == "crashed":
            return CheckResult(label, False, f"{where}, {outcome.error}.", hint, "crashed")
        if outcome.status == "raised":
            return CheckResult(label, False, f"{where}, your function raised {outcome.error}.", hint, "raised")
        if outcome.status != "ok":
            return CheckResult(label, False, f"{where}, {outcome.error}.", hint, "wrong-type")
        verdict = form.compare(outcome.value, exp, what="your function's result")
        if verdict.ok:
            continue
        if visible:
            return CheckResult(label, False, f"{where}, {verdict.text}", hint, "visible-case")
        if verdict.reason in ("wrong-type", "wrong-shape", "nan", "not-integer"):
            return CheckResult(label, False, f"a hidden case failed: {verdict.text}", hint, "hidden-case")
        passed_examples = " (the example cases pass)" if n_visible else ""
        return CheckResult(label, False, f"a hidden case failed{passed_examples}.", hint, "hidden-case")
    if len(outcomes) < len(cases):  # should not happen: the sandbox reports why a run stopped
        return CheckResult(label, False, "your function did not run on every case.", hint, "crashed")

    n_hidden = len(cases) - n_visible
    detail = f"{len(cases)} cases" + (f" ({n_hidden} hidden)" if n_hidden else "")
    return CheckResult(label, True, f"Correct: your function matches the reference on all {detail}.", "",
                       "correct")


def _check_function(exercise: Exercise, answer: Any, time_limit: float) -> CheckResult:
    if not callable(answer):
        return CheckResult(exercise.label, False,
                           f"expected a function (write `def ...` and pass the function itself, "
                           f"without calling it); got {type_name(answer)}.", _first_hint(exercise), "wrong-type")
    cases = exercise_cases(exercise)
    outcomes, printed = _sandbox.run_calls(answer, cases, time_limit)
    if printed:
        print(printed, end="" if printed.endswith("\n") else "\n")
    return _function_verdict(exercise, cases, outcomes, time_limit)


def _unknown_label_message(label: str) -> str:
    close = difflib.get_close_matches(label, builtins.list(REGISTRY), n=5, cutoff=0.6)
    if not close:
        prefix = label.rsplit("-", 1)[0]
        close = [known for known in sorted(REGISTRY) if known.startswith(prefix)][:5]
    text = f"no exercise is labelled {label!r}."
    if close:
        text += " Did you mean " + ", ".join(repr(c) for c in close) + "?"
    else:
        text += " Use course.list() to see every label."
    if IMPORT_ERRORS:
        text += " (Some exercise modules failed to import: " + ", ".join(sorted(IMPORT_ERRORS)) + ".)"
    return text


def _finish(label: str, result: CheckResult) -> CheckResult:
    """Return ``result`` under the label as given; built-in messages are capitalised.

    A registered mistake's message is shown exactly as its author wrote it.
    """
    message = result.message
    if not result.reason.startswith("mistake:"):
        message = message[:1].upper() + message[1:]
    return CheckResult(label, bool(result.passed), message, result.hint, result.reason)


# --------------------------------------------------------------------------
# Graded mode: the form only, and the answer recorded for the grader
# --------------------------------------------------------------------------
def _check_form(exercise: Exercise, answer: Any, params: Params | None) -> CheckResult:
    """Graded mode: the form of the answer only (for a function: its results' form on the example cases)."""
    label, form = exercise.label, exercise.form(params)
    graded = "Recorded: the grader decides whether it is correct."
    if exercise.kind == "function":
        if not callable(answer):
            return CheckResult(label, False, f"expected a function (write `def ...` and pass the function itself, "
                               f"without calling it); got {type_name(answer)}.", "", "wrong-type")
        cases = exercise_cases(exercise)[: max(1, int(exercise.n_visible))]
        outcomes, printed = _sandbox.run_calls(answer, cases, float(exercise.time_limit))
        if printed:
            print(printed, end="" if printed.endswith("\n") else "\n")
        for outcome, case in zip(outcomes, cases, strict=False):
            where = f"on the example case {describe_case(exercise.reference, case)}"
            if outcome.status != "ok":
                what = {"raised": "your function raised", "timeout": "your function took too long"}.get(
                    outcome.status, "your function failed")
                return CheckResult(label, False, f"{where}, {what} {outcome.error}".rstrip() + ".", "",
                                   outcome.status)
            verdict = check_form(form.returns, outcome.value, "your function's result")
            if not verdict.ok:
                return CheckResult(label, False, f"{where}, {verdict.text}", "", verdict.reason)
        return CheckResult(label, False, f"the function runs and returns {form.returns.noun()} on the example "
                           f"cases. {graded}", "", "recorded")
    verdict = check_form(form, answer)
    if not verdict.ok:
        return CheckResult(label, False, verdict.text, "", verdict.reason)
    if verdict.reason == "form-few-decimals":
        return CheckResult(label, False, f"{verdict.text} {graded}", "", "recorded-few-decimals")
    return CheckResult(label, False, f"the form is right ({form.describe()}). {graded}", "", "recorded")


# --------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------
def check(label: str, answer: Any = _MISSING, seed: int | str | None = None, *,
          time_limit: float | None = None) -> CheckResult:
    """Check an answer to an exercise without revealing the expected answer.

    Parameters
    ----------
    label : str
        The exercise label shown in the book, e.g. ``"expected-tokens-1"``.
    answer : object
        Your answer, in the form the exercise states (``course.describe(label)``
        prints it): a number, a tuple (a list or an array works too), a
        letter such as ``"b"`` for multiple-choice exercises, or the function
        itself (not called) for "write a function" exercises.
    seed : int or str, optional
        The seed of your variant, if your instructor gave you one (see
        :func:`variant`); without it the book's version is checked.
    time_limit : float, optional
        Seconds your function may run on all test cases together (function
        exercises; default: the exercise's limit, 10 s).

    Returns
    -------
    CheckResult
        ``.passed`` is ``True`` when the answer is correct. ``.message`` says
        what is wrong (too high, too low, wrong shape, wrong type, wrong
        units, a known mistake, a crash or a time-out of your function, ...)
        and ``.hint`` gives a hint; neither contains the expected value. In a
        notebook the result shows as a small coloured box.

    Notes
    -----
    ``check`` never raises: an unknown label, a wrong type or a function that
    raises all give a failed result whose message explains the problem.

    In a graded assignment (after :func:`assignment`, called without
    ``seed=``), an exercise of the assignment gets no comparison with any
    reference: the result says whether the form is right and that the answer
    was recorded (reason ``"recorded"``); the grader decides correctness.

    A number is accepted when it is correct to the stated precision: within
    half a unit of the last stated digit (an answer "to 2 decimals" may be
    off by 0.005), so both the rounded and the unrounded value pass. An
    integer answer (a count) must be exact. Lists, tuples and arrays are
    interchangeable, and a yes/no value may be ``True``/``False`` or ``1``/``0``.

    A function you pass runs on the exercise's cases (generated with a seed
    derived from the label; the first few are examples whose inputs may be
    shown, the others are hidden). It runs in a forked child process on
    Linux and other POSIX systems, so a function that never returns is
    stopped after the time limit and the check reports "took longer than
    N s"; on Windows and macOS it runs in a background thread, which the
    check stops waiting for after the time limit (the function itself keeps
    running until the kernel restarts).

    Examples
    --------
    >>> import specdec_course as course
    >>> course.check("expected-tokens-1", 3.29).passed
    True
    >>> result = course.check("no-such-exercise-1", 0.5)
    >>> result.passed
    False
    >>> result.message.startswith("No exercise is labelled 'no-such-exercise-1'")
    True

    Defined in chapter "Expected tokens per round".
    """
    shown_label = label if isinstance(label, str) else short_repr(label, 30)
    try:
        if not isinstance(label, str):
            return _finish(shown_label, CheckResult(shown_label, False,
                           "the first argument must be the exercise label as a string, "
                           "e.g. course.check('expected-tokens-1', answer).", "", "unknown-label"))
        exercise = REGISTRY.get(label) or REGISTRY.get(label.strip().lower())
        if exercise is None:
            return _finish(label, CheckResult(label, False, _unknown_label_message(label), "", "unknown-label"))
        if answer is _MISSING:
            return _finish(label, CheckResult(label, False, "no answer was given: call check(label, answer).",
                                              _first_hint(exercise), "no-answer"))
        try:
            params = inputs_for(exercise, seed)
        except NoVariants:
            return _finish(label, CheckResult(label, False, f"exercise {exercise.label!r} has no variants: "
                                              "check it without seed=.", "", "no-variants"))
        except (TypeError, ValueError) as exc:
            return _finish(label, CheckResult(label, False, str(exc) + ".", "", "bad-seed"))
        grading = _channel.active()
        if grading:
            _channel.record_check(exercise.label, _channel.count(exercise.label), answer, exercise.kind)
            if exercise.kind == "function" and callable(answer):
                _channel.remember_function(exercise.label, answer)
        active = _assignment.ACTIVE[0]
        if active is not None and active.graded(exercise.label) and seed is None:
            return _finish(label, _check_form(exercise, answer, active.inputs.get(exercise.label)))
        if exercise.kind == "function":
            limit = float(time_limit) if time_limit is not None else float(exercise.time_limit)
            result = _check_function(exercise, answer, limit)
        else:
            result = _check_value(exercise, answer, params)
        return _finish(label, result)
    except Exception as exc:  # never raise to the reader
        return _finish(shown_label, CheckResult(shown_label, False,
                       f"the checker could not evaluate this answer ({_sandbox.exception_text(exc)}). "
                       "If your answer has the right form, this is a bug in the book: please report it.",
                       "", "internal-error"))


# --------------------------------------------------------------------------
# For the grader (its own process): the full checker on recorded answers
# --------------------------------------------------------------------------
def grade_value(exercise: Exercise, answer: Any, params: Params) -> CheckResult:
    """The full practice-mode verdict on a recorded numeric or choice answer, for the inputs ``params``."""
    return _finish(exercise.label, _check_value(exercise, answer, params))


def grade_function(exercise: Exercise, cases: list[tuple], outcomes: list, time_limit: float) -> CheckResult:
    """The verdict on a function from its recorded outcomes on ``cases`` (the grader's hidden cases)."""
    return _finish(exercise.label, _function_verdict(exercise, cases, outcomes, time_limit))


def first_hint(exercise: Exercise) -> str:
    """The exercise's gentlest hint (for feedback files)."""
    return _first_hint(exercise)

"""The checker behind ``sd.exercises.check``: compare a reader's answer to the reference.

Nothing in this module knows about speculative decoding. It only knows how
to compare a reader's answer (a number, an array, a tuple, a function or a
letter) with an exercise's reference answer, and how to say what is wrong
*without* ever showing the expected value.

Guarantees (each one is tested in ``tests/test_exercises.py``):

* :func:`check` never raises, whatever it is given; a crashing reader
  function, a wrong type or an unknown label all become a failed
  :class:`CheckResult` with a message.
* On a wrong attempt the message never contains the expected value, nor the
  expected output of a test case (visible cases show their *inputs* only;
  hidden cases are only reported as "a hidden case failed").
* The displayed text is deterministic (no ids, timestamps or addresses), so
  notebooks that call :func:`check` have reproducible stored outputs.
"""

from __future__ import annotations

import builtins
import copy
import difflib
import html
import inspect
import re
import warnings
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ._registry import REGISTRY, Exercise

__all__ = ["CheckResult", "ExerciseList", "check", "get", "labels", "list_exercises", "hints"]

_MISSING = object()

#: Modules of this package that failed to import: ``{module name: "Type: message"}``.
#: Filled by ``specdec/exercises/__init__.py``; reported by :func:`check` for
#: unknown labels and asserted empty by the tests.
IMPORT_ERRORS: dict[str, str] = {}


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
        ``"wrong-shape"``, ``"wrong-type"``, ``"nan"``, ``"raised"``,
        ``"visible-case"``, ``"hidden-case"``, ``"invalid-choice"``,
        ``"wrong-choice"``, ``"unknown-label"``, ``"no-answer"`` or
        ``"internal-error"``.

    Examples
    --------
    >>> import specdec as sd
    >>> result = sd.exercises.CheckResult("demo-1", True, "Correct.")
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
        head = "[correct]" if self.passed else "[not yet]"
        text = f"{head} {self.label}: {self.message}"
        if self.hint and not self.passed:
            text += f"\n  Hint: {self.hint}"
        return text

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        if self.passed:
            border, background, icon, head = "#2e7d32", "#e8f5e9", "&#10004;", "Correct"
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
# Registry access
# --------------------------------------------------------------------------
def labels() -> list[str]:
    """Return every registered exercise label, in book order.

    Returns
    -------
    list of str
        Labels sorted by chapter (part, then chapter number) and by exercise
        number within a chapter.

    Examples
    --------
    >>> import specdec as sd
    >>> all(isinstance(label, str) for label in sd.exercises.labels())
    True

    Defined in chapter "For instructors" (Appendix).
    """
    return [exercise.label for exercise in _sorted_exercises()]


def get(label: str) -> Exercise:
    """Return the registered :class:`Exercise` with this label.

    Parameters
    ----------
    label : str
        An exercise label such as ``"expected-tokens-1"``.

    Returns
    -------
    Exercise
        The registry entry (question, kind, hints, tolerance, ...).

    Raises
    ------
    KeyError
        If no exercise has this label; the message lists close labels.
    TypeError
        If ``label`` is not a string.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.exercises.get("no-such-exercise-1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "no exercise is labelled 'no-such-exercise-1'..."

    Defined in chapter "For instructors" (Appendix).
    """
    if not isinstance(label, str):
        raise TypeError(f"label must be a string such as 'expected-tokens-1', got {_short_repr(label)}")
    try:
        return REGISTRY[label]
    except KeyError:
        raise KeyError(_unknown_label_message(label)) from None


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
    >>> import specdec as sd
    >>> labels = sd.exercises.labels()
    >>> all(len(sd.exercises.hints(label)) >= 1 for label in labels)
    True

    Defined in chapter "For instructors" (Appendix).
    """
    return builtins.list(get(label).hints)


def _natural_key(text: str) -> tuple:
    """Sort key treating digit runs as numbers and 'Part I/II/III' as numbers."""
    roman = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10}
    text = re.sub(r"\bPart ([IVX]+)\b", lambda m: f"Part {roman.get(m.group(1), 99)}", text)
    parts = re.split(r"(\d+)", text)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in parts if p)


def _chapter_rank(exercise: Exercise) -> tuple:
    # Appendix-like chapters (no "Part") after the parts.
    has_part = exercise.chapter.strip().lower().startswith("part")
    return (0 if has_part else 1, _natural_key(exercise.chapter))


def _sorted_exercises() -> list[Exercise]:
    return sorted(REGISTRY.values(), key=lambda e: (_chapter_rank(e), _natural_key(e.label)))


class ExerciseList(tuple):
    """The table returned by :func:`list_exercises` (``sd.exercises.list()``).

    A tuple of ``(chapter, label, kind, question)`` rows in book order that
    displays as a table grouped by chapter, as text in a terminal and as HTML
    in a notebook.
    """

    def __repr__(self) -> str:
        if not self:
            return "No exercises are registered."
        lines: list[str] = []
        chapter = None
        for row_chapter, label, kind, question in self:
            if row_chapter != chapter:
                if lines:
                    lines.append("")
                lines.append(row_chapter)
                chapter = row_chapter
            short = question if len(question) <= 72 else question[:69] + "..."
            lines.append(f"  {label:<24} {kind:<8} {short}")
        return "\n".join(lines)

    __str__ = __repr__

    def _repr_html_(self) -> str:
        if not self:
            return "<p>No exercises are registered.</p>"
        out = ['<table class="specdec-exercise-list">',
               "<thead><tr><th>label</th><th>kind</th><th>question</th></tr></thead><tbody>"]
        chapter = None
        for row_chapter, label, kind, question in self:
            if row_chapter != chapter:
                out.append(f'<tr><th colspan="3" style="text-align:left">{html.escape(row_chapter)}</th></tr>')
                chapter = row_chapter
            out.append(f"<tr><td><code>{html.escape(label)}</code></td><td>{html.escape(kind)}</td>"
                       f"<td style=\"text-align:left\">{html.escape(question)}</td></tr>")
        out.append("</tbody></table>")
        return "".join(out)

    def by_chapter(self) -> dict[str, builtins.list[str]]:
        """Return ``{chapter: [labels]}`` in book order."""
        grouped: dict[str, builtins.list[str]] = {}
        for row_chapter, label, _kind, _question in self:
            grouped.setdefault(row_chapter, []).append(label)
        return grouped


def list_exercises() -> ExerciseList:
    """List every exercise, grouped by chapter in book order.

    Returns
    -------
    ExerciseList
        A tuple of ``(chapter, label, kind, question)`` rows. It displays as
        a table (text in a terminal, HTML in a notebook); ``.by_chapter()``
        gives ``{chapter: [labels]}``.

    Examples
    --------
    >>> import specdec as sd
    >>> table = sd.exercises.list()
    >>> len(table) == len(sd.exercises.labels())
    True

    Defined in chapter "For instructors" (Appendix).
    """
    return ExerciseList(
        (e.chapter, e.label, e.kind, " ".join(str(e.question).split())) for e in _sorted_exercises()
    )


# --------------------------------------------------------------------------
# Helpers for messages that never reveal the expected value
# --------------------------------------------------------------------------
def _short_repr(value: Any, limit: int = 60) -> str:
    try:
        if isinstance(value, np.ndarray):
            text = np.array2string(value, separator=", ", threshold=8, max_line_width=10_000)
            text = f"array({text})"
        else:
            text = repr(value)
    except Exception:  # a reader object whose repr raises
        text = f"<{type(value).__name__} object>"
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)  # no memory addresses in stored outputs
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_name(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a dict"
    if isinstance(value, (set, frozenset)):
        return "a set"
    if callable(value):
        return "a function"
    name = type(value).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def _describe_expected_form(expected: Any) -> str:
    if isinstance(expected, (tuple, builtins.list)) and not _is_regular(expected):
        return f"a tuple of {len(expected)} values"
    arr = np.asarray(expected)
    if arr.ndim == 0:
        return "a single number"
    if arr.ndim == 1:
        what = "a tuple" if isinstance(expected, tuple) else "an array"
        return f"{what} of {arr.shape[0]} numbers"
    return f"an array of shape {arr.shape}"


def _is_regular(value: Any) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arr = np.asarray(value, dtype=float)
        return arr.dtype.kind == "f"
    except Exception:
        return False


def _to_float_array(value: Any) -> np.ndarray | None:
    """Return ``value`` as a float array, or None if it is not numeric."""
    if value is None or isinstance(value, (str, bytes, dict, set, frozenset, bool, np.bool_)):
        return None
    if callable(value) and not isinstance(value, np.ndarray):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arr = np.asarray(value)
    except Exception:
        return None
    if arr.dtype.kind == "O":
        try:
            flat = builtins.list(arr.flat)
            if any(isinstance(x, (bool, np.bool_, str, bytes)) or x is None for x in flat):
                return None
            arr = arr.astype(float)
        except Exception:
            return None
    if arr.dtype.kind not in "iuf":
        return None
    return arr.astype(float)


# --------------------------------------------------------------------------
# Numeric comparison
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Verdict:
    ok: bool
    reason: str
    text: str


def _compare(answer: Any, expected: Any, rtol: float, atol: float, what: str = "your answer") -> _Verdict:
    """Compare ``answer`` to ``expected``; the verdict text never contains ``expected``."""
    # Ragged tuples (e.g. a number and an array): compare component by component.
    if isinstance(expected, (tuple, builtins.list)) and not _is_regular(expected):
        if not isinstance(answer, (tuple, builtins.list, np.ndarray)) or isinstance(answer, np.ndarray) and answer.ndim == 0:
            return _Verdict(False, "wrong-type",
                            f"{what} is {_type_name(answer)}; expected {_describe_expected_form(expected)}.")
        if len(answer) != len(expected):
            return _Verdict(False, "wrong-shape",
                            f"{what} has {len(answer)} values; expected {len(expected)}.")
        for i, (a, e) in enumerate(zip(answer, expected)):
            verdict = _compare(a, e, rtol, atol, what=f"value {i + 1} of {what}")
            if not verdict.ok:
                return verdict
        return _Verdict(True, "correct", "Correct.")

    exp = _to_float_array(expected)
    if exp is None:  # non-numeric reference (should not happen for numeric exercises)
        try:
            ok = bool(answer == expected)
        except Exception:
            ok = False
        return _Verdict(ok, "correct" if ok else "wrong", "Correct." if ok else f"{what} is not right.")

    if callable(answer) and not isinstance(answer, np.ndarray):
        return _Verdict(False, "wrong-type",
                        f"{what} is a function; call it and pass the value it returns "
                        f"({_describe_expected_form(expected)}).")
    ans = _to_float_array(answer)
    if ans is None:
        extra = " Did you forget a `return` statement?" if answer is None else ""
        return _Verdict(False, "wrong-type",
                        f"{what} is {_type_name(answer)}; expected {_describe_expected_form(expected)}.{extra}")

    if exp.ndim == 0 and ans.size == 1:
        ans = ans.reshape(())
    if ans.shape != exp.shape:
        if exp.ndim == 0:
            text = f"{what} has shape {ans.shape}; expected a single number."
        elif ans.ndim == 0:
            text = f"{what} is a single number; expected {_describe_expected_form(expected)}."
        else:
            text = f"{what} has shape {ans.shape}; expected shape {exp.shape}."
        return _Verdict(False, "wrong-shape", text)

    with np.errstate(all="ignore"):
        nan_answer = np.isnan(ans) & ~np.isnan(exp)
        if nan_answer.any():
            where = "" if ans.ndim == 0 else f" (at {int(nan_answer.sum())} of {ans.size} positions)"
            return _Verdict(False, "nan", f"{what} contains NaN{where}; check for 0/0 or a missing value.")
        close = np.isclose(ans, exp, rtol=rtol, atol=atol, equal_nan=True)
        if close.all():
            return _Verdict(True, "correct", "Correct.")
        high = (~close) & (ans > exp)
        low = (~close) & (ans < exp)
    if ans.ndim == 0:
        if high.any():
            return _Verdict(False, "too-high", f"{what} is too high.")
        if low.any():
            return _Verdict(False, "too-low", f"{what} is too low.")
        return _Verdict(False, "wrong", f"{what} is not right.")
    n_wrong = int((~close).sum())
    first = tuple(int(i) for i in np.argwhere(~close)[0])
    index = first[0] if len(first) == 1 else first
    n_high, n_low = int(high.sum()), int(low.sum())
    if n_high and not n_low:
        direction, reason = "too high", "too-high"
    elif n_low and not n_high:
        direction, reason = "too low", "too-low"
    else:
        direction, reason = f"{n_high} too high and {n_low} too low", "mixed"
    text = (f"{n_wrong} of {ans.size} values in {what} are off ({direction}); "
            f"the first one is at index {index}.")
    if n_wrong == 1:
        text = f"1 of {ans.size} values in {what} is off ({direction}), at index {index}."
    return _Verdict(False, reason, text)


def _matches(answer: Any, value: Any, rtol: float, atol: float) -> bool:
    try:
        return _compare(answer, value, rtol, atol).ok
    except Exception:
        return False


# --------------------------------------------------------------------------
# The three kinds of exercise
# --------------------------------------------------------------------------
def _first_hint(exercise: Exercise) -> str:
    hints_ = builtins.list(exercise.hints or ())
    return str(hints_[0]) if hints_ else ""


def _check_numeric(exercise: Exercise, answer: Any) -> CheckResult:
    expected = exercise.reference()
    verdict = _compare(answer, expected, exercise.rtol, exercise.atol)
    if verdict.ok:
        return CheckResult(exercise.label, True, "Correct.", "", "correct")
    for mistake in exercise.mistakes:
        try:
            wrong = mistake.compute()
        except Exception:
            continue
        if _matches(wrong, expected, exercise.rtol, exercise.atol):
            continue  # a mistake that equals the answer cannot be diagnosed
        if _matches(answer, wrong, exercise.rtol, exercise.atol):
            return CheckResult(exercise.label, False, mistake.message, _first_hint(exercise),
                               f"mistake:{mistake.name}")
    return CheckResult(exercise.label, False, verdict.text, _first_hint(exercise), verdict.reason)


def _case_seed(label: str) -> int:
    return zlib.crc32(label.encode("utf-8"))


def _exercise_cases(exercise: Exercise) -> list[tuple]:
    if exercise.cases is None:
        raise ValueError(f"function exercise {exercise.label!r} has no `cases`")
    rng = np.random.default_rng(_case_seed(exercise.label))
    cases = builtins.list(exercise.cases(rng))
    return [case if isinstance(case, tuple) else (case,) for case in cases]


def _describe_case(reference: Callable, args: tuple) -> str:
    try:
        names = builtins.list(inspect.signature(reference).parameters)
    except (TypeError, ValueError):
        names = []
    parts = []
    for i, arg in enumerate(args):
        value = _short_repr(arg, limit=40)
        parts.append(f"{names[i]}={value}" if i < len(names) else value)
    return "(" + ", ".join(parts) + ")"


def _call(function: Callable, args: tuple) -> tuple[bool, Any]:
    """Call the reader's function on a private copy of the arguments."""
    try:
        args = copy.deepcopy(args)
    except Exception:
        pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return True, function(*args)
    except Exception as exc:  # the reader's code may raise anything
        return False, exc


def _exception_text(exc: BaseException) -> str:
    message = " ".join(str(exc).split())
    message = re.sub(r" at 0x[0-9a-fA-F]+", "", message)
    if len(message) > 160:
        message = message[:157] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _check_function(exercise: Exercise, answer: Any) -> CheckResult:
    label = exercise.label
    hint = _first_hint(exercise)
    if not callable(answer):
        return CheckResult(label, False,
                           f"expected a function (write `def ...` and pass the function itself, "
                           f"without calling it); got {_type_name(answer)}.", hint, "wrong-type")
    cases = _exercise_cases(exercise)
    n_visible = max(0, min(int(exercise.n_visible), len(cases)))
    expected = [exercise.reference(*copy.deepcopy(case)) for case in cases]
    outcomes = [_call(answer, case) for case in cases]

    # A known wrong implementation? (Its outputs match the reader's on every case.)
    for mistake in exercise.mistakes:
        wrong = [_call(mistake.compute, case) for case in cases]
        if not all(ok for ok, _ in wrong):
            continue
        differs = any(not _matches(w, e, exercise.rtol, exercise.atol) for (_, w), e in zip(wrong, expected))
        if not differs:
            continue
        if all(ok and _matches(out, w, exercise.rtol, exercise.atol)
               for (ok, out), (_, w) in zip(outcomes, wrong)):
            # Only diagnose when the reader's function is actually wrong somewhere.
            if any(not _matches(out, e, exercise.rtol, exercise.atol)
                   for (_, out), e in zip(outcomes, expected)):
                return CheckResult(label, False, mistake.message, hint, f"mistake:{mistake.name}")

    for i, ((ok, out), exp, case) in enumerate(zip(outcomes, expected, cases)):
        visible = i < n_visible
        where = f"on the example case {_describe_case(exercise.reference, case)}" if visible else "on a hidden case"
        if not ok:
            return CheckResult(label, False, f"{where}, your function raised {_exception_text(out)}.",
                               hint, "raised")
        verdict = _compare(out, exp, exercise.rtol, exercise.atol, what="your function's result")
        if verdict.ok:
            continue
        if visible:
            return CheckResult(label, False, f"{where}, {verdict.text}", hint, "visible-case")
        if verdict.reason in ("wrong-type", "wrong-shape", "nan"):
            # Type/shape problems are about the reader's code, not the hidden answer.
            return CheckResult(label, False, f"a hidden case failed: {verdict.text}", hint, "hidden-case")
        passed_examples = " (the example cases pass)" if n_visible else ""
        return CheckResult(label, False, f"a hidden case failed{passed_examples}.", hint, "hidden-case")

    n_hidden = len(cases) - n_visible
    detail = f"{len(cases)} cases" + (f" ({n_hidden} hidden)" if n_hidden else "")
    return CheckResult(label, True, f"Correct: your function matches the reference on all {detail}.", "",
                       "correct")


def _check_choice(exercise: Exercise, answer: Any) -> CheckResult:
    label = exercise.label
    hint = _first_hint(exercise)
    letters = sorted(str(key).upper() for key in (exercise.choices or {}))
    valid = ", ".join(letters)
    if not isinstance(answer, str):
        return CheckResult(label, False, f"answer with one letter as a string, one of {valid}; "
                           f"got {_type_name(answer)}.", hint, "wrong-type")
    letter = answer.strip().strip("().").strip().upper()
    if letter not in letters:
        return CheckResult(label, False, f"{_short_repr(answer, 20)} is not one of the options; "
                           f"answer with one of {valid}.", hint, "invalid-choice")
    expected = str(exercise.reference()).strip().upper()
    if letter == expected:
        return CheckResult(label, True, "Correct.", "", "correct")
    for mistake in exercise.mistakes:
        try:
            wrong = str(mistake.compute()).strip().upper()
        except Exception:
            continue
        if wrong == letter and wrong != expected:
            return CheckResult(label, False, mistake.message, hint, f"mistake:{mistake.name}")
    return CheckResult(label, False, f"{letter} is not the right option.", hint, "wrong-choice")


_KINDS = {"numeric": _check_numeric, "function": _check_function, "choice": _check_choice}


def _unknown_label_message(label: str) -> str:
    close = difflib.get_close_matches(label, builtins.list(REGISTRY), n=5, cutoff=0.6)
    if not close:
        prefix = label.rsplit("-", 1)[0]
        close = [known for known in sorted(REGISTRY, key=_natural_key) if known.startswith(prefix)][:5]
    text = f"no exercise is labelled {label!r}."
    if close:
        text += " Did you mean " + ", ".join(repr(c) for c in close) + "?"
    else:
        text += " Use sd.exercises.list() to see every label."
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


def check(label: str, answer: Any = _MISSING) -> CheckResult:
    """Check an answer to an exercise without revealing the expected answer.

    Parameters
    ----------
    label : str
        The exercise label shown in the book, e.g. ``"expected-tokens-1"``.
    answer : object
        Your answer: a number, an array or a tuple for numeric exercises; the
        function itself (not called) for "write a function" exercises; a
        letter such as ``"b"`` (any case) for multiple-choice exercises.

    Returns
    -------
    CheckResult
        ``.passed`` is ``True`` when the answer is correct. ``.message`` says
        what is wrong (too high, too low, wrong shape, wrong type, a known
        mistake, a crash in your function, ...) and ``.hint`` gives a hint;
        neither contains the expected value. In a notebook the result shows
        as a small coloured box.

    Notes
    -----
    ``check`` never raises: an unknown label, a wrong type or a function that
    raises all give a failed result whose message explains the problem (for
    an unknown label it lists the closest registered labels). Numeric answers
    are compared with ``numpy.isclose`` using the exercise's ``rtol`` and
    ``atol``. Function answers run on the exercise's cases, generated with a
    fixed seed derived from the label; the first ``n_visible`` cases are
    examples whose inputs may be shown, the others are hidden.

    Examples
    --------
    >>> import specdec as sd
    >>> result = sd.exercises.check("no-such-exercise-1", 0.5)
    >>> result.passed
    False
    >>> result.message.startswith("No exercise is labelled 'no-such-exercise-1'")
    True

    Defined in chapter "For instructors" (Appendix).
    """
    shown_label = label if isinstance(label, str) else _short_repr(label, 30)
    try:
        if not isinstance(label, str):
            return _finish(shown_label, CheckResult(shown_label, False,
                               "the first argument must be the exercise label as a string, "
                               "e.g. sd.exercises.check('expected-tokens-1', answer).", "", "unknown-label"))
        exercise = REGISTRY.get(label)
        if exercise is None:
            stripped = label.strip().lower()
            exercise = REGISTRY.get(stripped)
            if exercise is None:
                return _finish(label, CheckResult(label, False, _unknown_label_message(label),
                                                  "", "unknown-label"))
        if answer is _MISSING:
            return _finish(label, CheckResult(label, False, "no answer was given: call check(label, answer).",
                                              _first_hint(exercise), "no-answer"))
        checker = _KINDS.get(exercise.kind)
        if checker is None:
            return _finish(label, CheckResult(label, False, f"exercise {label!r} has an unknown kind "
                                              f"{exercise.kind!r} (a bug in the book; please report it).",
                                              "", "internal-error"))
        return _finish(label, checker(exercise, answer))
    except Exception as exc:  # never raise to the reader
        return _finish(shown_label, CheckResult(shown_label, False,
                           f"the checker could not evaluate this answer ({_exception_text(exc)}). "
                           "If your answer has the right form, this is a bug in the book: please report it.",
                           "", "internal-error"))


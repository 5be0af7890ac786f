"""Tests of ``specdec.exercises``: the checker, the registry and the book's exercises.

Two halves:

* Unit tests of the checker on test-only exercises registered by a fixture
  (and removed afterwards), so they do not depend on any chapter existing.
* Tests generated over the whole registry, so every chapter's exercises are
  covered automatically: the reference passes, every typical mistake fails
  with its message, a wrong answer never reveals the expected value, odd
  inputs never raise, labels are well formed, and the labels in the book's
  ``exercise`` directives and in the registry are the same set.
"""

from __future__ import annotations

import builtins
import copy
import html
import json
import math
import pathlib
import re
import warnings

import numpy as np
import pytest

import specdec as sd
from specdec.exercises import _core
from specdec.exercises._registry import REGISTRY, Exercise, Mistake, register

ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

#: Chapter notebook -> the slug its exercise labels must start with (CONTRACTS.md).
SLUGS = {
    "part1-speedup-bounds/01-expected-tokens.ipynb": "expected-tokens",
    "part1-speedup-bounds/02-speedup-formula.ipynb": "speedup-formula",
    "part1-speedup-bounds/03-verification-cost.ipynb": "verification-cost",
    "part1-speedup-bounds/04-when-it-does-not-help.ipynb": "no-help",
    "part1-speedup-bounds/05-decision-checklist.ipynb": "checklist",
    "part2-cost-accounting/01-verification-pass.ipynb": "verification-pass",
    "part2-cost-accounting/02-acceptance-rate.ipynb": "acceptance-rate",
    "part2-cost-accounting/03-break-even.ipynb": "break-even",
    "part2-cost-accounting/04-draft-arrangements.ipynb": "draft-arrangements",
    "part2-cost-accounting/05-latency-throughput-memory.ipynb": "latency-throughput",
    "part2-cost-accounting/06-when-not-to-use.ipynb": "when-not-to-use",
    "part3-beyond/01-roofline-model.ipynb": "roofline",
    "part3-beyond/02-published-results.ipynb": "published-results",
    "part3-beyond/03-serving-metrics.ipynb": "serving-metrics",
    "part3-beyond/04-measure-your-machine.ipynb": "measure",
}
LABEL_RE = re.compile(r"^(?P<slug>[a-z][a-z0-9]*(?:-[a-z0-9]+)*)-(?P<n>[1-9][0-9]*)$")

ALL_LABELS = sorted(REGISTRY)
ALL_MISTAKES = [(label, m.name) for label in ALL_LABELS for m in REGISTRY[label].mistakes]


# ==========================================================================
# Test-only exercises (registered by a fixture, removed afterwards)
# ==========================================================================
def _ref_scalar():
    return float(sd.expected_tokens(0.8, 5))


def _ref_array():
    return sd.expected_tokens(np.array([0.5, 0.6, 0.7, 0.8]), 4)


def _ref_pair():
    return (float(sd.expected_tokens(0.8, 4)), 4)


def _ref_ragged():
    return (float(sd.expected_tokens(0.8, 4)), sd.expected_tokens(np.array([0.6, 0.7]), 3))


def _ref_function(alpha, k):
    return sd.expected_tokens(alpha, k)


def _forgot_bonus(alpha, k):
    return sd.expected_tokens(alpha, k) - 1.0


def _cases(rng):
    return [(0.8, 5), (0.5, 3)] + [(float(a), int(k)) for a, k in zip(rng.uniform(0.05, 0.95, 4),
                                                                       rng.integers(1, 9, 4))]


TEST_EXERCISES = (
    Exercise(label="zz-test-1", chapter="Part II · 10 Test chapter", question="E[L] at alpha 0.8, k 5.",
             kind="numeric", reference=_ref_scalar, hints=("Sum the geometric series.",), rtol=1e-4,
             mistakes=(Mistake("forgot-bonus", lambda: _ref_scalar() - 1.0, "You forgot the bonus token."),
                       Mistake("same-as-answer", _ref_scalar, "THIS MUST NEVER BE SHOWN"),
                       Mistake("raises", lambda: 1 / 0, "NOR THIS"))),
    Exercise(label="zz-test-2", chapter="Part II · 2 Test chapter", question="E[L] for four alphas.",
             kind="numeric", reference=_ref_array, hints=("Vectorize.",), rtol=1e-4,
             mistakes=(Mistake("k-plus-one", lambda: sd.expected_tokens(np.array([0.5, 0.6, 0.7, 0.8]), 5),
                               "You used k + 1 draft tokens."),)),
    Exercise(label="zz-test-3", chapter="Part II · 2 Test chapter", question="(E[L], k).",
             kind="numeric", reference=_ref_pair, hints=("Two numbers.",), rtol=1e-4,
             mistakes=(Mistake("swapped", lambda: _ref_pair()[::-1], "Wrong order."),)),
    Exercise(label="zz-test-4", chapter="Part I · 3 Test chapter", question="Write E[L](alpha, k).",
             kind="function", reference=_ref_function, hints=("Use the closed form.",), cases=_cases,
             n_visible=2, mistakes=(Mistake("forgot-bonus", _forgot_bonus, "You forgot the bonus token."),)),
    Exercise(label="zz-test-5", chapter="Appendix test", question="Which letter?", kind="choice",
             reference=lambda: "b", hints=("Think about it.",),
             choices={"a": "first", "b": "second", "c": "third"},
             mistakes=(Mistake("picked-a", lambda: "A", "Option A ignores the draft cost."),)),
    Exercise(label="zz-test-6", chapter="Part II · 2 Test chapter", question="A number and an array.",
             kind="numeric", reference=_ref_ragged, hints=("A tuple.",), rtol=1e-4,
             mistakes=(Mistake("first-off", lambda: (_ref_ragged()[0] + 1.0, _ref_ragged()[1]),
                               "First value forgot something."),)),
    Exercise(label="zz-test-7", chapter="Part I · 3 Test chapter", question="Broken reference.",
             kind="numeric", reference=lambda: 1 / 0, hints=("None.",),
             mistakes=(Mistake("m", lambda: 1.0, "m"),)),
)


@pytest.fixture
def test_exercises():
    """Register the test-only exercises for one test, then remove them."""
    added = []
    try:
        for exercise in TEST_EXERCISES:
            register(exercise)
            added.append(exercise.label)
        yield {e.label: e for e in TEST_EXERCISES}
    finally:
        for label in added:
            REGISTRY.pop(label, None)


check = sd.exercises.check


# ==========================================================================
# The result object
# ==========================================================================
def test_result_is_truthy_only_when_passed(test_exercises):
    """bool(result) is result.passed, so `assert check(...)` works in an autograder."""
    good = check("zz-test-1", _ref_scalar())
    bad = check("zz-test-1", _ref_scalar() * 2)
    assert good.passed is True and bool(good)
    assert bad.passed is False and not bool(bad)
    assert isinstance(good, sd.exercises.CheckResult)


def test_result_text_and_html_are_deterministic(test_exercises):
    """Repeated checks give identical text and HTML, with no memory address or id."""
    for answer in (_ref_scalar(), _ref_scalar() * 2, None, object(), lambda: 1):
        a, b = check("zz-test-1", answer), check("zz-test-1", answer)
        assert str(a) == str(b) == repr(a)
        assert a._repr_html_() == b._repr_html_()
        assert "0x" not in str(a) and "0x" not in a._repr_html_()
    assert str(check("zz-test-1", _ref_scalar())) == "[correct] zz-test-1: Correct."


def test_result_text_shows_hint_on_failure_only(test_exercises):
    """The plain text adds the hint on a wrong attempt, not on a correct one."""
    bad = check("zz-test-1", 100.0)
    assert bad.hint == "Sum the geometric series."
    assert str(bad) == "[not yet] zz-test-1: Your answer is too high.\n  Hint: Sum the geometric series."
    assert check("zz-test-1", _ref_scalar()).hint == ""


def test_result_html_escapes_and_colours(test_exercises):
    """The HTML box escapes text and is green on success, red on failure."""
    result = sd.exercises.CheckResult("x<1>", False, "a < b & c", "use <b>")
    text = result._repr_html_()
    assert "x&lt;1&gt;" in text and "a &lt; b &amp; c" in text and "use &lt;b&gt;" in text
    assert "specdec-check-fail" in text and "#c62828" in text
    assert "specdec-check-pass" in sd.exercises.CheckResult("x", True, "ok")._repr_html_()


# ==========================================================================
# Numeric exercises
# ==========================================================================
def test_numeric_scalar_correct_within_tolerance(test_exercises):
    """Answers within rtol pass; numpy scalars and size-1 arrays are accepted for a number."""
    ref = _ref_scalar()
    assert check("zz-test-1", ref)
    assert check("zz-test-1", ref * (1 + 5e-5))
    assert check("zz-test-1", np.float32(ref))
    assert check("zz-test-1", np.array([ref]))
    assert not check("zz-test-1", ref * (1 + 5e-4))


def test_numeric_scalar_too_high_and_too_low(test_exercises):
    """A wrong scalar is reported as too high or too low, nothing more."""
    ref = _ref_scalar()
    high, low = check("zz-test-1", ref * 1.2), check("zz-test-1", ref * 0.8)
    assert (high.reason, high.message) == ("too-high", "Your answer is too high.")
    assert (low.reason, low.message) == ("too-low", "Your answer is too low.")


def test_numeric_mistake_is_diagnosed(test_exercises):
    """An answer equal to a registered mistake gets that mistake's message."""
    result = check("zz-test-1", _ref_scalar() - 1.0)
    assert not result.passed
    assert result.message == "You forgot the bonus token."
    assert result.reason == "mistake:forgot-bonus"


def test_mistake_equal_to_answer_or_raising_is_ignored(test_exercises):
    """A mistake that equals the reference or raises never produces its message."""
    assert check("zz-test-1", _ref_scalar()).message == "Correct."
    for answer in (0.0, 1.0, 99.0):
        text = str(check("zz-test-1", answer))
        assert "MUST NEVER" not in text and "NOR THIS" not in text


def test_numeric_array_shape_and_positions(test_exercises):
    """Arrays: wrong shape is named; wrong entries are counted and located, not shown."""
    ref = _ref_array()
    assert check("zz-test-2", ref)
    assert check("zz-test-2", ref.tolist())
    assert check("zz-test-2", tuple(ref))
    short = check("zz-test-2", ref[:3])
    assert short.reason == "wrong-shape" and "(3,)" in short.message and "(4,)" in short.message
    column = check("zz-test-2", ref.reshape(4, 1))
    assert column.reason == "wrong-shape"
    scalar = check("zz-test-2", 2.0)
    assert scalar.reason == "wrong-shape" and "single number" in scalar.message
    one_off = ref.copy()
    one_off[2] += 1
    result = check("zz-test-2", one_off)
    assert result.reason == "too-high"
    assert result.message == "1 of 4 values in your answer is off (too high), at index 2."
    mixed = ref.copy()
    mixed[0] += 1
    mixed[3] -= 1
    result = check("zz-test-2", mixed)
    assert result.reason == "mixed" and "1 too high and 1 too low" in result.message
    assert "index 0" in result.message


def test_numeric_array_mistake(test_exercises):
    """Array-valued mistakes are matched element-wise."""
    wrong = sd.expected_tokens(np.array([0.5, 0.6, 0.7, 0.8]), 5)
    assert check("zz-test-2", wrong).message == "You used k + 1 draft tokens."


def test_numeric_nan(test_exercises):
    """NaN in an answer is reported as NaN, not as too high/low."""
    assert check("zz-test-1", math.nan).reason == "nan"
    arr = _ref_array().copy()
    arr[1] = np.nan
    result = check("zz-test-2", arr)
    assert result.reason == "nan" and "1 of 4" in result.message


def test_numeric_tuple_and_ragged(test_exercises):
    """Tuples compare element-wise; ragged tuples compare component by component."""
    assert check("zz-test-3", _ref_pair())
    assert check("zz-test-3", list(_ref_pair()))
    assert check("zz-test-3", np.array(_ref_pair()))
    assert check("zz-test-3", _ref_pair()[::-1]).message == "Wrong order."
    assert check("zz-test-3", (1.0,)).reason == "wrong-shape"
    assert check("zz-test-6", _ref_ragged())
    assert check("zz-test-6", [_ref_ragged()[0], list(_ref_ragged()[1])])
    assert check("zz-test-6", (_ref_ragged()[0] + 1.0, _ref_ragged()[1])).message == "First value forgot something."
    second = check("zz-test-6", (_ref_ragged()[0], _ref_ragged()[1] * 2))
    assert second.reason == "too-high" and "value 2 of your answer" in second.message
    assert check("zz-test-6", (1.0, 2.0, 3.0)).reason == "wrong-shape"
    assert check("zz-test-6", 1.0).reason == "wrong-type"


@pytest.mark.parametrize("answer, words", [
    (None, "return"),
    ("1.23", "a string"),
    ({"a": 1}, "a dict"),
    ({1.0}, "a set"),
    (True, "a boolean"),
    (object(), "an object"),
    (1 + 2j, ""),
    ([1.0, "x"], ""),
    ([[1.0], [1.0, 2.0]], ""),
])
def test_numeric_wrong_types(test_exercises, answer, words):
    """Wrong types give a wrong-type result naming the type, never an exception."""
    result = check("zz-test-1", answer)
    assert not result.passed
    assert result.reason in ("wrong-type", "wrong-shape")
    assert words in result.message


def test_numeric_function_instead_of_value(test_exercises):
    """Passing a function to a numeric exercise says to call it."""
    result = check("zz-test-1", _ref_scalar)
    assert result.reason == "wrong-type" and "call it" in result.message


def test_broken_reference_never_raises(test_exercises):
    """A bug in an exercise (reference raises) is an internal-error result, not an exception."""
    result = check("zz-test-7", 1.0)
    assert not result.passed and result.reason == "internal-error"
    assert "ZeroDivisionError" in result.message


# ==========================================================================
# Function exercises
# ==========================================================================
def test_function_correct(test_exercises):
    """A correct function passes and the message counts the cases, hidden ones included."""
    result = check("zz-test-4", lambda alpha, k: (1 - alpha ** (k + 1)) / (1 - alpha))
    assert result.passed, result
    assert result.message == "Correct: your function matches the reference on all 6 cases (4 hidden)."


def test_function_visible_case_shows_inputs_not_output(test_exercises):
    """A failing example case shows its inputs, never the expected output."""
    result = check("zz-test-4", lambda alpha, k: 1.0)
    assert result.reason == "visible-case"
    assert result.message == "On the example case (alpha=0.8, k=5), your function's result is too low."
    assert _has_number(str(result), float(_ref_function(0.8, 5))) is None


def test_function_hidden_case_reveals_nothing(test_exercises):
    """A function that passes the examples but fails a hidden case is told only that."""
    def almost(alpha, k):
        if (alpha, k) in ((0.8, 5), (0.5, 3)):
            return _ref_function(alpha, k)
        return 0.0
    result = check("zz-test-4", almost)
    assert result.reason == "hidden-case"
    assert result.message == "A hidden case failed (the example cases pass)."


def test_function_mistake_implementation(test_exercises):
    """A reader function equal to a registered wrong implementation gets its message."""
    result = check("zz-test-4", lambda alpha, k: sd.expected_tokens(alpha, k) - 1)
    assert result.message == "You forgot the bonus token."


def test_function_that_raises(test_exercises):
    """An exception in the reader's function is reported by type and message."""
    def boom(alpha, k):
        raise RuntimeError("kaboom")
    result = check("zz-test-4", boom)
    assert result.reason == "raised"
    assert "RuntimeError: kaboom" in result.message and "alpha=0.8" in result.message
    wrong_arity = check("zz-test-4", lambda alpha: alpha)
    assert wrong_arity.reason == "raised" and "TypeError" in wrong_arity.message


def test_function_hidden_exception_keeps_case_hidden(test_exercises):
    """An exception on a hidden case says 'hidden case', without the inputs."""
    def fails_later(alpha, k):
        if (alpha, k) in ((0.8, 5), (0.5, 3)):
            return _ref_function(alpha, k)
        raise ValueError("nope")
    result = check("zz-test-4", fails_later)
    assert result.reason == "raised" and result.message.startswith("On a hidden case, your function raised")
    assert "alpha=" not in result.message


@pytest.mark.parametrize("returned, reason, words", [
    ("1.0", "visible-case", "a string"),
    (None, "visible-case", "return"),
    ([1.0, 2.0], "visible-case", "shape"),
])
def test_function_returning_wrong_type(test_exercises, returned, reason, words):
    """A function returning a string, None or a list is told the type/shape problem."""
    result = check("zz-test-4", lambda alpha, k: returned)
    assert result.reason == reason and words in result.message


def test_function_not_callable(test_exercises):
    """Passing a number to a function exercise asks for the function itself."""
    result = check("zz-test-4", 3.1)
    assert result.reason == "wrong-type" and "function" in result.message


def test_function_cannot_corrupt_reference_inputs(test_exercises):
    """The reader's function gets copies: mutating arguments does not change the reference."""
    seen = []

    def mutating(alpha, k):
        seen.append((alpha, k))
        return _ref_function(alpha, k)
    assert check("zz-test-4", mutating)

    captured = []

    def cases(rng):
        arr = np.array([0.5, 0.9])
        captured.append(arr)
        return [(arr, 3)]

    def vandal(alpha, k):
        alpha[:] = 0.0
        return sd.expected_tokens(alpha, k)
    ex = Exercise(label="zz-test-8", chapter="Part I · 3 Test chapter", question="q", kind="function",
                  reference=_ref_function, hints=("h",), cases=cases, n_visible=1,
                  mistakes=(Mistake("m", _forgot_bonus, "m"),))
    register(ex)
    try:
        assert not check("zz-test-8", vandal)
        np.testing.assert_array_equal(captured[-1], [0.5, 0.9])
    finally:
        REGISTRY.pop("zz-test-8", None)


def test_function_cases_are_seeded(test_exercises):
    """Cases come from a fixed seed derived from the label: two runs see the same cases."""
    first = _core._exercise_cases(test_exercises["zz-test-4"])
    second = _core._exercise_cases(test_exercises["zz-test-4"])
    assert first == second and len(first) == 6


# ==========================================================================
# Choice exercises
# ==========================================================================
@pytest.mark.parametrize("answer", ["b", "B", " b ", "(b)", "b."])
def test_choice_accepts_letter_in_any_case(test_exercises, answer):
    """A letter passes in either case, with surrounding spaces or brackets."""
    assert check("zz-test-5", answer)


def test_choice_invalid_letter_lists_options(test_exercises):
    """An invalid letter is rejected with the list of valid letters."""
    result = check("zz-test-5", "e")
    assert result.reason == "invalid-choice" and "A, B, C" in result.message
    assert check("zz-test-5", 2).reason == "wrong-type"
    assert check("zz-test-5", None).reason == "wrong-type"


def test_choice_wrong_and_mistake(test_exercises):
    """A wrong letter is 'not the right option'; a registered one gets its message."""
    assert check("zz-test-5", "c").message == "C is not the right option."
    assert check("zz-test-5", "a").message == "Option A ignores the draft cost."


# ==========================================================================
# Labels, registry access and listing
# ==========================================================================
def test_unknown_label_lists_close_labels(test_exercises):
    """An unknown label gives a failed result naming close labels, not an exception."""
    result = check("zz-tset-1", 1.0)
    assert not result.passed and result.reason == "unknown-label"
    assert result.message.startswith("No exercise is labelled 'zz-tset-1'.")
    assert "'zz-test-1'" in result.message
    far = check("completely-unrelated-label", 1.0)
    assert "sd.exercises.list()" in far.message


def test_bad_label_type_and_missing_answer(test_exercises):
    """A non-string label or a missing answer gives a failed result, not an exception."""
    assert check(0.8, 1.0).reason == "unknown-label"
    assert check("zz-test-1").reason == "no-answer"


def test_get_and_hints(test_exercises):
    """get returns the Exercise; unknown labels raise KeyError naming close labels."""
    assert sd.exercises.get("zz-test-1") is test_exercises["zz-test-1"]
    assert sd.exercises.hints("zz-test-1") == ["Sum the geometric series."]
    with pytest.raises(KeyError, match="zz-test-1"):
        sd.exercises.get("zz-test-01")
    with pytest.raises(TypeError, match="label"):
        sd.exercises.get(1)


def test_register_rejects_duplicates(test_exercises):
    """Registering a label twice is an error."""
    with pytest.raises(ValueError, match="twice"):
        register(TEST_EXERCISES[0])


def test_list_groups_by_chapter_in_book_order(test_exercises):
    """list() orders chapters Part I < Part II, chapter 2 < chapter 10, appendix last."""
    table = sd.exercises.list()
    rows = [row for row in table if row[1].startswith("zz-test-")]
    assert [row[1] for row in rows] == ["zz-test-4", "zz-test-7", "zz-test-2", "zz-test-3", "zz-test-6",
                                        "zz-test-1", "zz-test-5"]
    grouped = table.by_chapter()
    assert grouped["Part II · 2 Test chapter"] == ["zz-test-2", "zz-test-3", "zz-test-6"]
    text = repr(table)
    assert "Part II · 10 Test chapter\n  zz-test-1" in text
    assert "<table" in table._repr_html_()
    assert sd.exercises.labels() == [row[1] for row in table]


def test_list_does_not_shadow_builtin_elsewhere():
    """sd.exercises.list is the listing function; the builtin list is untouched."""
    assert sd.exercises.list is sd.exercises.list_exercises
    assert builtins.list((1, 2)) == [1, 2]
    assert isinstance(sd.exercises.list(), tuple)


def test_broken_chapter_module_is_reported(monkeypatch):
    """A chapter module that fails to import warns and is recorded, without breaking the others."""
    import specdec.exercises as ex

    class Info:
        name = "zz_broken"

    def fake_import(name, package=None):
        raise SyntaxError("bad chapter")
    monkeypatch.setattr(ex.pkgutil, "iter_modules", lambda path: [Info()])
    monkeypatch.setattr(ex.importlib, "import_module", fake_import)
    try:
        with pytest.warns(RuntimeWarning, match="zz_broken"):
            ex._import_chapter_modules()
        assert "zz_broken" in ex.IMPORT_ERRORS
        assert "failed to import: zz_broken" in check("nope-1", 1.0).message
    finally:
        ex.IMPORT_ERRORS.pop("zz_broken", None)


# ==========================================================================
# Every registered exercise (generated over the registry)
# ==========================================================================
def test_chapter_modules_import_cleanly():
    """No chapter exercise module failed to import."""
    assert sd.exercises.IMPORT_ERRORS == {}


def test_registry_is_not_empty():
    """At least one chapter registers exercises (guards against a silent empty registry)."""
    assert len(REGISTRY) > 0


def _reference_answer(exercise):
    return exercise.reference if exercise.kind == "function" else exercise.reference()


@pytest.mark.parametrize("label", ALL_LABELS)
def test_exercise_is_well_formed(label):
    """Label format, kind, hints, at least one mistake, tolerances, cases and choices."""
    exercise = REGISTRY[label]
    match = LABEL_RE.match(label)
    assert match, f"label {label!r} is not '<chapter-slug>-<n>'"
    assert match["slug"] in set(SLUGS.values()), f"{label!r}: unknown chapter slug {match['slug']!r}"
    assert exercise.kind in ("numeric", "function", "choice")
    assert exercise.chapter.strip() and str(exercise.question).strip()
    assert len(exercise.hints) >= 1 and all(isinstance(h, str) and h.strip() for h in exercise.hints)
    assert len(exercise.mistakes) >= 1, "every exercise needs at least one typical wrong answer"
    assert len({m.name for m in exercise.mistakes}) == len(exercise.mistakes)
    assert exercise.rtol >= 0 and exercise.atol >= 0
    if exercise.kind == "function":
        cases = _core._exercise_cases(exercise)
        assert len(cases) >= 2 and 0 <= exercise.n_visible <= len(cases)
    if exercise.kind == "choice":
        assert exercise.choices and len(exercise.choices) >= 2
        assert str(exercise.reference()).strip().upper() in {c.upper() for c in exercise.choices}


@pytest.mark.parametrize("label", ALL_LABELS)
def test_reference_answer_passes(label):
    """The reference answer itself is judged correct."""
    exercise = REGISTRY[label]
    result = check(label, _reference_answer(exercise))
    assert result.passed, str(result)
    assert result.message.startswith("Correct")


def _mistake_answer(exercise, mistake):
    return mistake.compute if exercise.kind == "function" else mistake.compute()


@pytest.mark.parametrize("label, name", ALL_MISTAKES)
def test_each_mistake_fails_with_its_message(label, name):
    """Each typical wrong answer fails and earns its own message."""
    exercise = REGISTRY[label]
    mistake = next(m for m in exercise.mistakes if m.name == name)
    result = check(label, _mistake_answer(exercise, mistake))
    assert not result.passed, f"mistake {name!r} of {label!r} is judged correct"
    assert result.message == mistake.message, str(result)
    assert result.reason == f"mistake:{name}"


# --- the expected value never appears in the output of a wrong attempt ----
def _numbers(value):
    """Every number in a (possibly nested) reference value."""
    if isinstance(value, (tuple, builtins.list)):
        return [x for item in value for x in _numbers(item)]
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return []
    return [float(x) for x in arr.ravel()]


def _formats(x):
    """Ways an expected value could be printed: repr and 2-6 significant digits."""
    if not math.isfinite(x):
        return set()
    if float(x).is_integer() and abs(x) < 100:
        return set()  # small integers appear legitimately in any text (indices, shapes, k)
    forms = {repr(x), str(np.float64(x)), str(np.float32(x))}
    for digits in range(2, 7):
        forms.add(f"{x:.{digits}g}")
        forms.add(np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="-"))
    return {f for f in forms if not _is_small_integer_text(f)}


def _is_small_integer_text(form):
    """'1', '2.0', '-0', '7.000': small integers appear legitimately in any text (indices, shapes, k)."""
    try:
        value = float(form)
    except ValueError:
        return False
    return value.is_integer() and abs(value) < 100


def _has_number(text, x):
    """Return the format of ``x`` found in ``text`` as a whole number, or None."""
    for form in sorted(_formats(x), key=len, reverse=True):
        if re.search(r"(?<![\d.])" + re.escape(form) + r"(?![\d])", text):
            return form
    return None


def _perturbed(expected, factor, shift):
    if isinstance(expected, (tuple, builtins.list)):
        return type(expected)(_perturbed(e, factor, shift) for e in expected)
    return np.asarray(expected, dtype=float) * factor + shift


def _wrong_numeric_answers(exercise):
    expected = exercise.reference()
    answers = []
    for mistake in exercise.mistakes:
        try:
            answers.append(mistake.compute())
        except Exception:  # a broken mistake fails test_each_mistake_fails_with_its_message instead
            pass
    answers += [_perturbed(expected, 1.37, 0.11), _perturbed(expected, 0.61, -0.07), _perturbed(expected, -1.0, 3.0)]
    answers += [None, "abc", [], {}, object(), (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0), math.nan]
    return answers


def _wrong_functions(exercise):
    ref = exercise.reference

    def scaled(*args):
        return _perturbed(ref(*args), 1.37, 0.11)

    def off_hidden(*args):
        first = _core._exercise_cases(exercise)[: exercise.n_visible]
        return ref(*args) if any(_same_args(args, c) for c in first) else _perturbed(ref(*args), 0.61, -0.07)

    def raises(*args):
        raise ValueError("reader bug")
    return [m.compute for m in exercise.mistakes] + [scaled, off_hidden, raises,
                                                      lambda *a: "abc", lambda *a: None, lambda *a: 0.0]


def _same_args(a, b):
    try:
        return len(a) == len(b) and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b))
    except Exception:
        return False


def _html_text(markup):
    """The visible text of an HTML fragment (styles such as opacity:0.85 are not shown)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def _strip_case_inputs(text, exercise):
    """Remove the visible cases' input descriptions (inputs are allowed to be shown)."""
    for case in _core._exercise_cases(exercise)[: exercise.n_visible]:
        text = text.replace(_core._describe_case(exercise.reference, case), "")
    return text


@pytest.mark.parametrize("label", ALL_LABELS)
def test_wrong_answer_output_does_not_reveal_expected(label):
    """On wrong attempts, neither text nor HTML contains the expected value (any rounding)."""
    _assert_no_leak(label)


def _assert_no_leak(label):
    exercise = REGISTRY[label]
    if exercise.kind == "numeric":
        secrets = _numbers(exercise.reference())
        attempts = _wrong_numeric_answers(exercise)
    elif exercise.kind == "function":
        cases = _core._exercise_cases(exercise)
        secrets = [x for case in cases for x in _numbers(exercise.reference(*copy.deepcopy(case)))]
        attempts = _wrong_functions(exercise)
    else:
        letter = str(exercise.reference()).strip().upper()
        wrong = [c.upper() for c in exercise.choices if c.upper() != letter]
        for answer in wrong + ["zz", None, 3]:
            result = check(label, answer)
            assert not result.passed
            options = str(exercise.choices[next(c for c in exercise.choices if c.upper() == letter)])
            assert options not in str(result), "the right option's text is shown on a wrong attempt"
            assert not re.search(rf"\b{letter}\b(?! *,)", result.message.replace(", ".join(
                sorted(c.upper() for c in exercise.choices)), "")), str(result)
        return
    for answer in attempts:
        result = check(label, answer)
        if result.passed:
            continue  # e.g. a shifted answer that is still within tolerance (not expected)
        for shown in (str(result), _html_text(result._repr_html_())):
            if exercise.kind == "function":
                shown = _strip_case_inputs(shown, exercise)
            for x in secrets:
                found = _has_number(shown, x)
                assert found is None, f"{label}: output reveals the expected value as {found!r}: {result}"


@pytest.mark.parametrize("label", ALL_LABELS)
def test_odd_answers_never_raise(label):
    """None, strings, empty containers, objects and crashing functions give a failed result."""
    _assert_odd_answers_fail_quietly(label)


def _assert_odd_answers_fail_quietly(label):
    def raises(*args, **kwargs):
        raise RuntimeError("reader bug")
    odd = [None, "abc", "", [], {}, set(), object(), raises, lambda *a, **k: "abc", lambda *a, **k: None,
           math.nan, math.inf, -1e308, True, 1 + 1j, np.array([]), [[1.0], [2.0, 3.0]]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker must not emit warnings either
        for answer in odd:
            result = check(label, answer)
            assert isinstance(result, sd.exercises.CheckResult)
            assert not result.passed, f"{label}: {answer!r} passed"
            assert result.reason != "internal-error", str(result)
            assert str(result) and result._repr_html_()


@pytest.mark.parametrize("label", ["zz-test-1", "zz-test-2", "zz-test-3", "zz-test-4", "zz-test-5", "zz-test-6"])
def test_generic_registry_checks_on_test_exercises(test_exercises, label):
    """The generic per-exercise checks work on every kind (so they can fail on a chapter's exercise)."""
    _assert_no_leak(label)
    _assert_odd_answers_fail_quietly(label)


def test_leak_detector_detects_a_leak(test_exercises):
    """The leak detector flags an expected value printed with 2 to 6 significant digits."""
    x = _ref_scalar()
    for digits in range(2, 7):
        assert _has_number(f"close to {x:.{digits}g}!", x)
    assert _has_number(f"got {x!r}", x)
    assert _has_number(str(check("zz-test-1", 100.0)), x) is None
    assert _has_number("index 4 of 5", 4.0) is None  # small integers are not secrets


# ==========================================================================
# The book and the registry agree (no orphan exercises)
# ==========================================================================
_DIRECTIVE_RE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}[ \t]*(?P<arg>[^\n]*)\n(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
                           re.MULTILINE)
_CHECK_RE = re.compile(r"""exercises\.check\(\s*(['"])(?P<label>[^'"]+)\1""")


def _book_sources():
    """(relative path, markdown text, list of code cells) for every page under book/."""
    pages = []
    for path in sorted(BOOK.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        nb = json.loads(path.read_text(encoding="utf-8"))
        md, code = [], []
        for cell in nb.get("cells", []):
            source = "".join(cell.get("source", ""))
            (md if cell.get("cell_type") == "markdown" else code).append((source, cell))
        pages.append((path.relative_to(BOOK).as_posix(), nb, md, code))
    for path in sorted(BOOK.rglob("*.md")):
        pages.append((path.relative_to(BOOK).as_posix(), None, [(path.read_text(encoding="utf-8"), None)], []))
    return pages


def _directives(text):
    for m in _DIRECTIVE_RE.finditer(text + "\n"):
        label = re.search(r":label:[ \t]*(\S+)", m["opts"])
        yield m["name"], m["arg"].strip(), label.group(1) if label else None


def _book_exercise_labels():
    """{label: page} of every exercise / exercise-start directive in the book."""
    found: dict[str, list[str]] = {}
    for page, _nb, md, _code in _book_sources():
        for text, _cell in md:
            for name, _arg, label in _directives(text):
                if name in ("exercise", "exercise-start"):
                    assert label, f"{page}: an {name} directive has no :label:"
                    found.setdefault(label, []).append(page)
    return found


def test_every_book_exercise_is_registered():
    """Every label used in an exercise directive exists in the registry."""
    missing = {label: pages for label, pages in _book_exercise_labels().items() if label not in REGISTRY}
    assert not missing, f"exercise directives without a registry entry: {missing}"


def test_every_registered_exercise_is_in_the_book():
    """Every registered exercise appears in an exercise directive (no orphans)."""
    used = _book_exercise_labels()
    orphans = sorted(set(REGISTRY) - set(used))
    assert not orphans, f"registered exercises not used in any exercise directive: {orphans}"


def test_book_exercise_labels_are_unique_and_in_their_chapter():
    """Each label appears once, in the notebook of its chapter slug."""
    for label, pages in _book_exercise_labels().items():
        assert len(pages) == 1, f"{label!r} is used by several exercise directives: {pages}"
        match = LABEL_RE.match(label)
        assert match, f"{label!r} is not '<chapter-slug>-<n>'"
        if pages[0] in SLUGS:
            assert match["slug"] == SLUGS[pages[0]], f"{label!r} is in {pages[0]} (slug {SLUGS[pages[0]]!r})"


def test_every_book_exercise_has_a_checked_solution():
    """Each exercise has a solution in the same page whose code calls check(label) and stored 'correct'."""
    for page, nb, md, code in _book_sources():
        if nb is None:
            continue
        labels = []
        solutions = []
        for text, _cell in md:
            for name, arg, label in _directives(text):
                if name in ("exercise", "exercise-start"):
                    labels.append(label)
                if name in ("solution", "solution-start"):
                    solutions.append(arg)
        for label in labels:
            assert label in solutions, f"{page}: exercise {label!r} has no solution directive"
            cells = [cell for source, cell in code if re.search(
                r"""exercises\.check\(\s*['"]""" + re.escape(label) + r"""['"]""", source)]
            assert cells, f"{page}: no code cell calls sd.exercises.check({label!r}, ...)"
            stored = " ".join(
                output.get("data", {}).get("text/plain", "") if isinstance(output.get("data", {}).get("text/plain", ""), str)
                else "".join(output["data"]["text/plain"])
                for cell in cells for output in cell.get("outputs", []))
            assert f"[correct] {label}:" in stored, f"{page}: the stored output of {label!r}'s check is not 'correct'"


def test_check_calls_in_the_book_use_registered_labels():
    """Every sd.exercises.check('<label>', ...) in a code cell names a registered exercise."""
    bad = []
    for page, _nb, _md, code in _book_sources():
        for source, _cell in code:
            bad += [(page, m["label"]) for m in _CHECK_RE.finditer(source) if m["label"] not in REGISTRY]
    assert not bad, f"check() calls with unknown labels: {bad}"


def test_instructors_page_examples_are_real_output():
    """The feedback shown on the instructors page is what check prints today."""
    page = (BOOK / "appendix" / "instructors.md").read_text(encoding="utf-8")
    if "expected-tokens-1" not in REGISTRY:
        pytest.fail("the instructors page uses exercise expected-tokens-1, which is not registered")
    mistake = next(m for m in REGISTRY["expected-tokens-1"].mistakes if m.name == "forgot-bonus")
    assert str(check("expected-tokens-1", mistake.compute())) in page
    assert str(check("expected-tokens-1", REGISTRY["expected-tokens-1"].reference())) in page
    assert "'expected-tokens-1'" in check("expected-token-1", 1.0).message

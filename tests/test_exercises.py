"""Tests of ``specdec_course``: the checker, the answer forms, the registry, variants and the book.

Three parts:

* Unit tests of the checker and the answer forms, on test-only exercises
  registered by a fixture (and removed afterwards), so they do not depend on
  any chapter.
* Tests generated over the whole registry (every chapter's exercises are
  covered automatically): the reference and its rounding at the stated
  precision pass, every typical mistake is diagnosed and distinguishable from
  the answer, no wrong attempt reveals the expected value (in any rounding,
  as a percentage or as a fraction), odd inputs never raise, every exercise
  states its form, chapters are numbered as the book numbers them, variants
  check against their own references, no exercise repeats another.
* The book and the registry agree: the same labels, in the same order, each
  with a solution that checks it.

The answer-leak test (an exercise's answer must not appear in its chapter
before the exercise) is in ``tests/test_exercises_leaks.py``; grading is in
``tests/test_grading.py``.
"""

from __future__ import annotations

import builtins
import copy
import fractions
import html
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import time
import warnings

import book_toc
import numpy as np
import pytest

import specdec as sd
import specdec_course as course
from specdec_course import _core, _sandbox, _variants, instructors
from specdec_course._chapters import Chapter
from specdec_course._forms import Flag, Float, Function, Integer, Letter, Seq
from specdec_course._registry import LABEL_RE, REGISTRY, Exercise, Mistake, register

ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

ALL_LABELS = sorted(REGISTRY)
ALL_MISTAKES = [(label, m.name) for label in ALL_LABELS for m in REGISTRY[label].mistakes]
VARIANT_LABELS = [label for label in ALL_LABELS if REGISTRY[label].has_variants]
check = course.check


# ==========================================================================
# The book's chapters, read independently of the package
# ==========================================================================
def _toc_chapters() -> list[tuple[str, int | None]]:
    """(docname, number) of every chapter, numbered the way Jupyter Book does (scripts/book_toc.py, the one
    reader of the table of contents; tests/test_book_toc.py checks its rule on a table of its own)."""
    return [(c.docname, c.number) for c in book_toc.chapters(ROOT)]


CHAPTER_NUMBERS = dict(_toc_chapters())


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8")).get("cells", [])


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


_DIRECTIVE_RE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
                           r"(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)", re.MULTILINE)
_CHECK_RE = re.compile(r"""\bcourse\.check\(\s*(['"])(?P<label>[^'"]+)\1""")


def _directives(text):
    for m in _DIRECTIVE_RE.finditer(text + "\n"):
        label = re.search(r":label:[ \t]*(\S+)", m["opts"])
        yield m["name"], m["arg"].strip(), label.group(1) if label else None


def _book_notebooks():
    return [p for p in sorted(BOOK.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]


def _book_exercises() -> dict[str, list[tuple[str, str]]]:
    """{docname: [(label, directive name)]} in page order."""
    found = {}
    for path in _book_notebooks():
        docname = path.relative_to(ROOT).with_suffix("").as_posix()
        for cell in _cells(path):
            if cell.get("cell_type") != "markdown":
                continue
            for name, _arg, label in _directives(_source(cell)):
                if name in ("exercise", "exercise-start"):
                    found.setdefault(docname, []).append((label, name))
    return found


BOOK_EXERCISES = _book_exercises()


# ==========================================================================
# Test-only exercises (registered by a fixture, removed afterwards)
# ==========================================================================
TEST_A = Chapter("book/zz/test-a", "Test chapter A")
TEST_B = Chapter("book/zz/test-b", "Test chapter B")


def _ref_scalar(p=None):
    return float(sd.expected_tokens(0.8, 5))


def _ref_array(p=None):
    return sd.expected_tokens(np.array([0.5, 0.6, 0.7, 0.8]), 4)


def _ref_pair(p=None):
    return (float(sd.expected_tokens(0.8, 4)), 4)


def _ref_ragged(p=None):
    return (float(sd.expected_tokens(0.8, 4)), sd.expected_tokens(np.array([0.6, 0.7]), 3))


def _ref_function(alpha, k):
    return sd.expected_tokens(alpha, k)


def _forgot_bonus(alpha, k):
    return sd.expected_tokens(alpha, k) - 1.0


def _cases(rng):
    return [(0.8, 5), (0.5, 3)] + [(float(a), int(k)) for a, k in zip(rng.uniform(0.05, 0.95, 4),
                                                                       rng.integers(1, 9, 4), strict=True)]


_TOKENS = Float("tokens per round", decimals=3)

TEST_EXERCISES = (
    Exercise(label="zz-test-1", chapter=TEST_B, question="E[L] at alpha 0.8, k 5.", answer=_TOKENS,
             reference=_ref_scalar, hints=("Sum the geometric series.",),
             mistakes=(Mistake("forgot-bonus", lambda p: _ref_scalar() - 1.0, "You forgot the bonus token."),
                       Mistake("same-as-answer", _ref_scalar, "THIS MUST NEVER BE SHOWN"),
                       Mistake("raises", lambda p: 1 / 0, "NOR THIS"))),
    Exercise(label="zz-test-2", chapter=TEST_A, question="E[L] for four alphas.",
             answer=Seq((_TOKENS,) * 4, array=True), reference=_ref_array, hints=("Vectorize.",),
             mistakes=(Mistake("k-plus-one", lambda p: sd.expected_tokens(np.array([0.5, 0.6, 0.7, 0.8]), 5),
                               "You used k + 1 draft tokens."),)),
    Exercise(label="zz-test-3", chapter=TEST_A, question="(E[L], k).",
             answer=Seq((_TOKENS, Integer("a draft length")), names=("tokens", "k")), reference=_ref_pair,
             hints=("Two numbers.",), mistakes=(Mistake("swapped", lambda p: _ref_pair()[::-1], "Wrong order."),)),
    Exercise(label="zz-test-4", chapter=TEST_A, question="Write E[L](alpha, k).",
             answer=Function("expected(alpha, k)", returns=Float("tokens per round", rel=1e-9)),
             reference=_ref_function, hints=("Use the closed form.",), cases=_cases, n_visible=2,
             mistakes=(Mistake("forgot-bonus", _forgot_bonus, "You forgot the bonus token."),)),
    Exercise(label="zz-test-5", chapter=TEST_B, question="Which letter?", answer=Letter("ABC"),
             reference=lambda p: "b", hints=("Think about it.",),
             choices={"a": "first", "b": "second", "c": "third"},
             mistakes=(Mistake("picked-a", lambda p: "A", "Option A ignores the draft cost."),)),
    Exercise(label="zz-test-6", chapter=TEST_A, question="A number and an array.",
             answer=Seq((_TOKENS, Seq((_TOKENS,) * 2, array=True)), names=("scalar", "pair")),
             reference=_ref_ragged, hints=("A tuple.",),
             mistakes=(Mistake("first-off", lambda p: (_ref_ragged()[0] + 1.0, _ref_ragged()[1]),
                               "First value forgot something."),)),
    Exercise(label="zz-test-7", chapter=TEST_A, question="Broken reference.", answer=_TOKENS,
             reference=lambda p: 1 / 0, hints=("None.",), mistakes=(Mistake("m", lambda p: 1.0, "m"),)),
    Exercise(label="zz-test-8", chapter=TEST_A, question="Five flags.",
             answer=Seq((Flag(),) * 5, names=tuple("abcde")), reference=lambda p: (True, True, False, True, False),
             hints=("Flags.",), mistakes=(Mistake("all", lambda p: (True,) * 5, "Not all pass."),)),
    Exercise(label="zz-test-9", chapter=TEST_A, question="E[L] at alpha, k (with variants).",
             statement="E[L] at $\\alpha = {{alpha}}$ and $k = {{k}}$?", params={"alpha": 0.8, "k": 5},
             vary=lambda rng: {"alpha": float(rng.choice([0.6, 0.7, 0.9])), "k": int(rng.integers(2, 9))},
             answer=Float("tokens per round", decimals=2), reference=lambda p: float(sd.expected_tokens(p.alpha, p.k)),
             hints=("Sum.",), mistakes=(Mistake("forgot-bonus", lambda p: float(sd.expected_tokens(p.alpha, p.k)) - 1,
                                                "Bonus token."),)),
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
        _variants._draw.cache_clear()


# ==========================================================================
# The result object
# ==========================================================================
def test_result_is_truthy_only_when_passed(test_exercises):
    """bool(result) is result.passed, so `assert check(...)` works in an autograder."""
    good, bad = check("zz-test-1", _ref_scalar()), check("zz-test-1", _ref_scalar() * 2)
    assert good.passed is True and bool(good)
    assert bad.passed is False and not bool(bad)


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
    assert str(bad) == "[not yet] zz-test-1: Your answer is too high.\n  Hint: Sum the geometric series."
    assert check("zz-test-1", _ref_scalar()).hint == ""


def test_result_html_escapes_and_colours():
    """The HTML box escapes text and is green on success, red on failure."""
    result = course.CheckResult("x<1>", False, "a < b & c", "use <b>")
    text = result._repr_html_()
    assert "x&lt;1&gt;" in text and "a &lt; b &amp; c" in text and "use &lt;b&gt;" in text
    assert "specdec-check-fail" in text and "#c62828" in text
    assert "specdec-check-pass" in course.CheckResult("x", True, "ok")._repr_html_()


# ==========================================================================
# Precision: any answer correct to the stated precision passes
# ==========================================================================
@pytest.mark.parametrize("form, reference, accepted, rejected", [
    (Float(decimals=2), 1.1423, [1.14, 1.1423, 1.1449, 1.1373, np.float32(1.14), np.array([1.14])], [1.13, 1.15, 1.1]),
    (Float(decimals=3), 0.2770096, [0.277, 0.27701, 0.2775], [0.276, 0.278]),
    (Float(sig=2), 0.0033873, [0.0034, 0.00339, 0.003387], [0.0033, 0.0035, 0.003, 0.34]),
    (Float(sig=3), 153.016, [153.0, 153, 153.4], [152.4, 154.0]),
    (Float(rel=0.02), 0.05649, [0.0564, 0.0570, 0.0554], [0.0550, 0.0580]),
    (Integer(), 74, [74, 74.0, np.int64(74), np.array([74])], [73, 75, 74.3, True]),
])
def test_precision_is_half_a_unit_of_the_last_stated_digit(form, reference, accepted, rejected):
    """'to 2 decimals' accepts anything within 0.005 (rounded or not) and rejects the rest."""
    for answer in accepted:
        assert form.compare(answer, reference).ok, (form, answer)
    for answer in rejected:
        assert not form.compare(answer, reference).ok, (form, answer)


def test_the_rounded_reference_always_passes():
    """The reference rounded to its stated precision passes, at the rounding boundary too."""
    for value in (1.145, 2.675, 0.125, 1.0049999999, 3.2880859375, 1e-7, 123456.789):
        for d in range(0, 6):
            assert Float(decimals=d).compare(round(value, d), value).ok, (value, d)
            assert Float(decimals=d).compare(float(f"{value:.{d}f}"), value).ok, (value, d)
        for s in range(1, 6):
            assert Float(sig=s).compare(float(f"{value:.{s}g}"), value).ok, (value, s)


def test_too_few_decimals_is_told_without_the_answer():
    """An answer with fewer decimals than asked that is off says so."""
    result = Float(decimals=2).compare(1.1, 1.1423)
    assert not result.ok and result.reason == "too-low" and "Give it to 2 decimals" in result.text
    assert "1.14" not in result.text
    assert "Give it" not in Float(decimals=2).compare(1.3, 1.1423).text  # not a rounding of the answer


def test_units_slip_is_diagnosed():
    """A percentage for a fraction (or ms for s) is reported as off by a factor, not as 'too high'."""
    result = Float("a fraction", sig=2).compare(0.34, 0.0034)
    assert result.reason == "units" and "100 times too large" in result.text
    assert Float("in s", sig=3).compare(1.34e-6, 1.34e-3).reason == "units"


def test_issue_15_roundings_are_accepted():
    """The roundings the issue lists (1.14, 0.57, 2.76, 1.15, 0.0034) are accepted where they are right."""
    assert check("no-help-2", 1.14)
    assert check("checklist-4", 0.57)
    assert check("latency-throughput-1", 2.76)
    # Ex 3.1 and 6.4 now have other inputs (their old answers were on the page before them); their forms still
    # accept the issue's roundings of the old answers, and the roundings of the new ones pass
    assert REGISTRY["verification-cost-1"].form().accepts((1.15, True, 1.0), (6.0 / 5.2, True, 1.0))
    old_6_4 = float(sd.hardware.utilization(sd.hardware.LLAMA_70B, sd.hardware.H100_IDEAL.scaled(8), 1))
    assert REGISTRY["verification-pass-4"].form().accepts(0.0034, old_6_4)
    assert check("verification-cost-1", (1.24, True, 1.01))   # now on the calibrated model (c_v at batch 1: 1.01)
    assert check("verification-pass-4", 0.0065)


def test_count_question_has_an_integer_answer():
    """no-help-3 asks for a count: 8 passes; 9, 8.25 and 8.2 do not (8.25 is not a whole number)."""
    assert check("no-help-3", 8)
    assert check("no-help-3", 8.0)
    assert check("no-help-3", 9).reason == "mistake:first-not-slower"
    assert check("no-help-3", 8.25).reason == "not-integer"
    assert not check("no-help-3", 8.2)
    assert isinstance(instructors.reference("no-help-3"), int)


def test_flags_accept_booleans_lists_and_arrays():
    """Ex 5.1's natural answer, tuple(c.passed for c in ...), passes; so do 1/0, lists and arrays."""
    w = course.p1_checklist.CODE_COMPLETION
    natural = tuple(c.passed for c in sd.checklist.assess(w).checks)
    assert check("checklist-1", natural), check("checklist-1", natural)
    assert check("checklist-1", [int(x) for x in natural])
    assert check("checklist-1", np.array(natural))
    assert check("checklist-1", np.array(natural, dtype=int))
    assert not check("checklist-1", tuple(not x for x in natural))
    assert check("checklist-1", natural[:4]).reason == "wrong-shape"


# ==========================================================================
# Numeric answers: messages
# ==========================================================================
def test_numeric_scalar_too_high_and_too_low(test_exercises):
    """A wrong scalar is reported as too high or too low, nothing more."""
    ref = _ref_scalar()
    high, low = check("zz-test-1", ref * 1.2), check("zz-test-1", ref * 0.8)
    assert (high.reason, high.message) == ("too-high", "Your answer is too high.")
    assert (low.reason, low.message) == ("too-low", "Your answer is too low.")


def test_numeric_mistake_is_diagnosed(test_exercises):
    """An answer equal to a registered mistake gets that mistake's message."""
    result = check("zz-test-1", _ref_scalar() - 1.0)
    assert (result.passed, result.message, result.reason) == (False, "You forgot the bonus token.",
                                                              "mistake:forgot-bonus")


def test_mistake_equal_to_answer_or_raising_is_ignored(test_exercises):
    """A mistake that equals the reference or raises never produces its message."""
    assert check("zz-test-1", _ref_scalar()).message == "Correct."
    for answer in (0.0, 1.0, 99.0):
        text = str(check("zz-test-1", answer))
        assert "MUST NEVER" not in text and "NOR THIS" not in text


def test_array_shape_and_positions(test_exercises):
    """Arrays: wrong shape is named; wrong entries are counted and located, not shown."""
    ref = _ref_array()
    assert check("zz-test-2", ref) and check("zz-test-2", ref.tolist()) and check("zz-test-2", tuple(ref))
    short = check("zz-test-2", ref[:3])
    assert short.reason == "wrong-shape" and "(3,)" in short.message and "(4,)" in short.message
    assert check("zz-test-2", ref.reshape(4, 1)).reason == "wrong-shape"
    scalar = check("zz-test-2", 2.0)
    assert scalar.reason == "wrong-shape" and "single number" in scalar.message
    one_off = ref.copy()
    one_off[2] += 1
    result = check("zz-test-2", one_off)
    assert (result.reason, result.message) == ("too-high", "1 of 4 values in your answer is off (too high), at index 2.")
    mixed = ref.copy()
    mixed[0] += 1
    mixed[3] -= 1
    result = check("zz-test-2", mixed)
    assert result.reason == "mixed" and "1 too high and 1 too low" in result.message and "index 0" in result.message
    assert check("zz-test-2", sd.expected_tokens(np.array([0.5, 0.6, 0.7, 0.8]), 5)).message == \
        "You used k + 1 draft tokens."


def test_nan_is_reported_as_nan(test_exercises):
    """NaN in an answer is reported as NaN, not as too high/low."""
    assert check("zz-test-1", math.nan).reason == "nan"
    arr = _ref_array().copy()
    arr[1] = np.nan
    result = check("zz-test-2", arr)
    assert result.reason == "nan" and "1 of 4" in result.message


def test_tuples_lists_and_arrays_are_interchangeable(test_exercises):
    """A tuple form accepts a tuple, a list or an array; ragged tuples compare item by item."""
    assert check("zz-test-3", _ref_pair()) and check("zz-test-3", list(_ref_pair()))
    assert check("zz-test-3", np.array(_ref_pair()))
    assert check("zz-test-3", _ref_pair()[::-1]).message == "Wrong order."
    assert check("zz-test-3", (1.0,)).reason == "wrong-shape"
    assert check("zz-test-6", _ref_ragged())
    assert check("zz-test-6", [_ref_ragged()[0], list(_ref_ragged()[1])])
    assert check("zz-test-6", (_ref_ragged()[0], tuple(_ref_ragged()[1])))
    assert check("zz-test-6", (_ref_ragged()[0] + 1.0, _ref_ragged()[1])).message == "First value forgot something."
    second = check("zz-test-6", (_ref_ragged()[0], _ref_ragged()[1] * 2))
    assert second.reason == "too-high" and "value 2 (pair) of your answer" in second.message
    assert check("zz-test-6", (1.0, 2.0, 3.0)).reason == "wrong-shape"
    assert check("zz-test-6", 1.0).reason == "wrong-shape"
    flags = check("zz-test-8", (True, True, True, True, False))
    assert flags.reason == "wrong-flag" and flags.message == "1 of the 5 flags in your answer is not right."


@pytest.mark.parametrize("answer, words", [
    (None, "return"), ("1.23", "a string"), ({"a": 1}, "a dict"), ({1.0}, "a set"), (True, "a boolean"),
    (object(), "an object"), (1 + 2j, ""), ([1.0, "x"], ""), ([[1.0], [1.0, 2.0]], ""),
])
def test_numeric_wrong_types(test_exercises, answer, words):
    """Wrong types give a wrong-type (or wrong-shape) result naming the type, never an exception."""
    result = check("zz-test-1", answer)
    assert not result.passed and result.reason in ("wrong-type", "wrong-shape")
    assert words in result.message


def test_numeric_function_instead_of_value(test_exercises):
    """Passing a function to a numeric exercise says to call it."""
    result = check("zz-test-1", _ref_scalar)
    assert result.reason == "wrong-type" and "call it" in result.message


def test_broken_reference_never_raises(test_exercises):
    """A bug in an exercise (reference raises) is an internal-error result, not an exception."""
    result = check("zz-test-7", 1.0)
    assert not result.passed and result.reason == "internal-error" and "ZeroDivisionError" in result.message


# ==========================================================================
# Function exercises (and their time limit)
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
        return _ref_function(alpha, k) if (alpha, k) in ((0.8, 5), (0.5, 3)) else 0.0
    result = check("zz-test-4", almost)
    assert (result.reason, result.message) == ("hidden-case", "A hidden case failed (the example cases pass).")


def test_function_mistake_and_exceptions(test_exercises):
    """A known wrong implementation is named; exceptions are reported by type, hidden cases stay hidden."""
    assert check("zz-test-4", lambda alpha, k: sd.expected_tokens(alpha, k) - 1).message == "You forgot the bonus token."

    def boom(alpha, k):
        raise RuntimeError("kaboom")
    result = check("zz-test-4", boom)
    assert result.reason == "raised" and "RuntimeError: kaboom" in result.message and "alpha=0.8" in result.message
    assert "TypeError" in check("zz-test-4", lambda alpha: alpha).message

    def fails_later(alpha, k):
        if (alpha, k) in ((0.8, 5), (0.5, 3)):
            return _ref_function(alpha, k)
        raise ValueError("nope")
    hidden = check("zz-test-4", fails_later)
    assert hidden.reason == "raised" and hidden.message.startswith("On a hidden case") and "alpha=" not in hidden.message
    assert check("zz-test-4", 3.1).reason == "wrong-type"


def test_function_cannot_change_the_readers_session(test_exercises):
    """In the forked child a reader's function cannot change the caller's objects or the reference."""
    state = {"calls": 0}

    def mutating(alpha, k):
        state["calls"] += 1
        return _ref_function(alpha, k)
    assert check("zz-test-4", mutating)
    if _sandbox.MODE == "fork":
        assert state["calls"] == 0  # the calls happened in the child process


@pytest.mark.parametrize("mode", ["fork", "thread"] if _sandbox.MODE == "fork" else ["thread"])
def test_function_that_never_returns_times_out(test_exercises, monkeypatch, mode):
    """Issue 12 item 5: a function that never returns gives 'took longer than N s' within a bounded time."""
    monkeypatch.setattr(_sandbox, "MODE", mode)

    def forever(alpha, k):
        while True:
            pass
    start = time.perf_counter()
    result = check("zz-test-4", forever, time_limit=1.0)
    elapsed = time.perf_counter() - start
    assert not result.passed and result.reason == "timeout"
    assert "took longer than 1 s" in result.message and "alpha=0.8" in result.message
    assert elapsed < 5.0
    if mode == "thread":
        assert "still running in the background" in result.message


def test_function_that_kills_its_process_is_reported(test_exercises):
    """os._exit in a reader's function ends the child, not the reader's session."""
    if _sandbox.MODE != "fork":
        pytest.skip("only the forked mode isolates the process (the thread mode is tested above)")
    result = check("zz-test-4", lambda alpha, k: os._exit(3))
    assert result.reason == "crashed" and "exit code 3" in result.message


def test_time_limit_in_a_script():
    """The same bound holds in a plain script (a fresh interpreter)."""
    code = ("import time\nimport specdec_course as course\n"
            "def forever(alpha, k):\n    while True:\n        pass\n"
            "t = time.perf_counter()\n"
            "r = course.check('expected-tokens-5', forever, time_limit=1)\n"
            "print(r.passed, r.reason, round(time.perf_counter() - t, 1))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    passed, reason, seconds = done.stdout.split()
    assert (passed, reason) == ("False", "timeout") and float(seconds) < 5, done.stdout + done.stderr


def test_time_limit_in_a_notebook(tmp_path):
    """And in a Jupyter kernel (a notebook executed by nbclient)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import time\nimport specdec_course as course\n"
        "def forever(alpha, k):\n    while True:\n        pass\n"
        "t = time.perf_counter()\n"
        "r = course.check('expected-tokens-5', forever, time_limit=1)\n"
        "print(r.passed, r.reason, round(time.perf_counter() - t, 1))")]
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    passed, reason, seconds = text.split()
    assert (passed, reason) == ("False", "timeout") and float(seconds) < 5
    assert not any(o.get("name") == "stderr" for o in nb.cells[0].outputs), "no warning in the notebook"


# ==========================================================================
# Choice exercises
# ==========================================================================
@pytest.mark.parametrize("answer", ["b", "B", " b ", "(b)", "b."])
def test_choice_accepts_letter_in_any_case(test_exercises, answer):
    assert check("zz-test-5", answer)


def test_choice_invalid_wrong_and_mistake(test_exercises):
    result = check("zz-test-5", "e")
    assert result.reason == "invalid-choice" and "A, B, C" in result.message
    assert check("zz-test-5", 2).reason == "wrong-type" and check("zz-test-5", None).reason == "wrong-type"
    assert check("zz-test-5", "c").message == "C is not the right option."
    assert check("zz-test-5", "a").message == "Option A ignores the draft cost."


# ==========================================================================
# Labels, registry access and listing
# ==========================================================================
def test_unknown_label_lists_close_labels(test_exercises):
    result = check("zz-tset-1", 1.0)
    assert not result.passed and result.reason == "unknown-label"
    assert result.message.startswith("No exercise is labelled 'zz-tset-1'.") and "'zz-test-1'" in result.message
    assert "course.list()" in check("completely-unrelated-label", 1.0).message


def test_bad_label_type_missing_answer_and_bad_seed(test_exercises):
    assert check(0.8, 1.0).reason == "unknown-label"
    assert check("zz-test-1").reason == "no-answer"
    assert check("zz-test-1", 1.0, seed=3).reason == "no-variants"
    assert check("zz-test-9", 1.0, seed=-1).reason == "bad-seed"
    assert check("zz-test-9", 1.0, seed=1.5).reason == "bad-seed"
    assert check("zz-test-9", 1.0, seed="").reason == "bad-seed"


def test_get_returns_no_answer(test_exercises):
    """get() describes an exercise without its reference or mistakes; the instructors' module has them."""
    info = course.get("zz-test-1")
    assert isinstance(info, course.ExerciseInfo)
    assert (info.label, info.kind, info.form, info.hints) == ("zz-test-1", "numeric",
                                                               "a float, tokens per round, to 3 decimals",
                                                               ("Sum the geometric series.",))
    assert not hasattr(info, "reference") and not hasattr(info, "mistakes")
    assert instructors.reference("zz-test-1") == _ref_scalar()
    with pytest.raises(KeyError, match="zz-test-1"):
        course.get("zz-test-01")
    with pytest.raises(TypeError, match="label"):
        course.get(1)
    assert course.hints("zz-test-1") == ["Sum the geometric series."]


def test_readers_api_does_not_advertise_answers():
    """course' public names (what the API page documents) hand out no answers."""
    public = set(course.__all__)
    assert {"check", "describe", "variant", "list", "get", "labels", "hints"} <= public
    assert not public & {"REGISTRY", "Exercise", "Mistake", "register", "instructors", "reference"}
    for name in public:
        doc = getattr(course, name).__doc__ or ""
        assert "reference()" not in doc and "instructors" not in doc, name
    assert "instructors" not in (course.__doc__ or "") and "reference(" not in (course.__doc__ or "")
    variant = course.variant(VARIANT_LABELS[0], 1)
    assert not any(hasattr(variant, name) for name in ("reference", "answer", "expected"))


def test_register_rejects_duplicates_and_bad_exercises(test_exercises):
    with pytest.raises(ValueError, match="twice"):
        register(TEST_EXERCISES[0])
    with pytest.raises(ValueError, match="slug"):
        register(Exercise(label="Bad_Label", chapter=TEST_A, question="q", answer=_TOKENS, reference=_ref_scalar,
                          hints=("h",)))
    with pytest.raises(KeyError, match="nope"):
        register(Exercise(label="zz-test-99", chapter=TEST_A, question="q", answer=_TOKENS, reference=_ref_scalar,
                          hints=("h",), statement="{{nope}}"))


def test_list_numbers_chapters_as_the_book_does(test_exercises):
    """list(): 'Chapter 6. ...' and exercise '6.2' where the book shows them; chapters outside the book last."""
    table = course.list()
    by_label = {row.label: row for row in table}
    for label, exercise in REGISTRY.items():
        number = CHAPTER_NUMBERS.get(exercise.chapter.docname)
        if number is None:
            continue
        assert by_label[label].number == f"{number}.{exercise.position}"
        assert by_label[label].chapter.startswith(f"Chapter {number}. ")
    assert "Part II" not in repr(table) and "·" not in repr(table)
    assert [row.label for row in table if row.label.startswith("zz-")] == [
        "zz-test-2", "zz-test-3", "zz-test-4", "zz-test-6", "zz-test-7", "zz-test-8", "zz-test-9",
        "zz-test-1", "zz-test-5"]
    assert "<table" in table._repr_html_() and course.labels() == [row.label for row in table]
    assert course.list is course.list_exercises
    assert builtins.list((1, 2)) == [1, 2]


def test_broken_chapter_module_is_reported(monkeypatch):
    """A chapter module that fails to import warns and is recorded, without breaking the others."""
    import specdec_course as ex

    class Info:
        name = "p9_broken"

    def fake_import(name, package=None):
        raise SyntaxError("bad chapter")
    monkeypatch.setattr(ex.pkgutil, "iter_modules", lambda path: [Info()])
    monkeypatch.setattr(ex.importlib, "import_module", fake_import)
    try:
        with pytest.warns(RuntimeWarning, match="p9_broken"):
            ex._import_chapter_modules()
        assert "p9_broken" in ex.IMPORT_ERRORS
        assert "failed to import: p9_broken" in check("nope-1", 1.0).message
    finally:
        ex.IMPORT_ERRORS.pop("p9_broken", None)


# ==========================================================================
# Every registered exercise (generated over the registry)
# ==========================================================================
def test_chapter_modules_import_cleanly():
    assert course.IMPORT_ERRORS == {}
    assert len(REGISTRY) >= 50


@pytest.mark.parametrize("label", ALL_LABELS)
def test_exercise_is_well_formed(label):
    """Label, chapter in _toc.yml, kind, hints, mistakes, a stated form; cases and choices where needed."""
    exercise = REGISTRY[label]
    assert LABEL_RE.match(label)
    assert exercise.chapter.docname in CHAPTER_NUMBERS, f"{label}: chapter {exercise.chapter.docname} not in _toc.yml"
    slugs = {LABEL_RE.match(other)["slug"] for other, e in REGISTRY.items() if e.chapter == exercise.chapter}
    assert slugs == {LABEL_RE.match(label)["slug"]}, f"{label}: one slug per chapter, got {slugs}"
    assert exercise.kind in ("numeric", "function", "choice")
    assert exercise.question.strip() and len(exercise.hints) >= 1 and all(h.strip() for h in exercise.hints)
    assert len(exercise.mistakes) >= 1 and len({m.name for m in exercise.mistakes}) == len(exercise.mistakes)
    form = exercise.form()
    assert form.describe().strip()
    if exercise.kind == "function":
        cases = _core.exercise_cases(exercise)
        assert len(cases) >= 2 and 0 <= exercise.n_visible <= len(cases)
    if exercise.kind == "choice":
        assert exercise.choices and len(exercise.choices) >= 2
        assert str(exercise.reference(exercise.inputs())).strip().upper() in {c.upper() for c in exercise.choices}
    if exercise.kind == "numeric":
        for _path, _value, item in form.values(exercise.reference(exercise.inputs())):
            assert isinstance(item, (Float, Integer, Flag)), f"{label}: every value has a stated form"
            if isinstance(item, Float):
                assert item.precision(), label


def _answer(exercise, params=None):
    params = exercise.inputs() if params is None else params
    return exercise.reference if exercise.kind == "function" else exercise.reference(params)


def _rounded(form, value):
    """The reference as a reader would round it at the stated precision."""
    if isinstance(form, Seq):
        return tuple(_rounded(item, v) for item, v in zip(form.items, list(value), strict=True))
    if isinstance(form, Float):
        if form.decimals is not None:
            return round(float(value), form.decimals)
        if form.sig is not None:
            return float(f"{float(value):.{form.sig}g}")
        return float(f"{float(value):.3g}")
    if isinstance(form, Integer):
        return int(value)
    return value


@pytest.mark.parametrize("label", ALL_LABELS)
def test_reference_and_its_rounding_pass(label):
    """The reference passes, and so does the reference rounded to the stated precision."""
    exercise = REGISTRY[label]
    result = check(label, _answer(exercise))
    assert result.passed and result.message.startswith("Correct"), str(result)
    if exercise.kind == "numeric":
        rounded = _rounded(exercise.form(), exercise.reference(exercise.inputs()))
        assert check(label, rounded), f"{label}: {rounded!r} (the rounded reference) fails: {check(label, rounded)}"


@pytest.mark.parametrize("label, name", ALL_MISTAKES)
def test_each_mistake_fails_with_its_message(label, name):
    """Each typical wrong answer fails and earns its own message (so it differs from the answer at the
    stated precision)."""
    exercise = REGISTRY[label]
    mistake = next(m for m in exercise.mistakes if m.name == name)
    answer = mistake.compute if exercise.kind == "function" else mistake.compute(exercise.inputs())
    result = check(label, answer)
    assert not result.passed, f"mistake {name!r} of {label!r} is judged correct"
    assert (result.message, result.reason) == (mistake.message, f"mistake:{name}"), str(result)


@pytest.mark.parametrize("label", ALL_LABELS)
def test_describe_states_the_call_and_the_form(label):
    """describe(label) is the exact check call with the label and the answer's form."""
    exercise = REGISTRY[label]
    text = course.describe(label)
    assert text.startswith(f'Check your answer: course.check("{label}", ')
    assert text.endswith(f": {exercise.form().describe()}.")
    assert course.get(label).form == exercise.form().describe()
    form = exercise.form()
    if isinstance(form, (Float, Seq)) and exercise.kind == "numeric":
        values = form.values(exercise.reference(exercise.inputs()))
        if any(isinstance(f, Float) for _p, _v, f in values):
            assert re.search(r"decimal|significant digit|within \d", text), f"{label}: no precision stated: {text}"
    if exercise.kind == "choice":
        assert "a letter" in text and "as a string" in text
    if exercise.kind == "function":
        assert "the function itself" in text


# --- the expected value never appears in the output of a wrong attempt ----
def _numbers(value):
    if isinstance(value, (tuple, builtins.list)):
        return [x for item in value for x in _numbers(item)]
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return []
    return [float(x) for x in arr.ravel()]


def _is_small_integer_text(form):
    try:
        value = float(form.rstrip("%"))
    except ValueError:
        return False
    return value.is_integer() and abs(value) < 100


def _formats(x):
    """Ways an expected value could be printed: repr, 2-6 significant digits, a percentage, a fraction."""
    if not math.isfinite(x) or (float(x).is_integer() and abs(x) < 100):
        return set()  # small integers appear legitimately in any text (indices, shapes, k)
    forms = {repr(x), str(np.float64(x)), str(np.float32(x))}
    for digits in range(2, 7):
        forms.add(f"{x:.{digits}g}")
        forms.add(np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="-"))
        forms.add(f"{x * 100:.{digits}g}%")
    for digits in range(0, 4):
        forms.add(f"{x * 100:.{digits}f}%")
    frac = fractions.Fraction(x).limit_denominator(50)
    if frac.denominator > 1 and abs(float(frac) - x) < 1e-9 * max(1.0, abs(x)):
        forms.add(f"{frac.numerator}/{frac.denominator}")
    return {f for f in forms if not _is_small_integer_text(f)}


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


def _html_text(markup):
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def _strip_case_inputs(text, exercise):
    for case in _core.exercise_cases(exercise)[: exercise.n_visible]:
        text = text.replace(_core.describe_case(exercise.reference, case), "")
    return text


def _assert_no_leak(label):
    exercise = REGISTRY[label]
    params = exercise.inputs()
    if exercise.kind == "choice":
        letter = str(exercise.reference(params)).strip().upper()
        right = str(exercise.choices[next(c for c in exercise.choices if c.upper() == letter)])
        for answer in [c.upper() for c in exercise.choices if c.upper() != letter] + ["zz", None, 3]:
            result = check(label, answer)
            assert not result.passed and right not in str(result)
            listed = ", ".join(sorted(c.upper() for c in exercise.choices))
            assert not re.search(rf"\b{letter}\b(?! *,)", result.message.replace(listed, "")), str(result)
        return
    if exercise.kind == "numeric":
        expected = exercise.reference(params)
        secrets = _numbers(expected)
        attempts = []
        for mistake in exercise.mistakes:
            try:
                attempts.append(mistake.compute(params))
            except Exception:
                pass
        attempts += [_perturbed(expected, 1.37, 0.11), _perturbed(expected, 0.61, -0.07),
                     _perturbed(expected, -1.0, 3.0), _perturbed(expected, 100.0, 0.0), _perturbed(expected, 0.001, 0),
                     None, "abc", [], {}, object(), (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0), math.nan, 1.1]
    else:
        cases = _core.exercise_cases(exercise)
        secrets = [x for case in cases for x in _numbers(exercise.reference(*copy.deepcopy(case)))]
        ref = exercise.reference

        def scaled(*args):
            return _perturbed(ref(*args), 1.37, 0.11)

        def raises(*args):
            raise ValueError("reader bug")
        attempts = [m.compute for m in exercise.mistakes] + [scaled, raises, lambda *a: "abc", lambda *a: None,
                                                              lambda *a: 0.0]
    for answer in attempts:
        result = check(label, answer)
        if result.passed:
            continue
        for shown in (str(result), _html_text(result._repr_html_())):
            if exercise.kind == "function":
                shown = _strip_case_inputs(shown, exercise)
            for x in secrets:
                found = _has_number(shown, x)
                assert found is None, f"{label}: output reveals the expected value as {found!r}: {result}"


@pytest.mark.parametrize("label", ALL_LABELS)
def test_wrong_answer_output_does_not_reveal_expected(label):
    """On wrong attempts, neither text nor HTML contains the expected value (rounded, %, fraction)."""
    _assert_no_leak(label)


def _assert_odd_answers_fail_quietly(label):
    def raises(*args, **kwargs):
        raise RuntimeError("reader bug")
    odd = [None, "abc", "", [], {}, set(), object(), raises, lambda *a, **k: "abc", lambda *a, **k: None,
           math.nan, math.inf, -1e308, True, 1 + 1j, np.array([]), [[1.0], [2.0, 3.0]]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker must not emit warnings either
        for answer in odd:
            result = check(label, answer)
            assert isinstance(result, course.CheckResult)
            assert not result.passed, f"{label}: {answer!r} passed"
            assert result.reason != "internal-error", str(result)
            assert str(result) and result._repr_html_()


@pytest.mark.parametrize("label", ALL_LABELS)
def test_odd_answers_never_raise(label):
    """None, strings, empty containers, objects and crashing functions give a failed result."""
    _assert_odd_answers_fail_quietly(label)


@pytest.mark.parametrize("label", ["zz-test-1", "zz-test-2", "zz-test-3", "zz-test-4", "zz-test-5", "zz-test-6"])
def test_generic_registry_checks_on_test_exercises(test_exercises, label):
    """The generic per-exercise checks work on every kind (so they can fail on a chapter's exercise)."""
    _assert_no_leak(label)
    _assert_odd_answers_fail_quietly(label)


def test_leak_detector_detects_a_leak(test_exercises):
    """The detector flags a value printed with 2 to 6 significant digits, as a percentage or a fraction."""
    x = _ref_scalar()
    for digits in range(2, 7):
        assert _has_number(f"close to {x:.{digits}g}!", x)
    assert _has_number(f"got {x!r}", x)
    assert _has_number("that is 33.9% of the peak", 0.339)
    assert _has_number("normalizing gives 2/3", 2 / 3)
    assert _has_number(str(check("zz-test-1", 100.0)), x) is None
    assert _has_number("index 4 of 5", 4.0) is None


# ==========================================================================
# Each exercise checks what it asks; no exercise repeats another
# ==========================================================================
def test_multi_part_questions_check_every_part():
    """Ex 3.1 asks three things and checks three; Ex 7.2 checks the interval width too."""
    ratio, inside, roofline = instructors.reference("verification-cost-1")
    assert check("verification-cost-1", (ratio, inside, roofline))
    assert not check("verification-cost-1", (ratio, not inside, roofline))
    assert not check("verification-cost-1", (ratio, inside, roofline + 1))
    alpha, width = instructors.reference("acceptance-rate-2")
    fit = sd.estimation.estimate_alpha(course.p2_acceptance_rate.SHORT_LOG, 4)
    assert alpha == pytest.approx(27 / 32) and width == pytest.approx(fit.high - fit.low)
    assert not check("acceptance-rate-2", (alpha, width * 2))


def test_no_exercise_repeats_another():
    """No two exercises have the same inputs and the same answer (Ex 7.3 and 14.1 were the same question)."""
    seen = {}
    for label in ALL_LABELS:
        exercise = REGISTRY[label]
        if exercise.kind != "numeric" or not exercise.params:
            continue
        key = (json.dumps({k: v for k, v in exercise.params.items()}, sort_keys=True, default=str),
               exercise.form().format(exercise.reference(exercise.inputs())))
        assert key not in seen, f"{label} repeats {seen[key]}"
        seen[key] = label
    questions = [REGISTRY[label].question for label in ALL_LABELS]
    assert len(set(questions)) == len(questions)


# ==========================================================================
# Variants
# ==========================================================================
def test_numeric_exercises_of_parts_one_and_two_have_variants():
    """Every numeric exercise of chapters 1 to 11 can make per-student variants."""
    missing = [label for label, e in REGISTRY.items() if e.kind == "numeric"
               and (CHAPTER_NUMBERS.get(e.chapter.docname) or 99) <= 11 and not e.has_variants]
    assert not missing, f"numeric exercises of Parts I and II without variants: {missing}"


def test_numeric_exercises_of_start_here_and_part_four_have_variants():
    """And so does every numeric exercise of the unnumbered "Start here" chapter and of Part IV (chapters 16-21)."""
    missing = [label for label, e in REGISTRY.items() if e.kind == "numeric" and e.chapter.docname in CHAPTER_NUMBERS
               and ((CHAPTER_NUMBERS[e.chapter.docname] or 0) >= 16 or CHAPTER_NUMBERS[e.chapter.docname] is None)
               and not e.has_variants]
    assert not missing, f"numeric exercises of Start here and Part IV without variants: {missing}"


def test_start_here_is_listed_first_and_numbered_as_its_boxes():
    """ "Start here" (unnumbered, before Part I in _toc.yml) comes first in list(); its boxes read "Exercise 1", ...;
    a chapter number selects only that chapter (never the unnumbered one); Part IV is chapters 16-21."""
    from specdec_course._grade import select_labels
    unnumbered = [docname for docname, number in _toc_chapters() if number is None and docname in
                  {e.chapter.docname for e in REGISTRY.values()}]
    assert unnumbered == ["book/start/decide-for-your-service"]
    table = course.list()
    first = [row for row in table if row.label.startswith("decide-for-your-service-")]
    assert list(table[:len(first)]) == first and [row.number for row in first] == ["1", "2", "3", "4"]
    assert first[0].chapter == "Start here: Decide for your service"
    assert select_labels("1") == [label for label in course.labels() if label.startswith("expected-tokens-")]
    assert select_labels("decide-for-your-service-*") == [row.label for row in first]
    part4 = sorted({REGISTRY[label].chapter.number for label in REGISTRY if label.split("-")[0] in
                    ("calibrated", "engine", "verification", "token", "dynamic", "goodput")
                    and REGISTRY[label].chapter.docname.startswith("book/part4-engines/")})
    assert part4 == [16, 17, 18, 19, 20, 21]


@pytest.mark.parametrize("label", VARIANT_LABELS)
def test_variants_differ_by_seed_and_state_their_inputs(label):
    """Different seeds give different inputs (none the book's); the statement is rendered Markdown."""
    exercise = REGISTRY[label]
    variants = [course.variant(label, seed) for seed in range(10)]
    distinct = {json.dumps(dict(v.params), sort_keys=True, default=str) for v in variants}
    assert len(distinct) >= 3, f"{label}: only {len(distinct)} different variants among 10 seeds"
    assert all(dict(v.params) != dict(exercise.params) for v in variants)
    for v in variants[:3]:
        assert "{{" not in v.statement and v.statement.strip()
        assert f'seed={v.seed})' in v.describe()
    again = course.variant(label, 3)
    assert again.params == variants[3].params and again.statement == variants[3].statement
    assert course.variant(label, "7").params == variants[7].params   # a roster's "7" is the seed 7


_SAMPLE_SEEDS = [0, 1, 17, 123456, "s1234", "alice@example.org"]


@pytest.mark.parametrize("label", VARIANT_LABELS)
def test_variant_accepts_its_own_reference_and_rejects_a_wrong_value(label):
    """For a sample of seeds: the variant's reference passes (check(seed=) and .check), a wrong value fails."""
    exercise = REGISTRY[label]
    for seed in _SAMPLE_SEEDS:
        v = course.variant(label, seed)
        expected = exercise.reference(v.params)
        assert check(label, expected, seed=seed), f"{label} seed {seed!r}: {check(label, expected, seed=seed)}"
        assert v.check(expected)
        assert v.check(_rounded(exercise.form(v.params), expected))
        wrong = _perturbed(expected, 1.37, 0.11) if not _is_flags(exercise, v.params) else \
            tuple(not x for x in expected)
        if isinstance(exercise.form(v.params), Integer):
            wrong = int(expected) + 3
        assert not check(label, wrong, seed=seed), f"{label} seed {seed!r}: a wrong value passed"
        assert not check(label, None, seed=seed)


def _is_flags(exercise, params):
    form = exercise.form(params)
    return isinstance(form, Seq) and all(isinstance(i, Flag) for i in form.items)


def test_book_answer_does_not_pass_a_variant_that_differs():
    """A student who copies the book's answer fails their variant when the answers differ."""
    for label in VARIANT_LABELS:
        exercise = REGISTRY[label]
        book = exercise.reference(exercise.inputs())
        for seed in range(5):
            v = course.variant(label, seed)
            theirs = exercise.reference(v.params)
            if not exercise.form(v.params).accepts(book, theirs):
                assert not v.check(book)
                break


def test_exercises_without_variants_say_so():
    label = next(label for label, e in REGISTRY.items() if e.kind == "choice")
    with pytest.raises(ValueError, match="no variants"):
        course.variant(label, 1)
    assert check(label, "A", seed=1).reason == "no-variants"


def test_handout_and_answer_key():
    """A keyed handout states each graded variant; the key lists every exercise with its formatted answer,
    and a student's key needs the course key and the roster."""
    from specdec_course._course import Roster
    from specdec_course._variants import CourseKey, keyed_inputs
    course_key, roster = CourseKey(bytes(range(32))), Roster.of(["s1234", "s5678"])
    sheet = instructors.handout("1.1,1.5,4.3", "s1234", course_key=course_key, roster=roster)
    params = keyed_inputs(REGISTRY["expected-tokens-1"], course_key, 0)
    assert "## Exercise 1.1 (1 point)" in sheet and "## Exercise 1.5" in sheet and "{{" not in sheet
    assert f"$\\alpha = {params['alpha']:g}$ and $k = {params['k']}$" in sheet
    assert 'course.assignment("sdx1.' in sheet and "seed=" not in sheet
    key = instructors.answer_key()
    assert [row[1] for row in key] == course.labels()
    row = next(r for r in key if r[1] == "expected-tokens-1")
    assert row[4] == "3.29" and row[3] == "a float, tokens per round, to 2 decimals"
    mine = instructors.answer_key("1.1", seed="s1234", course_key=course_key, roster=roster)[0][4]
    assert mine == REGISTRY["expected-tokens-1"].form().format(REGISTRY["expected-tokens-1"].reference(params))
    assert mine == instructors.formatted_reference("expected-tokens-1", "s1234", course_key=course_key, roster=roster)
    with pytest.raises(ValueError, match="course key"):
        instructors.answer_key("1.1", seed=5)
    assert "| 1.1 | `expected-tokens-1` |" in key.to_markdown()


# ==========================================================================
# The book and the registry agree (no orphan exercises)
# ==========================================================================
def test_every_book_exercise_is_registered_and_every_registered_one_is_in_the_book():
    labels = [label for items in BOOK_EXERCISES.values() for label, _ in items]
    assert all(labels), "an exercise directive has no :label:"
    missing = sorted(set(labels) - set(REGISTRY))
    orphans = sorted(set(REGISTRY) - set(labels))
    assert not missing, f"exercise boxes without a registry entry: {missing}"
    assert not orphans, f"registered exercises no exercise box shows: {orphans}"
    assert len(labels) == len(set(labels)), "a label is used by several exercise boxes"


def test_book_exercises_are_in_their_chapter_in_label_order():
    """Each label's box is in its registered chapter, in the order of the label numbers (the book's numbering)."""
    for docname, items in BOOK_EXERCISES.items():
        labels = [label for label, _ in items]
        for label in labels:
            assert REGISTRY[label].chapter.docname == docname, f"{label} is in {docname}"
        assert [REGISTRY[label].position for label in labels] == list(range(1, len(labels) + 1)), docname


def test_every_book_exercise_has_a_checked_solution():
    """Each exercise has a solution in the same page whose code calls check(label) and stored 'correct'
    (nbval proves that the stored output is what the solution gives today)."""
    for path in _book_notebooks():
        cells = _cells(path)
        md = [_source(c) for c in cells if c.get("cell_type") == "markdown"]
        code = [c for c in cells if c.get("cell_type") == "code"]
        labels, solutions = [], []
        for text in md:
            for name, arg, label in _directives(text):
                if name in ("exercise", "exercise-start"):
                    labels.append(label)
                if name in ("solution", "solution-start"):
                    solutions.append(arg)
        for label in labels:
            assert label in solutions, f"{path.name}: exercise {label!r} has no solution directive"
            calls = [c for c in code if re.search(r"""\bcourse\.check\(\s*['"]""" + re.escape(label) + r"""['"]""",
                                                  _source(c))]
            assert calls, f"{path.name}: no code cell calls course.check({label!r}, ...)"
            stored = " ".join(_output_text(o) for c in calls for o in c.get("outputs", []))
            assert f"[correct] {label}:" in stored, f"{path.name}: the stored output of {label!r}'s check is not 'correct'"


def _output_text(output):
    text = output.get("text") or output.get("data", {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else str(text)


def test_check_calls_in_the_book_use_registered_labels():
    bad = []
    for path in _book_notebooks():
        for cell in _cells(path):
            if cell.get("cell_type") == "code":
                bad += [(path.name, m["label"]) for m in _CHECK_RE.finditer(_source(cell)) if m["label"] not in REGISTRY]
    assert not bad, f"check() calls with unknown labels: {bad}"


def test_instructors_page_examples_are_real_output():
    """The feedback shown on the instructors' page is what check prints today."""
    page = (BOOK / "appendix" / "instructors.md").read_text(encoding="utf-8")
    exercise = REGISTRY["expected-tokens-1"]
    mistake = next(m for m in exercise.mistakes if m.name == "forgot-bonus")
    assert str(check("expected-tokens-1", mistake.compute(exercise.inputs()))) in page
    assert str(check("expected-tokens-1", exercise.reference(exercise.inputs()))) in page
    assert course.describe("expected-tokens-1").replace('course.check("expected-tokens-1", answer)',
                                                              '`course.check("expected-tokens-1", answer)`') in page
    assert "{specdec-answer-key}" in page and "specdec_course.instructors" in page


def test_a_sympy_or_fraction_answer_counts_as_its_number():
    """Worked in sympy (expected-tokens-6 is a sympy exercise), the answer need not be cast by hand."""
    import fractions

    import sympy as sp

    from specdec_course import instructors

    exact = instructors.reference("expected-tokens-1")          # 3.2880859375, a dyadic fraction
    for answer in (sp.Float(exact), sp.nsimplify(exact), fractions.Fraction(exact)):
        assert str(course.check("expected-tokens-1", answer)).startswith("[correct]"), type(answer)
    assert "Your answer is a Symbol" in str(course.check("expected-tokens-1", sp.Symbol("alpha")))
    assert "too high" in str(course.check("expected-tokens-1", sp.Float(exact) + 1))

"""The form of an answer: its type, units and precision, and how an answer is compared with it.

Every exercise declares the form of its answer with one of these classes,
and everything a reader or an instructor is told about the answer comes from
that one declaration:

* the line under each exercise box in the book, "Check your answer:
  ``course.check(...)``: a float, tokens per round, to 2 decimals"
  (a Sphinx transform writes it in both editions; ``course.describe``
  returns it in a notebook);
* the tolerance of the checker, which accepts any answer correct to the
  stated precision: within half a unit of the last stated digit (an answer
  "to 2 decimals" may be off by at most 0.005, so 1.14 and 1.1423 both pass
  when the reference is 1.1423);
* the answer key's formatting of the reference.

``Float(units, decimals=2)``, ``Float(units, sig=3)`` (significant digits) or
``Float(units, rel=0.02)`` (within 2 %); ``Integer(units)`` (a count or an
index: compared exactly); ``Flag(units)`` (True/False, 1/0 accepted);
``Letter("ABCD")``; ``Seq((form, ...), names=(...))`` (a tuple, list or array:
they are interchangeable) and ``Function(signature, returns)``.

Nothing here knows about speculative decoding. The messages of
:meth:`Form.compare` never contain the expected value.
"""

from __future__ import annotations

import builtins
import math
import numbers
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Form", "Float", "Integer", "Flag", "Letter", "Seq", "Function", "Verdict"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of comparing one answer with one reference (internal)."""

    ok: bool
    reason: str
    text: str


CORRECT = Verdict(True, "correct", "Correct.")


# --------------------------------------------------------------------------
# Describing readers' values without showing them
# --------------------------------------------------------------------------
def type_name(value: Any) -> str:
    """'a string', 'None', 'a dict', 'a function', ... for messages."""
    if value is None:
        return "None"
    recorded = getattr(value, "specdec_type_name", None)  # an answer the grader recorded by its type only
    if isinstance(recorded, str):
        return recorded
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


def short_repr(value: Any, limit: int = 60) -> str:
    """A one-line repr of a reader's value, without memory addresses."""
    try:
        if isinstance(value, np.ndarray):
            text = np.array2string(value, separator=", ", threshold=8, max_line_width=10_000)
            text = f"array({text})"
        else:
            text = repr(value)
    except Exception:  # a reader object whose repr raises
        text = f"<{type(value).__name__} object>"
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _plural(word: str, n: int) -> str:
    return word if n == 1 else word + "s"


def _real(value: Any) -> float | None:
    """``value`` as a float if it is one real number (not a bool, string, ...), else None."""
    if value is None or isinstance(value, (bool, np.bool_, str, bytes, dict, set, frozenset)):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    # a Fraction, or a sympy number (Float, Rational, Integer register as numbers.Real; an exact expression
    # such as sqrt(2) says is_number and is_real): worked in sympy, the answer need not be cast by hand
    if isinstance(value, numbers.Real) or (getattr(value, "is_number", None) is True
                                           and getattr(value, "is_real", None) is True):
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    if callable(value) and not isinstance(value, np.ndarray):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arr = np.asarray(value)
    except Exception:
        return None
    if arr.size != 1 or arr.dtype.kind not in "iuf":
        return None
    return float(arr.reshape(()))


def _decimals_given(value: Any) -> int | None:
    """How many decimals a reader typed (from the shortest repr of a float), or None."""
    if not isinstance(value, (float, np.floating)) or not math.isfinite(float(value)):
        return None
    text = repr(float(value))
    if "e" in text or "E" in text:
        return None
    return len(text.split(".")[1]) if "." in text else 0


def _as_sequence(value: Any) -> list | None:
    """A tuple, list or 1-d (or deeper) array as a list of its items; None otherwise."""
    if isinstance(value, (tuple, builtins.list)):
        return builtins.list(value)
    if isinstance(value, np.ndarray):
        return builtins.list(value) if value.ndim >= 1 else None
    return None


# --------------------------------------------------------------------------
# Forms
# --------------------------------------------------------------------------
class Form:
    """Base class of answer forms (see the module docstring)."""

    def describe(self) -> str:
        """The form as a noun phrase: "a float, tokens per round, to 2 decimals"."""
        raise NotImplementedError

    def noun(self) -> str:
        """The form without its precision: "a float, tokens per round"."""
        return self.describe()

    def plural(self, n: int) -> str:
        """``n`` values of this form: "4 floats, probabilities, each to 3 decimals"."""
        return f"{n} values, each {self.describe()}"

    def compare(self, answer: Any, expected: Any, what: str = "your answer") -> Verdict:
        """Compare a reader's answer with the reference; the text never shows the reference."""
        raise NotImplementedError

    def format(self, value: Any) -> str:
        """The reference as the answer key prints it (at the stated precision)."""
        return str(value)

    def accepts(self, answer: Any, expected: Any) -> bool:
        """True when ``compare`` passes; never raises."""
        try:
            return self.compare(answer, expected).ok
        except Exception:
            return False

    def values(self, expected: Any) -> list[tuple[str, Any, Form]]:
        """``(path, value, form)`` of every scalar inside a reference (for the answer-leak test)."""
        return [("", expected, self)]


def _with_units(noun: str, units: str) -> str:
    return f"{noun}, {units}" if units else noun


@dataclass(frozen=True)
class Float(Form):
    """A real number, with its units and precision (exactly one of ``decimals``, ``sig``, ``rel``).

    ``decimals=2``: correct to 2 decimals (within 0.005). ``sig=3``: to 3
    significant digits. ``rel=0.02``: within 2 % of the reference.
    """

    units: str = ""
    decimals: int | None = None
    sig: int | None = None
    rel: float | None = None

    def __post_init__(self):
        given = [x is not None for x in (self.decimals, self.sig, self.rel)]
        if sum(given) != 1:
            raise ValueError("Float needs exactly one of decimals=, sig= or rel= (the precision of the answer)")
        if self.decimals is not None and not (isinstance(self.decimals, int) and 0 <= self.decimals <= 12):
            raise ValueError(f"decimals must be an integer in 0 .. 12, got {self.decimals!r}")
        if self.sig is not None and not (isinstance(self.sig, int) and 1 <= self.sig <= 12):
            raise ValueError(f"sig must be an integer in 1 .. 12, got {self.sig!r}")
        if self.rel is not None and not (0 < self.rel < 1):
            raise ValueError(f"rel must be in (0, 1), got {self.rel!r}")

    def precision(self) -> str:
        if self.decimals is not None:
            return f"to {self.decimals} {_plural('decimal', self.decimals)}"
        if self.sig is not None:
            return f"to {self.sig} significant {_plural('digit', self.sig)}"
        if self.rel >= 1e-3:
            return f"within {self.rel * 100:g} %"
        return f"to a relative {self.rel:g}"

    def noun(self) -> str:
        return _with_units("a float", self.units)

    def describe(self) -> str:
        return f"{self.noun()}, {self.precision()}"

    def plural(self, n: int) -> str:
        floats = f"{n} {_plural('float', n)}"
        return f"{_with_units(floats, self.units)}, each {self.precision()}"

    def tolerance(self, expected: float) -> float:
        """Largest accepted distance from ``expected``: half a unit of the last stated digit."""
        e = abs(float(expected))
        if self.decimals is not None:
            tol = 0.5 * 10.0 ** -self.decimals
        elif self.sig is not None:
            exponent = math.floor(math.log10(e)) if e > 0 else 0
            tol = 0.5 * 10.0 ** (exponent - self.sig + 1)
        else:
            tol = self.rel * e
        # a little slack, so that the rounded reference itself is never rejected by float rounding
        return tol * (1 + 1e-9) + 1e-12 * max(e, 1.0)

    def format(self, value: Any) -> str:
        v = float(value)
        if self.decimals is not None:
            return f"{v:.{self.decimals}f}"
        digits = self.sig if self.sig is not None else 3
        text = np.format_float_positional(v, precision=digits, unique=False, fractional=False, trim="-")
        return text if self.sig is not None else f"{text} (within {self.rel * 100:g} %)"

    def compare(self, answer: Any, expected: Any, what: str = "your answer") -> Verdict:
        if callable(answer) and not isinstance(answer, np.ndarray):
            return Verdict(False, "wrong-type",
                           f"{what} is a function; call it and pass the value it returns ({self.noun()}).")
        a = _real(answer)
        if a is None:
            extra = " Did you forget a `return` statement?" if answer is None else ""
            if _as_sequence(answer) is not None or isinstance(answer, np.ndarray):
                return Verdict(False, "wrong-shape", f"{what} has {_count(answer)}; expected a single number "
                                                     f"({self.noun()}).")
            return Verdict(False, "wrong-type", f"{what} is {type_name(answer)}; expected {self.noun()}.{extra}")
        e = float(expected)
        if math.isnan(a):
            return Verdict(False, "nan", f"{what} is NaN; check for 0/0 or a missing value.")
        if math.isinf(a) and not math.isinf(e):
            return Verdict(False, "too-high" if a > 0 else "too-low", f"{what} is infinite.")
        tol = self.tolerance(e)
        if abs(a - e) <= tol:
            return CORRECT
        for factor, words in ((100.0, "100"), (1000.0, "1000")):
            for scaled, direction in ((e * factor, "large"), (e / factor, "small")):
                if e != 0 and abs(a - scaled) <= self.tolerance(scaled):
                    unit = f" (the answer is {self.units})" if self.units else ""
                    return Verdict(False, "units",
                                   f"{what} is {words} times too {direction}: check the units{unit}, "
                                   f"e.g. a percentage instead of a fraction or ms instead of s.")
        text = f"{what} is too high." if a > e else f"{what} is too low."
        given = _decimals_given(answer)
        if self.decimals is not None and given is not None and given < self.decimals \
                and abs(a - e) <= 0.5 * 10.0 ** -given * (1 + 1e-9):
            text += f" Give it {self.precision()}: you rounded to {given} {_plural('decimal', given)}."
        return Verdict(False, "too-high" if a > e else "too-low", text)

    def values(self, expected: Any) -> list[tuple[str, Any, Form]]:
        return [("", float(expected), self)]


def _count(value: Any) -> str:
    try:
        n = len(value)
    except Exception:
        return "several values"
    return f"{n} {_plural('value', n)}"


@dataclass(frozen=True)
class Integer(Form):
    """A whole number (a count, a batch size, a draft length), compared exactly."""

    units: str = ""

    def noun(self) -> str:
        return _with_units("an integer", self.units)

    def describe(self) -> str:
        return self.noun()

    def plural(self, n: int) -> str:
        return _with_units(f"{n} {_plural('integer', n)}", self.units)

    def format(self, value: Any) -> str:
        return str(int(round(float(value))))

    def compare(self, answer: Any, expected: Any, what: str = "your answer") -> Verdict:
        if callable(answer) and not isinstance(answer, np.ndarray):
            return Verdict(False, "wrong-type",
                           f"{what} is a function; call it and pass the value it returns ({self.noun()}).")
        a = _real(answer)
        if a is None:
            extra = " Did you forget a `return` statement?" if answer is None else ""
            if _as_sequence(answer) is not None:
                return Verdict(False, "wrong-shape", f"{what} has {_count(answer)}; expected a single number "
                                                     f"({self.noun()}).")
            return Verdict(False, "wrong-type", f"{what} is {type_name(answer)}; expected {self.noun()}.{extra}")
        if math.isnan(a):
            return Verdict(False, "nan", f"{what} is NaN; check for 0/0 or a missing value.")
        e_float = float(expected)
        if math.isfinite(e_float) and not e_float.is_integer():  # comparing with a (non-integer) typical mistake
            ok = abs(a - e_float) <= 1e-9 * max(1.0, abs(e_float))
            return CORRECT if ok else Verdict(False, "wrong", f"{what} is not right.")
        if math.isinf(a) or a != math.floor(a):
            return Verdict(False, "not-integer", f"{what} is not a whole number; the answer is {self.noun()}.")
        e = int(round(float(expected)))
        if int(a) == e:
            return CORRECT
        return Verdict(False, "too-high" if a > e else "too-low",
                       f"{what} is too high." if a > e else f"{what} is too low.")

    def values(self, expected: Any) -> list[tuple[str, Any, Form]]:
        return [("", int(round(float(expected))), self)]


@dataclass(frozen=True)
class Flag(Form):
    """Yes or no: ``True``/``False`` (``1``/``0`` and numpy booleans are accepted too)."""

    units: str = ""

    def noun(self) -> str:
        return _with_units("True or False", self.units)

    def describe(self) -> str:
        return self.noun()

    def plural(self, n: int) -> str:
        return _with_units(f"{n} flags (True or False, or 1 or 0)", self.units)

    def format(self, value: Any) -> str:
        return str(bool(value))

    def compare(self, answer: Any, expected: Any, what: str = "your answer") -> Verdict:
        value = _flag(answer)
        if value is None:
            return Verdict(False, "wrong-type", f"{what} is {type_name(answer)}; expected True or False (or 1 or 0).")
        if value == bool(expected):
            return CORRECT
        return Verdict(False, "wrong-flag", f"{what} is not right.")


def _flag(value: Any) -> bool | None:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.ndarray) and value.size == 1:
        return _flag(value.reshape(()).item())
    if isinstance(value, (int, float, np.integer, np.floating)) and float(value) in (0.0, 1.0):
        return bool(value)
    return None


@dataclass(frozen=True)
class Letter(Form):
    """One option of a multiple-choice question, as a string ("b", "B", "(b)")."""

    letters: str = "ABCD"

    def describe(self) -> str:
        letters = [c for c in self.letters.upper()]
        listed = ", ".join(letters[:-1]) + f" or {letters[-1]}" if len(letters) > 1 else letters[0]
        return f"a letter ({listed}) as a string"

    def format(self, value: Any) -> str:
        return str(value).strip().upper()

    def compare(self, answer: Any, expected: Any, what: str = "your answer") -> Verdict:
        valid = ", ".join(sorted(self.letters.upper()))
        if not isinstance(answer, str):
            return Verdict(False, "wrong-type",
                           f"answer with one letter as a string, one of {valid}; got {type_name(answer)}.")
        letter = answer.strip().strip("().").strip().upper()
        if letter not in self.letters.upper() or len(letter) != 1:
            return Verdict(False, "invalid-choice",
                           f"{short_repr(answer, 20)} is not one of the options; answer with one of {valid}.")
        if letter == str(expected).strip().upper():
            return CORRECT
        return Verdict(False, "wrong-choice", f"{letter} is not the right option.")


@dataclass(frozen=True)
class Seq(Form):
    """A fixed number of values: a tuple, a list or an array (interchangeable).

    ``items`` is one form per value; ``names`` (optional) names them in the
    description: ``Seq((Float("ms", decimals=2),) * 2, names=("t1", "t128"))``.
    ``array=True`` describes it as an array (for a distribution, say).
    """

    items: tuple = ()
    names: tuple = ()
    array: bool = False

    def __post_init__(self):
        if not self.items or not all(isinstance(item, Form) for item in self.items):
            raise ValueError("Seq needs a non-empty tuple of forms")
        if self.names and len(self.names) != len(self.items):
            raise ValueError("Seq: names must name every item")

    def _homogeneous(self) -> bool:
        return all(item == self.items[0] for item in self.items)

    def describe(self) -> str:
        n = len(self.items)
        names = f" ({', '.join(self.names)})" if self.names else ""
        if self._homogeneous():
            if self.array:
                return f"an array (or list) of {self.items[0].plural(n)}"
            return f"a tuple{names} of {self.items[0].plural(n)}"
        labels = self.names or tuple(f"value {i + 1}" for i in range(n))
        parts = "; ".join(f"{name}: {item.describe()}" for name, item in zip(labels, self.items, strict=False))
        return f"a tuple{names}: {parts}"

    def noun(self) -> str:
        return self.describe()

    def format(self, value: Any) -> str:
        return "(" + ", ".join(item.format(v) for item, v in zip(self.items, _as_sequence(value) or [], strict=False)) + ")"

    def values(self, expected: Any) -> list[tuple[str, Any, Form]]:
        out = []
        for i, (item, v) in enumerate(zip(self.items, _as_sequence(expected) or [], strict=False)):
            name = self.names[i] if self.names else f"value {i + 1}"
            out += [(f"{name}{'.' + p if p else ''}", x, f) for p, x, f in item.values(v)]
        return out

    def compare(self, answer: Any, expected: Any, what: str = "your answer") -> Verdict:
        n = len(self.items)
        if callable(answer) and not isinstance(answer, np.ndarray):
            return Verdict(False, "wrong-type",
                           f"{what} is a function; call it and pass the value it returns ({self.describe()}).")
        seq = _as_sequence(answer)
        if seq is None:
            if isinstance(answer, np.ndarray) or _real(answer) is not None:
                return Verdict(False, "wrong-shape", f"{what} is a single number; expected {self.describe()}.")
            extra = " Did you forget a `return` statement?" if answer is None else ""
            return Verdict(False, "wrong-type", f"{what} is {type_name(answer)}; expected {self.describe()}.{extra}")
        if isinstance(answer, np.ndarray) and answer.ndim > 1 and not any(isinstance(i, Seq) for i in self.items):
            return Verdict(False, "wrong-shape", f"{what} has shape {answer.shape}; expected shape ({n},).")
        if len(seq) != n:
            shape = f"shape {answer.shape}" if isinstance(answer, np.ndarray) else _count(seq)
            return Verdict(False, "wrong-shape", f"{what} has {shape}; expected {n} values (shape ({n},)).")
        expected_items = _as_sequence(expected)
        if self._homogeneous() and isinstance(self.items[0], (Float, Integer, Flag)):
            return self._compare_homogeneous(seq, expected_items, what)
        for i, (item, a, e) in enumerate(zip(self.items, seq, expected_items, strict=False)):
            name = f" ({self.names[i]})" if self.names else ""
            verdict = item.compare(a, e, what=f"value {i + 1}{name} of {what}")
            if not verdict.ok:
                return verdict
        return CORRECT

    def _compare_homogeneous(self, seq: list, expected: list, what: str) -> Verdict:
        item = self.items[0]
        n = len(seq)
        verdicts = [item.compare(a, e, what=f"value {i + 1} of {what}") for i, (a, e) in enumerate(zip(seq, expected, strict=False))]
        if all(v.ok for v in verdicts):
            return CORRECT
        for reason in ("wrong-type", "not-integer", "units"):
            first = next((v for v in verdicts if v.reason == reason), None)
            if first is not None:
                return first
        nans = [i for i, v in enumerate(verdicts) if v.reason == "nan"]
        if nans:
            return Verdict(False, "nan", f"{what} contains NaN (at {len(nans)} of {n} positions); "
                                         f"check for 0/0 or a missing value.")
        if isinstance(item, Flag):
            wrong = sum(not v.ok for v in verdicts)
            return Verdict(False, "wrong-flag", f"{wrong} of the {n} flags in {what} "
                                                f"{'is' if wrong == 1 else 'are'} not right.")
        high = [i for i, v in enumerate(verdicts) if v.reason == "too-high"]
        low = [i for i, v in enumerate(verdicts) if v.reason == "too-low"]
        wrong = sorted(high + low)
        if high and not low:
            direction, reason = "too high", "too-high"
        elif low and not high:
            direction, reason = "too low", "too-low"
        else:
            direction, reason = f"{len(high)} too high and {len(low)} too low", "mixed"
        if len(wrong) == 1:
            return Verdict(False, reason, f"1 of {n} values in {what} is off ({direction}), at index {wrong[0]}.")
        return Verdict(False, reason, f"{len(wrong)} of {n} values in {what} are off ({direction}); "
                                      f"the first one is at index {wrong[0]}.")


@dataclass(frozen=True)
class Function(Form):
    """The reader writes a function: ``Function("expected_from_pmf(alpha, k)", returns=Float(..., rel=1e-9))``.

    The function is passed itself (not called) and compared with the
    reference on the exercise's cases, with the tolerance of ``returns``.
    """

    signature: str = ""
    returns: Form = field(default_factory=lambda: Float(rel=1e-9))

    def describe(self) -> str:
        return f"the function itself (not called), {self.signature} returning {self.returns.noun()}"

    def compare(self, answer: Any, expected: Any, what: str = "your function's result") -> Verdict:
        return self.returns.compare(answer, expected, what)


# --------------------------------------------------------------------------
# The form alone (graded mode): type, shape, whole numbers, NaN; never the value
# --------------------------------------------------------------------------
FORM_OK = Verdict(True, "form-ok", "the form is right.")


def check_form(form: Form, answer: Any, what: str = "your answer") -> Verdict:
    """Whether ``answer`` has the form ``form`` asks for (type, shape, whole numbers), without any reference.

    The verdict's text describes only the answer's form; it cannot tell a
    right value from a wrong one (graded assignments use it: correctness is
    decided by the grader).
    """
    if isinstance(form, Function):
        return check_form(form.returns, answer, what)
    if isinstance(form, Seq):
        n = len(form.items)
        if callable(answer) and not isinstance(answer, np.ndarray):
            return Verdict(False, "wrong-type",
                           f"{what} is a function; call it and pass the value it returns ({form.describe()}).")
        seq = _as_sequence(answer)
        if seq is None:
            if isinstance(answer, np.ndarray) or _real(answer) is not None:
                return Verdict(False, "wrong-shape", f"{what} is a single number; expected {form.describe()}.")
            extra = " Did you forget a `return` statement?" if answer is None else ""
            return Verdict(False, "wrong-type", f"{what} is {type_name(answer)}; expected {form.describe()}.{extra}")
        if isinstance(answer, np.ndarray) and answer.ndim > 1 and not any(isinstance(i, Seq) for i in form.items):
            return Verdict(False, "wrong-shape", f"{what} has shape {answer.shape}; expected shape ({n},).")
        if len(seq) != n:
            shape = f"shape {answer.shape}" if isinstance(answer, np.ndarray) else _count(seq)
            return Verdict(False, "wrong-shape", f"{what} has {shape}; expected {n} values (shape ({n},)).")
        for i, (item, value) in enumerate(zip(form.items, seq, strict=False)):
            name = f" ({form.names[i]})" if form.names else ""
            verdict = check_form(item, value, what=f"value {i + 1}{name} of {what}")
            if not verdict.ok:
                return verdict
        return FORM_OK
    if isinstance(form, Letter):
        verdict = form.compare(answer, form.letters[0], what)
        return verdict if verdict.reason in ("wrong-type", "invalid-choice") else FORM_OK
    if isinstance(form, Flag):
        if _flag(answer) is None:
            return Verdict(False, "wrong-type", f"{what} is {type_name(answer)}; expected True or False (or 1 or 0).")
        return FORM_OK
    if isinstance(form, (Float, Integer)):
        noun = form.noun()
        if callable(answer) and not isinstance(answer, np.ndarray):
            return Verdict(False, "wrong-type", f"{what} is a function; call it and pass the value it returns ({noun}).")
        a = _real(answer)
        if a is None:
            extra = " Did you forget a `return` statement?" if answer is None else ""
            if _as_sequence(answer) is not None or isinstance(answer, np.ndarray):
                return Verdict(False, "wrong-shape", f"{what} has {_count(answer)}; expected a single number ({noun}).")
            return Verdict(False, "wrong-type", f"{what} is {type_name(answer)}; expected {noun}.{extra}")
        if math.isnan(a):
            return Verdict(False, "nan", f"{what} is NaN; check for 0/0 or a missing value.")
        if math.isinf(a):
            return Verdict(False, "infinite", f"{what} is infinite.")
        if isinstance(form, Integer) and a != round(a):
            return Verdict(False, "not-integer", f"{what} is not a whole number; the answer is {noun}.")
        if isinstance(form, Float) and form.decimals is not None:
            given = _decimals_given(answer)
            if given is not None and given < form.decimals:
                return Verdict(True, "form-few-decimals",
                               f"the form is right, but {what} has {given} {_plural('decimal', given)}: it is graded "
                               f"{form.precision()}, so give at least {form.decimals} (or do not round).")
        return FORM_OK
    return FORM_OK

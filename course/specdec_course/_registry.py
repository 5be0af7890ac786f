"""The exercise registry: what an exercise is and how chapters register one.

Chapter modules in this package (one per chapter, named after the chapter
slug) build :class:`Exercise` objects and pass them to :func:`register` at
import time. An exercise declares

* its inputs, ``params`` (the book's values), and, for per-student variants,
  ``vary(rng)`` that draws other inputs and a ``statement`` template that
  states the question for any inputs;
* the form of its answer, ``answer`` (a form from ``_forms``: type, units,
  precision), from which the book's "Check your answer" line, the checker's
  tolerance and the answer key's formatting all come;
* its reference answer, a callable ``reference(p)`` evaluated through
  ``specdec`` on the inputs ``p`` (never a typed constant), and its typical
  mistakes, computed the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._chapters import Chapter
from ._forms import Form, Function, Letter

__all__ = ["Mistake", "Exercise", "Params", "register", "render", "pick", "grid", "REGISTRY", "LABEL_RE"]

#: ``<chapter-slug>-<n>``.
LABEL_RE = re.compile(r"^(?P<slug>[a-z][a-z0-9]*(?:-[a-z0-9]+)*)-(?P<n>[1-9][0-9]*)$")

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::([^}]*))?\}\}")


class Params(Mapping):
    """The inputs of one version of an exercise: a read-only mapping with attribute access (``p.alpha``)."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any] | None = None, **more: Any):
        object.__setattr__(self, "_values", {**dict(values or {}), **more})

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"this exercise has no input named {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError("exercise inputs are read-only")

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def replace(self, **changes: Any) -> Params:
        """A copy with some inputs changed."""
        return Params(self._values, **changes)

    def __repr__(self) -> str:
        return "Params(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"


def pick(rng, options: Sequence[Any]) -> Any:
    """One of ``options``, drawn with ``rng`` (for ``vary``)."""
    return options[int(rng.integers(len(options)))]


def grid(rng, low: float, high: float, step: float) -> float:
    """A value of ``low, low + step, ..., high`` drawn with ``rng``, rounded to the step's decimals."""
    n = int(round((high - low) / step))
    decimals = len(f"{step:.10g}".partition(".")[2])
    return round(low + step * int(rng.integers(n + 1)), decimals)


def _format_value(value: Any, spec: str | None) -> str:
    if spec:
        return format(value, spec)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (tuple, list)):
        return ", ".join(_format_value(v, None) for v in value)
    return str(value)


def render(template: str, params: Mapping[str, Any]) -> str:
    """Fill ``{{name}}`` / ``{{name:.2f}}`` placeholders of a statement (single braces are LaTeX's)."""
    def replace(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2)
        if name not in params:
            raise KeyError(f"the statement uses {{{{{name}}}}}, which is not an input of the exercise")
        return _format_value(params[name], spec)
    return _PLACEHOLDER.sub(replace, template)


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer and the hint it earns.

    Parameters
    ----------
    name : str
        Short identifier, e.g. ``"forgot-bonus-token"``; tests use it.
    compute : callable
        For numeric and choice exercises: ``compute(p) -> value``, the wrong
        answer this mistake gives on the inputs ``p`` (computed, not typed).
        For function exercises: a wrong implementation with the reference's
        signature.
    message : str
        What the reader is told when their answer matches this mistake. It
        must not contain the expected answer.
    """

    name: str
    compute: Callable[..., Any]
    message: str


@dataclass(frozen=True)
class Exercise:
    """One self-check exercise (the registry entry).

    Parameters
    ----------
    label : str
        ``"<chapter-slug>-<n>"``, the same label as the ``exercise`` directive
        in the book; ``n`` is the exercise's position in its chapter.
    chapter : Chapter
        The chapter (its ``_toc.yml`` entry and title).
    question : str
        The question in one or two sentences (``course.list()``).
    answer : Form or callable
        The form of the answer: type, units and precision (``Float``,
        ``Integer``, ``Flag``, ``Seq``, ``Letter`` or ``Function``), or
        ``answer(p) -> Form`` when the form depends on the inputs (an array
        of k + 1 values, say).
    reference : callable
        Numeric and choice exercises: ``reference(p) -> expected`` computed
        with specdec from the inputs ``p`` (a :class:`Params`). Function
        exercises: the reference implementation.
    hints : sequence of str
        At least one hint, shown on a wrong attempt, never the answer.
    mistakes : sequence of Mistake
        Typical wrong answers with targeted messages.
    params : mapping
        The book's inputs of the exercise (what ``reference`` receives).
    vary : callable, optional
        ``vary(rng) -> dict`` of other inputs for a per-student variant
        (merged over ``params``). Exercises without it have no variants.
    statement : str
        The question as Markdown with math, with ``{{name}}`` placeholders for
        the inputs; rendered for a variant's handout.
    shows_value : bool
        The exercise asks the reader to reproduce a value the chapter shows
        (the answer-leak test does not apply to it).
    cases : callable, optional
        Function exercises: ``rng -> list of argument tuples``; the first
        ``n_visible`` are public examples, the rest are hidden.
    n_visible : int
        How many of ``cases`` are examples.
    choices : dict, optional
        Choice exercises: letter -> option text.
    time_limit : float
        Seconds a reader's function may run on all cases together.
    """

    label: str
    chapter: Chapter
    question: str
    answer: Form | Callable[..., Form]
    reference: Callable[..., Any]
    hints: Sequence[str]
    mistakes: Sequence[Mistake] = field(default_factory=tuple)
    params: Mapping[str, Any] = field(default_factory=dict)
    vary: Callable[..., Mapping[str, Any]] | None = None
    statement: str = ""
    shows_value: bool = False
    cases: Callable[..., list] | None = None
    n_visible: int = 1
    choices: dict[str, str] | None = None
    time_limit: float = 10.0

    def form(self, params: Mapping[str, Any] | None = None) -> Form:
        """The form of the answer for these inputs (the book's by default)."""
        if isinstance(self.answer, Form):
            return self.answer
        return self.answer(Params(params) if params is not None else self.inputs())

    @property
    def kind(self) -> str:
        """``"numeric"``, ``"function"`` or ``"choice"`` (from the answer's form)."""
        form = self.form()
        if isinstance(form, Function):
            return "function"
        if isinstance(form, Letter):
            return "choice"
        return "numeric"

    @property
    def position(self) -> int:
        """The exercise's position in its chapter (the ``n`` of its label)."""
        return int(LABEL_RE.match(self.label)["n"])

    @property
    def number(self) -> str:
        """ "6.2" as the book numbers it; "2" in an unnumbered chapter of the book (the "Start here" chapter's
        boxes read "Exercise 2"); the label for a chapter outside the book."""
        chapter = self.chapter.number
        if chapter is not None:
            return f"{chapter}.{self.position}"
        return str(self.position) if self.chapter.position is not None else self.label

    @property
    def has_variants(self) -> bool:
        return self.vary is not None

    def inputs(self) -> Params:
        """The book's inputs."""
        return Params(self.params)


REGISTRY: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    """Add ``exercise`` to the registry after checking that it is well formed."""
    if not isinstance(exercise, Exercise):
        raise TypeError(f"register() takes an Exercise, got {type(exercise).__name__}")
    if exercise.label in REGISTRY:
        raise ValueError(f"exercise label {exercise.label!r} is registered twice")
    if not LABEL_RE.match(exercise.label):
        raise ValueError(f"exercise label {exercise.label!r} is not '<chapter-slug>-<n>'")
    if not isinstance(exercise.form(), Form):
        raise TypeError(f"{exercise.label}: answer must be a form (Float, Integer, Flag, Seq, Letter, Function)")
    if exercise.kind == "choice":
        letters = "".join(sorted(str(c).upper() for c in (exercise.choices or {})))
        if letters != "".join(sorted(exercise.form().letters.upper())):
            raise ValueError(f"{exercise.label}: the choices {letters!r} and the answer's letters differ")
    if exercise.kind == "function" and exercise.cases is None:
        raise ValueError(f"{exercise.label}: a function exercise needs cases")
    if exercise.statement:
        render(exercise.statement, exercise.params)  # every placeholder is an input
    REGISTRY[exercise.label] = exercise
    return exercise

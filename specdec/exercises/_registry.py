"""The exercise registry: what an exercise is and how chapters register one.

Chapter modules in this package (one per chapter, named after the chapter
slug) build :class:`Exercise` objects and pass them to :func:`register` at
import time. Expected answers are *callables* evaluated through ``specdec``
when an answer is checked, never typed constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = ["Mistake", "Exercise", "register", "REGISTRY"]


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer and the hint it earns.

    Parameters
    ----------
    name : str
        Short identifier, e.g. ``"forgot-bonus-token"``; tests use it.
    compute : callable
        For numeric exercises: ``() -> value`` giving the wrong answer that
        this mistake produces (computed, not typed). For function exercises:
        a wrong implementation with the reference's signature.
    message : str
        What the reader is told when their answer matches this mistake. It
        must not contain the expected answer.
    """

    name: str
    compute: Callable[..., Any]
    message: str


@dataclass(frozen=True)
class Exercise:
    """One self-check exercise.

    Parameters
    ----------
    label : str
        ``"<chapter-slug>-<n>"``, the same label as the ``exercise`` directive
        in the book.
    chapter : str
        Chapter title as shown in the book, e.g. ``"Part I · 1 Expected tokens per round"``.
    question : str
        The question in one or two sentences (shown by ``sd.exercises.list()``).
    kind : str
        ``"numeric"`` (a number, array or tuple), ``"function"`` (the reader
        writes a function) or ``"choice"`` (a letter among ``choices``).
    reference : callable
        ``"numeric"``: ``() -> expected`` computed with specdec.
        ``"function"``: the reference implementation.
        ``"choice"``: ``() -> letter`` of the right option.
    hints : sequence of str
        At least one hint, shown on a wrong attempt, never the answer.
    rtol, atol : float
        Tolerance for numeric comparison (``numpy.isclose`` semantics).
    cases : callable, optional
        ``"function"`` only: ``rng -> list of argument tuples`` on which the
        reader's function is compared to the reference; the first
        ``n_visible`` cases may be shown to the reader, the rest are hidden.
    n_visible : int
        How many of ``cases`` are public examples.
    choices : dict, optional
        ``"choice"`` only: letter -> option text.
    mistakes : sequence of Mistake
        Typical wrong answers with targeted messages.
    """

    label: str
    chapter: str
    question: str
    kind: str
    reference: Callable[..., Any]
    hints: Sequence[str]
    rtol: float = 1e-3
    atol: float = 0.0
    cases: Callable[..., list] | None = None
    n_visible: int = 1
    choices: dict[str, str] | None = None
    mistakes: Sequence[Mistake] = field(default_factory=tuple)


REGISTRY: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    """Add ``exercise`` to the registry (labels must be unique)."""
    if exercise.label in REGISTRY:
        raise ValueError(f"exercise label {exercise.label!r} is registered twice")
    REGISTRY[exercise.label] = exercise
    return exercise

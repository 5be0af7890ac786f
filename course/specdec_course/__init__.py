"""The course tooling of *Speculative decoding, costed*: ``course.check(label, answer)``.

A distribution of its own (``specdec-course``, ``course/pyproject.toml``) on top of
``specdec``: the exercise framework (registry, checker, answer forms, variants,
assignments, grader, handouts) and, as its data, the book's exercises
(``specdec_course.bank``, one module per chapter). ``specdec`` never imports it.

Every chapter ends with exercises. Each exercise box in the book shows its
label and the form of the answer, in a line such as::

    Check your answer: course.check("expected-tokens-1", answer):
    a float, tokens per round, to 2 decimals.

``course.describe(label)`` prints the same line in a notebook. Check an
answer with::

    import specdec_course as course
    course.check("expected-tokens-1", answer)

The result says "Correct." or what is off (too high, too low, wrong shape,
wrong type, wrong units, a typical mistake, ...) with a hint, and never
reveals the expected answer. Any answer correct to the stated precision is
accepted. ``course.list()`` shows every exercise, numbered as the book
numbers them ("6.2" is the second exercise of chapter 6).

``course.variant(label, seed)`` is a practice variant (the same
question with other inputs, for any seed) and
``course.check(label, answer, seed=seed)`` checks it: self-check
practice, which anyone can compute.

For marked work your instructor gives you a handout with a line
``course.assignment("sdx1....")``: run it first. From then on, ``check``
for an exercise of the assignment tells you whether the *form* of your answer
is right (type, shape, precision) and records it, and the grader decides
whether it is correct; exercises without graded variants stay self-check
practice and say so on the handout.

Each chapter's exercises live in a module of ``specdec_course.bank`` named after the chapter
(``start_decide.py``, ``p1_expected_tokens.py``, ...), imported here; a chapter module that fails
to import does not break the others (it is reported as a warning and named
by :func:`check` for an unknown label).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import warnings

from ._assignment import assignment
from ._core import (
    IMPORT_ERRORS,
    CheckResult,
    ExerciseInfo,
    ExerciseList,
    Variant,
    check,
    describe,
    get,
    hints,
    labels,
    list_exercises,
    variant,
)
from ._registry import REGISTRY, Exercise, Mistake, register

# ``list`` shadows the builtin inside this module only; nothing below uses
# the builtin, and ``_core`` uses ``builtins.list`` explicitly.
list = list_exercises  # noqa: A001

__version__ = "0.1.0"

__all__ = [
    "check", "describe", "variant", "assignment", "list", "get", "labels", "hints",
    "CheckResult", "ExerciseInfo", "ExerciseList", "Variant",
]

# Internal names used by the chapter modules, the instructors' module and the tests (not documented for readers).
_INTERNAL = (REGISTRY, Exercise, Mistake, register, IMPORT_ERRORS)

#: Chapter modules: ``p<part>_<chapter slug>``, and ``start_<slug>`` for the unnumbered "Start here" chapter.
_CHAPTER_MODULE = re.compile(r"^(?:p\d+|start)_[a-z0-9_]+$")


def _import_chapter_modules() -> None:
    from . import bank

    for info in sorted(pkgutil.iter_modules(bank.__path__), key=lambda m: m.name):
        if not _CHAPTER_MODULE.match(info.name):
            continue
        try:
            module = importlib.import_module(f"{bank.__name__}.{info.name}")
        except Exception as exc:  # one broken chapter must not hide the others
            IMPORT_ERRORS[info.name] = f"{type(exc).__name__}: {exc}"
            warnings.warn(
                f"specdec_course: the exercise module {info.name!r} failed to import "
                f"({type(exc).__name__}: {exc}); its exercises are not available.",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        globals()[info.name] = module


_import_chapter_modules()

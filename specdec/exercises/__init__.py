"""Self-check exercises: ``sd.exercises.check(label, answer)``.

Every chapter ends with exercises whose labels (``"<chapter-slug>-<n>"``)
appear in the book. Check an answer with::

    import specdec as sd
    sd.exercises.check("expected-tokens-1", answer)

The result says "Correct." or what is off (too high, too low, wrong shape,
wrong type, a typical mistake, ...) with a hint, and never reveals the
expected answer. ``result.passed`` is what an autograder uses.
``sd.exercises.list()`` shows every exercise by chapter.

Each chapter's exercises live in a submodule of this package named after
the chapter (``p1_expected_tokens.py``, ...) that calls :func:`register` at
import time; every submodule whose name does not start with ``_`` is
imported here. A chapter module that fails to import does not break the
others: the failure is reported as a warning, recorded in
``IMPORT_ERRORS`` (the tests require it to be empty), and mentioned by
:func:`check` for an unknown label.
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings

from ._core import IMPORT_ERRORS, CheckResult, ExerciseList, check, get, hints, labels, list_exercises
from ._registry import REGISTRY, Exercise, Mistake, register

# ``list`` shadows the builtin inside this module only; nothing below uses
# the builtin, and ``_core`` uses ``builtins.list`` explicitly.
list = list_exercises  # noqa: A001

__all__ = [
    "check", "list", "get", "labels", "hints", "CheckResult", "ExerciseList",
    "Exercise", "Mistake", "register", "REGISTRY", "IMPORT_ERRORS",
]


def _import_chapter_modules() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f".{info.name}", __name__)
        except Exception as exc:  # one broken chapter must not hide the others
            IMPORT_ERRORS[info.name] = f"{type(exc).__name__}: {exc}"
            warnings.warn(
                f"specdec.exercises: the exercise module {info.name!r} failed to import "
                f"({type(exc).__name__}: {exc}); its exercises are not available.",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        globals()[info.name] = module


_import_chapter_modules()

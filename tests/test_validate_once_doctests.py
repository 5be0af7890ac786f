"""Validation happens once, on every call the core's doctests make.

``tests/test_validate_once.py`` counts the checks of chosen call paths against the arguments each takes. This
file checks every call path the package's own examples walk: each core module's doctests run with every
validator of ``specdec._validate`` (and of ``specdec.decision._measurements``) counting its outermost calls by
the parameter name it reports, and with every public function of the core wrapped so that the counts of one
outermost public call are kept together. A public call fails the test when one of *its own* parameters is
validated more than once while it runs: it checked the argument and then handed it to a public function (or
validated a package constant of the same name) instead of calling a kernel.

The few calls that validate a name twice on purpose are listed in ``ALLOWED``, each with its reason.
"""

from __future__ import annotations

import collections
import contextlib
import doctest
import functools
import importlib
import inspect
import io
import pkgutil
import sys
import types

import pytest
from validation_counter import VALIDATORS, counting  # tests/validation_counter.py

import specdec as sd

PRESENTATION = (".plots", ".widgets", ".exercises", "__main__")

#: "module.function": {parameter: why it is validated more than once on purpose}.
ALLOWED: dict[str, dict[str, str]] = {}


def _core_modules() -> list[str]:
    """The core modules whose docstrings hold examples."""
    names = ["specdec"]
    for info in pkgutil.walk_packages(sd.__path__, "specdec."):
        if not any(part in info.name for part in PRESENTATION):
            names.append(info.name)
    finder = doctest.DocTestFinder()
    return sorted(name for name in names
                  if any(t.examples for t in finder.find(importlib.import_module(name))))


CORE_MODULES = _core_modules()


def _is_core(name: str) -> bool:
    return name.startswith("specdec") and not any(part in name for part in PRESENTATION + ("_validate",))


@pytest.fixture
def once(monkeypatch):
    """Instrument the core; yields ``findings`` ({function: {parameter: most validations in one call}}) and the
    wrapper that tracks a function's outermost calls."""
    for name in CORE_MODULES:
        importlib.import_module(name)
    modules = [(name, m) for name, m in list(sys.modules.items())
               if name.startswith("specdec") and isinstance(m, types.ModuleType)]
    state: dict = {"depth": 0, "counts": None}
    checking = [0]
    findings: dict = collections.defaultdict(dict)

    def tracked(function, label):
        params = set(inspect.signature(function).parameters)

        @functools.wraps(function)
        def outermost(*args, **kwargs):
            if state["depth"] == 0:
                state["counts"] = collections.Counter()
            state["depth"] += 1
            try:
                return function(*args, **kwargs)
            finally:
                state["depth"] -= 1
                if state["depth"] == 0:
                    for name, n in state["counts"].items():
                        if n > 1 and name in params:
                            findings[label][name] = max(n, findings[label].get(name, 0))
                    state["counts"] = None
        return outermost

    checks = {check: counting(check, lambda: state["counts"], checking) for check in VALIDATORS}
    public: dict = {}
    for name, module in modules:
        for attr, value in list(vars(module).items()):
            if callable(value) and value in checks:
                monkeypatch.setattr(module, attr, checks[value])
            elif (isinstance(value, types.FunctionType) and not attr.startswith("_") and _is_core(name)
                  and _is_core(value.__module__) and not value.__module__.endswith("_measurements")):
                if value not in public:
                    public[value] = tracked(value, f"{value.__module__}.{value.__qualname__}")
                monkeypatch.setattr(module, attr, public[value])
    yield findings, tracked


@pytest.mark.parametrize("module_name", CORE_MODULES)
def test_no_doctest_call_validates_its_own_argument_twice(module_name, once):
    module = importlib.import_module(module_name)
    for test in (t for t in doctest.DocTestFinder().find(module) if t.examples):
        globs = dict(test.globs)
        for example in test.examples:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception, SystemExit):
                exec(compile(example.source, test.name, "single"), globs)
    findings, _ = once
    bad = {label: {name: n for name, n in params.items() if name not in ALLOWED.get(label, {})}
           for label, params in findings.items()}
    bad = {label: params for label, params in bad.items() if params}
    assert not bad, "validated more than once in one call: " + "; ".join(
        f"{label} {params}" for label, params in sorted(bad.items()))


def test_the_instrument_sees_a_repeated_validation(once):
    """The instrument is not blind: a function that checks ``alpha`` and hands it to a public function fails."""
    findings, track = once

    def twice(alpha, k):
        sys.modules["specdec._validate"].check_probability(alpha, "alpha")
        return sd.expected_tokens(alpha, k)

    def once_only(alpha, k):
        return sd.expected_tokens(alpha, k)

    track(twice, "twice")(0.8, 5)
    track(once_only, "once_only")(0.8, 5)
    assert dict(findings) == {"twice": {"alpha": 2}}

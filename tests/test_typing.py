"""Every public function and method of the core is annotated, and the type checker is wired in.

The core is ``specdec/`` without ``plots/``, ``widgets/`` and ``exercises/``. mypy checks it with
``disallow_untyped_defs`` (``pyproject.toml``, ``[tool.mypy]``) when ``scripts/run-tests.sh`` runs; this test
reads the source with :mod:`ast`, so that a new public function without annotations fails the fast loop too,
and checks that the settings and the test command still ask for the check.
"""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "specdec"
PRESENTATION = ("plots", "widgets", "exercises")
CORE = sorted(p for p in PKG.rglob("*.py") if p.relative_to(PKG).parts[0] not in PRESENTATION)


def _public(name: str) -> bool:
    return not name.startswith("_")


def _public_functions(tree: ast.Module):
    """(qualified name, node) of the module's public functions and the public methods of its public classes."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(node.name):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and _public(node.name):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(item.name):
                    yield f"{node.name}.{item.name}", item


def _missing(node: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> list[str]:
    args = node.args
    positional = args.posonlyargs + args.args
    is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    if is_method and not is_static and positional:
        positional = positional[1:]  # self or cls
    params = positional + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a is not None]
    out = [a.arg for a in params if a.annotation is None]
    if node.returns is None:
        out.append("return")
    return out


def test_the_core_is_found():
    names = {p.relative_to(PKG).as_posix() for p in CORE}
    assert {"economics/__init__.py", "_validate.py", "cli.py"} <= names
    assert not any(n.split("/")[0] in PRESENTATION for n in names)


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.relative_to(PKG).as_posix())
def test_every_public_function_is_annotated(path):
    tree = ast.parse(path.read_text(), str(path))
    bad = [f"{name}: {', '.join(missing)}" for name, node in _public_functions(tree)
           if (missing := _missing(node, "." in name))]
    assert not bad, f"{path.relative_to(ROOT)}: public functions without annotations (parameters, return): {bad}"


def test_the_checker_catches_a_missing_annotation():
    tree = ast.parse("def f(x, y: int = 1) -> int:\n    return y\n\nclass C:\n    def m(self, z):\n        pass\n")
    found = {name: _missing(node, "." in name) for name, node in _public_functions(tree)}
    assert found == {"f": ["x"], "C.m": ["z", "return"]}


def test_mypy_is_configured_strict_on_the_core_and_run_by_the_test_command():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["files"] == ["specdec"]
    assert config["disallow_untyped_defs"] is True and config["check_untyped_defs"] is True
    excluded = config["exclude"]
    assert all(name in excluded[0] for name in PRESENTATION)
    script = (ROOT / "scripts" / "run-tests.sh").read_text()
    # mypy runs beside the book's build; its status (lint) fails the test command
    assert "\n  mypy || lint=1\n" in script and "\nif [[ $lint_status != 0 ]]; then test_status=1; fi\n" in script
    pinned = (ROOT / "requirements.txt").read_text().splitlines()
    assert any(line.startswith("mypy==") for line in pinned)

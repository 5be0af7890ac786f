"""Computed values in the prose: the ``{eval}`...``` role of the book's Markdown cells.

One module for the three places that handle them, so they agree on the syntax
and on what a stored value looks like:

* ``scripts/execute_notebooks.py`` evaluates every role's expression in the
  notebook's kernel, right after the code cells above it have run, and stores
  the results in the cell's ``metadata.user_expressions`` (the format that
  jupyterlab-myst reads and writes, so JupyterLab shows the same values and
  recomputes them when the cell is run);
* ``scripts/sphinx_inline_values.py`` (a Sphinx extension) puts the stored
  values into the text when the HTML book is built, which does not execute
  notebooks;
* ``tests/nbval_inline.py`` (a pytest plugin used with nbval) evaluates the
  expressions again in nbval's kernel and fails when a stored value differs.

An expression should return a *formatted string* (``f"{x:.2f}"``), so the
value shown carries the precision the sentence means and does not depend on
the last bit of a float. Expressions that return a sympy object are shown as
math (their ``text/latex``).
"""

from __future__ import annotations

import ast
import re
from typing import Any

#: ``{eval}`expression``` in MyST Markdown (the expression cannot contain a backtick).
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")

#: Metadata key of a Markdown cell that holds the stored results (jupyterlab-myst's name).
METADATA_KEY = "user_expressions"

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#$])")


def expressions(source: str) -> list[str]:
    """The distinct ``{eval}`` expressions of a Markdown source, in order of appearance."""
    seen: dict[str, None] = {}
    for match in EVAL_ROLE.finditer(source):
        seen.setdefault(match.group(1), None)
    return list(seen)


def stored_results(cell: dict) -> dict[str, dict]:
    """Map expression -> stored result (``{"status": ..., "data": ...}``) of a Markdown cell."""
    out: dict[str, dict] = {}
    for entry in cell.get("metadata", {}).get(METADATA_KEY, []) or []:
        if isinstance(entry, dict) and "expression" in entry:
            out.setdefault(entry["expression"], entry.get("result", {}))
    return out


def plain_text(result: dict) -> str:
    """What a reader sees for a result shown as plain text (quotes of a str repr removed)."""
    data = result.get("data", {})
    text = data.get("text/plain", "")
    if isinstance(text, list):
        text = "".join(text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


def as_markdown(result: dict) -> str:
    """The MyST Markdown that replaces a role in the HTML build.

    A ``text/latex`` result becomes inline math; ``text/markdown`` is used as
    it is; anything else is the escaped plain text.
    """
    data = result.get("data", {})
    latex = data.get("text/latex")
    if latex:
        latex = "".join(latex) if isinstance(latex, list) else latex
        latex = latex.strip()
        if latex.startswith("$$") and latex.endswith("$$"):
            latex = latex[2:-2]
        elif latex.startswith("$") and latex.endswith("$"):
            latex = latex[1:-1]
        latex = latex.replace(r"\displaystyle", "").strip()
        return f"${latex}$"
    markdown = data.get("text/markdown")
    if markdown:
        return "".join(markdown) if isinstance(markdown, list) else markdown
    return _MARKDOWN_SPECIAL.sub(r"\\\1", plain_text(result))


def error_text(result: dict) -> str:
    """One line describing a failed evaluation."""
    return f"{result.get('ename', 'Error')}: {result.get('evalue', '')}".strip()


def substitute(source: str, results: dict[str, dict]) -> tuple[str, list[str]]:
    """Replace every role in ``source`` by its stored value.

    Returns the new source and the list of problems (an expression without a
    stored result, or whose stored evaluation failed); a role with a problem
    is left as it is.
    """
    problems: list[str] = []

    def replace(match: re.Match) -> str:
        expression = match.group(1)
        result = results.get(expression)
        if result is None:
            problems.append(f"no stored value for {{eval}}`{expression}` (re-run scripts/execute_notebooks.py)")
            return match.group(0)
        if result.get("status") != "ok":
            problems.append(f"{{eval}}`{expression}` failed when the notebook was executed: {error_text(result)}")
            return match.group(0)
        return as_markdown(result)

    return EVAL_ROLE.sub(replace, source), problems


def comparable(result: dict[str, Any]) -> dict[str, str]:
    """The parts of a result that must match between a stored and a fresh evaluation."""
    if result.get("status") != "ok":
        return {"status": str(result.get("status")), "error": error_text(result)}
    data = result.get("data", {})
    return {key: ("".join(value) if isinstance(value, list) else str(value)) for key, value in sorted(data.items())}


# --------------------------------------------------------------------------
# names: an expression must read what the code above it left, wherever it is evaluated
# --------------------------------------------------------------------------
#
# The executor and nbval evaluate a cell's expressions right after the code above it. JupyterLab's
# jupyterlab-myst evaluates them when it renders the cell, which after Run All can be once the whole
# notebook has run. Both give one value only if no code cell below the prose binds a name the expression
# reads again (``agree`` a list of checks above, a bool in a later cell: the sentence then raises in
# JupyterLab, or shows another number).


def names_read(expression: str) -> set[str]:
    """The free names an ``{eval}`` expression reads from the kernel, builtins included (a cell may shadow one).

    >>> sorted(names_read('f"{x[0]:.2f} of {len(ys)}" if all(v > 0 for v in ys) else "-"'))
    ['all', 'len', 'x', 'ys']
    """
    tree = ast.parse(expression, mode="eval")
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            own.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Lambda):
            own.update(a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
        elif isinstance(node, ast.NamedExpr):
            own.add(node.target.id)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - own


def names_bound(source: str) -> set[str]:
    """The names a code cell binds in the notebook's namespace (not inside its functions or classes).

    A name whose item or attribute is set (``x[0] = 1``, ``x.a = 1``) counts too: what it shows changes.
    IPython's ``%`` and ``!`` lines are skipped.

    >>> sorted(names_bound("import numpy as np\\nfor i, x in enumerate(v):\\n    y = x\\ndef f(a):\\n    z = a"))
    ['f', 'i', 'np', 'x', 'y']
    """
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    bound: set[str] = set()

    def targets(node: ast.AST) -> None:
        if isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                targets(element)
        elif isinstance(node, ast.Starred):
            targets(node.value)
        elif isinstance(node, (ast.Attribute, ast.Subscript)):   # x.a = ..., x[i] = ...: x, not i
            targets(node.value)
        elif isinstance(node, ast.Name):
            bound.add(node.id)

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(stmt.name)
                continue
            if isinstance(stmt, (ast.Assign, ast.Delete)):
                for target in stmt.targets:
                    targets(target)
            elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
                targets(stmt.target)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        targets(item.optional_vars)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                bound.update((alias.asname or alias.name).split(".")[0] for alias in stmt.names)
            bound.update(n.target.id for n in ast.walk(stmt) if isinstance(n, ast.NamedExpr))
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    visit(inner)
            for handler in getattr(stmt, "handlers", []):
                if handler.name:
                    bound.add(handler.name)
                visit(handler.body)

    visit(ast.parse(code).body)
    return bound


def rebound_names(cells: list[dict]) -> list[tuple[int, str, list[str]]]:
    """``(markdown cell index, expression, names)`` for every expression that reads a name a later code cell binds.

    ``cells`` are a notebook's cells as stored (``cell_type`` and ``source``, a string or a list of lines).

    >>> md = {"cell_type": "markdown", "source": "{eval}`f'{x:.1f}'`"}
    >>> rebound_names([{"cell_type": "code", "source": "x = 1.0"}, md, {"cell_type": "code", "source": "x = [2]"}])
    [(1, "f'{x:.1f}'", ['x'])]
    """
    found = []
    later: set[str] = set()
    for index in range(len(cells) - 1, -1, -1):
        cell = cells[index]
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "code":
            later |= names_bound(source)
        elif cell["cell_type"] == "markdown":
            for expression in expressions(source):
                hit = sorted(names_read(expression) & later)
                if hit:
                    found.append((index, expression, hit))
    return sorted(found)

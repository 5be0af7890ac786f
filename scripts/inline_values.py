"""Computed values in the prose: the ``{eval}`...``` role of the book's Markdown cells.

One module for the three places that handle them, so they agree on the syntax
and on what a stored value looks like:

* ``scripts/execute_notebooks.py`` evaluates every role's expression in the
  notebook's kernel, right after the code cells above it have run, and stores
  the results in the cell's ``metadata.user_expressions`` (the format that
  jupyterlab-myst reads and writes, so JupyterLab shows the same values and
  recomputes them when the cell is run);
* ``scripts/sphinx_ext/inline_values.py`` (a Sphinx extension) puts the stored
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

"""For instructors: reference answers, the answer key, per-student variants and grading.

This module is the only place that hands out answers; the student edition of
the book does not document it. (The answers are not secret from anyone who
reads the package's source; for marked work, give every student a variant
and grade re-executed notebooks, see :func:`grade`.)

Command line (the same functions)::

    python -m specdec.exercises key [--labels 1.1,1.2] [--seed S]
    python -m specdec.exercises handout --seed S --labels 1.1,1.2,4.3
    python -m specdec.exercises grade SUBMISSIONS/ [--labels ...] [--seeds seeds.csv] [--csv]

Defined in chapter "For instructors".
"""

from __future__ import annotations

import html
from typing import Any

from ._core import describe, exercise_cases, lookup, variant
from ._variants import inputs_for
from ._forms import Flag, Float, Function, Integer, Letter, Seq
from ._grade import GradeReport, grade, read_seeds, select_labels
from ._registry import REGISTRY, Exercise, Mistake, Params, register

__all__ = ["exercise", "reference", "formatted_reference", "mistakes", "answer_key", "AnswerKey", "handout",
           "grade", "GradeReport", "read_seeds", "select_labels", "Exercise", "Mistake", "Params", "register",
           "Float", "Integer", "Flag", "Letter", "Seq", "Function", "REGISTRY"]


def exercise(label: str) -> Exercise:
    """The registry entry of an exercise (its reference, mistakes, inputs and variants).

    Defined in chapter "For instructors".
    """
    return lookup(label)


def reference(label: str, seed: int | str | None = None) -> Any:
    """The reference answer of an exercise (of a variant when ``seed`` is given), computed now.

    For a function exercise this is the reference implementation.

    Defined in chapter "For instructors".
    """
    ex = lookup(label)
    if ex.kind == "function":
        return ex.reference
    return ex.reference(inputs_for(ex, seed))


def formatted_reference(label: str, seed: int | str | None = None) -> str:
    """The reference answer as the answer key prints it, at the exercise's stated precision.

    Defined in chapter "For instructors".
    """
    ex = lookup(label)
    if ex.kind == "function":
        n_cases = len(exercise_cases(ex))
        return f"a function; compared with the reference on {n_cases} cases ({n_cases - ex.n_visible} hidden)"
    params = inputs_for(ex, seed)
    return ex.form(params).format(ex.reference(params))


def mistakes(label: str) -> list[tuple[str, str]]:
    """``(name, message)`` of every typical mistake the checker recognises for an exercise.

    Defined in chapter "For instructors".
    """
    return [(m.name, m.message) for m in lookup(label).mistakes]


class AnswerKey(tuple):
    """Rows ``(number, label, question, form, answer)``; shows as a Markdown or HTML table."""

    def to_markdown(self) -> str:
        def cell(text: str) -> str:
            return str(text).replace("|", "\\|").replace("\n", " ")
        lines = ["| exercise | label | question | form of the answer | answer |", "|---|---|---|---|---|"]
        lines += [f"| {n} | `{label}` | {cell(q)} | {cell(f)} | {cell(a)} |" for n, label, q, f, a in self]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{html.escape(n)}</td><td><code>{html.escape(label)}</code></td>"
                       f"<td>{html.escape(q)}</td><td>{html.escape(f)}</td><td>{html.escape(a)}</td></tr>"
                       for n, label, q, f, a in self)
        return ("<table><thead><tr><th>exercise</th><th>label</th><th>question</th><th>form</th><th>answer</th>"
                f"</tr></thead><tbody>{rows}</tbody></table>")

    def __str__(self) -> str:
        return "\n".join(f"{n:<6} {label:<24} {a}" for n, label, _q, _f, a in self)

    __repr__ = __str__


def answer_key(labels: str | list[str] | None = None, seed: int | str | None = None) -> AnswerKey:
    """Every exercise (or the selected ones) with its computed reference answer and its form.

    ``seed`` gives the key of that student's variants (exercises without
    variants show the book's answer).

    Defined in chapter "For instructors".
    """
    chosen = select_labels(labels if isinstance(labels, str) or labels is None else ",".join(labels))
    rows = []
    for label in chosen:
        ex = REGISTRY[label]
        use = seed if seed is not None and ex.has_variants else None
        params = inputs_for(ex, use)
        question = variant(label, use).statement if use is not None else ex.question
        rows.append((ex.number, label, question, ex.form(params).describe(), formatted_reference(label, use)))
    return AnswerKey(rows)


def handout(labels: str | list[str], seed: int | str, title: str | None = None) -> str:
    """One student's exercise sheet as Markdown: each selected exercise's variant and its check line.

    Exercises without variants are given in the book's version.

    Defined in chapter "For instructors".
    """
    chosen = select_labels(labels if isinstance(labels, str) else ",".join(labels))
    parts = [f"# {title}" if title else f"# Exercises (variant {seed})", ""]
    for label in chosen:
        ex = REGISTRY[label]
        if ex.has_variants:
            parts.append(variant(label, seed).markdown())
        else:
            parts.append(f"**Exercise {ex.number}**\n\n{ex.statement or ex.question}\n\n{describe(label)}\n")
    return "\n".join(parts)


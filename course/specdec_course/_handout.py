"""Handouts: one sheet per roster student, as Markdown and as HTML with the math rendered offline.

Each sheet states the student's keyed variant of every graded exercise (the
inputs only), the options of every multiple-choice question, the form of
each answer and how to check it, and the line that starts the graded
assignment in the student's notebook (``course.assignment(code)``).
Exercises without graded variants are marked as self-check practice.

The HTML needs no network: its math is typeset by a copy of MathJax (from
the repository's ``vendor/mathjax``, made by ``scripts/fetch-assets.sh``)
placed in the output folder's ``_mathjax/``, loaded by a relative path.
"""

from __future__ import annotations

import html
import os
import pathlib
import shutil

from ._assignment import encode
from ._core import describe_case, exercise_cases
from ._course import AssignmentSpec, Roster
from ._registry import REGISTRY, render
from ._variants import CourseKey, keyed_inputs

__all__ = ["sheet", "write_handouts", "mathjax_source"]


def _points(value: float) -> str:
    return f"{value:g} point{'s' if value != 1 else ''}"


def sheet(spec: AssignmentSpec, key: CourseKey, roster: Roster, student: str) -> str:
    """One student's handout as Markdown (math as ``$...$``)."""
    slot = roster.slot(student)
    sid, name = roster.ids[slot], roster.names[slot]
    kinds, inputs = {}, {}
    for label in spec.labels:
        kinds[label] = spec.kind(label)
        if kinds[label] == "variant":
            inputs[label] = keyed_inputs(REGISTRY[label], key, slot)
    code = encode(spec.title, sid, kinds, inputs)
    out = [f"# {spec.title}", "", f"Student: {name + ' ' if name else ''}({sid})", "",
           "Work in a Jupyter notebook. Its first code cell must be:", "", "```python", "import specdec_course as course",
           f'course.assignment("{code}")', "```", "",
           "For the graded exercises below, `course.check(label, answer)` then tells you whether the *form* "
           "of your answer is right (type, shape, precision) and records it; it does not say whether the answer is "
           "correct. Check each answer once you are done with it (the last check of an exercise counts), save the "
           "notebook and hand it in. Your notebook is run again from top to bottom when it is graded.", ""]
    for label in spec.labels:
        exercise = REGISTRY[label]
        kind = kinds[label]
        points = "self-check practice, not graded" if kind == "practice" else _points(spec.points[label])
        out += [f"## Exercise {exercise.number} ({points})", ""]
        params = inputs.get(label, exercise.inputs())
        text = render(exercise.statement, params) if exercise.statement else exercise.question
        out += [text, ""]
        if exercise.choices:
            out += [f"- **{letter.upper()}**: {option}" for letter, option in exercise.choices.items()] + [""]
        form = exercise.form(params)
        if kind == "function":
            examples = ", ".join(describe_case(exercise.reference, case)
                                 for case in exercise_cases(exercise)[: exercise.n_visible])
            out += [f"Answer with {form.describe()}. It is graded on hidden cases chosen for you"
                    + (f"; examples of its inputs: {examples}." if examples else "."), ""]
        else:
            out += [f"Answer with {form.describe()}.", ""]
        if spec.parts.get(label):
            shares = ", ".join(_points(w) for w in spec.parts[label])
            out += [f"Partial credit: {shares} for the parts of the tuple, in order.", ""]
        call = f'course.check("{label}", answer)'
        if kind == "practice":
            out += [f"Check it with `{call}`. This exercise is the same for everyone, so the checker tells you "
                    "whether you are right; it does not count towards your grade.", ""]
        else:
            out += [f"Record it with `{call}`.", ""]
    return "\n".join(out).rstrip() + "\n"


def mathjax_source() -> pathlib.Path | None:
    """The folder of MathJax's ``tex-chtml.js`` to copy next to HTML handouts, or None."""
    here = pathlib.Path(__file__).resolve().parents[2]
    candidates = [os.environ.get("SPECDEC_MATHJAX_DIR", ""), here / "vendor" / "mathjax",
                  here / "node_modules" / "mathjax" / "es5"]
    for candidate in candidates:
        if candidate and (pathlib.Path(candidate) / "tex-chtml.js").is_file():
            return pathlib.Path(candidate)
    return None


_STYLE = ("body{font-family:sans-serif;max-width:46em;margin:2em auto;padding:0 1em;line-height:1.45}"
          "pre{background:#f5f5f5;padding:.6em;overflow-x:auto;white-space:pre-wrap;word-break:break-all}"
          "code{background:#f5f5f5}h2{margin-top:1.6em;border-bottom:1px solid #ddd}")


def to_html(markdown: str, title: str, mathjax: str | None) -> str:
    """Markdown with ``$...$`` math to a self-contained HTML page (MathJax loaded from ``mathjax``, a path)."""
    try:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.dollarmath import dollarmath_plugin

        def math(content, options):
            tex = html.escape(content)
            return f'<div class="math">\\[{tex}\\]</div>' if options.get("display_mode") else \
                f'<span class="math">\\({tex}\\)</span>'

        body = MarkdownIt("commonmark").use(dollarmath_plugin, renderer=math).render(markdown)
    except ImportError:  # no Markdown renderer: paragraphs as text, math still typeset by MathJax
        body = "".join(f"<p>{html.escape(block)}</p>" for block in markdown.split("\n\n"))
    script = ""
    if mathjax:
        script = ('<script>window.MathJax={tex:{inlineMath:[["\\\\(","\\\\)"],["$","$"]]},'
                  'options:{enableMenu:false},loader:{load:[]}};</script>'
                  f'<script id="MathJax-script" src="{html.escape(mathjax)}"></script>')
    else:
        body = "<p><em>The math is shown as TeX: MathJax was not found (run scripts/fetch-assets.sh).</em></p>" + body
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style>{script}'
            f"</head><body>{body}</body></html>\n")


def write_handouts(spec: AssignmentSpec, key: CourseKey, roster: Roster, out: str | os.PathLike,
                   students: list[str] | None = None) -> list[pathlib.Path]:
    """Write ``<id>.md`` and ``<id>.html`` for every roster student (or the given ones) into ``out``."""
    folder = pathlib.Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    source = mathjax_source()
    mathjax = None
    if source is not None:
        target = folder / "_mathjax"
        if not (target / "tex-chtml.js").is_file():
            shutil.copytree(source, target, dirs_exist_ok=True)
        mathjax = "_mathjax/tex-chtml.js"
    written = []
    for sid in (students or list(roster.ids)):
        text = sheet(spec, key, roster, sid)
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in sid)
        (folder / f"{stem}.md").write_text(text, encoding="utf-8")
        (folder / f"{stem}.html").write_text(to_html(text, f"{spec.title} ({sid})", mathjax), encoding="utf-8")
        written += [folder / f"{stem}.md", folder / f"{stem}.html"]
    return written

"""Every chapter has the guide's spine, so a reader always knows where they are.

The nine parts (``/shared/GUIDE.md`` section 2): title and overview, **Setup**
(one visible import cell), derivation, compute, **figure** (a static figure
with a caption and alt text), **Rebuild it** (an explorer), **Where the source
differs** (only when it does), **Summary**, **Exercises**. The bold ones are
checked here as level-2 headings in this order; figures must have a caption,
a name and alt text (``mystnb`` cell metadata); headings carry no math or
LaTeX (it shows raw in the sidebar and the browser tab).
"""

from __future__ import annotations

import hashlib
import re

import nbformat
import pytest
from conftest import ROOT, toc_docnames

REQUIRED = ["Setup", "Rebuild it", "Summary", "Exercises"]
DIFFERS = re.compile(r"^Where the (sources?|literature|engines?) differs?$")
NOT_CHAPTERS = ("book/intro", "book/appendix/")
#: Pages of the main path that are not chapters. "The answer in ten minutes" is a one-page
#: digest of results the chapters derive (issue 23, item 4): it has a Setup cell and no
#: derivation, figure, explorer or exercises of its own, which its home chapters carry.
NOT_SPINE = ("book/start/answer-in-ten-minutes",)


def chapters() -> list[str]:
    return [d for d in toc_docnames() if (ROOT / f"{d}.ipynb").exists() and not d.startswith(NOT_CHAPTERS)
            and d not in NOT_SPINE]


def headings(nb) -> list[tuple[int, int, str]]:
    """(cell index, level, text) of every Markdown heading, outside code fences."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        fenced = False
        for line in cell.source.splitlines():
            if line.startswith(("```", ":::")):
                fenced = not fenced if line.strip() in ("```", ":::") or not fenced else fenced
                continue
            match = re.match(r"^(#{1,6}) (.+?)\s*$", line)
            if match and not fenced:
                found.append((index, len(match.group(1)), match.group(2)))
    return found


@pytest.mark.parametrize("chapter", chapters())
def test_chapter_follows_the_spine(chapter):
    nb = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
    heads = headings(nb)
    assert heads and heads[0][1] == 1, f"{chapter}: the first heading must be the chapter title (# ...)"
    level2 = [(i, text) for i, level, text in heads if level == 2]
    names = [text for _, text in level2]
    for name in REQUIRED:
        assert name in names, f"{chapter}: no '## {name}' section (sections: {names})"
    order = [names.index(n) for n in REQUIRED]
    assert order == sorted(order), f"{chapter}: sections out of order: {names}"
    differs = [n for n in names if DIFFERS.match(n)]
    if differs:
        at = names.index(differs[0])
        assert names.index("Rebuild it") < at < names.index("Summary"), f"{chapter}: '{differs[0]}' must sit between 'Rebuild it' and 'Summary'"
    assert names[-1] == "Exercises", f"{chapter}: Exercises must be the last section"

    setup_at = next(i for i, text in level2 if text == "Setup")
    following = [c for c in nb.cells[setup_at + 1:] if c.cell_type == "code"]
    assert following and "import specdec as sd" in following[0].source, f"{chapter}: the Setup section's first code cell must import specdec as sd"
    assert "remove-input" not in following[0].metadata.get("tags", []), f"{chapter}: the Setup import cell must be visible"

    rebuild_at = next(i for i, text in level2 if text == "Rebuild it")
    next_section = min([i for i, text in level2 if i > rebuild_at] or [len(nb.cells)])
    explorer = [c for c in nb.cells[rebuild_at:next_section] if c.cell_type == "code" and "sd.widgets." in c.source]
    assert explorer, f"{chapter}: 'Rebuild it' has no explorer cell (sd.widgets....)"

    figures = [c for c in nb.cells[:rebuild_at] if c.cell_type == "code" and c.metadata.get("mystnb", {}).get("figure")]
    assert figures, f"{chapter}: no static figure (a code cell with mystnb figure metadata) before 'Rebuild it'"


@pytest.mark.parametrize("chapter", chapters())
def test_figures_have_caption_name_and_alt(chapter):
    nb = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
    bad = []
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get("mystnb", {}) if cell.cell_type == "code" else {}
        if not meta.get("figure"):
            continue
        figure, image = meta["figure"], meta.get("image", {})
        if not figure.get("caption", "").strip() or not figure.get("name"):
            bad.append(f"cell {index}: figure without caption or name")
        if len(image.get("alt", "").strip()) < 20:
            bad.append(f"cell {index}: figure without a real alt text")
        if re.search(r"\{(eval|glue)", figure.get("caption", "")):
            bad.append(f"cell {index}: a computed value in a caption (captions are not evaluated)")
    assert not bad, f"{chapter}:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("chapter", [d for d in toc_docnames() if (ROOT / f"{d}.ipynb").exists()])
def test_headings_and_link_texts_have_no_math(chapter):
    """Math in a heading shows as raw LaTeX in the sidebar, the contents list and the browser tab."""
    nb = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
    bad = [f"cell {i}: {text}" for i, _, text in headings(nb) if "$" in text or "\\(" in text]
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            bad += [f"cell {index}: link text {m}" for m in re.findall(r"\[[^\]]*\$[^\]]*\]\(", cell.source)]
    assert not bad, f"{chapter}: math in headings or link texts:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("chapter", chapters())
def test_no_references_jupyterlab_cannot_resolve(chapter):
    """JupyterLab resolves a reference only to a label of the same notebook (an exercise's ``:label:`` or a
    ``(label)=`` target); figures named in cell metadata, equations and other pages show as bare labels.
    Write "the figure below", or link another chapter with a Markdown link to its ``.ipynb``."""
    nb = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    local = set(re.findall(r"^:label:\s*(\S+)", text, re.M)) | set(re.findall(r"^\(([\w-]+)\)=", text, re.M))
    bad = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for role, target in re.findall(r"\{(numref|ref|eq|doc|download)\}`([^`]+)`", cell.source):
            label = re.sub(r"^.*<([^>]+)>$", r"\1", target).strip()
            if role != "ref" or label not in local:
                bad.append(f"cell {index}: {{{role}}}`{target}`")
    assert not bad, f"{chapter}:\n  " + "\n  ".join(bad)


# --------------------------------------------------------------------------
# issue 23: clean pages (items 5 and 7), checked on the stored notebooks
# --------------------------------------------------------------------------

def _figure_outputs(nb) -> list[tuple[int, str]]:
    """(cell index, sha1 of the PNG) of every figure a chapter stores: PNG outputs and the PNG of an
    explorer's snapshot (an ``<img src="data:image/png;base64,...">`` in its HTML)."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = output.get("data", {})
            if "image/png" in data:
                found.append((index, hashlib.sha1(data["image/png"].encode()).hexdigest()))
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            found += [(index, hashlib.sha1(m.encode()).hexdigest())
                      for m in re.findall(r'src="data:image/png;base64,([^"]+)"', html)]
    return found


def test_no_figure_appears_twice():
    """Issue 23, item 7: no figure is shown twice, in one chapter or in two (a 'Rebuild it' section points at
    the figure above instead of plotting it again). Plots are deterministic: a repeat has the same bytes."""
    where: dict[str, list[str]] = {}
    for docname in [d for d in toc_docnames() if (ROOT / f"{d}.ipynb").exists()]:
        nb = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
        for index, digest in _figure_outputs(nb):
            where.setdefault(digest, []).append(f"{docname} cell {index}")
    repeats = [" and ".join(places) for places in where.values() if len(places) > 1]
    assert not repeats, "figures shown twice:\n  " + "\n  ".join(repeats)


def test_the_duplicate_figure_check_can_fail():
    """The same PNG in two cells is found (the check is not vacuous)."""
    png = "iVBORw0KGgo="
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("f", outputs=[nbformat.v4.new_output("display_data", {"image/png": png})]),
                nbformat.v4.new_code_cell("g", outputs=[nbformat.v4.new_output(
                    "execute_result", {"text/html": f'<div><img src="data:image/png;base64,{png}"></div>'},
                    execution_count=1)])]
    digests = [digest for _, digest in _figure_outputs(nb)]
    assert len(digests) == 2 and digests[0] == digests[1]


#: A sympy symbol whose name holds an expression, such as ``sp.Symbol("c_v(k) - 1")``, typesets as one
#: letter with the whole expression as its subscript, c_{v(k) - 1} (issue 23, item 7).
SYMBOL_AS_SUBSCRIPT = re.compile(r"(?<![\\A-Za-z])[A-Za-z]_\{[A-Za-z]+\([^{}]*\)\s*[-+*/=]")


def test_symbol_as_subscript_pattern():
    assert SYMBOL_AS_SUBSCRIPT.search(r"\displaystyle c_{v(k) - 1} = \frac{f k}{t}")
    assert not SYMBOL_AS_SUBSCRIPT.search(r"c_v(k) - 1 = c_{v}(k) - 1, \quad T_{draft}")
    assert not SYMBOL_AS_SUBSCRIPT.search(r"\underbrace{x}_{\,p(x) = q(x) + d}")


@pytest.mark.parametrize("chapter", [d for d in toc_docnames() if (ROOT / f"{d}.ipynb").exists()])
def test_no_expression_typeset_as_a_subscript(chapter):
    """No LaTeX output or Markdown math of a chapter typesets an expression as a symbol's subscript."""
    nb = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
    bad = []
    for index, cell in enumerate(nb.cells):
        texts = [cell.source] if cell.cell_type == "markdown" else []
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            latex = output.get("data", {}).get("text/latex", "")
            texts.append("".join(latex) if isinstance(latex, list) else latex)
        bad += [f"cell {index}: {m.group(0)}..." for text in texts for m in SYMBOL_AS_SUBSCRIPT.finditer(text)]
    assert not bad, f"{chapter}:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("chapter", chapters())
def test_where_the_source_differs_is_one_paragraph_with_a_link(chapter):
    """Issue 23, item 5: a chapter's "Where the source differs" is one paragraph in the book's words with a
    link to the page that carries the detail (the errata for the two notes, the references for the
    literature)."""
    nb = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        parts = re.split(r"^(## .+?)\s*$", cell.source, flags=re.M)
        for title, body in zip(parts[1::2], parts[2::2], strict=True):
            if not DIFFERS.match(title[3:]):
                continue
            paragraphs = [p for p in re.split(r"\n\s*\n", body.strip()) if p.strip()]
            assert len(paragraphs) == 1, f"{chapter} cell {index}: {title!r} has {len(paragraphs)} paragraphs"
            target = "errata" if "source" in title else r"errata|references"
            assert re.search(rf"\]\([^)]*(?:{target})[^)]*\)", body), \
                f"{chapter} cell {index}: {title!r} links to no {target.replace('|', ' or ')} page"


BARE_LABEL_LINK = re.compile(r"\]\(([a-z][a-z0-9-]*)\)")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.S)


def test_no_link_to_a_bare_label():
    """A link such as [text](break-even-batch) works in the HTML book but is a missing file in JupyterLab:
    link the notebook (and the section's heading anchor, path.ipynb#slug) instead."""
    bad = []
    for path in sorted((ROOT / "book").rglob("*.ipynb")) + sorted((ROOT / "book").rglob("*.md")):
        if "_build" in path.parts or ".ipynb_checkpoints" in path.parts:
            continue
        if path.suffix == ".ipynb":
            texts = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]
        else:
            texts = [path.read_text()]
        for text in texts:
            bad += [f"{path.relative_to(ROOT)}: ({m.group(1)})" for m in BARE_LABEL_LINK.finditer(MATH.sub("", text))
                    if not m.group(1).startswith(("http", "mailto"))]
    assert not bad, bad

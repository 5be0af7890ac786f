"""Static checks of the built HTML book (default ``_build/html``; see conftest.py).

Each test runs once per page of ``_toc.yml`` and names the page when it fails:
the page exists, has no unresolved cross-reference, no execution error output,
no LaTeX that escaped typesetting, no Markdown table left as text, loads nothing from another host, and shows
each explorer as a disabled snapshot or a live explorer (never a widget view that needs a kernel), no Python
repr, unlabelled tuple, ``nan`` or exponent in what a reader reads (``tests/reprs.py``), and every figure stored
with twice the pixels of the size it is shown at.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re

import pytest
from bs4 import BeautifulSoup
from conftest import source_of
from reprs import forbidden_in, page_text, strings_outside

# Text that means a MyST role or directive reached the page unparsed.
# (Not preceded by a word character or backslash, so LaTeX such as k_\text{ref} is not taken for a role.)
UNPARSED_MARKUP = re.compile(
    r"(?<![\w\\])\{(?:glue(?::\w+)?|ref|doc|numref|eq|term|math|download|prf:ref|exercise|solution)\}(?=`|\s|$)"
)
# LaTeX left as text outside math containers.
RAW_LATEX = [
    (re.compile(r"\$\$"), "a literal $$"),
    (re.compile(r"\\\[|\\\]"), r"a literal \[ or \]"),
    (re.compile(r"\\\(|\\\)"), r"a literal \( or \)"),
    (re.compile(r"\\begin\{"), r"a literal \begin{...}"),
    (re.compile(r"\$[^$\n]{0,200}?\\[A-Za-z]+[^$\n]{0,200}?\$"), "a $...\\command...$ string"),
]
# References to other projects' objects (no intersphinx: the build is offline);
# _config.yml's nitpick_ignore_regex lets these through on purpose.
EXTERNAL_OBJECT = re.compile(
    r"^(numpy|np|sympy|sp|matplotlib|mpl|ipywidgets|IPython|collections|typing|dataclasses|time|math"
    r"|fractions|functools|random|statistics|itertools|numbers|timeit)\."
)
THIRD_PARTY = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


def page_path(html: pathlib.Path, docname: str) -> pathlib.Path:
    return html / f"{docname}.html"


def load(html: pathlib.Path, docname: str, fresh: bool = False) -> BeautifulSoup:
    """The parsed page: shared by the tests that only read it (parsing is most of their time);
    ``fresh=True`` for a test that removes elements from its copy."""
    path = page_path(html, docname)
    if not path.is_file():
        pytest.fail(f"{docname}: built page {path} is missing (is it in _toc.yml and did the build succeed?)", pytrace=False)
    if fresh:
        return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    return _parsed(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _parsed(path: pathlib.Path, mtime_ns: int) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def article(soup: BeautifulSoup):
    """The page's own content (without navigation, header and footer)."""
    return soup.select_one("article.bd-article") or soup.select_one("main") or soup.body


def describe(element, limit: int = 160) -> str:
    text = " ".join(element.get_text(" ", strip=True).split())
    return text[:limit] + ("..." if len(text) > limit else "")


def test_page_exists(built_html, docname):
    """Every toc entry was built into a page with a title."""
    soup = load(built_html, docname)
    assert soup.title and soup.title.get_text(strip=True), f"{docname}: page has no <title>"
    assert article(soup).find(["h1"]), f"{docname}: page has no top-level heading"


def test_no_unresolved_references(built_html, docname):
    """Sphinx marks a reference it could not resolve as an unlinked ``xref``; none may remain."""
    soup = load(built_html, docname)
    body = article(soup)
    bad = []
    for xref in body.select(".xref"):
        if xref.find_parent("a") is None and xref.name != "a" and not EXTERNAL_OBJECT.match(xref.get_text(strip=True)):
            bad.append(describe(xref))
    for element in body.find_all(string=UNPARSED_MARKUP):
        if element.find_parent(["pre", "code", "script"]) is None:
            bad.append(f"unparsed markup: {describe(element.parent)}")
    for element in body.find_all(string=re.compile(r"\?\?\?")):
        if element.find_parent(["pre", "code", "script"]) is None:
            bad.append(f"unnumbered reference '???': {describe(element.parent)}")
    assert not bad, f"{docname}: unresolved cross-references:\n  " + "\n  ".join(bad)


def test_no_execution_errors(built_html, docname):
    """No traceback or error output, except in cells tagged ``raises-exception``."""
    soup = load(built_html, docname)
    body = article(soup)
    bad = []
    selectors = [".output.traceback", ".output.error", "div.output.stderr", "div.highlight-ipythontb"]
    for element in body.select(", ".join(selectors)):
        if element.find_parent(class_="tag_raises-exception") is None:
            bad.append(describe(element))
    for element in body.find_all(string=re.compile(r"Traceback \(most recent call last\)|\bename\b")):
        cell = element.find_parent(class_="cell")
        if cell is not None and element.find_parent(class_="cell_output") is not None:
            if "tag_raises-exception" not in (cell.get("class") or []):
                bad.append(describe(element.parent))
    assert not bad, f"{docname}: execution error or stderr output in the page:\n  " + "\n  ".join(dict.fromkeys(bad))


def test_no_raw_latex(built_html, docname):
    """All LaTeX sits in math containers MathJax typesets; none is left as plain text."""
    body = article(load(built_html, docname))
    left_out = {id(e) for e in body.select("script, style, pre, code, .math, .MathJax, mjx-container, .highlight, "
                                           ".output.text_latex")}
    text = " ".join(strings_outside(body, left_out))
    bad = []
    for pattern, label in RAW_LATEX:
        for match in pattern.finditer(text):
            start = max(0, match.start() - 60)
            bad.append(f"{label}: ...{' '.join(text[start:match.end() + 60].split())}...")
    assert not bad, f"{docname}: raw LaTeX outside math (MathJax will not typeset it):\n  " + "\n  ".join(bad[:10])


# A Markdown table row or separator that reached the page as text.
RAW_TABLE = re.compile(r"\|\s*:?[-\u2013\u2014]+:?\s*\|")  # Sphinx may turn -- into an en dash


def test_no_raw_markdown_tables(built_html, docname):
    """Computed Markdown tables render as tables, not as lines of pipes."""
    body = article(load(built_html, docname))
    left_out = {id(e) for e in body.select("script, style, pre, code, .highlight")}

    def kept(element):   # neither it nor an element around it is left out
        return id(element) not in left_out and not any(id(parent) in left_out for parent in element.parents)

    raw = []
    for p in body.find_all(["p", "div"], recursive=True):
        if kept(p) and not any(kept(q) for q in p.find_all(["p", "div", "table"])):
            strings = strings_outside(p, left_out)
            if RAW_TABLE.search(" ".join(strings)):
                text = " ".join(" ".join(t.strip() for t in strings if t.strip()).split())   # as describe(p)
                raw.append(text[:160] + ("..." if len(text) > 160 else ""))
    assert not raw, f"{docname}: {len(raw)} Markdown table(s) shown as text: {raw[:3]}"


def test_no_third_party_resources(built_html, docname):
    """The page loads scripts, styles, images and frames only from the book itself."""
    soup = load(built_html, docname)
    bad = []
    for tag, attr in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
                      ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data")):
        for element in soup.find_all(tag):
            value = element.get(attr)
            if not value:
                continue
            if tag == "link" and not set(element.get("rel") or []) & {"stylesheet", "preload", "icon", "modulepreload", "prefetch", "manifest"}:
                continue  # navigation links (next/prev/index) are not loaded
            if THIRD_PARTY.match(value):
                bad.append(f"<{tag} {attr}={value!r}>")
    for style in soup.find_all("style"):
        if re.search(r"url\(\s*['\"]?(?:https?:)?//|@import\s+['\"]?(?:url\()?\s*['\"]?(?:https?:)?//", style.get_text()):
            bad.append(f"<style> with an external url: {describe(style)}")
    assert not bad, f"{docname}: loads from another host:\n  " + "\n  ".join(bad)


def test_explorers_are_live_or_disabled_snapshots(built_html, docname):
    """Each explorer output of the notebook is on the page: a disabled snapshot with its note, or live.

    No page embeds a widget view or widget state (they need a kernel and the
    ipywidgets HTML manager, which the book no longer ships); every page loads
    the book's own ``specdec-live.js``, which makes the explorers marked
    ``specdec-live`` live.
    """
    soup = load(built_html, docname)
    srcs = [s.get("src", "") for s in soup.find_all("script")]
    assert any(src.split("?")[0].endswith("_static/specdec-live.js") for src in srcs), \
        f"{docname}: the page does not load _static/specdec-live.js"
    assert soup.find("script", type="application/vnd.jupyter.widget-view+json") is None, f"{docname}: a widget view"
    assert soup.find("script", type="application/vnd.jupyter.widget-state+json") is None, f"{docname}: widget state"
    source = source_of(docname)
    if source is None or source.suffix != ".ipynb":
        return
    import nbformat

    from specdec.widgets._base import SNAPSHOT_NOTE

    nb = nbformat.read(source, as_version=4)
    stored = [
        BeautifulSoup(output["data"]["text/html"], "html.parser").select_one(".specdec-explorer")
        for cell in nb.cells if cell.cell_type == "code" for output in cell.get("outputs", [])
        if "specdec-explorer" in output.get("data", {}).get("text/html", "")
    ]
    shown = article(soup).select("div.specdec-explorer")
    assert [e.get("data-explorer") for e in shown] == [e.get("data-explorer") for e in stored], \
        f"{docname}: explorers stored and explorers on the page differ"
    for explorer in shown:
        name = explorer.get("data-explorer")
        fields = explorer.find_all(["input", "select"])
        assert fields and all(f.has_attr("disabled") for f in fields), f"{docname}: {name} has a control that moves"
        assert explorer.select("[data-key]"), f"{docname}: {name} has no read-out"
        note = explorer.select_one(".specdec-note")
        assert note is not None and note.get_text(" ", strip=True) == SNAPSHOT_NOTE, f"{docname}: {name}: no note"
        assert "data:image" not in str(explorer), f"{docname}: {name} repeats the figure as an image"
        if "specdec-live" in explorer.get("class", []):
            config = json.loads(explorer["data-config"])
            assert config["explorer"] == name and config["controls"], f"{docname}: {name}: bad data-config"
        else:
            assert not explorer.has_attr("data-config"), f"{docname}: {name}"


def test_vendored_assets_present(built_html):
    """MathJax and the live explorers' script were copied into the book."""
    for name in ("mathjax/tex-chtml.js", "mathjax/output/chtml/fonts/woff-v2", "specdec-live.js"):
        assert (built_html / "_static" / name).exists(), f"_static/{name} missing: run `bash scripts/build-book.sh`"


def test_static_css_is_local(built_html):
    """No stylesheet shipped with the book imports fonts or styles from another host."""
    bad = []
    pattern = re.compile(r"@import\s+(?:url\()?\s*['\"]?(?:https?:)?//|url\(\s*['\"]?(?:https?:)?//")
    for css in (built_html / "_static").rglob("*.css"):
        if pattern.search(css.read_text(encoding="utf-8", errors="replace")):
            bad.append(str(css.relative_to(built_html)))
    assert not bad, "stylesheets loading from another host: " + ", ".join(bad)


def test_no_python_reprs_on_the_page(built_html, docname):
    """Issue 23, item 7: no dict, list or tuple repr, no unlabelled tuple, no ``nan``, no ``4e+03``.

    Read in the page's prose, its cell outputs, tables and explorer read-outs (code is code: cell inputs and
    code literals are left out, see ``tests/reprs.py``).
    """
    found = forbidden_in(page_text(load(built_html, docname)))
    assert not found, f"{docname}: {len(found)} repr(s) a reader would see:\n  " + "\n  ".join(found[:12])


def test_figures_are_stored_at_twice_the_pixels_they_are_shown_at(built_html, docname):
    """Every figure of a cell output is a PNG with 2 x the pixels of its CSS size (the ``width`` MyST-NB writes
    from the output's metadata), so it is sharp on a high-density screen and as large as before."""
    from PIL import Image

    page = page_path(built_html, docname)
    bad = []
    for img in article(load(built_html, docname)).select(".cell_output img"):
        src = img.get("src", "")
        if src.startswith("data:"):
            continue
        width = img.get("width") or (re.search(r"width:\s*(\d+)px", img.get("style", "")) or [None, None])[1]
        with Image.open((page.parent / src).resolve()) as image:
            pixels = image.size[0]
        if width is None or pixels < 2 * int(float(width)) - 1:
            bad.append(f"{src}: {pixels} px wide, shown at {width or 'its own pixel width'}")
    assert not bad, f"{docname}: figures not stored at twice their size:\n  " + "\n  ".join(bad[:5])

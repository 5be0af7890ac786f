"""Both HTML editions: the check line in every exercise box, and a clean student edition.

The full (instructors') edition is built by ``bash scripts/build-book.sh``
into ``_build/html``, the student edition by ``bash scripts/build-student.sh``
into ``_build_student/_build/html``. These tests read their HTML (and, for
the student edition, headless Chromium) and check that

* every exercise box, in both editions, ends with the line that names the
  exact check call with its label and the form of the answer, as the registry
  states it (``course.describe(label)``);
* the student edition has every exercise and no solution (no solution element
  or title, no sentence or code line of a solution, in any file of the build);
* it has no instructors' material: no instructors' page, no answer key, no
  documentation of ``specdec_course.instructors``, no mention of
  ``reference()``, of solutions that are not there, or of the instructors'
  page; no copies of the notebooks (``_sources``) and no download button;
* each edition drops the other's ``*-edition-only`` blocks;
* the full edition has the instructors' page with an answer key of every
  exercise.

The builds are *required*: if one is missing these tests FAIL (they do not
skip). Build them first, or set ``SPECDEC_BUILD_STUDENT=1`` /
``SPECDEC_BUILD_BOOK=1`` to have the tests run the scripts once.
``SPECDEC_STUDENT_HTML`` / ``SPECDEC_HTML_DIR`` may point elsewhere.

The Sphinx extension (``scripts/sphinx_exercises.py``) is also tested on
small projects at the bottom, so these tests can be seen to fail.
"""

from __future__ import annotations

import contextlib
import functools
import html as html_lib
import io
import json
import os
import pathlib
import re
import subprocess

import pytest
from bs4 import BeautifulSoup

import specdec_course as course
from specdec_course import REGISTRY, instructors

ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
STUDENT_CANDIDATES = (ROOT / "_build_student" / "_build" / "html", ROOT / "_build_student" / "html")
SOLUTION_CLASSES = {"solution", "solution-start", "solution-end"}

#: MyST directive opening line with its option lines.
DIRECTIVE_RE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
    r"(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
    re.MULTILINE,
)

#: What a student edition's text must not say (it has no solutions, no instructors' page, no answers API).
FORBIDDEN_PHRASES = (
    r"worked solution", r"solution (?:in|below|dropdown)", r"solutions? (?:in a )?(?:collapsed )?dropdown",
    r"Solution to", r"open (?:it|the solution)", r"reference\(\)", r"specdec_course\.instructors",
    r"answer key", r"[Ff]or instructors", r"appendix/instructors", r"instructors['’] page",
)


# --------------------------------------------------------------------------
# What the source notebooks say should (not) be there
# --------------------------------------------------------------------------
def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _normalise(text):
    """One-line text, with Sphinx's typographic quotes turned back into ASCII."""
    text = html_lib.unescape(text).translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"',
                                                             "\u201d": '"'}))
    return " ".join(text.split())


def _squash(text):
    """Text without any whitespace: robust to how HTML splits code into highlighted spans."""
    return re.sub(r"\s+", "", html_lib.unescape(text))


def solution_spans(cells):
    """``(first, last, label)`` cell index ranges of gated solutions (inclusive)."""
    spans, start, label = [], None, None
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        for m in DIRECTIVE_RE.finditer(_source(cell) + "\n"):
            if m["name"] == "solution-start" and start is None:
                start, label = i, m["arg"].strip()
            elif m["name"] == "solution-end" and start is not None:
                spans.append((start, i, label))
                start = label = None
    if start is not None:
        raise ValueError(f"solution-start {label!r} (cell {start}) has no solution-end")
    return spans


def _plain_runs(markdown, min_len=28):
    """Runs of plain prose likely to survive rendering."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\{[^}]*\}`[^`]*`|\[[^\]]*\]\([^)]*\)", "|", markdown, flags=re.S)
    text = re.sub(r"^(`{3,}|:{3,}).*$|^[ \t]*:[\w-]+:.*$", "|", text, flags=re.M)
    runs = re.findall(r"[A-Za-z][A-Za-z0-9 ,;'()-]+[A-Za-z0-9]", " ".join(text.split()))
    return [r.strip() for r in runs if len(r.strip()) >= min_len]


def _chapter_expectations():
    """{html path: (exercise labels, solution secrets)} for notebooks with exercises."""
    out = {}
    for path in sorted(BOOK.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        labels = []
        for cell in cells:
            if cell.get("cell_type") == "markdown":
                for m in DIRECTIVE_RE.finditer(_source(cell) + "\n"):
                    if m["name"] in ("exercise", "exercise-start"):
                        label = re.search(r":label:[ \t]*(\S+)", m["opts"])
                        if label:
                            labels.append(label.group(1))
        if not labels:
            continue
        inside = set()
        for first, last, _label in solution_spans(cells):
            inside.update(range(first, last + 1))
        outside_text = _normalise(" ".join(_source(c) for i, c in enumerate(cells) if i not in inside))
        secrets = set()
        for i in sorted(inside):
            cell = cells[i]
            text = _source(cell)
            if cell.get("cell_type") == "markdown":
                candidates = _plain_runs(text)
            else:
                candidates = [line.strip() for line in text.splitlines()
                              if len(line.strip()) >= 12 and not line.strip().startswith("#")]
            secrets.update(c for c in candidates if _normalise(c) not in outside_text)
        # the check call of every box is on the page on purpose (its check line), not a solution's secret
        shown = {re.search(r"course\.check\([^)]*\)", course.describe(label)).group(0)
                 for label in labels if label in REGISTRY}
        secrets = {s for s in secrets if s not in shown}
        out[path.relative_to(ROOT).with_suffix(".html").as_posix()] = (labels, sorted(secrets))
    return out


EXPECTED = _chapter_expectations()
PAGES = sorted(EXPECTED)


# --------------------------------------------------------------------------
# Detectors (pure functions, unit-tested below)
# --------------------------------------------------------------------------
@functools.lru_cache(maxsize=160)
def _soup(markup: str) -> BeautifulSoup:
    """The parsed page, shared (read only): several tests read each page, and parsing is most of their time (the
    scheduler of conftest.py keeps a page's tests, and the sweeps over every page, on one worker)."""
    return BeautifulSoup(markup, "html.parser")


def solution_problems(markup, secrets=()):
    """List what in this HTML page looks like a solution (empty list = clean)."""
    if not secrets and "olution" not in markup:   # no solution class and no "Solution" title can be in it
        return []
    soup = _soup(markup)
    problems = []
    for element in soup.find_all(class_=True):
        classes = set(element.get("class", []))
        if classes & SOLUTION_CLASSES:
            problems.append(f"element <{element.name} class={' '.join(sorted(classes))}>")
    article = soup.find("article") or soup
    for title in soup.find_all(class_="admonition-title"):
        if _normalise(title.get_text(" ")).startswith("Solution"):
            problems.append("a 'Solution to' title")
    squashed = _squash(article.get_text(""))
    for secret in secrets:
        if _squash(secret) in squashed:
            problems.append(f"solution text {secret!r}")
    return problems


def missing_exercises(markup, labels):
    """Labels whose exercise box (an element with class 'exercise' and id=label) is missing."""
    soup = _soup(markup)
    return [label for label in labels
            if soup.find(id=label) is None or "exercise" not in set(soup.find(id=label).get("class", []))]


def check_line_problems(markup, labels):
    """Exercise boxes whose check line is missing, doubled or not the registry's."""
    soup = _soup(markup)
    problems = []
    for label in labels:
        box = soup.find(id=label)
        if box is None:
            problems.append(f"{label}: no exercise box")
            continue
        lines = box.find_all(class_="specdec-check-line")
        if len(lines) != 1:
            problems.append(f"{label}: {len(lines)} check lines")
            continue
        text = _normalise(lines[0].get_text(""))
        if text != course.describe(label):
            problems.append(f"{label}: {text!r} is not {course.describe(label)!r}")
        call = re.search(r"course\.check\([^)]*\)", course.describe(label)).group(0)
        code = lines[0].find("code")
        if code is None or _normalise(code.get_text("")) != call:
            problems.append(f"{label}: the check call {call} is not shown as code")
    return problems


def forbidden_mentions(text):
    return [m.group(0) for pattern in FORBIDDEN_PHRASES for m in re.finditer(pattern, text)]


# --------------------------------------------------------------------------
# Locating (or building) the two editions
# --------------------------------------------------------------------------
def _find(candidates, env_var, build_var, script):
    if os.environ.get(build_var) == "1":
        proc = subprocess.run(["bash", str(ROOT / "scripts" / script)], cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.fail(f"bash scripts/{script} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    candidates = list(candidates)
    if os.environ.get(env_var):
        candidates.insert(0, pathlib.Path(os.environ[env_var]))
    for folder in candidates:
        if (folder / "index.html").exists():
            return folder
    pytest.fail(f"The edition is missing: none of {', '.join(map(str, candidates))} has an index.html. Build it "
                f"with `bash scripts/{script}` (or run these tests with {build_var}=1).")


@pytest.fixture(scope="session")
def student_html():
    """The student edition's HTML folder; FAILS (not skips) when it is missing."""
    return _find(STUDENT_CANDIDATES, "SPECDEC_STUDENT_HTML", "SPECDEC_BUILD_STUDENT", "build-student.sh")


@pytest.fixture(scope="session")
def full_html():
    """The full edition's HTML folder; FAILS (not skips) when it is missing."""
    return _find((ROOT / "_build" / "html",), "SPECDEC_HTML_DIR", "SPECDEC_BUILD_BOOK", "build-book.sh")


def _page(folder, rel):
    path = folder / rel
    if not path.exists():
        pytest.fail(f"the edition in {folder} has no page {rel}")
    return path.read_text(encoding="utf-8")


def _html_pages(folder):
    return [p for p in sorted(folder.rglob("*.html")) if "_static" not in p.parts]


def _article(markup: str) -> str | None:
    """The page's ``<article>`` as written (what ``reprs.page_text`` reads), found without parsing."""
    start, end = markup.find('<article class="bd-article"'), markup.rfind("</article>")
    return markup[start:end] if 0 <= start < end else None


def test_student_pages_show_no_python_reprs(student_html, full_html):
    """Issue 23, item 7, in the student edition too: no repr, unlabelled tuple, ``nan`` or exponent on a page.

    A page whose article is the full edition's, byte for byte (the API reference, pages without exercises), is
    checked there (``tests/test_built_html.py``); every other page is parsed and read here."""
    from conftest import toc_docnames
    from reprs import forbidden_in, page_text

    bad, read = {}, 0
    for docname in toc_docnames():
        path = student_html / f"{docname}.html"
        if path.exists():
            markup = path.read_text(encoding="utf-8")
            full = full_html / f"{docname}.html"
            article = _article(markup)
            if article is not None and full.exists() and article == _article(full.read_text(encoding="utf-8")):
                continue
            read += 1
            found = forbidden_in(page_text(_soup(markup)))
            if found:
                bad[docname] = found[:3]
    assert not bad, "reprs a reader would see:\n" + "\n".join(f"  {d}: {f}" for d, f in bad.items())
    assert read >= len(PAGES), f"only {read} pages differ from the full edition's: every chapter with exercises does"


def test_book_has_exercises_to_check():
    assert len(EXPECTED) >= 10 and all(labels for labels, _ in EXPECTED.values())


# --------------------------------------------------------------------------
# Both editions: the check line of every exercise box
# --------------------------------------------------------------------------
@pytest.mark.parametrize("rel", PAGES)
def test_full_edition_boxes_show_the_check_line(full_html, rel):
    """Full edition: each exercise box ends with its check call and the answer's form, from the registry."""
    labels, _ = EXPECTED[rel]
    problems = check_line_problems(_page(full_html, rel), labels)
    assert not problems, f"{rel}: {problems[:5]}"


@pytest.mark.parametrize("rel", PAGES)
def test_student_edition_boxes_show_the_check_line(student_html, rel):
    """Student edition: the same line in every exercise box."""
    labels, _ = EXPECTED[rel]
    problems = check_line_problems(_page(student_html, rel), labels)
    assert not problems, f"{rel}: {problems[:5]}"


# --------------------------------------------------------------------------
# The student edition: no solutions
# --------------------------------------------------------------------------
def test_student_edition_has_no_solution_markup(student_html):
    """No page of the student edition has a solution element or 'Solution to' title."""
    bad = {p.relative_to(student_html).as_posix(): solution_problems(p.read_text(encoding="utf-8", errors="replace"))[:5]
           for p in _html_pages(student_html)}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"solutions found in the student edition: {bad}"


@pytest.mark.parametrize("rel", PAGES)
def test_student_chapter_shows_exercises_without_solutions(student_html, rel):
    """Each chapter shows every exercise and none of its solution text or code."""
    labels, secrets = EXPECTED[rel]
    markup = _page(student_html, rel)
    assert not missing_exercises(markup, labels), f"{rel}: exercises missing: {missing_exercises(markup, labels)}"
    problems = solution_problems(markup, secrets)
    assert not problems, f"{rel}: {problems[:5]}"


def test_no_file_of_the_student_edition_contains_a_solution(student_html):
    """Not the search index, not a copied source: no file of the build holds a solution's code line."""
    secrets = {s for _labels, secrets in EXPECTED.values() for s in secrets if "(" in s or "=" in s}
    assert not (student_html / "_sources").exists(), "the student edition ships the notebooks' sources"
    found = []
    for path in student_html.rglob("*"):
        if path.suffix not in (".html", ".js", ".txt", ".ipynb", ".md", ".json") or "_static" in path.parts:
            continue
        squashed = _squash(path.read_text(encoding="utf-8", errors="replace"))
        found += [(path.name, s) for s in secrets if _squash(html_lib.escape(s)) in squashed or _squash(s) in squashed]
    assert not found, f"solution code in the student edition's files: {found[:5]}"


@pytest.fixture(scope="module")
def student_tab(browser):
    """One tab that goes from chapter to chapter of the student edition (as a student's does)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.mark.parametrize("rel", PAGES, ids=PAGES)
def test_student_edition_in_browser(student_html, student_tab, rel):
    """Chromium: the page's exercises and check lines are rendered and no solution element or text is in it."""
    labels, secrets = EXPECTED[rel]
    page = student_tab
    page.goto((student_html / rel).resolve().as_uri(), wait_until="load")
    found = page.evaluate(
        """(labels) => ({
            solutions: document.querySelectorAll('.solution, .solution-start, .solution-end').length,
            exercises: labels.filter(l => {
                const e = document.getElementById(l);
                return e !== null && e.classList.contains('exercise')
                    && e.querySelector('.specdec-check-line') !== null
                    && e.querySelector('.specdec-check-line').offsetHeight > 0;
            }).length,
            text: (document.querySelector('article') || document.body).innerText,
            titles: Array.from(document.querySelectorAll('.admonition-title'))
                .filter(t => t.innerText.trim().startsWith('Solution')).length,
            downloads: document.querySelectorAll('a[href$=".ipynb"]').length,
        })""",
        labels,
    )
    problems = []
    if found["solutions"]:
        problems.append(f"{found['solutions']} solution elements")
    if found["exercises"] != len(labels):
        problems.append(f"{found['exercises']} of {len(labels)} exercises rendered with a visible check line")
    if found["titles"]:
        problems.append("'Solution to' title")
    if found["downloads"]:
        problems.append("a link to download the notebook (it holds the solutions)")
    problems += [f"solution text {s!r}" for s in secrets if _squash(s) in _squash(found["text"])]
    assert not problems, f"student edition page {rel}: {problems[:5]}"


# --------------------------------------------------------------------------
# The student edition: no instructors' material, no mention of it
# --------------------------------------------------------------------------
def test_student_edition_has_no_instructors_material(student_html):
    """No instructors' page, no answer key, no documentation of the instructors' module."""
    assert not (student_html / "book" / "appendix" / "instructors.html").exists()
    for path in _html_pages(student_html):
        markup = path.read_text(encoding="utf-8", errors="replace")
        soup = _soup(markup)
        assert not soup.find(class_="specdec-answer-key"), f"{path.name} has an answer key"
        assert not soup.find(id=re.compile(r"^specdec_course\.instructors")), f"{path.name} documents it"
        assert not soup.find(class_="full-edition-only"), f"{path.name} has a full-edition-only block"


def test_student_edition_text_mentions_nothing_it_does_not_have(student_html):
    """No page mentions solutions, the instructors' page, an answer key or an API that returns answers."""
    bad = {}
    for path in _html_pages(student_html):
        soup = _soup(path.read_text(encoding="utf-8", errors="replace"))
        main = soup.find("main") or soup.find("article") or soup
        found = forbidden_mentions(main.get_text(" "))
        if found:
            bad[path.relative_to(student_html).as_posix()] = sorted(set(found))
    assert not bad, f"the student edition mentions what it does not contain: {bad}"


def test_full_edition_has_the_instructors_page_and_answer_key(full_html):
    """The full (instructors') edition: the instructors' page with an answer key row for every exercise."""
    soup = _soup(_page(full_html, "book/appendix/instructors.html"))
    table = soup.find("table", class_="specdec-answer-key")
    assert table is not None
    rows = {}
    for tr in table.find("tbody").find_all("tr"):
        cells = [_normalise(td.get_text(" ")) for td in tr.find_all("td")]
        rows[cells[1]] = cells
    assert list(rows) == course.labels()
    for label, cells in rows.items():
        assert cells[0] == REGISTRY[label].number
        assert cells[2] == _normalise(instructors.formatted_reference(label))
        assert cells[3] == REGISTRY[label].form().describe()
    assert soup.find(id="specdec_course.instructors.reference") is not None
    for path in _html_pages(full_html):
        markup = path.read_text(encoding="utf-8", errors="replace")
        # a page whose markup never names the class has no element of it: only the others are parsed
        assert "student-edition-only" not in markup or not _soup(markup).find(
            class_="student-edition-only"), f"{path.name} has a student-edition-only block"


# --------------------------------------------------------------------------
# Unit tests of the detectors (no build needed)
# --------------------------------------------------------------------------
_FULL_PAGE = """<html><body><article>
<div class="exercise admonition" id="demo-1"><p>Compute the thing.</p></div>
<div class="solution dropdown admonition" id="demo-solution-1"><p class="admonition-title">Solution to Exercise 1</p>
<p>The secret explanation of the answer lives here.</p>
<pre>answer = sd.break_even_alpha(4, 0.08, 1.15)</pre></div>
</article></body></html>"""


def test_detectors_flag_a_page_with_a_solution():
    secrets = ["The secret explanation of the answer lives here", "answer = sd.break_even_alpha(4, 0.08, 1.15)"]
    problems = solution_problems(_FULL_PAGE, secrets)
    assert any("solution" in p for p in problems) and "a 'Solution to' title" in problems
    assert sum(p.startswith("solution text") for p in problems) == 2
    assert missing_exercises(_FULL_PAGE, ["demo-1"]) == [] and missing_exercises(_FULL_PAGE, ["demo-2"]) == ["demo-2"]
    clean = re.sub(r'<div class="solution.*?</div>', "", _FULL_PAGE, flags=re.S)
    assert solution_problems(clean, ["The secret explanation of the answer lives here"]) == []


def test_detectors_flag_missing_or_wrong_check_lines():
    label = "expected-tokens-1"
    line = course.describe(label)
    call = f'course.check("{label}", answer)'
    good = (f'<div class="exercise" id="{label}"><p class="specdec-check-line">Check your answer: <code>{call}</code>'
            f'{line.split(call, 1)[1]}</p></div>')
    assert check_line_problems(good, [label]) == []
    assert check_line_problems(good.replace("2 decimals", "3 decimals"), [label])
    assert check_line_problems(f'<div class="exercise" id="{label}"></div>', [label])
    assert forbidden_mentions("Each exercise also has a worked solution in a collapsed dropdown") and \
        forbidden_mentions("call course.get(label).reference() for the answer")
    assert not forbidden_mentions("the solution of the cubic is unique")


def test_solution_spans_reject_an_unclosed_solution():
    with pytest.raises(ValueError, match="no solution-end"):
        solution_spans([{"cell_type": "markdown", "source": "```{solution-start} demo-1\n```\nSecret."}])


# --------------------------------------------------------------------------
# The Sphinx extension on small projects
# --------------------------------------------------------------------------
def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text, outputs=()):
    return {"cell_type": "code", "metadata": {}, "source": text, "outputs": list(outputs), "execution_count": None}


def _mini_project(root, edition, hide, label="expected-tokens-1", box_extra=""):
    """A two-page Sphinx + MyST-NB project with one gated exercise, a solution and edition-only blocks."""
    nb = {"cells": [
        _md("# Mini\n\nIntro text.\n\n```{note}\n:class: full-edition-only\nFULLONLY sentence, see [the page](hidden.md) and {doc}`hidden`.\n```\n\n"
            "```{note}\n:class: student-edition-only\nSTUDENTONLY sentence.\n```\n\nSee [the hidden page](hidden.md)."),
        _md(f"```{{exercise-start}}\n:label: {label}\n```\nCompute QUESTIONTEXT.{box_extra}\n```{{exercise-end}}\n```"),
        _md(f"```{{solution-start}} {label}\n:class: dropdown\n```\nSOLUTIONTEXT explains."),
        _code("answer = 41 + 1  # SOLUTIONCODE\nprint('SOLUTIONOUTPUT', answer)",
              [{"output_type": "stream", "name": "stdout", "text": "SOLUTIONOUTPUT 42\n"}]),
        _md("```{solution-end}\n```"),
        _md("Trailing TEXTAFTER."),
    ], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}
    for number, cell in enumerate(nb["cells"]):
        cell["id"] = f"cell-{number}"
    (root / "mini.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    toctree = "mini\nhidden" if edition == "full" else "mini"
    (root / "index.md").write_text(f"# Index\n\n```{{toctree}}\n{toctree}\n```\n", encoding="utf-8")
    (root / "hidden.md").write_text("# Hidden\n\nInstructors only.\n", encoding="utf-8")
    excluded = ["_build"] + (["hidden.md"] if edition == "student" else [])
    (root / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
        "extensions = ['myst_nb', 'sphinx_exercise', 'sphinx_exercises']\n"
        f"nb_execution_mode = 'off'\nexclude_patterns = {excluded!r}\n"
        f"hide_solutions = {hide!r}\nspecdec_edition = {edition!r}\nspecdec_omitted_docs = ['hidden']\n"
        "specdec_require_all_exercises = False\n"
        + ("suppress_warnings = ['myst.xref_missing']\n" if edition == "student" else ""), encoding="utf-8")


def _build(root, warnings_are_errors=True):
    """``sphinx-build -q -b html [-W] root root/_build``, run in this process: its exit status and its output.

    The command line's own entry point (``sphinx.cmd.build.build_main``), which gives each build its own docutils
    namespace; in this process Sphinx, MyST-NB and the course package are imported once for every mini project,
    not once per build (a subprocess spent about 3 s of its 4 s importing them). A build hands its chapter
    numbers to the course package (``_chapters.number_chapters``); the numbers this process had are put back.
    """
    from sphinx.cmd.build import build_main

    from specdec_course import _chapters

    args = (["-W"] if warnings_are_errors else []) + ["-q", "-b", "html", str(root), str(root / "_build")]
    out, err = io.StringIO(), io.StringIO()
    handed = _chapters.numbering() if _chapters._HANDED is not None else None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = build_main(args)
    finally:
        _chapters.number_chapters(handed)
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("edition, hide", [("student", True), ("full", False)])
def test_extension_editions_solutions_and_check_line(tmp_path, edition, hide):
    """Student: no solution, no full-only block, the omitted page's link is text. Full: the reverse.
    Both: the registry's check line in the box."""
    _mini_project(tmp_path, edition, hide)
    proc = _build(tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = (tmp_path / "_build" / "mini.html").read_text(encoding="utf-8")
    assert missing_exercises(page, ["expected-tokens-1"]) == [] and "QUESTIONTEXT" in page and "TEXTAFTER" in page
    assert check_line_problems(page, ["expected-tokens-1"]) == []
    problems = solution_problems(page, ["SOLUTIONTEXT explains", "print('SOLUTIONOUTPUT', answer)"])
    if edition == "student":
        assert problems == [] and "SOLUTION" not in page
        assert "FULLONLY" not in page and "STUDENTONLY" in page
        assert 'href="hidden.html"' not in page and "the hidden page" in page
    else:
        assert len(problems) == 4, problems
        assert "FULLONLY" in page and "STUDENTONLY" not in page and 'href="hidden.html"' in page


def test_extension_rejects_an_unregistered_label(tmp_path):
    """An exercise box whose label the registry lacks fails the build (-W)."""
    _mini_project(tmp_path, "full", False, label="zz-unregistered-1")
    proc = _build(tmp_path)
    assert proc.returncode != 0 and "not in specdec's exercise registry" in proc.stderr


def test_extension_refreshes_a_stored_check_line_and_warns_when_stale(tmp_path):
    """A box that already has the registry's line (a stored {eval} value) keeps one; a stale one warns."""
    _mini_project(tmp_path, "full", False, box_extra="\n\n" + course.describe("expected-tokens-1"))
    assert _build(tmp_path).returncode == 0
    assert check_line_problems((tmp_path / "_build" / "mini.html").read_text(encoding="utf-8"),
                               ["expected-tokens-1"]) == []
    stale = tmp_path / "stale"
    stale.mkdir()
    _mini_project(stale, "full", False, box_extra="\n\nCheck your answer: an old line.")
    proc = _build(stale)
    assert proc.returncode != 0 and "re-execute the notebook" in proc.stderr


def test_extension_answer_key_is_refused_in_the_student_edition(tmp_path):
    _mini_project(tmp_path, "student", True)
    (tmp_path / "index.md").write_text("# Index\n\n```{specdec-answer-key}\n```\n\n```{toctree}\nmini\n```\n")
    proc = _build(tmp_path)
    assert proc.returncode != 0 and "not part of the student edition" in proc.stderr


def _numbered_project(root, first):
    """A numbered toctree with ``first`` and then the first chapter of the book (by its docname), and a page with
    the answer key of that chapter's first exercise."""
    chapter = "book/part1-speedup-bounds/01-expected-tokens"
    (root / chapter).parent.mkdir(parents=True)
    (root / f"{chapter}.md").write_text("# Expected tokens per round\n\nText.\n", encoding="utf-8")
    (root / "other.md").write_text("# Other\n\nText.\n", encoding="utf-8")
    (root / "key.md").write_text("# Key\n\n```{specdec-answer-key}\n:labels: expected-tokens-1\n```\n",
                                 encoding="utf-8")
    entries = "\n".join(dict.fromkeys([first, chapter]))
    (root / "index.md").write_text(f"# Index\n\n```{{toctree}}\n:numbered:\n{entries}\n```\n\n"
                                   "```{toctree}\n:hidden:\nkey\n```\n", encoding="utf-8")
    (root / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
        "extensions = ['myst_nb', 'sphinx_exercise', 'sphinx_exercises']\n"
        "nb_execution_mode = 'off'\nexclude_patterns = ['_build']\nspecdec_require_all_exercises = False\n"
        + ("exclude_patterns.append('other.md')\n" if first != "other" else ""), encoding="utf-8")


def _key_number(root) -> str:
    page = (root / "_build" / "key.html").read_text(encoding="utf-8")
    row = re.search(r"<tr[^>]*>\s*<td[^>]*><p>([^<]*)</p>\s*</td>\s*<td[^>]*><p><code[^>]*><span[^>]*>"
                    r"expected-tokens-1", page)
    assert row, page[-3000:]
    return row.group(1)


def test_extension_numbers_exercises_as_sphinx_numbers_the_chapters(tmp_path):
    """The answer key takes Sphinx's chapter numbers; they agree with the package's shipped ones (no warning)."""
    _numbered_project(tmp_path, "book/part1-speedup-bounds/01-expected-tokens")
    proc = _build(tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _key_number(tmp_path) == "1.1"


def test_extension_warns_when_sphinx_numbers_a_chapter_otherwise(tmp_path):
    """A chapter Sphinx numbers 2 while the shipped numbering says 1: a warning (an error under -W), and the
    answer key follows Sphinx."""
    _numbered_project(tmp_path, "other")
    proc = _build(tmp_path)
    assert proc.returncode != 0 and "Sphinx numbers this chapter 2, the course package's data 1" in proc.stderr
    assert _build(tmp_path, warnings_are_errors=False).returncode == 0
    assert _key_number(tmp_path) == "2.1"

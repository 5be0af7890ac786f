"""The student edition contains every exercise and no solution.

The student edition is built by ``bash scripts/build-student.sh`` into
``_build_student/``. These tests read its HTML twice: as plain HTML (no
browser) and in headless Chromium through Playwright, and check that

* every chapter page with exercises exists and shows each exercise
  (sphinx-exercise gives the exercise box the label as its ``id``);
* no element carries a ``solution`` class and no "Solution to" title remains;
* no text of a solution (explanation sentences, solution code lines) appears.

The build is *required*: if it is missing, these tests FAIL (they do not
skip). Build it first, or set ``SPECDEC_BUILD_STUDENT=1`` to have the tests
run ``bash scripts/build-student.sh`` once. ``SPECDEC_STUDENT_HTML`` may
point at the HTML folder if it lives elsewhere.

The helpers that remove solutions (``specdec.exercises._student``) and the
detectors used here are unit-tested at the bottom on small inputs, so these
tests can be seen to fail on a page that does contain a solution.
"""

from __future__ import annotations

import html as html_lib
import json
import os
import pathlib
import re
import subprocess

import pytest
from bs4 import BeautifulSoup

from specdec.exercises import _student

ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CANDIDATES = (ROOT / "_build_student" / "html", ROOT / "_build_student" / "_build" / "html")
SOLUTION_CLASSES = {"solution", "solution-start", "solution-end"}

# --------------------------------------------------------------------------
# What the source notebooks say should (not) be there
# --------------------------------------------------------------------------
def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _normalise(text):
    return " ".join(html_lib.unescape(text).split())


def _squash(text):
    """Text without any whitespace: robust to how HTML splits code into highlighted spans."""
    return re.sub(r"\s+", "", html_lib.unescape(text))


def _plain_runs(markdown, min_len=28):
    """Runs of plain prose (letters, digits, spaces, simple punctuation) likely to survive rendering."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\{[^}]*\}`[^`]*`|\[[^\]]*\]\([^)]*\)", "|", markdown, flags=re.S)
    text = re.sub(r"^(`{3,}|:{3,}).*$|^[ \t]*:[\w-]+:.*$", "|", text, flags=re.M)
    runs = re.findall(r"[A-Za-z][A-Za-z0-9 ,;'()-]+[A-Za-z0-9]", " ".join(text.split()))
    return [r.strip() for r in runs if len(r.strip()) >= min_len]


def _chapter_expectations():
    """{html path relative to the build root: (exercise labels, solution secrets)} for notebooks with exercises."""
    out = {}
    for path in sorted(BOOK.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        labels = []
        for cell in cells:
            if cell.get("cell_type") == "markdown":
                for m in _student.DIRECTIVE_RE.finditer(_source(cell) + "\n"):
                    if m["name"] in ("exercise", "exercise-start"):
                        label = re.search(r":label:[ \t]*(\S+)", m["opts"])
                        if label:
                            labels.append(label.group(1))
        if not labels:
            continue
        inside = set()
        for first, last, _label in _student.solution_spans(cells):
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
        rel = path.relative_to(ROOT).with_suffix(".html").as_posix()
        out[rel] = (labels, sorted(secrets))
    return out


EXPECTED = _chapter_expectations()


# --------------------------------------------------------------------------
# Detectors (pure functions, unit-tested below)
# --------------------------------------------------------------------------
def solution_problems(markup, secrets=()):
    """List what in this HTML page looks like a solution (empty list = clean)."""
    soup = BeautifulSoup(markup, "html.parser")
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
    soup = BeautifulSoup(markup, "html.parser")
    missing = []
    for label in labels:
        element = soup.find(id=label)
        if element is None or "exercise" not in set(element.get("class", [])):
            missing.append(label)
    return missing


# --------------------------------------------------------------------------
# Locating (or building) the student edition
# --------------------------------------------------------------------------
@pytest.fixture(scope="session")
def student_html():
    """The student edition's HTML folder; FAILS (not skips) when it is missing."""
    if os.environ.get("SPECDEC_BUILD_STUDENT") == "1":
        script = ROOT / "scripts" / "build-student.sh"
        if not script.exists():
            pytest.fail(f"SPECDEC_BUILD_STUDENT=1 but {script.relative_to(ROOT)} does not exist")
        proc = subprocess.run(["bash", str(script)], cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.fail(f"bash scripts/build-student.sh failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    candidates = list(CANDIDATES)
    if os.environ.get("SPECDEC_STUDENT_HTML"):
        candidates.insert(0, pathlib.Path(os.environ["SPECDEC_STUDENT_HTML"]))
    for folder in candidates:
        if (folder / "index.html").exists() or any(folder.glob("**/*.html")):
            return folder
    pytest.fail(
        "The student edition is missing: none of "
        + ", ".join(str(c.relative_to(ROOT)) if c.is_relative_to(ROOT) else str(c) for c in candidates)
        + " contains HTML. Build it with `bash scripts/build-student.sh` (or run these tests with "
          "SPECDEC_BUILD_STUDENT=1) before running tests/test_student_edition.py."
    )


def _page(student_html, rel):
    path = student_html / rel
    if not path.exists():
        pytest.fail(f"the student edition has no page {rel} (built from {rel[:-5]}.ipynb)")
    return path


def test_book_has_exercises_to_check():
    """At least one chapter notebook has exercises (otherwise these tests would check nothing)."""
    assert EXPECTED, "no notebook under book/ has an exercise directive"


def test_student_edition_has_no_solution_markup(student_html):
    """Plain HTML: no page of the student edition has a solution element or 'Solution to' title."""
    pages = sorted(student_html.rglob("*.html"))
    assert pages
    bad = {}
    for path in pages:
        if "_static" in path.parts or "_sources" in path.parts:
            continue
        problems = solution_problems(path.read_text(encoding="utf-8", errors="replace"))
        if problems:
            bad[path.relative_to(student_html).as_posix()] = problems[:5]
    assert not bad, f"solutions found in the student edition: {bad}"


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_student_chapter_shows_exercises_without_solutions(student_html, rel):
    """Plain HTML: each chapter shows every exercise and none of its solution text or code."""
    labels, secrets = EXPECTED[rel]
    markup = _page(student_html, rel).read_text(encoding="utf-8")
    assert not missing_exercises(markup, labels), f"{rel}: exercises missing: {missing_exercises(markup, labels)}"
    problems = solution_problems(markup, secrets)
    assert not problems, f"{rel}: {problems[:5]}"


@pytest.mark.parametrize("rel", sorted(EXPECTED), ids=sorted(EXPECTED))
def test_student_edition_in_browser(student_html, browser, rel):
    """Chromium: the page's exercises are rendered and no solution element or text is in it."""
    labels, secrets = EXPECTED[rel]
    page = browser.new_page()
    try:
        page.goto(_page(student_html, rel).resolve().as_uri(), wait_until="load")
        found = page.evaluate(
            """(labels) => ({
                solutions: document.querySelectorAll('.solution, .solution-start, .solution-end').length,
                exercises: labels.filter(l => {
                    const e = document.getElementById(l);
                    return e !== null && e.classList.contains('exercise');
                }).length,
                text: (document.querySelector('article') || document.body).innerText,
                titles: Array.from(document.querySelectorAll('.admonition-title'))
                    .filter(t => t.innerText.trim().startsWith('Solution')).length,
            })""",
            labels,
        )
    finally:
        page.close()
    problems = []
    if found["solutions"]:
        problems.append(f"{found['solutions']} solution elements")
    if found["exercises"] != len(labels):
        problems.append(f"{found['exercises']} of {len(labels)} exercises rendered")
    if found["titles"]:
        problems.append("'Solution to' title")
    problems += [f"solution text {s!r}" for s in secrets if _squash(s) in _squash(found["text"])]
    assert not problems, f"student edition page {rel}: {problems[:5]}"


def test_student_edition_expectations_cover_every_exercise_chapter():
    """The per-page browser test above has pages to check (it would pass vacuously otherwise)."""
    assert len(EXPECTED) >= 10
    assert all(labels for labels, _ in EXPECTED.values())


# --------------------------------------------------------------------------
# Unit tests of the detectors and of the solution stripper (no build needed)
# --------------------------------------------------------------------------
_FULL_PAGE = """<html><body><article>
<div class="exercise admonition" id="demo-1"><p>Compute the thing.</p></div>
<div class="solution dropdown admonition" id="demo-solution-1"><p class="admonition-title">Solution to Exercise 1</p>
<p>The secret explanation of the answer lives here.</p>
<pre>answer = sd.break_even_alpha(4, 0.08, 1.15)</pre></div>
</article></body></html>"""


def test_detectors_flag_a_page_with_a_solution():
    """The detectors find the solution box, its title and its text in a full-edition page."""
    secrets = ["The secret explanation of the answer lives here", "answer = sd.break_even_alpha(4, 0.08, 1.15)"]
    problems = solution_problems(_FULL_PAGE, secrets)
    assert any("solution" in p for p in problems)
    assert "a 'Solution to' title" in problems
    assert sum(p.startswith("solution text") for p in problems) == 2
    assert missing_exercises(_FULL_PAGE, ["demo-1"]) == []
    assert missing_exercises(_FULL_PAGE, ["demo-2"]) == ["demo-2"]


def test_detectors_pass_a_clean_page():
    """A page with the exercise and no solution is clean."""
    clean = re.sub(r'<div class="solution.*?</div>', "", _FULL_PAGE, flags=re.S)
    assert solution_problems(clean, ["The secret explanation of the answer lives here"]) == []


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text):
    return {"cell_type": "code", "metadata": {}, "source": text, "outputs": [], "execution_count": None}


def test_strip_solutions_removes_gated_spans_and_plain_solutions():
    """Gated solution cells (start..end inclusive) and {solution} blocks go; exercises stay."""
    nb = {"cells": [
        _md("# Title"),
        _md("```{exercise-start}\n:label: demo-1\n```\nQuestion one.\n```{exercise-end}\n```"),
        _md("```{solution-start} demo-1\n:class: dropdown\n```\nSecret."),
        _code("answer = 42"),
        _md("```{solution-end}\n```"),
        _md("```{exercise}\n:label: demo-2\nQuestion two.\n```\n\n```{solution} demo-2\n:class: dropdown\n"
            "Plain secret.\n```\n\nAfter."),
        _code("x = 1"),
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    assert _student.solution_spans(nb["cells"]) == [(2, 4, "demo-1")]
    new, removed = _student.strip_solutions(nb)
    assert removed == 2
    sources = [_source(c) for c in new["cells"]]
    assert len(new["cells"]) == 4 and "answer = 42" not in sources
    assert "Question one." in sources[1] and "Question two." in sources[2] and "After." in sources[2]
    assert "Plain secret" not in " ".join(sources) and sources[3] == "x = 1"
    assert len(nb["cells"]) == 7  # the input is not modified


def test_strip_solutions_rejects_unclosed_solution():
    """A solution-start without solution-end is an error, not a silent leak."""
    with pytest.raises(ValueError, match="no solution-end"):
        _student.solution_spans([_md("```{solution-start} demo-1\n```\nSecret.")])


def test_strip_tree_in_place_and_refuses_git_tree(tmp_path):
    """strip_tree rewrites a copy's notebooks; the CLI refuses a git working tree."""
    nb = {"cells": [_md("```{solution-start} demo-1\n```"), _code("secret = 1"), _md("```{solution-end}\n```"),
                    _md("Kept.")], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "ch.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    assert _student.main([str(tmp_path)]) == 0
    kept = json.loads((tmp_path / "ch.ipynb").read_text(encoding="utf-8"))["cells"]
    assert [_source(c) for c in kept] == ["Kept."]
    assert _student.main([str(ROOT)]) == 2


def _mini_project(root, hide):
    """A two-page Sphinx + MyST-NB project with one gated exercise and solution (not executed)."""
    nb = {"cells": [
        _md("# Mini\n\nIntro text."),
        _md("```{exercise-start}\n:label: mini-1\n```\nCompute QUESTIONTEXT.\n```{exercise-end}\n```"),
        _md("```{solution-start} mini-1\n:class: dropdown\n```\nSOLUTIONTEXT explains."),
        dict(_code("answer = 41 + 1  # SOLUTIONCODE\nprint('SOLUTIONOUTPUT', answer)"),
             outputs=[{"output_type": "stream", "name": "stdout", "text": "SOLUTIONOUTPUT 42\n"}]),
        _md("```{solution-end}\n```"),
        _md("Trailing TEXTAFTER."),
    ], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}
    (root / "mini.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (root / "index.md").write_text("# Index\n\n```{toctree}\nmini\n```\n", encoding="utf-8")
    (root / "conf.py").write_text(
        "extensions = ['myst_nb', 'sphinx_exercise', 'specdec.exercises._sphinx_student']\n"
        "nb_execution_mode = 'off'\nexclude_patterns = ['_build']\n"
        f"hide_solutions = {hide!r}\n", encoding="utf-8")


@pytest.mark.parametrize("hide", [True, False])
def test_sphinx_extension_hides_gated_solutions(tmp_path, hide):
    """With hide_solutions the extension removes the whole gated solution; without it nothing changes."""
    _mini_project(tmp_path, hide)
    proc = subprocess.run(["sphinx-build", "-q", "-b", "html", str(tmp_path), str(tmp_path / "_build")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = (tmp_path / "_build" / "mini.html").read_text(encoding="utf-8")
    assert missing_exercises(page, ["mini-1"]) == [] and "QUESTIONTEXT" in page and "TEXTAFTER" in page
    problems = solution_problems(page, ["SOLUTIONTEXT explains", "print('SOLUTIONOUTPUT', answer)"])
    if hide:
        assert problems == [] and "SOLUTION" not in page
    else:
        assert len(problems) == 4, problems  # the detectors see the solution box, its title, text and code

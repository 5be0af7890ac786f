"""Handouts an instructor can use (issue 26, item 5): one file per roster student, Markdown and HTML, with the
options of choice questions, and the math typeset offline (a local copy of MathJax, no other resource)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from specdec_course import REGISTRY
from specdec_course._assignment import decode
from specdec_course._course import Roster, parse_labels
from specdec_course._handout import mathjax_source, sheet, write_handouts
from specdec_course._variants import CourseKey, keyed_inputs


def test_command_writes_a_markdown_and_an_html_handout_per_student(tmp_path):
    key = tmp_path / "course.key"
    subprocess.run([sys.executable, "-m", "specdec_course", "new-key", str(key)], check=True, timeout=120,
                   capture_output=True)
    (tmp_path / "roster.csv").write_text("id,name\ns26001,Ada Lovelace\ns26002,Alan Turing\nx-3,\n")
    (tmp_path / "hw.toml").write_text('title = "Homework 2"\n\n[points]\n"1.1" = 2\n"4.1" = 1\n"2.2" = [1, 1]\n')
    done = subprocess.run([sys.executable, "-m", "specdec_course", "handout", "--course-key", str(key),
                           "--roster", str(tmp_path / "roster.csv"), "--assignment", str(tmp_path / "hw.toml"),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_file())
    assert names == ["s26001.html", "s26001.md", "s26002.html", "s26002.md", "x-3.html", "x-3.md"]
    text = (tmp_path / "out" / "s26001.md").read_text()
    assert text.startswith("# Homework 2") and "Ada Lovelace (s26001)" in text
    for letter, option in REGISTRY["no-help-1"].choices.items():
        assert f"- **{letter.upper()}**: {option}" in text
    assert "## Exercise 1.1 (2 points)" in text and "self-check practice, not graded" in text
    assert (tmp_path / "out" / "s26001.md").read_text() != (tmp_path / "out" / "s26002.md").read_text()
    page = (tmp_path / "out" / "s26001.html").read_text()
    assert '<script id="MathJax-script" src="_mathjax/tex-chtml.js">' in page
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page), "the handout loads a remote resource"
    assert (tmp_path / "out" / "_mathjax" / "tex-chtml.js").is_file()


def test_the_code_carries_the_inputs_and_no_answer():
    key, roster = CourseKey(os.urandom(32)), Roster.of(["a1", "b2"])
    spec = parse_labels("1.1,1.5,4.1")
    text = sheet(spec, key, roster, "b2")
    assignment = decode(re.search(r'assignment\("([^"]+)"\)', text).group(1))
    params = keyed_inputs(REGISTRY["expected-tokens-1"], key, 1)
    assert assignment.student == "b2" and dict(assignment.inputs["expected-tokens-1"]) == dict(params)
    assert assignment.exercises == {"expected-tokens-1": "variant", "expected-tokens-5": "function",
                                    "no-help-1": "practice"}
    answer = REGISTRY["expected-tokens-1"].form().format(REGISTRY["expected-tokens-1"].reference(params))
    assert answer not in re.sub(r"\$[^$]*\$", "", text)   # the statement's inputs are in it, not the answer


def test_html_handout_typesets_its_math_offline(tmp_path, browser):
    assert mathjax_source() is not None, "run scripts/fetch-assets.sh (it vendors MathJax)"
    key, roster = CourseKey(os.urandom(32)), Roster.of(["s1"])
    write_handouts(parse_labels("1.1,1.2,4.1"), key, roster, tmp_path)
    page = browser.new_page()
    remote = []
    page.route("**/*", lambda route: (remote.append(route.request.url), route.abort())
               if not route.request.url.startswith("file://") else route.continue_())
    try:
        page.goto((tmp_path / "s1.html").as_uri())
        page.wait_for_selector("mjx-container", timeout=30_000)
        assert page.locator("mjx-container").count() >= 3
        assert "\\alpha" not in page.inner_text("body")      # typeset, not shown as TeX
    finally:
        page.close()
    assert not remote, remote

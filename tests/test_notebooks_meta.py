"""Book-wide rules on the notebook files themselves (no execution, no build needed).

- every toc entry has a source, and none is still a placeholder page;
- ``nbval-ignore-output`` only on cells tagged ``measurement`` (a wall-clock
  timing on the reader's machine), never ``nbval-skip``: nbval's strict
  comparison is not silently weakened;
- no stored error output outside cells tagged ``raises-exception``;
- stored outputs carry no kernel state (no widget views or widget state:
  explorers store their static snapshot) and numbers at no more digits than
  they are reproducible to across CPUs (:func:`test_no_float_beyond_12_significant_digits`);
- computed numbers reach the prose through ``{eval}`` roles only (no glue), and no code cell below a
  role binds a name its expression reads (JupyterLab may evaluate it after the whole notebook has run);
- the API reference has one page per public specdec module, all in the toc;
- ``scripts/execute_notebooks.py`` leaves an unchanged notebook byte-identical;
- no code line is longer than 88 characters (the book's code blocks, set at 0.76rem by
  scripts/static/specdec.css, show 88 without clipping; tests/test_browser.py measures it).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import subprocess
import sys
import types

import book_toc
import inline_values
import nbformat
import pytest
from conftest import ROOT, source_of

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PLACEHOLDER = re.compile(r"This (chapter|page) is being written", re.I)

# A float literal as Python, numpy and our tables print it: digits with a decimal
# point (optionally an exponent), not part of a longer word, version or path.
FLOAT = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
MAX_DIGITS = 14  # 15 or more significant digits is a failure (the rule is "at most 12")


def notebooks():
    return sorted(p for p in (ROOT / "book").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)


def significant_digits(literal: str) -> int:
    """Significant digits of a float literal: ``3.6892800000000006`` has 17, ``0.0044`` has 2."""
    mantissa = re.split(r"[eE]", literal.lstrip("+-"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits)


def output_texts(nb) -> list[tuple[str, str]]:
    """(where, text) for every stored text a reader or nbval sees; widget state and images excepted."""
    texts = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for entry in cell.metadata.get("user_expressions", []) or []:
                data = entry.get("result", {}).get("data", {})
                for mime, value in data.items():
                    texts.append((f"cell {index} {{eval}}`{entry.get('expression')}` {mime}", "".join(value) if isinstance(value, list) else str(value)))
            continue
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if "text" in output:
                texts.append((f"cell {index} stream", "".join(output["text"]) if isinstance(output["text"], list) else output["text"]))
            for mime, value in output.get("data", {}).items():
                if mime.startswith("image/") or mime in (WIDGET_VIEW, WIDGET_STATE):
                    continue
                value = "".join(value) if isinstance(value, list) else value
                if not isinstance(value, str):
                    value = json.dumps(value)
                value = re.sub(r"data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+", "", value)  # embedded pictures
                texts.append((f"cell {index} {mime}", value))
    return texts


def test_significant_digits_counts_like_a_person():
    """The digit counter behind the float scan (so the scan cannot pass by miscounting)."""
    assert significant_digits("3.6892800000000006") == 17
    assert significant_digits("0.26214400000000015") == 17
    assert significant_digits("0.0044") == 2
    assert significant_digits("1.5477724766094554e-05") == 17
    assert significant_digits("-12.5") == 3
    found = FLOAT.findall("(11529/3125, 3.68928, True) v1.2.3 x2.5 np.float64(0.1)")
    assert found == ["3.68928", "0.1"]


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_float_beyond_12_significant_digits(path):
    """No stored output shows a computed float at 15+ significant digits (they differ in the last bit across CPUs)."""
    nb = nbformat.read(path, as_version=4)
    bad = []
    for where, text in output_texts(nb):
        for literal in FLOAT.findall(text):
            if significant_digits(literal) > MAX_DIGITS:
                bad.append(f"{where}: {literal}")
    assert not bad, (f"{path.relative_to(ROOT)}: floats stored at full precision (round them to the precision "
                     "they mean, e.g. f\"{x:.4f}\" or round(x, 12)):\n  " + "\n  ".join(bad[:20]))


def test_every_toc_entry_has_a_real_source(docname):
    """The page exists as .ipynb or .md and is not a placeholder."""
    source = source_of(docname)
    assert source is not None, f"{docname}: listed in _toc.yml but neither {docname}.ipynb nor .md exists"
    text = source.read_text(encoding="utf-8")
    assert not PLACEHOLDER.search(text), f"{docname}: still a placeholder ('This chapter is being written')"


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_nbval_ignore_output_only_on_measurements(path):
    """Only a cell tagged ``measurement`` (wall-clock timing) may skip nbval's comparison."""
    nb = nbformat.read(path, as_version=4)
    bad = []
    for index, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        first = cell.source.strip().splitlines()[0][:80] if cell.source.strip() else "(empty)"
        if "nbval-skip" in tags:
            bad.append(f"cell {index} is tagged nbval-skip: {first}")
        if "nbval-ignore-output" in tags and "measurement" not in tags:
            bad.append(f"cell {index} ignores its output but is not a measurement: {first}")
        if "measurement" in tags and "nbval-ignore-output" not in tags:
            bad.append(f"cell {index} is a measurement but nbval compares its (machine-dependent) output: {first}")
    assert not bad, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_stored_errors(path):
    nb = nbformat.read(path, as_version=4)
    bad = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "raises-exception" in cell.metadata.get("tags", []):
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                bad.append(f"cell {index}: {out.get('ename')}: {out.get('evalue')}"[:200])
    assert not bad, f"{path.relative_to(ROOT)}: stored error outputs (re-execute with scripts/execute_notebooks.py):\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_table_is_computed_and_thrown_away(path):
    """A table writer's value is only shown when it is a cell's last expression: a table call followed by other
    statements renders nothing, and the reader never sees the table (eleven tables in five chapters were so)."""
    import ast
    nb = nbformat.read(path, as_version=4)
    bad = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        try:
            body = ast.parse(cell.source).body
        except SyntaxError:
            continue
        for statement in body[:-1]:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                    and "table" in ast.unparse(statement.value.func).rsplit(".", 1)[-1]:
                bad.append(f"cell {index}: {ast.unparse(statement.value.func)}(...) is not the last statement")
    assert not bad, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_kernel_state_stored(path):
    """No widget state or live widget view in the file: explorers store a static snapshot."""
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata, f"{path.relative_to(ROOT)}: widget state stored in the notebook metadata"
    views = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
             for o in c.get("outputs", []) if WIDGET_VIEW in o.get("data", {})]
    assert not views, (f"{path.relative_to(ROOT)}: cells {views} store a live widget view (an explorer without "
                       "a text/html snapshot, or a notebook not written by scripts/execute_notebooks.py)")


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_prose_numbers_use_eval_roles(path):
    """Computed numbers reach the prose as {eval} roles; glue (which JupyterLab cannot show) is gone."""
    nb = nbformat.read(path, as_version=4)
    bad = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and re.search(r"\{glue(:\w+)?\}", cell.source):
            bad.append(f"cell {index}: a {{glue}} role or directive")
        if cell.cell_type == "code" and re.search(r"\bglue\(|from myst_nb import glue", cell.source):
            bad.append(f"cell {index}: calls glue()")
    assert not bad, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(bad)


def _public_modules() -> list[str]:
    """Every public module by its short name (``hardware``); its home is ``specdec._SUBMODULES[name]``."""
    import specdec

    return sorted(specdec._SUBMODULES)


def test_api_reference_has_a_page_per_package_and_a_section_per_module():
    """book/appendix/api/<package>.md documents each concept package and each of its public modules, under a
    heading of its own (and course.md the course package), and _toc.yml lists every page."""
    import specdec

    listed = [d.rsplit("/", 1)[1] for d in book_toc.documents(ROOT) if d.startswith("book/appendix/api/")]
    pages = sorted(p.stem for p in (ROOT / "book" / "appendix" / "api").glob("*.md"))
    modules = _public_modules()
    packages = sorted({specdec._SUBMODULES[name].split(".")[0] for name in modules})
    assert pages == sorted(packages + ["course"]), f"API pages {pages} != concept packages {packages} and course"
    assert sorted(listed) == pages, f"_toc.yml lists API pages {sorted(listed)}, expected {pages}"
    assert ".. automodule:: specdec_course" in (ROOT / "book" / "appendix" / "api" / "course.md").read_text()
    index = (ROOT / "book" / "appendix" / "api.md").read_text()
    for name in modules:
        home = specdec._SUBMODULES[name]
        package = home.split(".")[0]
        page = (ROOT / "book" / "appendix" / "api" / f"{package}.md").read_text()
        assert f".. automodule:: specdec.{home}\n" in page, f"api/{package}.md does not document specdec.{home}"
        heading = "#" if home == package else "##"
        assert f"\n{heading} `specdec.{home}`\n" in "\n" + page, f"api/{package}.md: no heading for specdec.{home}"
        assert re.search(rf"^\s+{re.escape(home)}\s*$", index, re.M), f"the API index's summary table misses {home}"


# --------------------------------------------------------------------------
# scripts/execute_notebooks.py
# --------------------------------------------------------------------------
def _load_execute_script():
    spec = importlib.util.spec_from_file_location("execute_notebooks", ROOT / "scripts" / "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tidy_keeps_the_snapshot_and_drops_kernel_state():
    """An explorer's output keeps its text/html snapshot, loses the live view; widget state goes."""
    script = _load_execute_script()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("explorer")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": "f" * 32}, "text/plain": "X()",
                                                     "text/html": "<div>snapshot</div>"}),
        nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": "e" * 32}, "text/plain": "Y()"}),
    ]
    cell.metadata["execution"] = {"iopub.status.busy": "2026"}
    nb.cells = [cell]
    nb.metadata["widgets"] = {WIDGET_STATE: {"state": {}}}
    script.tidy(nb)
    assert "widgets" not in nb.metadata and "execution" not in cell.metadata
    assert set(cell.outputs[0]["data"]) == {"text/plain", "text/html"}
    assert WIDGET_VIEW in cell.outputs[1]["data"]  # nothing static to keep: left for the test above to flag


def test_executor_stores_eval_values_and_is_byte_stable(tmp_path):
    """Two runs of the executor on the same notebook write the same bytes, with the {eval} values stored."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import numpy as np\nx = np.float64(0.1) + np.float64(0.2)\nx"),
        nbformat.v4.new_markdown_cell("x is about {eval}`f'{x:.3f}'`; twice {eval}`f'{2 * x:.1f}'`."),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "scratch.ipynb"
    nbformat.write(nb, path)
    script = ROOT / "scripts" / "execute_notebooks.py"
    for _ in range(2):
        subprocess.run([sys.executable, str(script), str(path)], check=True, capture_output=True, text=True)
        if _ == 0:
            first = path.read_bytes()
    assert path.read_bytes() == first
    stored = json.loads(first)["cells"][1]["metadata"]["user_expressions"]
    assert [e["result"]["data"]["text/plain"] for e in stored] == ["'0.300'", "'0.6'"]


def test_executor_fails_on_a_failing_expression(tmp_path):
    """An {eval} expression that raises makes the executor exit non-zero and leaves the file unchanged."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("broken {eval}`undefined_name + 1`")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    before = path.read_bytes()
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "execute_notebooks.py"), str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "undefined_name" in result.stderr
    assert path.read_bytes() == before


def test_inline_values_substitution_escapes_and_reports():
    """The HTML build's substitution: plain text escaped, LaTeX as math, a missing value reported."""
    results = {
        "a": {"status": "ok", "data": {"text/plain": "'k_max = 5*'"}},
        "b": {"status": "ok", "data": {"text/plain": "3/4", "text/latex": r"$\displaystyle \frac{3}{4}$"}},
        "c": {"status": "error", "ename": "NameError", "evalue": "c"},
    }
    text, problems = inline_values.substitute("{eval}`a` and {eval}`b`, {eval}`c`, {eval}`d`", results)
    assert text.startswith(r"k\_max = 5\* and $\frac{3}{4}$, {eval}`c`, {eval}`d`")
    assert len(problems) == 2 and "NameError" in problems[0] and "no stored value" in problems[1]


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_prose_reads_no_name_a_later_cell_binds(path):
    """A sentence shows one value wherever it is evaluated: nbval and the executor evaluate its ``{eval}`` roles
    right after the code above them, jupyterlab-myst when it renders the cell, which after Run All can be once
    every cell has run. So no code cell below a role may bind a name the role reads."""
    found = inline_values.rebound_names(json.loads(path.read_text(encoding="utf-8"))["cells"])
    assert not found, "\n".join(f"cell {i}: {{eval}}`{e}` reads {', '.join(n)}, bound again by a later code cell"
                                 for i, e, n in found)


def test_rebound_names_sees_every_way_to_bind_a_name():
    """The check above can fail: each way a later cell binds a name is found, and what binds nothing is not."""

    def found(later: str, expression: str = "f'{x}'") -> list[str]:
        cells = [{"cell_type": "code", "source": "x = 1"},
                 {"cell_type": "markdown", "source": f"It is {{eval}}`{expression}`."},
                 {"cell_type": "code", "source": later}]
        return [name for _, _, names in inline_values.rebound_names(cells) for name in names]

    # the case JupyterLab showed: a list of checks above the sentence, a bool below it
    assert found("x = True", "'all' if all(x) else f'{sum(x)}'") == ["x"]
    for later in ("x, y = 1, 2", "x += 1", "x: int = 2", "for x in range(2):\n    pass", "import x",
                  "import numpy as x", "from m import x", "def x():\n    pass", "class x:\n    pass",
                  "with open('f') as x:\n    pass", "if True:\n    x = 3", "try:\n    pass\nexcept E as x:\n    pass",
                  "print(x := 2)", "%matplotlib inline\nx = 2", "del x",
                  "x.attribute = 2", "x[0] = 2"):   # an item or attribute set changes what x shows too
        assert found(later) == ["x"], later
    for later in ("y = x + 1", "def f():\n    x = 2", "class C:\n    x = 2", "z = [x for x in range(3)]",
                  "print(x)", "y[x] = 2"):
        assert found(later) == [], later
    # a name the expression binds itself is its own; a builtin a later cell shadows is not; only code cells bind
    assert found("v = 1", "', '.join(str(v) for v in range(3))") == []
    assert found("len = 2", "f'{len(x)}'") == ["len"]
    assert inline_values.rebound_names([{"cell_type": "markdown", "source": "{eval}`x`"},
                                        {"cell_type": "markdown", "source": "x = 2"}]) == []


# --------------------------------------------------------------------------
# What a student sees on opening a chapter in JupyterLab
# --------------------------------------------------------------------------
@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_solutions_are_stored_collapsed(path):
    """Every cell of every exercise solution (solution-start to solution-end) is stored collapsed, so a student
    who opens the chapter in JupyterLab sees the exercises, not their answers; a chapter with exercises has some."""
    script = _load_execute_script()
    nb = nbformat.read(path, as_version=4)
    cells = script.solution_cells(nb)
    has_exercises = any(c.cell_type == "markdown" and "{exercise-start}" in c.source for c in nb.cells)
    assert bool(cells) == has_exercises, f"{len(cells)} solution cells, exercises: {has_exercises}"
    shown = [i for i in cells if not nb.cells[i].metadata.get("jupyter", {}).get("source_hidden")]
    shown += [i for i in cells if nb.cells[i].cell_type == "code"
              and not nb.cells[i].metadata.get("jupyter", {}).get("outputs_hidden")]
    assert not shown, f"solution cells stored open (run scripts/execute_notebooks.py): {sorted(set(shown))}"


def test_solution_cells_span_start_to_end():
    """The executor's solution finder takes the cells from a solution-start cell to its solution-end cell, both
    included, and nothing outside."""
    script = _load_execute_script()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("```{exercise-start}\n:label: x-1\n```\nQ"),
                nbformat.v4.new_markdown_cell("```{exercise-end}\n```"),
                nbformat.v4.new_markdown_cell("```{solution-start} x-1\n:class: dropdown\n```\nHow."),
                nbformat.v4.new_code_cell("answer = 1"),
                nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
                nbformat.v4.new_markdown_cell("After.")]
    assert script.solution_cells(nb) == [2, 3, 4]
    script.collapse_solutions(nb)
    assert nb.cells[3].metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert "jupyter" not in nb.cells[5].metadata and "jupyter" not in nb.cells[0].metadata


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_kernelspec_is_what_jupyterlab_writes(path):
    """The stored kernelspec is the installed python3 kernel's: with any other display name JupyterLab rewrites it
    when the kernel starts, and a chapter is marked modified as soon as it is opened."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    stored = nbformat.read(path, as_version=4).metadata.get("kernelspec", {})
    assert stored == {"display_name": spec.display_name, "language": spec.language, "name": "python3"}


MAX_CODE_LINE = 88


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_code_line_longer_than_88_characters(path):
    """Issue 23, item 7: a longer line is clipped in the HTML book (and scrolls in JupyterLab)."""
    nb = nbformat.read(path, as_version=4)
    long = [(i, len(line), line[:60]) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for line in cell.source.splitlines() if len(line) > MAX_CODE_LINE]
    assert not long, (f"{path.relative_to(ROOT)}: {len(long)} code line(s) over {MAX_CODE_LINE} characters "
                      f"(cell, length, start): {long[:5]}")


# --------------------------------------------------------------------------
# numbers come from the core, figures and explorers from plots and widgets
# --------------------------------------------------------------------------

PRESENTATION_PACKAGES = ("plots", "widgets")


def _presentation_names(tree) -> set[tuple[str, str]]:
    """(package, name) of everything a cell takes from specdec.plots or specdec.widgets, whatever the alias.

    Reached as ``sd.plots.x``, ``sd.plots.<module>.x``, ``specdec.plots.x``, ``from specdec.plots[.<module>]
    import x`` or ``<alias>.x`` after ``from specdec.plots import <module> as <alias>``.
    """
    import specdec

    found, aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] == "specdec" and len(parts) >= 2 and parts[1] in PRESENTATION_PACKAGES:
                package = getattr(specdec, parts[1])
                for alias in node.names:
                    if len(parts) == 2 and isinstance(getattr(package, alias.name, None), types.ModuleType):
                        aliases[alias.asname or alias.name] = parts[1]
                    else:
                        found.add((parts[1], alias.name))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain, inner = [node.attr], node.value
        while isinstance(inner, ast.Attribute):
            chain.append(inner.attr)
            inner = inner.value
        if not isinstance(inner, ast.Name):
            continue
        chain = [inner.id, *reversed(chain)]
        if chain[0] in aliases and len(chain) == 2:
            found.add((aliases[chain[0]], chain[1]))
        elif chain[0] in ("sd", "specdec") and len(chain) >= 3 and chain[1] in PRESENTATION_PACKAGES:
            package = getattr(specdec, chain[1])
            if isinstance(getattr(package, chain[2], None), types.ModuleType):
                if len(chain) >= 4:
                    found.add((chain[1], chain[3]))
            else:
                found.add((chain[1], chain[2]))
    return found


def _is_figure_or_explorer(package: str, name: str) -> bool:
    """A function of plots whose docstring returns a matplotlib Figure (or new_figure), or one of widgets
    annotated to return an Explorer."""
    import typing

    import specdec

    obj = getattr(getattr(specdec, package), name, None)
    if not callable(obj) or isinstance(obj, type):
        return False
    if package == "plots":
        doc = inspect.getdoc(obj) or ""
        returns = doc.split("Returns\n-------\n", 1)[1] if "Returns\n-------\n" in doc else ""
        return name == "new_figure" or returns.lstrip().startswith("matplotlib.figure.Figure")
    returned = typing.get_type_hints(obj).get("return")
    return isinstance(returned, type) and issubclass(returned, specdec.widgets.Explorer)


def test_the_presentation_check_sees_every_way_in():
    """The parser finds names by every route, and the rule tells figures and explorers from the rest."""
    cell = ("import specdec.plots.roofline\nfrom specdec.plots import drafts as dp\n"
            "from specdec.plots.decision import decision_figure\n"
            "a = sd.plots.speedup_vs_k()\nb = sd.plots.roofline.matmul_prediction(1, 2)\n"
            "c = dp.draft_round_costs(x)\nd = sd.widgets.speedup_explorer()\ne = sd.plots.WORKED_EXAMPLE['k']\n")
    assert _presentation_names(ast.parse(cell)) == {
        ("plots", "speedup_vs_k"), ("plots", "matmul_prediction"), ("plots", "draft_round_costs"),
        ("plots", "decision_figure"), ("widgets", "speedup_explorer"), ("plots", "WORKED_EXAMPLE")}
    assert _is_figure_or_explorer("plots", "speedup_vs_k") and _is_figure_or_explorer("widgets", "speedup_explorer")
    assert _is_figure_or_explorer("plots", "new_figure")
    assert not _is_figure_or_explorer("plots", "WORKED_EXAMPLE")
    assert not _is_figure_or_explorer("widgets", "checklist_html")        # HTML text, not an explorer
    assert not _is_figure_or_explorer("plots", "SpeedupOverview")         # a view class: explorers' business


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_chapters_take_only_figures_and_explorers_from_plots_and_widgets(path):
    """Every number a chapter shows comes from the core: from sd.plots a chapter calls only functions that
    return a figure, from sd.widgets only functions that return an explorer (nothing else, not even a constant)."""
    bad = []
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:                     # IPython syntax: no cell of the book has any
            pytest.fail(f"{path.relative_to(ROOT)} cell {index} is not Python")
        bad += [f"cell {index}: sd.{p}.{n}" for p, n in sorted(_presentation_names(tree))
                if not _is_figure_or_explorer(p, n)]
    assert not bad, f"{path.relative_to(ROOT)} takes from plots/widgets what is not a figure or explorer: {bad}"

"""Book-wide rules on the notebook files themselves (no execution, no build needed).

- every toc entry has a source, and none is still a placeholder page;
- ``nbval-ignore-output`` is used only on widget cells or explicit timing
  measurements (so nbval's strict comparison is not silently weakened);
- no stored error output outside cells tagged ``raises-exception``;
- the API page lists every public specdec module (``scripts/gen_api_page.py``).
"""

from __future__ import annotations

import re
import subprocess
import sys

import nbformat
import pytest

from conftest import ROOT, source_of, toc_docnames

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_SOURCE = re.compile(r"\bwidgets\.|_explorer\(|\binteract(ive)?\(")
TIMING = re.compile(r"perf_counter|timeit|time\.time|process_time|monotonic|measure", re.I)
PLACEHOLDER = re.compile(r"This (chapter|page) is being written", re.I)


def notebooks():
    return sorted(p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def test_every_toc_entry_has_a_real_source(docname):
    """The page exists as .ipynb or .md and is not a placeholder."""
    source = source_of(docname)
    assert source is not None, f"{docname}: listed in _toc.yml but neither {docname}.ipynb nor .md exists"
    text = source.read_text(encoding="utf-8")
    assert not PLACEHOLDER.search(text), f"{docname}: still a placeholder ('This chapter is being written')"


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_nbval_ignore_output_only_on_widgets_or_timing(path):
    nb = nbformat.read(path, as_version=4)
    bad = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "nbval-ignore-output" not in cell.metadata.get("tags", []):
            continue
        has_widget = any(WIDGET_MIME in out.get("data", {}) for out in cell.get("outputs", [])) \
            or bool(WIDGET_SOURCE.search(cell.source))
        if not has_widget and not TIMING.search(cell.source):
            bad.append(f"cell {index}: {cell.source.strip().splitlines()[0][:80] if cell.source.strip() else '(empty)'}")
    assert not bad, f"{path.relative_to(ROOT)}: nbval-ignore-output on a cell that is neither a widget nor a timing measurement:\n  " + "\n  ".join(bad)


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


def test_api_page_lists_every_module():
    """book/appendix/api.md is what scripts/gen_api_page.py generates now."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_api_page.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr or result.stdout


# --------------------------------------------------------------------------
# scripts/execute_notebooks.py: stored widget ids do not change between runs
# --------------------------------------------------------------------------
def _load_execute_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("execute_notebooks", ROOT / "scripts" / "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _widget_notebook(ids):
    """A notebook shaped like an executed one: a displayed box holding a slider, plus a layout."""
    import nbformat

    box, slider, layout, orphan = ids
    state = {
        slider: {"model_name": "IntSliderModel", "state": {"layout": f"IPY_MODEL_{layout}", "value": 3}},
        orphan: {"model_name": "LayoutModel", "state": {"width": "10px"}},
        box: {"model_name": "VBoxModel", "state": {"children": [f"IPY_MODEL_{slider}"], "layout": f"IPY_MODEL_{layout}"}},
        layout: {"model_name": "LayoutModel", "state": {"width": None}},
    }
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("w", id="cell-0")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": box, "version_major": 2, "version_minor": 0},
        "text/plain": "VBox()"})]
    nb.cells = [cell]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": state, "version_major": 2, "version_minor": 0}}
    return nb


def test_stable_widget_ids_do_not_depend_on_the_kernel_ids():
    """Two runs whose kernels picked different random ids store the same notebook."""
    import nbformat

    script = _load_execute_script()
    first = _widget_notebook(["a" * 32, "b" * 32, "c" * 32, "d" * 32])
    second = _widget_notebook(["9" * 32, "8" * 32, "7" * 32, "6" * 32])
    assert script.stable_widget_ids(first, "book/x.ipynb") == 4
    assert script.stable_widget_ids(second, "book/x.ipynb") == 4
    assert nbformat.writes(first) == nbformat.writes(second)
    # references still point at the right models, and the displayed view is model 0
    state = first.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    view_id = first.cells[0].outputs[0]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert state[view_id]["model_name"] == "VBoxModel"
    slider_id = state[view_id]["state"]["children"][0].removeprefix("IPY_MODEL_")
    assert state[slider_id]["model_name"] == "IntSliderModel"
    assert state[slider_id]["state"]["layout"] == state[view_id]["state"]["layout"]
    # another notebook gets other ids
    third = _widget_notebook(["a" * 32, "b" * 32, "c" * 32, "d" * 32])
    script.stable_widget_ids(third, "book/y.ipynb")
    assert nbformat.writes(third) != nbformat.writes(first)


def test_every_stored_widget_id_is_the_stable_one():
    """The committed notebooks were written by the script (no random kernel ids left)."""
    import copy

    import nbformat

    script = _load_execute_script()
    checked = 0
    for path in sorted((ROOT / "book").rglob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if not nb.metadata.get("widgets"):
            continue
        again = copy.deepcopy(nb)
        script.stable_widget_ids(again, path.relative_to(ROOT).as_posix())
        assert nbformat.writes(again) == nbformat.writes(nb), (
            f"{path.relative_to(ROOT)}: widget ids are not the stable ones; "
            "re-execute it with scripts/execute_notebooks.py")
        checked += 1
    assert checked >= 10

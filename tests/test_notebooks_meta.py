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

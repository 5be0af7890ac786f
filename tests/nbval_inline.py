"""pytest plugin: nbval also checks the computed values in the prose.

nbval compares the stored outputs of code cells with a fresh run. The book's
prose numbers live in Markdown cells, as ``{eval}`expression``` roles whose
stored results are in the cell's ``metadata.user_expressions`` (written by
``scripts/execute_notebooks.py``; see ``scripts/inline_values.py``). This
plugin adds, in notebook order between nbval's code-cell items, one item per
Markdown cell with roles. It runs in the same kernel as nbval's cells (so the
expressions see exactly the state a reader's kernel has at that point),
evaluates the expressions with a Jupyter ``user_expressions`` request, and
fails when a stored value differs from the fresh one, when a role has no
stored value, or when a stored value belongs to an expression that is no
longer in the text. nbval's sanitizer patterns apply, as for code cells.

It also checks the legibility of every figure nbval's fresh run draws (the
rules of ``tests/figure_legibility.py``, read from the record
``specdec.plots`` puts in each PNG): a cell whose outputs are compared fails
when a figure it draws breaks one, although nbval does not compare images.
``tests/test_plots_legible.py`` checks the stored figures.

A kernel that dies while it starts, before it answers ``kernel_info``, is
started once more (:func:`_start_with_one_retry`): no cell has run then, so
the retry hides nothing a notebook does; a second death fails as before. (One
fresh-clone run lost a chapter this way; nbval sends the kernel's stderr to
/dev/null, so its cause was not recorded.)

Installed by ``tests/conftest.py`` (:func:`install`); active only with ``--nbval``.
"""

from __future__ import annotations

import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "scripts"))
import inline_values  # noqa: E402

try:
    import nbval.kernel as nbval_kernel
    from nbval.plugin import IPyNbCell, IPyNbFile
except ImportError:  # pragma: no cover - nbval is pinned in requirements.txt
    IPyNbCell = IPyNbFile = nbval_kernel = None


class InlineValuesItem(pytest.Item):
    """The ``{eval}`` roles of one Markdown cell, checked against their stored values."""

    def __init__(self, *, cell, cell_index: int, **kwargs):
        super().__init__(**kwargs)
        self.cell = cell
        self.cell_index = cell_index

    def _sanitize(self, text: str) -> str:
        for regex, replace in self.parent.sanitize_patterns.items():
            text = re.sub(regex, replace, text)
        return text

    def _comparable(self, result: dict) -> dict:
        return {key: self._sanitize(value) for key, value in inline_values.comparable(result).items()}

    def runtest(self):
        kernel = self.parent.kernel
        if kernel is None or not kernel.is_alive():
            raise InlineValuesError(self, ["the notebook's kernel is not running (an earlier cell failed?)"])
        found = inline_values.expressions(self.cell.source)
        stored = inline_values.stored_results(self.cell)
        problems = [f"stored value for an expression no longer in the text: {expr!r}" for expr in stored if expr not in found]
        request = {str(i): expr for i, expr in enumerate(found)}
        msg_id = kernel.kc.execute("", silent=True, store_history=False, user_expressions=request)
        timeout = self.config.getoption("nbval_cell_timeout", 2000) or 2000
        while True:
            reply = kernel.get_message(stream="shell", timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        kernel.await_idle(msg_id, timeout)
        fresh = reply["content"].get("user_expressions", {})
        for key, expr in request.items():
            result = fresh.get(key, {"status": "error", "ename": "Missing", "evalue": "no result from the kernel"})
            if result.get("status") != "ok":
                problems.append(f"{{eval}}`{expr}` raised {inline_values.error_text(result)}")
                continue
            if expr not in stored:
                problems.append(f"{{eval}}`{expr}` has no stored value (re-run scripts/execute_notebooks.py)")
                continue
            want, got = self._comparable(stored[expr]), self._comparable(result)
            if want != got:
                problems.append(
                    f"{{eval}}`{expr}`: stored {inline_values.plain_text(stored[expr])!r}, "
                    f"fresh {inline_values.plain_text(result)!r}"
                )
        if problems:
            raise InlineValuesError(self, problems)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, InlineValuesError):
            lines = "\n  ".join(excinfo.value.problems)
            return f"Markdown cell {self.cell_index} of {self.fspath.basename}: computed values differ\n  {lines}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.fspath, 0, f"{self.fspath.basename}::Markdown {self.cell_index}"


class InlineValuesError(Exception):
    def __init__(self, item, problems):
        super().__init__("; ".join(problems))
        self.item = item
        self.problems = problems


def _collect_with_inline_values(original):
    def collect(self):
        items = list(original(self))
        out = []
        code_items = iter(items)
        pending = next(code_items, None)
        for index, cell in enumerate(self.nb.cells):
            if cell.cell_type == "code":
                if pending is not None and pending.cell is cell:
                    out.append(pending)
                    pending = next(code_items, None)
            elif cell.cell_type == "markdown" and (
                inline_values.EVAL_ROLE.search(cell.source) or cell.metadata.get(inline_values.METADATA_KEY)
            ):
                out.append(InlineValuesItem.from_parent(self, name=f"Markdown {index}", cell=cell, cell_index=index))
        while pending is not None:  # code items not matched to a cell (should not happen)
            out.append(pending)
            pending = next(code_items, None)
        return out

    return collect


def _compare_with_legibility(original):
    def compare_outputs(self, test, ref, skip_compare=None):
        same = original(self, test, ref, skip_compare)
        from figure_legibility import problems  # here: it imports matplotlib

        found = [f"figure {number}: {problem}"
                 for number, png in enumerate(o["data"]["image/png"] for o in test if "image/png" in o.get("data", {}))
                 for problem in problems(png)]
        if found:
            self.comparison_traceback.append("the fresh figures break the legibility rules (tests/figure_legibility.py):")
            self.comparison_traceback.extend(f"  {line}" for line in found)
            return False
        return same

    return compare_outputs


#: jupyter_client's message when a new kernel exits before its first reply.
DIED_AT_START = "Kernel died before replying to kernel_info"


def _start_with_one_retry(original):
    def start_new_kernel(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except RuntimeError as exc:
            if DIED_AT_START not in str(exc):
                raise
            print(f"nbval_inline: {exc}; starting the kernel once more", file=sys.stderr)
            return original(*args, **kwargs)

    return start_new_kernel


def install():
    """Make nbval's notebook collector yield the Markdown items too, its cells check figures, and a kernel that
    dies while it starts get a second start (idempotent)."""
    if IPyNbFile is not None and not getattr(IPyNbFile, "_specdec_inline_values", False):
        IPyNbFile.collect = _collect_with_inline_values(IPyNbFile.collect)
        IPyNbFile._specdec_inline_values = True
        IPyNbCell.compare_outputs = _compare_with_legibility(IPyNbCell.compare_outputs)
        nbval_kernel.start_new_kernel = _start_with_one_retry(nbval_kernel.start_new_kernel)


def pytest_configure(config):
    install()

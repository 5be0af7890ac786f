"""Every figure of the book is legible at the size it is shown (issue 13, item 4), read from the stored figures.

A notebook shows a figure at 100 dpi and the HTML book's text column is
672 CSS px wide in a 1280-px window (768 px at 1400): a figure at most
``CONTENT_WIDTH`` (7 in) wide is shown at 93 % of its size or more there, so
text of ``MIN_FONT_SIZE`` (7 pt = 9.7 px) stays above 9 px. The rules are in
``tests/figure_legibility.py``: the figure is at most ``CONTENT_WIDTH`` wide,
no text is smaller than ``MIN_FONT_SIZE``, no text sticks out of the figure
(the "tight" PNG is at most 0.15 in wider than the figure), no two texts
(titles, labels, tick labels, legends, annotations) are drawn over each other,
and no legend's box covers a text that is not its own.

The figures are not drawn again here (issue 27, item 5: that took most of this
file's time, and nbval draws them anyway). Every figure ``specdec.plots``
makes carries a record of its sizes and texts in the PNG it is saved as
(``specdec.plots._legibility``); this file checks every PNG the notebooks
store, exactly as the chapters draw them, and ``tests/nbval_inline.py`` checks
the PNGs of nbval's fresh run the same way. Only the figure functions no
chapter draws are drawn here (``NOT_IN_A_CHAPTER``), and a test keeps that
list exact: every figure function is drawn by a chapter or by this file.
"""

from __future__ import annotations

import ast
import functools
import io
import pathlib

import matplotlib.pyplot as plt
import nbformat
import pytest
from figure_legibility import problems, read
from matplotlib.text import Text

import specdec as sd

ROOT = pathlib.Path(__file__).resolve().parents[1]
H = sd.hardware
T70, D8, TP8 = H.LLAMA_70B, H.LLAMA_8B, H.H100.scaled(8)

#: Public functions of sd.plots that are not a figure of their own (new_figure), and two that need a
#: machine's measurement (tests/test_measure.py; chapter "Measure your machine" stores its figure, checked below).
HELPERS = {"new_figure", "matmul_measured_vs_predicted", "matmul_measurement"}
FIGURE_FUNCTIONS = frozenset(n for n in sd.plots.__all__ if callable(getattr(sd.plots, n)) and n[0].islower()
                             and not isinstance(getattr(sd.plots, n), type(sd.plots))) - HELPERS

#: Figure functions no chapter draws, called here as a reader of the API reference would.
NOT_IN_A_CHAPTER = {
    "calibrated_speedup_vs_batch": lambda: sd.plots.calibrated_speedup_vs_batch(),
    "roofline_concurrency": lambda: sd.plots.roofline_concurrency(T70, TP8, D8, k=5),
    "roofline_speedup_in_memory": lambda: sd.plots.roofline_speedup_in_memory(T70, D8, TP8),
    "roofline_speedup_vs_batch": lambda: sd.plots.roofline_speedup_vs_batch(T70, D8, TP8, 0.8, 5,
                                                                             contexts=(0, 1024, 8192)),
    "tokens_distribution": lambda: sd.plots.tokens_distribution(),
    "round_against_plain": lambda: sd.plots.round_against_plain(
        sd.predict_speedup("llama-3.1-8b", "eagle3", tau=3.0, k=3, engine="sglang")),
}


def notebooks() -> list[pathlib.Path]:
    return [p for p in sorted((ROOT / "book").rglob("*.ipynb"))
            if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts]


def _figure_calls(tree: ast.AST) -> set[str]:
    """The figure functions a cell calls, by name (``sd.plots.x(...)``, ``module.x(...)`` or ``x(...)``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in FIGURE_FUNCTIONS:
                found.add(name)
    return found


@functools.cache
def stored_figures() -> tuple[tuple[str, str, frozenset], ...]:
    """Every PNG a notebook stores: (id, base64 PNG, the figure functions that drew it).

    A cell's figure comes from the figure functions it calls, and from those
    called in the cells that assigned the names it uses (``fig = sd.plots.x()``
    in one cell, ``fig`` shown in a later one; or ``fig, axes = new_figure()``
    and ``x(ax=axes[0])`` in one cell).
    """
    found = []
    for path in notebooks():
        made_by: dict[str, set] = {}
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type != "code":
                continue
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:           # IPython syntax (a magic): its figures are credited to no function
                tree = ast.parse("")
            calls = _figure_calls(tree)
            names = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
            drawn_by = calls | set().union(*(made_by.get(n.id, set()) for n in names if isinstance(n.ctx, ast.Load)))
            for n in names:
                if isinstance(n.ctx, ast.Store):
                    made_by[n.id] = calls
            pngs = [o["data"]["image/png"] for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
            for number, png in enumerate(pngs):
                name = f"{path.relative_to(ROOT / 'book')} cell {index}" + (f" figure {number}" if len(pngs) > 1 else "")
                found.append((name, png, frozenset(drawn_by)))
    return tuple(found)


def test_every_stored_figure_is_found():
    """As many figures as the notebooks' JSON holds PNG strings (an independent count of the raw text)."""
    in_files = sum(path.read_text().count('"image/png": "') for path in notebooks())
    assert len(stored_figures()) == in_files >= 50


def test_every_figure_function_is_checked_once():
    """Every figure function of sd.plots is drawn by a chapter (its stored PNG is checked) or here, not both."""
    in_chapters = set().union(*(drawn_by for _, _, drawn_by in stored_figures()))
    assert set(NOT_IN_A_CHAPTER) | in_chapters == FIGURE_FUNCTIONS, sorted(FIGURE_FUNCTIONS - in_chapters
                                                                            - set(NOT_IN_A_CHAPTER))
    assert not set(NOT_IN_A_CHAPTER) & in_chapters, "a chapter draws it now: its stored PNG is checked"


@pytest.mark.parametrize("name", [name for name, _, _ in stored_figures()])
def test_stored_figure_fits_the_column_with_legible_text(name):
    png = next(png for n, png, _ in stored_figures() if n == name)
    found = problems(png)
    assert not found, f"{name}: " + "; ".join(found)


def _png(fig, dpi=100) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")     # as the notebook's inline backend
    return buffer.getvalue()


@pytest.mark.parametrize("name", sorted(NOT_IN_A_CHAPTER))
def test_figure_no_chapter_draws_fits_the_column_with_legible_text(name):
    found = problems(_png(NOT_IN_A_CHAPTER[name]()))
    assert not found, f"{name}: " + "; ".join(found)


def test_the_record_is_what_matplotlib_drew():
    """The stored record against matplotlib's own measurement of the same figure, drawn at 100 dpi."""
    fig = sd.plots.tokens_distribution()
    record, pixels = read(_png(fig, dpi=200))                 # the notebooks' retina PNG
    assert record["size_in"] == [float(v) for v in fig.get_size_inches()] and record["dpi"] == 200
    fig.set_dpi(100)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert [r[:2] for r in record["texts"]] == [[t.get_text().replace("\n", " ")[:40], t.get_fontsize()]
                                                for t in texts]
    # the same layout in 100-dpi pixels, moved by the tight crop (one shift for every text), to text
    # hinting at the two resolutions (up to 1.3 px of 100-dpi pixels seen)
    boxes = [text.get_window_extent(renderer) for text in texts]
    for edge, key in enumerate(("x0", "y0", "x1", "y1")):
        shifts = [stored[2 + edge] - getattr(box, key) for stored, box in zip(record["texts"], boxes, strict=True)]
        assert max(shifts) - min(shifts) < 2.0, (key, min(shifts), max(shifts))
    assert abs(pixels / 2 - (fig.get_tightbbox(renderer).padded(0.1).width * 100)) < 1.0


def test_the_checks_catch_every_fault():
    """A figure breaking each rule once: each is reported; the same figure without the faults passes."""
    def figure(faults: bool):
        fig, ax = sd.plots.new_figure(sd.plots.CONTENT_WIDTH + (0.5 if faults else 0.0), 3.0)
        if faults:                                  # new_figure narrows a wide request: widen it after
            fig.set_size_inches(sd.plots.CONTENT_WIDTH + 0.5, 3.0)
        ax.plot([0, 1], [0, 1], label="a line")
        ax.legend(loc="upper left")
        ax.set_title("a title", fontsize=5 if faults else 10)
        ax.text(0.02, 0.95 if faults else 0.3, "under the legend", transform=ax.transAxes)
        ax.text(0.6, 0.5, "one text", transform=ax.transAxes)
        ax.text(0.6, 0.5 if faults else 0.2, "another text", transform=ax.transAxes)
        if faults:                                  # a figure text: the layout does not make room for it
            fig.text(0.99, 0.5, "outside the figure", ha="left")
        else:
            ax.text(0.7, 0.8, "inside the figure", transform=ax.transAxes)
        return fig

    found = problems(_png(figure(faults=True)))
    assert [p.split(" ")[0] + " " + p.split(" ")[1] for p in found] == [
        f"{sd.plots.CONTENT_WIDTH + 0.5} in", "text below", "text sticks", "texts drawn", "a legend"], found
    assert "'a title'" in found[1] and "('one text', 'another text')" in found[3] and "under the legend" in found[4]
    assert problems(_png(figure(faults=False))) == []
    plt.close("all")
    fig, ax = plt.subplots()                          # not made by new_figure: no record, and the check says so
    assert problems(_png(fig))[0].startswith("the PNG has no legibility record")
    plt.close(fig)


def test_nbval_checks_the_figures_of_its_fresh_run():
    """tests/nbval_inline.py fails a compared cell whose fresh figure breaks a rule, whatever nbval said."""
    import base64

    import nbval_inline

    class Cell:
        comparison_traceback: list = []

    def figure(title_size):
        fig, ax = sd.plots.new_figure(4, 3)
        ax.set_title("a title", fontsize=title_size)
        return {"output_type": "display_data",
                "data": {"image/png": base64.b64encode(_png(fig, dpi=200)).decode("ascii"), "text/plain": "<Figure>"}}

    compare = nbval_inline._compare_with_legibility(lambda self, test, ref, skip_compare=None: True)
    cell = Cell()
    assert compare(cell, [figure(10)], []) is True
    assert compare(cell, [figure(10), figure(5)], []) is False
    assert cell.comparison_traceback[1:] == ["  figure 1: text below 7.0 pt: [(5.0, 'a title')]"]
    failing = nbval_inline._compare_with_legibility(lambda self, test, ref, skip_compare=None: False)
    assert failing(Cell(), [figure(10)], []) is False          # nbval's own verdict stands


def test_the_recording_canvas_draws_what_agg_draws():
    """The record is an extra PNG chunk: the pixels, size and dpi are Agg's own, the Software chunk kept."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    fig = sd.plots.expected_tokens_vs_k()
    recorded = Image.open(io.BytesIO(_png(fig, dpi=200)))
    FigureCanvasAgg(fig)
    plain = Image.open(io.BytesIO(_png(fig, dpi=200)))
    assert recorded.size == plain.size and recorded.info["dpi"] == plain.info["dpi"]
    assert np.array_equal(np.asarray(recorded), np.asarray(plain))
    assert set(recorded.text) == {"Software", "specdec:legibility"} and set(plain.text) == {"Software"}
    assert recorded.text["Software"] == plain.text["Software"]

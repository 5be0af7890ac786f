"""Explorer for "Expected tokens per round" (Part I, chapter 1).

Presentation only: the numbers come from ``specdec`` (``expected_tokens``,
``accepted_tokens_pmf``) and the figure from
:func:`specdec.plots.expected_tokens_overview`. The explorer is an
``ipywidgets.VBox`` subclass: sliders, a read-out of the numbers, and the
figure as a PNG image (so the last state is embedded in the saved notebook
and shows in the HTML book without a kernel).
"""

from __future__ import annotations

import html
import io

import ipywidgets as widgets

from .._validate import check_integer, check_probability
from ..acceptance import accepted_tokens_pmf, expected_tokens
from ..plots.acceptance import ExpectedTokensOverview

__all__ = ["ExpectedTokensExplorer", "expected_tokens_explorer"]


def _figure_png(fig, dpi: int = 72) -> bytes:
    """Render ``fig`` to PNG bytes with a full redraw (Agg; deterministic for the same figure).

    Also used by other chapters' explorers (``widgets/literature.py``).
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def _freeze_layout(fig) -> None:
    """Lay the figure out once, then keep the axes fixed (redraws skip the layout solver)."""
    fig.canvas.draw()
    fig.set_layout_engine("none")


class _BlitPNG:
    """Render a figure to PNG, redrawing only its dynamic artists over a cached background.

    ``dynamic`` artists are marked animated, so a full draw leaves them out;
    that draw is cached and reused until ``key`` changes (for example when an
    axis limit changes). Each render restores the background, draws the
    dynamic artists and encodes the canvas with a fast PNG setting.
    """

    def __init__(self, fig, dynamic, dpi: int = 72):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.fig = fig
        fig.set_dpi(dpi)
        self.canvas = FigureCanvasAgg(fig)
        self.dynamic = list(dynamic)
        for artist in self.dynamic:
            artist.set_animated(True)
        self.canvas.draw()                      # lays out once (constrained layout)...
        fig.set_layout_engine("none")           # ...then keeps the axes where they are
        self.key = object()
        self.background = None

    def render(self, key) -> bytes:
        from PIL import Image

        if key != self.key or self.background is None:
            self.canvas.draw()
            self.background = self.canvas.copy_from_bbox(self.fig.bbox)
            self.key = key
        else:
            self.canvas.restore_region(self.background)
        renderer = self.canvas.get_renderer()
        for artist in self.dynamic:
            if artist.get_visible():
                artist.draw(renderer)
        width, height = self.canvas.get_width_height()
        image = Image.frombuffer("RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def _table_html(rows) -> str:
    cells = "".join(
        f"<tr><td style='padding:1px 10px 1px 0'>{html.escape(name)}</td>"
        f"<td style='text-align:right;font-family:monospace'>{html.escape(value)}</td></tr>"
        for name, value in rows
    )
    return f"<table>{cells}</table>"


class ExpectedTokensExplorer(widgets.VBox):
    """Sliders for alpha and k; shows E[L], the distribution of L and the next draft's gain.

    ``values`` holds the numbers of the last update (a dict with keys
    ``alpha``, ``k``, ``expected_tokens``, ``pmf`` (of the accepted drafts
    ``N = L - 1``), ``ceiling`` (k + 1), ``fraction_of_ceiling`` and
    ``next_draft_gain`` (E[L](k+1) - E[L](k))), so tests and readers can
    check them against ``specdec``. Call :meth:`update` after setting
    slider values programmatically if observers are paused.

    Defined in chapter "Expected tokens per round" (Part I, chapter 1).
    """

    def __init__(self, alpha: float = 0.8, k: int = 5, k_max: int = 12, dpi: int = 80):
        a = float(check_probability(alpha, "alpha"))
        km = int(check_integer(k_max, "k_max", minimum=2, maximum=64))
        kk = int(check_integer(k, "k", minimum=1, maximum=km))
        self.dpi = int(check_integer(dpi, "dpi", minimum=30, maximum=300))
        self.alpha_slider = widgets.FloatSlider(value=a, min=0.0, max=1.0, step=0.01, description="alpha",
                                                readout_format=".2f", continuous_update=False)
        self.k_slider = widgets.IntSlider(value=kk, min=1, max=km, step=1, description="k",
                                          continuous_update=False)
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.view = ExpectedTokensOverview(a, kk, km)
        self.figure = self.view.figure
        self._png = _BlitPNG(self.figure, self.view.dynamic_artists, self.dpi)
        self.k_max = km
        self.values: dict = {}
        super().__init__([widgets.HBox([self.alpha_slider, self.k_slider]), self.readout, self.image])
        self.alpha_slider.observe(self._on_change, names="value")
        self.k_slider.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, change) -> None:
        self.update()

    def compute(self) -> dict:
        """The numbers for the current slider values (no drawing)."""
        a, k = float(self.alpha_slider.value), int(self.k_slider.value)
        tokens = expected_tokens(a, k)
        return {
            "alpha": a,
            "k": k,
            "expected_tokens": tokens,
            "pmf": accepted_tokens_pmf(a, k),
            "ceiling": k + 1,
            "fraction_of_ceiling": tokens / (k + 1),
            "next_draft_gain": expected_tokens(a, k + 1) - tokens,
        }

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the values."""
        v = self.compute()
        self.readout.value = _table_html([
            ("expected tokens per round, E[L]", f"{v['expected_tokens']:.4f}"),
            ("ceiling k + 1 (every draft accepted)", f"{v['ceiling']}"),
            ("E[L] as a fraction of the ceiling", f"{v['fraction_of_ceiling']:.1%}"),
            ("P(all k drafts accepted) = alpha^k", f"{v['pmf'][-1]:.4f}"),
            ("tokens gained by one more draft (k -> k+1)", f"{v['next_draft_gain']:.4f}"),
        ])
        if draw:
            self.view.update(v["alpha"], v["k"])
            self.image.value = self._png.render(self.view.limits_key)
        self.values = v
        return v


def expected_tokens_explorer(alpha: float = 0.8, k: int = 5, k_max: int = 12) -> ExpectedTokensExplorer:
    """Interactive E[L] explorer: alpha and k sliders, the distribution of L, the next draft's gain.

    Defaults equal the chapter's static figure (alpha = 0.8, k = 5).

    Defined in chapter "Expected tokens per round" (Part I, chapter 1).

    Parameters
    ----------
    alpha : float, optional
        Initial acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Initial draft length, whole number in [1, k_max]. Default 5.
    k_max : int, optional
        Largest k on the slider and the figure, in [2, 64]. Default 12.

    Returns
    -------
    ExpectedTokensExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.expected_tokens_explorer()
    >>> round(w.values["expected_tokens"], 4)
    3.6893
    >>> w.k_slider.value = 6
    >>> round(w.values["expected_tokens"], 4)
    3.9514
    """
    return ExpectedTokensExplorer(alpha=alpha, k=k, k_max=k_max)

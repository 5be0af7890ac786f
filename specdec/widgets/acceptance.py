"""Explorer for "Expected tokens per round" (Part I, chapter 1).

Presentation only: the numbers come from ``specdec`` (``expected_tokens``,
``accepted_tokens_pmf``) and the figure from
:func:`specdec.plots.expected_tokens_overview`. The explorer is an
``ipywidgets.VBox`` subclass: sliders, a read-out of the numbers, and the
figure as a PNG image (so the last state is embedded in the saved notebook
and shows in the HTML book without a kernel).
"""

from __future__ import annotations

import ipywidgets as widgets

from .._validate import check_integer, check_probability
from ..acceptance import accepted_tokens_pmf, expected_tokens
from ..plots.acceptance import ExpectedTokensOverview
from ._render import Blitter, table_html

__all__ = ["ExpectedTokensExplorer", "expected_tokens_explorer"]


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
        self._png = Blitter(self.figure, self.dpi, self.view.dynamic_artists)
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
        self.readout.value = table_html([
            ("expected tokens per round, E[L]", f"{v['expected_tokens']:.4f}"),
            ("ceiling k + 1 (every draft accepted)", f"{v['ceiling']}"),
            ("E[L] as a fraction of the ceiling", f"{v['fraction_of_ceiling']:.1%}"),
            ("P(all k drafts accepted) = alpha^k", f"{v['pmf'][-1]:.4f}"),
            ("tokens gained by one more draft (k -> k+1)", f"{v['next_draft_gain']:.4f}"),
        ])
        if draw:
            self.view.update(v["alpha"], v["k"])
            self.image.value = self._png.png(self.view.limits_key)
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

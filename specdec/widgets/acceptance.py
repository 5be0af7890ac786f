"""Explorer for "Expected tokens per round" (Part I, chapter 1).

Presentation only: the numbers come from ``specdec`` (``expected_tokens``,
``accepted_tokens_pmf``) and the figure from
:func:`specdec.plots.expected_tokens_overview`. The explorer is an
``ipywidgets.VBox`` subclass: sliders, a read-out of the numbers, and the
figure as a PNG image (so the last state is embedded in the saved notebook
and shows in the HTML book without a kernel).
"""

from __future__ import annotations

from collections import OrderedDict

import ipywidgets as widgets

from .._validate import check_integer, check_probability
from ..acceptance import accepted_tokens_pmf, expected_tokens
from ..plots.acceptance import ExpectedTokensOverview
from ._render import Blitter, table_html

__all__ = ["ExpectedTokensExplorer", "expected_tokens_explorer"]


class _CachingBlitter(Blitter):
    """A :class:`Blitter` that keeps the backgrounds of the last few keys.

    Moving a slider back to axis limits seen before restores that
    background instead of redrawing the whole figure (a full redraw, mostly
    tick and legend text, takes 150 to 400 ms; a restore a few ms). The key
    must determine everything the background shows. Only the first visit
    of a key pays for a full redraw. Shared by the explorers of
    :mod:`specdec.widgets` (private; the explorers are the API).
    """

    def __init__(self, fig, dpi: int = 72, dynamic=None, max_backgrounds: int = 24):
        super().__init__(fig, dpi, dynamic)
        self.max_backgrounds = int(max_backgrounds)
        self._backgrounds: OrderedDict = OrderedDict()
        self._layer, self._layer_ids, self._signatures = None, set(), {}

    @staticmethod
    def _signature(artist):
        """What a dynamic text shows (text, place, alignment, colour, visibility), to see if it changed."""
        xy = getattr(artist, "xy", None)
        return (artist.get_text(), tuple(artist.get_position()), None if xy is None else tuple(xy),
                artist.get_ha(), artist.get_va(), str(artist.get_color()), artist.get_visible())

    def png(self, key=None) -> bytes:
        from matplotlib.text import Text

        texts = [a for a in self.dynamic if isinstance(a, Text)]
        signatures = {id(t): self._signature(t) for t in texts}
        if key != self.key and key in self._backgrounds:
            self.background = self._backgrounds[key]
            self.key = key
            self._layer, self._layer_ids = None, set()   # the text layer was made over another background
        if self.background is None or key != self.key:
            out = super().png(key)        # full redraw: a new background
            self._backgrounds[self.key] = self.background
            self._backgrounds.move_to_end(self.key)
            while len(self._backgrounds) > self.max_backgrounds:
                self._backgrounds.popitem(last=False)
            self._layer, self._layer_ids, self._signatures = None, set(), signatures
            return out
        self._backgrounds.move_to_end(self.key)
        # Text is the slowest artist to draw (several ms each). Dynamic texts that did not change
        # since the last image are kept in a second cached layer over the background, so a slider
        # that changes one label redraws only that label.
        canvas = self.fig.canvas
        renderer = canvas.get_renderer()
        previous = getattr(self, "_signatures", {})
        unchanged = {id(t) for t in texts if previous.get(id(t)) == signatures[id(t)]}
        if getattr(self, "_layer", None) is not None and self._layer_ids <= unchanged:
            canvas.restore_region(self._layer)
        else:
            canvas.restore_region(self.background)
            for t in texts:
                if id(t) in unchanged and t.get_visible():
                    t.draw(renderer)
            self._layer, self._layer_ids = canvas.copy_from_bbox(self.fig.bbox), unchanged
        for artist in self.dynamic:
            if id(artist) not in self._layer_ids and artist.get_visible():
                artist.draw(renderer)
        self._signatures = signatures
        return self._encode()


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
        self._png = _CachingBlitter(self.figure, self.dpi, self.view.dynamic_artists)
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

"""Explorers for "Published results, recomputed" and "What serving engines print" (Part III, chapters 2 and 3).

Presentation only: numbers from :mod:`specdec.literature`, figures from
:mod:`specdec.plots.literature`. Each explorer is an ``ipywidgets.VBox``
with sliders, a read-out table and the figure as a PNG image (so the last
state is saved in the notebook and shows in the HTML book without a kernel).
"""

from __future__ import annotations

import ipywidgets as widgets

from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from .. import literature as lit
from ..plots.literature import (literature_bonus_token_error, literature_serving_metrics, mark_bonus_token_alpha,
                                mark_serving_metrics_alpha, set_bonus_token_curves, set_serving_metrics_k)
from ._render import table_html
from .acceptance import _CachingBlitter

__all__ = ["BonusTokenExplorer", "bonus_token_explorer", "ServingMetricsExplorer", "serving_metrics_explorer"]


class BonusTokenExplorer(widgets.VBox):
    """Sliders for alpha, k and the draft cost; shows the speedup with and without the target's token.

    ``values`` holds the numbers of the last update (keys ``alpha``, ``k``,
    ``c_draft``, ``c_verify``, ``correct``, ``without_bonus``,
    ``understatement``, ``ratio``).

    Defined in chapter "Published results, recomputed" (Part III, chapter 2).
    """

    def __init__(self, alpha=0.8, k=5, c_draft=0.05, c_verify=1.0, dpi=72):
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=16))
        cd = float(check_nonnegative(c_draft, "c_draft", "(fraction of a target step)"))
        self.c_verify = float(check_positive(c_verify, "c_verify", "(fraction of a target step)"))
        self.dpi = int(check_integer(dpi, "dpi", minimum=30, maximum=300))
        self.alpha_slider = widgets.FloatSlider(value=a, min=0.0, max=1.0, step=0.01, description="alpha",
                                                readout_format=".2f", continuous_update=False)
        self.k_slider = widgets.IntSlider(value=kk, min=1, max=16, description="k", continuous_update=False)
        self.cd_slider = widgets.FloatSlider(value=cd, min=0.0, max=0.5, step=0.01, description="c_draft",
                                             readout_format=".2f", continuous_update=False)
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = literature_bonus_token_error(kk, cd, self.c_verify, a)
        # alpha moves only the marked segment and its labels; the curves, title and limits (the
        # background) depend on (k, c_draft), the key of the cached backgrounds
        self._blit = _CachingBlitter(self.figure, self.dpi,
                                     mark_bonus_token_alpha(self.figure.axes[0], kk, cd, self.c_verify, a))
        self._drawn = (kk, cd)
        self.values: dict = {}
        super().__init__([widgets.HBox([self.alpha_slider, self.k_slider, self.cd_slider]), self.readout, self.image])
        for s in (self.alpha_slider, self.k_slider, self.cd_slider):
            s.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, change) -> None:
        self.update()

    def compute(self) -> dict:
        """The numbers for the current slider values (no drawing)."""
        a, k, cd = float(self.alpha_slider.value), int(self.k_slider.value), float(self.cd_slider.value)
        r = lit.bonus_token_error(a, k, cd, self.c_verify)
        return {"alpha": a, "k": k, "c_draft": cd, "c_verify": self.c_verify, **r}

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the values."""
        v = self.compute()
        self.readout.value = table_html([
            ("speedup with the target's token, E[L] / cost", f"{v['correct']:.3f}x"),
            ("calculator without it, (E[L] - 1) / cost", f"{v['without_bonus']:.3f}x"),
            ("understatement (= 1 / cost)", f"{v['understatement']:.3f}x"),
            ("calculator / correct", f"{v['ratio']:.1%}"),
        ])
        if draw:
            key = (v["k"], v["c_draft"])
            ax = self.figure.axes[0]
            if key != self._drawn:        # new background: curves, title and limits move in place
                set_bonus_token_curves(ax, v["k"], v["c_draft"], v["c_verify"])
                self._drawn = key
            mark_bonus_token_alpha(ax, v["k"], v["c_draft"], v["c_verify"], v["alpha"])
            self.image.value = self._blit.png(key)
        self.values = v
        return v


def bonus_token_explorer(alpha=0.8, k=5, c_draft=0.05, c_verify=1.0) -> BonusTokenExplorer:
    """Interactive view of the bonus-token calculator error; defaults equal the chapter's figure.

    Defined in chapter "Published results, recomputed" (Part III, chapter 2).

    Parameters
    ----------
    alpha : float, optional
        Initial acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Initial draft length in [1, 16]. Default 5.
    c_draft : float, optional
        Initial draft step cost (fraction of a target step) in [0, 0.5]. Default 0.05.
    c_verify : float, optional
        Verification cost (fraction of a target step), > 0, fixed. Default 1.

    Returns
    -------
    BonusTokenExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.bonus_token_explorer()
    >>> round(w.values["correct"], 3), round(w.values["without_bonus"], 3)
    (2.951, 2.151)
    """
    return BonusTokenExplorer(alpha, k, c_draft, c_verify)


class ServingMetricsExplorer(widgets.VBox):
    """Sliders for alpha and k; shows what an engine prints and what each misreading would give.

    ``values`` holds the numbers of the last update (keys ``alpha``, ``k``,
    ``draft_acceptance_rate``, ``length_with_bonus``,
    ``length_without_bonus``, and the alphas of the misreadings
    ``rate_as_alpha``, ``length_with_bonus_as_without``).

    Defined in chapter "What serving engines print" (Part III, chapter 3).
    """

    def __init__(self, alpha=0.8, k=4, dpi=72):
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=16))
        self.dpi = int(check_integer(dpi, "dpi", minimum=30, maximum=300))
        self.alpha_slider = widgets.FloatSlider(value=a, min=0.0, max=1.0, step=0.01, description="alpha",
                                                readout_format=".2f", continuous_update=False)
        self.k_slider = widgets.IntSlider(value=kk, min=1, max=16, description="k", continuous_update=False)
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = literature_serving_metrics(kk, a)
        # alpha moves only the marked points and their labels; the right panel's curves, title and
        # limits (the background) depend on k, the key of the cached backgrounds
        self._blit = _CachingBlitter(self.figure, self.dpi, mark_serving_metrics_alpha(self.figure.axes, kk, a))
        self._drawn = kk
        self.values: dict = {}
        super().__init__([widgets.HBox([self.alpha_slider, self.k_slider]), self.readout, self.image])
        for s in (self.alpha_slider, self.k_slider):
            s.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, change) -> None:
        self.update()

    def compute(self) -> dict:
        """The numbers for the current slider values (no drawing)."""
        a, k = float(self.alpha_slider.value), int(self.k_slider.value)
        m = lit.metric_readings(a, k)
        length = m["length_with_bonus"]
        from ..acceptance import alpha_from_mean_acceptance_length
        as_without = float(alpha_from_mean_acceptance_length(length, k, include_bonus=False)) if length <= k \
            else float("nan")
        return {**m, "k": k, "rate_as_alpha": m["draft_acceptance_rate"], "length_with_bonus_as_without": as_without}

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the values."""
        v = self.compute()
        self.readout.value = table_html([
            ("draft acceptance rate (accepted / drafted)", f"{v['draft_acceptance_rate']:.4f}"),
            ("mean acceptance length, with the target's token", f"{v['length_with_bonus']:.4f}"),
            ("mean accepted drafts per round (no bonus)", f"{v['length_without_bonus']:.4f}"),
            ("alpha if the rate is read as alpha", f"{v['rate_as_alpha']:.4f}"),
            ("alpha if the with-bonus length is read as no-bonus", f"{v['length_with_bonus_as_without']:.4f}"),
        ])
        if draw:
            if v["k"] != self._drawn:     # new background: the right panel's curves, title and limits
                set_serving_metrics_k(self.figure.axes, v["k"])
                self._drawn = v["k"]
            mark_serving_metrics_alpha(self.figure.axes, v["k"], v["alpha"])
            self.image.value = self._blit.png(v["k"])
        self.values = v
        return v


def serving_metrics_explorer(alpha=0.8, k=4) -> ServingMetricsExplorer:
    """Interactive view of the metrics an engine prints for an alpha and k; defaults equal the chapter's figure.

    Defined in chapter "What serving engines print" (Part III, chapter 3).

    Parameters
    ----------
    alpha : float, optional
        Initial acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Initial draft length in [1, 16]. Default 4.

    Returns
    -------
    ServingMetricsExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.serving_metrics_explorer()
    >>> round(w.values["draft_acceptance_rate"], 4), round(w.values["length_with_bonus"], 4)
    (0.5904, 3.3616)
    """
    return ServingMetricsExplorer(alpha, k)

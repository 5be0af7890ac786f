"""Explorer for "The speedup formula" (Part I, chapter 2).

Presentation only: the numbers come from ``specdec`` (``speedup``,
``speedup_from_costs``, ``costs_from_times``, ``quick_estimate``,
``round_time``, ``expected_tokens``) and the figure from
:func:`specdec.plots.speedup_overview`.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import expected_tokens
from ..economics import costs_from_times, optimal_k, quick_estimate, round_time, round_times_vs_k, speedup, speedup_from_costs
from ..plots.speedup import WORKED_EXAMPLE, SpeedupOverview
from ._render import table_html
from .acceptance import _CachingBlitter

__all__ = ["SpeedupExplorer", "speedup_explorer"]


class SpeedupExplorer(widgets.VBox):
    """Sliders for alpha, k, T0, T_draft, T_verify, T_overhead (and the verify slope).

    Shows the speedup, E[L], the round's breakdown, the cost-fraction form
    and the source's quick estimate, and redraws
    :func:`specdec.plots.speedup_overview`. ``values`` holds the numbers
    of the last update (keys ``alpha``, ``k``, ``t0``, ``t_draft``,
    ``t_verify``, ``t_overhead``, ``verify_slope``, ``expected_tokens``,
    ``t_round``, ``speedup``, ``speedup_from_costs``, ``c_draft``,
    ``c_verify``, ``quick_estimate``, ``best_k``, ``best_speedup``).

    Defined in chapter "The speedup formula" (Part I, chapter 2).
    """

    def __init__(self, alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5,
                 verify_slope=0.0, k_max=16, dpi: int = 80):
        a = float(check_probability(alpha, "alpha"))
        km = int(check_integer(k_max, "k_max", minimum=2, maximum=64))
        kk = int(check_integer(k, "k", minimum=1, maximum=km))
        t0 = float(check_positive(t0, "t0", "(ms)"))
        td = float(check_nonnegative(t_draft, "t_draft", "(ms)"))
        tv = float(check_positive(t_verify, "t_verify", "(ms)"))
        to = float(check_nonnegative(t_overhead, "t_overhead", "(ms)"))
        s = float(check_nonnegative(verify_slope, "verify_slope", "(ms per extra draft position)"))
        self.dpi = int(check_integer(dpi, "dpi", minimum=30, maximum=300))
        self.k_max = km
        style = {"description_width": "initial"}
        layout = widgets.Layout(width="330px")

        def fslider(value, low, high, step, desc, fmt=".1f"):
            return widgets.FloatSlider(value=value, min=low, max=max(high, value), step=step, description=desc,
                                       readout_format=fmt, continuous_update=False, style=style, layout=layout)

        self.sliders = {
            "alpha": fslider(a, 0.0, 1.0, 0.01, "alpha", ".2f"),
            "k": widgets.IntSlider(value=kk, min=1, max=km, description="k (drafts per round)",
                                   continuous_update=False, style=style, layout=layout),
            "t0": fslider(t0, 0.5, 30.0, 0.1, "T0, plain step (ms)"),
            "t_draft": fslider(td, 0.0, 30.0, 0.1, "T_draft, all k steps (ms)"),
            "t_verify": fslider(tv, 0.5, 40.0, 0.1, "T_verify (ms)"),
            "t_overhead": fslider(to, 0.0, 10.0, 0.1, "T_overhead (ms)"),
            "verify_slope": fslider(s, 0.0, 3.0, 0.05, "T_verify growth per extra k (ms)", ".2f"),
        }
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.view = SpeedupOverview(a, kk, t0, td, tv, to, s, km)
        self.figure = self.view.figure
        # the right panel's title changes only with the verify slope: part of the background (and its key)
        self._png = _CachingBlitter(self.figure, self.dpi,
                                    [a for a in self.view.dynamic_artists if a is not self.view.curve_title])
        self.values: dict = {}
        names = list(self.sliders)
        controls = widgets.HBox([widgets.VBox([self.sliders[n] for n in names[:4]]),
                                 widgets.VBox([self.sliders[n] for n in names[4:]])])
        super().__init__([controls, self.readout, self.image])
        for slider in self.sliders.values():
            slider.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, change) -> None:
        self.update()

    def compute(self) -> dict:
        """The numbers for the current slider values (no drawing)."""
        v = {name: float(slider.value) for name, slider in self.sliders.items()}
        v["k"] = int(self.sliders["k"].value)
        a, k, t0, td, tv, to = v["alpha"], v["k"], v["t0"], v["t_draft"], v["t_verify"], v["t_overhead"]
        c_draft, c_verify = costs_from_times(k, t0, td, tv, to)
        ks = np.arange(1, self.k_max + 1)
        tds, tvs = round_times_vs_k(ks, k, td, tv, v["verify_slope"])
        curve = speedup(a, ks, t0, tds, tvs, to)
        best_k = optimal_k(a, c_draft, costs_from_times(ks, t0, tds, tvs, to)[1], k_max=self.k_max)
        v.update(
            expected_tokens=expected_tokens(a, k),
            t_round=round_time(td, tv, to),
            speedup=speedup(a, k, t0, td, tv, to),
            c_draft=c_draft,
            c_verify=c_verify,
            speedup_from_costs=speedup_from_costs(a, k, c_draft, c_verify),
            quick_estimate=quick_estimate(a, k, t0, td, tv),
            best_k=best_k,
            best_speedup=float(curve[best_k - 1]),
        )
        return v

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the values."""
        v = self.compute()
        self.readout.value = table_html([
            ("expected tokens per round, E[L]", f"{v['expected_tokens']:.4f}"),
            ("round time T_draft + T_verify + T_overhead", f"{v['t_round']:.2f} ms"),
            ("speedup T0 E[L] / T_round", f"{v['speedup']:.3f}x"),
            ("cost form: c_draft, c_verify (fractions of T0)", f"{v['c_draft']:.4f}, {v['c_verify']:.4f}"),
            ("speedup E[L] / (k c_draft + c_verify)", f"{v['speedup_from_costs']:.3f}x"),
            ("source's quick estimate", f"{v['quick_estimate']:.3f}x"),
            (f"best k up to {self.k_max} (assumption: T_draft proportional to k)",
             f"k = {v['best_k']}: {v['best_speedup']:.3f}x"),
        ])
        if draw:
            self.view.update(v["alpha"], v["k"], v["t0"], v["t_draft"], v["t_verify"], v["t_overhead"],
                             v["verify_slope"])
            self.image.value = self._png.png((self.view.limits_key, self.view.curve_title.get_text()))
        self.values = v
        return v


def speedup_explorer(alpha=WORKED_EXAMPLE["alpha"], k=WORKED_EXAMPLE["k"], t0=WORKED_EXAMPLE["t0"],
                     t_draft=WORKED_EXAMPLE["t_draft"], t_verify=WORKED_EXAMPLE["t_verify"],
                     t_overhead=WORKED_EXAMPLE["t_overhead"], verify_slope=0.0, k_max=16) -> SpeedupExplorer:
    """Interactive speedup explorer; defaults are the source's 70B/8B worked example.

    Defined in chapter "The speedup formula" (Part I, chapter 2).

    Parameters
    ----------
    alpha : float, optional
        Acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Draft tokens per round, in [1, k_max]. Default 5.
    t0, t_draft, t_verify, t_overhead : float, optional
        Times in ms, as in :func:`specdec.speedup`. Defaults 5.2, 2.5, 6.0, 0.5.
    verify_slope : float, optional
        Extra verification ms per extra draft position, for the speedup-vs-k
        curve (see :func:`specdec.round_times_vs_k`). Default 0.
    k_max : int, optional
        Largest k on the slider and the curve, in [2, 64]. Default 16.

    Returns
    -------
    SpeedupExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.speedup_explorer()
    >>> round(w.values["speedup"], 4), round(w.values["t_round"], 2)
    (2.1316, 9.0)
    """
    return SpeedupExplorer(alpha=alpha, k=k, t0=t0, t_draft=t_draft, t_verify=t_verify, t_overhead=t_overhead,
                           verify_slope=verify_slope, k_max=k_max)

"""Explorers of the economics of a round: the speedup formula and the break-even threshold.

Presentation only: the numbers come from :mod:`specdec.economics` (``speedup``,
``speedup_from_costs``, ``costs_from_times``, ``quick_estimate``, ``round_time``,
``round_times_vs_k``, ``optimal_k``, ``break_even_alpha``, ``round_cost``) and
:mod:`specdec.acceptance`; the figures from :class:`specdec.plots.SpeedupOverview` and
:class:`specdec.plots.ThresholdPanel`. Both are headline explorers: live in the HTML book
through ``specdec-live.js``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import economics
from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import expected_tokens
from ..economics import (
    WORKED_EXAMPLE,
    costs_from_times,
    optimal_k,
    quick_estimate,
    round_time,
    round_times_vs_k,
    speedup,
    speedup_from_costs,
)
from ..plots import new_figure
from ..plots.economics import THRESHOLD_FIGSIZE, SpeedupOverview, ThresholdPanel
from ._base import Explorer, float_slider, int_slider
from ._domain import verify_below_step, verify_cost_below_one, verify_floor_note

__all__ = [
    "SpeedupExplorer",
    "speedup_explorer",
    "ThresholdExplorer",
    "threshold_explorer",
]

#: The explorer's defaults: the first source's worked example (times in ms).
_W = WORKED_EXAMPLE.value


class SpeedupExplorer(Explorer):
    """Sliders for alpha, k, T0, T_draft, T_verify, T_overhead and the verification slope.

    Shows the speedup, E[L], the round's breakdown, the cost-fraction form,
    the source's quick estimate and the best k, and redraws
    :class:`specdec.plots.SpeedupOverview`. ``values`` holds the numbers
    of the last update (keys ``alpha``, ``k``, ``t0``, ``t_draft``,
    ``t_verify``, ``t_overhead``, ``verify_slope``, ``expected_tokens``,
    ``t_round``, ``speedup``, ``speedup_from_costs``, ``c_draft``,
    ``c_verify``, ``quick_estimate``, ``best_k``, ``best_speedup``).

    The model's domain: T_verify below T0 is refused (a warning instead of
    the read-out); where the slope would put verification below T0 at a
    smaller k, the curve and the best k hold it at T0 (``t_verify_floor``
    of :func:`specdec.economics.round_times_vs_k`) and a note says so. The
    best k is searched over 1 to ``k_max``, the current k included, so its
    speedup is never below the current one.

    Defined in chapter "The speedup formula".
    """

    name = "speedup"
    title = "Speedup explorer"
    live = True

    def __init__(self, alpha=_W["alpha"], k=_W["k"], t0=_W["t0"], t_draft=_W["t_draft"], t_verify=_W["t_verify"],
                 t_overhead=_W["t_overhead"], verify_slope=0.0, k_max=16):
        a = float(check_probability(alpha, "alpha"))
        self.k_max = int(check_integer(k_max, "k_max", minimum=2, maximum=64))
        kk = int(check_integer(k, "k", minimum=1, maximum=self.k_max))
        t0 = float(check_positive(t0, "t0", "(ms)"))
        td = float(check_nonnegative(t_draft, "t_draft", "(ms)"))
        tv = float(check_positive(t_verify, "t_verify", "(ms)"))
        to = float(check_nonnegative(t_overhead, "t_overhead", "(ms)"))
        s = float(check_nonnegative(verify_slope, "verify_slope", "(ms per extra draft position)"))
        wide = {"label_width": "13.5em", "width": "29em"}
        self.sliders = {
            "alpha": float_slider(a, 0.0, 1.0, 0.01, "alpha", **wide),
            "k": int_slider(kk, 1, self.k_max, "k (drafts per round)", **wide),
            "t0": float_slider(t0, 0.5, 30.0, 0.1, "T0, plain step (ms)", ".1f", **wide),
            "t_draft": float_slider(td, 0.0, 30.0, 0.1, "T_draft, all k steps (ms)", ".1f", **wide),
            "t_verify": float_slider(tv, 0.5, 40.0, 0.1, "T_verify (ms)", ".1f", **wide),
            "t_overhead": float_slider(to, 0.0, 10.0, 0.1, "T_overhead (ms)", ".1f", **wide),
            "verify_slope": float_slider(s, 0.0, 3.0, 0.05, "T_verify growth per extra k (ms)", ".2f", **wide),
        }
        self.view = SpeedupOverview(a, kk, t0, td, tv, to, s, self.k_max)
        super().__init__(self.sliders, figure=self.view.figure, dynamic=self.view.dynamic_artists)

    def domain(self, state) -> list:
        refused = verify_below_step(state["t_verify"], state["t0"], state["k"])
        return [refused] if refused else []

    def compute(self, state=None) -> dict:
        """The numbers for the slider values (or ``state``), from specdec; no drawing."""
        v = self.state(state)
        a, k, t0, td, tv, to = v["alpha"], v["k"], v["t0"], v["t_draft"], v["t_verify"], v["t_overhead"]
        c_draft, c_verify = costs_from_times(k, t0, td, tv, to)
        ks = np.arange(1, self.k_max + 1)
        tds, tvs = round_times_vs_k(ks, k, td, tv, v["verify_slope"], t_verify_floor=min(t0, tv))
        curve = speedup(a, ks, t0, tds, tvs, to)
        best_k = int(optimal_k(a, c_draft, costs_from_times(ks, t0, tds, tvs, to)[1], k_max=self.k_max))
        here = speedup(a, k, t0, td, tv, to)
        best_speedup = float(curve[best_k - 1])
        if best_speedup < here:               # the search includes k: rounding never shows a worse "best"
            best_k, best_speedup = k, here
        v.update(
            expected_tokens=expected_tokens(a, k),
            t_round=round_time(td, tv, to),
            speedup=here,
            c_draft=c_draft,
            c_verify=c_verify,
            speedup_from_costs=speedup_from_costs(a, k, c_draft, c_verify),
            quick_estimate=quick_estimate(a, k, t0, td, tv),
            best_k=best_k,
            best_speedup=best_speedup,
            floor_note=verify_floor_note(tv, t0, k, v["verify_slope"]),
        )
        return v

    def rows(self, v) -> list:
        return [
            ("expected_tokens", "expected tokens per round, E[L]", f"{v['expected_tokens']:.4f}"),
            ("t_round", "round time T_draft + T_verify + T_overhead", f"{v['t_round']:.2f} ms"),
            ("speedup", "speedup T0 E[L] / T_round", f"{v['speedup']:.3f}x"),
            ("c_draft", "c_draft = T_draft / (k T0), one draft step", f"{v['c_draft']:.4f}"),
            ("c_verify", "c_verify = (T_verify + T_overhead) / T0", f"{v['c_verify']:.4f}"),
            ("speedup_from_costs", "speedup E[L] / (k c_draft + c_verify)", f"{v['speedup_from_costs']:.3f}x"),
            ("quick_estimate", "source's quick estimate", f"{v['quick_estimate']:.3f}x"),
            ("best_k", f"best k up to {self.k_max} (T_draft proportional to k)", f"{v['best_k']}"),
            ("best_speedup", "speedup at the best k", f"{v['best_speedup']:.3f}x"),
        ] + ([("floor_note", "note", v["floor_note"])] if v["floor_note"] else [])

    def draw(self, v):
        self.view.update(v["alpha"], v["k"], v["t0"], v["t_draft"], v["t_verify"], v["t_overhead"],
                         v["verify_slope"])
        return self.view.limits_key

    def alt_text(self, v) -> str:
        return (f"Top: one speculative round of {v['t_round']:.2f} ms (drafting {v['t_draft']:.1f}, verification "
                f"{v['t_verify']:.1f}, overhead {v['t_overhead']:.1f}) against {v['t0'] * v['expected_tokens']:.2f} "
                f"ms of plain decoding for the same {v['expected_tokens']:.2f} tokens: speedup "
                f"{v['speedup']:.2f}x. Bottom: speedup against k from 1 to {self.k_max}, the exact curve above "
                f"the source's quick estimate; k = {v['k']} circled, the best k = {v['best_k']} starred at "
                f"{v['best_speedup']:.2f}x.")

    def live_constants(self) -> dict:
        return {"k_max": self.k_max}


def speedup_explorer(alpha=_W["alpha"], k=_W["k"], t0=_W["t0"], t_draft=_W["t_draft"], t_verify=_W["t_verify"],
                     t_overhead=_W["t_overhead"], verify_slope=0.0, k_max=16) -> SpeedupExplorer:
    """Interactive speedup explorer; defaults are the source's 70B/8B worked example.

    Live in the HTML book (no kernel needed there).

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    alpha : float, optional
        Acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Draft tokens per round, in [1, k_max]. Default 5.
    t0, t_draft, t_verify, t_overhead : float, optional
        Times in ms, as in :func:`specdec.economics.speedup`. Defaults 5.2, 2.5, 6.0, 0.5.
    verify_slope : float, optional
        Extra verification ms per extra draft position, for the speedup-vs-k
        curve (see :func:`specdec.economics.round_times_vs_k`). Default 0.
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


class ThresholdExplorer(Explorer):
    """Sliders for k, c_draft, c_verify and a measured alpha; the threshold and the verdict.

    ``values`` holds the last update's ``break_even_alpha`` (``nan`` when
    no alpha can win), ``round_cost``, ``speedup`` (at the measured alpha)
    and ``verdict`` (``"net saving"``, ``"break-even"`` or ``"net loss"``),
    with the slider values.

    The model's domain: c_verify below 1 (a verification pass cheaper than
    a plain step) is refused with a warning instead of the verdict.

    Defined in chapter "The break-even condition".
    """

    name = "threshold"
    title = "Break-even threshold explorer"
    live = True

    def __init__(self, k=5, c_draft=0.1, c_verify=1.25, alpha=0.8, k_max=16):
        economics.break_even_alpha(k, c_draft, c_verify)        # validates the defaults, naming the parameter
        economics.speedup_from_costs(alpha, k, c_draft, c_verify)
        self.k_max = max(int(check_integer(k_max, "k_max", minimum=2, maximum=64)), int(k))
        wide = {"label_width": "9em", "width": "24em"}
        controls = {
            "k": int_slider(k, 1, self.k_max, "k (drafts)", **wide),
            "c_draft": float_slider(c_draft, 0.0, 1.0, 0.005, "c_draft", ".3f", **wide),
            "c_verify": float_slider(c_verify, 0.5, 4.0, 0.01, "c_verify", ".3f", **wide),
            "alpha": float_slider(alpha, 0.0, 1.0, 0.01, "measured alpha", ".2f", **wide),
        }
        fig, axes = new_figure(*THRESHOLD_FIGSIZE, ncols=2)
        self.panel = ThresholdPanel(axes, k_max=self.k_max)
        self.panel.update(int(k), float(c_draft), float(c_verify), float(alpha))
        super().__init__(controls, columns=[["k", "c_draft"], ["c_verify", "alpha"]], figure=fig,
                         dynamic=self.panel.dynamic_artists())

    def domain(self, state) -> list:
        refused = verify_cost_below_one(state["c_verify"])
        return [refused] if refused else []

    def compute(self, state=None) -> dict:
        """The threshold, round cost, speedup and verdict for the slider values (or ``state``)."""
        v = self.state(state)
        k, cd, cv, a = v["k"], v["c_draft"], v["c_verify"], v["alpha"]
        s = economics.speedup_from_costs(a, k, cd, cv)
        v.update(break_even_alpha=economics.break_even_alpha(k, cd, cv), round_cost=economics.round_cost(k, cd, cv),
                 speedup=s, verdict="net saving" if s > 1 else ("break-even" if s == 1 else "net loss"))
        return v

    def rows(self, v) -> list:
        threshold = v["break_even_alpha"]
        return [
            ("round_cost", "round cost k c_draft + c_verify (target steps)", f"{v['round_cost']:.4g}"),
            ("break_even_alpha", "break-even alpha (E[L] = round cost)",
             f"no alpha can win (cost >= k + 1 = {v['k'] + 1})" if math.isnan(threshold) else f"{threshold:.4f}"),
            ("speedup", "speedup at the measured alpha", f"{v['speedup']:.3f}"),
            ("verdict", "verdict", v["verdict"]),
        ]

    def draw(self, v):
        self.panel.update(v["k"], v["c_draft"], v["c_verify"], v["alpha"], keep_ylim=True)
        return self.panel.right.get_ylim()

    def alt_text(self, v) -> str:
        t = v["break_even_alpha"]
        need = "no alpha can win at this k" if math.isnan(t) else f"it is {t:.3f} at k = {v['k']}"
        return (f"Left: the break-even alpha against k from 1 to {self.k_max} at c_draft {v['c_draft']:.3f} and "
                f"c_verify {v['c_verify']:.3f} ({need}); above the curve speculation is a net saving; the measured "
                f"alpha {v['alpha']:.2f} is a dashed line. Right: speedup against alpha at k = {v['k']}, "
                f"{v['speedup']:.2f}x at the measured alpha: {v['verdict']}.")

    def live_constants(self) -> dict:
        return {"k_max": self.k_max, "n_points": self.panel.n_points}


def threshold_explorer(k=5, c_draft=0.1, c_verify=1.25, alpha=0.8, k_max=16) -> ThresholdExplorer:
    """Sliders for k, c_draft, c_verify and a measured alpha, showing the threshold live.

    Left panel: the break-even alpha against ``k`` with the measured alpha
    as a line (above the curve: net saving). Right panel: speedup against
    alpha at the chosen ``k``. Defaults reproduce
    :func:`specdec.plots.threshold_panel` called with the same arguments.
    Live in the HTML book (no kernel needed there).

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    k : int, optional
        Drafts per round. Default 5.
    c_draft, c_verify : float, optional
        Costs as fractions of a target step.
    alpha : float, optional
        Measured acceptance rate.
    k_max : int, optional
        Largest ``k`` on the sliders and the left panel.

    Returns
    -------
    ThresholdExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.threshold_explorer(k=4, c_draft=0.05, c_verify=1.1)
    >>> round(w.values["break_even_alpha"], 6), w.values["verdict"]
    (0.231278, 'net saving')
    """
    return ThresholdExplorer(k=k, c_draft=c_draft, c_verify=c_verify, alpha=alpha, k_max=k_max)

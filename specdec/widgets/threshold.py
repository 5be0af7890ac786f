"""The break-even threshold explorer (Part II, chapter 3). Presentation only.

Numbers from :mod:`specdec.economics` (``break_even_alpha``,
``speedup_from_costs``, ``round_cost``), figure from
:class:`specdec.plots.ThresholdPanel`. A headline explorer: live in the HTML
book through ``specdec-live.js``.
"""

from __future__ import annotations

import math

from .. import economics
from .._validate import check_integer
from ..plots import new_figure
from ..plots.threshold import THRESHOLD_FIGSIZE, ThresholdPanel
from ._base import Explorer, float_slider, int_slider
from ._domain import verify_cost_below_one

__all__ = ["ThresholdExplorer", "threshold_explorer"]


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

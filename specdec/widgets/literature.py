"""Explorers of published results: the bonus token the sources count or not, and the metrics serving engines print.

Presentation only: numbers from :mod:`specdec.literature` and
:mod:`specdec.acceptance`, figures from :mod:`specdec.plots.literature`.
The serving-metrics converter is a headline explorer: live in the HTML book
through ``specdec-live.js``.
"""

from __future__ import annotations

import math

from .. import literature as lit
from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import alpha_from_mean_acceptance_length
from ..plots.literature import BonusTokenView, ServingMetricsView
from ._base import Explorer, float_slider, int_slider

__all__ = ["BonusTokenExplorer", "bonus_token_explorer", "ServingMetricsExplorer", "serving_metrics_explorer"]


class BonusTokenExplorer(Explorer):
    """Sliders for alpha, k and the draft cost; shows the speedup with and without the target's token.

    ``values`` holds the numbers of the last update (keys ``alpha``, ``k``,
    ``c_draft``, ``c_verify``, ``correct``, ``without_bonus``,
    ``understatement``, ``ratio``).

    Defined in chapter "Published results, recomputed".
    """

    name = "bonus-token"
    title = "Bonus-token explorer"

    def __init__(self, alpha=0.8, k=5, c_draft=0.05, c_verify=1.0):
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=16))
        cd = float(check_nonnegative(c_draft, "c_draft", "(fraction of a target step)"))
        self.c_verify = float(check_positive(c_verify, "c_verify", "(fraction of a target step)"))
        self.alpha_slider = float_slider(a, 0.0, 1.0, 0.01, "alpha")
        self.k_slider = int_slider(kk, 1, 16, "k")
        self.cd_slider = float_slider(cd, 0.0, 0.5, 0.01, "c_draft")
        self.view = BonusTokenView(kk, cd, self.c_verify, a)
        super().__init__({"alpha": self.alpha_slider, "k": self.k_slider, "c_draft": self.cd_slider},
                         figure=self.view.figure, dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """The numbers for the slider values (or ``state``), from :func:`specdec.literature.bonus_token_error`."""
        s = self.state(state)
        r = lit.bonus_token_error(s["alpha"], s["k"], s["c_draft"], self.c_verify)
        return {**s, "c_verify": self.c_verify, **r}

    def rows(self, v) -> list:
        return [
            ("correct", "speedup with the target's token, E[L] / cost", f"{v['correct']:.3f}x"),
            ("without_bonus", "calculator without it, (E[L] - 1) / cost", f"{v['without_bonus']:.3f}x"),
            ("understatement", "understatement (= 1 / cost)", f"{v['understatement']:.3f}x"),
            ("ratio", "calculator / correct", f"{v['ratio']:.1%}"),
        ]

    def draw(self, v):
        return self.view.update(v["k"], v["c_draft"], v["alpha"])

    def alt_text(self, v) -> str:
        return (f"Predicted speedup against alpha at k = {v['k']}, c_d = {v['c_draft']:g}, c_v = {v['c_verify']:g}: "
                f"the correct curve E[L] / (k c_d + c_v) above the calculator's (E[L] - 1) / (k c_d + c_v); at alpha "
                f"{v['alpha']:.2f} they give {v['correct']:.2f}x and {v['without_bonus']:.2f}x.")


def bonus_token_explorer(alpha=0.8, k=5, c_draft=0.05, c_verify=1.0) -> BonusTokenExplorer:
    """Interactive view of the bonus-token calculator error; defaults equal the chapter's figure.

    Defined in chapter "Published results, recomputed".

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


class ServingMetricsExplorer(Explorer):
    """Sliders for alpha and k; shows what an engine prints and what each misreading would give.

    ``values`` holds the numbers of the last update (keys ``alpha``, ``k``,
    ``draft_acceptance_rate``, ``length_with_bonus``,
    ``length_without_bonus``, and the alphas of the misreadings
    ``rate_as_alpha`` and ``length_with_bonus_as_without`` (``nan`` when
    the with-bonus length exceeds k, so the misreading has no alpha)).

    Defined in chapter "What serving engines print".
    """

    name = "serving-metrics"
    title = "Serving-metrics converter"
    live = True

    def __init__(self, alpha=0.8, k=4):
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=16))
        self.alpha_slider = float_slider(a, 0.0, 1.0, 0.01, "alpha")
        self.k_slider = int_slider(kk, 1, 16, "k (drafts per round)")
        self.view = ServingMetricsView(kk, a)
        super().__init__({"alpha": self.alpha_slider, "k": self.k_slider}, figure=self.view.figure,
                         dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """The numbers for the slider values (or ``state``), from :func:`specdec.literature.metric_readings`."""
        s = self.state(state)
        a, k = s["alpha"], s["k"]
        m = lit.metric_readings(a, k)
        length = m["length_with_bonus"]
        as_without = alpha_from_mean_acceptance_length(length, k, include_bonus=False) if length <= k else math.nan
        return {**m, "alpha": a, "k": k, "rate_as_alpha": m["draft_acceptance_rate"],
                "length_with_bonus_as_without": float(as_without)}

    def rows(self, v) -> list:
        misread = v["length_with_bonus_as_without"]
        return [
            ("draft_acceptance_rate", "draft acceptance rate (accepted / drafted)", f"{v['draft_acceptance_rate']:.4f}"),
            ("length_with_bonus", "mean acceptance length, with the target's token", f"{v['length_with_bonus']:.4f}"),
            ("length_without_bonus", "mean accepted drafts per round (no bonus)", f"{v['length_without_bonus']:.4f}"),
            ("rate_as_alpha", "alpha if the rate is read as alpha", f"{v['rate_as_alpha']:.4f}"),
            ("length_with_bonus_as_without", "alpha if the with-bonus length is read as no-bonus",
             "none (length > k)" if math.isnan(misread) else f"{misread:.4f}"),
        ]

    def draw(self, v):
        return self.view.update(v["k"], v["alpha"])

    def alt_text(self, v) -> str:
        return (f"Left: the draft acceptance rate an engine prints against alpha for k = 1, 2, 4 and 8, below the "
                f"diagonal; at alpha {v['alpha']:.2f} and k = {v['k']} it reads {v['draft_acceptance_rate']:.3f}. "
                f"Right: the mean acceptance length against alpha at k = {v['k']}, with the target's token "
                f"({v['length_with_bonus']:.3f} here) and without it ({v['length_without_bonus']:.3f}).")

    def live_constants(self) -> dict:
        return {"left_ks": list(self.view.ks)}


def serving_metrics_explorer(alpha=0.8, k=4) -> ServingMetricsExplorer:
    """Interactive view of the metrics an engine prints for an alpha and k; defaults equal the chapter's figure.

    Live in the HTML book (no kernel needed there).

    Defined in chapter "What serving engines print".

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

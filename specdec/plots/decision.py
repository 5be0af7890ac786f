"""Figures for "Decide for your service" (presentation only: every number comes from
:func:`specdec.decision.decide`'s report and :func:`specdec.economics.speedup`)."""

from __future__ import annotations

import math

import numpy as np

from .. import economics
from .._validate import describe
from ._style import COLORS, new_figure

__all__ = ["decision_figure"]


def _speedup_vs_k(ax, d, k_show: int) -> None:
    rows = [r for r in d.speedup_by_k if r["k"] <= k_show]
    ks = np.array([r["k"] for r in rows])
    s = np.array([r["speedup"] for r in rows])
    if "speedup_low" in rows[0]:
        ax.fill_between(ks, [r["speedup_low"] for r in rows], [r["speedup_high"] for r in rows],
                        color=COLORS["target"], alpha=0.18, lw=0,
                        label=f"{d.confidence:.0%} interval of alpha")
    ax.plot(ks, s, "-o", color=COLORS["target"], ms=3.5, lw=1.8, label="model: " + d.verify_model["kind"])
    if d.sensitivity is not None:
        ax.plot([d.sensitivity["best_k"]], [d.sensitivity["best_speedup"]], "s", mfc="none",
                color=COLORS["neutral"], ms=7, label="best k if verification grew from t0")
    ax.plot([d.k], [d.speedup], "o", color=COLORS["accent"], ms=8, zorder=5, label=f"measured k = {d.k}")
    if d.measured_speedup is not None:
        ax.plot([d.k], [d.measured_speedup], "x", color="black", ms=8, mew=2, zorder=6,
                label="measured TPOT ratio")
    ax.plot([d.best_k], [d.best_speedup], "*", color=COLORS["verify"], ms=13, zorder=5, label=f"best k = {d.best_k}")
    ax.axhline(1.0, color=COLORS["baseline"], lw=1, ls="--")
    ax.axhline(d.worth_it, color=COLORS["baseline"], lw=1, ls=":")
    ax.annotate("break-even", (ks[-1], 1.0), xytext=(0, 3), textcoords="offset points", ha="right", fontsize=8,
                color=COLORS["baseline"])
    ax.annotate(f"worth-it rule {d.worth_it:g}x", (ks[-1], d.worth_it), xytext=(0, 3), textcoords="offset points",
                ha="right", fontsize=8, color=COLORS["baseline"])
    ax.set_xlim(0.5, ks[-1] + 0.5)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(0, max(float(np.max(s)), d.worth_it) * 1.25)
    ax.set_xlabel("k (draft tokens per round)")
    ax.set_ylabel("speedup over plain decoding")
    ax.set_title("speedup against k", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, frameon=False, loc="lower right")


def _speedup_vs_alpha(ax, d) -> None:
    alphas = np.linspace(0.0, 1.0, 201)
    s = np.asarray(economics.speedup(alphas, d.k, d.t0, d.t_draft_round, d.t_verify, d.t_overhead), dtype=float)
    ax.plot(alphas, s, "-", color=COLORS["target"], lw=1.8, label=f"speedup at k = {d.k}")
    ax.axhline(1.0, color=COLORS["baseline"], lw=1, ls="--")
    ax.axhline(d.worth_it, color=COLORS["baseline"], lw=1, ls=":")
    if d.alpha_interval is not None:
        ax.axvspan(d.alpha_interval[0], d.alpha_interval[1], color=COLORS["accent"], alpha=0.2, lw=0)
    ax.axvline(d.alpha, color=COLORS["accent"], lw=1.5, label=f"measured alpha {d.alpha:.3f}")
    if math.isfinite(d.break_even_alpha) and d.break_even_alpha > 0:
        ax.axvline(d.break_even_alpha, color=COLORS["baseline"], lw=1.2, ls="--",
                   label=f"break-even alpha {d.break_even_alpha:.3f}")
    if math.isfinite(d.worth_it_alpha) and 0 < d.worth_it_alpha < 1:
        ax.axvline(d.worth_it_alpha, color=COLORS["baseline"], lw=1.2, ls=":",
                   label=f"alpha for {d.worth_it:g}x: {d.worth_it_alpha:.3f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, max(float(np.max(s)), d.worth_it) * 1.25)
    ax.set_xlabel(r"acceptance rate $\alpha$")
    ax.set_title(f"speedup against alpha at k = {d.k}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, frameon=False, loc="upper left")


def decision_figure(decision, k_show=None, axes=None):
    """The decision at a glance: speedup against k (top) and against alpha at the measured k (bottom).

    Top: the speedup at every k under the report's verification model, with
    the band of the alpha interval when counts were given, the measured k,
    the measured TPOT ratio when given, the best k, and the break-even and
    worth-it lines. Bottom: the speedup at the measured k as alpha varies,
    with the measured alpha (and its interval), the break-even alpha and the
    alpha the worth-it rule needs.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    decision : specdec.decision.Decision
        A report of :func:`specdec.decision.decide`.
    k_show : int, optional
        Largest k drawn at the top (default: three beyond the larger of the
        measured and the best k, at most the report's ``k_max``).
    axes : pair of matplotlib Axes, optional
        Draw into these (top, bottom; cleared first), as the chapter's explorer does.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec.plots.decision import decision_figure
    >>> d = sd.decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, mean_acceptance_length=3.1)
    >>> len(decision_figure(d).axes)
    2
    """
    from ..decision import Decision

    if not isinstance(decision, Decision):
        raise TypeError(f"decision must be a report of specdec.decide, got {type(decision).__name__}")
    k_max = len(decision.speedup_by_k)
    if k_show is None:
        k_show = min(max(decision.k, decision.best_k) + 3, k_max)
    elif isinstance(k_show, bool) or not isinstance(k_show, (int, np.integer)) or not 1 <= k_show <= k_max:
        raise ValueError(f"k_show must be a whole number in [1, {k_max}]; got {describe(k_show)}")
    if axes is None:
        fig, (top, bottom) = new_figure(6.4, 8.0, nrows=2)
    else:
        top, bottom = axes
        fig = top.figure
        top.clear()
        bottom.clear()
    _speedup_vs_k(top, decision, int(k_show))
    _speedup_vs_alpha(bottom, decision)
    return fig

"""Figures of the decision: the verdict of ``decide``, and the checklist's 1.3 rule against the exact speedup.

Presentation only: every number comes from :func:`specdec.decision.decide`'s report,
:data:`specdec.decision.policy.WORTH_IT_SPEEDUP`, :mod:`specdec.decision.checklist` and
:mod:`specdec.economics`.
"""

from __future__ import annotations

import math

import numpy as np

from specdec.decision.policy import WORTH_IT_SPEEDUP

from .. import economics
from .._validate import describe
from ._style import COLORS, SEQUENCE, new_figure

__all__ = [
    "decision_figure",
    "worth_it_vs_alpha",
]


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


def worth_it_vs_alpha(workload, worth_it=WORTH_IT_SPEEDUP, min_alpha=0.6, n_points=401):
    """The exact speedup and the source's quick estimate against alpha, with the 1.3 rule.

    Both curves use the workload's ``k`` and times. Marked: where the exact
    speedup breaks even (:func:`specdec.economics.break_even_alpha`), where the quick
    estimate reaches ``worth_it`` (:func:`specdec.economics.required_alpha`
    on :func:`specdec.economics.quick_estimate_costs`) with the exact speedup
    at that alpha, the checklist's ``alpha <= min_alpha`` band and the
    workload's measured alpha. Where the *exact* speedup crosses the rule is
    left for the reader to read off (an exercise of the chapter asks for it).

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    workload : specdec.decision.checklist.Workload
        Supplies ``k``, ``t0``, ``t_draft``, ``t_verify``, ``t_overhead`` and ``alpha``.
    worth_it : float, optional
        The "worth the complexity" speedup (source: 1.3).
    min_alpha : float, optional
        The checklist's acceptance threshold (source: 0.6).
    n_points : int, optional
        Points on the alpha axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.worth_it_vs_alpha(sd.checklist.EXAMPLES["chat"])
    >>> len(fig.axes)
    1
    """
    w = workload
    alpha = np.linspace(0.0, 1.0, int(n_points))
    exact = economics.speedup(alpha, w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead)
    quick = economics.quick_estimate(alpha, w.k, w.t0, w.t_draft, w.t_verify)
    even = float(economics.break_even_alpha(w.k, w.c_draft, w.c_verify))
    quick_costs = economics.quick_estimate_costs(w.k, w.t0, w.t_draft, w.t_verify)
    need_quick = float(economics.required_alpha(worth_it, w.k, *quick_costs))

    fig, ax = new_figure(6.4, 4.2)
    ax.axvspan(0.0, min_alpha, color=SEQUENCE[5], alpha=0.12, lw=0, label=rf"checklist fails: $\alpha \leq$ {min_alpha:g}")
    ax.plot(alpha, exact, color=COLORS["target"], lw=2, label=r"exact: $T_0\,E[L]/T_\mathrm{round}$")
    ax.plot(alpha, quick, color=COLORS["draft"], lw=2, ls="--", label="source's quick estimate")
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    ax.axhline(worth_it, color=COLORS["accent"], lw=1, ls=":", label=f"{worth_it:g}x rule")
    if np.isfinite(even) and 0.0 < even < 1.0:
        ax.plot([even], [1.0], "o", color=COLORS["target"], mfc="white")
        ax.annotate(rf"exact breaks even at $\alpha$ = {even:.2f}", (even, 1.0), xytext=(-10, 3),
                    textcoords="offset points", fontsize=9, color=COLORS["target"], ha="right", va="bottom")
    if np.isfinite(need_quick) and 0.0 < need_quick < 1.0:
        at_need = float(economics.speedup(need_quick, w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead))
        ax.plot([need_quick], [worth_it], "s", color=COLORS["draft"])
        ax.plot([need_quick, need_quick], [worth_it, at_need], color=COLORS["draft"], lw=1, ls=":")
        ax.plot([need_quick], [at_need], "s", color=COLORS["target"], mfc="white")
        ax.annotate(f"quick reaches {worth_it:g}\n" + rf"at $\alpha$ = {need_quick:.2f};" + f"\nexact there: {at_need:.2f}",
                    (need_quick, worth_it), xytext=(8, -36),
                    textcoords="offset points", fontsize=9, color=COLORS["draft"], va="top")
    measured = float(economics.speedup(w.alpha, w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead))
    ax.plot([w.alpha], [measured], "o", color=COLORS["target"], label=rf"measured $\alpha$ = {w.alpha:g}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, max(float(exact.max()), float(quick.max())) * 1.08)
    ax.set_xlabel(r"acceptance rate $\alpha$")
    ax.set_ylabel("speedup over plain decoding")
    ax.set_title(f"k = {w.k}, T0 = {w.t0:g}, T_draft = {w.t_draft:g}, T_verify = {w.t_verify:g}, "
                 f"T_overhead = {w.t_overhead:g} {w.time_unit}", fontsize=9)
    ax.legend(loc="upper left", fontsize=9, frameon=False)
    return fig

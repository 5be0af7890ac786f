"""Figures that put the first source's rules of thumb next to the exact speedup.

For "When speculation does not help" (poor acceptance: where a round of a
given cost breaks even) and "The decision checklist" (the 1.3 rule applied to
the exact speedup and to the source's quick estimate). Presentation only:
every number comes from :mod:`specdec.economics`.
"""

from __future__ import annotations

import numpy as np

from specdec.decision.policy import WORTH_IT_SPEEDUP

from .. import economics
from ._style import COLORS, SEQUENCE, new_figure

__all__ = ["break_even_by_round_cost", "worth_it_vs_alpha"]


def _check_costs(round_costs, labels):
    costs = [float(c) for c in round_costs]
    if not costs:
        raise ValueError("round_costs must contain at least one round cost")
    if any(not np.isfinite(c) or c <= 0 for c in costs):
        raise ValueError(f"round_costs must be positive numbers of target steps; got {costs}")
    if labels is None:
        labels = [f"round = {c:.2f} T0" for c in costs]
    labels = [str(label) for label in labels]
    if len(labels) != len(costs):
        raise ValueError(f"labels must have one entry per round cost ({len(costs)}); got {len(labels)}")
    return costs, labels


def break_even_by_round_cost(round_costs, labels=None, k=5, alpha_mark=0.5, n_points=401):
    """Speedup against alpha for rounds of given cost, each with its break-even alpha marked.

    A round that costs ``R`` target steps (drafting, verification and
    overhead together) gives the speedup ``E[L](alpha, k) / R``
    (:func:`specdec.economics.speedup_from_costs` with ``c_draft = 0``, ``c_verify = R``);
    it breaks even where ``E[L] = R`` (:func:`specdec.economics.break_even_alpha`). The
    figure marks each break-even point on the line ``speedup = 1`` (its value
    in the legend) and draws a dotted vertical at ``alpha_mark`` (the source's
    "poor" acceptance) without reading values off it.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    round_costs : sequence of float
        Whole-round costs in target decode steps, each > 0.
    labels : sequence of str, optional
        One legend label per cost (default ``"round = R T0"``).
    k : int, optional
        Draft tokens per round, >= 1.
    alpha_mark : float, optional
        The acceptance rate to mark, in [0, 1] (source: 0.5).
    n_points : int, optional
        Points on the alpha axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec.plots import screens
    >>> fig = screens.break_even_by_round_cost([2.0, 9.0 / 5.2])
    >>> len(fig.axes[0].lines) >= 2
    True
    """
    costs, labels = _check_costs(round_costs, labels)
    kk = int(k)
    alpha = np.linspace(0.0, 1.0, int(n_points))
    fig, ax = new_figure(6.4, 4.0)
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    ax.axvline(float(alpha_mark), color=COLORS["accent"], ls=":", lw=1)
    ax.text(float(alpha_mark) - 0.01, 0.06, rf"$\alpha$ = {float(alpha_mark):g}", fontsize=9, color=COLORS["accent"],
            ha="right")
    styles = ("-", "--", "-.", ":")
    for i, (cost, label) in enumerate(zip(costs, labels, strict=False)):
        color = SEQUENCE[i % len(SEQUENCE)]
        curve = economics.speedup_from_costs(alpha, kk, 0.0, cost)
        even = float(economics.break_even_alpha(kk, 0.0, cost))
        if np.isfinite(even) and 0.0 < even < 1.0:
            label = label + rf": breaks even at $\alpha$ = {even:.2f}"
            ax.plot([even], [1.0], "o", color=color, zorder=3)
        ax.plot(alpha, curve, color=color, lw=2, ls=styles[i % len(styles)], label=label)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, None)
    ax.set_xlabel(r"acceptance rate $\alpha$")
    ax.set_ylabel("speedup over plain decoding")
    ax.set_title(f"k = {kk}: where a round of each cost breaks even", fontsize=10)
    ax.legend(fontsize=9, frameon=False, loc="upper left")
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
    >>> from specdec.plots import screens
    >>> fig = screens.worth_it_vs_alpha(sd.checklist.EXAMPLES["chat"])
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

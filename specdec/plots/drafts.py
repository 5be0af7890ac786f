"""Figures for "Draft cost in three arrangements" (presentation
only: every number comes from :mod:`specdec.drafts` and :mod:`specdec.economics`)."""

from __future__ import annotations

import numpy as np

from .. import drafts as _drafts
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure

__all__ = ["draft_size_tradeoff", "arrangement_thresholds"]


def draft_size_tradeoff(ks=(2, 4, 8), c_verify=1.0, alpha_ref=0.8, ratio_ref=0.1, draft_overhead=0.0,
                        marks=None, n_points=400):
    """Cost and (toy) acceptance of a separate draft model against its size, and the speedup they give.

    Left: ``c_draft = r + draft_overhead`` and the TOY acceptance curve
    :func:`specdec.drafts.toy_draft_alpha` against the size ratio ``r``
    (log axis). Right: the speedup :func:`specdec.drafts.separate_draft_speedup`
    for each ``k`` in ``ks``, with a dot at each curve's best size
    (:func:`specdec.drafts.optimal_draft_ratio`). ``marks`` draws labelled
    vertical lines at given ratios (e.g. real model pairs).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    ks : sequence of int, optional
        Draft counts, one curve each.
    c_verify, alpha_ref, ratio_ref, draft_overhead : float, optional
        As in :func:`specdec.drafts.separate_draft_speedup`.
    marks : dict, optional
        ``label -> size ratio`` to mark on both panels.
    n_points : int, optional
        Points on the size axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.draft_size_tradeoff(marks={"8B / 70B": 0.114})
    >>> len(fig.axes)
    2
    """
    r = np.logspace(-4, 0, int(n_points))
    alpha = _drafts.toy_draft_alpha(r, alpha_ref, ratio_ref)
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.6, ncols=2)
    left.plot(r, alpha, color=COLORS["verify"], lw=2, label=r"TOY acceptance $\alpha(r)$")
    left.plot(r, r + draft_overhead, color=COLORS["draft"], lw=2, label=r"draft cost $c_d = r$"
              + (f" + {draft_overhead:g}" if draft_overhead else ""))
    left.plot([ratio_ref], [alpha_ref], "o", color=COLORS["verify"], ms=6)
    left.set_xscale("log")
    left.set_ylim(0, 1.02)
    left.set_xlabel("draft size / target size, r")
    left.set_ylabel("fraction")
    left.set_title(f"toy model anchored at alpha = {alpha_ref:g} for r = {ratio_ref:g}", fontsize=10)
    left.legend(fontsize=8, frameon=False, loc="upper left")
    left.grid(alpha=0.3, which="both")
    top = 1.0
    for i, k in enumerate(ks):
        color = SEQUENCE[i % len(SEQUENCE)]
        s = _drafts.separate_draft_speedup(r, int(k), c_verify, alpha_ref, ratio_ref, draft_overhead)
        best_r, best_s = _drafts.optimal_draft_ratio(int(k), c_verify, alpha_ref, ratio_ref, draft_overhead,
                                                     ratios=r)
        right.plot(r, s, color=color, lw=2, label=f"k = {int(k)}: best r {best_r:.3f}, {best_s:.2f}x")
        right.plot([best_r], [best_s], "o", color=color, ms=6)
        top = max(top, best_s)
    right.axhline(1.0, color=COLORS["baseline"], lw=1)
    right.set_xscale("log")
    right.set_ylim(0, top * 1.4)                 # room for the legend above the curves
    right.set_xlabel("draft size / target size, r")
    right.set_ylabel("speedup")
    right.set_title(f"speedup with c_verify = {c_verify:g}", fontsize=10)
    right.legend(fontsize=8, frameon=False, loc="upper left")
    right.grid(alpha=0.3, which="both")
    for label, ratio in (marks or {}).items():
        for ax in (left, right):
            ax.axvline(ratio, color=COLORS["baseline"], lw=0.8, ls=":")
        right.text(ratio, 0.05 * top, f" {label}", rotation=90, fontsize=8, color=COLORS["baseline"], va="bottom")
    return fig


def arrangement_thresholds(arrangements, k_max=None):
    """Break-even alpha and achieved (equivalent) alpha against k, for several arrangements.

    Left: for each :class:`specdec.drafts.DraftArrangement`, its break-even
    alpha at each ``k`` (solid) and the constant alpha that yields the same
    E[L] as its per-position rates (dashed, markers,
    :func:`specdec.drafts.equivalent_alpha`): where the dashed line is above
    the solid one of the same colour, that arrangement is a net saving.
    Right: the resulting speedup against ``k``, best ``k`` ringed.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    arrangements : sequence of specdec.drafts.DraftArrangement
    k_max : int, optional
        Largest ``k`` shown (default: the largest ``k_max`` of the arrangements;
        each arrangement is drawn up to its own ``k_max``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> arr = [sd.drafts.DraftArrangement("a", 0.1, (0.8,) * 6), sd.drafts.DraftArrangement("b", 0.0, (0.6, 0.4, 0.3))]
    >>> len(sd.plots.arrangement_thresholds(arr).axes)
    2
    """
    arrangements = list(arrangements)
    km = max(a.k_max for a in arrangements) if k_max is None else int(k_max)
    fig, (left, right) = new_figure(CONTENT_WIDTH, 4.2, ncols=2)
    top = 1.0
    for i, arr in enumerate(arrangements):
        color = SEQUENCE[i % len(SEQUENCE)]
        ks = np.arange(1, min(arr.k_max, km) + 1)
        be = np.asarray(arr.break_even_alpha(ks), dtype=float)
        eq = np.array([arr.equivalent_alpha(int(k)) for k in ks])
        left.plot(ks, be, "-", color=color, lw=2)
        left.plot(ks, eq, "--", marker="o", ms=4, color=color, lw=1.2)
        s = np.asarray(arr.speedup(ks), dtype=float)
        right.plot(ks, s, "-o", ms=4, color=color, lw=2, label=arr.name)
        best = int(ks[np.argmax(s)])
        right.plot([best], [s[best - 1]], "o", mfc="none", mec="black", ms=11, mew=1.5)
        top = max(top, float(s.max()))
    for ax in (left, right):
        ax.xaxis.get_major_locator().set_params(integer=True)
    left.set_xlim(1, km)
    left.set_ylim(0, 1.02)
    left.set_xlabel("k (drafts per round)")
    left.set_ylabel(r"acceptance rate $\alpha$")
    left.set_title("threshold (solid) vs what the draft\nachieves (dashed)", fontsize=9)
    from matplotlib.lines import Line2D

    styles = [Line2D([], [], color="black", lw=2, label=r"break-even $\alpha$ (left)"),
              Line2D([], [], color="black", lw=1.2, ls="--", marker="o", ms=4,
                     label=r"achieved (equivalent) $\alpha$ (left)")]
    left.grid(alpha=0.3)
    right.axhline(1.0, color=COLORS["baseline"], lw=1)
    right.set_xlim(1, km)
    right.set_ylim(0, top * 1.12)
    right.set_xlabel("k (drafts per round)")
    right.set_ylabel("speedup")
    right.set_title("speedup (best k ringed)", fontsize=9)
    right.grid(alpha=0.3)
    # one legend under both panels: the two line styles, then one colour per arrangement
    fig.legend(handles=styles + right.get_lines()[: 2 * len(arrangements): 2], fontsize=8, frameon=False,
               loc="outside lower center", ncols=2)
    return fig

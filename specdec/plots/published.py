"""Figures of published measurements used in Part II (presentation only).

Every number drawn here is a cited input of :mod:`specdec.literature` or
:mod:`specdec.drafts.drafters`, passed in as the table those modules return:

* :func:`alpha_by_temperature`: Leviathan et al.'s Table 3, the acceptance
  rate of every model pair with argmax and with standard sampling
  (:func:`specdec.literature.leviathan_table3`);
* :func:`arrangements_measured`: Spec-Bench's A100 leaderboard for one
  target, every draft arrangement measured on the same setup
  (:func:`specdec.drafts.drafters.spec_bench_table`).
"""

from __future__ import annotations

import numpy as np

from ._style import COLORS, SEQUENCE, new_figure

__all__ = ["alpha_by_temperature", "arrangements_measured"]


def alpha_by_temperature(table):
    """Acceptance rate at T = 0 and T = 1 for every pair of Leviathan et al.'s Table 3.

    One row per (target, draft) pair, grouped by target: a filled dot at
    argmax sampling (T = 0), an open dot at standard sampling (T = 1),
    joined by a line. Pairs whose printed change is larger than the table's
    rounding are drawn in the accent colour; the others (flat, or a change
    the two-decimal rounding cannot tell from none) in grey.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    table : dict
        As returned by :func:`specdec.literature.leviathan_table3`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec.plots import published
    >>> fig = published.alpha_by_temperature(sd.literature.leviathan_table3())
    >>> len(fig.axes)
    1
    """
    targets, drafts = list(table["target"]), list(table["draft"])
    a0, a1 = np.asarray(table["alpha_t0"], dtype=float), np.asarray(table["alpha_t1"], dtype=float)
    beyond = np.asarray(table["beyond_rounding"], dtype=bool)
    n = len(drafts)
    fig, ax = new_figure(7.6, 0.36 * n + 1.4)
    y = np.arange(n)[::-1].astype(float)
    for i in range(n):
        color = COLORS["accent"] if beyond[i] else COLORS["baseline"]
        ax.plot([a0[i], a1[i]], [y[i], y[i]], color=color, lw=2, alpha=0.8)
        ax.plot([a0[i]], [y[i]], "o", color=color, ms=7)
        ax.plot([a1[i]], [y[i]], "o", mfc="white", mec=color, mew=1.8, ms=7)
        ax.text(max(a0[i], a1[i]) + 0.015, y[i], f"{a0[i]:.2f} \u2192 {a1[i]:.2f}", va="center", fontsize=9,
                color=color)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{t}  /  {d}" for t, d in zip(targets, drafts, strict=False)], fontsize=9)
    for i in range(1, n):
        if targets[i] != targets[i - 1]:
            ax.axhline(y[i] + 0.5, color=COLORS["baseline"], lw=0.6, alpha=0.5)
    ax.set_xlim(0.0, 1.15)
    ax.set_xticks(np.linspace(0.0, 1.0, 6))
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("acceptance rate alpha (as printed)")
    ax.plot([], [], "o", color=COLORS["baseline"], label="T = 0 (argmax)")
    ax.plot([], [], "o", mfc="white", mec=COLORS["baseline"], label="T = 1 (standard sampling)")
    ax.plot([], [], color=COLORS["accent"], lw=2, label="change larger than the rounding")
    ax.plot([], [], color=COLORS["baseline"], lw=2, label="no change, or within the rounding")
    ax.legend(fontsize=8.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=2)
    ax.grid(alpha=0.3, axis="x")
    ax.set_title("target / draft", fontsize=10, loc="left")
    return fig


def arrangements_measured(table, families, highlight=None):
    """Speedup and tokens per step of the draft arrangements measured on one setup.

    Top: the overall speedup of each method (horizontal bars, leaderboard
    order), coloured by its arrangement. Bottom: the same methods placed by
    their mean accepted tokens per target forward pass (bonus token
    included) and the round cost those two numbers imply, in plain decode
    steps (tokens per step divided by speedup).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    table : dict
        As returned by :func:`specdec.drafts.drafters.spec_bench_table`.
    families : dict
        ``method -> arrangement label``; methods not listed are drawn as
        "other".
    highlight : sequence of str, optional
        Methods whose labels are drawn in bold.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec.plots import published
    >>> fig = published.arrangements_measured(sd.drafters.spec_bench_table(), {"SpS": "separate draft model"})
    >>> len(fig.axes)
    2
    """
    methods = list(table["method"])
    speed = np.asarray(table["speedup"], dtype=float)
    tokens = np.asarray(table["mean_accepted_tokens"], dtype=float)
    cost = np.asarray(table["implied_round_cost"], dtype=float)
    labels = [families.get(m, "other") for m in methods]
    order = list(dict.fromkeys(labels))
    color_of = {lab: SEQUENCE[i % len(SEQUENCE)] for i, lab in enumerate(order)}
    bold = set(highlight or ())
    fig, (top, bottom) = new_figure(7.4, 8.6, nrows=2, gridspec_kw={"height_ratios": [1.0, 1.1]})
    y = np.arange(len(methods))[::-1]
    top.barh(y, speed, color=[color_of[lab] for lab in labels], alpha=0.85, height=0.7)
    for yi, s, m in zip(y, speed, methods, strict=False):
        top.text(s + 0.03, yi, f"{s:.2f}x", va="center", fontsize=10, fontweight="bold" if m in bold else "normal")
    top.set_yticks(y)
    top.set_yticklabels(methods, fontsize=10)
    for tick, m in zip(top.get_yticklabels(), methods, strict=False):
        if m in bold:
            tick.set_fontweight("bold")
    top.axvline(1.0, color=COLORS["baseline"], lw=1)
    top.set_xlim(0, speed.max() * 1.45)
    top.set_xlabel("overall speedup over plain decoding", fontsize=10)
    top.grid(alpha=0.3, axis="x")
    for lab in order:
        top.barh([np.nan], [np.nan], color=color_of[lab], label=lab)
    top.legend(fontsize=9.5, frameon=False, loc="lower right")
    offsets = {}
    for t, c, m, lab in zip(tokens, cost, methods, labels, strict=False):
        bottom.plot([t], [c], "o", color=color_of[lab], ms=9)
        near = [n for n, (t2, c2) in offsets.items() if abs(t2 - t) < 0.35 and abs(c2 - c) < 0.04]
        dy = -13 if near else 5
        offsets[m] = (t, c)
        bottom.annotate(m, (t, c), xytext=(6, dy), textcoords="offset points", fontsize=10,
                        fontweight="bold" if m in bold else "normal")
    bottom.set_xlabel("mean accepted tokens per target pass (bonus token included)", fontsize=10)
    bottom.set_ylabel("implied round cost (plain decode steps)", fontsize=10)
    bottom.set_xlim(1.0, tokens.max() * 1.22)
    bottom.set_ylim(min(1.0, cost.min()) - 0.05, cost.max() * 1.08)
    bottom.axhline(1.0, color=COLORS["baseline"], lw=0.8, ls=":")
    bottom.tick_params(labelsize=9.5)
    top.tick_params(axis="x", labelsize=9.5)
    bottom.grid(alpha=0.3)
    return fig

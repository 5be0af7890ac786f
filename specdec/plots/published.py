"""Figures of published measurements used in Part II (presentation only).

Every number drawn here is a cited input of :mod:`specdec.literature` or
:mod:`specdec.drafters`, passed in as the table those modules return:

* :func:`alpha_by_temperature`: Leviathan et al.'s Table 3, the acceptance
  rate of every model pair with argmax and with standard sampling
  (:func:`specdec.literature.leviathan_table3`);
* :func:`arrangements_measured`: Spec-Bench's A100 leaderboard for one
  target, every draft arrangement measured on the same setup
  (:func:`specdec.drafters.spec_bench_table`).
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
    ax.set_yticklabels([f"{t}  /  {d}" for t, d in zip(targets, drafts)], fontsize=9)
    for i in range(1, n):
        if targets[i] != targets[i - 1]:
            ax.axhline(y[i] + 0.5, color=COLORS["baseline"], lw=0.6, alpha=0.5)
    ax.set_xlim(0.0, 1.05)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("acceptance rate alpha (as printed)")
    ax.plot([], [], "o", color=COLORS["baseline"], label="T = 0 (argmax)")
    ax.plot([], [], "o", mfc="white", mec=COLORS["baseline"], label="T = 1 (standard sampling)")
    ax.plot([], [], color=COLORS["accent"], lw=2, label="change larger than the rounding")
    ax.plot([], [], color=COLORS["baseline"], lw=2, label="no change, or within the rounding")
    ax.legend(fontsize=8.5, frameon=False, loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    ax.set_title("target / draft", fontsize=10, loc="left")
    return fig


def arrangements_measured(table, families, highlight=None):
    """Speedup and tokens per step of the draft arrangements measured on one setup.

    Left: the overall speedup of each method (horizontal bars, leaderboard
    order), coloured by its arrangement. Right: the same methods placed by
    their mean accepted tokens per target forward pass (bonus token
    included) and the round cost those two numbers imply, in plain decode
    steps (tokens per step divided by speedup).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    table : dict
        As returned by :func:`specdec.drafters.spec_bench_table`.
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
    fig, (left, right) = new_figure(11.0, 4.6, ncols=2)
    y = np.arange(len(methods))[::-1]
    left.barh(y, speed, color=[color_of[lab] for lab in labels], alpha=0.85)
    for yi, s, m in zip(y, speed, methods):
        left.text(s + 0.03, yi, f"{s:.2f}x", va="center", fontsize=9,
                  fontweight="bold" if m in bold else "normal")
    left.set_yticks(y)
    left.set_yticklabels(methods, fontsize=9.5)
    for tick, m in zip(left.get_yticklabels(), methods):
        if m in bold:
            tick.set_fontweight("bold")
    left.axvline(1.0, color=COLORS["baseline"], lw=1)
    left.set_xlim(0, speed.max() * 1.18)
    left.set_xlabel("overall speedup over plain decoding")
    left.grid(alpha=0.3, axis="x")
    for lab in order:
        left.barh([np.nan], [np.nan], color=color_of[lab], label=lab)
    left.legend(fontsize=8.5, frameon=False, loc="lower right")
    for t, c, m, lab in zip(tokens, cost, methods, labels):
        right.plot([t], [c], "o", color=color_of[lab], ms=8)
        right.annotate(m, (t, c), xytext=(5, 4), textcoords="offset points", fontsize=9,
                       fontweight="bold" if m in bold else "normal")
    right.set_xlabel("mean accepted tokens per target pass (bonus token included)")
    right.set_ylabel("implied round cost (plain decode steps)")
    right.set_xlim(1.0, tokens.max() * 1.12)
    right.set_ylim(min(1.0, cost.min()) - 0.05, cost.max() * 1.1)
    right.axhline(1.0, color=COLORS["baseline"], lw=0.8, ls=":")
    right.grid(alpha=0.3)
    return fig

"""Figures of published results: the sources' numbers recomputed, and what serving engines print.

Presentation only: every number drawn comes from :mod:`specdec.literature` (published inputs and
their recomputation, among them Leviathan et al.'s Table 3 as
:func:`specdec.literature.leviathan_table3` returns it) or the core formulas. Each function
returns a :class:`matplotlib.figure.Figure` made with :func:`specdec.plots.new_figure`, or draws
into axes passed in (the explorers redraw into the same figure).
"""

from __future__ import annotations

import numpy as np

from .. import literature as _lit
from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure

__all__ = [
    "LITERATURE_DEFAULT_CS",
    "literature_optimal_gamma",
    "literature_t5_expected_vs_measured",
    "literature_bonus_token_error",
    "BonusTokenView",
    "literature_serving_metrics",
    "ServingMetricsView",
    "alpha_by_temperature",
]


#: Cost ratios c drawn in the optimal-gamma figure (Leviathan et al.'s Figure 3 uses a similar spread).
LITERATURE_DEFAULT_CS = (0.01, 0.02, 0.05, 0.1, 0.2)


def _fig_ax(ax, width=6.4, height=4.0):
    if ax is None:
        return new_figure(width, height)
    return ax.figure, ax


def literature_optimal_gamma(cs=LITERATURE_DEFAULT_CS, k_max: int = 30, n_points: int = 400, ax=None):
    """Optimal gamma against alpha for several draft cost ratios c (Leviathan et al.'s Figure 3, recomputed).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    cs : sequence of float
        Draft-to-target step time ratios, each >= 0.
    k_max : int, optional
        Largest gamma considered, in [2, 200]. Default 30.
    n_points : int, optional
        Alpha grid points on (0, 0.99], in [10, 5000]. Default 400.
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.literature_optimal_gamma()
    >>> len(fig.axes[0].lines)
    5
    """
    c = np.atleast_1d(check_nonnegative(cs, "cs", "(ratio of draft to target step time)"))
    km = int(check_integer(k_max, "k_max", minimum=2, maximum=200))
    n = int(check_integer(n_points, "n_points", minimum=10, maximum=5000))
    fig, ax = _fig_ax(ax)
    ax.clear()
    alphas = np.linspace(0.01, 0.99, n)
    gam = _lit.leviathan_optimal_gamma(alphas[:, None], c[None, :], km)
    for j, cj in enumerate(c):
        ax.step(alphas, gam[:, j], where="mid", color=SEQUENCE[j % len(SEQUENCE)], label=f"$c = {cj:g}$")
    ax.set_xlabel(r"acceptance rate $\alpha$")
    ax.set_ylabel(r"optimal draft length $\gamma$ ($=k$)")
    ax.set_yscale("log")
    ax.set_yticks([1, 2, 3, 5, 10, 20])
    ax.set_yticklabels(["1", "2", "3", "5", "10", "20"])
    ax.set_xlim(0, 1)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(alpha=0.25)
    return fig


def literature_t5_expected_vs_measured(ax=None):
    """Theorem 3.8 at Leviathan et al.'s printed inputs against their measured T5-XXL speedups.

    Each row of their Tables 2 and 4 is a point: x is our recomputed
    expected speedup (the bar spans the range allowed by the inputs'
    rounding), y the measured speedup. Points above the diagonal beat the
    model; points below fall short of it.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.literature_t5_expected_vs_measured()
    >>> fig.axes[0].get_xlabel()[:8]
    'expected'
    """
    fig, ax = _fig_ax(ax, 5.6, 4.6)
    ax.clear()
    r = _lit.leviathan_t5_expected()
    lim = (1.2, 3.6)
    ax.plot(lim, lim, ls="--", color=COLORS["baseline"], lw=1, label="measured = expected")
    markers = {"T5-small": "o", "T5-base": "s", "T5-large": "^"}
    for j, draft in enumerate(markers):
        for temp, face in ((0, None), (1, "none")):
            sel = (r["draft"] == draft) & (r["temperature"] == temp)
            color = SEQUENCE[j]
            ax.errorbar(r["computed"][sel], r["measured"][sel],
                        xerr=[r["computed"][sel] - r["low"][sel], r["high"][sel] - r["computed"][sel]],
                        fmt=markers[draft], color=color, mfc=face if face else color, ms=6, capsize=2, lw=1,
                        label=f"{draft}, T={temp}")
    ax.set_xlim(*lim)
    ax.set_ylim(*lim)
    ax.set_aspect("equal")
    ax.set_xlabel("expected speedup, Theorem 3.8 at printed inputs")
    ax.set_ylabel("measured speedup (Table 2)")
    ax.legend(loc="upper left", fontsize=7, frameon=False, ncol=2)
    ax.grid(alpha=0.25)
    return fig


class BonusTokenView:
    """The figure of :func:`literature_bonus_token_error`, updatable in place for its explorer.

    :meth:`update` moves the marked alpha (a segment and its two labels,
    :attr:`dynamic_artists`) and, when ``k`` or ``c_draft`` change, the
    curves, title and y limit exactly as a fresh figure draws them; it
    returns the key of everything but the marked alpha.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    k, c_draft, c_verify, alpha, n_points, ax
        As in :func:`literature_bonus_token_error`.

    Examples
    --------
    >>> import specdec as sd
    >>> view = sd.plots.BonusTokenView()
    >>> view.update(4, 0.1, 0.7)
    (4, 0.1)
    >>> view.label_correct.get_text()   # E[L](0.7, 4) / (4 * 0.1 + 1) = 2.7731 / 1.4
    '1.98x'
    """

    def __init__(self, k: int = 5, c_draft: float = 0.05, c_verify: float = 1.0, alpha: float = 0.8,
                 n_points: int = 300, ax=None):
        kk = int(check_integer(k, "k", minimum=1, maximum=64))
        cd = float(check_nonnegative(c_draft, "c_draft", "(fraction of a target step)"))
        self.c_verify = float(check_positive(c_verify, "c_verify", "(fraction of a target step)"))
        a0 = float(check_probability(alpha, "alpha"))
        n = int(check_integer(n_points, "n_points", minimum=10, maximum=5000))
        self.figure, ax = _fig_ax(ax)
        ax.clear()
        self.ax = ax
        self.grid = np.linspace(0, 1, n)
        (self.curve_correct,) = ax.plot(self.grid, self.grid, color=COLORS["target"], lw=2,
                                        label=r"with the target's token: $E[L]/(k c_d + c_v)$")
        (self.curve_without,) = ax.plot(self.grid, self.grid, color=COLORS["accent"], lw=2, ls="-.",
                                        label=r"calculator error: $(E[L]-1)/(k c_d + c_v)$")
        ax.axhline(1, color=COLORS["baseline"], lw=1, ls="--", label="no speedup")
        (self.marked,) = ax.plot([a0, a0], [0.0, 0.0], color="0.3", lw=1, marker="o", ms=4)
        self.label_correct = ax.annotate("", (a0, 0.0), xytext=(-34, 6), textcoords="offset points", fontsize=8)
        self.label_without = ax.annotate("", (a0, 0.0), xytext=(6, -12), textcoords="offset points", fontsize=8)
        ax.set_xlabel(r"acceptance rate $\alpha$")
        ax.set_ylabel("predicted speedup")
        ax.set_xlim(0, 1)
        ax.legend(loc="upper left", fontsize=8, frameon=False)
        ax.grid(alpha=0.25)
        self.key = None
        self.update(kk, cd, a0)

    @property
    def dynamic_artists(self) -> list:
        """The artists that follow alpha (everything else depends only on the key :meth:`update` returns)."""
        return [self.marked, self.label_correct, self.label_without]

    def update(self, k: int, c_draft: float, alpha: float):
        """Move the figure to ``(k, c_draft, alpha)``; return ``(k, c_draft)``, the key of the rest."""
        kk = int(check_integer(k, "k", minimum=1, maximum=64))
        cd = float(check_nonnegative(c_draft, "c_draft", "(fraction of a target step)"))
        a0 = float(check_probability(alpha, "alpha"))
        key = (kk, cd)
        if key != self.key:
            r = _lit.bonus_token_error(self.grid, kk, cd, self.c_verify)
            self.curve_correct.set_ydata(r["correct"])
            self.curve_without.set_ydata(r["without_bonus"])
            self.ax.set_title(f"$k = {kk}$, $c_d = {cd:g}$, $c_v = {self.c_verify:g}$", fontsize=9)
            self.ax.set_ylim(0, max(float(np.max(r["correct"])) * 1.08, 1.2))
            self.key = key
        p = _lit.bonus_token_error(a0, kk, cd, self.c_verify)
        self.marked.set_data([a0, a0], [p["without_bonus"], p["correct"]])
        for label, name in ((self.label_correct, "correct"), (self.label_without, "without_bonus")):
            label.xy = (a0, p[name])
            label.set_text(f"{p[name]:.2f}x")
        return key


def literature_bonus_token_error(k: int = 5, c_draft: float = 0.05, c_verify: float = 1.0, alpha: float = 0.8,
                                 n_points: int = 300, ax=None):
    """Speedup against alpha with E[L] and with the no-bonus formula E[L] - 1.

    The chapter's explorer shows this figure and moves it in place
    (:class:`BonusTokenView`).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    k : int, optional
        Draft tokens per round, in [1, 64]. Default 5.
    c_draft : float, optional
        Draft step cost as a fraction of a target step, >= 0. Default 0.05.
    c_verify : float, optional
        Verification cost as a fraction of a target step, > 0. Default 1.
    alpha : float, optional
        Acceptance rate marked on the curves, in [0, 1]. Default 0.8.
    n_points : int, optional
        Grid points, in [10, 5000]. Default 300.
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.literature_bonus_token_error()
    >>> len(fig.axes[0].lines) >= 3
    True
    """
    return BonusTokenView(k, c_draft, c_verify, alpha, n_points, ax).figure


class ServingMetricsView:
    """The figure of :func:`literature_serving_metrics`, updatable in place for its explorer.

    :meth:`update` moves the three marked points and their labels
    (:attr:`dynamic_artists`) and, when ``k`` changes, the right panel's
    curves, title and y limit exactly as a fresh figure draws them; it
    returns ``k``, the key of everything but the marked points.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    k, alpha, ks, axes
        As in :func:`literature_serving_metrics`.

    Examples
    --------
    >>> import specdec as sd
    >>> view = sd.plots.ServingMetricsView()
    >>> view.update(8, 0.6)
    8
    >>> [t.get_text() for t in view.labels]
    ['0.184', '2.475', '1.475']
    """

    def __init__(self, k: int = 4, alpha: float = 0.8, ks=(1, 2, 4, 8), axes=None):
        kk = int(check_integer(k, "k", minimum=1, maximum=64))
        a0 = float(check_probability(alpha, "alpha"))
        self.ks = tuple(int(x) for x in np.atleast_1d(check_integer(ks, "ks", minimum=1, maximum=64)))
        if axes is None:
            self.figure, axes = new_figure(CONTENT_WIDTH, 3.4, ncols=2)
        else:
            self.figure = axes[0].figure
        left, right = self.left, self.right = axes
        left.clear()
        right.clear()
        grid = self.grid = np.linspace(0, 1, 201)
        left.plot(grid, grid, color=COLORS["baseline"], ls="--", lw=1, label=r"$\alpha$ itself ($k = 1$)")
        rates = _lit.metric_readings(grid[:, None], np.asarray(self.ks)[None, :])["draft_acceptance_rate"]
        for j, kj in enumerate(self.ks):
            if kj != 1:
                left.plot(grid, rates[:, j], color=SEQUENCE[j % len(SEQUENCE)], lw=1.8, label=f"$k = {kj}$")
        left.set_xlabel(r"acceptance rate $\alpha$")
        left.set_ylabel("draft acceptance rate\n= accepted / drafted")
        left.set_xlim(0, 1)
        left.set_ylim(0, 1)
        left.legend(loc="upper left", fontsize=8, frameon=False)
        left.grid(alpha=0.25)
        (self.curve_with,) = right.plot(grid, grid, color=COLORS["target"], lw=2, label="with the target's token, $E[L]$")
        (self.curve_without,) = right.plot(grid, grid, color=COLORS["draft"], lw=2, ls="-.",
                                           label="accepted drafts only, $E[L] - 1$")
        self.points, self.labels = [], []
        for ax, offset in ((left, (6, -12)), (right, (-40, 4)), (right, (-40, 4))):
            self.points.append(ax.plot([a0], [0.0], "o", color="k", ms=5)[0])
            self.labels.append(ax.annotate("", (a0, 0.0), xytext=offset, textcoords="offset points", fontsize=8))
        right.set_xlabel(r"acceptance rate $\alpha$")
        right.set_ylabel("mean acceptance length\n(tokens per round)")
        right.set_xlim(0, 1)
        right.legend(loc="upper left", fontsize=8, frameon=False)
        right.grid(alpha=0.25)
        self.k = None
        self.update(kk, a0)

    @property
    def dynamic_artists(self) -> list:
        """The marked points and their labels (everything else depends only on ``k``)."""
        return [*self.points, *self.labels]

    def update(self, k: int, alpha: float) -> int:
        """Move the figure to ``(k, alpha)``; return ``k``, the key of the rest of the figure."""
        kk = int(check_integer(k, "k", minimum=1, maximum=64))
        a0 = float(check_probability(alpha, "alpha"))
        if kk != self.k:
            m = _lit.metric_readings(self.grid, kk)
            self.curve_with.set_ydata(m["length_with_bonus"])
            self.curve_without.set_ydata(m["length_without_bonus"])
            self.right.set_title(f"$k = {kk}$", fontsize=9)
            self.right.set_ylim(0, kk + 1.2)
            self.k = kk
        m0 = _lit.metric_readings(a0, kk)
        for point, label, key in zip(self.points, self.labels,
                                     ("draft_acceptance_rate", "length_with_bonus", "length_without_bonus"), strict=False):
            value = float(m0[key])
            point.set_data([a0], [value])
            label.xy = (a0, value)
            label.set_text(f"{value:.3f}")
        return kk


def literature_serving_metrics(k: int = 4, alpha: float = 0.8, ks=(1, 2, 4, 8), axes=None):
    """What engines print against alpha: draft acceptance rate (left), acceptance length (right).

    The chapter's explorer shows this figure and moves it in place
    (:class:`ServingMetricsView`).

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    k : int, optional
        Draft length of the right panel and the marked example, in [1, 64]. Default 4.
    alpha : float, optional
        Acceptance rate marked on both panels, in [0, 1]. Default 0.8.
    ks : sequence of int
        Draft lengths drawn on the left panel, each in [1, 64].
    axes : pair of matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.literature_serving_metrics()
    >>> len(fig.axes)
    2
    """
    return ServingMetricsView(k, alpha, ks, axes).figure


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
    >>> fig = sd.plots.alpha_by_temperature(sd.literature.leviathan_table3())
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

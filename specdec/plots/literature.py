"""Figures for "Published results, recomputed" and "What serving engines print".

Presentation only: every number drawn comes from :mod:`specdec.literature`
(published inputs and their recomputation) or the core formulas. Each
function returns a :class:`matplotlib.figure.Figure` made with
:func:`new_figure`, or draws into axes passed in (the explorers redraw into
the same figure).
"""

from __future__ import annotations

import numpy as np

from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from .. import literature as _lit
from ._style import COLORS, SEQUENCE, new_figure

__all__ = [
    "literature_optimal_gamma",
    "literature_t5_expected_vs_measured",
    "literature_bonus_token_error",
    "literature_serving_metrics",
    "mark_bonus_token_alpha",
    "mark_serving_metrics_alpha",
    "set_bonus_token_curves",
    "set_serving_metrics_k",
    "LITERATURE_DEFAULT_CS",
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


def literature_bonus_token_error(k: int = 5, c_draft: float = 0.05, c_verify: float = 1.0, alpha: float = 0.8,
                                 n_points: int = 300, ax=None):
    """Speedup against alpha with E[L] and with the no-bonus formula E[L] - 1.

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
    kk = int(check_integer(k, "k", minimum=1, maximum=64))
    cd = float(check_nonnegative(c_draft, "c_draft", "(fraction of a target step)"))
    cv = float(check_positive(c_verify, "c_verify", "(fraction of a target step)"))
    a0 = float(check_probability(alpha, "alpha"))
    n = int(check_integer(n_points, "n_points", minimum=10, maximum=5000))
    fig, ax = _fig_ax(ax)
    ax.clear()
    grid = np.linspace(0, 1, n)
    r = _lit.bonus_token_error(grid, kk, cd, cv)
    ax.plot(grid, r["correct"], color=COLORS["target"], lw=2, label=r"with the target's token: $E[L]/(k c_d + c_v)$",
            gid="curve-correct")
    ax.plot(grid, r["without_bonus"], color=COLORS["accent"], lw=2, ls="-.",
            label=r"calculator error: $(E[L]-1)/(k c_d + c_v)$", gid="curve-without_bonus")
    ax.axhline(1, color=COLORS["baseline"], lw=1, ls="--", label="no speedup")
    ax.plot([a0, a0], [0.0, 0.0], color="0.3", lw=1, marker="o", ms=4, gid="marked")
    ax.annotate("", (a0, 0.0), xytext=(-34, 6), textcoords="offset points", fontsize=8, gid="marked-correct")
    ax.annotate("", (a0, 0.0), xytext=(6, -12), textcoords="offset points", fontsize=8, gid="marked-without")
    mark_bonus_token_alpha(ax, kk, cd, cv, a0)
    ax.set_xlabel(r"acceptance rate $\alpha$")
    ax.set_ylabel("predicted speedup")
    ax.set_title(f"$k = {kk}$, $c_d = {cd:g}$, $c_v = {cv:g}$", fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, max(float(np.max(r["correct"])) * 1.08, 1.2))
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(alpha=0.25)
    return fig


def literature_serving_metrics(k: int = 4, alpha: float = 0.8, ks=(1, 2, 4, 8), axes=None):
    """What engines print against alpha: draft acceptance rate (left), acceptance length (right).

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
    kk = int(check_integer(k, "k", minimum=1, maximum=64))
    a0 = float(check_probability(alpha, "alpha"))
    kl = np.atleast_1d(check_integer(ks, "ks", minimum=1, maximum=64))
    if axes is None:
        fig, axes = new_figure(9.6, 4.0, ncols=2)
    else:
        fig = axes[0].figure
    left, right = axes
    left.clear()
    right.clear()
    grid = np.linspace(0, 1, 201)
    left.plot(grid, grid, color=COLORS["baseline"], ls="--", lw=1, label=r"$\alpha$ itself ($k = 1$)")
    rates = _lit.metric_readings(grid[:, None], kl[None, :])["draft_acceptance_rate"]
    for j, kj in enumerate(kl):
        if kj == 1:
            continue
        left.plot(grid, rates[:, j], color=SEQUENCE[j % len(SEQUENCE)], lw=1.8, label=f"$k = {kj}$")
    left.plot([a0], [0.0], "o", color="k", ms=5, gid="marked-draft_acceptance_rate")
    left.annotate("", (a0, 0.0), xytext=(6, -12), textcoords="offset points", fontsize=8,
                  gid="label-draft_acceptance_rate")
    left.set_xlabel(r"acceptance rate $\alpha$")
    left.set_ylabel("draft acceptance rate = accepted / drafted")
    left.set_xlim(0, 1)
    left.set_ylim(0, 1)
    left.legend(loc="upper left", fontsize=8, frameon=False)
    left.grid(alpha=0.25)
    m = _lit.metric_readings(grid, kk)
    right.plot(grid, m["length_with_bonus"], color=COLORS["target"], lw=2, label="with the target's token, $E[L]$",
               gid="curve-length_with_bonus")
    right.plot(grid, m["length_without_bonus"], color=COLORS["draft"], lw=2, ls="-.",
               label="accepted drafts only, $E[L] - 1$", gid="curve-length_without_bonus")
    for key in ("length_with_bonus", "length_without_bonus"):
        right.plot([a0], [0.0], "o", color="k", ms=5, gid=f"marked-{key}")
        right.annotate("", (a0, 0.0), xytext=(-40, 4), textcoords="offset points", fontsize=8, gid=f"label-{key}")
    mark_serving_metrics_alpha(axes, kk, a0)
    right.set_xlabel(r"acceptance rate $\alpha$")
    right.set_ylabel("mean acceptance length (tokens per round)")
    right.set_title(f"$k = {kk}$", fontsize=9)
    right.set_xlim(0, 1)
    right.set_ylim(0, kk + 1.2)
    right.legend(loc="upper left", fontsize=8, frameon=False)
    right.grid(alpha=0.25)
    return fig


# ---------------------------------------------------------------- in-place updates for the explorers
def _by_gid(ax, prefix: str) -> dict:
    """The lines and annotations of ``ax`` whose gid starts with ``prefix``, by gid."""
    return {a.get_gid(): a for a in (*ax.lines, *ax.texts) if (a.get_gid() or "").startswith(prefix)}


def mark_bonus_token_alpha(ax, k: int, c_draft: float, c_verify: float, alpha: float) -> list:
    """Move the marked alpha of a :func:`literature_bonus_token_error` axes; return the artists moved.

    Only the marker segment and its two labels depend on ``alpha``; the
    curves, title and limits depend on ``(k, c_draft, c_verify)`` alone.
    The explorer of the chapter calls it instead of redrawing.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes of a :func:`literature_bonus_token_error` figure.
    k, c_draft, c_verify, alpha
        As in :func:`literature_bonus_token_error`.

    Returns
    -------
    list
        The matplotlib artists that moved.
    """
    p = _lit.bonus_token_error(alpha, k, c_draft, c_verify)
    a = _by_gid(ax, "marked")
    a["marked"].set_data([alpha, alpha], [p["without_bonus"], p["correct"]])
    for name in ("correct", "without_bonus"):
        label = a["marked-correct" if name == "correct" else "marked-without"]
        label.xy = (alpha, p[name])
        label.set_text(f"{p[name]:.2f}x")
    return [a["marked"], a["marked-correct"], a["marked-without"]]


def mark_serving_metrics_alpha(axes, k: int, alpha: float) -> list:
    """Move the marked alpha of a :func:`literature_serving_metrics` figure; return the artists moved.

    Only the three points and their labels depend on ``alpha``; everything
    else depends on ``k`` (right panel) or nothing (left panel).

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    axes : sequence of two matplotlib Axes
        The axes of a :func:`literature_serving_metrics` figure.
    k, alpha
        As in :func:`literature_serving_metrics`.

    Returns
    -------
    list
        The matplotlib artists that moved.
    """
    m0 = _lit.metric_readings(alpha, k)
    moved = []
    for ax, keys in zip(axes, (("draft_acceptance_rate",), ("length_with_bonus", "length_without_bonus"))):
        a = {**_by_gid(ax, "marked-"), **_by_gid(ax, "label-")}
        for key in keys:
            value = float(m0[key])
            a[f"marked-{key}"].set_data([alpha], [value])
            a[f"label-{key}"].xy = (alpha, value)
            a[f"label-{key}"].set_text(f"{value:.3f}")
            moved += [a[f"marked-{key}"], a[f"label-{key}"]]
    return moved


def set_bonus_token_curves(ax, k: int, c_draft: float, c_verify: float) -> None:
    """Redraw-free change of a :func:`literature_bonus_token_error` axes to new ``(k, c_draft, c_verify)``.

    Sets the curves, title and y limits exactly as a fresh call would
    (same grid, same formulas); the marked alpha is moved separately by
    :func:`mark_bonus_token_alpha`.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes of a :func:`literature_bonus_token_error` figure.
    k, c_draft, c_verify
        As in :func:`literature_bonus_token_error`.

    Returns
    -------
    None
    """
    curves = _by_gid(ax, "curve-")
    grid = np.asarray(curves["curve-correct"].get_xdata())
    r = _lit.bonus_token_error(grid, k, c_draft, c_verify)
    for name in ("correct", "without_bonus"):
        curves[f"curve-{name}"].set_ydata(r[name])
    ax.set_title(f"$k = {k}$, $c_d = {c_draft:g}$, $c_v = {c_verify:g}$", fontsize=9)
    ax.set_ylim(0, max(float(np.max(r["correct"])) * 1.08, 1.2))


def set_serving_metrics_k(axes, k: int) -> None:
    """Redraw-free change of a :func:`literature_serving_metrics` figure's right panel to a new ``k``.

    Sets its curves, title and y limits exactly as a fresh call would; the
    marked alpha is moved separately by :func:`mark_serving_metrics_alpha`.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    axes : sequence of two matplotlib Axes
        The axes of a :func:`literature_serving_metrics` figure.
    k : int
        Draft tokens per round, >= 1.

    Returns
    -------
    None
    """
    right = axes[1]
    curves = _by_gid(right, "curve-")
    grid = np.asarray(curves["curve-length_with_bonus"].get_xdata())
    m = _lit.metric_readings(grid, k)
    for key in ("length_with_bonus", "length_without_bonus"):
        curves[f"curve-{key}"].set_ydata(m[key])
    right.set_title(f"$k = {k}$", fontsize=9)
    right.set_ylim(0, k + 1.2)

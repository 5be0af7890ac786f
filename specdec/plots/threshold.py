"""Figures for "The break-even condition" (presentation only:
every number comes from :mod:`specdec.economics` and :mod:`specdec.drafts`)."""

from __future__ import annotations

import numpy as np

from .. import drafts as _drafts
from .. import economics
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure

__all__ = [
    "threshold_vs_k",
    "speedup_heatmap",
    "threshold_panel",
    "ThresholdPanel",
    "THRESHOLD_FIGSIZE",
]

#: Size (inches) of the threshold explorer's figure and :func:`threshold_panel`: the book's column width.
THRESHOLD_FIGSIZE = (CONTENT_WIDTH, 3.4)


def _draw_threshold_curves(ax, ks, curves, title):
    for i, (label, (c_draft, c_verify)) in enumerate(curves.items()):
        color = SEQUENCE[i % len(SEQUENCE)]
        be = np.asarray(economics.break_even_alpha(ks, c_draft, c_verify), dtype=float)
        ax.plot(ks, be, "-", color=color, lw=2, label=label)
        if np.isfinite(be).any():
            j = int(np.nanargmin(be))
            ax.plot([ks[j]], [be[j]], "o", color=color, ms=6)
        if np.isnan(be).any():
            first = ks[np.isnan(be)][0]
            ax.annotate("no alpha wins", (first, 1.0), xytext=(first, 0.93), fontsize=8, color=color,
                        ha="center", arrowprops=dict(arrowstyle="->", color=color, lw=0.8))
    ax.set_xlim(ks[0], ks[-1])
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k (drafts per round)")
    ax.set_ylabel(r"break-even $\alpha$")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="upper left")


def threshold_vs_k(ks, constant_curves, growing_curves, titles=("constant verification cost",
                                                               "verification cost growing with k")):
    r"""Break-even alpha against k for several costs, in two panels.

    Left: curves with a constant ``c_verify``; right: curves whose
    ``c_verify`` is an array over ``ks`` (e.g. from
    :func:`specdec.drafts.verify_cost_linear` or
    :func:`specdec.roofline.hardware.verify_cost`). A dot marks each curve's lowest
    threshold (the ``k`` that is easiest to make pay); where no alpha
    can win, the curve stops.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    ks : array_like of int
        Values of ``k`` on the x axis.
    constant_curves, growing_curves : dict
        ``label -> (c_draft, c_verify)``; ``c_verify`` a number or an array
        over ``ks``.
    titles : tuple of str, optional
        Panel titles.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd, numpy as np
    >>> ks = np.arange(1, 11)
    >>> fig = sd.plots.threshold_vs_k(ks, {"c_d=0.1": (0.1, 1.0)},
    ...                               {"c_v=1+0.1k": (0.0, sd.drafts.verify_cost_linear(ks, 1.0, 0.1))})
    >>> len(fig.axes)
    2
    """
    ks = np.asarray(ks)
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.6, ncols=2, sharey=True)
    _draw_threshold_curves(left, ks, constant_curves, titles[0])
    _draw_threshold_curves(right, ks, growing_curves, titles[1])
    right.set_ylabel("")
    return fig


def speedup_heatmap(alphas, ks, c_draft, base=1.0, per_draft=0.0, title=None):
    """Speedup over (alpha, k) as a heat map, with the break-even contour and the best k.

    Colour is :func:`specdec.drafts.speedup_grid` (diverging at 1: red
    loses, blue wins); the black contour is speedup = 1, i.e. the break-even
    alpha for each ``k``; white dots mark the best ``k`` for each alpha
    (:func:`specdec.economics.optimal_k` with a growing ``c_verify``).

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    alphas : array_like
        Acceptance rates (y axis), in [0, 1].
    ks : array_like of int
        Draft counts (x axis).
    c_draft : float
        One draft step, fraction of a target step.
    base, per_draft : float, optional
        Verification model ``c_v(k) = base + per_draft * k``.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd, numpy as np
    >>> fig = sd.plots.speedup_heatmap(np.linspace(0, 1, 21), np.arange(1, 9), 0.05)
    >>> len(fig.axes)
    2
    """
    from matplotlib.colors import TwoSlopeNorm

    alphas = np.asarray(alphas, dtype=float)
    ks = np.asarray(ks)
    grid = _drafts.speedup_grid(alphas, ks, c_draft, base, per_draft)
    fig, ax = new_figure(6.4, 4.4)
    vmax = max(float(grid.max()), 1.01)
    vmin = min(float(grid.min()), 0.99)
    mesh = ax.pcolormesh(ks, alphas, grid, cmap="RdBu", norm=TwoSlopeNorm(1.0, vmin, vmax), shading="nearest")
    ticks = [t for t in (0.25, 0.5, 0.75, 1.0) if t >= vmin] + list(np.arange(2.0, vmax + 1e-9, 1.0))
    fig.colorbar(mesh, ax=ax, label="speedup", ticks=ticks)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.contour(ks, alphas, grid, levels=[1.0], colors="black", linewidths=1.5)
    sel = alphas >= 0.3
    k_max = int(ks.max())
    best = economics.optimal_k(alphas[sel], c_draft, _drafts.verify_cost_linear(np.arange(1, k_max + 1), base, per_draft),
                               k_max=k_max)
    ax.plot(best, alphas[sel], ".", color="white", ms=4, label="best k for each alpha")
    ax.set_xlabel("k (drafts per round)")
    ax.set_ylabel(r"acceptance rate $\alpha$")
    ax.set_title(title or f"c_draft = {c_draft:g}, c_verify = {base:g} + {per_draft:g} k", fontsize=10)
    ax.legend(loc="lower right", fontsize=8, facecolor="0.6", framealpha=0.8)
    return fig


def _panel_data(k, c_draft, c_verify, alpha, k_max, n_points):
    ks = np.arange(1, max(int(k_max), int(k)) + 1)
    be = np.asarray(economics.break_even_alpha(ks, c_draft, c_verify), dtype=float)
    a = np.linspace(0.0, 1.0, int(n_points))
    s = np.asarray(economics.speedup_from_costs(a, int(k), c_draft, c_verify), dtype=float)
    measured = float(economics.speedup_from_costs(alpha, int(k), c_draft, c_verify))
    return ks, be, a, s, measured


class ThresholdPanel:
    """The threshold explorer's two panels, drawn once and then updated in place.

    Left: break-even alpha against ``k`` at the given costs, the chosen ``k``
    ringed and the measured ``alpha`` as a dashed line (the shaded region
    above the curve is a net saving). Right: speedup against alpha at the
    chosen ``k``, with the threshold and the measured alpha marked.
    Updating moves the existing artists instead of redrawing the axes, so
    a widget can refresh it quickly.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    axes : pair of matplotlib.axes.Axes
    k_max : int, optional
        Largest ``k`` on the left panel. Default 16.
    n_points : int, optional
        Points on the alpha axis of the right panel. Default 201.

    Examples
    --------
    >>> import specdec as sd
    >>> fig, axes = sd.plots.new_figure(*sd.plots.THRESHOLD_FIGSIZE, ncols=2)
    >>> panel = sd.plots.ThresholdPanel(axes)
    >>> round(panel.update(4, 0.05, 1.1, 0.8), 6)
    0.231278
    """

    def __init__(self, axes, k_max=16, n_points=201):
        self.left, self.right = axes
        self.k_max = int(k_max)
        self.n_points = int(n_points)
        left, right = self.left, self.right
        self.fill = None
        (self.curve,) = left.plot([], [], "-", color=COLORS["target"], lw=2, label=r"break-even $\alpha$")
        self.measured_line = left.axhline(0.5, color=COLORS["accent"], lw=1.5, ls="--", label=r"measured $\alpha$")
        (self.ring,) = left.plot([], [], "o", mfc="none", mec="black", ms=10, mew=1.5)
        left.fill_between([], [], [], color=COLORS["verify"], alpha=0.15, lw=0, label="net saving")
        left.set_xlim(1, self.k_max)
        left.set_ylim(0, 1.02)
        left.set_xlabel("k (drafts per round)")
        left.set_ylabel(r"acceptance rate $\alpha$")
        left.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)
        left.grid(alpha=0.3)
        (self.speed,) = right.plot([], [], color=COLORS["target"], lw=2)
        right.axhline(1.0, color=COLORS["baseline"], lw=1)
        self.threshold_line = right.axvline(0.5, color=COLORS["target"], lw=1, ls=":")
        self.threshold_text = right.text(0.5, 0.1, "", fontsize=8, color=COLORS["target"])
        (self.dot,) = right.plot([], [], "o", color=COLORS["accent"], ms=8)
        self.dot_text = right.text(0.5, 1.0, "", fontsize=8, color=COLORS["accent"], va="bottom")
        right.set_xlim(0, 1)
        right.set_xlabel(r"acceptance rate $\alpha$")
        right.set_ylabel("speedup")
        right.grid(alpha=0.3)

    def update(self, k, c_draft, c_verify, alpha, keep_ylim=False):
        """Move the artists to new values; returns the break-even alpha at ``k`` (``nan`` if none).

        With ``keep_ylim`` the right panel keeps its y limit unless the curve
        rises above it or falls below half of it (then it gets a new limit
        with a quarter of headroom, rounded up to a multiple of 0.5), so an
        explorer rarely has to redraw the axes; by default the limit follows
        the curve.
        """
        ks, be, a, s, measured = _panel_data(k, c_draft, c_verify, alpha, self.k_max, self.n_points)
        threshold = float(be[int(k) - 1])
        upper = np.where(np.isnan(be), 1.02, be)
        if self.fill is None:
            self.fill = self.left.fill_between(ks, upper, 1.02, color=COLORS["verify"], alpha=0.15, lw=0)
        elif hasattr(self.fill, "set_data"):       # matplotlib >= 3.10: reshape the same collection
            self.fill.set_data(ks, upper, 1.02)
        else:
            fresh = self.left.fill_between(ks, upper, 1.02)
            self.fill.set_paths(fresh.get_paths())
            fresh.remove()
        self.curve.set_data(ks, be)
        self.measured_line.set_ydata([alpha, alpha])
        self.ring.set_data([k] if np.isfinite(threshold) else [], [threshold] if np.isfinite(threshold) else [])
        top = max(float(s.max()), 1.2)
        self.speed.set_data(a, s)
        self.threshold_line.set_visible(bool(np.isfinite(threshold)))
        self.threshold_text.set_visible(bool(np.isfinite(threshold)))
        if np.isfinite(threshold):
            self.threshold_line.set_xdata([threshold, threshold])
            self.threshold_text.set_position((min(threshold + 0.01, 0.7), 0.05 * top))
            self.threshold_text.set_text(rf"break-even $\alpha$ = {threshold:.3f}")
        self.dot.set_data([alpha], [measured])
        self.dot_text.set_position((alpha, measured))
        self.dot_text.set_text(f"  {measured:.2f}x")
        if not keep_ylim:
            self.right.set_ylim(0, top * 1.08)
        else:
            current = self.right.get_ylim()[1]
            if top * 1.08 > current or top * 1.08 < 0.5 * current:
                self.right.set_ylim(0, np.ceil(top * 1.08 * 1.25 * 2) / 2)
        self.right.set_title(f"k = {int(k)}, c_d = {c_draft:.3g}, c_v = {c_verify:.3g}, alpha = {alpha:.2f}",
                             fontsize=9)
        return threshold

    def dynamic_artists(self):
        """The artists :meth:`update` changes (for a renderer that repaints only those).

        Call after a first :meth:`update` (which creates the shaded region).
        Limits are not artists: a caller caching the rest of the figure must
        redraw it when ``self.right.get_ylim()`` changes.

        Returns
        -------
        list of matplotlib.artist.Artist
        """
        return [self.fill, self.curve, self.measured_line, self.ring, self.speed, self.threshold_line,
                self.dot, self.threshold_text, self.dot_text, self.right.title]


def threshold_panel(k=5, c_draft=0.1, c_verify=1.25, alpha=0.8, k_max=16):
    """The threshold explorer's figure as a static figure (same defaults as the widget).

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
        Largest ``k`` on the left panel.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.threshold_panel()
    >>> len(fig.axes)
    2
    """
    fig, axes = new_figure(*THRESHOLD_FIGSIZE, ncols=2)
    ThresholdPanel(axes, k_max=k_max).update(k, c_draft, c_verify, alpha)
    return fig

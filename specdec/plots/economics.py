"""Figures of the economics of a round: its time, the speedup, the break-even acceptance rate, a request.

Presentation only: every number drawn comes from :mod:`specdec.economics` (``sd.speedup``,
``sd.quick_estimate``, ``sd.round_time``, ``sd.break_even_alpha``, ``sd.optimal_k``),
:mod:`specdec.economics.request`, :mod:`specdec.acceptance` and :mod:`specdec.drafts` (the
verification cost that grows with ``k``). The one modelling choice made here is how the round's
times change when ``k`` changes, for the speedup-vs-k curve; it is spelled out (and
parameterized) in :func:`specdec.economics.round_times_vs_k`.
"""

from __future__ import annotations

import numpy as np

from specdec.economics import request

from .. import drafts as _drafts
from .. import economics
from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import expected_tokens
from ..economics import WORKED_EXAMPLE, quick_estimate, round_time, round_times_vs_k, speedup
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure, nice_ceiling

__all__ = [
    "round_breakdown",
    "speedup_vs_k",
    "speedup_overview",
    "SpeedupOverview",
    "THRESHOLD_FIGSIZE",
    "threshold_vs_k",
    "speedup_heatmap",
    "threshold_panel",
    "ThresholdPanel",
    "break_even_by_round_cost",
    "no_help_short_output",
]


#: The defaults of every figure here: the first source's worked example (times in ms).
_W = WORKED_EXAMPLE.value


def _check_example(alpha, k, t0, t_draft, t_verify, t_overhead):
    return (float(check_probability(alpha, "alpha")), int(check_integer(k, "k", minimum=1, maximum=64)),
            float(check_positive(t0, "t0", "(time)")), float(check_nonnegative(t_draft, "t_draft", "(time)")),
            float(check_positive(t_verify, "t_verify", "(time)")),
            float(check_nonnegative(t_overhead, "t_overhead", "(time)")))


def _draw_breakdown(ax, alpha, k, t0, t_draft, t_verify, t_overhead, unit) -> None:
    tokens = expected_tokens(alpha, k)
    t_round = round_time(t_draft, t_verify, t_overhead)
    s = speedup(alpha, k, t0, t_draft, t_verify, t_overhead)
    rows = [2, 1, 0]
    # speculative round: draft | verify | overhead
    left = 0.0
    for width, color, name in ((t_draft, COLORS["draft"], f"draft ({k} steps)"),
                               (t_verify, COLORS["verify"], "verify"),
                               (t_overhead, COLORS["overhead"], "overhead")):
        ax.barh(rows[0], width, left=left, color=color, edgecolor="white", height=0.6, label=name)
        left += width
    ax.text(t_round, rows[0], f"  {t_round:.2f} {unit} -> {tokens:.2f} tokens", va="center", fontsize=8)
    # plain decoding of the same expected number of tokens: E[L] target steps
    whole = int(np.floor(tokens))
    starts = t0 * np.arange(whole)
    ax.barh(np.full(whole, rows[1]), np.full(whole, t0), left=starts, color=COLORS["target"],
            edgecolor="white", height=0.6, label=f"plain target step ($T_0$ = {t0:g} {unit})")
    if tokens > whole:
        ax.barh(rows[1], t0 * (tokens - whole), left=t0 * whole, color=COLORS["target"], alpha=0.55,
                edgecolor="white", height=0.6)
    ax.text(t0 * tokens, rows[1], f"  {t0 * tokens:.2f} {unit} for {tokens:.2f} tokens", va="center", fontsize=8)
    # best case: every draft accepted, k + 1 tokens
    ax.barh(np.full(k + 1, rows[2]), np.full(k + 1, t0), left=t0 * np.arange(k + 1), color=COLORS["neutral"],
            edgecolor="white", height=0.6)
    ax.text(t0 * (k + 1), rows[2], f"  {t0 * (k + 1):.2f} {unit} for {k + 1} tokens", va="center", fontsize=8)
    ax.set_yticks(rows, ["speculative\nround", "plain decoding,\nsame E[L] tokens",
                         f"plain decoding,\n{k + 1} tokens (best case)"], fontsize=8)
    ax.set_xlabel(f"time ({unit})")
    ax.set_xlim(0, max(t0 * (k + 1), t0 * tokens, t_round) * 1.45)
    ax.set_ylim(-0.6, 2.9)
    ax.set_title(f"One round vs plain decoding: speedup = {t0 * tokens:.2f} / {t_round:.2f} = {s:.2f}x", fontsize=10)
    ax.legend(fontsize=7, frameon=False, loc="upper right", ncols=2)
    ax.grid(alpha=0.25, axis="x")


def round_breakdown(alpha=_W["alpha"], k=_W["k"], t0=_W["t0"], t_draft=_W["t_draft"], t_verify=_W["t_verify"],
                    t_overhead=_W["t_overhead"], unit="ms", ax=None):
    """Stacked bars: one speculative round against plain decoding of the same tokens.

    Top bar: the round's draft, verification and overhead times. Middle: the
    ``E[L]`` plain target steps that would produce the round's expected
    number of tokens (the last, partial step lighter). Bottom: the ``k + 1``
    plain steps of the best case (every draft accepted). The speedup is the
    middle bar's length over the top bar's. Defaults: the first source's
    worked example.

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    alpha : float, optional
        Acceptance rate in [0, 1].
    k : int, optional
        Draft tokens per round, whole number in [1, 64].
    t0, t_draft, t_verify, t_overhead : float, optional
        Times as in :func:`specdec.economics.speedup` (``t_draft`` covers all ``k`` steps).
    unit : str, optional
        Time unit shown on the axis. Default ``"ms"``.
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.round_breakdown()
    >>> fig.axes[0].get_title()
    'One round vs plain decoding: speedup = 19.18 / 9.00 = 2.13x'
    """
    values = _check_example(alpha, k, t0, t_draft, t_verify, t_overhead)
    if ax is None:
        fig, ax = new_figure(CONTENT_WIDTH, 3.4)
    _draw_breakdown(ax, *values, str(unit))
    return ax.figure


def _draw_speedup_vs_k(ax, alpha, k, t0, t_draft, t_verify, t_overhead, verify_slope, k_max, show_quick) -> None:
    ks = np.arange(1, k_max + 1)
    td, tv = round_times_vs_k(ks, k, t_draft, t_verify, verify_slope, t_verify_floor=min(t0, t_verify))
    exact = speedup(alpha, ks, t0, td, tv, t_overhead)
    ax.axhline(1.0, color=COLORS["baseline"], lw=1, ls=":")
    ax.text(k_max, 1.0, "break-even ", ha="right", va="bottom", fontsize=8, color=COLORS["baseline"])
    ax.plot(ks, exact, marker="o", ms=3.5, color=COLORS["target"], label="speedup (exact)")
    if show_quick:
        quick = quick_estimate(alpha, ks, t0, td, tv)
        ax.plot(ks, quick, marker="s", ms=3, ls="--", color=COLORS["neutral"], label="source's quick estimate")
    here = exact[k - 1]
    ax.plot([k], [here], marker="o", ms=9, mfc="none", mec=COLORS["accent"], mew=2, label=f"$k$ = {k}: {here:.2f}x")
    best = int(ks[np.argmax(exact)])
    ax.plot([best], [exact[best - 1]], marker="*", ms=11, color=COLORS["accent"], ls="none",
            label=f"best $k$ = {best}: {exact[best - 1]:.2f}x")
    ax.set_xlabel("draft tokens per round, $k$")
    ax.set_ylabel("speedup")
    ax.set_xlim(0.5, k_max + 0.5)
    ax.set_ylim(0, max(1.5, float(exact.max()) * 1.25))
    slope = "constant" if verify_slope == 0 else f"+{verify_slope:g} per draft"
    ax.set_title(f"Speedup vs k (T_verify {slope})", fontsize=9)     # T_draft is proportional to k
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    ax.grid(alpha=0.25)


def speedup_vs_k(alpha=_W["alpha"], k=_W["k"], t0=_W["t0"], t_draft=_W["t_draft"], t_verify=_W["t_verify"],
                 t_overhead=_W["t_overhead"], verify_slope=0.0,
                 k_max=16, show_quick=True, ax=None):
    """Speedup against the draft length, with the times rescaled by :func:`specdec.economics.round_times_vs_k`.

    The times are those measured at ``k`` (the circled point); other ``k``
    use draft time proportional to ``k`` and verification time growing by
    ``verify_slope`` per extra position, never below ``t0`` (or the measured
    ``t_verify``, if smaller): no pass is cheaper than a plain step. The best ``k`` is starred; the
    source's quick estimate (:func:`specdec.economics.quick_estimate`) is drawn dashed
    for comparison.

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    alpha : float, optional
        Acceptance rate in [0, 1].
    k : int, optional
        Draft length at which the times were measured, in [1, k_max].
    t0, t_draft, t_verify, t_overhead : float, optional
        Times at ``k`` as in :func:`specdec.economics.speedup`.
    verify_slope : float, optional
        Extra verification time per extra draft position, >= 0. Default 0.
    k_max : int, optional
        Largest k drawn, in [1, 64]. Default 16.
    show_quick : bool, optional
        Also draw the source's quick estimate. Default True.
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.speedup_vs_k()
    >>> fig.axes[0].get_xlabel()
    'draft tokens per round, $k$'
    """
    values = _check_example(alpha, k, t0, t_draft, t_verify, t_overhead)
    km = int(check_integer(k_max, "k_max", minimum=1, maximum=64))
    if values[1] > km:
        raise ValueError(f"k must be in [1, k_max = {km}]; got {values[1]}")
    slope = float(check_nonnegative(verify_slope, "verify_slope", "(time per extra draft position)"))
    if ax is None:
        fig, ax = new_figure(6.4, 4.0)
    _draw_speedup_vs_k(ax, *values, slope, km, bool(show_quick))
    return ax.figure


class SpeedupOverview:
    """The two-panel figure of :func:`speedup_overview`, updatable in place.

    Built once for ``k_max``; :meth:`update` moves the existing artists, so
    an explorer can redraw only ``dynamic_artists`` over a cached
    background. The axis limits depend on the inputs only through
    ``limits_key`` (they snap to round numbers); when it changes the
    whole figure must be redrawn.

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    alpha, k, t0, t_draft, t_verify, t_overhead, verify_slope, k_max
        As in :func:`speedup_vs_k`.
    unit : str, optional
        Time unit on the breakdown's axis. Default ``"ms"``.
    axes : pair of matplotlib.axes.Axes, optional
        Draw into these (cleared first) instead of a new figure.

    Examples
    --------
    >>> import specdec as sd
    >>> view = sd.plots.SpeedupOverview()
    >>> view.title.get_text()
    'One round vs plain decoding: speedup = 19.18 / 9.00 = 2.13x'
    """

    def __init__(self, alpha=_W["alpha"], k=_W["k"], t0=_W["t0"], t_draft=_W["t_draft"], t_verify=_W["t_verify"],
                 t_overhead=_W["t_overhead"], verify_slope=0.0,
                 k_max=16, unit="ms", axes=None):
        self.k_max = int(check_integer(k_max, "k_max", minimum=1, maximum=64))
        self.unit = str(unit)
        if axes is None:
            fig, axes = new_figure(CONTENT_WIDTH, 6.2, nrows=2, height_ratios=(1.0, 1.1))
        self.left, self.right = axes
        self.figure = self.left.figure
        for ax in axes:
            ax.clear()
        km, left, right = self.k_max, self.left, self.right
        h = 0.6
        self.round_bars = [left.barh(2, 0.0, left=0.0, color=color, edgecolor="white", height=h, label=name)[0]
                           for color, name in ((COLORS["draft"], "draft"), (COLORS["verify"], "verify"),
                                               (COLORS["overhead"], "overhead"))]
        self.plain_bars = list(left.barh(np.ones(km + 2), np.zeros(km + 2), left=np.zeros(km + 2),
                                         color=COLORS["target"], edgecolor="white", height=h,
                                         label="plain target step ($T_0$)"))
        self.plain_bars[-1].set_alpha(0.55)  # the partial step
        self.best_bars = list(left.barh(np.zeros(km + 1), np.zeros(km + 1), left=np.zeros(km + 1),
                                        color=COLORS["neutral"], edgecolor="white", height=h))
        self.labels = [left.text(0, row, "", va="center", fontsize=8) for row in (2, 1, 0)]
        left.set_yticks([2, 1, 0], ["speculative\nround", "plain decoding,\nsame E[L] tokens",
                                    "plain decoding,\nk + 1 tokens (best case)"], fontsize=8)
        left.set_xlabel(f"time ({self.unit})")
        left.set_ylim(-0.6, 2.9)
        left.legend(fontsize=7, frameon=False, loc="upper right", ncols=2)
        left.grid(alpha=0.25, axis="x")
        self.title = left.set_title("", fontsize=10)
        ks = np.arange(1, km + 1)
        right.axhline(1.0, color=COLORS["baseline"], lw=1, ls=":")
        right.text(km, 1.0, "break-even ", ha="right", va="bottom", fontsize=8, color=COLORS["baseline"])
        (self.exact_line,) = right.plot(ks, np.ones(km), marker="o", ms=3.5, color=COLORS["target"],
                                        label="speedup (exact)")
        (self.quick_line,) = right.plot(ks, np.ones(km), marker="s", ms=3, ls="--", color=COLORS["neutral"],
                                        label="source's quick estimate")
        (self.circle,) = right.plot([1], [1], marker="o", ms=9, mfc="none", mec=COLORS["accent"], mew=2, ls="none",
                                    label="measured $k$")
        (self.star,) = right.plot([1], [1], marker="*", ms=11, color=COLORS["accent"], ls="none", label="best $k$")
        right.set_xlabel("draft tokens per round, $k$")
        right.set_ylabel("speedup")
        right.set_xlim(0.5, km + 0.5)
        right.legend(fontsize=8, frameon=False, loc="lower right")
        right.grid(alpha=0.25)
        self.curve_title = right.set_title("", fontsize=10)
        self.limits_key = None
        self.update(alpha, k, t0, t_draft, t_verify, t_overhead, verify_slope)

    @property
    def dynamic_artists(self) -> list:
        """Artists that :meth:`update` changes."""
        return [*self.round_bars, *self.plain_bars, *self.best_bars, *self.labels, self.title,
                self.exact_line, self.quick_line, self.circle, self.star, self.curve_title]

    def update(self, alpha, k, t0, t_draft, t_verify, t_overhead, verify_slope=0.0) -> None:
        """Move the artists to new inputs; sets ``limits_key``."""
        alpha, k, t0, t_draft, t_verify, t_overhead = _check_example(alpha, k, t0, t_draft, t_verify, t_overhead)
        if k > self.k_max:
            raise ValueError(f"k must be in [1, k_max = {self.k_max}]; got {k}")
        slope = float(check_nonnegative(verify_slope, "verify_slope", "(time per extra draft position)"))
        unit = self.unit
        tokens = expected_tokens(alpha, k)
        t_round = round_time(t_draft, t_verify, t_overhead)
        s = speedup(alpha, k, t0, t_draft, t_verify, t_overhead)
        left_edge = 0.0
        for bar, width in zip(self.round_bars, (t_draft, t_verify, t_overhead), strict=False):
            bar.set_x(left_edge)
            bar.set_width(width)
            left_edge += width
        whole = int(np.floor(tokens))
        for i, bar in enumerate(self.plain_bars[:-1]):
            bar.set_x(t0 * i)
            bar.set_width(t0 if i < whole else 0.0)
            bar.set_visible(i < whole)  # unused bars are hidden, so redraws skip them
        self.plain_bars[-1].set_x(t0 * whole)
        self.plain_bars[-1].set_width(t0 * (tokens - whole))
        for i, bar in enumerate(self.best_bars):
            bar.set_x(t0 * i)
            bar.set_width(t0 if i <= k else 0.0)
            bar.set_visible(i <= k)
        texts = ((t_round, f"  {t_round:.2f} {unit} -> {tokens:.2f} tokens"),
                 (t0 * tokens, f"  {t0 * tokens:.2f} {unit} for {tokens:.2f} tokens"),
                 (t0 * (k + 1), f"  {t0 * (k + 1):.2f} {unit} for {k + 1} tokens"))
        for label, (x, text) in zip(self.labels, texts, strict=False):
            label.set_x(x)
            label.set_text(text)
        self.title.set_text(f"One round vs plain decoding: speedup = {t0 * tokens:.2f} / {t_round:.2f} = {s:.2f}x")
        ks = np.arange(1, self.k_max + 1)
        td, tv = round_times_vs_k(ks, k, t_draft, t_verify, slope, t_verify_floor=min(t0, t_verify))
        exact = speedup(alpha, ks, t0, td, tv, t_overhead)
        self.exact_line.set_ydata(exact)
        self.quick_line.set_ydata(quick_estimate(alpha, ks, t0, td, tv))
        self.circle.set_data([k], [exact[k - 1]])
        best = int(np.argmax(exact))
        self.star.set_data([ks[best]], [exact[best]])
        slope_text = "constant in k" if slope == 0 else f"+{slope:g} {unit} per extra draft"
        self.curve_title.set_text(f"Speedup vs k (T_verify {slope_text})")
        x_top = nice_ceiling(max(t0 * (k + 1), t0 * tokens, t_round) * 1.45)
        y_top = max(1.5, nice_ceiling(float(exact.max()) * 1.25))
        self.limits_key = (x_top, y_top)
        self.left.set_xlim(0, x_top)
        self.right.set_ylim(0, y_top)


def speedup_overview(alpha=_W["alpha"], k=_W["k"], t0=_W["t0"], t_draft=_W["t_draft"], t_verify=_W["t_verify"],
                     t_overhead=_W["t_overhead"], verify_slope=0.0,
                     k_max=16, unit="ms", axes=None):
    """Two panels: the round breakdown and the speedup-vs-k curve for one configuration.

    Top, as :func:`round_breakdown`; bottom, as :func:`speedup_vs_k` (with
    the quick estimate dashed); stacked, so both are legible at the book's
    column width. This is the figure the explorer
    ``sd.widgets.speedup_explorer`` shows and updates in place (see
    :class:`SpeedupOverview`). Defaults: the first source's worked example.

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    alpha, k, t0, t_draft, t_verify, t_overhead, verify_slope, k_max
        As in :func:`speedup_vs_k`.
    unit : str, optional
        Time unit on the breakdown's axis.
    axes : pair of matplotlib.axes.Axes, optional
        Draw into these (they are cleared first) instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> len(sd.plots.speedup_overview().axes)
    2
    """
    return SpeedupOverview(alpha, k, t0, t_draft, t_verify, t_overhead, verify_slope, k_max, unit, axes).figure


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
    >>> fig = sd.plots.break_even_by_round_cost([2.0, 9.0 / 5.2])
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


def no_help_short_output(speedup, tpot, setups=(2.0, 10.0, 25.0, 50.0), n_max=80, marks=(10, 20), time_unit="ms"):
    """Short outputs: decode-phase speedup of a request against its length, for several setup costs.

    Uses :func:`specdec.economics.request.request_speedup` (TTFT left out: it only
    dilutes both sides) and marks each break-even length
    (:func:`specdec.economics.request.break_even_output_length`) and the source's
    thresholds.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    speedup : float
        Per-token speedup.
    tpot : float
        Plain time per output token.
    setups : sequence of float, optional
        Setup costs, same unit as ``tpot``.
    n_max : int, optional
        Longest output on the axis.
    marks : sequence of int, optional
        The source's output-length thresholds (10 and 20).
    time_unit : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> len(sd.plots.no_help_short_output(2.13, 5.2).axes)
    1
    """
    n = np.linspace(1, n_max, 800)
    fig, ax = new_figure(6.4, 4.0)
    for i, ts in enumerate(setups):
        r = request.request_speedup(n, speedup, tpot, ts)
        color = SEQUENCE[i % len(SEQUENCE)]
        n_star = request.break_even_output_length(ts, tpot, speedup)
        ax.plot(n, r, color=color, lw=2, label=f"setup {ts:g} {time_unit}: pays off above {n_star:.1f} tokens")
        if np.isfinite(n_star) and n_star <= n_max:
            ax.plot([n_star], [1.0], "o", color=color)
    for m in marks:
        ax.axvline(m, color=COLORS["baseline"], ls=":", lw=1)
        ax.text(m + 0.5, 0.1, f"{m} tokens", fontsize=7, rotation=90, va="bottom", color=COLORS["baseline"])
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    ax.axhline(speedup, color=COLORS["target"], ls="--", lw=1)
    ax.set_xlim(1, n_max)
    ax.set_ylim(0, speedup * 1.1)
    ax.set_xlabel("output tokens per request, N")
    ax.set_ylabel("decode-phase speedup of the request")
    ax.set_title(f"per-token speedup {speedup:.2f}, TPOT {tpot:g} {time_unit}", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return fig

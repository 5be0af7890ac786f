"""Figures for "The speedup formula".

Presentation only: every number drawn comes from :mod:`specdec.economics`
(``sd.speedup``, ``sd.quick_estimate``, ``sd.round_time``) and
:mod:`specdec.acceptance`. The one modelling choice made here is how the
round's times change when ``k`` changes, for the speedup-vs-k curve; it is
spelled out (and parameterized) in :func:`specdec.economics.round_times_vs_k`.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import expected_tokens
from ..economics import quick_estimate, round_time, round_times_vs_k, speedup
from ._style import COLORS, CONTENT_WIDTH, new_figure, nice_ceiling

__all__ = [
    "round_breakdown",
    "speedup_vs_k",
    "speedup_overview",
    "SpeedupOverview",
    "WORKED_EXAMPLE",
]

#: The first source's 70B-target / 8B-draft worked example (times in ms).
WORKED_EXAMPLE = {"alpha": 0.8, "k": 5, "t0": 5.2, "t_draft": 2.5, "t_verify": 6.0, "t_overhead": 0.5}


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


def round_breakdown(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5, unit="ms", ax=None):
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


def speedup_vs_k(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5, verify_slope=0.0,
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

    def __init__(self, alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5, verify_slope=0.0,
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


def speedup_overview(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5, verify_slope=0.0,
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

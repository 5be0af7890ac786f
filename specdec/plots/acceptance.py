"""Figures of the acceptance process: tokens per round, the acceptance rate, and alpha read from a log.

Presentation only: every number drawn comes from :mod:`specdec.acceptance` (``sd.expected_tokens``,
``sd.accepted_tokens_pmf``, the acceptance rates), :mod:`specdec.acceptance.estimation` and
:func:`specdec.verification.synthetic.temperature_curve`. Each function returns a
:class:`matplotlib.figure.Figure` made with :func:`specdec.plots.new_figure`, or draws into
axes passed in (the explorers redraw into the same figure).
"""

from __future__ import annotations

import numpy as np

from specdec.acceptance import estimation
from specdec.verification import synthetic as syn

from .._validate import check_integer, check_probability
from ..acceptance import (
    accepted_tokens_pmf,
    alpha_from_draft_acceptance_rate,
    draft_acceptance_rate,
    expected_tokens,
)
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, figure_axes_array, new_figure

__all__ = [
    "DEFAULT_ALPHAS",
    "expected_tokens_vs_k",
    "marginal_gain_vs_k",
    "tokens_distribution",
    "expected_tokens_overview",
    "ExpectedTokensOverview",
    "sampling_tokens_per_round",
    "sampling_temperature",
    "sampling_alpha_from_log",
    "AlphaFromLogView",
]


#: The acceptance rates of the first source's E[L] table (default curves).
DEFAULT_ALPHAS = (0.5, 0.7, 0.8, 0.9, 0.95)


def _alphas(alphas) -> np.ndarray:
    a = np.atleast_1d(check_probability(alphas, "alphas"))
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"alphas must be a non-empty 1-D sequence of acceptance rates; got shape {a.shape}")
    return a


def _draw_expected_tokens_vs_k(ax, alphas: np.ndarray, k_max: int, mark_k) -> None:
    ks = np.arange(1, k_max + 1)
    ax.plot(ks, ks + 1, ls="--", color=COLORS["baseline"], lw=1.2, label="ceiling $k+1$ ($\\alpha=1$)")
    values = expected_tokens(alphas[:, None], ks)
    for i, (alpha, row) in enumerate(zip(alphas, values, strict=False)):
        color = SEQUENCE[i % len(SEQUENCE)]
        ax.plot(ks, row, marker="o", ms=3.5, color=color, label=f"$\\alpha = {alpha:g}$")
        ax.annotate(f"{row[-1]:.2f}", (ks[-1], row[-1]), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8, color=color)
    for k in mark_k:
        if 1 <= k <= k_max:
            ax.axvline(k, color="0.85", lw=0.8, zorder=0)
    ax.set_xlabel("draft tokens per round, $k$")
    ax.set_ylabel("expected tokens per round, $E[L]$")
    ax.set_xlim(0.5, k_max + 1.2)
    ax.set_ylim(0, min(k_max + 1, float(values.max()) + 2) + 0.5)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(alpha=0.25)


def expected_tokens_vs_k(alphas=DEFAULT_ALPHAS, k_max: int = 12, mark_k=(3, 5, 8), ax=None):
    """Plot E[L] against k for several acceptance rates, with the ceiling k + 1.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alphas : sequence of float, optional
        Acceptance rates in [0, 1], one curve each (default: the source table's rows).
    k_max : int, optional
        Largest k on the x axis, whole number in [1, 64]. Default 12.
    mark_k : sequence of int, optional
        k values marked with a light vertical line (default 3, 5, 8: the source table's columns).
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.expected_tokens_vs_k([0.8], k_max=8, mark_k=())
    >>> len(fig.axes[0].lines)  # the ceiling and one curve
    2
    """
    a = _alphas(alphas)
    km = int(check_integer(k_max, "k_max", minimum=1, maximum=64))
    if ax is None:
        fig, ax = new_figure(6.4, 4.2)
    marks = np.asarray(mark_k, dtype=float).ravel()
    marks = check_integer(marks, "mark_k", minimum=1) if marks.size else marks.astype(int)
    _draw_expected_tokens_vs_k(ax, a, km, marks.tolist())
    return ax.figure


def marginal_gain_vs_k(alphas=DEFAULT_ALPHAS, k_max: int = 12, ax=None):
    """Plot the tokens gained by one more draft, E[L](k+1) - E[L](k), against k.

    The gain is ``alpha**(k+1)``: a geometric decay, drawn on a log scale so
    that each curve is a straight line.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alphas : sequence of float, optional
        Acceptance rates in (0, 1], one curve each.
    k_max : int, optional
        Largest k, whole number in [1, 64]. Default 12.
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.marginal_gain_vs_k([0.8, 0.9], k_max=8)
    >>> fig.axes[0].get_yscale()
    'log'
    """
    a = _alphas(alphas)
    if (a <= 0).any():
        raise ValueError("alphas must be > 0 here (the gain is 0 at alpha = 0 and cannot be drawn on a log scale)")
    km = int(check_integer(k_max, "k_max", minimum=1, maximum=64))
    if ax is None:
        fig, ax = new_figure(6.4, 3.6)
    ks = np.arange(1, km + 1)
    gain = expected_tokens(a[:, None], ks + 1) - expected_tokens(a[:, None], ks)
    for i, (alpha, row) in enumerate(zip(a, gain, strict=False)):
        ax.plot(ks, row, marker="o", ms=3.5, color=SEQUENCE[i % len(SEQUENCE)], label=f"$\\alpha = {alpha:g}$")
    ax.set_yscale("log")
    ax.set_xlabel("current draft length $k$")
    ax.set_ylabel("tokens gained by draft $k+1$")
    ax.legend(fontsize=8, frameon=False, loc="lower left")
    ax.grid(alpha=0.25, which="both")
    return ax.figure


def _draw_distribution(ax, alpha: float, k: int) -> None:
    pmf = accepted_tokens_pmf(alpha, k)
    tokens = np.arange(1, k + 2)
    mean = expected_tokens(alpha, k)
    colors = [COLORS["draft"]] * k + [COLORS["verify"]]
    ax.bar(tokens, pmf, color=colors, width=0.7)
    ax.axvline(mean, color=COLORS["accent"], lw=1.5, ls="--")
    ax.text(mean, ax.get_ylim()[1] * 0.97 if pmf.max() > 0 else 1, f" $E[L]$ = {mean:.2f}", color=COLORS["accent"],
            va="top", ha="left" if mean < (k + 2) / 2 else "right", fontsize=9)
    ax.set_xticks(tokens if k <= 16 else tokens[::2])
    ax.set_xlim(0.3, k + 1.7)
    ax.set_xlabel("tokens emitted in the round, $L$")
    ax.set_ylabel("probability")
    ax.set_title(f"Distribution of $L$ ($\\alpha$ = {alpha:g}, $k$ = {k})", fontsize=10)
    ax.grid(alpha=0.25, axis="y")


def tokens_distribution(alpha: float = 0.8, k: int = 5, ax=None):
    """Bar chart of the distribution of L, the tokens one round emits, with E[L] marked.

    The last bar (``L = k + 1``, every draft accepted plus the bonus token) is
    drawn in a different colour.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alpha : float, optional
        Acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Draft tokens per round, whole number in [1, 64]. Default 5.
    ax : matplotlib.axes.Axes, optional
        Draw here instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.tokens_distribution(0.8, 5)
    >>> len(fig.axes[0].patches)
    6
    """
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1, maximum=64))
    if ax is None:
        fig, ax = new_figure(5.0, 3.6)
    _draw_distribution(ax, a, kk)
    return ax.figure


def _nice_top(value: float, step: float) -> float:
    """Smallest multiple of ``step`` that is >= ``value`` (and > 0)."""
    return max(step, float(np.ceil(value / step - 1e-12)) * step)


class ExpectedTokensOverview:
    """The two-panel figure of :func:`expected_tokens_overview`, updatable in place.

    Built once for ``k_max``; :meth:`update` changes ``alpha`` and ``k`` by
    moving the existing artists (no axes are cleared), so an explorer can
    redraw only ``dynamic_artists`` over a cached background. Axis limits
    depend on the inputs only through ``limits_key``; when it changes
    the whole figure must be redrawn.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alpha : float
        Acceptance rate in [0, 1].
    k : int
        Draft tokens per round, in [1, k_max].
    k_max : int
        Largest k shown, in [1, 64].
    axes : pair of matplotlib.axes.Axes, optional
        Draw into these (cleared first) instead of a new figure.

    Examples
    --------
    >>> import specdec as sd
    >>> view = sd.plots.ExpectedTokensOverview(0.8, 5, 12)
    >>> view.update(0.9, 7)
    >>> round(float(view.curve.get_ydata()[6]), 4)
    5.6953
    """

    def __init__(self, alpha: float = 0.8, k: int = 5, k_max: int = 12, axes=None):
        self.k_max = int(check_integer(k_max, "k_max", minimum=1, maximum=64))
        if axes is None:
            fig, axes = new_figure(CONTENT_WIDTH, 3.3, ncols=2)
        self.left, self.right = axes
        self.figure = self.left.figure
        for ax in axes:
            ax.clear()
        km = self.k_max
        tokens = np.arange(1, km + 2)
        left, right = self.left, self.right
        self.bars = left.bar(tokens, np.zeros(km + 1), color=COLORS["draft"], width=0.7)
        self.mean_line = left.axvline(1.0, color=COLORS["accent"], lw=1.5, ls="--")
        self.mean_text = left.text(1.0, 0.97, "", color=COLORS["accent"], va="top", fontsize=9,
                                   transform=left.get_xaxis_transform())
        left.set_xlabel("tokens emitted in the round, $L$")
        left.set_ylabel("probability")
        self.title = left.set_title("", fontsize=9)
        left.grid(alpha=0.25, axis="y")
        ks = np.arange(1, km + 1)
        right.plot(ks, ks + 1, ls="--", color=COLORS["baseline"], lw=1.2, label="ceiling $k+1$")
        (self.curve,) = right.plot(ks, np.ones(km), marker="o", ms=3.5, color=COLORS["target"], label="$E[L]$")
        (self.circle,) = right.plot([1], [1], marker="o", ms=9, mfc="none", mec=COLORS["accent"], mew=2, ls="none")
        self.arrow = right.annotate("", xy=(2, 1), xytext=(1, 1),
                                    arrowprops={"arrowstyle": "->", "color": COLORS["accent"], "lw": 1.5})
        self.gain_text = right.text(1, 1, "", color=COLORS["accent"], fontsize=9, va="top")
        right.set_xlabel("draft tokens per round, $k$")
        right.set_ylabel("$E[L]$")
        right.set_xlim(0.5, km + 0.5)
        right.set_ylim(0, km + 1.5)
        right.set_title("E[L] against k (arrow: one more draft)", fontsize=9)
        right.legend(fontsize=8, frameon=False, loc="upper left")
        right.grid(alpha=0.25)
        self.limits_key = None
        self.update(alpha, k)

    @property
    def dynamic_artists(self) -> list:
        """Artists that :meth:`update` changes (everything else is static for a given ``limits_key``)."""
        return [*self.bars, self.mean_line, self.mean_text, self.title, self.curve, self.circle,
                self.arrow, self.gain_text]

    def update(self, alpha: float, k: int) -> None:
        """Move the artists to a new ``(alpha, k)``; sets ``limits_key``."""
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=self.k_max))
        pmf = accepted_tokens_pmf(a, kk)
        mean = expected_tokens(a, kk)
        for i, bar in enumerate(self.bars):
            bar.set_height(pmf[i] if i <= kk else 0.0)
            bar.set_visible(i <= kk)
            bar.set_color(COLORS["verify"] if i == kk else COLORS["draft"])
        top = _nice_top(float(pmf.max()) * 1.12, 0.25)
        shown = kk + 1 if kk + 1 > 12 else max(kk + 1, 6)
        self.limits_key = (top, shown)
        self.left.set_ylim(0, top)
        self.left.set_xlim(0.3, shown + 0.7)
        self.left.set_xticks(np.arange(1, shown + 1) if shown <= 17 else np.arange(1, shown + 1, 2))
        self.mean_line.set_xdata([mean, mean])
        right_side = mean < (shown + 1) / 2
        self.mean_text.set_x(mean)
        self.mean_text.set_ha("left" if right_side else "right")
        self.mean_text.set_text(f" E[L] = {mean:.2f} ")
        self.title.set_text(f"Distribution of L (alpha = {a:g}, k = {kk})")
        ks = np.arange(1, self.k_max + 1)
        self.curve.set_ydata(expected_tokens(a, ks))
        self.circle.set_data([kk], [mean])
        has_next = kk < self.k_max
        self.arrow.set_visible(has_next)
        self.gain_text.set_visible(has_next)
        if has_next:
            following = expected_tokens(a, kk + 1)
            self.arrow.xy = (kk + 1, following)
            self.arrow.set_position((kk, mean))
            self.gain_text.set_position((kk + 1.2, following))
            self.gain_text.set_text(f"+{following - mean:.3f}")


def expected_tokens_overview(alpha: float = 0.8, k: int = 5, k_max: int = 12, axes=None):
    """Two panels for one (alpha, k): the distribution of L, and E[L] against k.

    Left: the distribution of L (the last bar, every draft accepted plus the
    bonus token, in a different colour) with E[L] marked. Right: E[L] for
    this alpha at every k up to ``k_max`` with the ceiling k + 1, the chosen
    k circled and an arrow labelled with the gain of one more draft. The
    explorer ``sd.widgets.expected_tokens_explorer`` shows this figure and
    updates it in place (see :class:`ExpectedTokensOverview`).

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alpha : float, optional
        Acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Draft tokens per round, whole number in [1, k_max]. Default 5.
    k_max : int, optional
        Largest k on the right panel, in [1, 64]. Default 12.
    axes : pair of matplotlib.axes.Axes, optional
        Draw into these (they are cleared first) instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.expected_tokens_overview(0.8, 5)
    >>> len(fig.axes)
    2
    """
    return ExpectedTokensOverview(alpha, k, k_max, axes=axes).figure


def sampling_tokens_per_round(alpha=0.8, ks=(1, 2, 4, 8), k_max=12, axes=None):
    """E[L] against k at one alpha with the source's k values marked, and the gain per doubling.

    Left: expected tokens per round for k = 1..k_max with the ceiling k + 1;
    right: tokens gained by each doubling of k next to the draft positions it
    adds.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    alpha : float
        Acceptance rate in [0, 1].
    ks : sequence of int
        Draft lengths to mark (consecutive doublings in the right panel).
    k_max : int
        Largest k on the left panel.
    axes : sequence of two Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = float(check_probability(alpha, "alpha"))
    kk = np.asarray(check_integer(ks, "ks", minimum=1))
    km = int(check_integer(k_max, "k_max", minimum=int(kk.max())))
    fig, (ax0, ax1) = figure_axes_array(axes, 2, CONTENT_WIDTH, 3.3)
    k_all = np.arange(1, km + 1)
    ax0.plot(k_all, expected_tokens(a, k_all), color=COLORS["target"], marker="o", ms=3, label=f"E[L], alpha = {a:g}")
    ax0.plot(k_all, k_all + 1, color=COLORS["baseline"], ls=":", label="ceiling k + 1")
    el = expected_tokens(a, kk)
    ax0.plot(kk, el, "s", color=COLORS["accent"], ms=7, mfc="none", label="the source's k values")
    for i, (k, v) in enumerate(zip(kk, el, strict=False)):   # below-right and above-left in turn, so neighbours never touch
        ax0.annotate(f"{v:.2f}", (k, v), textcoords="offset points", xytext=(5, -13) if i % 2 == 0 else (-7, 6),
                     ha="left" if i % 2 == 0 else "right", fontsize=8)
    limit = expected_tokens(a, 10**20) if a < 1 else km + 1     # E[L] as k grows without bound: 1 / (1 - alpha)
    ax0.axhline(limit, color=COLORS["neutral"], ls="--", lw=1, label="limit 1 / (1 - alpha)")
    ax0.set_xlabel("draft tokens per round k")
    ax0.set_ylabel("tokens per round")
    ax0.set_ylim(0, None)                      # room under the lowest marked value for its label
    ax0.xaxis.get_major_locator().set_params(integer=True)
    ax0.legend(frameon=False, fontsize=8)
    labels = [f"{k0}->{k1}" for k0, k1 in zip(kk[:-1], kk[1:], strict=False)]
    gain = np.diff(el)
    added = np.diff(kk)
    x = np.arange(len(labels))
    ax1.bar(x - 0.2, gain, 0.4, color=COLORS["target"], label="tokens gained per round")
    ax1.bar(x + 0.2, added, 0.4, color=COLORS["draft"], label="draft positions added")
    ax1.set_xticks(x, labels)
    ax1.set_xlabel("doubling of k")
    ax1.set_ylabel("per round")
    ax1.legend(frameon=False, fontsize=8)
    ax1.set_title("each doubling buys less", fontsize=10)
    return fig


def sampling_temperature(temperatures=None, noise=1.0, sharpness=1.0, vocab=200, n_contexts=32, seed=0,
                         ax=None, show_underconfident=True):
    """Acceptance rate against sampling temperature on a peaked and a flat workload.

    Solid: a draft that is the target plus logit noise (``noise``); dashed
    (optional): an under-confident draft with the same ranking
    (``sharpness = 0.6``, noise 0.5) for comparison. Numbers from
    :func:`specdec.verification.synthetic.acceptance_vs_temperature`.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    temperatures : array_like, optional
        Default ``syn.TEMPERATURE_GRID`` (0.1, 0.2, ..., 2.0).
    noise, sharpness : float
        Draft parameters of the solid curves (see
        :func:`specdec.verification.synthetic.synthetic_logit_pair`).
    vocab, n_contexts, seed : int
        Synthetic workload size and seed.
    ax : matplotlib Axes, optional
    show_underconfident : bool
        Draw the dashed comparison curves.

    Returns
    -------
    matplotlib.figure.Figure
    """
    t = syn.TEMPERATURE_GRID if temperatures is None else np.asarray(temperatures, float)
    if t.ndim != 1 or t.size < 2:
        raise ValueError(f"temperatures must be a 1-D array of at least 2 values; got shape {t.shape}")
    if ax is None:
        fig, ax = new_figure(6.4, 3.8)
    else:
        ax.clear()
        fig = ax.figure
    colors = {"peaked": COLORS["target"], "flat": COLORS["draft"]}
    label_kind = {"peaked": "peaked (code-like)", "flat": "flat (prose-like)"}
    key = tuple(float(x) for x in t)
    for kind in ("peaked", "flat"):
        ax.plot(t, syn.temperature_curve(kind, noise, sharpness, vocab, n_contexts, seed, key),
                color=colors[kind], label=f"{label_kind[kind]}, noisy draft")
        if show_underconfident:
            ax.plot(t, syn.temperature_curve(kind, 0.5, 0.6, vocab, n_contexts, seed, key),
                    color=colors[kind], ls="--", label=f"{label_kind[kind]}, under-confident draft")
    ax.set_xlabel("sampling temperature t (both models)")
    ax.set_ylabel("acceptance rate sum(min(p, q))")
    ax.set_ylim(0, 1.02)
    ax.set_title(temperature_title(noise, sharpness), fontsize=9)
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    return fig


def temperature_title(noise, sharpness) -> str:
    """The title of :func:`sampling_temperature`: the noisy draft's parameters (its explorer moves it).

    Defined in chapter "The acceptance rate and the tokens it yields".
    """
    return f"noisy draft (solid): logit noise {float(noise):g}, sharpness {float(sharpness):g}"


class AlphaFromLogView:
    """The figure of :func:`sampling_alpha_from_log`, updatable in place for its explorer.

    Built with bars for up to ``k_max`` accepted drafts; :meth:`update`
    shows a new log (its histogram, the fitted model, the rate and the alpha
    it implies) by moving :attr:`dynamic_artists`, and returns the key of
    the rest (the left panel's y limit, kept while the data fits and raised
    in tenths otherwise, and ``k``, which sets its x axis).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    counts, k, alpha_true, ks, axes
        As in :func:`sampling_alpha_from_log`.
    k_max : int, optional
        Largest ``k`` a later update may show. Default 16.

    Examples
    --------
    >>> import numpy as np
    >>> import specdec as sd
    >>> counts = sd.estimation.simulate_accepted_counts(0.8, 4, 300, np.random.default_rng(7))
    >>> view = sd.plots.AlphaFromLogView(counts, 4, 0.8)
    >>> sum(bar.get_visible() for bar in view.bars)
    5
    """

    def __init__(self, counts, k, alpha_true=None, ks=(1, 2, 4, 8), axes=None, k_max=16):
        kk = int(check_integer(k, "k", minimum=1))
        self.k_max = max(int(check_integer(k_max, "k_max", minimum=1)), kk)
        self.figure, (ax0, ax1) = figure_axes_array(axes, 2, CONTENT_WIDTH, 3.4)
        self.left, self.right = ax0, ax1
        n = np.arange(self.k_max + 1)
        self.bars = list(ax0.bar(n, np.zeros(n.size), 0.6, color=COLORS["neutral"], label="log: share of rounds"))
        (self.model,) = ax0.plot(n, np.zeros(n.size), "o-", color=COLORS["target"], label="model at alpha-hat")
        ax0.set_xlabel("accepted drafts in a round")
        ax0.set_ylabel("fraction of rounds")
        ax0.legend(frameon=False, fontsize=8, loc="upper left")
        self.left_title = ax0.set_title(" ", fontsize=9)
        a = np.linspace(0, 1, 201)
        ax1.plot(a, a, color=COLORS["baseline"], ls=":", label="rate = alpha")
        for j, kj in enumerate(ks):
            ax1.plot(a, draft_acceptance_rate(a, kj), color=SEQUENCE[j % len(SEQUENCE)], label=f"k = {kj}")
        (self.marker,) = ax1.plot([0.0], [0.0], "x", color=COLORS["accent"], ms=8, label="log's accepted/drafted")
        (self.circle,) = ax1.plot([0.0], [0.0], "o", color=COLORS["accent"], mfc="none", ms=8,
                                  label="the alpha it implies")
        (self.link,) = ax1.plot([0.0, 0.0], [0.0, 0.0], color=COLORS["accent"], lw=1)
        self.truth = ax1.axvline(0.5, color=COLORS["verify"], lw=1, ls="--", label="true alpha",
                                 visible=alpha_true is not None)
        ax1.set_xlabel("per-position acceptance alpha")
        ax1.set_ylabel("draft acceptance rate\n(accepted / drafted)")
        ax1.legend(frameon=False, fontsize=7, loc="upper left")
        self.right_title = ax1.set_title(" ", fontsize=9)
        self.top = None
        self.update(counts, kk, alpha_true)
        self.top = ax0.get_ylim()[1]

    @property
    def dynamic_artists(self) -> list:
        """The artists that show the log (everything else depends only on the key of :meth:`update`)."""
        return [*self.bars, self.model, self.left_title, self.marker, self.circle, self.link, self.truth,
                self.right_title]

    def update(self, counts, k, alpha_true=None):
        """Show the log ``counts`` of ``k``-draft rounds; return the key of the rest of the figure."""
        kk = int(check_integer(k, "k", minimum=1, maximum=self.k_max))
        c = np.asarray(counts)
        est = estimation.estimate_alpha(c, kk)
        freq = np.bincount(c, minlength=kk + 1) / c.size
        pmf = accepted_tokens_pmf(est.alpha, kk)
        for i, bar in enumerate(self.bars):
            bar.set_height(float(freq[i]) if i <= kk else 0.0)
            bar.set_visible(i <= kk)
        self.model.set_data(np.arange(kk + 1), pmf)
        self.left_title.set_text(f"{c.size} rounds: alpha-hat {est.alpha:.3f}, 95% interval "
                                 f"[{est.low:.3f}, {est.high:.3f}]")
        rate = estimation.read_accepted_counts(c, kk).draft_acceptance_rate
        implied = alpha_from_draft_acceptance_rate(rate, kk)
        self.marker.set_data([rate], [rate])
        self.circle.set_data([implied], [rate])
        self.link.set_data([rate, implied], [rate, rate])
        if alpha_true is not None:
            self.truth.set_xdata([float(alpha_true)] * 2)
        self.truth.set_visible(alpha_true is not None)
        self.right_title.set_text(f"rate {rate:.3f} implies alpha {implied:.3f} at k = {kk}")
        needed = 1.05 * max(float(freq.max()), float(pmf.max()))
        if self.top is None:
            top = needed
        elif needed <= self.top * (1 + 1e-9):   # rounding noise must not move the limit (nor redraw)
            top = self.top
        else:
            top = float(min(np.ceil(round(needed * 10, 9)) / 10, 1.05))
        self.left.set_ylim(0, top)
        self.left.set_xlim(-0.6, kk + 0.6)
        self.left.set_xticks(np.arange(kk + 1))
        return (top, kk)


def sampling_alpha_from_log(counts, k, alpha_true=None, ks=(1, 2, 4, 8), axes=None):
    """A log of accepted counts with its fitted model, and the serving-metric trap.

    Left: histogram of accepted drafts per round with the capped geometric
    pmf at the estimated alpha; right: the "draft acceptance rate"
    (accepted / drafted) against alpha for several k, below the diagonal,
    with the log's rate and the alpha it really implies marked. The
    chapter's explorer moves this figure in place (:class:`AlphaFromLogView`).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    counts : array_like of int
        Accepted drafts per round, 0..k.
    k : int
        Draft tokens per round.
    alpha_true : float, optional
        The simulated truth, marked when given.
    ks : sequence of int
        Curves of the right panel.
    axes : sequence of two Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    return AlphaFromLogView(counts, k, alpha_true, ks, axes, k_max=int(k)).figure

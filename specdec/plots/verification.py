"""Figures for "Why a decode step wastes arithmetic, and the verification pass" and "The acceptance
rate and the tokens it yields".

Presentation only: every number drawn comes from :mod:`specdec.verification.sampling`,
:mod:`specdec.acceptance` or :mod:`specdec.roofline.hardware`. Each function returns a
:class:`matplotlib.figure.Figure` made with :func:`specdec.plots.new_figure`, or draws into
axes passed in (the explorers redraw into the same figure).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.ticker import NullFormatter, ScalarFormatter

from specdec.acceptance import estimation
from specdec.roofline import hardware as hw
from specdec.verification import sampling as sm
from specdec.verification import synthetic as syn

from .._validate import check_integer, check_probability
from ..acceptance import (
    acceptance_rate,
    accepted_tokens_pmf,
    alpha_from_draft_acceptance_rate,
    draft_acceptance_rate,
    expected_tokens,
)
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure

__all__ = [
    "sampling_residual",
    "sampling_exactness",
    "sampling_wasted_arithmetic",
    "sampling_tokens_per_round",
    "sampling_temperature",
    "sampling_alpha_from_log",
    "AlphaFromLogView",
]

SCHEME_COLORS = {"speculative": COLORS["target"], "correction from target": COLORS["accent"],
                 "draft only": COLORS["draft"]}


def _figure(axes, ncols, width, height):
    if axes is None:
        fig, axes = new_figure(width, height, ncols=ncols)
        return fig, np.atleast_1d(axes)
    axes = np.atleast_1d(axes)
    for ax in axes:
        ax.clear()
    return axes[0].figure, axes


def sampling_residual(p=syn.EXAMPLE_TARGET, q=syn.EXAMPLE_DRAFT, axes=None):
    """Target and draft side by side with their overlap, and the residual distribution.

    Left: bars of ``p`` and ``q`` per token with ``min(p, q)`` (the mass that
    is accepted) outlined; right: the residual ``normalize(max(p - q, 0))``
    a rejected draft is replaced from.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    axes : sequence of two matplotlib Axes, optional
        Draw into these (cleared first) instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    pa, qa = np.asarray(p, float), np.asarray(q, float)
    alpha = acceptance_rate(pa, qa)
    residual = sm.residual_distribution(pa, qa)
    fig, (ax0, ax1) = _figure(axes, 2, CONTENT_WIDTH, 3.3)
    x = np.arange(pa.size)
    w = 0.4
    ax0.bar(x - w / 2, pa, w, color=COLORS["target"], label="target p")
    ax0.bar(x + w / 2, qa, w, color=COLORS["draft"], label="draft q")
    accepted = sm.accepted_mass(pa, qa)
    ax0.step(np.r_[x - 0.5, x[-1] + 0.5], np.r_[accepted, accepted[-1]], where="post",
             color="black", lw=1.2, label="min(p, q): accepted mass")
    ax0.set_xticks(x)
    ax0.set_xlabel("token")
    ax0.set_ylabel("probability")
    ax0.set_title(f"acceptance rate sum(min(p, q)) = {alpha:.2f}", fontsize=10)
    ax0.legend(frameon=False, fontsize=8)
    excess = sm.residual_distribution(pa, qa, normalize=False)
    ax1.bar(x, residual, 0.6, color=COLORS["verify"], label="residual (normalized)")
    ax1.bar(x, excess, 0.3, color="black", alpha=0.5, label="max(p - q, 0)")
    ax1.set_xticks(x)
    ax1.set_xlabel("token")
    ax1.set_ylabel("probability")
    ax1.set_title(f"replacement after a rejection (prob. {sm.total_variation(pa, qa):.2f})", fontsize=10)
    ax1.legend(frameon=False, fontsize=8)
    return fig


def sampling_exactness(p=syn.EXAMPLE_TARGET, q=syn.EXAMPLE_DRAFT, sizes=None, seed=0, axes=None, convergence=None):
    """Emitted-token frequencies converge to the target only for the exact scheme.

    Left: total-variation distance between the empirical distribution of the
    first ``n`` emitted tokens and ``p``, against ``n`` (log-log), for
    speculative sampling, the "correction from target" bug and plain draft
    sampling. Right: the frequencies at the largest ``n`` next to ``p``.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    sizes : array_like of int, optional
        Sample sizes; default 28 log-spaced sizes from 31 to 10**6.
    seed : int
        Seed of the simulation.
    axes : sequence of two Axes, optional
    convergence : dict, optional
        A result of :func:`specdec.verification.sampling.convergence_to_target` to draw
        instead of simulating (``sizes`` and ``seed`` are then ignored).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if convergence is not None:
        conv = convergence
    elif sizes is None:
        sizes = np.unique(np.logspace(1.5, 6, 28).astype(int))
    if convergence is None:
        conv = sm.convergence_to_target(p, q, sizes, np.random.default_rng(seed))
    pa = np.asarray(p, float)
    n = conv["sizes"]
    fig, (ax0, ax1) = _figure(axes, 2, CONTENT_WIDTH, 3.4)
    for name, color in SCHEME_COLORS.items():
        tv = sm.total_variation(conv[name], pa)
        ax0.loglog(n, tv, marker="o", ms=2.5, color=color, label=name)
    ax0.loglog(n, 0.5 * np.sqrt(pa.size / n), color=COLORS["baseline"], ls=":", lw=1,
               label="sampling noise scale ~ 1/sqrt(n)")
    ax0.set_xlabel("emitted tokens n")
    ax0.set_ylabel("TV distance to target p")
    ax0.legend(frameon=False, fontsize=8)
    ax0.set_title("distance to the target as samples grow", fontsize=10)
    x = np.arange(pa.size)
    w = 0.27
    for j, (name, color) in enumerate(SCHEME_COLORS.items()):
        ax1.bar(x + (j - 1) * w, conv[name][-1], w, color=color, label=name)
    ax1.scatter(x, pa, marker="_", s=260, color="black", zorder=3, label="target p")
    ax1.set_xticks(x)
    ax1.set_xlabel("token")
    ax1.set_ylabel("frequency")
    ax1.set_title(f"frequencies after n = {int(n[-1]):,} tokens", fontsize=10)
    ax1.legend(fontsize=8, loc="upper right")     # framed: it sits over the bars
    return fig


#: The default hardware of :func:`sampling_wasted_arithmetic`: eight H100s, made once at import.
_EIGHT_H100 = hw.H100.scaled(8)


def sampling_wasted_arithmetic(target=hw.LLAMA_70B, hardware=_EIGHT_H100, max_tokens=2048, ks=(4, 8),
                               ax=None):
    """Time of one forward pass against the tokens it processes, with the ridge point.

    The pass costs one weight read until the tokens per pass reach the
    hardware's ridge point; verification of ``k`` drafts processes ``k + 1``
    tokens (marked).

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".

    Parameters
    ----------
    target : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    max_tokens : int
        Largest tokens per pass on the axis, >= 2.
    ks : sequence of int
        Draft lengths whose verification pass (k + 1 tokens) is marked.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    m = int(check_integer(max_tokens, "max_tokens", minimum=2))
    if ax is None:
        fig, ax = new_figure(6.4, 3.8)
    else:
        ax.clear()
        fig = ax.figure
    n = np.unique(np.logspace(0, np.log10(m), 200).astype(int))
    t = hw.step_time(target, hardware, batch=1, new_tokens=n) * 1e3
    t1 = hw.step_time(target, hardware) * 1e3
    ax.semilogx(n, t, color=COLORS["target"], label="roofline time of one pass")
    ax.axhline(t1, color=COLORS["baseline"], ls=":", lw=1, label=f"one decode step, {t1:.2f} ms")
    ridge = hw.ridge_batch(target, hardware)
    ax.axvline(ridge, color=COLORS["accent"], ls="--", lw=1, label=f"ridge point, {ridge:.0f} tokens")
    for j, k in enumerate(ks):
        tk = hw.step_time(target, hardware, new_tokens=k + 1) * 1e3
        ax.plot([k + 1], [tk], "o", color=SEQUENCE[(j + 1) % len(SEQUENCE)],
                label=f"verify k = {k} ({k + 1} tokens): {tk:.2f} ms")
    ax.set_ylim(0, None)
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("tokens processed per pass (batch 1)")
    ax.set_ylabel("time per pass (ms)")
    ax.set_title(f"{target.name} on {hardware.name}", fontsize=10)
    ax.legend(frameon=False, fontsize=8)
    return fig


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
    fig, (ax0, ax1) = _figure(axes, 2, CONTENT_WIDTH, 3.3)
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


@lru_cache(maxsize=64)
def _temperature_curve(kind, noise, sharpness, vocab, n_contexts, seed, temperatures):
    """Memoized acceptance-vs-temperature curve (explorers redraw without recomputing)."""
    zt, zd = syn.synthetic_logit_pair(kind, vocab, n_contexts, noise=noise, sharpness=sharpness, rng=seed)
    curve = syn.acceptance_vs_temperature(zt, zd, np.asarray(temperatures))
    curve.setflags(write=False)
    return curve


#: Temperature grid of the chapter figure and its explorer (steps of 0.1).
TEMPERATURE_GRID = np.round(np.linspace(0.1, 2.0, 20), 10)


def temperature_curve(kind, noise, sharpness, vocab=200, n_contexts=32, seed=0, temperatures=None):
    """Acceptance against temperature for one synthetic workload, memoized.

    Thin cached wrapper over :func:`specdec.verification.synthetic.synthetic_logit_pair` and
    :func:`specdec.verification.synthetic.acceptance_vs_temperature` so that explorers can
    redraw without recomputing. Returns a read-only array.
    """
    t = TEMPERATURE_GRID if temperatures is None else np.asarray(temperatures, float)
    return _temperature_curve(kind, float(noise), float(sharpness), int(vocab), int(n_contexts), int(seed),
                              tuple(float(x) for x in t))


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
        Default ``TEMPERATURE_GRID`` (0.1, 0.2, ..., 2.0).
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
    t = TEMPERATURE_GRID if temperatures is None else np.asarray(temperatures, float)
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
        ax.plot(t, _temperature_curve(kind, float(noise), float(sharpness), int(vocab), int(n_contexts), int(seed), key),
                color=colors[kind], label=f"{label_kind[kind]}, noisy draft")
        if show_underconfident:
            ax.plot(t, _temperature_curve(kind, 0.5, 0.6, int(vocab), int(n_contexts), int(seed), key),
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
        self.figure, (ax0, ax1) = _figure(axes, 2, CONTENT_WIDTH, 3.4)
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

"""Explorers for "Why a decode step wastes arithmetic, and the verification pass" and "The acceptance
rate and the tokens it yields".

Presentation only: numbers come from :mod:`specdec.verification.sampling`,
:mod:`specdec.verification.synthetic`, :mod:`specdec.acceptance.estimation` and
:mod:`specdec.acceptance`; figures from :mod:`specdec.plots.sampling`. A
slider moves the artists that change (bar heights, line data, titles) over
one cached background per set of axis limits; limits stay those of the
first image while the data fits in them and otherwise step up in tenths.
"""

from __future__ import annotations

import numpy as np

from specdec.acceptance import estimation
from specdec.verification import sampling as sm
from specdec.verification import synthetic as syn

from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import (
    acceptance_rate,
    alpha_from_draft_acceptance_rate,
    alpha_from_mean_acceptance_length,
    expected_tokens,
)
from ..plots.verification import (
    TEMPERATURE_GRID,
    AlphaFromLogView,
    sampling_residual,
    sampling_temperature,
    temperature_curve,
    temperature_title,
)
from ._base import Explorer, float_slider, int_slider

__all__ = [
    "SamplingResidualExplorer",
    "sampling_residual_explorer",
    "SamplingTemperatureExplorer",
    "sampling_temperature_explorer",
    "SamplingLogExplorer",
    "sampling_log_explorer",
]


def _top(initial, needed):
    """Upper y limit: ``initial`` while the data fits, else ``needed`` rounded up to a tenth (at most 1.05)."""
    if needed <= initial * (1 + 1e-9):     # rounding noise must not move the limit (nor redraw the background)
        return initial
    return float(min(np.ceil(round(needed * 10, 9)) / 10, 1.05))


class SamplingResidualExplorer(Explorer):
    """Draft mismatch and temperature sliders on the chapter's target/draft pair.

    ``values``: the sliders, ``p`` and ``q`` (the tempered pair), ``alpha``
    (the acceptance rate), ``residual`` and ``expected_tokens`` at ``k``.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".
    """

    name = "residual"
    title = "Residual-distribution explorer"

    def __init__(self, mismatch=1.0, temperature=1.0, k=4):
        m = float(check_probability(mismatch, "mismatch"))
        t = float(check_positive(temperature, "temperature"))
        self.k = int(check_integer(k, "k", minimum=1))
        self.mismatch = float_slider(m, 0.0, 1.0, 0.05, "mismatch")
        self.temperature = float_slider(t, 0.2, 3.0, 0.1, "temperature", ".1f")
        p, q = self._pq(m, t)
        figure = sampling_residual(p, q)
        ax0, ax1 = figure.axes
        self.tops = (ax0.get_ylim()[1], ax1.get_ylim()[1])
        bars = [patch for ax in (ax0, ax1) for container in ax.containers for patch in container]
        super().__init__({"mismatch": self.mismatch, "temperature": self.temperature}, figure=figure,
                         dynamic=bars + [ax0.lines[0], ax0.title, ax1.title])

    @staticmethod
    def _pq(mismatch, temperature):
        q = syn.interpolate_draft(syn.EXAMPLE_TARGET, syn.EXAMPLE_DRAFT, mismatch)
        return syn.temper_distribution(syn.EXAMPLE_TARGET, temperature), syn.temper_distribution(q, temperature)

    def compute(self, state=None) -> dict:
        """The pair, its acceptance rate and residual for the sliders (or ``state``)."""
        v = self.state(state)
        p, q = self._pq(v["mismatch"], v["temperature"])
        alpha = acceptance_rate(p, q)
        v.update(p=p, q=q, alpha=alpha, rejection=sm.total_variation(p, q), residual=sm.residual_distribution(p, q),
                 excess=sm.residual_distribution(p, q, normalize=False), accepted=sm.accepted_mass(p, q),
                 expected_tokens=expected_tokens(alpha, self.k), k=self.k)
        return v

    def rows(self, v) -> list:
        return [("alpha", "acceptance rate alpha = sum(min(p, q))", f"{v['alpha']:.4f}"),
                ("rejection", "rejection probability = TV(p, q)", f"{v['rejection']:.4f}"),
                ("expected_tokens", f"E[L] at k = {v['k']} (if every position looked like this)",
                 f"{v['expected_tokens']:.3f}")]

    def draw(self, v):
        ax0, ax1 = self.figure.axes
        p, q, alpha = v["p"], v["q"], v["alpha"]
        for container, heights in zip(ax0.containers + ax1.containers, (p, q, v["residual"], v["excess"]), strict=False):
            for patch, h in zip(container, heights, strict=False):
                patch.set_height(float(h))
        m = v["accepted"]
        ax0.lines[0].set_ydata(np.r_[m, m[-1]])
        ax0.set_title(f"acceptance rate sum(min(p, q)) = {alpha:.2f}", fontsize=10)
        ax1.set_title(f"replacement after a rejection (prob. {v['rejection']:.2f})", fontsize=10)
        tops = (_top(self.tops[0], 1.05 * max(p.max(), q.max())), _top(self.tops[1], 1.05 * v["residual"].max()))
        ax0.set_ylim(0, tops[0])
        ax1.set_ylim(0, tops[1])
        return tops

    def alt_text(self, v) -> str:
        return (f"Left: bars of the target p and the draft q over {v['p'].size} tokens at mismatch "
                f"{v['mismatch']:.2f} and temperature {v['temperature']:.1f}, with min(p, q) outlined: acceptance rate "
                f"{v['alpha']:.2f}. Right: the residual distribution a rejected draft is replaced from.")


def sampling_residual_explorer(mismatch=1.0, temperature=1.0, k=4) -> SamplingResidualExplorer:
    """Explore the residual distribution and the acceptance rate of a target/draft pair.

    The draft is ``(1 - mismatch) * p + mismatch * q`` for the chapter's
    example pair, and both are re-sampled at ``temperature``. Defaults equal
    the chapter's static residual figure (mismatch 1, temperature 1).

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".

    Parameters
    ----------
    mismatch : float
        Initial draft mismatch in [0, 1].
    temperature : float
        Initial temperature, > 0.
    k : int
        Draft length for the E[L] read-out.

    Returns
    -------
    SamplingResidualExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.sampling_residual_explorer()
    >>> round(w.values["alpha"], 2)
    0.77
    """
    return SamplingResidualExplorer(mismatch, temperature, k)


class SamplingTemperatureExplorer(Explorer):
    """Noise and sharpness sliders for the draft; acceptance against temperature.

    ``values``: the sliders, ``temperatures``, the curves ``peaked_curve``
    and ``flat_curve``, and ``peaked`` and ``flat``, their values at
    temperatures 0.2, 1 and 2.

    Defined in chapter "The acceptance rate and the tokens it yields".
    """

    name = "temperature"
    title = "Temperature explorer"

    def __init__(self, noise=1.0, sharpness=1.0, vocab=200, n_contexts=32, seed=0):
        n = float(check_nonnegative(noise, "noise"))
        s = float(check_positive(sharpness, "sharpness"))
        self.params = dict(vocab=int(vocab), n_contexts=int(n_contexts), seed=int(seed))
        self.temperatures = TEMPERATURE_GRID
        self.noise = float_slider(n, 0.0, 3.0, 0.1, "draft noise", ".1f")
        self.sharpness = float_slider(s, 0.2, 1.5, 0.1, "sharpness", ".1f")
        figure = sampling_temperature(self.temperatures, n, s, **self.params)
        ax = figure.axes[0]
        # lines in drawing order: peaked, peaked under-confident, flat, flat under-confident
        super().__init__({"noise": self.noise, "sharpness": self.sharpness}, figure=figure,
                         dynamic=[ax.lines[0], ax.lines[2], ax.title])

    def compute(self, state=None) -> dict:
        """The acceptance curves for the sliders (or ``state``), from :mod:`specdec.verification.synthetic`."""
        v = self.state(state)
        v["temperatures"] = self.temperatures
        pick = np.searchsorted(self.temperatures, [0.2, 1.0, 2.0])
        for kind in ("peaked", "flat"):
            curve = temperature_curve(kind, v["noise"], v["sharpness"], temperatures=self.temperatures, **self.params)
            v[kind + "_curve"] = curve
            v[kind] = curve[pick]
        return v

    def rows(self, v) -> list:
        return [(kind, f"{kind}: acceptance at t = 0.2 / 1.0 / 2.0", " / ".join(f"{x:.3f}" for x in v[kind]))
                for kind in ("peaked", "flat")]

    def draw(self, v):
        ax = self.figure.axes[0]
        ax.lines[0].set_ydata(v["peaked_curve"])
        ax.lines[2].set_ydata(v["flat_curve"])
        ax.set_title(temperature_title(v["noise"], v["sharpness"]), fontsize=9)
        return None

    def alt_text(self, v) -> str:
        p, f = v["peaked"], v["flat"]
        return (f"Acceptance rate against sampling temperature from 0.1 to 2 for a peaked (code-like) and a flat "
                f"(prose-like) workload, with a draft of logit noise {v['noise']:.1f} and sharpness "
                f"{v['sharpness']:.1f} (solid) and an under-confident draft (dashed). At t = 0.2, 1 and 2 the peaked "
                f"curve reads {p[0]:.2f}, {p[1]:.2f}, {p[2]:.2f}, the flat one {f[0]:.2f}, {f[1]:.2f}, {f[2]:.2f}.")


def sampling_temperature_explorer(noise=1.0, sharpness=1.0) -> SamplingTemperatureExplorer:
    """Explore how the draft's kind of error decides how acceptance moves with temperature.

    Defaults equal the chapter's static figure (noise 1, sharpness 1).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    noise : float
        Initial standard deviation of the draft's logit noise, >= 0.
    sharpness : float
        Initial factor on the target's logits in the draft, > 0.

    Returns
    -------
    SamplingTemperatureExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.sampling_temperature_explorer()
    >>> bool(w.values["peaked"][0] > w.values["flat"][0])
    True
    """
    return SamplingTemperatureExplorer(noise, sharpness)


class SamplingLogExplorer(Explorer):
    """True alpha, k, log length and seed sliders; the estimate and the serving metrics.

    ``values``: ``alpha_true``, ``k``, ``n_rounds``, ``seed``, ``counts``
    (the simulated log), ``estimate`` (a
    :class:`specdec.acceptance.estimation.AlphaEstimate`), ``draft_acceptance_rate``,
    ``mean_acceptance_length`` and the alphas they imply,
    ``alpha_from_rate`` and ``alpha_from_length``.

    Defined in chapter "The acceptance rate and the tokens it yields".
    """

    name = "alpha-from-log"
    title = "Serving-log explorer"

    def __init__(self, alpha=0.8, k=4, n_rounds=300, seed=7):
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=16))
        n = int(check_integer(n_rounds, "n_rounds", minimum=10, maximum=100_000))
        self.alpha = float_slider(a, 0.05, 0.99, 0.01, "true alpha")
        self.k = int_slider(kk, 1, 16, "k")
        self.n_rounds = int_slider(n, 20, 5000, "rounds", step=10)
        self.seed = int_slider(seed, 0, 99, "seed")
        counts = estimation.simulate_accepted_counts(a, kk, n, np.random.default_rng(int(seed)))
        self.view = AlphaFromLogView(counts, kk, a, k_max=16)
        super().__init__({"alpha": self.alpha, "k": self.k, "n_rounds": self.n_rounds, "seed": self.seed},
                         figure=self.view.figure, dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """Simulate the log for the sliders (or ``state``) and read it as an engine would."""
        s = self.state(state)
        a, k, n = s["alpha"], s["k"], s["n_rounds"]
        counts = estimation.simulate_accepted_counts(a, k, n, np.random.default_rng(s["seed"]))
        reading = estimation.read_accepted_counts(counts, k)
        rate, length = reading.draft_acceptance_rate, reading.mean_acceptance_length
        return {"alpha_true": a, "k": k, "n_rounds": n, "seed": s["seed"], "counts": counts,
                "estimate": estimation.estimate_alpha(counts, k),
                "draft_acceptance_rate": rate, "mean_acceptance_length": length,
                "alpha_from_rate": alpha_from_draft_acceptance_rate(rate, k),
                "alpha_from_length": alpha_from_mean_acceptance_length(length, k)}

    def rows(self, v) -> list:
        e = v["estimate"]
        return [("estimate", "maximum-likelihood alpha (95% Wilson interval)",
                 f"{e.alpha:.3f} [{e.low:.3f}, {e.high:.3f}]"),
                ("draft_acceptance_rate", "engine's draft acceptance rate (accepted / drafted)",
                 f"{v['draft_acceptance_rate']:.3f}"),
                ("alpha_from_rate", "  -> alpha it implies", f"{v['alpha_from_rate']:.3f}"),
                ("mean_acceptance_length", "engine's mean acceptance length (with bonus)",
                 f"{v['mean_acceptance_length']:.3f}"),
                ("alpha_from_length", "  -> alpha it implies", f"{v['alpha_from_length']:.3f}")]

    def draw(self, v):
        return self.view.update(v["counts"], v["k"], v["alpha_true"])

    def alt_text(self, v) -> str:
        e = v["estimate"]
        return (f"Left: a simulated log of {v['n_rounds']} rounds at true alpha {v['alpha_true']:.2f} and k = "
                f"{v['k']}: bars of the share of rounds with 0 to {v['k']} accepted drafts and the fitted model at "
                f"alpha-hat {e.alpha:.3f}. Right: the draft acceptance rate an engine prints against alpha, below "
                f"the diagonal; the log's rate {v['draft_acceptance_rate']:.3f} implies alpha "
                f"{v['alpha_from_rate']:.3f}.")


def sampling_log_explorer(alpha=0.8, k=4, n_rounds=300, seed=7) -> SamplingLogExplorer:
    """Simulate a serving log and estimate alpha from it, next to the metrics engines print.

    Defaults equal the chapter's worked example (alpha 0.8, k 4, 300 rounds, seed 7).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    alpha : float
        True per-position acceptance of the simulated log, in [0, 1].
    k : int
        Draft tokens per round, 1..16.
    n_rounds : int
        Rounds in the log, 10..100000.
    seed : int
        Seed of the simulated log.

    Returns
    -------
    SamplingLogExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.sampling_log_explorer()
    >>> w.values["estimate"].n_rounds
    300
    """
    return SamplingLogExplorer(alpha, k, n_rounds, seed)

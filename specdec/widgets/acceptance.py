"""Explorers of the acceptance process: tokens per round, the acceptance rate at a temperature, alpha from a log.

Presentation only: the numbers come from :mod:`specdec.acceptance`, :mod:`specdec.acceptance.estimation`
and :mod:`specdec.verification.synthetic`; the figures from :mod:`specdec.plots.acceptance`. The
expected-tokens explorer moves the artists of :class:`specdec.plots.ExpectedTokensOverview` and is
a headline explorer: live in the HTML book through ``specdec-live.js``.
"""

from __future__ import annotations

import numpy as np

from specdec.acceptance import estimation
from specdec.verification import synthetic as syn

from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import (
    accepted_tokens_pmf,
    alpha_from_draft_acceptance_rate,
    alpha_from_mean_acceptance_length,
    expected_tokens,
)
from ..plots.acceptance import AlphaFromLogView, ExpectedTokensOverview, sampling_temperature, temperature_title
from ._base import Explorer, float_slider, int_slider

__all__ = [
    "ExpectedTokensExplorer",
    "expected_tokens_explorer",
    "SamplingTemperatureExplorer",
    "sampling_temperature_explorer",
    "SamplingLogExplorer",
    "sampling_log_explorer",
]


class ExpectedTokensExplorer(Explorer):
    """Sliders for alpha and k; shows E[L], the distribution of L and the next draft's gain.

    ``values`` holds the numbers of the last update (a dict with keys
    ``alpha``, ``k``, ``expected_tokens``, ``pmf`` (of the accepted drafts
    ``N = L - 1``), ``ceiling`` (k + 1), ``fraction_of_ceiling``,
    ``p_all_accepted`` (alpha**k) and ``next_draft_gain``
    (E[L](k+1) - E[L](k))), so tests and readers can check them against
    ``specdec``.

    Defined in chapter "Expected tokens per round".
    """

    name = "expected-tokens"
    title = "Expected tokens explorer"
    live = True

    def __init__(self, alpha: float = 0.8, k: int = 5, k_max: int = 12):
        a = float(check_probability(alpha, "alpha"))
        self.k_max = int(check_integer(k_max, "k_max", minimum=2, maximum=64))
        kk = int(check_integer(k, "k", minimum=1, maximum=self.k_max))
        self.alpha_slider = float_slider(a, 0.0, 1.0, 0.01, "alpha")
        self.k_slider = int_slider(kk, 1, self.k_max, "k (drafts per round)")
        self.view = ExpectedTokensOverview(a, kk, self.k_max)
        super().__init__({"alpha": self.alpha_slider, "k": self.k_slider}, figure=self.view.figure,
                         dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """The numbers for the slider values (or ``state``), from specdec; no drawing."""
        s = self.state(state)
        a, k = s["alpha"], s["k"]
        tokens = expected_tokens(a, k)
        pmf = accepted_tokens_pmf(a, k)
        return {
            "alpha": a,
            "k": k,
            "expected_tokens": tokens,
            "pmf": pmf,
            "ceiling": k + 1,
            "fraction_of_ceiling": tokens / (k + 1),
            "p_all_accepted": float(pmf[-1]),
            "next_draft_gain": expected_tokens(a, k + 1) - tokens,
        }

    def rows(self, v) -> list:
        return [
            ("expected_tokens", "expected tokens per round, E[L]", f"{v['expected_tokens']:.4f}"),
            ("ceiling", "ceiling k + 1 (every draft accepted)", f"{v['ceiling']}"),
            ("fraction_of_ceiling", "E[L] as a fraction of the ceiling", f"{v['fraction_of_ceiling']:.1%}"),
            ("p_all_accepted", "P(all k drafts accepted) = alpha^k", f"{v['p_all_accepted']:.4f}"),
            ("next_draft_gain", "tokens gained by one more draft (k -> k+1)", f"{v['next_draft_gain']:.4f}"),
        ]

    def draw(self, v):
        self.view.update(v["alpha"], v["k"])
        return self.view.limits_key

    def alt_text(self, v) -> str:
        return (f"Left: bar chart of the distribution of L, the tokens one round emits, at alpha {v['alpha']:.2f} "
                f"and k {v['k']}; the last bar, every draft accepted, has probability {v['p_all_accepted']:.3f}; "
                f"a dashed line marks E[L] = {v['expected_tokens']:.2f}. Right: E[L] against k from 1 to "
                f"{self.k_max} under the ceiling k + 1, k = {v['k']} circled, and an arrow: one more draft adds "
                f"{v['next_draft_gain']:.3f} tokens.")

    def live_constants(self) -> dict:
        return {"k_max": self.k_max}


def expected_tokens_explorer(alpha: float = 0.8, k: int = 5, k_max: int = 12) -> ExpectedTokensExplorer:
    """Interactive E[L] explorer: alpha and k sliders, the distribution of L, the next draft's gain.

    Defaults equal the chapter's static figure (alpha = 0.8, k = 5). Live in
    the HTML book (no kernel needed there).

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alpha : float, optional
        Initial acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Initial draft length, whole number in [1, k_max]. Default 5.
    k_max : int, optional
        Largest k on the slider and the figure, in [2, 64]. Default 12.

    Returns
    -------
    ExpectedTokensExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.expected_tokens_explorer()
    >>> round(w.values["expected_tokens"], 4)
    3.6893
    >>> w.k_slider.value = 6
    >>> round(w.values["expected_tokens"], 4)
    3.9514
    """
    return ExpectedTokensExplorer(alpha=alpha, k=k, k_max=k_max)


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
        self.temperatures = syn.TEMPERATURE_GRID
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
            curve = syn.temperature_curve(kind, v["noise"], v["sharpness"], temperatures=self.temperatures, **self.params)
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

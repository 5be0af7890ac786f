"""Explorers for Part II, chapters 1 and 2 (the verification pass; the acceptance rate).

Presentation only: numbers come from :mod:`specdec.sampling` and figures
from :mod:`specdec.plots.sampling`. Each explorer is an ``ipywidgets.VBox``
with sliders, an HTML read-out and the figure as a PNG image (so the last
state is embedded in the saved notebook). ``values`` holds the numbers of
the last update so tests and readers can check them.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import sampling as sm
from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import acceptance_rate, expected_tokens
from ..plots.sampling import (
    TEMPERATURE_GRID,
    sampling_alpha_from_log,
    sampling_residual,
    sampling_temperature,
    temperature_curve,
)
from ._render import figure_png, freeze_layout, table_html

__all__ = [
    "sampling_residual_explorer",
    "sampling_temperature_explorer",
    "sampling_log_explorer",
]


class _Explorer(widgets.VBox):
    """Common plumbing: sliders -> compute() -> read-out + redraw."""

    def __init__(self, sliders, figure, dpi=72):
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = figure
        freeze_layout(self.figure, dpi)
        self.dpi = dpi
        self.values: dict = {}
        super().__init__([widgets.HBox(sliders), self.readout, self.image])
        for s in sliders:
            s.observe(lambda change: self.update(), names="value")

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the values."""
        v = self.compute()
        self.readout.value = table_html(self.rows(v))
        if draw:
            self.draw(v)
            self.image.value = figure_png(self.figure, self.dpi)
        self.values = v
        return v


class SamplingResidualExplorer(_Explorer):
    """Draft mismatch and temperature sliders on the chapter's target/draft pair.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).
    """

    def __init__(self, mismatch=1.0, temperature=1.0, k=4):
        m = float(check_probability(mismatch, "mismatch"))
        t = float(check_positive(temperature, "temperature"))
        self.k = int(check_integer(k, "k", minimum=1))
        self.mismatch = widgets.FloatSlider(value=m, min=0.0, max=1.0, step=0.05, description="mismatch",
                                            continuous_update=False)
        self.temperature = widgets.FloatSlider(value=t, min=0.2, max=3.0, step=0.1, description="temperature",
                                               continuous_update=False)
        p, q = self._pq(m, t)
        super().__init__([self.mismatch, self.temperature], sampling_residual(p, q))
        self.update()

    @staticmethod
    def _pq(mismatch, temperature):
        q = sm.interpolate_draft(sm.EXAMPLE_TARGET, sm.EXAMPLE_DRAFT, mismatch)
        return sm.temper_distribution(sm.EXAMPLE_TARGET, temperature), sm.temper_distribution(q, temperature)

    def compute(self) -> dict:
        p, q = self._pq(float(self.mismatch.value), float(self.temperature.value))
        alpha = acceptance_rate(p, q)
        return {"p": p, "q": q, "alpha": alpha, "residual": sm.residual_distribution(p, q),
                "expected_tokens": expected_tokens(alpha, self.k), "k": self.k}

    def rows(self, v):
        return [("acceptance rate alpha = sum(min(p, q))", f"{v['alpha']:.4f}"),
                ("rejection probability = TV(p, q)", f"{1 - v['alpha']:.4f}"),
                (f"E[L] at k = {v['k']} (if every position looked like this)", f"{v['expected_tokens']:.3f}")]

    def draw(self, v):
        sampling_residual(v["p"], v["q"], axes=self.figure.axes)


def sampling_residual_explorer(mismatch=1.0, temperature=1.0, k=4) -> SamplingResidualExplorer:
    """Explore the residual distribution and the acceptance rate of a target/draft pair.

    The draft is ``(1 - mismatch) * p + mismatch * q`` for the chapter's
    example pair, and both are re-sampled at ``temperature``. Defaults equal
    the chapter's static residual figure (mismatch 1, temperature 1).

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

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


class SamplingTemperatureExplorer(_Explorer):
    """Noise and sharpness sliders for the draft; acceptance against temperature.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).
    """

    def __init__(self, noise=1.0, sharpness=1.0, vocab=200, n_contexts=32, seed=0):
        n = float(check_nonnegative(noise, "noise"))
        s = float(check_positive(sharpness, "sharpness"))
        self.params = dict(vocab=int(vocab), n_contexts=int(n_contexts), seed=int(seed))
        self.temperatures = TEMPERATURE_GRID
        self.noise = widgets.FloatSlider(value=n, min=0.0, max=3.0, step=0.1, description="draft noise",
                                         continuous_update=False)
        self.sharpness = widgets.FloatSlider(value=s, min=0.2, max=1.5, step=0.1, description="sharpness",
                                             continuous_update=False)
        super().__init__([self.noise, self.sharpness],
                         sampling_temperature(self.temperatures, n, s, **self.params))
        self.update()

    def compute(self) -> dict:
        n, s = float(self.noise.value), float(self.sharpness.value)
        out = {"noise": n, "sharpness": s, "temperatures": self.temperatures}
        pick = np.searchsorted(self.temperatures, [0.2, 1.0, 2.0])
        for kind in ("peaked", "flat"):
            curve = temperature_curve(kind, n, s, temperatures=self.temperatures, **self.params)
            out[kind + "_curve"] = curve
            out[kind] = curve[pick]
        return out

    def rows(self, v):
        return [(f"{kind}: acceptance at t = 0.2 / 1.0 / 2.0", " / ".join(f"{x:.3f}" for x in v[kind]))
                for kind in ("peaked", "flat")]

    def draw(self, v):
        sampling_temperature(self.temperatures, v["noise"], v["sharpness"], ax=self.figure.axes[0], **self.params)


def sampling_temperature_explorer(noise=1.0, sharpness=1.0) -> SamplingTemperatureExplorer:
    """Explore how the draft's kind of error decides how acceptance moves with temperature.

    Defaults equal the chapter's static figure (noise 1, sharpness 1).

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

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


class SamplingLogExplorer(_Explorer):
    """True alpha, k, log length and seed sliders; the estimate and the serving metrics.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).
    """

    def __init__(self, alpha=0.8, k=4, n_rounds=300, seed=7):
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=16))
        n = int(check_integer(n_rounds, "n_rounds", minimum=10, maximum=100_000))
        self.alpha = widgets.FloatSlider(value=a, min=0.05, max=0.99, step=0.01, description="true alpha",
                                         continuous_update=False)
        self.k = widgets.IntSlider(value=kk, min=1, max=16, description="k", continuous_update=False)
        self.n_rounds = widgets.IntSlider(value=n, min=20, max=5000, step=10, description="rounds",
                                          continuous_update=False)
        self.seed = widgets.IntSlider(value=int(seed), min=0, max=99, description="seed", continuous_update=False)
        counts = sm.simulate_accepted_counts(a, kk, n, np.random.default_rng(int(seed)))
        super().__init__([self.alpha, self.k, self.n_rounds, self.seed], sampling_alpha_from_log(counts, kk, a))
        self.update()

    def compute(self) -> dict:
        a, k, n = float(self.alpha.value), int(self.k.value), int(self.n_rounds.value)
        counts = sm.simulate_accepted_counts(a, k, n, np.random.default_rng(int(self.seed.value)))
        est = sm.estimate_alpha(counts, k)
        rate = float(counts.sum() / (k * n))
        length = float(counts.mean() + 1)
        return {"alpha_true": a, "k": k, "counts": counts, "estimate": est, "draft_acceptance_rate": rate,
                "mean_acceptance_length": length,
                "alpha_from_rate": sm.alpha_from_draft_acceptance_rate(rate, k),
                "alpha_from_length": sm.alpha_from_mean_acceptance_length(length, k)}

    def rows(self, v):
        e = v["estimate"]
        return [("maximum-likelihood alpha (95% Wilson interval)", f"{e.alpha:.3f} [{e.low:.3f}, {e.high:.3f}]"),
                ("engine's draft acceptance rate (accepted / drafted)", f"{v['draft_acceptance_rate']:.3f}"),
                ("  -> alpha it implies", f"{v['alpha_from_rate']:.3f}"),
                ("engine's mean acceptance length (with bonus)", f"{v['mean_acceptance_length']:.3f}"),
                ("  -> alpha it implies", f"{v['alpha_from_length']:.3f}")]

    def draw(self, v):
        sampling_alpha_from_log(v["counts"], v["k"], v["alpha_true"], axes=self.figure.axes)


def sampling_log_explorer(alpha=0.8, k=4, n_rounds=300, seed=7) -> SamplingLogExplorer:
    """Simulate a serving log and estimate alpha from it, next to the metrics engines print.

    Defaults equal the chapter's worked example (alpha 0.8, k 4, 300 rounds, seed 7).

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

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

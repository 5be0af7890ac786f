"""Explorers for Part II, chapters 1 and 2 (the verification pass; the acceptance rate).

Presentation only: numbers come from :mod:`specdec.sampling`,
:mod:`specdec.synthetic` and :mod:`specdec.estimation`, and figures
from :mod:`specdec.plots.sampling`. Each explorer is an ``ipywidgets.VBox``
with sliders, an HTML read-out and the figure as a PNG image (so the last
state is embedded in the saved notebook). ``values`` holds the numbers of
the last update so tests and readers can check them.

The first image is the chapter's static figure at the explorer's values.
A slider update does not redraw that figure: it changes the data of the
artists that move (bar heights, line data, titles, legend texts) and
repaints only those over a cached background (``specdec.widgets._render.Blitter``).
Axis limits stay those of the first image while the data fits in them and
otherwise step up in tenths, so the background is redrawn only then.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.artist import Artist

from .. import estimation
from .. import sampling as sm
from .. import synthetic as syn
from ..acceptance import alpha_from_draft_acceptance_rate, alpha_from_mean_acceptance_length
from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..acceptance import acceptance_rate, accepted_tokens_pmf, expected_tokens
from ..plots.sampling import (
    TEMPERATURE_GRID,
    sampling_alpha_from_log,
    sampling_residual,
    sampling_temperature,
    temperature_curve,
)
from ._render import Blitter, table_html

__all__ = [
    "sampling_residual_explorer",
    "sampling_temperature_explorer",
    "sampling_log_explorer",
]


def _top(initial, needed):
    """Upper y limit: ``initial`` while the data fits, else ``needed`` rounded up to a tenth (at most 1.05)."""
    if needed <= initial * (1 + 1e-9):     # rounding noise must not move the limit (nor redraw the background)
        return initial
    return float(min(np.ceil(round(needed * 10, 9)) / 10, 1.05))


class _LegendText(Artist):
    """Stand-in that paints one legend label over the background.

    The label itself stays in its legend, fully transparent, so the legend
    (drawn once into the background) keeps its layout and the label keeps
    the position the legend gave it; this artist draws it opaque on top.
    """

    def __init__(self, text):
        super().__init__()
        self.text = text

    def draw(self, renderer):
        self.text.set_alpha(None)
        try:
            self.text.draw(renderer)
        finally:
            self.text.set_alpha(0.0)


class _Explorer(widgets.VBox):
    """Common plumbing: sliders -> compute() -> read-out + repaint of the changing artists."""

    def __init__(self, sliders, figure, dpi=72):
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = figure
        self.dpi = dpi
        self._start()
        self.values: dict = {}
        super().__init__([widgets.HBox(sliders), self.readout, self.image])
        for s in sliders:
            s.observe(lambda change: self.update(), names="value")
        self.update(draw=False)            # the figure was drawn at these values already
        self.image.value = self._blit.initial_png()

    def _start(self):
        """Draw the figure once (the first image) and collect the artists an update changes."""
        dynamic, self.legend_texts = self.artists()
        self._blit = Blitter(self.figure, self.dpi, dynamic=list(dynamic) + [_LegendText(t) for t in self.legend_texts])
        for text in self.legend_texts:     # after the first image: from now on they are painted on top
            text.set_alpha(0.0)

    def _png(self, key=None) -> bytes:
        """PNG over the cached background, redrawn when ``key`` changes or a changing label's length does.

        Only labels in legends not anchored on the left count: a legend
        anchored elsewhere moves when a label's width changes.
        """
        moving = [t for t in self.legend_texts if t.axes.get_legend()._loc not in (2, 3, 6)]
        return self._blit.png(key=(key, tuple(len(t.get_text()) for t in moving)))

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the values."""
        v = self.compute()
        self.readout.value = table_html(self.rows(v))
        if draw:
            self.image.value = self.draw(v)
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

    @staticmethod
    def _pq(mismatch, temperature):
        q = syn.interpolate_draft(syn.EXAMPLE_TARGET, syn.EXAMPLE_DRAFT, mismatch)
        return syn.temper_distribution(syn.EXAMPLE_TARGET, temperature), syn.temper_distribution(q, temperature)

    def compute(self) -> dict:
        p, q = self._pq(float(self.mismatch.value), float(self.temperature.value))
        alpha = acceptance_rate(p, q)
        return {"p": p, "q": q, "alpha": alpha, "residual": sm.residual_distribution(p, q),
                "expected_tokens": expected_tokens(alpha, self.k), "k": self.k}

    def rows(self, v):
        return [("acceptance rate alpha = sum(min(p, q))", f"{v['alpha']:.4f}"),
                ("rejection probability = TV(p, q)", f"{1 - v['alpha']:.4f}"),
                (f"E[L] at k = {v['k']} (if every position looked like this)", f"{v['expected_tokens']:.3f}")]

    def artists(self):
        ax0, ax1 = self.figure.axes
        self.tops = (ax0.get_ylim()[1], ax1.get_ylim()[1])
        bars = [patch for ax in (ax0, ax1) for container in ax.containers for patch in container]
        return bars + [ax0.lines[0], ax0.title, ax1.title], []

    def draw(self, v):
        ax0, ax1 = self.figure.axes
        p, q, alpha = v["p"], v["q"], v["alpha"]
        excess = sm.residual_distribution(p, q, normalize=False)
        for container, heights in zip(ax0.containers + ax1.containers, (p, q, v["residual"], excess)):
            for patch, h in zip(container, heights):
                patch.set_height(float(h))
        m = sm.accepted_mass(p, q)
        ax0.lines[0].set_ydata(np.r_[m, m[-1]])
        ax0.set_title(f"acceptance rate sum(min(p, q)) = {alpha:.2f}")
        ax1.set_title(f"replacement after a rejection (prob. {1 - alpha:.2f})")
        tops = (_top(self.tops[0], 1.05 * max(p.max(), q.max())), _top(self.tops[1], 1.05 * v["residual"].max()))
        ax0.set_ylim(0, tops[0])
        ax1.set_ylim(0, tops[1])
        return self._png(key=tops)


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

    def artists(self):
        ax = self.figure.axes[0]
        # lines in drawing order: peaked, peaked under-confident, flat, flat under-confident
        texts = ax.get_legend().get_texts()
        return [ax.lines[0], ax.lines[2]], [texts[0], texts[2]]

    def draw(self, v):
        ax = self.figure.axes[0]
        texts = ax.get_legend().get_texts()
        names = {"peaked": "peaked (code-like)", "flat": "flat (prose-like)"}
        for j, kind in ((0, "peaked"), (2, "flat")):
            label = f"{names[kind]}, draft noise {v['noise']:g}, sharpness {v['sharpness']:g}"
            ax.lines[j].set_ydata(v[kind + "_curve"])
            ax.lines[j].set_label(label)
            texts[j].set_text(label)
        return self._png()


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
        counts = estimation.simulate_accepted_counts(a, kk, n, np.random.default_rng(int(seed)))
        super().__init__([self.alpha, self.k, self.n_rounds, self.seed], sampling_alpha_from_log(counts, kk, a))

    def compute(self) -> dict:
        a, k, n = float(self.alpha.value), int(self.k.value), int(self.n_rounds.value)
        counts = estimation.simulate_accepted_counts(a, k, n, np.random.default_rng(int(self.seed.value)))
        reading = estimation.read_accepted_counts(counts, k)
        rate, length = reading.draft_acceptance_rate, reading.mean_acceptance_length
        return {"alpha_true": a, "k": k, "counts": counts, "estimate": estimation.estimate_alpha(counts, k),
                "draft_acceptance_rate": rate, "mean_acceptance_length": length,
                "alpha_from_rate": alpha_from_draft_acceptance_rate(rate, k),
                "alpha_from_length": alpha_from_mean_acceptance_length(length, k)}

    def rows(self, v):
        e = v["estimate"]
        return [("maximum-likelihood alpha (95% Wilson interval)", f"{e.alpha:.3f} [{e.low:.3f}, {e.high:.3f}]"),
                ("engine's draft acceptance rate (accepted / drafted)", f"{v['draft_acceptance_rate']:.3f}"),
                ("  -> alpha it implies", f"{v['alpha_from_rate']:.3f}"),
                ("engine's mean acceptance length (with bonus)", f"{v['mean_acceptance_length']:.3f}"),
                ("  -> alpha it implies", f"{v['alpha_from_length']:.3f}")]

    def artists(self):
        ax0, ax1 = self.figure.axes
        self.k_drawn = len(ax0.containers[0])
        self.top = ax0.get_ylim()[1]
        # legend entries are ordered lines first, then bars: find the two texts by their labels
        texts = ax0.get_legend().get_texts()
        self.count_text = next(t for t in texts if t.get_text().startswith("log:"))
        self.model_text = next(t for t in texts if t.get_text().startswith("model"))
        return (list(ax0.containers[0]) + [ax0.lines[0], ax0.title] + ax1.lines[-4:],
                [self.model_text] + ax1.get_legend().get_texts()[-3:])

    def draw(self, v):
        k, counts, est = v["k"], v["counts"], v["estimate"]
        if k + 1 != self.k_drawn:           # a new number of bars: draw the figure anew at these values
            sampling_alpha_from_log(counts, k, v["alpha_true"], axes=self.figure.axes)
            self.figure.set_layout_engine("constrained")    # new tick labels: lay the figure out again
            self._start()
            return self._blit.initial_png()
        ax0, ax1 = self.figure.axes
        freq = np.bincount(counts, minlength=k + 1) / counts.size
        pmf = accepted_tokens_pmf(est.alpha, k)
        for patch, h in zip(ax0.containers[0], freq):
            patch.set_height(float(h))
        ax0.lines[0].set_ydata(pmf)
        ax0.lines[0].set_label(f"model at alpha-hat = {est.alpha:.3f}")
        ax0.set_title(f"alpha-hat {est.alpha:.3f}, 95% interval [{est.low:.3f}, {est.high:.3f}]")
        self.count_text.set_text(f"log: {counts.size} rounds")
        self.model_text.set_text(ax0.lines[0].get_label())
        rate, implied, a = v["draft_acceptance_rate"], v["alpha_from_rate"], v["alpha_true"]
        marker, circle, link, truth = ax1.lines[-4:]
        marker.set_data([rate], [rate])
        circle.set_data([implied], [rate])
        link.set_data([rate, implied], [rate, rate])
        truth.set_xdata([a, a])
        labels = (f"log's accepted/drafted = {rate:.3f}", f"alpha it implies at k = {k}: {implied:.3f}",
                  f"true alpha {a:g}")
        texts = ax1.get_legend().get_texts()
        for line, text, label in zip((marker, circle, truth), texts[-3:], labels):
            line.set_label(label)
            text.set_text(label)
        top = _top(self.top, 1.05 * max(freq.max(), pmf.max()))
        ax0.set_ylim(0, top)
        return self._png(key=(top, counts.size))      # the log's size is in the background's legend


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

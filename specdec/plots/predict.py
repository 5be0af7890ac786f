"""Figures of predictions: published speedups against their predictions, and one predicted round (presentation only).

Every value drawn here comes from :mod:`specdec.predict` (the predictions
and their intervals) and the cited measurements passed in; nothing is
computed here but positions on the page.
"""

from __future__ import annotations

import numpy as np

from ..predict import Prediction
from ._style import COLORS, SEQUENCE, new_figure, nice_ceiling

__all__ = ["predicted_vs_measured", "round_against_plain"]


def predicted_vs_measured(measured, predicted, low, high, groups, *, band=0.10):
    """Measured speedups against predicted ones, each with its interval, by draft family.

    One point per row: x is the predicted speedup (the bar spans its
    interval), y the published measurement. The dashed line is
    ``measured = predicted``; the shaded band is ``band`` relative error
    either side of it.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    measured, predicted, low, high : array_like of float
        One entry per row, each > 0.
    groups : sequence of str
        The draft family of each row (one colour and marker per family).
    band : float, optional
        Relative error shaded around the diagonal, in [0, 1). Default 0.10.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from specdec.plots import predict as predict_plots
    >>> fig = predict_plots.predicted_vs_measured([2.0, 3.1], [2.1, 2.8], [1.9, 2.5], [2.3, 3.0], ["a", "b"])
    >>> fig.axes[0].get_xlabel()
    'predicted speedup (interval)'
    """
    y = np.asarray(measured, dtype=float)
    x = np.asarray(predicted, dtype=float)
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    groups = [str(g) for g in groups]
    if not (x.shape == y.shape == lo.shape == hi.shape == (len(groups),)) or x.size == 0:
        raise ValueError("measured, predicted, low, high and groups must have one entry per row (at least one)")
    if not (np.all(np.isfinite(np.concatenate([x, y, lo, hi]))) and np.all(np.concatenate([x, y, lo, hi]) > 0)):
        raise ValueError("measured, predicted, low and high must be finite and > 0")
    if not 0.0 <= float(band) < 1.0:
        raise ValueError(f"band must be in [0, 1); got {band!r}")
    fig, ax = new_figure(5.6, 4.8)
    top = 1.08 * float(max(y.max(), hi.max()))
    bottom = min(0.8, 0.9 * float(min(y.min(), lo.min())))
    grid = np.array([bottom, top])
    ax.fill_between(grid, grid * (1 - band), grid * (1 + band), color=COLORS["baseline"], alpha=0.15, lw=0,
                    label=f"within {band:.0%}")
    ax.plot(grid, grid, ls="--", color=COLORS["baseline"], lw=1, label="measured = predicted")
    markers = "osD^vP*X"
    for j, name in enumerate(dict.fromkeys(groups)):
        sel = np.array([g == name for g in groups])
        ax.errorbar(x[sel], y[sel], xerr=[x[sel] - lo[sel], hi[sel] - x[sel]], fmt=markers[j % len(markers)],
                    color=SEQUENCE[j % len(SEQUENCE)], ms=5, capsize=2, lw=1, label=name)
    ax.set_xlim(bottom, top)
    ax.set_ylim(bottom, top)
    ax.set_aspect("equal")
    ax.set_xlabel("predicted speedup (interval)")
    ax.set_ylabel("measured speedup (published)")
    ax.legend(loc="upper left", fontsize=7, frameon=False)
    ax.grid(alpha=0.25)
    return fig


def round_against_plain(prediction, ax=None):
    """One speculative round against plain decoding of the same tokens: the bars a prediction divides.

    The top bar is ``tau`` plain steps (``tau * T0``, the time plain decoding
    takes for the tokens one round yields); the bottom bar is the round,
    split into its draft passes, its verification pass and its overhead. The
    speedup is the ratio of the two lengths; the interval of the prediction
    is printed beside it.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    prediction : specdec.predict.Prediction
    ax : matplotlib.axes.Axes, optional
        Draw into this one (cleared first), as the chapter's explorer does.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec.plots import predict as predict_plots
    >>> p = sd.predict_speedup("llama-3.1-8b", "eagle3", tau=3.0, k=3, engine="sglang")
    >>> fig = predict_plots.round_against_plain(p)
    >>> fig.axes[0].get_xlabel()
    'time (ms)'
    """
    if not isinstance(prediction, Prediction):
        raise TypeError(f"prediction must be a specdec.predict.Prediction; got {type(prediction).__name__}")
    if ax is None:
        fig, ax = new_figure(7.0, 2.2)
    else:
        fig = ax.figure
        ax.clear()
    p = prediction
    plain = p.tau * p.t0 * 1e3
    parts = [("draft passes", p.t_draft * 1e3, COLORS["draft"]), ("verification", p.t_verify * 1e3, COLORS["verify"]),
             ("overhead", p.t_overhead * 1e3, COLORS["overhead"])]
    ax.barh(1, plain, color=COLORS["target"], height=0.55)
    ax.text(plain, 1, f"  {p.tau:.2f} x $T_0$ = {plain:.2f} ms", va="center", fontsize=8)
    left = 0.0
    for label, width, color in parts:
        ax.barh(0, width, left=left, color=color, height=0.55, label=label)
        left += width
    low, high = p.interval
    ax.text(left, 0, f"  {left:.2f} ms: {p.speedup:.2f}x [{low:.2f}, {high:.2f}]", va="center", fontsize=8)
    ax.set_yticks([1, 0], ["plain decoding,\n$\\tau$ tokens", "one speculative\nround"])
    ax.set_xlim(0, nice_ceiling(1.45 * max(plain, left)))
    ax.set_ylim(-0.6, 1.6)
    ax.set_xlabel("time (ms)")
    ax.legend(loc="upper right", fontsize=7, frameon=False, ncols=3)
    ax.grid(axis="x", alpha=0.25)
    return fig

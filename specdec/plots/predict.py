"""Figures of chapter "Predicting a published setup" (presentation only).

Every value drawn here comes from :mod:`specdec.predict` (the predictions
and their intervals) and the cited measurements passed in; nothing is
computed here but positions on the page.
"""

from __future__ import annotations

import numpy as np

from ._style import COLORS, SEQUENCE, new_figure

__all__ = ["predicted_vs_measured"]


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

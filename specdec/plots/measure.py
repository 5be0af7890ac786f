"""Figures for "Measure your machine": the matrix-product roofline, predicted and measured.

Presentation only: every number drawn comes from :mod:`specdec.roofline.measure`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

from specdec.roofline.hardware import Hardware
from specdec.roofline.measure import BOUND_TOLERANCE, MatmulMeasurement, matmul_knee, predict_matmul_time

from .._validate import check_instance, check_integer, check_positive
from ._style import COLORS, new_figure

__all__ = ["matmul_prediction", "matmul_measurement"]


def _plain_log(ax):
    """A log y axis labelled with plain numbers (0.5, 1, 2) rather than powers of ten."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _panels(axes, height=3.6):
    if axes is None:
        return new_figure(9.0, height, ncols=2)
    axes = list(axes)
    for ax in axes:
        ax.clear()
    return axes[0].figure, axes


def matmul_prediction(d, hardware, bytes_per_elem=4, t_max=64, axes=None):
    """The roofline prediction of a ``(d x d) @ (d x t)`` product against ``t``, knee marked.

    Left: milliseconds per product (:func:`specdec.roofline.measure.predict_matmul_time`),
    flat while the weight read dominates, rising past the knee
    (:func:`specdec.roofline.measure.matmul_knee`, dotted). Right: milliseconds per
    token, which falls like ``1/t`` up to the knee and then levels off.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int
        Weight matrix size, >= 1.
    hardware : specdec.roofline.hardware.Hardware
    bytes_per_elem : float, optional
        Bytes per number, > 0. Default 4 (float32).
    t_max : int, optional
        Largest token count drawn, in [2, 4096]. Default 64.
    axes : pair of matplotlib Axes, optional
        Draw into these (cleared first).

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_instance(hardware, Hardware, "hardware")
    dd = int(check_integer(d, "d", minimum=1))
    b = float(check_positive(bytes_per_elem, "bytes_per_elem", "(bytes)"))
    tm = int(check_integer(t_max, "t_max", minimum=2, maximum=4096))
    fig, (ax1, ax2) = _panels(axes)
    t = np.arange(1, tm + 1)
    pred = np.asarray(predict_matmul_time(dd, t, hardware, b)) * 1e3
    knee = float(matmul_knee(dd, hardware, b))
    for ax, y, ylabel in ((ax1, pred, "ms per product"), (ax2, pred / t, "ms per token (per product / t)")):
        ax.plot(t, y, color=COLORS["target"], lw=2, label="roofline prediction")
        if np.isfinite(knee) and knee <= tm:
            ax.axvline(knee, color=COLORS["baseline"], ls=":", lw=1.2, label=f"knee ({knee:.1f} tokens)")
        ax.set_xlabel("tokens t multiplied at once")
        ax.set_ylabel(ylabel)
    ax1.set_ylim(bottom=0)
    _plain_log(ax2)
    ax1.legend(fontsize=9, loc="upper left")
    name = hardware.name or "this hardware"
    ax1.set_title(f"{dd} x {dd} weights, {b:g} bytes per number", fontsize=10)
    ax2.set_title(f"{name}: {hardware.bandwidth / 1e9:.0f} GB/s, {hardware.flops / 1e9:.0f} GFLOP/s", fontsize=10)
    return fig


def matmul_measurement(measurement, tolerance=BOUND_TOLERANCE, axes=None):
    """A measurement beside its roofline prediction, with the bound's tolerance and the fitted knee.

    Left: measured milliseconds per product (the matrix-vector product
    ``t = 1`` as a square, the matrix-matrix products as dots), the
    prediction (line), ``(1 - tolerance)`` times the prediction (dashed:
    a point below it beats the bound, see
    :meth:`specdec.roofline.measure.MatmulMeasurement.check`), the fit
    ``max(T_flat, s t)`` to the matrix-matrix points (thin) and both knees.
    Right: the same per token.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    measurement : specdec.roofline.measure.MatmulMeasurement
    tolerance : float, optional
        As in :meth:`specdec.roofline.measure.MatmulMeasurement.check`.
    axes : pair of matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    m = check_instance(measurement, MatmulMeasurement, "measurement")
    check = m.check(tolerance)
    fig, (ax1, ax2) = _panels(axes, height=4.3)
    t = np.asarray(m.tokens, dtype=float)
    tt = np.arange(1, int(t.max()) + 1)
    pred = np.asarray(predict_matmul_time(m.d, tt, m.hardware, m.bytes_per_elem)) * 1e3
    t_flat, slope, knee_fit = m.measured_fit
    fit_t = np.arange(int(check.fit_range[0]), int(check.fit_range[1]) + 1)
    fit = np.maximum(t_flat, slope * fit_t) * 1e3
    seconds = np.asarray(m.seconds) * 1e3
    vector = t == 1
    for ax, div, div_fit, ylabel in ((ax1, 1.0, 1.0, "ms per product"),
                                     (ax2, tt, fit_t, "ms per token (per product / t)")):
        ax.plot(tt, pred / div, color=COLORS["target"], lw=2, label="roofline prediction")
        ax.plot(tt, (1 - check.tolerance) * pred / div, color=COLORS["target"], lw=1, ls="--",
                label=f"{1 - check.tolerance:.0%} of the prediction")
        ax.plot(fit_t, fit / div_fit, color=COLORS["accent"], lw=1, alpha=0.7, label="fit to t >= 2")
        per = t if ax is ax2 else 1.0
        ax.plot(t[~vector], (seconds / per)[~vector], "o", color=COLORS["accent"], label="measured, t >= 2")
        if vector.any():
            ax.plot(t[vector], (seconds / per)[vector], "s", color=COLORS["draft"], ms=7,
                    label="measured, t = 1 (matrix-vector)")
        if np.isfinite(check.knee_predicted) and check.knee_predicted <= t.max():
            ax.axvline(check.knee_predicted, color=COLORS["target"], ls=":", lw=1.2,
                       label=f"predicted knee ({check.knee_predicted:.1f})")
        if check.flat_then_rising:
            ax.axvline(knee_fit, color=COLORS["accent"], ls="-.", lw=1.2, label=f"fitted knee ({knee_fit:.1f})")
        ax.set_xlabel("tokens t multiplied at once")
        ax.set_ylabel(ylabel)
    ax1.set_ylim(bottom=0)
    _plain_log(ax2)
    if axes is None:
        fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center", ncols=4, fontsize=8)
    else:
        ax1.legend(fontsize=8, loc="upper left")
    threads = f", {m.threads} threads" if m.threads else ""
    ax1.set_title(f"{m.d} x {m.d} {m.dtype} weights ({m.weight_bytes / 2**20:.0f} MiB){threads}", fontsize=10)
    ax2.set_title(f"read {m.hardware.bandwidth / 1e9:.1f} GB/s, peak {m.hardware.flops / 1e9:.0f} GFLOP/s",
                  fontsize=10)
    return fig

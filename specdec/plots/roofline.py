"""Figures of the roofline: one forward pass on a GPU, the cost of verifying on it, memory, and measuring a machine.

Presentation only: every number drawn comes from :mod:`specdec.roofline.hardware`,
:mod:`specdec.roofline.memory`, :mod:`specdec.roofline.measure` and
:mod:`specdec.serving.deployment`.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter, ScalarFormatter

from specdec.economics import WORKED_EXAMPLE
from specdec.roofline import hardware as hw
from specdec.roofline.hardware import Hardware, arithmetic_intensity, ridge_batch, step_flops, step_time, verify_cost
from specdec.roofline.measure import BOUND_TOLERANCE, MatmulMeasurement, matmul_knee, predict_matmul_time
from specdec.roofline.memory import max_concurrent_sequences
from specdec.serving.deployment import break_even_batch, speculative_costs, speculative_speedup

from .._validate import check_instance, check_integer, check_positive, check_probability
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, batch_axis, new_figure

__all__ = [
    "roofline_diagram",
    "roofline_verify_cost_vs_k",
    "roofline_speedup_vs_batch",
    "roofline_latency_throughput",
    "roofline_concurrency",
    "roofline_overview",
    "RooflineView",
    "roofline_speedup_in_memory",
    "verify_cost_overview",
    "sampling_wasted_arithmetic",
    "matmul_prediction",
    "matmul_measurement",
    "matmul_measured_vs_predicted",
]


def _fresh(axes, ncols, width, height):
    if axes is None:
        fig, axes = new_figure(width, height, ncols=ncols)
        return fig, (np.atleast_1d(axes) if ncols > 1 else axes)
    axes = np.atleast_1d(axes) if ncols > 1 else (axes[0] if isinstance(axes, (list, tuple, np.ndarray)) else axes)
    for ax in np.atleast_1d(axes):
        ax.clear()
    return np.atleast_1d(axes)[0].figure, axes


def _label(obj, fallback):
    return obj.name or fallback


def roofline_diagram(model, hardware, batches=(1, 16, 64, 256, 1024), k=5, axes=None):
    """The roofline of ``hardware`` with decode and verification passes of ``model`` on it.

    Attainable FLOP/s ``min(F, I * BW)`` against arithmetic intensity ``I``
    (log-log). Circles: plain decode steps at each batch; squares: the
    verification pass over ``k + 1`` tokens at the same batches (context 0).

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    batches : sequence of int, optional
        Batches to mark.
    k : int, optional
        Drafts per round for the verification markers.
    axes : matplotlib Axes, optional
        Draw into these (cleared) instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    b = check_integer(batches, "batches", minimum=1)
    kk = int(check_integer(k, "k", minimum=1))
    fig, ax = _fresh(axes, 1, 6.4, 4.2)
    ridge_i = hardware.flops / hardware.bandwidth
    intensity = np.geomspace(0.5, ridge_i * 30, 200)
    ax.loglog(intensity, np.minimum(hardware.flops, intensity * hardware.bandwidth) / 1e12,
              color=COLORS["baseline"], lw=2, label="roofline: min(F, I x BW)")
    ax.axvline(ridge_i, color=COLORS["baseline"], ls=":", lw=1)
    ax.annotate(f"ridge: {ridge_i:.0f} FLOP/byte", (ridge_i, hardware.flops / 1e12 / 300), rotation=90,
                ha="right", va="bottom", fontsize=8, color=COLORS["baseline"])
    for n, color, marker, name in ((1, COLORS["target"], "o", "decode step"),
                                    (kk + 1, COLORS["verify"], "s", f"verification, k = {kk}")):
        i = np.asarray(arithmetic_intensity(model, b, 0, n))
        achieved = np.asarray(step_flops(model, b, 0, n)) / np.asarray(step_time(model, hardware, b, 0, n))
        ax.loglog(i, achieved / 1e12, marker=marker, ls="none", color=color, label=name, ms=6)
        if n == 1:
            for bi, ii, aa in zip(b, i, achieved, strict=False):
                ax.annotate(f"B={bi}", (ii, aa / 1e12), textcoords="offset points", xytext=(4, -11), fontsize=7)
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
    ax.set_ylabel("attained TFLOP/s")
    ax.set_title(f"{_label(model, 'model')} on {_label(hardware, 'hardware')}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def roofline_verify_cost_vs_k(model, hardware, batches=(1, 16, 64, 128, 256), k_max=10, context=0,
                              rule_of_thumb=True, axes=None):
    """``c_verify = T_verify / T0`` against ``k`` for several batches, with ``k + 1`` for reference.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    batches : sequence of int, optional
        One line per batch.
    k_max : int, optional
        Largest ``k`` drawn, >= 1.
    context : int, optional
        Cached tokens per sequence.
    rule_of_thumb : bool, optional
        Shade the first source's "1.0-1.5 x T0 for k <= 5" band.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    b = check_integer(batches, "batches", minimum=1)
    km = int(check_integer(k_max, "k_max", minimum=1, maximum=256))
    fig, ax = _fresh(axes, 1, 6.4, 4.0)
    ks = np.arange(1, km + 1)
    cv = np.asarray(verify_cost(model, hardware, ks[None, :], b[:, None], context))
    ax.plot(ks, ks + 1, color=COLORS["baseline"], ls="--", lw=1, label="k + 1 (no amortization)")
    if rule_of_thumb:
        ax.fill_between([1, min(5, km)], 1.0, 1.5, color=COLORS["neutral"], alpha=0.25,
                        label="source: 1.0-1.5 for k <= 5, batch 1")
    for i, (bi, row) in enumerate(zip(b, cv, strict=False)):
        ax.plot(ks, row, marker="o", ms=3, color=SEQUENCE[i % len(SEQUENCE)], label=f"batch {bi}")
    ax.set_xlabel("k (draft tokens verified per round)")
    ax.set_ylabel("c_verify = T_verify / T0")
    ax.set_ylim(0.8, km + 1.5)
    ax.set_title(f"{_label(model, 'model')} on {_label(hardware, 'hardware')}, context {context}", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def roofline_speedup_vs_batch(target, draft, hardware, alpha=0.8, k=5, contexts=(0, 1024, 8192), batch_max=512,
                              axes=None):
    """Speculation's roofline speedup against batch, one line per context, break-even batches marked.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float, optional
        Acceptance rate.
    k : int, optional
        Drafts per round.
    contexts : sequence of int, optional
        One line per context length.
    batch_max : int, optional
        Largest batch drawn.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1))
    ctx = check_integer(contexts, "contexts", minimum=0)
    bm = int(check_integer(batch_max, "batch_max", minimum=2, maximum=100_000))
    fig, ax = _fresh(axes, 1, 6.4, 4.0)
    batch = np.arange(1, bm + 1)
    s = np.asarray(speculative_speedup(target, draft, hardware, a, kk, batch[None, :], ctx[:, None]))
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    for i, (c, row) in enumerate(zip(ctx, s, strict=False)):
        color = SEQUENCE[i % len(SEQUENCE)]
        ax.plot(batch, row, color=color, label=f"context {c}")
        be = break_even_batch(target, draft, hardware, a, kk, int(c), batch_max=bm)
        if np.isfinite(be):
            ax.plot([be], [1.0], marker="v", color=color, ms=8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch (concurrent sequences)")
    ax.set_ylabel("speedup (roofline)")
    ax.set_title(f"{_label(target, 'target')} + {_label(draft, 'draft')} on {_label(hardware, 'hardware')}, "
                 f"alpha {a:g}, k {kk}", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def roofline_latency_throughput(target, draft, hardware, alpha=0.8, k=5, context=512, batch_max=4096, axes=None):
    """Per-token latency against throughput as the batch grows, with and without speculation.

    Each curve is traced by the batch from 1 upward and stops where the
    sequences' KV cache (and the draft) no longer fit in memory.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float, optional
    k : int, optional
    context : int, optional
        Cached tokens per sequence.
    batch_max : int, optional
        Largest batch considered.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    bm = int(check_integer(batch_max, "batch_max", minimum=2, maximum=100_000))
    fig, ax = _fresh(axes, 1, 6.4, 4.2)
    batch = np.arange(1, bm + 1)
    r = speculative_costs(target, draft, hardware, alpha, k, batch, context)
    for thr, lat, fits, color, name in (
            (r.throughput_baseline, r.latency_baseline, r.fits_baseline, COLORS["target"], "plain decoding"),
            (r.throughput_speculative, r.latency_speculative, r.fits, COLORS["draft"], "speculative")):
        ax.plot(thr[fits], lat[fits] * 1e3, color=color, label=name)
        last = np.nonzero(fits)[0]
        if last.size:
            j = last[-1]
            ax.plot([thr[j]], [lat[j] * 1e3], marker="o", color=color)
            ax.annotate(f"B={int(batch[j])}", (thr[j], lat[j] * 1e3), textcoords="offset points",
                        xytext=(-6, 0), fontsize=7, color=color, ha="right", va="center")
        for bi in (1, 64):
            if bi <= bm and fits[bi - 1]:
                ax.plot([thr[bi - 1]], [lat[bi - 1] * 1e3], marker=".", color=color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.margins(y=0.15)
    ax.set_xlabel("throughput per replica (tokens/s)")
    ax.set_ylabel("latency per output token (ms)")
    ax.set_title(f"context {context}: curves end where memory is full (alpha {float(alpha):g}, k {int(k)})",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def roofline_concurrency(target, hardware, draft=None, k=5, contexts=(512, 1024, 2048, 4096, 8192, 16384, 32768),
                         extra_bytes=0.0, axes=None):
    """Sequences that fit in memory against context, without and with a draft.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    draft : specdec.roofline.hardware.Model, optional
    k : int, optional
        Candidate KV slots per sequence with speculation.
    contexts : sequence of int, optional
    extra_bytes : float, optional
        Other reserved memory with speculation (e.g. heads).
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    ctx = check_integer(contexts, "contexts", minimum=1)
    fig, ax = _fresh(axes, 1, 6.4, 3.8)
    base = np.asarray(max_concurrent_sequences(target, hardware, ctx))
    spec = np.asarray(max_concurrent_sequences(target, hardware, ctx, draft=draft, extra_bytes=extra_bytes, k=k))
    ax.plot(ctx, base, marker="o", color=COLORS["target"], label="target only")
    name = f"with {_label(draft, 'draft')} draft, k = {int(k)}" if draft is not None else f"with speculation, k = {int(k)}"
    ax.plot(ctx, spec, marker="s", color=COLORS["draft"], label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("context (tokens per sequence)")
    ax.set_ylabel("concurrent sequences that fit")
    ax.set_title(f"{_label(target, 'target')} on {_label(hardware, 'hardware')}", fontsize=10)
    ax.legend(fontsize=8)
    return fig


class RooflineView:
    """The two panels of :func:`roofline_overview`, updatable in place for the chapter's explorer.

    Left: ``c_verify`` against ``k`` at the chosen batch and context, with
    ``k + 1`` for reference and the chosen ``k`` ringed. Right: the
    roofline speedup against batch at the chosen context, the chosen batch
    ringed and the ridge point dotted. :meth:`update` moves the curves,
    rings and titles (:attr:`dynamic_artists`) and returns the key of the
    rest (the right panel's title and axes).

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft, hardware, alpha, k, batch, context, k_max, batch_max, axes
        As in :func:`roofline_overview`.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> view = sd.plots.RooflineView(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8))
    >>> key = view.update(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 64, 4096, keep_ylim=True)
    >>> view.left_title.get_text()
    'verification cost: batch 64, context 4096'
    """

    def __init__(self, target, draft, hardware, alpha=0.8, k=5, batch=1, context=0, k_max=10, batch_max=512,
                 axes=None):
        self.k_max = int(check_integer(k_max, "k_max", minimum=max(int(k), 1), maximum=64))
        self.batch_max = int(check_integer(batch_max, "batch_max", minimum=2, maximum=100_000))
        self.figure, (ax1, ax2) = _fresh(axes, 2, CONTENT_WIDTH, 3.3)
        self.left, self.right = ax1, ax2
        self.ks = np.arange(1, self.k_max + 1)
        ax1.plot(self.ks, self.ks + 1, color=COLORS["baseline"], ls="--", lw=1, label="k + 1")
        (self.cv,) = ax1.plot(self.ks, self.ks + 1.0, marker="o", ms=3, color=COLORS["verify"],
                              label="c_verify at this batch")
        (self.ring,) = ax1.plot([1], [1.0], marker="o", ms=9, mfc="none", color=COLORS["accent"])
        ax1.set_ylim(0.8, self.k_max + 1.5)
        ax1.set_xlabel("k")
        ax1.set_ylabel("T_verify / T0")
        self.left_title = ax1.set_title(" ", fontsize=9)
        ax1.legend(fontsize=8, loc="upper left")
        ax2.axhline(1.0, color=COLORS["baseline"], lw=1)
        self.ridge = ax2.axvline(1.0, color=COLORS["baseline"], ls=":", lw=1)
        (self.speed,) = ax2.plot([1, 2], [1, 1], color=COLORS["draft"], label="speedup at this alpha and k")
        (self.here,) = ax2.plot([1], [1.0], marker="o", ms=9, mfc="none", color=COLORS["accent"])
        ax2.set_xscale("log", base=2)
        ax2.set_xlabel("batch (dotted: ridge point)")
        ax2.set_ylabel("speedup")
        ax2.legend(fontsize=8, loc="lower left")
        self.batches = None
        self.update(target, draft, hardware, alpha, k, batch, context)

    @property
    def dynamic_artists(self) -> list:
        """The curves, rings, ridge line and left title (everything else depends on the key of :meth:`update`)."""
        return [self.cv, self.ring, self.left_title, self.ridge, self.speed, self.here]

    def update(self, target, draft, hardware, alpha, k, batch, context, keep_ylim=False):
        """Move the figure to new values; return the key of the rest (right title, batch axis, y limit).

        With ``keep_ylim`` the right panel's y limit is the top of the curve
        rounded up to a quarter, so nearby values share one background and
        the limit depends on the values only, not on the way they were reached.
        """
        a = float(check_probability(alpha, "alpha"))
        kk = int(check_integer(k, "k", minimum=1, maximum=self.k_max))
        b = int(check_integer(batch, "batch", minimum=1))
        c = int(check_integer(context, "context", minimum=0))
        bm = max(self.batch_max, b)
        if self.batches is None or self.batches[-1] != bm:
            self.batches = np.unique(np.geomspace(1, bm, 160).astype(int))
        cv = np.asarray(verify_cost(target, hardware, self.ks, b, c))
        self.cv.set_ydata(cv)
        self.ring.set_data([kk], [cv[kk - 1]])
        self.left_title.set_text(f"verification cost: batch {b}, context {c}")
        s = np.asarray(speculative_speedup(target, draft, hardware, a, kk, self.batches, c))
        s_here = float(speculative_speedup(target, draft, hardware, a, kk, b, c))
        rb = ridge_batch(target, hardware)
        self.ridge.set_xdata([rb, rb])
        self.speed.set_data(self.batches, s)
        self.here.set_data([b], [s_here])
        top = max(float(s.max()), s_here) * 1.1
        self.right.set_ylim(0, math.ceil(top * 4) / 4 if keep_ylim else top)
        self.right.set_xlim(1, bm)
        self.right.set_title(f"{_label(target, 'target')} + {_label(draft, 'draft')}\non "
                             f"{_label(hardware, 'hardware')}", fontsize=9)
        return (self.right.get_title(), bm, self.right.get_ylim())


def roofline_overview(target, draft, hardware, alpha=0.8, k=5, batch=1, context=0, k_max=10, batch_max=512,
                      axes=None):
    """Two panels for the explorer: ``c_verify`` against ``k`` and speedup against batch.

    Left: ``c_verify`` for ``k = 1 .. k_max`` at ``batch`` and ``context``,
    with ``k + 1`` for reference and the chosen ``k`` marked. Right: the
    roofline speedup against batch at ``context``, with the chosen batch
    marked and 1 drawn. The chapter's explorer moves it in place
    (:class:`RooflineView`).

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float, optional
    k : int, optional
    batch : int, optional
    context : int, optional
    k_max : int, optional
    batch_max : int, optional
    axes : sequence of two matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    return RooflineView(target, draft, hardware, alpha, k, batch, context, k_max, batch_max, axes).figure


def matmul_measured_vs_predicted(measurement, axes=None):
    """Measured time per matrix product against tokens, beside the roofline prediction.

    Left: seconds per ``(d x d) @ (d x t)`` product, measured (dots) and
    predicted from the machine's measured bandwidth and FLOP/s (line), with
    the predicted knee dotted. Right: the same divided by ``t``, time per
    token, which falls while the weight read is shared and levels off past
    the knee.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    measurement : specdec.roofline.measure.MatmulMeasurement
    axes : sequence of two matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    m = measurement
    fig, (ax1, ax2) = _fresh(axes, 2, CONTENT_WIDTH, 3.2)
    t = np.asarray(m.tokens, dtype=float)
    tt = np.arange(1, int(t.max()) + 1)
    from specdec.roofline.measure import predict_matmul_time  # local: plots may import formulas, not the reverse
    pred = np.asarray(predict_matmul_time(m.d, tt, m.hardware, m.bytes_per_elem))
    knee = m.predicted_knee
    for ax, div_meas, div_pred, ylabel in ((ax1, 1.0, 1.0, "ms per product"),
                                           (ax2, t, tt, "ms per token (per product / t)")):
        ax.plot(tt, pred / div_pred * 1e3, color=COLORS["baseline"], label="roofline prediction")
        ax.plot(t, m.seconds / div_meas * 1e3, marker="o", ls="-", lw=0.8, color=COLORS["accent"],
                label="measured (median)")
        if np.isfinite(knee) and knee <= t.max():
            ax.axvline(knee, color=COLORS["baseline"], ls=":", lw=1, label=f"predicted knee ({knee:.0f} tokens)")
        ax.set_xlabel("tokens t multiplied at once")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
    ax2.set_yscale("log")
    ax2.relim()
    ax2.autoscale()
    ax1.legend(fontsize=8, loc="upper left")
    ax1.set_title(f"{m.d} x {m.d} {m.dtype} weights", fontsize=9)
    ax2.set_title(f"{m.hardware.name}", fontsize=9)
    return fig


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
        fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center", ncols=3, fontsize=8)
    else:
        ax1.legend(fontsize=8, loc="upper left")
    threads = f", {m.threads} threads" if m.threads else ""
    # two short lines each: one line of a large d, a long dtype and many threads is wider than a panel
    ax1.set_title(f"{m.d} x {m.d} {m.dtype} weights\n{m.weight_bytes / 2**20:.0f} MiB{threads}", fontsize=10)
    ax2.set_title(f"read {m.hardware.bandwidth / 1e9:.1f} GB/s\npeak {m.hardware.flops / 1e9:.0f} GFLOP/s",
                  fontsize=10)
    return fig


def roofline_speedup_in_memory(target, draft, hardware, alpha=0.8, k=5, contexts=(0, 1024, 8192), batch_max=512,
                               axes=None):
    """Roofline speedup against batch, solid while the batch fits in memory with the draft, dotted beyond.

    One line per context. A triangle marks the first batch with speedup
    below 1 (:func:`specdec.serving.deployment.break_even_batch`) when that batch
    fits; a cross marks the largest batch that fits with the draft's weights,
    its KV cache and ``k`` candidate slots per sequence
    (:func:`specdec.roofline.memory.max_concurrent_sequences`, context at least 1).

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float, optional
        Acceptance rate in [0, 1].
    k : int, optional
        Drafts per round, >= 1.
    contexts : sequence of int, optional
        One line per context length, each >= 0.
    batch_max : int, optional
        Largest batch drawn, in [2, 100000].
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1))
    ctx = check_integer(contexts, "contexts", minimum=0)
    bm = int(check_integer(batch_max, "batch_max", minimum=2, maximum=100_000))
    if axes is None:
        fig, ax = new_figure(6.4, 4.0)
    else:
        ax = axes
        ax.clear()
        fig = ax.figure
    batch = np.arange(1, bm + 1)
    s = np.asarray(speculative_speedup(target, draft, hardware, a, kk, batch[None, :], ctx[:, None]))
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    for i, (c, row) in enumerate(zip(ctx, s, strict=False)):
        color = SEQUENCE[i % len(SEQUENCE)]
        fits = int(max_concurrent_sequences(target, hardware, max(int(c), 1), draft=draft, k=kk))
        inside = batch <= fits
        label = f"context {c}" + (f" (fits up to batch {fits})" if fits < bm else "")
        ax.plot(batch[inside], row[inside], color=color, lw=2, label=label)
        if (~inside).any():
            ax.plot(batch[~inside], row[~inside], color=color, lw=1, ls=":")
            ax.plot([fits], [row[fits - 1]], marker="x", color=color, ms=9, mew=2)
        be = break_even_batch(target, draft, hardware, a, kk, int(c), batch_max=bm)
        if np.isfinite(be) and be <= fits:
            ax.plot([be], [1.0], marker="v", color=color, ms=8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch (concurrent sequences)")
    ax.set_ylabel("speedup (ideal roofline, lower bound)" if hardware.is_ideal else "speedup (calibrated roofline)")
    name = lambda m, fallback: m.name or fallback  # noqa: E731
    ax.set_title(f"{name(target, 'target')} + {name(draft, 'draft')} on {name(hardware, 'hardware')}, "
                 f"alpha {a:g}, k {kk}", fontsize=9)
    ax.legend(fontsize=8)
    return fig


# the cost of verifying k + 1 tokens, and of a decode step's idle arithmetic
def verify_cost_overview(target, hardware, k_max=10, batches=(1, 32, 64, 128, 256), contexts=(0, 4096, 32768),
                         k_fixed=5, batch_max=512, rule=(1.0, 1.5),
                         source_point=(WORKED_EXAMPLE.value["k"], WORKED_EXAMPLE.value["t_verify"] / WORKED_EXAMPLE.value["t0"]),
                         extra_batch=None, context=0, axes=None, dynamic=False):
    """Two panels: ``c_verify`` against ``k`` for several batches, and against batch at one ``k``.

    Left: :func:`specdec.roofline.hardware.verify_cost` for ``k = 1 .. k_max`` at
    each batch in ``batches`` (context ``context``), the source's rule of
    thumb as a band over ``k <= 5`` and the ceiling ``k + 1``; the source's
    worked example (``T_verify / T0 = 6.0 / 5.2`` at ``k = 5``) as a star.
    Right: ``c_verify`` at ``k_fixed`` against batch for each context.

    Defined in chapter "Why verification is not free".

    Parameters
    ----------
    target : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    k_max : int, optional
        Largest ``k`` on the left panel.
    batches : sequence of int, optional
        Batches drawn on the left panel.
    contexts : sequence of int, optional
        Contexts drawn on the right panel.
    k_fixed : int, optional
        ``k`` of the right panel.
    batch_max : int, optional
        Largest batch on the right panel.
    rule : (float, float), optional
        The rule-of-thumb band (source: 1.0 to 1.5).
    source_point : (int, float) or None, optional
        A measured ``(k, c_verify)`` to mark.
    extra_batch : int, optional
        One more batch drawn in black on the left (used by the explorer).
    context : int, optional
        Context of the left panel's curves.
    axes : pair of matplotlib Axes, optional
        Draw into these (cleared first) instead of a new figure.
    dynamic : bool, optional
        Titles and labels that do not name slider values (for the explorer,
        which redraws only the curves; they carry ``gid`` tags).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.verify_cost_overview(sd.hardware.LLAMA_70B, sd.hardware.H100.scaled(8))
    >>> len(fig.axes)
    2
    """
    if axes is None:
        fig, axes = new_figure(CONTENT_WIDTH, 3.8, ncols=2)
    else:
        fig = axes[0].figure
        for ax in axes:
            ax.clear()
    left, right = axes
    ks = np.arange(1, int(k_max) + 1)
    left.fill_between([1, 5], rule[0], rule[1], color=SEQUENCE[5], alpha=0.25, lw=0,
                      label=f"source's rule of thumb ({rule[0]:g} to {rule[1]:g} T0, k <= 5)")
    left.plot(ks, ks + 1, color=COLORS["baseline"], ls="--", lw=1, label="ceiling k + 1")
    for i, b in enumerate(batches):
        cv = hw.verify_cost(target, hardware, ks, batch=int(b), context=int(context))
        left.plot(ks, cv, marker="o", ms=3, color=SEQUENCE[i % len(SEQUENCE)], label=f"batch {b}", gid=f"batch-{b}")
    if extra_batch is not None:
        cv = hw.verify_cost(target, hardware, ks, batch=int(extra_batch), context=int(context))
        label = "your batch (slider)" if dynamic else f"your batch {extra_batch}"
        left.plot(ks, cv, marker="s", ms=4, color="black", lw=2, label=label, gid="extra")
    if source_point is not None:
        left.plot([source_point[0]], [source_point[1]], "*", ms=12, color=COLORS["accent"],
                  label="source's worked example")
    left.set_xlabel("draft tokens per round, k")
    left.set_ylabel(r"$c_v = T_\mathrm{verify} / T_0$")
    ctx_text = ", context from the slider" if dynamic else (f", context {context:,}" if context else "")
    left.set_title(f"{target.name} on {hardware.name}{ctx_text}", fontsize=9)
    left.set_xlim(1, k_max)
    left.set_ylim(0.8, k_max + 1.5)
    left.legend(fontsize=7, frameon=False, loc="upper left")

    bs = np.unique(np.round(np.geomspace(1, batch_max, 200)).astype(int))
    for i, c in enumerate(contexts):
        cv = hw.verify_cost(target, hardware, k_fixed, batch=bs, context=int(c))
        right.plot(bs, cv, color=SEQUENCE[i % len(SEQUENCE)], lw=2, label=f"context {c:,}", gid=f"context-{c}")
    right.axhspan(rule[0], rule[1], color=SEQUENCE[5], alpha=0.25, lw=0)
    right.axhline(k_fixed + 1, color=COLORS["baseline"], ls="--", lw=1, gid="ceiling")
    right.set_ylim(0.8, k_max + 1.5)
    batch_axis(right, batch_max)
    right.set_xlabel("batch (concurrent sequences)")
    right.set_ylabel(r"$c_v$ at the chosen k" if dynamic else rf"$c_v$ at k = {k_fixed}")
    right.set_title("c_v against batch at the slider's k\n(dashed: k + 1)" if dynamic
                    else f"c_v against batch at k = {k_fixed} (dashed: k + 1)", fontsize=9)
    right.legend(fontsize=7, frameon=False, loc="upper left")
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

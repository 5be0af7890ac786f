"""Figures for "The roofline model" and "Measure your machine".

Presentation only: every number drawn comes from :mod:`specdec.roofline.hardware`,
:mod:`specdec.roofline.memory`, :mod:`specdec.serving.deployment` and :mod:`specdec.roofline.measure`.
"""

from __future__ import annotations

import math

import numpy as np

from specdec.roofline.hardware import arithmetic_intensity, ridge_batch, step_flops, step_time, verify_cost
from specdec.roofline.memory import max_concurrent_sequences
from specdec.serving.deployment import break_even_batch, speculative_costs, speculative_speedup

from .._validate import check_integer, check_probability
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure

__all__ = [
    "roofline_diagram",
    "roofline_verify_cost_vs_k",
    "roofline_speedup_vs_batch",
    "roofline_latency_throughput",
    "roofline_concurrency",
    "roofline_overview",
    "RooflineView",
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

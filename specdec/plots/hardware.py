"""Figures for "The roofline model: where $c_d$ and $c_v$ come from" and "Measure your machine".

Presentation only: every number drawn comes from :mod:`specdec.hardware`,
:mod:`specdec.memory`, :mod:`specdec.deployment` and :mod:`specdec.measure`.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_integer, check_probability
from ..deployment import break_even_batch, speculative_costs, speculative_speedup
from ..hardware import arithmetic_intensity, ridge_batch, step_flops, step_time, verify_cost
from ..memory import max_concurrent_sequences
from ._style import COLORS, SEQUENCE, new_figure

__all__ = [
    "roofline_diagram",
    "roofline_verify_cost_vs_k",
    "roofline_speedup_vs_batch",
    "roofline_latency_throughput",
    "roofline_concurrency",
    "roofline_overview",
    "roofline_overview_artists",
    "roofline_overview_update",
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

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    model : specdec.hardware.Model
    hardware : specdec.hardware.Hardware
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
    ax.annotate(f"ridge: {ridge_i:.0f} FLOP/byte", (ridge_i, hardware.flops / 1e12 / 30), rotation=90,
                ha="right", va="bottom", fontsize=8, color=COLORS["baseline"])
    for n, color, marker, name in ((1, COLORS["target"], "o", "decode step"),
                                    (kk + 1, COLORS["verify"], "s", f"verification, k = {kk}")):
        i = np.asarray(arithmetic_intensity(model, b, 0, n))
        achieved = np.asarray(step_flops(model, b, 0, n)) / np.asarray(step_time(model, hardware, b, 0, n))
        ax.loglog(i, achieved / 1e12, marker=marker, ls="none", color=color, label=name, ms=6)
        if n == 1:
            for bi, ii, aa in zip(b, i, achieved):
                ax.annotate(f"B={bi}", (ii, aa / 1e12), textcoords="offset points", xytext=(4, -11), fontsize=7)
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
    ax.set_ylabel("attained TFLOP/s")
    ax.set_title(f"{_label(model, 'model')} on {_label(hardware, 'hardware')}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def roofline_verify_cost_vs_k(model, hardware, batches=(1, 16, 64, 128, 256), k_max=10, context=0,
                              rule_of_thumb=True, axes=None):
    """``c_verify = T_verify / T0`` against ``k`` for several batches, with ``k + 1`` for reference.

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    model : specdec.hardware.Model
    hardware : specdec.hardware.Hardware
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
    for i, (bi, row) in enumerate(zip(b, cv)):
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

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    target, draft : specdec.hardware.Model
    hardware : specdec.hardware.Hardware
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
    for i, (c, row) in enumerate(zip(ctx, s)):
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

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    target, draft : specdec.hardware.Model
    hardware : specdec.hardware.Hardware
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

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    target : specdec.hardware.Model
    hardware : specdec.hardware.Hardware
    draft : specdec.hardware.Model, optional
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


def roofline_overview(target, draft, hardware, alpha=0.8, k=5, batch=1, context=0, k_max=10, batch_max=512,
                      axes=None):
    """Two panels for the explorer: ``c_verify`` against ``k`` and speedup against batch.

    Left: ``c_verify`` for ``k = 1 .. k_max`` at ``batch`` and ``context``,
    with ``k + 1`` for reference and the chosen ``k`` marked. Right: the
    roofline speedup against batch at ``context``, with the chosen batch
    marked and 1 drawn.

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    target, draft : specdec.hardware.Model
    hardware : specdec.hardware.Hardware
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
    fig, _ = roofline_overview_artists(target, draft, hardware, alpha, k, batch, context, k_max, batch_max, axes)
    return fig


def roofline_overview_artists(target, draft, hardware, alpha=0.8, k=5, batch=1, context=0, k_max=10,
                              batch_max=512, axes=None):
    """:func:`roofline_overview`, also returning the artists an in-place update moves.

    The explorer of the chapter draws the figure once with this function and
    then moves its artists with :func:`roofline_overview_update`.

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    target, draft, hardware, alpha, k, batch, context, k_max, batch_max, axes
        As in :func:`roofline_overview`.

    Returns
    -------
    tuple
        ``(figure, artists)``: the :class:`matplotlib.figure.Figure` and a
        dict of the artists and grids :func:`roofline_overview_update` needs.
    """
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1))
    b = int(check_integer(batch, "batch", minimum=1))
    c = int(check_integer(context, "context", minimum=0))
    km = int(check_integer(k_max, "k_max", minimum=max(kk, 1), maximum=64))
    bm = int(check_integer(batch_max, "batch_max", minimum=max(b, 2), maximum=100_000))
    fig, (ax1, ax2) = _fresh(axes, 2, 9.0, 3.6)
    ks = np.arange(1, km + 1)
    cv = np.asarray(verify_cost(target, hardware, ks, b, c))
    ax1.plot(ks, ks + 1, color=COLORS["baseline"], ls="--", lw=1, label="k + 1")
    (cv_line,) = ax1.plot(ks, cv, marker="o", ms=3, color=COLORS["verify"], label=f"c_verify, batch {b}")
    (ring,) = ax1.plot([kk], [cv[kk - 1]], marker="o", ms=9, mfc="none", color=COLORS["accent"])
    ax1.set_ylim(0.8, km + 1.5)
    ax1.set_xlabel("k")
    ax1.set_ylabel("T_verify / T0")
    ax1.set_title(f"verification cost, context {c}", fontsize=9)
    legend1 = ax1.legend(fontsize=8, loc="upper left")
    batches = np.unique(np.geomspace(1, bm, 160).astype(int))
    s = np.asarray(speculative_speedup(target, draft, hardware, a, kk, batches, c))
    s_here = float(speculative_speedup(target, draft, hardware, a, kk, b, c))
    ax2.axhline(1.0, color=COLORS["baseline"], lw=1)
    ridge = ax2.axvline(ridge_batch(target, hardware), color=COLORS["baseline"], ls=":", lw=1)
    (speed,) = ax2.plot(batches, s, color=COLORS["draft"], label=f"alpha {a:g}, k {kk}")
    (here,) = ax2.plot([b], [s_here], marker="o", ms=9, mfc="none", color=COLORS["accent"])
    ax2.set_xscale("log", base=2)
    ax2.set_ylim(0, max(float(s.max()), s_here) * 1.1)
    ax2.set_xlabel("batch (dotted: ridge point)")
    ax2.set_ylabel("speedup")
    ax2.set_title(f"{_label(target, 'target')} + {_label(draft, 'draft')} on {_label(hardware, 'hardware')}",
                  fontsize=9)
    legend2 = ax2.legend(fontsize=8, loc="lower left")
    artists = {"axes": (ax1, ax2), "ks": ks, "batches": batches, "cv": cv_line, "ring": ring, "ridge": ridge,
               "speed": speed, "here": here, "title": ax1.title, "legend_verify": legend1,
               "legend_speed": legend2}
    return fig, artists


def roofline_overview_update(artists, target, draft, hardware, alpha, k, batch, context):
    """Move the artists of :func:`roofline_overview_artists` to new values, in place.

    Changes only data, the left title and the legend texts (never limits,
    nor the right panel's title, which names the models and hardware).

    Defined in chapter "The roofline model: where $c_d$ and $c_v$ come from".

    Parameters
    ----------
    artists : dict
        From :func:`roofline_overview_artists`.
    target, draft, hardware, alpha, k, batch, context
        The new values, as in :func:`roofline_overview` (``k`` at most the
        figure's ``k_max``).

    Returns
    -------
    float
        The upper y limit :func:`roofline_overview` would choose for the
        right panel, so the caller can decide whether the limits must change.
    """
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1, maximum=int(artists["ks"][-1])))
    b = int(check_integer(batch, "batch", minimum=1))
    c = int(check_integer(context, "context", minimum=0))
    ks, batches = artists["ks"], artists["batches"]
    cv = np.asarray(verify_cost(target, hardware, ks, b, c))
    artists["cv"].set_ydata(cv)
    artists["cv"].set_label(f"c_verify, batch {b}")
    artists["legend_verify"].get_texts()[1].set_text(f"c_verify, batch {b}")
    artists["ring"].set_data([kk], [cv[kk - 1]])
    artists["title"].set_text(f"verification cost, context {c}")
    s = np.asarray(speculative_speedup(target, draft, hardware, a, kk, batches, c))
    s_here = float(speculative_speedup(target, draft, hardware, a, kk, b, c))
    rb = ridge_batch(target, hardware)
    artists["ridge"].set_xdata([rb, rb])
    artists["speed"].set_ydata(s)
    artists["speed"].set_label(f"alpha {a:g}, k {kk}")
    artists["legend_speed"].get_texts()[0].set_text(f"alpha {a:g}, k {kk}")
    artists["here"].set_data([b], [s_here])
    return max(float(s.max()), s_here) * 1.1


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
    measurement : specdec.measure.MatmulMeasurement
    axes : sequence of two matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    m = measurement
    fig, (ax1, ax2) = _fresh(axes, 2, 9.0, 3.6)
    t = np.asarray(m.tokens, dtype=float)
    tt = np.arange(1, int(t.max()) + 1)
    from ..measure import predict_matmul_time  # local: plots may import formulas, not the reverse
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

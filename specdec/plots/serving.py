"""Figures of "Latency, throughput and memory": latency against throughput, and memory (presentation only).

The numbers come from :mod:`specdec.roofline.hardware` and :mod:`specdec.serving.regimes`.
"""

from __future__ import annotations

import numpy as np

from specdec.serving import deployment as _dep
from specdec.serving import regimes as _rg

from ._style import COLORS, CONTENT_WIDTH, new_figure

__all__ = ["latency_throughput_batches", "latency_throughput_curves", "latency_throughput_vs_batch",
           "concurrency_vs_context"]


def latency_throughput_batches(batch_max=1024, n_points=160):
    """The batch grid of :func:`latency_throughput_vs_batch`: whole numbers, log-spaced from 1.

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    batch_max : int
        Largest batch, >= 1.
    n_points : int
        Log-spaced points before rounding and removing duplicates.

    Returns
    -------
    numpy.ndarray of int

    Examples
    --------
    >>> import specdec as sd
    >>> b = sd.plots.latency_throughput_batches(1024)
    >>> int(b[0]), int(b[-1])
    (1, 1024)
    """
    return np.unique(np.round(np.geomspace(1, int(batch_max), int(n_points))).astype(np.int64))


def latency_throughput_curves(target, draft, hardware, alpha, k, context, batches):
    """Latency (ms per token) and throughput (tokens/s) against batch; ``nan`` where memory is exceeded.

    The curves of :func:`latency_throughput_vs_batch`, shared with its explorer.

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    target, draft, hardware, alpha, k, context
        As in :func:`latency_throughput_vs_batch`.
    batches : array_like of int
        Batches, >= 1.

    Returns
    -------
    dict
        ``lat_base``, ``lat_spec`` (ms), ``thr_base``, ``thr_spec``
        (tokens/s), arrays over ``batches``, and ``cap``, the
        :class:`specdec.serving.regimes.CapacityComparison` at ``context``.

    Examples
    --------
    >>> import numpy as np
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> v = sd.plots.latency_throughput_curves(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 2048, [1, 2000])
    >>> round(float(v["lat_base"][0]), 2), bool(np.isnan(v["thr_spec"][1]))
    (11.76, True)
    """
    r = _dep.speculative_costs(target, draft, hardware, alpha, k, batches, context)
    nan_base = np.where(r.fits_baseline, 1.0, np.nan)
    nan_spec = np.where(r.fits, 1.0, np.nan)
    cap = _rg.capacity_comparison(target, draft, hardware, alpha, k, max(int(context), 1))
    return dict(lat_base=r.latency_baseline * 1e3 * nan_base, lat_spec=r.latency_speculative * 1e3 * nan_spec,
                thr_base=r.throughput_baseline * nan_base, thr_spec=r.throughput_speculative * nan_spec, cap=cap)


def latency_throughput_vs_batch(target, draft, hardware, alpha=0.8, k=5, context=2048, batch_max=1024,
                                mark_batch=None, latency_limits=(1.0, 100.0), throughput_limits=(100.0, 1e5)):
    """Inter-token latency and tokens/s per replica against batch, with and without speculation.

    Left: milliseconds per output token per sequence. Right: tokens/s per
    replica. Each curve stops at the largest batch that fits in memory (the
    speculative one earlier: the draft takes memory), where a marker shows
    the replica at capacity. Log-log axes with fixed limits, so an explorer
    can redraw only the curves (they carry ``gid`` tags).

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float
        Acceptance rate in [0, 1].
    k : int
        Drafts per round.
    context : int
        Tokens cached per sequence, >= 1.
    batch_max : int
        Largest batch shown.
    mark_batch : int, optional
        Draw a vertical line at this batch.
    latency_limits, throughput_limits : tuple of float
        y-axis limits (ms, tokens/s).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> fig = sd.plots.latency_throughput_vs_batch(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8))
    >>> len(fig.axes)
    2
    """
    batches = latency_throughput_batches(batch_max)
    v = latency_throughput_curves(target, draft, hardware, alpha, k, context, batches)
    cap = v["cap"]
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.4, ncols=2)
    base_kw = dict(color=COLORS["baseline"], lw=2)
    spec_kw = dict(color=COLORS["target"], lw=2)
    left.plot(batches, v["lat_base"], label="plain decoding", gid="lat-base", **base_kw)
    left.plot(batches, v["lat_spec"], label="speculative", gid="lat-spec", **spec_kw)
    right.plot(batches, v["thr_base"], label="plain decoding", gid="thr-base", **base_kw)
    right.plot(batches, v["thr_spec"], label="speculative", gid="thr-spec", **spec_kw)
    left.plot([cap.batch_baseline], [cap.latency_baseline * 1e3], "o", color=COLORS["baseline"], ms=7, mfc="white",
              mew=2, gid="lat-base-cap", label="at capacity (memory full)")
    left.plot([cap.batch_speculative], [cap.latency_speculative * 1e3], "o", color=COLORS["target"], ms=7,
              mfc="white", mew=2, gid="lat-spec-cap")
    right.plot([cap.batch_baseline], [cap.throughput_baseline], "o", color=COLORS["baseline"], ms=7, mfc="white",
               mew=2, gid="thr-base-cap", label="at capacity (memory full)")
    right.plot([cap.batch_speculative], [cap.throughput_speculative], "o", color=COLORS["target"], ms=7, mfc="white",
               mew=2, gid="thr-spec-cap")
    for ax, limits, ylabel, gid in ((left, latency_limits, "ms per output token (per sequence)", "lat-mark"),
                                    (right, throughput_limits, "tokens/s per replica", "thr-mark")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1, batch_max)
        ax.set_ylim(*limits)
        ax.set_xlabel("batch (concurrent sequences)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
        mb = 1 if mark_batch is None else int(mark_batch)
        ax.plot([mb, mb], list(limits), color="black", ls=":", lw=1, gid=gid, visible=mark_batch is not None)
    left.set_title("inter-token latency (lower is better)", fontsize=10)
    right.set_title("throughput per replica (higher is better)", fontsize=10)
    left.legend(fontsize=8, loc="upper left")
    name = f"{target.name} + {draft.name} draft, {hardware.name}"
    fig.suptitle(name, fontsize=10)   # alpha, k and context go in the caption (an explorer changes them)
    return fig


def concurrency_vs_context(target, draft, hardware, alpha=0.8, k=5, contexts=None):
    """Sequences that fit, and throughput at capacity, against context length.

    Left: :func:`specdec.roofline.memory.max_concurrent_sequences` for the target
    alone and for target + draft with ``k`` candidate slots. Right: at each
    side's memory-limited batch, speculative over plain tokens/s per replica
    (:func:`specdec.serving.regimes.capacity_comparison`), next to the speedup a
    same-batch test would report at the speculative batch; their ratio is
    the throughput lost to memory.

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    target, draft, hardware, alpha, k
        As in :func:`latency_throughput_vs_batch`.
    contexts : array_like of int, optional
        Context lengths; default 2**9 .. 2**17 (log-spaced, 33 points).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> fig = sd.plots.concurrency_vs_context(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), contexts=[1024, 8192])
    >>> len(fig.axes)
    2
    """
    if contexts is None:
        contexts = np.unique(np.round(np.geomspace(512, 131072, 33)).astype(np.int64))
    contexts = np.asarray(contexts)
    cap = _rg.capacity_comparison(target, draft, hardware, alpha, k, contexts)
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.2, ncols=2)
    left.plot(contexts, cap.batch_baseline, color=COLORS["baseline"], lw=2, label=f"{target.name} alone")
    left.plot(contexts, cap.batch_speculative, color=COLORS["target"], lw=2,
              label=f"+ {draft.name} draft, k = {k} slots")
    left.fill_between(contexts, cap.batch_speculative, cap.batch_baseline, color=COLORS["accent"], alpha=0.2,
                      label="sequences lost to the draft")
    left.set_yscale("log")
    left.set_ylabel("sequences that fit")
    left.legend(fontsize=8, loc="lower left")
    right.plot(contexts, cap.speedup_at_speculative_batch, color=COLORS["verify"], lw=2, ls="--",
               label="speedup at the same batch")
    right.plot(contexts, cap.throughput_ratio, color=COLORS["target"], lw=2,
               label="tokens/s at capacity, speculative / plain")
    right.axhline(1.0, color="black", lw=1)
    right.set_ylabel("ratio")
    right.legend(fontsize=8, loc="lower right")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("context (tokens per sequence)")
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"{hardware.name}, alpha = {alpha:g}, k = {k}", fontsize=10)
    return fig

"""Figures for "Why verification is not free", "When speculation does not help" and
"The decision checklist" (presentation only: every number
comes from :mod:`specdec.economics`, :mod:`specdec.roofline.hardware`,
:mod:`specdec.serving.deployment`, :mod:`specdec.roofline.memory`, :mod:`specdec.economics.request` or
:mod:`specdec.decision.checklist`)."""

from __future__ import annotations

import numpy as np

from specdec.economics import WORKED_EXAMPLE, request
from specdec.roofline import hardware as hw_mod
from specdec.roofline import memory
from specdec.serving import deployment

from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure


def _batch_axis(ax, batch_max) -> None:
    """Log-2 batch axis with plain-number labels (fast to draw: no mathtext, no minor labels)."""
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log", base=2)
    top = int(np.log2(batch_max))
    ticks = [2**i for i in range(0, top + 1, 1 if top <= 6 else 2)]    # every power of 4 on a wide axis
    ax.set_xticks(ticks, labels=[str(t) for t in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(1, batch_max)

__all__ = [
    "verify_cost_overview",
    "no_help_batch",
    "no_help_context",
    "no_help_context_curve",
    "no_help_short_output",
]


# ---------------------------------------------------------------------------
# Chapter 3: why verification is not free
# ---------------------------------------------------------------------------

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
        cv = hw_mod.verify_cost(target, hardware, ks, batch=int(b), context=int(context))
        left.plot(ks, cv, marker="o", ms=3, color=SEQUENCE[i % len(SEQUENCE)], label=f"batch {b}", gid=f"batch-{b}")
    if extra_batch is not None:
        cv = hw_mod.verify_cost(target, hardware, ks, batch=int(extra_batch), context=int(context))
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
        cv = hw_mod.verify_cost(target, hardware, k_fixed, batch=bs, context=int(c))
        right.plot(bs, cv, color=SEQUENCE[i % len(SEQUENCE)], lw=2, label=f"context {c:,}", gid=f"context-{c}")
    right.axhspan(rule[0], rule[1], color=SEQUENCE[5], alpha=0.25, lw=0)
    right.axhline(k_fixed + 1, color=COLORS["baseline"], ls="--", lw=1, gid="ceiling")
    right.set_ylim(0.8, k_max + 1.5)
    _batch_axis(right, batch_max)
    right.set_xlabel("batch (concurrent sequences)")
    right.set_ylabel(r"$c_v$ at the chosen k" if dynamic else rf"$c_v$ at k = {k_fixed}")
    right.set_title("c_v against batch at the slider's k\n(dashed: k + 1)" if dynamic
                    else f"c_v against batch at k = {k_fixed} (dashed: k + 1)", fontsize=9)
    right.legend(fontsize=7, frameon=False, loc="upper left")
    return fig


# ---------------------------------------------------------------------------
# Chapter 4: when speculation does not help
# ---------------------------------------------------------------------------

def no_help_batch(target, draft, hardware, alphas=(0.6, 0.7, 0.8, 0.9), k=5, batch_max=512,
                  marks=(1, 32, 128), source_utilization=(0.03, 0.30, 0.90), context=0):
    """High batch: speculation's speedup against batch, and the utilization behind it.

    Left: :func:`specdec.serving.deployment.speculative_speedup` against batch for each
    ``alpha`` (roofline costs, no overhead), with the break-even batch of the
    middle curve marked. Right: :func:`specdec.roofline.hardware.utilization` of a
    plain decode step against batch (at context 0 and at ``context`` if
    given), with the source's sketch ("3%, 30%, 90%" at batch 1, 32, 128)
    as crosses.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alphas : sequence of float, optional
    k : int, optional
    batch_max : int, optional
    marks : sequence of int, optional
        Batches of the source's sketch.
    source_utilization : sequence of float, optional
        The source's utilization at ``marks``.
    context : int, optional
        A second context for the utilization curve (0: none).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> fig = sd.plots.no_help_batch(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8))
    >>> len(fig.axes)
    2
    """
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.5, ncols=2)
    bs = np.arange(1, int(batch_max) + 1)
    for i, a in enumerate(alphas):
        s = deployment.speculative_speedup(target, draft, hardware, a, k, batch=bs, context=context)
        left.plot(bs, s, color=SEQUENCE[i % len(SEQUENCE)], lw=2, label=rf"$\alpha$ = {a:g}")
    mid = alphas[len(alphas) // 2]
    b_even = deployment.break_even_batch(target, draft, hardware, mid, k, context=context, batch_max=int(batch_max))
    if np.isfinite(b_even):
        left.axvline(b_even, color=COLORS["accent"], ls=":", lw=1)
        left.annotate(rf"$\alpha$ = {mid:g} breaks even" + f"\nat batch {b_even:.0f}", (b_even, 1.0),
                      xytext=(b_even * 1.15, 1.6), fontsize=8, color=COLORS["accent"],
                      arrowprops={"arrowstyle": "->", "color": COLORS["accent"]})
    left.axhline(1.0, color=COLORS["baseline"], lw=1)
    left.axvline(32, color=COLORS["baseline"], ls="--", lw=1)
    left.text(30, 0.1, "checklist: 32", fontsize=7, color=COLORS["baseline"], rotation=90, va="bottom", ha="right")
    _batch_axis(left, batch_max)
    left.set_ylim(bottom=0)
    left.set_xlabel("batch (concurrent sequences)")
    left.set_ylabel("speedup over plain decoding")
    ctx_text = f", context {context:,}" if context else ""
    left.set_title(f"{target.name} + {draft.name} draft, k = {k}{ctx_text}", fontsize=9)
    left.legend(fontsize=8, frameon=False, loc="lower left")

    u0 = hw_mod.utilization(target, hardware, bs)
    right.plot(bs, 100 * u0, color=COLORS["target"], lw=2, label="model, context 0")
    if context:
        uc = hw_mod.utilization(target, hardware, bs, context=context)
        right.plot(bs, 100 * uc, color=COLORS["neutral"], lw=2, label=f"model, context {context:,}")
    right.plot(list(marks), [100 * u for u in source_utilization], "x", ms=9, mew=2, color=COLORS["accent"],
               label="source's sketch")
    _batch_axis(right, batch_max)
    right.set_ylim(0, 100)
    right.set_xlabel("batch (concurrent sequences)")
    right.set_ylabel("FLOP/s used by a decode step (% of peak)")
    right.set_title(f"{target.name}\non {hardware.name}", fontsize=9)
    right.legend(fontsize=8, frameon=False, loc="upper left")
    return fig


def no_help_context(target, draft, hardware, alpha=0.8, k=5, contexts=(1024, 8192, 32768), kv_budget=512,
                    batch_max=512, axes=None, ymax=4.0, dynamic=False):
    """Long context: speedup against batch for several contexts, full-cache draft vs capped-cache draft.

    Left: the draft reads its whole KV cache (:func:`specdec.roofline.hardware.draft_cost`).
    Right: the draft's cache is capped at ``kv_budget`` tokens
    (:func:`specdec.roofline.hardware.draft_cost`), as in MagicDec. Each curve
    stops where the target's own KV cache no longer fits in memory
    (:func:`specdec.roofline.memory.max_concurrent_sequences`).

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float, optional
    k : int, optional
    contexts : sequence of int, optional
    kv_budget : int, optional
        Draft KV budget of the right panel, tokens.
    batch_max : int, optional
    axes : pair of matplotlib Axes, optional
        Draw into these (cleared first).
    ymax : float, optional
        Top of the speedup axis (fixed, so the explorer can redraw curves only).
    dynamic : bool, optional
        Titles and labels that do not name slider values (for the explorer;
        curves carry ``gid`` tags ``"<panel>-<i>"`` and ``"<panel>-<i>-end"``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> fig = sd.plots.no_help_context(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8))
    >>> len(fig.axes)
    2
    """
    if axes is None:
        fig, axes = new_figure(CONTENT_WIDTH, 3.5, ncols=2, sharey=True)
    else:
        fig = axes[0].figure
        for ax in axes:
            ax.clear()
    bs = np.arange(1, int(batch_max) + 1)
    for panel, (ax, budget) in enumerate(zip(axes, (None, kv_budget), strict=False)):
        for i, c in enumerate(contexts):
            b, s = no_help_context_curve(target, draft, hardware, alpha, k, int(c), budget, int(batch_max))
            color = SEQUENCE[i % len(SEQUENCE)]
            label = "long context (slider)" if dynamic and i == len(contexts) - 1 else f"context {c:,}"
            ax.plot(b, s, color=color, lw=2, label=label, gid=f"{panel}-{i}")
            end = b.size < bs.size  # memory runs out before batch_max: mark it
            ax.plot(b[-1:], s[-1:], "|", ms=10, mew=2, color=color, gid=f"{panel}-{i}-end", visible=bool(end))
        ax.axhline(1.0, color=COLORS["baseline"], lw=1)
        _batch_axis(ax, batch_max)
        ax.set_xlabel("batch (concurrent sequences)")
        if budget is None:
            title = "draft reads its whole KV cache"
        else:
            title = "draft KV capped (slider)" if dynamic else f"draft KV capped at {budget:,} tokens"
        ax.set_title(title if dynamic else f"{title}\n(alpha = {alpha:g}, k = {k})", fontsize=9)
        ax.legend(fontsize=7, frameon=False, loc="upper left")
    axes[0].set_ylabel("speedup over plain decoding")
    axes[0].set_ylim(0, ymax)
    return fig


def no_help_context_curve(target, draft, hardware, alpha, k, context, kv_budget, batch_max):
    """The data of one curve of :func:`no_help_context`: batches that fit, and the speedup at each.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float
    k : int
    context : int
    kv_budget : int or None
        Draft KV cap in tokens (``None``: full cache).
    batch_max : int

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Batches ``1 .. min(batch_max, max sequences that fit)`` and speedups.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> b, s = sd.plots.no_help_context_curve(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 32768, 512, 512)
    >>> int(b[-1])
    46
    """
    limit = int(memory.max_concurrent_sequences(target, hardware, int(context)))
    b = np.arange(1, max(1, min(limit, int(batch_max))) + 1)
    cd = hw_mod.draft_cost(draft, target, hardware, b, int(context), kv_budget=kv_budget)
    s = deployment.speculative_speedup(target, draft, hardware, alpha, k, batch=b, context=int(context),
                                   draft_cost_override=cd)
    return b, np.asarray(s)


def no_help_short_output(speedup, tpot, setups=(2.0, 10.0, 25.0, 50.0), n_max=80, marks=(10, 20), time_unit="ms"):
    """Short outputs: decode-phase speedup of a request against its length, for several setup costs.

    Uses :func:`specdec.economics.request.request_speedup` (TTFT left out: it only
    dilutes both sides) and marks each break-even length
    (:func:`specdec.economics.request.break_even_output_length`) and the source's
    thresholds.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    speedup : float
        Per-token speedup.
    tpot : float
        Plain time per output token.
    setups : sequence of float, optional
        Setup costs, same unit as ``tpot``.
    n_max : int, optional
        Longest output on the axis.
    marks : sequence of int, optional
        The source's output-length thresholds (10 and 20).
    time_unit : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> len(sd.plots.no_help_short_output(2.13, 5.2).axes)
    1
    """
    n = np.linspace(1, n_max, 800)
    fig, ax = new_figure(6.4, 4.0)
    for i, ts in enumerate(setups):
        r = request.request_speedup(n, speedup, tpot, ts)
        color = SEQUENCE[i % len(SEQUENCE)]
        n_star = request.break_even_output_length(ts, tpot, speedup)
        ax.plot(n, r, color=color, lw=2, label=f"setup {ts:g} {time_unit}: pays off above {n_star:.1f} tokens")
        if np.isfinite(n_star) and n_star <= n_max:
            ax.plot([n_star], [1.0], "o", color=color)
    for m in marks:
        ax.axvline(m, color=COLORS["baseline"], ls=":", lw=1)
        ax.text(m + 0.5, 0.1, f"{m} tokens", fontsize=7, rotation=90, va="bottom", color=COLORS["baseline"])
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    ax.axhline(speedup, color=COLORS["target"], ls="--", lw=1)
    ax.set_xlim(1, n_max)
    ax.set_ylim(0, speedup * 1.1)
    ax.set_xlabel("output tokens per request, N")
    ax.set_ylabel("decode-phase speedup of the request")
    ax.set_title(f"per-token speedup {speedup:.2f}, TPOT {tpot:g} {time_unit}", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return fig

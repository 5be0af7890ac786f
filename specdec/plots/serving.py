"""Figures of serving: speculation under batching, latency against throughput, memory, regimes, dynamic k, goodput.

Presentation only: every number drawn comes from :mod:`specdec.serving.deployment`,
:mod:`specdec.serving.regimes`, :mod:`specdec.serving.dynamic`, :mod:`specdec.serving.goodput`,
:mod:`specdec.roofline.hardware` and :mod:`specdec.roofline.memory`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.patches import Patch

from specdec.decision import policy as _policy
from specdec.roofline import hardware as _hw
from specdec.serving import deployment as _dep
from specdec.serving import regimes as _rg
from specdec.serving.dynamic import compare_schedules, oracle_gain
from specdec.serving.goodput import goodput_curve

from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, batch_axis, figure_axes, new_figure, nice_ceiling

__all__ = [
    "latency_throughput_vs_batch",
    "concurrency_vs_context",
    "no_help_batch",
    "no_help_context",
    "REGIME_COLORS",
    "regime_maps",
    "schedule_speedups",
    "ScheduleSpeedupsView",
    "oracle_gain_curves",
    "goodput_curves",
    "GoodputView",
]


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
    batches = _dep.batch_grid(batch_max)
    v = _dep.latency_throughput_in_memory(target, draft, hardware, alpha, k, batches, context)
    cap = _rg.capacity_comparison(target, draft, hardware, alpha, k, max(int(context), 1))
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.4, ncols=2)
    base_kw = dict(color=COLORS["baseline"], lw=2)
    spec_kw = dict(color=COLORS["target"], lw=2)
    left.plot(batches, v["latency_baseline"] * 1e3, label="plain decoding", gid="lat-base", **base_kw)
    left.plot(batches, v["latency_speculative"] * 1e3, label="speculative", gid="lat-spec", **spec_kw)
    right.plot(batches, v["throughput_baseline"], label="plain decoding", gid="thr-base", **base_kw)
    right.plot(batches, v["throughput_speculative"], label="speculative", gid="thr-spec", **spec_kw)
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


# the speedup against batch and context, up to the memory limit
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
        s = _dep.speculative_speedup(target, draft, hardware, a, k, batch=bs, context=context)
        left.plot(bs, s, color=SEQUENCE[i % len(SEQUENCE)], lw=2, label=rf"$\alpha$ = {a:g}")
    mid = alphas[len(alphas) // 2]
    b_even = _dep.break_even_batch(target, draft, hardware, mid, k, context=context, batch_max=int(batch_max))
    if np.isfinite(b_even):
        left.axvline(b_even, color=COLORS["accent"], ls=":", lw=1)
        left.annotate(rf"$\alpha$ = {mid:g} breaks even" + f"\nat batch {b_even:.0f}", (b_even, 1.0),
                      xytext=(b_even * 1.15, 1.6), fontsize=8, color=COLORS["accent"],
                      arrowprops={"arrowstyle": "->", "color": COLORS["accent"]})
    left.axhline(1.0, color=COLORS["baseline"], lw=1)
    left.axvline(32, color=COLORS["baseline"], ls="--", lw=1)
    left.text(30, 0.1, "checklist: 32", fontsize=7, color=COLORS["baseline"], rotation=90, va="bottom", ha="right")
    batch_axis(left, batch_max)
    left.set_ylim(bottom=0)
    left.set_xlabel("batch (concurrent sequences)")
    left.set_ylabel("speedup over plain decoding")
    ctx_text = f", context {context:,}" if context else ""
    left.set_title(f"{target.name} + {draft.name} draft, k = {k}{ctx_text}", fontsize=9)
    left.legend(fontsize=8, frameon=False, loc="lower left")

    u0 = _hw.utilization(target, hardware, bs)
    right.plot(bs, 100 * u0, color=COLORS["target"], lw=2, label="model, context 0")
    if context:
        uc = _hw.utilization(target, hardware, bs, context=context)
        right.plot(bs, 100 * uc, color=COLORS["neutral"], lw=2, label=f"model, context {context:,}")
    right.plot(list(marks), [100 * u for u in source_utilization], "x", ms=9, mew=2, color=COLORS["accent"],
               label="source's sketch")
    batch_axis(right, batch_max)
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
            b, s = _dep.speedup_up_to_capacity(target, draft, hardware, alpha, k, int(c), budget, int(batch_max))
            color = SEQUENCE[i % len(SEQUENCE)]
            label = "long context (slider)" if dynamic and i == len(contexts) - 1 else f"context {c:,}"
            ax.plot(b, s, color=color, lw=2, label=label, gid=f"{panel}-{i}")
            end = b.size < bs.size  # memory runs out before batch_max: mark it
            ax.plot(b[-1:], s[-1:], "|", ms=10, mew=2, color=color, gid=f"{panel}-{i}-end", visible=bool(end))
        ax.axhline(1.0, color=COLORS["baseline"], lw=1)
        batch_axis(ax, batch_max)
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


#: Colours of the three regimes (hurts, neutral, helps).
REGIME_COLORS = {_policy.HURTS: "#E8A07A", _policy.NEUTRAL: "#E6E6E6", _policy.HELPS: "#9CC9E8"}


def _edges(values, log=False):
    v = np.asarray(values, dtype=float)
    if v.size == 1:
        return np.array([v[0] * 0.9, v[0] * 1.1]) if log else np.array([v[0] - 0.5, v[0] + 0.5])
    w = np.log(v) if log else v
    mid = (w[1:] + w[:-1]) / 2
    e = np.concatenate([[w[0] - (mid[0] - w[0])], mid, [w[-1] + (w[-1] - mid[-1])]])
    return np.exp(e) if log else e


def _panel(ax, m, log):
    cmap = ListedColormap([REGIME_COLORS[_policy.HURTS], REGIME_COLORS[_policy.NEUTRAL], REGIME_COLORS[_policy.HELPS]])
    norm = BoundaryNorm([-1.5, -0.5, 0.5, 1.5], cmap.N)
    ax.pcolormesh(_edges(m.alphas), _edges(m.values, log), m.regime.T, cmap=cmap, norm=norm, shading="flat",
                  rasterized=True)
    rows = np.asarray(m.values) < 1.0 if not log else np.ones(len(m.values), bool)   # a prefill share of 1 is exactly 1
    ax.contour(m.alphas, m.values[rows], m.speedup.T[rows], levels=[1.0], colors="black", linewidths=1.2,
               linestyles="--")
    if log:
        ax.set_yscale("log")
    ax.set_xlim(m.alphas[0], m.alphas[-1])
    ax.set_ylim(_edges(m.values, log)[0], _edges(m.values, log)[-1])
    ax.set_xlabel(r"acceptance rate $\alpha$")


def regime_maps(batch_map, prefill_map, *, low_alpha=None, batch_lines=None, prefill_line=None):
    """The two regime maps side by side, with the source's three reasons located on them.

    Left: acceptance rate against batch; right: acceptance rate against the
    prefill share of request time. Cells are coloured by regime (hurts,
    neutral, helps; thresholds from the maps), the dashed black contour is a
    speedup of exactly 1. Optional guides: ``low_alpha`` (a vertical line
    and label (1), "structurally low acceptance"), ``batch_lines`` (label ->
    batch, horizontal lines for where the passes turn compute-bound, label
    (2)) and ``prefill_line`` (a prefill share, label (3)).

    Defined in chapter "When not to use it".

    Parameters
    ----------
    batch_map, prefill_map : specdec.serving.regimes.RegimeMap
    low_alpha : float, optional
        Acceptance rate below which the low-acceptance reason applies.
    batch_lines : dict, optional
        Label -> batch for horizontal guide lines on the left map.
    prefill_line : float, optional
        Prefill share drawn as a guide on the right map.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> pair = (h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8))
    >>> bm = sd.regimes.batch_alpha_map(*pair, [0.2, 0.5, 0.8], [1, 64, 512])
    >>> pm = sd.regimes.prefill_alpha_map(*pair, [0.2, 0.5, 0.8], [0.0, 0.5, 0.9])
    >>> len(sd.plots.regime_maps(bm, pm, low_alpha=0.42).axes)
    2
    """
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.8, ncols=2)
    _panel(left, batch_map, log=True)
    _panel(right, prefill_map, log=False)
    left.set_ylabel("batch (concurrent sequences)")
    right.set_ylabel("prefill share of plain request time")
    s = batch_map.settings
    left.set_title(f"over batch\n(context {s['context']:,}, k = {s['k']})", fontsize=9)
    sp = prefill_map.settings
    right.set_title(f"over prefill share\n(decode at batch {sp['batch']}, k = {sp['k']})", fontsize=9)
    box = dict(boxstyle="round,pad=0.25", fc="white", ec="0.4", alpha=0.9)
    if low_alpha is not None:
        for ax in (left, right):
            ax.axvline(low_alpha, color=COLORS["accent"], lw=1.2)
        left.text(low_alpha / 2, np.sqrt(batch_map.values[0] * batch_map.values[-1]) / 4,
                  "(1) structurally\nlow acceptance", ha="center", va="center", fontsize=8, bbox=box)
        right.text(low_alpha / 2, 0.35, "(1) structurally\nlow acceptance", ha="center", va="center", fontsize=8,
                   bbox=box)
    if batch_lines:
        styles = ("-.", ":", "-")
        for i, (label, b) in enumerate(batch_lines.items()):
            left.axhline(b, color="black", lw=1, ls=styles[i % len(styles)])
            left.text(batch_map.alphas[-1] - 0.01, b * 1.08, label, ha="right", va="bottom", fontsize=7)
        top = max(batch_lines.values())
        left.text(0.6, np.sqrt(top * batch_map.values[-1]) * 1.2, "(2) compute-bound target", ha="center",
                  va="center", fontsize=8, bbox=box)
    if prefill_line is not None:
        right.axhline(prefill_line, color="black", lw=1, ls="-.")
        right.text(0.65, (1 + prefill_line) / 2, "(3) prefill-dominated\nworkload", ha="center", va="center",
                   fontsize=8, bbox=box)
    ha, hb = batch_map.helps_above, batch_map.hurts_below
    handles = [Patch(color=REGIME_COLORS[_policy.HELPS], label=f"helps (speedup > {ha:g})"),
               Patch(color=REGIME_COLORS[_policy.NEUTRAL], label=f"neutral ({hb:g} to {ha:g})"),
               Patch(color=REGIME_COLORS[_policy.HURTS], label=f"hurts (< {hb:g})")]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    return fig


# dynamic speculation length

_POLICY_NAMES = {"fixed": "fixed k", "hf-heuristic": "HF heuristic (+2 / -1)",
                 "per-request-optimal": "best k per request", "oracle": "oracle"}


class ScheduleSpeedupsView:
    """The figure of :func:`schedule_speedups`, updatable in place for its explorer.

    One group of bars per workload, one bar per policy. :meth:`update` sets
    the bars and the title (``dynamic_artists``, with the line at 1 and
    the legend drawn over them) and returns the y limit, the key of the rest.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    results : dict
        Workload label -> the dict :func:`specdec.serving.dynamic.compare_schedules` returns.
    title : str, optional
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> import specdec as sd
    >>> alphas = sd.dynamic.beta_alphas(20, 0.7, 2.0, rng=0)
    >>> view = sd.plots.ScheduleSpeedupsView({"w": sd.dynamic.compare_schedules(alphas, 40, 0)})
    >>> len(view.dynamic_artists)
    7
    """

    def __init__(self, results, title=None, ax=None):
        labels = list(results)
        self.figure, self.ax = figure_axes(ax, 6.8, 4.0)
        ax = self.ax
        x = np.arange(len(labels))
        self.bars = {policy: ax.bar(x + (i - 1.5) * 0.2, np.zeros(len(labels)), 0.2, color=SEQUENCE[i],
                                    label=_POLICY_NAMES[policy]) for i, policy in enumerate(_POLICY_NAMES)}
        ax.set_xticks(x, labels, fontsize=8)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.set_ylabel("speedup over plain decoding")
        self.one = ax.axhline(1.0, color=COLORS["baseline"], lw=1)
        ax.set_title(" ", fontsize=9)
        self.legend = ax.legend(fontsize=7, ncol=2, loc="lower left")
        self.labels, self.key = labels, None
        self.update(results, title)

    @property
    def dynamic_artists(self) -> list:
        """The bars, the line at 1, the title and the legend."""
        return [p for bars in self.bars.values() for p in bars] + [self.one, self.ax.title, self.legend]

    def update(self, results, title=None):
        """Show ``results`` (the same workload labels); return the y limit."""
        if list(results) != self.labels:
            raise ValueError(f"results must have the workloads {self.labels}; got {list(results)}")
        for policy, bars in self.bars.items():
            for patch, label in zip(bars, self.labels, strict=False):
                patch.set_height(float(results[label][policy].speedup))
        self.ax.set_title(title or " ", fontsize=9)
        top = nice_ceiling(max(1.0, max(r[p].speedup for r in results.values() for p in self.bars)) * 1.1)
        if top != self.key:
            self.ax.set_ylim(0, top)
            self.key = top
        return top


def schedule_speedups(alpha_sets, n_tokens, *, k=5, start=20.0, k_max=64, c_draft=0.0, c_verify=1.0, rng=0,
                      axes=None):
    """Speedup of each draft-length policy on workloads whose acceptance spreads more and more.

    The chapter's explorer moves this figure in place (:class:`ScheduleSpeedupsView`).

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alpha_sets : dict
        Label -> per-request acceptance rates (e.g. :func:`specdec.serving.dynamic.beta_alphas`).
    n_tokens, k, start, k_max, c_draft, c_verify, rng
        As in :func:`specdec.serving.dynamic.compare_schedules`.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    results = {lab: compare_schedules(a, n_tokens, rng, k=k, start=start, k_max=k_max, c_draft=c_draft,
                                      c_verify=c_verify) for lab, a in alpha_sets.items()}
    return ScheduleSpeedupsView(results, ax=axes).figure


def oracle_gain_curves(alphas, cs, axes=None):
    """How much an oracle draft length beats the best fixed one, against alpha, one line per draft cost.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alphas : array_like
        Acceptance rates in [0, 1).
    cs : sequence of float
        Draft-to-target step ratios.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = np.asarray(alphas, float)
    fig, ax = figure_axes(axes, 6.4, 3.8)
    for i, c in enumerate(cs):
        ax.plot(a, (np.asarray(oracle_gain(a, c)) - 1) * 100, color=SEQUENCE[i % len(SEQUENCE)], label=f"c = {c:g}")
    ax.axhline(60, color=COLORS["accent"], ls=":", lw=1, label="the paper's 'up to ~60%'")
    ax.set_xlabel("alpha")
    ax.set_ylabel("oracle over best fixed gamma (%)")
    ax.legend(fontsize=7)
    return fig


# goodput at a latency target
class GoodputView:
    """The figure of :func:`goodput_curves`, updatable in place for its explorer.

    :meth:`update` moves the curves, the operating points and the target
    lines (``dynamic_artists``, with the legends over them) and returns
    the axis limits (snapped to round numbers), the key of the rest.

    Defined in chapter "Throughput at a latency target".

    Arguments as in :func:`goodput_curves`.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> h = sd.hardware
    >>> n = sd.goodput.output_lengths(200, 64, rng=1)
    >>> r = sd.goodput.compare_at_equal_latency(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 2048, 0.016, n)
    >>> view = sd.plots.GoodputView(r, np.linspace(0.012, 0.06, 9), 0.016)
    >>> view.key
    ((10.0, 100000.0), 80.0, 15000.0)
    """

    _SIDES = (("baseline", COLORS["target"], "plain decoding"), ("speculative", COLORS["draft"], "speculative"))

    def __init__(self, comparison, tpot_targets, tpot_target=None, axes=None):
        self.targets = np.asarray(tpot_targets, float)
        self.figure, axes = figure_axes(axes, 10.0, 3.8, ncols=2)
        self.axes = left, right = list(axes)
        self.curves, self.points, self.goodputs = {}, {}, {}
        for side, color, name in self._SIDES:
            (self.curves[side],) = left.plot([], [], color=color, label=name)
            (self.points[side],) = left.plot([], [], marker="o", color=color, ls="none")
            (self.goodputs[side],) = right.plot(self.targets * 1e3, np.zeros(self.targets.size), color=color,
                                                label=name)
        self.target_h = left.axhline(0.0, color=COLORS["accent"], ls=":", lw=1, label="TPOT target")
        self.target_v = right.axvline(0.0, color=COLORS["accent"], ls=":", lw=1)
        q = comparison.baseline_curve.quantile
        left.set_xlabel("throughput per replica (tokens/s)")
        left.set_ylabel(f"TPOT, p{q * 100:.0f} (ms)")
        left.set_xscale("log")
        right.set_xlabel(f"TPOT target, p{q * 100:.0f} (ms)")
        right.set_ylabel("goodput (tokens/s)")
        right.set_xlim(self.targets.min() * 1e3, self.targets.max() * 1e3)
        self.legends = [left.legend(fontsize=7, loc="upper left"), right.legend(fontsize=7, loc="upper left")]
        self.key = None
        self.update(comparison, tpot_target)

    @property
    def dynamic_artists(self) -> list:
        """Curves, points, target lines and the legends over them."""
        return [*self.curves.values(), *self.points.values(), *self.goodputs.values(), self.target_h, self.target_v,
                *self.legends]

    def update(self, comparison, tpot_target=None):
        """Show ``comparison`` (and the target line at ``tpot_target`` seconds); return the limits' key."""
        left, right = self.axes
        throughput, tpot, goodput = [], [], []
        for side, _, _ in self._SIDES:
            curve = getattr(comparison, f"{side}_curve")
            fits = curve.fits
            self.curves[side].set_data(curve.throughput[fits], curve.tpot[fits] * 1e3)
            g = getattr(comparison, side)
            self.points[side].set_data([g.throughput], [g.tpot * 1e3])
            self.points[side].set_visible(bool(g.feasible))
            values = np.asarray(goodput_curve(curve, self.targets), dtype=float)
            self.goodputs[side].set_ydata(values)
            throughput.append(curve.throughput[fits])
            tpot.append(curve.tpot[fits] * 1e3)
            goodput.append(values)
        shown = tpot_target is not None
        ms = float(tpot_target) * 1e3 if shown else 0.0
        self.target_h.set_ydata([ms, ms])
        self.target_v.set_xdata([ms, ms])
        self.target_h.set_visible(shown)
        self.target_v.set_visible(shown)
        x = np.concatenate(throughput)
        x = x[np.isfinite(x) & (x > 0)]
        lo, hi = (float(x.min()), float(x.max())) if x.size else (1.0, 10.0)
        decades = (float(10 ** np.floor(np.log10(lo))), float(10 ** np.ceil(np.log10(hi * 1.0001))))
        y = np.concatenate(tpot + [np.array([ms])])
        top_tpot = nice_ceiling(max(float(y.max()), 1e-3) * 1.05)
        top_goodput = nice_ceiling(max(float(np.concatenate(goodput).max()), 1.0) * 1.08)
        key = (decades, top_tpot, top_goodput)
        if key != self.key:
            left.set_xlim(*decades)
            left.set_ylim(0, top_tpot)
            right.set_ylim(0, top_goodput)
            self.key = key
        return key


def goodput_curves(comparison, tpot_targets, tpot_target=None, axes=None):
    """TPOT against throughput as the batch grows, and goodput against the TPOT target, with and without speculation.

    The chapter's explorer moves this figure in place (:class:`GoodputView`).

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    comparison : specdec.serving.goodput.EqualLatencyComparison
    tpot_targets : array_like
        Targets (seconds) for the right panel.
    tpot_target : float, optional
        The comparison's own target, drawn on both panels.
    axes : pair of matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    return GoodputView(comparison, tpot_targets, tpot_target, axes).figure

"""Figures that show where a roofline result stops fitting in memory ("The roofline model").

Presentation only: the speedups come from :mod:`specdec.serving.deployment`, the
memory limits from :mod:`specdec.roofline.memory`.
"""

from __future__ import annotations

import numpy as np

from specdec.roofline.memory import max_concurrent_sequences
from specdec.serving.deployment import break_even_batch, speculative_speedup

from .._validate import check_integer, check_probability
from ._style import COLORS, SEQUENCE, new_figure

__all__ = ["roofline_speedup_in_memory"]


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

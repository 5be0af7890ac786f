"""Figures of "When not to use it": where speculation helps, is neutral or hurts (presentation only).

The maps come from :func:`specdec.serving.regimes.batch_alpha_map` and
:func:`specdec.serving.regimes.prefill_alpha_map`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.patches import Patch

from specdec.decision import policy as _policy

from ._style import COLORS, CONTENT_WIDTH, new_figure

__all__ = ["REGIME_COLORS", "regime_maps"]

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

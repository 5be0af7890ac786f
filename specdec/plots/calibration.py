"""Figures of the calibrated roofline: its fit to measured step times, the residuals, and the speedups it gives.

Presentation only: every number drawn comes from :mod:`specdec.calibration`,
:mod:`specdec.roofline.hardware` and :mod:`specdec.serving.deployment`.
"""

from __future__ import annotations

import numpy as np

from specdec.calibration.profiles import profile
from specdec.decision.policy import CHECKLIST_THRESHOLDS, WORTH_IT_SPEEDUP
from specdec.economics import WORKED_EXAMPLE
from specdec.roofline.hardware import (
    A100,
    A100_IDEAL,
    H100,
    H100_IDEAL,
    LLAMA_8B,
    LLAMA_70B,
    step_time_parts,
    verify_cost,
)
from specdec.serving.deployment import speculative_speedup

from .._validate import check_integer, check_probability
from ..calibration import (
    break_even_summary,
    eagle_large_draft,
    residual_table,
)
from ._style import COLORS, SEQUENCE, new_figure

__all__ = [
    "calibration_residuals",
    "step_time_breakdown",
    "calibrated_speedup_vs_batch",
    "large_draft_speedups",
    "calibration_overview",
    "small_m_verify_cost",
]

_PART_COLORS = {"fixed": COLORS["overhead"], "bound": COLORS["target"], "extra": COLORS["verify"],
                "communication": COLORS["accent"]}


def calibration_residuals(rows=None, band=0.10):
    """Measured against modelled time for every measurement, on the ideal and the calibrated roofline.

    Log-log: the diagonal is a perfect model, the shaded band ``+- band``.
    Hollow markers: the ideal roofline (all below the diagonal: it is a lower
    bound); filled: the calibration (circles were fitted, squares only checked).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    rows : list of dict, optional
        From :func:`specdec.calibration.residual_table` (default: that table).
    band : float, optional
        Half-width of the shaded band, relative. Default 0.10.

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows = residual_table() if rows is None else rows
    fig, ax = new_figure(6.4, 4.6)
    y = np.array([r["measured_ms"] for r in rows])
    lo, hi = y.min() / 3.0, y.max() * 2.0
    line = np.array([lo, hi])
    ax.fill_between(line, line * (1 - band), line * (1 + band), color=COLORS["neutral"], alpha=0.25,
                    label=f"within {band:.0%}")
    ax.plot(line, line, color=COLORS["baseline"], lw=1)
    engines = sorted({r["engine"] for r in rows}, key=[r["engine"] for r in rows].index)
    for i, engine in enumerate(engines):
        color = SEQUENCE[i % len(SEQUENCE)]
        sel = [r for r in rows if r["engine"] == engine]
        for role, marker in (("fit", "o"), ("check", "s")):
            part = [r for r in sel if r["role"] == role]
            if not part:
                continue
            ax.scatter([r["measured_ms"] for r in part], [r["model_ms"] for r in part], marker=marker, color=color,
                       s=28, zorder=3, label=f"{engine} ({role})")
            ax.scatter([r["measured_ms"] for r in part], [r["ideal_ms"] for r in part], marker=marker,
                       facecolors="none", edgecolors=color, s=28, zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo / 2, hi)
    ax.set_xlabel("measured (ms per step, pass or request)")
    ax.set_ylabel("roofline (ms): filled calibrated, hollow ideal")
    ax.legend(fontsize=7, loc="upper left", ncol=1)
    return fig


def _cases_default():
    g8 = H100.scaled(8)
    return [("70B decode, 8 H100", LLAMA_70B, g8, 1, 0, 1), ("70B verify k = 5", LLAMA_70B, g8, 1, 0, 6),
            ("70B verify 64 nodes", LLAMA_70B, g8, 1, 0, 64), ("8B draft step, 8 H100", LLAMA_8B, g8, 1, 0, 1),
            ("8B draft step, 1 H100", LLAMA_8B, H100, 1, 0, 1),
            ("70B decode, batch 64", LLAMA_70B, g8, 64, 2048, 1)]


def step_time_breakdown(cases=None, axes=None):
    """Where the time of a pass goes: fixed cost, the binding resource, the part that does not overlap, all-reduces.

    One horizontal bar per case, stacked: ``fixed``; ``max(memory, compute)``
    (labelled with the one that binds); ``(1 - overlap) min(memory, compute)``;
    ``communication``. Each bar's total is :func:`specdec.roofline.hardware.step_time`.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    cases : list of tuple, optional
        ``(label, model, hardware, batch, context, new_tokens)``; default: the
        worked example's passes on 8 calibrated H100s.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    cases = _cases_default() if cases is None else list(cases)
    if axes is None:
        fig, ax = new_figure(6.8, 0.45 * len(cases) + 1.9)
    else:
        ax = axes
        ax.clear()
        fig = ax.figure
    for i, (_label, model, hw, b, c, n) in enumerate(cases):
        p = step_time_parts(model, hw, b, c, n)
        left = 0.0
        for key, width in (("fixed", p["fixed"]), ("bound", p["binding"]), ("extra", p["not_overlapped"]),
                           ("communication", p["communication"])):
            ax.barh(i, width * 1e3, left=left * 1e3, color=_PART_COLORS[key], height=0.6,
                    label={"fixed": "fixed cost", "bound": "memory or compute (the larger)",
                           "extra": "the other, not overlapped", "communication": "all-reduces"}[key] if i == 0
                    else None)
            left += width
        which = "memory" if p["memory"] >= p["compute"] else "compute"
        ax.text(left * 1e3, i, f" {left * 1e3:.2f} ms ({which}-bound)", va="center", fontsize=7)
    ax.set_yticks(range(len(cases)), [c[0] for c in cases], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("milliseconds per forward pass")
    ax.set_xlim(0, ax.get_xlim()[1] * 1.35)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14 - 0.3 / len(cases)), ncol=2, frameon=False)
    return fig


def calibrated_speedup_vs_batch(alpha=WORKED_EXAMPLE.value["alpha"], k=WORKED_EXAMPLE.value["k"], context=0,
                                batch_max=256, worth_it=WORTH_IT_SPEEDUP, axes=None):
    """Speedup of the worked example's pair against batch on the ideal and the calibrated roofline.

    Triangles: the first batch with speedup below 1. Dotted: the checklist's
    batch 32 and its "worth it" speedup.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    alpha : float, optional
    k : int, optional
    context : int, optional
    batch_max : int, optional
    worth_it : float, optional
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1))
    c = int(check_integer(context, "context", minimum=0))
    bm = int(check_integer(batch_max, "batch_max", minimum=2, maximum=4096))
    if axes is None:
        fig, ax = new_figure(6.4, 4.0)
    else:
        ax = axes
        ax.clear()
        fig = ax.figure
    batch = np.arange(1, bm + 1)
    rows = {r["roofline"]: r for r in break_even_summary(a, kk, (c,), worth_it)}
    for name, one, color, dy, label in (("ideal", H100_IDEAL, COLORS["baseline"], 8, "ideal roofline (lower bound)"),
                                        ("calibrated", H100, COLORS["target"], -14, "calibrated roofline")):
        g = one.scaled(8)
        s = np.asarray(speculative_speedup(LLAMA_70B, LLAMA_8B, g, a, kk, batch, c, kv_write=not g.is_ideal))
        ax.plot(batch, s, color=color, label=label)
        be = rows[name]["break_even"]
        if np.isfinite(be) and be <= bm:
            ax.plot([be], [1.0], marker="v", color=color, ms=8)
            ax.annotate(f"{be:.0f}", (be, 1.0), textcoords="offset points", xytext=(0, dy), ha="center",
                        fontsize=8, color=color)
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    ax.axhline(worth_it, color=COLORS["accent"], lw=1, ls=":", label=f"checklist's worth it ({worth_it:g}x)")
    ax.axvline(CHECKLIST_THRESHOLDS["max_batch"], color=COLORS["accent"], lw=1, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch (concurrent sequences)")
    ax.set_ylabel("speedup")
    ax.set_title(f"Llama 3.1 70B + 8B draft on 8 H100, alpha {a:g}, k {kk}, context {c}", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def large_draft_speedups(alphas=None, axes=None):
    """Best speedup over draft lengths 2-10 of a Llama 2 7B draft, for a 13B and a 70B target, against alpha.

    Three rooflines: ideal, calibrated (CUDA graphs, as gpt-fast) and
    the eager research code's profile on the A100
    (:func:`specdec.calibration.profiles.profile` ``"research"``: the eager cost fitted on A100 timings).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    alphas : array_like, optional
        Acceptance rates (default 0.3 to 0.95).
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = np.linspace(0.3, 0.95, 66) if alphas is None else np.asarray(check_probability(alphas, "alphas"))
    if axes is None:
        fig, ax = new_figure(6.4, 4.0)
    else:
        ax = axes
        ax.clear()
        fig = ax.figure
    setups = (("ideal (lower bound)", A100_IDEAL, 0.0, ":"), ("calibrated", A100, 0.0, "--"),
              ("calibrated, eager", profile("research").on("a100-80gb"), 0.0, "-"))
    for name, hw, lo, ls in setups:
        r = eagle_large_draft(a, hw, layer_overhead=lo)
        for target, color in (("13B", COLORS["target"]), ("70B", COLORS["draft"])):
            ax.plot(a, r[target]["speedup"], color=color, ls=ls, label=f"{target} target, {name}")
    ax.axhline(1.0, color=COLORS["baseline"], lw=1)
    ax.set_xlabel("alpha of the 7B draft")
    ax.set_ylabel("best speedup over k = 2..10")
    ax.set_title("Llama 2 7B as the draft, batch 1, A100 (70B target on 4 GPUs)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    return fig


def calibration_overview(target, draft, hardware, alpha=0.8, k=5, batch=1, context=0, batch_max=256, axes=None):
    """The explorer's picture: the three passes of a round, and speedup against batch, ideal and calibrated.

    Left: :func:`step_time_breakdown` of the plain step, the verification pass
    and one draft step at ``batch`` and ``context``. Right: speedup against
    batch on ``hardware`` and on its ideal roofline.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
        Calibrated (or ideal) group the pair runs on.
    alpha, k, batch, context, batch_max
        The round and the batches drawn.
    axes : pair of matplotlib Axes, optional
        Draw into these (cleared first), as the chapter's explorer does.

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1))
    b = int(check_integer(batch, "batch", minimum=1))
    c = int(check_integer(context, "context", minimum=0))
    if axes is None:
        fig, axes = new_figure(10.0, 3.6, ncols=2)
    else:
        fig = axes[0].figure
        for ax in axes:
            ax.clear()
    cases = [("plain step", target, hardware, b, c, 1), (f"verify k = {kk}", target, hardware, b, c, kk + 1),
             ("draft step", draft, hardware, b, c, 1)]
    step_time_breakdown(cases, axes=axes[0])
    axes[0].set_title(f"{target.name} / {draft.name} on {hardware.name}, batch {b}", fontsize=8)
    batches = np.arange(1, int(batch_max) + 1)
    for name, hw, color in (("ideal roofline (lower bound)", hardware.ideal(), COLORS["baseline"]),
                            ("this roofline", hardware, COLORS["target"])):
        s = np.asarray(speculative_speedup(target, draft, hw, a, kk, batches, c, kv_write=not hw.is_ideal))
        axes[1].plot(batches, s, color=color, label=name)
    s_b = float(speculative_speedup(target, draft, hardware, a, kk, b, c, kv_write=not hardware.is_ideal))
    axes[1].plot([b], [s_b], marker="o", color=COLORS["accent"])
    axes[1].axhline(1.0, color=COLORS["baseline"], lw=1)
    axes[1].set_xscale("log", base=2)
    axes[1].set_xlabel("batch")
    axes[1].set_ylabel("speedup")
    axes[1].set_title(f"alpha {a:g}, k {kk}, context {c}", fontsize=8)
    axes[1].legend(fontsize=7)
    return fig


def small_m_verify_cost(max_tokens=200, axes=None):
    """``c_v`` against the tokens of a verification pass at batch 1: tiled kernels (steps) and a linear model.

    Llama 3.1 8B on one calibrated H100 and Llama 3.1 70B on eight: the
    calibrated default prices GEMMs in tiles of
    ``calibration.gemm_tile`` rows (:mod:`specdec.roofline.kernels`), flat up to one
    tile and then in steps; the dashed lines are the same terms with the
    arithmetic linear in the tokens (``gemm_tile = 1``, the overlap applied
    from the first token); dotted, the ideal roofline.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    max_tokens : int, optional
        Largest pass, >= 2 tokens (k + 1). Default 200.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    n = int(check_integer(max_tokens, "max_tokens", minimum=2))
    k = np.arange(1, n)
    if axes is None:
        fig, ax = new_figure(6.4, 4.0)
    else:
        ax = axes
        ax.clear()
        fig = ax.figure
    for model, one, color in ((LLAMA_8B, H100, COLORS["draft"]), (LLAMA_70B, H100.scaled(8), COLORS["target"])):
        linear = one.calibrated(one.calibration, gemm_tile=1)
        label = f"{model.name} on {one.tp} H100"
        ax.step(k + 1, verify_cost(model, one, k), where="post", color=color, label=f"{label}, tiled")
        ax.plot(k + 1, verify_cost(model, linear, k), color=color, ls="--", label=f"{label}, linear")
        ax.plot(k + 1, verify_cost(model, one.ideal(), k), color=color, ls=":", lw=1)
    tile = H100.calibration.gemm_tile
    for edge in range(tile, n + 1, tile):
        ax.axvline(edge, color=COLORS["neutral"], lw=0.8, alpha=0.6)
    ax.set_xlabel("tokens in the verification pass (k + 1), batch 1")
    ax.set_ylabel("c_v (target decode steps)")
    ax.set_title(f"GEMM tiles of {tile} rows: flat, then steps (dotted: ideal roofline)", fontsize=9)
    ax.legend(fontsize=7)
    return fig

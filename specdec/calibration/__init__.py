"""A roofline calibrated against published measurements.

A :class:`Calibration` adds to the ideal roofline of :mod:`specdec.roofline.hardware` the fractions of
the peaks, the overlap, a fixed cost per step and the all-reduce terms. This module holds the
:class:`Measurement` records (each a :class:`specdec.sources.Cited`, fitted or only checked, with
its residual band), the fit (:func:`fit_calibration` for the A100, :func:`fit_hopper`), the fitted
:data:`A100_CALIBRATION` and :data:`H100_CALIBRATION` and the checks.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_instance,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_scalar,
)
from specdec.acceptance import _expected_tokens_array
from specdec.calibration.timings import (
    EAGLE_HEAD_7B,
    FABRICS,
    LLAMA2_7B,
    LLAMA2_13B,
    LLAMA2_70B,
    LLAMA_70B_FP8,
    MEASUREMENTS,
    MEDUSA_HEADS_7B_PARAMS,
    VICUNA_68M,
    Measurement,
    _device_for,
    _measured_time,
    _model_time,
    device_for,
    measured_time,
    model_time,
)
from specdec.decision.policy import WORTH_IT_SPEEDUP
from specdec.drafts.drafters import spec_bench_table
from specdec.economics import WORKED_EXAMPLE
from specdec.roofline._calibration_terms import (
    A100_CALIBRATION,
    ALLREDUCE_LATENCIES,
    FIXED_COSTS,
    H100_CALIBRATION,
    IDEAL,
    Calibration,
)
from specdec.roofline.hardware import (
    A100,
    H100,
    H100_IDEAL,
    H200,
    LLAMA_8B,
    LLAMA_70B,
    Hardware,
    Model,
    _step_time,
    _step_time_parts,
)
from specdec.roofline.presets import _calibrated, _evolve, _ideal, _scaled
from specdec.serving.deployment import _speculative_kernel
from specdec.sources import Cited

__all__ = [
    "Calibration", "IDEAL", "Measurement", "MEASUREMENTS", "FitResult", "FABRICS", "FIXED_COSTS",
    "ALLREDUCE_LATENCIES", "GEMM_TILE", "HOPPER_CARRIED", "fit_hopper", "calibration_for",
    "A100_CALIBRATION", "H100_CALIBRATION", "VICUNA_68M", "LLAMA2_7B", "LLAMA2_13B", "LLAMA2_70B", "LLAMA_70B_FP8", "EAGLE_HEAD_7B",
    "MEDUSA_HEADS_7B_PARAMS", "HF_EAGER_TPS", "SPEC_BENCH_SETTINGS",
    "measured_time", "model_time", "device_for", "fit_calibration", "fit_step_overhead", "residual_table",
    "round_cost_checks", "first_source_check", "eager_layer_overhead", "eagle_large_draft", "break_even_summary",
]

_CHAPTER = "A calibrated roofline"


# --------------------------------------------------------------------------
# the fit
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class FitResult:
    """A fitted calibration and its residuals on the measurements it was fitted to.

    Defined in chapter "A calibrated roofline".

    Attributes
    ----------
    calibration : Calibration
        The terms, with the fixed cost and all-reduce latency of the
        reference engine (gpt-fast for the A100 fit).
    keys : tuple of str
        The measurements used.
    measured, predicted : numpy.ndarray
        Seconds.
    terms : dict
        Every fitted term by name: ``bw_efficiency``, ``flops_efficiency``,
        ``overlap``, ``link_efficiency``, ``step_overhead[<engine>]`` per
        engine and ``allreduce_latency[<fabric>]`` per fabric (seconds).
    """

    calibration: Calibration
    keys: tuple
    measured: np.ndarray
    predicted: np.ndarray
    terms: dict = field(default_factory=dict)

    @property
    def residuals(self) -> np.ndarray:
        """``predicted / measured - 1``."""
        return self.predicted / self.measured - 1.0


def _grid(lo: float, hi: float, step: float) -> np.ndarray:
    return np.round(np.arange(lo, hi + step / 2, step), 10)


def _select(measurements: Sequence[Measurement] | None, role: str | None,
            devices: tuple[str] | tuple[str, str]) -> list[Measurement]:
    return [m for m in (MEASUREMENTS if measurements is None else measurements)
            if (role is None or m.role == role) and m.device.name in devices]


#: Rows per tile of the GEMM kernels in the calibrated model (:mod:`specdec.roofline.kernels`): an assumption (64 is the
#: smallest M tile of the tensor-core kernels cuBLAS and CUTLASS pick on Ampere and Hopper), not a fitted term.
GEMM_TILE = 64


#: The calibration that prices a measurement's parts at full efficiency, built once (``_unit_parts`` changes the tile).
_PROBE = Calibration(communication=True, kv_write=True, causal_attention=True, gemm_tile=GEMM_TILE, name="probe")


def _unit_parts(m: Measurement, tile: int = GEMM_TILE) -> tuple[float, float, float, float]:
    """Memory, compute and hidden first-tile compute at full efficiency, ring-volume time at full link efficiency.

    Checks nothing: ``m`` is a Measurement (its fields are checked when it is built), ``tile`` an int >= 1."""
    probe = _PROBE if tile == GEMM_TILE else _evolve(_PROBE, gemm_tile=tile)
    b, c, n = (np.asarray(float(x)) for x in (m.batch, m.context, m.new_tokens))
    p = _step_time_parts(m.model, _device_for(m, probe), b, c, n, True, True)
    return float(p["memory"]), float(p["compute"]), float(p["communication"]), float(p["hidden"])


def _design(ms: list[Measurement], shared_fixed: bool = False) -> tuple[list[str], list[str], np.ndarray]:
    """Linear columns: one fixed cost per engine (or one shared), one all-reduce latency per fabric."""
    engines = ["shared"] if shared_fixed else sorted({m.engine for m in ms})
    if shared_fixed:
        ms = [_evolve(m, engine="shared") for m in ms]
    fabrics = sorted({m.fabric for m in ms if m.tp > 1})
    cols = [[float(m.engine == e) for m in ms] for e in engines]
    cols += [[2.0 * m.model.n_layers * (m.tp > 1 and m.fabric == f) for m in ms] for f in fabrics]
    return engines, fabrics, np.array(cols).T


def _fit_grid(y: np.ndarray, unit: np.ndarray, a: np.ndarray,
              grids: tuple[np.ndarray, ...]) -> tuple[float, float, float, float, np.ndarray, np.ndarray] | None:
    """Grid over (eta_m, eta_c, o) with a weighted least-squares solve of the linear terms at each point."""
    w = 1.0 / y
    ring = unit[:, 2]
    a = np.column_stack([a, ring])
    pinv = np.linalg.pinv(a * w[:, None])
    grid_b, grid_f, grid_o = grids
    nb, nf, m = len(grid_b), len(grid_f), len(y)
    mem = (unit[:, 0][None, None, :] / grid_b[:, None, None]).repeat(nf, axis=1).reshape(-1, m)
    comp = (unit[:, 1][None, None, :] / grid_f[None, :, None]).repeat(nb, axis=0).reshape(-1, m)
    hid = (unit[:, 3][None, None, :] / grid_f[None, :, None]).repeat(nb, axis=0).reshape(-1, m)
    best = None
    for o in grid_o:  # loop over the overlap grid; the (bw, flops) grid is vectorized
        core = np.maximum(mem, comp) + (1.0 - o) * np.minimum(mem, np.maximum(comp - hid, 0.0))
        x = ((y - core) * w) @ pinv.T
        pred = core + x @ a.T
        ok = (x >= 0).all(axis=1) & (pred > 0).all(axis=1)
        score = np.where(ok, (np.log(np.where(ok[:, None], pred, y) / y) ** 2).sum(axis=1), np.inf)
        j = int(np.argmin(score))
        if np.isfinite(score[j]) and (best is None or score[j] < best[0]):
            best = (float(score[j]), float(grid_b[j // nf]), float(grid_f[j % nf]), float(o), x[j], pred[j])
    return best


def fit_calibration(measurements: Sequence[Measurement] | None = None, *, bw: tuple[float, ...] = (0.60, 1.0, 0.01),
                    flops: tuple[float, ...] = (0.40, 1.0, 0.01), overlap: tuple[float, ...] = (0.0, 1.0, 0.05),
                    tile: int = GEMM_TILE, reference: str = "gpt-fast", name: str = "A100, fitted") -> FitResult:
    """Fit every calibration term to single-pass A100 measurements, one fixed cost per engine.

    For each ``(bw_efficiency, flops_efficiency, overlap)`` on a grid, a fixed cost per engine, an
    all-reduce latency per fabric (``FABRICS``) and ``1 / link_efficiency`` are one least-squares
    solve on relative residuals; grid points needing a negative term are skipped, and the smallest
    sum of squared log residuals wins. GEMMs in tiles of ``tile`` rows; KV writes, attention among
    the new tokens and communication on.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    measurements : sequence of Measurement, optional
        Default: the ``"fit"`` measurements on A100 in ``MEASUREMENTS``.
    bw, flops, overlap : tuple of float, optional
        ``(lowest, highest, step)`` of each grid.
    tile : int, optional
        GEMM tile rows, >= 1. Default :data:`GEMM_TILE`.
    reference : str, optional
        The engine whose fixed cost and fabric go into the returned
        ``FitResult.calibration`` (default ``"gpt-fast"``).
    name : str, optional
        Name of the result.

    Returns
    -------
    FitResult

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> r = cal.fit_calibration()
    >>> t = r.terms
    >>> t["bw_efficiency"], t["flops_efficiency"], t["overlap"]
    (0.76, 0.76, 0.2)
    >>> round(t["step_overhead[gpt-fast]"] * 1e3, 2), round(t["step_overhead[TensorRT-LLM v0.5]"] * 1e3, 2)
    (0.44, 4.34)
    >>> round(t["allreduce_latency[a100-cube-mesh-nccl]"] * 1e6, 1), round(float(abs(r.residuals).max()), 3)
    (22.2, 0.053)
    """
    ms = _select(measurements, "fit" if measurements is None else None, (A100.name,))
    if len(ms) < 4 or any(m.kind == "request" for m in ms):
        raise ValueError(f"measurements must hold at least 4 single-pass A100 measurements; got {len(ms)}")
    tile = int(check_integer(tile, "tile", minimum=1))
    y = np.array([measured_time(m) for m in ms])
    unit = np.array([_unit_parts(m, tile) for m in ms])                 # (M, 4): memory, compute, ring, hidden
    engines, fabrics, a = _design(ms)
    best = _fit_grid(y, unit, a, tuple(_grid(*g) for g in (bw, flops, overlap)))
    if best is None:
        raise ValueError("no grid point gives non-negative fixed, latency and link terms; widen the grids")
    _, b, f, o, x, pred = best
    terms = {"bw_efficiency": b, "flops_efficiency": f, "overlap": o,
             "link_efficiency": min(1.0, 1.0 / x[-1]) if x[-1] > 0 else 1.0}
    terms.update({f"step_overhead[{e}]": float(v) for e, v in zip(engines, x[:len(engines)], strict=True)})
    terms.update({f"allreduce_latency[{fb}]": float(v) for fb, v in zip(fabrics, x[len(engines):-1], strict=True)})
    ref = reference if reference in engines else engines[0]
    ref_fabric = next((m.fabric for m in ms if m.engine == ref and m.tp > 1), "")
    calibration = Calibration(bw_efficiency=b, flops_efficiency=f, overlap=o,
                              step_overhead=terms[f"step_overhead[{ref}]"],
                              allreduce_latency=terms.get(f"allreduce_latency[{ref_fabric}]", 0.0),
                              link_efficiency=terms["link_efficiency"], communication=True, kv_write=True,
                              causal_attention=True, gemm_tile=tile, name=name)
    return FitResult(calibration, tuple(m.key for m in ms), y, pred, terms)


def fit_step_overhead(measurements: Sequence[Measurement], base: Calibration, *, name: str = "fitted") -> FitResult:
    """Fit only the fixed cost per step, keeping every other term of ``base``.

    The step time is ``step_overhead + rest`` with ``rest`` fixed, so the
    weighted least-squares value on relative residuals is
    ``sum((y - rest) / y**2) / sum(1 / y**2)`` (clipped at 0).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    measurements : sequence of Measurement
        Single-pass measurements (``"decode"`` or ``"prefill"``).
    base : Calibration
        The other terms (e.g. carried over from another GPU's fit).
    name : str, optional

    Returns
    -------
    FitResult

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec import calibration as cal
    >>> h100 = [m for m in cal.MEASUREMENTS if m.device is sd.hardware.H100 and m.role == "fit"]
    >>> r = cal.fit_step_overhead(h100, cal.A100_CALIBRATION)
    >>> round(r.calibration.step_overhead * 1e3, 2), [round(float(x), 3) for x in r.residuals]
    (0.49, [0.08, -0.082])
    """
    ms = list(measurements)
    if not ms or any(not isinstance(m, Measurement) or m.kind == "request" for m in ms):
        raise ValueError("measurements must be a non-empty sequence of single-pass Measurement objects")
    return _fit_step_overhead(ms, check_instance(base, Calibration, "base"), name)


def _fit_step_overhead(ms: list[Measurement], base: Calibration, name: str) -> FitResult:
    """:func:`fit_step_overhead` of single-pass Measurements and a Calibration; checks nothing but ``name``."""
    zero = _evolve(base, step_overhead=0.0)
    y = np.array([_measured_time(m) for m in ms])
    rest = np.array([_model_time(m, zero) for m in ms])
    t = max(0.0, float(np.sum((y - rest) / y**2) / np.sum(1.0 / y**2)))
    calibration = replace(base, step_overhead=t, name=name)
    return FitResult(calibration, tuple(m.key for m in ms), y, rest + t)


#: The terms Hopper carries over from the A100 fit, and why (no published Hopper series separates them).
HOPPER_CARRIED = ("bw_efficiency", "flops_efficiency", "overlap", "link_efficiency", "gemm_tile")


def fit_hopper(base: Calibration | None = None, measurements: Sequence[Measurement] | None = None) -> FitResult:
    """Fit Hopper's own terms to Hopper measurements: SGLang's and vLLM's fixed costs and the NVSwitch all-reduce.

    :data:`HOPPER_CARRIED` terms come from ``base``; SGLang's fixed cost is fitted to its two
    batch-1 decodes on one H100, vLLM's fixed cost and the Hopper NVSwitch all-reduce latency jointly
    to vLLM's two CI requests on H200 (least squares on relative residuals).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    base : Calibration, optional
        The A100 terms to carry. Default :data:`A100_CALIBRATION`.
    measurements : sequence of Measurement, optional
        Default: the ``"fit"`` measurements on H100 and H200 in ``MEASUREMENTS``.

    Returns
    -------
    FitResult
        ``calibration`` is the H100 default (SGLang's fixed cost, the Hopper
        all-reduce); ``terms`` holds ``step_overhead[SGLang]``,
        ``step_overhead[vLLM]`` and ``allreduce_latency[hopper-nvswitch]``.

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> t = cal.fit_hopper().terms
    >>> round(t["step_overhead[SGLang]"] * 1e3, 2), round(t["step_overhead[vLLM]"] * 1e3, 2)
    (0.49, 2.05)
    >>> round(t["allreduce_latency[hopper-nvswitch]"] * 1e6, 1)
    26.8
    """
    base = A100_CALIBRATION if base is None else check_instance(base, Calibration, "base")
    ms = _select(measurements, "fit" if measurements is None else None, (H100.name, H200.name))
    sg = [m for m in ms if m.engine.startswith("SGLang")]
    vl = [m for m in ms if m.engine.startswith("vLLM")]
    if not sg or len(vl) < 2:
        raise ValueError("measurements must hold SGLang decodes and two vLLM requests (one at TP1, one at TP > 1)")
    if any(m.kind == "request" for m in sg):
        raise ValueError("measurements must be a non-empty sequence of single-pass Measurement objects")
    sglang = _fit_step_overhead(sg, base, "fitted")
    zero = _evolve(base, step_overhead=0.0, allreduce_latency=0.0)
    y = np.array([_measured_time(m) for m in vl])
    rest = np.array([_model_time(m, zero) for m in vl])
    passes = np.array([1.0 + m.decode_steps for m in vl])
    a = np.column_stack([passes, passes * [2.0 * m.model.n_layers * (m.tp > 1) for m in vl]])
    w = 1.0 / y
    x, *_ = np.linalg.lstsq(a * w[:, None], (y - rest) * w, rcond=None)
    x = np.maximum(x, 0.0)
    terms = {f"{k}": getattr(base, k) for k in HOPPER_CARRIED}
    terms.update({"step_overhead[SGLang]": sglang.calibration.step_overhead, "step_overhead[vLLM]": float(x[0]),
                  "allreduce_latency[hopper-nvswitch]": float(x[1])})
    calibration = replace(base, step_overhead=terms["step_overhead[SGLang]"], allreduce_latency=float(x[1]),
                          name="H100 (Hopper fit: SGLang, vLLM; A100 fractions carried)")
    keys = tuple(m.key for m in sg + vl)
    pred = np.concatenate([sglang.predicted, rest + a @ x])
    return FitResult(calibration, keys, np.concatenate([sglang.measured, y]), pred, terms)


# --------------------------------------------------------------------------
# quoted inputs used by the checks
# --------------------------------------------------------------------------

HF_EAGER_TPS = Cited(
    {"huggingface_fp16": 24.5, "gpt_fast_fp16": 55.1, "model": "LLaMA2-Chat 7B", "gpu": "RTX 3090"},
    "li2024eagle", "Table 4 (MT-bench, temperature 0, tokens/s)", "verified",
    "a transcription of arXiv 2401.15077v3 HTML (search-tool index id 58869229422)")

SPEC_BENCH_SETTINGS = Cited(
    {"PLD": {"num_pred_tokens": 10}, "Medusa": {"heads": 4, "tree_nodes": 63},
     "EAGLE2": {"total_token": 60, "depth": 5, "top_k": 10}},
    "xia2024specbench", "model/pld/pld.py; evaluation/inference_medusa.py (num_heads = 4, medusa_choices "
    "mc_sim_7b_63); evaluation/inference_eagle2.py (--total-token 60, --depth 5, --top-k 10)", "verified",
    "GitHub hemingkx/Spec-Bench at commit fd2c1cd7d2201ef71db4c5f4e455008f017967bf")


def _engine_key(engine: str) -> str:
    for key in FIXED_COSTS:
        if engine.startswith(key.split()[0]):
            return key
    return ""


def calibration_for(measurement: Measurement) -> Calibration:
    """The calibration that prices a measurement: its GPU's terms with its engine's fixed cost and fabric's latency.

    :data:`A100_CALIBRATION` or :data:`H100_CALIBRATION`, with the engine's ``FIXED_COSTS`` entry (an
    engine without one keeps the GPU default) and the fabric's ``ALLREDUCE_LATENCIES`` entry.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    measurement : Measurement

    Returns
    -------
    Calibration

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> m = {x.key: x for x in cal.MEASUREMENTS}["trt-70b-128"]
    >>> c = cal.calibration_for(m)
    >>> round(c.step_overhead * 1e3, 2), round(c.allreduce_latency * 1e6, 1)
    (4.34, 64.8)
    """
    m = check_instance(measurement, Measurement, "measurement")
    base = A100_CALIBRATION if m.device.name == A100.name else H100_CALIBRATION
    engine = _engine_key(m.engine)
    changes: dict[str, Any] = {}
    if engine:
        changes["step_overhead"] = FIXED_COSTS[engine]
    if m.fabric in ALLREDUCE_LATENCIES:
        changes["allreduce_latency"] = ALLREDUCE_LATENCIES[m.fabric]
    return replace(base, **changes) if changes else base


def _kv(hw: Hardware) -> bool:
    return bool(hw.calibration.kv_write) if hw.calibration is not None else False


@functools.lru_cache(maxsize=64)
def _placed(one: Hardware, n_gpus: int) -> Hardware:
    """``one.scaled(n_gpus)`` of valid hardware and an int count, built once per GPU and count; checks nothing."""
    return _scaled(one, n_gpus)


def _with_layer_overhead(one: Hardware, layer: float) -> Hardware:
    """``one`` (calibrated) with an eager launch cost of ``layer`` seconds (a float >= 0) per layer per pass.

    Checks nothing: the caller has checked ``layer``, the rest of the calibration is ``one``'s own."""
    return _calibrated(one, _evolve(one.calibration, layer_overhead=layer))


@functools.lru_cache(maxsize=1)
def _medusa_7b() -> Model:
    """Vicuna 7B with Medusa's four heads in its pass (Spec-Bench's Medusa round)."""
    t = LLAMA2_7B
    return Model(n_params=t.n_params + MEDUSA_HEADS_7B_PARAMS, n_layers=t.n_layers, d_model=t.d_model,
                 n_kv_heads=t.n_kv_heads, head_dim=t.head_dim, name="Vicuna 7B + Medusa heads")


def _step(model: Model, hw: Hardware, context: int, tokens: float | np.ndarray) -> float | np.ndarray:
    """One batch-1 pass of ``tokens`` new tokens at ``context``: the roofline's kernel (the caller has checked
    its arguments once; the constants here are the package's own)."""
    return _step_time(model, hw, 1.0, float(context), tokens, None)


def residual_table(measurements: Sequence[Measurement] | None = None,
                   calibrations: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every measurement next to the ideal and the calibrated roofline, with the residuals.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    measurements : sequence of Measurement, optional
        Default ``MEASUREMENTS``.
    calibrations : dict, optional
        GPU name without the roofline tag (``"A100 80GB SXM"``, ...; see
        :attr:`specdec.roofline.hardware.Hardware.base_name`) -> :class:`Calibration`. Default:
        :data:`A100_CALIBRATION` on A100, :data:`H100_CALIBRATION` on H100 and H200.

    Returns
    -------
    list of dict
        One row per measurement: ``key``, ``label``, ``engine``, ``gpus``,
        ``role``, ``measured_ms``, ``ideal_ms``, ``model_ms``, ``residual``
        (model / measured - 1), ``ideal_residual``, ``tolerance``, ``within``,
        ``source``, ``status``.

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> rows = cal.residual_table()
    >>> all(r["within"] for r in rows if r["role"] == "fit"), all(r["ideal_residual"] < 0 for r in rows)
    (True, True)
    """
    out = []
    for m in (MEASUREMENTS if measurements is None else measurements):
        check_instance(m, Measurement, "measurement")
        c = (calibrations or {}).get(m.device.base_name) or calibration_for(m)
        y, ideal, model = measured_time(m), model_time(m), model_time(m, c)
        out.append({"key": m.key, "label": m.label, "engine": m.engine, "gpus": f"{m.tp}x {m.device.base_name}",
                    "role": m.role, "measured_ms": y * 1e3, "ideal_ms": ideal * 1e3, "model_ms": model * 1e3,
                    "residual": model / y - 1.0, "ideal_residual": ideal / y - 1.0, "tolerance": m.tolerance,
                    "within": abs(model / y - 1.0) <= m.tolerance, "source": m.quoted.source,
                    "status": m.quoted.status})
    return out


def round_cost_checks(hardware: Hardware | None = None, context: int = 512) -> list[dict[str, Any]]:
    """Spec-Bench's implied round costs (A100, Vicuna 7B, batch 1) against the roofline's.

    Implied cost ``E[L] / speedup`` (:func:`specdec.drafts.drafters.spec_bench_table`) against the
    roofline's round with ``SPEC_BENCH_SETTINGS``: PLD verifies 10 tokens; Medusa a 63-node tree
    with its four heads in the pass; EAGLE-2 runs its head once, then 5 times on 10 tokens, and
    verifies 60 nodes.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    hardware : specdec.roofline.hardware.Hardware, optional
        Default :data:`specdec.roofline.hardware.A100` (calibrated); pass
        :data:`specdec.roofline.hardware.A100_IDEAL` for the ideal roofline (the lower bound).
    context : int, optional
        Cached tokens (Spec-Bench's prompts and answers; default 512).

    Returns
    -------
    list of dict
        ``method``, ``implied`` (from the leaderboard), ``model``, ``residual``, ``tolerance``.

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> [(r["method"], round(r["model"], 3)) for r in cal.round_cost_checks()]
    [('PLD', 1.001), ('Medusa', 1.091), ('EAGLE2', 1.601)]
    """
    hw = A100 if hardware is None else check_instance(hardware, Hardware, "hardware")
    c = int(check_integer(context, "context", minimum=0))
    s = SPEC_BENCH_SETTINGS.value
    t, heads = LLAMA2_7B, _medusa_7b()
    t0 = float(_step(t, hw, c, 1))
    e2 = s["EAGLE2"]
    costs = {
        "PLD": _step(t, hw, c, s["PLD"]["num_pred_tokens"] + 1) / t0,
        "Medusa": _step(heads, hw, c, s["Medusa"]["tree_nodes"] + 1) / t0,
        "EAGLE2": (_step(EAGLE_HEAD_7B, hw, c, 1) + e2["depth"] * _step(EAGLE_HEAD_7B, hw, c, e2["top_k"])
                   + _step(t, hw, c, e2["total_token"] + 1)) / t0,
    }
    bench = spec_bench_table("vicuna-7b")
    implied = dict(zip(bench["method"], bench["implied_round_cost"], strict=True))
    tolerance = {"PLD": 0.05, "Medusa": 0.15, "EAGLE2": 0.10}
    return [{"method": k, "implied": float(implied[k]), "model": float(v), "residual": float(v) / float(implied[k]) - 1,
             "tolerance": tolerance[k]} for k, v in costs.items()]


def first_source_check(hardware: Hardware | None = None) -> dict[str, Any]:
    """The first source's worked example against the ideal and the calibrated roofline (70B/8B on 8 H100).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    hardware : specdec.roofline.hardware.Hardware, optional
        One calibrated GPU; default :data:`specdec.roofline.hardware.H100`.

    Returns
    -------
    dict
        Milliseconds: ``quoted_t0``, ``ideal_t0``, ``calibrated_t0``, ``calibrated_t0_fp8``,
        ``quoted_draft_step``, ``ideal_draft_step``, ``calibrated_draft_step`` (on the
        8 GPUs), ``calibrated_draft_step_own_gpu``; ratios ``quoted_c_verify``,
        ``calibrated_c_verify`` (k = 5), ``quoted_c_draft``, ``calibrated_c_draft``.

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> r = cal.first_source_check()
    >>> r["quoted_t0"], round(r["ideal_t0"], 2), round(r["calibrated_t0"], 2)
    (5.2, 5.27, 11.72)
    """
    one = H100 if hardware is None else check_instance(hardware, Hardware, "hardware")
    q = WORKED_EXAMPLE.value
    ideal, group = _placed(_ideal(one), 8), _placed(one, 8)
    t0 = float(_step(LLAMA_70B, group, 0, 1.0))
    draft = float(_step(LLAMA_8B, group, 0, 1.0))
    return {"quoted_t0": q["t0"], "ideal_t0": float(_step(LLAMA_70B, ideal, 0, 1.0)) * 1e3, "calibrated_t0": t0 * 1e3,
            "calibrated_t0_fp8": float(_step(LLAMA_70B_FP8, group, 0, 1.0)) * 1e3,
            "quoted_draft_step": q["t_draft"] / q["k"], "ideal_draft_step": float(_step(LLAMA_8B, ideal, 0, 1.0)) * 1e3,
            "calibrated_draft_step": draft * 1e3,
            "calibrated_draft_step_own_gpu": float(_step(LLAMA_8B, one, 0, 1.0)) * 1e3,
            "quoted_c_verify": q["t_verify"] / q["t0"],
            "calibrated_c_verify": float(_step(LLAMA_70B, group, 0, float(q["k"] + 1))) / t0,
            "quoted_c_draft": q["t_draft"] / q["k"] / q["t0"], "calibrated_c_draft": draft / t0}


def eager_layer_overhead() -> float:
    """Seconds per layer per forward pass that eager Hugging Face code adds (EAGLE's Table 4).

    ``(1 / 24.5 - 1 / 55.1) / 32``: LLaMA2-Chat 7B in Hugging Face FP16 and in gpt-fast, spread over
    32 layers. The **RTX 3090's** value; :mod:`specdec.calibration.profiles` fits it per GPU.

    Defined in chapter "A calibrated roofline".

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> round(cal.eager_layer_overhead() * 1e3, 3)
    0.708
    """
    v = HF_EAGER_TPS.value
    return (1.0 / v["huggingface_fp16"] - 1.0 / v["gpt_fast_fp16"]) / LLAMA2_7B.n_layers


def eagle_large_draft(alpha: ArrayLike, hardware: Hardware | None = None, *, layer_overhead: float = 0.0,
                      context: int = 512, k_range: tuple[int, ...] = (2, 10)) -> dict[str, Any]:
    """A Llama 2 7B draft for a 13B and a 70B target at batch 1: the best speedup over the draft length.

    The setup of ``specdec.drafts.drafters.EAGLE_LARGE_DRAFT_REMARK`` on a roofline: the 13B target
    on one GPU, the 70B on four, the draft on one, plus an optional per-layer eager launch cost.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate of the 7B draft, in [0, 1].
    hardware : specdec.roofline.hardware.Hardware, optional
        One GPU; default :data:`specdec.roofline.hardware.A100` (calibrated;
        :data:`specdec.roofline.hardware.A100_IDEAL` is the ideal roofline, the lower bound).
    layer_overhead : float, optional
        Seconds per layer per pass added to the calibration, >= 0 (ignored on the ideal roofline).
    context : int, optional
        Cached tokens, >= 0. Default 512.
    k_range : tuple of int, optional
        Draft lengths searched, inclusive.

    Returns
    -------
    dict
        Per target name (``"13B"``, ``"70B"``): ``speedup`` (best over ``k``,
        shaped like ``alpha``), ``k`` (the best), ``c_draft`` and
        ``break_even_alpha`` (smallest alpha, to 0.001, with a best speedup >= 1).

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> r = cal.eagle_large_draft(0.7, layer_overhead=cal.eager_layer_overhead())
    >>> round(float(r["13B"]["speedup"]), 2), round(r["13B"]["break_even_alpha"], 2)
    (0.91, 0.78)
    """
    a = np.asarray(check_nonnegative(alpha, "alpha"), dtype=float)
    if (a > 1).any():
        raise ValueError(f"alpha must be in [0, 1]; got {float(a[a > 1].flat[0])!r}")
    one = A100 if hardware is None else check_instance(hardware, Hardware, "hardware")
    lo = float(check_nonnegative(layer_overhead, "layer_overhead", "(seconds)"))
    if lo and not one.is_ideal:
        one = _with_layer_overhead(one, lo)
    c = int(check_integer(context, "context", minimum=0))
    k0, k1 = (int(x) for x in check_integer(np.asarray(k_range), "k_range", minimum=1))
    ks = np.arange(k0, k1 + 1)
    fine = np.round(np.arange(0, 1001) / 1000.0, 3)
    out = {}
    for name, target, tp in (("13B", LLAMA2_13B, 1), ("70B", LLAMA2_70B, 4)):
        group = _placed(one, tp) if tp > 1 else one
        t0 = float(_step(target, group, c, 1))
        cd = float(_step(LLAMA2_7B, one, c, 1)) / t0
        cv = np.asarray(_step(target, group, c, ks + 1.0)) / t0
        s = _expected_tokens_array(a[..., None], ks) / (ks * cd + cv)
        sf = (_expected_tokens_array(fine[:, None], ks) / (ks * cd + cv)).max(axis=1)
        hit = np.flatnonzero(sf >= 1.0)
        out[name] = {"speedup": s.max(axis=-1) if a.ndim else float(s.max()), "k": ks[np.argmax(s, axis=-1)],
                     "c_draft": cd, "break_even_alpha": float(fine[hit[0]]) if hit.size else math.nan}
    return out


def _first_batch_below(s: np.ndarray, threshold: float) -> float:
    """The first batch (``s[i]`` is the speedup at batch ``i + 1``) with speedup below ``threshold``, or nan."""
    below = np.flatnonzero(s < threshold)
    return float(below[0] + 1) if below.size else math.nan


def break_even_summary(alpha: float = WORKED_EXAMPLE.value["alpha"], k: int = WORKED_EXAMPLE.value["k"],
                       contexts: Sequence[int] = (0, 1024, 4096),
                       worth_it: float = WORTH_IT_SPEEDUP) -> list[dict[str, Any]]:
    """The worked example's pair (70B target, 8B draft, 8 H100) on the ideal and the calibrated roofline.

    For each roofline and context: the first batch with speedup below 1 (draft on the target's GPUs
    and on a ninth), the first below ``worth_it``, and the speedup at batch 1 and 32.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    alpha : float, optional
        Default 0.8 (the worked example).
    k : int, optional
        Default 5.
    contexts : sequence of int, optional
        Cached tokens per sequence.
    worth_it : float, optional
        Speedup the checklist calls worth it, > 1. Default
        :data:`specdec.decision.policy.WORTH_IT_SPEEDUP`.

    Returns
    -------
    list of dict
        Keys ``roofline``, ``context``, ``break_even``, ``break_even_own_gpu``,
        ``below_worth_it``, ``speedup_1``, ``speedup_32``.

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> [(r["roofline"], r["break_even"]) for r in cal.break_even_summary(contexts=(0,))]
    [('ideal', 154.0), ('calibrated', 107.0)]
    """
    a = check_scalar(alpha, "alpha", check_probability)
    kk = check_scalar(k, "k", check_integer, minimum=1).astype(float)
    cs = [int(c) for c in check_integer(np.asarray(contexts), "contexts", minimum=0).reshape(-1)]
    th = float(check_scalar(worth_it, "worth_it", check_positive))
    batches = np.arange(1.0, 4097.0)   # the scan of specdec.serving.deployment.break_even_batch
    rows = []
    for label, one in (("ideal", H100_IDEAL), ("calibrated", H100)):
        group = _placed(one, 8)
        kv = _kv(group)
        for c in cs:
            ctx = np.full_like(batches, float(c))
            shared = _speculative_kernel(LLAMA_70B, LLAMA_8B, group, a, kk, batches, ctx, 0.0, None, None, kv)["s"]
            own = _speculative_kernel(LLAMA_70B, LLAMA_8B, group, a, kk, batches, ctx, 0.0, None, one, kv)["s"]
            rows.append({"roofline": label, "context": c,
                         "break_even": _first_batch_below(shared, 1.0),
                         "break_even_own_gpu": _first_batch_below(own, 1.0),
                         "below_worth_it": _first_batch_below(shared, th),
                         "speedup_1": float(shared[0]), "speedup_32": float(shared[31])})
    return rows

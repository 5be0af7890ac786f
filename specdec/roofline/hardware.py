r"""A roofline model of decoding: where ``c_draft`` and ``c_verify`` come from.

A forward pass moves bytes (weights and every sequence's KV cache) and does arithmetic; the
roofline takes the larger of ``bytes / BW`` and ``FLOPs / F``:

.. math:: T_\text{step} = \max\left(\frac{\text{bytes}}{BW},\;
          \frac{\text{FLOPs}}{F}\right)

The GPU presets ``H100``, ``A100``, ``H200`` (:data:`GPUS`) are **calibrated**, the default
everywhere; their ``*_IDEAL`` twins (:data:`IDEAL_GPUS`) are the **ideal roofline**, a lower
bound (datasheet peaks, perfect overlap, free tensor parallelism, no fixed cost, no KV writes).
A :class:`specdec.calibration.Calibration` attached with :meth:`Hardware.calibrated` adds what
engines pay:

.. math:: T = t_\text{fixed} + \max(t_m, t_c) + (1 - o)\min(t_m, \max(t_c - t_1, 0))
          + 2\,n_\text{layers}\,(t_\text{ar} + V / (\eta_\ell BW_\ell))

with ``t_m = bytes / (eta_m BW)``, ``t_c = FLOPs / (eta_c F)`` over whole GEMM tiles and ``t_1``
the first tile's arithmetic (:mod:`specdec.roofline.kernels`). The formulas below are written for the
ideal roofline; a calibrated hardware adds these terms. Presets come from
:mod:`specdec.roofline.catalogue`, engine profiles from :mod:`specdec.calibration.profiles`, fits from
:mod:`specdec.calibration`; memory is :mod:`specdec.roofline.memory`, speculation's costs
:mod:`specdec.serving.deployment`.

Defined in chapters "The roofline model" and "A calibrated roofline".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_bool,
    check_broadcast,
    check_instance,
    check_integer,
    check_positive,
    check_scalar,
    is_scalar_input,
    to_output,
)
from specdec.roofline._calibration_terms import A100_CALIBRATION, H100_CALIBRATION
from specdec.roofline.kernels import _overlapped, _padded_tokens
from specdec.roofline.presets import Hardware, Model, gpu_preset, model_preset

__all__ = [
    "Model", "Hardware", "model_preset", "gpu_preset", "MODELS", "GPUS", "LLAMA_8B", "LLAMA_70B", "LLAMA_1B", "H100", "A100", "H200", "H100_IDEAL",
    "A100_IDEAL", "H200_IDEAL", "IDEAL_GPUS", "validate_setup", "step_bytes", "step_flops", "arithmetic_intensity",
    "step_time", "step_time_parts", "verify_cost", "draft_cost", "ridge_batch", "crossover_batch", "utilization",
]



LLAMA_8B = model_preset("llama-3.1-8b")
"""Llama 3.1 8B (bf16): the catalogue's ``"llama-3.1-8b"`` (``meta-llama/Llama-3.1-8B`` config.json: hidden 4096,
32 layers, 32 heads, 8 key/value heads, head_dim 128, intermediate 14336, vocab 128256, untied): 8,030,261,248
parameters, the card's "8B"."""

LLAMA_70B = model_preset("llama-3.1-70b")
"""Llama 3.1 70B (bf16): the catalogue's ``"llama-3.1-70b"`` (hidden 8192, 80 layers, 64 heads, 8 key/value heads,
intermediate 28672, vocab 128256, untied): 70,553,706,496 parameters."""

LLAMA_1B = model_preset("llama-3.2-1b")
"""Llama 3.2 1B (bf16): the catalogue's ``"llama-3.2-1b"`` (hidden 2048, 16 layers, 32 heads, 8 key/value heads,
head_dim 64, intermediate 8192, vocab 128256, tied embeddings): 1,235,814,400 parameters."""

H100_IDEAL = gpu_preset("h100-sxm")
"""NVIDIA H100 SXM5 80 GB on the ideal roofline (the lower bound; ``H100`` is calibrated): the catalogue's
``"h100-sxm"`` (3.35 TB/s, 989 TFLOPS dense bf16, 80 GB, NVLink 450 GB/s per direction)."""

A100_IDEAL = gpu_preset("a100-80gb")
"""NVIDIA A100 80 GB SXM on the ideal roofline (the lower bound; ``A100`` is calibrated): the catalogue's
``"a100-80gb"`` (2,039 GB/s, 312 TFLOPS dense bf16, 80 GB, NVLink 300 GB/s per direction)."""

H200_IDEAL = gpu_preset("h200-sxm")
"""NVIDIA H200 SXM on the ideal roofline (the lower bound; ``H200`` is calibrated): the catalogue's
``"h200-sxm"`` (141 GB HBM3e, 4.8 TB/s, 989 TFLOPS dense bf16, NVLink 450 GB/s per direction)."""

H100 = H100_IDEAL.calibrated(H100_CALIBRATION)
"""NVIDIA H100 SXM5 80 GB, calibrated (:data:`specdec.calibration.H100_CALIBRATION`): the default H100."""

A100 = A100_IDEAL.calibrated(A100_CALIBRATION)
"""NVIDIA A100 80 GB SXM, calibrated (:data:`specdec.calibration.A100_CALIBRATION`): the default A100."""

H200 = H200_IDEAL.calibrated(H100_CALIBRATION)
"""NVIDIA H200 SXM with the H100's calibration (same Hopper compute; checked against vLLM's CI on H200)."""

#: Model presets by key (see each object's docstring for its source).
MODELS = {"llama-3.1-8b": LLAMA_8B, "llama-3.1-70b": LLAMA_70B, "llama-3.2-1b": LLAMA_1B}
#: Single-GPU presets by key, calibrated (the default model); use ``.scaled(n)`` for a tensor-parallel group.
GPUS = {"h100-sxm": H100, "a100-80gb": A100, "h200-sxm": H200}
#: The same GPUs on the ideal roofline, the lower bound of every step time.
IDEAL_GPUS = {"h100-sxm": H100_IDEAL, "a100-80gb": A100_IDEAL, "h200-sxm": H200_IDEAL}


def _check_model(model: Any, name: str = "model") -> Model:
    return check_instance(model, Model, name)


def _check_hardware(hardware: Any, name: str = "hardware") -> Hardware:
    return check_instance(hardware, Hardware, name)


def validate_setup(target: Model, draft: Model | None,
                   hardware: Hardware) -> tuple[Model, Model | None, Hardware]:
    """Check a target model, an optional draft model and the hardware, in one call.

    The explorers and the deployment functions take these three together;
    this is their one check. ``target`` is a :class:`Model`, ``draft`` a
    :class:`Model` or ``None`` (prediction heads, n-gram lookup), ``hardware``
    a :class:`Hardware`; returns ``(target, draft, hardware)`` unchanged and
    raises ``TypeError`` naming the argument of the wrong type.

    Defined in chapter "The roofline model".

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> h.validate_setup(h.LLAMA_70B, h.LLAMA_8B, h.H100)[1].name
    'Llama 3.1 8B'
    """
    _check_model(target, "target")
    if draft is not None:
        _check_model(draft, "draft")
    _check_hardware(hardware)
    return target, draft, hardware


def _shape_args(batch: ArrayLike, context: ArrayLike,
                new_tokens: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    b = check_integer(batch, "batch", minimum=1).astype(float)
    c = check_integer(context, "context", minimum=0).astype(float)
    n = check_integer(new_tokens, "new_tokens", minimum=1).astype(float)
    check_broadcast(batch=b, context=c, new_tokens=n)
    return b, c, n


def _kv_flag(kv_write: int | None, hardware: Hardware) -> bool:
    """``kv_write`` of a step function: None takes the hardware's calibration default."""
    if kv_write is None:
        return bool(hardware.calibration.kv_write) if hardware.calibration is not None else False
    return check_bool(kv_write, "kv_write")


def _read_params(model: Model, tokens: float | np.ndarray) -> float | np.ndarray:
    """Parameters a pass over ``tokens`` routed tokens reads (all of them for a dense model)."""
    if not model.n_experts:
        return model.n_params
    share = 1.0 - (1.0 - model.experts_per_token / model.n_experts) ** tokens  # distinct experts / E, uniform
    return model.n_params - model.expert_params + model.expert_params * share


def _bytes(model: Model, b: float | np.ndarray, c: float | np.ndarray, n: float | np.ndarray, kv_write: bool,
           replication: float = 1.0) -> float | np.ndarray:
    kv = model.kv_bytes_per_token if replication == 1.0 else model.kv_bytes_per_token * replication
    weights = model.weight_bytes if not model.n_experts else _read_params(model, b * n) * model.bytes_per_param
    total = weights + b * c * kv
    if kv_write:
        total = total + b * n * kv
    return total


def _attention_flops(model: Model, b: float | np.ndarray, c: float | np.ndarray, n: float | np.ndarray,
                     causal: bool = False, ancestors: float | np.ndarray | None = None) -> float | np.ndarray:
    if ancestors is not None:  # a tree: each new token attends to its own ancestors in the pass (and itself)
        return b * n * 4.0 * model.n_layers * model.d_attn * (c + ancestors)
    if causal:  # new token i (1..n) also attends to the i new positions up to itself
        return b * n * 4.0 * model.n_layers * model.d_attn * (c + (n + 1.0) / 2.0)
    return b * n * 4.0 * model.n_layers * model.d_attn * c


def _flops(model: Model, b: float | np.ndarray, c: float | np.ndarray, n: float | np.ndarray, causal: bool = False,
           ancestors: float | np.ndarray | None = None) -> float | np.ndarray:
    return b * n * 2.0 * model.active_params + _attention_flops(model, b, c, n, causal, ancestors)


#: Bytes per activation element sent by the tensor-parallel all-reduces (bf16).
_ACT_BYTES = 2.0


def _rates(model: Model, hw: Hardware) -> tuple[float, float, float]:
    """Achievable bandwidth and FLOP/s, and the KV replication when tp exceeds the KV heads."""
    cal = hw.calibration
    if hw.is_ideal:
        return hw.bandwidth, hw.flops, 1.0
    # each GPU of a group holds the KV heads it serves; an MLA latent (kv_dim set) is shared by all heads, so every
    # GPU holds all of it
    rep = float(hw.tp) if model.kv_dim is not None else max(1.0, hw.tp / model.n_kv_heads)
    return hw.bandwidth * cal.bw_efficiency, hw.flops * cal.flops_efficiency, rep


def _compute(model: Model, hw: Hardware, b: float | np.ndarray, c: float | np.ndarray, n: float | np.ndarray, fl: float,
             ancestors: float | None = None) -> tuple[float | np.ndarray, float | np.ndarray]:
    """(compute time with the GEMM rows padded to whole tiles, the first tile's GEMM time) of a calibrated pass."""
    cal = hw.calibration
    tile = cal.gemm_tile
    attn = _attention_flops(model, b, c, n, cal.causal_attention, ancestors) / fl
    if tile == 1:
        return b * n * 2.0 * model.active_params / fl + attn, 0.0 * attn
    rows = np.asarray(_padded_tokens(np.maximum(b * n, 1.0), tile), dtype=float)
    per_row = 2.0 * model.active_params / fl
    return rows * per_row + attn, np.minimum(rows, tile) * per_row + 0.0 * attn


def _parts(model: Model, hw: Hardware, b: float | np.ndarray, c: float | np.ndarray, n: float | np.ndarray,
           kv_write: bool, ancestors: float | None = None) -> tuple[float | np.ndarray, ...]:
    """(memory time, compute time, fixed time, communication time, hidden compute) of one pass, seconds."""
    bw, fl, rep = _rates(model, hw)
    mem = _bytes(model, b, c, n, kv_write, rep) / bw
    if hw.is_ideal:
        return mem, _flops(model, b, c, n) / fl, 0.0 * mem, 0.0 * mem, 0.0 * mem
    cal = hw.calibration
    comp, hidden = _compute(model, hw, b, c, n, fl, ancestors)
    fixed = cal.step_overhead + cal.layer_overhead * model.n_layers + 0.0 * mem
    comm = 0.0 * mem
    if cal.communication and hw.tp > 1:  # two all-reduces per layer; ring volume per device
        volume = 2.0 * (hw.tp - 1) / hw.tp * b * n * model.d_model * _ACT_BYTES
        comm = 2.0 * model.n_layers * (cal.allreduce_latency + volume / (cal.link_efficiency * hw.link_bandwidth))
    return mem, comp, fixed, comm, hidden


def _step(model: Model, hw: Hardware, b: float | np.ndarray, c: float | np.ndarray, n: float | np.ndarray,
          kv_write: bool, ancestors: float | None = None) -> float | np.ndarray:
    if hw.is_ideal:
        return np.maximum(_bytes(model, b, c, n, kv_write) / hw.bandwidth, _flops(model, b, c, n) / hw.flops)
    mem, comp, fixed, comm, hidden = _parts(model, hw, b, c, n, kv_write, ancestors)
    core = _overlapped(mem, comp, hidden, hw.calibration.overlap)
    return fixed + core + comm


def _step_time(model: Model, hw: Hardware, b: float | np.ndarray, c: float | np.ndarray, n: float | np.ndarray,
               kv_write: bool | None) -> float | np.ndarray:
    """:func:`step_time` of validated inputs (no checks); ``kv_write`` None takes the hardware's default."""
    return _step(model, hw, b, c, n, _kv_flag(kv_write, hw) if kv_write is None else kv_write)


def step_bytes(model: Model, batch: ArrayLike = 1, context: ArrayLike = 0, new_tokens: ArrayLike = 1, *,
               kv_write: bool = False) -> float | np.ndarray:
    r"""Bytes one forward pass moves: the weights plus the KV cache it reads.

    .. math:: \text{bytes} = W + B\,C\,m_\text{KV}
              \;[\,+\; B\,n\,m_\text{KV} \text{ if kv\_write}]

    with ``W`` the weight bytes, ``B`` the batch, ``C`` the context (tokens
    already cached per sequence), ``n`` the new tokens per sequence and
    ``m_KV`` the KV bytes per token.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model : Model
    batch, context, new_tokens : int or array_like of int
        Sequences in the batch (>= 1), tokens already in each sequence's KV
        cache (>= 0) and tokens processed per sequence in this pass (>= 1: 1
        for a decode step, ``k + 1`` for verification).
    kv_write : bool, optional
        Also count writing the new tokens' keys and values, ``B * n * m_KV``
        bytes. Off by default, so that a plain decode step at context 0 is
        exactly one weight read (the writes are below 3 % of the traffic for
        every preset at batch <= 256, k <= 10).

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> import specdec as sd
    >>> m = sd.hardware.LLAMA_8B
    >>> sd.hardware.step_bytes(m, batch=4, context=1000) == m.weight_bytes + 4 * 1000 * m.kv_bytes_per_token
    True
    """
    model = _check_model(model)
    kv_write = check_bool(kv_write, "kv_write")
    b, c, n = _shape_args(batch, context, new_tokens)
    return to_output(_bytes(model, b, c, n, kv_write) + 0 * n, is_scalar_input(batch, context, new_tokens))


def step_flops(model: Model, batch: ArrayLike = 1, context: ArrayLike = 0, new_tokens: ArrayLike = 1) -> float:
    r"""Arithmetic of one forward pass: matrix products plus attention.

    .. math:: \text{FLOPs} = B\,n\,\left(2N + 4\,n_\text{layers}\,d_\text{attn}\,C\right)

    ``2N``: one multiply and one add per parameter per token. Attention: per
    layer and per new token, the scores ``q K^T`` over ``C`` cached
    positions cost ``2 d_attn C`` and the weighted sum of values another
    ``2 d_attn C``, with ``d_attn = n_heads * head_dim``. Attention among the
    ``n`` new tokens themselves (at most ``n (n+1) / 2`` extra positions) is
    neglected (a calibration with ``causal_attention`` counts it); this keeps
    the FLOPs linear in ``n``, so ``verify_cost <= k + 1`` holds exactly.
    Arguments as in :func:`step_bytes`; returns FLOPs.

    Defined in chapter "The roofline model".

    Examples
    --------
    >>> import specdec as sd
    >>> m = sd.hardware.LLAMA_8B
    >>> sd.hardware.step_flops(m) == 2 * m.n_params
    True
    """
    model = _check_model(model)
    b, c, n = _shape_args(batch, context, new_tokens)
    return to_output(_flops(model, b, c, n), is_scalar_input(batch, context, new_tokens))


def arithmetic_intensity(model: Model, batch: ArrayLike = 1, context: ArrayLike = 0, new_tokens: ArrayLike = 1, *,
                         kv_write: bool = False) -> float:
    """FLOPs per byte moved by one forward pass.

    A pass is compute-bound when its intensity exceeds the hardware's
    ``flops / bandwidth`` (the ridge point of the roofline). Arguments as in
    :func:`step_bytes`; returns FLOP/byte.

    Defined in chapter "The roofline model".

    Examples
    --------
    A bf16 decode step at batch 1 does one FLOP per byte (2 FLOPs per
    2-byte weight):

    >>> import specdec as sd
    >>> sd.hardware.arithmetic_intensity(sd.hardware.LLAMA_70B)
    1.0
    """
    model = _check_model(model)
    kv_write = check_bool(kv_write, "kv_write")
    b, c, n = _shape_args(batch, context, new_tokens)
    return to_output(_flops(model, b, c, n) / _bytes(model, b, c, n, kv_write),
                     is_scalar_input(batch, context, new_tokens))


def step_time(model: Model, hardware: Hardware, batch: ArrayLike = 1, context: ArrayLike = 0, new_tokens: ArrayLike = 1,
              *, kv_write: bool | None = None) -> float | np.ndarray:
    r"""Roofline time of one forward pass, in seconds.

    .. math:: T = \max\left(\frac{\text{bytes}}{BW}, \frac{\text{FLOPs}}{F}\right)

    with bytes from :func:`step_bytes` and FLOPs from :func:`step_flops`. At
    batch 1, context 0 and one new token this is exactly
    ``model.weight_bytes / hardware.bandwidth``. On a calibrated
    ``hardware`` the time has the calibration's terms (module docstring).

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model : Model
    hardware : Hardware
    batch, context, new_tokens : int or array_like of int
        As in :func:`step_bytes`; broadcast together.
    kv_write : bool, optional
        As in :func:`step_bytes`; default ``None``: the hardware's (off on
        the ideal roofline, on in the fitted calibrations).

    Returns
    -------
    float or numpy.ndarray
        Seconds per forward pass.

    Examples
    --------
    The first source's target, Llama 3.1 70B on 8 H100s (it quotes 5.2 ms):
    the ideal roofline's lower bound, then the calibrated default.

    >>> import specdec as sd
    >>> t0 = sd.hardware.step_time(sd.hardware.LLAMA_70B, sd.hardware.H100_IDEAL.scaled(8))
    >>> round(t0 * 1e3, 2)
    5.27
    >>> round(sd.hardware.step_time(sd.hardware.LLAMA_70B, sd.hardware.H100.scaled(8)) * 1e3, 2)
    11.72
    """
    model = _check_model(model)
    hardware = _check_hardware(hardware)
    kv_write = _kv_flag(kv_write, hardware)
    b, c, n = _shape_args(batch, context, new_tokens)
    return to_output(_step(model, hardware, b, c, n, kv_write), is_scalar_input(batch, context, new_tokens))


def step_time_parts(model: Model, hardware: Hardware, batch: ArrayLike = 1, context: ArrayLike = 0,
                    new_tokens: ArrayLike = 1, *, kv_write: bool | None = None) -> dict[str, float]:
    """The terms of :func:`step_time`: memory, compute, overlap, fixed cost and communication.

    ``total = fixed + max(memory, compute) + (1 - overlap) * min(memory,
    compute) + communication`` equals :func:`step_time` (on the ideal
    roofline ``fixed`` and ``communication`` are 0 and the overlap is 1).

    Arguments as in :func:`step_time`. Returns a dict of ``memory`` and
    ``compute`` (at the achievable rates), ``fixed``, ``communication``,
    ``binding`` (``max(memory, compute)``), ``not_overlapped`` (``(1 -
    overlap) * min(memory, compute)``, less the arithmetic of the first
    GEMM tile, which hides under the weight read: :mod:`specdec.roofline.kernels`),
    ``hidden`` (that first tile's compute time) and ``total``, in seconds. Defined
    in chapter "A calibrated roofline".

    Examples
    --------
    >>> import specdec as sd
    >>> p = sd.hardware.step_time_parts(sd.hardware.LLAMA_8B, sd.hardware.H100)
    >>> round(p["memory"] * 1e3, 2), p["fixed"], p["communication"], round(p["total"] * 1e3, 2)
    (6.31, 0.00049, 0.0, 6.8)
    >>> p = sd.hardware.step_time_parts(sd.hardware.LLAMA_8B, sd.hardware.H100_IDEAL)
    >>> round(p["memory"] * 1e3, 2), p["fixed"], p["communication"], round(p["total"] * 1e3, 2)
    (4.79, 0.0, 0.0, 4.79)
    """
    model = _check_model(model)
    hardware = _check_hardware(hardware)
    kv_write = _kv_flag(kv_write, hardware)
    b, c, n = _shape_args(batch, context, new_tokens)
    return _step_time_parts(model, hardware, b, c, n, kv_write, is_scalar_input(batch, context, new_tokens))


def _step_time_parts(model: Model, hardware: Hardware, b: float | np.ndarray, c: float | np.ndarray,
                     n: float | np.ndarray, kv_write: bool, scalar: bool) -> dict[str, float]:
    """:func:`step_time_parts` of validated inputs (float arrays of whole numbers, a bool); checks nothing."""
    mem, comp, fixed, comm, hidden = _parts(model, hardware, b, c, n, kv_write)
    total = _step(model, hardware, b, c, n, kv_write)
    binding = np.maximum(mem, comp)
    rest = total - fixed - comm - binding
    return {key: to_output(np.broadcast_to(value, np.shape(total)) + 0.0, scalar)
            for key, value in (("memory", mem), ("compute", comp), ("fixed", fixed), ("communication", comm),
                               ("binding", binding), ("not_overlapped", rest), ("hidden", hidden),
                               ("total", total))}


def verify_cost(model: Model, hardware: Hardware, k: ArrayLike, batch: ArrayLike = 1, context: ArrayLike = 0, *,
                kv_write: bool | None = None, ancestors: float | None = None) -> float | np.ndarray:
    r"""``c_verify``: a verification pass over ``k`` drafts, in target decode steps.

    .. math:: c_v(k) = \frac{T(B, C, n = k + 1)}{T(B, C, n = 1)}

    The pass processes ``k + 1`` tokens per sequence (the last accepted token
    and the ``k`` drafts). It always lies in ``[1, k + 1]``: 1 while the pass
    is memory-bound (the extra tokens ride on the same weight read), ``k + 1``
    when both passes are compute-bound.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model : Model
        The target model.
    hardware : Hardware
    k : int or array_like of int
        Draft tokens per round, >= 1.
    batch, context, kv_write
        As in :func:`step_time`.
    ancestors : float, optional
        For a tree: the mean number of pass tokens each token attends to
        under the tree mask (its ancestors in the tree and itself), >= 1.
        Default ``None``: a chain (token ``i`` attends to ``i`` pass tokens).
        Counted only on a calibration with ``causal_attention``.

    Returns
    -------
    float or numpy.ndarray
        Dimensionless ratio (on a calibrated hardware it can exceed 1 at batch 1).

    Examples
    --------
    >>> import specdec as sd
    >>> hw = sd.hardware.H100_IDEAL.scaled(8)          # the ideal roofline: a lower bound
    >>> sd.hardware.verify_cost(sd.hardware.LLAMA_70B, hw, k=5)
    1.0
    >>> round(sd.hardware.verify_cost(sd.hardware.LLAMA_70B, hw, k=5, batch=128), 3)
    2.601
    >>> round(sd.hardware.verify_cost(sd.hardware.LLAMA_70B, sd.hardware.H100.scaled(8), k=5), 3)
    1.007
    """
    model = _check_model(model)
    hardware = _check_hardware(hardware)
    kv_write = _kv_flag(kv_write, hardware)
    kk = check_integer(k, "k", minimum=1).astype(float)
    b, c, _ = _shape_args(batch, context, 1)
    check_broadcast(k=kk, batch=b, context=c)
    anc = None
    if ancestors is not None:
        anc = float(check_scalar(ancestors, "ancestors", check_positive))
        if anc < 1:
            raise ValueError(f"ancestors must be >= 1 (a token attends to itself); got {anc!r}")
    out = _step(model, hardware, b, c, kk + 1.0, kv_write, anc) / _step(model, hardware, b, c, 1.0, kv_write)
    return to_output(out, is_scalar_input(k, batch, context))


def draft_cost(draft: Model, target: Model, hardware: Hardware, batch: ArrayLike = 1, context: ArrayLike = 0, *,
               draft_hardware: Hardware | None = None, kv_write: bool | None = None,
               kv_budget: int | None = None) -> float | np.ndarray:
    r"""``c_draft``: one draft decode step as a fraction of one target decode step.

    .. math:: c_d = \frac{T_\text{draft}(B, \min(C, \text{budget}), 1)}{T_\text{target}(B, C, 1)}

    Both models run at the same batch and context; the draft on
    ``draft_hardware`` if given (e.g. a separate GPU), else on ``hardware``.

    ``kv_budget`` caps the draft's KV cache per sequence (a windowed cache, as MagicDec uses;
    its effect on ``alpha`` is not modelled). Pass the result as ``draft_cost_override`` to
    :func:`specdec.serving.deployment.speculative_costs`.

    Defined in chapter "The roofline model"; the
    capped cache in chapter "When speculation does not help".

    Parameters
    ----------
    draft, target : Model
    hardware : Hardware
        Where the target runs (and the draft, unless ``draft_hardware``).
    batch, context, kv_write
        As in :func:`step_time`.
    draft_hardware : Hardware, optional
        Where the draft runs.
    kv_budget : int, optional
        Largest number of cached tokens the draft attends to, a single whole
        number >= 0. Default ``None``: the full cache.

    Returns
    -------
    float or numpy.ndarray
        Dimensionless ratio (>= 0).

    Examples
    --------
    While both are memory-bound, on the ideal roofline the ratio of weight
    bytes (the calibrated default adds the fixed cost and the all-reduces):

    >>> import specdec as sd
    >>> h = sd.hardware
    >>> round(h.draft_cost(h.LLAMA_8B, h.LLAMA_70B, h.H100.scaled(8)), 3)
    0.256
    >>> hw = h.H100_IDEAL.scaled(8)
    >>> round(h.draft_cost(h.LLAMA_8B, h.LLAMA_70B, hw), 4)
    0.1138
    >>> round(h.draft_cost(h.LLAMA_8B, h.LLAMA_70B, hw, 32, 32768), 3)
    0.317
    >>> round(h.draft_cost(h.LLAMA_8B, h.LLAMA_70B, hw, 32, 32768, kv_budget=512), 3)
    0.038
    """
    draft = _check_model(draft, "draft")
    target = _check_model(target, "target")
    hardware = _check_hardware(hardware)
    dhw = hardware if draft_hardware is None else _check_hardware(draft_hardware, "draft_hardware")
    kv_write = _kv_flag(kv_write, hardware)
    b, c, _ = _shape_args(batch, context, 1)
    c_draft = c if kv_budget is None else np.minimum(c, float(check_scalar(kv_budget, "kv_budget", check_integer,
                                                                            minimum=0)))
    out = _step(draft, dhw, b, c_draft, 1.0, kv_write) / _step(target, hardware, b, c, 1.0, kv_write)
    return to_output(out, is_scalar_input(batch, context))


def ridge_batch(model: Model, hardware: Hardware) -> float:
    r"""Tokens per step at which a weights-only pass turns compute-bound.

    .. math:: B^\ast = \frac{F}{BW}\cdot\frac{\text{bytes\_per\_param}}{2}

    From ``W / BW = 2 N B / F`` with ``W = N * bytes_per_param``, in tokens per step (batch
    times new tokens); KV-cache traffic is in :func:`crossover_batch`. Not rounded.

    Defined in chapter "The roofline model".

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.hardware.ridge_batch(sd.hardware.LLAMA_8B, sd.hardware.H100_IDEAL), 1)
    295.2
    >>> round(sd.hardware.ridge_batch(sd.hardware.LLAMA_8B, sd.hardware.H100), 1)   # achievable rates
    295.2
    """
    model = _check_model(model)
    hardware = _check_hardware(hardware)
    bw, fl, _ = _rates(model, hardware)  # achievable rates on a calibrated hardware
    return float(fl / bw * model.bytes_per_param / 2.0)


def crossover_batch(model: Model, hardware: Hardware, context: ArrayLike = 0, new_tokens: ArrayLike = 1, *,
                    kv_write: bool | None = None) -> float | np.ndarray:
    r"""Batch at which a pass turns compute-bound, KV-cache traffic included.

    Bytes and FLOPs both grow linearly in the batch ``B``:
    ``bytes = W + B m`` with ``m = C m_KV`` (``+ n m_KV`` with writes) and
    ``FLOPs = B f`` with ``f = n (2N + 4 n_layers d_attn C)``. The pass is
    compute-bound when ``B f / F >= (W + B m) / BW``, i.e. for

    .. math:: B \ge \frac{W / BW}{f / F - m / BW}

    ``inf`` when ``f / F <= m / BW`` (memory-bound at every batch). Equals
    :func:`ridge_batch` / ``new_tokens`` at context 0 without KV writes.

    Defined in chapter "The roofline model".

    Arguments as in :func:`step_time`; returns the batch (real, not
    rounded) or ``inf``.

    Examples
    --------
    >>> import specdec as sd
    >>> m, hw = sd.hardware.LLAMA_8B, sd.hardware.H100_IDEAL
    >>> round(sd.hardware.crossover_batch(m, hw, context=0), 1)
    295.2
    >>> sd.hardware.crossover_batch(m, hw, context=8192)
    inf
    """
    model = _check_model(model)
    hardware = _check_hardware(hardware)
    kv_write = _kv_flag(kv_write, hardware)
    _, c, n = _shape_args(1, context, new_tokens)
    return to_output(_crossover_batch(model, hardware, c, n, kv_write), is_scalar_input(context, new_tokens))


def _crossover_batch(model: Model, hardware: Hardware, c: np.ndarray, n: np.ndarray,
                     kv_write: bool | None) -> np.ndarray:
    """:func:`crossover_batch` of checked inputs (float arrays; ``kv_write`` None: the hardware's default); checks
    nothing."""
    kv_write = _kv_flag(None, hardware) if kv_write is None else kv_write
    bw, fl, rep = _rates(model, hardware)
    causal = not hardware.is_ideal and hardware.calibration.causal_attention
    per_seq_bytes = _bytes(model, 1.0, c, n, kv_write, rep) - model.weight_bytes
    per_seq_flops = _flops(model, 1.0, c, n, causal)
    denom = per_seq_flops / fl - per_seq_bytes / bw
    with np.errstate(divide="ignore"):
        return np.where(denom > 0, (model.weight_bytes / bw) / np.where(denom > 0, denom, 1.0), np.inf)


def utilization(model: Model, hardware: Hardware, batch: ArrayLike, new_tokens: ArrayLike = 1, context: ArrayLike = 0,
                *, kv_write: bool | None = None) -> float | np.ndarray:
    """Fraction of the hardware's peak FLOP/s a pass uses.

    ``FLOPs / (step_time * flops)``: equals 1 when compute-bound, and
    ``tokens per step / ridge_batch`` for a memory-bound weights-only pass.

    Defined in chapter "The roofline model".

    Arguments as in :func:`step_time`; returns a fraction in (0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.hardware.utilization(sd.hardware.LLAMA_8B, sd.hardware.H100_IDEAL, batch=1), 5)
    0.00339
    >>> round(sd.hardware.utilization(sd.hardware.LLAMA_8B, sd.hardware.H100, batch=1), 5)
    0.00239
    """
    model = _check_model(model)
    hardware = _check_hardware(hardware)
    kv_write = _kv_flag(kv_write, hardware)
    b, c, n = _shape_args(batch, context, new_tokens)
    out = _flops(model, b, c, n) / (_step(model, hardware, b, c, n, kv_write) * hardware.flops)
    return to_output(out, is_scalar_input(batch, new_tokens, context))



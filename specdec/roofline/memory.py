"""Memory accounting: what fits next to the weights, and what a draft takes away.

:func:`memory_footprint` is the one place the sum is written: the target's weights, a separate
draft's weights, other reserved bytes, and per sequence the target's (and the draft's) KV cache
for its context plus ``k`` candidate slots during verification.
:func:`max_concurrent_sequences` solves it for the batch; :func:`specdec.serving.deployment.speculative_costs`
uses it for its ``fits`` verdicts. Bytes everywhere; a model's bytes per KV token is
:attr:`specdec.roofline.hardware.Model.kv_bytes_per_token`.

Defined in chapter "Latency, throughput and memory".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_instance,
    check_integer,
    check_nonnegative,
    is_scalar_input,
    to_output,
)
from specdec.roofline.hardware import Hardware, Model

__all__ = [
    "MemoryFootprint",
    "memory_footprint",
    "kv_cache_bytes",
    "candidate_kv_bytes",
    "max_concurrent_sequences",
    "concurrency_lost_to_draft",
]


@dataclass(frozen=True)
class MemoryFootprint:
    """Bytes held by a batch of sequences, as returned by :func:`memory_footprint`.

    Defined in chapter "Latency, throughput and memory".

    Attributes
    ----------
    weights : float
        Target weights plus draft weights (0 for the draft without one), bytes.
    extra : float or numpy.ndarray
        Other reserved bytes.
    batch : float or numpy.ndarray
        Sequences held (as floats; 0 is allowed).
    tokens_per_sequence : float or numpy.ndarray
        KV slots per sequence, ``context + k``.
    kv_bytes_per_token : float
        KV bytes per slot: the target's plus the draft's.
    """

    weights: float
    extra: float | np.ndarray
    batch: float | np.ndarray
    tokens_per_sequence: float | np.ndarray
    kv_bytes_per_token: float

    @property
    def kv_cache(self) -> float | np.ndarray:
        """KV-cache bytes, ``batch * (context + k) * kv_bytes_per_token``."""
        return self.batch * self.tokens_per_sequence * self.kv_bytes_per_token

    @property
    def total(self) -> float | np.ndarray:
        """All bytes, ``weights + extra + kv_cache``."""
        return self.weights + self.extra + self.batch * self.tokens_per_sequence * self.kv_bytes_per_token

    def fits(self, memory: float) -> np.ndarray | bool:
        """Whether ``total <= memory`` (bytes): a ``bool``, or a boolean array."""
        out = np.asarray(self.total <= memory)
        return bool(out) if out.ndim == 0 else out

    def max_batch(self, memory: float) -> float | np.ndarray:
        """Most sequences that fit in ``memory`` bytes: ``floor((memory - weights - extra) / per sequence)``, >= 0."""
        free = memory - self.weights - self.extra
        per_sequence = self.tokens_per_sequence * self.kv_bytes_per_token
        out = np.maximum(np.floor(free / per_sequence), 0.0).astype(np.int64)
        return int(out) if out.ndim == 0 else out


def memory_footprint(target: Model, batch: ArrayLike, context: ArrayLike, *, draft: Model | None = None,
                     k: ArrayLike = 0, extra_bytes: ArrayLike = 0.0) -> MemoryFootprint:
    r"""Bytes a batch of sequences holds in memory, weights included.

    .. math:: M_\text{used} = W + W_d + E + B\,(C + k)\,(m_\text{KV} + m_{\text{KV},d})

    ``W`` target weights, ``W_d`` draft weights (0 without a draft), ``E``
    extra bytes, ``B`` sequences of ``C`` context tokens each with ``k``
    candidate slots, ``m_KV`` the target's KV bytes per token and
    ``m_KV,d`` the draft's (0 without a draft).

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    target : specdec.roofline.hardware.Model
        The target model.
    batch : int or array_like of int
        Sequences, >= 0.
    context : int or array_like of int
        Context tokens per sequence, >= 0.
    draft : specdec.roofline.hardware.Model, optional
        A draft model held in the same memory.
    k : int or array_like of int, optional
        Candidate KV slots per sequence, >= 0. Default 0.
    extra_bytes : float or array_like, optional
        Other reserved bytes, >= 0. Default 0.

    Returns
    -------
    MemoryFootprint
        ``.total`` (bytes), ``.kv_cache``, ``.fits(memory)``, ``.max_batch(memory)``.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> m = sd.memory.memory_footprint(h.LLAMA_70B, 128, 8192, draft=h.LLAMA_8B, k=5)
    >>> round(m.total / 1e9, 1), m.fits(h.H100.scaled(8).memory)
    (638.5, True)
    """
    target = check_instance(target, Model, "target")
    b = check_integer(batch, "batch", minimum=0).astype(float)
    c = check_integer(context, "context", minimum=0).astype(float)
    kk = check_integer(k, "k", minimum=0).astype(float)
    e = check_nonnegative(extra_bytes, "extra_bytes", "(bytes)")
    draft = None if draft is None else check_instance(draft, Model, "draft")
    return _memory_footprint(target, b, c, kk, e, draft, is_scalar_input(batch, context, k, extra_bytes))


def _memory_footprint(target: Model, b: np.ndarray, c: np.ndarray, kk: np.ndarray, e: np.ndarray,
                      draft: Model | None, scalar: bool) -> MemoryFootprint:
    """:func:`memory_footprint` of checked values (batch, context, k as float arrays)."""
    check_broadcast(batch=b, context=c, k=kk, extra_bytes=e)
    weights = target.weight_bytes
    per_token = target.kv_bytes_per_token
    if draft is not None:
        weights += draft.weight_bytes
        per_token += draft.kv_bytes_per_token
    if scalar:
        return MemoryFootprint(weights=weights, extra=float(e), batch=float(b), tokens_per_sequence=float(c + kk),
                               kv_bytes_per_token=per_token)
    return MemoryFootprint(weights=weights, extra=e if e.ndim else float(e), batch=b, tokens_per_sequence=c + kk,
                           kv_bytes_per_token=per_token)


def kv_cache_bytes(model: Model, batch: ArrayLike, context: ArrayLike) -> float | np.ndarray:
    """KV-cache bytes held by ``batch`` sequences of ``context`` tokens.

    ``batch * context * model.kv_bytes_per_token`` (the KV part of
    :func:`memory_footprint`).

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model : specdec.roofline.hardware.Model
    batch : int or array_like of int
        Sequences, >= 1.
    context : int or array_like of int
        Tokens per sequence, >= 0.

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.memory.kv_cache_bytes(sd.hardware.LLAMA_70B, batch=1, context=1) / 1024   # KiB per token
    320.0
    """
    check_instance(model, Model, "model")
    b = check_integer(batch, "batch", minimum=1).astype(float)
    c = check_integer(context, "context", minimum=0).astype(float)
    out = _memory_footprint(model, b, c, np.zeros(()), np.zeros(()), None, is_scalar_input(batch, context)).kv_cache
    return to_output(out, is_scalar_input(batch, context))


def candidate_kv_bytes(model: Model, batch: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    """KV-cache bytes written for the draft candidates of one round: ``B * k * m_KV``.

    The first source's "candidate KV cache memory ``B x gamma x m_KV/token``":
    verification writes keys and values for the ``k`` candidate positions of
    every sequence, and the rejected ones are rolled back. Compare with the
    context's own cache, ``B * C * m_KV`` (:func:`kv_cache_bytes`): the ratio
    is ``k / C``.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    model : specdec.roofline.hardware.Model
        The target model (sets ``m_KV``, bytes per token).
    batch : int or array_like of int
        Concurrent sequences, >= 1.
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.memory.candidate_kv_bytes(sd.hardware.LLAMA_70B, 32, 5) / 2**20   # MiB
    50.0
    """
    check_instance(model, Model, "model")
    b = check_integer(batch, "batch", minimum=1).astype(float)
    kk = check_integer(k, "k", minimum=1).astype(float)
    out = _memory_footprint(model, b, np.zeros(()), kk, np.zeros(()), None, is_scalar_input(batch, k)).kv_cache
    return to_output(out, is_scalar_input(batch, k))


def max_concurrent_sequences(model: Model, hardware: Hardware, context: ArrayLike, draft: Model | None = None,
                             extra_bytes: ArrayLike = 0, *, k: ArrayLike = 0) -> int | np.ndarray:
    """How many sequences of ``context`` tokens fit in memory after the weights.

    .. math:: \\left\\lfloor \\frac{M - W - W_d - E}{(C + k)(m_\\text{KV} + m_{\\text{KV},d})} \\right\\rfloor

    :func:`memory_footprint` solved for the batch: ``M`` memory, ``W`` target
    weights, ``W_d`` draft weights (0 without a draft), ``E`` extra bytes
    (e.g. prediction heads or activations), and each sequence keeps ``C + k``
    tokens of KV cache (``k`` candidate slots during verification) in the
    target and, with a draft, in the draft too. 0 when the weights alone do
    not fit.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model : specdec.roofline.hardware.Model
        The target.
    hardware : specdec.roofline.hardware.Hardware
    context : int or array_like of int
        Tokens per sequence, >= 1.
    draft : specdec.roofline.hardware.Model, optional
        A draft model held in the same memory.
    extra_bytes : float or array_like, optional
        Other reserved bytes, >= 0.
    k : int or array_like of int, optional
        Candidate KV slots per sequence, >= 0. Default 0.

    Returns
    -------
    int or numpy.ndarray of int
        Sequences (>= 0).

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> hw = h.H100.scaled(8)
    >>> sd.memory.max_concurrent_sequences(h.LLAMA_70B, hw, context=8192)
    185
    >>> sd.memory.max_concurrent_sequences(h.LLAMA_70B, hw, context=8192, draft=h.LLAMA_8B, k=5)
    128
    """
    hardware, c, kk, e, draft = _capacity_args(model, hardware, context, k, extra_bytes, draft)
    return to_output(_max_concurrent(model, hardware, c, kk, e, draft), is_scalar_input(context, extra_bytes, k),
                     kind=int)


def _capacity_args(model: Any, hardware: Any, context: Any, k: Any, extra_bytes: Any,
                   draft: Any) -> tuple[Hardware, np.ndarray, np.ndarray, np.ndarray, Model | None]:
    """The checked arguments of :func:`max_concurrent_sequences` (context and k as float arrays)."""
    check_instance(model, Model, "model")
    hardware = check_instance(hardware, Hardware, "hardware")
    c = check_integer(context, "context", minimum=1).astype(float)
    kk = check_integer(k, "k", minimum=0).astype(float)
    e = check_nonnegative(extra_bytes, "extra_bytes", "(bytes)")
    return hardware, c, kk, e, None if draft is None else check_instance(draft, Model, "draft")


def _max_concurrent(model: Model, hardware: Hardware, c: np.ndarray, kk: np.ndarray, e: np.ndarray,
                    draft: Model | None) -> float | np.ndarray:
    """:func:`max_concurrent_sequences` of checked values (context, k as float arrays); checks nothing."""
    return _memory_footprint(model, np.ones(()), c, kk, e, draft, False).max_batch(hardware.memory)


def concurrency_lost_to_draft(model: Model, hardware: Hardware, context: int, draft: Model | None = None,
                              extra_bytes: int = 0, *, k: int = 0) -> int | np.ndarray:
    """Sequences that no longer fit once a draft (or heads) shares the memory.

    ``max_concurrent_sequences(model, hardware, context)`` minus the same
    with ``draft``, ``extra_bytes`` and ``k`` candidate slots.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    model, hardware, context, draft, extra_bytes, k
        As in :func:`max_concurrent_sequences`.

    Returns
    -------
    int or numpy.ndarray of int
        Lost sequences (>= 0).

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> sd.memory.concurrency_lost_to_draft(h.LLAMA_70B, h.H100.scaled(8), 8192, draft=h.LLAMA_8B, k=5)
    57
    """
    hardware, c, kk, e, draft = _capacity_args(model, hardware, context, k, extra_bytes, draft)
    base = _max_concurrent(model, hardware, c, np.zeros(()), np.zeros(()), None)
    spec = _max_concurrent(model, hardware, c, kk, e, draft)
    out = np.asarray(base) - np.asarray(spec)
    return to_output(out, is_scalar_input(context, extra_bytes, k), kind=int)

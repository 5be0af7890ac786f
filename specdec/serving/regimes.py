"""Where speculation helps, is neutral or hurts; latency against throughput; capacity plans.

Throughput and latency of a memory-limited replica (:func:`capacity_comparison`), replica counts
planned right and by a latency speedup (:func:`capacity_plan`), and the three regimes over
(alpha, batch) and (alpha, prefill share) (:func:`batch_alpha_map`, :func:`prefill_alpha_map`,
:func:`diagnose`), with the thresholds of :mod:`specdec.decision.policy`.

Defined in chapters "Latency, throughput and memory" and "When not to use it".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    describe,
    is_scalar_input,
    to_output,
)
from specdec.decision.policy import HELPS_ABOVE, HURTS_BELOW, REGIME_NAMES, _classify_speedup, check_thresholds
from specdec.economics import _break_even_alpha
from specdec.economics.request import _amdahl, decode_time, end_to_end_speedup
from specdec.roofline.hardware import _crossover_batch, validate_setup
from specdec.roofline.memory import _max_concurrent
from specdec.serving import deployment as _dep
from specdec.serving.deployment import _costs_of, _speculative_kernel, _speedup_of

if TYPE_CHECKING:
    from specdec.roofline.presets import Hardware, Model

__all__ = [
    "prefill_share",
    "max_prefill_share",
    "RegimeMap",
    "batch_alpha_map",
    "prefill_alpha_map",
    "CapacityComparison",
    "capacity_comparison",
    "CapacityPlan",
    "capacity_plan",
    "Diagnosis",
    "diagnose",
]

def prefill_share(ttft: ArrayLike, tpot: ArrayLike, output_tokens: ArrayLike) -> float | np.ndarray:
    """Share of a plain request's time spent before the first token.

    ``ttft / (ttft + tpot * (output_tokens - 1))``.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    ttft : float or array_like
        Time to first token, >= 0 (any time unit).
    tpot : float or array_like
        Time per output token after the first, > 0, same unit.
    output_tokens : float or array_like
        Output tokens per request, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Share in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> sd.regimes.prefill_share(ttft=100.0, tpot=5.0, output_tokens=21)
    0.5
    """
    tf = check_nonnegative(ttft, "ttft", "(time)")
    decode = np.asarray(decode_time(tpot, output_tokens), dtype=float)
    check_broadcast(ttft=tf, **{"tpot and output_tokens": decode})
    total = tf + decode
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, tf / np.where(total > 0, total, 1.0), 1.0)   # no decode and no TTFT: all prefill
    return to_output(out, is_scalar_input(ttft, tpot, output_tokens))


def max_prefill_share(decode_speedup: ArrayLike, required: ArrayLike = HELPS_ABOVE) -> float | np.ndarray:
    r"""Largest prefill share at which the end-to-end speedup still reaches ``required``.

    Solving :func:`specdec.economics.request.end_to_end_speedup` ``= R`` for ``p``:

    .. math:: p^* = \frac{1/R - 1/S}{1 - 1/S}

    ``nan`` when ``S <= R``.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    decode_speedup : float or array_like
        Per-token decode speedup ``S``, > 0.
    required : float or array_like, optional
        Required end-to-end speedup ``R``, >= 1. Default :data:`specdec.decision.policy.HELPS_ABOVE`.

    Returns
    -------
    float or numpy.ndarray
        ``p*`` in [0, 1], or ``nan``.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.regimes.max_prefill_share(2.0, 1.25), 6)     # (0.8 - 0.5) / 0.5
    0.6
    """
    s = check_positive(decode_speedup, "decode_speedup", "(ratio)")
    r = check_positive(required, "required", "(ratio)")
    if (r < 1).any():
        raise ValueError(f"required must be >= 1 (an end-to-end speedup); got {describe(r[r < 1].flat[0])}")
    check_broadcast(decode_speedup=s, required=r)
    return to_output(_max_prefill_share(s, r), is_scalar_input(decode_speedup, required))


def _max_prefill_share(s: np.ndarray, r: np.ndarray) -> np.ndarray:
    """:func:`max_prefill_share` of checked arrays that broadcast; checks nothing."""
    s, r = np.broadcast_arrays(s, r)
    ok = s > r
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, (1.0 / r - 1.0 / s) / np.where(ok, 1.0 - 1.0 / s, 1.0), np.nan)


@dataclass(frozen=True)
class RegimeMap:
    """Speedup and regime over a grid of acceptance rates and a second variable.

    Defined in chapter "When not to use it".

    Attributes
    ----------
    alphas : numpy.ndarray
        Acceptance rates (rows of ``speedup``).
    values : numpy.ndarray
        The second variable (columns): batches or prefill shares.
    variable : str
        ``"batch"`` or ``"prefill share"``.
    speedup : numpy.ndarray
        Shape ``(len(alphas), len(values))``.
    regime : numpy.ndarray of int
        :func:`specdec.decision.policy.classify_speedup` of ``speedup``.
    helps_above, hurts_below : float
        The thresholds used.
    settings : dict
        The remaining inputs (model names, k, context, batch), for captions.
    """

    alphas: np.ndarray
    values: np.ndarray
    variable: str
    speedup: np.ndarray
    regime: np.ndarray
    helps_above: float
    hurts_below: float
    settings: dict

    def share(self, code: int) -> float:
        """Fraction of the grid's cells in regime ``code`` (1, 0 or -1)."""
        if code not in REGIME_NAMES:
            raise ValueError(f"code must be one of {sorted(REGIME_NAMES)}; got {describe(code)}")
        return float(np.mean(self.regime == code))


def _grid_1d(values: ArrayLike, name: str, check: Callable[..., Any]) -> np.ndarray:
    arr = check(values, name)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"{name} must be a non-empty 1-D array; got shape {arr.shape}")
    return arr


def batch_alpha_map(target: Model, draft: Model, hardware: Hardware, alphas: ArrayLike, batches: ArrayLike, k: int = 5,
                    context: int = 0, *, helps_above: float = HELPS_ABOVE, hurts_below: float = HURTS_BELOW,
                    draft_cost_override: ArrayLike | None = None, t_overhead: float = 0.0) -> RegimeMap:
    """Regimes of speculation over (acceptance rate, batch) on the roofline model.

    :func:`specdec.serving.deployment.speculative_speedup` over the grid, then
    :func:`specdec.decision.policy.classify_speedup`. Memory is not checked.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
        ``draft`` may be ``None`` with ``draft_cost_override``.
    hardware : specdec.roofline.hardware.Hardware
    alphas : array_like
        1-D grid of acceptance rates in [0, 1].
    batches : array_like of int
        1-D grid of batches, >= 1.
    k : int, optional
        Drafts per round, >= 1. Default 5.
    context : int, optional
        Tokens cached per sequence, >= 0. Default 0.
    helps_above, hurts_below : float, optional
        Thresholds (see :func:`specdec.decision.policy.classify_speedup`).
    draft_cost_override, t_overhead : float, optional
        As in :func:`specdec.serving.deployment.speculative_costs`.

    Returns
    -------
    RegimeMap

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> m = sd.regimes.batch_alpha_map(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), [0.3, 0.8], [1, 256])
    >>> m.regime          # rows: alpha 0.3, 0.8; columns: batch 1, 256
    array([[-1, -1],
           [ 1, -1]])
    """
    a = _grid_1d(alphas, "alphas", check_probability)
    b = _grid_1d(batches, "batches", lambda v, n: check_integer(v, n, minimum=1))
    for value, name in ((k, "k"), (context, "context")):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    ha, hb = check_thresholds(helps_above, hurts_below)
    s = np.asarray(_dep.speculative_speedup(target, draft, hardware, a[:, None], k, b[None, :], context,
                                           t_overhead=t_overhead, draft_cost_override=draft_cost_override), dtype=float)
    s = np.broadcast_to(s, (a.size, b.size)).copy()
    settings = dict(target=target.name, draft=None if draft is None else draft.name, hardware=hardware.name,
                    k=int(k), context=int(context))
    return RegimeMap(a, b.astype(np.int64), "batch", s, _classify_speedup(s, ha, hb), ha, hb, settings)


def prefill_alpha_map(target: Model, draft: Model, hardware: Hardware, alphas: ArrayLike, prefill_shares: ArrayLike,
                      k: int = 5, batch: int = 1, context: int = 0, *, helps_above: float = HELPS_ABOVE,
                      hurts_below: float = HURTS_BELOW, draft_cost_override: ArrayLike | None = None,
                      t_overhead: float = 0.0) -> RegimeMap:
    """Regimes of speculation over (acceptance rate, prefill share of request time).

    The decode speedup comes from :func:`specdec.serving.deployment.speculative_speedup`
    at ``batch`` and ``context``; the end-to-end speedup from
    :func:`specdec.economics.request.end_to_end_speedup`.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    target, draft, hardware
        As in :func:`batch_alpha_map`.
    alphas : array_like
        1-D grid of acceptance rates in [0, 1].
    prefill_shares : array_like
        1-D grid of prefill shares in [0, 1].
    k, batch, context : int, optional
        Drafts per round (default 5), batch (default 1), context (default 0).
    helps_above, hurts_below, draft_cost_override, t_overhead
        As in :func:`batch_alpha_map`.

    Returns
    -------
    RegimeMap

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> m = sd.regimes.prefill_alpha_map(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), [0.8], [0.0, 0.95])
    >>> m.speedup.round(3), m.regime
    (array([[1.615, 1.019]]), array([[1, 0]]))
    """
    a = _grid_1d(alphas, "alphas", check_probability)
    p = _grid_1d(prefill_shares, "prefill_shares", check_probability)
    for value, name in ((k, "k"), (batch, "batch"), (context, "context")):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    ha, hb = check_thresholds(helps_above, hurts_below)
    s_dec = np.asarray(_dep.speculative_speedup(target, draft, hardware, a, k, batch, context, t_overhead=t_overhead,
                                               draft_cost_override=draft_cost_override), dtype=float)
    s = np.asarray(end_to_end_speedup(np.broadcast_to(s_dec, a.shape)[:, None], p[None, :]), dtype=float)
    settings = dict(target=target.name, draft=None if draft is None else draft.name, hardware=hardware.name,
                    k=int(k), batch=int(batch), context=int(context))
    return RegimeMap(a, p, "prefill share", s, _classify_speedup(s, ha, hb), ha, hb, settings)


@dataclass(frozen=True)
class CapacityComparison:
    """A replica at its memory limit, without and with speculation.

    Defined in chapter "Latency, throughput and memory".

    Attributes
    ----------
    batch_baseline, batch_speculative : int or numpy.ndarray
        Most sequences that fit: target alone, and target + draft with ``k``
        candidate slots (:func:`specdec.roofline.memory.max_concurrent_sequences`).
    throughput_baseline, throughput_speculative : float or numpy.ndarray
        Tokens/s per replica at those batches.
    latency_baseline, latency_speculative : float or numpy.ndarray
        Seconds per output token per sequence at those batches.
    speedup_at_speculative_batch : float or numpy.ndarray
        The speedup at the speculative batch (what a same-batch test measures).
    """

    batch_baseline: float | np.ndarray
    batch_speculative: float | np.ndarray
    throughput_baseline: float | np.ndarray
    throughput_speculative: float | np.ndarray
    latency_baseline: float | np.ndarray
    latency_speculative: float | np.ndarray
    speedup_at_speculative_batch: float | np.ndarray

    @property
    def throughput_ratio(self) -> float | np.ndarray:
        """Speculative over baseline tokens/s per replica at capacity."""
        return _ratio(self.throughput_speculative, self.throughput_baseline)

    @property
    def latency_ratio(self) -> float | np.ndarray:
        """Speculative over baseline seconds per token at capacity (< 1: faster tokens)."""
        return _ratio(self.latency_speculative, self.latency_baseline)

    @property
    def memory_factor(self) -> float | np.ndarray:
        """Share of the baseline's throughput kept at the smaller batch: ``throughput_ratio / speedup``."""
        return _ratio(self.throughput_ratio, self.speedup_at_speculative_batch)

    @property
    def lost_sequences(self) -> int:
        """``batch_baseline - batch_speculative``."""
        out = np.asarray(self.batch_baseline) - np.asarray(self.batch_speculative)
        return int(out) if out.ndim == 0 else out


def _ratio(a: float | np.ndarray, b: float | np.ndarray) -> float | np.ndarray:
    out = np.asarray(a, dtype=float) / np.asarray(b, dtype=float)
    return float(out) if out.ndim == 0 else out


def capacity_comparison(target: Model, draft: Model, hardware: Hardware, alpha: ArrayLike, k: int, context: ArrayLike,
                        *, t_overhead: float = 0.0, extra_bytes: float = 0.0) -> CapacityComparison:
    """Throughput and latency of a full replica (memory-limited batch), with and without a draft.

    Each side runs its :func:`specdec.roofline.memory.max_concurrent_sequences` batch (the
    speculative one with the draft and ``k`` candidate slots) and costs from
    :func:`specdec.serving.deployment.speculative_costs`; ``throughput_ratio =
    speedup_at_speculative_batch * memory_factor``.

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float or array_like
        Acceptance rate in [0, 1].
    k : int
        Drafts per round, >= 1 (a single number).
    context : int or array_like of int
        Tokens per sequence, >= 1.
    t_overhead : float, optional
        Per-round overhead in seconds, >= 0.
    extra_bytes : float, optional
        Memory held back from the KV cache on both sides (activations, CUDA graphs,
        fragmentation), bytes, >= 0. Default 0 (an optimistic bound).

    Returns
    -------
    CapacityComparison

    Raises
    ------
    ValueError
        When the weights (and ``extra_bytes``) leave no room for a single
        sequence with the draft.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> r = sd.regimes.capacity_comparison(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 2048)
    >>> r.batch_baseline, r.batch_speculative
    (743, 512)
    >>> round(r.throughput_ratio, 3), round(r.latency_ratio, 3)
    (0.751, 0.918)
    """
    if np.ndim(k) != 0:
        raise TypeError(f"k must be a single whole number, got an array of shape {np.shape(k)}")
    a = check_probability(alpha, "alpha")
    c = check_integer(context, "context", minimum=1)
    if np.ndim(extra_bytes) != 0:
        raise TypeError(f"extra_bytes must be a single number, got an array of shape {np.shape(extra_bytes)}")
    extra = float(check_nonnegative(extra_bytes, "extra_bytes", "(bytes)"))
    validate_setup(target, draft, hardware)
    kk = check_integer(k, "k", minimum=1).astype(float)
    to = check_nonnegative(t_overhead, "t_overhead", "(seconds)")
    if draft is None:
        raise ValueError("draft must be a Model unless draft_cost_override is given")
    cf, e = c.astype(float), np.asarray(extra)
    b0 = np.asarray(_max_concurrent(target, hardware, cf, np.zeros(()), e, None))
    b1 = np.asarray(_max_concurrent(target, hardware, cf, kk, e, draft))
    if (b1 < 1).any():
        raise ValueError("the target and draft weights (with extra_bytes held back) leave no memory for a single "
                         "sequence at this context")

    def costs(batch: np.ndarray) -> _dep.SpeculativeCosts:
        bf = batch.astype(float)
        check_broadcast(alpha=a, k=kk, batch=bf, context=cf, t_overhead=to)
        r = _speculative_kernel(target, draft, hardware, a, kk, bf, cf, to, None, None, None)
        r["extra"] = 0.0
        return _costs_of(r)
    base, spec = costs(b0), costs(b1)
    scalar = is_scalar_input(alpha, context)
    out = lambda x: to_output(np.asarray(x, dtype=float), scalar)  # noqa: E731
    return CapacityComparison(
        batch_baseline=to_output(np.broadcast_to(b0, np.shape(base.t0)).copy(), scalar, kind=int),
        batch_speculative=to_output(np.broadcast_to(b1, np.shape(spec.t0)).copy(), scalar, kind=int),
        throughput_baseline=out(base.throughput_baseline), throughput_speculative=out(spec.throughput_speculative),
        latency_baseline=out(base.latency_baseline), latency_speculative=out(spec.latency_speculative),
        speedup_at_speculative_batch=out(spec.speedup))


@dataclass(frozen=True)
class CapacityPlan:
    """Replica counts for a token demand: the right plan and the latency-speedup mistake.

    Defined in chapter "Latency, throughput and memory".

    Attributes
    ----------
    demand : float
        Tokens/s the pool must serve.
    replicas_baseline : int
        ``ceil(demand / throughput_baseline)``: the plan without speculation.
    replicas_mistaken : int
        ``ceil(replicas_baseline / latency_speedup)``: the baseline plan
        divided by a latency speedup (the mistake).
    replicas_needed : int
        ``ceil(demand / throughput_speculative)``: what speculation really needs.
    served_by_mistaken : float
        Tokens/s the mistaken plan delivers, ``replicas_mistaken * throughput_speculative``.
    """

    demand: float
    replicas_baseline: int
    replicas_mistaken: int
    replicas_needed: int
    served_by_mistaken: float

    @property
    def shortfall(self) -> int:
        """Replicas missing from the mistaken plan (``replicas_needed - replicas_mistaken``)."""
        return self.replicas_needed - self.replicas_mistaken

    @property
    def served_fraction(self) -> float:
        """Share of the demand the mistaken plan serves."""
        return self.served_by_mistaken / self.demand


def capacity_plan(demand: float, throughput_baseline: float, throughput_speculative: float,
                  latency_speedup: float) -> CapacityPlan:
    """Replicas for a token demand, planned right and planned with a latency speedup.

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    demand : float
        Tokens/s to serve, > 0.
    throughput_baseline : float
        Tokens/s per replica without speculation at its operating point, > 0.
    throughput_speculative : float
        Tokens/s per replica with speculation at its operating point, > 0.
    latency_speedup : float
        The per-token speedup measured for latency, > 0.

    Returns
    -------
    CapacityPlan

    Examples
    --------
    >>> import specdec as sd
    >>> p = sd.regimes.capacity_plan(1000.0, 100.0, 80.0, 2.0)
    >>> p.replicas_baseline, p.replicas_mistaken, p.replicas_needed, p.served_fraction
    (10, 5, 13, 0.4)
    """
    values = {}
    for value, name in ((demand, "demand"), (throughput_baseline, "throughput_baseline"),
                        (throughput_speculative, "throughput_speculative"), (latency_speedup, "latency_speedup")):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single number, got an array of shape {np.shape(value)}")
        values[name] = float(check_positive(value, name, "(tokens/s)" if name != "latency_speedup" else "(ratio)"))
    d = values["demand"]
    base = math.ceil(d / values["throughput_baseline"] - 1e-9)
    mistaken = max(1, math.ceil(base / values["latency_speedup"] - 1e-9))
    needed = math.ceil(d / values["throughput_speculative"] - 1e-9)
    return CapacityPlan(d, base, mistaken, needed, mistaken * values["throughput_speculative"])


@dataclass(frozen=True)
class Diagnosis:
    """Where one deployment falls on the regime maps, and which of the three reasons apply.

    Defined in chapter "When not to use it".

    Attributes
    ----------
    decode_speedup : float
        Per-token speedup at the deployment's batch and context.
    end_to_end_speedup : float
        After Amdahl's law with the prefill share.
    regime : int
        :func:`specdec.decision.policy.classify_speedup` of ``end_to_end_speedup``.
    alpha_to_help : float
        Smallest acceptance rate with a decode speedup above ``helps_above``
        at batch 1 and this context (``nan``: none).
    verify_compute_batch : float
        Batch at which the verification pass turns compute-bound
        (:func:`specdec.roofline.hardware.crossover_batch` with ``k + 1`` new tokens).
    max_prefill_share : float
        Largest prefill share keeping the end-to-end speedup above
        ``helps_above`` at this decode speedup (``nan``: none).
    low_acceptance, compute_bound, prefill_dominated : bool
        The source's three reasons: ``alpha < alpha_to_help``,
        ``batch >= verify_compute_batch`` and the decode speedup below
        ``helps_above``, ``prefill_share > max_prefill_share`` while the
        decode speedup alone would help.
    """

    decode_speedup: float
    end_to_end_speedup: float
    regime: int
    alpha_to_help: float
    verify_compute_batch: float
    max_prefill_share: float
    low_acceptance: bool
    compute_bound: bool
    prefill_dominated: bool

    @property
    def reasons(self) -> tuple:
        """Names of the reasons that apply, in the source's order."""
        names = (("structurally low acceptance", self.low_acceptance), ("compute-bound target", self.compute_bound),
                 ("prefill-dominated workload", self.prefill_dominated))
        return tuple(n for n, flag in names if flag)

    @property
    def verdict(self) -> str:
        """The regime's name."""
        return REGIME_NAMES[self.regime]


def diagnose(target: Model, draft: Model, hardware: Hardware, alpha: float, k: int, batch: int = 1, context: int = 0,
             prefill_share: float = 0.0, *, helps_above: float = HELPS_ABOVE,
             hurts_below: float = HURTS_BELOW) -> Diagnosis:
    """Place one deployment on the regime maps and say which of the three reasons apply.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float
        Measured acceptance rate in [0, 1].
    k : int
        Drafts per round, >= 1.
    batch : int, optional
        Operating batch, >= 1. Default 1.
    context : int, optional
        Typical tokens cached per sequence, >= 0. Default 0.
    prefill_share : float, optional
        Share of plain request time spent in prefill, in [0, 1]. Default 0.
    helps_above, hurts_below : float, optional
        Thresholds (see :func:`specdec.decision.policy.classify_speedup`).

    Returns
    -------
    Diagnosis

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> d = sd.regimes.diagnose(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, batch=256)
    >>> d.verdict, d.reasons
    ('hurts', ('compute-bound target',))
    """
    for value, name in ((alpha, "alpha"), (k, "k"), (batch, "batch"), (context, "context"),
                        (prefill_share, "prefill_share")):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single number, got an array of shape {np.shape(value)}")
    a = float(check_probability(alpha, "alpha"))
    kk = int(check_integer(k, "k", minimum=1))
    b = int(check_integer(batch, "batch", minimum=1))
    c = int(check_integer(context, "context", minimum=0))
    p = float(check_probability(prefill_share, "prefill_share"))
    ha, hb = check_thresholds(helps_above, hurts_below)
    validate_setup(target, draft, hardware)
    if draft is None:
        raise ValueError("draft must be a Model unless draft_cost_override is given")
    af, kf, cf, zero = np.asarray(a), np.asarray(float(kk)), np.asarray(float(c)), np.zeros(())
    r = _speculative_kernel(target, draft, hardware, af, kf, np.asarray(float(b)), cf, zero, None, None, None)
    s = float(_speedup_of(r))
    e2e = float(_amdahl(np.asarray(s), np.asarray(p), zero))
    r1 = _speculative_kernel(target, draft, hardware, af, kf, np.ones(()), cf, zero, None, None, None)
    a_help = float(_break_even_alpha(kf, np.asarray(ha * float(r1["cd"])), np.asarray(ha * float(r1["cv"]))))
    b_cross = float(_crossover_batch(target, hardware, cf, np.asarray(float(kk + 1)), None))
    p_max = float(_max_prefill_share(np.asarray(s), np.asarray(max(ha, 1.0))))
    low = bool(not np.isfinite(a_help) or a < a_help)
    compute = bool(b >= b_cross and s <= ha)
    prefill = bool(s > ha and p > p_max)
    return Diagnosis(s, e2e, int(_classify_speedup(e2e, ha, hb)), a_help, b_cross, p_max, low, compute, prefill)

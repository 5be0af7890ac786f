"""Speculative decoding on the roofline: costs, latency, throughput and the break-even batch.

A deployment's ``c_draft`` and ``c_verify`` from :mod:`specdec.roofline.hardware`, the speedup,
latency and throughput with and without speculation, whether the batch fits
(:mod:`specdec.roofline.memory`) and the break-even batch. Times in seconds, sizes in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_bool,
    check_broadcast,
    check_instance,
    check_integer,
    check_nonnegative,
    check_probability,
    check_scalar,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import _expected_tokens_array
from specdec.roofline.hardware import Hardware, _step_time, validate_setup
from specdec.roofline.memory import _max_concurrent, _memory_footprint

if TYPE_CHECKING:
    from specdec.roofline.presets import Model

__all__ = [
    "SpeculativeCosts",
    "Comparison",
    "speculative_costs",
    "speculative_throughput",
    "speculative_latency",
    "speculative_speedup",
    "break_even_batch",
    "batch_grid",
    "latency_throughput_in_memory",
    "speedup_up_to_capacity",
]


@dataclass(frozen=True)
class SpeculativeCosts:
    """Per-round costs of speculative decoding on the roofline (arrays broadcast).

    Defined in chapter "The roofline model".

    Attributes
    ----------
    t0 : ndarray
        Plain target decode step, seconds.
    t_draft : ndarray
        All ``k`` draft steps of a round, seconds.
    t_verify : ndarray
        Verification pass over ``k + 1`` tokens per sequence, seconds.
    t_overhead : ndarray
        Per-round overhead, seconds.
    c_draft, c_verify : ndarray
        One draft step and the verification pass (overhead included) as
        fractions of ``t0``.
    expected_tokens : ndarray
        ``E[L]`` per round per sequence.
    speedup : ndarray
        :func:`specdec.economics.speedup_from_costs` with these costs.
    batch : ndarray
        The batch (broadcast).
    fits : ndarray of bool
        Whether the target, the draft and ``batch`` sequences of
        ``context + k`` KV slots fit in memory.
    fits_baseline : ndarray of bool
        Whether the target alone with ``batch`` sequences fits.
    """

    t0: np.ndarray
    t_draft: np.ndarray
    t_verify: np.ndarray
    t_overhead: np.ndarray
    c_draft: np.ndarray
    c_verify: np.ndarray
    expected_tokens: np.ndarray
    speedup: np.ndarray
    batch: np.ndarray
    fits: np.ndarray
    fits_baseline: np.ndarray

    @property
    def t_round(self) -> float | np.ndarray:
        """Seconds per round, ``t_draft + t_verify + t_overhead``."""
        return self.t_draft + self.t_verify + self.t_overhead

    @property
    def latency_baseline(self) -> float | np.ndarray:
        """Seconds per output token per sequence without speculation (``t0``)."""
        return self.t0

    @property
    def latency_speculative(self) -> float | np.ndarray:
        """Seconds per output token per sequence with speculation, ``t_round / E[L]``."""
        return self.t_round / self.expected_tokens

    @property
    def throughput_baseline(self) -> float | np.ndarray:
        """Tokens/s per replica without speculation, ``batch / t0``."""
        return self.batch / self.t0

    @property
    def throughput_speculative(self) -> float | np.ndarray:
        """Tokens/s per replica with speculation, ``batch * E[L] / t_round``."""
        return self.batch * self.expected_tokens / self.t_round


@dataclass(frozen=True)
class Comparison:
    """A quantity without (``baseline``) and with (``speculative``) speculation.

    ``ratio`` is ``speculative / baseline``. Returned by
    :func:`speculative_latency` and :func:`speculative_throughput`.

    Defined in chapter "The roofline model".
    """

    baseline: float | np.ndarray
    speculative: float | np.ndarray

    @property
    def ratio(self) -> float | np.ndarray:
        """``speculative / baseline``."""
        if np.ndim(self.baseline) == 0 and np.ndim(self.speculative) == 0:
            return float(self.speculative) / float(self.baseline)
        return np.asarray(self.speculative) / np.asarray(self.baseline)


def speculative_costs(target: Model, draft: Model | None, hardware: Hardware, alpha: ArrayLike, k: ArrayLike,
                      batch: ArrayLike = 1, context: ArrayLike = 0, *, t_overhead: ArrayLike = 0.0,
                      draft_cost_override: ArrayLike | None = None, draft_hardware: Hardware | None = None,
                      extra_bytes: float = 0.0, kv_write: bool | None = None) -> SpeculativeCosts:
    r"""Round costs, speedup, latency and throughput of speculation at a batch and context.

    The target runs a plain decode step in ``t0 = T(B, C, 1)`` and verifies in
    ``t_verify = T(B, C, k + 1)``; the draft runs ``k`` steps of ``T_d(B, C, 1)``
    each at the same batch (its growth over the ``k`` extra positions is
    neglected), unless ``draft_cost_override`` gives ``c_draft`` directly
    (``0`` for prediction heads or n-gram lookup). Then

    .. math:: S = \frac{E[L]}{k\,c_d + c_v},\qquad
              c_v = \frac{t_\text{verify} + t_\text{overhead}}{t_0}

    and latency per token is ``t_round / E[L]`` against ``t0``, throughput
    ``B E[L] / t_round`` against ``B / t0``.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target : Model
    draft : Model or None
        The draft model; ``None`` requires ``draft_cost_override``.
    hardware : Hardware
        Where the target (and draft, unless ``draft_hardware``) runs.
    alpha : float or array_like
        Acceptance rate, in [0, 1].
    k : int or array_like of int
        Drafts per round, >= 1.
    batch : int or array_like of int
        Concurrent sequences, >= 1.
    context : int or array_like of int
        Tokens already cached per sequence, >= 0.
    t_overhead : float or array_like, optional
        Per-round overhead in seconds (sampling, rollback), >= 0.
    draft_cost_override : float or array_like, optional
        ``c_draft`` to use instead of the roofline draft, >= 0.
    draft_hardware : Hardware, optional
        Separate hardware for the draft.
    extra_bytes : float, optional
        Memory reserved besides weights and KV cache (e.g. heads), >= 0;
        used only for ``fits``.
    kv_write : bool or None, optional
        Count the writes of the new tokens' KV entries, as in
        :func:`specdec.roofline.hardware.step_time`. Default None: the hardware's
        own setting (on for the calibrated presets, the default
        ``specdec.roofline.hardware.H100`` and so on; off on the ideal roofline).

    Returns
    -------
    SpeculativeCosts

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> r = sd.deployment.speculative_costs(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), alpha=0.8, k=5)
    >>> round(float(r.speedup), 3), round(float(r.t0 * 1e3), 2)
    (1.615, 11.72)
    """
    r = _speculative_core(target, draft, hardware, alpha, k, batch, context, t_overhead, draft_cost_override,
                          draft_hardware, extra_bytes, kv_write)
    return _costs_of(r)


def _costs_of(r: dict) -> SpeculativeCosts:
    """:class:`SpeculativeCosts` of the cost arrays of :func:`_speculative_kernel` (``r["extra"]`` set); checks
    nothing."""
    memory = r["hardware"].memory
    b, c, kk = r["b"], r["c"], r["k"]
    zero = np.zeros(())
    fits_spec = _memory_footprint(r["target"], b, c, kk, np.asarray(r["extra"], dtype=np.float64), r["shared_draft"],
                                  is_scalar_input(b, c, kk)).fits(memory)
    fits_base = _memory_footprint(r["target"], b, c, zero, zero, None, is_scalar_input(b, c)).fits(memory)
    arrays = np.broadcast_arrays(r["t0"], r["k"] * r["cd"] * r["t0"], r["tv"], r["to"], r["cd"], r["cv"], r["et"],
                                 r["s"], r["b"], fits_spec, fits_base)
    t0_, td_, tv_, to_, cd_, cv_, et_, s_, b_ = (np.array(x, dtype=float) for x in arrays[:9])
    return SpeculativeCosts(t0=t0_, t_draft=td_, t_verify=tv_, t_overhead=to_, c_draft=cd_, c_verify=cv_,
                            expected_tokens=et_, speedup=s_, batch=b_, fits=np.array(arrays[9]),
                            fits_baseline=np.array(arrays[10]))


def _speculative_core(target: Model, draft: Model | None, hardware: Hardware, alpha: ArrayLike, k: ArrayLike,
                      batch: ArrayLike, context: ArrayLike, t_overhead: ArrayLike,
                      draft_cost_override: ArrayLike | None, draft_hardware: Hardware | None, extra_bytes: float,
                      kv_write: bool | None) -> dict:
    """Validated inputs and un-broadcast cost arrays shared by the speculative_* functions."""
    validate_setup(target, draft, hardware)
    if draft_hardware is not None:
        check_instance(draft_hardware, Hardware, "draft_hardware")
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1).astype(float)
    b = check_integer(batch, "batch", minimum=1).astype(float)
    c = check_integer(context, "context", minimum=0).astype(float)
    to = check_nonnegative(t_overhead, "t_overhead", "(seconds)")
    e = float(check_scalar(extra_bytes, "extra_bytes", check_nonnegative, "(bytes)"))
    check_broadcast(alpha=a, k=kk, batch=b, context=c, t_overhead=to)
    kv = None if kv_write is None else check_bool(kv_write, "kv_write")
    cd = None
    if draft_cost_override is not None:
        cd = check_nonnegative(draft_cost_override, "draft_cost_override", "(fraction of a target step)")
        check_broadcast(alpha=a, k=kk, batch=b, context=c, draft_cost_override=cd)
    elif draft is None:
        raise ValueError("draft must be a Model unless draft_cost_override is given")
    r = _speculative_kernel(target, draft, hardware, a, kk, b, c, to, cd, draft_hardware, kv)
    r["extra"] = e
    return r


def _speculative_kernel(target: Model, draft: Model | None, hardware: Hardware, a: np.ndarray, kk: np.ndarray,
                        b: np.ndarray, c: np.ndarray, to: np.ndarray | float, cd: np.ndarray | None,
                        draft_hardware: Hardware | None, kv: bool | None) -> dict:
    """The cost arrays of :func:`_speculative_core` from checked inputs (``cd`` None: priced from ``draft``).

    Checks nothing: for callers that have validated their arguments once (``k``, ``batch`` and ``context`` as
    float arrays of whole numbers)."""
    t0 = np.asarray(_step_time(target, hardware, b, c, 1.0, kv))
    t_verify = np.asarray(_step_time(target, hardware, b, c, kk + 1.0, kv))
    if cd is not None:
        shared_draft = draft
    else:
        assert draft is not None  # the callers check that a draft or its cost is given
        dhw = hardware if draft_hardware is None else draft_hardware
        cd = np.asarray(_step_time(draft, dhw, b, c, 1.0, kv)) / t0
        # a draft on separate hardware does not share the target's memory
        shared_draft = draft if draft_hardware is None else None
    cv = (t_verify + to) / t0
    et = _expected_tokens_array(a, kk)
    s = et / (kk * cd + cv)
    return dict(target=target, hardware=hardware, t0=t0, tv=t_verify, to=to, cd=cd, cv=cv, et=et, s=s, b=b, c=c,
                k=kk, shared_draft=shared_draft, extra=0.0)


def speculative_throughput(target: Model, draft: Model, hardware: Hardware, alpha: ArrayLike, k: ArrayLike,
                           batch: ArrayLike, context: ArrayLike = 0, draft_cost_override: ArrayLike | None = None, *,
                           t_overhead: float = 0.0, draft_hardware: Hardware | None = None,
                           kv_write: bool | None = None) -> Comparison:
    """Tokens/s per replica with and without speculation at one batch and context.

    Baseline ``batch / t0``; speculative ``batch * E[L] / t_round`` (see
    :func:`speculative_costs`). Memory is not checked.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft, hardware, alpha, k, batch, context, draft_cost_override
        As in :func:`speculative_costs`.
    t_overhead, draft_hardware, kv_write
        As in :func:`speculative_costs`.

    Returns
    -------
    Comparison
        ``.baseline`` and ``.speculative`` in tokens/s; ``.ratio``.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> r = sd.deployment.speculative_throughput(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, batch=[1, 256])
    >>> r.ratio.round(3)
    array([1.615, 0.78 ])
    """
    r = _costs_of(_speculative_core(target, draft, hardware, alpha, k, batch, context, t_overhead,
                                    draft_cost_override, draft_hardware, 0.0, kv_write))
    scalar = is_scalar_input(alpha, k, batch, context, t_overhead) and (
        draft_cost_override is None or np.ndim(draft_cost_override) == 0)
    return Comparison(to_output(r.throughput_baseline, scalar), to_output(r.throughput_speculative, scalar))


def speculative_latency(target: Model, draft: Model, hardware: Hardware, alpha: ArrayLike, k: ArrayLike,
                        batch: ArrayLike = 1, context: ArrayLike = 0, draft_cost_override: ArrayLike | None = None, *,
                        t_overhead: float = 0.0, draft_hardware: Hardware | None = None,
                        kv_write: bool | None = None) -> Comparison:
    """Seconds per output token (per sequence) with and without speculation.

    Baseline ``t0``; speculative ``t_round / E[L]`` (see :func:`speculative_costs`).

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft, hardware, alpha, k, batch, context, draft_cost_override
        As in :func:`speculative_costs`.
    t_overhead, draft_hardware, kv_write
        As in :func:`speculative_costs`.

    Returns
    -------
    Comparison
        ``.baseline`` and ``.speculative`` in seconds per token; ``.ratio``
        (< 1 means speculation lowers latency).

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> r = sd.deployment.speculative_latency(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5)
    >>> round(r.baseline * 1e3, 2), round(r.speculative * 1e3, 2)
    (11.72, 7.26)
    """
    r = _costs_of(_speculative_core(target, draft, hardware, alpha, k, batch, context, t_overhead,
                                    draft_cost_override, draft_hardware, 0.0, kv_write))
    scalar = is_scalar_input(alpha, k, batch, context, t_overhead) and (
        draft_cost_override is None or np.ndim(draft_cost_override) == 0)
    return Comparison(to_output(r.latency_baseline, scalar), to_output(r.latency_speculative, scalar))


def speculative_speedup(target: Model, draft: Model | None, hardware: Hardware, alpha: ArrayLike, k: ArrayLike,
                        batch: ArrayLike = 1, context: ArrayLike = 0, *, t_overhead: float = 0.0,
                        draft_cost_override: ArrayLike | None = None, draft_hardware: Hardware | None = None,
                        kv_write: bool | None = None) -> float | np.ndarray:
    """Speedup of speculation with roofline costs at a batch and context.

    :func:`specdec.economics.speedup_from_costs` with ``c_draft`` from :func:`specdec.roofline.hardware.draft_cost`
    (or ``draft_cost_override``) and ``c_verify`` from :func:`specdec.roofline.hardware.verify_cost`
    plus ``t_overhead / t0``. Vectorized over every numeric argument.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft, hardware, alpha, k, batch, context
        As in :func:`speculative_costs`.
    t_overhead, draft_cost_override, draft_hardware, kv_write
        As in :func:`speculative_costs`.

    Returns
    -------
    float or numpy.ndarray
        Speedup (> 1: speculation is faster at that batch).

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> s = sd.deployment.speculative_speedup(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, batch=[1, 64, 256])
    >>> s.round(3)
    array([1.615, 1.136, 0.78 ])
    """
    r = _speculative_core(target, draft, hardware, alpha, k, batch, context, t_overhead, draft_cost_override,
                          draft_hardware, 0.0, kv_write)
    scalar = is_scalar_input(alpha, k, batch, context, t_overhead) and (
        draft_cost_override is None or np.ndim(draft_cost_override) == 0)
    return to_output(_speedup_of(r), scalar)


def _speedup_of(r: dict) -> np.ndarray:
    """The speedup of the cost arrays of :func:`_speculative_kernel`, broadcast over them; checks nothing."""
    s = r["s"]
    shape = np.broadcast_shapes(np.shape(s), np.shape(r["t0"]), np.shape(r["cd"]))
    return np.broadcast_to(s, shape) if np.shape(s) != shape else s


def break_even_batch(target: Model, draft: Model, hardware: Hardware, alpha: ArrayLike, k: int,
                     context: int = 0, *, t_overhead: float = 0.0, draft_cost_override: ArrayLike | None = None,
                     draft_hardware: Hardware | None = None, batch_max: int = 4096,
                     kv_write: bool | None = None) -> float:
    """Smallest batch at which speculation's speedup falls below 1.

    Scans ``batch = 1 .. batch_max`` with :func:`speculative_speedup`: ``nan`` when the speedup
    stays >= 1, 1.0 when it is below 1 at batch 1. Memory is not checked.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft, hardware, alpha, k, context
        As in :func:`speculative_costs`; ``alpha``, ``k``, ``context`` scalars.
    t_overhead, draft_cost_override, draft_hardware, kv_write
        As in :func:`speculative_costs` (scalars).
    batch_max : int, optional
        Largest batch scanned, in [1, 1_000_000]. Default 4096.

    Returns
    -------
    float
        The batch (a whole number) or ``nan``.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> sd.deployment.break_even_batch(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), alpha=0.8, k=5)
    107.0
    """
    for value, name in ((alpha, "alpha"), (k, "k"), (context, "context"), (t_overhead, "t_overhead")):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single number here, got an array of shape {np.shape(value)}")
    if draft_cost_override is not None and np.ndim(draft_cost_override) != 0:
        raise TypeError(f"draft_cost_override must be a single number here, got an array of shape "
                        f"{np.shape(draft_cost_override)}")
    bmax = int(check_integer(batch_max, "batch_max", minimum=1, maximum=1_000_000))
    batches = np.arange(1, bmax + 1)
    s = speculative_speedup(target, draft, hardware, alpha, k, batches, context, t_overhead=t_overhead,
                            draft_cost_override=draft_cost_override, draft_hardware=draft_hardware,
                            kv_write=kv_write)
    below = np.nonzero(np.asarray(s) < 1.0)[0]
    return float(batches[below[0]]) if below.size else float("nan")


def batch_grid(batch_max: int = 1024, n_points: int = 160) -> np.ndarray:
    """Whole batches from 1 to ``batch_max``, log-spaced, each once.

    ``n_points`` log-spaced values rounded to whole numbers, duplicates removed
    (so a small ``batch_max`` gives every batch from 1).

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    batch_max : int
        Largest batch, in [1, 1_000_000].
    n_points : int
        Log-spaced points before rounding, in [1, 100_000].

    Returns
    -------
    numpy.ndarray of int64
        Increasing batches, the first 1 and the last ``batch_max``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.deployment.batch_grid(8, n_points=20).tolist()
    [1, 2, 3, 4, 5, 6, 7, 8]
    """
    bmax = int(check_integer(batch_max, "batch_max", minimum=1, maximum=1_000_000))
    n = int(check_integer(n_points, "n_points", minimum=1, maximum=100_000))
    return np.unique(np.round(np.geomspace(1, bmax, n)).astype(np.int64))


def latency_throughput_in_memory(target: Model, draft: Model, hardware: Hardware, alpha: float, k: int,
                                 batches: ArrayLike, context: int = 0) -> dict[str, Any]:
    """Seconds per token and tokens/s against batch, with and without speculation, while memory holds.

    :func:`speculative_costs` over ``batches``, with ``nan`` wherever the batch
    does not fit in memory: the target alone for the plain side, the target
    and the draft (with ``k`` candidate slots) for the speculative side.

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    target, draft : Model
        The target and the draft model.
    hardware : Hardware
    alpha : float
        Acceptance rate, in [0, 1].
    k : int
        Drafts per round, >= 1.
    batches : array_like of int
        Batches, a 1-D array of whole numbers >= 1.
    context : int, optional
        Tokens cached per sequence, >= 0.

    Returns
    -------
    dict of numpy.ndarray
        ``latency_baseline``, ``latency_speculative`` (seconds per token per
        sequence), ``throughput_baseline``, ``throughput_speculative`` (tokens/s
        per replica), each over ``batches``, ``nan`` where that side does not fit.

    Examples
    --------
    >>> import numpy as np
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> v = sd.deployment.latency_throughput_in_memory(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5,
    ...                                               [1, 2000], context=2048)
    >>> round(float(v["latency_baseline"][0]) * 1e3, 2), bool(np.isnan(v["throughput_speculative"][1]))
    (11.76, True)
    """
    a = float(check_scalar(alpha, "alpha", check_probability))
    kk = int(check_scalar(k, "k", check_integer))
    c = int(check_scalar(context, "context", check_integer, minimum=0))
    b = np.asarray(check_integer(batches, "batches", minimum=1))
    if b.ndim != 1 or b.size == 0:
        raise ValueError(f"batches must be a non-empty 1-D array of batches; got shape {b.shape}")
    validate_setup(target, draft, hardware)
    if draft is None:
        raise ValueError("draft must be a Model unless draft_cost_override is given")
    kernel = _speculative_kernel(target, draft, hardware, np.asarray(a), np.asarray(float(kk)), b.astype(float),
                                 np.asarray(float(c)), np.zeros(()), None, None, None)
    kernel["extra"] = 0.0
    r = _costs_of(kernel)
    base = np.where(r.fits_baseline, 1.0, np.nan)
    spec = np.where(r.fits, 1.0, np.nan)
    return {"latency_baseline": r.latency_baseline * base, "latency_speculative": r.latency_speculative * spec,
            "throughput_baseline": r.throughput_baseline * base,
            "throughput_speculative": r.throughput_speculative * spec}


def speedup_up_to_capacity(target: Model, draft: Model, hardware: Hardware, alpha: float, k: int, context: int,
                           kv_budget: float | None = None, batch_max: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Speedup at every batch from 1 until the target's memory is full, optionally with a capped draft KV cache.

    The batches are ``1 .. min(batch_max, max_concurrent_sequences(target, hardware, context))``
    (at least 1); the draft's cost at each is
    :func:`specdec.roofline.hardware.draft_cost` with ``kv_budget`` (the draft
    attends to at most that many cached tokens), and the speedup that of
    :func:`speculative_speedup` with that cost.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    target, draft : Model
        The target and the draft model.
    hardware : Hardware
    alpha : float
        Acceptance rate, in [0, 1].
    k : int
        Drafts per round, >= 1.
    context : int
        Tokens cached per sequence, >= 1.
    kv_budget : int or None, optional
        Draft KV cap in tokens, >= 1; ``None`` (default): the draft's full cache.
    batch_max : int, optional
        Largest batch, in [1, 1_000_000]. Default 512.

    Returns
    -------
    batches : numpy.ndarray of int
    speedups : numpy.ndarray
        The speedup at each batch.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> b, s = sd.deployment.speedup_up_to_capacity(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 32768,
    ...                                             kv_budget=512)
    >>> int(b[-1])
    46
    """
    validate_setup(target, draft, hardware)
    if draft is None:
        raise TypeError("draft must be a specdec.roofline.hardware.Model")
    a = float(check_scalar(alpha, "alpha", check_probability))
    kk = int(check_scalar(k, "k", check_integer))
    c = int(check_scalar(context, "context", check_integer))
    bmax = int(check_integer(batch_max, "batch_max", minimum=1, maximum=1_000_000))
    budget = None if kv_budget is None else int(check_scalar(kv_budget, "kv_budget", check_integer))
    cf = np.asarray(float(c))
    limit = int(_max_concurrent(target, hardware, cf, np.zeros(()), np.zeros(()), None))
    b = np.arange(1, max(1, min(limit, bmax)) + 1)
    bf = b.astype(float)
    # draft_cost's ratio, with the draft attending to at most kv_budget cached tokens
    c_draft = cf if budget is None else np.minimum(cf, float(budget))
    cd = np.asarray(_step_time(draft, hardware, bf, c_draft, 1.0, None) / _step_time(target, hardware, bf, cf, 1.0, None))
    r = _speculative_kernel(target, draft, hardware, np.asarray(a), np.asarray(float(kk)), bf, cf, np.zeros(()), cd,
                            None, None)
    return b, np.asarray(_speedup_of(r))

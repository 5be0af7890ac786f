"""Throughput at a latency target: continuous batching with and without speculation.

Under continuous batching a request's TPOT is the round time ``t(B)`` times its rounds per token
(:class:`LatencyProfile`); :func:`goodput` is the largest throughput over the batches whose TPOT
quantile meets a target, :func:`compare_at_equal_latency` compares plain decoding and speculation
at one target, and :func:`with_prefill` and :func:`check_request_rate` add other requests'
prefills.

Notes
-----
The queue never empties; ``context`` is the batch's average cached context; a prefill is priced
as a pass of its own (a chunk folded into a decode pass would share its weight read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# All imports from other specdec modules are in this one block, so that they
# can be repointed when the package is restructured.
from specdec._validate import (
    check_bool,
    check_broadcast,
    check_distribution,
    check_fraction_open,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
)
from specdec.acceptance import _accepted_tokens_pmf
from specdec.roofline.hardware import Hardware, Model, step_time, validate_setup
from specdec.roofline.memory import _max_concurrent
from specdec.serving.deployment import _costs_of, _speculative_kernel
from specdec.sources import Cited

__all__ = [
    "EAGLE3_SGLANG_BATCHES", "LENGTH_DISTRIBUTIONS", "PrefillServing", "RateCheck", "check_request_rate",
    "prefill_time", "with_prefill", "EqualLatencyComparison", "Goodput", "LatencyProfile", "RooflineServing",
    "ServingCurve", "compare_at_equal_latency", "goodput", "goodput_curve", "latency_profile", "output_lengths",
    "roofline_serving", "serving_curve",
]

#: Output-length distributions :func:`output_lengths` can draw from.
LENGTH_DISTRIBUTIONS = ("constant", "geometric", "lognormal")

_CHAPTER = "Throughput at a latency target"

#: EAGLE-1 and EAGLE-3 throughput over plain SGLang at fixed batches: not goodputs (no latency target).
EAGLE3_SGLANG_BATCHES = Cited(
    {"batch": (2, 4, 8, 16, 24, 32, 48, 56, 64), "EAGLE": (1.40, 1.38, 1.23, 1.02, 0.93, 0.94, 0.88, 0.99, 0.99),
     "EAGLE-3": (1.81, 1.82, 1.62, 1.48, 1.39, 1.32, 1.38, 1.34, 1.38)}, "li2025eagle3",
    "Section 4.3 (EAGLE-3 in SGLang), Table 3: throughput over SGLang v0.4.4 without speculation (1.00x), one H100, "
    "LLaMA-Instruct 3.1 8B, MT-Bench, chain length 3, no tree; run by the SGLang team", "verified",
    "two text extractions of arXiv 2503.01840 in the search tool's code index (file ids 60816773899 and "
    "53345082648), which agree on every cell")


def _count(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum, maximum=maximum))


def _scalar(value: Any, name: str, check: Callable[..., Any], *args: Any) -> float:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single number, got an array of shape {np.shape(value)}")
    return float(check(value, name, *args))


# --------------------------------------------------------------------------
# requests and the random part of latency
# --------------------------------------------------------------------------


def output_lengths(n_requests: int, mean: float, rng: np.random.Generator | int, distribution: str = "geometric", *,
                   sigma: float = 1.0, max_tokens: int = 32_768) -> np.ndarray:
    """Output lengths (tokens) of a sample of requests.

    ``"constant"``: ``round(mean)``; ``"geometric"``: :math:`P(n) = (1 - 1/m)^{n-1} / m`;
    ``"lognormal"``: ``round(exp(N(mu, sigma)))`` with continuous mean ``m``. Clipped to
    ``[1, max_tokens]``.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    n_requests : int
        Requests, >= 1.
    mean : float
        Mean output length in tokens, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    distribution : {"constant", "geometric", "lognormal"}, optional
        Default ``"geometric"``.
    sigma : float, optional
        Log-scale spread of the lognormal, > 0. Default 1.
    max_tokens : int, optional
        Largest length, >= 1. Default 32768.

    Returns
    -------
    numpy.ndarray of int64, shape (n_requests,)

    Examples
    --------
    >>> import specdec as sd
    >>> n = sd.goodput.output_lengths(100_000, 200, rng=0)
    >>> round(float(n.mean()), -1), int(n.min())
    (200.0, 1)
    """
    m = _count(n_requests, "n_requests")
    mu = _scalar(mean, "mean", check_positive, "(tokens)")
    if mu < 1.0:
        raise ValueError(f"mean must be >= 1 token; got {mu!r}")
    top = _count(max_tokens, "max_tokens")
    if distribution not in LENGTH_DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {list(LENGTH_DISTRIBUTIONS)}; got {distribution!r}")
    s = _scalar(sigma, "sigma", check_positive)
    g = check_rng(rng)
    if distribution == "constant":
        n = np.full(m, round(mu))
    elif distribution == "geometric":
        n = g.geometric(1.0 / mu, size=m)
    else:
        n = np.rint(np.exp(g.normal(np.log(mu) - 0.5 * s * s, s, size=m)))
    return np.clip(n, 1, top).astype(np.int64)


@dataclass(frozen=True)
class LatencyProfile:
    """Rounds each request needed for its tokens: the batch-independent part of TPOT.

    Defined in chapter "Throughput at a latency target".

    Attributes
    ----------
    tokens : numpy.ndarray of int64, shape (n_requests,)
        Output tokens of each request.
    rounds : numpy.ndarray of int64, shape (n_requests,)
        Decode steps (rounds) it took.
    """

    tokens: np.ndarray
    rounds: np.ndarray

    @property
    def rounds_per_token(self) -> np.ndarray:
        """``rounds / tokens`` per request: its TPOT in units of the round time."""
        return self.rounds / self.tokens

    @property
    def tokens_per_round(self) -> float:
        """Pooled ``sum(tokens) / sum(rounds)``: what sets throughput."""
        return float(self.tokens.sum() / self.rounds.sum())

    def tpot_factor(self, quantile: float = 0.5) -> float:
        """Quantile of ``rounds / tokens`` over requests (numpy's linear interpolation)."""
        return _tpot_factor(self, _scalar(quantile, "quantile", check_probability))


def _tpot_factor(profile: LatencyProfile, q: float) -> float:
    """:meth:`LatencyProfile.tpot_factor` of a checked quantile; checks nothing."""
    return float(np.quantile(profile.rounds_per_token, q))


def latency_profile(output_lengths: ArrayLike, tokens_pmf: ArrayLike | None = None,
                    rng: np.random.Generator | int = 0) -> LatencyProfile:
    """Simulate how many rounds each request needs when a round emits a random number of tokens.

    Each round gives ``L`` tokens drawn from ``tokens_pmf`` (entry ``j`` is ``P(L = j + 1)``)
    until the request has its ``n_i`` tokens; ``None`` is plain decoding, ``R_i = n_i``.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    output_lengths : array_like of int, shape (n_requests,)
        Tokens per request, each >= 1 (e.g. from :func:`output_lengths`).
    tokens_pmf : array_like, shape (m,) or (n_requests, m), optional
        Law of the tokens per round: shared, or one row per request (e.g.
        :func:`specdec.acceptance.accepted_tokens_pmf` of per-request alphas). Rows
        sum to 1.
    rng : numpy.random.Generator or int, optional
        Seeded generator or seed. Default 0.

    Returns
    -------
    LatencyProfile

    Examples
    --------
    >>> import specdec as sd
    >>> n = [40] * 3
    >>> sd.goodput.latency_profile(n).rounds.tolist()             # plain decoding
    [40, 40, 40]
    >>> sd.goodput.latency_profile(n, [0, 0, 0, 1.0]).rounds.tolist()   # always 4 tokens
    [10, 10, 10]
    """
    n = check_integer(output_lengths, "output_lengths", minimum=1)
    if n.ndim != 1 or n.size == 0:
        raise ValueError(f"output_lengths must be a non-empty 1-D array of token counts; got shape {n.shape}")
    g = check_rng(rng)
    if tokens_pmf is None:
        return LatencyProfile(tokens=n.copy(), rounds=n.copy())
    pmf = check_distribution(tokens_pmf, "tokens_pmf")
    if pmf.ndim == 2 and pmf.shape[0] != n.size:
        raise ValueError(f"tokens_pmf must have shape (m,) or (n_requests, m) = ({n.size}, m); got {pmf.shape}")
    if pmf.ndim > 2:
        raise ValueError(f"tokens_pmf must be 1-D or 2-D; got shape {pmf.shape}")
    return _latency_profile(n, pmf, g)


def _latency_profile(n: np.ndarray, pmf: np.ndarray | None, g: np.random.Generator) -> LatencyProfile:
    """:func:`latency_profile` of checked lengths, law (1-D, or one row per request) and generator; checks nothing."""
    if pmf is None:
        return LatencyProfile(tokens=n.copy(), rounds=n.copy())
    emitted = np.zeros(n.size, dtype=np.int64)
    rounds = np.zeros(n.size, dtype=np.int64)
    active = np.arange(n.size)
    cdf = np.cumsum(pmf, axis=-1)
    cdf = cdf / cdf[..., -1:]
    m = pmf.shape[-1]
    while active.size:  # one iteration = one round of every unfinished request
        u = g.random(active.size)
        if pmf.ndim == 1:
            step = np.searchsorted(cdf, u, side="right") + 1
        else:
            step = (cdf[active] <= u[:, None]).sum(axis=1) + 1
        emitted[active] += np.minimum(step, m)
        rounds[active] += 1
        active = active[emitted[active] < n[active]]
    return LatencyProfile(tokens=n.copy(), rounds=rounds)


# --------------------------------------------------------------------------
# batches, SLOs and goodput
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ServingCurve:
    """Throughput and TPOT quantile of one setup at each batch.

    Defined in chapter "Throughput at a latency target".

    Attributes
    ----------
    batch : numpy.ndarray of int64
        Concurrent sequences.
    round_time : numpy.ndarray
        Seconds per step (round) at that batch.
    throughput : numpy.ndarray
        Output tokens/s per replica, ``batch * tokens_per_round / round_time``.
    tpot : numpy.ndarray
        The chosen quantile of per-request time per output token, seconds.
    quantile : float
        Which quantile (0.5 = p50).
    fits : numpy.ndarray of bool
        Whether the batch fits in memory.
    """

    batch: np.ndarray
    round_time: np.ndarray
    throughput: np.ndarray
    tpot: np.ndarray
    quantile: float
    fits: np.ndarray


def serving_curve(batches: ArrayLike, round_time: ArrayLike, profile: LatencyProfile, quantile: float = 0.5,
                  fits: ArrayLike | None = None) -> ServingCurve:
    """Throughput and TPOT quantile at each batch, from round times and a latency profile.

    ``tpot = round_time * profile.tpot_factor(quantile)`` and
    ``throughput = batch * profile.tokens_per_round / round_time``.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    batches : array_like of int, shape (n_b,)
        Concurrent sequences, each >= 1.
    round_time : array_like, shape (n_b,)
        Seconds per step (round) at each batch, > 0.
    profile : LatencyProfile
        From :func:`latency_profile`.
    quantile : float, optional
        TPOT quantile the SLO is stated at, in [0, 1]. Default 0.5 (p50).
    fits : array_like of bool, shape (n_b,), optional
        Memory feasibility of each batch (default: all fit).

    Returns
    -------
    ServingCurve

    Examples
    --------
    >>> import specdec as sd
    >>> prof = sd.goodput.latency_profile([100] * 10)
    >>> c = sd.goodput.serving_curve([1, 8], [0.01, 0.012], prof)
    >>> c.throughput.round(6).tolist(), c.tpot.round(6).tolist()
    ([100.0, 666.666667], [0.01, 0.012])
    """
    b = check_integer(batches, "batches", minimum=1)
    t = check_positive(round_time, "round_time", "(seconds)")
    if b.ndim != 1 or t.shape != b.shape:
        raise ValueError(f"batches and round_time must be 1-D of the same length; got shapes {b.shape} and {t.shape}")
    if not isinstance(profile, LatencyProfile):
        raise TypeError(f"profile must be a LatencyProfile (from latency_profile); got {type(profile).__name__}")
    q = _scalar(quantile, "quantile", check_probability)
    if fits is None:
        f = np.ones(b.shape, dtype=bool)
    else:
        f = np.asarray(fits)
        if f.dtype != bool or f.shape != b.shape:
            raise ValueError(f"fits must be booleans of shape {b.shape}; got dtype {f.dtype}, shape {f.shape}")
    return _serving_curve(b, t, profile, q, f)


def _serving_curve(b: np.ndarray, t: np.ndarray, profile: LatencyProfile, q: float, f: np.ndarray) -> ServingCurve:
    """:func:`serving_curve` of checked batches, round times, quantile and feasibility; checks nothing."""
    return ServingCurve(batch=b, round_time=t.copy(), throughput=b * profile.tokens_per_round / t,
                        tpot=t * _tpot_factor(profile, q), quantile=q, fits=f.copy())


@dataclass(frozen=True)
class Goodput:
    """The best operating point of a setup under a TPOT target.

    Defined in chapter "Throughput at a latency target".

    Attributes
    ----------
    tpot_target : float
        The target, seconds per output token at the curve's quantile.
    feasible : bool
        Whether any batch that fits meets the target.
    batch : int
        The batch of the best point (0 when infeasible).
    throughput : float
        Its tokens/s per replica (0.0 when infeasible): the goodput.
    tpot : float
        Its TPOT quantile (``nan`` when infeasible).
    """

    tpot_target: float
    feasible: bool
    batch: int
    throughput: float
    tpot: float


def goodput(curve: ServingCurve, tpot_target: float) -> Goodput:
    """Largest throughput among the batches whose TPOT quantile meets the target.

    A batch qualifies when it fits in memory and its TPOT quantile is at most ``tpot_target``
    (relative tolerance 1e-12).

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    curve : ServingCurve
        From :func:`serving_curve`.
    tpot_target : float
        Seconds per output token, > 0.

    Returns
    -------
    Goodput

    Examples
    --------
    >>> import specdec as sd
    >>> prof = sd.goodput.latency_profile([100] * 10)
    >>> c = sd.goodput.serving_curve([1, 8, 64], [0.01, 0.012, 0.05], prof)
    >>> g = sd.goodput.goodput(c, 0.02)
    >>> g.batch, round(g.throughput, 3)
    (8, 666.667)
    """
    if not isinstance(curve, ServingCurve):
        raise TypeError(f"curve must be a ServingCurve (from serving_curve); got {type(curve).__name__}")
    return _goodput(curve, _scalar(tpot_target, "tpot_target", check_positive, "(seconds per token)"))


def _goodput(curve: ServingCurve, target: float) -> Goodput:
    """:func:`goodput` of a checked curve and target; checks nothing."""
    ok = curve.fits & (curve.tpot <= target * (1.0 + 1e-12))
    if not ok.any():
        return Goodput(tpot_target=target, feasible=False, batch=0, throughput=0.0, tpot=float("nan"))
    idx = np.flatnonzero(ok)
    j = int(idx[np.argmax(curve.throughput[idx])])
    return Goodput(tpot_target=target, feasible=True, batch=int(curve.batch[j]),
                   throughput=float(curve.throughput[j]), tpot=float(curve.tpot[j]))


def goodput_curve(curve: ServingCurve, tpot_targets: ArrayLike) -> np.ndarray:
    """Goodput (tokens/s) for each of several TPOT targets.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    curve : ServingCurve
    tpot_targets : array_like
        Targets in seconds per token, each > 0.

    Returns
    -------
    numpy.ndarray
        Tokens/s per replica (0 where no batch meets the target); shape of
        ``tpot_targets``. Non-decreasing in the target.

    Examples
    --------
    >>> import specdec as sd
    >>> prof = sd.goodput.latency_profile([100] * 10)
    >>> c = sd.goodput.serving_curve([1, 8, 64], [0.01, 0.012, 0.05], prof)
    >>> sd.goodput.goodput_curve(c, [0.005, 0.011, 0.02, 0.1]).round(1).tolist()
    [0.0, 100.0, 666.7, 1280.0]
    """
    if not isinstance(curve, ServingCurve):
        raise TypeError(f"curve must be a ServingCurve (from serving_curve); got {type(curve).__name__}")
    t = check_positive(tpot_targets, "tpot_targets", "(seconds per token)")
    return _goodput_curve(curve, np.asarray(t, dtype=float))


def _goodput_curve(curve: ServingCurve, targets: np.ndarray) -> np.ndarray:
    """:func:`goodput_curve` of a checked curve and targets, all targets at once; checks nothing."""
    flat = targets.ravel()
    ok = curve.fits[None, :] & (curve.tpot[None, :] <= flat[:, None] * (1.0 + 1e-12))
    best = np.where(ok, curve.throughput[None, :], -np.inf).max(axis=1, initial=-np.inf)
    return np.where(ok.any(axis=1), best, 0.0).reshape(targets.shape)


# --------------------------------------------------------------------------
# the roofline setup and the comparison at equal latency
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RooflineServing:
    """Round times and memory feasibility of a baseline and a speculative setup over batches.

    Defined in chapter "Throughput at a latency target".

    Attributes
    ----------
    batch : numpy.ndarray of int64
    t0 : numpy.ndarray
        Plain decode step at each batch, seconds.
    t_round : numpy.ndarray
        Speculative round (k draft steps + verification + overhead), seconds.
    fits_baseline, fits_speculative : numpy.ndarray of bool
        Memory feasibility of each batch for each setup.
    """

    batch: np.ndarray
    t0: np.ndarray
    t_round: np.ndarray
    fits_baseline: np.ndarray
    fits_speculative: np.ndarray


def roofline_serving(target: Model, draft: Model, hardware: Hardware, k: int, batches: ArrayLike, context: int, *,
                     t_overhead: float = 0.0, draft_cost_override: ArrayLike | None = None) -> RooflineServing:
    """Roofline round times of plain and speculative decoding at each batch.

    From :func:`specdec.serving.deployment.speculative_costs` at the given average context, KV
    writes as the hardware's calibration says. Acceptance does not enter.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
        ``draft`` may be ``None`` with ``draft_cost_override``.
    hardware : specdec.roofline.hardware.Hardware
    k : int
        Drafts per round, >= 1.
    batches : array_like of int
        Batches to evaluate, each >= 1.
    context : int
        Average cached tokens per sequence, >= 0.
    t_overhead : float, optional
        Per-round overhead, seconds, >= 0.
    draft_cost_override : float, optional
        ``c_draft`` instead of the draft model's roofline cost (heads, n-grams).

    Returns
    -------
    RooflineServing

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> r = sd.goodput.roofline_serving(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 5, [1, 64], 2048)
    >>> (r.t0 * 1e3).round(2).tolist(), (r.t_round * 1e3).round(2).tolist()
    ([11.76, 14.85], [26.89, 46.57])
    """
    kk = _count(k, "k")
    b = check_integer(batches, "batches", minimum=1)
    if b.ndim != 1:
        raise ValueError(f"batches must be 1-D; got shape {b.shape}")
    if np.ndim(context) != 0:
        raise TypeError("context must be a single whole number")
    ctx = int(check_integer(context, "context", 0))
    to, cd = _setup_checks(target, draft, hardware, t_overhead, draft_cost_override)
    return _roofline_serving(target, draft, hardware, kk, b, ctx, to, cd)


def _setup_checks(target: Model, draft: Model | None, hardware: Hardware, t_overhead: ArrayLike,
                  draft_cost_override: ArrayLike | None) -> tuple[np.ndarray, np.ndarray | None]:
    """The checks :func:`specdec.serving.deployment.speculative_costs` makes of what :func:`roofline_serving`
    passes on unchecked: the models and hardware, ``t_overhead`` and ``draft_cost_override``."""
    validate_setup(target, draft, hardware)
    to = check_nonnegative(t_overhead, "t_overhead", "(seconds)")
    cd = None
    if draft_cost_override is not None:
        cd = check_nonnegative(draft_cost_override, "draft_cost_override", "(fraction of a target step)")
    elif draft is None:
        raise ValueError("draft must be a Model unless draft_cost_override is given")
    return to, cd


def _roofline_serving(target: Model, draft: Model | None, hardware: Hardware, kk: int, b: np.ndarray, ctx: int,
                      to: np.ndarray, cd: np.ndarray | None) -> RooflineServing:
    """:func:`roofline_serving` of checked inputs (``b`` an int64 array); checks nothing but the shapes."""
    a, k_, b_, c_ = np.asarray(0.5), np.asarray(float(kk)), b.astype(float), np.asarray(float(ctx))
    check_broadcast(alpha=a, k=k_, batch=b_, context=c_, t_overhead=to)
    if cd is not None:
        check_broadcast(alpha=a, k=k_, batch=b_, context=c_, draft_cost_override=cd)
    # alpha only sets E[L], which this function does not return; 0.5 is a placeholder. KV writes follow the
    # hardware's calibration (off on the ideal roofline).
    kv = bool(getattr(getattr(hardware, "calibration", None), "kv_write", False))
    r = _speculative_kernel(target, draft, hardware, a, k_, b_, c_, to, cd, None, kv)
    r["extra"] = 0.0
    costs = _costs_of(r)
    return RooflineServing(batch=b.copy(), t0=np.asarray(costs.t0, float).reshape(b.shape),
                           t_round=np.asarray(costs.t_round, float).reshape(b.shape),
                           fits_baseline=np.asarray(costs.fits_baseline).reshape(b.shape),
                           fits_speculative=np.asarray(costs.fits).reshape(b.shape))


@dataclass(frozen=True)
class EqualLatencyComparison:
    """Plain decoding against speculation at the same TPOT target, and at capacity.

    Defined in chapter "Throughput at a latency target".

    Attributes
    ----------
    baseline, speculative : Goodput
        Best operating point of each setup under the target.
    baseline_curve, speculative_curve : ServingCurve
        The curves they were read from.
    capacity_batch_baseline, capacity_batch_speculative : int
        Largest batch that fits in memory for each setup.
    """

    baseline: Goodput
    speculative: Goodput
    baseline_curve: ServingCurve
    speculative_curve: ServingCurve
    capacity_batch_baseline: int
    capacity_batch_speculative: int

    @property
    def goodput_ratio(self) -> float:
        """Speculative over baseline goodput (``nan`` if the baseline cannot meet the target,
        ``inf`` if only speculation can)."""
        b, s = self.baseline.throughput, self.speculative.throughput
        if b == 0.0:
            return float("inf") if s > 0 else float("nan")
        return s / b

    @property
    def capacity_throughput_ratio(self) -> float:
        """Speculative over baseline throughput when each runs its largest fitting batch."""
        def at_cap(curve: ServingCurve, cap: int) -> float:
            j = np.flatnonzero(curve.batch == cap)
            return float(curve.throughput[j[0]]) if j.size else float("nan")
        return at_cap(self.speculative_curve, self.capacity_batch_speculative) / at_cap(
            self.baseline_curve, self.capacity_batch_baseline)


def compare_at_equal_latency(target: Model, draft: Model, hardware: Hardware, alpha: ArrayLike, k: int, context: int,
                             tpot_target: float, lengths: ArrayLike, *, quantile: float = 0.5,
                             rng: np.random.Generator | int = 0, batch_max: int | None = None, t_overhead: float = 0.0,
                             draft_cost_override: ArrayLike | None = None) -> EqualLatencyComparison:
    """Goodput of plain decoding and of speculation at the same TPOT target (roofline costs).

    Both setups at every batch ``1 .. batch_max`` (default: the most sequences the target alone
    fits); speculation emits :func:`specdec.acceptance.accepted_tokens_pmf` ``(alpha, k)`` + 1
    tokens per round, one law per request when ``alpha`` is an array.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
    alpha : float or array_like, shape (n_requests,)
        Acceptance rate (shared, or per request), in [0, 1].
    k : int
        Drafts per round, >= 1.
    context : int
        Average cached tokens per sequence, >= 1.
    tpot_target : float
        Seconds per output token at ``quantile``, > 0.
    lengths : array_like of int, shape (n_requests,)
        Output lengths of the request sample.
    quantile : float, optional
        TPOT quantile of the SLO, in (0, 1). Default 0.5.
    rng : numpy.random.Generator or int, optional
        Seed for the acceptance draws. Default 0.
    batch_max : int, optional
        Largest batch evaluated, >= 1.
    t_overhead, draft_cost_override
        As in :func:`roofline_serving`.

    Returns
    -------
    EqualLatencyComparison

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> n = sd.goodput.output_lengths(2000, 256, rng=1)
    >>> r = sd.goodput.compare_at_equal_latency(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 2048,
    ...                                         0.016, n)
    >>> r.baseline.batch, r.speculative.batch, round(r.goodput_ratio, 2)
    (64, 91, 1.33)
    >>> round(r.capacity_throughput_ratio, 3)     # both at their largest batch instead
    0.745
    """
    q = _scalar(quantile, "quantile", check_fraction_open)
    kk = _count(k, "k")
    if np.ndim(context) != 0:
        raise TypeError("context must be a single whole number")
    ctx = int(check_integer(context, "context", minimum=1))
    a = check_probability(alpha, "alpha")
    n = check_integer(lengths, "lengths", minimum=1)
    if n.ndim != 1 or n.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D array of output lengths; got shape {n.shape}")
    if a.ndim > 1 or (a.ndim == 1 and a.size != n.size):
        raise ValueError(f"alpha must be a single rate or one per request ({n.size}); got shape {a.shape}")
    to, cd = _setup_checks(target, draft, hardware, t_overhead, draft_cost_override)
    cap_base = int(_max_concurrent(target, hardware, np.asarray(float(ctx)), np.zeros(()), np.zeros(()), None))
    if cap_base < 1:
        raise ValueError("the target's weights leave no memory for a single sequence at this context")
    bmax = cap_base if batch_max is None else _count(batch_max, "batch_max", maximum=1_000_000)
    batches = np.arange(1, bmax + 1)
    setup = _roofline_serving(target, draft, hardware, kk, batches, ctx, to, cd)
    g = check_rng(rng)
    tt = _scalar(tpot_target, "tpot_target", check_positive, "(seconds per token)")
    base_prof = _latency_profile(n, None, g)
    spec_prof = _latency_profile(n, _accepted_tokens_pmf(a, kk), g)
    base_curve = _serving_curve(batches.copy(), setup.t0, base_prof, q, setup.fits_baseline)
    spec_curve = _serving_curve(batches.copy(), setup.t_round, spec_prof, q, setup.fits_speculative)
    fits_s = np.flatnonzero(setup.fits_speculative)
    fits_b = np.flatnonzero(setup.fits_baseline)
    return EqualLatencyComparison(
        baseline=_goodput(base_curve, tt), speculative=_goodput(spec_curve, tt),
        baseline_curve=base_curve, speculative_curve=spec_curve,
        capacity_batch_baseline=int(batches[fits_b[-1]]) if fits_b.size else 0,
        capacity_batch_speculative=int(batches[fits_s[-1]]) if fits_s.size else 0)


# --------------------------------------------------------------------------
# other requests' prefills and the request rate
# --------------------------------------------------------------------------


def prefill_time(target: Model, hardware: Hardware, prompt_tokens: int, hit_rate: float = 0.0, *,
                 draft: Model | None = None) -> float:
    """Seconds of prefill work one request brings: its uncached prompt tokens in one roofline pass.

    ``step_time(model, hardware, 1, context=c, new_tokens=u)`` with ``c = round(hit_rate *
    prompt_tokens)`` cached and ``u`` uncached tokens (0 s when ``u = 0``); plus the same for ``draft``.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    target, hardware : specdec.roofline.hardware.Model, specdec.roofline.hardware.Hardware
    prompt_tokens : int
        Prompt length, >= 1.
    hit_rate : float, optional
        Fraction of the prompt found in the prefix cache, in [0, 1]. Default 0.
    draft : specdec.roofline.hardware.Model, optional
        A draft model that needs the prompt's KV cache too.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> t = sd.goodput.prefill_time(h.LLAMA_8B, h.H100_IDEAL, 2048)
    >>> round(t / h.step_time(h.LLAMA_8B, h.H100_IDEAL, 1, 0, 2048), 12)
    1.0
    >>> sd.goodput.prefill_time(h.LLAMA_8B, h.H100_IDEAL, 2048, hit_rate=1.0)
    0.0
    """
    for value, name, cls in ((target, "target", Model), (hardware, "hardware", Hardware), (draft, "draft", Model)):
        if not isinstance(value, cls) and not (name == "draft" and value is None):
            raise TypeError(f"{name} must be a specdec.roofline.hardware.{cls.__name__}; got {type(value).__name__}")
    n = _count(prompt_tokens, "prompt_tokens")
    cached = int(round(_scalar(hit_rate, "hit_rate", check_probability) * n))
    if cached >= n:
        return 0.0
    return float(sum(step_time(m, hardware, 1, cached, n - cached) for m in (target, draft) if m is not None))


@dataclass(frozen=True)
class PrefillServing:
    """A serving curve whose steps also carry the prefills of the requests that replace finished ones.

    Defined in chapter "Throughput at a latency target".

    Attributes
    ----------
    curve : ServingCurve
        Its ``round_time`` is the stretched step ``t'(B)``; pass it to :func:`goodput`.
    prefill_per_step, duty, request_rate : numpy.ndarray
        Prefill seconds per step, their share of the wall time, and requests/s completed.
    """

    curve: ServingCurve
    prefill_per_step: np.ndarray
    duty: np.ndarray
    request_rate: np.ndarray


def with_prefill(curve: ServingCurve, prefill_time: float, mean_output: float) -> PrefillServing:
    r"""Add to every step the prefill work of the requests that replace the finished ones.

    ``B Lbar / nbar`` requests finish and are prefilled per step:

    .. math:: t'(B) = t(B) + \frac{B\overline{L}\,t_p}{\bar n},\;
              \text{TPOT}_q = f_q t'(B),\; \text{throughput} = \frac{B\overline{L}}{t'(B)} < \frac{\bar n}{t_p}.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    curve : ServingCurve
        Decode-only curve (:func:`serving_curve`).
    prefill_time : float
        ``t_p``, seconds per request, >= 0 (:func:`prefill_time`).
    mean_output : float
        ``nbar``, mean output tokens per request, >= 1.

    Returns
    -------
    PrefillServing

    Examples
    --------
    >>> import specdec as sd
    >>> c = sd.goodput.serving_curve([1, 8], [0.01, 0.012], sd.goodput.latency_profile([100] * 10))
    >>> p = sd.goodput.with_prefill(c, 0.05, 100)
    >>> (p.curve.round_time * 1e3).round(3).tolist(), p.duty.round(4).tolist()
    ([10.5, 16.0], [0.0476, 0.25])
    """
    t_p, n = _load_args(curve, prefill_time, mean_output)
    tokens = curve.throughput * curve.round_time  # B * Lbar per step
    budget = tokens * t_p / n
    step = curve.round_time + budget
    out = ServingCurve(batch=curve.batch.copy(), round_time=step, throughput=tokens / step,
                       tpot=curve.tpot * step / curve.round_time, quantile=curve.quantile, fits=curve.fits.copy())
    return PrefillServing(curve=out, prefill_per_step=budget, duty=budget / step, request_rate=out.throughput / n)


def _load_args(curve: Any, prefill_time: float, mean_output: float) -> tuple[float, float]:
    if not isinstance(curve, ServingCurve):
        raise TypeError(f"curve must be a ServingCurve (from serving_curve); got {type(curve).__name__}")
    n = _scalar(mean_output, "mean_output", check_positive, "(tokens)")
    if n < 1.0:
        raise ValueError(f"mean_output must be >= 1 token; got {n!r}")
    return _scalar(prefill_time, "prefill_time", check_nonnegative, "(seconds)"), n


@dataclass(frozen=True)
class RateCheck:
    """Whether a replica keeps up with a request rate, and where it runs (:func:`check_request_rate`).

    Defined in chapter "Throughput at a latency target".

    Attributes
    ----------
    request_rate, prefill_duty, decode_duty : float
        Requests/s; seconds of prefill and of decoding per second of wall time.
    batch : int
        Operating batch (0 when infeasible); ``tpot`` its TPOT quantile, seconds (``nan`` when infeasible).
    feasible : bool
        ``reason`` says why not ("" when feasible).
    """

    request_rate: float
    prefill_duty: float
    decode_duty: float
    batch: int
    tpot: float
    feasible: bool
    reason: str


def check_request_rate(curve: ServingCurve, request_rate: float, prefill_time: float, mean_output: float, *,
                       tpot_target: float | None = None, strict: bool = False) -> RateCheck:
    r"""Whether a request rate's prefill work plus its decode work fit in the wall time.

    Per second the replica prefills ``lambda`` prompts and decodes ``lambda
    nbar`` tokens, a token costing ``t(B) / (B Lbar)`` at batch ``B``:

    .. math:: U(B) = \lambda\, t_p + \lambda\, \bar n\, \frac{t(B)}{B\,\overline{L}} \le 1 .

    The replica runs at the smallest fitting batch with ``U(B) <= 1``, TPOT ``f_q t(B) / (1 -
    lambda t_p)``; infeasible when ``lambda t_p >= 1``, no batch keeps up, or TPOT misses the target.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    curve : ServingCurve
        Decode-only curve over every batch up to the memory limit.
    request_rate : float
        Requests per second per replica, > 0.
    prefill_time, mean_output
        As in :func:`with_prefill`.
    tpot_target : float, optional
        Seconds per output token at the curve's quantile, > 0.
    strict : bool, optional
        Raise ``ValueError`` with the reason when infeasible. Default False.

    Returns
    -------
    RateCheck

    Examples
    --------
    >>> import specdec as sd
    >>> c = sd.goodput.serving_curve([1, 8], [0.01, 0.012], sd.goodput.latency_profile([100] * 10))
    >>> r = sd.goodput.check_request_rate(c, 4.0, 0.05, 100)
    >>> r.batch, round(r.prefill_duty + r.decode_duty, 3), round(r.tpot * 1e3, 3)
    (8, 0.8, 15.0)
    >>> sd.goodput.check_request_rate(c, 25.0, 0.05, 100).reason
    'prefill alone needs 1.25 s per second (25 requests/s x 0.05 s)'
    """
    t_p, n = _load_args(curve, prefill_time, mean_output)
    lam = _scalar(request_rate, "request_rate", check_positive, "(requests per second)")
    target = None if tpot_target is None else _scalar(tpot_target, "tpot_target", check_positive, "(seconds)")
    strict = check_bool(strict, "strict")
    rho, decode = lam * t_p, lam * n / curve.throughput  # demand over decode capacity
    ok = np.flatnonzero(curve.fits & (rho + decode <= 1.0))
    j = int(ok[0]) if ok.size and rho < 1.0 else -1
    tpot = float(curve.tpot[j] / (1.0 - rho)) if j >= 0 else float("nan")
    reason = ""
    if rho >= 1.0:
        reason = f"prefill alone needs {rho:.3g} s per second ({lam:.3g} requests/s x {t_p:.3g} s)"
    elif j < 0:
        least = float(np.min(np.where(curve.fits, decode, np.inf)))
        reason = f"no fitting batch keeps up: prefill takes {rho:.3g} s per second and decoding {least:.3g} s more"
    elif target is not None and tpot > target * (1.0 + 1e-12):
        reason = f"at batch {int(curve.batch[j])} the TPOT is {tpot * 1e3:.3g} ms, above {target * 1e3:.3g} ms"
    if reason and strict:
        raise ValueError(f"request_rate {lam:.6g} is infeasible: {reason}")
    return RateCheck(request_rate=lam, prefill_duty=rho, decode_duty=float(decode[j]) if j >= 0 else float("nan"),
                     batch=int(curve.batch[j]) if j >= 0 else 0, tpot=tpot, feasible=not reason, reason=reason)

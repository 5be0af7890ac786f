"""Estimating alpha from logs: accepted counts, engine counters, intervals.

A serving log records, for every verification round, how many drafts the
target accepted. Under the capped geometric model (each draft accepted with
probability ``alpha`` until the first rejection, at most ``k``) the maximum
likelihood estimate is ``S / (S + F)`` with ``S`` the accepted drafts and
``F`` the rounds that stopped early (:func:`estimate_alpha`, with a Wilson
score interval, :func:`wilson_interval`); per-position rates test whether one
alpha fits at all (:func:`estimate_alpha_per_position`).

Engines do not keep per-round logs; they export counters.
:func:`read_engine_counters` reads vLLM's speculative decoding counters (as
numbers, as a dict keyed by the metric names, or as the Prometheus text its
``/metrics`` endpoint prints, parsed by :mod:`specdec.engine_metrics`) into
the book's alpha, and
:func:`read_accepted_counts` computes the same figures from a per-round log.
:func:`simulate_accepted_counts` draws such logs for the tests and the
chapters.

Every function validates its inputs; results are float64.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._validate import (
    as_float_array,
    check_broadcast,
    check_count,
    check_fraction_open,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    check_size,
    describe,
    is_scalar_input,
    to_output,
)
from .acceptance import alpha_for_expected_tokens, conditional_from_unconditional
from .engine_metrics import counter_difference, parse_vllm_metrics

__all__ = [
    "simulate_accepted_counts",
    "simulate_accepted_counts_per_position",
    "wilson_interval",
    "AlphaEstimate",
    "estimate_alpha",
    "PerPositionEstimate",
    "estimate_alpha_per_position",
    "EngineReading",
    "read_engine_counters",
    "read_accepted_counts",
]


def simulate_accepted_counts(alpha, k, n_rounds, rng):
    """Accepted drafts per round under i.i.d. acceptance (the capped geometric model).

    Each draft is accepted with probability ``alpha`` until the first
    rejection, at most ``k``: ``N = min(G, k)`` with ``P(G >= n) = alpha**n``.
    Drawn in one vectorized call by inverse CDF (``searchsorted`` on the
    ``k + 1`` cumulative probabilities for a scalar ``alpha``; the geometric
    law's closed-form inverse for an array of alphas).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability in [0, 1]. An array gives one row
        of rounds per entry.
    k : int
        Draft tokens per round, >= 1.
    n_rounds : int
        Rounds per alpha, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    numpy.ndarray of int64
        Shape ``np.shape(alpha) + (n_rounds,)``; entries in ``0 .. k``.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> counts = sd.estimation.simulate_accepted_counts(0.8, 4, 200_000, np.random.default_rng(0))
    >>> round(float(counts.mean()) + 1, 2), round(sd.expected_tokens(0.8, 4), 2)
    (3.36, 3.36)
    """
    a = check_probability(alpha, "alpha")
    kk = check_count(k, "k")
    n = check_count(n_rounds, "n_rounds")
    check_size(2.0 * n * max(a.size, 1), "n_rounds", "the simulated counts (alpha.size x n_rounds)")
    g = check_rng(rng)
    if a.ndim == 0:
        # inverse CDF of the (k+1)-point law: N = #{n < k : P(N <= n) <= u},
        # with P(N <= n) = 1 - alpha**(n+1); exact at alpha = 0 and alpha = 1.
        cdf = 1.0 - float(a) ** np.arange(1, kk + 1)
        return np.searchsorted(cdf, g.random(n), side="right").astype(np.int64)
    u = g.random(a.shape + (n,))
    a_ = a[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        # P(G >= m) = P(log1p(-u) <= m log(alpha)) = alpha**m
        geo = np.floor(np.log1p(-u) / np.log(a_))
    geo = np.where(a_ >= 1.0, kk, np.where(a_ <= 0.0, 0, np.nan_to_num(geo, nan=kk, posinf=kk)))
    return np.minimum(geo, kk).astype(np.int64)


def simulate_accepted_counts_per_position(alphas, n_rounds, rng):
    """Accepted drafts per round when the acceptance rate depends on the position.

    Draft ``i`` is accepted with probability ``alphas[i-1]`` given that
    drafts ``1 .. i-1`` were; ``k = len(alphas)``.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    alphas : array_like, shape (k,)
        Conditional acceptance rates, each in [0, 1].
    n_rounds : int
        Rounds, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    numpy.ndarray of int64, shape (n_rounds,)
        Accepted drafts per round, 0..k.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> c = sd.estimation.simulate_accepted_counts_per_position([0.9, 0.7, 0.5], 100_000, np.random.default_rng(0))
    >>> round(float(c.mean()) + 1, 2), round(sd.expected_tokens_per_position([0.9, 0.7, 0.5]), 2)
    (2.85, 2.84)
    """
    a = check_probability(alphas, "alphas")
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"alphas must be a 1-D array with one rate per draft position; got shape {a.shape}")
    n = check_count(n_rounds, "n_rounds")
    check_size(2.0 * n * a.size, "n_rounds", "the simulated rounds (n_rounds x k)")
    u = check_rng(rng).random((n, a.size))
    ok = u < a
    # number of leading accepts = index of the first rejection (or k)
    return np.where(ok.all(axis=1), a.size, np.argmin(ok, axis=1)).astype(np.int64)


def _check_counts(accepted_counts, k) -> tuple[np.ndarray, int]:
    kk = check_count(k, "k")
    c = as_float_array(accepted_counts, "accepted_counts")
    if c.ndim == 0 or c.shape[-1] == 0:
        raise ValueError(f"accepted_counts must be a non-empty array of per-round counts; got shape {c.shape}")
    if np.isnan(c).any() or (c != np.round(c)).any():
        raise ValueError("accepted_counts must be whole numbers (accepted drafts per round)")
    if (c < 0).any() or (c > kk).any():
        bad = c[(c < 0) | (c > kk)].flat[0]
        raise ValueError(f"accepted_counts must be in 0..k = 0..{kk}; got {describe(bad)}")
    return c.astype(np.int64), kk


def wilson_interval(successes, trials, confidence=0.95):
    r"""Wilson score interval for a binomial-like proportion.

    .. math:: \frac{\hat a + \frac{z^2}{2n} \pm z\sqrt{\frac{\hat a(1-\hat a)}{n} + \frac{z^2}{4n^2}}}{1 + z^2/n}

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    successes : float or array_like
        Successes, >= 0.
    trials : float or array_like
        Trials, >= successes and > 0.
    confidence : float
        Two-sided confidence level in (0, 1).

    Returns
    -------
    low, high : float or numpy.ndarray
        Interval end points in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> [round(x, 4) for x in sd.estimation.wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    s = check_nonnegative(successes, "successes")
    n = check_positive(trials, "trials")
    check_broadcast(successes=s, trials=n)
    if (s > n).any():
        bad = np.broadcast_to(s, np.broadcast_shapes(s.shape, n.shape))[np.broadcast_to(s > n, np.broadcast_shapes(
            s.shape, n.shape))].flat[0]
        raise ValueError(f"successes must not exceed trials; got {describe(bad)} successes")
    conf = float(check_fraction_open(confidence, "confidence"))
    z = _normal_quantile(0.5 + conf / 2)
    a = s / n
    denom = 1 + z**2 / n
    centre = (a + z**2 / (2 * n)) / denom
    half = z * np.sqrt(a * (1 - a) / n + z**2 / (4 * n**2)) / denom
    scalar = is_scalar_input(successes, trials)
    return to_output(np.clip(centre - half, 0, 1), scalar), to_output(np.clip(centre + half, 0, 1), scalar)


def _normal_quantile(prob: float) -> float:
    """Standard normal quantile via :class:`statistics.NormalDist` (no scipy)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(prob)


@dataclass(frozen=True)
class AlphaEstimate:
    """Maximum-likelihood alpha with a Wilson score interval (see :func:`estimate_alpha`).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Attributes
    ----------
    alpha, low, high : float or numpy.ndarray
        Estimate and interval end points (arrays when several logs are
        estimated at once along the leading axes).
    n_rounds : int
        Rounds per log.
    accepted : int or numpy.ndarray
        S, total accepted drafts.
    stops : int or numpy.ndarray
        F, rounds that stopped before k (each is one observed rejection).
    confidence : float
        Confidence level of the interval.
    """

    alpha: Any
    low: Any
    high: Any
    n_rounds: int
    accepted: Any
    stops: Any
    confidence: float

    def __str__(self) -> str:
        if np.ndim(self.alpha) == 0:
            return (f"alpha = {self.alpha:.3f} ({self.confidence:.0%} interval {self.low:.3f} .. "
                    f"{self.high:.3f}; {self.accepted} accepted drafts, {self.stops} rejections, "
                    f"{self.n_rounds} rounds)")
        return f"AlphaEstimate over {np.shape(self.alpha)} logs of {self.n_rounds} rounds"


def estimate_alpha(accepted_counts, k, confidence=0.95):
    r"""Maximum-likelihood alpha from accepted drafts per round, with an interval.

    Under the capped geometric model every accepted draft is a success and
    every round that stopped before ``k`` drafts ended with exactly one
    rejection (a round with all ``k`` accepted saw no rejection). The
    likelihood is :math:`\alpha^S (1-\alpha)^F` with ``S`` the total
    accepted drafts and ``F`` the rounds with fewer than ``k`` accepted, so

    .. math:: \hat\alpha = \frac{S}{S + F}.

    The interval is the Wilson score interval with ``S`` successes in
    ``S + F`` Bernoulli checks (the likelihood has the binomial form because
    stopping at the first rejection is a stopping rule that does not change
    it). Its coverage is close to nominal; the book's tests check it over
    repeated simulated logs.

    When the rate is not constant across positions (multi-head drafts,
    long drafts), use :func:`estimate_alpha_per_position` as well.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    accepted_counts : array_like of int
        Accepted drafts per round, each in ``0 .. k``. Rounds on the last
        axis; leading axes are separate logs estimated independently.
    k : int
        Draft tokens proposed per round, >= 1.
    confidence : float
        Two-sided confidence level of the interval, in (0, 1).

    Returns
    -------
    AlphaEstimate
        ``.alpha``, ``.low``, ``.high``, ``.n_rounds``, ``.accepted`` (S),
        ``.stops`` (F), ``.confidence``.

    Examples
    --------
    >>> import specdec as sd
    >>> est = sd.estimation.estimate_alpha([4, 2, 0, 4, 3], k=4)   # S = 13, F = 3
    >>> round(est.alpha, 4), est.accepted, est.stops
    (0.8125, 13, 3)
    """
    c, kk = _check_counts(accepted_counts, k)
    conf = float(check_fraction_open(confidence, "confidence"))
    s = c.sum(axis=-1)
    f = (c < kk).sum(axis=-1)
    n_checks = s + f
    # n_checks >= 1 always: a non-empty log has either a rejection or k >= 1 accepts
    alpha = s / n_checks
    low, high = wilson_interval(s, n_checks, conf)
    scalar = c.ndim == 1
    as_int = (lambda x: int(x)) if scalar else np.asarray
    return AlphaEstimate(
        alpha=to_output(alpha, scalar), low=to_output(low, scalar), high=to_output(high, scalar),
        n_rounds=int(c.shape[-1]), accepted=as_int(s), stops=as_int(f), confidence=conf,
    )


@dataclass(frozen=True)
class PerPositionEstimate:
    """Conditional acceptance rate at each draft position (see :func:`estimate_alpha_per_position`).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Attributes
    ----------
    alphas, low, high : numpy.ndarray, shape (k,)
        Estimate and Wilson interval per position (NaN where no round reached
        the position).
    reached : numpy.ndarray of int64, shape (k,)
        Rounds that reached position i (at least i - 1 accepted): the denominator.
    passed : numpy.ndarray of int64, shape (k,)
        Rounds with at least i accepted: the numerator.
    """

    alphas: np.ndarray
    low: np.ndarray
    high: np.ndarray
    reached: np.ndarray
    passed: np.ndarray


def estimate_alpha_per_position(accepted_counts, k, confidence=0.95):
    r"""Conditional acceptance rate at each draft position, from accepted counts.

    .. math:: \hat\alpha_i = \frac{\#\{\text{rounds with} \ge i \text{ accepted}\}}
                                 {\#\{\text{rounds with} \ge i - 1 \text{ accepted}\}}

    Position ``i``'s draft is checked only in rounds that accepted the
    ``i - 1`` before it, so these are the rates multi-head and tree methods
    report; plug them into :func:`specdec.expected_tokens_per_position`.
    If they drift with ``i`` the single-alpha model is a poor fit. Their
    ``reached``-weighted pooled rate equals :func:`estimate_alpha`.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    accepted_counts : array_like of int, 1-D
        Accepted drafts per round, each in ``0 .. k``.
    k : int
        Draft tokens per round, >= 1.
    confidence : float
        Level of the per-position Wilson intervals, in (0, 1).

    Returns
    -------
    PerPositionEstimate

    Examples
    --------
    >>> import specdec as sd
    >>> est = sd.estimation.estimate_alpha_per_position([0, 1, 2, 2, 2], k=2)
    >>> est.alphas.tolist(), est.reached.tolist()
    ([0.8, 0.75], [5, 4])
    """
    c, kk = _check_counts(accepted_counts, k)
    if c.ndim != 1:
        raise ValueError(f"accepted_counts must be 1-D here (one log); got shape {c.shape}")
    conf = float(check_fraction_open(confidence, "confidence"))
    hist = np.bincount(c, minlength=kk + 1)
    at_least = hist[::-1].cumsum()[::-1]  # at_least[j] = #rounds with >= j accepted
    reached = at_least[:kk]
    passed = at_least[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        alphas = np.where(reached > 0, passed / np.maximum(reached, 1), np.nan)
    low, high = wilson_interval(passed, np.maximum(reached, 1), conf)
    low = np.where(reached > 0, low, np.nan)
    high = np.where(reached > 0, high, np.nan)
    return PerPositionEstimate(alphas=alphas, low=low, high=high, reached=reached.astype(np.int64),
                               passed=passed.astype(np.int64))


# --------------------------------------------------------------------------
# engine counters (vLLM)
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class EngineReading:
    """What an engine's speculative decoding counters mean, converted to the book's alpha.

    Defined in chapter "What serving engines print".

    Attributes
    ----------
    num_drafts, num_draft_tokens, num_accepted_tokens : float
        The counters over the window (rounds, drafted tokens, accepted drafts).
    k : int
        Draft positions: the length of the per-position counters when given
        (vLLM's ``num_speculative_tokens``), else the mean draft length rounded up.
    mean_draft_length : float
        ``num_draft_tokens / num_drafts``; equal to ``k`` when every round
        proposed ``k`` drafts.
    fixed_k : bool
        Whether ``mean_draft_length`` is a whole number (within 1e-9): every
        round proposed the same number of drafts, as far as the counters tell.
    mean_acceptance_length : float
        vLLM's "Mean acceptance length", ``1 + num_accepted_tokens / num_drafts``
        (E[L], the bonus token included).
    accepted_per_round : float
        ``num_accepted_tokens / num_drafts`` (E[L] - 1).
    draft_acceptance_rate : float
        vLLM's "Avg Draft acceptance rate" (as a fraction, not a percentage),
        ``num_accepted_tokens / num_draft_tokens``.
    alpha : float
        The i.i.d. acceptance rate that reproduces the mean acceptance length
        at ``mean_draft_length`` drafts per round, or, when per-position
        draft counts are given, the accepted drafts over the checks at every
        position (see :func:`read_engine_counters` for both approximations).
    alpha_method : str
        ``"fixed draft length"``, ``"mean draft length"`` or
        ``"per-position counts"``: which of those computed ``alpha``.
    per_position : numpy.ndarray or None
        vLLM's "Per-position acceptance rate", ``accepted_per_pos[i] /
        num_drafts``: the unconditional ``P(N >= i)`` when every round
        proposed ``k`` drafts, *not* the conditional alpha_i.
    conditional : numpy.ndarray or None
        Conditional rates alpha_i (draft ``i`` accepted given the ones before
        it were), from the per-position counters.
    """

    num_drafts: float
    num_draft_tokens: float
    num_accepted_tokens: float
    k: int
    mean_acceptance_length: float
    accepted_per_round: float
    draft_acceptance_rate: float
    alpha: float
    per_position: np.ndarray | None = field(default=None)
    conditional: np.ndarray | None = field(default=None)
    mean_draft_length: float = 0.0
    fixed_k: bool = True
    alpha_method: str = "fixed draft length"


def read_engine_counters(num_drafts, num_draft_tokens=None, num_accepted_tokens=None, accepted_per_position=None,
                         *, draft_tokens_per_position=None, before=None, labels=None):
    r"""Turn an engine's speculative decoding counters into alpha.

    The counters are those vLLM exports (:data:`specdec.engine_metrics.VLLM_METRICS`): verification
    rounds (``num_drafts``), drafted tokens, accepted drafts, and accepted
    drafts at each position (``accepted_per_pos[i]`` counts the rounds that
    accepted at least ``i + 1`` drafts). Pass them as numbers, or pass the
    engine's counters as one argument: a dict keyed by the metric names or
    the ``/metrics`` text (:func:`specdec.engine_metrics.parse_vllm_metrics`). Counters are
    cumulative; give an earlier snapshot as ``before`` to read the window
    between the two.

    The engine's own derived figures are ``1 + accepted / drafts`` (its "Mean
    acceptance length", bonus included), ``accepted / draft tokens`` ("Avg
    Draft acceptance rate") and ``accepted_per_pos / drafts`` ("Per-position
    acceptance rate", the *unconditional* ``P(N >= i)``); the conditional
    rates alpha_i follow from the last by
    :func:`specdec.acceptance.conditional_from_unconditional`.

    **When rounds propose different numbers of drafts** (n-gram drafting
    finds fewer matches; requests near their length limit or with structured
    output propose fewer than ``k``), ``num_draft_tokens / num_drafts`` is
    not a whole number. Then ``alpha`` is the approximation that treats every
    round as if it proposed the mean number ``m`` of drafts: it solves
    :math:`1 + \alpha + \dots + \alpha^{m}` = the mean acceptance length with
    E[L] continued to real ``m`` by :math:`(1 - \alpha^{m+1})/(1 - \alpha)`
    (:func:`specdec.acceptance.alpha_for_expected_tokens`). Because the
    accepted count is concave in the draft length, this reads alpha low when
    lengths vary widely (by about 0.03 at alpha = 0.7 when rounds propose 1
    to 5 drafts uniformly; exact when every round proposes the same number).

    With ``draft_tokens_per_position`` (``D_i``, rounds that proposed at
    least ``i`` drafts; vLLM's ``SpecDecodingStats`` tracks it, its
    Prometheus logger does not export it) the estimates assume only that a
    round's length does not depend on its drafts' acceptance:
    :math:`\prod_{j \le i} \alpha_j = A_i / D_i` gives the conditional
    rates, and ``alpha`` is the accepted drafts over the checks made at every
    position (``A_(i-1) D_i / D_(i-1)`` checks at position ``i``), within
    sampling noise of the truth. Without it the conditional rates at late
    positions are biased low when lengths vary.

    The names and meanings were read in vLLM's own source,
    ``vllm/v1/spec_decode/metrics.py`` (``SpecDecodingStats.observe_draft``,
    ``SpecDecodingLogging.log``, which prints "Mean acceptance length" and
    "Per-position acceptance rate", and ``SpecDecodingProm``) at commits
    ``016a8587edb04ae53c913a1da9355a07dc0ca4ae`` and
    ``ee4ceaae5953d367d8edd2132fd86d6c42506e1e`` of vllm-project/vllm (V1 engine),
    and the scheduler's ``make_spec_decoding_stats`` in
    ``vllm/v1/core/sched/scheduler.py``.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    num_drafts : float, dict or str
        Verification rounds in the window, > 0 (or all the counters, see above).
    num_draft_tokens : float, optional
        Draft tokens proposed, >= ``num_drafts`` (each counted round proposes
        at least one); need not be a multiple of ``num_drafts``.
    num_accepted_tokens : float, optional
        Draft tokens accepted, in ``[0, num_draft_tokens]``.
    accepted_per_position : array_like, optional
        Accepted drafts at positions 1..k (counts), non-increasing, summing to
        ``num_accepted_tokens``.
    draft_tokens_per_position : array_like, optional
        Rounds that proposed a draft at positions 1..k, non-increasing, summing
        to ``num_draft_tokens``.
    before : dict or str, optional
        An earlier snapshot of the same counters (only with a dict or text
        ``num_drafts``).
    labels : dict, optional
        Label filter for the ``/metrics`` text (see :func:`specdec.engine_metrics.parse_vllm_metrics`).

    Returns
    -------
    EngineReading

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.estimation.read_engine_counters(1000, 4000, 2362)
    >>> r.k, round(r.mean_acceptance_length, 3), round(r.draft_acceptance_rate, 4), round(r.alpha, 3)
    (4, 3.362, 0.5905, 0.8)
    >>> r = sd.estimation.read_engine_counters(1000, 3500, 2000)     # 3.5 drafts per round on average
    >>> r.fixed_k, r.mean_draft_length, round(r.alpha, 3)
    (False, 3.5, 0.769)
    """
    if isinstance(num_drafts, (Mapping, str)):
        if any(v is not None for v in (num_draft_tokens, num_accepted_tokens, accepted_per_position,
                                       draft_tokens_per_position)):
            raise TypeError("pass either the counters as one dict or /metrics text, or the numbers one by one")
        counters = parse_vllm_metrics(num_drafts, labels)
        if before is not None:
            counters = counter_difference(counters, parse_vllm_metrics(before, labels))
        return read_engine_counters(counters["num_drafts"], counters["num_draft_tokens"],
                                    counters["num_accepted_tokens"], counters.get("accepted_per_position"),
                                    draft_tokens_per_position=counters.get("draft_tokens_per_position"))
    if before is not None or labels is not None:
        raise TypeError("before and labels apply when the counters are given as a dict or /metrics text")
    if num_draft_tokens is None or num_accepted_tokens is None:
        raise TypeError("read_engine_counters needs num_drafts, num_draft_tokens and num_accepted_tokens")
    n = float(check_positive(num_drafts, "num_drafts", "(rounds)"))
    d = float(check_positive(num_draft_tokens, "num_draft_tokens", "(tokens)"))
    a = float(check_nonnegative(num_accepted_tokens, "num_accepted_tokens", "(tokens)"))
    if d < n:
        raise ValueError(f"num_draft_tokens must be >= num_drafts ({describe(n)}): every counted round proposes "
                         f"at least one draft; got {describe(d)}")
    if a > d:
        raise ValueError(f"num_accepted_tokens must be <= num_draft_tokens ({describe(d)}); got {describe(a)}")
    m = d / n
    fixed = abs(m - round(m)) <= 1e-9 * m
    per_position = conditional = pooled = None
    k = int(round(m)) if fixed else int(math.ceil(m))
    if accepted_per_position is not None:
        counts = check_nonnegative(accepted_per_position, "accepted_per_position", "(tokens)")
        if counts.ndim != 1 or counts.size == 0:
            raise ValueError(f"accepted_per_position must be a 1-D list of counts by position; got shape {counts.shape}")
        if counts.size < m - 1e-9:
            raise ValueError(f"accepted_per_position has {counts.size} positions, fewer than the mean draft length "
                             f"{describe(m)}")
        if np.any(np.diff(counts) > 0) or counts[0] > n:
            raise ValueError("accepted_per_position must be non-increasing and at most num_drafts (a round that "
                             "accepted draft i accepted every draft before it)")
        if abs(counts.sum() - a) > 1e-6 * max(a, 1.0):
            raise ValueError(f"accepted_per_position must sum to num_accepted_tokens ({describe(a)}); "
                             f"got {describe(counts.sum())}")
        k = int(counts.size)
        per_position = counts / n
        reached = np.full(k, n)
        if draft_tokens_per_position is not None:
            drafted = check_nonnegative(draft_tokens_per_position, "draft_tokens_per_position", "(tokens)")
            if drafted.shape != counts.shape:
                raise ValueError(f"draft_tokens_per_position must have k = {k} entries like accepted_per_position; "
                                 f"got shape {drafted.shape}")
            if np.any(np.diff(drafted) > 0) or drafted[0] > n or np.any(counts > drafted):
                raise ValueError("draft_tokens_per_position must be non-increasing, at most num_drafts, and at "
                                 "least accepted_per_position at every position")
            if abs(drafted.sum() - d) > 1e-6 * d:
                raise ValueError(f"draft_tokens_per_position must sum to num_draft_tokens ({describe(d)}); "
                                 f"got {describe(drafted.sum())}")
            reached = drafted
        with np.errstate(invalid="ignore", divide="ignore"):
            joint = np.where(reached > 0, counts / np.where(reached > 0, reached, 1.0), 0.0)
        # A_i / D_i estimates prod_{j <= i} alpha_j; sampling noise can make it rise where D_i is small
        conditional = conditional_from_unconditional(np.minimum.accumulate(joint))
        if draft_tokens_per_position is not None:
            # checks at position i: rounds that accepted i - 1 drafts and proposed an i-th, estimated as
            # A_(i-1) D_i / D_(i-1) when lengths do not depend on acceptance; accepted drafts over checks
            prev_a = np.concatenate(([n], counts[:-1]))
            prev_d = np.concatenate(([n], reached[:-1]))
            with np.errstate(invalid="ignore", divide="ignore"):
                checks = np.where(prev_d > 0, prev_a * reached / np.where(prev_d > 0, prev_d, 1.0), 0.0)
            pooled = float(counts.sum() / checks.sum()) if checks.sum() > 0 else 0.0
    elif draft_tokens_per_position is not None:
        raise ValueError("draft_tokens_per_position needs accepted_per_position as well")
    length = 1.0 + a / n
    rate = a / d
    if pooled is not None:
        alpha, method = pooled, "per-position counts"
    else:
        alpha = float(alpha_for_expected_tokens(min(1.0 + rate * m, m + 1.0), m))
        method = "fixed draft length" if fixed else "mean draft length"
    return EngineReading(n, d, a, k, length, length - 1.0, rate, alpha, per_position, conditional, m, bool(fixed),
                         method)


def read_accepted_counts(accepted_counts, k):
    """The engine's counters and figures for a log of accepted drafts per round.

    Builds the counters vLLM would export for these rounds, every one
    proposing ``k`` drafts (rounds, ``k`` x rounds drafted tokens, the
    accepted total, and the rounds with at least ``i`` accepted), and reads
    them with :func:`read_engine_counters`: the draft acceptance rate, mean
    acceptance length, per-position rates and alpha a serving dashboard
    would show for this log.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    accepted_counts : array_like of int, 1-D
        Accepted drafts per round, each in ``0 .. k``.
    k : int
        Draft tokens proposed per round, >= 1.

    Returns
    -------
    EngineReading

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.estimation.read_accepted_counts([4, 2, 0, 4, 3], k=4)
    >>> r.draft_acceptance_rate, r.mean_acceptance_length, r.per_position.tolist()
    (0.65, 3.6, [0.8, 0.8, 0.6, 0.4])
    """
    c, kk = _check_counts(accepted_counts, k)
    if c.ndim != 1:
        raise ValueError(f"accepted_counts must be 1-D here (one log); got shape {c.shape}")
    n = c.size
    at_least = np.bincount(c, minlength=kk + 1)[::-1].cumsum()[::-1]  # at_least[j] = rounds with >= j accepted
    return read_engine_counters(float(n), float(n * kk), float(c.sum()), at_least[1:].astype(float))

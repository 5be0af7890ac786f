"""Estimating alpha from logs: accepted counts, engine counters, intervals.

The maximum-likelihood alpha ``S / (S + F)`` of a per-round log with a Wilson interval
(:func:`estimate_alpha`), per-position rates (:func:`estimate_alpha_per_position`), the one
counters reader :func:`read_engine_counters` (vLLM's counters in any form
:mod:`specdec.acceptance.engine_metrics` parses) with :func:`moment_alpha_interval` or
:func:`bootstrap_alpha`, re-exported from ``specdec.acceptance._intervals``, and
:func:`simulate_accepted_counts` to draw logs. Results are float64.
"""

from __future__ import annotations

import math
import os
import pathlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    as_float_array,
    check_count,
    check_fraction_open,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    check_scalar,
    check_size,
    describe,
    to_output,
)
from specdec.acceptance import _alpha_for_expected_tokens, conditional_from_unconditional
from specdec.acceptance._engine_formats import _read_engine_source, check_labels, check_source
from specdec.acceptance._intervals import (
    BootstrapEstimate,
    _moment_alpha_interval,
    _wilson_interval,
    bootstrap_alpha,
    moment_alpha_interval,
    wilson_interval,
)
from specdec.acceptance.engine_metrics import EngineSource, counter_difference, source_label

__all__ = [
    "simulate_accepted_counts",
    "simulate_accepted_counts_per_position",
    "wilson_interval",
    "AlphaEstimate",
    "estimate_alpha",
    "PerPositionEstimate",
    "estimate_alpha_per_position",
    "moment_alpha_interval",
    "EngineReading",
    "read_engine_counters",
    "read_accepted_counts",
    "BootstrapEstimate",
    "bootstrap_alpha",
]


def simulate_accepted_counts(alpha: ArrayLike, k: int, n_rounds: int, rng: np.random.Generator | int) -> np.ndarray:
    """Accepted drafts per round under i.i.d. acceptance (the capped geometric model).

    ``N = min(G, k)`` with ``P(G >= n) = alpha**n``, drawn by inverse CDF.

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


def simulate_accepted_counts_per_position(alphas: ArrayLike, n_rounds: int,
                                          rng: np.random.Generator | int) -> np.ndarray:
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


def _check_counts(accepted_counts: ArrayLike, k: int) -> tuple[np.ndarray, int]:
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


def estimate_alpha(accepted_counts: ArrayLike, k: int, confidence: float = 0.95) -> AlphaEstimate:
    r"""Maximum-likelihood alpha from accepted drafts per round, with an interval.

    The likelihood is :math:`\alpha^S (1-\alpha)^F` with ``S`` the total accepted drafts and ``F``
    the rounds with fewer than ``k`` accepted, so

    .. math:: \hat\alpha = \frac{S}{S + F}.

    The interval is the Wilson score interval with ``S`` successes in ``S + F`` checks.

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
    low, high = _wilson_interval(s, n_checks, conf)
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
        Estimate and Wilson interval per position (``nan`` where no round reached
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


def estimate_alpha_per_position(accepted_counts: ArrayLike, k: int, confidence: float = 0.95) -> PerPositionEstimate:
    r"""Conditional acceptance rate at each draft position, from accepted counts.

    .. math:: \hat\alpha_i = \frac{\#\{\text{rounds with} \ge i \text{ accepted}\}}
                                 {\#\{\text{rounds with} \ge i - 1 \text{ accepted}\}}

    Their ``reached``-weighted pooled rate equals :func:`estimate_alpha`.

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
    low, high = _wilson_interval(passed, np.maximum(reached, 1), conf)
    low = np.where(reached > 0, low, np.nan)
    high = np.where(reached > 0, high, np.nan)
    return PerPositionEstimate(alphas=alphas, low=low, high=high, reached=reached.astype(np.int64),
                               passed=passed.astype(np.int64))


# --------------------------------------------------------------------------
# engine counters (vLLM): the one reader
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class EngineReading:
    """What an engine's speculative decoding counters mean, converted to the book's alpha.

    Defined in chapter "What serving engines print"; used by :func:`specdec.decision.decide`
    (chapter "Decide for your service").

    Attributes
    ----------
    num_drafts, num_draft_tokens, num_accepted_tokens : float
        The counters over the window (rounds, drafted tokens, accepted drafts).
    k : int
        Draft positions: the ``k`` given, else the number of per-position
        counters, else the mean draft length rounded up.
    mean_acceptance_length, accepted_per_round : float
        vLLM's "Mean acceptance length" ``1 + accepted / drafts`` (E[L], bonus
        included), and ``accepted / drafts`` (E[L] - 1).
    draft_acceptance_rate : float
        vLLM's "Avg Draft acceptance rate" as a fraction, ``accepted / draft
        tokens`` = ``(E[L] - 1) / k``: not alpha.
    alpha : float
        The i.i.d. acceptance rate (see :func:`read_engine_counters`).
    per_position : numpy.ndarray or None
        vLLM's "Per-position acceptance rate", ``accepted_per_pos[i] /
        num_drafts``: the unconditional ``P(N >= i)`` when every round
        proposed ``k`` drafts, *not* the conditional alpha_i.
    conditional : numpy.ndarray or None
        Conditional rates alpha_i (draft ``i`` accepted given the ones before
        it were), from the per-position counters.
    mean_draft_length : float
        ``num_draft_tokens / num_drafts`` (``k`` when every round proposed ``k``).
    fixed_k : bool
        Whether ``mean_draft_length`` is a whole number (within 1e-9).
    alpha_method : str
        ``"fixed draft length"``, ``"mean draft length"`` or ``"per-position counts"``.
    alpha_interval : tuple of float
        ``(low, high)`` at ``confidence`` (:func:`moment_alpha_interval`, or
        Wilson for the per-position estimate).
    confidence : float
        Level of the intervals.
    alpha_mle : tuple of float or None
        ``(alpha, low, high)``: the MLE ``S / (S + F)`` (``F`` = rounds that
        stopped before ``k``) and its Wilson interval, when every round
        proposed ``k`` drafts and per-position counts are given.
    accepted_per_position : tuple of float or None
        The per-position counts as given.
    conditional_interval : tuple of numpy.ndarray or None
        ``(low, high)`` Wilson intervals of ``conditional``.
    drift : str or None
        ``"falls"`` or ``"rises"`` when the first and the last conditional
        rates have Wilson intervals that do not overlap (judged only for
        rounds of one length, or with per-position draft counts).
    warnings : tuple of str
        What the counters contradict or approximate, with the numbers.
    source : str
        Where the counters came from.
    engine, form : str
        The engine (a key of :data:`specdec.acceptance.engine_metrics.ENGINES`) and the form read.
    notes : tuple of str
        How the form was read (see :func:`specdec.acceptance.engine_metrics.read_engine_source`).
    n_requests : int or None
        With per-request counts, the number of requests; the interval then resamples them
        (:func:`bootstrap_alpha`).
    interval_method : str
        How ``alpha_interval`` was made, in words.
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
    alpha_interval: tuple | None = None
    confidence: float = 0.95
    alpha_mle: tuple | None = None
    accepted_per_position: tuple | None = None
    conditional_interval: tuple | None = None
    drift: str | None = None
    warnings: tuple = ()
    source: str = "counters (numbers)"
    engine: str = "vllm"
    form: str = "counters (numbers)"
    notes: tuple = ()
    n_requests: int | None = None
    interval_method: str = ""


def _count(x: float) -> str:
    """A count for a message: ``2100``, not ``2100.0``."""
    return describe(int(x)) if float(x).is_integer() and abs(x) < 1e18 else describe(float(x))


def _per_position_problems(counts: np.ndarray, n: float, a: float) -> list:
    """What makes per-position counts impossible as one window of one engine, in words with the numbers."""
    problems = []
    rises = np.flatnonzero(np.diff(counts) > 0)
    if rises.size:
        i = int(rises[0])
        problems.append(f"accepted_per_position rises from {_count(counts[i])} at position {i + 1} to "
                        f"{_count(counts[i + 1])} at position {i + 2}; a draft is accepted only after every draft "
                        f"before it, so the counts must be non-increasing")
    if counts[0] > n:
        problems.append(f"accepted_per_position: {_count(counts[0])} rounds accepted position 1, more than the "
                        f"{_count(n)} rounds counted (num_drafts)")
    if abs(counts.sum() - a) > 0.5 + 1e-9 * a:
        problems.append(f"accepted_per_position sums to {_count(counts.sum())}, not num_accepted_tokens = "
                        f"{_count(a)}; snapshots of different windows?")
    return problems


def read_engine_counters(num_drafts: Any,
                         num_draft_tokens: float | None = None, num_accepted_tokens: float | None = None,
                         accepted_per_position: ArrayLike | None = None, *,
                         draft_tokens_per_position: ArrayLike | None = None,
                         before: dict[str, Any] | str | pathlib.Path | Sequence[Any] | None = None,
                         labels: dict[str, Any] | None = None, k: int | None = None, strict: bool = True,
                         confidence: float = 0.95) -> EngineReading:
    r"""Turn an engine's speculative decoding counters into alpha, with an interval: the one counters reader.

    The counters of :data:`specdec.acceptance.engine_metrics.VLLM_METRICS` (``accepted_per_pos[i]``
    counts the rounds that accepted at least ``i + 1`` drafts), as numbers or as one argument in any
    form :func:`specdec.acceptance.engine_metrics.parse_vllm_metrics` reads; ``before`` gives the
    window between two cumulative snapshots. ``alpha`` is the method-of-moments estimate (E[L] equal
    to the mean acceptance length, at the mean draft length when lengths vary) with
    :func:`moment_alpha_interval`; with per-position counts of rounds of ``k`` drafts also the MLE
    ``S / (S + F)`` and the conditional rates, with Wilson intervals and ``drift``; with
    ``draft_tokens_per_position`` the conditional rates :math:`\prod_{j \le i} \alpha_j = A_i / D_i`.

    Defined in chapter "What serving engines print"; used by :func:`specdec.decision.decide`
    (chapter "Decide for your service").

    Parameters
    ----------
    num_drafts : float, dict, str, pathlib.Path or sequence
        Verification rounds in the window, > 0 (or all the counters, see above).
    num_draft_tokens : float, optional
        Draft tokens proposed, >= ``num_drafts``.
    num_accepted_tokens : float, optional
        Draft tokens accepted, in ``[0, num_draft_tokens]``.
    accepted_per_position : array_like, optional
        Accepted drafts at positions 1..k (counts), non-increasing, summing to
        ``num_accepted_tokens``.
    draft_tokens_per_position : array_like, optional
        Rounds that proposed a draft at positions 1..k, non-increasing, summing
        to ``num_draft_tokens`` (vLLM's ``SpecDecodingStats``; not in its Prometheus export).
    before : dict, str, pathlib.Path or sequence, optional
        An earlier snapshot (with the counters as one argument).
    labels : dict, optional
        Label filter for the ``/metrics`` text (see :func:`specdec.acceptance.engine_metrics.parse_vllm_metrics`).
    k : int, optional
        The configured draft length (vLLM's ``num_speculative_tokens``), >= 1:
        checked against the counters (more draft tokens per round than ``k``,
        or another number of positions, raise; fewer is a warning).
    strict : bool, optional
        Raise on impossible per-position counts (rising, more rounds than counted, a sum other
        than the accepted total; default), or warn and read the totals.
    confidence : float, optional
        Level of the intervals, in (0, 1). Default 0.95.

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
    >>> r = sd.estimation.read_engine_counters((10_000, 40_000, 21_000, [7_600, 5_700, 4_300, 3_400]))
    >>> round(r.alpha, 4), [round(x, 4) for x in r.alpha_mle]
    (0.7583, [0.7609, 0.7558, 0.7659])
    """
    if isinstance(num_drafts, (Mapping, str, bytes, os.PathLike, list, tuple, EngineSource)):
        if any(v is not None for v in (num_draft_tokens, num_accepted_tokens, accepted_per_position,
                                       draft_tokens_per_position)):
            raise TypeError("pass either the counters as one argument (a dict, /metrics text, a file or a sequence), "
                            "or the numbers one by one")
        check_labels(labels)
        if isinstance(num_drafts, EngineSource):
            num_drafts = check_source(num_drafts)
        if isinstance(before, EngineSource):
            before = check_source(before)
        return _read_one_argument(num_drafts, before, labels, None if k is None else check_count(k, "k"), strict,
                                  float(check_fraction_open(confidence, "confidence")))
    if before is not None or labels is not None:
        raise TypeError("before and labels apply when the counters are given as one argument (a dict, /metrics "
                        "text, a file or a sequence)")
    if num_draft_tokens is None or num_accepted_tokens is None:
        raise TypeError("read_engine_counters needs num_drafts, num_draft_tokens and num_accepted_tokens")
    n = float(check_scalar(num_drafts, "num_drafts", check_positive, "(rounds)"))
    d = float(check_scalar(num_draft_tokens, "num_draft_tokens", check_positive, "(tokens)"))
    a = float(check_scalar(num_accepted_tokens, "num_accepted_tokens", check_nonnegative, "(tokens)"))
    conf = float(check_fraction_open(confidence, "confidence"))
    k_given = None if k is None else check_count(k, "k")
    counts = None if accepted_per_position is None else check_nonnegative(accepted_per_position,
                                                                          "accepted_per_position", "(tokens)")
    drafted = None if draft_tokens_per_position is None else check_nonnegative(
        draft_tokens_per_position, "draft_tokens_per_position", "(tokens)")
    return _reading(n, d, a, counts, drafted, k_given, strict, conf)


def _read_one_argument(source: Any, before: Any, labels: dict[str, Any] | None, k: int | None, strict: bool,
                       conf: float) -> EngineReading:
    """:func:`read_engine_counters` of counters given as one argument, with ``labels``, ``k`` and ``conf`` checked."""
    src = source if isinstance(source, EngineSource) else _read_engine_source(source, labels, k, "counters")
    if src.counters is None:
        raise ValueError(f"{src.form} holds only a mean acceptance length ({src.mean_acceptance_length:.4g}), "
                         f"no counts: pass it to decide as counters (or as mean_acceptance_length); without "
                         f"counts there is no interval")
    counters = src.counters
    notes = list(src.notes)
    if before is not None:
        if src.form.startswith("vLLM V1 'SpecDecoding metrics'"):
            raise ValueError("before: vLLM V1 log lines count each interval, not totals since the start; give "
                             "only the lines of the window (they are summed)")
        prior = before if isinstance(before, EngineSource) else _read_engine_source(before, labels, k, "before")
        if prior.counters is None or prior.engine != src.engine:
            raise ValueError(f"before must be the same kind of counters as the later snapshot ({src.form}); got "
                             f"{prior.form}")
        counters = counter_difference(counters, prior.counters)
        notes.append("the window between two snapshots")
    kk = k if k is not None else src.k
    # the reader checked every count (finite, >= 0; the per-position lists as arrays): only what a reading
    # needs beyond that (a round counted, a draft token proposed) is checked here
    n, d = float(counters["num_drafts"]), float(counters["num_draft_tokens"])
    for value, name, unit in ((n, "num_drafts", "(rounds)"), (d, "num_draft_tokens", "(tokens)")):
        if not value > 0:
            raise ValueError(f"{name} must be a finite number > 0 {unit}; got {describe(value)}")
    per_pos, drafted = (None if counters.get(key) is None else np.asarray(counters[key], dtype=float)
                        for key in ("accepted_per_position", "draft_tokens_per_position"))
    reading = _reading(n, d, float(counters["num_accepted_tokens"]), per_pos, drafted, kk, strict, conf)
    where = "" if isinstance(source, EngineSource) else source_label(source)
    generic = src.form in ("counters (a dict)", "counters (numbers)")
    label = where if generic else (f"{where}: {src.form}" if where else src.form)
    label += " (the window between two snapshots)" if before is not None else ""
    extra: dict[str, Any] = {}
    if src.requests is not None and before is None:
        boot = bootstrap_alpha(src.requests, k=reading.k if reading.fixed_k else None,
                               confidence=reading.confidence)
        extra = dict(alpha_interval=(boot.low, boot.high), n_requests=boot.n_requests,
                     interval_method=f"bootstrap over {boot.n_requests} requests ({boot.n_boot} resamples, "
                                     f"seed {boot.seed}, percentile interval)")
    return replace(reading, source=label, engine=src.engine, form=src.form, notes=tuple(notes), **extra)


def _reading(n: float, d: float, a: float, counts: np.ndarray | None, drafted: np.ndarray | None,
             k_given: int | None, strict: bool, conf: float) -> EngineReading:
    """:func:`read_engine_counters` on checked numbers: ``n``, ``d`` > 0, ``a`` >= 0, counts >= 0, ``conf`` in (0, 1)."""
    if d < n:
        raise ValueError(f"num_draft_tokens must be >= num_drafts ({_count(n)}): every counted round proposes "
                         f"at least one draft; got {_count(d)}")
    if a > d:
        raise ValueError(f"num_accepted_tokens must be <= num_draft_tokens = {_count(d)} (a draft token is accepted "
                         f"at most once); got {_count(a)}")
    m = d / n
    if k_given is not None and m > k_given * (1 + 1e-9):
        raise ValueError(f"num_draft_tokens / num_drafts = {m:.4g} draft tokens per draft is more than k = "
                         f"{k_given}")
    fixed = abs(m - round(m)) <= 1e-9 * m
    k_out = k_given if k_given is not None else (int(round(m)) if fixed else int(math.ceil(m)))
    warnings: list = []
    if counts is not None:
        if counts.ndim != 1 or counts.size == 0:
            raise ValueError(f"accepted_per_position must be a 1-D list of counts by position; got shape {counts.shape}")
        if k_given is not None and counts.size != k_given:
            raise ValueError(f"accepted_per_position has {counts.size} entries but k = {k_given} (one per draft "
                             f"position, as vLLM's num_accepted_tokens_per_pos)")
        if counts.size < m - 1e-9:
            raise ValueError(f"accepted_per_position has {counts.size} positions, fewer than the mean draft length "
                             f"{describe(m)}")
        k_out = int(counts.size)
        problems = _per_position_problems(counts, n, a)
        if problems and strict:
            raise ValueError(problems[0] + " (strict=False reads the totals and leaves the per-position counts out)")
        if problems:
            warnings += [f"counters: {p}; the per-position counts are left out" for p in problems]
            counts = None
        elif drafted is not None:
            if drafted.shape != counts.shape:
                raise ValueError(f"draft_tokens_per_position must have k = {k_out} entries like accepted_per_position; "
                                 f"got shape {drafted.shape}")
            if np.any(np.diff(drafted) > 0) or drafted[0] > n or np.any(counts > drafted):
                raise ValueError("draft_tokens_per_position must be non-increasing, at most num_drafts, and at "
                                 "least accepted_per_position at every position")
            if abs(drafted.sum() - d) > 1e-6 * d:
                raise ValueError(f"draft_tokens_per_position must sum to num_draft_tokens ({_count(d)}); "
                                 f"got {_count(drafted.sum())}")
    elif drafted is not None:
        raise ValueError("draft_tokens_per_position needs accepted_per_position as well")
    if m < k_out * (1 - 1e-9):
        how = ("from the per-position counts" if drafted is not None else
               "as if every round drafted the mean number, which reads it low when lengths vary")
        warnings.append(f"counters: {m:.4g} draft tokens per draft, fewer than k = {k_out} (some rounds drafted fewer "
                        f"tokens: n-gram misses, requests near their length limit); alpha is estimated {how}")
    length = 1.0 + a / n
    rate = a / d
    per_position = conditional = mle = cond_interval = drift = pooled = None
    if counts is not None:
        per_position = counts / n
        reached = drafted if drafted is not None else np.full(counts.size, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            joint = np.where(reached > 0, counts / np.where(reached > 0, reached, 1.0), 0.0)
        # A_i / D_i estimates prod_{j <= i} alpha_j; sampling noise can make it rise where D_i is small
        conditional = conditional_from_unconditional(np.minimum.accumulate(joint))
        # checks at position i: rounds that accepted i - 1 drafts and proposed an i-th (with D_i estimated as
        # A_(i-1) D_i / D_(i-1), when lengths do not depend on acceptance)
        prev_a = np.concatenate(([n], counts[:-1]))
        prev_d = np.concatenate(([n], reached[:-1]))
        with np.errstate(invalid="ignore", divide="ignore"):
            checks = np.where(prev_d > 0, prev_a * reached / np.where(prev_d > 0, prev_d, 1.0), 0.0)
        if drafted is not None:
            pooled = float(counts.sum() / checks.sum()) if checks.sum() > 0 else 0.0
        # positions no round reached get no interval (nan below): evaluate them at one check, then drop them
        lo, hi = _wilson_interval(np.where(checks > 0, np.minimum(counts, checks), 0.0),
                                  np.where(checks > 0, checks, 1.0), conf)
        cond_interval = (np.where(checks > 0, lo, np.nan), np.where(checks > 0, hi, np.nan))
        same_length = drafted is not None or (fixed and counts.size == int(round(m)))
        last = int(np.flatnonzero(checks > 0).max())
        if same_length and last > 0 and (cond_interval[1][last] < cond_interval[0][0]
                                         or cond_interval[1][0] < cond_interval[0][last]):
            drift = "falls" if conditional[last] < conditional[0] else "rises"
            warnings.append(f"acceptance {drift} with draft position: {conditional[0]:.3f} at position 1, "
                            f"{conditional[last]:.3f} at position {last + 1} ({conf:.0%} Wilson intervals do not "
                            f"overlap); the single-alpha model {'overstates' if drift == 'falls' else 'understates'} "
                            f"long drafts")
        if fixed and counts.size == int(round(m)):
            trials = a + (n - counts[-1])  # accepted drafts + rounds that stopped before k (one rejection each)
            lo, hi = _wilson_interval(a, trials, conf)
            mle = (float(a / trials), float(lo), float(hi))
    if pooled is not None:
        alpha, method = pooled, "per-position counts"
        lo, hi = _wilson_interval(a, max(float(checks.sum()), a), conf)
        interval = (float(lo), float(hi))
    else:
        # the counts are checked: 1 <= length, 1 <= m, n >= 1, conf in (0, 1)
        alpha = float(_alpha_for_expected_tokens(min(length, m + 1.0), m))
        method = "fixed draft length" if fixed else "mean draft length"
        interval = _moment_alpha_interval(min(length, m + 1.0), m, n, conf)
    return EngineReading(
        n, d, a, k_out, length, length - 1.0, rate, alpha, per_position, conditional, m, bool(fixed), method,
        alpha_interval=interval, confidence=conf, alpha_mle=mle,
        interval_method=("Wilson" if pooled is not None else "delta method (i.i.d. model)"),
        accepted_per_position=None if counts is None else tuple(float(c) for c in counts),
        conditional_interval=cond_interval, drift=drift, warnings=tuple(warnings))


def read_accepted_counts(accepted_counts: ArrayLike, k: int) -> EngineReading:
    """The engine's counters and figures for a log of accepted drafts per round.

    Builds the counters vLLM would export for these rounds (each proposing ``k`` drafts) and reads
    them with :func:`read_engine_counters`.

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


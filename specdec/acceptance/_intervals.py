"""Intervals for alpha: Wilson's score interval, the delta method for a mean length, and a seeded
bootstrap that resamples whole requests.

A private part of :mod:`specdec.acceptance.estimation` (which re-exports its public names).

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_count,
    check_fraction_open,
    check_nonnegative,
    check_positive,
    check_rng,
    check_scalar,
    check_size,
    describe,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import _alpha_for_expected_tokens, _check_length_k, _tokens_per_round_variance

__all__ = ["wilson_interval", "moment_alpha_interval", "BootstrapEstimate", "bootstrap_alpha"]


def wilson_interval(successes: ArrayLike, trials: ArrayLike,
                    confidence: float = 0.95) -> tuple[float | np.ndarray, float | np.ndarray]:
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
    return _wilson_interval(s, n, conf)


def _wilson_interval(successes: ArrayLike, trials: ArrayLike,
                     conf: float) -> tuple[float | np.ndarray, float | np.ndarray]:
    """:func:`wilson_interval` of counts ``0 <= successes <= trials``, ``trials > 0``, at ``conf`` in (0, 1) (no checks)."""
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
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


def moment_alpha_interval(mean_acceptance_length: float, k: float, n_rounds: float,
                          confidence: float = 0.95) -> tuple[float, float]:
    r"""Interval for the alpha that reproduces a measured mean acceptance length (method of moments).

    The delta method: the mean length :math:`\pm z\,\sigma_L/\sqrt{n}` (:math:`\sigma_L` from
    :func:`specdec.acceptance.tokens_per_round_variance` at the estimate, at the next whole ``k``),
    clipped to ``[1, k + 1]`` and mapped through the inverse of E[L]. Wilson's interval when
    nothing or everything was accepted.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    mean_acceptance_length : float
        Measured tokens per round with the bonus token, in ``[1, k + 1]``.
    k : float
        Draft tokens per round (a mean if rounds differ), >= 1.
    n_rounds : float
        Rounds the mean is taken over, > 0.
    confidence : float
        Two-sided level, in (0, 1).

    Returns
    -------
    low, high : float

    Examples
    --------
    >>> import specdec as sd
    >>> [round(x, 4) for x in sd.estimation.moment_alpha_interval(3.1, 4, 10_000)]
    [0.753, 0.7635]
    """
    length = float(check_scalar(mean_acceptance_length, "mean_acceptance_length", check_positive, "(tokens)"))
    kk = float(check_scalar(k, "k", check_positive, "(draft tokens per round)"))
    n = float(check_scalar(n_rounds, "n_rounds", check_positive, "(rounds)"))
    conf = float(check_fraction_open(confidence, "confidence"))
    if kk < 1.0:
        raise ValueError(f"k must be >= 1 draft token per round; got {describe(k)}")
    if not 1.0 <= length <= kk + 1.0 + 1e-12 * kk:
        raise ValueError(f"mean_acceptance_length must be in [1, k + 1] = [1, {describe(kk + 1.0)}]; got "
                         f"{describe(mean_acceptance_length)}")
    return _moment_alpha_interval(length, kk, n, conf)


def _moment_alpha_interval(length: float, kk: float, n: float, conf: float) -> tuple[float, float]:
    """:func:`moment_alpha_interval` of validated inputs (no checks of its own)."""
    accepted = (length - 1.0) * n
    if accepted <= 0.0 or length >= (kk + 1.0) * (1.0 - 1e-12):
        low, high = _wilson_interval(accepted, n if accepted <= 0.0 else accepted, conf)
        return float(low), float(high)
    alpha = float(_alpha_for_expected_tokens(length, kk))
    sd_mean = math.sqrt(float(_tokens_per_round_variance(alpha, float(math.ceil(kk - 1e-9)))) / n)
    z = _normal_quantile(0.5 + conf / 2)
    ends = (min(max(length + sign * z * sd_mean, 1.0), kk + 1.0) for sign in (-1.0, 1.0))
    low, high = (float(_alpha_for_expected_tokens(e, kk)) for e in ends)
    return low, high


def _check_request_table(shape: tuple) -> None:
    """Refuse a ``requests`` table that is not (n >= 2, 3) or (n >= 2, 2)."""
    if len(shape) != 2 or shape[1] not in (2, 3) or shape[0] < 2:
        raise ValueError(f"requests must be a table with one row per request (at least 2) and 3 columns "
                         f"(num_drafts, num_draft_tokens, num_accepted_tokens) or 2 with k; got shape {shape}")


@dataclass(frozen=True)
class BootstrapEstimate:
    """alpha with an interval from resampling whole requests (see :func:`bootstrap_alpha`).

    Defined in chapter "Decide for your service".

    Attributes
    ----------
    alpha, low, high : float
        The estimate from all requests and the percentile interval.
    n_requests, n_boot : int
        Requests resampled, and resamples drawn.
    confidence : float
        Level of the interval.
    seed : int or None
        The seed of the resampling (None when a Generator was passed).
    """

    alpha: float
    low: float
    high: float
    n_requests: int
    n_boot: int
    confidence: float
    seed: int | None


def _draft_lengths(n: np.ndarray, d: np.ndarray, k: int | None) -> np.ndarray:
    """Draft tokens per round of summed counts: ``d / n``, or ``k`` when every round drafts ``k`` (no checks)."""
    return np.full_like(n, float(k)) if k is not None else d / n


def _alpha_of_sums(n: np.ndarray, d: np.ndarray, a: np.ndarray, k: int | None) -> np.ndarray:
    """Method-of-moments alpha from summed counts (vectorized): E[L] = 1 + a / n at draft length d / n (or k).

    Checks nothing: the draft lengths must be >= 1 (checked once by the caller).
    """
    m = _draft_lengths(n, d, k)
    length = np.minimum(1.0 + a / n, m + 1.0)
    return np.asarray(_alpha_for_expected_tokens(length, m), dtype=float)


def bootstrap_alpha(requests: ArrayLike, k: int | None = None, n_boot: int = 2000, confidence: float = 0.95,
                    rng: int | np.random.Generator = 0) -> BootstrapEstimate:
    """alpha and a percentile interval from resampling whole requests (a seeded bootstrap).

    Each resample draws ``n`` requests with replacement, sums their counts and computes the
    method-of-moments alpha of :func:`read_engine_counters`.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    requests : array_like, shape (n, 3) or (n, 2)
        Per request: rounds (``num_drafts``), draft tokens and accepted tokens; or rounds and accepted tokens
        with ``k`` (every round drafting ``k``).
    k : int, optional
        Draft tokens per round (required with two columns).
    n_boot : int, optional
        Resamples, >= 100. Default 2000.
    confidence : float, optional
        Level of the interval, in (0, 1). Default 0.95.
    rng : int or numpy.random.Generator, optional
        Seed or generator. Default 0 (so the interval is reproducible).

    Returns
    -------
    BootstrapEstimate

    Examples
    --------
    >>> import specdec as sd
    >>> est = sd.estimation.bootstrap_alpha([[10, 40, 30], [20, 80, 30], [15, 60, 40]])
    >>> round(est.alpha, 4), est.low <= est.alpha <= est.high
    (0.7783, True)
    """
    try:
        r = check_nonnegative(requests, "requests", "(counts)")
    except ValueError:
        _check_request_table(np.shape(requests))  # a table of the wrong shape is reported first
        raise
    _check_request_table(r.shape)
    kk = None if k is None else check_count(k, "k")
    if r.shape[1] == 2:
        if kk is None:
            raise ValueError("requests with 2 columns (num_drafts, num_accepted_tokens) need k")
        r = np.column_stack([r[:, 0], r[:, 0] * kk, r[:, 1]])
    nb = check_count(n_boot, "n_boot")
    if nb < 100:
        raise ValueError(f"n_boot must be a whole number >= 100; got {describe(n_boot)}")
    conf = float(check_fraction_open(confidence, "confidence"))
    n = r.shape[0]
    check_size(float(nb) * n, "n_boot", "the resampled request indices (n_boot x requests)")
    if not r[:, 0].sum() > 0:
        raise ValueError("requests: no request has a round (num_drafts are all 0)")
    seed = rng if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None
    g = check_rng(rng)
    idx = g.integers(0, n, size=(nb, n))
    sums = r[idx].sum(axis=1)  # (n_boot, 3)
    ok = sums[:, 0] > 0
    total = r.sum(axis=0)
    if kk is None:  # the mean draft lengths of the resamples, then of all requests: each >= 1
        _check_length_k(np.concatenate([_draft_lengths(sums[ok, 0], sums[ok, 1], kk),
                                        _draft_lengths(total[:1], total[1:2], kk)]))
    alphas = _alpha_of_sums(sums[ok, 0], sums[ok, 1], sums[ok, 2], kk)
    alpha = float(_alpha_of_sums(total[:1], total[1:2], total[2:3], kk)[0])
    low, high = np.quantile(alphas, [0.5 - conf / 2, 0.5 + conf / 2])
    return BootstrapEstimate(alpha, float(low), float(high), int(n), int(nb), conf,
                             None if seed is None else int(seed))

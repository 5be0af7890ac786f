"""Intervals over requests: a seeded bootstrap that resamples whole requests.

A private part of :mod:`specdec.estimation` (which re-exports its public names).

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_float_array, check_count, check_fraction_open, check_nonnegative, check_rng, check_size, \
    describe
from .acceptance import alpha_for_expected_tokens

__all__ = ["BootstrapEstimate", "bootstrap_alpha"]


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


def _alpha_of_sums(n, d, a, k):
    """Method-of-moments alpha from summed counts (vectorized): E[L] = 1 + a / n at draft length d / n (or k)."""
    m = np.full_like(n, float(k)) if k is not None else d / n
    length = np.minimum(1.0 + a / n, m + 1.0)
    return np.asarray(alpha_for_expected_tokens(length, m), dtype=float)


def bootstrap_alpha(requests, k=None, n_boot=2000, confidence=0.95, rng=0):
    """alpha and a percentile interval from resampling whole requests (a seeded bootstrap).

    When traffic is mixed (requests whose drafts are accepted at different
    rates), rounds of one request are not independent of each other, and an
    interval that treats rounds as independent is too narrow. Resampling
    whole requests keeps each request's rounds together: every resample
    draws ``n`` requests with replacement, sums their counts, and computes
    the same method-of-moments alpha as :func:`read_engine_counters`
    (the alpha whose E[L] at the mean draft length equals ``1 + accepted /
    drafts``).

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
    r = as_float_array(requests, "requests")
    if r.ndim != 2 or r.shape[1] not in (2, 3) or r.shape[0] < 2:
        raise ValueError(f"requests must be a table with one row per request (at least 2) and 3 columns "
                         f"(num_drafts, num_draft_tokens, num_accepted_tokens) or 2 with k; got shape {r.shape}")
    r = check_nonnegative(r, "requests", "(counts)")
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
    alphas = _alpha_of_sums(sums[ok, 0], sums[ok, 1], sums[ok, 2], kk)
    total = r.sum(axis=0)
    alpha = float(_alpha_of_sums(total[:1], total[1:2], total[2:3], kk)[0])
    low, high = np.quantile(alphas, [0.5 - conf / 2, 0.5 + conf / 2])
    return BootstrapEstimate(alpha, float(low), float(high), int(n), int(nb), conf,
                             None if seed is None else int(seed))

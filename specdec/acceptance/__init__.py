"""The acceptance process: how many tokens one speculative round emits.

Each of ``k`` drafts is accepted independently with probability ``alpha`` until the first
rejection, and the target adds one token of its own, so a round emits ``1 <= L <= k + 1``
tokens (``N = L - 1`` accepted drafts). This module is the one home of E[L] and of what is read
off the same distribution: its inverse (:func:`alpha_for_expected_tokens`), the figures serving
engines print (draft acceptance rate, mean acceptance length, wasted draft fraction) with their
inverses, per-position rates and vLLM's unconditional per-position rates. Functions broadcast
and return a Python number for a scalar call.

Defined in chapters "Expected tokens per round" and "The acceptance rate and the tokens it yields".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    as_float_array,
    check_bool,
    check_broadcast,
    check_distribution_pair,
    check_integer,
    check_probability,
    check_size,
    check_whole,
    describe,
    is_scalar_input,
    to_output,
)

__all__ = [
    "VARIANCE_TERMS",
    "expected_tokens",
    "accepted_tokens_pmf",
    "tokens_per_round_variance",
    "expected_tokens_per_position",
    "acceptance_rate",
    "alpha_for_expected_tokens",
    "draft_acceptance_rate",
    "alpha_from_draft_acceptance_rate",
    "mean_acceptance_length",
    "alpha_from_mean_acceptance_length",
    "wasted_draft_fraction",
    "unconditional_from_conditional",
    "conditional_from_unconditional",
]


#: Most terms :func:`tokens_per_round_variance` sums (see there).
VARIANCE_TERMS = 100_000


def _expected_tokens_array(alpha: float | np.ndarray, k: float | np.ndarray) -> np.ndarray:
    """E[L] for validated float ``alpha`` and whole (float or int) ``k`` arrays (no checks)."""
    m = alpha - 1.0  # exact for alpha >= 0.5 (Sterbenz), which is where it matters
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # alpha**(k+1) - 1 without cancellation: expm1((k+1) * log(alpha)),
        # with log(alpha) taken as log1p(alpha - 1) so alpha near 1 keeps its digits.
        out = np.asarray(np.log1p(m) * (k + 1.0))
        np.expm1(out, out=out)
        out /= m
    at_one = np.broadcast_to(m == 0.0, out.shape)
    if at_one.any():
        out[at_one] = np.broadcast_to(k + 1.0, out.shape)[at_one]
    return out


def expected_tokens(alpha: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    r"""Expected tokens emitted per speculative round, :math:`E[L]`.

    .. math:: E[L] = \sum_{i=0}^{k} \alpha^i = \frac{1 - \alpha^{k+1}}{1 - \alpha},
              \qquad E[L] = k + 1 \text{ at } \alpha = 1.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1]. Dimensionless.
    k : int or array_like of int
        Draft tokens proposed per round, a whole number >= 1 (the first
        source calls it gamma). Any size: for ``alpha < 1`` E[L] tends to
        ``1 / (1 - alpha)`` as ``k`` grows, and ``k = 10**20`` returns that
        limit.

    Returns
    -------
    float or numpy.ndarray
        Tokens per round, between 1 and ``k + 1``. Broadcast shape of the
        inputs; a Python ``float`` when both inputs are scalars.

    Notes
    -----
    The textbook expression loses about seven significant digits when
    ``alpha`` is within 1e-12 of 1 because ``1 - alpha**(k+1)`` cancels.
    Here the numerator is ``-expm1((k+1) * log1p(-(1 - alpha)))`` and
    ``1 - alpha`` is exact for ``alpha >= 0.5``, so the relative error
    stays within a few units in the last place for every ``alpha`` in
    [0, 1] (pinned against exact rational arithmetic in the tests).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.expected_tokens(0.8, 5), 4)
    3.6893
    >>> sd.expected_tokens(1.0, 5)
    6.0
    >>> round(sd.expected_tokens(0.8, 10**20), 12)   # the limit 1 / (1 - alpha)
    5.0
    """
    a = check_probability(alpha, "alpha")
    kk = check_whole(k, "k", minimum=1)
    check_broadcast(alpha=a, k=kk)
    return to_output(_expected_tokens_array(a, kk), is_scalar_input(alpha, k))


def accepted_tokens_pmf(alpha: ArrayLike, k: int) -> np.ndarray:
    r"""Distribution of the number of accepted drafts ``N = L - 1`` in a round.

    ``P(N = n) = alpha**n * (1 - alpha)`` for ``n < k`` and
    ``P(N = k) = alpha**k`` (every draft survives; the bonus token follows).

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int
        Draft tokens per round, a whole number >= 1 (a single value: it sets
        the length of the result, so ``(k + 1) * alpha.size`` may not exceed
        ``specdec._validate.MAX_ELEMENTS``).

    Returns
    -------
    numpy.ndarray
        Shape ``np.shape(alpha) + (k + 1,)``; entry ``n`` is the probability
        of accepting exactly ``n`` drafts. Each row sums to 1.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.accepted_tokens_pmf(0.5, 2).round(3).tolist()
    [0.5, 0.25, 0.25]
    """
    a = check_probability(alpha, "alpha")
    if np.ndim(k) != 0:
        raise ValueError("k must be a single whole number >= 1 here (it sets the length of the result)")
    return _accepted_tokens_pmf(a, int(check_integer(k, "k", minimum=1)))


def _accepted_tokens_pmf(a: np.ndarray, kk: int) -> np.ndarray:
    """:func:`accepted_tokens_pmf` of a checked ``alpha`` array and ``k``; checks only the size."""
    check_size((kk + 1.0) * max(a.size, 1), "k", f"the distribution over 0..k for {max(a.size, 1)} alpha value(s)")
    n = np.arange(kk + 1)
    powers = a[..., None] ** n
    pmf = powers * (1.0 - a[..., None])
    pmf[..., kk] = powers[..., kk]
    return pmf


def tokens_per_round_variance(alpha: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    r"""Variance of the tokens emitted per round, :math:`\mathrm{Var}(L)`.

    Uses :math:`E[N^2] = \sum_{n=1}^{k} (2n - 1) P(N \ge n)` with
    :math:`P(N \ge n) = \alpha^n`, summed directly (no cancellation-prone
    closed form), and :math:`\mathrm{Var}(L) = \mathrm{Var}(N)`.

    The sum stops after :data:`VARIANCE_TERMS` terms. For a larger ``k`` the
    omitted tail is below 1e-16 of the result whenever
    ``alpha**VARIANCE_TERMS * VARIANCE_TERMS**2 < 1e-16`` (alpha below about
    0.9996) or ``alpha = 1`` (the variance is 0); other combinations of a huge
    ``k`` with ``alpha`` that close to 1 are refused with a message naming ``k``.

    Defined in chapter "Expected tokens per round"; used to size Monte Carlo
    tolerances in the simulation chapters.

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        Variance in tokens squared; 0 at ``alpha`` = 0 or 1.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.tokens_per_round_variance(0.5, 1)
    0.25
    >>> round(sd.tokens_per_round_variance(0.5, 10**20), 12)   # geometric limit alpha / (1 - alpha)**2
    2.0
    """
    a = check_probability(alpha, "alpha")
    kk = check_whole(k, "k", minimum=1)
    return _tokens_per_round_variance(a, kk, is_scalar_input(alpha, k))


def _tokens_per_round_variance(a: np.ndarray | float, kk: np.ndarray | float,
                               scalar: bool = True) -> float | np.ndarray:
    """:func:`tokens_per_round_variance` of checked ``alpha`` (in [0, 1]) and ``k`` (whole, >= 1)."""
    shape = check_broadcast(alpha=a, k=kk)
    a_b, k_b = np.broadcast_to(a, shape), np.broadcast_to(kk, shape)
    k_max = float(k_b.max()) if k_b.size else 1.0
    n_terms = int(min(k_max, VARIANCE_TERMS))
    if k_max > VARIANCE_TERMS:
        long = (k_b > VARIANCE_TERMS) & (a_b < 1.0)
        with np.errstate(under="ignore"):
            tail = a_b ** float(VARIANCE_TERMS) * float(VARIANCE_TERMS) ** 2
        if (long & (tail >= 1e-16)).any():
            bad = k_b[long & (tail >= 1e-16)].flat[0]
            raise ValueError(f"k must be at most {VARIANCE_TERMS} for alpha this close to 1 (the variance sums k "
                             f"terms and the tail beyond {VARIANCE_TERMS} is not negligible); got {describe(bad)}")
    check_size(float(n_terms) * max(a_b.size, 1), "k", "the terms of the variance sum")
    n = np.arange(1, n_terms + 1, dtype=float)
    with np.errstate(under="ignore"):
        tail = a_b[..., None] ** n * (n <= k_b[..., None])  # P(N >= n), zero past k
    mean = tail.sum(axis=-1)
    second = ((2 * n - 1) * tail).sum(axis=-1)
    var = np.maximum(second - mean**2, 0.0)
    var = np.where(a_b >= 1.0, 0.0, var)
    return to_output(var, scalar)


def expected_tokens_per_position(alphas: ArrayLike) -> float | np.ndarray:
    r"""E[L] when the acceptance rate differs by draft position.

    .. math:: E[L] = 1 + \sum_{i=1}^{k} \prod_{j \le i} \alpha_j

    where :math:`\alpha_j` is the probability that draft ``j`` is accepted
    given that drafts ``1 .. j-1`` were. This is how multi-head (Medusa) and
    tree (EAGLE) drafts report acceptance. With every entry equal to
    ``alpha`` it reduces to :func:`expected_tokens`.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    alphas : array_like
        Conditional acceptance rates along the last axis (one entry per draft
        position), each in [0, 1]. Leading axes broadcast.

    Returns
    -------
    float or numpy.ndarray
        Expected tokens per round; a ``float`` for a 1-D input.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.expected_tokens_per_position([0.8, 0.8, 0.8]), 3)
    2.952
    """
    a = check_probability(alphas, "alphas")
    return to_output(_expected_tokens_per_position(a), a.ndim == 1)


def _expected_tokens_per_position(a: np.ndarray) -> np.ndarray:
    """:func:`expected_tokens_per_position` of checked rates; it only refuses an array with no draft position."""
    if a.ndim == 0 or a.shape[-1] == 0:
        raise ValueError(f"alphas must have at least one draft position on its last axis; got shape {a.shape}")
    return 1.0 + np.cumprod(a, axis=-1).sum(axis=-1)


def acceptance_rate(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    r"""Probability that a draft token sampled from ``q`` is accepted for target ``p``.

    .. math:: \alpha = \sum_x \min(p(x), q(x)) = 1 - \mathrm{TV}(p, q)

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    p : array_like
        Target next-token distribution over the vocabulary (last axis); float16
        and float32 vectors are accepted when they sum to 1 to their dtype's
        precision (``specdec._validate.distribution_tolerance``) and are
        computed with in float64.
    q : array_like
        Draft next-token distribution, same vocabulary (last axis).

    Returns
    -------
    float or numpy.ndarray
        Acceptance probability in [0, 1]; a ``float`` for 1-D inputs.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.acceptance_rate([0.5, 0.5], [0.9, 0.1])
    0.6
    """
    pa, qa = check_distribution_pair(p, q)
    return to_output(_acceptance_rate(pa, qa), pa.ndim == 1 and qa.ndim == 1)


def _acceptance_rate(pa: np.ndarray, qa: np.ndarray) -> np.ndarray:
    """:func:`acceptance_rate` of checked distributions (last axis the vocabulary); checks nothing."""
    return np.clip(np.minimum(pa, qa).sum(axis=-1), 0.0, 1.0)


# --------------------------------------------------------------------------
# the inverse of E[L]: one solver for every caller
# --------------------------------------------------------------------------


def _mean_accepted(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """g(x) = x + x**2 + ... + x**k = x (1 - x**k) / (1 - x), to a few ulps relative (no checks).

    ``1 - x**k = -expm1(k log1p(x - 1))`` keeps its digits as x -> 1 (where
    ``1 - x`` is exact); for x < 0.5 the rounding of ``x - 1`` moves
    ``x**k <= 0.5`` by a negligible amount. Real (non-integer) k continues
    the closed form.
    """
    b = 1.0 - x
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        g = x * -np.expm1(k * np.log1p(-b)) / b
    return np.where(b == 0.0, k, g)


def _mean_accepted_and_slope(x: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """g(x) and g'(x) = sum_i i x**(i-1) together (no checks).

    The slope is approximate near x = 1 (a series in k (1 - x) replaces the
    closed form there); only the speed of Newton's method depends on it.
    """
    b = 1.0 - x
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        one_minus_xk = -np.expm1(k * np.log1p(-b))
        g = x * one_minus_xk / b
        kb = k * b
        exact = (one_minus_xk - kb * (1.0 - one_minus_xk)) / (b * b)
        series = 0.5 * k * (k + 1.0) * (1.0 - kb * (k - 1.0) / (1.5 * (k + 1.0)))
    g = np.where(b == 0.0, k, g)
    return g, np.fmax(np.where(kb > 1e-5, exact, series), 1.0)  # g' >= 1 on [0, 1]


def _solve_mean_accepted(d: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Solve g(x) = d for x in [0, 1], elementwise, for validated 0 <= d <= k (no checks).

    Safeguarded Newton: the root lies in [max(d/(1+d), d/k), min(1, d)]
    (from kx >= g(x) >= x and g(x) <= x/(1-x)); every iterate tightens that
    bracket by the sign of g(x) - d, and a Newton step that leaves it is
    replaced by the midpoint. Since x g'(x) / g(x) >= 1, a relative error e
    in g moves the root by at most e relative: the answer is within a few
    ulps of the exact root for every d and k.
    """
    d_b, k_b = np.broadcast_arrays(np.asarray(d, float), np.asarray(k, float))
    inner = (d_b > 0) & (d_b < k_b)
    dd = np.where(inner, d_b, 0.5)  # placeholders where the answer is 0 or 1 (no iteration needed there)
    kk = np.where(inner, k_b, 1.0)
    lo = np.maximum(dd / (1.0 + dd), dd / kk)
    hi = np.minimum(1.0, dd)
    x = lo
    active = inner.copy()
    for _ in range(200):
        g, slope = _mean_accepted_and_slope(x, kk)
        f = g - dd
        lo = np.where(f < 0, np.maximum(lo, x), lo)
        hi = np.where(f > 0, np.minimum(hi, x), hi)
        step = f / slope
        new = x - step
        converged = (f == 0) | (np.abs(step) <= 4e-16 * x)
        outside = (new < lo) | (new > hi)
        new = np.where(outside & ~converged, 0.5 * (lo + hi), new)
        x = np.where(active, new, x)
        active &= ~(converged | (hi - lo <= 4e-16 * hi))
        if not active.any():
            break
    out = np.where(inner, np.clip(x, 0.0, 1.0), np.where(d_b >= k_b, 1.0, 0.0))
    return np.where(inner & (k_b == 1.0), d_b, out)  # k = 1: g(x) = x, the root is d itself


def _check_length_k(k: ArrayLike, name: str = "k") -> np.ndarray:
    """k for the inverses: a whole draft length, or a mean one (a real number >= 1)."""
    kk = as_float_array(k, name)
    if np.isnan(kk).any() or (~np.isfinite(kk)).any() or (kk < 1).any():
        bad = np.isnan(kk) | ~np.isfinite(kk) | (kk < 1)
        raise ValueError(f"{name} must be a finite number >= 1 (drafts per round, or their mean); "
                         f"got {describe(kk[bad].flat[0])}")
    return kk


def alpha_for_expected_tokens(el: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    r"""The acceptance rate at which a round yields ``el`` tokens: the inverse of E[L].

    Solves :math:`E[L](\alpha, k) = 1 + \alpha + \dots + \alpha^k = \text{el}`
    for :math:`\alpha \in [0, 1]` (unique; exact at ``el = 1`` and ``el = k + 1``). The one
    solver of the package. Newton steps safeguarded by the bracket
    ``[max(d / (1 + d), d / k), min(1, d)]``, ``d = el - 1``; about 1e-15 relative accuracy.

    Defined in chapter "The break-even condition"; see chapter "What serving
    engines print" for the engine metrics it inverts.

    Parameters
    ----------
    el : float or array_like
        Tokens per round, in ``[1, k + 1]``.
    k : int or array_like
        Draft tokens per round, >= 1. Usually a whole number; when rounds
        propose different numbers of drafts (n-gram drafting, requests near
        their length limit) a mean draft length is accepted, and E[L] is
        then continued to real ``k`` by :math:`(1 - \alpha^{k+1})/(1 - \alpha)`:
        every round is treated as if it proposed the mean number of drafts.

    Returns
    -------
    float or numpy.ndarray
        alpha in [0, 1]; the broadcast shape of the inputs.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.acceptance.alpha_for_expected_tokens(sd.expected_tokens(0.8, 5), 5), 12)
    0.8
    >>> sd.acceptance.alpha_for_expected_tokens(1.0, 4), sd.acceptance.alpha_for_expected_tokens(5.0, 4)
    (0.0, 1.0)
    """
    e = as_float_array(el, "el")
    kk = _check_length_k(k)
    shape = check_broadcast(el=e, k=kk)
    e_b, k_b = np.broadcast_to(e, shape), np.broadcast_to(kk, shape)
    bad = np.isnan(e_b) | (e_b < 1.0) | (e_b > k_b + 1.0)
    if bad.any():
        raise ValueError(f"el must be in [1, k + 1] tokens per round (k = {describe(k_b[bad].flat[0])} here); "
                         f"got {describe(e_b[bad].flat[0])}")
    return to_output(_alpha_for_expected_tokens(e_b, k_b), is_scalar_input(el, k))


def _alpha_for_expected_tokens(el: float | np.ndarray, k: float | np.ndarray) -> np.ndarray:
    """:func:`alpha_for_expected_tokens` of validated inputs, ``1 <= el <= k + 1`` (no checks)."""
    e = np.asarray(el, dtype=np.float64)
    kk = np.asarray(k, dtype=np.float64)
    shape = np.broadcast_shapes(e.shape, kk.shape)
    return _solve_mean_accepted(np.broadcast_to(e, shape) - 1.0, np.broadcast_to(kk, shape))


# --------------------------------------------------------------------------
# what serving engines print, and their inverses
# --------------------------------------------------------------------------


def draft_acceptance_rate(alpha: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    r"""Fraction of drafted tokens accepted, as serving engines print it.

    .. math:: \text{rate} = \frac{E[\text{accepted drafts}]}{k} = \frac{E[L] - 1}{k}
              = \frac{\alpha - \alpha^{k+1}}{k(1-\alpha)}

    This is *not* alpha: drafts after the first rejection are counted as
    drafted but never had a chance, so the rate is below alpha for
    ``k > 1`` (at ``alpha = 0.8, k = 4`` it is 0.59).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Accepted / drafted, in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.acceptance.draft_acceptance_rate(0.8, 4), 4)
    0.5904
    """
    a = check_probability(alpha, "alpha")
    kk = check_whole(k, "k", minimum=1)
    check_broadcast(alpha=a, k=kk)
    return to_output(_draft_acceptance_rate(a, kk), is_scalar_input(alpha, k))


def _draft_acceptance_rate(a: float | np.ndarray, kk: float | np.ndarray) -> np.ndarray:
    """:func:`draft_acceptance_rate` of a checked ``alpha`` and whole ``k`` (no checks)."""
    out = (_expected_tokens_array(a, kk) - 1.0) / kk
    return np.clip(out, 0.0, 1.0)


def alpha_from_draft_acceptance_rate(rate: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    """Invert :func:`draft_acceptance_rate`: the alpha behind an engine's accepted/drafted.

    ``alpha_for_expected_tokens(1 + rate * k, k)``.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    rate : float or array_like
        Accepted drafts / drafted tokens, in [0, 1].
    k : int or array_like of int
        Draft tokens per round the engine used, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Per-position alpha in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.acceptance.alpha_from_draft_acceptance_rate(0.5904, 4), 4)
    0.8
    """
    r = check_probability(rate, "rate")
    kk = check_whole(k, "k", minimum=1)
    check_broadcast(rate=r, k=kk)
    el = np.minimum(1.0 + r * kk, kk + 1.0)
    return to_output(_alpha_for_expected_tokens(el, kk), is_scalar_input(rate, k))


def mean_acceptance_length(alpha: ArrayLike, k: ArrayLike, include_bonus: bool = True) -> float | np.ndarray:
    """Mean tokens per round as serving engines print it ("acceptance length").

    With ``include_bonus=True`` (the usual convention, e.g. vLLM's "Mean
    acceptance length" and the EAGLE papers) this is ``E[L]``, counting the
    target's own token; with ``False`` it is the mean number of accepted
    drafts, ``E[L] - 1``, the figure a calculator that forgets the target's
    token reports.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.
    include_bonus : bool
        Whether the target's token (correction or bonus) is counted.

    Returns
    -------
    float or numpy.ndarray
        Tokens per round: in [1, k + 1] with the bonus, [0, k] without.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.acceptance.mean_acceptance_length(0.8, 4), 4)
    3.3616
    >>> round(sd.acceptance.mean_acceptance_length(0.8, 4, include_bonus=False), 4)
    2.3616
    """
    bonus = check_bool(include_bonus, "include_bonus")
    a = check_probability(alpha, "alpha")
    kk = check_whole(k, "k", minimum=1)
    check_broadcast(alpha=a, k=kk)
    out = _expected_tokens_array(a, kk) - (0.0 if bonus else 1.0)
    return to_output(out, is_scalar_input(alpha, k))


def alpha_from_mean_acceptance_length(length: ArrayLike, k: ArrayLike,
                                      include_bonus: bool = True) -> float | np.ndarray:
    """Invert :func:`mean_acceptance_length`: the alpha behind a mean acceptance length.

    ``alpha_for_expected_tokens(length, k)`` with the bonus counted, and
    ``alpha_for_expected_tokens(length + 1, k)`` without.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    length : float or array_like
        Mean tokens per round: in [1, k + 1] with ``include_bonus=True``,
        in [0, k] without.
    k : int or array_like of int
        Draft tokens per round, >= 1.
    include_bonus : bool
        Whether ``length`` counts the target's own token.

    Returns
    -------
    float or numpy.ndarray
        Per-position alpha in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.acceptance.alpha_from_mean_acceptance_length(3.3616, 4), 4)
    0.8
    """
    bonus = check_bool(include_bonus, "include_bonus")
    ln = as_float_array(length, "length")
    kk = check_whole(k, "k", minimum=1)
    shape = check_broadcast(length=ln, k=kk)
    el = ln + (0.0 if bonus else 1.0)
    bad = np.isnan(el) | (el < 1.0) | (el > kk + 1.0)
    if bad.any():
        lo_txt, hi_txt = ("1", "k + 1") if bonus else ("0", "k")
        val = np.broadcast_to(ln, shape)[np.broadcast_to(bad, shape)].flat[0]
        raise ValueError(f"length must be in [{lo_txt}, {hi_txt}] tokens per round; got {describe(val)}")
    return to_output(_alpha_for_expected_tokens(el, kk), is_scalar_input(length, k))


def wasted_draft_fraction(alpha: ArrayLike, k: ArrayLike) -> float | np.ndarray:
    r"""Expected fraction of drafted tokens that verification throws away.

    A round drafts ``k`` tokens and keeps ``E[L] - 1`` of them on average
    (the last emitted token is the target's own), so the discarded fraction is

    .. math:: 1 - \frac{E[L] - 1}{k} = 1 - \frac{\alpha (1 - \alpha^k)}{k (1 - \alpha)} ,

    one minus :func:`draft_acceptance_rate`.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance rate, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Fraction in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> sd.acceptance.wasted_draft_fraction(0.5, 5)
    0.80625
    """
    return to_output(1.0 - np.asarray(draft_acceptance_rate(alpha, k)), is_scalar_input(alpha, k))


# --------------------------------------------------------------------------
# per-position rates: conditional and unconditional
# --------------------------------------------------------------------------


def unconditional_from_conditional(alphas: ArrayLike) -> np.ndarray:
    r"""P(N >= i) for each draft position from the conditional rates alpha_i.

    .. math:: P(N \ge i) = \prod_{j \le i} \alpha_j

    This is what vLLM logs as "Per-position acceptance rate" (accepted drafts
    at position ``i`` over all rounds; see
    :func:`specdec.acceptance.estimation.read_engine_counters`), while
    :func:`expected_tokens_per_position` and the multi-head papers use the
    conditional :math:`\alpha_i`.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    alphas : array_like
        Conditional acceptance rate of positions 1, 2, ... along the last
        axis, each in [0, 1].

    Returns
    -------
    numpy.ndarray
        Non-increasing unconditional rates, same shape.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.acceptance.unconditional_from_conditional([0.8, 0.5, 0.5]).tolist()
    [0.8, 0.4, 0.2]
    """
    a = check_probability(alphas, "alphas")
    if a.ndim == 0 or a.shape[-1] == 0:
        raise ValueError(f"alphas must have at least one draft position on its last axis; got shape {a.shape}")
    return np.cumprod(a, axis=-1)


def conditional_from_unconditional(rates: ArrayLike) -> np.ndarray:
    r"""Conditional per-position rates alpha_i from the unconditional P(N >= i).

    .. math:: \alpha_i = \frac{P(N \ge i)}{P(N \ge i - 1)}, \qquad P(N \ge 0) = 1

    The inverse of :func:`unconditional_from_conditional`: turns vLLM's logged
    "Per-position acceptance rate" (``accepted_per_pos[i] / num_drafts``) into
    the probability that draft ``i`` is accepted given that the ones before it
    were. Where no round reached position ``i`` (``P(N >= i - 1) = 0``) the
    conditional rate is undefined and returned as ``nan``.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    rates : array_like
        Unconditional rates of positions 1, 2, ... along the last axis: each in
        [0, 1] and non-increasing (a round that accepted draft ``i`` accepted
        every draft before it).

    Returns
    -------
    numpy.ndarray
        Conditional rates in [0, 1] (or ``nan``), same shape.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.acceptance.conditional_from_unconditional([0.8, 0.4, 0.2]).tolist()
    [0.8, 0.5, 0.5]
    """
    u = check_probability(rates, "rates")
    if u.ndim == 0 or u.shape[-1] == 0:
        raise ValueError(f"rates must have at least one draft position on its last axis; got shape {u.shape}")
    rises = np.diff(u, axis=-1) > 0
    if rises.any():
        i = int(np.argwhere(rises)[0][-1])
        raise ValueError("rates must be non-increasing along the draft positions (P(N >= i) cannot grow with i); "
                         f"position {i + 2} ({describe(np.take(u, i + 1, axis=-1).flat[0])}) exceeds position "
                         f"{i + 1} ({describe(np.take(u, i, axis=-1).flat[0])})")
    previous = np.concatenate([np.ones(u.shape[:-1] + (1,)), u[..., :-1]], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(previous > 0, u / np.where(previous > 0, previous, 1.0), np.nan)
    return np.minimum(out, 1.0)

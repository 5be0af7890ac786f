"""The acceptance process: how many tokens one speculative round emits.

Model (both sources' first approximation): each of the ``k`` draft tokens is
accepted independently with probability ``alpha`` until the first rejection;
the target then adds exactly one token of its own (the correction after a
rejection, or the bonus token when all ``k`` drafts survive). ``L`` is the
number of tokens emitted in the round, so ``1 <= L <= k + 1``.

Every function here accepts Python scalars or numpy arrays, broadcasts, and
returns a Python number for a scalar call.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    check_distribution,
    check_integer,
    check_probability,
    is_scalar_input,
    to_output,
)

__all__ = [
    "expected_tokens",
    "accepted_tokens_pmf",
    "tokens_per_round_variance",
    "expected_tokens_per_position",
    "acceptance_rate",
]


def _expected_tokens_array(alpha: np.ndarray, k: np.ndarray) -> np.ndarray:
    """E[L] for validated float ``alpha`` and int ``k`` arrays (no checks)."""
    m = alpha - 1.0  # exact for alpha >= 0.5 (Sterbenz), which is where it matters
    with np.errstate(divide="ignore", invalid="ignore"):
        # alpha**(k+1) - 1 without cancellation: expm1((k+1) * log(alpha)),
        # with log(alpha) taken as log1p(alpha - 1) so alpha near 1 keeps its digits.
        out = np.asarray(np.log1p(m) * (k + 1))
        np.expm1(out, out=out)
        out /= m
    at_one = m == 0.0
    if at_one.any():
        out[np.broadcast_to(at_one, out.shape)] = np.broadcast_to(k + 1.0, out.shape)[np.broadcast_to(at_one, out.shape)]
    return out


def expected_tokens(alpha, k):
    r"""Expected tokens emitted per speculative round, :math:`E[L]`.

    .. math:: E[L] = \sum_{i=0}^{k} \alpha^i = \frac{1 - \alpha^{k+1}}{1 - \alpha},
              \qquad E[L] = k + 1 \text{ at } \alpha = 1.

    Defined in chapter "Expected tokens per round" (Part I, chapter 1).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1]. Dimensionless.
    k : int or array_like of int
        Draft tokens proposed per round, a whole number >= 1 (the first
        source calls it gamma).

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
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    return to_output(_expected_tokens_array(a, kk), is_scalar_input(alpha, k))


def accepted_tokens_pmf(alpha, k):
    r"""Distribution of the number of accepted drafts ``N = L - 1`` in a round.

    ``P(N = n) = alpha**n * (1 - alpha)`` for ``n < k`` and
    ``P(N = k) = alpha**k`` (every draft survives; the bonus token follows).

    Defined in chapter "Expected tokens per round" (Part I, chapter 1).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int
        Draft tokens per round, a whole number >= 1 (a single value: it sets
        the length of the result).

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
    kk = int(check_integer(k, "k", minimum=1))
    n = np.arange(kk + 1)
    powers = a[..., None] ** n
    pmf = powers * (1.0 - a[..., None])
    pmf[..., kk] = powers[..., kk]
    return pmf


def tokens_per_round_variance(alpha, k):
    r"""Variance of the tokens emitted per round, :math:`\mathrm{Var}(L)`.

    Uses :math:`E[N^2] = \sum_{n=1}^{k} (2n - 1) P(N \ge n)` with
    :math:`P(N \ge n) = \alpha^n`, summed directly (no cancellation-prone
    closed form), and :math:`\mathrm{Var}(L) = \mathrm{Var}(N)`.

    Defined in chapter "Expected tokens per round" (Part I, chapter 1); used
    to size Monte Carlo tolerances in the simulation chapters.

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
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    a_b, k_b = np.broadcast_arrays(a, kk)
    k_max = int(k_b.max()) if k_b.size else 1
    n = np.arange(1, k_max + 1)
    tail = a_b[..., None] ** n * (n <= k_b[..., None])  # P(N >= n), zero past k
    mean = tail.sum(axis=-1)
    second = ((2 * n - 1) * tail).sum(axis=-1)
    var = np.maximum(second - mean**2, 0.0)
    return to_output(var, is_scalar_input(alpha, k))


def expected_tokens_per_position(alphas):
    r"""E[L] when the acceptance rate differs by draft position.

    .. math:: E[L] = 1 + \sum_{i=1}^{k} \prod_{j \le i} \alpha_j

    where :math:`\alpha_j` is the probability that draft ``j`` is accepted
    given that drafts ``1 .. j-1`` were. This is how multi-head (Medusa) and
    tree (EAGLE) drafts report acceptance. With every entry equal to
    ``alpha`` it reduces to :func:`expected_tokens`.

    Defined in chapter "Draft cost in three arrangements" (Part II, chapter 4).

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
    if a.ndim == 0 or a.shape[-1] == 0:
        raise ValueError(f"alphas must have at least one draft position on its last axis; got shape {a.shape}")
    result = 1.0 + np.cumprod(a, axis=-1).sum(axis=-1)
    return to_output(result, a.ndim == 1)


def acceptance_rate(p, q):
    r"""Probability that a draft token sampled from ``q`` is accepted for target ``p``.

    .. math:: \alpha = \sum_x \min(p(x), q(x)) = 1 - \mathrm{TV}(p, q)

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    p : array_like
        Target next-token distribution over the vocabulary (last axis).
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
    pa = check_distribution(p, "p")
    qa = check_distribution(q, "q")
    if pa.shape[-1] != qa.shape[-1]:
        raise ValueError(f"p and q must cover the same vocabulary: last axes {pa.shape[-1]} and {qa.shape[-1]} differ")
    try:
        result = np.minimum(pa, qa).sum(axis=-1)
    except ValueError as exc:
        raise ValueError(f"p and q shapes {pa.shape} and {qa.shape} do not broadcast") from exc
    result = np.clip(result, 0.0, 1.0)
    return to_output(result, pa.ndim == 1 and qa.ndim == 1)

"""The economics of one speculative round: cost, speedup, break-even, best k.

Two equivalent ways to write the cost of a round appear in the sources:

* **time form** (first source): ``T_round = T_draft + T_verify + T_overhead``
  in seconds, with ``T_draft`` covering all ``k`` draft steps, and
  ``speedup = T0 * E[L] / T_round``;
* **cost-fraction form** (second source): one draft step costs ``c_draft``
  and the verification pass ``c_verify``, both as fractions of one target
  decode step ``T0``, and ``speedup = E[L] / (k * c_draft + c_verify)``.

:func:`costs_from_times` and :func:`times_from_costs` convert between them
(the overhead is folded into ``c_verify``), so both give the same speedup.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    is_scalar_input,
    to_output,
)
from .acceptance import _expected_tokens_array

__all__ = [
    "round_time",
    "speedup",
    "speedup_from_costs",
    "costs_from_times",
    "times_from_costs",
    "quick_estimate",
    "break_even_alpha",
    "optimal_k",
    "improvement_factor",
    "operations_factor",
    "source_bisection_break_even_alpha",
    "round_times_vs_k",
]


def round_time(t_draft, t_verify, t_overhead=0.0):
    """Wall-clock time of one speculative round, ``T_draft + T_verify + T_overhead``.

    Defined in chapter "The speedup formula" (Part I, chapter 2).

    Parameters
    ----------
    t_draft : float or array_like
        Time of all ``k`` draft steps of the round (seconds or ms; any unit,
        used consistently). >= 0: n-gram and head drafts cost almost nothing.
    t_verify : float or array_like
        Time of the target's verification pass, > 0.
    t_overhead : float or array_like, optional
        Sampling, acceptance test and KV-cache rollback, >= 0.

    Returns
    -------
    float or numpy.ndarray
        Round time in the unit of the inputs.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.round_time(2.5, 6.0, 0.5)
    9.0
    """
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    to = check_nonnegative(t_overhead, "t_overhead", "(time)")
    return to_output(td + tv + to, is_scalar_input(t_draft, t_verify, t_overhead))


def speedup(alpha, k, t0, t_draft, t_verify, t_overhead=0.0):
    r"""Speedup of speculative decoding over plain decoding, time form.

    .. math:: S = \frac{T_0 \, E[L]}{T_\text{draft} + T_\text{verify} + T_\text{overhead}}

    Defined in chapter "The speedup formula" (Part I, chapter 2).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.
    t0 : float or array_like
        One plain target decode step, > 0 (same time unit as the others).
    t_draft : float or array_like
        All ``k`` draft steps of a round, >= 0.
    t_verify : float or array_like
        The verification pass, > 0.
    t_overhead : float or array_like, optional
        Per-round overhead (sampling, rollback), >= 0. Default 0.

    Returns
    -------
    float or numpy.ndarray
        Ratio of plain to speculative time per token; > 1 means faster.

    Examples
    --------
    The first source's 70B target / 8B draft example (times in ms):

    >>> import specdec as sd
    >>> round(sd.speedup(0.8, 5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5), 3)
    2.132
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    to = check_nonnegative(t_overhead, "t_overhead", "(time)")
    result = t0a * _expected_tokens_array(a, kk) / (td + tv + to)
    return to_output(result, is_scalar_input(alpha, k, t0, t_draft, t_verify, t_overhead))


def speedup_from_costs(alpha, k, c_draft, c_verify):
    r"""Speedup of speculative decoding, cost-fraction form.

    .. math:: S = \frac{E[L]}{k\,c_d + c_v}

    Defined in chapter "The break-even condition" (Part II, chapter 3).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        Cost of ONE draft step as a fraction of a target decode step, >= 0.
    c_verify : float or array_like
        Cost of the verification pass as a fraction of a target decode step,
        > 0 (include any per-round overhead here).

    Returns
    -------
    float or numpy.ndarray
        Speedup; > 1 means the scheme is a net saving.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.speedup_from_costs(0.8, 4, 0.05, 1.1), 4)
    2.5858
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    result = _expected_tokens_array(a, kk) / (kk * cd + cv)
    return to_output(result, is_scalar_input(alpha, k, c_draft, c_verify))


def costs_from_times(k, t0, t_draft, t_verify, t_overhead=0.0):
    """Convert the time form to the cost-fraction form.

    ``c_draft = t_draft / (k * t0)`` (``t_draft`` covers ``k`` steps) and
    ``c_verify = (t_verify + t_overhead) / t0``, so that
    ``speedup_from_costs(alpha, k, c_draft, c_verify)`` equals
    ``speedup(alpha, k, t0, t_draft, t_verify, t_overhead)``.

    Defined in chapter "The speedup formula" (Part I, chapter 2).

    Parameters
    ----------
    k : int or array_like of int
        Draft tokens per round, >= 1.
    t0, t_draft, t_verify, t_overhead : float or array_like
        Times as in :func:`speedup`.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(c_draft, c_verify)``.

    Examples
    --------
    >>> import specdec as sd
    >>> [round(c, 4) for c in sd.costs_from_times(5, 5.2, 2.5, 6.0, 0.5)]
    [0.0962, 1.25]
    """
    kk = check_integer(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    to = check_nonnegative(t_overhead, "t_overhead", "(time)")
    scalar = is_scalar_input(k, t0, t_draft, t_verify, t_overhead)
    return to_output(td / (kk * t0a), scalar), to_output((tv + to) / t0a, scalar)


def times_from_costs(k, t0, c_draft, c_verify):
    """Convert the cost-fraction form back to times: ``(t_draft, t_verify)``.

    ``t_draft = k * c_draft * t0`` and ``t_verify = c_verify * t0`` (any
    overhead stays inside ``t_verify``).

    Defined in chapter "The speedup formula" (Part I, chapter 2).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.times_from_costs(5, 2.0, 0.1, 1.25)
    (1.0, 2.5)
    """
    kk = check_integer(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    scalar = is_scalar_input(k, t0, c_draft, c_verify)
    return to_output(kk * cd * t0a, scalar), to_output(cv * t0a, scalar)


def quick_estimate(alpha, k, t0, t_draft, t_verify):
    r"""The first source's "quick estimation" formula, exactly as printed.

    .. math:: \hat S = \frac{E[L]}{1 + T_\text{draft}/T_0 + T_\text{verify}/T_0}
              = \frac{T_0\,E[L]}{T_0 + T_\text{draft} + T_\text{verify}}

    This is **not** the speedup of :func:`speedup`. Multiplying through by
    ``T0`` shows that its denominator is a round that also spends one extra
    plain target step, ``T0``, on top of drafting and verifying, and it has no
    overhead term. So ``quick_estimate / speedup = T_round / (T0 + T_draft +
    T_verify)``. On the source's worked example (T0 = 5.2 ms, T_draft =
    2.5 ms, T_verify = 6.0 ms, T_overhead = 0.5 ms, alpha = 0.8, k = 5) it
    gives about 1.40 against the exact 2.13, a ratio of 9.0 / 13.7. It is a
    pessimistic screen: with its "below 1.3, not worth it" cut-off it rejects
    configurations that are in fact well above 1.3.

    Defined in chapter "The speedup formula" (Part I, chapter 2).

    Parameters
    ----------
    alpha, k, t0, t_draft, t_verify
        As in :func:`speedup`.

    Returns
    -------
    float or numpy.ndarray
        The source's estimate (dimensionless).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0), 3)
    1.4
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    result = _expected_tokens_array(a, kk) / (1.0 + td / t0a + tv / t0a)
    return to_output(result, is_scalar_input(alpha, k, t0, t_draft, t_verify))


def _tokens_and_slope(x: np.ndarray, k: np.ndarray):
    """E(x) = sum_{i<=k} x^i (accurate) and a slope for Newton's method.

    The slope uses E'(x) = (E(x) - (k+1) x^k) / (1 - x), which loses digits
    as x -> 1; within 1e-8 of 1 it is replaced by E'(1) = k(k+1)/2, an
    upper bound of E' on [0, 1]. An inexact slope changes only the speed of
    Newton's method, never its fixed point E(x) = C, which uses the accurate E.
    """
    value = _expected_tokens_array(x, k)
    d = 1.0 - x
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (value - (k + 1) * x**k) / d
    slope = np.where(d > 1e-8, slope, 0.5 * k * (k + 1.0))
    return value, np.maximum(slope, 1.0)


def break_even_alpha(k, c_draft, c_verify):
    r"""Smallest acceptance rate at which speculation beats plain decoding.

    Solves :math:`k\,c_d + c_v = E[L](\alpha) = 1 + \alpha + \dots + \alpha^k`
    for :math:`\alpha`; above the returned value the scheme is a net saving
    (:func:`speedup_from_costs` > 1).

    * Returns ``0.0`` when the round costs less than one target step
      (``k*c_draft + c_verify <= 1``): it wins at any ``alpha > 0``.
    * Returns ``nan`` when the round costs at least ``k + 1`` steps: even
      ``alpha = 1`` yields only ``k + 1`` tokens, so no ``alpha`` wins.

    Method: ``E[L]`` is a polynomial with positive coefficients, hence
    increasing and convex on [0, 1]. Newton's method started at any upper
    bound of the root (here the smaller of ``C - 1``, from ``E >= 1 + alpha``,
    and ``(C/(k+1))**(2/k)``, from the AM-GM inequality) therefore decreases
    monotonically to the unique root and converges quadratically; about ten
    vectorized iterations, each evaluating ``E`` with the cancellation-free
    form of :func:`specdec.expected_tokens`, reach machine precision for
    every element at once. Since ``E' >= 1`` the root is well conditioned
    (error below ``(k+1)`` ulps).

    Why not the second source's bisection: it searches ``[0, 0.9999]`` and
    returns the upper end of its bracket, so when no ``alpha`` can win the
    bracket never moves and it silently answers 0.9999, a number that looks
    like "needs a very good draft" instead of "impossible". It also costs
    40 Python-level iterations per point.

    Defined in chapter "The break-even condition" (Part II, chapter 3).

    Parameters
    ----------
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target decode step, >= 0.
    c_verify : float or array_like
        The verification pass as a fraction of a target decode step, > 0.

    Returns
    -------
    float or numpy.ndarray
        The threshold alpha in [0, 1), ``0.0`` or ``nan`` as described.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.break_even_alpha(4, 0.05, 1.1), 6)
    0.231278
    >>> sd.break_even_alpha(2, 0.5, 2.5)
    nan
    """
    kk = check_integer(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    kk, cd, cv = np.broadcast_arrays(kk, cd, cv)
    cost = kk * cd + cv
    feasible = (cost > 1.0) & (cost < kk + 1)
    # Start Newton at an upper bound of the root, so f(x0) >= 0 and the
    # iteration descends monotonically: E >= 1 + alpha gives alpha* <= C - 1,
    # and AM-GM (E >= (k+1) alpha^(k/2)) gives alpha* <= (C/(k+1))^(2/k).
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.minimum.reduce([np.ones(cost.shape), cost - 1.0, (cost / (kk + 1.0)) ** (2.0 / kk)])
    x = np.where(feasible, x, 1.0)
    active = feasible.copy()
    previous = np.full(cost.shape, np.inf)
    for _ in range(100):
        value, slope = _tokens_and_slope(x, kk)
        step = np.abs(np.where(active, (value - cost) / slope, 0.0))
        x = x - np.where(active, (value - cost) / slope, 0.0)
        # Quadratic convergence: an element is finished once its step is at
        # rounding level, or is small and no longer shrinking (the iteration
        # then only dithers by an ulp around the root).
        at_noise = (step <= 1e-15 * x) | ((step <= 1e-13 * x) & (step >= previous))
        active &= ~at_noise
        previous = step
        if not active.any():
            break
    out = np.where(cost <= 1.0, 0.0, np.where(cost >= kk + 1, np.nan, x))
    return to_output(out, is_scalar_input(k, c_draft, c_verify))


def optimal_k(alpha, c_draft, c_verify=1.0, k_max=64):
    r"""Number of drafts per round that maximizes :func:`speedup_from_costs`.

    Evaluates the speedup for every ``k`` in ``1 .. k_max`` at once and takes
    the first maximum, so ties go to the smaller ``k``. ``c_verify`` is held
    fixed across ``k`` here; chapters that let verification grow with ``k``
    use the hardware model instead.

    Defined in chapter "The break-even condition" (Part II, chapter 3).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float or array_like, optional
        Verification pass as a fraction of a target step, > 0. Default 1.
    k_max : int, optional
        Largest ``k`` considered, whole number >= 1. Default 64.

    Returns
    -------
    int or numpy.ndarray of int
        The best ``k`` (broadcast shape of the inputs).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.optimal_k(0.8, 0.05)
    8
    """
    a = check_probability(alpha, "alpha")
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    km = int(check_integer(k_max, "k_max", minimum=1, maximum=10_000))
    a, cd, cv = np.broadcast_arrays(a, cd, cv)
    ks = np.arange(1, km + 1)
    s = _expected_tokens_array(a[..., None], ks) / (ks * cd[..., None] + cv[..., None])
    best = ks[np.argmax(s, axis=-1)]
    return to_output(best, is_scalar_input(alpha, c_draft, c_verify), kind=int)


def improvement_factor(alpha, k, c):
    r"""Leviathan et al. (2023), Theorem 3.8: expected walltime improvement.

    .. math:: \frac{1 - \alpha^{k+1}}{(1 - \alpha)(k c + 1)} = \frac{E[L]}{k c + 1}

    where ``c`` is the ratio of one draft step's time to one target step's
    (their ``c``; our ``c_draft`` with ``c_verify = 1``).

    Defined in chapter "Published results, recomputed" (Part III).

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    k : int or array_like of int
        Their gamma, >= 1.
    c : float or array_like
        Draft-to-target step time ratio, >= 0.

    Returns
    -------
    float or numpy.ndarray
        Expected improvement factor in walltime.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.improvement_factor(0.8, 5, 0.0), 4)
    3.6893
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    ca = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    result = _expected_tokens_array(a, kk) / (kk * ca + 1.0)
    return to_output(result, is_scalar_input(alpha, k, c))


def operations_factor(alpha, k, c_hat):
    r"""Leviathan et al. (2023), Theorem 3.11: expected increase in arithmetic.

    .. math:: \frac{(1 - \alpha)(k \hat c + k + 1)}{1 - \alpha^{k+1}}
              = \frac{k \hat c + k + 1}{E[L]}

    where ``c_hat`` is the ratio of the draft's arithmetic operations per
    token to the target's.

    Defined in chapter "Published results, recomputed" (Part III).

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    k : int or array_like of int
        Their gamma, >= 1.
    c_hat : float or array_like
        Draft-to-target arithmetic ratio, >= 0.

    Returns
    -------
    float or numpy.ndarray
        Factor by which total arithmetic grows (>= 1 unless ``alpha = 1``).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.operations_factor(0.8, 5, 0.0), 4)
    1.6263
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    ch = check_nonnegative(c_hat, "c_hat", "(ratio of draft to target arithmetic)")
    result = (kk * ch + kk + 1.0) / _expected_tokens_array(a, kk)
    return to_output(result, is_scalar_input(alpha, k, c_hat))


def source_bisection_break_even_alpha(k, c_draft, c_verify):
    """The second source's break-even search, reimplemented for comparison only.

    The source brackets alpha in ``[0, 0.9999]``, halves the bracket 40
    times on the condition ``k*c_draft + c_verify < E[L](alpha)``, and
    returns the bracket's upper end. This function reproduces that
    behaviour (including its flaws) in plain Python, one scalar at a time,
    so the book and the benchmark can compare it with
    :func:`break_even_alpha`:

    * it answers ``0.9999`` when no alpha can win (the bracket never moves),
    * its answer is only as precise as ``0.9999 / 2**40`` (about 1e-12),
    * it costs 40 Python-level evaluations of E[L] per point.

    Defined in chapter "The break-even condition" (Part II, chapter 3).

    Parameters
    ----------
    k : int
        Draft tokens per round, >= 1.
    c_draft : float
        One draft step as a fraction of a target step, >= 0.
    c_verify : float
        Verification pass as a fraction of a target step, > 0.

    Returns
    -------
    float
        The source's answer.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.economics.source_bisection_break_even_alpha(2, 0.5, 2.5)
    0.9999
    """
    kk = int(check_integer(k, "k", minimum=1))
    cost = kk * float(check_nonnegative(c_draft, "c_draft")) + float(check_positive(c_verify, "c_verify"))

    def tokens(a: float) -> float:
        # same scalar formula the source uses, written out here
        return (1.0 - a ** (kk + 1)) / (1.0 - a) if a < 1.0 else kk + 1.0

    low, high = 0.0, 0.9999
    for _ in range(40):
        middle = 0.5 * (low + high)
        if cost < tokens(middle):
            high = middle
        else:
            low = middle
    return high


def round_times_vs_k(k, k_ref, t_draft, t_verify, verify_slope=0.0):
    r"""Draft and verification times at other ``k``, from times measured at ``k_ref``.

    The assumption behind every speedup-vs-k curve in the chapter, made
    explicit:

    .. math:: T_\text{draft}(k) = \frac{T_\text{draft}}{k_\text{ref}}\,k, \qquad
              T_\text{verify}(k) = T_\text{verify} + s\,(k - k_\text{ref})

    Drafting is autoregressive, so each draft step costs the same and the
    draft time is proportional to ``k``. Verification is one target pass
    over ``k + 1`` positions; at batch 1 it is memory-bound and nearly flat
    in ``k`` (``s = 0``), and ``s > 0`` adds a linear cost per extra position
    (the chapter "Why verification is not free" derives ``s`` from hardware).
    The overhead is taken as independent of ``k``.

    Defined in chapter "The speedup formula" (Part I, chapter 2).

    Parameters
    ----------
    k : int or array_like of int
        Draft lengths to evaluate, >= 1.
    k_ref : int
        The draft length at which ``t_draft`` and ``t_verify`` were measured, >= 1.
    t_draft : float
        Time of all ``k_ref`` draft steps, >= 0 (any time unit).
    t_verify : float
        Verification time at ``k_ref``, > 0 (same unit).
    verify_slope : float, optional
        Extra verification time per extra draft position, ``s`` (same unit),
        >= 0. Default 0: verification time constant in ``k``.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(t_draft_at_k, t_verify_at_k)``, same unit as the inputs.

    Examples
    --------
    >>> import specdec as sd
    >>> td, tv = sd.round_times_vs_k([1, 5, 10], 5, 2.5, 6.0, verify_slope=0.2)
    >>> td.tolist(), tv.tolist()
    ([0.5, 2.5, 5.0], [5.2, 6.0, 7.0])
    """
    kk = check_integer(k, "k", minimum=1)
    kr = int(check_integer(k_ref, "k_ref", minimum=1))
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    s = check_nonnegative(verify_slope, "verify_slope", "(time per extra draft position)")
    t_verify_k = tv + s * (kk - kr)
    if (t_verify_k <= 0).any():
        raise ValueError("t_verify + verify_slope * (k - k_ref) must stay > 0 for every k requested; "
                         f"it reaches {float(t_verify_k.min())!r}")
    scalar = np.ndim(k) == 0
    out_d, out_v = td / kr * kk, t_verify_k
    return (float(out_d), float(out_v)) if scalar else (np.asarray(out_d), np.asarray(out_v))

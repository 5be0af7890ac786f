"""The economics of one speculative round: cost, speedup, break-even, best k.

A round's cost is written in the **time form** of the first source,
``speedup = T0 * E[L] / (T_draft + T_verify + T_overhead)``, or in the **cost-fraction form** of
the second, ``speedup = E[L] / (k * c_draft + c_verify)`` with costs in target steps ``T0``;
:func:`costs_from_times` and :func:`times_from_costs` convert between them (the overhead folds
into ``c_verify``).

See chapters "The speedup formula" and "The break-even condition".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_size,
    check_whole,
    describe,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import _alpha_for_expected_tokens, _expected_tokens_array
from specdec.sources import Cited

__all__ = [
    "WORKED_EXAMPLE",
    "round_time",
    "round_cost",
    "speedup",
    "speedup_from_costs",
    "costs_from_times",
    "times_from_costs",
    "quick_estimate",
    "quick_estimate_costs",
    "break_even_alpha",
    "optimal_k",
    "lowest_break_even_alpha",
    "required_alpha",
    "improvement_factor",
    "operations_factor",
    "source_bisection_break_even_alpha",
    "round_times_vs_k",
]

#: The first source's worked example, the one copy every chapter, figure, explorer and exercise uses: a
#: 70B target with an 8B draft (TP = 8, one request), keyed by the arguments of :func:`speedup` (ms).
#: ``sd.speedup(**sd.economics.WORKED_EXAMPLE.value)`` is its speedup.
WORKED_EXAMPLE = Cited(
    {"alpha": 0.8, "k": 5, "t0": 5.2, "t_draft": 2.5, "t_verify": 6.0, "t_overhead": 0.5},
    "first-source", "section 2, table 'Worked Example: 70B with 8B Draft' and the line under it (a = 0.8)",
    "verified", "/shared/sources/acceptance-rate-and-speedup-bounds.txt",
    note="a quoted input, not a measurement: 70B target, 8B draft, TP=8, single request; GPU, precision and "
         "engine are not stated")


def round_time(t_draft: ArrayLike, t_verify: ArrayLike, t_overhead: ArrayLike = 0.0) -> float | np.ndarray:
    """Wall-clock time of one speculative round, ``T_draft + T_verify + T_overhead``.

    Defined in chapter "The speedup formula".

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
    check_broadcast(t_draft=td, t_verify=tv, t_overhead=to)
    return to_output(td + tv + to, is_scalar_input(t_draft, t_verify, t_overhead))


def round_cost(k: ArrayLike, c_draft: ArrayLike, c_verify: ArrayLike) -> float | np.ndarray:
    r"""Cost of one speculative round in target decode steps, :math:`k\,c_d + c_v`.

    The denominator of :func:`speedup_from_costs`: ``k`` draft steps of
    ``c_draft`` each and one verification pass of ``c_verify``. A round that
    costs more than ``k + 1`` steps can never pay (it yields at most ``k + 1``
    tokens); one that costs at most 1 step wins at any acceptance rate.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target decode step, >= 0.
    c_verify : float or array_like
        The verification pass (and any per-round overhead) as a fraction of a
        target decode step, > 0.

    Returns
    -------
    float or numpy.ndarray
        Target decode steps per round.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.economics.round_cost(4, 0.05, 1.1), 12)
    1.3
    """
    kk = check_whole(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    check_broadcast(k=kk, c_draft=cd, c_verify=cv)
    return to_output(kk * cd + cv, is_scalar_input(k, c_draft, c_verify))


def speedup(alpha: ArrayLike, k: ArrayLike, t0: ArrayLike, t_draft: ArrayLike, t_verify: ArrayLike,
            t_overhead: ArrayLike = 0.0) -> float | np.ndarray:
    r"""Speedup of speculative decoding over plain decoding, time form.

    .. math:: S = \frac{T_0 \, E[L]}{T_\text{draft} + T_\text{verify} + T_\text{overhead}}

    Defined in chapter "The speedup formula".

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
    kk = check_whole(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    to = check_nonnegative(t_overhead, "t_overhead", "(time)")
    check_broadcast(alpha=a, k=kk, t0=t0a, t_draft=td, t_verify=tv, t_overhead=to)
    return to_output(_speedup(a, kk, t0a, td, tv, to), is_scalar_input(alpha, k, t0, t_draft, t_verify, t_overhead))


def _speedup(a: float | np.ndarray, kk: float | np.ndarray, t0: float | np.ndarray, td: float | np.ndarray,
             tv: float | np.ndarray, to: float | np.ndarray) -> float | np.ndarray:
    """:func:`speedup` of validated inputs (no checks): the kernel internal callers use after their own checks."""
    return t0 * _expected_tokens_array(a, kk) / (td + tv + to)


def speedup_from_costs(alpha: ArrayLike, k: ArrayLike, c_draft: ArrayLike, c_verify: ArrayLike) -> float | np.ndarray:
    r"""Speedup of speculative decoding, cost-fraction form.

    .. math:: S = \frac{E[L]}{k\,c_d + c_v}

    Defined in chapter "The break-even condition".

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
    kk = check_whole(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    check_broadcast(alpha=a, k=kk, c_draft=cd, c_verify=cv)
    return to_output(_speedup_from_costs(a, kk, cd, cv), is_scalar_input(alpha, k, c_draft, c_verify))


def _speedup_from_costs(a: np.ndarray, kk: np.ndarray, cd: np.ndarray, cv: np.ndarray) -> np.ndarray:
    """:func:`speedup_from_costs` of checked arrays (no checks of its own)."""
    return _expected_tokens_array(a, kk) / (kk * cd + cv)


def costs_from_times(k: ArrayLike, t0: ArrayLike, t_draft: ArrayLike, t_verify: ArrayLike,
                     t_overhead: ArrayLike = 0.0) -> tuple[float | np.ndarray, ...]:
    """Convert the time form to the cost-fraction form.

    ``c_draft = t_draft / (k * t0)`` (``t_draft`` covers ``k`` steps) and
    ``c_verify = (t_verify + t_overhead) / t0``, so that
    ``speedup_from_costs(alpha, k, c_draft, c_verify)`` equals
    ``speedup(alpha, k, t0, t_draft, t_verify, t_overhead)``.

    Defined in chapter "The speedup formula".

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
    kk = check_whole(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    to = check_nonnegative(t_overhead, "t_overhead", "(time)")
    check_broadcast(k=kk, t0=t0a, t_draft=td, t_verify=tv, t_overhead=to)
    scalar = is_scalar_input(k, t0, t_draft, t_verify, t_overhead)
    c_draft, c_verify = _costs_from_times(kk, t0a, td, tv, to)
    return to_output(c_draft, scalar), to_output(c_verify, scalar)


def _costs_from_times(kk: float | np.ndarray, t0: float | np.ndarray, td: float | np.ndarray,
                      tv: float | np.ndarray, to: float | np.ndarray) -> tuple[float | np.ndarray, float | np.ndarray]:
    """:func:`costs_from_times` of validated inputs (no checks): ``(c_draft, c_verify)``."""
    return td / (kk * t0), (tv + to) / t0


def times_from_costs(k: ArrayLike, t0: ArrayLike, c_draft: ArrayLike,
                     c_verify: ArrayLike) -> tuple[float | np.ndarray, ...]:
    """Convert the cost-fraction form back to times: ``(t_draft, t_verify)``.

    ``t_draft = k * c_draft * t0`` and ``t_verify = c_verify * t0`` (any
    overhead stays inside ``t_verify``).

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    k : int or array_like of int
        Draft tokens per round, >= 1.
    t0 : float or array_like
        One plain target decode step, > 0 (any time unit).
    c_draft, c_verify : float or array_like
        Costs as in :func:`speedup_from_costs`.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(t_draft, t_verify)`` in the unit of ``t0``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.times_from_costs(5, 2.0, 0.1, 1.25)
    (1.0, 2.5)
    """
    kk = check_whole(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    check_broadcast(k=kk, t0=t0a, c_draft=cd, c_verify=cv)
    scalar = is_scalar_input(k, t0, c_draft, c_verify)
    return to_output(kk * cd * t0a, scalar), to_output(cv * t0a, scalar)


def quick_estimate(alpha: ArrayLike, k: ArrayLike, t0: ArrayLike, t_draft: ArrayLike,
                   t_verify: ArrayLike) -> float | np.ndarray:
    r"""The first source's "quick estimation" formula, exactly as printed.

    .. math:: \hat S = \frac{E[L]}{1 + T_\text{draft}/T_0 + T_\text{verify}/T_0}
              = \frac{T_0\,E[L]}{T_0 + T_\text{draft} + T_\text{verify}}

    This is **not** :func:`speedup`: its round pays one extra target step ``T0`` and no
    overhead, so ``quick_estimate / speedup = T_round / (T0 + T_draft + T_verify)``.

    Defined in chapter "The speedup formula".

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
    kk = check_whole(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    check_broadcast(alpha=a, k=kk, t0=t0a, t_draft=td, t_verify=tv)
    return to_output(_quick_estimate(a, kk, t0a, td, tv), is_scalar_input(alpha, k, t0, t_draft, t_verify))


def _quick_estimate(a: float | np.ndarray, kk: float | np.ndarray, t0: float | np.ndarray, td: float | np.ndarray,
                    tv: float | np.ndarray) -> float | np.ndarray:
    """:func:`quick_estimate` of validated inputs (no checks)."""
    return _expected_tokens_array(a, kk) / (1.0 + td / t0 + tv / t0)


def quick_estimate_costs(k: ArrayLike, t0: ArrayLike, t_draft: ArrayLike,
                         t_verify: ArrayLike) -> tuple[float | np.ndarray, ...]:
    r"""The round costs the first source's quick estimate implicitly assumes.

    :func:`quick_estimate` is :func:`speedup_from_costs` with

    .. math:: c_d = \frac{T_\text{draft}}{k\,T_0}, \qquad c_v = 1 + \frac{T_\text{verify}}{T_0},

    i.e. a round that pays one extra plain target step on top of drafting and
    verifying (and no overhead). Feed these costs to
    :func:`break_even_alpha` or :func:`required_alpha` to see what the quick
    estimate demands of alpha.

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    k : int or array_like of int
        Draft tokens per round, >= 1.
    t0, t_draft, t_verify : float or array_like
        Times as in :func:`quick_estimate`.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(c_draft, c_verify)`` as fractions of a target step.

    Examples
    --------
    >>> import specdec as sd
    >>> cd, cv = sd.economics.quick_estimate_costs(5, 5.2, 2.5, 6.0)
    >>> round(cd, 4), round(cv, 4)
    (0.0962, 2.1538)
    >>> round(sd.speedup_from_costs(0.8, 5, cd, cv), 12) == round(sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0), 12)
    True
    """
    kk = check_whole(k, "k", minimum=1)
    t0a = check_positive(t0, "t0", "(time)")
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    check_broadcast(k=kk, t0=t0a, t_draft=td, t_verify=tv)
    scalar = is_scalar_input(k, t0, t_draft, t_verify)
    return to_output(td / (kk * t0a), scalar), to_output(1.0 + tv / t0a, scalar)


def break_even_alpha(k: ArrayLike, c_draft: ArrayLike, c_verify: ArrayLike) -> float | np.ndarray:
    r"""Smallest acceptance rate at which speculation beats plain decoding.

    Solves :math:`k\,c_d + c_v = E[L](\alpha) = 1 + \alpha + \dots + \alpha^k`
    for :math:`\alpha`; above the returned value the scheme is a net saving
    (:func:`speedup_from_costs` > 1).

    Returns ``0.0`` when ``k*c_draft + c_verify <= 1`` (any ``alpha > 0`` wins) and ``nan``
    when the round costs at least ``k + 1`` steps (no ``alpha`` wins). Solved by
    :func:`specdec.acceptance.alpha_for_expected_tokens` with ``el = k c_d + c_v``.

    Defined in chapter "The break-even condition".

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
    kk = check_whole(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    check_broadcast(k=kk, c_draft=cd, c_verify=cv)
    return to_output(_break_even_alpha(kk, cd, cv), is_scalar_input(k, c_draft, c_verify))


def _break_even_alpha(k: float | np.ndarray, cd: float | np.ndarray, cv: float | np.ndarray) -> np.ndarray:
    """:func:`break_even_alpha` of validated inputs that broadcast (no checks)."""
    kk = np.asarray(k, dtype=np.float64)
    shape = np.broadcast_shapes(kk.shape, np.shape(cd), np.shape(cv))
    kk, cost = np.broadcast_to(kk, shape), np.broadcast_to(kk * cd + cv, shape)
    feasible = (cost > 1.0) & (cost < kk + 1.0)
    root = _alpha_for_expected_tokens(np.where(feasible, cost, 1.0), kk)
    return np.where(cost <= 1.0, 0.0, np.where(cost >= kk + 1.0, np.nan, root))


def _verify_cost_over_k(c_verify: Any, ks: np.ndarray) -> np.ndarray:
    """Validated ``c_verify`` as an array whose last axis runs over ``ks`` (or broadcasts against it)."""
    k_max = ks.size
    if callable(c_verify):
        try:
            values = c_verify(ks)
        except Exception as exc:
            raise TypeError(f"c_verify, a callable, must accept the array k = 1..{k_max} and return the verification "
                            f"cost for each; calling it raised {type(exc).__name__}: {exc}") from exc
        cv = check_positive(values, "c_verify(k)", "(fraction of a target step)")
        if cv.ndim and cv.shape[-1] not in (1, k_max):
            raise ValueError(f"c_verify(k) must return one value per k = 1..{k_max} (a last axis of length {k_max}); "
                             f"got shape {cv.shape}")
        return cv if cv.ndim else cv[..., None]
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    if cv.ndim and cv.shape[-1] == k_max:
        return cv  # a cost per k
    return cv[..., None]  # the same cost at every k


def optimal_k(alpha: ArrayLike, c_draft: ArrayLike, c_verify: ArrayLike | Callable[..., Any] = 1.0,
              k_max: int = 64) -> int | np.ndarray:
    r"""Number of drafts per round that maximizes :func:`speedup_from_costs`.

    Evaluates :math:`E[L](\alpha, k) / (k\,c_d + c_v(k))` for every ``k`` in
    ``1 .. k_max`` at once and takes the first maximum, so ties go to the
    smaller ``k``. The verification cost may be constant or grow with ``k``
    (a pass over more positions costs more once it leaves the memory-bound
    regime): pass a number, an array over ``k``, or a function of ``k``.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float, array_like or callable, optional
        Verification pass as a fraction of a target step, > 0. Default 1.

        * a number, or an array that broadcasts against ``alpha`` and
          ``c_draft``: the same cost at every ``k``;
        * an array whose last axis has ``k_max`` entries: ``c_verify[..., j]``
          is the cost at ``k = j + 1`` (leading axes broadcast against
          ``alpha`` and ``c_draft``), e.g.
          ``specdec.roofline.hardware.verify_cost(target, hw, np.arange(1, k_max + 1))``;
        * a callable ``k -> c_v(k)``, called once with the array
          ``k = 1 .. k_max``, e.g. ``lambda k: 1.0 + 0.1 * k``.
    k_max : int, optional
        Largest ``k`` considered, whole number in [1, 10000]. Default 64.

    Returns
    -------
    int or numpy.ndarray of int
        The best ``k`` (broadcast shape of ``alpha``, ``c_draft`` and the
        leading axes of ``c_verify``).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.optimal_k(0.8, 0.05)
    8
    >>> sd.optimal_k(0.8, 0.05, lambda k: 1.0 + 0.1 * k)   # verification grows with k
    5
    """
    a = check_probability(alpha, "alpha")
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    km = int(check_integer(k_max, "k_max", minimum=1, maximum=10_000))
    ks = np.arange(1, km + 1)
    best = _optimal_k(a, cd, _verify_cost_over_k(c_verify, ks), km)
    scalar = is_scalar_input(alpha, c_draft) and best.ndim == 0
    return to_output(best, scalar, kind=int)


def _optimal_k(a: np.ndarray, cd: np.ndarray, cv: np.ndarray, km: int) -> np.ndarray:
    """:func:`optimal_k` of checked arrays, ``cv`` the verification cost at ``k = 1 .. km`` on its last axis;
    checks nothing but the shapes and the size."""
    ks = np.arange(1, km + 1)
    shape = check_broadcast(alpha=a, c_draft=cd, c_verify=cv[..., 0])
    check_size(float(np.prod(shape)) * km, "k_max", "the speedup at every k")
    s = _expected_tokens_array(a[..., None], ks) / (ks * cd[..., None] + cv)
    return ks[np.argmax(np.broadcast_to(s, shape + (km,)), axis=-1)]


def lowest_break_even_alpha(c_draft: ArrayLike, c_verify: ArrayLike | Callable[..., Any] = 1.0,
                            k_max: int = 64) -> tuple[Any, ...]:
    r"""The ``k`` whose break-even acceptance rate is lowest, and that rate.

    Scans :func:`break_even_alpha` over ``k = 1 .. k_max`` and returns the
    first minimum (ties go to the smaller ``k``): the draft length that
    tolerates the worst draft. It is not the ``k`` of :func:`optimal_k`,
    which maximizes the speedup at a known alpha. ``c_verify`` takes the
    same three forms as in :func:`optimal_k` (constant, array over ``k``,
    callable). Where no ``k`` can break even (every round costs at least
    ``k + 1`` steps) the answer is ``k = 0`` and alpha ``nan``.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float, array_like or callable, optional
        Verification pass as a fraction of a target step, > 0 (see
        :func:`optimal_k`). Default 1.
    k_max : int, optional
        Largest ``k`` considered, whole number in [1, 10000]. Default 64.

    Returns
    -------
    tuple
        ``(k, alpha)``: the best ``k`` (``int``, or an int array) and its
        break-even alpha (``float`` or array).

    Examples
    --------
    >>> import specdec as sd
    >>> k, alpha = sd.economics.lowest_break_even_alpha(0.02, lambda k: 1.2 + 0.05 * k, k_max=16)
    >>> k, round(alpha, 4)
    (2, 0.2681)
    >>> sd.economics.lowest_break_even_alpha(0.0, 1.1, k_max=16)[0]   # constant c_v, free drafts: longest k
    16
    """
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    km = int(check_integer(k_max, "k_max", minimum=1, maximum=10_000))
    ks = np.arange(1, km + 1)
    cv = _verify_cost_over_k(c_verify, ks)
    shape = check_broadcast(c_draft=cd, c_verify=cv[..., 0])
    check_size(float(np.prod(shape)) * km, "k_max", "the threshold at every k")
    be = np.broadcast_to(_break_even_alpha(ks, cd[..., None], cv), shape + (km,))
    none = np.isnan(be).all(axis=-1)
    i = np.argmin(np.where(np.isnan(be), np.inf, be), axis=-1)
    k_best = np.where(none, 0, ks[i])
    alpha_best = np.where(none, np.nan, np.take_along_axis(be, i[..., None], axis=-1)[..., 0])
    scalar = np.ndim(c_draft) == 0 and len(shape) == 0
    return to_output(k_best, scalar, kind=int), to_output(alpha_best, scalar)


def required_alpha(target_speedup: ArrayLike, k: ArrayLike, c_draft: ArrayLike,
                   c_verify: ArrayLike) -> float | np.ndarray:
    r"""Smallest acceptance rate at which a round reaches a given speedup.

    Solves :math:`E[L](\alpha) = S^\ast\,(k\,c_d + c_v)`: the speedup
    :math:`E[L] / (k c_d + c_v)` reaches :math:`S^\ast` exactly when the
    round, with every cost scaled by :math:`S^\ast`, breaks even. So this is
    :func:`break_even_alpha` on the scaled costs; with ``target_speedup = 1``
    it is the break-even acceptance rate itself, and with 1.3 it is the
    acceptance the source's "worth it" rule demands.

    Returns ``0.0`` when any ``alpha`` reaches the target and ``nan`` when
    none does (even ``alpha = 1`` gives ``k + 1`` tokens, too few).

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    target_speedup : float or array_like
        The speedup to reach, > 0 (1 for break-even, 1.3 for the source's rule).
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float or array_like
        Verification plus per-round overhead as a fraction of a target step, > 0.

    Returns
    -------
    float or numpy.ndarray
        The acceptance rate in [0, 1), ``0.0`` or ``nan``.

    Examples
    --------
    The worked example (c_draft = 2.5 / (5 x 5.2), c_verify = 6.5 / 5.2):

    >>> import specdec as sd
    >>> round(sd.economics.required_alpha(1.3, 5, 2.5 / 26, 6.5 / 5.2), 4)
    0.571
    """
    s = check_positive(target_speedup, "target_speedup")
    kk = check_whole(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    check_broadcast(target_speedup=s, k=kk, c_draft=cd, c_verify=cv)
    return to_output(_required_alpha(s, kk, cd, cv), is_scalar_input(target_speedup, k, c_draft, c_verify))


def _required_alpha(s: float | np.ndarray, k: float | np.ndarray, cd: float | np.ndarray,
                    cv: float | np.ndarray) -> np.ndarray:
    """:func:`required_alpha` of validated inputs (no checks)."""
    return _break_even_alpha(k, s * cd, s * cv)


def improvement_factor(alpha: ArrayLike, k: ArrayLike, c: ArrayLike) -> float | np.ndarray:
    r"""Leviathan et al. (2023), Theorem 3.8: expected walltime improvement.

    .. math:: \frac{1 - \alpha^{k+1}}{(1 - \alpha)(k c + 1)} = \frac{E[L]}{k c + 1}

    where ``c`` is the ratio of one draft step's time to one target step's
    (their ``c``; our ``c_draft`` with ``c_verify = 1``).

    Defined in chapter "Published results, recomputed".

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
    kk = check_whole(k, "k", minimum=1)
    ca = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    check_broadcast(alpha=a, k=kk, c=ca)
    return to_output(_improvement_factor(a, kk, ca), is_scalar_input(alpha, k, c))


def _improvement_factor(a: float | np.ndarray, kk: float | np.ndarray, ca: float | np.ndarray) -> np.ndarray:
    """:func:`improvement_factor` of checked arrays (no checks of its own)."""
    return _expected_tokens_array(a, kk) / (kk * ca + 1.0)


def operations_factor(alpha: ArrayLike, k: ArrayLike, c_hat: ArrayLike) -> float | np.ndarray:
    r"""Leviathan et al. (2023), Theorem 3.11: expected increase in arithmetic.

    .. math:: \frac{(1 - \alpha)(k \hat c + k + 1)}{1 - \alpha^{k+1}}
              = \frac{k \hat c + k + 1}{E[L]}

    where ``c_hat`` is the ratio of the draft's arithmetic operations per
    token to the target's.

    Defined in chapter "Published results, recomputed".

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
    kk = check_whole(k, "k", minimum=1)
    ch = check_nonnegative(c_hat, "c_hat", "(ratio of draft to target arithmetic)")
    check_broadcast(alpha=a, k=kk, c_hat=ch)
    return to_output(_operations_factor(a, kk, ch), is_scalar_input(alpha, k, c_hat))


def _operations_factor(a: float | np.ndarray, kk: float | np.ndarray, ch: float | np.ndarray) -> np.ndarray:
    """:func:`operations_factor` of checked arrays (no checks of its own)."""
    return (kk * ch + kk + 1.0) / _expected_tokens_array(a, kk)


def source_bisection_break_even_alpha(k: int, c_draft: float, c_verify: float) -> float:
    """The second source's break-even search, reimplemented for comparison only.

    Halves ``[0, 0.9999]`` 40 times on ``k*c_draft + c_verify < E[L](alpha)`` and returns the
    bracket's upper end, one scalar at a time, flaws included: it answers ``0.9999`` when no
    alpha can win.

    Defined in chapter "The break-even condition".

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


def round_times_vs_k(k: ArrayLike, k_ref: ArrayLike, t_draft: ArrayLike, t_verify: ArrayLike,
                     verify_slope: ArrayLike = 0.0,
                     t_verify_floor: ArrayLike | None = None) -> tuple[float | np.ndarray, ...]:
    r"""Draft and verification times at other ``k``, from times measured at ``k_ref``.

    .. math:: T_\text{draft}(k) = \frac{T_\text{draft}}{k_\text{ref}}\,k, \qquad
              T_\text{verify}(k) = \max\bigl(T_\text{verify} + s\,(k - k_\text{ref}),\ \text{floor}\bigr)

    Draft steps cost the same each; verification grows by ``s`` per extra position (0 at
    batch 1) and never drops below ``t_verify_floor`` (usually ``T0``); the overhead is
    independent of ``k``.

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    k : int or array_like of int
        Draft lengths to evaluate, >= 1.
    k_ref : int or array_like of int
        The draft length at which ``t_draft`` and ``t_verify`` were measured, >= 1.
    t_draft : float or array_like
        Time of all ``k_ref`` draft steps, >= 0 (any time unit).
    t_verify : float or array_like
        Verification time at ``k_ref``, > 0 (same unit).
    verify_slope : float or array_like, optional
        Extra verification time per extra draft position, ``s`` (same unit),
        >= 0. Default 0: verification time constant in ``k``.
    t_verify_floor : float or array_like, optional
        Smallest verification time at any ``k``, > 0 (same unit), e.g. the
        plain step ``T0``. Default ``None``: no floor.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(t_draft_at_k, t_verify_at_k)``, same unit as the inputs; all the
        arguments broadcast together.

    Examples
    --------
    >>> import specdec as sd
    >>> td, tv = sd.round_times_vs_k([1, 5, 10], 5, 2.5, 6.0, verify_slope=0.2)
    >>> td.tolist(), [round(x, 12) for x in tv.tolist()]
    ([0.5, 2.5, 5.0], [5.2, 6.0, 7.0])
    >>> sd.round_times_vs_k(5, 5, [2.5, 3.0], 6.0)[0].tolist()   # two measured draft times
    [2.5, 3.0]
    >>> [round(x, 12) for x in sd.round_times_vs_k([1, 3, 5], 5, 2.5, 6.0, 1.2, t_verify_floor=5.2)[1].tolist()]
    [5.2, 5.2, 6.0]
    """
    kk = check_whole(k, "k", minimum=1)
    kr = check_whole(k_ref, "k_ref", minimum=1)
    td = check_nonnegative(t_draft, "t_draft", "(time)")
    tv = check_positive(t_verify, "t_verify", "(time)")
    s = check_nonnegative(verify_slope, "verify_slope", "(time per extra draft position)")
    floor = None if t_verify_floor is None else check_positive(t_verify_floor, "t_verify_floor", "(time)")
    check_broadcast(k=kk, k_ref=kr, t_draft=td, t_verify=tv, verify_slope=s,
                    **({} if floor is None else {"t_verify_floor": floor}))
    t_verify_k = tv + s * (kk - kr)
    if floor is not None:
        t_verify_k = np.maximum(t_verify_k, floor)
    if (t_verify_k <= 0).any():
        raise ValueError("t_verify + verify_slope * (k - k_ref) must stay > 0 for every k requested; "
                         f"it reaches {describe(float(np.min(t_verify_k)))}")
    scalar = is_scalar_input(k, k_ref, t_draft, t_verify, verify_slope,
                             *(() if t_verify_floor is None else (t_verify_floor,)))
    return to_output(td / kr * kk, scalar), to_output(t_verify_k, scalar)

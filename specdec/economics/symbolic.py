"""Symbolic derivations (sympy) that the chapters display step by step.

Each function returns one sympy object, so a notebook shows a derivation cell by cell: the
distribution of accepted drafts, E[L] as a sum over it, the simplified sum, and the checks
against the geometric series and the closed form (:func:`closed_form_matches_derivation`).
Symbols: ``alpha`` (positive real), ``k`` (positive integer), ``n`` (non-negative integer),
``c_d`` and ``c_v`` (non-negative reals).

Defined in chapter "Expected tokens per round".
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from specdec._validate import check_integer, check_nonnegative, check_positive, check_scalar

__all__ = [
    "MAX_SYMBOLIC_K",
    "symbols",
    "accepted_pmf",
    "pmf_total",
    "expected_tokens_as_sum",
    "expected_tokens_derived",
    "expected_tokens_closed_form",
    "geometric_series_form",
    "closed_form_matches_derivation",
    "limit_at_alpha_one",
    "marginal_gain",
    "derivative_in_k",
    "break_even_condition",
    "break_even_polynomial",
    "break_even_root",
]

ALPHA = sp.Symbol("alpha", positive=True)
K = sp.Symbol("k", integer=True, positive=True)
N = sp.Symbol("n", integer=True, nonnegative=True)
C_D = sp.Symbol("c_d", nonnegative=True)
C_V = sp.Symbol("c_v", positive=True)


def symbols() -> tuple[Any, ...]:
    """The symbols ``(alpha, k, n)`` used by every derivation here.

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.symbols()
    (alpha, k, n)
    """
    return ALPHA, K, N


def accepted_pmf() -> Any:
    r"""P(N = n) for the number of accepted drafts ``N`` (so ``L = N + 1``).

    Each draft is accepted with probability ``alpha`` until the first
    rejection, and at most ``k`` drafts exist: ``n < k`` accepted drafts
    means ``n`` acceptances then one rejection, probability
    :math:`\alpha^n (1 - \alpha)`; ``n = k`` means every draft survived,
    probability :math:`\alpha^k`.

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.accepted_pmf()
    Piecewise((alpha**n*(1 - alpha), k > n), (alpha**k, Eq(k, n)), (0, True))
    """
    return sp.Piecewise(
        (ALPHA**N * (1 - ALPHA), N < K),
        (ALPHA**K, sp.Eq(N, K)),
        (0, True),
    )


def pmf_total() -> Any:
    r"""The probabilities of ``N = 0 .. k`` summed and simplified (it is 1).

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.pmf_total()
    1
    """
    total = sp.Sum(ALPHA**N * (1 - ALPHA), (N, 0, K - 1)).doit() + ALPHA**K
    return sp.simplify(sp.piecewise_fold(total))


def expected_tokens_as_sum() -> Any:
    r"""E[L] written as an (unevaluated) expectation over the distribution of N.

    .. math:: E[L] = \sum_{n=0}^{k-1} (n + 1)\,\alpha^n (1 - \alpha) + (k + 1)\,\alpha^k

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.expected_tokens_as_sum()
    alpha**k*(k + 1) + Sum(alpha**n*(1 - alpha)*(n + 1), (n, 0, k - 1))
    """
    return sp.Sum((N + 1) * ALPHA**N * (1 - ALPHA), (N, 0, K - 1)) + (K + 1) * ALPHA**K


def expected_tokens_derived() -> Any:
    r"""The sum of :func:`expected_tokens_as_sum` evaluated by sympy and simplified.

    sympy returns a piecewise result: ``k + 1`` when ``alpha = 1`` and
    :math:`(\alpha^{k+1} - 1)/(\alpha - 1)` otherwise.

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.expected_tokens_derived()
    Piecewise((k + 1, Eq(alpha, 1)), ((alpha**(k + 1) - 1)/(alpha - 1), True))
    """
    return sp.simplify(expected_tokens_as_sum().doit())


def expected_tokens_closed_form() -> Any:
    r"""The closed form as both sources print it, :math:`(1 - \alpha^{k+1})/(1 - \alpha)`.

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.expected_tokens_closed_form()
    (1 - alpha**(k + 1))/(1 - alpha)
    """
    return (1 - ALPHA ** (K + 1)) / (1 - ALPHA)


def geometric_series_form() -> Any:
    r"""E[L] as the tail sum :math:`\sum_{i=0}^{k} \alpha^i` (``P(L > i) = alpha**i``).

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.geometric_series_form()
    Sum(alpha**i, (i, 0, k))
    """
    i = sp.Symbol("i", integer=True, nonnegative=True)
    return sp.Sum(ALPHA**i, (i, 0, K))


def _generic_branch(expr: Any) -> Any:
    """The ``alpha != 1`` branch of a piecewise result (the expression itself otherwise)."""
    expr = sp.piecewise_fold(expr)
    if isinstance(expr, sp.Piecewise):
        return expr.args[-1][0]
    return expr


def closed_form_matches_derivation() -> bool:
    """True when sympy proves derivation == closed form == geometric series (alpha != 1).

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.closed_form_matches_derivation()
    True
    """
    closed = expected_tokens_closed_form()
    derived = _generic_branch(expected_tokens_derived())
    series = _generic_branch(geometric_series_form().doit())
    return sp.simplify(derived - closed) == 0 and sp.simplify(series - closed) == 0


def limit_at_alpha_one() -> Any:
    """The limit of the closed form as ``alpha -> 1`` (it is ``k + 1``).

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.limit_at_alpha_one()
    k + 1
    """
    return sp.limit(expected_tokens_closed_form(), ALPHA, 1)


def marginal_gain() -> Any:
    r"""Tokens gained per round by one more draft: :math:`E[L](k+1) - E[L](k) = \alpha^{k+1}`.

    The gain shrinks geometrically in ``k``: diminishing returns.

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.marginal_gain()
    alpha**(k + 1)
    """
    closed = expected_tokens_closed_form()
    return sp.simplify(closed.subs(K, K + 1) - closed)


def derivative_in_k() -> Any:
    r"""Derivative of the closed form with respect to a continuous ``k``.

    :math:`-\alpha^{k+1}\ln\alpha / (1 - \alpha)`: positive (more drafts
    always help a little) and shrinking as ``k`` grows.

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.derivative_in_k()
    alpha**(k + 1)*log(alpha)/(alpha - 1)
    """
    kc = sp.Symbol("k", positive=True)
    closed = expected_tokens_closed_form().subs(K, kc)
    return sp.simplify(sp.diff(closed, kc)).subs(kc, K)


def break_even_condition() -> tuple[Any, ...]:
    r"""The break-even condition as a polynomial inequality in ``alpha``.

    Starting from :math:`k c_d + c_v < (1 - \alpha^{k+1})/(1 - \alpha)` and
    multiplying by :math:`1 - \alpha > 0` gives

    .. math:: \alpha^{k+1} - C\alpha + (C - 1) < 0, \qquad C = k c_d + c_v.

    Returns the pair ``(condition, polynomial_form)`` of sympy relations.

    Defined in chapter "The break-even condition".

    Examples
    --------
    >>> import specdec as sd
    >>> cond, poly = sd.symbolic.break_even_condition()
    >>> poly
    -alpha*(c_d*k + c_v) + alpha**(k + 1) + c_d*k + c_v - 1 < 0
    """
    cost = K * C_D + C_V
    condition = sp.StrictLessThan(cost, expected_tokens_closed_form())
    lhs = sp.expand((expected_tokens_closed_form() - cost) * (1 - ALPHA))
    lhs = sp.collect(sp.expand(-lhs), ALPHA)
    polynomial = sp.StrictLessThan(ALPHA ** (K + 1) - ALPHA * cost + cost - 1, 0)
    # sanity: the collected product and the stated polynomial are the same expression
    assert sp.simplify(lhs - (ALPHA ** (K + 1) - ALPHA * cost + cost - 1)) == 0
    return condition, polynomial


#: Largest draft length for which :func:`break_even_polynomial` builds an exact polynomial.
MAX_SYMBOLIC_K = 1000


def _rational(value: float) -> sp.Rational:
    """Exact rational of a float's shortest decimal form (0.075 -> 3/40, not the binary double)."""
    return sp.Rational(repr(float(value)))


def break_even_polynomial(k: int, c_draft: float, c_verify: float) -> sp.Poly:
    r"""The polynomial :math:`\sum_{i=0}^{k}\alpha^i - (k c_d + c_v)` for numeric inputs.

    Its unique root in (0, 1), when there is one, is the break-even
    acceptance rate. Float inputs are converted to exact rationals so the
    polynomial is exact.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    k : int
        Draft tokens per round, in [1, :data:`MAX_SYMBOLIC_K`] (an exact
        polynomial of degree ``k`` is built).
    c_draft : float
        One draft step as a fraction of a target step, >= 0.
    c_verify : float
        Verification pass as a fraction of a target step, > 0.

    Returns
    -------
    sympy.Poly
        Polynomial in ``alpha`` with rational coefficients.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.break_even_polynomial(2, 0.25, 1.0)
    Poly(alpha**2 + alpha - 1/2, alpha, domain='QQ')
    """
    return _break_even_polynomial(*_check_break_even_args(k, c_draft, c_verify))


def _check_break_even_args(k: int, c_draft: float, c_verify: float) -> tuple[int, float, float]:
    """``k``, ``c_draft`` and ``c_verify`` of :func:`break_even_polynomial`, checked."""
    kk = int(check_scalar(k, "k", check_integer, minimum=1, maximum=MAX_SYMBOLIC_K))
    cd = float(check_scalar(c_draft, "c_draft", check_nonnegative, "(fraction of a target step)"))
    cv = float(check_scalar(c_verify, "c_verify", check_positive, "(fraction of a target step)"))
    return kk, cd, cv


def _break_even_polynomial(kk: int, cd: float, cv: float) -> Any:
    """:func:`break_even_polynomial` of checked arguments (no checks of its own)."""
    cost = kk * _rational(cd) + _rational(cv)
    return sp.Poly(sum(ALPHA**i for i in range(kk + 1)) - cost, ALPHA)


def break_even_root(k: int, c_draft: float, c_verify: float, digits: int = 30) -> Any:
    """The break-even alpha from the exact polynomial, to ``digits`` significant digits.

    An independent reference for :func:`specdec.economics.break_even_alpha`: the
    polynomial of :func:`break_even_polynomial` has exact rational
    coefficients and exactly one sign change on (0, 1) (it is increasing
    there), so bisection in ``digits + 10``-digit arithmetic (mpmath)
    brackets its root without any floating-point shortcut. Returns ``0``
    when the round costs at most one target step and ``nan`` when no
    alpha < 1 wins.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    k, c_draft, c_verify
        As in :func:`break_even_polynomial`.
    digits : int, optional
        Significant digits of the result, in [1, 100]. Default 30.

    Returns
    -------
    sympy.Float
        The root (or ``0`` / ``nan`` as described).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.symbolic.break_even_root(2, 0.25, 1.0, digits=12)
    0.366025403784
    """
    import mpmath

    kk, cd, cv = _check_break_even_args(k, c_draft, c_verify)
    poly = _break_even_polynomial(kk, cd, cv)
    digits = int(check_scalar(digits, "digits", check_integer, minimum=1, maximum=100))
    cost = -poly.nth(0) + 1  # constant term is 1 - cost
    if cost <= 1:
        return sp.Integer(0)
    if cost >= kk + 1:
        return sp.nan
    coefficients = [sp.Rational(c) for c in poly.all_coeffs()]
    with mpmath.workdps(digits + 10):
        mp_coefficients = [mpmath.mpf(c.p) / c.q for c in coefficients]
        low, high = mpmath.mpf(0), mpmath.mpf(1)
        tolerance = mpmath.mpf(10) ** (-(digits + 5))
        while high - low > tolerance:
            middle = (low + high) / 2
            if mpmath.polyval(mp_coefficients, middle) < 0:
                low = middle
            else:
                high = middle
        return sp.Float(str((low + high) / 2), digits)

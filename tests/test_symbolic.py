"""Tests of specdec.economics.symbolic: each derivation step checked by independent means."""

from fractions import Fraction

import pytest
import sympy as sp

import specdec as sd

alpha, k, n = sd.symbolic.symbols()


def test_pmf_terms_and_total():
    pmf = sd.symbolic.accepted_pmf()
    assert sp.simplify(pmf.subs({n: 2, k: 5}) - alpha**2 * (1 - alpha)) == 0
    assert sp.simplify(pmf.subs({n: 5, k: 5}) - alpha**5) == 0
    assert pmf.subs({n: 6, k: 5}) == 0
    assert sd.symbolic.pmf_total() == 1


@pytest.mark.parametrize("kv", [1, 2, 5, 9])
def test_sum_form_equals_explicit_expectation(kv):
    """The unevaluated sum, expanded for a concrete k, equals sum of (n+1) P(N = n) written out by hand."""
    expr = sd.symbolic.expected_tokens_as_sum().subs(k, kv).doit()
    by_hand = sum((m + 1) * alpha**m * (1 - alpha) for m in range(kv)) + (kv + 1) * alpha**kv
    assert sp.expand(expr - by_hand) == 0


def test_derived_is_piecewise_with_k_plus_one_at_alpha_one():
    derived = sd.symbolic.expected_tokens_derived()
    assert isinstance(derived, sp.Piecewise)
    assert derived.subs(alpha, 1) == k + 1
    generic = derived.args[-1][0]
    assert sp.simplify(generic - sd.symbolic.expected_tokens_closed_form()) == 0


def test_closed_form_matches_and_numeric_values():
    assert sd.symbolic.closed_form_matches_derivation() is True
    closed = sd.symbolic.expected_tokens_closed_form()
    for av, kv in [(Fraction(4, 5), 5), (Fraction(1, 2), 3), (Fraction(19, 20), 8)]:
        exact = sum(av**i for i in range(kv + 1))
        assert closed.subs({alpha: sp.Rational(av.numerator, av.denominator), k: kv}) == sp.Rational(exact.numerator, exact.denominator)


def test_limit_marginal_gain_and_derivative():
    assert sd.symbolic.limit_at_alpha_one() == k + 1
    assert sp.simplify(sd.symbolic.marginal_gain() - alpha ** (k + 1)) == 0
    d = sd.symbolic.derivative_in_k()
    # compare with a central finite difference of the numeric function at a non-integer-free point
    val = float(d.subs({alpha: sp.Rational(4, 5), k: 3}))
    h = 1e-6
    f = lambda kk: (1 - 0.8 ** (kk + 1)) / 0.2  # noqa: E731
    assert abs(val - (f(3 + h) - f(3 - h)) / (2 * h)) < 1e-6


def test_break_even_condition_is_equivalent_polynomial():
    cond, poly = sd.symbolic.break_even_condition()
    c_d, c_v = sp.Symbol("c_d", nonnegative=True), sp.Symbol("c_v", positive=True)
    # at alpha = 0.5, k = 3, cost 1.5: both say 1.5 < 1.875 -> True
    vals = {alpha: sp.Rational(1, 2), k: 3, c_d: sp.Rational(1, 6), c_v: 1}
    assert bool(cond.subs(vals)) is True and bool(poly.subs(vals)) is True
    vals[c_v] = 2  # cost 2.5 > 1.875
    assert bool(cond.subs(vals)) is False and bool(poly.subs(vals)) is False


def test_break_even_polynomial_exact_coefficients():
    p = sd.symbolic.break_even_polynomial(3, 0.25, 1.0)
    assert p.all_coeffs() == [1, 1, 1, sp.Rational(1) - sp.Rational(7, 4)]
    with pytest.raises(ValueError, match="k must be"):
        sd.symbolic.break_even_polynomial(0, 0.1, 1.0)
    with pytest.raises(ValueError, match="c_verify must be"):
        sd.symbolic.break_even_polynomial(2, 0.1, 0.0)


def test_break_even_root_known_value():
    """k = 2, cost 1.5: alpha^2 + alpha - 1/2 = 0 -> alpha = (sqrt(3) - 1) / 2."""
    root = sd.symbolic.break_even_root(2, 0.25, 1.0, digits=30)
    assert abs(root - (sp.sqrt(3) - 1) / 2) < sp.Float(10) ** -28
    assert sd.symbolic.break_even_root(2, 0.0, 0.9) == 0
    assert sd.symbolic.break_even_root(2, 0.5, 2.5) is sp.nan

"""Tests of specdec.economics: speedup forms, quick estimate, break-even, best k, Leviathan factors."""

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import specdec as sd

# The first source's worked example: 70B target, 8B draft, times in ms.
EX = dict(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5)


def exact_tokens(alpha, k):
    a = Fraction(alpha)
    return sum((a**i for i in range(k + 1)), Fraction(0))


def test_worked_example_speedup():
    """Source 1 prints E[L] = 3.7 and 2.1x; exact: 5.2 * 3.68928 / 9.0 = 2.131584."""
    exact = Fraction(52, 10) * exact_tokens(0.8, 5) / Fraction(90, 10)
    got = sd.speedup(**EX)
    assert_allclose(got, float(exact), rtol=1e-14)
    assert round(got, 1) == 2.1
    # the source's own rounded arithmetic: 5.2 * 3.7 / 9.0 = 2.1378
    assert_allclose(5.2 * 3.7 / 9.0, 2.13777, rtol=1e-5)
    assert sd.round_time(2.5, 6.0, 0.5) == 9.0


def test_time_and_cost_forms_agree_on_the_worked_example():
    c_draft, c_verify = sd.costs_from_times(EX["k"], EX["t0"], EX["t_draft"], EX["t_verify"], EX["t_overhead"])
    assert_allclose(c_draft, 2.5 / (5 * 5.2), rtol=1e-15)
    assert_allclose(c_verify, 6.5 / 5.2, rtol=1e-15)
    assert_allclose(sd.speedup_from_costs(0.8, 5, c_draft, c_verify), sd.speedup(**EX), rtol=1e-14)
    t_draft, t_verify = sd.times_from_costs(5, 5.2, c_draft, c_verify)
    assert_allclose(t_draft, 2.5, rtol=1e-14)
    assert_allclose(t_verify, 6.5, rtol=1e-14)  # overhead folded into the verification pass


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.integers(1, 20), st.floats(0.01, 50), st.floats(0, 50), st.floats(0.01, 50), st.floats(0, 5))
def test_forms_agree_everywhere(alpha, k, t0, td, tv, to):
    cd, cv = sd.costs_from_times(k, t0, td, tv, to)
    assert_allclose(sd.speedup_from_costs(alpha, k, cd, cv), sd.speedup(alpha, k, t0, td, tv, to), rtol=1e-12)


def test_quick_estimate_is_exactly_the_printed_formula_and_differs_from_speedup():
    """E[L] / (1 + T_draft/T0 + T_verify/T0): 1.4003 on the worked example, not 2.13."""
    exact = exact_tokens(0.8, 5) / (1 + Fraction(25, 52) + Fraction(60, 52))
    got = sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0)
    assert_allclose(got, float(exact), rtol=1e-14)
    # ratio to the exact speedup is T_round / (T0 + T_draft + T_verify) = 9.0 / 13.7
    assert_allclose(got / sd.speedup(**EX), 9.0 / 13.7, rtol=1e-13)


def test_zero_draft_cost_is_valid():
    """n-gram and head drafts cost ~0: allowed, and then speedup = E[L] / c_verify."""
    assert_allclose(sd.speedup_from_costs(0.7, 4, 0.0, 1.0), sd.expected_tokens(0.7, 4), rtol=1e-15)
    assert_allclose(sd.speedup(0.7, 4, 1.0, 0.0, 1.0), sd.expected_tokens(0.7, 4), rtol=1e-15)
    assert sd.break_even_alpha(4, 0.0, 1.0) == 0.0


# ------------------------------------------------------------ break-even alpha
@pytest.mark.parametrize(
    "k,cd,cv",
    [(1, 0.1, 1.0), (2, 0.25, 1.0), (3, 0.2, 1.1), (4, 0.05, 1.1), (5, 0.0962, 1.25), (8, 0.1, 1.5),
     (16, 0.05, 2.0), (40, 0.01, 1.3), (3, 0.3, 2.9), (64, 0.2, 13.0)],
)
def test_break_even_matches_exact_polynomial_root(k, cd, cv):
    """Against sympy's exact real-root isolation of sum(alpha^i) - cost, to 1e-12."""
    ref = sd.symbolic.break_even_root(k, cd, cv, digits=25)
    got = sd.break_even_alpha(k, cd, cv)
    assert abs(got - float(ref)) <= 1e-12
    assert_allclose(sd.speedup_from_costs(got, k, cd, cv), 1.0, rtol=1e-12)


def test_break_even_edge_cases():
    assert sd.break_even_alpha(3, 0.0, 0.5) == 0.0  # cheaper than a target step: wins at any alpha
    assert sd.break_even_alpha(3, 0.0, 1.0) == 0.0  # exactly one step: any alpha > 0 wins
    assert np.isnan(sd.break_even_alpha(2, 0.5, 2.5))  # cost 3.5 > k + 1 = 3
    assert np.isnan(sd.break_even_alpha(2, 0.5, 2.0))  # cost == k + 1: only alpha = 1 ties, never wins


def test_source_bisection_silently_answers_09999_when_infeasible():
    assert sd.economics.source_bisection_break_even_alpha(2, 0.5, 2.5) == 0.9999
    assert np.isnan(sd.break_even_alpha(2, 0.5, 2.5))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 40), st.floats(0, 1), st.floats(0.05, 10))
def test_speedup_at_break_even_is_one(k, cd, cv):
    cost = k * cd + cv
    assume(1.0 + 1e-9 < cost < k + 1 - 1e-6)
    alpha = sd.break_even_alpha(k, cd, cv)
    assert 0 < alpha < 1
    assert_allclose(sd.speedup_from_costs(alpha, k, cd, cv), 1.0, rtol=1e-11)
    # just above the threshold speculation wins, just below it loses
    assert sd.speedup_from_costs(min(alpha + 1e-6, 1.0), k, cd, cv) > 1.0
    assert sd.speedup_from_costs(alpha - 1e-6, k, cd, cv) < 1.0


# ------------------------------------------------------------------- optimal k
def brute_force_best_k(alpha, cd, cv, k_max):
    values = [float(exact_tokens(alpha, k) / (k * Fraction(cd) + Fraction(cv))) for k in range(1, k_max + 1)]
    return 1 + int(np.argmax(values))


@pytest.mark.parametrize("alpha,cd,cv", [(0.8, 0.05, 1.0), (0.6, 0.1, 1.0), (0.9, 0.02, 1.2), (0.5, 0.3, 1.0), (0.95, 0.0, 1.0)])
def test_optimal_k_matches_brute_force(alpha, cd, cv):
    assert sd.optimal_k(alpha, cd, cv, k_max=40) == brute_force_best_k(alpha, cd, cv, 40)


def test_optimal_k_ties_go_to_smaller_k_and_vectorizes():
    # alpha = 0 makes every k yield one token; the cheapest (k = 1) wins
    assert sd.optimal_k(0.0, 0.1) == 1
    # alpha = 0 with free drafts: all k tie, smallest wins
    assert sd.optimal_k(0.0, 0.0) == 1
    got = sd.optimal_k(np.array([0.6, 0.8, 0.9]), 0.05, 1.0, k_max=30)
    assert got.tolist() == [brute_force_best_k(a, 0.05, 1.0, 30) for a in (0.6, 0.8, 0.9)]


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.floats(0.1, 5))
def test_optimal_k_is_at_least_as_good_as_neighbours(alpha, cd, cv):
    best = sd.optimal_k(alpha, cd, cv, k_max=50)
    s = sd.speedup_from_costs(alpha, best, cd, cv)
    if best > 1:
        assert s >= sd.speedup_from_costs(alpha, best - 1, cd, cv)
    if best < 50:
        assert s >= sd.speedup_from_costs(alpha, best + 1, cd, cv) * (1 - 1e-12)


# ------------------------------------------------------- Leviathan et al. 2023
def test_improvement_and_operations_factor_closed_forms():
    """Theorem 3.8: (1 - a^(g+1)) / ((1 - a)(g c + 1)); Theorem 3.11: (1 - a)(g c^ + g + 1) / (1 - a^(g+1))."""
    a, g = sympy.Rational(7, 10), 3
    c, c_hat = sympy.Rational(1, 20), sympy.Rational(1, 10)
    improvement = (1 - a ** (g + 1)) / ((1 - a) * (g * c + 1))
    operations = (1 - a) * (g * c_hat + g + 1) / (1 - a ** (g + 1))
    assert_allclose(sd.improvement_factor(0.7, 3, 0.05), float(improvement), rtol=1e-14)
    assert_allclose(sd.operations_factor(0.7, 3, 0.1), float(operations), rtol=1e-14)


def test_improvement_factor_is_speedup_with_unit_verification():
    assert_allclose(sd.improvement_factor(0.8, 4, 0.1), sd.speedup_from_costs(0.8, 4, 0.1, 1.0), rtol=1e-15)


# ------------------------------------------------------------------ bad input
PUBLIC_CALLS = {
    "speedup": lambda **kw: sd.speedup(**{**EX, **kw}),
    "speedup_from_costs": lambda **kw: sd.speedup_from_costs(**{**dict(alpha=0.8, k=4, c_draft=0.1, c_verify=1.0), **kw}),
    "quick_estimate": lambda **kw: sd.quick_estimate(**{**dict(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0), **kw}),
    "break_even_alpha": lambda **kw: sd.break_even_alpha(**{**dict(k=4, c_draft=0.1, c_verify=1.0), **kw}),
    "optimal_k": lambda **kw: sd.optimal_k(**{**dict(alpha=0.8, c_draft=0.1, c_verify=1.0), **kw}),
    "improvement_factor": lambda **kw: sd.improvement_factor(**{**dict(alpha=0.8, k=4, c=0.1), **kw}),
    "operations_factor": lambda **kw: sd.operations_factor(**{**dict(alpha=0.8, k=4, c_hat=0.1), **kw}),
    "costs_from_times": lambda **kw: sd.costs_from_times(**{**dict(k=5, t0=5.2, t_draft=2.5, t_verify=6.0), **kw}),
    "times_from_costs": lambda **kw: sd.times_from_costs(**{**dict(k=5, t0=5.2, c_draft=0.1, c_verify=1.0), **kw}),
    "round_time": lambda **kw: sd.round_time(**{**dict(t_draft=2.5, t_verify=6.0), **kw}),
}

BAD_VALUES = [
    # (function, parameter, value, exception, message fragment)
    ("speedup", "alpha", 1.5, ValueError, r"alpha must be in \[0, 1\]"),
    ("speedup", "alpha", float("nan"), ValueError, "alpha must be in"),
    ("speedup", "k", 0, ValueError, "k must be a whole number >= 1"),
    ("speedup", "k", 2.5, ValueError, "k must be a whole number"),
    ("speedup", "t0", 0.0, ValueError, "t0 must be a finite number > 0"),
    ("speedup", "t_verify", 0.0, ValueError, "t_verify must be a finite number > 0"),
    ("speedup", "t_draft", -1.0, ValueError, "t_draft must be a finite number >= 0"),
    ("speedup", "t_overhead", -0.1, ValueError, "t_overhead must be a finite number >= 0"),
    ("speedup", "t0", "5.2", TypeError, "t0 must be"),
    ("speedup_from_costs", "c_verify", 0.0, ValueError, "c_verify must be a finite number > 0"),
    ("speedup_from_costs", "c_draft", -0.01, ValueError, "c_draft must be a finite number >= 0"),
    ("speedup_from_costs", "c_draft", float("inf"), ValueError, "c_draft must be a finite number"),
    ("speedup_from_costs", "alpha", None, TypeError, "alpha must be"),
    ("quick_estimate", "t0", -5.2, ValueError, "t0 must be"),
    ("quick_estimate", "t_verify", 0, ValueError, "t_verify must be"),
    ("quick_estimate", "k", -3, ValueError, "k must be"),
    ("break_even_alpha", "k", 0, ValueError, "k must be a whole number >= 1"),
    ("break_even_alpha", "c_verify", 0.0, ValueError, "c_verify must be"),
    ("break_even_alpha", "c_draft", float("nan"), ValueError, "c_draft must be"),
    ("break_even_alpha", "c_draft", "x", TypeError, "c_draft must be"),
    ("optimal_k", "alpha", -0.2, ValueError, "alpha must be in"),
    ("optimal_k", "k_max", 0, ValueError, "k_max must be a whole number"),
    ("optimal_k", "c_verify", 0.0, ValueError, "c_verify must be"),
    ("improvement_factor", "c", -1, ValueError, "c must be a finite number >= 0"),
    ("improvement_factor", "alpha", 2, ValueError, "alpha must be"),
    ("operations_factor", "c_hat", -1, ValueError, "c_hat must be a finite number >= 0"),
    ("operations_factor", "k", 1.5, ValueError, "k must be"),
    ("costs_from_times", "t0", 0, ValueError, "t0 must be"),
    ("costs_from_times", "k", 0, ValueError, "k must be"),
    ("times_from_costs", "c_verify", -1, ValueError, "c_verify must be"),
    ("round_time", "t_verify", 0, ValueError, "t_verify must be"),
    ("round_time", "t_draft", True, TypeError, "t_draft must be"),
]


@pytest.mark.parametrize("name,param,value,exc,match", BAD_VALUES)
def test_bad_input_names_parameter_and_range(name, param, value, exc, match):
    with pytest.raises(exc, match=match):
        PUBLIC_CALLS[name](**{param: value})


def test_source_bisection_validates_too():
    with pytest.raises(ValueError, match="k must be"):
        sd.economics.source_bisection_break_even_alpha(0, 0.1, 1.0)


# ------------------------------------------------------------- required_alpha
def test_required_alpha_reaches_the_target_speedup():
    """At the returned alpha the exact speedup equals the target (checked with speedup_from_costs)."""
    cd, cv = 2.5 / 26, 6.5 / 5.2
    targets = np.array([1.0, 1.3, 2.0])
    a = sd.economics.required_alpha(targets, 5, cd, cv)
    assert_allclose(sd.speedup_from_costs(a, 5, cd, cv), targets, rtol=1e-12)
    assert sd.economics.required_alpha(1.0, 5, cd, cv) == pytest.approx(sd.break_even_alpha(5, cd, cv), rel=1e-15)
    # brute force on a fine grid: first alpha with speedup >= 1.3
    grid = np.linspace(0, 1, 200_001)
    first = grid[np.argmax(sd.speedup_from_costs(grid, 5, cd, cv) >= 1.3)]
    assert abs(first - a[1]) <= 1e-5


def test_required_alpha_edge_cases():
    """0 when any alpha works; nan when even alpha = 1 is not enough; bad input named."""
    assert sd.economics.required_alpha(1.3, 5, 0.0, 0.5) == 0.0
    assert np.isnan(sd.economics.required_alpha(10.0, 5, 0.1, 1.0))  # needs E[L] = 15 > 6
    with pytest.raises(ValueError, match="target_speedup"):
        sd.economics.required_alpha(0.0, 5, 0.1, 1.0)
    with pytest.raises(ValueError, match="c_verify"):
        sd.economics.required_alpha(1.3, 5, 0.1, 0.0)


def frac_speedup_best_k(alpha, cd, cv_of_k, k_max):
    """The argmax over k of E[L] / (k c_d + c_v(k)), by a plain loop with exact fractions."""
    vals = [exact_tokens(alpha, k) / (k * Fraction(cd) + Fraction(cv_of_k(k))) for k in range(1, k_max + 1)]
    return 1 + vals.index(max(vals))


@pytest.mark.parametrize("alpha,cd,beta", [(0.8, 0.05, 0.1), (0.9, 0.02, 0.05), (0.6, 0.1, 0.2), (0.95, 0.0, 0.02)])
def test_optimal_k_with_growing_verification_matches_brute_force(alpha, cd, beta):
    """c_verify(k) = 1 + beta k as a callable and as an array over k: the exact argmax."""
    expected = frac_speedup_best_k(alpha, cd, lambda k: Fraction(1) + Fraction(beta) * k, 64)
    assert sd.optimal_k(alpha, cd, lambda k: 1.0 + beta * k, k_max=64) == expected
    ks = np.arange(1, 65)
    assert sd.optimal_k(alpha, cd, 1.0 + beta * ks, k_max=64) == expected
    assert sd.optimal_k(alpha, cd, sd.drafts.verify_cost_linear(ks, 1.0, beta), k_max=64) == expected


def test_optimal_k_growing_verification_vectorizes_and_validates():
    ks = np.arange(1, 31)
    cv = 1.0 + 0.1 * ks
    got = sd.optimal_k(np.array([0.6, 0.8, 0.9]), 0.05, cv, k_max=30)
    assert got.tolist() == [sd.optimal_k(a, 0.05, cv, k_max=30) for a in (0.6, 0.8, 0.9)]
    # leading axes of a per-k array broadcast against alpha: two verification models at once
    both = sd.optimal_k(0.8, 0.05, np.stack([np.ones(30), cv]), k_max=30)
    assert both.tolist() == [sd.optimal_k(0.8, 0.05, 1.0, k_max=30), sd.optimal_k(0.8, 0.05, cv, k_max=30)]
    with pytest.raises(ValueError, match=r"c_verify\(k\) must be a finite number > 0"):
        sd.optimal_k(0.8, 0.05, lambda k: 1.0 - 0.1 * k, k_max=30)
    with pytest.raises(ValueError, match="one value per k"):
        sd.optimal_k(0.8, 0.05, lambda k: np.ones(3), k_max=30)
    with pytest.raises(TypeError, match="c_verify, a callable"):
        sd.optimal_k(0.8, 0.05, lambda: 1.0, k_max=30)
    with pytest.raises(TypeError, match="c_verify"):
        sd.optimal_k(0.8, 0.05, "1.0")


def test_lowest_break_even_alpha_matches_a_scan():
    """The k with the lowest break-even alpha, against a plain scan of break_even_alpha; ties to the smaller k."""
    ks = np.arange(1, 17)
    for cd, cv in [(0.0, 1.25), (0.1, 1.25), (0.02, 1.2 + 0.05 * ks), (0.0, 1.0 + 0.08 * ks)]:
        be = [float(sd.break_even_alpha(int(k), cd, cv if np.ndim(cv) == 0 else float(cv[k - 1]))) for k in ks]
        be = [b if b == b else float("inf") for b in be]
        k_best, alpha_best = sd.economics.lowest_break_even_alpha(cd, cv, k_max=16)
        assert k_best == 1 + be.index(min(be)) and alpha_best == pytest.approx(min(be), rel=1e-13)
    # a round that costs less than one step at k = 1: alpha 0 already, the smallest k wins the tie
    assert sd.economics.lowest_break_even_alpha(0.0, 0.9, k_max=16) == (1, 0.0)
    # no k can break even
    k_none, a_none = sd.economics.lowest_break_even_alpha(2.0, 3.0, k_max=4)
    assert k_none == 0 and np.isnan(a_none)
    k_arr, a_arr = sd.economics.lowest_break_even_alpha(np.array([0.0, 0.1]), 1.25, k_max=16)
    assert k_arr.shape == (2,) and a_arr.shape == (2,)


def test_round_cost_and_quick_estimate_costs():
    assert sd.round_cost(4, 0.05, 1.1) == pytest.approx(1.3, rel=1e-15)
    assert_allclose(sd.round_cost(np.arange(1, 4), 0.1, 1.0), [1.1, 1.2, 1.3], rtol=1e-15)
    cd, cv = sd.economics.quick_estimate_costs(5, 5.2, 2.5, 6.0)
    assert cd == pytest.approx(float(Fraction(25, 10) / (5 * Fraction(52, 10))), rel=1e-15)
    assert cv == pytest.approx(float(1 + Fraction(60, 52)), rel=1e-15)
    # the quick estimate is the speedup of the round those costs describe
    assert sd.speedup_from_costs(0.8, 5, cd, cv) == pytest.approx(sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0), rel=1e-14)
    with pytest.raises(ValueError, match="c_verify"):
        sd.round_cost(4, 0.1, 0.0)

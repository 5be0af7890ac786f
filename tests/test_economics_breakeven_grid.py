"""break_even_alpha against the second source's bisection and against exact sympy roots, on a grid."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
from specdec.economics import source_bisection_break_even_alpha as bisect

KS = np.arange(1, 21)
C_DRAFTS = np.linspace(0.0, 0.3, 16)
C_VERIFY = 1.1


def test_grid_agrees_with_source_bisection_where_feasible():
    """Where a root exists below 0.9999 the two agree to the bisection's resolution (0.9999 / 2**40 ~ 9e-13)."""
    k, cd = np.meshgrid(KS, C_DRAFTS, indexing="ij")
    ours = sd.break_even_alpha(k, cd, C_VERIFY)
    theirs = np.array([[bisect(int(a), float(b), C_VERIFY) for a, b in zip(ra, rb, strict=True)] for ra, rb in zip(k, cd, strict=True)])
    feasible = np.isfinite(ours) & (ours < 0.9999) & (ours > 0)
    assert feasible.sum() > 100
    assert np.max(np.abs(ours[feasible] - theirs[feasible])) <= 0.9999 / 2**40 + 1e-15
    # the bisection returns the upper end of its bracket: never below the true root
    assert np.all(theirs[feasible] >= ours[feasible] - 1e-15)


def test_infeasible_case_bisection_answers_0_9999():
    """Round cost >= k + 1: no alpha wins. Ours says nan, the source's bisection says 0.9999."""
    assert np.isnan(sd.break_even_alpha(2, 0.5, 2.5))
    assert bisect(2, 0.5, 2.5) == 0.9999
    k, cd = np.meshgrid(KS, np.linspace(0.3, 1.0, 8), indexing="ij")
    ours = sd.break_even_alpha(k, cd, 1.5)
    bad = np.isnan(ours)
    assert bad.any()
    assert all(bisect(int(a), float(b), 1.5) == 0.9999 for a, b in zip(k[bad], cd[bad], strict=True))


def test_cheap_round_bisection_answers_tiny_positive_number():
    """Round cost <= 1 wins at any alpha: ours 0.0, the bisection 0.9999 / 2**40."""
    assert sd.break_even_alpha(3, 0.0, 0.9) == 0.0
    assert_allclose(bisect(3, 0.0, 0.9), 0.9999 / 2**40, rtol=1e-12)


@pytest.mark.parametrize("k, cd, cv", [(1, 0.1, 1.05), (3, 0.05, 1.1), (8, 0.02, 1.3), (20, 0.1, 2.0), (5, 0.2, 1.0)])
def test_against_exact_polynomial_root(k, cd, cv):
    """sympy's exact root of sum alpha^i - (k c_d + c_v), refined to 30 digits."""
    exact = float(sd.symbolic.break_even_root(k, cd, cv, digits=30))
    assert_allclose(sd.break_even_alpha(k, cd, cv), exact, rtol=0, atol=2e-16 * (k + 1))
    assert abs(bisect(k, cd, cv) - exact) <= 0.9999 / 2**40 + 1e-15

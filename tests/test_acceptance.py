"""Tests of specdec.acceptance against exact rational arithmetic and the sources."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import specdec as sd


def exact_expected_tokens(alpha: float, k: int) -> Fraction:
    """E[L] = sum_{i=0}^{k} alpha^i in exact rational arithmetic on the float alpha."""
    a = Fraction(alpha)
    return sum((a**i for i in range(k + 1)), Fraction(0))


def exact_pmf(alpha: float, k: int) -> list[Fraction]:
    a = Fraction(alpha)
    return [a**n * (1 - a) for n in range(k)] + [a**k]


ALPHAS_HARD = [0.0, 1e-300, 1e-9, 0.1, 0.3, 0.4999999, 0.5, 0.5000001, 0.7, 0.8, 0.9, 0.95, 0.99,
               0.999999, 1 - 1e-9, 1 - 1e-12, 1 - 2**-40, 1 - 2**-52, 1.0]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 13, 64])
@pytest.mark.parametrize("alpha", ALPHAS_HARD)
def test_expected_tokens_relative_error_below_1e14(alpha, k):
    """E[L] matches exact Fraction arithmetic to 1e-14 relative, including alpha within 1e-12 of 1."""
    exact = exact_expected_tokens(alpha, k)
    got = sd.expected_tokens(alpha, k)
    assert isinstance(got, float)
    assert abs(Fraction(got) - exact) / exact <= Fraction(1, 10**14)


@pytest.mark.parametrize("alpha", [0.5, 0.9, 0.999999, 1 - 1e-9, 1 - 1e-12, 1 - 2**-52])
def test_expected_tokens_long_drafts_near_one(alpha):
    """k = 500: the cancellation-free form keeps 1e-14 even with many drafts."""
    exact = exact_expected_tokens(alpha, 500)
    assert abs(Fraction(sd.expected_tokens(alpha, 500)) - exact) / exact <= Fraction(1, 10**14)


def test_naive_formula_would_fail_near_one():
    """The reference is sharp: the textbook formula misses the 1e-14 bound near alpha = 1."""
    alpha, k = 1 - 1e-12, 5
    naive = (1 - alpha ** (k + 1)) / (1 - alpha)
    exact = exact_expected_tokens(alpha, k)
    assert abs(Fraction(naive) - exact) / exact > Fraction(1, 10**14)


def test_expected_tokens_vectorized_over_a_dense_grid():
    """Array calls agree with exact arithmetic on a grid that includes both ends."""
    alphas = np.concatenate([np.linspace(0, 1, 201), 1 - np.logspace(-15, -1, 50)])
    got = sd.expected_tokens(alphas, 7)
    assert got.shape == alphas.shape
    for a, g in zip(alphas, got, strict=True):
        exact = exact_expected_tokens(float(a), 7)
        assert abs(Fraction(float(g)) - exact) / exact <= Fraction(1, 10**14)


def test_expected_tokens_broadcasts_alpha_against_k():
    alphas = np.array([[0.5], [0.9]])
    ks = np.array([1, 3, 8])
    got = sd.expected_tokens(alphas, ks)
    assert got.shape == (2, 3)
    for i, a in enumerate(alphas[:, 0]):
        for j, k in enumerate(ks):
            assert_allclose(got[i, j], float(exact_expected_tokens(float(a), int(k))), rtol=1e-15)


# The first source's table of E[L] (section 1), as printed to one decimal.
SOURCE_TABLE = {
    (0.5, 3): 1.9, (0.5, 5): 2.0, (0.5, 8): 2.0,
    (0.7, 3): 2.5, (0.7, 5): 2.9, (0.7, 8): 3.2,
    (0.8, 3): 3.0, (0.8, 5): 3.7, (0.8, 8): 4.3,
    (0.9, 3): 3.4, (0.9, 5): 4.7, (0.9, 8): 6.1,
    (0.95, 3): 3.7, (0.95, 5): 5.3, (0.95, 8): 7.4,
}


@pytest.mark.parametrize("alpha,k", sorted(SOURCE_TABLE))
def test_source_table_of_expected_tokens(alpha, k):
    """Each cell of the first source's table agrees with E[L] rounded to one decimal.

    (All 15 cells do; the table is right. Exact values are pinned by the
    Fraction tests above; the errors in that source are elsewhere.)
    """
    got = sd.expected_tokens(alpha, k)
    assert abs(got - SOURCE_TABLE[(alpha, k)]) <= 0.05 + 1e-12


def test_source_sentence_on_k3_to_k8_gain_is_wrong():
    """Source 1 says going from k = 3 to k = 8 at alpha = 0.8 "only adds 1.2 tokens".

    Its own table gives 4.3 - 3.0 = 1.3, and the exact gain is 4.32891 - 2.952 = 1.37691.
    """
    gain = sd.expected_tokens(0.8, 8) - sd.expected_tokens(0.8, 3)
    exact = exact_expected_tokens(0.8, 8) - exact_expected_tokens(0.8, 3)
    assert_allclose(gain, float(exact), rtol=1e-14)
    assert round(gain, 1) == 1.4 and round(gain, 1) != 1.2


@pytest.mark.parametrize("k,printed", [(1, 1.8), (2, 2.44), (4, 3.36), (8, 4.33)])
def test_second_source_tokens_per_step_at_alpha_08(k, printed):
    """Source 2: at alpha = 0.8, k = 1, 2, 4, 8 yield 1.8, 2.44, 3.36, 4.33 tokens (all agree when rounded)."""
    got = sd.expected_tokens(0.8, k)
    assert_allclose(got, float(exact_expected_tokens(0.8, k)), rtol=1e-15)
    assert round(got, 2) == printed


@pytest.mark.parametrize("k", [1, 2, 5, 9])
@pytest.mark.parametrize("alpha", [0.0, 0.25, 0.8, 0.999, 1.0])
def test_pmf_matches_exact_distribution(alpha, k):
    pmf = sd.accepted_tokens_pmf(alpha, k)
    assert pmf.shape == (k + 1,)
    assert_allclose(pmf, [float(x) for x in exact_pmf(alpha, k)], rtol=1e-14, atol=1e-300)
    assert_allclose(pmf.sum(), 1.0, rtol=1e-14)
    assert_allclose(pmf[-1], alpha**k, rtol=1e-14)


def test_pmf_broadcasts_over_alpha():
    pmf = sd.accepted_tokens_pmf(np.array([[0.2, 0.9]]), 3)
    assert pmf.shape == (1, 2, 4)
    assert_allclose(pmf[0, 1], [float(x) for x in exact_pmf(0.9, 3)], rtol=1e-14)


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.8, 1.0])
def test_variance_against_exact_moments(alpha, k):
    pmf = exact_pmf(alpha, k)
    mean = sum(n * p for n, p in enumerate(pmf))
    var = sum((n - mean) ** 2 * p for n, p in enumerate(pmf))
    assert_allclose(sd.tokens_per_round_variance(alpha, k), float(var), rtol=1e-12, atol=1e-15)


def test_variance_vectorized_over_mixed_k():
    got = sd.tokens_per_round_variance(np.array([0.5, 0.9]), np.array([2, 7]))
    expected = [sd.tokens_per_round_variance(0.5, 2), sd.tokens_per_round_variance(0.9, 7)]
    assert_allclose(got, expected, rtol=1e-14)


def test_per_position_reduces_to_constant_alpha():
    for alpha in (0.0, 0.4, 0.8, 1.0):
        assert_allclose(sd.expected_tokens_per_position([alpha] * 6), sd.expected_tokens(alpha, 6), rtol=1e-14)


def _exact_tokens_per_position(rates) -> Fraction:
    """E[L] = 1 + sum_i prod_{j<=i} alpha_j, in exact rationals on the float rates."""
    total, product = Fraction(1), Fraction(1)
    for rate in rates:
        product *= Fraction(rate)
        total += product
    return total


@pytest.mark.parametrize("seed", range(40))
def test_iid_fit_to_a_falling_profile_understates_short_and_overstates_long_drafts(seed):
    """Chapter "Expected tokens per round": one alpha fitted to E[L] at k_ref from rates that fall with position
    is below the truth for every k < k_ref and above it for every k > k_ref (log of the cumulative product is
    concave). Random strictly falling profiles; the truth is computed in exact rationals, independently of
    expected_tokens_per_position."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 16))
    rates = np.sort(rng.uniform(0.05, 0.99, size=n))[::-1]
    assert (np.diff(rates) < 0).all()                       # strictly falling (continuous draws never tie)
    k_ref = int(rng.integers(2, rates.size))
    truth = [float(_exact_tokens_per_position(rates[:k])) for k in range(1, rates.size + 1)]
    assert_allclose([sd.expected_tokens_per_position(rates[:k]) for k in range(1, rates.size + 1)], truth, rtol=1e-14)
    alpha_fit = sd.alpha_for_expected_tokens(truth[k_ref - 1], k_ref)
    model = sd.expected_tokens(alpha_fit, np.arange(1, rates.size + 1))
    assert model[k_ref - 1] == pytest.approx(truth[k_ref - 1], rel=1e-12)
    for k in range(1, rates.size + 1):
        if k < k_ref:
            assert model[k - 1] < truth[k - 1] * (1 - 1e-12), (k, k_ref)
        elif k > k_ref:
            assert model[k - 1] > truth[k - 1] * (1 + 1e-12), (k, k_ref)


def test_iid_fit_bias_of_the_chapter_profile():
    """The illustrative profile of chapter 1 (0.9, falling by 0.05 per position) fitted at k = 5, against an
    independent route: the fitted alpha by bisection on the hand sum 1 + a + ... + a^5, the truth in exact
    rationals. The fit understates k = 1 by about 3 % and overstates k = 12 by about 24 %."""
    rates = [0.9 - 0.05 * i for i in range(12)]
    truth = [float(_exact_tokens_per_position(rates[:k])) for k in range(1, 13)]
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sum(mid**i for i in range(6)) < truth[4] else (lo, mid)
    alpha_fit = sd.alpha_for_expected_tokens(truth[4], 5)
    assert alpha_fit == pytest.approx(lo, rel=1e-12)
    short = sum(lo**i for i in range(2)) / truth[0] - 1
    long = sum(lo**i for i in range(13)) / truth[11] - 1
    assert -0.04 < short < -0.02 and 0.23 < long < 0.25
    assert float(sd.expected_tokens(alpha_fit, 12)) / truth[11] - 1 == pytest.approx(long, rel=1e-9)


def test_per_position_hand_computed():
    """1 + a1 + a1 a2 + a1 a2 a3 for Medusa-like falling rates, in exact arithmetic."""
    rates = [0.6, 0.5, 0.4]
    a = [Fraction(r) for r in rates]
    exact = 1 + a[0] + a[0] * a[1] + a[0] * a[1] * a[2]
    assert_allclose(sd.expected_tokens_per_position(rates), float(exact), rtol=1e-15)
    batch = sd.expected_tokens_per_position(np.array([rates, [1.0, 1.0, 1.0]]))
    assert_allclose(batch, [float(exact), 4.0], rtol=1e-15)


def test_acceptance_rate_is_one_minus_total_variation():
    rng = np.random.default_rng(7)
    p = rng.dirichlet(np.ones(10), size=20)
    q = rng.dirichlet(np.ones(10), size=20)
    tv = 0.5 * np.abs(p - q).sum(axis=-1)
    assert_allclose(sd.acceptance_rate(p, q), 1 - tv, rtol=1e-12)
    assert sd.acceptance_rate(p[0], p[0]) == pytest.approx(1.0)
    assert sd.acceptance_rate([1.0, 0.0], [0.0, 1.0]) == 0.0


# ----------------------------------------------------------------- properties
alphas = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
ks = st.integers(min_value=1, max_value=60)


@settings(max_examples=200, deadline=None)
@given(alphas, ks)
def test_expected_tokens_bounds(alpha, k):
    e = sd.expected_tokens(alpha, k)
    assert 1.0 <= e <= k + 1


@settings(max_examples=200, deadline=None)
@given(alphas, alphas, ks)
def test_expected_tokens_monotone_in_alpha(a1, a2, k):
    lo, hi = min(a1, a2), max(a1, a2)
    assert sd.expected_tokens(lo, k) <= sd.expected_tokens(hi, k) * (1 + 1e-15)


@settings(max_examples=200, deadline=None)
@given(alphas, ks)
def test_expected_tokens_monotone_with_diminishing_increments_in_k(alpha, k):
    e0, e1, e2 = (sd.expected_tokens(alpha, k + j) for j in range(3))
    assert e0 <= e1 <= e2
    assert (e2 - e1) <= (e1 - e0) + 1e-12


@settings(max_examples=100, deadline=None)
@given(alphas, st.integers(min_value=1, max_value=30))
def test_pmf_sums_to_one_and_mean_plus_one_is_expected_tokens(alpha, k):
    pmf = sd.accepted_tokens_pmf(alpha, k)
    assert_allclose(pmf.sum(), 1.0, rtol=1e-12)
    mean = (np.arange(k + 1) * pmf).sum()
    assert_allclose(mean + 1, sd.expected_tokens(alpha, k), rtol=1e-12)


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("alpha", [-0.1, 1.0000001, float("nan"), [0.5, 2.0]])
def test_bad_alpha_raises_value_error_naming_alpha(alpha):
    for call in (lambda: sd.expected_tokens(alpha, 3), lambda: sd.accepted_tokens_pmf(alpha, 3),
                 lambda: sd.tokens_per_round_variance(alpha, 3)):
        with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]"):
            call()


@pytest.mark.parametrize("k", [0, -1, 2.5, float("nan"), float("inf")])
def test_bad_k_raises_value_error_naming_k(k):
    for call in (lambda: sd.expected_tokens(0.5, k), lambda: sd.accepted_tokens_pmf(0.5, k),
                 lambda: sd.tokens_per_round_variance(0.5, k)):
        with pytest.raises(ValueError, match=r"k must be a whole number >= 1"):
            call()


@pytest.mark.parametrize("bad", ["0.5", None, True, 1 + 2j, {"a": 1}, object()])
def test_non_numeric_raises_type_error(bad):
    with pytest.raises(TypeError, match="alpha"):
        sd.expected_tokens(bad, 3)
    with pytest.raises(TypeError, match="k"):
        sd.expected_tokens(0.5, bad)


def test_integer_valued_float_k_is_accepted():
    assert sd.expected_tokens(0.5, 3.0) == sd.expected_tokens(0.5, 3)


def test_pmf_needs_a_single_k():
    with pytest.raises(ValueError, match="k must be a single whole number"):
        sd.accepted_tokens_pmf(0.5, [2, 3])


@pytest.mark.parametrize("alphas", [[], 0.5, [0.5, -0.1], [0.2, float("nan")]])
def test_per_position_bad_input(alphas):
    with pytest.raises(ValueError, match="alphas"):
        sd.expected_tokens_per_position(alphas)


@pytest.mark.parametrize(
    "p,q,match",
    [
        ([0.5, 0.6], [0.5, 0.5], "p must be a probability distribution summing to 1"),
        ([0.5, 0.5], [1.5, -0.5], "q must be a probability distribution"),
        ([0.5, 0.5], [0.2, 0.3, 0.5], "same vocabulary"),
        ([0.5, float("nan"), 0.5], [0.2, 0.3, 0.5], "p must be"),
        (0.5, [1.0], "p must be a probability vector"),
    ],
)
def test_acceptance_rate_bad_distributions(p, q, match):
    with pytest.raises(ValueError, match=match):
        sd.acceptance_rate(p, q)


def test_acceptance_rate_type_error():
    with pytest.raises(TypeError, match="p must be"):
        sd.acceptance_rate("abc", [1.0])


# ------------------------------------------------------- wasted draft fraction
def test_wasted_draft_fraction_exact():
    """1 - (E[L] - 1)/k against exact fractions; 0 at alpha = 1, 1 at alpha = 0."""
    for alpha, k in [(Fraction(1, 2), 5), (Fraction(4, 5), 5), (Fraction(9, 10), 3)]:
        kept = sum(alpha**i for i in range(k + 1)) - 1
        assert sd.acceptance.wasted_draft_fraction(float(alpha), k) == pytest.approx(float(1 - kept / k), rel=1e-14)
    assert_allclose(sd.acceptance.wasted_draft_fraction(np.array([0.0, 1.0]), 4), [1.0, 0.0], atol=1e-15)
    with pytest.raises(ValueError, match="alpha"):
        sd.acceptance.wasted_draft_fraction(1.5, 3)


def test_wasted_draft_fraction_monte_carlo():
    """A seeded simulation of rounds agrees within 5 standard errors."""
    rng = np.random.default_rng(20261130)
    alpha, k, n = 0.5, 5, 200_000
    accepted_flags = rng.random((n, k)) < alpha
    accepted = np.argmin(np.concatenate([accepted_flags, np.zeros((n, 1), bool)], axis=1), axis=1)
    wasted = 1 - accepted / k
    assert abs(wasted.mean() - sd.acceptance.wasted_draft_fraction(alpha, k)) < 5 * wasted.std() / np.sqrt(n)


# --------------------------------------------------------------------------
# serving metrics
# --------------------------------------------------------------------------


def test_source_numbers_at_alpha_08():
    """Second source: at alpha = 0.8, k = 1, 2, 4, 8 give 1.8, 2.44, 3.36, 4.33 tokens per round (E[L], bonus counted)."""
    exact = [Fraction(1) + sum(Fraction(4, 5) ** i for i in range(1, k + 1)) for k in (1, 2, 4, 8)]
    assert [float(x) for x in exact] == pytest.approx([1.8, 2.44, 3.3616, 4.32891136], rel=1e-12)
    got = sd.acceptance.mean_acceptance_length(0.8, np.array([1, 2, 4, 8]))
    assert_allclose(got, [float(x) for x in exact], rtol=1e-13)
    # the source's printed values: 1.8, 2.44, 3.36 (3.3616), 4.33 (4.3289)
    assert_allclose(np.round(got, 2), [1.8, 2.44, 3.36, 4.33])


def test_draft_acceptance_rate_by_hand():
    """accepted/drafted = (alpha + ... + alpha**k) / k with Fractions; below alpha for k > 1."""
    for alpha, k in [(Fraction(4, 5), 4), (Fraction(1, 2), 3), (Fraction(9, 10), 1)]:
        exact = sum(alpha**i for i in range(1, k + 1)) / k
        assert_allclose(sd.acceptance.draft_acceptance_rate(float(alpha), k), float(exact), rtol=1e-14)
    assert sd.acceptance.draft_acceptance_rate(0.8, 4) < 0.8
    assert sd.acceptance.draft_acceptance_rate(0.8, 1) == pytest.approx(0.8)
    assert sd.acceptance.draft_acceptance_rate(1.0, 7) == 1.0 and sd.acceptance.draft_acceptance_rate(0.0, 7) == 0.0


def test_mean_acceptance_length_conventions():
    """With the bonus it is E[L]; without, E[L] - 1 (mean accepted drafts)."""
    assert_allclose(sd.acceptance.mean_acceptance_length(0.7, 5), sd.expected_tokens(0.7, 5))
    assert_allclose(sd.acceptance.mean_acceptance_length(0.7, 5, include_bonus=False), sd.expected_tokens(0.7, 5) - 1)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 32])
def test_inverses_round_trip(k):
    """alpha -> metric -> alpha recovers alpha to 1e-12 on a grid including 0, 1 and 1 - 1e-9."""
    alpha = np.concatenate([np.linspace(0, 1, 2001), [1 - 1e-9, 1e-9]])
    assert_allclose(sd.acceptance.alpha_from_draft_acceptance_rate(sd.acceptance.draft_acceptance_rate(alpha, k), k), alpha, atol=1e-12)
    for bonus in (True, False):
        length = sd.acceptance.mean_acceptance_length(alpha, k, include_bonus=bonus)
        assert_allclose(sd.acceptance.alpha_from_mean_acceptance_length(length, k, include_bonus=bonus), alpha, atol=1e-12)


def test_inverse_worked_example_and_simulated_log():
    """An engine printing accepted/drafted 0.5904 at k = 4 means alpha = 0.8, and a simulated log agrees."""
    assert sd.acceptance.alpha_from_draft_acceptance_rate(0.5904, 4) == pytest.approx(0.8, abs=1e-12)
    assert sd.acceptance.alpha_from_mean_acceptance_length(3.3616, 4) == pytest.approx(0.8, abs=1e-12)
    counts = sd.estimation.simulate_accepted_counts(0.8, 4, 200_000, np.random.default_rng(7))
    rate = counts.sum() / (4 * counts.size)
    via_rate = sd.acceptance.alpha_from_draft_acceptance_rate(rate, 4)
    assert abs(via_rate - 0.8) < 0.005
    assert abs(via_rate - sd.estimation.estimate_alpha(counts, 4).alpha) < 0.005


def test_scalar_and_array_outputs():
    """Scalar calls return Python floats; arrays broadcast."""
    assert isinstance(sd.acceptance.draft_acceptance_rate(0.8, 4), float)
    assert isinstance(sd.acceptance.alpha_from_draft_acceptance_rate(0.5, 4), float)
    assert sd.acceptance.alpha_from_mean_acceptance_length([2.0, 3.0], [4, 4]).shape == (2,)


def test_bad_metric_inputs():
    """Rates outside [0, 1], lengths outside [1, k + 1] (or [0, k]), non-bool include_bonus."""
    with pytest.raises(ValueError, match="rate must be in"):
        sd.acceptance.alpha_from_draft_acceptance_rate(1.1, 4)
    with pytest.raises(ValueError, match=r"length must be in \[1, k \+ 1\]"):
        sd.acceptance.alpha_from_mean_acceptance_length(5.5, 4)
    with pytest.raises(ValueError, match=r"length must be in \[1, k \+ 1\]"):
        sd.acceptance.alpha_from_mean_acceptance_length(0.5, 4)
    with pytest.raises(ValueError, match=r"length must be in \[0, k\]"):
        sd.acceptance.alpha_from_mean_acceptance_length(4.5, 4, include_bonus=False)
    with pytest.raises(TypeError, match="include_bonus"):
        sd.acceptance.mean_acceptance_length(0.8, 4, include_bonus="yes")
    with pytest.raises(ValueError, match="k must be"):
        sd.acceptance.draft_acceptance_rate(0.8, 0)


# ------------------------------------------------------- the inverse of E[L]: alpha_for_expected_tokens
def exact_root(el: float, k):
    """Root of sum_{i<=k} a^i = el for the float el, by 200 bisections in 200-bit arithmetic (mpmath)."""
    import mpmath

    with mpmath.workprec(200):
        d, kk = mpmath.mpf(el) - 1, mpmath.mpf(k)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        for _ in range(200):
            mid = (lo + hi) / 2
            g = mid * (1 - mid**kk) / (1 - mid)
            lo, hi = (mid, hi) if g < d else (lo, mid)
        return (lo + hi) / 2


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 16, 64, 500, 10**6])
def test_alpha_for_expected_tokens_against_high_precision(k):
    """Relative error below 1e-14 (it is about 1e-16) on a seeded grid that includes both ends' neighbourhoods."""
    import mpmath

    rng = np.random.default_rng(k)
    els = np.concatenate([1 + k * rng.random(25), [1 + 1e-12, 1 + 1e-6, 1.5, min(2.0, k + 1.0), k + 1 - 1e-9]])
    got = sd.acceptance.alpha_for_expected_tokens(els, k)
    for el, x in zip(els, got, strict=True):
        ref = exact_root(float(el), k)
        assert abs(mpmath.mpf(float(x)) - ref) <= 1e-14 * ref, (el, x, ref)


def test_alpha_for_expected_tokens_against_exact_fractions():
    """At a rational alpha the exact E[L], rounded once to a float, gives alpha back within that rounding.

    Rounding el moves the root by at most ulp(el) / 2 / E'(alpha) (E' exact, by Fractions); the solver
    may add 1e-15 relative on top.
    """
    for alpha, k in [(Fraction(4, 5), 5), (Fraction(1, 3), 2), (Fraction(99, 100), 40), (Fraction(1, 1000), 3)]:
        exact_el = sum(alpha**i for i in range(k + 1))
        slope = sum(i * alpha ** (i - 1) for i in range(1, k + 1))
        el = float(exact_el)
        bound = abs(Fraction(el) - exact_el) / slope + Fraction(1, 10**15) * alpha
        assert abs(Fraction(sd.acceptance.alpha_for_expected_tokens(el, k)) - alpha) <= bound


def test_alpha_for_expected_tokens_ends_and_shapes():
    """Exact at the ends; k = 1 is exact (alpha = el - 1); broadcasts; a mean draft length is accepted."""
    assert sd.acceptance.alpha_for_expected_tokens(1.0, 5) == 0.0
    assert sd.acceptance.alpha_for_expected_tokens(6.0, 5) == 1.0
    assert sd.acceptance.alpha_for_expected_tokens(1.6, 1) == 1.6 - 1.0
    got = sd.acceptance.alpha_for_expected_tokens([[1.0], [2.0], [3.0]], [2, 4])
    assert got.shape == (3, 2) and got[0].tolist() == [0.0, 0.0] and got[2, 0] == 1.0
    assert_allclose(sd.expected_tokens(got[1], [2, 4]), 2.0, rtol=1e-15)
    # a mean draft length: the closed form continued to real k
    a = sd.acceptance.alpha_for_expected_tokens(3.0, 3.5)
    assert (1 - a**4.5) / (1 - a) == pytest.approx(3.0, rel=1e-14)
    assert isinstance(sd.acceptance.alpha_for_expected_tokens(2.0, 3), float)


@pytest.mark.parametrize("el, k, match", [
    (0.5, 4, r"el must be in \[1, k \+ 1\]"), (5.5, 4, r"el must be in \[1, k \+ 1\]"),
    (float("nan"), 4, "el must be"), (2.0, 0, "k must be a finite number >= 1"), (2.0, float("inf"), "k must be"),
])
def test_alpha_for_expected_tokens_bad_input(el, k, match):
    with pytest.raises(ValueError, match=match):
        sd.acceptance.alpha_for_expected_tokens(el, k)
    with pytest.raises(TypeError, match="el"):
        sd.acceptance.alpha_for_expected_tokens("2", 3)


def test_every_caller_uses_the_one_solver():
    """break_even_alpha, required_alpha, implied_alpha, the engine-metric inverses and equivalent_alpha agree with it."""
    inv = sd.acceptance.alpha_for_expected_tokens
    assert sd.break_even_alpha(5, 0.05, 1.2) == inv(5 * 0.05 + 1.2, 5)
    assert sd.economics.required_alpha(1.3, 5, 0.05, 1.2) == inv(1.3 * (5 * 0.05) + 1.3 * 1.2, 5)
    assert sd.literature.implied_alpha(2.0, 4, 0.1) == inv(2.0 * (4 * 0.1 + 1.0), 4)
    assert sd.acceptance.alpha_from_mean_acceptance_length(3.0, 4) == inv(3.0, 4)
    assert sd.acceptance.alpha_from_mean_acceptance_length(2.0, 4, include_bonus=False) == inv(3.0, 4)
    assert sd.acceptance.alpha_from_draft_acceptance_rate(0.5, 4) == inv(1 + 0.5 * 4, 4)
    assert sd.drafts.equivalent_alpha([0.9, 0.5]) == inv(1 + 0.9 + 0.45, 2)


# ------------------------------------------------------- per-position rates: unconditional and conditional
def test_conversions_by_hand_and_round_trip():
    """P(N >= i) = prod alpha_j, and back; vLLM's logged per-position rates are the unconditional ones."""
    alphas = np.array([0.9, 0.5, 0.8, 0.25])
    u = sd.acceptance.unconditional_from_conditional(alphas)
    assert_allclose(u, [0.9, 0.45, 0.36, 0.09], rtol=1e-15)
    assert_allclose(sd.acceptance.conditional_from_unconditional(u), alphas, rtol=1e-15)
    batch = sd.acceptance.unconditional_from_conditional([[0.8, 0.8], [0.5, 1.0]])
    assert_allclose(batch, [[0.8, 0.64], [0.5, 0.5]], rtol=1e-15)
    # E[L] = 1 + sum of the unconditional rates
    assert sd.expected_tokens_per_position(alphas) == pytest.approx(1 + u.sum(), rel=1e-15)


def test_conditional_from_unconditional_from_counts_and_unreached_positions():
    """Counts of a seeded simulated log: conditional rates = A_i / A_(i-1); a position nobody reached is nan."""
    counts = sd.estimation.simulate_accepted_counts_per_position([0.9, 0.7, 0.5], 100_000, np.random.default_rng(4))
    a_i = np.array([(counts >= i).sum() for i in (1, 2, 3)], dtype=float)
    cond = sd.acceptance.conditional_from_unconditional(a_i / counts.size)
    assert_allclose(cond, a_i / np.concatenate([[counts.size], a_i[:-1]]), rtol=1e-14)
    assert np.all(np.abs(cond - [0.9, 0.7, 0.5]) < 0.01)
    edge = sd.acceptance.conditional_from_unconditional([0.5, 0.0, 0.0])
    assert edge[0] == 0.5 and edge[1] == 0.0 and np.isnan(edge[2])


@pytest.mark.parametrize("rates, match", [
    ([0.5, 0.6], "non-increasing"), ([1.2, 0.5], r"rates must be in \[0, 1\]"), ([], "at least one draft position"),
    ([0.5, float("nan")], "rates must be"),
])
def test_conditional_from_unconditional_bad_input(rates, match):
    with pytest.raises(ValueError, match=match):
        sd.acceptance.conditional_from_unconditional(rates)
    with pytest.raises(ValueError, match="alphas"):
        sd.acceptance.unconditional_from_conditional([0.5, 1.5])


def test_mean_acceptance_length_without_bonus_against_fractions():
    """The calculator's alpha (1 - alpha^k) / (1 - alpha), by Fractions: exactly one token short of E[L]."""
    for alpha, kk in [(0.8, 5), (0.6, 3), (0.95, 10)]:
        fa = Fraction(alpha)
        exact = fa * (1 - fa**kk) / (1 - fa)
        got = sd.acceptance.mean_acceptance_length(alpha, kk, include_bonus=False)
        assert abs(Fraction(got) - exact) <= Fraction(1, 10**14) * exact

"""Tests for specdec.sampling: exactness of speculative sampling, simulation, estimating alpha.

Statistical tests are seeded (deterministic), and each states the
significance level it was designed with: with a fresh seed a correct
implementation would fail a chi-square test at level 1e-3 about once in a
thousand runs. Every statistical test is paired with a deliberately wrong
variant that must be *rejected* by the same test, so the test has power.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import specdec as sd
from specdec import sampling as sm

SIGNIFICANCE = 1e-3  # per chi-square test


# --------------------------------------------------------------------------
# an independent chi-square reference (no scipy in the environment)
# --------------------------------------------------------------------------


def chi2_sf(x: float, df: int) -> float:
    """Survival function of the chi-square law: 1 - P(df/2, x/2), regularized gamma by series."""
    s, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    if z > s + 40 * math.sqrt(s) + 40:  # far in the tail: continued fraction not needed, value ~ 0
        return 0.0
    term = 1.0 / s
    total = term
    n = 1
    while term > 1e-17 * total:
        term *= z / (s + n)
        total += term
        n += 1
    lower = math.exp(s * math.log(z) - z - math.lgamma(s)) * total
    return max(0.0, 1.0 - lower)


def chi2_pvalue(tokens: np.ndarray, p: np.ndarray) -> float:
    """Pearson chi-square goodness-of-fit p-value of ``tokens`` against ``p``.

    Tokens with p = 0 must never appear (returns 0.0 if one does).
    """
    counts = np.bincount(tokens, minlength=p.size).astype(float)
    if counts[p == 0].sum() > 0:
        return 0.0
    support = p > 0
    expected = p[support] * tokens.size
    stat = float(((counts[support] - expected) ** 2 / expected).sum())
    return chi2_sf(stat, int(support.sum()) - 1)


def test_chi2_reference_against_known_quantiles():
    """The hand-written chi-square tail matches textbook quantiles (df 1, 4, 9 at 0.05 / 0.001)."""
    assert_allclose(chi2_sf(3.841459, 1), 0.05, rtol=1e-5)
    assert_allclose(chi2_sf(9.487729, 4), 0.05, rtol=1e-5)
    assert_allclose(chi2_sf(27.877165, 9), 0.001, rtol=1e-4)


# --------------------------------------------------------------------------
# one position: exactness
# --------------------------------------------------------------------------


def _pairs():
    rng = np.random.default_rng(20240601)
    p1, q1 = rng.dirichlet(np.ones(10)), rng.dirichlet(np.ones(10))
    p2 = rng.dirichlet(np.ones(10))
    q2 = rng.dirichlet(np.ones(10))
    q2[[1, 4, 7]] = 0.0  # q has zeros where p > 0
    q2 /= q2.sum()
    p3 = rng.dirichlet(np.ones(10))
    q4 = np.zeros(10)
    q4[3] = 1.0  # one-hot draft
    p5 = rng.dirichlet(0.3 * np.ones(10))
    p5[[0, 9]] = 0.0  # target with zeros where the draft is positive
    p5 /= p5.sum()
    return {
        "random": (p1, q1),
        "q-zeros": (p2, q2),
        "p-equals-q": (p3, p3.copy()),
        "q-one-hot": (p1, q4),
        "p-zeros": (p5, q1),
    }


PAIRS = _pairs()


@pytest.mark.parametrize("name", list(PAIRS))
def test_emitted_tokens_follow_target(name):
    """Emitted tokens pass a chi-square test against p at level 1e-3 (200k trials, vocab 10)."""
    p, q = PAIRS[name]
    tokens, _ = sm.speculative_step(p, q, 200_000, np.random.default_rng(11))
    assert tokens.dtype == np.int64 and tokens.min() >= 0 and tokens.max() < 10
    assert chi2_pvalue(tokens, p) > SIGNIFICANCE


@pytest.mark.parametrize("name", list(PAIRS))
def test_acceptance_frequency_matches_sum_min(name):
    """Accepted fraction is within 5 binomial standard errors of sum(min(p, q))."""
    p, q = PAIRS[name]
    n = 200_000
    tokens, accepted = sm.speculative_step(p, q, n, np.random.default_rng(12))
    alpha = float(np.minimum(p, q).sum())
    se = math.sqrt(max(alpha * (1 - alpha), 1e-12) / n)
    assert abs(accepted.mean() - alpha) <= 5 * se + 1e-12
    if name == "p-equals-q":
        assert accepted.all()


@pytest.mark.parametrize("name", ["random", "q-zeros", "q-one-hot", "p-zeros"])
def test_wrong_correction_is_rejected(name):
    """Power: redrawing the correction from p (a real bug) FAILS the same chi-square test."""
    p, q = PAIRS[name]
    tokens, _ = sm.flawed_speculative_step(p, q, 200_000, np.random.default_rng(11))
    assert chi2_pvalue(tokens, p) < SIGNIFICANCE
    # ... and it does follow its own (wrong) analytic law, so the test is about the flaw
    wrong = sm.emitted_token_distribution(p, q, correction="target")
    assert chi2_pvalue(tokens, wrong) > SIGNIFICANCE


def test_plain_draft_sampling_is_rejected():
    """Power: keeping every draft token (no verification) gives q, and the test rejects it."""
    p, q = PAIRS["random"]
    tokens, accepted = sm.flawed_speculative_step(p, q, 200_000, np.random.default_rng(3), flaw="no-verification")
    assert accepted.all()
    assert chi2_pvalue(tokens, p) < SIGNIFICANCE
    assert chi2_pvalue(tokens, q) > SIGNIFICANCE


def test_residual_sampled_from_residual_only():
    """Rejected trials emit only tokens where p > q (the support of the residual)."""
    p, q = PAIRS["random"]
    tokens, accepted = sm.speculative_step(p, q, 50_000, np.random.default_rng(4))
    assert set(np.unique(tokens[~accepted])) <= set(np.flatnonzero(p > q))


@pytest.mark.parametrize("name", list(PAIRS))
def test_emitted_distribution_analytic_equals_p(name):
    """min(p, q) + (1 - alpha) * residual equals p exactly (to rounding) for every pair."""
    p, q = PAIRS[name]
    assert_allclose(sm.emitted_token_distribution(p, q), p, atol=1e-15)
    assert_allclose(sm.emitted_token_distribution(p, q, "none"), q)


def test_residual_by_hand():
    """residual_distribution on a hand example: p - q = (0.3, 0, -0.3) -> (1, 0, 0); p == q -> p."""
    assert_allclose(sm.residual_distribution([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]), [1.0, 0.0, 0.0])
    assert_allclose(sm.residual_distribution([0.4, 0.6], [0.4, 0.6]), [0.4, 0.6])
    r = sm.residual_distribution([0.5, 0.25, 0.25], [0.25, 0.5, 0.25])
    assert_allclose(r, [1.0, 0.0, 0.0])


def test_step_is_reproducible_and_seed_int_accepted():
    """Same seed, same tokens; an integer seed behaves like default_rng(seed)."""
    p, q = PAIRS["random"]
    a = sm.speculative_step(p, q, 1000, np.random.default_rng(5))
    b = sm.speculative_step(p, q, 1000, 5)
    assert_array_equal(a[0], b[0])
    assert_array_equal(a[1], b[1])


# --------------------------------------------------------------------------
# rounds
# --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 3, 6])
def test_round_mean_matches_expected_tokens(k):
    """Mean tokens per round within 5 standard errors (from tokens_per_round_variance) of E[L]."""
    p, q = PAIRS["random"]
    alpha = float(np.minimum(p, q).sum())
    n = 200_000
    sim = sm.simulate_rounds(p, q, k, n, np.random.default_rng(k))
    se = math.sqrt(sd.tokens_per_round_variance(alpha, k) / n)
    assert abs(sim.mean_tokens - sd.expected_tokens(alpha, k)) < 5 * se
    # the count distribution matches the capped geometric pmf
    pmf = sd.accepted_tokens_pmf(alpha, k)
    assert chi2_pvalue(sim.n_accepted, pmf) > SIGNIFICANCE


def test_round_without_bonus_is_detected():
    """Power: dropping the bonus token shifts the mean by alpha**k, far beyond the tolerance."""
    p, q = PAIRS["random"]
    alpha, k, n = float(np.minimum(p, q).sum()), 4, 200_000
    sim = sm.simulate_rounds(p, q, k, n, np.random.default_rng(9))
    se = math.sqrt(sd.tokens_per_round_variance(alpha, k) / n)
    without_bonus = (sim.n_emitted - sim.bonus).mean()
    assert abs(without_bonus - sd.expected_tokens(alpha, k)) > 5 * se


def test_bonus_exactly_when_all_accepted():
    """The bonus slot is filled iff all k drafts were accepted; slots after L are -1."""
    p, q = PAIRS["q-zeros"]
    k = 4
    sim = sm.simulate_rounds(p, q, k, 50_000, np.random.default_rng(2))
    assert_array_equal(sim.bonus, sim.n_accepted == k)
    assert_array_equal(sim.tokens[:, k] >= 0, sim.n_accepted == k)
    filled = sim.tokens >= 0
    assert_array_equal(filled.sum(axis=1), sim.n_emitted)
    assert_array_equal(filled, np.arange(k + 1)[None, :] < sim.n_emitted[:, None])
    # accepted slots hold the draft's tokens
    acc = np.arange(k)[None, :] < sim.n_accepted[:, None]
    assert_array_equal(sim.tokens[:, :k][acc], sim.draft_tokens[acc])


def test_per_position_distributions_and_bonus_law():
    """With per-position (p_i, q_i): E[L] = expected_tokens_per_position; each emitted position follows p_i."""
    rng = np.random.default_rng(77)
    k = 3
    p = rng.dirichlet(np.ones(8), size=k + 1)
    q = rng.dirichlet(np.ones(8), size=k)
    alphas = np.minimum(p[:k], q).sum(axis=1)
    n = 200_000
    sim = sm.simulate_rounds(p, q, k, n, np.random.default_rng(8))
    expected = sd.expected_tokens_per_position(alphas)
    # variance bound: L is in [1, k + 1], so Var(L) <= (k/2)**2
    assert abs(sim.mean_tokens - expected) < 5 * (k / 2) / math.sqrt(n)
    for i in range(k + 1):
        emitted = sim.tokens[:, i]
        assert chi2_pvalue(emitted[emitted >= 0], p[i]) > SIGNIFICANCE
    # power: the bonus tokens do not follow the draft's last distribution
    bonus = sim.tokens[sim.bonus, k]
    assert chi2_pvalue(bonus, q[k - 1]) < SIGNIFICANCE


def _bigram_expected_tokens(target, draft, k, ctx):
    """E[L] = sum_{i=0}^{k} e_ctx M^i 1 with M = min(P, Q): the probability that drafts 1..i survive."""
    m = np.minimum(target, draft)
    v = np.zeros(target.shape[0])
    v[ctx] = 1.0
    total = 0.0
    for _ in range(k + 1):
        total += v.sum()
        v = v @ m
    return total


def test_bigram_round_mean_matches_path_sum():
    """Bigram rounds: mean tokens per round matches the exact path-sum E[L] (prefix-dependent acceptance)."""
    target, draft = sm.synthetic_bigram_pair(6, 3, peak=1.5, noise=0.8)
    k, n = 4, 200_000
    sim = sm.simulate_bigram_rounds(target, draft, k, n, np.random.default_rng(1), context=2)
    expected = _bigram_expected_tokens(target, draft, k, 2)
    assert abs(sim.mean_tokens - expected) < 5 * (k / 2) / math.sqrt(n)
    assert_array_equal(sim.bonus, sim.n_accepted == k)


def test_bigram_generation_follows_target_chain():
    """Text generated by speculative rounds has the target's transition law (chi-square per row, level 1e-3)."""
    target, draft = sm.synthetic_bigram_pair(5, 4, peak=1.5, noise=1.0)
    seqs, rounds = sm.generate_bigram(target, draft, 3, 60, 4000, np.random.default_rng(6), start=0)
    assert (seqs >= 0).all()
    prev = np.concatenate([np.zeros((seqs.shape[0], 1), dtype=np.int64), seqs[:, :-1]], axis=1).ravel()
    nxt = seqs.ravel()
    worst = 1.0
    worst_draft = 1.0
    for a in range(5):
        worst = min(worst, chi2_pvalue(nxt[prev == a], target[a]))
        worst_draft = min(worst_draft, chi2_pvalue(nxt[prev == a], draft[a]))
    assert worst > SIGNIFICANCE / 5  # Bonferroni over the 5 rows
    assert worst_draft < SIGNIFICANCE  # power: the draft's chain is rejected
    assert (rounds >= 60 / 4).all() and (rounds <= 60).all()


# --------------------------------------------------------------------------
# accepted counts
# --------------------------------------------------------------------------


@pytest.mark.parametrize("alpha,k", [(0.8, 4), (0.5, 1), (0.95, 8), (0.3, 5)])
def test_simulated_counts_follow_capped_geometric(alpha, k):
    """simulate_accepted_counts has the accepted_tokens_pmf law (chi-square, level 1e-3)."""
    counts = sm.simulate_accepted_counts(alpha, k, 300_000, np.random.default_rng(31))
    assert counts.min() >= 0 and counts.max() <= k
    assert chi2_pvalue(counts, sd.accepted_tokens_pmf(alpha, k)) > SIGNIFICANCE
    # power: the uncapped-at-k+1 mistake (capping at k - 1) is rejected
    if k > 1:
        assert chi2_pvalue(np.minimum(counts, k - 1), sd.accepted_tokens_pmf(alpha, k)) < SIGNIFICANCE


def test_simulated_counts_array_alpha_and_edges():
    """Array alpha gives one row per alpha with the right law; alpha 0 and 1 are exact."""
    alphas = np.array([0.0, 0.6, 1.0])
    counts = sm.simulate_accepted_counts(alphas, 3, 100_000, np.random.default_rng(1))
    assert counts.shape == (3, 100_000)
    assert (counts[0] == 0).all() and (counts[2] == 3).all()
    assert chi2_pvalue(counts[1], sd.accepted_tokens_pmf(0.6, 3)) > SIGNIFICANCE
    assert (sm.simulate_accepted_counts(1.0, 5, 10, 0) == 5).all()
    assert (sm.simulate_accepted_counts(0.0, 5, 10, 0) == 0).all()


def test_per_position_counts_law():
    """simulate_accepted_counts_per_position: P(N >= i) = prod of the first i rates."""
    alphas = np.array([0.9, 0.7, 0.5, 0.3])
    counts = sm.simulate_accepted_counts_per_position(alphas, 300_000, np.random.default_rng(2))
    tail = np.concatenate([[1.0], np.cumprod(alphas)])
    pmf = tail[:-1] - tail[1:]
    pmf = np.append(pmf, tail[-1])
    assert chi2_pvalue(counts, pmf) > SIGNIFICANCE


# --------------------------------------------------------------------------
# estimating alpha
# --------------------------------------------------------------------------


def test_estimate_alpha_closed_form_by_hand():
    """Hand-made log, k = 4: S = 4+2+0+4+3 = 13 accepted, F = 3 rounds below k, alpha = 13/16."""
    counts = [4, 2, 0, 4, 3]
    est = sm.estimate_alpha(counts, 4)
    s = 4 + 2 + 0 + 4 + 3
    f = 3
    assert est.accepted == s and est.stops == f and est.n_rounds == 5
    assert_allclose(est.alpha, float(Fraction(s, s + f)), rtol=1e-15)
    assert est.low < est.alpha < est.high
    # the naive "mean accepted / k" is a different number (the serving-metric trap)
    assert abs(float(np.mean(counts)) / 4 - est.alpha) > 0.1


def test_estimate_alpha_edges():
    """All rounds fully accepted -> alpha = 1 (high = 1); all rejected at once -> alpha = 0 (low = 0)."""
    top = sm.estimate_alpha([3, 3, 3], 3)
    assert top.alpha == 1.0 and top.high == 1.0 and top.low < 1.0
    bottom = sm.estimate_alpha([0, 0, 0, 0], 3)
    assert bottom.alpha == 0.0 and bottom.low == 0.0 and bottom.high > 0.0
    assert "alpha = " in str(top)


def test_wilson_interval_by_hand():
    """Wilson interval at 8/10, 95 %: hand formula with z = 1.959964."""
    z = 1.959963984540054
    n, a = 10, 0.8
    centre = (a + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(a * (1 - a) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = sm.wilson_interval(8, 10)
    assert_allclose([low, high], [centre - half, centre + half], rtol=1e-12)


@pytest.mark.parametrize("alpha,k", [(0.8, 4), (0.6, 2), (0.9, 8)])
def test_estimate_alpha_recovers_truth(alpha, k):
    """With 100k simulated rounds the MLE is within 4 standard errors of the true alpha."""
    counts = sm.simulate_accepted_counts(alpha, k, 100_000, np.random.default_rng(41))
    est = sm.estimate_alpha(counts, k)
    se = math.sqrt(alpha * (1 - alpha) / (est.accepted + est.stops))
    assert abs(est.alpha - alpha) < 4 * se
    assert est.low < alpha < est.high


@pytest.mark.parametrize("alpha,k", [(0.8, 4), (0.5, 2), (0.95, 6)])
def test_interval_coverage_near_nominal(alpha, k):
    """Over 4000 simulated logs of 200 rounds, the 95 % Wilson interval covers alpha 95 % +- 1.2 %."""
    counts = sm.simulate_accepted_counts(np.full(4000, alpha), k, 200, np.random.default_rng(51))
    est = sm.estimate_alpha(counts, k)  # vectorized over the 4000 logs
    covered = np.mean((est.low <= alpha) & (alpha <= est.high))
    # 3.5 binomial standard errors of a 4000-trial proportion at 0.95 is 0.012
    assert abs(covered - 0.95) < 0.012, covered


def test_naive_rate_interval_has_no_coverage():
    """Power: treating accepted/drafted as alpha gives an 'interval' that almost never covers alpha."""
    alpha, k = 0.8, 4
    counts = sm.simulate_accepted_counts(np.full(500, alpha), k, 200, np.random.default_rng(52))
    drafted = k * counts.shape[1]
    low, high = sm.wilson_interval(counts.sum(axis=1), drafted)
    assert np.mean((low <= alpha) & (alpha <= high)) < 0.05


def test_per_position_estimate_by_hand_and_pooled():
    """Per-position rates on a hand log; their reached-weighted pool equals estimate_alpha."""
    counts = [0, 1, 2, 2, 2, 1, 0, 2]
    est = sm.estimate_alpha_per_position(counts, 2)
    # position 1: reached by all 8, passed by the 6 with >= 1; position 2: 6 reached, 4 (the 2s) passed
    assert_allclose(est.alphas, [6 / 8, 4 / 6])
    assert_array_equal(est.reached, [8, 6])
    assert_array_equal(est.passed, [6, 4])
    pooled = est.passed.sum() / est.reached.sum()
    assert_allclose(pooled, sm.estimate_alpha(counts, 2).alpha)


def test_per_position_estimate_recovers_rates_and_unreached_is_nan():
    """Per-position estimates recover drifting rates; a position nobody reached is NaN."""
    alphas = np.array([0.9, 0.7, 0.5])
    counts = sm.simulate_accepted_counts_per_position(alphas, 200_000, np.random.default_rng(3))
    est = sm.estimate_alpha_per_position(counts, 3)
    assert np.all((est.low <= alphas) & (alphas <= est.high))
    assert_allclose(est.alphas, alphas, atol=0.01)
    nan_case = sm.estimate_alpha_per_position([0, 0, 1], 3)
    assert np.isnan(nan_case.alphas[2]) and nan_case.reached[2] == 0


# --------------------------------------------------------------------------
# serving metrics
# --------------------------------------------------------------------------


def test_source_numbers_at_alpha_08():
    """Second source: at alpha = 0.8, k = 1, 2, 4, 8 give 1.8, 2.44, 3.36, 4.33 tokens per round (E[L], bonus counted)."""
    exact = [Fraction(1) + sum(Fraction(4, 5) ** i for i in range(1, k + 1)) for k in (1, 2, 4, 8)]
    assert [float(x) for x in exact] == pytest.approx([1.8, 2.44, 3.3616, 4.32891136], rel=1e-12)
    got = sm.mean_acceptance_length(0.8, np.array([1, 2, 4, 8]))
    assert_allclose(got, [float(x) for x in exact], rtol=1e-13)
    # the source's printed values: 1.8, 2.44, 3.36 (3.3616), 4.33 (4.3289)
    assert_allclose(np.round(got, 2), [1.8, 2.44, 3.36, 4.33])


def test_draft_acceptance_rate_by_hand():
    """accepted/drafted = (alpha + ... + alpha**k) / k with Fractions; below alpha for k > 1."""
    for alpha, k in [(Fraction(4, 5), 4), (Fraction(1, 2), 3), (Fraction(9, 10), 1)]:
        exact = sum(alpha**i for i in range(1, k + 1)) / k
        assert_allclose(sm.draft_acceptance_rate(float(alpha), k), float(exact), rtol=1e-14)
    assert sm.draft_acceptance_rate(0.8, 4) < 0.8
    assert sm.draft_acceptance_rate(0.8, 1) == pytest.approx(0.8)
    assert sm.draft_acceptance_rate(1.0, 7) == 1.0 and sm.draft_acceptance_rate(0.0, 7) == 0.0


def test_mean_acceptance_length_conventions():
    """With the bonus it is E[L]; without, E[L] - 1 (mean accepted drafts)."""
    assert_allclose(sm.mean_acceptance_length(0.7, 5), sd.expected_tokens(0.7, 5))
    assert_allclose(sm.mean_acceptance_length(0.7, 5, include_bonus=False), sd.expected_tokens(0.7, 5) - 1)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 32])
def test_inverses_round_trip(k):
    """alpha -> metric -> alpha recovers alpha to 1e-12 on a grid including 0, 1 and 1 - 1e-9."""
    alpha = np.concatenate([np.linspace(0, 1, 2001), [1 - 1e-9, 1e-9]])
    assert_allclose(sm.alpha_from_draft_acceptance_rate(sm.draft_acceptance_rate(alpha, k), k), alpha, atol=1e-12)
    for bonus in (True, False):
        length = sm.mean_acceptance_length(alpha, k, include_bonus=bonus)
        assert_allclose(sm.alpha_from_mean_acceptance_length(length, k, include_bonus=bonus), alpha, atol=1e-12)


def test_inverse_worked_example_and_simulated_log():
    """An engine printing accepted/drafted 0.5904 at k = 4 means alpha = 0.8, and a simulated log agrees."""
    assert sm.alpha_from_draft_acceptance_rate(0.5904, 4) == pytest.approx(0.8, abs=1e-12)
    assert sm.alpha_from_mean_acceptance_length(3.3616, 4) == pytest.approx(0.8, abs=1e-12)
    counts = sm.simulate_accepted_counts(0.8, 4, 200_000, np.random.default_rng(7))
    rate = counts.sum() / (4 * counts.size)
    via_rate = sm.alpha_from_draft_acceptance_rate(rate, 4)
    assert abs(via_rate - 0.8) < 0.005
    assert abs(via_rate - sm.estimate_alpha(counts, 4).alpha) < 0.005


def test_scalar_and_array_outputs():
    """Scalar calls return Python floats; arrays broadcast."""
    assert isinstance(sm.draft_acceptance_rate(0.8, 4), float)
    assert isinstance(sm.alpha_from_draft_acceptance_rate(0.5, 4), float)
    assert sm.alpha_from_mean_acceptance_length([2.0, 3.0], [4, 4]).shape == (2,)


# --------------------------------------------------------------------------
# temperature
# --------------------------------------------------------------------------


def test_softmax_by_hand():
    """softmax([2, 0] / t) = (e^(2/t), 1) / (e^(2/t) + 1); shift invariant; huge logits stable."""
    for t in (0.5, 1.0, 2.0):
        e = math.exp(2 / t)
        assert_allclose(sm.softmax_with_temperature([2.0, 0.0], t), [e / (e + 1), 1 / (e + 1)], rtol=1e-14)
    assert_allclose(sm.softmax_with_temperature([1000.0, 998.0], 1.0), sm.softmax_with_temperature([2.0, 0.0], 1.0))
    out = sm.softmax_with_temperature([1.0, 2.0, 3.0], np.array([0.5, 1.0, 4.0]))
    assert out.shape == (3, 3)
    assert_allclose(out.sum(axis=1), 1.0)


def test_acceptance_vs_temperature_matches_direct():
    """acceptance_vs_temperature equals mean over contexts of sum(min(p_t, q_t)) computed directly."""
    zt, zd = sm.synthetic_logit_pair("flat", vocab=40, n_contexts=6, rng=1)
    temps = np.array([0.3, 1.0, 1.7])
    got = sm.acceptance_vs_temperature(zt, zd, temps)
    for i, t in enumerate(temps):
        direct = np.mean([sd.acceptance_rate(sm.softmax_with_temperature(zt[c], t),
                                             sm.softmax_with_temperature(zd[c], t)) for c in range(6)])
        assert_allclose(got[i], direct, rtol=1e-12)
    assert isinstance(sm.acceptance_vs_temperature(zt, zd, 1.0), float)


def test_workload_shapes_behave_as_described():
    """Peaked accepts more than flat at every temperature; a noiseless draft accepts always;
    the peaked workload's acceptance falls from t = 0.2 to t = 1."""
    temps = np.array([0.2, 0.5, 1.0, 1.5])
    zp, dp = sm.synthetic_logit_pair("peaked")
    zf, df = sm.synthetic_logit_pair("flat")
    peaked = sm.acceptance_vs_temperature(zp, dp, temps)
    flat = sm.acceptance_vs_temperature(zf, df, temps)
    assert (peaked > flat).all()
    assert peaked[0] > peaked[2]
    z0, d0 = sm.synthetic_logit_pair("flat", noise=0.0)
    assert_allclose(sm.acceptance_vs_temperature(z0, d0, temps), 1.0)


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_bad_distributions():
    """Not summing to 1, negative entries, shape mismatch, NaN: ValueError naming p or q."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="p must be a probability distribution summing to 1"):
        sm.speculative_step([0.5, 0.6], [0.5, 0.5], 10, rng)
    with pytest.raises(ValueError, match="q must be a probability distribution"):
        sm.speculative_step([0.5, 0.5], [1.5, -0.5], 10, rng)
    with pytest.raises(ValueError, match="same vocabulary"):
        sm.speculative_step([0.5, 0.5], [0.2, 0.3, 0.5], 10, rng)
    with pytest.raises(ValueError, match="1-D"):
        sm.speculative_step([[0.5, 0.5]], [0.5, 0.5], 10, rng)
    with pytest.raises(ValueError, match="p must be"):
        sm.speculative_step([np.nan, 1.0], [0.5, 0.5], 10, rng)
    with pytest.raises(TypeError, match="p must be"):
        sm.speculative_step("ab", [0.5, 0.5], 10, rng)


def test_bad_sizes_and_rng():
    """size < 1, non-integer size, missing or unseeded rng are refused."""
    with pytest.raises(ValueError, match="size"):
        sm.speculative_step([0.5, 0.5], [0.5, 0.5], 0, 0)
    with pytest.raises(ValueError, match="size"):
        sm.speculative_step([0.5, 0.5], [0.5, 0.5], 2.5, 0)
    with pytest.raises(TypeError, match="rng"):
        sm.speculative_step([0.5, 0.5], [0.5, 0.5], 10, None)
    with pytest.raises(ValueError, match="flaw"):
        sm.flawed_speculative_step([0.5, 0.5], [0.5, 0.5], 10, 0, flaw="typo")


def test_bad_round_arguments():
    """k < 1, wrong number of per-position rows, non-square bigram tables, bad context."""
    p = [0.5, 0.5]
    with pytest.raises(ValueError, match="k must be"):
        sm.simulate_rounds(p, p, 0, 10, 0)
    with pytest.raises(ValueError, match=r"\(k \+ 1, V\)"):
        sm.simulate_rounds(np.full((3, 2), 0.5), p, 3, 10, 0)
    with pytest.raises(ValueError, match=r"\(k, V\)"):
        sm.simulate_rounds(p, np.full((2, 2), 0.5), 3, 10, 0)
    with pytest.raises(ValueError, match="square"):
        sm.simulate_bigram_rounds(np.full((2, 3), 1 / 3), np.full((2, 3), 1 / 3), 2, 10, 0)
    t, d = sm.synthetic_bigram_pair(4, 0)
    with pytest.raises(ValueError, match="context"):
        sm.simulate_bigram_rounds(t, d, 2, 10, 0, context=7)
    with pytest.raises(ValueError, match="context"):
        sm.simulate_bigram_rounds(t, d, 2, 10, 0, context=[1, 2])
    with pytest.raises(ValueError, match="vocab"):
        sm.synthetic_bigram_pair(1, 0)


def test_bad_counts_and_alpha():
    """Counts outside 0..k, fractional counts, empty logs, alpha outside [0, 1], k < 1."""
    with pytest.raises(ValueError, match=r"0\.\.k = 0\.\.4"):
        sm.estimate_alpha([1, 5], 4)
    with pytest.raises(ValueError, match=r"0\.\.k"):
        sm.estimate_alpha([-1, 2], 4)
    with pytest.raises(ValueError, match="whole numbers"):
        sm.estimate_alpha([1.5, 2], 4)
    with pytest.raises(ValueError, match="non-empty"):
        sm.estimate_alpha([], 4)
    with pytest.raises(ValueError, match="k must be"):
        sm.estimate_alpha([0, 1], 0)
    with pytest.raises(ValueError, match="confidence"):
        sm.estimate_alpha([0, 1], 2, confidence=1.0)
    with pytest.raises(ValueError, match=r"0\.\.k"):
        sm.estimate_alpha_per_position([3], 2)
    with pytest.raises(ValueError, match="alpha must be in"):
        sm.simulate_accepted_counts(1.2, 4, 10, 0)
    with pytest.raises(ValueError, match="n_rounds"):
        sm.simulate_accepted_counts(0.5, 4, 0, 0)
    with pytest.raises(ValueError, match="alphas"):
        sm.simulate_accepted_counts_per_position([], 10, 0)


def test_bad_metric_inputs():
    """Rates outside [0, 1], lengths outside [1, k + 1] (or [0, k]), non-bool include_bonus."""
    with pytest.raises(ValueError, match="rate must be in"):
        sm.alpha_from_draft_acceptance_rate(1.1, 4)
    with pytest.raises(ValueError, match=r"length must be in \[1, k \+ 1\]"):
        sm.alpha_from_mean_acceptance_length(5.5, 4)
    with pytest.raises(ValueError, match=r"length must be in \[1, k \+ 1\]"):
        sm.alpha_from_mean_acceptance_length(0.5, 4)
    with pytest.raises(ValueError, match=r"length must be in \[0, k\]"):
        sm.alpha_from_mean_acceptance_length(4.5, 4, include_bonus=False)
    with pytest.raises(TypeError, match="include_bonus"):
        sm.mean_acceptance_length(0.8, 4, include_bonus="yes")
    with pytest.raises(ValueError, match="k must be"):
        sm.draft_acceptance_rate(0.8, 0)


def test_bad_temperature_inputs():
    """t <= 0, non-finite logits, mismatched logit shapes, unknown workload kind."""
    with pytest.raises(ValueError, match="t must be a finite number > 0"):
        sm.softmax_with_temperature([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="logits must be finite"):
        sm.softmax_with_temperature([1.0, np.inf], 1.0)
    with pytest.raises(ValueError, match="same shape"):
        sm.acceptance_vs_temperature(np.zeros((2, 3)), np.zeros((2, 4)), 1.0)
    with pytest.raises(ValueError, match="kind"):
        sm.synthetic_logit_pair("poetry")
    with pytest.raises(ValueError, match="noise"):
        sm.synthetic_logit_pair("flat", noise=-1.0)


# --------------------------------------------------------------------------
# helpers used by the chapters, figures and explorers
# --------------------------------------------------------------------------


def test_running_frequencies_and_total_variation_by_hand():
    """Running frequencies of a hand sequence; TV of hand distributions; 1 - TV = sum(min)."""
    freqs = sm.running_frequencies([2, 0, 2, 1], 3, [1, 2, 4])
    assert_allclose(freqs, [[0, 0, 1], [0.5, 0, 0.5], [0.25, 0.25, 0.5]])
    assert sm.total_variation([0.5, 0.5], [0.9, 0.1]) == pytest.approx(0.4)
    p, q = PAIRS["random"]
    assert_allclose(1 - sm.total_variation(p, q), sd.acceptance_rate(p, q), atol=1e-15)
    with pytest.raises(ValueError, match="sizes"):
        sm.running_frequencies([0, 1], 2, [3])
    with pytest.raises(ValueError, match="tokens"):
        sm.running_frequencies([0, 5], 2, [1])


def test_convergence_to_target_matches_schemes():
    """At 200k tokens the exact scheme is within noise of p; the two flawed ones sit at their analytic distance."""
    p, q = sm.EXAMPLE_TARGET, sm.EXAMPLE_DRAFT
    out = sm.convergence_to_target(p, q, [1000, 200_000], 0)
    assert out["speculative"].shape == (2, 8)
    assert sm.total_variation(out["speculative"][-1], p) < 0.01
    for name, correction in (("correction from target", "target"), ("draft only", "none")):
        exact = sm.total_variation(sm.emitted_token_distribution(p, q, correction), p)
        assert abs(sm.total_variation(out[name][-1], p) - exact) < 0.01


def test_temper_and_interpolate():
    """Tempering keeps zeros and equals softmax(log p / t); interpolation is linear in the mismatch."""
    p = np.array([0.2, 0.8, 0.0])
    t = sm.temper_distribution(p, 0.5)
    assert t[2] == 0.0
    assert_allclose(t[:2], sm.softmax_with_temperature(np.log(p[:2]), 0.5))
    assert_allclose(sm.temper_distribution(p, 1.0), p)
    assert_allclose(sm.interpolate_draft(sm.EXAMPLE_TARGET, sm.EXAMPLE_DRAFT, 0.0), sm.EXAMPLE_TARGET)
    assert_allclose(sm.interpolate_draft(sm.EXAMPLE_TARGET, sm.EXAMPLE_DRAFT, 1.0), sm.EXAMPLE_DRAFT)
    assert sd.acceptance_rate(sm.EXAMPLE_TARGET, sm.EXAMPLE_DRAFT) == pytest.approx(0.77)


def test_figures_build():
    """Every figure of the two chapters builds and returns a Figure with the expected number of axes."""
    import matplotlib.figure

    counts = sm.simulate_accepted_counts(0.8, 4, 300, np.random.default_rng(7))
    figs = {
        "residual": (sd.plots.sampling_residual(), 2),
        "exactness": (sd.plots.sampling_exactness(sizes=[100, 1000]), 2),
        "waste": (sd.plots.sampling_wasted_arithmetic(), 1),
        "tokens": (sd.plots.sampling_tokens_per_round(), 2),
        "temperature": (sd.plots.sampling_temperature(temperatures=[0.5, 1.0]), 1),
        "log": (sd.plots.sampling_alpha_from_log(counts, 4, 0.8), 2),
    }
    for name, (fig, n_axes) in figs.items():
        assert isinstance(fig, matplotlib.figure.Figure), name
        assert len(fig.axes) == n_axes, name


def test_explorers_defaults_match_static_results():
    """Explorer defaults reproduce the chapters' static numbers; a slider move recomputes."""
    w = sd.widgets.sampling_residual_explorer()
    assert w.values["alpha"] == pytest.approx(sd.acceptance_rate(sm.EXAMPLE_TARGET, sm.EXAMPLE_DRAFT))
    w.mismatch.value = 0.0
    assert w.values["alpha"] == pytest.approx(1.0)
    t = sd.widgets.sampling_temperature_explorer()
    zt, zd = sm.synthetic_logit_pair("flat", 200, 32, noise=1.0, sharpness=1.0, rng=0)
    assert_allclose(t.values["flat"], sm.acceptance_vs_temperature(zt, zd, [0.2, 1.0, 2.0]), rtol=1e-12)
    log = sd.widgets.sampling_log_explorer()
    counts = sm.simulate_accepted_counts(0.8, 4, 300, np.random.default_rng(7))
    assert log.values["estimate"].alpha == pytest.approx(sm.estimate_alpha(counts, 4).alpha)
    assert log.values["alpha_from_rate"] == pytest.approx(log.values["alpha_from_length"])

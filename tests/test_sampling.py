"""Tests for specdec.verification.sampling: exactness of speculative sampling and its simulation.

Statistical tests are seeded (deterministic), and each states the
significance level it was designed with: with a fresh seed a correct
implementation would fail a chi-square test at level 1e-3 about once in a
thousand runs. Every statistical test is paired with a deliberately wrong
variant that must be *rejected* by the same test, so the test has power.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from chi2_reference import chi2_pvalue, chi2_sf
from numpy.testing import assert_allclose, assert_array_equal

import specdec as sd
from specdec import sampling as sm

SIGNIFICANCE = 1e-3  # per chi-square test


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
    target, draft = sd.synthetic.synthetic_bigram_pair(6, 3, peak=1.5, noise=0.8)
    k, n = 4, 200_000
    sim = sm.simulate_bigram_rounds(target, draft, k, n, np.random.default_rng(1), context=2)
    expected = _bigram_expected_tokens(target, draft, k, 2)
    assert abs(sim.mean_tokens - expected) < 5 * (k / 2) / math.sqrt(n)
    assert_array_equal(sim.bonus, sim.n_accepted == k)


def test_bigram_generation_follows_target_chain():
    """Text generated by speculative rounds has the target's transition law (chi-square per row, level 1e-3)."""
    target, draft = sd.synthetic.synthetic_bigram_pair(5, 4, peak=1.5, noise=1.0)
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
    t, d = sd.synthetic.synthetic_bigram_pair(4, 0)
    with pytest.raises(ValueError, match="context"):
        sm.simulate_bigram_rounds(t, d, 2, 10, 0, context=7)
    with pytest.raises(ValueError, match="context"):
        sm.simulate_bigram_rounds(t, d, 2, 10, 0, context=[1, 2])
    with pytest.raises(ValueError, match="vocab"):
        sd.synthetic.synthetic_bigram_pair(1, 0)


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
    p, q = sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT
    out = sm.convergence_to_target(p, q, [1000, 200_000], 0)
    assert out["speculative"].shape == (2, 8)
    assert sm.total_variation(out["speculative"][-1], p) < 0.01
    for name, correction in (("correction from target", "target"), ("draft only", "none")):
        exact = sm.total_variation(sm.emitted_token_distribution(p, q, correction), p)
        assert abs(sm.total_variation(out[name][-1], p) - exact) < 0.01


def test_figures_build():
    """Every figure of the two chapters builds and returns a Figure with the expected number of axes."""
    import matplotlib.figure

    counts = sd.estimation.simulate_accepted_counts(0.8, 4, 300, np.random.default_rng(7))
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
    assert w.values["alpha"] == pytest.approx(sd.acceptance_rate(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT))
    w.mismatch.value = 0.0
    assert w.values["alpha"] == pytest.approx(1.0)
    t = sd.widgets.sampling_temperature_explorer()
    zt, zd = sd.synthetic.synthetic_logit_pair("flat", 200, 32, noise=1.0, sharpness=1.0, rng=0)
    assert_allclose(t.values["flat"], sd.synthetic.acceptance_vs_temperature(zt, zd, [0.2, 1.0, 2.0]), rtol=1e-12)
    log = sd.widgets.sampling_log_explorer()
    counts = sd.estimation.simulate_accepted_counts(0.8, 4, 300, np.random.default_rng(7))
    assert log.values["estimate"].alpha == pytest.approx(sd.estimation.estimate_alpha(counts, 4).alpha)
    assert log.values["alpha_from_rate"] == pytest.approx(log.values["alpha_from_length"])


def test_transition_frequencies_by_hand_and_validation():
    """Counts written out for two short sequences, the start token counted as predecessor; bad input refused."""
    out = sd.sampling.transition_frequencies([[1, 1, 0], [0, 1, 1]], vocab=3, start=0)
    # predecessors -> next: (0,1) (1,1) (1,0) | (0,0) (0,1) (1,1): row 0 = {0: 1, 1: 2}, row 1 = {0: 1, 1: 2}
    np.testing.assert_allclose(out[:2], [[1 / 3, 2 / 3, 0.0], [1 / 3, 2 / 3, 0.0]], rtol=1e-15)
    assert np.isnan(out[2]).all()                       # token 2 never precedes anything
    with pytest.raises(ValueError, match="token ids"):
        sd.sampling.transition_frequencies([[0, 3]], vocab=3)
    with pytest.raises(ValueError, match="2-D"):
        sd.sampling.transition_frequencies([0, 1], vocab=3)
    with pytest.raises(ValueError, match="start"):
        sd.sampling.transition_frequencies([[0, 1]], vocab=2, start=5)


def test_transition_frequencies_of_generated_text_follow_the_target():
    """Speculative text on a bigram pair: frequencies within a few standard errors of the target's table."""
    table_p, table_q = sd.synthetic.synthetic_bigram_pair(5, rng=11, peak=1.5, noise=1.0)
    seqs, _ = sd.sampling.generate_bigram(table_p, table_q, 3, 200, 500, np.random.default_rng(21))
    freq = sd.sampling.transition_frequencies(seqs, 5)
    assert np.nanmax(np.abs(freq - table_p)) < 0.02 < np.nanmax(np.abs(freq - table_q))

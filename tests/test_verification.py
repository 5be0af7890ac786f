"""Tests for specdec.verification: the acceptance rules, their exactness, and the lossy typical rule.

Statistical tests are seeded and designed at significance 1e-3 per
chi-square test (a correct implementation fails one with probability about
1e-3 under a fresh seed). The exact rules must pass against ``p``; the
typical rule must *fail* against ``p`` and pass against its own exact
output distribution, so the test has power and the simulation is right.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from chi2_reference import chi2_pvalue, chi2_sf
from numpy.testing import assert_allclose

import specdec as sd
import specdec.verification as vf

SIGNIFICANCE = 1e-3


def test_chi2_reference_quantiles():
    """The hand-written tail matches textbook chi-square quantiles."""
    assert_allclose(chi2_sf(3.841459, 1), 0.05, rtol=1e-5)
    assert_allclose(chi2_sf(16.918978, 9), 0.05, rtol=1e-5)
    assert_allclose(chi2_sf(27.877165, 9), 0.001, rtol=1e-4)


# --------------------------------------------------------------------------
# pairs
# --------------------------------------------------------------------------

RNG = np.random.default_rng(20260701)
P1 = RNG.dirichlet(np.ones(8))
Q1 = RNG.dirichlet(np.ones(8))
P_PEAKED = np.array([0.61, 0.2, 0.08, 0.05, 0.03, 0.015, 0.01, 0.005])
Q_FLAT = np.full(8, 1 / 8)


# --------------------------------------------------------------------------
# acceptance probabilities against hand formulas
# --------------------------------------------------------------------------


def _loop_typical(p, q, eps, delta, off):
    h = -sum(pi * math.log(pi + off) for pi in p if pi > 0)
    thr = min(eps, delta * math.exp(-h))
    return sum(qi for pi, qi in zip(p, q, strict=True) if pi > thr), thr


@pytest.mark.parametrize("p, q", [(P1, Q1), (P_PEAKED, Q_FLAT), (Q1, P1)])
def test_acceptance_probabilities_match_loops(p, q):
    """Each rule's acceptance probability equals a plain Python loop over the vocabulary."""
    assert_allclose(vf.acceptance_probability(p, q, "rejection"), sum(min(a, b) for a, b in zip(p, q, strict=True)), rtol=1e-13)
    assert_allclose(vf.acceptance_probability(p, q, "greedy"), q[int(np.argmax(p))], rtol=1e-13)
    assert_allclose(vf.acceptance_probability(p, q, "sampled-match"), sum(a * b for a, b in zip(p, q, strict=True)), rtol=1e-13)
    ref, _ = _loop_typical(p, q, 0.09, 0.3, 1e-5)
    assert_allclose(vf.acceptance_probability(p, q, "typical"), ref, rtol=1e-13)
    ref0, _ = _loop_typical(p, q, 0.2, 0.5, 0.0)
    assert_allclose(vf.acceptance_probability(p, q, "typical", epsilon=0.2, delta=0.5, log_offset=0.0), ref0,
                    rtol=1e-13)


def test_sampled_match_never_beats_rejection():
    """p q <= min(p, q) entrywise, so token matching against a sampled target accepts less often."""
    ps = RNG.dirichlet(np.ones(20), size=500)
    qs = RNG.dirichlet(np.ones(20), size=500)
    sm = vf.acceptance_probability(ps, qs, "sampled-match")
    rj = vf.acceptance_probability(ps, qs, "rejection")
    assert sm.shape == (500,)
    assert (sm <= rj + 1e-15).all()


def test_one_hot_rule_is_p_of_the_token():
    """A deterministic proposal t is accepted with probability p(t); 'rejection' with one-hot q agrees."""
    for t in range(P1.size):
        q = np.zeros(P1.size)
        q[t] = 1.0
        assert_allclose(vf.acceptance_probability(P1, q, "one-hot"), P1[t], rtol=1e-14)
        assert_allclose(vf.acceptance_probability(P1, q, "rejection"), P1[t], rtol=1e-14)


def test_one_hot_residual_is_p_without_the_token():
    """norm(max(p - onehot(t), 0)) equals p with t removed and renormalized, for every t."""
    for t in range(P1.size):
        expected = P1.copy()
        expected[t] = 0.0
        expected /= 1.0 - P1[t]
        assert_allclose(vf.one_hot_residual(P1, t), expected, rtol=1e-13, atol=1e-16)
        onehot = np.eye(P1.size)[t]
        assert_allclose(sd.sampling.residual_distribution(P1, onehot), expected, rtol=1e-13, atol=1e-16)
    sure = np.array([0.0, 1.0, 0.0])
    assert vf.one_hot_residual(sure, 1).tolist() == [0.0, 1.0, 0.0]


def test_typical_threshold_regimes():
    """min(epsilon, delta e^{-H}): confident targets hit epsilon, uncertain ones the entropy term."""
    assert vf.typical_threshold([0.99, 0.01], 0.09, 0.3, 0.0) == pytest.approx(0.09, rel=1e-15)
    uniform = np.full(100, 0.01)
    assert vf.typical_threshold(uniform, 0.09, 0.3, 0.0) == pytest.approx(0.3 / 100, rel=1e-12)
    assert vf.entropy(uniform) == pytest.approx(math.log(100), rel=1e-14)
    assert vf.entropy([1.0, 0.0]) == 0.0
    with_offset = -sum(0.01 * math.log(0.01 + 1e-5) for _ in range(100))
    assert vf.entropy(uniform, 1e-5) == pytest.approx(with_offset, rel=1e-13)


# --------------------------------------------------------------------------
# emitted distributions
# --------------------------------------------------------------------------


def test_exact_rules_emit_p_and_typical_does_not():
    """Rejection, one-hot and sampled-match emit p; greedy emits argmax p; typical emits something else."""
    assert_allclose(vf.emitted_distribution(P1, Q1, "rejection"), P1, rtol=1e-15)
    assert_allclose(vf.emitted_distribution(P1, Q1, "sampled-match"), P1, rtol=1e-15)
    onehot = np.eye(8)[3]
    assert_allclose(vf.emitted_distribution(P1, onehot, "one-hot"), P1, rtol=1e-15)
    greedy = vf.emitted_distribution(P1, Q1, "greedy")
    assert greedy[int(np.argmax(P1))] == 1.0 and greedy.sum() == 1.0
    typ = vf.emitted_distribution(P_PEAKED, Q_FLAT, "typical")
    assert typ.sum() == pytest.approx(1.0, abs=1e-14)
    assert sd.sampling.total_variation(typ, P_PEAKED) > 0.05


def test_typical_emitted_distribution_hand_formula():
    """q(x)[p(x) > tau] + (1 - Q_tau) c(x), for the three corrections, by a loop."""
    _, thr = _loop_typical(P_PEAKED, Q_FLAT, 0.09, 0.3, 1e-5)
    passed = np.array([q if p > thr else 0.0 for p, q in zip(P_PEAKED, Q_FLAT, strict=True)])
    rest = 1.0 - passed.sum()
    top = np.eye(8)[0]
    allowed = np.array([p if p >= thr else 0.0 for p in P_PEAKED])
    for corr, c in (("target", P_PEAKED), ("argmax", top), ("typical", allowed / allowed.sum())):
        assert_allclose(vf.emitted_distribution(P_PEAKED, Q_FLAT, "typical", correction=corr), passed + rest * c,
                        rtol=1e-13, atol=1e-16)


# --------------------------------------------------------------------------
# simulation: exact rules pass, typical is detected
# --------------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["rejection", "sampled-match"])
@pytest.mark.parametrize("pair", [(P1, Q1), (P_PEAKED, Q_FLAT)])
def test_exact_rules_pass_chi_square(rule, pair):
    """200k simulated positions follow p (chi-square, level 1e-3)."""
    p, q = pair
    tokens, accepted = vf.verify_step(p, q, 200_000, np.random.default_rng(11), rule)
    assert chi2_pvalue(tokens, p) > SIGNIFICANCE
    rate = vf.acceptance_probability(p, q, rule)
    assert abs(accepted.mean() - rate) < 5 * math.sqrt(rate * (1 - rate) / tokens.size)


def test_one_hot_rule_passes_chi_square():
    """A deterministic proposal with the one-hot residual is exact (chi-square, level 1e-3)."""
    q = np.eye(8)[2]
    tokens, accepted = vf.verify_step(P1, q, 200_000, np.random.default_rng(12), "one-hot")
    assert chi2_pvalue(tokens, P1) > SIGNIFICANCE
    assert abs(accepted.mean() - P1[2]) < 5 * math.sqrt(P1[2] * (1 - P1[2]) / tokens.size)
    # rejected positions never emit the proposed token
    assert not ((tokens == 2) & ~accepted).any()


def test_greedy_rule_always_emits_argmax():
    """Greedy matching outputs the target's greedy token, whatever was drafted."""
    tokens, accepted = vf.verify_step(P1, Q1, 50_000, np.random.default_rng(13), "greedy")
    top = int(np.argmax(P1))
    assert (tokens == top).all()
    assert abs(accepted.mean() - Q1[top]) < 5 * math.sqrt(Q1[top] * (1 - Q1[top]) / tokens.size)


@pytest.mark.parametrize("correction", ["target", "argmax", "typical"])
def test_typical_acceptance_is_lossy_and_detected(correction):
    """Typical acceptance fails the chi-square test against p (p-value < 1e-3) yet passes against its
    exact law, so the test has power and the simulation is right."""
    tokens, _ = vf.verify_step(P_PEAKED, Q_FLAT, 200_000, np.random.default_rng(14), "typical",
                               correction=correction)
    assert chi2_pvalue(tokens, P_PEAKED) < SIGNIFICANCE
    law = vf.emitted_distribution(P_PEAKED, Q_FLAT, "typical", correction=correction)
    assert chi2_pvalue(tokens, law) > SIGNIFICANCE


def test_typical_acceptance_rate_matches_formula():
    """The simulated acceptance frequency matches acceptance_probability (5 sigma)."""
    _, accepted = vf.verify_step(P1, Q1, 100_000, np.random.default_rng(15), "typical")
    rate = vf.acceptance_probability(P1, Q1, "typical")
    assert abs(accepted.mean() - rate) < 5 * math.sqrt(max(rate * (1 - rate), 1e-12) / accepted.size) + 1e-12


def test_simulation_is_seeded():
    """Same seed, same tokens."""
    a = vf.verify_step(P1, Q1, 1000, 5, "typical")[0]
    b = vf.verify_step(P1, Q1, 1000, 5, "typical")[0]
    assert (a == b).all()


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_bad_input_messages():
    with pytest.raises(ValueError, match="rule must be one of"):
        vf.acceptance_probability(P1, Q1, "lenient")
    with pytest.raises(ValueError, match="one-hot"):
        vf.acceptance_probability(P1, Q1, "one-hot")
    with pytest.raises(ValueError, match="one-hot"):
        vf.verify_step(P1, Q1, 10, 0, "one-hot")
    with pytest.raises(ValueError, match="same vocabulary"):
        vf.acceptance_probability(P1, [0.5, 0.5])
    with pytest.raises(ValueError, match="p must be a probability distribution"):
        vf.verify_step([0.5, 0.6], [0.5, 0.5], 10, 0)
    with pytest.raises(ValueError, match="correction must be"):
        vf.emitted_distribution(P1, Q1, "typical", correction="none")
    with pytest.raises(ValueError, match="size must be a whole number >= 1; got 0"):
        vf.verify_step(P1, Q1, 0, 0)
    with pytest.raises(TypeError, match="rng"):
        vf.verify_step(P1, Q1, 10, None)
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, 1\]; got "):
        vf.typical_threshold(P1, epsilon=1.5)
    with pytest.raises(ValueError, match="token must be a whole number in"):
        vf.one_hot_residual(P1, 8)
    with pytest.raises(TypeError, match="epsilon, delta and log_offset must be single numbers"):
        vf.typical_threshold(P1, epsilon=[0.1, 0.2])
    with pytest.raises(ValueError, match="1-D"):
        vf.verify_step(np.tile(P1, (2, 1)), Q1, 10, 0)


# --------------------------------------------------------------------------
# chi_square_test and mean_acceptance (the chapter's tools)
# --------------------------------------------------------------------------

@pytest.mark.parametrize("counts", [[510, 490], [5, 5, 5, 5, 80], [1000, 1200, 900, 950, 1010, 1040, 990, 905, 1005,
                                                                      1000], [3, 0, 9], [2500, 2400, 2600, 2500]])
def test_chi_square_test_matches_hand_statistic_and_independent_tail(counts):
    """Statistic by hand; p-value against this file's own series for the chi-square tail."""
    counts = np.array(counts)
    tokens = np.repeat(np.arange(counts.size), counts)
    p = np.full(counts.size, 1.0 / counts.size)
    r = sd.verification.chi_square_test(tokens, p)
    expected = tokens.size * p
    stat = float(((counts - expected) ** 2 / expected).sum())
    assert_allclose(r["statistic"], stat, rtol=1e-12)
    assert r["dof"] == counts.size - 1
    # (the reference series computes 1 - P by subtraction: accurate to about 1e-15 absolute in the far tail)
    assert_allclose(r["p_value"], chi2_sf(stat, counts.size - 1), rtol=1e-8, atol=1e-13)


def test_chi_square_test_on_samples():
    g = np.random.default_rng(5)
    p = np.array([0.5, 0.3, 0.2])
    good = sd.verification.chi_square_test(g.choice(3, 50_000, p=p), p)
    assert good["dof"] == 2 and good["p_value"] > SIGNIFICANCE
    assert_allclose(good["p_value"], chi2_sf(good["statistic"], 2), rtol=1e-8)
    bad = sd.verification.chi_square_test(g.choice(3, 50_000, p=[0.45, 0.35, 0.2]), p)
    assert bad["p_value"] < 1e-12
    impossible = sd.verification.chi_square_test(np.array([0, 1, 2]), [0.5, 0.5, 0.0])
    assert impossible["p_value"] == 0.0
    with pytest.raises(ValueError, match="tokens"):
        sd.verification.chi_square_test(np.array([0, 3]), p)


def test_mean_acceptance_by_hand():
    """Two contexts, two tokens: the rules' mean acceptance written out."""
    tl = np.log(np.array([[0.8, 0.2], [0.4, 0.6]]))
    dl = np.log(np.array([[0.5, 0.5], [0.9, 0.1]]))
    p, q = np.exp(tl), np.exp(dl)
    assert_allclose(sd.verification.mean_acceptance(tl, dl, 1.0, "rejection"), np.minimum(p, q).sum(axis=1).mean(),
                    rtol=1e-12)
    greedy_token = np.argmax(dl, axis=1)   # context 0: a tie, argmax takes token 0
    assert_allclose(sd.verification.mean_acceptance(tl, dl, 1.0, "one-hot"),
                    p[np.arange(2), greedy_token].mean(), rtol=1e-12)
    pt = p ** 2 / (p ** 2).sum(axis=1, keepdims=True)     # temperature 0.5
    qt = q ** 2 / (q ** 2).sum(axis=1, keepdims=True)
    assert_allclose(sd.verification.mean_acceptance(tl, dl, 0.5, "rejection"), np.minimum(pt, qt).sum(axis=1).mean(),
                    rtol=1e-12)
    both = sd.verification.mean_acceptance(tl, dl, [0.5, 1.0], "sampled-match")
    assert both.shape == (2,)
    with pytest.raises(ValueError, match="rule"):
        sd.verification.mean_acceptance(tl, dl, 1.0, "greedy")


# --------------------------------------------------------------------------
# block verification (Sun et al., arXiv 2403.10444)
# --------------------------------------------------------------------------

import itertools  # noqa: E402
from fractions import Fraction  # noqa: E402

import specdec.verification.block_verify as bv  # noqa: E402


def _random_model(vocab, depth, seed, concentration=0.7):
    """A next-token model that depends on the whole prefix: one seeded Dirichlet row per prefix."""
    g = np.random.default_rng(seed)
    table = {pre: g.dirichlet(np.full(vocab, concentration))
             for n in range(depth + 1) for pre in itertools.product(range(vocab), repeat=n)}
    return lambda prefix: table[tuple(prefix)]


def _starts_with(law, target, seq):
    """P(the output starts with seq) when every round is followed by exact sampling from the target."""
    total = 0.0
    for emitted, prob in law.items():
        n = len(emitted)
        if n >= len(seq) and emitted[:len(seq)] == seq:
            total += prob
        elif n < len(seq) and seq[:n] == emitted:
            total += prob * math.prod(target(seq[:i])[seq[i]] for i in range(n, len(seq)))
    return total


def test_block_paper_example_exact():
    """The paper's binary example: 10/9 drafts kept token by token, 11/9 as a block (BLOCK_EXAMPLE)."""
    ex = bv.BLOCK_EXAMPLE.value
    p, q = bv.context_free(ex["p"]), bv.context_free(ex["q"])
    token = bv.expected_accepted(p, q, 2, ex["k"], "token")
    block = bv.expected_accepted(p, q, 2, ex["k"], "block")
    # token-wise by hand: each position accepted w.p. sum min(p, q) = 2/3, so 2/3 + 4/9 = 10/9
    assert token == pytest.approx(float(Fraction(2, 3) + Fraction(4, 9)), rel=1e-14)
    assert token == pytest.approx(ex["token_accepted"], rel=1e-14)
    assert block == pytest.approx(ex["block_accepted"], rel=1e-14)
    assert block < ex["optimal_with_joint_probabilities"]


@pytest.mark.parametrize("vocab,k,seed", [(3, 3, 11), (4, 2, 12), (2, 4, 13)])
@pytest.mark.parametrize("rule", bv.RULES)
def test_block_and_token_rules_are_exact(vocab, k, seed, rule):
    """Exact enumeration: every output prefix up to k + 1 tokens has the target's chain-rule probability."""
    p, q = _random_model(vocab, k, seed), _random_model(vocab, k, seed + 100)
    law = bv.round_distribution(p, q, vocab, k, rule)
    assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
    for m in range(1, k + 2):
        for seq in itertools.product(range(vocab), repeat=m):
            ref = math.prod(p(seq[:i])[seq[i]] for i in range(m))
            assert _starts_with(law, p, seq) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_block_keeps_at_least_as_many_tokens(seed):
    """E[tau] of block verification >= token-wise on random prefix-dependent models (the paper's theorem)."""
    vocab, k = 3, 3
    p, q = _random_model(vocab, k, 200 + seed, 0.5), _random_model(vocab, k, 300 + seed, 0.5)
    token = bv.expected_accepted(p, q, vocab, k, "token")
    block = bv.expected_accepted(p, q, vocab, k, "block")
    assert block >= token - 1e-12
    assert 0.0 <= token <= k and block <= k


def test_block_equal_models_keep_everything_and_one_draft_matches_token():
    """q = p keeps all k drafts; with k = 1 the two rules are the same rule."""
    p = bv.context_free([0.2, 0.3, 0.5])
    assert bv.expected_accepted(p, p, 3, 3) == pytest.approx(3.0, abs=1e-12)
    pm, qm = _random_model(4, 1, 7), _random_model(4, 1, 8)
    assert bv.expected_accepted(pm, qm, 4, 1, "block") == pytest.approx(
        bv.expected_accepted(pm, qm, 4, 1, "token"), abs=1e-12)


def test_block_verify_monte_carlo_matches_exact_law():
    """Seeded rounds of block_verify / token_verify: chi-square against the exact law, mean kept within 4 sigma."""
    vocab, k, n = 3, 2, 20_000
    p, q = _random_model(vocab, k, 21), _random_model(vocab, k, 22)
    g = np.random.default_rng(2024)
    for rule, step in (("block", bv.block_verify), ("token", bv.token_verify)):
        law = bv.round_distribution(p, q, vocab, k, rule)
        keys = sorted(law)
        index = {key: i for i, key in enumerate(keys)}
        outcomes = np.empty(n, dtype=np.int64)
        kept = np.empty(n)
        # the k draft tokens by inverse-CDF sampling of q (exact; a fifth of the time of Generator.choice),
        # and each draft's rows of p and q looked up, not rebuilt; the step is the public function per round
        cdf = {pre: np.cumsum(q(pre)) for n_ in range(k) for pre in itertools.product(range(vocab), repeat=n_)}
        rows = {x: (np.array([p(x[:i]) for i in range(k + 1)]), np.array([q(x[:i]) for i in range(k)]))
                for x in itertools.product(range(vocab), repeat=k)}
        for r in range(n):
            x = ()
            for _ in range(k):
                x += (min(int(np.searchsorted(cdf[x], g.random(), side="right")), vocab - 1),)
            ps, qs = rows[x]
            tau, y = step(ps, qs, list(x), g)
            outcomes[r] = index[(*x[:tau], y)]
            kept[r] = tau
        probs = np.array([law[key] for key in keys])
        assert chi2_pvalue(outcomes, probs) > SIGNIFICANCE
        mean = sum(pr * (len(key) - 1) for key, pr in law.items())
        var = sum(pr * (len(key) - 1 - mean) ** 2 for key, pr in law.items())
        assert abs(kept.mean() - mean) < 4 * math.sqrt(var / n)


def test_block_weights_by_hand_and_validation():
    """b and h of the paper's example for the draft (a, b), by hand; malformed inputs are refused."""
    p, q = [[1 / 3, 2 / 3]] * 3, [[2 / 3, 1 / 3]] * 2
    b, h = bv.block_weights(p, q, [0, 1])
    # b1 = (1/3)/(2/3) = 1/2; b2 = min(1, 1/2 * (2/3)/(1/3)) = 1
    assert_allclose(b, [1.0, 0.5, 1.0], rtol=1e-15)
    # r1 = sum (b1 p - q)_+ = (1/3 - 1/3)_+ + (1/6 - 2/3)_+ = 0, so h1 = 0; h2 = b2 = 1
    assert_allclose(h, [0.0, 1.0], atol=1e-15)
    with pytest.raises(ValueError, match="shape"):
        bv.block_weights([[0.5, 0.5]] * 2, [[0.5, 0.5]] * 2, [0, 1])
    with pytest.raises(ValueError, match="probability vector"):
        bv.block_weights([[0.5, 0.6]] * 3, [[0.5, 0.5]] * 2, [0, 1])
    with pytest.raises(ValueError, match="q > 0"):
        bv.block_weights([[0.5, 0.5]] * 3, [[1.0, 0.0]] * 2, [0, 1])
    with pytest.raises(ValueError, match="rule must be one of"):
        bv.round_distribution(bv.context_free([0.5, 0.5]), bv.context_free([0.5, 0.5]), 2, 1, "typical")
    with pytest.raises(ValueError, match="vocab \\*\\* k"):
        bv.round_distribution(bv.context_free([0.5, 0.5]), bv.context_free([0.5, 0.5]), 2, 18)

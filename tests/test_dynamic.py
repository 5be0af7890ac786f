"""Tests for specdec.serving.dynamic: the oracle bound, HF's heuristic schedule, and the simulations.

Monte Carlo checks are seeded and use tolerances of several standard
errors (stated per test); the HF schedule is checked against hand-worked
runs and against a literal scalar transcription of the transformers code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import specdec as sd
import specdec.serving.dynamic as dy

# --------------------------------------------------------------------------
# the oracle bound
# --------------------------------------------------------------------------


def test_oracle_expected_tokens_is_the_limit_of_long_chains():
    """1 / (1 - alpha) is E[L] as k grows (k = 5000 agrees to 1e-12 for alpha <= 0.99)."""
    a = np.array([0.0, 0.2, 0.5, 0.8, 0.9, 0.99])
    assert np.allclose(dy.oracle_expected_tokens(a), 1.0 / (1.0 - a), rtol=1e-15)
    assert np.allclose(dy.oracle_expected_tokens(a), sd.expected_tokens(a, 5000), rtol=1e-12)
    assert dy.oracle_expected_tokens(1.0) == math.inf
    assert isinstance(dy.oracle_expected_tokens(0.5), float)


def test_oracle_improvement_factor_formula_and_limits():
    """1 / (1 - alpha + c alpha): equals the tokens bound at c = 0 and 1 at alpha = 0."""
    assert dy.oracle_improvement_factor(0.8, 0.0) == pytest.approx(5.0, rel=1e-14)
    assert dy.oracle_improvement_factor(0.0, 0.3) == 1.0
    assert dy.oracle_improvement_factor(0.8, 0.05) == pytest.approx(1 / (0.2 + 0.04), rel=1e-14)
    # c = 1: drafting costs as much as the target, the oracle gains nothing
    assert dy.oracle_improvement_factor(0.7, 1.0) == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("alpha, c", [(0.6, 0.0), (0.8, 0.05), (0.9, 0.1)])
def test_oracle_policy_simulation_reaches_the_bound(alpha, c):
    """Simulating the oracle (c_verify = 1, k_max large) gives 1/(1-alpha) tokens per round and the
    improvement factor 1/(1 - alpha + c alpha), within 1 % (about 10 standard errors here)."""
    run = dy.simulate_schedule(np.full(400, alpha), 5000, "oracle", rng=3, k_max=4096, c_draft=c)
    assert run.accepted.sum() == run.drafted.sum()  # the oracle never wastes a draft
    assert run.tokens_per_round == pytest.approx(dy.oracle_expected_tokens(alpha), rel=0.01)
    assert run.speedup == pytest.approx(dy.oracle_improvement_factor(alpha, c), rel=0.01)


def test_oracle_gain_is_consistent_with_the_papers_sixty_percent():
    """Over typical values (alpha 0.5-0.95, c 0.01-0.1) the oracle beats the best fixed gamma by up to
    roughly 1.4x-1.7x (the paper: 'up to ~60% higher'), and never loses."""
    a = np.linspace(0.5, 0.95, 19)[:, None]
    c = np.linspace(0.01, 0.1, 10)[None, :]
    g = dy.oracle_gain(a, c)
    assert (g >= 1.0 - 1e-12).all()
    assert 1.4 < g.max() < 1.7
    # the gain is the ratio of the two closed forms
    assert dy.oracle_gain(0.8, 0.05) == pytest.approx(
        dy.oracle_improvement_factor(0.8, 0.05) / sd.improvement_factor(0.8, sd.optimal_k(0.8, 0.05), 0.05), rel=1e-14)
    with pytest.raises(ValueError, match="below 1"):
        dy.oracle_gain(1.0, 0.1)


# --------------------------------------------------------------------------
# HF's heuristic
# --------------------------------------------------------------------------


def test_hf_update_rule():
    """+2 after a round whose drafts all matched, else -1 with a floor of 1 (vectorized)."""
    assert dy.hf_heuristic_update(20.0, 20, 20) == 22.0
    assert dy.hf_heuristic_update(20.0, 19, 20) == 19.0
    assert dy.hf_heuristic_update(1.0, 0, 1) == 1.0
    assert dy.hf_heuristic_update(1.5, 0, 1) == 1.0
    out = dy.hf_heuristic_update([5.0, 5.0, 2.0], [5, 0, 1], [5, 5, 2])
    assert out.tolist() == [7.0, 4.0, 1.0]
    assert dy.HF_HEURISTIC.value["start"] == 20.0 and dy.HF_HEURISTIC.value["minimum"] == 1.0
    with pytest.raises(ValueError, match="num_matches must be at most num_candidates"):
        dy.hf_heuristic_update(5.0, 6, 5)
    with pytest.raises(ValueError, match="num_assistant_tokens must be >= 1"):
        dy.hf_heuristic_update(0.5, 0, 1)


def test_hf_schedule_hand_worked_runs():
    """alpha = 1, 100 tokens: drafts 20, 22, 24, 26 then 3 (capped by the 4 tokens left): 5 rounds.
    alpha = 0, 30 tokens: drafts 20, 19, ..., 1, then 1 nine times, then 0: 30 rounds, 219 drafts."""
    r = dy.simulate_schedule(np.ones(1), 100, "hf-heuristic", rng=0)
    assert r.rounds.tolist() == [5] and r.drafted.tolist() == [95] and r.tokens.tolist() == [100]
    r = dy.simulate_schedule(np.zeros(1), 30, "hf-heuristic", rng=0)
    assert r.rounds.tolist() == [30] and r.drafted.tolist() == [210 + 9] and r.accepted.tolist() == [0]


def _hf_reference(alpha, n_tokens, seed, start=20.0, k_max=64):
    """A literal scalar transcription of HF's loop, drawing one uniform per round like the simulator."""
    g = np.random.default_rng(seed)
    num_assistant_tokens = start
    cur, rounds, drafted = 0, 0, 0
    while cur < n_tokens:
        u = 1.0 - g.random()
        run = k_max if alpha >= 1 else (0 if alpha <= 0 else min(math.floor(math.log(u) / math.log(alpha)), k_max))
        max_new = min(int(num_assistant_tokens), k_max, n_tokens - cur - 1)
        matches = min(run, max_new)
        cur += matches + 1
        rounds += 1
        drafted += max_new
        if max_new > 0:
            if matches == max_new:
                num_assistant_tokens += 2.0
            else:
                num_assistant_tokens = max(1.0, num_assistant_tokens - 1.0)
    return rounds, drafted


@pytest.mark.parametrize("alpha", [0.3, 0.7, 0.92])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hf_schedule_matches_scalar_transcription(alpha, seed):
    """With one request the vectorized simulator and the scalar transcription agree exactly."""
    r = dy.simulate_schedule(np.full(1, alpha), 700, "hf-heuristic", rng=seed)
    assert (int(r.rounds[0]), int(r.drafted[0])) == _hf_reference(alpha, 700, seed)


# --------------------------------------------------------------------------
# workloads and the other policies
# --------------------------------------------------------------------------


def test_beta_and_regime_workloads():
    a = dy.beta_alphas(200_000, 0.7, 4.0, rng=1)
    assert abs(a.mean() - 0.7) < 5 * math.sqrt(0.042 / a.size)
    assert a.var() == pytest.approx(0.7 * 0.3 / 5.0, rel=0.02)
    r = dy.regime_alphas(20_000, 6, [0.9, 0.4], 0.25, rng=2)
    assert r.shape == (20_000, 6) and set(np.unique(r).tolist()) <= {0.4, 0.9}
    switches = (r[:, 1:] != r[:, :-1]).mean()
    assert abs(switches - 0.25) < 5 * math.sqrt(0.25 * 0.75 / (20_000 * 5))
    with pytest.raises(ValueError, match="at least two regimes"):
        dy.regime_alphas(2, 2, [0.5], 0.1, rng=0)


def test_fixed_k_tokens_per_round_is_the_harmonic_mean_over_requests():
    """Pooled tokens per round of a fixed k with per-request alphas = n / sum_i (n / E[L]_i), within 1 %."""
    alphas = dy.beta_alphas(600, 0.7, 3.0, rng=4)
    run = dy.simulate_schedule(alphas, 4000, "fixed", rng=5, k=5)
    el = sd.expected_tokens(alphas, 5)
    predicted = alphas.size / np.sum(1.0 / el)
    assert run.tokens_per_round == pytest.approx(predicted, rel=0.01)
    assert (run.tokens == 4000).all()
    assert run.mean_draft_length == pytest.approx(5.0, rel=0.01)


def test_per_request_optimal_drafts_the_optimal_k():
    """At a constant alpha the per-request policy drafts optimal_k every round (except the capped last ones)."""
    k_star = sd.optimal_k(0.8, 0.05, 1.0, 64)
    run = dy.simulate_schedule(np.full(50, 0.8), 3000, "per-request-optimal", rng=6, c_draft=0.05)
    assert run.mean_draft_length == pytest.approx(k_star, rel=0.01)
    assert run.speedup == pytest.approx(sd.speedup_from_costs(0.8, k_star, 0.05, 1.0), rel=0.02)


def test_policies_ordering_on_a_mixed_workload():
    """With c_draft > 0 and requests of different alphas: oracle > per-request optimum > fixed k = 5."""
    alphas = dy.beta_alphas(1500, 0.65, 2.0, rng=7)
    runs = dy.compare_schedules(alphas, 512, rng=8, k=5, c_draft=0.05)
    s = {p: r.speedup for p, r in runs.items()}
    assert s["oracle"] > s["per-request-optimal"] > s["fixed"]
    assert runs["oracle"].tokens_per_round > runs["fixed"].tokens_per_round


def test_regime_switches_with_segments():
    """A 2-D alpha follows the segments: a request that is 0 then 1 accepts only in its second half."""
    a = np.array([[0.0, 1.0]])
    run = dy.simulate_schedule(a, 200, "fixed", rng=0, k=4, segment_tokens=100)
    # first 100 tokens one per round, then 5 per round (last round capped)
    assert run.rounds[0] == 100 + 20
    with pytest.raises(ValueError, match="segment_tokens"):
        dy.simulate_schedule(a, 200, "fixed", rng=0)
    with pytest.raises(ValueError, match="needs a 2-D alpha"):
        dy.simulate_schedule(np.full(2, 0.5), 20, "fixed", rng=0, segment_tokens=5)


def test_c_verify_growing_with_k_is_charged():
    """A c_verify table over k is charged per round: fixed k = 3 costs 3 c_d + c_v[2] per full round."""
    cv = 1.0 + 0.1 * np.arange(1, 9)
    run = dy.simulate_schedule(np.full(10, 1.0), 401, "fixed", rng=0, k=3, k_max=8, c_draft=0.02, c_verify=cv)
    assert (run.rounds == 101).all()  # 100 full rounds of 4 tokens, then a plain step for token 401
    assert run.cost[0] == pytest.approx(100 * (3 * 0.02 + cv[2]) + 1.0, rel=1e-13)


def test_simulation_validation():
    a = np.full(3, 0.5)
    with pytest.raises(ValueError, match="policy must be one of"):
        dy.simulate_schedule(a, 10, "greedy", rng=0)
    with pytest.raises(ValueError, match=r"k must be a whole number in \[1, 64\]; got 65"):
        dy.simulate_schedule(a, 10, "fixed", rng=0, k=65)
    with pytest.raises(ValueError, match="start must be >= 1"):
        dy.simulate_schedule(a, 10, "hf-heuristic", rng=0, start=0.5)
    with pytest.raises(ValueError, match="one value per k"):
        dy.simulate_schedule(a, 10, "fixed", rng=0, k=2, k_max=4, c_verify=[1.0, 1.1])
    with pytest.raises(TypeError, match="unseeded"):
        dy.simulate_schedule(a, 10, "fixed", rng=None)
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]"):
        dy.simulate_schedule(np.array([1.2]), 10, "fixed", rng=0)
    with pytest.raises(ValueError, match="policies must be a sequence"):
        dy.compare_schedules(a, 10, rng=0, policies="fixed")

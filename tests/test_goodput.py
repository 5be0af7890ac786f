"""Tests for specdec.goodput: latency profiles, serving curves, goodput at a TPOT target.

Analytic limits are checked exactly (plain decoding, zero-variance
speculation, batch 1); the random part is checked against renewal theory
with seeded Monte Carlo tolerances; goodput must not increase as the SLO
tightens, over several seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import specdec as sd
import specdec.dynamic as dy
import specdec.goodput as gp

H = sd.hardware
HW = H.H100_IDEAL.scaled(8)   # the ideal roofline (lower bound): exact hand references


def test_output_lengths_distributions():
    n = gp.output_lengths(200_000, 300, rng=0)
    # geometric with mean 300: sd ~ 300, so the mean's standard error is ~0.7
    assert abs(n.mean() - 300) < 5 * 300 / math.sqrt(n.size)
    assert gp.output_lengths(5, 40.4, rng=0, distribution="constant").tolist() == [40] * 5
    ln = gp.output_lengths(200_000, 300, rng=1, distribution="lognormal", sigma=0.5)
    assert abs(ln.mean() - 300) < 3.0
    assert gp.output_lengths(10, 100, rng=0, max_tokens=50).max() <= 50
    with pytest.raises(ValueError, match="distribution must be one of"):
        gp.output_lengths(10, 100, rng=0, distribution="pareto")
    with pytest.raises(ValueError, match="mean must be >= 1 token"):
        gp.output_lengths(10, 0.5, rng=0)


def test_plain_decoding_profile_is_one_round_per_token():
    prof = gp.latency_profile([1, 7, 300])
    assert prof.rounds.tolist() == [1, 7, 300]
    assert prof.tokens_per_round == 1.0 and prof.tpot_factor(0.9) == 1.0


def test_deterministic_rounds():
    """L = 4 every round: a request of n tokens needs ceil(n / 4) rounds."""
    n = np.array([1, 3, 4, 5, 8, 9, 100, 101])
    prof = gp.latency_profile(n, [0.0, 0.0, 0.0, 1.0])
    assert prof.rounds.tolist() == [math.ceil(x / 4) for x in n]


@pytest.mark.parametrize("alpha, k", [(0.6, 3), (0.8, 5), (0.9, 8)])
def test_rounds_follow_renewal_theory(alpha, k):
    """Rounds for n tokens with L ~ accepted_tokens_pmf + 1: mean ~ n / E[L] and variance ~ n Var(L) / E[L]^3
    (renewal central limit theorem), within 2 % and 12 % for n = 3000 over 4000 requests."""
    n = 3000
    prof = gp.latency_profile(np.full(4000, n), sd.accepted_tokens_pmf(alpha, k), rng=12)
    el = sd.expected_tokens(alpha, k)
    var = sd.tokens_per_round_variance(alpha, k)
    assert prof.rounds.mean() == pytest.approx(n / el, rel=0.02)
    assert prof.rounds.var() == pytest.approx(n * var / el**3, rel=0.12)


def test_per_request_laws():
    """One pmf row per request: a request with alpha = 1 takes n / (k + 1) rounds, one with alpha = 0 takes n."""
    pmf = sd.accepted_tokens_pmf(np.array([1.0, 0.0]), 3)
    prof = gp.latency_profile([40, 40], pmf, rng=0)
    assert prof.rounds.tolist() == [10, 40]
    with pytest.raises(ValueError, match=r"\(n_requests, m\) = \(2, m\)"):
        gp.latency_profile([40, 40], np.full((3, 2), 0.5))


def test_serving_curve_and_goodput_by_hand():
    prof = gp.latency_profile([10] * 4)
    c = gp.serving_curve([1, 2, 4], [0.01, 0.015, 0.03], prof, fits=np.array([True, True, False]))
    assert c.throughput.tolist() == [100.0, 2 / 0.015, 4 / 0.03]
    g = gp.goodput(c, 0.02)
    assert (g.batch, g.feasible) == (2, True) and g.throughput == pytest.approx(2 / 0.015, rel=1e-15)
    none = gp.goodput(c, 0.005)
    assert (none.feasible, none.batch, none.throughput) == (False, 0, 0.0) and math.isnan(none.tpot)
    # batch 4 meets a loose target but does not fit in memory
    assert gp.goodput(c, 1.0).batch == 2


def test_plain_decoding_goodput_is_the_roofline_batch_limit():
    """Without speculation TPOT = t0(B) exactly, so goodput = B* / t0(B*) with B* the largest batch whose
    roofline step time meets the target (found here by a direct scan of hardware.step_time)."""
    n = gp.output_lengths(500, 200, rng=3)
    r = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 0.8, 5, 2048, 0.010, n)
    t0 = np.array([H.step_time(H.LLAMA_70B, HW, b, 2048) for b in range(1, 744)])
    b_star = int(np.flatnonzero(t0 <= 0.010)[-1]) + 1
    assert r.baseline.batch == b_star
    assert r.baseline.throughput == pytest.approx(b_star / t0[b_star - 1], rel=1e-12)
    assert r.baseline.tpot == pytest.approx(t0[b_star - 1], rel=1e-12)


def test_zero_variance_speculation_at_batch_one():
    """alpha = 1 and lengths divisible by k + 1: TPOT = t_round(1) / (k + 1) exactly, for every request."""
    k = 5
    n = np.full(50, 6 * 40)
    setup = gp.roofline_serving(H.LLAMA_70B, H.LLAMA_8B, HW, k, [1], 1024)
    prof = gp.latency_profile(n, sd.accepted_tokens_pmf(1.0, k), rng=0)
    curve = gp.serving_curve([1], setup.t_round, prof, quantile=0.9)
    assert curve.tpot[0] == pytest.approx(setup.t_round[0] / (k + 1), rel=1e-14)
    costs = sd.deployment.speculative_costs(H.LLAMA_70B, H.LLAMA_8B, HW, 1.0, k, 1, 1024)
    assert curve.throughput[0] == pytest.approx(float(costs.throughput_speculative), rel=1e-13)
    assert curve.tpot[0] == pytest.approx(float(costs.latency_speculative), rel=1e-13)


def test_capacity_ratio_matches_regimes_capacity_comparison():
    """At each setup's largest fitting batch and with a deterministic profile (alpha = 1), the throughput
    ratio equals regimes.capacity_comparison's (an independent code path) to 1e-12."""
    n = np.full(20, 600)
    r = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 1.0, 5, 2048, 1.0, n)
    ref = sd.regimes.capacity_comparison(H.LLAMA_70B, H.LLAMA_8B, HW, 1.0, 5, 2048)
    assert (r.capacity_batch_baseline, r.capacity_batch_speculative) == (ref.batch_baseline, ref.batch_speculative)
    assert r.capacity_throughput_ratio == pytest.approx(ref.throughput_ratio, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("quantile", [0.5, 0.9])
def test_goodput_decreases_as_the_slo_tightens(seed, quantile):
    """For several seeds and both p50 and p90: goodput never increases as the TPOT target tightens, and it
    falls strictly somewhere on the way (the SLO binds)."""
    n = gp.output_lengths(800, 256, rng=seed)
    r = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 0.75, 4, 2048, 0.02, n, quantile=quantile,
                                    rng=seed + 10)
    targets = np.linspace(0.04, 0.003, 60)  # tightening
    for curve in (r.baseline_curve, r.speculative_curve):
        g = gp.goodput_curve(curve, targets)
        assert (np.diff(g) <= 1e-9 * g[:-1]).all()
        assert g[0] > g[-1]
        # the TPOT quantile grows with the batch (roofline step time grows), so feasible sets are nested
        assert (np.diff(curve.tpot) >= -1e-15).all()


def test_speculation_wins_at_tight_targets_and_loses_at_loose_ones():
    """70B/8B on 8xH100, alpha 0.8, k 5, context 2048: at a tight TPOT speculation has the larger goodput;
    at a target every batch meets, the comparison is the capacity one (speculation loses)."""
    n = gp.output_lengths(2000, 256, rng=1)
    tight = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 0.8, 5, 2048, 0.008, n)
    loose = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 0.8, 5, 2048, 1.0, n)
    assert tight.goodput_ratio > 1.2
    assert loose.goodput_ratio < 1.0
    assert loose.goodput_ratio == pytest.approx(loose.capacity_throughput_ratio, rel=1e-12)
    # below plain decoding's batch-1 step time only speculation can meet the target
    t1 = float(H.step_time(H.LLAMA_70B, HW, 1, 2048))
    only = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 0.8, 5, 2048, 0.9 * t1, n)
    assert only.baseline.feasible is False and only.speculative.feasible and only.goodput_ratio == math.inf


def test_per_request_alphas():
    n = gp.output_lengths(300, 128, rng=2)
    alphas = dy.beta_alphas(300, 0.7, 3.0, rng=3)
    r = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, alphas, 5, 2048, 0.01, n)
    assert r.speculative.feasible
    with pytest.raises(ValueError, match="one per request"):
        gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, alphas[:10], 5, 2048, 0.01, n)


def test_validation():
    prof = gp.latency_profile([10])
    with pytest.raises(ValueError, match="same length"):
        gp.serving_curve([1, 2], [0.01], prof)
    with pytest.raises(TypeError, match="LatencyProfile"):
        gp.serving_curve([1], [0.01], "profile")
    with pytest.raises(ValueError, match="round_time must be a finite number > 0"):
        gp.serving_curve([1], [0.0], prof)
    with pytest.raises(TypeError, match="ServingCurve"):
        gp.goodput(prof, 0.01)
    with pytest.raises(ValueError, match="tpot_target must be a finite number > 0"):
        gp.goodput(gp.serving_curve([1], [0.01], prof), -1.0)
    with pytest.raises(ValueError, match="output_lengths must be a whole number >= 1; got 0"):
        gp.latency_profile([0, 3])
    with pytest.raises(ValueError, match=r"quantile must be in \(0, 1\)"):
        gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 0.8, 5, 2048, 0.01, [10], quantile=1.0)
    with pytest.raises(TypeError, match="unseeded"):
        gp.latency_profile([10], [1.0], rng=None)

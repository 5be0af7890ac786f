"""Tests for specdec.serving.goodput: latency profiles, serving curves, goodput at a TPOT target.

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
import specdec.serving.dynamic as dy
import specdec.serving.goodput as gp

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


@pytest.mark.parametrize("seed", range(6))
def test_goodput_curve_is_goodput_at_each_target(seed):
    """goodput_curve (every target at once) equals goodput (one target, a scan over the batches) at each
    target, exactly, on random curves with ties in throughput, batches that do not fit, targets met by no batch,
    and a 2-D array of targets (its shape kept)."""
    g = np.random.default_rng(seed)
    nb = int(g.integers(1, 12))
    tpot = g.choice([0.01, 0.02, 0.03], nb) * g.uniform(0.5, 2.0)
    throughput = g.choice([100.0, 250.0, 400.0], nb)       # ties: the first of equals and the maximum agree
    curve = gp.ServingCurve(batch=np.arange(1, nb + 1), round_time=tpot, throughput=throughput, tpot=tpot,
                            quantile=0.5, fits=g.random(nb) < 0.8)
    targets = np.r_[tpot, tpot * (1 + 1e-13), g.uniform(0.001, 0.08, 9), 1e-6].reshape(2, -1)
    got = gp.goodput_curve(curve, targets)
    assert got.shape == targets.shape
    want = np.array([gp.goodput(curve, float(x)).throughput for x in targets.ravel()]).reshape(targets.shape)
    assert (got == want).all(), (got, want)
    assert gp.goodput_curve(curve, 0.05).shape == ()
    with pytest.raises(TypeError, match="curve"):
        gp.goodput_curve("curve", [0.01])


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


# --------------------------------------------------------------------------
# other requests' prefills and the request rate (issue 24)
# --------------------------------------------------------------------------


def _ideal_pass(model, cached, new):
    """One ideal-roofline pass at batch 1 by hand: weights + cached KV over bandwidth, or FLOPs over peak."""
    mem = (model.weight_bytes + cached * model.kv_bytes_per_token) / HW.bandwidth
    flops = new * (2 * model.n_params + 4 * model.n_layers * model.d_attn * cached)
    return max(mem, flops / HW.flops)


def test_prefill_time_is_a_roofline_pass_over_the_uncached_tokens():
    t, d = H.LLAMA_70B, H.LLAMA_8B
    assert gp.prefill_time(t, HW, 2048) == pytest.approx(_ideal_pass(t, 0, 2048), rel=1e-12)
    # half the prompt cached: 1024 new tokens attend to the 1024 cached ones
    assert gp.prefill_time(t, HW, 2048, 0.5) == pytest.approx(_ideal_pass(t, 1024, 1024), rel=1e-12)
    both = _ideal_pass(t, 1843, 205) + _ideal_pass(d, 1843, 205)   # round(0.9 * 2048) = 1843 cached
    assert gp.prefill_time(t, HW, 2048, 0.9, draft=d) == pytest.approx(both, rel=1e-12)
    assert gp.prefill_time(t, HW, 2048, 1.0, draft=d) == 0.0
    # a long prompt is compute-bound: about 2 N FLOPs per token
    assert gp.prefill_time(t, HW, 2048) == pytest.approx(2048 * 2 * t.n_params / HW.flops, rel=1e-12)
    # the calibrated roofline prices the same pass as hardware.step_time does
    cal = H.H100.scaled(8)
    assert gp.prefill_time(t, cal, 1792, 0.5) == pytest.approx(H.step_time(t, cal, 1, 896, 896), rel=1e-15)


def _curve():
    """Batches 1, 2, 4, 8 with t(B) = 10 ms + 1 ms * B and 4 tokens per round for every request (deterministic)."""
    b = np.array([1, 2, 4, 8])
    prof = gp.latency_profile([200] * 10, [0.0, 0.0, 0.0, 1.0])
    return gp.serving_curve(b, 0.010 + 0.001 * b, prof), b


def test_with_prefill_adds_the_prefills_of_the_replacing_requests_to_every_step():
    curve, b = _curve()
    t_p, n = 0.05, 200.0
    p = gp.with_prefill(curve, t_p, n)
    t = 0.010 + 0.001 * b
    per_step = b * 4 * t_p / n            # B * Lbar / nbar requests replaced per step, t_p each
    assert p.prefill_per_step == pytest.approx(per_step, rel=1e-14)
    assert p.curve.round_time == pytest.approx(t + per_step, rel=1e-14)
    assert p.curve.tpot == pytest.approx(0.25 * (t + per_step), rel=1e-14)   # f_q = 1/4 round per token
    assert p.curve.throughput == pytest.approx(b * 4 / (t + per_step), rel=1e-14)
    assert p.duty == pytest.approx(per_step / (t + per_step), rel=1e-14)
    assert p.request_rate == pytest.approx(b * 4 / (t + per_step) / n, rel=1e-14)
    assert (p.curve.throughput < n / t_p).all()      # never more than prompts can be prefilled
    # free prefills change nothing
    free = gp.with_prefill(curve, 0.0, n).curve
    assert free.tpot == pytest.approx(curve.tpot, rel=1e-15)
    assert free.throughput == pytest.approx(curve.throughput, rel=1e-15)


@pytest.mark.parametrize("hit", [0.0, 0.5, 0.9])
def test_prefills_never_raise_goodput(hit):
    n = gp.output_lengths(800, 256, rng=4)
    r = gp.compare_at_equal_latency(H.LLAMA_70B, H.LLAMA_8B, HW, 0.8, 5, 2048, 0.02, n, batch_max=300)
    targets = np.linspace(0.004, 0.06, 40)
    for curve, draft in ((r.baseline_curve, None), (r.speculative_curve, H.LLAMA_8B)):
        t_p = gp.prefill_time(H.LLAMA_70B, HW, 1792, hit, draft=draft)
        with_p = gp.goodput_curve(gp.with_prefill(curve, t_p, n.mean()).curve, targets)
        assert (with_p <= gp.goodput_curve(curve, targets) * (1 + 1e-12)).all()
        assert (np.diff(with_p) >= 0).all()


def test_check_request_rate_agrees_with_with_prefill_at_saturation():
    """At the rate with_prefill completes at batch B, batch B is the operating point, its work fills the wall
    time exactly, and the TPOT is with_prefill's."""
    curve, b = _curve()
    t_p, n = 0.02, 200.0
    p = gp.with_prefill(curve, t_p, n)
    for j in range(1, len(b)):
        lam = p.request_rate[j] * (1 - 1e-12)
        r = gp.check_request_rate(curve, lam, t_p, n)
        assert r.feasible and r.batch == b[j] and r.reason == ""
        assert r.prefill_duty + r.decode_duty == pytest.approx(1.0, abs=1e-9)
        assert r.prefill_duty == pytest.approx(lam * t_p, rel=1e-15)
        assert r.tpot == pytest.approx(p.curve.tpot[j], rel=1e-9)


def test_check_request_rate_flags_rates_that_do_not_fit():
    curve, _ = _curve()
    r = gp.check_request_rate(curve, 60.0, 0.02, 200)      # 60 x 0.02 s = 1.2 s of prefill per second
    assert not r.feasible and r.batch == 0 and math.isnan(r.tpot) and r.prefill_duty == pytest.approx(1.2)
    assert r.reason.startswith("prefill alone needs 1.2 s per second")
    with pytest.raises(ValueError, match="request_rate 60 is infeasible: prefill alone"):
        gp.check_request_rate(curve, 60.0, 0.02, 200, strict=True)
    # 5 req/s: prefill 0.1 s/s; decoding 1000 tokens/s needs more than batch 8's 4 * 8 / 0.018 = 1778 tokens/s
    # can give in the remaining 0.9 s? 1000 / 1778 = 0.5625 <= 0.9, so it fits; 9 req/s does not (0.18 + 1.0125)
    assert gp.check_request_rate(curve, 5.0, 0.02, 200).feasible
    slow = gp.check_request_rate(curve, 9.0, 0.02, 200)
    assert not slow.feasible and slow.reason.startswith("no fitting batch keeps up")
    # feasible in work, but the stretched step misses a tight target
    tight = gp.check_request_rate(curve, 5.0, 0.02, 200, tpot_target=0.003)
    assert not tight.feasible and "above 3 ms" in tight.reason and tight.batch > 0
    with pytest.raises(TypeError, match="strict must be"):
        gp.check_request_rate(curve, 5.0, 0.02, 200, strict="yes")


def test_prefill_validation():
    curve, _ = _curve()
    with pytest.raises(ValueError, match=r"hit_rate must be in \[0, 1\]"):
        gp.prefill_time(H.LLAMA_70B, HW, 100, 1.5)
    with pytest.raises(ValueError, match="prompt_tokens must be a whole number >= 1"):
        gp.prefill_time(H.LLAMA_70B, HW, 0)
    with pytest.raises(TypeError, match="draft must be a specdec.roofline.hardware.Model"):
        gp.prefill_time(H.LLAMA_70B, HW, 100, draft="8B")
    with pytest.raises(TypeError, match="hardware must be a specdec.roofline.hardware.Hardware"):
        gp.prefill_time(H.LLAMA_70B, "H100", 100)
    with pytest.raises(ValueError, match="mean_output must be >= 1 token"):
        gp.with_prefill(curve, 0.01, 0.5)
    with pytest.raises(ValueError, match="prefill_time must be a finite number >= 0"):
        gp.with_prefill(curve, -0.01, 100)
    with pytest.raises(TypeError, match="ServingCurve"):
        gp.check_request_rate("curve", 1.0, 0.01, 100)
    with pytest.raises(ValueError, match="request_rate must be a finite number > 0"):
        gp.check_request_rate(curve, 0.0, 0.01, 100)


def test_eagle3_batch_table_is_recorded_with_its_source():
    rec = gp.EAGLE3_SGLANG_BATCHES
    v = rec.value
    assert rec.source == "li2025eagle3" and rec.status == "verified" and "Table 3" in rec.where
    assert len(v["batch"]) == len(v["EAGLE"]) == len(v["EAGLE-3"]) == 9
    assert list(v["batch"]) == sorted(v["batch"])
    # what the paper's text says about its own table: EAGLE-3 ahead at every batch, 1.38x at 64, EAGLE below 1 at 24
    assert all(e3 > e1 for e1, e3 in zip(v["EAGLE"], v["EAGLE-3"], strict=True))
    assert v["EAGLE-3"][v["batch"].index(64)] == 1.38 and v["EAGLE"][v["batch"].index(24)] < 1.0

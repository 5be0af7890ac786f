"""Tests of specdec.serving.regimes: regime maps, Amdahl's law for prefill, capacity planning."""

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
from specdec import hardware as hw
from specdec import regimes as rg

# The regime formulas are checked on the ideal roofline (the lower bound), where the hand references are exact.
TARGET, DRAFT, GROUP = hw.LLAMA_70B, hw.LLAMA_8B, hw.H100_IDEAL.scaled(8)


def _et(alpha, k):
    """E[L] as an exact finite sum of powers (independent of the closed form)."""
    a = Fraction(alpha)
    return sum(a ** i for i in range(k + 1))


# ---------------------------------------------------------------------------------------------
# classify_speedup
# ---------------------------------------------------------------------------------------------

def test_classify_boundaries_are_neutral():
    """Exactly 1.1 and exactly 0.95 are neutral; just outside they are not."""
    s = np.array([1.1, np.nextafter(1.1, 2), 0.95, np.nextafter(0.95, 0), 1.0])
    assert sd.policy.classify_speedup(s).tolist() == [0, 1, 0, -1, 0]


def test_classify_scalar_returns_int_and_custom_thresholds():
    """Scalars give a Python int; the source's 1.3 rule can be passed as helps_above."""
    assert sd.policy.classify_speedup(1.2) == 1 and isinstance(sd.policy.classify_speedup(1.2), int)
    assert sd.policy.classify_speedup(1.2, helps_above=sd.policy.WORTH_IT_SPEEDUP) == 0


@pytest.mark.parametrize("bad, exc", [(0.0, ValueError), (-1.0, ValueError), (np.nan, ValueError),
                                      ("2", TypeError), (True, TypeError)])
def test_classify_rejects_bad_speedup(bad, exc):
    """A speedup must be a positive finite number."""
    with pytest.raises(exc, match="speedup"):
        sd.policy.classify_speedup(bad)


def test_classify_rejects_crossed_thresholds():
    """hurts_below above helps_above makes no sense."""
    with pytest.raises(ValueError, match="hurts_below"):
        sd.policy.classify_speedup(1.0, helps_above=1.0, hurts_below=1.2)
    with pytest.raises(TypeError, match="helps_above"):
        sd.policy.classify_speedup(1.0, helps_above=[1.1, 1.2])


# ---------------------------------------------------------------------------------------------
# Amdahl's law
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("s, p", [(Fraction(2), Fraction(1, 2)), (Fraction(47, 20), Fraction(9, 10)),
                                  (Fraction(1, 2), Fraction(1, 4)), (Fraction(3), Fraction(0))])
def test_end_to_end_matches_exact_fraction(s, p):
    """1 / (p + (1 - p) / S) against exact rational arithmetic."""
    exact = 1 / (p + (1 - p) / s)
    assert_allclose(sd.request.end_to_end_speedup(float(s), float(p)), float(exact), rtol=1e-15)


def test_end_to_end_limits_and_bound():
    """p = 0 gives S, p = 1 gives 1, and the result never exceeds 1 / p."""
    s = np.geomspace(0.2, 50, 40)[:, None]
    p = np.linspace(0.01, 0.99, 30)[None, :]
    e = sd.request.end_to_end_speedup(s, p)
    assert e.shape == (40, 30)
    assert np.all(e <= 1 / p + 1e-12)
    assert np.all((e - 1) * (s - 1) >= -1e-12)          # same side of 1 as the decode speedup
    assert_allclose(sd.request.end_to_end_speedup(s[:, 0], 0.0), s[:, 0])
    assert_allclose(sd.request.end_to_end_speedup(s[:, 0], 1.0), 1.0)


def test_end_to_end_agrees_with_request_speedup():
    """Through the prefill share it equals workload.request_speedup without a setup cost (another code path)."""
    ttft = np.array([0.0, 50.0, 200.0, 2500.0])
    tpot, n, s = 5.2, np.array([2, 20, 300, 120]), 2.3
    via_share = sd.request.end_to_end_speedup(s, rg.prefill_share(ttft, tpot, n))
    assert_allclose(via_share, sd.request.request_speedup(n, s, tpot, ttft=ttft), rtol=1e-13)


def test_prefill_share_by_hand():
    """ttft / (ttft + tpot (N - 1)); all prefill when there is nothing else."""
    assert rg.prefill_share(100.0, 5.0, 21) == 0.5
    assert_allclose(rg.prefill_share(600.0, 5.2, 100), float(Fraction(600) / (600 + Fraction(52, 10) * 99)))
    assert rg.prefill_share(0.0, 5.0, 1) == 1.0
    assert rg.prefill_share(0.0, 5.0, 10) == 0.0


@pytest.mark.parametrize("kwargs, match", [(dict(ttft=-1.0, tpot=5.0, output_tokens=10), "ttft"),
                                           (dict(ttft=1.0, tpot=0.0, output_tokens=10), "tpot"),
                                           (dict(ttft=1.0, tpot=5.0, output_tokens=0.5), "output_tokens")])
def test_prefill_share_rejects_bad_inputs(kwargs, match):
    """Each argument is checked and named."""
    with pytest.raises(ValueError, match=match):
        rg.prefill_share(**kwargs)


def test_end_to_end_rejects_bad_inputs():
    """prefill_share must be in [0, 1]; decode_speedup positive."""
    with pytest.raises(ValueError, match="prefill_share"):
        sd.request.end_to_end_speedup(2.0, 1.5)
    with pytest.raises(ValueError, match="decode_speedup"):
        sd.request.end_to_end_speedup(0.0, 0.5)


def test_max_prefill_share_round_trip_and_hand_value():
    """p* solves end_to_end(S, p*) = R; (1/R - 1/S)/(1 - 1/S) by hand for S = 2, R = 1.25."""
    assert_allclose(rg.max_prefill_share(2.0, 1.25), float((Fraction(4, 5) - Fraction(1, 2)) / Fraction(1, 2)))
    s = np.linspace(1.2, 5.0, 20)
    r = np.linspace(1.0, 1.19, 20)
    p = rg.max_prefill_share(s, r)
    assert_allclose(sd.request.end_to_end_speedup(s, p), r, rtol=1e-12)
    assert_allclose(rg.max_prefill_share(3.0, 1.0), 1.0)


def test_max_prefill_share_nan_when_unreachable():
    """When even pure decode does not reach R there is no share: nan."""
    out = rg.max_prefill_share(np.array([1.05, 1.1, 0.9]), 1.1)
    assert np.isnan(out).all()
    with pytest.raises(ValueError, match="required"):
        rg.max_prefill_share(2.0, 0.9)


# ---------------------------------------------------------------------------------------------
# the maps
# ---------------------------------------------------------------------------------------------

def test_batch_map_at_batch_one_by_hand():
    """At batch 1, context 0 both models are memory-bound: c_d = N_draft / N_target, c_v = 1."""
    alphas = np.array([0.25, 0.5, 0.8, 0.95])
    m = rg.batch_alpha_map(TARGET, DRAFT, GROUP, alphas, [1, 2], k=5)
    c_d = Fraction(int(DRAFT.n_params), int(TARGET.n_params))
    expected = [float(_et(a, 5) / (5 * c_d + 1)) for a in alphas]
    assert_allclose(m.speedup[:, 0], expected, rtol=1e-12)
    assert m.speedup.shape == (4, 2) and m.variable == "batch"
    assert m.regime.tolist() == sd.policy.classify_speedup(m.speedup).tolist()


def test_batch_map_equals_pointwise_calls():
    """The vectorized grid equals one scalar speculative_speedup call per cell."""
    alphas, batches = np.array([0.3, 0.6, 0.9]), np.array([1, 48, 160, 700])
    m = rg.batch_alpha_map(TARGET, DRAFT, GROUP, alphas, batches, k=4, context=1024)
    for i, a in enumerate(alphas):
        for j, b in enumerate(batches):
            assert_allclose(m.speedup[i, j], sd.deployment.speculative_speedup(TARGET, DRAFT, GROUP, float(a), 4, int(b), 1024),
                            rtol=1e-14)
    assert abs(sum(m.share(c) for c in (-1, 0, 1)) - 1) < 1e-12


def test_batch_map_pins_running_example():
    """Pinned: the map's corners for the 70B/8B pair (see the docstring)."""
    m = rg.batch_alpha_map(TARGET, DRAFT, GROUP, [0.3, 0.8], [1, 256])
    assert m.regime.tolist() == [[-1, -1], [1, -1]]
    assert_allclose(m.speedup[1, 0], 2.3512248620781633, rtol=1e-9)


def test_prefill_map_equals_composition():
    """Each cell is end_to_end_speedup of the decode speedup at that alpha."""
    alphas, shares = np.array([0.2, 0.7, 0.9]), np.array([0.0, 0.3, 0.95, 1.0])
    m = rg.prefill_alpha_map(TARGET, DRAFT, GROUP, alphas, shares, k=5, batch=4, context=512)
    for i, a in enumerate(alphas):
        s = sd.deployment.speculative_speedup(TARGET, DRAFT, GROUP, float(a), 5, 4, 512)
        for j, p in enumerate(shares):
            assert_allclose(m.speedup[i, j], 1 / (p + (1 - p) / s), rtol=1e-13)
    assert_allclose(m.speedup[:, -1], 1.0)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(alphas=[0.5, 1.2], batches=[1, 2]), ValueError, "alphas"),
    (dict(alphas=[0.5], batches=[0, 2]), ValueError, "batches"),
    (dict(alphas=[0.5], batches=[1.5]), ValueError, "batches"),
    (dict(alphas=[[0.5]], batches=[1]), ValueError, "alphas"),
    (dict(alphas=[0.5], batches=[1], k=[3, 4]), TypeError, "k"),
])
def test_batch_map_rejects_bad_inputs(kwargs, exc, match):
    """Grids are 1-D and in range; k and context are single numbers."""
    with pytest.raises(exc, match=match):
        rg.batch_alpha_map(TARGET, DRAFT, GROUP, **kwargs)


def test_prefill_map_rejects_bad_shares():
    """Prefill shares must be in [0, 1]."""
    with pytest.raises(ValueError, match="prefill_shares"):
        rg.prefill_alpha_map(TARGET, DRAFT, GROUP, [0.5], [0.2, 1.1])
    with pytest.raises(TypeError, match="batch"):
        rg.prefill_alpha_map(TARGET, DRAFT, GROUP, [0.5], [0.2], batch=[1, 2])


# ---------------------------------------------------------------------------------------------
# capacity
# ---------------------------------------------------------------------------------------------

def _max_seqs_by_hand(memory, context, k, with_draft):
    weights = int(TARGET.n_params) * 2 + (int(DRAFT.n_params) * 2 if with_draft else 0)
    per_token = 2 * 80 * 8 * 128 * 2 + (2 * 32 * 8 * 128 * 2 if with_draft else 0)
    return (int(memory) - weights) // ((context + (k if with_draft else 0)) * per_token)


def test_capacity_comparison_batches_and_throughput_by_hand():
    """Batches by integer arithmetic; plain tokens/s = B / max(bytes / BW, FLOPs / F) written out."""
    c = rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048)
    b0, b1 = _max_seqs_by_hand(640e9, 2048, 5, False), _max_seqs_by_hand(640e9, 2048, 5, True)
    assert (c.batch_baseline, c.batch_speculative) == (b0, b1) == (743, 512)
    bytes_ = TARGET.n_params * 2 + b0 * 2048 * 327680
    flops = b0 * (2 * TARGET.n_params + 4 * 80 * 8192 * 2048)
    t0 = max(bytes_ / (8 * 3.35e12), flops / (8 * 989e12))
    assert_allclose(c.throughput_baseline, b0 / t0, rtol=1e-12)
    assert_allclose(c.latency_baseline, t0, rtol=1e-12)
    assert c.lost_sequences == b0 - b1


def test_capacity_comparison_little_law_and_factorization():
    """tokens/s x seconds per token = batch on both sides; ratio = speedup x memory factor."""
    ctx = np.array([1024, 2048, 8192, 32768])
    c = rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.7, 4, ctx)
    assert_allclose(c.throughput_baseline * c.latency_baseline, c.batch_baseline, rtol=1e-12)
    assert_allclose(c.throughput_speculative * c.latency_speculative, c.batch_speculative, rtol=1e-12)
    assert_allclose(c.throughput_ratio, c.speedup_at_speculative_batch * c.memory_factor, rtol=1e-12)
    assert np.all(c.memory_factor <= 1 + 1e-12)


def test_capacity_comparison_pins_chapter_numbers():
    """Pinned: at 2,048 tokens throughput falls (0.71) while latency improves (0.971)."""
    c = rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048)
    assert_allclose([c.throughput_ratio, c.latency_ratio], [0.7096811544966772, 0.9709969695125956], rtol=1e-9)
    assert c.throughput_ratio < 1 and c.latency_ratio < 1


def test_capacity_comparison_rejects_no_room():
    """Two H100s cannot hold both models and one 8,192-token sequence with its draft cache."""
    with pytest.raises(ValueError, match="no memory"):
        rg.capacity_comparison(TARGET, DRAFT, hw.H100_IDEAL.scaled(2), 0.8, 5, 8192)
    with pytest.raises(ValueError, match="context"):
        rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 0)
    with pytest.raises(TypeError, match="k"):
        rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, [4, 5], 2048)


def test_capacity_plan_by_hand():
    """ceil arithmetic: 1000 / 100 = 10 replicas; 10 / 2 = 5 planned; 1000 / 80 -> 13 needed; 5 x 80 / 1000 served."""
    p = rg.capacity_plan(1000.0, 100.0, 80.0, 2.0)
    assert (p.replicas_baseline, p.replicas_mistaken, p.replicas_needed) == (10, 5, 13)
    assert p.shortfall == 8 and p.served_fraction == 0.4
    q = rg.capacity_plan(1000.0, 300.0, 400.0, 1.5)          # speculation really helps throughput here
    assert (q.replicas_baseline, q.replicas_mistaken, q.replicas_needed) == (4, 3, 3)


def test_capacity_plan_rejects_bad_inputs():
    """Positive scalars only."""
    with pytest.raises(ValueError, match="demand"):
        rg.capacity_plan(0.0, 1.0, 1.0, 1.0)
    with pytest.raises(TypeError, match="latency_speedup"):
        rg.capacity_plan(1.0, 1.0, 1.0, [1.0, 2.0])


# ---------------------------------------------------------------------------------------------
# diagnose
# ---------------------------------------------------------------------------------------------

def test_diagnose_alpha_to_help_round_trip():
    """At alpha_to_help the batch-1 speedup is exactly helps_above."""
    d = rg.diagnose(TARGET, DRAFT, GROUP, 0.8, 5)
    assert_allclose(sd.deployment.speculative_speedup(TARGET, DRAFT, GROUP, d.alpha_to_help, 5), sd.policy.HELPS_ABOVE, rtol=1e-10)
    assert_allclose(d.verify_compute_batch, hw.crossover_batch(TARGET, GROUP, 0, 6))


@pytest.mark.parametrize("kwargs, verdict, reasons", [
    (dict(alpha=0.8, batch=8, context=2048, prefill_share=0.1), "helps", ()),
    (dict(alpha=0.3, batch=8, context=2048, prefill_share=0.1), "hurts", ("structurally low acceptance",)),
    (dict(alpha=0.8, batch=512, context=1024, prefill_share=0.2), "hurts", ("compute-bound target",)),
    (dict(alpha=0.8, batch=8, context=8192, prefill_share=0.9), "neutral", ("prefill-dominated workload",)),
])
def test_diagnose_chapter_deployments(kwargs, verdict, reasons):
    """The chapter's four deployments each land on one reason (or none)."""
    d = rg.diagnose(TARGET, DRAFT, GROUP, k=5, **kwargs)
    assert d.verdict == verdict and d.reasons == reasons


def test_diagnose_rejects_bad_inputs():
    """Scalars in range only."""
    with pytest.raises(ValueError, match="prefill_share"):
        rg.diagnose(TARGET, DRAFT, GROUP, 0.8, 5, prefill_share=2.0)
    with pytest.raises(TypeError, match="batch"):
        rg.diagnose(TARGET, DRAFT, GROUP, 0.8, 5, batch=[1, 2])


# ---------------------------------------------------------------------------------------------
# the source's "factor of three" (chapter 5, errata)
# ---------------------------------------------------------------------------------------------

def test_factor_of_three_needs_more_than_three_tokens():
    """Source: three tokens per step cut latency "roughly a factor of three". On the ideal roofline: 1.91 (8B draft,
    k = 5); the chapter and the errata state the calibrated 1.31."""
    alpha3 = sd.break_even_alpha(5, 0.0, 3.0)                          # E[L] = 3
    assert_allclose(float(_et(alpha3, 5)), 3.0, rtol=1e-12)
    s = sd.deployment.speculative_speedup(TARGET, DRAFT, GROUP, alpha3, 5)
    c_d = float(Fraction(int(DRAFT.n_params), int(TARGET.n_params)))
    assert_allclose(s, 3.0 / (5 * c_d + 1.0), rtol=1e-12)              # 1.912, not 3
    ks = np.arange(1, 11)
    need = sd.break_even_alpha(ks, 3 * c_d, 3.0)
    assert np.isnan(need[:3]).all()
    assert_allclose(np.nanmin(need), 0.8817305829, rtol=1e-6)          # k = 8


# ---------------------------------------------------------------------------------------------
# presentation smoke tests (figure and explorer defaults)
# ---------------------------------------------------------------------------------------------

def test_explorer_defaults_match_chapter_figure():
    """The explorer's read-out at its defaults equals the chapter's numbers; a slider move updates it."""
    w = sd.widgets.latency_throughput_explorer()
    v = w.values
    assert (v["alpha"], v["k"], v["context"], v["batch"]) == (0.8, 5, 2048, 256)
    assert_allclose(v["throughput_ratio"] * v["latency_ratio"], 1.0, rtol=1e-12)
    assert v["capacity"].batch_speculative == 512
    w.alpha_slider.value = 0.6
    assert w.values["alpha"] == 0.6 and w.values["throughput_ratio"] < v["throughput_ratio"]
    r = sd.widgets.regime_explorer(batch=512, context=1024)
    assert r.values["diagnosis"].reasons == ("compute-bound target",)


def test_capacity_comparison_reserve_by_hand():
    """extra_bytes is held back on both sides: batches by integer arithmetic with the reserve subtracted."""
    reserve = 64e9                                            # 10 % of the 640 GB group
    c = rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048, extra_bytes=reserve)
    assert (c.batch_baseline, c.batch_speculative) == (_max_seqs_by_hand(576e9, 2048, 5, False),
                                                       _max_seqs_by_hand(576e9, 2048, 5, True))
    full = rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048)
    assert c.batch_baseline < full.batch_baseline and c.batch_speculative < full.batch_speculative
    with pytest.raises(ValueError, match="no memory"):    # two GPUs with a 10 % reserve: the draft does not fit
        rg.capacity_comparison(TARGET, DRAFT, hw.H100_IDEAL.scaled(2), 0.8, 5, 2048, extra_bytes=16e9)
    with pytest.raises(ValueError, match="extra_bytes"):
        rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048, extra_bytes=-1.0)
    with pytest.raises(TypeError, match="extra_bytes"):
        rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048, extra_bytes=[1.0, 2.0])


def test_latency_plan_over_provisions_the_saving_and_under_provisions_replicas():
    """Chapter "Latency, throughput and memory": the plan that divides by the batch-1 latency speedup counts on a
    throughput gain that is absent at the operating batch, so it buys fewer replicas than needed, fewer even than
    plain decoding needs; with and without a 10 % memory reserve. Replica counts recomputed by hand with ceil."""
    lat = sd.deployment.speculative_latency(TARGET, DRAFT, GROUP, 0.8, 5)
    speedup = 1.0 / lat.ratio
    for extra in (0.0, 64e9):
        c = rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048, extra_bytes=extra)
        assert c.throughput_ratio < 1.0 < speedup                       # the saving is not there at capacity
        p = rg.capacity_plan(1e6, c.throughput_baseline, c.throughput_speculative, speedup)
        assert p.replicas_baseline == math.ceil(1e6 / c.throughput_baseline)
        assert p.replicas_mistaken == math.ceil(p.replicas_baseline / speedup)
        assert p.replicas_needed == math.ceil(1e6 / c.throughput_speculative)
        assert p.replicas_mistaken < p.replicas_baseline < p.replicas_needed
    full = rg.capacity_plan(1e6, *(lambda c: (c.throughput_baseline, c.throughput_speculative))(
        rg.capacity_comparison(TARGET, DRAFT, GROUP, 0.8, 5, 2048)), speedup)
    assert (full.replicas_baseline, full.replicas_mistaken, full.replicas_needed) == (33, 15, 46)


def test_reason_two_is_a_short_context_effect():
    """Chapter "When not to use it": from 4,096 tokens of context the break-even batch lies beyond what fits."""
    for context, reachable in ((2048, True), (4096, False), (8192, False)):
        be = sd.deployment.break_even_batch(TARGET, DRAFT, GROUP, 0.8, 5, context=context)
        fits = sd.memory.max_concurrent_sequences(TARGET, GROUP, context, draft=DRAFT, k=5)
        assert (bool(np.isfinite(be)) and be <= fits) is reachable
        if np.isfinite(be):   # the speedup really crosses 1 there: just above 1 one batch before, below 1 at it
            s = sd.deployment.speculative_speedup(TARGET, DRAFT, GROUP, 0.8, 5, batch=[int(be) - 1, int(be)],
                                                  context=context)
            assert s[0] >= 1.0 > s[1]

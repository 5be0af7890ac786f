"""Tests of specdec.roofline.hardware, specdec.roofline.memory and specdec.serving.deployment: presets, the roofline step time,
c_verify, c_draft, memory, speculation on the roofline."""

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import specdec as sd

hw_mod = sd.hardware
L8, L70, L1 = hw_mod.LLAMA_8B, hw_mod.LLAMA_70B, hw_mod.LLAMA_1B
# The tests of the roofline's formulas run on the ideal presets (the lower bound), whose hand references are
# exact; the calibrated defaults (hw_mod.H100, hw_mod.A100) are tested in "the default model" below and in
# tests/test_calibration.py.
H100, A100 = hw_mod.H100_IDEAL, hw_mod.A100_IDEAL
TP8 = H100.scaled(8)
ALL_MODELS = [L8, L70, L1]
ALL_HW = [H100, A100, TP8, A100.scaled(4)]

# a toy accelerator with a whole-number ridge: 100e12 / 1e12 * 2 / 2 = 100 tokens per step
TOY = hw_mod.Hardware(bandwidth=1e12, flops=100e12, memory=1e12, name="toy")


def llama_params(vocab, hidden, inter, layers, heads, kv_heads, head_dim, tied):
    """Parameter count of a Llama-architecture model from its config.json, by hand."""
    attn = hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim + heads * head_dim * hidden
    mlp = 3 * hidden * inter
    norms = 2 * hidden
    embeddings = vocab * hidden * (1 if tied else 2)
    return layers * (attn + mlp + norms) + embeddings + hidden


# ---------------------------------------------------------------- presets

def test_model_presets_match_their_public_configs():
    """Parameter counts follow from each config.json (Meta's Llama 3.1 8B/70B, 3.2 1B)."""
    assert L8.n_params == llama_params(128256, 4096, 14336, 32, 32, 8, 128, tied=False) == 8_030_261_248
    assert L70.n_params == llama_params(128256, 8192, 28672, 80, 64, 8, 128, tied=False) == 70_553_706_496
    assert L1.n_params == llama_params(128256, 2048, 8192, 16, 32, 8, 64, tied=True) == 1_235_814_400
    assert (L8.n_layers, L8.d_model, L8.n_kv_heads, L8.head_dim, L8.n_heads) == (32, 4096, 8, 128, 32)
    assert (L70.n_layers, L70.d_model, L70.n_kv_heads, L70.head_dim, L70.n_heads) == (80, 8192, 8, 128, 64)
    assert (L1.n_layers, L1.d_model, L1.n_kv_heads, L1.head_dim, L1.n_heads) == (16, 2048, 8, 64, 32)
    assert hw_mod.MODELS == {"llama-3.1-8b": L8, "llama-3.1-70b": L70, "llama-3.2-1b": L1}


def test_gpu_presets_match_datasheets():
    """NVIDIA datasheets: H100 SXM 3.35 TB/s, 989 TFLOPS dense bf16; A100 80GB 2,039 GB/s, 312 TFLOPS; 80 GB."""
    assert (H100.bandwidth, H100.flops, H100.memory) == (3.35e12, 989e12, 80e9)
    assert (A100.bandwidth, A100.flops, A100.memory) == (2.039e12, 312e12, 80e9)
    assert hw_mod.IDEAL_GPUS == {"h100-sxm": H100, "a100-80gb": A100, "h200-sxm": hw_mod.H200_IDEAL}
    assert (hw_mod.H200_IDEAL.bandwidth, hw_mod.H200_IDEAL.flops, hw_mod.H200_IDEAL.memory) == (4.8e12, 989e12, 141e9)
    for key, gpu in hw_mod.GPUS.items():    # the calibrated defaults: the same datasheet numbers
        ideal = hw_mod.IDEAL_GPUS[key]
        assert (gpu.bandwidth, gpu.flops, gpu.memory, gpu.link_bandwidth) == \
            (ideal.bandwidth, ideal.flops, ideal.memory, ideal.link_bandwidth)


def test_weight_and_kv_bytes_by_hand():
    assert L8.weight_bytes == 2 * 8_030_261_248
    assert L8.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2 == 131072
    assert L70.kv_bytes_per_token == 2 * 80 * 8 * 128 * 2 == 327680
    assert L1.kv_bytes_per_token == 2 * 16 * 8 * 64 * 2 == 32768
    q = hw_mod.Model(1e9, 10, 1024, 4, 64, bytes_per_param=0.5, kv_bytes_per_elem=1)
    assert q.weight_bytes == 0.5e9 and q.kv_bytes_per_token == 2 * 10 * 4 * 64 * 1
    assert q.n_heads == 16 and q.d_attn == 1024


def test_scaled_multiplies_every_resource():
    g = A100.scaled(4)
    assert (g.bandwidth, g.flops, g.memory) == (4 * 2.039e12, 4 * 312e12, 4 * 80e9)
    assert g.name == "4x A100 80GB SXM, ideal roofline (lower bound)"
    assert H100.scaled(1) == dataclasses.replace(H100, name="1x H100 SXM, ideal roofline (lower bound)")
    assert hw_mod.H100.scaled(8).name == "8x H100 SXM (calibrated)"
    assert hw_mod.H100.scaled(8).calibration is hw_mod.H100.calibration


def test_dataclasses_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        L8.n_params = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        H100.bandwidth = 1


def test_worked_example_target_step_is_close_to_the_sources():
    """Source 1 quotes T0 = 5.2 ms for 70B on TP=8; the roofline gives 141.1 GB / 26.8 TB/s."""
    t0 = hw_mod.step_time(L70, TP8)
    assert t0 == 2 * 70_553_706_496 / (8 * 3.35e12)
    assert round(t0 * 1e3, 2) == 5.27
    # its draft: 8B, 5 steps in 2.5 ms (0.5 ms each); roofline 0.60 ms per step on the same 8 GPUs
    assert round(hw_mod.step_time(L8, TP8) * 1e3, 2) == 0.6


# ---------------------------------------------------------------- roofline

@pytest.mark.parametrize("model", ALL_MODELS)
@pytest.mark.parametrize("hw", ALL_HW)
def test_plain_decode_step_is_exactly_one_weight_read(model, hw):
    assert hw_mod.step_time(model, hw) == model.weight_bytes / hw.bandwidth
    assert hw_mod.step_time(model, hw, batch=1, context=0, new_tokens=1) == model.weight_bytes / hw.bandwidth


def test_memory_bound_regime_by_hand():
    """Below the ridge, time = (weights + KV reads [+ writes]) / bandwidth."""
    b, c, n = 4, 1000, 3
    expected = (L8.weight_bytes + b * c * L8.kv_bytes_per_token) / H100.bandwidth
    assert_allclose(hw_mod.step_time(L8, H100, b, c, n), expected, rtol=1e-15)
    expected_w = (L8.weight_bytes + b * c * L8.kv_bytes_per_token + b * n * L8.kv_bytes_per_token) / H100.bandwidth
    assert_allclose(hw_mod.step_time(L8, H100, b, c, n, kv_write=True), expected_w, rtol=1e-15)
    assert hw_mod.step_bytes(L8, b, c, n, kv_write=True) == L8.weight_bytes + b * (c + n) * 131072


def test_compute_bound_regime_by_hand():
    """Far above the ridge, time = B n (2N + 4 layers d_attn C) / F."""
    b, c, n = 512, 100, 8
    flops = b * n * (2 * L8.n_params + 4 * 32 * 4096 * c)
    assert hw_mod.step_flops(L8, b, c, n) == flops
    assert_allclose(hw_mod.step_time(L8, H100, b, c, n), flops / H100.flops, rtol=1e-15)
    assert hw_mod.utilization(L8, H100, b, n, c) == pytest.approx(1.0, rel=1e-15)


def test_ridge_batch_is_exact_for_weights_only_passes():
    for model in ALL_MODELS:
        for hw in ALL_HW:
            assert hw_mod.ridge_batch(model, hw) == hw.flops / hw.bandwidth * model.bytes_per_param / 2
            assert_allclose(hw_mod.crossover_batch(model, hw), hw_mod.ridge_batch(model, hw), rtol=1e-14)
            assert_allclose(hw_mod.crossover_batch(model, hw, new_tokens=6), hw_mod.ridge_batch(model, hw) / 6,
                            rtol=1e-14)
    assert round(hw_mod.ridge_batch(L8, H100), 1) == 295.2
    assert round(hw_mod.ridge_batch(L8, A100), 1) == 153.0
    int8 = dataclasses.replace(L8, bytes_per_param=1)
    assert hw_mod.ridge_batch(int8, H100) == hw_mod.ridge_batch(L8, H100) / 2


def test_ridge_on_a_toy_machine_separates_the_regimes():
    """Ridge = 100 tokens: below it the weight read sets the time, above it the arithmetic."""
    assert hw_mod.ridge_batch(L8, TOY) == 100.0
    w = L8.weight_bytes / TOY.bandwidth
    t = hw_mod.step_time(L8, TOY, batch=np.array([1, 50, 99, 100, 101, 200]))
    assert_allclose(t[:4], w, rtol=1e-15)
    assert_allclose(t[4:], np.array([101, 200]) * 2 * L8.n_params / TOY.flops, rtol=1e-15)
    assert t[4] > w
    u = hw_mod.utilization(L8, TOY, np.array([1, 50, 100, 400]))
    assert_allclose(u, [0.01, 0.5, 1.0, 1.0], rtol=1e-14)


def test_crossover_with_kv_reads_by_hand_and_long_context_is_memory_bound():
    c = 512
    m_kv = c * L70.kv_bytes_per_token
    f = 2 * L70.n_params + 4 * 80 * 8192 * c
    expected = (L70.weight_bytes / TP8.bandwidth) / (f / TP8.flops - m_kv / TP8.bandwidth)
    assert_allclose(hw_mod.crossover_batch(L70, TP8, context=c), expected, rtol=1e-13)
    # above the crossover batch the pass is compute-bound, below it memory-bound
    b_star = hw_mod.crossover_batch(L70, TP8, context=c)
    lo, hi = math.floor(b_star), math.ceil(b_star)
    assert hw_mod.utilization(L70, TP8, lo, context=c) < 1.0
    assert hw_mod.utilization(L70, TP8, hi, context=c) == pytest.approx(1.0, rel=1e-12)
    # at 8192 tokens of context the KV reads outgrow the arithmetic: memory-bound at any batch
    assert hw_mod.crossover_batch(L70, TP8, context=8192) == math.inf
    assert hw_mod.utilization(L70, TP8, 100_000, context=8192) < 0.5


def test_arithmetic_intensity_at_batch_one_is_one_flop_per_byte_in_bf16():
    for model in ALL_MODELS:
        assert hw_mod.arithmetic_intensity(model) == 1.0
    assert hw_mod.arithmetic_intensity(L8, batch=64) == 64.0
    assert hw_mod.arithmetic_intensity(L8, batch=8, new_tokens=4) == 32.0


@settings(max_examples=60, deadline=None)
@given(b=st.integers(1, 2048), c=st.integers(0, 100_000), n=st.integers(1, 64),
       model=st.sampled_from(ALL_MODELS), hw=st.sampled_from(ALL_HW), kv_write=st.booleans())
def test_step_time_monotone_in_batch_context_and_tokens(b, c, n, model, hw, kv_write):
    t = hw_mod.step_time(model, hw, b, c, n, kv_write=kv_write)
    assert hw_mod.step_time(model, hw, b + 1, c, n, kv_write=kv_write) >= t
    assert hw_mod.step_time(model, hw, b, c + 1, n, kv_write=kv_write) >= t
    assert hw_mod.step_time(model, hw, b, c, n + 1, kv_write=kv_write) >= t
    assert t >= model.weight_bytes / hw.bandwidth


# ---------------------------------------------------------------- c_verify and c_draft

@settings(max_examples=80, deadline=None)
@given(k=st.integers(1, 32), b=st.integers(1, 4096), c=st.integers(0, 200_000),
       model=st.sampled_from(ALL_MODELS), hw=st.sampled_from(ALL_HW), kv_write=st.booleans())
def test_verify_cost_between_one_and_k_plus_one_and_monotone(k, b, c, model, hw, kv_write):
    cv = hw_mod.verify_cost(model, hw, k, b, c, kv_write=kv_write)
    assert 1.0 <= cv <= (k + 1) * (1 + 1e-15)
    assert hw_mod.verify_cost(model, hw, k + 1, b, c, kv_write=kv_write) >= cv
    assert hw_mod.verify_cost(model, hw, k, b + 1, c, kv_write=kv_write) >= cv * (1 - 1e-15)


def test_verify_cost_limits():
    ks = np.arange(1, 11)
    # batch 1: the k + 1 tokens ride on the weight read (roofline: exactly 1)
    assert (hw_mod.verify_cost(L70, TP8, ks) == 1.0).all()
    # both passes compute-bound: exactly k + 1
    assert_allclose(hw_mod.verify_cost(L70, TP8, ks, batch=4096), ks + 1, rtol=1e-14)
    # plain step memory-bound, verification compute-bound: (k+1) B / ridge
    b = 128
    expected = np.maximum(1.0, (ks + 1) * b / hw_mod.ridge_batch(L70, TP8))
    assert_allclose(hw_mod.verify_cost(L70, TP8, ks, batch=b), expected, rtol=1e-14)


def test_verify_cost_with_kv_writes_by_hand():
    k, b = 5, 1
    w, m = L70.weight_bytes, L70.kv_bytes_per_token
    assert_allclose(hw_mod.verify_cost(L70, TP8, k, b, kv_write=True), (w + 6 * m) / (w + m), rtol=1e-15)


def test_draft_cost_is_the_size_ratio_in_both_pure_regimes():
    assert_allclose(hw_mod.draft_cost(L8, L70, TP8), L8.n_params / L70.n_params, rtol=1e-15)
    # compute-bound at context 0: FLOP ratio, which is again the parameter ratio
    assert_allclose(hw_mod.draft_cost(L8, L70, TP8, batch=4096), L8.n_params / L70.n_params, rtol=1e-14)
    # separate hardware for the draft: one H100 is 8x slower than the group
    assert_allclose(hw_mod.draft_cost(L8, L70, TP8, draft_hardware=H100), 8 * L8.n_params / L70.n_params, rtol=1e-14)
    # context raises the draft's relative cost (its KV per token is 40 % of the target's, weights 11 %)
    cds = hw_mod.draft_cost(L8, L70, TP8, batch=64, context=np.array([0, 4096, 32768]))
    assert (np.diff(cds) > 0).all()


# ---------------------------------------------------------------- memory

def test_kv_cache_and_concurrency_by_hand():
    assert sd.memory.kv_cache_bytes(L70, batch=3, context=1000) == 3 * 1000 * 327680
    free = 8 * 80e9 - 2 * 70_553_706_496
    assert sd.memory.max_concurrent_sequences(L70, TP8, 8192) == math.floor(free / (8192 * 327680)) == 185
    free_d = free - 2 * 8_030_261_248
    per_seq = (8192 + 5) * (327680 + 131072)
    assert sd.memory.max_concurrent_sequences(L70, TP8, 8192, draft=L8, k=5) == math.floor(free_d / per_seq) == 128
    assert sd.memory.concurrency_lost_to_draft(L70, TP8, 8192, draft=L8, k=5) == 185 - 128
    # heads instead of a draft model: extra bytes only
    heads = 4 * 1.0e9
    assert sd.memory.max_concurrent_sequences(L70, TP8, 8192, extra_bytes=heads) == math.floor(
        (free - heads) / (8192 * 327680))
    # the 70B does not fit on one GPU at all
    assert sd.memory.max_concurrent_sequences(L70, H100, 1024) == 0
    out = sd.memory.max_concurrent_sequences(L8, H100, np.array([1024, 8192, 131072]))
    assert out.dtype.kind == "i" and (np.diff(out) < 0).all()


# ---------------------------------------------------------------- speculation on the roofline

def test_speculative_costs_agree_with_the_core_formulas():
    batch = np.array([1, 16, 64, 128, 256, 1024])
    r = sd.deployment.speculative_costs(L70, L8, TP8, 0.8, 5, batch, context=512, t_overhead=2e-4)
    cd = hw_mod.draft_cost(L8, L70, TP8, batch, 512)
    t0 = hw_mod.step_time(L70, TP8, batch, 512)
    cv = hw_mod.verify_cost(L70, TP8, 5, batch, 512) + 2e-4 / t0
    assert_allclose(r.c_draft, cd, rtol=1e-15)
    assert_allclose(r.c_verify, cv, rtol=1e-14)
    assert_allclose(r.speedup, sd.speedup_from_costs(0.8, 5, cd, cv), rtol=1e-14)
    assert_allclose(r.speedup, sd.speedup(0.8, 5, r.t0, r.t_draft, r.t_verify, r.t_overhead), rtol=1e-14)
    # at one batch, throughput and latency move by the same factor
    assert_allclose(r.throughput_speculative / r.throughput_baseline, r.speedup, rtol=1e-14)
    assert_allclose(r.latency_baseline / r.latency_speculative, r.speedup, rtol=1e-14)
    assert_allclose(sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 5, batch, 512, t_overhead=2e-4), r.speedup,
                    rtol=1e-15)
    thr = sd.deployment.speculative_throughput(L70, L8, TP8, 0.8, 5, batch, 512, t_overhead=2e-4)
    lat = sd.deployment.speculative_latency(L70, L8, TP8, 0.8, 5, batch, 512, t_overhead=2e-4)
    assert_allclose(thr.ratio, r.speedup, rtol=1e-14)
    assert_allclose(1 / lat.ratio, r.speedup, rtol=1e-14)


def test_batch_one_speedup_by_hand():
    """Memory-bound at batch 1: c_v = 1, c_d = N_d / N_t, S = E[L] / (k N_d/N_t + 1)."""
    e = float(sum(Fraction(4, 5) ** i for i in range(6)))
    expected = e / (5 * L8.n_params / L70.n_params + 1)
    s = sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 5)
    assert_allclose(s, expected, rtol=1e-14)
    assert round(s, 3) == 2.351


def test_break_even_batch_by_hand_for_the_worked_example_pair():
    """Between verification turning compute-bound and the plain step doing so, c_v = (k+1) B / ridge.

    S < 1 when (k+1) B / ridge > E[L] - k c_d, so the first losing batch is floor(B*) + 1.
    """
    e = sd.expected_tokens(0.8, 5)
    cd = L8.n_params / L70.n_params
    b_star = (e - 5 * cd) * hw_mod.ridge_batch(L70, TP8) / 6
    assert 6 * b_star > hw_mod.ridge_batch(L70, TP8) > b_star  # the regime assumed above holds
    b = sd.deployment.break_even_batch(L70, L8, TP8, 0.8, 5)
    assert b == math.floor(b_star) + 1 == 154
    s = sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 5, batch=[b - 1, b])
    assert s[0] >= 1 > s[1]


def test_speedup_falls_with_batch_and_long_context_restores_it():
    batch = np.arange(1, 1025)
    s = sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 5, batch)
    assert (np.diff(s) <= 1e-12).all()
    assert s[0] > 2 and s[-1] < 1
    # at long context the passes stay memory-bound: no break-even batch up to 4096
    assert math.isnan(sd.deployment.break_even_batch(L70, L8, TP8, 0.8, 5, context=8192))
    # but longer context still raises the draft's relative cost at batch 1
    s_ctx = sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 5, 1, np.array([0, 8192, 131072]))
    assert (np.diff(s_ctx) < 0).all()


def test_draft_cost_override_for_heads_and_overhead():
    s = sd.deployment.speculative_speedup(L70, None, TP8, 0.8, 5, draft_cost_override=0.0)
    assert_allclose(s, sd.expected_tokens(0.8, 5), rtol=1e-15)  # c_v = 1, free drafts
    t0 = hw_mod.step_time(L70, TP8)
    s = sd.deployment.speculative_speedup(L70, None, TP8, 0.8, 5, draft_cost_override=0.1, t_overhead=0.5 * t0)
    assert_allclose(s, sd.expected_tokens(0.8, 5) / (0.5 + 1.5), rtol=1e-14)


def test_fits_flags_and_latency_throughput_frontier():
    """Speculation lowers latency at small batch but its best throughput is lower (fewer sequences fit)."""
    batch = np.arange(1, 400)
    r = sd.deployment.speculative_costs(L70, L8, TP8, 0.8, 5, batch, context=8192)
    n_base = sd.memory.max_concurrent_sequences(L70, TP8, 8192)
    n_spec = sd.memory.max_concurrent_sequences(L70, TP8, 8192, draft=L8, k=5)
    assert r.fits_baseline.sum() == n_base and r.fits.sum() == n_spec
    assert (r.latency_speculative < r.latency_baseline).all()
    best_base = r.throughput_baseline[r.fits_baseline].max()
    best_spec = r.throughput_speculative[r.fits].max()
    assert best_spec > best_base  # at 8k context both stay memory-bound: speculation still wins
    r0 = sd.deployment.speculative_costs(L70, L8, TP8, 0.8, 5, np.arange(1, 3000), context=512)
    assert r0.throughput_speculative[r0.fits].max() < r0.throughput_baseline[r0.fits_baseline].max()
    assert r0.latency_speculative[0] < r0.latency_baseline[0]


def test_vectorized_shapes_and_scalar_returns():
    assert isinstance(hw_mod.step_time(L8, H100), float)
    assert isinstance(hw_mod.verify_cost(L8, H100, 3), float)
    assert isinstance(sd.memory.max_concurrent_sequences(L8, H100, 100), int)
    out = hw_mod.verify_cost(L8, H100, np.arange(1, 6)[:, None], batch=np.array([1, 64, 512]))
    assert out.shape == (5, 3)
    s = sd.deployment.speculative_speedup(L70, L8, TP8, np.array([0.6, 0.8])[:, None, None], np.arange(1, 4)[:, None],
                                   np.array([1, 256]))
    assert s.shape == (2, 3, 2)
    assert isinstance(sd.deployment.speculative_latency(L70, L8, TP8, 0.8, 5).ratio, float)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, match", [
    (dict(n_params=0), "n_params"), (dict(n_params=-1e9), "n_params"), (dict(n_params=float("nan")), "n_params"),
    (dict(n_layers=0), "n_layers"), (dict(d_model=100.5), "d_model"), (dict(head_dim=-64), "head_dim"),
    (dict(n_kv_heads=64), "n_kv_heads"), (dict(bytes_per_param=0), "bytes_per_param"),
    (dict(kv_bytes_per_elem=-2), "kv_bytes_per_elem"), (dict(head_dim=100), "n_heads"),
    (dict(n_heads=0), "n_heads"),
])
def test_model_rejects_bad_values(kwargs, match):
    base = dict(n_params=8e9, n_layers=32, d_model=4096, n_kv_heads=8, head_dim=128)
    with pytest.raises(ValueError, match=match):
        hw_mod.Model(**{**base, **kwargs})


@pytest.mark.parametrize("kwargs, match", [
    (dict(bandwidth=0), "bandwidth"), (dict(flops=-1), "flops"), (dict(memory=float("inf")), "memory"),
    (dict(flops=float("nan")), "flops"),
])
def test_hardware_rejects_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hw_mod.Hardware(**{**dict(bandwidth=1e12, flops=1e14, memory=1e10), **kwargs})


def test_type_errors():
    with pytest.raises(TypeError, match="n_params"):
        hw_mod.Model("8e9", 32, 4096, 8, 128)
    with pytest.raises(TypeError, match="name"):
        hw_mod.Hardware(1e12, 1e14, 1e10, name=3)
    with pytest.raises(TypeError, match="bandwidth"):
        hw_mod.Hardware([1e12, 2e12], 1e14, 1e10)
    with pytest.raises(TypeError, match="model"):
        hw_mod.step_time("llama", H100)
    with pytest.raises(TypeError, match="hardware"):
        hw_mod.step_time(L8, "h100")
    with pytest.raises(TypeError, match="kv_write"):
        hw_mod.step_time(L8, H100, kv_write=1)
    with pytest.raises(TypeError, match="batch"):
        hw_mod.step_time(L8, H100, batch=True)
    with pytest.raises(TypeError, match="draft"):
        hw_mod.draft_cost("1b", L8, H100)


@pytest.mark.parametrize("call, match", [
    (lambda: hw_mod.step_time(L8, H100, batch=0), "batch"),
    (lambda: hw_mod.step_time(L8, H100, context=-1), "context"),
    (lambda: hw_mod.step_time(L8, H100, new_tokens=0), "new_tokens"),
    (lambda: hw_mod.step_time(L8, H100, batch=2.5), "batch"),
    (lambda: hw_mod.verify_cost(L8, H100, k=0), "k"),
    (lambda: hw_mod.verify_cost(L8, H100, k=np.nan), "k"),
    (lambda: hw_mod.draft_cost(L1, L8, H100, batch=-3), "batch"),
    (lambda: hw_mod.utilization(L8, H100, batch=0), "batch"),
    (lambda: sd.memory.kv_cache_bytes(L8, 0, 10), "batch"),
    (lambda: sd.memory.max_concurrent_sequences(L8, H100, context=0), "context"),
    (lambda: sd.memory.max_concurrent_sequences(L8, H100, 100, extra_bytes=-1), "extra_bytes"),
    (lambda: sd.memory.max_concurrent_sequences(L8, H100, 100, k=-1), "k"),
    (lambda: H100.scaled(0), "n"),
    (lambda: sd.deployment.speculative_speedup(L70, L8, TP8, 1.5, 5), "alpha"),
    (lambda: sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 0), "k"),
    (lambda: sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 5, t_overhead=-1.0), "t_overhead"),
    (lambda: sd.deployment.speculative_speedup(L70, None, TP8, 0.8, 5), "draft"),
    (lambda: sd.deployment.speculative_speedup(L70, L8, TP8, 0.8, 5, draft_cost_override=-0.1), "draft_cost_override"),
    (lambda: sd.deployment.break_even_batch(L70, L8, TP8, 0.8, 5, batch_max=0), "batch_max"),
    (lambda: hw_mod.crossover_batch(L8, H100, context=-5), "context"),
])
def test_value_errors_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_break_even_batch_requires_scalars():
    with pytest.raises(TypeError, match="alpha"):
        sd.deployment.break_even_batch(L70, L8, TP8, [0.7, 0.8], 5)


# ---------------------------------------------------------------- figures and explorer (presentation smoke tests)

def test_roofline_figures_draw_and_explorer_defaults_match_the_model():
    """The explorer's defaults are the worked example; its read-out equals the module's numbers."""
    plots = sd.plots
    for fig in (plots.roofline_diagram(L70, TP8), plots.roofline_verify_cost_vs_k(L70, TP8),
                plots.roofline_speedup_vs_batch(L70, L8, TP8, batch_max=64),
                plots.roofline_latency_throughput(L70, L8, TP8, batch_max=256),
                plots.roofline_concurrency(L70, TP8, L8)):
        assert len(fig.axes) == 1
    assert len(plots.roofline_overview(L70, L8, TP8).axes) == 2
    w = sd.widgets.roofline_explorer()
    v = w.values
    cal8 = hw_mod.H100.scaled(8)     # the explorer's default: the calibrated group
    assert v["hardware"] == cal8 and not v["hardware"].is_ideal
    assert v["t0"] == hw_mod.step_time(L70, cal8) > hw_mod.step_time(L70, TP8)
    assert v["c_verify"] == hw_mod.verify_cost(L70, cal8, 5) > 1.0    # not free on the calibrated model
    assert v["break_even_batch"] == sd.deployment.break_even_batch(L70, L8, cal8, 0.8, 5)
    assert_allclose(v["speedup"], sd.deployment.speculative_speedup(L70, L8, cal8, 0.8, 5), rtol=1e-15)
    w.controls["batch"].value = 256
    assert_allclose(w.values["c_verify"], hw_mod.verify_cost(L70, cal8, 5, 256), rtol=1e-15)
    with pytest.raises(ValueError, match="batch"):
        sd.widgets.roofline_explorer(batch=3)
    with pytest.raises(ValueError, match="target"):
        sd.widgets.roofline_explorer(target="gpt-5")


def test_roofline_explorer_moved_and_back_draws_its_first_image():
    """The one redraw cache leaves no stale pixels: moved away and back, the explorer shows its first image again."""
    w = sd.widgets.roofline_explorer()
    first = w.image.value
    assert first.startswith('<img src="data:image/png;base64,')
    for name, value in (("batch", 64), ("k", 3), ("alpha", 0.65)):
        w.controls[name].value = value
        assert w.image.value != first
    assert_allclose(w.values["c_verify"], hw_mod.verify_cost(L70, hw_mod.H100.scaled(8), 3, 64), rtol=1e-15)
    for name, value in (("alpha", 0.8), ("k", 5), ("batch", 1)):
        w.controls[name].value = value
    assert w.image.value == first


# ------------------------------------------- candidate KV, capped draft caches, explorers
def test_candidate_kv_bytes_hand_value():
    """B * k * (2 * layers * kv_heads * head_dim * 2 bytes) for Llama 3.1 70B."""
    m = sd.hardware.LLAMA_70B
    assert sd.memory.candidate_kv_bytes(m, 32, 5) == 32 * 5 * (2 * 80 * 8 * 128 * 2)
    assert_allclose(sd.memory.candidate_kv_bytes(m, np.array([1, 2]), 3), np.array([3, 6]) * m.kv_bytes_per_token)
    with pytest.raises(TypeError, match="model"):
        sd.memory.candidate_kv_bytes("70b", 1, 5)
    with pytest.raises(ValueError, match="batch"):
        sd.memory.candidate_kv_bytes(m, 0, 5)


def test_draft_cost_with_kv_budget_against_hand_roofline():
    """With a budget the draft reads min(C, budget) cached tokens; hand roofline at a memory-bound point."""
    h = sd.hardware
    t, d, hw = h.LLAMA_70B, h.LLAMA_8B, h.H100_IDEAL.scaled(8)
    b, c, budget = 32, 32768, 512
    # both passes memory-bound here (checked: FLOPs / F is far below bytes / BW)
    t_target = (t.weight_bytes + b * c * t.kv_bytes_per_token) / hw.bandwidth
    t_draft = (d.weight_bytes + b * budget * d.kv_bytes_per_token) / hw.bandwidth
    assert 2 * t.n_params * b / hw.flops < t_target
    assert h.draft_cost(d, t, hw, b, c, kv_budget=budget) == pytest.approx(t_draft / t_target, rel=1e-12)
    # no budget: the hardware module's full-cache draft cost
    assert h.draft_cost(d, t, hw, b, c) == pytest.approx(h.draft_cost(d, t, hw, b, c), rel=1e-15)
    # budget above the context changes nothing
    assert h.draft_cost(d, t, hw, b, 100, kv_budget=512) == pytest.approx(h.draft_cost(d, t, hw, b, 100))


def test_draft_cost_with_kv_budget_trend_and_validation():
    """A capped draft gets relatively cheaper as batch grows at long context (MagicDec's regime)."""
    h = sd.hardware
    t, d, hw = h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8)
    cd = h.draft_cost(d, t, hw, np.array([1, 8, 32]), 32768, kv_budget=512)
    assert np.all(np.diff(cd) < 0)
    with pytest.raises(ValueError, match="kv_budget"):
        h.draft_cost(d, t, hw, 1, 100, kv_budget=-1)
    with pytest.raises(ValueError, match="kv_budget"):
        h.draft_cost(d, t, hw, 1, 100, kv_budget=[1, 2])
    with pytest.raises(ValueError, match="context"):
        h.draft_cost(d, t, hw, 1, -5, kv_budget=10)


def test_explorers_show_hardware_numbers():
    """The explorers' read-outs equal sd.hardware / sd.deployment at their default values."""
    h = sd.hardware
    t, d, hw = h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8)
    v = sd.widgets.verify_cost_explorer(t, hw, batch=64, context=0, k=5)
    assert v.values["c_verify"] == pytest.approx(h.verify_cost(t, hw, 5, batch=64))
    e = sd.widgets.batch_context_explorer(t, d, hw)
    cd = h.draft_cost(d, t, hw, 32, 32768, kv_budget=512)
    assert e.values["speedup_capped"] == pytest.approx(
        sd.deployment.speculative_speedup(t, d, hw, 0.8, 5, batch=32, context=32768, draft_cost_override=cd))
    e.alpha_slider.value = 0.6
    assert e.values["speedup_full"] == pytest.approx(sd.deployment.speculative_speedup(t, d, hw, 0.6, 5, batch=32, context=32768))
    assert e.image.value.startswith('<img src="data:image/png;base64,')


# ---------------------------------------------------------------- the default model: calibrated

def test_the_default_presets_are_the_calibrated_ones():
    """sd.hardware.H100 / A100 / H200 and GPUS carry the fitted calibrations; the *_IDEAL twins carry none."""
    cal = sd.calibration
    h = hw_mod
    assert h.H100.calibration is cal.H100_CALIBRATION and h.H200.calibration is cal.H100_CALIBRATION
    assert h.A100.calibration is cal.A100_CALIBRATION
    assert h.GPUS == {"h100-sxm": h.H100, "a100-80gb": h.A100, "h200-sxm": h.H200}
    for key, gpu in h.GPUS.items():
        assert not gpu.is_ideal and gpu.name.endswith(" (calibrated)")
        ideal = h.IDEAL_GPUS[key]
        assert ideal.calibration is None and ideal.is_ideal
        assert ideal.name == gpu.base_name + ", ideal roofline (lower bound)"
        assert gpu.ideal() == ideal and ideal.calibrated(gpu.calibration) == gpu
    assert (h.H100.base_name, h.A100.base_name, h.H200.base_name) == ("H100 SXM", "A100 80GB SXM", "H200 SXM")
    assert h.H100.scaled(8).ideal() == h.H100_IDEAL.scaled(8)
    # a hardware of the reader's own keeps its name both ways
    laptop = h.Hardware(bandwidth=50e9, flops=1e12, memory=16e9, name="laptop")
    assert laptop.ideal() is laptop and laptop.calibrated(cal.H100_CALIBRATION).ideal() == laptop


def test_no_function_defaults_to_the_ideal_roofline():
    """Every Hardware that is a default argument of a public specdec function is calibrated."""
    import importlib
    import inspect
    import pkgutil

    found = []
    for info in pkgutil.walk_packages(sd.__path__, "specdec."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _name, obj in vars(module).items():
            candidates = [obj] + ([m for m in vars(obj).values() if inspect.isfunction(m)] if inspect.isclass(obj) else [])
            for fn in candidates:
                if not inspect.isfunction(fn) or not fn.__module__.startswith("specdec"):
                    continue
                for param in inspect.signature(fn).parameters.values():
                    if isinstance(param.default, hw_mod.Hardware):
                        found.append((fn.__qualname__, param.name, param.default))
    assert found, "the scan found no Hardware default at all: it is not looking"
    ideal = [(f, p) for f, p, d in found if d.is_ideal]
    assert not ideal, ideal


def test_functions_with_a_hardware_default_use_the_calibrated_presets():
    """Omitting the hardware gives the same numbers as passing the calibrated preset."""
    cal, h = sd.calibration, hw_mod
    assert cal.round_cost_checks() == cal.round_cost_checks(h.A100)
    assert cal.round_cost_checks() != cal.round_cost_checks(h.A100_IDEAL)
    assert cal.first_source_check() == cal.first_source_check(h.H100)
    r, r_explicit = cal.eagle_large_draft(0.7), cal.eagle_large_draft(0.7, h.A100)
    assert r["70B"]["speedup"] == r_explicit["70B"]["speedup"]
    g8 = h.H100.scaled(8)
    w = sd.widgets.verify_cost_explorer()
    assert w.values["c_verify"] == pytest.approx(h.verify_cost(L70, g8, 5, batch=64), rel=1e-15)
    w = sd.widgets.latency_throughput_explorer()
    ref = sd.regimes.capacity_comparison(L70, L8, g8, 0.8, 5, 2048)
    assert w.values["capacity"].throughput_ratio == pytest.approx(ref.throughput_ratio, rel=1e-15)


GRID_BATCH = np.array([1, 2, 8, 32, 128, 512, 2048])
GRID_CONTEXT = np.array([0, 1, 512, 4096, 32768, 131072])
GRID_NEW = np.array([1, 2, 4, 6, 11, 64])


@pytest.mark.parametrize("model_key", sorted(hw_mod.MODELS))
@pytest.mark.parametrize("gpu_key", sorted(hw_mod.GPUS))
@pytest.mark.parametrize("tp", [1, 2, 8])
def test_the_ideal_roofline_is_a_lower_bound_of_the_calibrated_one(model_key, gpu_key, tp):
    """T_ideal(B, C, n) <= T_calibrated(B, C, n) at every grid point, for every catalogue model, GPU and TP degree.

    The ideal time is also checked against its hand formula max(bytes / BW, FLOPs / F), so the bound is
    not a comparison of the module with itself only.
    """
    model = hw_mod.MODELS[model_key]
    cal_hw, ideal_hw = hw_mod.GPUS[gpu_key], hw_mod.IDEAL_GPUS[gpu_key]
    if tp > 1:
        cal_hw, ideal_hw = cal_hw.scaled(tp), ideal_hw.scaled(tp)
    b, c, n = np.meshgrid(GRID_BATCH, GRID_CONTEXT, GRID_NEW, indexing="ij")
    ideal = hw_mod.step_time(model, ideal_hw, b, c, n)
    hand = np.maximum((model.weight_bytes + b * c * model.kv_bytes_per_token) / ideal_hw.bandwidth,
                      b * n * (2 * model.n_params + 4 * model.n_layers * model.d_attn * c) / ideal_hw.flops)
    assert_allclose(ideal, hand, rtol=1e-12)
    calibrated = hw_mod.step_time(model, cal_hw, b, c, n)
    assert np.all(ideal <= calibrated), float((ideal / calibrated).max())
    # the calibration's fixed cost alone keeps the calibrated time strictly above the bound
    assert np.all(calibrated >= ideal + cal_hw.calibration.step_overhead * (1 - 1e-12))


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(sorted(hw_mod.MODELS)), gpu=st.sampled_from(sorted(hw_mod.GPUS)),
       tp=st.sampled_from([1, 2, 4, 8]), batch=st.integers(1, 4096), context=st.integers(0, 200_000),
       new_tokens=st.integers(1, 128))
def test_the_ideal_lower_bound_holds_anywhere(model, gpu, tp, batch, context, new_tokens):
    """The same bound at random points off the grid (hypothesis)."""
    m = hw_mod.MODELS[model]
    one, ideal = hw_mod.GPUS[gpu], hw_mod.IDEAL_GPUS[gpu]
    cal_hw, ideal_hw = (one.scaled(tp), ideal.scaled(tp)) if tp > 1 else (one, ideal)
    assert hw_mod.step_time(m, ideal_hw, batch, context, new_tokens) <= hw_mod.step_time(m, cal_hw, batch, context,
                                                                                           new_tokens)

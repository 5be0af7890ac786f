"""The catalogue, the small-M kernel model, engine profiles and the fit's uncertainty (issue 24, roofline part)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
from specdec import calibration as cal
from specdec import catalogue, kernels, profiles
from specdec import fit_uncertainty as fu
from specdec import hardware as hw
from specdec.sources import SOURCES

# --------------------------------------------------------------------------
# catalogue: datasheets and configurations, typed again from the sources
# --------------------------------------------------------------------------

DATASHEETS = {  # key: (GB, GB/s, dense bf16 TFLOPS, link GB/s per direction)
    "a100-40gb": (40, 1555, 312, 300), "a100-80gb": (80, 2039, 312, 300), "rtx-3090": (24, 936, 71, 32),
    "l40s": (48, 864, 362.05, 32), "h100-sxm": (80, 3350, 989, 450), "h200-sxm": (141, 4800, 989, 450),
    "b200": (180, 8000, 2250, 900),
}


@pytest.mark.parametrize("key", sorted(DATASHEETS))
def test_every_gpu_carries_its_datasheet_numbers_and_a_citation(key):
    g = catalogue.gpu_spec(key)
    gb, bw, tf, link = DATASHEETS[key]
    assert (g.memory, g.bandwidth, g.peak("bf16"), g.link_bandwidth) == (gb * 1e9, bw * 1e9, tf * 1e12, link * 1e9)
    assert g.cited.source in SOURCES and g.cited.where and g.cited.checked_in


def test_fp8_and_int8_exist_only_where_the_card_has_them():
    assert "fp8" not in catalogue.gpu_spec("a100-80gb").flops and "fp8" in catalogue.gpu_spec("h100-sxm").flops
    assert catalogue.gpu_spec("h100-sxm").peak("fp8") == 1979e12     # 3,958 with sparsity, halved
    with pytest.raises(ValueError, match="number_format"):
        catalogue.gpu_spec("a100-80gb").peak("fp8")


# parameter counts printed by their publishers (exact for dense Llama models, rounded for the MoE models)
PUBLISHED_PARAMS = {"llama-2-7b": 6_738_415_616, "llama-2-13b": 13_015_864_320, "llama-2-70b": 68_976_648_192,
                    "llama-3.1-8b": 8_030_261_248, "llama-3.1-70b": 70_553_706_496, "llama-3.2-1b": 1_235_814_400,
                    "vicuna-68m": 68_030_208}


@pytest.mark.parametrize("key", sorted(PUBLISHED_PARAMS))
def test_dense_parameter_counts_follow_from_the_configuration(key):
    assert catalogue.model_spec(key).n_params == PUBLISHED_PARAMS[key]


def test_mixture_of_experts_counts_match_the_announced_totals_and_active_parameters():
    mix, ds = catalogue.model_spec("mixtral-8x7b"), catalogue.model_spec("deepseek-v3")
    assert abs(mix.n_params / 46.7e9 - 1) < 0.005 and abs(mix.active_params / 12.9e9 - 1) < 0.005
    assert abs(ds.n_params / 671e9 - 1) < 0.01 and abs(ds.active_params / 37e9 - 1) < 0.03
    assert ds.kv_dim == 512 + 64                                  # MLA caches its latent and the rope key
    assert hw.model_preset("deepseek-v3").kv_bytes_per_token == 61 * 576 * 2


def test_the_hardware_presets_are_views_of_the_catalogue():
    assert hw.LLAMA_8B.n_params == catalogue.model_spec("llama-3.1-8b").n_params
    assert hw.H100_IDEAL.bandwidth == catalogue.gpu_spec("h100-sxm").bandwidth
    assert hw.IDEAL_GPUS["a100-80gb"] == hw.gpu_preset("a100-80gb") and hw.GPUS["h100-sxm"] is hw.H100
    assert cal.LLAMA2_70B == hw.model_preset("llama-2-70b") and cal.VICUNA_68M.n_params == 68_030_208


@pytest.mark.parametrize("target, tol", [("vicuna-7b", 0.02), ("vicuna-13b", 0.01), ("llama-2-70b", 0.01),
                                         ("llama-3-8b", 0.01), ("llama-3.1-8b", 0.01)])
def test_an_eagle_head_built_from_its_architecture_matches_the_readme_count(target, tol):
    h = catalogue.eagle_head(target, 2)
    assert abs(h["head_params"] / h["cited_params"] - 1) < tol
    d, v = h["d_model"], catalogue.model_spec(target).vocab
    assert h["lm_head_params"] == d * v and h["read_params"] == h["head_params"] + d * v


def test_eagle3_fuses_three_features_and_reads_its_own_small_lm_head():
    e2, e3 = catalogue.eagle_head("llama-3.1-8b", 2), catalogue.eagle_head("llama-3.1-8b", 3)
    assert e3["lm_head_params"] == 4096 * 32000 < e2["lm_head_params"] == 4096 * 128256
    assert e3["head_params"] - e2["head_params"] > 4096 * 4096       # a wider fusion layer and a 2d-wide attention


def test_medusa_heads_are_a_residual_block_and_an_lm_head_each():
    assert catalogue.medusa_heads("vicuna-7b", 4)["params"] == 4 * (4096 * 4096 + 4096 + 4096 * 32000)
    assert cal.MEDUSA_HEADS_7B_PARAMS == catalogue.medusa_heads("vicuna-7b")["params"]


def test_distinct_experts_match_a_seeded_monte_carlo():
    rng = np.random.default_rng(7)
    for e, a, n in ((8, 2, 6), (256, 8, 64), (256, 8, 1)):
        hits = [len(set(np.concatenate([rng.choice(e, a, replace=False) for _ in range(n)]))) for _ in range(4000)]
        assert abs(np.mean(hits) - catalogue.distinct_experts(e, a, n)) < 4 * np.std(hits) / math.sqrt(4000) + 1e-9
    assert catalogue.distinct_experts(8, 2, 1) == 2.0
    with pytest.raises(ValueError, match="experts_per_token"):
        catalogue.distinct_experts(8, 9, 1)


def test_a_moe_pass_reads_the_experts_its_tokens_touch():
    m = hw.model_preset("mixtral-8x7b")
    dense = m.n_params - m.expert_params
    one = hw.step_bytes(m, 1, 0, 1)
    assert_allclose(one, (dense + m.expert_params * 2 / 8) * 2, rtol=1e-12)
    many = hw.step_bytes(m, 64, 0, 1)
    assert_allclose(many, (dense + m.expert_params * (1 - (6 / 8) ** 64)) * 2, rtol=1e-12)
    assert hw.step_flops(m) == 2 * m.active_params


def test_an_mla_latent_is_held_whole_on_every_gpu_of_a_group():
    m = hw.model_preset("deepseek-v3", "fp8")
    g = hw.H200.scaled(8)
    p = hw.step_time_parts(m, g, 1, 4096)
    c = g.calibration
    weights = (m.n_params - m.expert_params + m.expert_params * 8 / 256) * 1.0
    expected = (weights + (4096 + 1) * m.kv_bytes_per_token * 8) / (8 * 4.8e12 * c.bw_efficiency)  # read + write
    assert_allclose(p["memory"], expected, rtol=1e-12)


def test_weight_formats_set_the_bytes_and_the_rate_of_the_products():
    f = catalogue.weight_format("int4-weight-only")
    assert f.bytes_per_param == 0.5 + 4 / 32 and f.compute == "bf16"
    assert hw.model_preset("llama-3.1-8b", "fp8").weight_bytes == hw.LLAMA_8B.n_params


# --------------------------------------------------------------------------
# kernels: tile quantization at small M
# --------------------------------------------------------------------------

def test_padded_tokens_round_up_to_whole_tiles():
    assert kernels.padded_tokens([1, 63, 64, 65, 128, 129], 64).tolist() == [64, 64, 64, 128, 128, 192]
    assert kernels.padded_tokens(7, 1) == 7
    assert kernels.tile_efficiency(32, 64) == 0.5


def test_a_gemm_is_flat_within_a_tile_and_steps_beyond_it():
    bw, fl = 1.5e12, 2.3e14
    t = np.asarray(kernels.gemm_time(np.arange(1, 200), 8e9, bw, fl, tile=64, overlap=0.2))
    assert np.ptp(t[:64]) == 0.0 and t[64] > t[63]                 # 1..64 rows: one tile, hidden under the read
    assert np.ptp(t[64:128]) == 0.0 and t[128] > t[127]
    tm, tile = 8e9 * 2 / bw, 2 * 8e9 * 64 / fl                     # by hand: the second tile adds (1 - o) of its work
    assert_allclose(t[64], max(tm, 2 * tile) + 0.8 * min(tm, tile), rtol=1e-12)


def test_calibrated_verification_is_flat_up_to_one_tile_then_steps():
    cv = np.asarray(hw.verify_cost(hw.LLAMA_8B, hw.H100, np.arange(1, 130)))
    assert cv[:63].max() - cv[0] < 0.01                           # k = 1..63: 2..64 tokens, one tile
    assert cv[64] - cv[62] > 0.02                                  # k = 64: 65 tokens, a second tile
    assert (np.diff(cv) >= 0).all()


def test_the_tree_mask_counts_ancestors_not_the_whole_pass():
    c = hw.H100.calibration
    group = hw.H100
    chain = hw.verify_cost(hw.LLAMA_70B, group, 63, 1, 4096)
    tree = hw.verify_cost(hw.LLAMA_70B, group, 63, 1, 4096, ancestors=4.0)
    assert tree < chain and c.causal_attention
    with pytest.raises(ValueError, match="ancestors"):
        hw.verify_cost(hw.LLAMA_70B, group, 63, ancestors=0.5)


# --------------------------------------------------------------------------
# engine profiles
# --------------------------------------------------------------------------

def test_every_engine_has_a_profile_with_its_regime():
    assert set(profiles.PROFILES) == {"hf-eager", "research", "sglang", "vllm", "trtllm", "gpt-fast"}
    assert {p.launch for p in profiles.PROFILES.values()} == {"graphs", "eager"}
    assert profiles.profile("sglang").step_overhead == cal.FIXED_COSTS["SGLang"]


def test_the_eager_cost_is_fitted_per_gpu_and_gives_an_a100_step_near_its_measurement():
    hf = profiles.profile("hf-eager")
    a100 = hf.on("a100-80gb")
    t7 = float(hw.step_time(hw.model_preset("vicuna-7b"), a100, 1, 512))
    assert abs(t7 - 1 / 46.8) / (1 / 46.8) < 0.15 and t7 < 0.0319 * 0.65     # not the 31.9 ms of the 3090's cost
    r3090 = hf.on("rtx-3090")
    assert_allclose(float(hw.step_time(cal.LLAMA2_7B, r3090, 1, 512)), 1 / 24.5, rtol=1e-9)   # one point, one term
    assert hf.eager_cost("rtx-3090") != hf.eager_cost("a100-80gb")
    assert hf.eager_cost("h100-sxm") == hf.eager_cost("a100-80gb")                        # carried, as stated


def test_a_profile_names_itself_on_the_hardware_it_returns():
    g = profiles.profile("vllm").on(hw.H200, tp=4)
    assert g.tp == 4 and "(vllm)" in g.name and g.calibration.step_overhead == cal.FIXED_COSTS["vLLM"]
    assert g.calibration.allreduce_latency == cal.ALLREDUCE_LATENCIES["hopper-nvswitch"]


def test_a_profile_can_start_from_a_bootstrap_replicate():
    rep = fu.bootstrap(2, seed=4)[0]
    g = profiles.profile("sglang").on("h100-sxm", 8, base=rep.h100)
    assert g.calibration.allreduce_latency == rep.h100.allreduce_latency
    assert g.calibration.step_overhead == cal.FIXED_COSTS["SGLang"] and g.tp == 8
    with pytest.raises(TypeError, match="base"):
        profiles.profile("sglang").on("h100-sxm", base=0.5)


def test_no_speculative_speedup_enters_any_fit():
    for m in profiles.FITTED:
        assert m.quoted.value["unit"] in ("tokens/s", "ms")
        assert "speedup" not in m.label.lower() and "w/ medusa" not in m.quoted.where.lower()
    assert {m.key for m in profiles.FITTED}.isdisjoint({m.key for m in profiles.HELD_OUT})


# --------------------------------------------------------------------------
# the fit: one fixed cost per engine, one latency per fabric, its uncertainty
# --------------------------------------------------------------------------

def test_the_stored_terms_are_the_fits_rounded():
    t = cal.fit_calibration().terms
    assert abs(t["step_overhead[gpt-fast]"] - cal.FIXED_COSTS["gpt-fast"]) < 0.005e-3
    assert abs(t["step_overhead[TensorRT-LLM v0.5]"] - cal.FIXED_COSTS["TensorRT-LLM v0.5"]) < 0.005e-3
    for fabric in ("a100-cube-mesh-nccl", "a100-nvswitch-trtllm"):
        assert abs(t[f"allreduce_latency[{fabric}]"] - cal.ALLREDUCE_LATENCIES[fabric]) < 0.05e-6
    h = cal.fit_hopper().terms
    assert abs(h["allreduce_latency[hopper-nvswitch]"] - cal.ALLREDUCE_LATENCIES["hopper-nvswitch"]) < 0.05e-6
    assert abs(h["step_overhead[vLLM]"] - cal.FIXED_COSTS["vLLM"]) < 0.005e-3
    assert abs(h["step_overhead[SGLang]"] - cal.FIXED_COSTS["SGLang"]) < 0.005e-3


def test_the_residual_scale_is_the_root_mean_square_over_the_degrees_of_freedom():
    assert_allclose(fu.residual_scale([0.03, -0.04, 0.0], 1), math.sqrt((0.03**2 + 0.04**2) / 2), rtol=1e-12)


def test_the_bootstrap_is_seeded_and_its_intervals_hold_the_point_estimates():
    a, b = fu.bootstrap(12, seed=5), fu.bootstrap(12, seed=5)
    assert [r.terms for r in a] == [r.terms for r in b]
    iv = fu.term_intervals(fu.bootstrap(60, seed=0), 0.95)
    for key in ("bw_efficiency", "flops_efficiency"):
        lo, hi = iv[key]
        assert lo <= getattr(cal.A100_CALIBRATION, key) <= hi
    lo, hi = iv["allreduce_latency[hopper-nvswitch]"]
    assert lo <= cal.H100_CALIBRATION.allreduce_latency <= hi


def test_headline_numbers_are_the_deployment_functions_on_the_default_group():
    h = fu.headline_numbers()
    g = hw.H100.scaled(8)
    assert_allclose(h["t0_ms"], float(hw.step_time(hw.LLAMA_70B, g)) * 1e3, rtol=1e-12)
    assert h["break_even"] == sd.deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, g, 0.8, 5, kv_write=True)

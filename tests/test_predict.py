"""Tests of specdec.predict: every round priced from specdec.roofline.hardware.step_time by hand, and the validation.

The references below re-assemble each round from the roofline's step times (and, where the book has
one, from ``draft_cost``/``verify_cost``/``tree_verify_cost``), or from exact arithmetic on the ideal
roofline, never from the prediction itself.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
from specdec import hardware as h
from specdec import predict
from specdec.verification.trees import tree_verify_cost

TARGET, DRAFT = h.LLAMA_70B, h.LLAMA_8B
#: A stand-in EAGLE head: one Llama 3.1 8B layer plus its LM head (sizes from config.json: 4096 x 14336
#: MLP, 32 query and 8 KV heads of 128, vocab 128256), as a one-layer model.
_LAYER = 4 * 4096 * 4096 // 4 * 2 + 2 * 4096 * 1024 + 3 * 4096 * 14336   # q, o; k, v; gate, up, down
HEAD = h.Model(n_params=_LAYER + 4096 * 128256, n_layers=1, d_model=4096, n_kv_heads=8, head_dim=128,
               n_heads=32, name="test head")


def _hw(gpu="h100-sxm", n=1):
    one = h.GPUS[gpu]
    return one.scaled(n) if n > 1 else one


def test_separate_draft_chain_is_tau_over_k_draft_steps_plus_verification():
    """tau T0 / (k T_draft(1) + T(k + 1)), and the same as tau / (k c_d + c_v) from draft_cost/verify_cost."""
    hw = _hw(n=8)
    p = predict.predict_speedup(TARGET, DRAFT, k=5, tau=3.5, n_gpus=8)
    t0 = h.step_time(TARGET, hw)
    t_round = 5 * h.step_time(DRAFT, hw) + h.step_time(TARGET, hw, new_tokens=6)
    assert_allclose(p.speedup, 3.5 * t0 / t_round, rtol=1e-12)
    assert_allclose(p.speedup, 3.5 / (5 * h.draft_cost(DRAFT, TARGET, hw) + h.verify_cost(TARGET, hw, 5)),
                    rtol=1e-12)
    assert_allclose([p.t0, p.t_draft, p.t_verify, p.t_overhead],
                    [t0, 5 * h.step_time(DRAFT, hw), h.step_time(TARGET, hw, new_tokens=6), 0.0], rtol=1e-12)
    assert p.plan.draft_tokens == (1,) * 5 and p.plan.verify_tokens == 6


def test_batch_and_context_reach_every_pass():
    hw = _hw("a100-80gb", 4)
    p = predict.predict_speedup(TARGET, DRAFT, k=3, tau=2.8, gpu="a100-80gb", n_gpus=4, batch=16, context=2048)
    t0 = h.step_time(TARGET, hw, 16, 2048)
    t_round = 3 * h.step_time(DRAFT, hw, 16, 2048) + h.step_time(TARGET, hw, 16, 2048, 4)
    assert_allclose(p.speedup, 2.8 * t0 / t_round, rtol=1e-12)


def test_ideal_roofline_lookup_draft_at_batch_one_is_exactly_tau():
    """On the ideal roofline a memory-bound pass over k + 1 tokens costs one weight read: S = tau."""
    p = predict.predict_speedup(TARGET, "pld", k=4, tau=2.25, gpu=h.H100_IDEAL, n_gpus=8)
    assert p.speedup == pytest.approx(2.25, rel=1e-12)
    assert p.t0 == pytest.approx(TARGET.weight_bytes / (8 * 3.35e12), rel=1e-12)


def test_lookup_time_is_the_whole_draft_cost():
    hw = _hw()
    p = predict.predict_speedup(DRAFT, "ngram", k=4, tau=2.0, lookup_time=1e-4)
    assert p.t_draft == 1e-4
    assert_allclose(p.speedup, 2.0 * h.step_time(DRAFT, hw) / (1e-4 + h.step_time(DRAFT, hw, new_tokens=5)))


def test_eagle2_tree_by_size_runs_depth_head_passes_and_verifies_the_nodes():
    """EAGLE-2 (60 nodes, depth 6, top-k 10): a head pass over round(tau) tokens, 5 over 10, a 61-token check."""
    hw = _hw()
    tau = 4.3
    p = predict.predict_speedup(DRAFT, "eagle2", head=HEAD, n_nodes=60, depth=6, width=10, tau=tau)
    t0 = h.step_time(DRAFT, hw)
    t_draft = h.step_time(HEAD, hw, new_tokens=4) + 5 * h.step_time(HEAD, hw, new_tokens=10)
    t_verify = tree_verify_cost(DRAFT, hw, 60) * t0
    assert_allclose([p.t_draft, p.t_verify], [t_draft, t_verify], rtol=1e-12)
    assert_allclose(p.speedup, tau * t0 / (t_draft + t_verify), rtol=1e-12)


def test_tree_by_parents_expands_each_level_once():
    """Parents [-1, -1, 0, 0, 1, 2]: levels of 2, 3 and 1 nodes; the parents of levels 2 and 3 are 2 and 1 nodes."""
    plan = predict.round_plan("model", tree=[-1, -1, 0, 0, 1, 2])
    assert plan == predict.RoundPlan((1, 2, 1), 7, 6, 3)
    hw = _hw()
    p = predict.predict_speedup(TARGET, DRAFT, tree=[-1, -1, 0, 0, 1, 2], tau=2.5, n_gpus=8)
    hw = _hw(n=8)
    expected = sum(h.step_time(DRAFT, hw, new_tokens=n) for n in (1, 2, 1))
    assert_allclose(p.t_draft, expected, rtol=1e-12)
    assert_allclose(p.t_verify, h.step_time(TARGET, hw, new_tokens=7), rtol=1e-12)


def test_a_chain_is_the_tree_whose_parents_are_a_chain():
    a = predict.predict_speedup(TARGET, DRAFT, k=4, tau=3.0, n_gpus=8)
    b = predict.predict_speedup(TARGET, DRAFT, tree=sd.trees.chain_parents(4), tau=3.0, n_gpus=8)
    assert a.speedup == pytest.approx(b.speedup, rel=1e-12)


def test_medusa_heads_cost_their_extra_read_in_the_target_pass():
    """T_draft = T(target + heads, n) - T(target, n): the heads ride on the verification pass."""
    hw = _hw()
    heads = h.Model(n_params=5 * sd.drafts.medusa_head_params(4096, 128256), n_layers=1, d_model=4096,
                    n_kv_heads=8, head_dim=128, n_heads=32, name="5 heads")
    p = predict.predict_speedup(DRAFT, "medusa", head=heads, n_nodes=63, depth=5, tau=3.2)
    both = dataclasses.replace(DRAFT, n_params=DRAFT.n_params + heads.n_params)
    assert p.plan.draft_tokens == ()
    assert_allclose(p.t_draft, h.step_time(both, hw, new_tokens=64) - h.step_time(DRAFT, hw, new_tokens=64),
                    rtol=1e-10)
    assert_allclose(p.t_verify, h.step_time(DRAFT, hw, new_tokens=64), rtol=1e-12)


def test_lookahead_verifies_window_plus_guesses_times_ngram_minus_one():
    plan = predict.round_plan("lookahead", lookahead=(15, 5, 15))
    assert plan.verify_tokens == (15 + 15) * (5 - 1) + 1 and plan.draft_tokens == ()
    p = predict.predict_speedup(DRAFT, "lookahead", lookahead=(5, 3, 5), tau=1.8, gpu="a100-80gb")
    hw = _hw("a100-80gb")
    assert_allclose(p.speedup, 1.8 * h.step_time(DRAFT, hw) / h.step_time(DRAFT, hw, new_tokens=21), rtol=1e-12)


def test_layer_split_sums_the_slices_and_pays_a_hop_per_boundary():
    """4 A100s in a layer split: one GPU's pass over all layers + 3 hops of B n d_model 2 bytes, no all-reduce."""
    one = h.A100
    cal = one.calibration
    p = predict.predict_speedup(TARGET, DRAFT, k=4, tau=3.0, gpu="a100-80gb", n_gpus=4, parallelism="layers")

    def hop(n):
        return cal.allreduce_latency + n * 8192 * 2 / (cal.link_efficiency * one.link_bandwidth)

    t0 = h.step_time(TARGET, one) + 3 * hop(1)
    t_verify = h.step_time(TARGET, one, new_tokens=5) + 3 * hop(5)
    t_draft = 4 * h.step_time(DRAFT, one)                       # the draft on one GPU of the split
    assert_allclose([p.t0, p.t_verify, p.t_draft], [t0, t_verify, t_draft], rtol=1e-12)
    assert "layer split" in p.hardware


def test_per_position_rates_give_tau_by_exact_products():
    rates = [0.9, 0.8, 0.5]
    expected = 1 + Fraction(9, 10) + Fraction(9, 10) * Fraction(8, 10) + Fraction(9, 10) * Fraction(8, 10) / 2
    p = predict.predict_speedup(TARGET, DRAFT, acceptance=rates, n_gpus=8)
    assert p.tau == pytest.approx(float(expected), rel=1e-14)
    assert p.plan.n_nodes == 3                       # k defaults to the number of positions


def test_top_level_name_and_frozen_result_and_repr():
    p = sd.predict_speedup(TARGET, DRAFT, k=5, tau=3.5, n_gpus=8)
    assert sd.predict_speedup is predict.predict_speedup
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.speedup = 2.0
    text = repr(p)
    assert f"{p.speedup:.2f}x" in text and p.engine in text and "T0" in text
    assert p.t_round == pytest.approx(p.t_draft + p.t_verify + p.t_overhead)
    assert p.interval[0] <= p.speedup <= p.interval[1]
    assert p.report().startswith(f"Predicted speedup: {p.speedup:.2f}x")


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"draft": 3}, TypeError, "draft must be"),
    ({"draft": "hydra"}, ValueError, "draft must be a draft kind"),
    ({"k": 0}, ValueError, "k must be"),
    ({"k": 65}, ValueError, "k must be"),
    ({"k": None}, ValueError, "exactly one of k, tree or n_nodes"),
    ({"n_nodes": 10}, ValueError, "exactly one of k, tree or n_nodes"),
    ({"tau": 0.5}, ValueError, "tau must be"),
    ({"tau": 7.0}, ValueError, r"tau must be in \[1, depth \+ 1 = 6\]"),
    ({"tau": None}, ValueError, "exactly one of tau"),
    ({"acceptance": [0.8, 0.7]}, ValueError, "exactly one of tau"),
    ({"n_gpus": 0}, ValueError, "n_gpus must be"),
    ({"parallelism": "pp"}, ValueError, "parallelism must be one of"),
    ({"batch": 0}, ValueError, "batch must be"),
    ({"context": -1}, ValueError, "context must be"),
    ({"gpu": "tpu"}, ValueError, "gpu must be"),
    ({"gpu": 5}, TypeError, "gpu must be"),
    ({"gpu": ["h100-sxm"]}, TypeError, "gpu must be"),       # unhashable: refused before the cached builders
    ({"gpu": {"name": "h100"}}, TypeError, "gpu must be"),
    ({"engine": ["sglang"]}, TypeError, "engine must be"),
    ({"confidence": 1.0}, ValueError, r"confidence must be in \(0, 1\)"),
    ({"draft_tp": 9, "n_gpus": 8}, ValueError, "draft_tp must be"),
    ({"head": HEAD}, ValueError, "head applies to"),
    ({"lookup_time": 1e-4}, ValueError, "lookup_time applies"),
    ({"lookahead": (5, 3, 5)}, ValueError, "lookahead applies only"),
    ({"target": "llama"}, ValueError, "target must be a specdec.roofline.hardware.Model or a key"),
    ({"target": 7}, TypeError, "target must be"),
])
def test_arguments_are_validated_with_the_parameter_named(kwargs, error, pattern):
    args = {"target": TARGET, "draft": DRAFT, "k": 5, "tau": 3.0}
    args.update(kwargs)
    target, draft = args.pop("target"), args.pop("draft")
    with pytest.raises(error, match=pattern):
        predict.predict_speedup(target, draft, **args)


@pytest.mark.parametrize("kwargs, pattern", [
    ({"draft": "eagle2", "n_nodes": 60, "depth": 6, "k": None}, "needs head"),
    ({"k": None, "n_nodes": 60}, "needs depth"),
    ({"k": None, "n_nodes": 8, "depth": 9}, "depth must be"),
    ({"k": None, "n_nodes": 8, "depth": 2, "width": 9}, "width must be"),
    ({"k": None, "tree": [[-1, 0]]}, "tree must be a 1-D"),
    ({"k": None, "tree": [0, 0]}, "parents"),
    ({"depth": 3}, "chain of k drafts takes neither"),
    ({"draft": "lookahead", "k": None, "lookahead": (5, 1, 5)}, "lookahead ngram must be"),
    ({"draft": "lookahead"}, "takes lookahead="),
    ({"draft": "lookahead", "k": None}, "needs lookahead="),
    ({"draft": "lookahead", "k": None, "lookahead": (5, 3)}, "lookahead must be a tuple"),
    ({"acceptance": [0.9] * 6, "tau": None}, "only 5 deep"),
    ({"acceptance": [1.2], "tau": None}, "acceptance"),
])
def test_proposals_are_validated(kwargs, pattern):
    args = {"target": TARGET, "draft": DRAFT, "k": 5, "tau": 2.0}
    args.update(kwargs)
    target, draft = args.pop("target"), args.pop("draft")
    with pytest.raises((ValueError, TypeError), match=pattern):
        predict.predict_speedup(target, draft, **args)


def test_catalogue_keys_and_default_heads():
    """A catalogue target takes its EAGLE head from the catalogue: the layer plus the LM head per pass."""
    from specdec import catalogue

    p = predict.predict_speedup("vicuna-7b", "eagle", k=4, tau=3.0, gpu="a100-80gb")
    spec = catalogue.eagle_head("vicuna-7b", 1)
    head = predict.head_model("vicuna-7b", "eagle")
    assert head.n_params == spec["head_params"] + 4096 * 32000 and head.n_layers == 1
    hw = _hw("a100-80gb")
    vicuna = h.model_preset("vicuna-7b")
    expected = h.step_time(head, hw, new_tokens=3) + 3 * h.step_time(head, hw)
    assert_allclose(p.t_draft, expected, rtol=1e-12)
    assert_allclose(p.t0, h.step_time(vicuna, hw), rtol=1e-12)
    q = predict.predict_speedup("vicuna-7b", "vicuna-7b", k=2, tau=2.0, gpu="a100-80gb")
    assert q.draft == "Vicuna 7B v1.3"
    medusa = predict.head_model("vicuna-7b", "medusa", n_heads=5)
    assert medusa.n_params == 5 * (4096 * 4096 + 4096 + 4096 * 32000)


def test_width_defaults_to_the_mean_level_size():
    assert predict.round_plan("eagle", n_nodes=25, depth=5).draft_tokens == (1, 5, 5, 5, 5)
    assert predict.round_plan("eagle", n_nodes=26, depth=5, tau=2.6).draft_tokens == (3, 6, 6, 6, 6)
    assert math.ceil(26 / 5) == 6


def test_speedup_falls_with_batch_for_a_separate_draft_on_the_calibrated_roofline():
    s = [predict.predict_speedup(TARGET, DRAFT, k=4, tau=3.0, n_gpus=8, batch=b).speedup for b in (1, 64, 512)]
    assert s[0] > s[1] > s[2]
    assert np.all(np.isfinite(s))


def test_eager_profile_pays_its_launch_cost_per_layer_in_every_pass():
    """research on an A100: every pass (a one-layer head pass, the target's) is step_time on the profile's hardware,
    whose layer_overhead is the eager cost per layer; no per-round overhead."""
    from specdec import profiles

    on = profiles.profile("research").on("a100-80gb")
    assert on.calibration.layer_overhead == profiles.profile("research").eager_cost("a100-80gb") > 0
    vicuna = h.model_preset("vicuna-7b")
    head = predict.head_model("vicuna-7b", "eagle2")
    p = predict.predict_speedup("vicuna-7b", "eagle2", n_nodes=59, depth=6, width=10, tau=4.3, gpu="a100-80gb",
                                engine="research", context=512)
    t0 = h.step_time(vicuna, on, 1, 512)
    t_draft = h.step_time(head, on, 1, 512, 4) + 5 * h.step_time(head, on, 1, 512, 10)
    t_verify = h.step_time(vicuna, on, 1, 512, 60)
    assert_allclose([p.t0, p.t_draft, p.t_verify, p.t_overhead], [t0, t_draft, t_verify, 0.0], rtol=1e-12)
    assert_allclose(p.speedup, 4.3 * t0 / (t_draft + t_verify), rtol=1e-12)
    assert p.engine.startswith("research")
    # a one-layer head pass pays one layer's launches, the 32-layer target 32 of them
    plain = h.step_time(vicuna, on.calibrated(on.calibration, layer_overhead=0.0), 1, 512)
    assert t0 - plain == pytest.approx(32 * on.calibration.layer_overhead, rel=1e-9)


def test_baseline_engine_sets_t0_only():
    a = predict.predict_speedup("llama-3.1-8b", "eagle3", k=4, tau=3.0, engine="sglang")
    b = predict.predict_speedup("llama-3.1-8b", "eagle3", k=4, tau=3.0, engine="sglang", baseline_engine="vllm")
    from specdec import profiles

    assert b.t_round == pytest.approx(a.t_round, rel=1e-12)
    assert b.t0 == pytest.approx(h.step_time(h.LLAMA_8B, profiles.profile("vllm").on("h100-sxm")), rel=1e-12)


def test_one_layer_module_matches_the_catalogues_eagle_head_for_a_dense_target():
    """The generic one-layer module (projection + layer + LM head) reads what catalogue.eagle_head(v1) reads."""
    from specdec import catalogue

    for key in ("vicuna-7b", "llama-3.1-8b", "llama-2-70b"):
        m = predict.one_layer_module(catalogue.MODEL_SPECS[key])
        assert m.n_params == pytest.approx(catalogue.eagle_head(key, 1)["read_params"], rel=1e-12)
    mtp = predict.head_model("deepseek-v3", "mtp")
    assert mtp.n_experts == 256 and 0 < mtp.expert_params < mtp.n_params


def test_interval_is_the_central_range_over_the_bootstrap_replicates():
    """A prompt lookup on one H100 (sglang): each replicate's speedup from step_time on the replicate's own H100
    calibration (SGLang's fixed cost, Hopper's terms), then the quantiles."""
    from specdec import fit_uncertainty

    p = predict.predict_speedup("llama-3.1-8b", "pld", k=4, tau=2.0, engine="sglang", confidence=0.8)
    gpu = h.gpu_preset("h100-sxm")
    values = []
    for rep in fit_uncertainty.bootstrap(64, seed=0):
        one = gpu.calibrated(rep.h100)
        values.append(2.0 * h.step_time(h.LLAMA_8B, one) / h.step_time(h.LLAMA_8B, one, new_tokens=5))
    lo, hi = np.quantile(values, [0.1, 0.9])
    assert p.interval[0] == pytest.approx(min(lo, p.speedup), rel=1e-9)
    assert p.interval[1] == pytest.approx(max(hi, p.speedup), rel=1e-9)
    assert p.interval[0] <= p.speedup <= p.interval[1]


def test_a_hardware_without_engine_has_no_replicates():
    p = predict.predict_speedup(TARGET, DRAFT, k=4, tau=3.0, gpu=h.H100_IDEAL, n_gpus=8)
    assert p.interval == (p.speedup, p.speedup)


def test_wider_confidence_gives_a_wider_interval():
    a = predict.predict_speedup("vicuna-7b", "eagle", n_nodes=25, depth=5, tau=3.5, gpu="a100-80gb",
                                engine="research", confidence=0.5)
    b = predict.predict_speedup("vicuna-7b", "eagle", n_nodes=25, depth=5, tau=3.5, gpu="a100-80gb",
                                engine="research", confidence=0.95)
    assert b.interval[0] <= a.interval[0] <= a.speedup <= a.interval[1] <= b.interval[1]
    assert b.interval[1] - b.interval[0] > a.interval[1] - a.interval[0] > 0

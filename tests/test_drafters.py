"""Tests for specdec.drafts.drafters: cited inputs, the bigram check, n-gram drafting.

Quoted numbers are checked for internal consistency of the transcription
(Spec-Bench's "Overall" column is the mean of its six task columns), never
against values copied from the implementation. The n-gram model is checked
against a Monte Carlo simulation of the same repetition process and the
prompt-lookup simulator against texts whose answer is known by hand.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import specdec as sd
import specdec.drafts.drafters as dr
import specdec.serving.dynamic as dy
import specdec.verification as vf
from specdec.sources import SOURCES, Cited

QUOTED = [name for name in dr.__all__ if isinstance(getattr(dr, name), Cited)]
QUOTED += [f"SPEC_BENCH_A100[{m}]" for m in dr.SPEC_BENCH_A100]


def _get(name):
    if name.startswith("SPEC_BENCH_A100["):
        return dr.SPEC_BENCH_A100[name[len("SPEC_BENCH_A100["):-1]]
    return getattr(dr, name)


@pytest.mark.parametrize("name", QUOTED)
def test_every_quoted_input_has_a_known_source_and_status(name):
    q = _get(name)
    assert q.status in ("verified", "secondary", "unverified")
    assert q.source in SOURCES
    assert q.where and q.checked_in


def test_drafters_sources_are_in_the_one_registry():
    with pytest.raises(ValueError, match="source must be a key"):
        Cited(1.0, "nobody2099", "nowhere", "verified")
    with pytest.raises(ValueError, match="status must be"):
        Cited(1.0, "li2025eagle3", "Abstract", "probably")


def test_leviathan_bigram_check_reproduces_125():
    """(1 - 0.2^4) / (1 - 0.2) = 1.248 exactly (fractions), which rounds to the quoted 1.25."""
    exact = (1 - Fraction(1, 5) ** 4) / (1 - Fraction(1, 5))
    assert exact == Fraction(156, 125)
    r = dr.leviathan_bigram_check()
    assert r["computed"] == pytest.approx(float(exact), rel=1e-15)
    assert r["rounds_to_quoted"] and r["quoted"] == 1.25
    assert "1.25X with gamma=3" in dr.LEVIATHAN_BIGRAM.note


def test_spec_bench_overall_is_the_mean_of_the_tasks():
    """The transcription is consistent: every 'Overall' equals the mean of the six task speedups to 0.011
    (two-decimal rounding of seven printed numbers)."""
    for model in dr.SPEC_BENCH_A100:
        t = dr.spec_bench_table(model)
        assert t["task_speedups"].shape == (len(t["method"]), len(dr.SPEC_BENCH_TASKS))
        assert np.all(np.abs(t["task_speedups"].mean(axis=1) - t["speedup"]) <= 0.011)


def test_implied_round_cost_and_alpha_bound():
    """Round cost is E[L]/S; the alpha floor holds for the chain rows and is refused for trees."""
    t = dr.spec_bench_table("vicuna-7b")
    assert np.allclose(t["implied_round_cost"], t["mean_accepted_tokens"] / t["speedup"], rtol=1e-15)
    # every method pays at least one target step per round
    assert (t["implied_round_cost"] > 1.0).all()
    # the n-gram draft is the cheapest round: c_d ~ 0
    assert t["method"][int(np.argmin(t["implied_round_cost"]))] == "PLD"
    chain = np.array([s == "chain" for s in t["structure"]])
    assert [m for m, c in zip(t["method"], chain, strict=True) if c] == ["PLD", "SpS"]
    e = t["mean_accepted_tokens"][chain]
    a = dr.alpha_lower_bound(e)
    # E[L](a, k) < E for every k (the bound is tight only as k -> infinity)
    for k in (1, 4, 16, 256):
        assert (sd.expected_tokens(a, k) <= e * (1 + 1e-12)).all()
    assert np.allclose(sd.expected_tokens(a, 20_000), e, rtol=1e-9)
    assert np.allclose(t["alpha_lower_bound"][chain], 1 - 1 / e, rtol=1e-15)
    assert np.isnan(t["alpha_lower_bound"][~chain]).all()
    assert np.allclose(t["chain_equivalent_alpha"], 1 - 1 / t["mean_accepted_tokens"], rtol=1e-15)
    # the table computes with the public functions' formulas (it checks its rows once, then calls none of them)
    assert np.array_equal(t["implied_round_cost"], dr.implied_round_cost(t["mean_accepted_tokens"], t["speedup"]))
    assert np.array_equal(t["chain_equivalent_alpha"], dr.chain_equivalent_alpha(t["mean_accepted_tokens"]))
    assert np.array_equal(t["alpha_lower_bound"][chain], dr.alpha_lower_bound(e))
    with pytest.raises(ValueError, match="mean_accepted_tokens must be >= 1"):
        dr.implied_round_cost(0.5, 1.0)


def test_alpha_floor_is_refused_for_trees_and_fails_for_one():
    """A binary tree beats 1/(1 - alpha) of its top-1 rate, so 1 - 1/E[L] is no floor there (hand-derived)."""
    with pytest.raises(ValueError, match="chain only"):
        dr.alpha_lower_bound(3.0, structure="tree")
    with pytest.raises(ValueError, match="structure must be one of"):
        dr.alpha_lower_bound(3.0, structure="graph")
    # two candidates per node, two levels: top-1 accepted w.p. a, the second (after a rejection) w.p. c;
    # a level is passed w.p. a + (1 - a) c, so E[L] = 1 + s + s^2 with s = a + (1 - a) c
    a, c = Fraction(1, 2), Fraction(9, 10)
    s = a + (1 - a) * c
    tree_tokens = 1 + s + s * s
    assert tree_tokens > 1 / (1 - a)                      # more than any chain at the top-1 rate
    label = dr.chain_equivalent_alpha(float(tree_tokens))
    assert label == pytest.approx(float(1 - 1 / tree_tokens), rel=1e-15)
    assert label > a                                      # the "floor" would exceed the real top-1 rate
    rows = {r["method"]: r["structure"] for r in dr.draft_catalogue()}
    assert rows["EAGLE3"] == rows["EAGLE2"] == rows["Medusa"] == "tree"
    assert rows["MTP (depth 1)"] == "chain"


def test_mtp_expected_tokens_and_deepseek_consistency():
    assert dr.mtp_expected_tokens(0.85) == pytest.approx(1.85, rel=1e-15)
    lo, hi = dr.DEEPSEEK_V3_MTP.value["second_token_acceptance"]
    tps = dr.DEEPSEEK_V3_MTP.value["tps_factor"]
    # the quoted 1.8x TPS is below 1 + acceptance: the MTP step costs a little more than a plain one
    cost = np.array([dr.mtp_expected_tokens(lo), dr.mtp_expected_tokens(hi)]) / tps
    assert ((cost > 1.0) & (cost < 1.1)).all()


def test_constants_agree_with_the_modules_that_use_them():
    assert dy.HF_HEURISTIC.value == {"start": 20.0, "increase": 2.0, "decrease": 1.0, "minimum": 1.0}
    assert dy.HF_HEURISTIC.source == "hf-transformers" and not hasattr(dr, "HF_SCHEDULE")
    assert dr.MEDUSA_TYPICAL_DEFAULTS.value["epsilon"] == vf.MEDUSA_EPSILON
    assert dr.MEDUSA_TYPICAL_DEFAULTS.value["delta"] == vf.MEDUSA_DELTA
    assert dr.MEDUSA_TYPICAL_DEFAULTS.value["log_offset"] == vf.MEDUSA_LOG_OFFSET
    top = np.array(dr.MEDUSA_TOPK_VICUNA_7B.value)
    assert top.shape == (5, 5) and (np.diff(top, axis=1) >= 0).all()
    assert tuple(top[:, 0]) == sd.drafts.MEDUSA_TOP1_VICUNA_7B


# --------------------------------------------------------------------------
# the n-gram repetition model
# --------------------------------------------------------------------------


def _simulate_repetition_model(m, a1, beta, k, n_rounds, seed):
    g = np.random.default_rng(seed)
    match = g.random(n_rounds) < m
    u = g.random((n_rounds, k))
    ok = np.concatenate([u[:, :1] < a1, u[:, 1:] < beta], axis=1)
    run = np.where(ok.all(axis=1), k, np.argmin(ok, axis=1))
    return np.where(match, run + 1, 1)


@pytest.mark.parametrize("m, a1, beta, k", [(0.5, 0.6, 0.8, 10), (0.2, 0.9, 0.95, 5), (1.0, 0.3, 0.5, 3)])
def test_ngram_round_matches_simulation_of_the_same_process(m, a1, beta, k):
    """E[L] of the repetition model equals a Monte Carlo run of it (300k rounds, 5 standard errors)."""
    tokens = _simulate_repetition_model(m, a1, beta, k, 300_000, seed=21)
    r = dr.ngram_round(m, a1, beta, k)
    assert abs(tokens.mean() - r.expected_tokens) < 5 * tokens.std() / np.sqrt(tokens.size)
    assert r.speedup == pytest.approx(r.expected_tokens / r.expected_cost, rel=1e-15)


def test_ngram_round_limits():
    assert dr.ngram_round(0.0, 0.9, 0.9, 10).speedup == 1.0  # never matches: plain decoding
    full = dr.ngram_round(1.0, 1.0, 1.0, 7, c_verify=1.1)
    assert full.expected_tokens == 8.0 and full.speedup == pytest.approx(8 / 1.1, rel=1e-15)
    # one proposed token: the model is speculative decoding with k = 1 and alpha = m a1
    assert dr.ngram_round(0.5, 0.8, 0.3, 1).expected_tokens == pytest.approx(sd.expected_tokens(0.4, 1), rel=1e-15)
    arr = dr.ngram_round(np.array([0.2, 0.5]), 0.6, 0.8, 4)
    assert arr.expected_tokens.shape == (2,)


def test_prompt_lookup_proposal_rules():
    """Longest n-gram first, leftmost full-length continuation, no overlap with the final n-gram."""
    assert dr.prompt_lookup_proposal([1, 2, 3, 4, 9, 9, 1, 2, 3], 3, 2).tolist() == [4, 9]
    # the 2-gram (2, 3) has no match, the 1-gram (3) does
    assert dr.prompt_lookup_proposal([3, 7, 8, 5, 2, 3], 2, 2).tolist() == [7, 8]
    # a match too close to the end to supply num_pred tokens is skipped; nothing else matches
    assert dr.prompt_lookup_proposal([5, 6, 5, 6], 2, 3).tolist() == []
    assert dr.prompt_lookup_proposal([1, 2, 3], 3, 1).tolist() == []
    with pytest.raises(ValueError, match="tokens must be 1-D"):
        dr.prompt_lookup_proposal([[1, 2]], 1, 1)


def test_prompt_lookup_on_texts_with_known_answers():
    """A periodic text: every proposal is right (k + 1 tokens per round). Distinct tokens: nothing matches."""
    text = np.tile(np.arange(30), 8)
    run = dr.simulate_prompt_lookup(text, 60, max_ngram=3, num_pred=5)
    assert (run.accepted[:-1] == 5).all() and run.match_rate == 1.0
    distinct = np.arange(500)
    run = dr.simulate_prompt_lookup(distinct, 50)
    assert run.n_rounds == 450 and run.tokens_per_round == 1.0 and run.match_rate == 0.0


def test_prompt_lookup_gains_with_repetition():
    """More copying in the text means more tokens per round (synthetic copy texts, same seeds)."""
    tpr = []
    for copy_prob in (0.0, 0.02, 0.1):
        text = dr.synthetic_copy_text(3000, 50_000, copy_prob, 40.0, rng=5)
        tpr.append(dr.simulate_prompt_lookup(text, 300).tokens_per_round)
    assert tpr[0] == pytest.approx(1.0, abs=0.01) and tpr[0] < tpr[1] < tpr[2]


def test_synthetic_copy_text_validation():
    with pytest.raises(ValueError, match="mean_copy_length must be a single number >= 1"):
        dr.synthetic_copy_text(10, 100, 0.1, 0.5, rng=0)
    with pytest.raises(TypeError, match="unseeded"):
        dr.synthetic_copy_text(10, 100, 0.1, 2.0, rng=None)
    t = dr.synthetic_copy_text(2000, 1000, 1.0, 1e9, rng=1)   # one long copy of the first token onward
    assert (t == t[0]).mean() > 0.99


def test_draft_catalogue_covers_the_four_families():
    """Heads, multi-token prediction, n-gram and separate small drafts each appear with a cited source."""
    rows = dr.draft_catalogue()
    families = {r["family"] for r in rows}
    assert {"head", "multi-token prediction", "n-gram", "separate small model"} <= families
    for r in rows:
        assert r["implied_round_cost"] == pytest.approx(r["mean_accepted_tokens"] / r["speedup"], rel=1e-15)
        assert r["source"] in SOURCES
    eagle3 = [r for r in rows if r["method"] == "EAGLE3"]
    assert len(eagle3) == 1 and eagle3[0]["target"] == "vicuna-13b"


def test_prompt_lookup_speedup_by_hand():
    """Rounds without a proposal cost one step; a round verifying j proposals costs c_verify[j - 1]."""
    run = dr.PromptLookupRun(proposed=np.array([0, 3, 3, 1]), accepted=np.array([0, 3, 1, 0]))
    cv = np.array([1.1, 1.2, 1.3])
    tokens = 1 + 4 + 2 + 1
    cost = 1.0 + 1.3 + 1.3 + 1.1
    assert abs(run.speedup(cv) - tokens / cost) <= 1e-14 * tokens / cost
    with pytest.raises(ValueError, match="c_verify"):
        run.speedup([1.0, 1.0])


def test_hf_defaults_record_the_change():
    d = dr.HF_DEFAULTS.value
    assert d["4.40.0"]["num_assistant_tokens_schedule"] == "heuristic"
    assert d["5.24.0"]["num_assistant_tokens_schedule"] == "constant"
    assert d["5.24.0"]["num_assistant_tokens"] == sd.dynamic.HF_HEURISTIC.value["start"]


def test_vllm_ngram_rule_by_hand():
    """vLLM's rule on hand-built contexts: the docstring example, longest n first, leftmost hit, the floor."""
    prop = sd.lookup.vllm_ngram_proposal
    assert prop([1, 2, 3, 4, 2, 3], 2, 3, 4).tolist() == [4, 2, 3]         # vLLM's own docstring example
    # a 3-gram match beats an earlier 2-gram match; the leftmost 3-gram occurrence wins
    t = [8, 9, 1, 5, 7, 8, 9, 2, 7, 8, 9]
    assert prop(t, 2, 3, 2).tolist() == [2, 7]                               # [7, 8, 9] first at 4
    assert prop(t, 2, 2, 2).tolist() == [1, 5]                               # max 2: [8, 9] first at 0
    # no n-gram of length >= min matches: nothing (Spec-Bench's rule falls back to 1-grams)
    t2 = [4, 5, 6, 9, 1, 6]
    assert prop(t2, 2, 3, 3).size == 0
    assert sd.lookup.prompt_lookup_proposal(t2, 3, 3).tolist() == [9, 1, 6]
    # the match may overlap the tail, and a short tail gives a short proposal
    assert prop([3, 3, 3, 3], 1, 2, 5).tolist() == [3, 3]
    with pytest.raises(ValueError, match="max_ngram must be >= min_ngram"):
        prop([1, 2], 3, 2, 1)


def test_vllm_defaults_and_rules_simulated():
    """vLLM's defaults (5, 5) need a 5-gram: on copy-heavy text they match less often than Spec-Bench's <= 3."""
    v = dr.VLLM_NGRAM_DEFAULTS.value
    assert (v["prompt_lookup_min"], v["prompt_lookup_max"]) == (5, 5)
    text = dr.synthetic_copy_text(6000, 32000, 0.1, 20.0, rng=3)
    spec = sd.lookup.simulate_prompt_lookup(text, 1000, 3, 10)
    vllm = sd.lookup.simulate_prompt_lookup(text, 1000, 5, 10, rule="vllm", min_ngram=5)
    assert vllm.match_rate < spec.match_rate
    # every round's bookkeeping: tokens emitted = accepted + 1 and they cover the output exactly
    for run in (spec, vllm):
        assert int((run.accepted + 1).sum()) == text.size - 1000
        assert (run.accepted <= run.proposed).all()
    with pytest.raises(ValueError, match="rule must be one of"):
        sd.lookup.simulate_prompt_lookup(text, 1000, rule="sglang")
    with pytest.raises(ValueError, match="min_ngram applies to rule='vllm' only"):
        sd.lookup.simulate_prompt_lookup(text, 1000, min_ngram=2)


def test_mtp_reuse_round_against_hand_formula():
    """a_i = a1 d^(i-1): E[L] = 1 + a1 + a1^2 d + a1^3 d^3 at k = 3 (products of the rates), exact fractions."""
    a1, d = Fraction(17, 20), Fraction(4, 5)
    ref = 1 + a1 + a1 * (a1 * d) + a1 * (a1 * d) * (a1 * d * d)
    r = dr.mtp_reuse_round(float(a1), float(d), 3, 0.05, 1.1)
    assert r.expected_tokens == pytest.approx(float(ref), rel=1e-14)
    assert r.cost == pytest.approx(3 * 0.05 + 1.1, rel=1e-15)
    assert r.speedup == pytest.approx(float(ref) / (3 * 0.05 + 1.1), rel=1e-14)
    # k = 1 is DeepSeek-V3's depth-1 module
    assert dr.mtp_reuse_round(0.87, 0.5, 1, 0.0, 1.0).expected_tokens == pytest.approx(dr.mtp_expected_tokens(0.87))
    with pytest.raises(ValueError, match="decay"):
        dr.mtp_reuse_round(0.8, 1.5, 2, 0.0, 1.0)
    with pytest.raises(TypeError, match="k must be"):
        dr.mtp_reuse_round(0.8, 0.9, [2], 0.0, 1.0)


def test_suffix_decoding_costs():
    """Speedups are the table's throughput ratios; E[L] = S (c_v + lookup) inverts S = E[L] / (c_v + lookup)."""
    sp = sd.suffix.measured_speedups()
    assert sp["Suffix"]["SWE-Bench"] == pytest.approx(286.0 / 75.8, rel=1e-15)
    assert "SWE-Bench" not in sp["EAGLE"]                                  # the table's 'Error' cell
    e = sd.suffix.model_free_tokens(3.0, 1.25, 0.05)
    assert e == pytest.approx(3.0 * 1.3, rel=1e-15)
    assert sd.suffix.suffix_speedup(e, 1.25, 0.05) == pytest.approx(3.0, rel=1e-15)
    assert sd.suffix.suffix_max_spec(10, 0.5, -2.0) == pytest.approx(3.0)
    assert sd.suffix.suffix_max_spec(1, 0.5, -2.0) == 0.0
    with pytest.raises(ValueError, match="expected_tokens must be >= 1"):
        sd.suffix.suffix_speedup(0.5, 1.0)


def test_draft_tp_cost_matches_step_times():
    """c_d at draft TP t is T(draft on t devices) / T(target on the target's devices), from step_time itself."""
    h = sd.hardware
    for gpu in (h.H100, h.A100, h.H100_IDEAL):
        for td in (1, 2, 8):
            ref = (float(h.step_time(h.LLAMA_1B, gpu.scaled(td), 4, 512))
                   / float(h.step_time(h.LLAMA_70B, gpu.scaled(8), 4, 512)))
            got = sd.draft_parallel.draft_tp_cost(h.LLAMA_1B, h.LLAMA_70B, gpu, 8, td, 4, 512)
            assert got == pytest.approx(ref, rel=1e-12)
    choice = sd.draft_parallel.draft_tp_choice(h.LLAMA_1B, h.LLAMA_70B, h.H100, 8, 4, 512, allowed=(1, 2, 4, 8))
    assert choice.best == min(choice.c_draft, key=choice.c_draft.get)
    assert set(choice.c_draft) == {1, 2, 4, 8}
    # a 70B draft does not fit one 80 GB device: refused alone, skipped in a choice
    with pytest.raises(ValueError, match="do not fit"):
        sd.draft_parallel.draft_tp_cost(h.LLAMA_70B, h.LLAMA_70B, h.H100, 8, 1)
    assert 1 not in sd.draft_parallel.draft_tp_choice(h.LLAMA_70B, h.LLAMA_70B, h.H100, 8).c_draft
    with pytest.raises(ValueError, match="one device"):
        sd.draft_parallel.draft_tp_cost(h.LLAMA_1B, h.LLAMA_70B, h.H100.scaled(2), 8, 1)
    with pytest.raises(ValueError, match="draft_tp"):
        sd.draft_parallel.draft_tp_cost(h.LLAMA_1B, h.LLAMA_70B, h.H100, 4, 8)


def test_vllm_mtp_per_position_transcription_is_consistent():
    """vLLM's overall acceptance is the mean of its per-position rates (k = 2), and position 1 <= position 0."""
    v = dr.VLLM_MTP_PER_POSITION.value
    for overall, a0, a1 in zip(v["overall"], v["position_0"], v["position_1"], strict=True):
        assert overall == pytest.approx((a0 + a1) / 2, abs=6e-5)
        assert a1 <= a0
    cond = sd.acceptance.conditional_from_unconditional([v["position_0"][0], v["position_1"][0]])
    assert cond[1] == pytest.approx(v["position_1"][0] / v["position_0"][0], rel=1e-15)


def test_suffix_vllm_acceptance_transcription_is_consistent():
    """vLLM's printed mean acceptance length is 1 + accepted / drafts, and the token-0 rate accepted / drafts."""
    v = sd.suffix.SUFFIX_VLLM_MTBENCH.value
    assert v["mean_acceptance_length"] == pytest.approx(1 + v["num_accepted_tokens"] / v["num_drafts"], abs=0.005)
    assert v["acceptance_at_token_0"] == pytest.approx(v["num_accepted_tokens"] / v["num_drafts"], abs=0.005)

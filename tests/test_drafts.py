"""Tests of specdec.drafts: verification model, toy draft acceptance, multi-head and self-speculation costs."""

from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
import specdec.drafts as dr


def frac_tokens(alpha, k):
    a = Fraction(alpha)
    return sum((a**i for i in range(k + 1)), Fraction(0))


def test_verify_cost_linear_by_hand():
    """c_v(k) = base + beta k, written out: 1 + 0.05 * 4 = 1.2."""
    assert_allclose(dr.verify_cost_linear(4, 1.0, 0.05), 1.0 + 0.05 * 4, rtol=1e-15)
    assert_allclose(dr.verify_cost_linear([1, 2, 3], 1.5, 0.0), [1.5, 1.5, 1.5])


def test_speedup_grid_matches_fraction_reference():
    """Each grid entry is E[L] / (k c_d + c_0 + beta k) computed with exact fractions."""
    alphas, ks = [0.25, 0.5, 0.8], [1, 3, 7]
    grid = dr.speedup_grid(alphas, ks, 0.05, base=1.0, per_draft=0.1)
    for i, a in enumerate(alphas):
        for j, k in enumerate(ks):
            ref = frac_tokens(a, k) / (k * Fraction(0.05) + 1 + Fraction(0.1) * k)
            assert_allclose(grid[i, j], float(ref), rtol=1e-14)
    # with beta = 0 it is speedup_from_costs
    assert_allclose(dr.speedup_grid(alphas, ks, 0.05)[:, 1], sd.speedup_from_costs(np.array(alphas), 3, 0.05, 1.0))


def test_growing_verify_makes_large_k_fail_even_with_free_drafts():
    """With c_d = 0 and constant c_v, break-even alpha falls with k; with c_v = 1.5 + 0.1 k it turns back up."""
    ks = np.arange(1, 31)
    flat = sd.break_even_alpha(ks, 0.0, 1.5)
    assert np.all(np.diff(flat) <= 1e-15)
    grow = sd.break_even_alpha(ks, 0.0, dr.verify_cost_linear(ks, 1.5, 0.1))
    i = int(np.nanargmin(grow))
    assert 0 < i < len(ks) - 1 and grow[-1] > grow[i]


def test_toy_alpha_anchor_and_limits():
    """alpha(r) = r^s passes through (ratio_ref, alpha_ref), reaches 1 at r = 1, rises with r."""
    assert_allclose(dr.toy_draft_alpha(0.1, 0.8, 0.1), 0.8, rtol=1e-14)
    assert_allclose(dr.toy_draft_alpha(1.0, 0.8, 0.1), 1.0, rtol=1e-15)
    # a tenfold shrink multiplies alpha by 0.8: 0.01 -> 0.64, 0.001 -> 0.512
    assert_allclose(dr.toy_draft_alpha([0.01, 0.001], 0.8, 0.1), [0.64, 0.512], rtol=1e-13)
    r = np.logspace(-4, 0, 50)
    assert np.all(np.diff(dr.toy_draft_alpha(r)) > 0)


def test_separate_draft_speedup_by_hand_and_optimum_interior():
    """At r = 0.1, k = 4: alpha = 0.8, E[L] = 3.3616, cost 4 * 0.1 + 1 = 1.4."""
    assert_allclose(dr.separate_draft_speedup(0.1, 4), float(frac_tokens(0.8, 4)) / 1.4, rtol=1e-13)
    r, s = dr.optimal_draft_ratio(4)
    grid = np.logspace(-4, 0, 2001)
    brute = [float(dr.separate_draft_speedup(x, 4)) for x in grid]
    assert s == max(brute) and r == grid[int(np.argmax(brute))]
    assert 1e-4 < r < 1.0  # an interior optimum: too small accepts rarely, too large costs too much
    assert dr.separate_draft_speedup(1.0, 4) < 1.0 or dr.separate_draft_speedup(1.0, 4) < s


def test_medusa_head_params_and_cost():
    """Vicuna-7B: 4096^2 + 4096 + 4096 * 32000 = 147,853,312 parameters per head."""
    assert dr.medusa_head_params(4096, 32000) == 4096 * 4096 + 4096 + 4096 * 32000
    assert dr.medusa_head_params(4096, 32000, n_resblocks=0) == 4096 * 32000
    assert_allclose(dr.multi_head_draft_cost(147_853_312, 6.74e9), 147_853_312 / 6.74e9)


def test_self_speculation_cost():
    assert_allclose(dr.self_speculation_draft_cost(0.5, 0.1), 0.1 + 0.5 * 0.9)
    assert dr.self_speculation_draft_cost(1.0, 0.3) == pytest.approx(1.0)


def test_medusa_numbers_pinned():
    """The quoted inputs (Medusa repository, assets/medusa_acc.csv, row 7b) decrease with the head."""
    a = np.array(dr.MEDUSA_TOP1_VICUNA_7B)
    assert_allclose(a.round(3), [0.560, 0.316, 0.201, 0.147, 0.118])
    assert np.all(np.diff(a) < 0)
    assert "medusa_acc.csv" in dr.MEDUSA_TOP1_SOURCE


def test_conditional_rates_bracket():
    """Independent: products of marginals; nested: the joint is the running minimum."""
    acc = np.array([0.6, 0.4, 0.3])
    ind = dr.conditional_rates_from_marginals(acc, "independent")
    nes = dr.conditional_rates_from_marginals(acc, "nested")
    assert_allclose(ind, acc)
    assert_allclose(np.cumprod(nes), [0.6, 0.4, 0.3], rtol=1e-14)
    e_ind = sd.expected_tokens_per_position(ind)
    e_nes = sd.expected_tokens_per_position(nes)
    assert_allclose(e_ind, 1 + 0.6 + 0.6 * 0.4 + 0.6 * 0.4 * 0.3, rtol=1e-14)
    assert_allclose(e_nes, 1 + 0.6 + 0.4 + 0.3, rtol=1e-14)
    assert e_ind < e_nes
    # a zero accuracy stops the chain
    assert_allclose(dr.conditional_rates_from_marginals([0.5, 0.0, 0.2], "nested"), [0.5, 0.0, 0.0])


def test_equivalent_alpha_solves_the_same_expected_tokens():
    rates = np.array([0.56, 0.32, 0.2, 0.15])
    a = dr.equivalent_alpha(rates)
    assert_allclose(sd.expected_tokens(a, 4), sd.expected_tokens_per_position(rates), rtol=1e-13)
    assert dr.equivalent_alpha([1.0, 1.0]) == 1.0
    assert dr.equivalent_alpha([0.0, 0.7]) == 0.0
    batch = dr.equivalent_alpha(np.array([[0.8, 0.8], [0.5, 0.5]]))
    assert_allclose(batch, [0.8, 0.5], rtol=1e-13)


def test_arrangement_methods_agree_with_core_functions():
    arr = dr.DraftArrangement("sep", 0.1, (0.8,) * 8, c_verify=1.0, per_draft=0.05)
    ks = np.arange(1, 9)
    assert_allclose(arr.expected_tokens(ks), sd.expected_tokens(0.8, ks), rtol=1e-14)
    cost = ks * 0.1 + 1.0 + 0.05 * ks
    assert_allclose(arr.round_cost(ks), cost, rtol=1e-15)
    assert_allclose(arr.speedup(ks), sd.expected_tokens(0.8, ks) / cost, rtol=1e-14)
    assert_allclose(arr.break_even_alpha(ks), sd.break_even_alpha(ks, 0.1, 1.0 + 0.05 * ks), rtol=1e-14)
    assert arr.best_k() == sd.optimal_k(0.8, 0.1, lambda k: 1.0 + 0.05 * k, k_max=8)
    assert_allclose(arr.equivalent_alpha(3), 0.8, rtol=1e-12)
    assert_allclose(arr.c_verify_at(4), 1.2)


@pytest.mark.parametrize("call, match", [
    (lambda: dr.verify_cost_linear(0), "k must be"),
    (lambda: dr.verify_cost_linear(2, base=0.0), "base must be"),
    (lambda: dr.verify_cost_linear(2, per_draft=-1), "per_draft must be"),
    (lambda: dr.toy_draft_alpha(1.5), "size_ratio must be in"),
    (lambda: dr.toy_draft_alpha(0.0), "size_ratio must be"),
    (lambda: dr.toy_draft_alpha(0.1, alpha_ref=1.0), "alpha_ref must be in"),
    (lambda: dr.toy_draft_alpha(0.1, ratio_ref=1.0), "ratio_ref must be in"),
    (lambda: dr.self_speculation_draft_cost(1.2), "layer_fraction must be in"),
    (lambda: dr.self_speculation_draft_cost(0.5, 1.0), "shared_fraction must be in"),
    (lambda: dr.conditional_rates_from_marginals([0.5], "correlated"), "assumption must be"),
    (lambda: dr.conditional_rates_from_marginals([], "nested"), "accuracies must have"),
    (lambda: dr.conditional_rates_from_marginals([1.2]), "accuracies must be in"),
    (lambda: dr.medusa_head_params(0, 10), "d_model must be"),
    (lambda: dr.multi_head_draft_cost(1.0, 0.0), "target_params must be"),
    (lambda: dr.speedup_grid([0.5], [1], [0.1, 0.2]), "c_draft must be a single"),
    (lambda: dr.DraftArrangement("x", -0.1, (0.5,)), "c_draft must be"),
    (lambda: dr.DraftArrangement("x", 0.1, ()), "alphas must"),
    (lambda: dr.DraftArrangement("x", 0.1, (0.5, 0.4)).speedup(3), "k must be a whole number in"),
])
def test_bad_inputs_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_types_raise_type_error():
    with pytest.raises(TypeError, match="k must be"):
        dr.verify_cost_linear("3")
    with pytest.raises(TypeError, match="size_ratio"):
        dr.toy_draft_alpha(None)


def test_measured_arrangements_reverse_the_toy_ranking():
    """Chapter "Draft cost in three arrangements": on Spec-Bench's A100 / Vicuna-7B table every head arrangement
    (Medusa, Hydra, EAGLE, EAGLE-2) is faster than the separate 68M draft (SpS), while the toy cost table ranks the
    separate draft first; Medusa matches SpS's tokens per step within 0.05 at a lower implied round cost."""
    t = sd.drafters.spec_bench_table("vicuna-7b")
    row = {m: i for i, m in enumerate(t["method"])}
    for head in ("Medusa", "Hydra", "EAGLE", "EAGLE2"):
        assert t["speedup"][row[head]] > t["speedup"][row["SpS"]]
    assert abs(t["mean_accepted_tokens"][row["Medusa"]] - t["mean_accepted_tokens"][row["SpS"]]) < 0.05
    # implied round cost = tokens per step / speedup, by hand from the printed cells
    assert abs(t["implied_round_cost"][row["Medusa"]] - 2.31 / 1.71) < 1e-12
    assert abs(t["implied_round_cost"][row["SpS"]] - 2.28 / 1.52) < 1e-12
    assert t["implied_round_cost"][row["Medusa"]] < t["implied_round_cost"][row["SpS"]]
    target, tp8 = sd.hardware.LLAMA_70B, sd.hardware.H100.scaled(8)
    c_verify = float(sd.hardware.verify_cost(target, tp8, 1))
    toy_alpha = dr.toy_draft_alpha(sd.hardware.draft_cost(sd.hardware.LLAMA_8B, target, tp8), 0.8, 0.1)
    separate = dr.DraftArrangement("separate", sd.hardware.draft_cost(sd.hardware.LLAMA_8B, target, tp8),
                                   (toy_alpha,) * 8, c_verify=c_verify)
    heads = dr.DraftArrangement("heads", dr.multi_head_draft_cost(dr.medusa_head_params(target.d_model, 128256),
                                                                  target.n_params),
                                tuple(dr.conditional_rates_from_marginals(dr.MEDUSA_TOP1_VICUNA_7B, "independent")),
                                c_verify=c_verify)
    assert separate.speedup(separate.best_k()) > heads.speedup(heads.best_k())

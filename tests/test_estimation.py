"""Tests for specdec.acceptance.estimation: simulated logs, the MLE of alpha and its interval, engine counters.

Statistical tests are seeded (deterministic) and state the significance
level they were designed with (chi-square at 1e-3, coverage within 3.5
binomial standard errors).
"""

from __future__ import annotations

import json
import math
import pathlib
import re
from fractions import Fraction

import numpy as np
import pytest
from chi2_reference import chi2_pvalue
from numpy.testing import assert_allclose, assert_array_equal

import specdec as sd

SIGNIFICANCE = 1e-3  # per chi-square test


# --------------------------------------------------------------------------
# accepted counts
# --------------------------------------------------------------------------


@pytest.mark.parametrize("alpha,k", [(0.8, 4), (0.5, 1), (0.95, 8), (0.3, 5)])
def test_simulated_counts_follow_capped_geometric(alpha, k):
    """simulate_accepted_counts has the accepted_tokens_pmf law (chi-square, level 1e-3)."""
    counts = sd.estimation.simulate_accepted_counts(alpha, k, 300_000, np.random.default_rng(31))
    assert counts.min() >= 0 and counts.max() <= k
    assert chi2_pvalue(counts, sd.accepted_tokens_pmf(alpha, k)) > SIGNIFICANCE
    # power: the uncapped-at-k+1 mistake (capping at k - 1) is rejected
    if k > 1:
        assert chi2_pvalue(np.minimum(counts, k - 1), sd.accepted_tokens_pmf(alpha, k)) < SIGNIFICANCE


def test_simulated_counts_array_alpha_and_edges():
    """Array alpha gives one row per alpha with the right law; alpha 0 and 1 are exact."""
    alphas = np.array([0.0, 0.6, 1.0])
    counts = sd.estimation.simulate_accepted_counts(alphas, 3, 100_000, np.random.default_rng(1))
    assert counts.shape == (3, 100_000)
    assert (counts[0] == 0).all() and (counts[2] == 3).all()
    assert chi2_pvalue(counts[1], sd.accepted_tokens_pmf(0.6, 3)) > SIGNIFICANCE
    assert (sd.estimation.simulate_accepted_counts(1.0, 5, 10, 0) == 5).all()
    assert (sd.estimation.simulate_accepted_counts(0.0, 5, 10, 0) == 0).all()


def test_per_position_counts_law():
    """simulate_accepted_counts_per_position: P(N >= i) = prod of the first i rates."""
    alphas = np.array([0.9, 0.7, 0.5, 0.3])
    counts = sd.estimation.simulate_accepted_counts_per_position(alphas, 300_000, np.random.default_rng(2))
    tail = np.concatenate([[1.0], np.cumprod(alphas)])
    pmf = tail[:-1] - tail[1:]
    pmf = np.append(pmf, tail[-1])
    assert chi2_pvalue(counts, pmf) > SIGNIFICANCE


# --------------------------------------------------------------------------
# estimating alpha
# --------------------------------------------------------------------------


def test_estimate_alpha_closed_form_by_hand():
    """Hand-made log, k = 4: S = 4+2+0+4+3 = 13 accepted, F = 3 rounds below k, alpha = 13/16."""
    counts = [4, 2, 0, 4, 3]
    est = sd.estimation.estimate_alpha(counts, 4)
    s = 4 + 2 + 0 + 4 + 3
    f = 3
    assert est.accepted == s and est.stops == f and est.n_rounds == 5
    assert_allclose(est.alpha, float(Fraction(s, s + f)), rtol=1e-15)
    assert est.low < est.alpha < est.high
    # the naive "mean accepted / k" is a different number (the serving-metric trap)
    assert abs(float(np.mean(counts)) / 4 - est.alpha) > 0.1


def test_estimate_alpha_edges():
    """All rounds fully accepted -> alpha = 1 (high = 1); all rejected at once -> alpha = 0 (low = 0)."""
    top = sd.estimation.estimate_alpha([3, 3, 3], 3)
    assert top.alpha == 1.0 and top.high == 1.0 and top.low < 1.0
    bottom = sd.estimation.estimate_alpha([0, 0, 0, 0], 3)
    assert bottom.alpha == 0.0 and bottom.low == 0.0 and bottom.high > 0.0
    assert "alpha = " in str(top)


def test_wilson_interval_by_hand():
    """Wilson interval at 8/10, 95 %: hand formula with z = 1.959964."""
    z = 1.959963984540054
    n, a = 10, 0.8
    centre = (a + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(a * (1 - a) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = sd.estimation.wilson_interval(8, 10)
    assert_allclose([low, high], [centre - half, centre + half], rtol=1e-12)


@pytest.mark.parametrize("alpha,k", [(0.8, 4), (0.6, 2), (0.9, 8)])
def test_estimate_alpha_recovers_truth(alpha, k):
    """With 100k simulated rounds the MLE is within 4 standard errors of the true alpha."""
    counts = sd.estimation.simulate_accepted_counts(alpha, k, 100_000, np.random.default_rng(41))
    est = sd.estimation.estimate_alpha(counts, k)
    se = math.sqrt(alpha * (1 - alpha) / (est.accepted + est.stops))
    assert abs(est.alpha - alpha) < 4 * se
    assert est.low < alpha < est.high


@pytest.mark.parametrize("alpha,k", [(0.8, 4), (0.5, 2), (0.95, 6)])
def test_interval_coverage_near_nominal(alpha, k):
    """Over 4000 simulated logs of 200 rounds, the 95 % Wilson interval covers alpha 95 % +- 1.2 %."""
    counts = sd.estimation.simulate_accepted_counts(np.full(4000, alpha), k, 200, np.random.default_rng(51))
    est = sd.estimation.estimate_alpha(counts, k)  # vectorized over the 4000 logs
    covered = np.mean((est.low <= alpha) & (alpha <= est.high))
    # 3.5 binomial standard errors of a 4000-trial proportion at 0.95 is 0.012
    assert abs(covered - 0.95) < 0.012, covered


def test_naive_rate_interval_has_no_coverage():
    """Power: treating accepted/drafted as alpha gives an 'interval' that almost never covers alpha."""
    alpha, k = 0.8, 4
    counts = sd.estimation.simulate_accepted_counts(np.full(500, alpha), k, 200, np.random.default_rng(52))
    drafted = k * counts.shape[1]
    low, high = sd.estimation.wilson_interval(counts.sum(axis=1), drafted)
    assert np.mean((low <= alpha) & (alpha <= high)) < 0.05


def test_per_position_estimate_by_hand_and_pooled():
    """Per-position rates on a hand log; their reached-weighted pool equals estimate_alpha."""
    counts = [0, 1, 2, 2, 2, 1, 0, 2]
    est = sd.estimation.estimate_alpha_per_position(counts, 2)
    # position 1: reached by all 8, passed by the 6 with >= 1; position 2: 6 reached, 4 (the 2s) passed
    assert_allclose(est.alphas, [6 / 8, 4 / 6])
    assert_array_equal(est.reached, [8, 6])
    assert_array_equal(est.passed, [6, 4])
    pooled = est.passed.sum() / est.reached.sum()
    assert_allclose(pooled, sd.estimation.estimate_alpha(counts, 2).alpha)


def test_per_position_estimate_recovers_rates_and_unreached_is_nan():
    """Per-position estimates recover drifting rates; a position nobody reached is NaN."""
    alphas = np.array([0.9, 0.7, 0.5])
    counts = sd.estimation.simulate_accepted_counts_per_position(alphas, 200_000, np.random.default_rng(3))
    est = sd.estimation.estimate_alpha_per_position(counts, 3)
    assert np.all((est.low <= alphas) & (alphas <= est.high))
    assert_allclose(est.alphas, alphas, atol=0.01)
    nan_case = sd.estimation.estimate_alpha_per_position([0, 0, 1], 3)
    assert np.isnan(nan_case.alphas[2]) and nan_case.reached[2] == 0


def test_bad_counts_and_alpha():
    """Counts outside 0..k, fractional counts, empty logs, alpha outside [0, 1], k < 1."""
    with pytest.raises(ValueError, match=r"0\.\.k = 0\.\.4"):
        sd.estimation.estimate_alpha([1, 5], 4)
    with pytest.raises(ValueError, match=r"0\.\.k"):
        sd.estimation.estimate_alpha([-1, 2], 4)
    with pytest.raises(ValueError, match="whole numbers"):
        sd.estimation.estimate_alpha([1.5, 2], 4)
    with pytest.raises(ValueError, match="non-empty"):
        sd.estimation.estimate_alpha([], 4)
    with pytest.raises(ValueError, match="k must be"):
        sd.estimation.estimate_alpha([0, 1], 0)
    with pytest.raises(ValueError, match="confidence"):
        sd.estimation.estimate_alpha([0, 1], 2, confidence=1.0)
    with pytest.raises(ValueError, match=r"0\.\.k"):
        sd.estimation.estimate_alpha_per_position([3], 2)
    with pytest.raises(ValueError, match="alpha must be in"):
        sd.estimation.simulate_accepted_counts(1.2, 4, 10, 0)
    with pytest.raises(ValueError, match="n_rounds"):
        sd.estimation.simulate_accepted_counts(0.5, 4, 0, 0)
    with pytest.raises(ValueError, match="alphas"):
        sd.estimation.simulate_accepted_counts_per_position([], 10, 0)


# ------------------------------------------------------------ engine counters

def test_engine_counters_hand_example():
    """1000 rounds of k = 4: 4000 drafted, 2362 accepted -> length 3.362, rate 0.5905."""
    r = sd.estimation.read_engine_counters(1000, 4000, 2362)
    assert r.k == 4
    assert r.mean_acceptance_length == pytest.approx(1 + 2362 / 1000, rel=1e-15)
    assert r.draft_acceptance_rate == pytest.approx(2362 / 4000, rel=1e-15)
    assert sd.expected_tokens(r.alpha, 4) == pytest.approx(r.mean_acceptance_length, rel=1e-12)


def test_engine_counters_from_a_seeded_simulation_recover_alpha():
    """Counters built from 200,000 simulated rounds at alpha = 0.7, k = 5 give alpha within 0.005."""
    rng = np.random.default_rng(2026)
    k, n = 5, 200_000
    counts = sd.estimation.simulate_accepted_counts(0.7, k, n, rng)
    per_position = np.array([(counts >= j).sum() for j in range(1, k + 1)], dtype=float)
    r = sd.estimation.read_engine_counters(n, n * k, counts.sum(), per_position)
    assert abs(r.alpha - 0.7) < 0.005
    assert np.all(np.abs(r.conditional - 0.7) < 0.01)
    assert_allclose(r.per_position, [0.7**j for j in range(1, k + 1)], atol=0.005)


def test_engine_counters_reject_bad_inputs():
    with pytest.raises(ValueError, match="num_drafts must be"):
        sd.estimation.read_engine_counters(0, 10, 5)
    with pytest.raises(ValueError, match="num_accepted_tokens must be <="):
        sd.estimation.read_engine_counters(10, 40, 50)
    with pytest.raises(ValueError, match="fewer than the mean draft length"):
        sd.estimation.read_engine_counters(10, 40, 20, [10, 5, 5])
    with pytest.raises(ValueError, match="num_draft_tokens must be >= num_drafts"):
        sd.estimation.read_engine_counters(10, 5, 2)
    with pytest.raises(ValueError, match="non-increasing"):
        sd.estimation.read_engine_counters(10, 40, 20, [5, 6, 5, 4])
    with pytest.raises(ValueError, match="sums to 19, not num_accepted_tokens = 20"):
        sd.estimation.read_engine_counters(10, 40, 20, [8, 6, 4, 1])


# --------------------------------------------------- vLLM's counters as a running engine reports them
def vllm_counters(accepted, proposed, k):
    """The counters vLLM's SpecDecodingStats accumulates, one observe_draft(proposed, accepted) per round.

    Written from the semantics read in vllm/v1/spec_decode/metrics.py (see specdec.acceptance.engine_metrics.VLLM_METRICS):
    accepted_per_pos[i] counts rounds with more than i accepted drafts (0-based position i), and the
    newer draft_tokens_per_pos[i] rounds that proposed more than i drafts.
    """
    accepted, proposed = np.asarray(accepted), np.asarray(proposed)
    pos = np.arange(k)
    return {
        "vllm:spec_decode_num_drafts": float(accepted.size),
        "vllm:spec_decode_num_draft_tokens": float(proposed.sum()),
        "vllm:spec_decode_num_accepted_tokens": float(accepted.sum()),
        "vllm:spec_decode_num_accepted_tokens_per_pos": (accepted[:, None] > pos).sum(axis=0).astype(float).tolist(),
        "vllm:spec_decode_num_draft_tokens_per_pos": (proposed[:, None] > pos).sum(axis=0).astype(float).tolist(),
    }


def prometheus_text(counters, labels='model_name="meta-llama/Llama-3.1-8B-Instruct",engine="0"', scale=1.0):
    """The /metrics exposition of those counters: _total suffix, labels, a 0-based position label, _created lines."""
    lines = []
    for name, value in counters.items():
        lines += [f"# HELP {name} Number of spec decoding things.", f"# TYPE {name} counter"]
        if isinstance(value, list):
            for i, v in enumerate(value):
                lines.append(f'{name}_total{{{labels},position="{i}"}} {v * scale}')
                lines.append(f'{name}_created{{{labels},position="{i}"}} 1.7649e+09')
        else:
            lines.append(f"{name}_total{{{labels}}} {value * scale}")
            lines.append(f"{name}_created{{{labels}}} 1.7649e+09")
    return "\n".join(lines) + "\n"


def test_vllm_dict_and_metrics_text_read_like_the_numbers():
    """A dict keyed by vLLM's names and the /metrics text give the reading of the plain numbers."""
    counts = simulate = sd.estimation.simulate_accepted_counts(0.75, 4, 20_000, np.random.default_rng(9))
    counters = vllm_counters(simulate, np.full(counts.size, 4), 4)
    del counters["vllm:spec_decode_num_draft_tokens_per_pos"]   # not exported by vLLM's Prometheus logger
    ref = sd.estimation.read_engine_counters(counts.size, 4.0 * counts.size, counts.sum(),
                                             [(counts >= i).sum() for i in range(1, 5)])
    for source in (counters, {f"{k}_total": v for k, v in counters.items()}, prometheus_text(counters)):
        r = sd.estimation.read_engine_counters(source)
        assert r.k == 4 and r.fixed_k and r.mean_draft_length == 4.0
        assert r.alpha == ref.alpha and r.mean_acceptance_length == ref.mean_acceptance_length
        assert_allclose(r.per_position, ref.per_position, rtol=1e-15)
        assert_allclose(r.conditional, ref.conditional, rtol=1e-15)
    # vLLM's logged "Per-position acceptance rate" is accepted_per_pos / num_drafts: the unconditional P(N >= i)
    logged = np.array(counters["vllm:spec_decode_num_accepted_tokens_per_pos"]) / counters["vllm:spec_decode_num_drafts"]
    assert_allclose(ref.per_position, logged, rtol=1e-15)
    assert_allclose(ref.per_position, [0.75**i for i in range(1, 5)], atol=0.01)
    assert_allclose(ref.conditional, sd.acceptance.conditional_from_unconditional(logged), rtol=1e-15)
    assert_allclose(ref.conditional, 0.75, atol=0.015)


def test_vllm_metrics_text_windows_engines_and_models():
    """Two snapshots give a window; samples of several engines add up; several models need a label filter."""
    counts = sd.estimation.simulate_accepted_counts(0.7, 3, 10_000, np.random.default_rng(10))
    counters = vllm_counters(counts, np.full(counts.size, 3), 3)
    before = prometheus_text(counters, scale=1.0)
    after = prometheus_text(counters, scale=3.0)       # the same traffic twice more
    window = sd.estimation.read_engine_counters(after, before=before)
    once = sd.estimation.read_engine_counters(before)
    assert window.num_drafts == 2 * once.num_drafts and window.alpha == pytest.approx(once.alpha, rel=1e-14)
    two_engines = prometheus_text(counters) + prometheus_text(counters, labels='model_name="meta-llama/Llama-3.1-8B-Instruct",engine="1"')
    both = sd.estimation.read_engine_counters(two_engines)
    assert both.num_drafts == 2 * once.num_drafts and both.alpha == pytest.approx(once.alpha, rel=1e-14)
    mixed = prometheus_text(counters) + prometheus_text(counters, labels='model_name="other",engine="0"', scale=2.0)
    with pytest.raises(ValueError, match="several models"):
        sd.estimation.read_engine_counters(mixed)
    only = sd.estimation.read_engine_counters(mixed, labels={"model_name": "other"})
    assert only.num_drafts == 2 * once.num_drafts
    with pytest.raises(ValueError, match="decreased between the snapshots"):
        sd.estimation.read_engine_counters(before, before=after)


def test_vllm_counters_with_fewer_drafts_than_k_are_accepted_and_approximate_alpha():
    """n-gram-like rounds propose 1..5 drafts (mean 3.x, not whole): accepted, with the stated approximation.

    alpha from the mean draft length lands within 0.02 of the truth (it reads a little low, as the
    docstring says); with draft_tokens_per_position the conditional rates match alpha within Monte Carlo
    noise (4 binomial standard errors), without it the late positions read low.
    """
    rng = np.random.default_rng(2026)
    n, k, alpha = 200_000, 5, 0.7
    proposed = rng.integers(1, k + 1, n)                   # independent of the acceptance coins
    coins = rng.random((n, k)) < alpha
    first_reject = np.where(coins.all(axis=1), k, np.argmin(coins, axis=1))
    accepted = np.minimum(first_reject, proposed)
    counters = vllm_counters(accepted, proposed, k)
    r = sd.estimation.read_engine_counters(counters)
    assert not r.fixed_k and r.mean_draft_length == pytest.approx(proposed.mean(), rel=1e-15)
    assert r.k == 5
    assert r.mean_acceptance_length == pytest.approx(1 + accepted.mean(), rel=1e-15)
    # with the per-position draft counts: alpha and the conditional rates within Monte Carlo noise
    assert r.alpha_method == "per-position counts"
    checks = accepted.sum() / r.alpha
    assert abs(r.alpha - alpha) < 4 * np.sqrt(alpha * (1 - alpha) / checks)
    drafted = np.array(counters["vllm:spec_decode_num_draft_tokens_per_pos"])
    reached = np.concatenate([[n], np.array(counters["vllm:spec_decode_num_accepted_tokens_per_pos"][:-1])])
    se = np.sqrt(alpha * (1 - alpha) / (reached * drafted / n))
    assert np.all(np.abs(r.conditional - alpha) < 4 * se), r.conditional
    # vLLM's standard export (no per-position draft counts): the mean-draft-length approximation, a little low
    without = dict(counters)
    del without["vllm:spec_decode_num_draft_tokens_per_pos"]
    approx = sd.estimation.read_engine_counters(without)
    assert approx.alpha_method == "mean draft length"
    assert alpha - 0.04 < approx.alpha < alpha
    assert approx.conditional[-1] < alpha - 0.1                # position 5 is proposed in 1/5 of the rounds only
    # the plain numbers with a non-whole mean draft length (this raised before)
    r2 = sd.estimation.read_engine_counters(1000, 3437, 1512)
    assert r2.mean_draft_length == pytest.approx(3.437) and 0 < r2.alpha < 1


def test_read_accepted_counts_is_the_engine_reading_of_a_log():
    counts = np.array([4, 2, 0, 4, 3])
    r = sd.estimation.read_accepted_counts(counts, 4)
    assert r.num_drafts == 5 and r.num_draft_tokens == 20 and r.num_accepted_tokens == 13
    assert r.draft_acceptance_rate == 13 / 20 and r.mean_acceptance_length == 1 + 13 / 5
    assert_allclose(r.per_position, [4 / 5, 4 / 5, 3 / 5, 2 / 5], rtol=1e-15)
    with pytest.raises(ValueError, match=r"0\.\.k"):
        sd.estimation.read_accepted_counts([5], 4)


@pytest.mark.parametrize("source, match", [
    ({"vllm:spec_decode_num_drafts": 10.0, "vllm:spec_decode_num_draft_tokens": 40.0}, "missing the counter"),
    ("vllm:spec_decode_num_drafts_total{a=1} 3\n", "cannot read the labels"),
    ("this is not a metric line\n", "not a Prometheus sample line"),
    ("vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 40\n"
     "vllm:spec_decode_num_accepted_tokens_total 20\n"
     'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1"} 5\n', "positions 0, 1"),
    ({"vllm:spec_decode_num_drafts": -1.0, "vllm:spec_decode_num_draft_tokens": 40.0,
      "vllm:spec_decode_num_accepted_tokens": 20.0}, "vllm:spec_decode_num_drafts must be"),
])
def test_vllm_counter_errors_name_the_metric(source, match):
    with pytest.raises(ValueError, match=match):
        sd.estimation.read_engine_counters(source)


def test_vllm_counter_argument_forms_do_not_mix():
    with pytest.raises(TypeError, match="either the counters"):
        sd.estimation.read_engine_counters({"vllm:spec_decode_num_drafts": 1.0}, 10, 5)
    with pytest.raises(TypeError, match="before and labels"):
        sd.estimation.read_engine_counters(10, 40, 20, before={})
    with pytest.raises(TypeError, match="needs num_drafts"):
        sd.estimation.read_engine_counters(10)
    with pytest.raises(TypeError, match="source must be"):
        sd.engine_metrics.parse_vllm_metrics(42)


# ------------------------------------------- the one counters reader: intervals, MLE, k, strict, forms
def _wilson_ref(s, n, z=1.959963984540054):
    """Wilson score interval written out (independent of specdec)."""
    p = s / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _el_real(a, m):
    """E[L] continued to a real draft length m: (1 - a^(m+1)) / (1 - a)."""
    return (1 - a ** (m + 1)) / (1 - a)


def _bisect(f, target, lo=0.0, hi=1.0 - 1e-15):
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return 0.5 * (lo + hi)


def _var_l(a, k):
    pmf = [a**n * (1 - a) for n in range(k)] + [a**k]
    mean = sum(n * p for n, p in enumerate(pmf))
    return sum(n * n * p for n, p in enumerate(pmf)) - mean**2


def test_moment_interval_is_the_delta_method_written_out():
    """Length 2.6 over 5,000 rounds at k = 3: mean +- z sd(L)/sqrt(n), mapped through a bisected inverse."""
    alpha = _bisect(lambda a: _el_real(a, 3), 2.6)
    half = 1.959963984540054 * math.sqrt(_var_l(alpha, 3) / 5000)
    ref = (_bisect(lambda a: _el_real(a, 3), 2.6 - half), _bisect(lambda a: _el_real(a, 3), 2.6 + half))
    got = sd.estimation.moment_alpha_interval(2.6, 3, 5000)
    assert got == pytest.approx(ref, abs=1e-12)
    lo90, hi90 = sd.estimation.moment_alpha_interval(2.6, 3, 5000, confidence=0.9)
    assert got[0] < lo90 < alpha < hi90 < got[1]
    # nothing accepted / everything accepted: Wilson of 0 in n, and of n k in n k
    assert sd.estimation.moment_alpha_interval(1.0, 3, 400) == pytest.approx(_wilson_ref(0, 400), abs=1e-12)
    assert sd.estimation.moment_alpha_interval(4.0, 3, 400) == pytest.approx(_wilson_ref(1200, 1200), abs=1e-12)
    with pytest.raises(ValueError, match=r"mean_acceptance_length must be in \[1, k \+ 1\] = \[1, 4.0\]; got 4.5"):
        sd.estimation.moment_alpha_interval(4.5, 3, 400)
    with pytest.raises(ValueError, match="n_rounds must be a finite number > 0"):
        sd.estimation.moment_alpha_interval(2.0, 3, 0)
    with pytest.raises(ValueError, match="confidence"):
        sd.estimation.moment_alpha_interval(2.0, 3, 10, confidence=1.0)


def test_moment_interval_covers_alpha_in_repeated_simulated_windows():
    """Monte Carlo: 300 seeded windows of 400 rounds at alpha 0.65, k = 5; the 95% interval covers 0.65 in
    0.91 .. 0.99 of them (about 3.2 binomial standard deviations of 300 draws around 0.95)."""
    rng = np.random.default_rng(31)
    covered = 0
    for _ in range(300):
        counts = sd.estimation.simulate_accepted_counts(0.65, 5, 400, rng)
        r = sd.estimation.read_engine_counters(400, 2000, int(counts.sum()))
        covered += r.alpha_interval[0] <= 0.65 <= r.alpha_interval[1]
    assert 0.91 <= covered / 300 <= 0.99


def test_mle_and_conditional_intervals_from_per_position_counts():
    """10,000 rounds of k = 4, 21,000 accepted, [7600, 5700, 4300, 3400]: MLE 21000 / (21000 + 6600) exactly,
    Wilson intervals written out, conditional rates as ratios of consecutive counts."""
    r = sd.estimation.read_engine_counters(10_000, 40_000, 21_000, [7_600, 5_700, 4_300, 3_400])
    assert r.alpha_mle[0] == pytest.approx(21_000 / 27_600, rel=1e-15)
    assert r.alpha_mle[1:] == pytest.approx(_wilson_ref(21_000, 27_600), abs=1e-12)
    assert r.alpha == pytest.approx(_bisect(lambda a: _el_real(a, 4), 3.1), abs=1e-12)
    assert r.alpha_interval[0] < r.alpha < r.alpha_interval[1]
    assert_allclose(r.conditional, [0.76, 5700 / 7600, 4300 / 5700, 3400 / 4300], rtol=1e-14)
    lo, hi = r.conditional_interval
    for i, (s, n) in enumerate([(7600, 10_000), (5700, 7600), (4300, 5700), (3400, 4300)]):
        assert (lo[i], hi[i]) == pytest.approx(_wilson_ref(s, n), abs=1e-12)
    # 0.760 [0.752, 0.768] at position 1 and 0.791 [0.778, 0.802] at position 4: the intervals do not overlap
    assert r.drift == "rises" and len(r.warnings) == 1 and "0.760 at position 1, 0.791 at position 4" in r.warnings[0]
    flat = sd.estimation.read_engine_counters(10_000, 40_000, 20_850, [7_600, 5_700, 4_300, 3_250])
    assert flat.drift is None
    assert r.accepted_per_position == (7600.0, 5700.0, 4300.0, 3400.0)


def test_drift_is_found_when_the_first_and_last_rates_differ():
    """Conditional rates 0.9, 0.69, 0.56, 0.43 over 4,000 rounds: 'falls', with a warning carrying them."""
    r = sd.estimation.read_engine_counters(4000, 16000, 8100, [3600, 2500, 1400, 600])
    assert r.drift == "falls"
    assert any("acceptance falls with draft position: 0.900 at position 1, 0.429 at position 4" in w for w in r.warnings)
    rising = sd.estimation.read_engine_counters(4000, 16000, 7000, [2000, 1800, 1700, 1500])
    assert rising.drift == "rises" and "understates long drafts" in rising.warnings[0]


def test_k_is_checked_against_the_counters():
    """k fixes the positions: more draft tokens per round or other positions raise; fewer tokens warn."""
    with pytest.raises(ValueError, match="4.2 draft tokens per draft is more than k = 4"):
        sd.estimation.read_engine_counters(1000, 4200, 2000, k=4)
    with pytest.raises(ValueError, match="accepted_per_position has 3 entries but k = 4"):
        sd.estimation.read_engine_counters(1000, 3000, 1500, [800, 450, 250], k=4)
    r = sd.estimation.read_engine_counters(1000, 3390, 2100, k=4)
    assert r.k == 4 and r.alpha_method == "mean draft length"
    assert r.alpha == pytest.approx(_bisect(lambda a: _el_real(a, 3.39), 3.1), abs=1e-12)
    assert "3.39 draft tokens per draft, fewer than k = 4" in r.warnings[0]
    with pytest.raises(ValueError, match="k must be a whole number >= 1; got 0"):
        sd.estimation.read_engine_counters(1000, 4000, 2000, k=0)


@pytest.mark.parametrize("per_position, fragment", [
    ([700, 720, 400, 280], "rises from 700 at position 1 to 720 at position 2"),
    ([1100, 500, 300, 200], "1100 rounds accepted position 1, more than the 1000 rounds counted"),
    ([800, 600, 400, 200], "sums to 2000, not num_accepted_tokens = 2100"),
])
def test_impossible_per_position_counts_raise_or_warn(per_position, fragment):
    """strict (default): ValueError with the numbers; strict=False: the same sentence as a warning, totals read."""
    with pytest.raises(ValueError, match=re.escape(fragment)):
        sd.estimation.read_engine_counters(1000, 4000, 2100, per_position)
    r = sd.estimation.read_engine_counters(1000, 4000, 2100, per_position, strict=False)
    assert any(fragment in w for w in r.warnings)
    assert r.per_position is None and r.alpha_mle is None and r.k == 4
    assert r.mean_acceptance_length == pytest.approx(3.1, rel=1e-15)


def test_every_form_of_the_counters_reads_the_same(tmp_path):
    """Numbers, a sequence, a dict of plain names, vLLM names, /metrics text, JSON/TOML/text files (also a path
    with a space): one reading; the source says where the counters came from."""
    ref = sd.estimation.read_engine_counters(2000, 8000, 4600, [1500, 1200, 1000, 900])
    plain = {"num_drafts": 2000, "num_draft_tokens": 8000, "num_accepted_tokens": 4600,
             "accepted_per_position": [1500, 1200, 1000, 900]}
    counters = vllm_counters(np.repeat([0, 1, 2, 3, 4], [500, 300, 200, 100, 900]), np.full(2000, 4), 4)
    del counters["vllm:spec_decode_num_draft_tokens_per_pos"]
    text = prometheus_text(counters)
    (tmp_path / "c.json").write_text(json.dumps(plain))
    (tmp_path / "c.toml").write_text("num_drafts = 2000\nnum_draft_tokens = 8000\nnum_accepted_tokens = 4600\n"
                                     "accepted_per_position = [1500, 1200, 1000, 900]\n")
    (tmp_path / "metrics page.txt").write_text(text)
    forms = [((2000, 8000, 4600, [1500, 1200, 1000, 900]), "counters (numbers)"), (plain, "counters (a dict)"),
             (counters, "counters (a dict)"), (text, "/metrics text"), (tmp_path / "c.json", "file"),
             (str(tmp_path / "c.toml"), "file"), (str(tmp_path / "metrics page.txt"), "file")]
    for source, label in forms:
        r = sd.estimation.read_engine_counters(source)
        assert r.source.startswith(label), (source, r.source)
        assert (r.num_drafts, r.num_draft_tokens, r.num_accepted_tokens) == (2000, 8000, 4600)
        assert r.accepted_per_position == ref.accepted_per_position and r.alpha == ref.alpha
        assert r.alpha_mle == ref.alpha_mle
    window = sd.estimation.read_engine_counters(text, before=prometheus_text(counters, scale=0.5))
    assert window.num_drafts == 1000 and "two snapshots" in window.source


@pytest.mark.parametrize("source, exc, match", [
    ({"num_drafts": 10, "num_draft_tokens": 40, "num_accepted_tokens": 20, "drafts": 3}, ValueError,
     "counters has an unknown field 'drafts'"),
    ({"num_drafts": 10, "vllm:spec_decode_num_drafts_total": 11, "num_draft_tokens": 40, "num_accepted_tokens": 20},
     ValueError, "counters give num_drafts twice with different values"),
    ({"num_drafts": 10, "num_draft_tokens": 40, "num_accepted_tokens": 20, "accepted_per_position": "8"}, TypeError,
     "accepted_per_position must be a list of counts"),
    ({"num_drafts": 10, "num_draft_tokens": 40, "num_accepted_tokens": 20, "accepted_per_position": {"a": 1}},
     ValueError, "positions must be whole numbers"),
    ((10, 40), ValueError, r"counters as a sequence must be .*got 2 items"),
    ((10, 40, np.float64(-2.5)), ValueError, "num_accepted_tokens must be a finite number >= 0 \\(count\\); got -2.5"),
])
def test_front_end_errors_name_the_counter(source, exc, match):
    """Misspelt, duplicated or malformed counters: errors naming the key, with plain numbers."""
    with pytest.raises(exc, match=match) as info:
        sd.estimation.read_engine_counters(source)
    assert "np.float64" not in str(info.value)


def test_source_label_and_paths():
    """A string without whitespace is a file; a sample line has whitespace; the label says which."""
    label = sd.engine_metrics.source_label
    assert label("m.txt") == "file m.txt" and label(pathlib.Path("a b.txt")) == "file a b.txt"
    assert label("vllm:spec_decode_num_drafts_total 3\n") == "/metrics text"
    assert label({"num_drafts": 1}) == "counters (a dict)"
    with pytest.raises(ValueError, match="cannot be read"):
        sd.estimation.read_engine_counters("no-such-file.json")


@pytest.mark.parametrize("counters, message", [
    ({"num_drafts": -1.0, "num_draft_tokens": 40.0, "num_accepted_tokens": 20.0}, "num_drafts must be a finite number >= 0"),
    ({"num_drafts": 10.0, "num_draft_tokens": float("nan"), "num_accepted_tokens": 20.0}, "num_draft_tokens must be"),
    ({"num_drafts": 10.0, "num_draft_tokens": 40.0, "num_accepted_tokens": 20.0,
      "accepted_per_position": [8.0, -1.0, 6.0, 5.0]}, "accepted_per_position must be"),
    ({"num_drafts": 0.0, "num_draft_tokens": 40.0, "num_accepted_tokens": 20.0}, "num_drafts must be a finite number > 0"),
])
def test_a_hand_made_engine_source_has_its_counts_checked(counters, message):
    """An EngineSource built by hand (not by read_engine_source, which checks what it reads) is checked at the edge,
    by read_engine_counters and by decide alike."""
    from specdec.acceptance.engine_metrics import EngineSource

    src = EngineSource(engine="vllm", form="counters (a dict)", counters=counters)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        sd.estimation.read_engine_counters(src)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        sd.decide(t0=5.2, t_verify=6.0, k=4, t_draft_step=0.5, counters=src)

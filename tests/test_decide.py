"""Tests of specdec.decision (sd.decide): alpha from engine metrics, the figures at k, best k, break-even, verdict,
every warning and every error path, and the text/Markdown/JSON report.

References are independent of the implementation: exact fractions, polynomials summed term by term,
bisection written here, least squares by numpy.polyfit, brute-force searches over k, and Monte Carlo
with a seeded RNG and a stated tolerance.
"""

from __future__ import annotations

import html as _html
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec as sd
from specdec.acceptance.estimation import EngineReading, read_engine_counters
from specdec.decision import Decision, decide, parse_time, read_fields
from specdec.widgets._base import SNAPSHOT_NOTE

EXAMPLE = dict(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, mean_acceptance_length=3.1)


def el_poly(alpha, k):
    """E[L] = 1 + alpha + ... + alpha^k, term by term."""
    return sum(alpha**i for i in range(k + 1))


def inverse_el(length, k):
    """alpha with el_poly(alpha, k) = length, by 200 bisection halvings (independent of specdec)."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if el_poly(mid, k) < length:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def var_l(alpha, k):
    """Var(L) from the capped geometric pmf, written out."""
    pmf = [alpha**n * (1 - alpha) for n in range(k)] + [alpha**k]
    mean = sum(n * p for n, p in enumerate(pmf))
    return sum(n * n * p for n, p in enumerate(pmf)) - mean**2


def brute_best_k(alpha, t0, step, verify_of_k, overhead=0.0, k_max=16):
    """Best k by evaluating every k (first maximum)."""
    best, best_s = None, -1.0
    for k in range(1, k_max + 1):
        s = t0 * el_poly(alpha, k) / (k * step + verify_of_k(k) + overhead)
        if s > best_s * (1 + 1e-12):
            best, best_s = k, s
    return best, best_s


DROP = object()  # a keyword removed from EXAMPLE


def run(**changes):
    values = dict(EXAMPLE)
    values.update(changes)
    values = {key: v for key, v in values.items() if v is not DROP}
    return decide(**values)


# ---------------------------------------------------------------- the worked example


def test_worked_example_alpha_el_and_speedup():
    """12 ms, 1.1 ms per step, 14 ms at k = 4, length 3.1: alpha 0.758, E[L] = 3.1, 12 x 3.1 / 18.4 = 2.02."""
    d = run()
    assert isinstance(d, Decision)
    assert round(d.alpha, 3) == 0.758
    assert abs(el_poly(Fraction(d.alpha), 4) - Fraction(31, 10)) <= Fraction(1, 10**13)
    assert abs(d.expected_tokens - 3.1) <= 1e-13
    exact = Fraction(12) * Fraction(31, 10) / (4 * Fraction(11, 10) + 14)
    assert abs(d.speedup - float(exact)) <= 1e-14 * float(exact)
    assert f"{d.speedup:.2f}" == "2.02"
    assert d.verdict == "speculate"
    assert d.warnings == ()
    assert d.t_round == pytest.approx(18.4, rel=1e-15)


def test_worked_example_with_the_rate_warns_with_its_numbers():
    """With 0.62 too: 2.1 / 0.62 = 3.39 drafts per draft, not k = 4; at k = 4 the length means 0.525."""
    d = run(draft_acceptance_rate=0.62)
    assert len(d.warnings) == 1
    w = d.warnings[0]
    assert "mean acceptance length of 3.1 and a draft acceptance rate of 0.62 imply 3.39 draft tokens per draft, " \
           "not k = 4" in w
    assert f"{(3.1 - 1) / 4:.3f}" in w and "0.525" in w
    assert f"{1 + 0.62 * 4:.2f}" in w
    assert "SGLang" in w  # 0.62 = 3.1 / 5
    assert abs(d.expected_tokens - 3.1) <= 1e-13  # alpha still from the length


# ---------------------------------------------------------------- other numbers, exact references


def test_length_at_another_operating_point():
    """t0 20 ms, 0.8 ms steps, 23 ms at k = 3, length 2.6: alpha solves 1+a+a^2+a^3 = 2.6; speedup 52/25.4."""
    d = decide(t0="20ms", t_draft_step="0.8ms", t_verify="23ms", k=3, mean_acceptance_length=2.6)
    assert d.alpha == pytest.approx(inverse_el(2.6, 3), abs=1e-13)
    exact = Fraction(20) * Fraction(26, 10) / (3 * Fraction(8, 10) + 23)
    assert abs(d.speedup - float(exact)) <= 1e-14 * float(exact)
    assert d.c_draft == pytest.approx(0.04, rel=1e-14)
    assert d.c_verify == pytest.approx(23 / 20, rel=1e-14)


def test_rate_input_is_not_alpha():
    """A draft acceptance rate of 0.45 at k = 5 means E[L] = 1 + 5 x 0.45 = 3.25; alpha is well above 0.45."""
    d = decide(t0="10ms", t_draft_step="0.5ms", t_verify="11ms", k=5, draft_acceptance_rate=0.45)
    assert d.expected_tokens == pytest.approx(3.25, abs=1e-12)
    assert d.alpha == pytest.approx(inverse_el(3.25, 5), abs=1e-12)
    assert d.alpha > 0.6
    assert "not alpha" in d.alpha_source


def test_round_time_input_and_overhead():
    """t_draft_round = 6 ms at k = 5 is 1.2 ms per step; overhead joins the round."""
    d = decide(t0="15ms", t_draft_round="6ms", t_verify="16ms", t_overhead="0.5ms", k=5,
               mean_acceptance_length=3.4)
    assert d.t_draft_step == pytest.approx(1.2, rel=1e-15)
    assert d.t_round == pytest.approx(22.5, rel=1e-15)
    assert d.speedup == pytest.approx(15 * 3.4 / 22.5, rel=1e-13)
    assert d.c_verify == pytest.approx(16.5 / 15, rel=1e-15)


def test_units_convert_and_numbers_are_in_time_unit():
    """1.1ms = 1100us = 0.0011 s = 1100µs = 1100μs; bare numbers are in time_unit."""
    assert parse_time("1.1ms") == 1.1
    assert parse_time("1100us") == pytest.approx(1.1, rel=1e-15)
    assert parse_time("1100\u00b5s") == parse_time("1100\u03bcs") == parse_time("1100 us")
    assert parse_time("0.0011 s") == pytest.approx(1.1, rel=1e-15)
    assert parse_time("3e-3s", unit="s") == 0.003
    assert parse_time(12, unit="us") == 12.0
    a = decide(t0="12ms", t_draft_step="1100us", t_verify="0.014s", k=4, mean_acceptance_length=3.1)
    b = decide(t0=0.012, t_draft_step=0.0011, t_verify=0.014, k=4, mean_acceptance_length=3.1, time_unit="s")
    assert a.speedup == pytest.approx(b.speedup, rel=1e-14)
    assert b.time_unit == "s" and b.t0 == 0.012


# ---------------------------------------------------------------- counters


def test_counters_method_of_moments_and_delta_interval():
    """2000 rounds, 10000 drafted, 6000 accepted at k = 5: E[L] = 4, interval from sd(L)/sqrt(2000)."""
    d = decide(t0="12ms", t_draft_step="1ms", t_verify="14ms", k=5,
               counters={"num_drafts": 2000, "num_draft_tokens": 10000, "num_accepted_tokens": 6000})
    alpha = inverse_el(4.0, 5)
    assert d.alpha == pytest.approx(alpha, abs=1e-13)
    assert d.expected_tokens == pytest.approx(4.0, abs=1e-12)
    half = 1.959963984540054 * math.sqrt(var_l(alpha, 5) / 2000)
    lo, hi = inverse_el(4.0 - half, 5), inverse_el(4.0 + half, 5)
    assert d.alpha_interval == pytest.approx((lo, hi), abs=1e-12)
    assert d.speedup_interval[0] == pytest.approx(12 * el_poly(lo, 5) / 19, rel=1e-12)
    assert "method of moments" in d.alpha_estimator and "i.i.d." in d.alpha_estimator
    assert d.warnings == ()


def test_counters_interval_covers_alpha_in_repeated_logs():
    """Monte Carlo: 400 seeded logs of 300 rounds at alpha 0.7, k = 4; the 95% interval covers 0.7 in
    0.92 .. 0.98 of them (3.4 binomial standard deviations of 400 draws around 0.95)."""
    rng = np.random.default_rng(20240516)
    alpha, k, n, logs = 0.7, 4, 300, 400
    covered = 0
    for _ in range(logs):
        accepted = np.minimum(rng.geometric(1 - alpha, size=n) - 1, k)  # drafts accepted before a rejection
        d = decide(t0="10ms", t_draft_step="1ms", t_verify="11ms", k=k,
                   counters=(n, n * k, int(accepted.sum())))
        covered += d.alpha_interval[0] <= alpha <= d.alpha_interval[1]
    assert 0.92 <= covered / logs <= 0.98


def test_per_position_counts_give_the_mle_of_the_per_round_log():
    """Per-position counters built from a seeded per-round log: the MLE is S / (S + F) of that log."""
    rng = np.random.default_rng(7)
    k, n = 4, 5000
    accepted = np.minimum(rng.geometric(1 - 0.8, size=n) - 1, k)
    per_pos = [int((accepted >= i).sum()) for i in range(1, k + 1)]
    s, f = int(accepted.sum()), int((accepted < k).sum())
    d = decide(t0="10ms", t_draft_step="1ms", t_verify="11ms",
               counters={"num_drafts": n, "num_draft_tokens": n * k, "num_accepted_tokens": s,
                         "accepted_per_position": per_pos})
    assert d.k == 4  # from the per-position counts
    assert d.alpha_mle[0] == pytest.approx(s / (s + f), rel=1e-15)
    assert d.alpha_mle[1] < d.alpha_mle[0] < d.alpha_mle[2]
    assert d.per_position["unconditional"] == pytest.approx([c / n for c in per_pos], rel=1e-15)
    cond = [per_pos[0] / n] + [per_pos[i] / per_pos[i - 1] for i in range(1, k)]
    assert d.per_position["conditional"] == pytest.approx(cond, rel=1e-15)
    assert abs(d.alpha - 0.8) < 0.02 and abs(d.alpha_mle[0] - 0.8) < 0.02
    assert d.warnings == ()
    assert "maximum-likelihood alpha from the per-position counts" in str(d)
    assert f"{d.alpha_mle[0]:.3f}" in d.to_markdown()
    assert json.loads(d.to_json())["alpha_mle"]["alpha"] == pytest.approx(s / (s + f), rel=1e-11)


def test_vllm_metric_names_with_and_without_total_and_other_keys_ignored():
    """vLLM's Prometheus names give the same counters; unrelated vllm: metrics are ignored."""
    plain = read_engine_counters({"num_drafts": 1000, "num_draft_tokens": 4000, "num_accepted_tokens": 2100})
    named = read_engine_counters({"vllm:spec_decode_num_drafts": 1000, "vllm:spec_decode_num_draft_tokens_total": 4000,
                           "vllm:spec_decode_num_accepted_tokens": 2100, "vllm:num_requests_running": 3,
                           "vllm:spec_decode_num_accepted_tokens_per_pos": {"0": 800, "1": 600, "2": 450, "3": 250}})
    assert (named.num_drafts, named.num_draft_tokens, named.num_accepted_tokens) == (1000, 4000, 2100)
    assert named.accepted_per_position == (800, 600, 450, 250)
    assert plain.mean_acceptance_length == pytest.approx(3.1, rel=1e-15)
    assert plain.draft_acceptance_rate == pytest.approx(0.525, rel=1e-15)
    assert plain.mean_draft_length == 4 and plain.k == 4
    assert isinstance(plain, EngineReading)


def test_prometheus_text_sums_engines_and_positions(tmp_path):
    """A saved /metrics page with two engines: counters summed over engines, per position by label."""
    text = "\n".join([
        "# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.",
        "# TYPE vllm:spec_decode_num_drafts_total counter",
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 600.0',
        'vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 400.0',
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 1800.0',
        'vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="m"} 1200.0',
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 900.0',
        'vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="m"} 500.0',
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 450.0',
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} 300.0',
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 280.0',
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="1"} 150.0',
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="2"} 170.0',
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="2"} 50.0',
        'vllm:num_requests_running{engine="0",model_name="m"} 4.0',
    ])
    path = tmp_path / "metrics.txt"
    path.write_text(text)
    c = read_engine_counters(path)
    assert (c.num_drafts, c.num_draft_tokens, c.num_accepted_tokens) == (1000, 3000, 1400)
    assert c.accepted_per_position == (750, 430, 220)
    d = decide(t0="10ms", t_draft_step="1ms", t_verify="11ms", counters=str(path))
    assert d.k == 3 and d.expected_tokens == pytest.approx(2.4, abs=1e-12)


def test_counters_from_json_and_toml_files(tmp_path):
    """The same counters as JSON and as TOML files."""
    (tmp_path / "c.json").write_text(json.dumps({"num_drafts": 500, "num_draft_tokens": 2500,
                                                  "num_accepted_tokens": 1000}))
    (tmp_path / "c.toml").write_text("num_drafts = 500\nnum_draft_tokens = 2500\nnum_accepted_tokens = 1000\n")
    a, b = read_engine_counters(tmp_path / "c.json"), read_engine_counters(str(tmp_path / "c.toml"))
    assert (a.num_drafts, a.num_draft_tokens, a.num_accepted_tokens) == (500, 2500, 1000)
    assert (b.num_drafts, b.num_draft_tokens, b.num_accepted_tokens) == (500, 2500, 1000)
    assert read_fields(tmp_path / "c.toml")["num_drafts"] == 500


def test_non_integer_tokens_per_draft_works_and_warns():
    """3390 draft tokens in 1000 drafts at k = 4 (3.39 per draft): alpha solves the length 3.1 at 3.39 drafts
    ((1 - a^4.39) / (1 - a) = 3.1, bisection written here), with a warning; E[L] at k = 4 is the measured
    1 + 2100 / 1000 = 3.1 (not the i.i.d. 3.33 at that alpha: issue 25, item 4), and the speedup uses it."""
    d = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4,
               counters={"num_drafts": 1000, "num_draft_tokens": 3390, "num_accepted_tokens": 2100})
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if (1 - mid**4.39) / (1 - mid) < 3.1 else (lo, mid)
    assert d.alpha == pytest.approx(0.5 * (lo + hi), abs=1e-12)
    assert d.expected_tokens == pytest.approx(3.1, rel=1e-15) and el_poly(d.alpha, 4) > 3.3
    assert d.speedup == pytest.approx(12 * 3.1 / (4 * 1.1 + 14), rel=1e-13)
    assert d.speedup_by_k[3]["expected_tokens"] == pytest.approx(3.1, rel=1e-13)
    assert any("3.39 draft tokens per draft, fewer than k = 4" in w for w in d.warnings)
    assert "mean draft length" in d.alpha_estimator
    assert d.counters.mean_draft_length == pytest.approx(3.39, rel=1e-15)


def test_zero_and_full_acceptance_use_wilson_intervals():
    """Nothing accepted: alpha 0, interval from 0 of 800 checks; everything: alpha 1, from 3200 of 3200."""
    none = decide(t0="10ms", t_draft_step="1ms", t_verify="11ms", k=4, counters=(800, 3200, 0))
    assert none.alpha == 0.0 and none.alpha_interval[0] == 0.0
    z = 1.959963984540054
    assert none.alpha_interval[1] == pytest.approx(z**2 / (800 + z**2), rel=1e-9)  # Wilson upper end at 0/n
    assert none.verdict == "do not speculate"
    full = decide(t0="10ms", t_draft_step="1ms", t_verify="11ms", k=4, counters=(800, 3200, 3200))
    assert full.alpha == 1.0 and full.alpha_interval[1] == 1.0
    assert full.alpha_interval[0] == pytest.approx(3200 / (3200 + z**2), rel=1e-9)  # Wilson lower end at n/n


# ---------------------------------------------------------------- best k and the verification model


def test_best_k_with_one_k_is_optimal_k_and_brute_force():
    """One k measured: verification constant; best k = sd.optimal_k and a brute-force search."""
    d = decide(t0="10ms", t_draft_step="0.4ms", t_verify="10.5ms", t_overhead="0.3ms", k=3,
               mean_acceptance_length=3.2)
    alpha = d.alpha
    assert d.best_k == sd.optimal_k(alpha, 0.04, 10.8 / 10, k_max=16)
    best, best_s = brute_best_k(alpha, 10, 0.4, lambda k: 10.5, 0.3)
    assert d.best_k == best and d.best_speedup == pytest.approx(best_s, rel=1e-12)
    assert d.verify_model["kind"] == "constant" and d.verify_model["slope"] == 0.0


def test_sensitivity_with_one_k_is_the_line_from_t0():
    """One k: the alternative model is a line from t0 at k = 0 through the point, slope (14 - 12) / 4."""
    d = run()
    assert d.sensitivity["slope"] == pytest.approx(0.5, rel=1e-15)
    best, best_s = brute_best_k(d.alpha, 12, 1.1, lambda k: 12 + 0.5 * k)
    assert d.sensitivity["best_k"] == best
    assert d.sensitivity["best_speedup"] == pytest.approx(best_s, rel=1e-12)
    const_best, _ = brute_best_k(d.alpha, 12, 1.1, lambda k: 14.0)
    assert d.best_k == const_best


def test_two_k_fit_exact_line_and_best_k():
    """14 ms at k = 4 and 15.5 ms at k = 6: t_verify = 11 + 0.75 k; best k by brute force on that line."""
    d = decide(t0="12ms", t_draft_step="1.1ms", t_verify={4: "14ms", 6: "15.5ms"}, k=4, mean_acceptance_length=3.3)
    assert d.verify_model["slope"] == pytest.approx(0.75, rel=1e-14)
    assert d.verify_model["intercept"] == pytest.approx(11.0, rel=1e-14)
    best, best_s = brute_best_k(d.alpha, 12, 1.1, lambda k: 11 + 0.75 * k)
    assert (d.best_k, d.best_speedup) == (best, pytest.approx(best_s, rel=1e-12))
    assert d.sensitivity is None
    assert d.t_verify == 14.0  # the measured time at the measured k, not the fit


def test_three_k_least_squares_matches_polyfit():
    """Three noisy points: slope and intercept equal numpy.polyfit's; the measured k may be off the points."""
    ks, ts = [2, 4, 8], [12.9, 14.1, 16.6]
    slope, intercept = np.polyfit(ks, ts, 1)
    d = decide(t0="12ms", t_draft_step="1ms", t_verify={kk: f"{t}ms" for kk, t in zip(ks, ts, strict=True)}, k=5,
               mean_acceptance_length=3.0)
    assert d.verify_model["slope"] == pytest.approx(slope, rel=1e-12)
    assert d.verify_model["intercept"] == pytest.approx(intercept, rel=1e-12)
    assert d.t_verify == pytest.approx(intercept + 5 * slope, rel=1e-12)
    assert "rms residual" in d.verify_model["description"]


def test_verification_falling_with_k_warns_and_is_constant():
    """15 ms at k = 2 and 14 ms at k = 6: a falling line is not believed; constant at the mean, 14.5 ms."""
    d = decide(t0="12ms", t_draft_step="1ms", t_verify={2: "15ms", 6: "14ms"}, k=6, mean_acceptance_length=4.0)
    assert any("verification time falls with k" in w for w in d.warnings)
    assert d.verify_model["slope"] == 0.0 and d.verify_model["intercept"] == pytest.approx(14.5, rel=1e-15)


# ---------------------------------------------------------------- break-even, margin, verdicts


def test_break_even_alpha_and_margin():
    """Break-even: E[L](alpha*) equals the round's cost in target steps; margin = alpha - alpha*."""
    d = run()
    cost = Fraction(184, 10) / 12
    assert abs(el_poly(d.break_even_alpha, 4) - float(cost)) <= 1e-13
    assert d.break_even_length == pytest.approx(float(cost), rel=1e-15)
    assert d.break_even_rate == pytest.approx((float(cost) - 1) / 4, rel=1e-14)
    assert d.margin == pytest.approx(d.alpha - d.break_even_alpha, abs=1e-15)
    s_at = 12 * el_poly(d.worth_it_alpha, 4) / 18.4
    assert s_at == pytest.approx(1.3, rel=1e-12)


def test_verdict_not_worth_it():
    """Speedup between 1 and 1.3 at every k: 'not worth it'."""
    d = decide(t0="10ms", t_draft_step="2ms", t_verify="11ms", k=2, mean_acceptance_length=1.9)
    assert 1.0 <= d.speedup < 1.3 and d.best_speedup < 1.3
    assert d.verdict == "not worth it"
    assert d.speedup == pytest.approx(10 * 1.9 / 15, rel=1e-14)


def test_verdict_do_not_speculate_and_no_break_even():
    """A round of 2.4 target steps at k = 1 can emit at most 2 tokens: no alpha pays (nan), slower."""
    d = decide(t0="10ms", t_draft_step="9ms", t_verify="15ms", k=1, mean_acceptance_length=1.8)
    assert math.isnan(d.break_even_alpha) and math.isnan(d.margin)
    assert d.verdict == "do not speculate"
    assert any("no alpha can pay" in r for r in d.reasons)
    assert json.loads(d.to_json())["break_even_alpha"] is None


def test_verdict_retune_k():
    """k = 1 with a cheap draft and a good alpha: 1.27x at k = 1 but far more at a larger k."""
    d = decide(t0="10ms", t_draft_step="0.2ms", t_verify="12ms", k=1, mean_acceptance_length=1.55)
    assert d.speedup < 1.3 <= d.best_speedup and d.best_k > 1
    assert d.verdict == "retune k"


def test_break_even_zero_when_a_round_is_cheaper_than_a_step():
    """Verification below t0 (warned) and a free draft: any alpha > 0 pays, break-even 0."""
    d = decide(t0="10ms", t_draft_step="0ms", t_verify="9ms", k=2, mean_acceptance_length=2.0)
    assert d.break_even_alpha == 0.0
    assert any("any alpha > 0 pays" in r for r in d.reasons)
    assert any("below t0" in w for w in d.warnings)


def test_uncertain_reason_when_interval_straddles_break_even():
    """Few rounds near break-even: the speedup interval crosses 1 and the report says so."""
    d = decide(t0="10ms", t_draft_step="1ms", t_verify="12ms", k=4, counters=(40, 160, 28))
    assert d.speedup == pytest.approx(10 * 1.7 / 16, rel=1e-14)
    assert d.speedup_interval[0] < 1.0 <= d.speedup <= d.speedup_interval[1]
    assert any("uncertain" in r for r in d.reasons)


# ---------------------------------------------------------------- every warning


@pytest.mark.parametrize("changes, fragment", [
    (dict(t_draft_round="6ms"), "t_draft_round = 6 ms is not k x t_draft_step = 4 x 1.1 = 4.4 ms"),
    (dict(t_draft_round="1.1ms"), "nearly equal"),
    (dict(t_draft_step="13ms"), "was the whole round's draft time passed as t_draft_step?"),
    (dict(t_verify="11ms"), "t_verify = 11 ms at k = 4 is below t0 = 12 ms"),
    (dict(draft_acceptance_rate=0.5, mean_acceptance_length=2.5), "they agree at k = 3"),
    (dict(tpot_off="12.5ms", tpot_on="9ms"), "measured TPOT ratio 12.5 / 9 = 1.39x differs"),
    (dict(tpot_off="11ms", tpot_on="5.4ms"), "t0 = 12 ms is longer than the time per output token"),
])
def test_each_time_and_metric_warning(changes, fragment):
    """Each contradiction among the inputs gives a warning carrying its numbers."""
    d = run(**changes)
    assert any(fragment in w for w in d.warnings), d.warnings


def test_consistent_inputs_give_no_warning():
    """A length and a rate that agree at k (2.8 = 1 + 5 x 0.36), a matching round, a matching TPOT ratio."""
    d = decide(t0="12ms", t_draft_step="1ms", t_draft_round="5ms", t_verify="14ms", k=5,
               mean_acceptance_length=2.8, draft_acceptance_rate=0.36, tpot_off="12.3ms",
               tpot_on=f"{12.3 / (12 * 2.8 / 19):.3f}ms")
    assert d.warnings == ()


@pytest.mark.parametrize("counters, extra, fragment", [
    ((1000, 4000, 2100), dict(mean_acceptance_length=3.3), "the counters give a mean acceptance length of 3.100"),
    ((1000, 4000, 2100), dict(draft_acceptance_rate=0.6), "the counters give a draft acceptance rate of 0.5250"),
    ((1000, 4000, 2100, [700, 720, 400, 280]), {}, "rises from 700 at position 1 to 720 at position 2"),
    ((1000, 4000, 2100, [1100, 500, 300, 200]), {}, "1100 rounds accepted position 1, more than the 1000"),
    ((1000, 4000, 2100, [800, 600, 400, 200]), {}, "sums to 2000, not num_accepted_tokens = 2100"),
    ((4000, 16000, 8100, [3600, 2500, 1400, 600]), {}, "acceptance falls with draft position"),
])
def test_each_counter_warning(counters, extra, fragment):
    """Counters that contradict a given metric, or themselves, give a warning with the numbers."""
    d = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, counters=counters, **extra)
    assert any(fragment in w for w in d.warnings), d.warnings


def test_drift_adds_a_reason():
    """Falling conditional acceptance (0.9 .. 0.43) is flagged in the reasons too."""
    d = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, counters=(4000, 16000, 8100,
                                                                                  [3600, 2500, 1400, 600]))
    assert any("overstates long drafts" in r for r in d.reasons)


# ---------------------------------------------------------------- every error


@pytest.mark.parametrize("changes, exc, fragment", [
    (dict(t0="-12ms"), ValueError, "t0 must be a time > 0; got -12 ms"),
    (dict(t0="0ms"), ValueError, "t0 must be a time > 0"),
    (dict(t0="12"), ValueError, "t0 needs a unit"),
    (dict(t0="12 min"), ValueError, "t0 has an unknown unit 'min'"),
    (dict(t0="twelve"), ValueError, "t0 must be a duration"),
    (dict(t0=None), TypeError, "t0 must be a duration: a number in ms or a string such as '12ms'; got None"),
    (dict(t0=float("nan")), ValueError, "t0 must be a finite number"),
    (dict(t_draft_step="-1ms"), ValueError, "t_draft_step must be a time >= 0; got -1 ms"),
    (dict(t_draft_step=DROP), ValueError, "t_draft_step or t_draft_round is required"),
    (dict(t_draft_step=DROP, t_draft_round="-2ms"), ValueError, "t_draft_round must be a time >= 0"),
    (dict(t_verify="0ms"), ValueError, "t_verify must be a time > 0"),
    (dict(t_verify={}), ValueError, "t_verify must give at least one"),
    (dict(t_verify={0: "14ms"}), ValueError, "t_verify keys must be whole numbers k >= 1"),
    (dict(t_verify={2.5: "14ms"}), ValueError, "t_verify keys must be whole numbers k >= 1 (the draft length of each "
                                               "measurement); got 2.5"),
    (dict(t_verify={"x": "14ms"}), ValueError, "t_verify keys must be whole numbers"),
    (dict(t_verify={4: "14ms", "4": "15ms"}), ValueError, "t_verify gives k = 4 twice"),
    (dict(t_verify={4: "-1ms"}), ValueError, "t_verify at k = 4 must be a time > 0"),
    (dict(t_verify={6: "14ms"}), ValueError, "t_verify was measured at k = 6 only, but acceptance at k = 4"),
    (dict(t_overhead="-0.1ms"), ValueError, "t_overhead must be a time >= 0"),
    (dict(tpot_off="12ms"), ValueError, "tpot_on is missing"),
    (dict(tpot_on="12ms"), ValueError, "tpot_off is missing"),
    (dict(k=0), ValueError, "k must be a whole number in [1, 64]; got 0"),
    (dict(k=2.5), ValueError, "k must be a whole number in [1, 64]; got 2.5"),
    (dict(k=True), TypeError, "k must be a number, got True"),
    (dict(k=np.float64(2.5)), ValueError, "got 2.5"),
    (dict(mean_acceptance_length=5.3), ValueError, "mean_acceptance_length must be <= k + 1 = 5"),
    (dict(mean_acceptance_length=0.8), ValueError, "mean_acceptance_length must be >= 1"),
    (dict(mean_acceptance_length="3.1"), TypeError, "mean_acceptance_length must be a number"),
    (dict(mean_acceptance_length=DROP, draft_acceptance_rate=62.0), ValueError, "write it with its sign (62%, i.e. 0.62)"),
    (dict(mean_acceptance_length=DROP, draft_acceptance_rate=-0.1), ValueError, "draft_acceptance_rate must be a fraction in"),
    (dict(mean_acceptance_length=DROP), ValueError, "counters, mean_acceptance_length or draft_acceptance_rate is "
                                                    "required"),
    (dict(confidence=1.0), ValueError, "confidence must be in (0, 1); got 1.0"),
    (dict(k_max=0), ValueError, "k_max must be a whole number in [1, 64]; got 0"),
    (dict(worth_it=1.0), ValueError, "worth_it must be a speedup > 1"),
    (dict(time_unit="min"), ValueError, "time_unit must be one of"),
])
def test_each_error_names_the_parameter(changes, exc, fragment):
    """Impossible inputs raise ValueError/TypeError naming the parameter, with plain numbers."""
    with pytest.raises(exc) as info:
        run(**changes)
    assert fragment in str(info.value)
    assert "np.float64" not in str(info.value) and "np.int64" not in str(info.value)


@pytest.mark.parametrize("counters, k, exc, fragment", [
    ((1000, 4000, 4100), 4, ValueError, "num_accepted_tokens must be <= num_draft_tokens = 4000 (a draft token is accepted at most once); got 4100"),
    ((1000, 4200, 2100), 4, ValueError, "4.2 draft tokens per draft is more than k = 4"),
    ((0, 4000, 2100), 4, ValueError, "num_drafts must be a finite number > 0 (rounds); got 0"),
    ((1000, 0, 0), 4, ValueError, "num_draft_tokens must be a finite number > 0 (tokens)"),
    ((1000, -4000, 2100), 4, ValueError, "num_draft_tokens must be a finite number >= 0 (count); got -4000"),
    ((1000, 4000, 2100, [900, 700, 500]), 4, ValueError, "accepted_per_position has 3 entries but k = 4"),
    ((1000, 4000, 2100, []), 4, ValueError, "one count per draft position"),
    ((1000, 4000, 2100, "900"), 4, TypeError, "accepted_per_position must be a list of counts"),
    ((1000, 4000), 4, ValueError, "counters as a sequence must be"),
    (("1000", 4000, 2100), 4, TypeError, "num_drafts must be a real number"),
    ({"num_drafts": 1000, "num_draft_tokens": 4000}, 4, ValueError,
     "counters: missing the counter(s) num_accepted_tokens (vllm:spec_decode_num_accepted_tokens)"),
    ({"num_drafts": 1000, "num_draft_tokens": 4000, "num_accepted_tokens": 2100, "drafts": 3}, 4, ValueError,
     "counters has an unknown field 'drafts'"),
    ({"num_drafts": 1000, "vllm:spec_decode_num_drafts": 999, "num_draft_tokens": 4000, "num_accepted_tokens": 2100},
     4, ValueError, "counters give num_drafts twice with different values"),
    ({"num_drafts": 1000, "num_draft_tokens": 4000, "num_accepted_tokens": 2100,
      "accepted_per_position": {"0": 900, "2": 500}}, 4, ValueError, "without gaps"),
    ((1000, 3390, 2100), None, ValueError, "k is required"),
    (12, 4, TypeError, "counters must be a dict of counters, the /metrics text, a file path, a sequence"),
])
def test_each_counter_error(counters, k, exc, fragment):
    """Impossible counters raise naming the counter and the allowed range."""
    with pytest.raises(exc) as info:
        decide(t0="12ms", t_draft_step="1.1ms", t_verify={4: "14ms", 6: "15ms"}, k=k, counters=counters)
    assert fragment in str(info.value)


def test_file_errors(tmp_path):
    """A missing file, invalid JSON, a file with no vLLM counters: errors that name the file."""
    with pytest.raises(ValueError, match="cannot be read"):
        read_engine_counters(tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="is not valid JSON"):
        read_engine_counters(tmp_path / "bad.json")
    (tmp_path / "bad.toml").write_text("x = = 1")
    with pytest.raises(ValueError, match="is not valid TOML"):
        read_fields(tmp_path / "bad.toml")
    (tmp_path / "other.txt").write_text('vllm:num_requests_running{engine="0"} 4\n')
    with pytest.raises(ValueError, match="no speculative decoding metrics found"):
        read_engine_counters(tmp_path / "other.txt")
    with pytest.raises(ValueError, match="neither JSON nor TOML"):
        read_fields(tmp_path / "other.txt")


# ---------------------------------------------------------------- the report in three forms


def test_json_has_the_required_keys_and_round_trips():
    """to_json: at least alpha, expected_tokens, speedup, best_k, break_even_alpha, verdict, warnings (a list)."""
    d = run(draft_acceptance_rate=0.62)
    data = json.loads(d.to_json())
    for key in ("alpha", "expected_tokens", "speedup", "best_k", "break_even_alpha", "verdict", "warnings"):
        assert key in data
    assert isinstance(data["warnings"], list) and len(data["warnings"]) == 1
    assert data["alpha"] == pytest.approx(d.alpha, rel=1e-11)
    assert data["best_k"] == d.best_k and isinstance(data["best_k"], int)
    assert data["speedup"] == pytest.approx(float(Fraction(372, 10) / Fraction(184, 10)), rel=1e-11)
    assert json.loads(json.dumps(d.to_dict(), allow_nan=False))["verdict"] == data["verdict"]  # plain data

    def floats(obj):
        if isinstance(obj, float):
            yield obj
        elif isinstance(obj, dict):
            for v in obj.values():
                yield from floats(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from floats(v)

    digits = [len(repr(v).split("e")[0].replace(".", "").replace("-", "").strip("0")) for v in floats(data)]
    assert len(digits) > 20 and max(digits) <= 12  # stored at 12 significant digits at most


def test_text_report_shows_the_figures_at_sensible_precision():
    """str(): verdict, alpha to 3 decimals, E[L] and speedup to 2, the round, best k, break-even, warnings."""
    d = run(draft_acceptance_rate=0.62)
    text = str(d)
    assert text.startswith("Verdict: speculate (2.02x at k = 4)")
    for fragment in ("alpha = 0.758", "E[L] = 3.10", "round 18.4 ms", "speedup at k = 4: 2.02x",
                     f"best k = {d.best_k}", f"alpha = {d.break_even_alpha:.3f}", "Warnings:", "Reasons:"):
        assert fragment in text
    assert "0.75829959" not in text


def test_markdown_report_and_repr_markdown():
    """to_markdown(): bold verdict, a table of figures, speedup by k with the best marked; Jupyter shows it."""
    d = run(draft_acceptance_rate=0.62)
    md = d.to_markdown()
    assert md.startswith("**Verdict: speculate**")
    assert "| alpha | 0.758 |" in md
    assert f"| {d.best_k} **(best)** |" in md
    assert d.best_k != 4 and "| 4 (measured) |" in md
    assert "Warnings:" in md
    assert d._repr_markdown_() == md
    assert repr(d).startswith("Decision(verdict='speculate'")


def test_interval_shows_in_text_and_markdown():
    """With counts, the interval appears in all three forms."""
    d = decide(t0="12ms", t_draft_step="1ms", t_verify="14ms", k=5, counters=(2000, 10000, 6000))
    lo, hi = d.alpha_interval
    assert f"95% interval {lo:.3f} .. {hi:.3f}" in str(d)
    assert f"95% interval {lo:.3f} .. {hi:.3f}" in d.to_markdown()
    assert json.loads(d.to_json())["alpha_interval"] == pytest.approx([lo, hi], rel=1e-11)


# ---------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(alpha=st.floats(0.02, 0.995), k=st.integers(1, 8))
def test_alpha_round_trips_through_expected_tokens(alpha, k):
    """decide(mean_acceptance_length = E[L](alpha, k)).alpha returns alpha; so does the rate (E[L] - 1) / k."""
    length = el_poly(alpha, k)
    d = decide(t0=10.0, t_draft_step=0.5, t_verify=11.0, k=k, mean_acceptance_length=length)
    assert d.alpha == pytest.approx(alpha, abs=1e-9)
    r = decide(t0=10.0, t_draft_step=0.5, t_verify=11.0, k=k, draft_acceptance_rate=(length - 1) / k)
    assert r.alpha == pytest.approx(alpha, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(t0=st.floats(1, 50), step=st.floats(0, 5), verify=st.floats(1, 80), over=st.floats(0, 3),
       k=st.integers(1, 8), frac=st.floats(0, 1))
def test_speedup_is_t0_el_over_round(t0, step, verify, over, k, frac):
    """For any inputs the speedup is t0 x E[L] / (k step + verify + overhead), E[L] the given length."""
    length = 1 + frac * k
    d = decide(t0=t0, t_draft_step=step, t_verify=verify, t_overhead=over, k=k, mean_acceptance_length=length)
    assert d.speedup == pytest.approx(t0 * length / (k * step + verify + over), rel=1e-9)
    assert d.expected_tokens == pytest.approx(length, rel=1e-9)
    assert 1 <= d.best_k <= 16
    assert d.best_speedup >= d.speedup * (1 - 1e-12)


# ---------------------------------------------------------------- two snapshots, the band, round-time fits


def test_counters_before_opens_the_window():
    """Two cumulative snapshots: decide reads their difference (500 rounds more, 1,650 accepted more)."""
    before = {"num_drafts": 1500, "num_draft_tokens": 6000, "num_accepted_tokens": 3000}
    after = {"num_drafts": 2000, "num_draft_tokens": 8000, "num_accepted_tokens": 4650}
    d = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", counters=after, counters_before=before)
    assert d.counters.num_drafts == 500 and d.expected_tokens == pytest.approx(1 + 1650 / 500, abs=1e-12)
    assert "two snapshots" in d.counters.source
    reading = read_engine_counters(after, before=before)
    same = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", counters=reading)
    assert same.alpha == d.alpha and same.alpha_interval == d.alpha_interval
    with pytest.raises(ValueError, match="counters_before needs counters"):
        decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, mean_acceptance_length=3.1,
               counters_before=before)
    with pytest.raises(ValueError, match="counters_before applies to raw counters"):
        decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", counters=reading, counters_before=before)
    with pytest.raises(ValueError, match="counters were read with k = 4 draft positions, but k = 5"):
        decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=5, counters=reading)


def test_speedup_by_k_carries_the_band_at_the_interval_ends():
    """With counts, every row has the speedup at both ends of the alpha interval (brute force at those alphas)."""
    d = decide(t0="12ms", t_draft_step="1ms", t_verify={2: "13ms", 6: "15ms"}, k=4, counters=(3000, 12000, 6600))
    lo, hi = d.alpha_interval
    for row in d.speedup_by_k:
        tv = max(12.0 + 0.5 * row["k"], 12.0)
        assert row["speedup_low"] == pytest.approx(12 * el_poly(lo, row["k"]) / (row["k"] + tv), rel=1e-12)
        assert row["speedup_high"] == pytest.approx(12 * el_poly(hi, row["k"]) / (row["k"] + tv), rel=1e-12)
        assert row["speedup_low"] < row["speedup"] < row["speedup_high"]
    assert "speedup_low" not in run().speedup_by_k[0]          # no counts, no band
    assert json.loads(d.to_json())["speedup_by_k"][3]["speedup_high"] == pytest.approx(d.speedup_interval[1],
                                                                                      rel=1e-11)


def test_json_digits():
    """to_json(digits=4): every float at 4 significant digits; out-of-range digits refused."""
    d = run(draft_acceptance_rate=0.62)
    data = json.loads(d.to_json(digits=4))
    assert data["alpha"] == float(f"{d.alpha:.4g}") and data["speedup"] == 2.022
    with pytest.raises(ValueError, match="digits must be a whole number in"):
        d.to_json(digits=0)


def test_fit_round_times_is_least_squares_on_tpot_times_length():
    """Three runs: T(k) = TPOT_on(k) x E[L](k); slope and intercept equal numpy.polyfit's; t_verify subtracts
    k steps and the overhead."""
    tpot = {2: "6.61ms", 4: "5.9ms", 6: "6.11ms"}
    lengths = {2: 2.46, 4: 3.3, 6: 3.71}
    fit = sd.decision.fit_round_times(tpot, lengths)
    rounds = [6.61 * 2.46, 5.9 * 3.3, 6.11 * 3.71]
    slope, intercept = np.polyfit([2, 4, 6], rounds, 1)
    assert fit.round_time == pytest.approx(tuple(rounds), rel=1e-15)
    assert (fit.slope, fit.intercept) == (pytest.approx(slope, rel=1e-12), pytest.approx(intercept, rel=1e-12))
    resid = np.array(rounds) - (intercept + slope * np.array([2, 4, 6]))
    assert fit.rms_residual == pytest.approx(float(np.sqrt(np.mean(resid**2))), rel=1e-9)
    tv = fit.t_verify("1.1ms", "0.2ms")
    assert tv == {k: pytest.approx(t - k * 1.1 - 0.2, rel=1e-14) for k, t in zip((2, 4, 6), rounds, strict=True)}
    assert "least squares over" in str(fit)
    # the best k depends on the line only: any split of the slope gives the same speedups
    a = decide(t0="12.3ms", t_draft_step="1.1ms", t_verify=fit.t_verify("1.1ms"), k=4, mean_acceptance_length=3.3)
    b = decide(t0="12.3ms", t_draft_step="0.4ms", t_verify=fit.t_verify("0.4ms"), k=4, mean_acceptance_length=3.3)
    assert a.best_k == b.best_k
    assert [r["speedup"] for r in a.speedup_by_k] == pytest.approx([r["speedup"] for r in b.speedup_by_k], rel=1e-12)


@pytest.mark.parametrize("tpot, lengths, exc, fragment", [
    ({4: "5.9ms"}, {4: 3.3}, ValueError, "tpot_on needs runs at two or more different k"),
    ({2: "6ms", 4: "5.9ms"}, {2: 2.4}, ValueError, "mean_acceptance_length must give the same k as tpot_on"),
    ({2: "6ms", 4: "-5.9ms"}, {2: 2.4, 4: 3.3}, ValueError, "tpot_on at k = 4 must be a time > 0"),
    ({2: "6ms", 4: "5.9ms"}, {2: 3.4, 4: 3.3}, ValueError, "mean_acceptance_length at k = 2 must be in [1, k + 1]"),
    ({2: "6ms", 4: "5.9"}, {2: 2.4, 4: 3.3}, ValueError, "tpot_on at k = 4 needs a unit"),
    ({2.5: "6ms", 4: "5.9ms"}, {2: 2.4, 4: 3.3}, ValueError, "tpot_on keys (k) must be a whole number >= 1; got 2.5"),
    ([6.0, 5.9], {2: 2.4, 4: 3.3}, TypeError, "tpot_on must be a mapping"),
])
def test_fit_round_times_errors(tpot, lengths, exc, fragment):
    """Each invalid run description names the parameter and the value."""
    with pytest.raises(exc) as info:
        sd.decision.fit_round_times(tpot, lengths)
    assert fragment in str(info.value)


def test_fit_round_times_refuses_a_round_time_passed_as_step():
    """A 'draft step' longer than a round leaves no verification time: the error says so."""
    fit = sd.decision.fit_round_times({2: "6.61ms", 4: "5.9ms"}, {2: 2.46, 4: 3.3})
    with pytest.raises(ValueError, match="leaves no time for verification at k = 4"):
        fit.t_verify("5ms")


# ---------------------------------------------------------------- agreement with the checklist (issue 16, item 5)


@pytest.mark.parametrize("name", sorted(sd.checklist.EXAMPLES))
def test_decide_agrees_with_assess_where_inputs_overlap(name):
    """The checklist's workloads: decide (alpha given as the E[L] it implies at k, the draft as a whole round)
    gives assess()'s speedup, and its verdict is 'speculate' exactly when that speedup clears the same 1.3 rule."""
    w = sd.checklist.EXAMPLES[name]
    a = sd.checklist.assess(w)
    d = decide(t0=w.t0, t_draft_round=w.t_draft, t_verify=w.t_verify, t_overhead=w.t_overhead, k=w.k,
               mean_acceptance_length=el_poly(w.alpha, w.k), time_unit=w.time_unit)
    assert d.alpha == pytest.approx(w.alpha, abs=1e-12)
    assert abs(d.speedup - a.speedup) <= 1e-12 * a.speedup
    assert d.worth_it == a.worth_it_threshold
    assert (d.verdict == "speculate") == (a.speedup >= a.worth_it_threshold)


# ---------------------------------------------------------------- the chapter's figure and explorer


def test_decision_figure_draws_the_report():
    """Two panels; the top one's line is the report's speedup by k, the bottom one's the speedup against alpha."""
    from specdec.plots.decision import decision_figure

    d = decide(t0="12ms", t_draft_step="1ms", t_verify={2: "13ms", 6: "15ms"}, k=4, counters=(3000, 12000, 6600),
               tpot_off="12.3ms", tpot_on="6ms")
    fig = decision_figure(d)
    top, bottom = fig.axes
    line = next(ln for ln in top.lines if len(ln.get_xdata()) > 3)
    ks = list(line.get_xdata())
    assert ks == list(range(1, len(ks) + 1))
    assert list(line.get_ydata()) == pytest.approx([r["speedup"] for r in d.speedup_by_k[:len(ks)]], rel=1e-15)
    curve = bottom.lines[0]
    a = curve.get_xdata()[100]
    assert curve.get_ydata()[100] == pytest.approx(sd.speedup(a, 4, 12.0, 4.0, d.t_verify, 0.0), rel=1e-12)
    with pytest.raises(TypeError, match="decision must be a report"):
        decision_figure(3)
    with pytest.raises(ValueError, match="k_show must be a whole number in"):
        decision_figure(d, k_show=99)


def test_decide_explorer_matches_decide_and_snapshots():
    """The explorer's report is decide's for its starting values; moving a slider re-decides; the stored snapshot
    (text/html) shows disabled controls and says how to make it live; invalid values show the error."""
    w = sd.widgets.decide_explorer(t_verify={2: "13.1ms", 4: "14ms", 6: "15.1ms"}, t_overhead="0.9ms")
    ref = decide(t0="12ms", t_draft_step="1.1ms", t_verify={2: "13.1ms", 4: "14ms", 6: "15.1ms"},
                 t_overhead="0.9ms", k=4, counters=(12000, 48000, 12000 * 2.3))
    assert w.decision.alpha == pytest.approx(ref.alpha, rel=1e-14)
    assert w.decision.alpha_interval == pytest.approx(ref.alpha_interval, rel=1e-14)
    assert w.decision.speedup == pytest.approx(ref.speedup, rel=1e-14)
    w.controls["t_verify_4"].value = 60.0
    assert w.decision.speedup < 1.0 and w.decision.verdict in ("do not speculate", "retune k", "not worth it")
    assert w.values["speedup"] == w.decision.speedup and w.values["t_verify_4"] == 60.0
    bundle = w._repr_mimebundle_()
    html = bundle["text/html"]
    assert "disabled" in html and _html.escape(SNAPSHOT_NOTE) in html and 'data-key="verdict"' in html
    assert "data:image" not in html and html == sd.widgets.decide_explorer(
        t_verify={2: "13.1ms", 4: "14ms", 6: "15.1ms"}, t_overhead="0.9ms").snapshot_html()
    assert f">{ref.verdict}<" in html                          # the snapshot shows the starting values' verdict
    assert repr(w).startswith("Decision explorer at ") and "children=" not in repr(w)
    assert w.image.value.startswith('<img src="data:image/png;base64,')
    w.controls["t0"].value = 1.0
    w.controls["t_verify_2"].value = 1.0
    w.controls["t_verify_6"].value = 1.0
    w.controls["t_verify_4"].value = 1.0
    w.controls["t_draft_step"].value = 10.0
    assert w.decision is not None  # a slow draft warns, it is not an error
    with pytest.raises(ValueError, match="t0 must be a time > 0"):
        w.compute({"t0": 0.0})
    with pytest.raises(ValueError, match=r"mean_acceptance_length must be in \[1, k \+ 1\] = \[1, 5\]"):
        sd.widgets.decide_explorer(mean_acceptance_length=9)
    w.controls["t_draft_step"].min = -5.0                # a setting decide rejects: the read-out shows its message
    w.controls["t_draft_step"].value = -1.0
    assert w.decision is None and "t_draft_step must be a time >= 0" in w.error and "specdec-error" in w.readout.value
    w.controls["t_draft_step"].value = 1.1
    assert w.error is None and w.decision is not None


@pytest.mark.parametrize("engine", [None, "vllm", "vllm-v0", "sglang-legacy"])
def test_break_even_line_prints_the_rate_the_engine_prints(engine):
    """V1 and SGLang print accepted / drafted = (E[L] - 1) / k; V0 prints alpha itself; older SGLang E[L] / (k + 1)."""
    kw = dict(k=5, t0=12.0, t_draft_step=1.1, t_verify=14.0)
    d = sd.decide(draft_acceptance_rate=0.6, engine=engine, **kw) if engine else sd.decide(mean_acceptance_length=3.0,
                                                                                          **kw)
    a, k = d.break_even_alpha, 5
    length = sum(a ** i for i in range(k + 1))                       # E[L], by its definition
    expected = {None: (length - 1) / k, "vllm": (length - 1) / k, "vllm-v0": a, "sglang-legacy": length / (k + 1)}
    line = next(x for x in str(d).splitlines() if x.startswith("break-even"))
    assert f"{expected[engine]:.3f}" in line.split(";")[1], line

"""Tests for specdec.workload: the decision checklist and short-output economics."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
from specdec import workload as wl

# The first source's worked example (ms): 70B target, 8B draft, alpha 0.8, k 5.
EXAMPLE = dict(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0,
               t_overhead=0.5, mean_output_tokens=300)


def make(**changes):
    values = dict(EXAMPLE)
    values.update(changes)
    return wl.Workload(**values)


def frac_expected_tokens(alpha: Fraction, k: int) -> Fraction:
    return sum(alpha**i for i in range(k + 1))


# --- Workload --------------------------------------------------------------

def test_workload_coerces_and_derives_exactly():
    """Fields become Python numbers; derived times match hand arithmetic on the inputs."""
    w = make(batch=4.0, k=5.0)
    assert isinstance(w.batch, int) and w.batch == 4
    assert isinstance(w.k, int) and w.k == 5
    assert w.t_round == pytest.approx(2.5 + 6.0 + 0.5, rel=1e-15)
    assert w.c_draft == pytest.approx(float(Fraction(25, 10) / (5 * Fraction(52, 10))), rel=1e-15)
    assert w.c_verify == pytest.approx(float((Fraction(60, 10) + Fraction(5, 10)) / Fraction(52, 10)), rel=1e-15)
    assert w.decode_time == pytest.approx(5.2 * 299, rel=1e-15)


@pytest.mark.parametrize(
    "field, bad, exc, words",
    [
        ("ttft", 0.0, ValueError, "ttft"),
        ("tpot", -1.0, ValueError, "tpot"),
        ("batch", 0, ValueError, "batch"),
        ("batch", 2.5, ValueError, "batch"),
        ("alpha", 1.2, ValueError, "alpha"),
        ("alpha", float("nan"), ValueError, "alpha"),
        ("k", 0, ValueError, "k"),
        ("t0", float("inf"), ValueError, "t0"),
        ("t_draft", -0.1, ValueError, "t_draft"),
        ("t_verify", 0.0, ValueError, "t_verify"),
        ("t_overhead", -1.0, ValueError, "t_overhead"),
        ("mean_output_tokens", 0.5, ValueError, "mean_output_tokens"),
        ("t_setup", -2.0, ValueError, "t_setup"),
        ("alpha", [0.5, 0.6], ValueError, "single number"),
        ("batch", True, TypeError, "batch"),
        ("ttft", "200", TypeError, "ttft"),
        ("time_unit", 3, TypeError, "time_unit"),
        ("name", None, TypeError, "name"),
    ],
)
def test_workload_rejects_bad_fields(field, bad, exc, words):
    """Every field is validated with a message naming it."""
    with pytest.raises(exc, match=words):
        make(**{field: bad})


def test_workload_is_frozen_and_replace_revalidates():
    """A Workload cannot be mutated; replace() makes a validated copy."""
    w = make()
    with pytest.raises(AttributeError):
        w.alpha = 0.5  # type: ignore[misc]
    assert w.replace(alpha=0.5).alpha == 0.5
    with pytest.raises(ValueError, match="alpha"):
        w.replace(alpha=2.0)


def test_workload_arguments_are_keyword_only():
    """Positional construction is refused (ten same-typed numbers are too easy to swap)."""
    with pytest.raises(TypeError):
        wl.Workload(200.0, 5.2, 1, 0.8, 5, 5.2, 2.5, 6.0, 0.5, 300)  # type: ignore[misc]


# --- assess: the source's worked example -------------------------------------

def test_assess_worked_example_numbers():
    """E[L], the exact speedup (source: 2.1x) and the quick estimate, against exact fractions."""
    a = wl.assess(make())
    e = frac_expected_tokens(Fraction(4, 5), 5)
    t0, td, tv, to = Fraction(52, 10), Fraction(25, 10), Fraction(6), Fraction(1, 2)
    assert a.expected_tokens == pytest.approx(float(e), rel=1e-14)
    assert a.speedup == pytest.approx(float(t0 * e / (td + tv + to)), rel=1e-14)
    assert round(a.speedup, 1) == 2.1  # the source prints 2.1x
    assert a.quick_estimate == pytest.approx(float(e / (1 + td / t0 + tv / t0)), rel=1e-14)
    assert a.all_passed and a.failed == ()
    assert a.worth_it and a.quick_worth_it
    assert a.verdict.startswith("speculate")


def test_assess_request_level_numbers():
    """Whole-request speedup includes TTFT; hand arithmetic from the inputs."""
    w = make(t_setup=10.0)
    a = wl.assess(w)
    s = a.speedup
    d = 5.2 * 299
    assert a.request_speedup == pytest.approx((200 + d) / (200 + 10 + d / s), rel=1e-13)
    assert a.break_even_output_length == pytest.approx(1 + 10 / (5.2 * (1 - 1 / s)), rel=1e-13)


def test_check_order_and_keys():
    """The checks come in the source's order."""
    keys = [c.key for c in wl.assess(make()).checks]
    assert keys == ["decode-bottleneck", "low-batch", "acceptance", "cheap-draft", "long-output"]


@pytest.mark.parametrize(
    "changes, key, passed",
    [
        ({"batch": 31}, "low-batch", True),
        ({"batch": 32}, "low-batch", False),  # the source's test is strict: < 32
        ({"alpha": 0.6}, "acceptance", False),  # strict: > 0.6
        ({"alpha": 0.6000001}, "acceptance", True),
        ({"t_draft": 2.6}, "cheap-draft", False),  # exactly 0.5 * T0 = 2.6 ms
        ({"t_draft": 2.59}, "cheap-draft", True),
        ({"t_draft": 2.7}, "cheap-draft", False),  # per round: 2.7 > 2.6 (per step it would pass)
        ({"mean_output_tokens": 20}, "long-output", False),  # strict: > 20
        ({"mean_output_tokens": 21}, "long-output", True),
        # decode time 5.2 * (N - 1) against 2 * TTFT = 400 ms: N - 1 = 400 / 5.2 = 76.92...
        ({"mean_output_tokens": 77}, "decode-bottleneck", False),
        ({"mean_output_tokens": 78}, "decode-bottleneck", True),
        ({"ttft": 5.2 * 299 / 2}, "decode-bottleneck", True),  # exactly the ratio: >= passes
    ],
)
def test_check_thresholds(changes, key, passed):
    """Each check flips exactly at the source's threshold, with the stated strictness."""
    a = wl.assess(make(**changes))
    check = {c.key: c for c in a.checks}[key]
    assert check.passed is passed
    assert ("pass" if passed else "FAIL") in a.to_markdown()


def test_cheap_draft_is_per_round_not_per_step():
    """The draft check compares the whole round's drafting with 0.5 T0; c_draft is reported too."""
    a = wl.assess(make(t_draft=5.0))  # 1.0 ms per step: 0.19 T0 per step but 0.96 T0 per round
    check = {c.key: c for c in a.checks}["cheap-draft"]
    assert not check.passed
    assert check.value == pytest.approx(5.0 / 5.2)
    assert "per draft step" in check.reason


def test_thresholds_are_configurable():
    """Keyword thresholds override the source's."""
    a = wl.assess(make(batch=40), max_batch=64, min_alpha=0.85)
    checks = {c.key: c for c in a.checks}
    assert checks["low-batch"].passed
    assert not checks["acceptance"].passed


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        ({"decode_ratio": 0}, ValueError),
        ({"max_batch": 0}, ValueError),
        ({"min_alpha": 1.5}, ValueError),
        ({"draft_fraction": -1}, ValueError),
        ({"min_output_tokens": -1}, ValueError),
        ({"worth_it": 0}, ValueError),
        ({"max_batch": [16, 32]}, ValueError),
    ],
)
def test_assess_rejects_bad_thresholds(kwargs, exc):
    """Threshold keywords are validated."""
    with pytest.raises(exc, match=list(kwargs)[0]):
        wl.assess(make(), **kwargs)


def test_assess_rejects_non_workload():
    """assess takes a Workload, not a dict."""
    with pytest.raises(TypeError, match="Workload"):
        wl.assess(EXAMPLE)


def test_verdict_branches():
    """Each verdict follows from the speedup, the 1.3 rule, the setup cost and the checks."""
    assert wl.assess(make(alpha=0.3)).verdict.startswith("do not speculate: it would be slower")
    # alpha = 0.55: E[L] = 2.13..., speedup = 5.2 * E / 9 = 1.23 < 1.3
    a = wl.assess(make(alpha=0.55))
    assert 1.0 < a.speedup < 1.3
    assert a.verdict.startswith("probably not worth it")
    # short output with a big setup cost: per-token speedup is good, the request is slower
    a = wl.assess(make(mean_output_tokens=5, ttft=1.0, t_setup=100.0))
    assert a.speedup > 1.3 and a.request_speedup < 1
    assert "setup" in a.verdict
    a = wl.assess(make(batch=64))
    assert a.verdict.startswith("worth a benchmark") and "low-batch" in a.verdict


def test_tables_render_every_check():
    """The markdown table has a row per check plus speedups; the comparison has a column per workload."""
    a = wl.assess(make(name="chat"))
    md = a.to_markdown()
    assert md.startswith("**chat**")
    assert md.count("\n| ") == 5 + 3 + 1  # header + 5 checks + 3 speedup rows
    assert "<table>" in a.to_html()
    b = wl.assess(make(name="batch job", batch=128, alpha=0.5))
    table = wl.assessment_table(a, b)
    assert table.to_markdown().splitlines()[0] == "| check | chat | batch job |"
    assert "FAIL" in table.to_markdown()
    assert "<table>" in table.to_html()
    assert table._repr_markdown_() == table.to_markdown()
    with pytest.raises(ValueError):
        wl.assessment_table()
    with pytest.raises(TypeError, match=r"assessments\[1\]"):
        wl.assessment_table(a, "b")


# --- short-output economics ---------------------------------------------------

def test_decode_time_hand_values():
    """TPOT x (N - 1), vectorized."""
    assert wl.decode_time(20.0, 101) == 2000.0
    assert_allclose(wl.decode_time(np.array([1.0, 2.0]), np.array([[1.0], [3.0]])), [[0.0, 0.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match="mean_output_tokens"):
        wl.decode_time(1.0, 0.5)


def test_break_even_length_exact_and_consistent():
    """N* from the formula equals a Fraction computation, and the request speedup is exactly 1 there."""
    ts, tp, s = Fraction(23), Fraction(52, 10), Fraction(2132, 1000)
    expected = 1 + ts / (tp * (1 - 1 / s))
    n = wl.break_even_output_length(float(ts), float(tp), float(s))
    assert n == pytest.approx(float(expected), rel=1e-14)
    assert wl.request_speedup(n, float(s), float(tp), float(ts), ttft=0.0) == pytest.approx(1.0, rel=1e-12)
    assert wl.request_speedup(n * 1.5, float(s), float(tp), float(ts)) > 1
    assert wl.request_speedup(max(1.0, n * 0.5), float(s), float(tp), float(ts)) < 1
    # TTFT does not move the break-even length (both sides pay it)
    assert wl.request_speedup(n, float(s), float(tp), float(ts), ttft=300.0) == pytest.approx(1.0, rel=1e-12)


def test_break_even_length_edge_cases_and_vectorization():
    """inf when speedup <= 1, 1 with no setup cost; broadcasts."""
    out = wl.break_even_output_length(np.array([[0.0], [10.0]]), 5.0, np.array([0.9, 1.0, 2.0]))
    assert out.shape == (2, 3)
    assert np.isinf(out[:, :2]).all()
    assert out[0, 2] == 1.0 and out[1, 2] == 5.0
    assert wl.break_even_output_length(0.0, 5.0, 0.5) == np.inf


def test_setup_time_is_inverse_of_break_even():
    """setup_time_for_break_even(N) and break_even_output_length(T) invert each other."""
    n = np.array([1.0, 5.0, 10.0, 20.0, 1000.0])
    t = wl.setup_time_for_break_even(n, 5.2, 2.13)
    assert_allclose(wl.break_even_output_length(t[1:], 5.2, 2.13), n[1:], rtol=1e-13)
    assert t[0] == 0.0
    assert wl.setup_time_for_break_even(10.0, 5.0, 0.8) == 0.0  # clipped


def test_request_speedup_limits():
    """Long outputs approach the per-token speedup (no TTFT); N = 1 without setup is a tie."""
    assert wl.request_speedup(1e9, 2.0, 5.0, t_setup=10.0) == pytest.approx(2.0, rel=1e-6)
    assert wl.request_speedup(1.0, 2.0, 5.0) == 1.0
    assert wl.request_speedup(11, 2.0, 5.0, t_setup=5.0) == pytest.approx(50 / 30)


@pytest.mark.parametrize(
    "func, args, name",
    [
        (wl.request_speedup, (0.5, 2.0, 5.0), "n_output_tokens"),
        (wl.request_speedup, (10, 0.0, 5.0), "speedup"),
        (wl.request_speedup, (10, 2.0, 5.0, -1.0), "t_setup"),
        (wl.request_speedup, (10, 2.0, 5.0, 1.0, -1.0), "ttft"),
        (wl.break_even_output_length, (-1.0, 5.0, 2.0), "t_setup"),
        (wl.break_even_output_length, (1.0, 0.0, 2.0), "tpot"),
        (wl.break_even_output_length, (1.0, 5.0, -2.0), "speedup"),
        (wl.setup_time_for_break_even, (0.0, 5.0, 2.0), "n_output_tokens"),
    ],
)
def test_short_output_functions_reject_bad_input(func, args, name):
    """Bad inputs name the parameter."""
    with pytest.raises(ValueError, match=name):
        func(*args)


# --- required_alpha -------------------------------------------------------------

def test_required_alpha_reaches_the_target_speedup():
    """At the returned alpha the exact speedup equals the target (checked with speedup_from_costs)."""
    cd, cv = 2.5 / 26, 6.5 / 5.2
    targets = np.array([1.0, 1.3, 2.0])
    a = wl.required_alpha(targets, 5, cd, cv)
    assert_allclose(sd.speedup_from_costs(a, 5, cd, cv), targets, rtol=1e-12)
    assert wl.required_alpha(1.0, 5, cd, cv) == pytest.approx(sd.break_even_alpha(5, cd, cv), rel=1e-15)
    # brute force on a fine grid: first alpha with speedup >= 1.3
    grid = np.linspace(0, 1, 200_001)
    first = grid[np.argmax(sd.speedup_from_costs(grid, 5, cd, cv) >= 1.3)]
    assert abs(first - a[1]) <= 1e-5


def test_required_alpha_edge_cases():
    """0 when any alpha works; nan when even alpha = 1 is not enough; bad input named."""
    assert wl.required_alpha(1.3, 5, 0.0, 0.5) == 0.0
    assert np.isnan(wl.required_alpha(10.0, 5, 0.1, 1.0))  # needs E[L] = 15 > 6
    with pytest.raises(ValueError, match="target_speedup"):
        wl.required_alpha(0.0, 5, 0.1, 1.0)
    with pytest.raises(ValueError, match="c_verify"):
        wl.required_alpha(1.3, 5, 0.1, 0.0)


# --- chapter 4 helpers ------------------------------------------------------------

def test_wasted_draft_fraction_exact():
    """1 - (E[L] - 1)/k against exact fractions; 0 at alpha = 1, 1 at alpha = 0."""
    for alpha, k in [(Fraction(1, 2), 5), (Fraction(4, 5), 5), (Fraction(9, 10), 3)]:
        kept = frac_expected_tokens(alpha, k) - 1
        assert wl.wasted_draft_fraction(float(alpha), k) == pytest.approx(float(1 - kept / k), rel=1e-14)
    assert_allclose(wl.wasted_draft_fraction(np.array([0.0, 1.0]), 4), [1.0, 0.0], atol=1e-15)
    with pytest.raises(ValueError, match="alpha"):
        wl.wasted_draft_fraction(1.5, 3)


def test_wasted_draft_fraction_monte_carlo():
    """A seeded simulation of rounds agrees within 5 standard errors."""
    rng = np.random.default_rng(20261130)
    alpha, k, n = 0.5, 5, 200_000
    accepted_flags = rng.random((n, k)) < alpha
    accepted = np.argmin(np.concatenate([accepted_flags, np.zeros((n, 1), bool)], axis=1), axis=1)
    wasted = 1 - accepted / k
    assert abs(wasted.mean() - wl.wasted_draft_fraction(alpha, k)) < 5 * wasted.std() / np.sqrt(n)


def test_candidate_kv_bytes_hand_value():
    """B * k * (2 * layers * kv_heads * head_dim * 2 bytes) for Llama 3.1 70B."""
    m = sd.hardware.LLAMA_70B
    assert wl.candidate_kv_bytes(m, 32, 5) == 32 * 5 * (2 * 80 * 8 * 128 * 2)
    assert_allclose(wl.candidate_kv_bytes(m, np.array([1, 2]), 3), np.array([3, 6]) * m.kv_bytes_per_token)
    with pytest.raises(TypeError, match="model"):
        wl.candidate_kv_bytes("70b", 1, 5)
    with pytest.raises(ValueError, match="batch"):
        wl.candidate_kv_bytes(m, 0, 5)


def test_capped_draft_cost_against_hand_roofline():
    """With a budget the draft reads min(C, budget) cached tokens; hand roofline at a memory-bound point."""
    h = sd.hardware
    t, d, hw = h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8)
    b, c, budget = 32, 32768, 512
    # both passes memory-bound here (checked: FLOPs / F is far below bytes / BW)
    t_target = (t.weight_bytes + b * c * t.kv_bytes_per_token) / hw.bandwidth
    t_draft = (d.weight_bytes + b * budget * d.kv_bytes_per_token) / hw.bandwidth
    assert 2 * t.n_params * b / hw.flops < t_target
    assert wl.capped_draft_cost(d, t, hw, b, c, kv_budget=budget) == pytest.approx(t_draft / t_target, rel=1e-12)
    # no budget: the hardware module's full-cache draft cost
    assert wl.capped_draft_cost(d, t, hw, b, c) == pytest.approx(h.draft_cost(d, t, hw, b, c), rel=1e-15)
    # budget above the context changes nothing
    assert wl.capped_draft_cost(d, t, hw, b, 100, kv_budget=512) == pytest.approx(h.draft_cost(d, t, hw, b, 100))


def test_capped_draft_cost_trend_and_validation():
    """A capped draft gets relatively cheaper as batch grows at long context (MagicDec's regime)."""
    h = sd.hardware
    t, d, hw = h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8)
    cd = wl.capped_draft_cost(d, t, hw, np.array([1, 8, 32]), 32768, kv_budget=512)
    assert np.all(np.diff(cd) < 0)
    with pytest.raises(ValueError, match="kv_budget"):
        wl.capped_draft_cost(d, t, hw, 1, 100, kv_budget=-1)
    with pytest.raises(ValueError, match="kv_budget"):
        wl.capped_draft_cost(d, t, hw, 1, 100, kv_budget=[1, 2])
    with pytest.raises(ValueError, match="context"):
        wl.capped_draft_cost(d, t, hw, 1, -5, kv_budget=10)


# --- presentation built on this module (values shown must equal the module's) ---------

def test_checklist_widget_html_matches_assess():
    """The live checklist shows the same verdict as assess(); invalid input shows the error, not a traceback."""
    from dataclasses import asdict

    chat = wl.EXAMPLES["chat"]
    html_text = sd.widgets.checklist_html(**asdict(chat))
    assert wl.assess(chat).verdict in html_text.replace("&#x27;", "'")
    bad = sd.widgets.checklist_html(**{**asdict(chat), "alpha": 2.0})
    assert "alpha" in bad and "<table>" not in bad


def test_explorers_show_hardware_numbers():
    """The explorers' read-outs equal sd.hardware / sd.workload at their default values."""
    h = sd.hardware
    t, d, hw = h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8)
    v = sd.widgets.verify_cost_explorer(t, hw, batch=64, context=0, k=5)
    assert v.values["c_verify"] == pytest.approx(h.verify_cost(t, hw, 5, batch=64))
    e = sd.widgets.batch_context_explorer(t, d, hw)
    cd = wl.capped_draft_cost(d, t, hw, 32, 32768, kv_budget=512)
    assert e.values["speedup_capped"] == pytest.approx(
        h.speculative_speedup(t, d, hw, 0.8, 5, batch=32, context=32768, draft_cost_override=cd))
    e.alpha_slider.value = 0.6
    assert e.values["speedup_full"] == pytest.approx(h.speculative_speedup(t, d, hw, 0.6, 5, batch=32, context=32768))
    assert e.image.value[:4] == b"\x89PNG"

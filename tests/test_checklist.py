"""Tests for specdec.decision.checklist: the decision checklist."""

from __future__ import annotations

from fractions import Fraction

import pytest

import specdec as sd

# The first source's worked example (ms): 70B target, 8B draft, alpha 0.8, k 5.
EXAMPLE = dict(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0,
               t_overhead=0.5, mean_output_tokens=300)


def make(**changes):
    values = dict(EXAMPLE)
    values.update(changes)
    return sd.checklist.Workload(**values)


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
        sd.checklist.Workload(200.0, 5.2, 1, 0.8, 5, 5.2, 2.5, 6.0, 0.5, 300)  # type: ignore[misc]


# --- assess: the source's worked example -------------------------------------

def test_assess_worked_example_numbers():
    """E[L], the exact speedup (source: 2.1x) and the quick estimate, against exact fractions."""
    a = sd.checklist.assess(make())
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
    a = sd.checklist.assess(w)
    s = a.speedup
    d = 5.2 * 299
    assert a.request_speedup == pytest.approx((200 + d) / (200 + 10 + d / s), rel=1e-13)
    assert a.break_even_output_length == pytest.approx(1 + 10 / (5.2 * (1 - 1 / s)), rel=1e-13)


def test_check_order_and_keys():
    """The checks come in the source's order."""
    keys = [c.key for c in sd.checklist.assess(make()).checks]
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
    a = sd.checklist.assess(make(**changes))
    check = {c.key: c for c in a.checks}[key]
    assert check.passed is passed
    assert ("pass" if passed else "FAIL") in a.to_markdown()


def test_cheap_draft_is_per_round_not_per_step():
    """The draft check compares the whole round's drafting with 0.5 T0; c_draft is reported too."""
    a = sd.checklist.assess(make(t_draft=5.0))  # 1.0 ms per step: 0.19 T0 per step but 0.96 T0 per round
    check = {c.key: c for c in a.checks}["cheap-draft"]
    assert not check.passed
    assert check.value == pytest.approx(5.0 / 5.2)
    assert "per draft step" in check.reason


def test_thresholds_are_configurable():
    """Keyword thresholds override the source's."""
    a = sd.checklist.assess(make(batch=40), max_batch=64, min_alpha=0.85)
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
        sd.checklist.assess(make(), **kwargs)


def test_assess_rejects_non_workload():
    """assess takes a Workload, not a dict."""
    with pytest.raises(TypeError, match="Workload"):
        sd.checklist.assess(EXAMPLE)


def test_verdict_branches():
    """Each verdict follows from the speedup, the 1.3 rule, the setup cost and the checks."""
    assert sd.checklist.assess(make(alpha=0.3)).verdict.startswith("do not speculate: it would be slower")
    # alpha = 0.55: E[L] = 2.13..., speedup = 5.2 * E / 9 = 1.23 < 1.3
    a = sd.checklist.assess(make(alpha=0.55))
    assert 1.0 < a.speedup < 1.3
    assert a.verdict.startswith("probably not worth it")
    # short output with a big setup cost: per-token speedup is good, the request is slower
    a = sd.checklist.assess(make(mean_output_tokens=5, ttft=1.0, t_setup=100.0))
    assert a.speedup > 1.3 and a.request_speedup < 1
    assert "setup" in a.verdict
    a = sd.checklist.assess(make(batch=64))
    assert a.verdict.startswith("worth a benchmark") and "low-batch" in a.verdict


def test_tables_render_every_check():
    """The markdown table has a row per check plus speedups; the comparison has a column per workload."""
    a = sd.checklist.assess(make(name="chat"))
    md = a.to_markdown()
    assert md.startswith("**chat**")
    assert md.count("\n| ") == 5 + 3 + 1  # header + 5 checks + 3 speedup rows
    assert "<table>" in a.to_html()
    b = sd.checklist.assess(make(name="batch job", batch=128, alpha=0.5))
    table = sd.checklist.assessment_table(a, b)
    assert table.to_markdown().splitlines()[0] == "| check | chat | batch job |"
    assert "FAIL" in table.to_markdown()
    assert "<table>" in table.to_html()
    assert table._repr_markdown_() == table.to_markdown()
    with pytest.raises(ValueError):
        sd.checklist.assessment_table()
    with pytest.raises(TypeError, match=r"assessments\[1\]"):
        sd.checklist.assessment_table(a, "b")


# --- presentation built on this module (values shown must equal the module's) ---------

def test_checklist_widget_html_matches_assess():
    """The live checklist shows the same verdict as assess(); invalid input shows the error, not a traceback."""
    from dataclasses import asdict

    chat = sd.checklist.EXAMPLES["chat"]
    html_text = sd.widgets.checklist_html(**asdict(chat))
    assert sd.checklist.assess(chat).verdict in html_text.replace("&#x27;", "'")
    bad = sd.widgets.checklist_html(**{**asdict(chat), "alpha": 2.0})
    assert "alpha" in bad and "<table>" not in bad


# --- agreement with sd.decide (issue 16 item 5) -----------------------------

def _decide_like_an_engine(w):
    """sd.decide given what an engine reports for workload ``w``: E[L](alpha, k) as the mean acceptance length."""
    length = float(frac_expected_tokens(Fraction(w.alpha), w.k))   # exact, independent of sd.expected_tokens
    return sd.decide(t0=w.t0, t_draft_round=w.t_draft, t_verify=w.t_verify, t_overhead=w.t_overhead, k=w.k,
                     mean_acceptance_length=length)


def test_decide_agrees_with_the_checklist_on_the_chat_example():
    """The chapter's chat assistant: same alpha, same E[L], same speedup (hand arithmetic 5.2 E[L] / 9.0), and both
    clear the 1.3 rule ("speculate" in decide, worth_it in the checklist)."""
    w = sd.checklist.EXAMPLES["chat"]
    a = sd.checklist.assess(w)
    d = _decide_like_an_engine(w)
    hand = float(Fraction(52, 10) * frac_expected_tokens(Fraction(4, 5), 5) / Fraction(90, 10))
    assert d.alpha == pytest.approx(w.alpha, rel=1e-12)
    assert d.expected_tokens == pytest.approx(a.expected_tokens, rel=1e-12)
    assert d.speedup == pytest.approx(hand, rel=1e-12) and a.speedup == pytest.approx(hand, rel=1e-12)
    assert a.worth_it and d.verdict == "speculate" and d.worth_it == a.worth_it_threshold
    assert d.warnings == ()


@pytest.mark.parametrize("seed", range(25))
def test_decide_and_assess_agree_where_their_inputs_overlap(seed):
    """Random workloads: decide's speedup at the measured k equals the checklist's exact speedup, and decide's
    verdict clears the 1.3 rule ("speculate") exactly when the checklist's speedup does."""
    import numpy as np

    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 9))
    t0 = float(rng.uniform(2.0, 30.0))
    w = make(alpha=round(float(rng.uniform(0.3, 0.95)), 3), k=k, t0=t0, tpot=t0,
             t_draft=float(rng.uniform(0.02, 0.4)) * k * t0, t_verify=float(rng.uniform(1.0, 2.0)) * t0,
             t_overhead=float(rng.uniform(0.0, 0.2)) * t0)
    a = sd.checklist.assess(w)
    d = _decide_like_an_engine(w)
    assert d.speedup == pytest.approx(a.speedup, rel=1e-9)
    assert d.break_even_alpha == pytest.approx(sd.break_even_alpha(w.k, w.c_draft, w.c_verify), rel=1e-9, abs=1e-12)
    if abs(a.speedup - sd.policy.WORTH_IT_SPEEDUP) > 1e-9:
        assert (d.verdict == "speculate") == a.worth_it


def test_assessments_print_as_their_table_not_at_full_float_precision():
    """repr() (a notebook's text/plain) is the Markdown table, so no stored output shows 17.290000000000003."""
    import re

    a = sd.checklist.assess(sd.checklist.EXAMPLES["chat"])
    both = sd.checklist.assessment_table(a, sd.checklist.assess(sd.checklist.EXAMPLES["batch-summaries"]))
    assert repr(a) == a.to_markdown() and repr(both) == both.to_markdown()
    for text in (repr(a), repr(both)):
        digits = [len(m.replace(".", "").lstrip("0")) for m in re.findall(r"\d+\.\d+", text)]
        assert max(digits) <= 6

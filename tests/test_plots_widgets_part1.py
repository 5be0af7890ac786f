"""Smoke and default-value tests of the Part I (chapters 1-2) figures and explorers.

The explorers' defaults must equal the inputs of the static figures beside them
in the book, and the numbers an explorer shows must equal what specdec computes
(checked against independent hand arithmetic where possible).
"""

import inspect
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
import specdec_course as course
from specdec_course import instructors

WORKED = dict(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5)


def hand_expected_tokens(alpha, k):
    a = Fraction(alpha)
    return float(sum(a**i for i in range(k + 1)))


# ----------------------------------------------------------------- figures
def test_expected_tokens_vs_k_draws_one_curve_per_alpha_plus_ceiling():
    """One line per alpha plus the k + 1 ceiling, whose y-data is k + 1."""
    fig = sd.plots.expected_tokens_vs_k([0.5, 0.8, 0.9], k_max=10, mark_k=())
    lines = fig.axes[0].lines
    assert len(lines) == 4
    ks, ceiling = lines[0].get_data()
    assert_allclose(ceiling, np.asarray(ks) + 1)
    assert_allclose(lines[2].get_ydata(), [hand_expected_tokens(0.8, k) for k in range(1, 11)], rtol=1e-13)


def test_marginal_gain_plot_is_alpha_to_the_k_plus_one():
    """The plotted gain of draft k + 1 equals alpha**(k+1)."""
    fig = sd.plots.marginal_gain_vs_k([0.8], k_max=8)
    ks, gain = fig.axes[0].lines[0].get_data()
    assert_allclose(gain, 0.8 ** (np.asarray(ks) + 1), rtol=1e-12)


def test_tokens_distribution_bars_are_the_pmf():
    """Bar heights are P(L = 1..k+1) = alpha^n (1 - alpha), last alpha^k."""
    fig = sd.plots.tokens_distribution(0.75, 3)
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert_allclose(heights, [0.25, 0.1875, 0.140625, 0.421875], rtol=1e-12)


def test_round_breakdown_bar_lengths():
    """The round bar sums to T_round = 9.0 ms; the plain bar to T0 E[L]."""
    fig = sd.plots.round_breakdown(**WORKED)
    ax = fig.axes[0]
    by_row = {}
    for p in ax.patches:
        row = round(p.get_y() + p.get_height() / 2)
        by_row[row] = by_row.get(row, 0.0) + p.get_width()
    assert by_row[2] == pytest.approx(2.5 + 6.0 + 0.5)
    assert by_row[1] == pytest.approx(5.2 * hand_expected_tokens(0.8, 5), rel=1e-12)
    assert by_row[0] == pytest.approx(5.2 * 6)


def test_round_times_vs_k_floor_holds_verification_at_a_plain_step():
    """A slope measured at k_ref = 5 would make the pass cheaper than T0 at small k; the floor holds it at T0."""
    _, tv = sd.round_times_vs_k(np.arange(1, 8), 5, 2.5, 6.0, verify_slope=1.2, t_verify_floor=5.2)
    raw = 6.0 + 1.2 * (np.arange(1, 8) - 5)
    np.testing.assert_array_equal(tv, np.where(raw < 5.2, 5.2, raw))
    assert tv[4] == 6.0 and tv[0] == 5.2
    # without a floor the line may reach zero, which specdec refuses; with one it cannot
    with pytest.raises(ValueError, match="must stay > 0"):
        sd.round_times_vs_k(1, 5, 2.5, 6.0, verify_slope=3.0)
    assert sd.round_times_vs_k(1, 5, 2.5, 6.0, verify_slope=3.0, t_verify_floor=5.2)[1] == 5.2
    with pytest.raises(ValueError, match="t_verify_floor"):
        sd.round_times_vs_k(1, 5, 2.5, 6.0, t_verify_floor=0.0)


def test_round_times_vs_k_assumption():
    """Draft time proportional to k; verification constant plus slope x (k - k_ref)."""
    td, tv = sd.round_times_vs_k(np.arange(1, 9), 5, 2.5, 6.0, verify_slope=0.25)
    assert_allclose(td, 0.5 * np.arange(1, 9))
    assert_allclose(tv, 6.0 + 0.25 * (np.arange(1, 9) - 5))
    assert sd.round_times_vs_k(5, 5, 2.5, 6.0) == (2.5, 6.0)


def test_speedup_vs_k_curve_matches_hand_arithmetic():
    """The exact curve is T0 E[L](k) / (0.5 k + 6.0 + 0.5) for the worked example."""
    fig = sd.plots.speedup_vs_k(**WORKED, k_max=12)
    ks, s = fig.axes[0].lines[1].get_data()
    hand = [5.2 * hand_expected_tokens(0.8, k) / (0.5 * k + 6.0 + 0.5) for k in ks]
    assert_allclose(s, hand, rtol=1e-12)


@pytest.mark.parametrize("call, exc, word", [
    (lambda: sd.plots.expected_tokens_vs_k([1.5]), ValueError, "alphas"),
    (lambda: sd.plots.expected_tokens_vs_k([0.8], k_max=0), ValueError, "k_max"),
    (lambda: sd.plots.marginal_gain_vs_k([0.0, 0.5]), ValueError, "alphas"),
    (lambda: sd.plots.tokens_distribution(0.8, 2.5), ValueError, "k"),
    (lambda: sd.plots.expected_tokens_overview(0.8, 13, k_max=12), ValueError, "k"),
    (lambda: sd.plots.round_breakdown(t0=0.0), ValueError, "t0"),
    (lambda: sd.plots.speedup_vs_k(t_verify=-1.0), ValueError, "t_verify"),
    (lambda: sd.plots.speedup_vs_k(k=20, k_max=16), ValueError, "k_max"),
    (lambda: sd.round_times_vs_k(3, 0, 2.5, 6.0), ValueError, "k_ref"),
    (lambda: sd.round_times_vs_k(3, 5, 2.5, 6.0, verify_slope=-0.1), ValueError, "verify_slope"),
    (lambda: sd.round_times_vs_k(True, 5, 2.5, 6.0), TypeError, "k"),
])
def test_plot_bad_inputs(call, exc, word):
    """Plots validate their arguments with messages naming the parameter."""
    with pytest.raises(exc, match=word):
        call()


# ----------------------------------------------------------------- explorers
def _defaults(function):
    return {n: p.default for n, p in inspect.signature(function).parameters.items()
            if p.default is not inspect.Parameter.empty}


def test_explorer_defaults_equal_static_figure_inputs():
    """Widget defaults are the chapter figures' inputs: alpha 0.8, k 5 / the worked example."""
    assert _defaults(sd.widgets.expected_tokens_explorer) == {"alpha": 0.8, "k": 5, "k_max": 12}
    assert _defaults(sd.plots.expected_tokens_overview)["alpha"] == 0.8
    assert _defaults(sd.plots.expected_tokens_overview)["k"] == 5
    speed = _defaults(sd.widgets.speedup_explorer)
    assert {name: speed[name] for name in WORKED} == WORKED
    overview = _defaults(sd.plots.speedup_overview)
    assert {name: overview[name] for name in WORKED} == WORKED
    assert speed["verify_slope"] == overview["verify_slope"] == 0.0
    assert speed["k_max"] == overview["k_max"] == 16


def test_expected_tokens_explorer_values_follow_sliders():
    """The explorer's numbers equal specdec's (and hand sums) before and after moving the sliders."""
    w = sd.widgets.expected_tokens_explorer()
    assert w.alpha_slider.value == 0.8 and w.k_slider.value == 5
    assert w.values["expected_tokens"] == pytest.approx(hand_expected_tokens(0.8, 5), rel=1e-14)
    assert w.image.value.startswith('<img src="data:image/png;base64,iVBORw0KGgo')   # the PNG signature, base64
    w.alpha_slider.value = 0.9
    w.k_slider.value = 7
    v = w.values
    assert v["expected_tokens"] == pytest.approx(hand_expected_tokens(0.9, 7), rel=1e-14)
    assert v["next_draft_gain"] == pytest.approx(0.9**8, rel=1e-12)
    assert_allclose(v["pmf"], sd.accepted_tokens_pmf(0.9, 7))
    assert v["ceiling"] == 8
    assert "0.4305" in w.readout.value  # alpha^8 = 0.43047, printed to 4 decimals


def test_speedup_explorer_values_follow_sliders():
    """The speedup explorer matches specdec and hand arithmetic; both speedup forms agree."""
    w = sd.widgets.speedup_explorer()
    v = w.values
    assert v["t_round"] == pytest.approx(9.0)
    assert v["speedup"] == pytest.approx(5.2 * hand_expected_tokens(0.8, 5) / 9.0, rel=1e-13)
    assert v["speedup_from_costs"] == pytest.approx(v["speedup"], rel=1e-13)
    assert v["quick_estimate"] == pytest.approx(hand_expected_tokens(0.8, 5) / (1 + 2.5 / 5.2 + 6.0 / 5.2), rel=1e-13)
    assert (v["best_k"], round(v["best_speedup"], 4)) == (7, round(5.2 * hand_expected_tokens(0.8, 7) / 10.0, 4))
    w.sliders["t_verify"].value = 7.0
    w.sliders["verify_slope"].value = 0.4
    v = w.values
    assert v["speedup"] == pytest.approx(sd.speedup(0.8, 5, 5.2, 2.5, 7.0, 0.5))
    assert v["c_verify"] == pytest.approx((7.0 + 0.5) / 5.2)
    # T_verify(k) = 7 + 0.4 (k - 5) is below T0 = 5.2 only at k <= 0: no floor note
    assert v["floor_note"] is None
    w.sliders["t_verify"].value = 4.0              # below T0: refused, no numbers
    assert "speedup" not in w.values and "is below T0" in w.values["refused"][0]


def test_explorer_update_without_drawing_is_fast_path():
    """update(draw=False) refreshes values and read-out but leaves the image untouched."""
    w = sd.widgets.expected_tokens_explorer()
    before = w.image.value
    w.alpha_slider.unobserve_all()
    w.alpha_slider.value = 0.5
    v = w.update(draw=False)
    assert v["expected_tokens"] == pytest.approx(hand_expected_tokens(0.5, 5))
    assert w.image.value == before


@pytest.mark.parametrize("call, word", [
    (lambda: sd.widgets.expected_tokens_explorer(alpha=1.2), "alpha"),
    (lambda: sd.widgets.expected_tokens_explorer(k=20, k_max=12), "k"),
    (lambda: sd.widgets.speedup_explorer(t0=-1.0), "t0"),
    (lambda: sd.widgets.speedup_explorer(t_draft=float("nan")), "t_draft"),
])
def test_explorer_bad_inputs(call, word):
    """Explorers validate their initial values."""
    with pytest.raises(ValueError, match=word):
        call()


# ----------------------------------------------------------------- exercises
@pytest.mark.parametrize("label", [f"expected-tokens-{i}" for i in range(1, 7)] + [f"speedup-formula-{i}" for i in range(1, 5)])
def test_chapter_exercises_registered_with_mistakes(label):
    """Every exercise of chapters 1-2 exists, has a computed mistake, and no mistake equals the answer."""
    ex = instructors.exercise(label)
    assert ex.mistakes
    if ex.kind != "function":
        assert course.check(label, instructors.reference(label)).passed
        for m in ex.mistakes:
            result = course.check(label, m.compute(ex.inputs()))
            assert not result.passed and result.reason == f"mistake:{m.name}"


def test_exercise_references_against_hand_values():
    """Pinned answers: E[L](0.75, 5) = 3.2881 (source self-check), speedup of exercise 1 = 1.7514."""
    assert instructors.reference("expected-tokens-1") == pytest.approx(hand_expected_tokens(0.75, 5))
    assert instructors.reference("expected-tokens-3") == 5      # E[L](0.85, 4) = 3.709 < 4 <= 4.152
    assert instructors.reference("speedup-formula-1") == pytest.approx(12 * hand_expected_tokens(0.7, 4) / 19)
    assert instructors.reference("speedup-formula-3") == pytest.approx(5.2 * 3.68928 / 2.5 - 3.0)
    by_hand = {k: 5.2 * hand_expected_tokens(0.8, k) / (0.4 * k + 6.0 + 0.1 * (k - 5) + 0.5) for k in range(1, 17)}
    assert instructors.reference("speedup-formula-4") == max(by_hand, key=by_hand.get)


def test_function_exercise_rejects_wrong_weights():
    """expected-tokens-5 accepts the pmf sum and rejects weighting by accepted drafts n."""
    def good(alpha, k):
        return float((np.arange(1, k + 2) * sd.accepted_tokens_pmf(alpha, k)).sum())

    def wrong(alpha, k):
        return float((np.arange(k + 1) * sd.accepted_tokens_pmf(alpha, k)).sum())

    assert course.check("expected-tokens-5", good).passed
    assert not course.check("expected-tokens-5", wrong).passed


# ----------------------------------------------------------------- in-place redraw (explorers: tests/test_widgets.py)
def test_speedup_overview_update_matches_fresh_figure():
    """SpeedupOverview.update moves bars and curves to the values a fresh figure has."""
    view = sd.plots.SpeedupOverview()
    view.update(0.7, 8, 10.0, 3.0, 12.0, 1.0, 0.2)
    fresh = sd.plots.SpeedupOverview(0.7, 8, 10.0, 3.0, 12.0, 1.0, 0.2)
    assert_allclose(view.exact_line.get_ydata(), fresh.exact_line.get_ydata())
    assert [b.get_width() for b in view.plain_bars] == [b.get_width() for b in fresh.plain_bars]
    assert sum(b.get_width() for b in view.round_bars) == pytest.approx(16.0)
    assert sum(b.get_width() for b in view.best_bars) == pytest.approx(10.0 * 9)
    assert view.title.get_text() == fresh.title.get_text()

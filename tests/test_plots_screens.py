"""Tests of sd.plots.break_even_by_round_cost (specdec.plots.economics) and sd.plots.worth_it_vs_alpha
(specdec.plots.decision): the Part I figures that set the source's rules of thumb beside the exact speedup.

Values drawn are checked against independent hand arithmetic (exact fractions), and the chapter-5 figure is checked
not to print the answer of exercise checklist-4 (issue 15: no answer on the page before its exercise).
"""

from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
from specdec_course import instructors


def hand_tokens(alpha, k):
    a = Fraction(alpha)
    return float(sum(a**i for i in range(k + 1)))


def _texts(fig):
    ax = fig.axes[0]
    found = [t.get_text() for t in ax.texts]
    legend = ax.get_legend()
    if legend is not None:
        found += [t.get_text() for t in legend.get_texts()]
    return found


def test_break_even_curves_are_tokens_over_round_cost_and_dots_sit_at_break_even():
    """Each curve is E[L](alpha, k) / R; each dot is at (alpha*, 1) with E[L](alpha*) = R, to 1e-12."""
    costs = [2.0, 9.0 / 5.2]
    fig = sd.plots.break_even_by_round_cost(costs, ["sketch", "example"], k=5, n_points=11)
    ax = fig.axes[0]
    curves = [line for line in ax.lines if len(line.get_xdata()) == 11]
    dots = [line for line in ax.lines if len(line.get_xdata()) == 1 and line.get_marker() == "o"]
    assert len(curves) == 2 and len(dots) == 2
    for curve, cost in zip(curves, costs, strict=True):
        x, y = curve.get_data()
        assert_allclose(y, [hand_tokens(a, 5) / cost for a in x], rtol=1e-12)
    for dot, cost in zip(dots, costs, strict=True):
        (x,), (y,) = dot.get_data()
        assert y == 1.0
        assert hand_tokens(x, 5) == pytest.approx(cost, rel=1e-12)
    labels = _texts(fig)
    assert any(text.startswith("sketch: breaks even at") and "0.51" in text for text in labels)


def test_break_even_figure_rejects_bad_costs_and_labels():
    with pytest.raises(ValueError, match="round_costs"):
        sd.plots.break_even_by_round_cost([])
    with pytest.raises(ValueError, match="round_costs"):
        sd.plots.break_even_by_round_cost([1.5, -1.0])
    with pytest.raises(ValueError, match="labels"):
        sd.plots.break_even_by_round_cost([1.5, 2.0], ["only one"])


def test_worth_it_figure_draws_the_exact_speedup_and_the_quick_estimate():
    """Solid curve = T0 E[L] / T_round, dashed = E[L] / (1 + T_draft/T0 + T_verify/T0), by hand on the chat example."""
    w = sd.checklist.EXAMPLES["chat"]
    fig = sd.plots.worth_it_vs_alpha(w, n_points=21)
    curves = [line for line in fig.axes[0].lines if len(line.get_xdata()) == 21]
    (x, exact), (_, quick) = (c.get_data() for c in curves[:2])
    assert_allclose(exact, [5.2 * hand_tokens(a, 5) / 9.0 for a in x], rtol=1e-12)
    assert_allclose(quick, [hand_tokens(a, 5) / (1 + 2.5 / 5.2 + 6.0 / 5.2) for a in x], rtol=1e-12)


def test_worth_it_figure_marks_the_quick_threshold_but_not_the_answer_of_exercise_checklist_4():
    """The quick estimate's 1.3 alpha (0.77) is labelled; the exact speedup's 1.3 alpha, exercise checklist-4's
    answer, is not printed at any precision a reader could copy (0.57, 0.571)."""
    w = sd.checklist.EXAMPLES["chat"]
    answer = instructors.reference("checklist-4")
    text = " ".join(_texts(sd.plots.worth_it_vs_alpha(w)))
    assert "0.77" in text
    for digits in (2, 3, 4):
        assert f"{answer:.{digits}f}" not in text
    need_quick = sd.economics.required_alpha(1.3, w.k, *sd.economics.quick_estimate_costs(w.k, w.t0, w.t_draft,
                                                                                        w.t_verify))
    squares = [line for line in sd.plots.worth_it_vs_alpha(w).axes[0].lines if line.get_marker() == "s"]
    assert any(np.isclose(line.get_xdata()[0], need_quick, rtol=1e-12) for line in squares)

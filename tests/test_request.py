"""Tests for specdec.economics.request: a whole request's time with and without speculation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd


def test_decode_time_hand_values():
    """TPOT x (N - 1), vectorized."""
    assert sd.request.decode_time(20.0, 101) == 2000.0
    assert_allclose(sd.request.decode_time(np.array([1.0, 2.0]), np.array([[1.0], [3.0]])), [[0.0, 0.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match="mean_output_tokens"):
        sd.request.decode_time(1.0, 0.5)


def test_break_even_length_exact_and_consistent():
    """N* from the formula equals a Fraction computation, and the request speedup is exactly 1 there."""
    ts, tp, s = Fraction(23), Fraction(52, 10), Fraction(2132, 1000)
    expected = 1 + ts / (tp * (1 - 1 / s))
    n = sd.request.break_even_output_length(float(ts), float(tp), float(s))
    assert n == pytest.approx(float(expected), rel=1e-14)
    assert sd.request.request_speedup(n, float(s), float(tp), float(ts), ttft=0.0) == pytest.approx(1.0, rel=1e-12)
    assert sd.request.request_speedup(n * 1.5, float(s), float(tp), float(ts)) > 1
    assert sd.request.request_speedup(max(1.0, n * 0.5), float(s), float(tp), float(ts)) < 1
    # TTFT does not move the break-even length (both sides pay it)
    assert sd.request.request_speedup(n, float(s), float(tp), float(ts), ttft=300.0) == pytest.approx(1.0, rel=1e-12)


def test_break_even_length_edge_cases_and_vectorization():
    """inf when speedup <= 1, 1 with no setup cost; broadcasts."""
    out = sd.request.break_even_output_length(np.array([[0.0], [10.0]]), 5.0, np.array([0.9, 1.0, 2.0]))
    assert out.shape == (2, 3)
    assert np.isinf(out[:, :2]).all()
    assert out[0, 2] == 1.0 and out[1, 2] == 5.0
    assert sd.request.break_even_output_length(0.0, 5.0, 0.5) == np.inf


def test_setup_time_is_inverse_of_break_even():
    """setup_time_for_break_even(N) and break_even_output_length(T) invert each other."""
    n = np.array([1.0, 5.0, 10.0, 20.0, 1000.0])
    t = sd.request.setup_time_for_break_even(n, 5.2, 2.13)
    assert_allclose(sd.request.break_even_output_length(t[1:], 5.2, 2.13), n[1:], rtol=1e-13)
    assert t[0] == 0.0
    assert sd.request.setup_time_for_break_even(10.0, 5.0, 0.8) == 0.0  # clipped


def test_request_speedup_limits():
    """Long outputs approach the per-token speedup (no TTFT); N = 1 without setup is a tie."""
    assert sd.request.request_speedup(1e9, 2.0, 5.0, t_setup=10.0) == pytest.approx(2.0, rel=1e-6)
    assert sd.request.request_speedup(1.0, 2.0, 5.0) == 1.0
    assert sd.request.request_speedup(11, 2.0, 5.0, t_setup=5.0) == pytest.approx(50 / 30)


@pytest.mark.parametrize(
    "func, args, name",
    [
        (sd.request.request_speedup, (0.5, 2.0, 5.0), "n_output_tokens"),
        (sd.request.request_speedup, (10, 0.0, 5.0), "speedup"),
        (sd.request.request_speedup, (10, 2.0, 5.0, -1.0), "t_setup"),
        (sd.request.request_speedup, (10, 2.0, 5.0, 1.0, -1.0), "ttft"),
        (sd.request.break_even_output_length, (-1.0, 5.0, 2.0), "t_setup"),
        (sd.request.break_even_output_length, (1.0, 0.0, 2.0), "tpot"),
        (sd.request.break_even_output_length, (1.0, 5.0, -2.0), "speedup"),
        (sd.request.setup_time_for_break_even, (0.0, 5.0, 2.0), "n_output_tokens"),
    ],
)
def test_short_output_functions_reject_bad_input(func, args, name):
    """Bad inputs name the parameter."""
    with pytest.raises(ValueError, match=name):
        func(*args)


def test_one_amdahl_law_in_shares_and_in_times():
    """request_speedup is end_to_end_speedup with p = TTFT / plain time and o = setup / plain time (exact)."""
    from fractions import Fraction as F

    ttft, tpot, n, setup, s = F(120), F(20), 51, F(30), F(9, 4)
    plain = ttft + tpot * (n - 1)
    exact = plain / (ttft + setup + tpot * (n - 1) / s)
    assert sd.request.request_speedup(n, float(s), float(tpot), float(setup), float(ttft)) == pytest.approx(
        float(exact), rel=1e-14)
    assert sd.request.end_to_end_speedup(float(s), float(ttft / plain), float(setup / plain)) == pytest.approx(
        float(exact), rel=1e-14)
    with pytest.raises(ValueError, match="setup_share"):
        sd.request.end_to_end_speedup(2.0, 0.5, -0.1)
    assert not hasattr(sd.regimes, "__all__") or "end_to_end_speedup" not in sd.regimes.__all__

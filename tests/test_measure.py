"""Tests of specdec.measure: bookkeeping with a fake clock, the roofline prediction, the knee fit.

No test asserts anything about real timings (they depend on the machine and its load).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd

ms = sd.measure
HW = sd.hardware.Hardware(bandwidth=20e9, flops=200e9, memory=8e9, name="toy")


class FakeClock:
    """Returns cumulative times so that consecutive (start, end) pairs have the given durations."""

    def __init__(self, durations):
        self.values = []
        now = 0.0
        for d in durations:
            self.values += [now, now + d]
            now += d + 1.0
        self.calls = 0

    def __call__(self):
        value = self.values[self.calls]
        self.calls += 1
        return value


def test_time_matmul_returns_the_median_of_the_repeats_per_token_count():
    clock = FakeClock([5.0, 1.0, 3.0, 2.0, 8.0, 4.0])
    out = ms.time_matmul(d=32, tokens=[1, 2], repeats=3, timer=clock)
    assert_allclose(out, [3.0, 4.0], rtol=1e-12)
    assert clock.calls == 12  # two clock reads per timed run, none for the warm-ups


def test_bandwidth_and_peak_flops_use_the_best_run():
    clock = FakeClock([0.5, 0.25, 0.75])
    n = int(1e6 // 8)
    assert_allclose(ms.measure_bandwidth(n_bytes=1e6, repeats=3, timer=clock), 2 * n * 8 / 0.25, rtol=1e-12)
    clock = FakeClock([2.0, 1.0])
    assert_allclose(ms.measure_peak_flops(n=64, repeats=2, timer=clock), 2 * 64**3 / 1.0, rtol=1e-12)


def test_measure_machine_builds_hardware_from_the_measurements():
    clock = FakeClock([0.01, 0.02])  # bandwidth copy, then the square product
    hw = ms.measure_machine(n_bytes=1e6, n=100, repeats=1, memory=16e9, timer=clock)
    assert_allclose(hw.bandwidth, 2 * 125000 * 8 / 0.01, rtol=1e-12)
    assert_allclose(hw.flops, 2 * 100**3 / 0.02, rtol=1e-12)
    assert hw.memory == 16e9 and hw.name == "this machine (measured)"


def test_measure_matmul_with_fake_clock_and_given_hardware():
    tokens = [1, 4, 16]
    clock = FakeClock([1.0] * 6)
    m = ms.measure_matmul(d=64, tokens=tokens, repeats=2, hardware=HW, timer=clock)
    assert_allclose(m.seconds, 1.0)
    assert_allclose(m.predicted, ms.predict_matmul_time(64, tokens, HW), rtol=1e-15)
    assert m.tokens.tolist() == tokens and m.dtype == "float32" and m.bytes_per_elem == 4
    assert_allclose(m.seconds_per_token, 1.0 / np.array(tokens))


def test_matmul_bytes_flops_and_prediction_by_hand():
    d, t = 2048, np.array([1, 64])
    assert_allclose(ms.matmul_bytes(d, t), 4 * (d * d + 2 * d * t))
    assert_allclose(ms.matmul_flops(d, t), 2 * d * d * t)
    expected = np.maximum(4 * (d * d + 2 * d * t) / 20e9, 2 * d * d * t / 200e9)
    assert_allclose(ms.predict_matmul_time(d, t, HW), expected, rtol=1e-15)
    assert ms.matmul_bytes(10, 1, bytes_per_elem=8) == 8 * (100 + 20)


def test_predicted_knee_separates_flat_and_rising_parts():
    m = ms.MatmulMeasurement(d=2048, dtype="float32", tokens=np.arange(1, 65), seconds=np.ones(64), hardware=HW,
                             predicted=ms.predict_matmul_time(2048, np.arange(1, 65), HW))
    knee = m.predicted_knee
    d, b = 2048, 4
    # at the knee the two terms of the roofline are equal
    assert_allclose(b * (d * d + 2 * d * knee) / HW.bandwidth, 2 * d * d * knee / HW.flops, rtol=1e-12)
    # close to the weights-only ridge F / BW * b / 2 = 20 tokens
    assert 20 < knee < 20.5
    assert knee == ms.matmul_knee(2048, HW)
    tiny = sd.hardware.Hardware(bandwidth=1e9, flops=1e12, memory=1e9)  # ridge 2000 tokens: d = 64 never gets there
    assert ms.matmul_knee(64, tiny) == float("inf")
    below = m.tokens < knee
    flat = m.predicted[below]
    assert np.ptp(flat) / flat.max() < 0.03  # only the activations' bytes grow
    above = m.predicted[~below]
    assert_allclose(above, 2 * d * d * m.tokens[~below] / HW.flops, rtol=1e-15)


def test_fit_roofline_recovers_an_exact_roofline_in_any_order():
    t = np.array([1, 2, 4, 8, 16, 32, 64])
    s = np.maximum(2e-3, 1e-4 * t)
    tf, sl, knee = ms.fit_roofline(t, s)
    assert_allclose([tf, sl, knee], [2e-3, 1e-4, 20.0], rtol=1e-12)
    perm = np.random.default_rng(0).permutation(t.size)
    assert_allclose(ms.fit_roofline(t[perm], s[perm]), (tf, sl, knee), rtol=1e-12)


def test_fit_roofline_with_noise_and_all_flat():
    rng = np.random.default_rng(1)
    t = np.array(ms.DEFAULT_TOKENS)
    s = np.maximum(1e-3, 5e-5 * t) * rng.lognormal(0.0, 0.03, t.size)
    _, _, knee = ms.fit_roofline(t, s)
    assert 14 < knee < 26  # true knee 20; tolerance for 3 % noise on 11 points
    assert ms.fit_roofline([1, 2, 4], [1.0, 1.0, 1.0]) == (1.0, 0.0, float("inf"))


def test_a_real_but_tiny_measurement_has_the_right_shapes():
    """Shapes and signs only: real timings are not asserted."""
    m = ms.measure_matmul(d=64, tokens=[1, 2, 8], repeats=1, hardware=HW)
    assert m.seconds.shape == (3,) and (m.seconds > 0).all()
    assert len(m.measured_fit) == 3
    assert ms.measure_bandwidth(n_bytes=1e6, repeats=1) > 0
    assert ms.measure_peak_flops(n=32, repeats=1, dtype="float64") > 0


@pytest.mark.parametrize("call, match", [
    (lambda: ms.time_matmul(d=8), "d"),
    (lambda: ms.time_matmul(d=64, tokens=[]), "tokens"),
    (lambda: ms.time_matmul(d=64, tokens=[0, 1]), "tokens"),
    (lambda: ms.time_matmul(d=64, tokens=[[1, 2]]), "tokens"),
    (lambda: ms.time_matmul(d=64, tokens=[1.5]), "tokens"),
    (lambda: ms.time_matmul(d=64, repeats=0), "repeats"),
    (lambda: ms.time_matmul(d=64, dtype="int8"), "dtype"),
    (lambda: ms.time_matmul(d=64, seed=-1), "seed"),
    (lambda: ms.measure_bandwidth(n_bytes=10), "n_bytes"),
    (lambda: ms.measure_bandwidth(n_bytes=-1), "n_bytes"),
    (lambda: ms.measure_peak_flops(n=4), "n"),
    (lambda: ms.measure_machine(memory=0), "memory"),
    (lambda: ms.matmul_bytes(0, 1), "d"),
    (lambda: ms.matmul_bytes(10, 1, bytes_per_elem=0), "bytes_per_elem"),
    (lambda: ms.matmul_flops(10, 0), "tokens"),
    (lambda: ms.fit_roofline([1, 2], [1.0]), "seconds"),
    (lambda: ms.fit_roofline([1, 2], [1.0, -1.0]), "seconds"),
    (lambda: ms.fit_roofline([1], [1.0]), "at least 2"),
])
def test_value_errors_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_type_errors():
    with pytest.raises(TypeError, match="timer"):
        ms.time_matmul(d=64, timer=3.0)
    with pytest.raises(TypeError, match="hardware"):
        ms.predict_matmul_time(64, 1, "laptop")
    with pytest.raises(TypeError, match="hardware"):
        ms.measure_matmul(d=64, tokens=[1], repeats=1, hardware="laptop")
    with pytest.raises(TypeError, match="d"):
        ms.time_matmul(d="64")


def test_measured_vs_predicted_figure_from_a_fake_measurement():
    tokens = np.array([1, 2, 4, 8, 16, 32, 64])
    m = ms.MatmulMeasurement(d=2048, dtype="float32", tokens=tokens, seconds=np.maximum(1e-3, 5e-5 * tokens),
                             hardware=HW, predicted=ms.predict_matmul_time(2048, tokens, HW))
    fig = sd.plots.matmul_measured_vs_predicted(m)
    assert len(fig.axes) == 2
    assert m.measured_fit[2] == pytest.approx(20.0, rel=1e-12)

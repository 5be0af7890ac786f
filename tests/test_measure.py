"""Tests of specdec.roofline.measure: bookkeeping with a fake clock, the roofline prediction, the knee fit,
the machine probes (cache size, BLAS threads) and the verdict of a measurement against its prediction.

No test asserts anything about real timings (they depend on the machine and its load); the byte and
FLOP counts are checked against the analytic formulas, the verdict against synthetic measurements whose
answer is known by construction.
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


def test_time_matmul_takes_turns_and_returns_the_fastest_run_per_token_count():
    """Passes over the token counts in turn: runs alternate t = 1, t = 2, t = 1, ..."""
    clock = FakeClock([5.0, 1.0, 3.0, 2.0, 8.0, 4.0])
    out = ms.time_matmul(d=32, tokens=[1, 2], repeats=3, timer=clock)
    assert_allclose(out, [3.0, 1.0], rtol=1e-12)   # t = 1 ran 5, 3, 8; t = 2 ran 1, 2, 4
    assert clock.calls == 12  # two clock reads per timed run, none for the warm-ups


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_bandwidth_counts_one_read_of_the_buffer_and_uses_the_best_run(threads):
    """A streaming read: n_bytes (a float32 buffer) per timed read, whatever the number of reading threads."""
    clock = FakeClock([0.5, 0.25, 0.75])
    n_floats = int(1e6 // 4)
    bw = ms.measure_bandwidth(n_bytes=1e6, repeats=3, threads=threads, timer=clock)
    assert_allclose(bw, 4 * n_floats / 0.25, rtol=1e-12)
    assert clock.calls == 6


def test_peak_flops_use_the_best_run():
    clock = FakeClock([2.0, 1.0])
    assert_allclose(ms.measure_peak_flops(n=64, repeats=2, threads=1, timer=clock), 2 * 64**3 / 1.0, rtol=1e-12)


def test_measure_machine_builds_hardware_from_the_measurements():
    clock = FakeClock([0.01, 0.02])  # the read, then the square product
    hw = ms.measure_machine(n_bytes=1e6, n=100, repeats=1, memory=16e9, threads=1, timer=clock)
    assert_allclose(hw.bandwidth, 1e6 / 0.01, rtol=1e-12)
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
    assert m.threads == ms.blas_threads().threads
    assert ms.measure_bandwidth(n_bytes=1e6, repeats=1) > 0
    assert ms.measure_bandwidth(n_bytes=1e6, repeats=1, threads=2) > 0
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
    (lambda: ms.measure_bandwidth(n_bytes=1e6, threads=0), "threads"),
    (lambda: ms.time_matmul(d=64, threads=2000), "threads"),
    (lambda: ms.matrix_size_for_cache(0), "cache_bytes"),
    (lambda: ms.matrix_size_for_cache(1e6, factor=-1), "factor"),
    (lambda: ms.matrix_size_for_cache(1e6, multiple=0), "multiple"),
    (lambda: _toy_measurement(np.ones(4) * 1e-3).check(tolerance=1.0), "tolerance"),
    (lambda: _toy_measurement(np.ones(4) * 1e-3).check(tolerance=-0.1), "tolerance"),
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
    with pytest.raises(TypeError, match="cache"):
        ms.measure_matmul(d=64, tokens=[1], repeats=1, hardware=HW, cache=32e6)


def test_measured_vs_predicted_figure_from_a_fake_measurement():
    tokens = np.array([1, 2, 4, 8, 16, 32, 64])
    m = ms.MatmulMeasurement(d=2048, dtype="float32", tokens=tokens, seconds=np.maximum(1e-3, 5e-5 * tokens),
                             hardware=HW, predicted=ms.predict_matmul_time(2048, tokens, HW))
    fig = sd.plots.matmul_measured_vs_predicted(m)
    assert len(fig.axes) == 2
    assert m.measured_fit[2] == pytest.approx(20.0, rel=1e-12)


# --------------------------------------------------------------------------
# the machine: last-level cache and matrix size
# --------------------------------------------------------------------------
def _fake_sysfs(root, entries):
    for i, (level, kind, size) in enumerate(entries):
        d = root / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    return root


def test_last_level_cache_reads_the_largest_data_or_unified_level(tmp_path):
    root = _fake_sysfs(tmp_path, [(1, "Data", "32K"), (1, "Instruction", "32K"), (2, "Unified", "1024K"),
                                  (3, "Unified", "32768K")])
    cache = ms.last_level_cache(root)
    assert cache.bytes == 32 * 2**20 and cache.level == 3 and cache.source.endswith("index3")
    assert not cache.assumed


def test_last_level_cache_ignores_instruction_caches_and_parses_megabytes(tmp_path):
    root = _fake_sysfs(tmp_path, [(1, "Data", "48K"), (2, "Unified", "2M"), (3, "Instruction", "64M")])
    cache = ms.last_level_cache(root)
    assert (cache.bytes, cache.level) == (2 * 2**20, 2)


def test_last_level_cache_falls_back_and_says_so(tmp_path, monkeypatch):
    import specdec.roofline._machine as machine

    monkeypatch.setattr(machine.os, "sysconf_names", {}, raising=False)
    cache = ms.last_level_cache(tmp_path / "missing")
    assert cache.bytes == ms.FALLBACK_CACHE_BYTES == 64 * 2**20
    assert cache.level is None and cache.assumed and "assumed" in cache.source


@pytest.mark.parametrize("cache", [1, 1000, 2**20, 3 * 2**20, 32 * 2**20, 96 * 2**20, 10**9])
def test_matrix_size_is_the_smallest_multiple_beyond_factor_times_the_cache(cache):
    """Against a brute-force scan of the multiples of 256."""
    d = ms.matrix_size_for_cache(cache)
    expected = next(m for m in range(256, 10**6, 256) if 4 * m * m >= ms.CACHE_FACTOR * cache)
    assert d == min(expected, 16384)
    if d < 16384:
        assert 4 * d * d >= 4 * cache and 4 * (d - 256) ** 2 < 4 * cache or d == 256


def test_matrix_size_respects_bytes_multiple_and_cap():
    assert ms.matrix_size_for_cache(2**20, factor=2, bytes_per_elem=8, multiple=1) == 512  # 8 * 512**2 = 2 MiB
    assert ms.matrix_size_for_cache(2**40) == 16384
    assert ms.matrix_size_for_cache(2**40, d_max=8192) == 8192


# --------------------------------------------------------------------------
# BLAS threads
# --------------------------------------------------------------------------
def test_blas_thread_limit_pins_and_restores_the_count():
    before = ms.blas_threads()
    assert before.threads >= 1
    if before.controllable:
        with ms.blas_thread_limit(1) as inside:
            assert inside.threads == 1 and ms.blas_threads().threads == 1
        assert ms.blas_threads().threads == before.threads
    else:
        other = before.threads + 1
        with pytest.raises(ValueError, match="threads"):
            with ms.blas_thread_limit(other):
                pass
    with ms.blas_thread_limit(None) as same:
        assert same.threads == before.threads


def test_blas_threads_without_a_controllable_library_assumes_and_refuses_to_change(monkeypatch):
    """No threadpoolctl, no OpenBLAS: the count comes from the environment, and cannot be changed."""
    import specdec.roofline._machine as machine

    monkeypatch.setattr(machine, "_threadpoolctl", lambda: None)
    monkeypatch.setattr(machine, "_openblas", lambda: None)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    info = ms.blas_threads()
    assert (info.threads, info.controllable, info.library) == (3, False, "unknown")
    assert "OMP_NUM_THREADS" in info.source
    with ms.blas_thread_limit(3) as same:
        assert same.threads == 3
    with pytest.raises(ValueError, match="OPENBLAS_NUM_THREADS=2"):
        with ms.blas_thread_limit(2):
            pass
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    assert ms.blas_threads().threads == len(machine.os.sched_getaffinity(0))


def test_measurements_run_under_the_requested_thread_count(monkeypatch):
    """time_matmul and measure_peak_flops enter blas_thread_limit with the count they were given."""
    import contextlib

    import specdec.roofline.measure as measure

    seen = []

    @contextlib.contextmanager
    def spy(threads=None):
        seen.append(threads)
        yield ms.BlasThreads(threads, "fake", True, "test")

    monkeypatch.setattr(measure, "blas_thread_limit", spy)
    ms.time_matmul(d=32, tokens=[1, 2], repeats=1, threads=3, timer=FakeClock([1.0, 1.0]))
    ms.measure_peak_flops(n=32, repeats=1, threads=3, timer=FakeClock([1.0]))
    m = ms.measure_matmul(d=32, tokens=[1, 2], repeats=1, threads=3, hardware=HW, timer=FakeClock([1.0, 1.0]))
    assert seen == [3, 3, 3, 3] and m.threads == 3


def test_measure_matmul_sizes_the_matrix_from_the_cache():
    cache = ms.CacheSize(bytes=2**20, level=2, source="test")
    m = ms.measure_matmul(tokens=[1, 2], repeats=1, hardware=HW, cache=cache, timer=FakeClock([1.0, 1.0]))
    assert m.d == 1024 and m.weight_bytes == 4 * 2**20 and m.cache is cache  # 4 x 1 MiB of float32
    assert m.blas is not None and m.blas.threads == m.threads


# --------------------------------------------------------------------------
# the verdict
# --------------------------------------------------------------------------
def _toy_measurement(seconds, tokens=(1, 2, 4, 8, 16, 32, 64, 128)[:4], d=2048, cache=None):
    tokens = np.asarray(tokens)
    return ms.MatmulMeasurement(d=d, dtype="float32", tokens=tokens, seconds=np.asarray(seconds, dtype=float),
                                hardware=HW, predicted=ms.predict_matmul_time(d, tokens, HW), cache=cache)


TOKENS = np.array(ms.DEFAULT_TOKENS)


def test_check_of_times_on_the_roofline_agrees_and_finds_the_knee():
    """Times equal to the weights-only roofline: bound holds, knee at the ridge F / BW * b / 2 = 20 tokens."""
    d = 2048
    read = 4 * d * d / HW.bandwidth
    seconds = np.maximum(read, 2 * d * d * TOKENS / HW.flops)
    c = _toy_measurement(seconds, TOKENS).check()
    assert c.holds and c.flat_then_rising and c.agrees and c.n_below == 0
    assert_allclose(c.knee_measured, HW.flops / HW.bandwidth * 4 / 2, rtol=1e-9)
    assert_allclose([c.flat_ratio, c.arithmetic_ratio], [1.0, 1.0], rtol=1e-9)
    assert c.fit_range == (2, 64) and c.first_tokens == 1
    text = c.verdict()
    assert text.startswith("Verdict: consistent with the roofline.")
    assert f"all {TOKENS.size} take" in text and f"{c.knee_measured:.1f} tokens" in text


@pytest.mark.parametrize("flat, rate", [(3.0, 0.7), (1.5, 0.9), (2.2, 0.5)])
def test_check_recovers_a_flat_factor_and_an_arithmetic_fraction(flat, rate):
    """Synthetic GEMM times: flat at `flat` x the read time, rising at `rate` x peak; knee = flat * rate * ridge."""
    d = 2048
    read = 4 * d * d / HW.bandwidth
    seconds = np.maximum(flat * read, 2 * d * d * TOKENS / (rate * HW.flops))
    seconds[0] = read  # the matrix-vector product on the line
    c = _toy_measurement(seconds, TOKENS).check()
    assert c.holds and c.flat_then_rising
    assert_allclose([c.flat_ratio, c.arithmetic_ratio], [flat, rate], rtol=1e-9)
    assert_allclose(c.knee_measured, flat * rate * HW.flops / HW.bandwidth * 2, rtol=1e-9)
    assert_allclose(c.first_ratio, read / float(ms.predict_matmul_time(d, 1, HW)), rtol=1e-12)
    assert f"{c.flat_ratio:.2f} times the weight-read time" in c.verdict()


def test_check_flags_points_that_beat_the_bound():
    d = 2048
    pred = np.asarray(ms.predict_matmul_time(d, TOKENS, HW))
    seconds = pred * 1.2
    seconds[:3] = pred[:3] * np.array([0.3, 0.95, 0.85])  # one far below, one inside the tolerance, one just below
    cache = ms.CacheSize(bytes=4 * d * d, level=3, source="test")  # the weights fit in the cache
    c = _toy_measurement(seconds, TOKENS, cache=cache).check()
    assert c.n_below == 2 and not c.holds and not c.agrees
    assert_allclose(c.worst_ratio, 0.3, rtol=1e-12)
    assert c.cache_ratio == 1.0
    text = c.verdict()
    assert text.startswith("Verdict: NOT consistent") and f"2 of {TOKENS.size} points beat the bound" in text
    assert "last-level cache" in text
    assert _toy_measurement(seconds, TOKENS, cache=cache).check(tolerance=0.8).n_below == 0


def test_check_of_flat_times_is_not_flat_then_rising():
    d = 2048
    read = 4 * d * d / HW.bandwidth
    seconds = np.full(TOKENS.size, 3 * read)
    c = _toy_measurement(seconds, TOKENS).check()
    assert c.holds and not c.flat_then_rising and not c.agrees
    assert c.n_rising < 2  # at most the last point is "rising": no evidence of a knee
    assert "no rising part of two or more points" in c.verdict()


def test_an_assumed_cache_gives_no_cache_ratio():
    cache = ms.CacheSize(bytes=ms.FALLBACK_CACHE_BYTES, level=None, source="assumed: test")
    assert _toy_measurement(np.ones(4) * 1e-3, cache=cache).check().cache_ratio is None


def test_measure_matmul_spreads_the_bandwidth_and_peak_measurements_and_keeps_the_fastest():
    """At the start of every pass: one read of as many bytes as the weights, one 2048^3 product."""
    clock = FakeClock([0.5, 2.0,           # pass 1: read, square product
                       1.0, 3.0,           # pass 1: the timed products, t = 1 and t = 2
                       0.25, 4.0,          # pass 2: read, square product
                       0.5, 6.0,           # pass 2: t = 1, t = 2
                       0.75, 1.5,          # pass 3: read, square product
                       2.0, 2.5])          # pass 3: t = 1, t = 2
    m = ms.measure_matmul(d=256, tokens=[1, 2], repeats=3, threads=1, timer=clock)
    assert clock.calls == 24
    assert_allclose(m.seconds, [0.5, 2.5], rtol=1e-12)
    assert_allclose(m.hardware.bandwidth, 4 * 256 * 256 / 0.25, rtol=1e-12)   # the weights' bytes, fastest read
    assert_allclose(m.hardware.flops, 2 * 2048**3 / 1.5, rtol=1e-12)          # fastest square product
    assert_allclose(m.predicted, ms.predict_matmul_time(256, [1, 2], m.hardware), rtol=1e-15)
    with pytest.raises(TypeError, match="between"):
        ms.time_matmul(d=32, tokens=[1], repeats=1, between=3)


# --------------------------------------------------------------------------
# the chapter's figures and explorer (presentation: shapes and the numbers they show)
# --------------------------------------------------------------------------
def test_prediction_and_measurement_figures():
    import specdec.plots.roofline as pm

    fig = pm.matmul_prediction(4096, HW)
    ax = fig.axes[0]
    x, y = ax.lines[0].get_data()
    assert_allclose(y, np.asarray(ms.predict_matmul_time(4096, x.astype(int), HW)) * 1e3, rtol=1e-12)
    d = 2048
    seconds = np.maximum(3 * 4 * d * d / HW.bandwidth, 2 * d * d * TOKENS / (0.7 * HW.flops))
    fig = pm.matmul_measurement(_toy_measurement(seconds, TOKENS))
    assert len(fig.axes) == 2
    labels = [line.get_label() for line in fig.axes[0].lines]
    assert "measured, t = 1 (matrix-vector)" in labels and any(lbl.startswith("fitted knee") for lbl in labels)
    with pytest.raises(TypeError, match="measurement"):
        pm.matmul_measurement("not a measurement")


def test_explorer_values_follow_its_controls():
    w = sd.widgets.matmul_roofline_explorer(bandwidth_gbs=80, gflops=2000, d=4096, bytes_per_elem=4)
    desktop = sd.hardware.Hardware(bandwidth=80e9, flops=2e12, memory=1e9)
    assert_allclose(w.values["knee"], ms.matmul_knee(4096, desktop), rtol=1e-12)
    assert_allclose(w.values["ridge"], 2e12 / 80e9 * 4 / 2, rtol=1e-12)
    w.controls["bytes_per_elem"].value = 2
    w.controls["d"].value = 8192
    assert_allclose(w.values["knee"], ms.matmul_knee(8192, desktop, 2), rtol=1e-12)
    assert_allclose(w.values["t1"], ms.predict_matmul_time(8192, 1, desktop, 2), rtol=1e-12)
    w.controls["bandwidth_gbs"].value = 1000.0
    faster = sd.hardware.Hardware(bandwidth=1e12, flops=2e12, memory=1e9)
    assert_allclose(w.values["knee"], ms.matmul_knee(8192, faster, 2), rtol=1e-12)
    assert w.values["bandwidth"] == 1e12 and w.values["d"] == 8192
    assert w.image.value.startswith('<img src="data:image/png;base64,')
    assert "data:image" not in w.snapshot_html() and 'data-key="knee"' in w.snapshot_html()
    assert sd.widgets.matmul_roofline_explorer(bandwidth_gbs=123.0).controls["bandwidth_gbs"].value == 123.0
    for bad in (dict(bandwidth_gbs=0.5), dict(gflops=5), dict(d=1000), dict(bytes_per_elem=8)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            sd.widgets.matmul_roofline_explorer(**bad)


@pytest.mark.parametrize("d, threads, bandwidth, flops, slower", [
    (5888, 16, 400e9, 5e11, 1.1),       # a CI machine's measurement: the one-line title ran over a tick label
    (5888, 2, 400e9, 5e11, 1.1),        # the bottom legend in four columns stuck out of the figure
    (16384, 128, 20e9, 3e12, 1.1),
    (256, None, 5e9, 5e10, 0.5),
    (1024, 2, 80e9, 5e11, 3.0),
    (16384, 2, 400e9, 3e12, 0.5),
])
def test_measurement_figure_is_legible_for_any_machine(d, threads, bandwidth, flops, slower):
    """The measured figure is drawn on the reader's machine: it obeys the legibility rules at any size and speed.

    Times on the roofline of a machine (times ``slower``): with a large matrix,
    many threads or a fast machine, every text stays apart and inside the figure
    (tests/figure_legibility.py, the rules nbval applies to the chapter's fresh run).
    """
    import io

    import matplotlib.pyplot as plt
    from figure_legibility import problems

    hardware = sd.hardware.Hardware(bandwidth=bandwidth, flops=flops, memory=1e9)
    seconds = np.maximum(4 * d * d / bandwidth, 2 * d * d * TOKENS / (0.7 * flops)) * slower
    m = ms.MatmulMeasurement(d=d, dtype="float32", tokens=TOKENS, seconds=seconds, hardware=hardware,
                             predicted=ms.predict_matmul_time(d, TOKENS, hardware), threads=threads)
    buffer = io.BytesIO()
    fig = sd.plots.matmul_measurement(m)
    fig.savefig(buffer, format="png", dpi=200, bbox_inches="tight")
    plt.close(fig)
    assert problems(buffer.getvalue()) == []

#!/usr/bin/env python3
"""Time the Part II chapter 5-6 explorers and the regime-map computations.

Prints, for the latency/throughput explorer and the regime explorer, the
median and 90th-percentile wall time and the median CPU time of

* the full update a slider change triggers (numbers, read-out and, for the
  latency/throughput explorer, the curve redraw over a cached background and
  PNG encoding), and
* the numeric part alone (``update(draw=False)`` / ``compute()``),

over a fixed sequence of slider values, next to the 50 ms target measured in
the same run (as a ratio). Also times the two regime maps of chapter 6
(100 x 120 and 100 x 101 grids) against a point-by-point loop of scalar
calls over the same grid, and prints the speed ratio. Run from the
repository root::

    python benchmarks/bench_regimes.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import specdec as sd

TARGET_S = 0.050


def _time(callable_, values, repeats):
    wall, cpu = [], []
    for i in range(repeats):
        value = values[i % len(values)]
        start, start_cpu = time.perf_counter(), time.process_time()
        callable_(value)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    wall.sort()
    return statistics.median(wall), wall[int(0.9 * (len(wall) - 1))], statistics.median(cpu)


def _report(name, stats):
    med, p90, cpu = stats
    print(f"{name:58s} median {med * 1e3:7.2f} ms  p90 {p90 * 1e3:7.2f} ms  cpu {cpu * 1e3:7.2f} ms  "
          f"median/target {med / TARGET_S:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    hw, rg = sd.hardware, sd.regimes
    target, draft, group = hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8)

    lt = sd.widgets.latency_throughput_explorer()
    lt.update()                                   # the first redraw caches the background; not timed
    alphas = [0.81, 0.79, 0.7, 0.9, 0.6, 0.8]
    contexts = [4096, 1024, 8192, 2048, 16384, 512]
    batches = [64, 512, 128, 900, 1, 256]

    def set_alpha(a):
        lt.alpha_slider.value = a

    def set_context(c):
        lt.context_slider.value = c

    def set_batch(b):
        lt.batch_slider.value = b

    def numbers_only(a):
        lt.alpha_slider.unobserve_all()
        lt.alpha_slider.value = a
        lt.update(draw=False)

    _report("latency/throughput explorer: alpha slider (full)", _time(set_alpha, alphas, args.repeats))
    _report("latency/throughput explorer: context slider (full)", _time(set_context, contexts, args.repeats))
    _report("latency/throughput explorer: batch slider (full)", _time(set_batch, batches, args.repeats))
    _report("latency/throughput explorer: numbers only", _time(numbers_only, alphas, args.repeats))

    rx = sd.widgets.regime_explorer()

    def set_regime_batch(b):
        rx.batch_slider.value = b

    _report("regime explorer: batch slider", _time(set_regime_batch, batches, args.repeats))

    a_grid = np.round(np.arange(0.0, 1.0, 0.01), 2)
    b_grid = np.unique(np.round(np.geomspace(1, 1024, 120)).astype(int))
    p_grid = np.linspace(0.0, 1.0, 101)
    vec = _time(lambda _: rg.batch_alpha_map(target, draft, group, a_grid, b_grid), [0], max(3, args.repeats // 3))
    _report(f"batch map, {a_grid.size} x {b_grid.size} grid, vectorized", vec)
    _report(f"prefill map, {a_grid.size} x {p_grid.size} grid, vectorized",
            _time(lambda _: rg.prefill_alpha_map(target, draft, group, a_grid, p_grid), [0], max(3, args.repeats // 3)))
    sub_a, sub_b = a_grid[::10], b_grid[::12]      # a 10 x 10 corner of the grid, one scalar call per point
    start = time.perf_counter()
    for a in sub_a:
        for b in sub_b:
            sd.deployment.speculative_speedup(target, draft, group, float(a), 5, int(b))
    loop_per_point = (time.perf_counter() - start) / (sub_a.size * sub_b.size)
    vec_per_point = vec[0] / (a_grid.size * b_grid.size)
    print(f"per grid point: scalar loop {loop_per_point * 1e6:.1f} us, vectorized {vec_per_point * 1e6:.3f} us, "
          f"ratio {loop_per_point / vec_per_point:.0f}x")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark of specdec.roofline.hardware, specdec.roofline.measure and the roofline explorer.

Prints measured times and ratios taken in the same run (the machine's load
changes between runs, so only same-run ratios are comparable):

* vectorized roofline calls on large grids, against one ``np.maximum`` over
  arrays of the same size (the floor for any elementwise roofline);
* the roofline explorer: ``compute()`` (the numbers a callback needs) and a
  full ``update()`` (numbers + redraw + PNG), against the time to render an
  almost empty figure of the same size (the matplotlib floor on this machine);
* the default measurement of "Measure your machine".

Run from the repository root: ``python benchmarks/bench_hardware.py``.
"""

from __future__ import annotations

import io
import time

import numpy as np

import specdec as sd

hw = sd.hardware


def best_of(fn, repeats=7):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times))


def main() -> None:
    group = hw.H100.scaled(8)
    batch = np.arange(1, 1025)[:, None]
    context = np.arange(0, 65536, 1024)[None, :]          # 1024 x 64 grid
    a = np.random.default_rng(0).random((1024, 64))
    floor, _ = best_of(lambda: np.maximum(a / 2.0, a / 3.0))
    t_step, _ = best_of(lambda: hw.step_time(hw.LLAMA_70B, group, batch, context))
    t_cv, _ = best_of(lambda: hw.verify_cost(hw.LLAMA_70B, group, 5, batch, context))
    t_s, _ = best_of(lambda: sd.deployment.speculative_speedup(hw.LLAMA_70B, hw.LLAMA_8B, group, 0.8, 5, batch, context))
    t_be, _ = best_of(lambda: sd.deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, group, 0.8, 5))
    print("roofline on a 1024 x 64 (batch x context) grid, best of 7:")
    print(f"  np.maximum floor           {floor * 1e3:8.3f} ms")
    print(f"  step_time                  {t_step * 1e3:8.3f} ms  ({t_step / floor:5.1f}x floor)")
    print(f"  verify_cost                {t_cv * 1e3:8.3f} ms  ({t_cv / floor:5.1f}x floor)")
    print(f"  speculative_speedup        {t_s * 1e3:8.3f} ms  ({t_s / floor:5.1f}x floor)")
    print(f"  break_even_batch (4096)    {t_be * 1e3:8.3f} ms")

    w = sd.widgets.roofline_explorer()
    fig, ax = sd.plots.new_figure(9.0, 3.6, ncols=2)
    ax[0].plot([0, 1], [0, 1])
    fig.canvas.draw()
    fig.set_layout_engine("none")

    def render_floor():
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=w.dpi)

    t_floor, m_floor = best_of(render_floor, 5)
    t_compute, m_compute = best_of(w.compute, 20)
    settings = [("batch", 64), ("context", 8192), ("k", 8), ("gpu", "a100-80gb"), ("target", "llama-3.1-8b"),
                ("alpha", 0.6)]
    updates = []
    for name, value in settings:
        start = time.perf_counter()
        w.controls[name].value = value               # triggers a full update
        updates.append(time.perf_counter() - start)
    updates = np.array(updates)
    print("roofline explorer:")
    print(f"  compute() per update       best {t_compute * 1e3:8.2f} ms, median {m_compute * 1e3:8.2f} ms "
          "(target < 50 ms)")
    print(f"  full update (draw + PNG)   best {updates.min() * 1e3:8.1f} ms, median {np.median(updates) * 1e3:8.1f} ms")
    print(f"  empty-figure PNG floor     best {t_floor * 1e3:8.1f} ms, median {m_floor * 1e3:8.1f} ms")
    print(f"  full update / PNG floor    {np.median(updates) / m_floor:8.2f}x")

    start = time.perf_counter()
    m = sd.measure.measure_matmul()
    total = time.perf_counter() - start
    print("measure_matmul with defaults (d = 2048, 11 token counts, 5 repeats, plus bandwidth and FLOP/s):")
    print(f"  total {total:6.2f} s; measured bandwidth {m.hardware.bandwidth / 1e9:.1f} GB/s, "
          f"peak {m.hardware.flops / 1e9:.1f} GFLOP/s, fitted knee {m.measured_fit[2]:.1f} tokens, "
          f"predicted knee {m.predicted_knee:.1f} tokens")


if __name__ == "__main__":
    main()

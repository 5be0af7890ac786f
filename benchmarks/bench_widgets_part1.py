#!/usr/bin/env python3
"""Time the update callbacks of the Part I chapter 1-2 explorers.

Prints, for each explorer, the median and 90th-percentile time of

* the full update (what a slider change triggers: numbers, read-out, figure
  redraw and PNG encoding), and
* the numeric part alone (``update(draw=False)``: specdec calls and read-out),

with small slider moves (the axis limits stay, so only the changing artists
are redrawn over a cached background) and large jumps (new axis limits, full
redraw). Wall time on a shared machine includes waiting for a CPU, so the
CPU time of this process is printed too,

over a fixed sequence of slider values, together with the ratio to the 50 ms
target measured in the same run. Run from the repository root::

    python benchmarks/bench_widgets_part1.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import specdec as sd

TARGET_S = 0.050


def _time(callable_, values, repeats):
    """Median and p90 wall time, and median CPU time of this process, per call."""
    wall, cpu = [], []
    for i in range(repeats):
        value = values[i % len(values)]
        start, start_cpu = time.perf_counter(), time.process_time()
        callable_(value)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    wall.sort()
    return statistics.median(wall), wall[int(0.9 * (len(wall) - 1))], statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    et = sd.widgets.expected_tokens_explorer()
    sp = sd.widgets.speedup_explorer()
    # small moves keep the axis limits (only the changing artists are redrawn);
    # large jumps change them and force a full redraw of the figure
    alphas_small = [0.81, 0.79, 0.82, 0.78, 0.83, 0.80]
    alphas_large = [0.55, 0.95, 0.65, 0.9, 0.5, 0.85]
    t_verify_small = [6.1, 5.9, 6.3, 5.7, 6.2, 6.0]
    t_verify_large = [2.0, 30.0, 4.0, 25.0, 1.0, 20.0]

    def et_full(a):
        et.alpha_slider.value = a          # triggers the observer: full update

    def et_numbers(a):
        et.alpha_slider.unobserve_all()
        et.alpha_slider.value = a
        et.update(draw=False)

    def sp_full(v):
        sp.sliders["t_verify"].value = v

    def sp_numbers(v):
        sp.sliders["t_verify"].unobserve_all()
        sp.sliders["t_verify"].value = v
        sp.update(draw=False)

    rows = [
        ("expected_tokens_explorer: update, same axis limits", et_full, alphas_small),
        ("expected_tokens_explorer: update, new axis limits", et_full, alphas_large),
        ("speedup_explorer: update, same axis limits", sp_full, t_verify_small),
        ("speedup_explorer: update, new axis limits", sp_full, t_verify_large),
        ("expected_tokens_explorer: numbers and read-out only", et_numbers, alphas_small),
        ("speedup_explorer: numbers and read-out only", sp_numbers, t_verify_small),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"target per update: {TARGET_S * 1e3:.0f} ms; repeats: {args.repeats}; "
          f"1-min load average {load:.1f} on {os.cpu_count()} CPUs")
    for name, fn, values in rows:
        median, p90, cpu = _time(fn, values, args.repeats)
        print(f"{name:55s} wall median {median * 1e3:7.1f} ms  p90 {p90 * 1e3:7.1f} ms  "
              f"CPU median {cpu * 1e3:6.1f} ms  wall/target {median / TARGET_S:5.2f}  CPU/target {cpu / TARGET_S:5.2f}")


if __name__ == "__main__":
    main()

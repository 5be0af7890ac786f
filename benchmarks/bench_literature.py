#!/usr/bin/env python3
"""Benchmark of specdec.literature and its explorers (Part III, chapters 2 and 3).

Prints, measured in this run:

* the explorers' update time split into compute (numbers and read-out, the
  callback's own work) and redraw (matplotlib + PNG), beside the Part I
  explorer measured the same way, so the ratio is independent of machine load;
* vectorized implied-alpha inversion over a grid against a Python loop of
  scalar calls (the same function), and their agreement.

Usage: python benchmarks/bench_literature.py
"""

from __future__ import annotations

import time

import numpy as np

import specdec as sd


def best_of(fn, repeat=5, number=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


def main() -> None:
    explorers = {
        "bonus_token_explorer": sd.widgets.bonus_token_explorer(),
        "serving_metrics_explorer": sd.widgets.serving_metrics_explorer(),
        "expected_tokens_explorer (Part I, reference)": sd.widgets.expected_tokens_explorer(),
    }
    print("explorer update times (best of 5):")
    for name, w in explorers.items():
        compute = best_of(lambda w=w: w.update(draw=False))
        full = best_of(lambda w=w: w.update(draw=True), repeat=3, number=1)
        print(f"  {name:46s} compute {compute * 1e3:7.2f} ms   full redraw {full * 1e3:7.1f} ms")

    rng = np.random.default_rng(0)
    n = 2000
    alpha = rng.uniform(0.05, 0.95, n)
    k = rng.integers(1, 9, n)
    cd = rng.uniform(0, 0.2, n)
    s = sd.speedup_from_costs(alpha, k, cd, 1.0)
    vec = best_of(lambda: sd.literature.implied_alpha(s, k, cd), repeat=3, number=1)
    loop = best_of(lambda: [sd.literature.implied_alpha(float(s[i]), int(k[i]), float(cd[i])) for i in range(n)],
                   repeat=1, number=1)
    got = sd.literature.implied_alpha(s, k, cd)
    print(f"implied_alpha on {n} points: vectorized {vec * 1e3:.1f} ms, scalar loop {loop * 1e3:.1f} ms, "
          f"ratio {loop / vec:.0f}x; max |alpha - truth| = {np.max(np.abs(got - alpha)):.1e}")


if __name__ == "__main__":
    main()

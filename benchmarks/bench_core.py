#!/usr/bin/env python3
"""Benchmark of the specdec core (issue 3): prints timings and ratios measured in one run.

Targets:
* ``expected_tokens`` over 1,000,000 alphas: within 3x of one ``np.power`` on the same array;
* ``break_even_alpha`` over a 100 x 100 (k, c_draft) grid: >= 100x faster than the
  second source's pure-Python bisection called once per point, every feasible
  value within 1e-12 of it.

Run: ``python benchmarks/bench_core.py``.
"""

from __future__ import annotations

import time

import numpy as np

import specdec as sd


def best_of(fn, repeat=7, number=1):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def main() -> None:
    alphas = np.linspace(0.0, 1.0, 1_000_000)
    t_power = best_of(lambda: np.power(alphas, 6))
    t_tokens = best_of(lambda: sd.expected_tokens(alphas, 5))
    near_one = 1.0 - np.logspace(-15, -1, 1_000_000)
    t_tokens_near = best_of(lambda: sd.expected_tokens(near_one, 5))
    print(f"expected_tokens, 1e6 alphas in [0, 1]: {t_tokens * 1e3:.2f} ms; np.power: {t_power * 1e3:.2f} ms; "
          f"ratio {t_tokens / t_power:.2f} (target <= 3)")
    print(f"expected_tokens, 1e6 alphas near 1:     {t_tokens_near * 1e3:.2f} ms; ratio {t_tokens_near / t_power:.2f}")

    ks = np.arange(1, 101)[:, None]
    cds = np.linspace(0.0, 1.2, 100)[None, :]  # includes infeasible costs (>= k + 1)
    c_verify = 1.2
    t_vec = best_of(lambda: sd.break_even_alpha(ks, cds, c_verify), repeat=5)
    ours = sd.break_even_alpha(ks, cds, c_verify)
    start = time.perf_counter()
    reference = np.array([[sd.economics.source_bisection_break_even_alpha(int(k), float(c), c_verify)
                           for c in cds[0]] for k in ks[:, 0]])
    t_loop = time.perf_counter() - start
    cost = ks * cds + c_verify
    feasible = (cost > 1) & (cost < ks + 1)
    in_bracket = feasible & (ours < 0.9999)
    max_diff = np.max(np.abs(ours[in_bracket] - reference[in_bracket]))
    beyond = feasible & (ours >= 0.9999)
    infeasible = ~feasible & (cost >= ks + 1)
    print(f"break_even_alpha, 100x100 grid: vectorized {t_vec * 1e3:.2f} ms; source bisection per point "
          f"{t_loop * 1e3:.1f} ms; speed ratio {t_loop / t_vec:.0f}x (target >= 100x)")
    print(f"  points with a threshold inside the source's bracket [0, 0.9999]: {int(in_bracket.sum())}, "
          f"max |ours - bisection| = {max_diff:.2e} (target <= 1e-12)")
    print(f"  thresholds in [0.9999, 1): {int(beyond.sum())} points, where the bisection answers "
          f"{np.unique(reference[beyond])} instead")
    print(f"  infeasible points (cost >= k + 1): {int(infeasible.sum())}: ours nan, bisection answers "
          f"{np.unique(reference[infeasible])}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark for the checklist, request-level and capped-draft functions and the widget update callbacks
of "Why verification is not free", "When speculation does not help" and "The decision checklist".

Prints measured times (median of repeats, this machine, this run) and ratios
measured in the same run. Targets from the issue: widget updates under 50 ms.
Each explorer's update is timed twice: the numbers alone (``draw=False``,
what the callback computes) and the full update including the PNG redraw of
the figure.

Usage::

    python benchmarks/bench_checklist.py
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict

import numpy as np

import specdec as sd


def median_time(fn, repeat=7, number=1):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def main() -> None:
    wl, rq, hw = sd.checklist, sd.request, sd.hardware
    target, draft, group = hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8)
    chat = wl.EXAMPLES["chat"]
    rows = []

    # assess: one workload
    t_assess = median_time(lambda: wl.assess(chat), number=50)
    rows.append(("assess(chat workload)", t_assess))

    # vectorized break-even output length vs a Python loop over the same points
    rng = np.random.default_rng(0)
    n = 100_000
    setups = rng.uniform(0, 100, n)
    speedups = rng.uniform(0.5, 3.0, n)
    t_vec = median_time(lambda: rq.break_even_output_length(setups, 5.2, speedups))
    t_loop = median_time(lambda: [rq.break_even_output_length(float(a), 5.2, float(b)) for a, b in
                                  zip(setups[:2000], speedups[:2000], strict=True)], repeat=3) * (n / 2000)
    rows.append((f"break_even_output_length, {n:,} points vectorized", t_vec))
    rows.append(("same, scalar calls in a loop (extrapolated from 2,000)", t_loop))

    # capped draft cost over a (batch x context) grid
    b = np.arange(1, 513)[:, None]
    c = np.array([1024, 8192, 32768, 131072])[None, :]
    t_cap = median_time(lambda: hw.draft_cost(draft, target, group, b, c, kv_budget=512))
    rows.append(("draft_cost(kv_budget=512), 512 x 4 grid", t_cap))

    # widget callbacks
    values = asdict(chat)
    t_check = median_time(lambda: sd.widgets.checklist_html(**values), number=20)
    rows.append(("checklist explorer update (assess + HTML)", t_check))

    v = sd.widgets.verify_cost_explorer(target, group)
    rows.append(("verify-cost explorer update, numbers only", median_time(lambda: v.update(draw=False), number=5)))
    rows.append(("verify-cost explorer update, with figure redraw", median_time(lambda: v.update(), repeat=3)))

    e = sd.widgets.batch_context_explorer(target, draft, group)
    rows.append(("batch/context explorer update, numbers only", median_time(lambda: e.update(draw=False), number=5)))
    rows.append(("batch/context explorer update, with figure redraw", median_time(lambda: e.update(), repeat=3)))

    # reference on the same machine, same run: the cheapest possible matplotlib PNG
    import io

    fig, ax = sd.plots.new_figure(10.0, 4.0)
    ax.plot([1, 2, 3])
    t_ref = median_time(lambda: fig.savefig(io.BytesIO(), format="png", dpi=72), repeat=5)
    rows.append(("reference: full PNG render of a one-line figure", t_ref))

    width = max(len(name) for name, _ in rows)
    print(f"{'what':<{width}}  {'median time':>12}")
    for name, seconds in rows:
        print(f"{name:<{width}}  {seconds * 1e3:>9.3f} ms")
    print()
    print(f"vectorized / loop speed ratio for break_even_output_length: {t_loop / t_vec:,.0f}x")
    redraws = [seconds for name, seconds in rows if "figure redraw" in name]
    print(f"explorer redraws cost {min(redraws) / t_ref:.2f}x to {max(redraws) / t_ref:.2f}x one full render "
          "of a trivial figure (blitting: only the curves are redrawn)")
    budget = 0.050
    for name, seconds in rows:
        if "explorer" in name:
            verdict = "within" if seconds < budget else "OVER"
            print(f"{verdict} the 50 ms widget budget: {name} ({seconds * 1e3:.1f} ms)")


if __name__ == "__main__":
    main()

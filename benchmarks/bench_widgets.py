#!/usr/bin/env python3
"""Time every explorer's update in a kernel: one control change -> numbers, read-out, figure, image.

For each explorer of the book (called as its chapter calls it), every
control is moved through a fixed sequence of values (small moves and large
jumps, so that cached backgrounds and axis limits are both exercised); each
change fires the explorer's observer exactly as a slider release in a
notebook does. Printed per explorer: the median and 90th percentile of the
wall time per change, the median CPU time of this process (the machine is
shared: wall time includes waiting for a CPU), and the median's ratio to the
explorer's median before the rewrite (README history, also in
``BEFORE_MS`` below). Run from the repository root::

    python benchmarks/bench_widgets.py [--repeats 3] [--only speedup] [--no-cache]

``--no-cache`` keeps no background (every update redraws the whole figure):
the measurement behind keeping one redraw cache.

The controls are found by walking the widget tree, so the script times the
explorers the same way whatever their implementation.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import ipywidgets as widgets
import numpy as np

import specdec as sd

#: Medians per update before the explorer rewrite (README history, ms); the first number of a range.
BEFORE_MS = {
    "expected_tokens": 37, "speedup": 44, "verify_cost": 13, "batch_context": 23, "checklist": 1.5,
    "residual": 26, "temperature": 19, "alpha_from_log": 43, "threshold": 28, "threshold (ch 9)": 28,
    "latency_throughput": 12, "regime": None, "roofline": 18, "bonus_token": 11, "serving_metrics": 17,
}


def explorers():
    """(name, factory) for every explorer cell of the book, with the chapters' arguments."""
    h = sd.hardware
    target, draft, group = h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8)
    w = sd.widgets
    return [
        ("expected_tokens", lambda: w.expected_tokens_explorer(alpha=0.8, k=5, k_max=12)),
        ("speedup", lambda: w.speedup_explorer(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5,
                                               verify_slope=0.0, k_max=16)),
        ("verify_cost", lambda: w.verify_cost_explorer(target, group, batch=64, context=0, k=5)),
        ("batch_context", lambda: w.batch_context_explorer(target, draft, group, alpha=0.8, k=5,
                                                           contexts=(1024, 8192, 32768), kv_budget=512)),
        ("checklist", lambda: w.checklist_explorer(sd.checklist.EXAMPLES["chat"])),
        ("residual", lambda: w.sampling_residual_explorer(mismatch=1.0, temperature=1.0)),
        ("temperature", lambda: w.sampling_temperature_explorer(noise=1.0, sharpness=1.0)),
        ("alpha_from_log", lambda: w.sampling_log_explorer(alpha=0.8, k=4, n_rounds=300, seed=7)),
        ("threshold", lambda: w.threshold_explorer(k=5, c_draft=0.1, c_verify=1.25, alpha=0.8)),
        ("threshold (ch 9)", lambda: w.threshold_explorer(k=3, c_draft=0.0, c_verify=1.1, alpha=0.7)),
        ("latency_throughput", lambda: w.latency_throughput_explorer(target, draft, group, alpha=0.8, k=5,
                                                                     context=2048, batch=256)),
        ("regime", lambda: w.regime_explorer(target, draft, group, alpha=0.8, k=5, batch=1, context=0,
                                             prefill_share=0.0)),
        ("roofline", lambda: w.roofline_explorer()),
        ("bonus_token", lambda: w.bonus_token_explorer(alpha=0.8, k=5, c_draft=0.05, c_verify=1.0)),
        ("serving_metrics", lambda: w.serving_metrics_explorer(alpha=0.8, k=4)),
        ("decide", lambda: w.decide_explorer(t_verify={2: "13.1ms", 4: "14ms", 6: "15.1ms"})),
        ("matmul_roofline", lambda: w.matmul_roofline_explorer(bandwidth_gbs=80, gflops=2000, d=4096)),
        ("calibration", lambda: w.calibration_explorer()),
        ("prompt_lookup", lambda: w.prompt_lookup_explorer(copy_prob=0.1, mean_copy_length=20.0, num_pred=10,
                                                           max_ngram=3)),
        ("verification_rules", lambda: w.verification_explorer(temperature=1.0, epsilon=0.09, delta=0.3)),
        ("token_tree", lambda: w.tree_explorer(n_nodes=14, max_depth=3, calibrated=True)),
        ("dynamic_k", lambda: w.dynamic_k_explorer(mean=0.7, concentration=2.0, k=5, start=20)),
        ("goodput", lambda: w.goodput_explorer(tpot_ms=12.0, alpha=0.8, k=5, context=2048, calibrated=True)),
    ]


def controls(widget):
    """Every control (slider, dropdown) in the widget tree, depth first."""
    found = []

    def walk(node):
        if isinstance(node, (widgets.FloatSlider, widgets.IntSlider, widgets.SelectionSlider, widgets.Dropdown)):
            if not node.disabled:
                found.append(node)
        for child in getattr(node, "children", ()):
            walk(child)

    walk(widget)
    return found


def moves(control):
    """A fixed sequence of values for a control: small moves around its value, then large jumps."""
    if isinstance(control, (widgets.SelectionSlider, widgets.Dropdown)):
        options = [o[1] if isinstance(o, tuple) else o for o in control.options]
        i = options.index(control.value)
        near = [options[j] for j in (i + 1, i, i - 1, i) if 0 <= j < len(options)]
        far = [options[0], options[-1], options[len(options) // 2], control.value]
        return near + far
    lo, hi, v, step = control.min, control.max, control.value, control.step
    near = [v + step, v, v - step, v, v + 2 * step, v]
    far = [lo + 0.25 * (hi - lo), hi, lo + 0.6 * (hi - lo), lo, v]
    out = []
    for x in near + far:
        x = min(max(x, lo), hi)
        out.append(int(round(x)) if isinstance(control, widgets.IntSlider) else float(np.round(x / step) * step))
    return out


def time_explorer(factory, repeats, no_cache=False):
    w = factory()
    if no_cache and getattr(w, "_blit", None) is not None:
        w._blit.max_backgrounds = 0            # every update draws the whole figure again
        w._blit.backgrounds.clear()
    wall, cpu, errors = [], [], 0
    for _ in range(repeats):
        for control in controls(w):
            for value in moves(control):
                if value == control.value:
                    continue
                start, start_cpu = time.perf_counter(), time.process_time()
                try:
                    control.value = value      # fires the observer: the whole update
                except ValueError:             # an explorer that raises on a reachable setting (counted)
                    errors += 1
                    continue
                wall.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
    wall.sort()
    return len(wall), errors, statistics.median(wall), wall[int(0.9 * (len(wall) - 1))], statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="passes over every control's sequence (default 3)")
    parser.add_argument("--only", default="", help="time only explorers whose name contains this")
    parser.add_argument("--no-cache", action="store_true", help="redraw the whole figure on every update")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    mode = "full redraw every time (--no-cache)" if args.no_cache else "one redraw cache"
    print(f"explorer update per control change, {mode}; {args.repeats} passes; "
          f"1-min load {load:.1f} on {os.cpu_count()} CPUs")
    print(f"{'explorer':20s} {'changes':>7s} {'raised':>6s} {'median':>9s} {'p90':>9s} {'CPU med':>9s} {'before':>8s} {'ratio':>6s}")
    for name, factory in explorers():
        if args.only not in name:
            continue
        n, errors, median, p90, cpu = time_explorer(factory, args.repeats, args.no_cache)
        before = BEFORE_MS.get(name)
        ratio = f"{median * 1e3 / before:6.2f}" if before else "     -"
        before_text = f"{before:6.1f}ms" if before else "       -"
        print(f"{name:20s} {n:7d} {errors:6d} {median * 1e3:7.1f}ms {p90 * 1e3:7.1f}ms {cpu * 1e3:7.1f}ms {before_text} {ratio}")


if __name__ == "__main__":
    main()

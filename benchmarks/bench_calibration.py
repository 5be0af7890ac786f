"""Benchmark of specdec.calibration's fit: the vectorized grid search against a loop over grid points.

Run from the repository root::

    python benchmarks/bench_calibration.py

The fit scans (bandwidth fraction, FLOP fraction, overlap) on a grid and
solves the three linear terms by least squares at every point. The
vectorized version solves all (bandwidth, FLOP) points of one overlap at
once; the baseline loops over every grid point with its own least-squares
solve (on a coarser grid, scaled to the full one). Prints both times and
their ratio, and checks that both find the same calibration; nothing here is
asserted by the test suite.
"""

from __future__ import annotations

import time

import numpy as np

from specdec import calibration as cal
from specdec.roofline.hardware import A100, step_time_parts


def loop_fit(step_bw=0.02, step_fl=0.02, step_o=0.1):
    """Grid search with one least-squares solve per grid point (the straightforward way)."""
    ms = [m for m in cal.MEASUREMENTS if m.device is A100 and m.role == "fit"]
    y = np.array([cal.measured_time(m) for m in ms])
    w = 1.0 / y
    probe = cal.Calibration(communication=True, kv_write=True, causal_attention=True)
    parts = []
    for m in ms:
        hw = (m.device.scaled(m.tp) if m.tp > 1 else m.device).calibrated(probe)
        p = step_time_parts(m.model, hw, m.batch, m.context, m.new_tokens)
        parts.append((float(p["memory"]), float(p["compute"]), float(p["communication"])))
    parts = np.array(parts)
    a = np.column_stack([np.ones(len(ms)), [2.0 * m.model.n_layers * (m.tp > 1) for m in ms], parts[:, 2]])
    best, count = None, 0
    for b in np.arange(0.60, 1.0001, step_bw):
        for f in np.arange(0.40, 1.0001, step_fl):
            for o in np.arange(0.0, 1.0001, step_o):
                mem, comp = parts[:, 0] / b, parts[:, 1] / f
                core = np.maximum(mem, comp) + (1 - o) * np.minimum(mem, comp)
                x, *_ = np.linalg.lstsq(a * w[:, None], (y - core) * w, rcond=None)
                count += 1
                if (x < 0).any():
                    continue
                score = float((np.log((core + a @ x) / y) ** 2).sum())
                if best is None or score < best[0]:
                    best = (score, round(b, 2), round(f, 2), round(o, 2))
    return best, count


def main():
    start = time.perf_counter()
    fit = cal.fit_calibration()
    vectorized = time.perf_counter() - start
    full = 41 * 61 * 21
    start = time.perf_counter()
    best, count = loop_fit()
    looped = (time.perf_counter() - start) * full / count
    coarse = cal.fit_calibration(bw=(0.60, 1.0, 0.02), flops=(0.40, 1.0, 0.02), overlap=(0.0, 1.0, 0.1))
    c = coarse.calibration
    same = (round(c.bw_efficiency, 2), round(c.flops_efficiency, 2), round(c.overlap, 2)) == best[1:]
    print(f"calibration fit over {full:,} grid points (A100, {len(fit.keys)} measurements):")
    print(f"  vectorized {vectorized:.2f} s;  loop (scaled from {count:,} points) {looped:.1f} s;  "
          f"ratio {looped / vectorized:.0f}x;  same optimum on the coarse grid: {same}")


if __name__ == "__main__":
    main()

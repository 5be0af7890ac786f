"""Benchmark of the break-even chapter (Part II, chapter 3).

1. ``sd.break_even_alpha`` on a 100 x 100 grid of (k, c_draft) against the
   second source's bisection (``sd.economics.source_bisection_break_even_alpha``,
   pure Python, one point at a time): time of each in this run, their ratio,
   and the largest difference where a threshold exists below 0.9999.
2. The threshold explorer's update: the numbers and verdict line
   (``threshold_verdict_html``) and the figure redraw to PNG
   (``threshold_render_png``), median over repeated updates.

Run: ``python benchmarks/bench_threshold.py``. Prints measured figures only.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import specdec as sd
from specdec.economics import source_bisection_break_even_alpha


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    k = np.arange(1, 101)
    c_draft = np.linspace(0.0, 0.3, 100)
    c_verify = 1.1
    kk, cd = np.meshgrid(k, c_draft, indexing="ij")

    ours = sd.break_even_alpha(kk, cd, c_verify)
    t_ours = best_of(lambda: sd.break_even_alpha(kk, cd, c_verify))

    t0 = time.perf_counter()
    theirs = np.array([[source_bisection_break_even_alpha(int(a), float(b), c_verify) for a, b in zip(ra, rb, strict=True)]
                       for ra, rb in zip(kk, cd, strict=True)])
    t_theirs = time.perf_counter() - t0

    feasible = np.isfinite(ours) & (ours > 0) & (ours < 0.9999)
    diff = np.abs(ours - theirs)[feasible]
    print("break_even_alpha on a 100 x 100 (k = 1..100, c_draft = 0..0.3) grid, c_verify = 1.1")
    print(f"  vectorized Newton (best of 5): {t_ours * 1e3:9.2f} ms")
    print(f"  source bisection, per point:   {t_theirs * 1e3:9.2f} ms")
    print(f"  speed ratio:                   {t_theirs / t_ours:9.1f} x")
    print(f"  points with a threshold in (0, 0.9999): {int(feasible.sum())} of {feasible.size}")
    print(f"  max |ours - bisection| there:  {diff.max():.2e} (bisection bracket width 0.9999/2**40 = {0.9999 / 2**40:.2e})")
    print(f"  points where ours is nan (no alpha wins): {int(np.isnan(ours).sum())}; "
          f"bisection answers there: {sorted(set(theirs[np.isnan(ours)].tolist()))}")

    # explorer update: read-out numbers (compute + rows), then the figure (draw + PNG through the redraw cache)
    explorer = sd.widgets.threshold_explorer()
    settings = [{"k": k_, "c_draft": float(cd_), "c_verify": float(cv_), "alpha": float(a_)}
                for k_, cd_, cv_, a_ in zip(range(1, 17), np.linspace(0.0, 0.3, 16), np.linspace(1.0, 2.0, 16),
                                            np.linspace(0.3, 0.95, 16), strict=True)]
    text_times, png_times, total_times = [], [], []
    for s in settings:
        t = time.perf_counter()
        values = explorer.compute(s)
        explorer.rows(values)
        text_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        explorer._blit.png(explorer.draw(values))
        png_times.append(time.perf_counter() - t)
    for s in settings:                                   # as a reader does: through the controls
        t = time.perf_counter()
        for name, value in s.items():
            explorer.controls[name].value = value
        total_times.append((time.perf_counter() - t) / len(s))
    print("threshold explorer update (median of 16 updates)")
    print(f"  numbers + read-out:            {statistics.median(text_times) * 1e3:9.2f} ms")
    print(f"  figure update + PNG render:    {statistics.median(png_times) * 1e3:9.2f} ms")
    print(f"  per control change (kernel):   {statistics.median(total_times) * 1e3:9.2f} ms")

if __name__ == "__main__":
    main()

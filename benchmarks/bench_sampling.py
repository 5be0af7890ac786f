"""Benchmark of specdec.verification.sampling: trials/s, rounds/s, and speedups over plain loops.

Run from the repository root::

    python benchmarks/bench_sampling.py

Targets (issue 6): ``speculative_step`` >= 5e6 trials/s at vocabulary 10,
``simulate_accepted_counts`` >= 1e7 rounds/s, each vectorized version >= 50x
a straightforward Python loop, and widget callbacks < 50 ms. Every ratio is
measured in the same run; nothing here is asserted by the test suite.
"""

from __future__ import annotations

import random
import time

import numpy as np

import specdec as sd


def best_of(fn, repeat=5):
    """Best wall-clock time of ``repeat`` calls (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def loop_step(p, q, size, seed):
    """Straightforward per-trial Python implementation (the baseline)."""
    rnd = random.Random(seed)
    vocab = range(len(p))
    residual = [max(pi - qi, 0.0) for pi, qi in zip(p, q, strict=True)]
    out = []
    for _ in range(size):
        x = rnd.choices(vocab, weights=q)[0]
        if rnd.random() < min(1.0, p[x] / q[x]):
            out.append(x)
        else:
            out.append(rnd.choices(vocab, weights=residual)[0])
    return out


def loop_counts(alpha, k, n, seed):
    """Per-round, per-draft Python loop for accepted counts (the baseline)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        c = 0
        while c < k and rnd.random() < alpha:
            c += 1
        out.append(c)
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(10))
    q = rng.dirichlet(np.ones(10))
    n_vec, n_loop = 2_000_000, 50_000

    t_vec = best_of(lambda: sd.sampling.speculative_step(p, q, n_vec, np.random.default_rng(1)))
    t_loop = best_of(lambda: loop_step(p.tolist(), q.tolist(), n_loop, 1), repeat=3)
    rate_vec, rate_loop = n_vec / t_vec, n_loop / t_loop
    print(f"speculative_step, vocab 10: {rate_vec / 1e6:.1f} M trials/s "
          f"(target >= 5); Python loop {rate_loop / 1e6:.3f} M trials/s; ratio {rate_vec / rate_loop:.0f}x (target >= 50)")

    n_c, n_c_loop = 5_000_000, 200_000
    t_vec = best_of(lambda: sd.estimation.simulate_accepted_counts(0.8, 4, n_c, np.random.default_rng(2)))
    t_loop = best_of(lambda: loop_counts(0.8, 4, n_c_loop, 2), repeat=3)
    rate_vec, rate_loop = n_c / t_vec, n_c_loop / t_loop
    print(f"simulate_accepted_counts, alpha 0.8, k 4: {rate_vec / 1e6:.1f} M rounds/s "
          f"(target >= 10); Python loop (random module) {rate_loop / 1e6:.2f} M rounds/s; ratio {rate_vec / rate_loop:.0f}x")
    gen = np.random.default_rng(2)
    n_np_loop = 50_000

    def loop_counts_numpy():
        out = []
        for _ in range(n_np_loop):
            c = 0
            while c < 4 and gen.random() < 0.8:
                c += 1
            out.append(c)
        return out

    t_np = best_of(loop_counts_numpy, repeat=3)
    rate_np = n_np_loop / t_np
    print(f"  Python loop drawing from a numpy Generator {rate_np / 1e6:.2f} M rounds/s; ratio {rate_vec / rate_np:.0f}x "
          f"(target >= 50 against a straightforward loop)")

    n_r = 1_000_000
    t_r = best_of(lambda: sd.sampling.simulate_rounds(p, q, 4, n_r, np.random.default_rng(3)), repeat=3)
    print(f"simulate_rounds, vocab 10, k 4: {n_r / t_r / 1e6:.1f} M rounds/s")
    target, draft = sd.synthetic.synthetic_bigram_pair(10, 0)
    t_b = best_of(lambda: sd.sampling.simulate_bigram_rounds(target, draft, 4, n_r, np.random.default_rng(4)), repeat=3)
    print(f"simulate_bigram_rounds, vocab 10, k 4: {n_r / t_b / 1e6:.1f} M rounds/s")

    counts = sd.estimation.simulate_accepted_counts(0.8, 4, 1_000_000, np.random.default_rng(5))
    t_e = best_of(lambda: sd.estimation.estimate_alpha(counts, 4))
    print(f"estimate_alpha on 1e6 rounds: {t_e * 1e3:.1f} ms")
    rates = np.linspace(0, 1, 100_000)
    t_i = best_of(lambda: sd.acceptance.alpha_from_draft_acceptance_rate(rates, 4))
    print(f"alpha_from_draft_acceptance_rate, 1e5 values: {t_i * 1e3:.1f} ms")

    ws = sd.widgets

    explorers = [
        ("residual explorer (mismatch slider)", ws.sampling_residual_explorer, "mismatch", (0.5, 0.6)),
        ("temperature explorer (noise slider)", ws.sampling_temperature_explorer, "noise", (1.5, 1.2)),
        ("log explorer (true alpha slider)", ws.sampling_log_explorer, "alpha", (0.7, 0.75)),
    ]
    for name, factory, slider, values in explorers:
        w = factory()
        state = {"i": 0}

        def move(w=w, slider=slider, values=values, state=state):
            state["i"] += 1
            getattr(w, slider).value = values[state["i"] % 2]  # fires compute + redraw
            return w

        def numbers(w=w, slider=slider, values=values, state=state):
            state["i"] += 1
            # the numeric part of a callback with a fresh value (nothing cached)
            with w.hold_trait_notifications():
                getattr(w, slider).unobserve_all()
                getattr(w, slider).value = values[state["i"] % 2] + 0.01 * (state["i"] % 7)
            w.compute()

        t_full = best_of(move, repeat=3)
        t_num = best_of(numbers, repeat=3)
        print(f"widget {name}: numbers {t_num * 1e3:.1f} ms (target < 50); full update incl. PNG render {t_full * 1e3:.0f} ms")


if __name__ == "__main__":
    main()

"""Benchmark of specdec.verification.trees: expected tokens of many trees, and the best-tree searches.

Run from the repository root::

    python benchmarks/bench_trees.py            # full sizes
    python benchmarks/bench_trees.py --quick    # the loop baselines on fewer trees, scaled

Targets (issue 17): ``tree_expected_tokens`` over 10^5 random 64-node trees
in under 1 s; the best-tree search for a 64-node budget in under 2 s. Each
is printed with its ratio against a straightforward Python loop computing
the same thing; nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import specdec.verification.trees as tr


def best_of(fn, repeat=3):
    """Best wall-clock time of ``repeat`` calls (seconds) and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def loop_expected_tokens(parents, accept):
    """Per-tree, per-node Python loop (the baseline)."""
    out = []
    for par, acc in zip(parents.tolist(), accept.tolist(), strict=True):
        prob = [0.0] * len(par)
        total = 1.0
        for i, p in enumerate(par):
            prob[i] = acc[i] * (1.0 if p < 0 else prob[p])
            total += prob[i]
        out.append(total)
    return out


def loop_best_tree(n_nodes, rank_accept, depth_cap):
    """Greedy tree growth by scanning every frontier candidate each step (the baseline).

    The frontier holds every child of the nodes taken so far (all ranks);
    each step takes the candidate with the largest path probability. Same
    tree as the heap search, found in O(N^2 R) list work.
    """
    frontier = [(a, -1, 1) for a in rank_accept]  # (value, parent, depth)
    values, depths = [], []
    while frontier and len(values) < n_nodes:
        j = max(range(len(frontier)), key=lambda i: frontier[i][0])
        value, _, depth = frontier.pop(j)
        if value <= 0:
            break
        values.append(value)
        depths.append(depth)
        if depth < depth_cap:
            frontier.extend((value * a, len(values) - 1, depth + 1) for a in rank_accept)
    return values, depths


def loop_best_for_speedup(rank_accept, max_nodes, c_verify, c_draft):
    """The speedup-maximizing tree by the same argument, with the scanning loop for every depth cap."""
    best = 0.0
    for cap in range(1, max_nodes + 1):
        values, depths = loop_best_tree(max_nodes, rank_accept, cap)
        total, deepest = 1.0, 0
        for n, (v, d) in enumerate(zip(values, depths, strict=True), start=1):
            total += v
            deepest = max(deepest, d)
            best = max(best, total / (deepest * c_draft + c_verify[n - 1]))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="time the loop baselines on a subset and scale")
    args = parser.parse_args()

    n_trees, n_nodes = 100_000, 64
    parents, accept = tr.random_trees(n_trees, n_nodes, rng=0)
    t_vec, e_vec = best_of(lambda: tr.tree_expected_tokens(parents, accept))
    sub = 5_000 if args.quick else n_trees
    t_loop, e_loop = best_of(lambda: loop_expected_tokens(parents[:sub], accept[:sub]), repeat=1)
    t_loop *= n_trees / sub
    err = float(np.max(np.abs(np.asarray(e_loop) - e_vec[:sub]) / e_vec[:sub]))
    print(f"tree_expected_tokens, {n_trees:,} random trees of {n_nodes} nodes (validation included):")
    print(f"  vectorized {t_vec:.3f} s   (target < 1 s)")
    print(f"  Python loop {t_loop:.2f} s{' (scaled from ' + format(sub, ',') + ' trees)' if sub < n_trees else ''}")
    print(f"  ratio loop / vectorized = {t_loop / t_vec:.0f}x;  max relative difference {err:.1e}")

    rank = np.array([0.55, 0.18, 0.08, 0.05, 0.03, 0.02])
    t_heap, tree = best_of(lambda: tr.best_tree(64, rank), repeat=5)
    t_scan, (values, _) = best_of(lambda: loop_best_tree(64, rank, 64), repeat=3)
    same = abs((1.0 + sum(values)) - tree.expected_tokens) <= 1e-12 * tree.expected_tokens
    print("best_tree, budget 64 nodes, 6 candidate ranks:")
    print(f"  heap search {t_heap * 1e3:.2f} ms (target < 2 s);  scanning loop {t_scan * 1e3:.1f} ms;  "
          f"ratio {t_scan / t_heap:.0f}x;  same E[L]: {same}")

    cv = 1.0 + 0.012 * np.arange(1, 65) ** 1.2
    t_fast, res = best_of(lambda: tr.best_tree_for_speedup(rank, 64, cv, c_draft=0.03), repeat=3)
    t_slow, ref = best_of(lambda: loop_best_for_speedup(rank, 64, cv, 0.03), repeat=1)
    same = abs(ref - res.speedup) <= 1e-12 * ref
    print("best_tree_for_speedup, up to 64 nodes, every depth cap 1..64:")
    print(f"  heap searches {t_fast * 1e3:.1f} ms (target < 2 s);  scanning loops {t_slow:.2f} s;  "
          f"ratio {t_slow / t_fast:.0f}x;  same speedup: {same}")
    print(f"  best tree: {res.tree.n_nodes} nodes, depth {res.tree.max_depth}, speedup {res.speedup:.3f}")


if __name__ == "__main__":
    main()

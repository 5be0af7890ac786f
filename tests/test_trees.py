"""Tests for specdec.verification.trees: expected tokens of draft trees, the best tree, multi-draft exactness.

References are independent of the implementation: exact rational
enumeration of a tree's outcomes, plain Python loops, exhaustive search over
every tree of a small budget, and chi-square tests (seeded, level 1e-3 each)
for the multi-draft sampler, paired with a deliberately wrong variant that
the same test must reject.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from test_verification import SIGNIFICANCE, chi2_pvalue

import specdec as sd
import specdec.drafts.drafters as dr
import specdec.verification as vr
import specdec.verification.trees as tr

# --------------------------------------------------------------------------
# an exact reference: enumerate the outcomes of a verification round
# --------------------------------------------------------------------------


def exact_tokens_law(parents, accept):
    """P(L = l) as Fractions, by walking the round: at a node, child c is accepted with
    accept[c] (alternatives), or none with 1 - sum; the round ends when none is."""
    children = {-1: []}
    for i, p in enumerate(parents):
        children.setdefault(p, []).append(i)
        children.setdefault(i, [])
    law: dict[int, Fraction] = {}

    def walk(node, prob, depth):
        kids = children[node]
        stop = 1 - sum((accept[c] for c in kids), Fraction(0))
        if stop:
            law[depth + 1] = law.get(depth + 1, Fraction(0)) + prob * stop
        for c in kids:
            if accept[c]:
                walk(c, prob * accept[c], depth + 1)

    walk(-1, Fraction(1), 0)
    return law


HAND_TREES = [
    ([-1], [Fraction(1, 2)]),
    ([-1, 0, 1], [Fraction(4, 5)] * 3),
    ([-1, -1, 0], [Fraction(3, 5), Fraction(3, 10), Fraction(7, 10)]),
    ([-1, -1, -1, 0, 0, 1, 3], [Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(2, 3), Fraction(1, 3),
                                Fraction(9, 10), Fraction(1)]),
    ([-1, 0, 0, 0, 1, 2, 2, 4], [Fraction(9, 10), Fraction(1, 2), Fraction(1, 5), Fraction(1, 5), Fraction(0),
                                 Fraction(1, 7), Fraction(5, 7), Fraction(1, 2)]),
]


@pytest.mark.parametrize("parents, accept", HAND_TREES)
def test_small_trees_match_exact_enumeration(parents, accept):
    """E[L] and the law of L equal an exact rational enumeration of the round's outcomes."""
    law = exact_tokens_law(parents, accept)
    assert sum(law.values()) == 1
    exact_mean = sum(l * p for l, p in law.items())
    af = [float(a) for a in accept]
    got = sd_tree_expected_tokens(parents, af)
    assert abs(got - float(exact_mean)) <= 1e-14 * float(exact_mean)
    pmf = tr.tree_tokens_pmf(parents, af)
    for l, p in law.items():
        assert abs(pmf[l - 1] - float(p)) <= 1e-15
    assert abs(pmf.sum() - 1.0) <= 1e-14


def sd_tree_expected_tokens(parents, accept):
    out = tr.tree_expected_tokens(parents, accept)
    assert isinstance(out, float)
    return out


def test_random_small_trees_match_exact_enumeration():
    """Forty random 1..9-node trees with rational accept: float result within 1e-14 of the exact value."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 10))
        parents = [int(rng.integers(-1, i)) if i else -1 for i in range(n)]
        accept = [Fraction(0)] * n
        for p in set(parents):
            kids = [i for i in range(n) if parents[i] == p]
            w = [int(x) for x in rng.integers(1, 20, size=len(kids))]
            total = sum(w) + int(rng.integers(0, 10))
            for i, wi in zip(kids, w, strict=True):
                accept[i] = Fraction(wi, total)
        exact = sum(l * p for l, p in exact_tokens_law(parents, accept).items())
        got = tr.tree_expected_tokens(parents, [float(a) for a in accept])
        assert abs(got - float(exact)) <= 1e-14 * float(exact)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 16, 32, 64])
def test_chain_reduces_to_expected_tokens(k):
    """A chain with every accept = alpha equals sd.expected_tokens(alpha, k) to 1e-14 relative."""
    alphas = np.concatenate([np.linspace(0.0, 1.0, 41), [0.999, 0.9999999, 1 - 1e-12]])
    par = tr.chain_parents(k)
    batched = tr.tree_expected_tokens(par, np.repeat(alphas[:, None], k, axis=1))
    ref = sd.expected_tokens(alphas, k)
    assert np.all(np.abs(batched - ref) <= 1e-14 * ref)
    for a in (0.3, 0.8, 0.99):
        one = tr.tree_expected_tokens(par, np.full(k, a))
        assert abs(one - sd.expected_tokens(a, k)) <= 1e-14 * sd.expected_tokens(a, k)


def test_chain_per_position_matches_expected_tokens_per_position():
    """A chain with position-dependent accept equals expected_tokens_per_position."""
    a = np.array([0.9, 0.7, 0.75, 0.5, 0.6])
    assert tr.tree_expected_tokens(tr.chain_parents(5), a) == pytest.approx(
        sd.expected_tokens_per_position(a), rel=1e-14)


def exact_depths(parents):
    """Depth of each node by following parents to the root (a plain loop, no specdec)."""
    depths = []
    for i in range(len(parents)):
        d, j = 1, parents[i]
        while j >= 0:
            d, j = d + 1, parents[j]
        depths.append(d)
    return depths


@pytest.mark.parametrize("parents, accept", HAND_TREES)
@pytest.mark.parametrize("decay", [Fraction(0), Fraction(1, 2), Fraction(9, 10), Fraction(1)])
def test_depth_decay_matches_exact_enumeration(parents, accept, decay):
    """depth_decay d: E[L] equals the exact enumeration with accept[i] * d**(depth - 1), to 1e-14."""
    decayed = [a * decay ** (d - 1) for a, d in zip(accept, exact_depths(parents), strict=True)]
    exact = sum(l * p for l, p in exact_tokens_law(parents, decayed).items())
    got = tr.tree_expected_tokens(parents, [float(a) for a in accept], depth_decay=float(decay))
    assert isinstance(got, float)
    assert abs(got - float(exact)) <= 1e-14 * float(exact)


def test_depth_decay_on_a_chain_is_the_closed_sum():
    """A chain of k nodes at alpha with decay d gives 1 + sum_i alpha**i d**(i(i-1)/2), exactly in fractions."""
    alpha, d = Fraction(4, 5), Fraction(7, 10)
    for k in (1, 2, 5, 12):
        exact = 1 + sum(alpha**i * d ** (i * (i - 1) // 2) for i in range(1, k + 1))
        got = tr.tree_expected_tokens(tr.chain_parents(k), np.full(k, 0.8), depth_decay=0.7)
        assert abs(got - float(exact)) <= 1e-14 * float(exact)


def test_depth_decay_batched_and_validated():
    """Batched trees with a decay equal per-tree calls; a decay outside [0, 1] or an array is refused."""
    par, acc = tr.random_trees(30, 9, rng=5)
    many = tr.tree_expected_tokens(par, acc, depth_decay=0.6)
    for j in range(30):
        assert many[j] == pytest.approx(tr.tree_expected_tokens(par[j], acc[j], depth_decay=0.6), rel=1e-15)
    assert np.all(many <= tr.tree_expected_tokens(par, acc))
    assert tr.tree_expected_tokens(par, acc, depth_decay=1.0) == pytest.approx(
        tr.tree_expected_tokens(par, acc), rel=0, abs=0)
    for bad in (1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match=r"depth_decay must be in \[0, 1\]"):
            tr.tree_expected_tokens([-1, 0], [0.5, 0.5], depth_decay=bad)
    with pytest.raises(TypeError, match="depth_decay must be a single number"):
        tr.tree_expected_tokens([-1, 0], [0.5, 0.5], depth_decay=[0.5, 0.5])
    with pytest.raises(TypeError, match="depth_decay"):
        tr.tree_expected_tokens([-1, 0], [0.5, 0.5], depth_decay="0.5")


def test_batched_forms_agree_with_single_calls():
    """accept with leading axes (one shape) and 2-D parents (many shapes) equal per-tree calls."""
    par, acc = tr.random_trees(50, 12, rng=7)
    many = tr.tree_expected_tokens(par, acc)
    assert many.shape == (50,)
    for j in range(50):
        assert many[j] == pytest.approx(tr.tree_expected_tokens(par[j], acc[j]), rel=1e-15)
    same_shape = tr.tree_expected_tokens(par[0], np.stack([acc[0], 0.5 * acc[0]]).reshape(1, 2, 12))
    assert same_shape.shape == (1, 2)
    assert same_shape[0, 0] == pytest.approx(many[0], rel=1e-15)


def test_vectorized_result_matches_python_loop_on_random_64_node_trees():
    """On 300 random 64-node trees the vectorized result equals a plain loop to 1e-14 relative."""
    par, acc = tr.random_trees(300, 64, rng=11)
    got = tr.tree_expected_tokens(par, acc)
    for j in range(300):
        prob = [0.0] * 64
        total = 1.0
        for i in range(64):
            prob[i] = acc[j, i] * (1.0 if par[j, i] < 0 else prob[par[j, i]])
            total += prob[i]
        assert abs(got[j] - total) <= 1e-14 * total


def test_path_probabilities_and_depths():
    par = [-1, -1, 0, 2, 1]
    acc = [0.5, 0.25, 0.5, 0.5, 1.0]
    assert tr.tree_path_probabilities(par, acc).tolist() == [0.5, 0.25, 0.25, 0.125, 0.25]
    assert tr.tree_depths(par).tolist() == [1, 1, 2, 3, 2]
    assert tr.tree_depths(np.array([par, [-1, 0, 1, 2, 3]])).tolist() == [[1, 1, 2, 3, 2], [1, 2, 3, 4, 5]]


def test_random_trees_are_valid():
    """random_trees gives topologically ordered parents and sibling sums below 1."""
    par, acc = tr.random_trees(200, 30, rng=5, scale=1.0)
    assert (par < np.arange(30)).all() and (par >= -1).all()
    for j in range(200):
        for p in np.unique(par[j]):
            assert acc[j][par[j] == p].sum() < 1.0
    tr.tree_expected_tokens(par, acc)  # validates without raising


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------


def test_sibling_sum_error_names_parent_and_sum():
    with pytest.raises(ValueError, match=r"children of node 0 \(nodes \[1, 2\]\) have accept summing to 1\.1; "
                                         r"siblings are alternatives"):
        tr.tree_expected_tokens([-1, 0, 0], [0.5, 0.6, 0.5])
    with pytest.raises(ValueError, match=r"children of the root \(parent -1\)"):
        tr.tree_expected_tokens([-1, -1], [0.7, 0.4])
    par = np.array([[-1, 0, 0], [-1, -1, 0]])
    with pytest.raises(ValueError, match="in tree 1"):
        tr.tree_expected_tokens(par, np.array([[0.5, 0.5, 0.5], [0.6, 0.6, 0.5]]))
    # exactly 1 is allowed (greedy verification of all candidates)
    assert tr.tree_expected_tokens([-1, -1], [0.7, 0.3]) == pytest.approx(2.0, rel=1e-15)


def test_parent_validation_messages():
    with pytest.raises(ValueError, match=r"parents\[1\] must be -1 .* earlier node \(< 1\).*got 1"):
        tr.tree_expected_tokens([-1, 1], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"parents\[0\] must be -1"):
        tr.tree_expected_tokens([0], [0.5])
    with pytest.raises(ValueError, match="parents must be a whole number >= -1; got -2"):
        tr.tree_expected_tokens([-2, 0], [0.5, 0.5])
    with pytest.raises(ValueError, match="parents must be a whole number"):
        tr.tree_expected_tokens([-1, 0.5], [0.5, 0.5])
    with pytest.raises(TypeError, match="parents must be numeric"):
        tr.tree_expected_tokens(["a"], [0.5])
    with pytest.raises(ValueError, match="one entry per node"):
        tr.tree_expected_tokens([-1, 0], [0.5])
    with pytest.raises(ValueError, match=r"accept must be in \[0, 1\]"):
        tr.tree_expected_tokens([-1], [1.5])
    with pytest.raises(ValueError, match="at least one node"):
        tr.tree_expected_tokens([], [])
    with pytest.raises(ValueError, match="single number"):
        tr.tree_expected_tokens(-1, 0.5)
    with pytest.raises(ValueError, match="do not broadcast"):
        tr.tree_expected_tokens(np.array([[-1, 0], [-1, -1]]), np.full((3, 2), 0.2))
    with pytest.raises(TypeError):
        tr.tree_expected_tokens([-1], [True])


# --------------------------------------------------------------------------
# the cost of verifying a tree
# --------------------------------------------------------------------------


def test_tree_verify_cost_is_the_roofline_pass_over_n_plus_one_tokens():
    """c_verify of n nodes = T(new_tokens = n + 1) / T(new_tokens = 1) on the roofline."""
    h = sd.hardware
    hw = h.H100.scaled(8)
    n = np.array([1, 7, 15, 63, 127])
    for batch, ctx in ((1, 0), (32, 2048), (256, 512)):
        ref = h.step_time(h.LLAMA_70B, hw, batch, ctx, n + 1) / h.step_time(h.LLAMA_70B, hw, batch, ctx, 1)
        assert_allclose(tr.tree_verify_cost(h.LLAMA_70B, hw, n, batch, ctx), ref, rtol=1e-15)
    assert tr.tree_new_tokens(63) == 64 and isinstance(tr.tree_new_tokens(63), int)
    assert tr.tree_new_tokens([1, 2]).tolist() == [2, 3]
    with pytest.raises(ValueError, match="n_nodes must be a whole number >= 1"):
        tr.tree_verify_cost(h.LLAMA_70B, hw, 0)


# --------------------------------------------------------------------------
# the best tree: exhaustive search on small budgets
# --------------------------------------------------------------------------


def all_trees(n_max, n_rank, depth_max):
    """Every tree of at most n_max nodes in the candidate tree (nodes = rank paths)."""
    seen = {frozenset()}
    frontier = [frozenset()]
    for _ in range(n_max):
        nxt = []
        for t in frontier:
            options = [(r,) for r in range(n_rank)] + [path + (r,) for path in t for r in range(n_rank)
                                                       if len(path) < depth_max]
            for o in options:
                if o not in t and (len(o) == 1 or o[:-1] in t):
                    u = t | {o}
                    if u not in seen:
                        seen.add(u)
                        nxt.append(u)
        frontier = nxt
    return seen


def tree_value(tree, a):
    """1 + sum of path probabilities, with a[d][r] the acceptance of rank r at depth d + 1."""
    total = 1.0
    for path in tree:
        v = 1.0
        for d, r in enumerate(path):
            v *= a[d][r]
        total += v
    return total


RANK_MODELS = [
    np.array([0.6, 0.2, 0.1]),
    np.array([0.3, 0.5, 0.15]),                      # unsorted ranks
    np.array([[0.7, 0.2, 0.0], [0.5, 0.3, 0.1], [0.4, 0.2, 0.2], [0.2, 0.1, 0.05]] * 2),  # depth-dependent
    np.array([0.45, 0.45, 0.1]),                     # ties
]


@pytest.mark.parametrize("model", range(len(RANK_MODELS)))
def test_best_tree_matches_exhaustive_search(model):
    """For budgets 1..6 the best-first tree's E[L] equals the maximum over every tree (to 1e-14)."""
    a = RANK_MODELS[model]
    rows = a if a.ndim == 2 else np.repeat(a[None, :], 6, axis=0)
    trees = all_trees(6, 3, 6)
    for n in range(1, 7):
        best = max(tree_value(t, rows) for t in trees if len(t) <= n)
        got = tr.best_tree(n, a)
        assert got.n_nodes <= n
        assert abs(got.expected_tokens - best) <= 1e-14 * best
        # the returned tree is a valid tree whose E[L] the generic function confirms
        assert got.expected_tokens == pytest.approx(tr.tree_expected_tokens(got.parents, got.accept), rel=1e-14)


def test_best_tree_single_rank_is_a_chain():
    """With one candidate per position the best tree is the chain: E[L] = expected_tokens(alpha, N)."""
    t = tr.best_tree(20, [0.85])
    assert t.parents.tolist() == tr.chain_parents(20).tolist()
    assert t.expected_tokens == pytest.approx(sd.expected_tokens(0.85, 20), rel=1e-14)


def test_best_tree_respects_depth_and_reports_ranks():
    t = tr.best_tree(30, [0.5, 0.3, 0.2], max_depth=2)
    assert t.max_depth <= 2
    assert set(t.rank.tolist()) <= {1, 2, 3}
    u = tr.best_tree(3, [0.1, 0.8])  # the second-ranked candidate is the better one
    assert u.rank[0] == 2 and u.accept[0] == 0.8


def test_best_tree_for_speedup_matches_brute_force():
    """With cost depth * c_draft + c_verify(n), the search's speedup equals the best over every tree."""
    a = np.array([0.6, 0.25, 0.1])
    trees = all_trees(6, 3, 6)
    cv = 1.0 + 0.15 * np.arange(1, 7) ** 1.5
    for cd in (0.0, 0.05, 0.3):
        best = max(tree_value(t, np.repeat(a[None, :], 6, axis=0)) / (max(len(p) for p in t) * cd + cv[len(t) - 1])
                   for t in trees if t)
        got = tr.best_tree_for_speedup(a, 6, cv, c_draft=cd)
        assert abs(got.speedup - best) <= 1e-13 * best
        assert got.cost == pytest.approx(got.tree.max_depth * cd + cv[got.tree.n_nodes - 1], rel=1e-15)


def test_best_tree_for_speedup_with_flat_cost_uses_the_whole_budget():
    """Free nodes (constant c_verify, no draft cost): the speedup is best_tree(N)'s E[L] / c_verify."""
    r = tr.best_tree_for_speedup([0.5, 0.3, 0.1], 40, 1.2)
    assert r.speedup == pytest.approx(tr.best_tree(40, [0.5, 0.3, 0.1]).expected_tokens / 1.2, rel=1e-14)
    assert r.expected_tokens.shape == (40, 40) and r.speedups.shape == (40, 40)


def test_best_tree_with_roofline_costs_shrinks_with_batch():
    """Priced with the roofline, the best tree at a large batch has fewer nodes than at batch 1."""
    h = sd.hardware
    hw = h.H100.scaled(8)
    a = dr.MEDUSA_TOPK_VICUNA_7B.value
    rank = tr.rank_accept_from_topk(a)
    sizes = []
    for batch in (1, 64):
        cv = tr.tree_verify_cost(h.LLAMA_70B, hw, np.arange(1, 65), batch, 1024)
        sizes.append(tr.best_tree_for_speedup(rank, 64, cv, c_draft=0.0).tree.n_nodes)
    assert sizes[0] == 64 or sizes[0] > sizes[1]
    assert sizes[1] < sizes[0]


def test_rank_accept_from_topk_and_validation():
    assert_allclose(tr.rank_accept_from_topk([[0.5, 0.7], [0.2, 0.25]]), [[0.5, 0.2], [0.2, 0.05]], rtol=1e-14)
    med = tr.rank_accept_from_topk(dr.MEDUSA_TOPK_VICUNA_7B.value)
    assert_allclose(med[:, 0], sd.drafts.MEDUSA_TOP1_VICUNA_7B, rtol=0)  # same source, same numbers
    with pytest.raises(ValueError, match="non-decreasing"):
        tr.rank_accept_from_topk([0.5, 0.4])
    with pytest.raises(ValueError, match=r"rank_accept sums to 1\.2; the candidates at one position are alternatives"):
        tr.best_tree(3, [0.6, 0.6])
    with pytest.raises(ValueError, match=r"row 1, depth 2"):
        tr.best_tree(3, [[0.5, 0.5], [0.9, 0.2]])
    with pytest.raises(ValueError, match="max_depth must be at most the 2 depths"):
        tr.best_tree(3, [[0.5], [0.5]], max_depth=3)
    with pytest.raises(ValueError, match=r"n_nodes must be a whole number in \[1, 100000\]"):
        tr.best_tree(0, [0.5])
    with pytest.raises(ValueError, match="one entry per tree size"):
        tr.best_tree_for_speedup([0.5], 4, [1.0, 1.1])
    with pytest.raises(TypeError, match="c_draft must be a single number"):
        tr.best_tree_for_speedup([0.5], 2, 1.0, c_draft=[0.1, 0.2])


# --------------------------------------------------------------------------
# multi-draft exactness
# --------------------------------------------------------------------------

_R = np.random.default_rng(424242)
PAIRS = {
    "random": (_R.dirichlet(np.ones(10)), _R.dirichlet(np.ones(10))),
    "peaked-target": (_R.dirichlet(0.3 * np.ones(10)), _R.dirichlet(np.ones(10))),
    "q-zeros": (_R.dirichlet(np.ones(10)), np.array([0.3, 0.0, 0.2, 0.0, 0.1, 0.1, 0.0, 0.1, 0.2, 0.0])),
}


@pytest.mark.parametrize("name", list(PAIRS))
@pytest.mark.parametrize("m", [1, 2, 4])
@pytest.mark.parametrize("replacement", [True, False])
def test_multi_draft_output_follows_p(name, m, replacement):
    """Recursive rejection sampling over m candidates emits tokens following p (chi-square, level 1e-3)."""
    p, q = PAIRS[name]
    tokens, accepted = vr.multi_draft_step(p, q, m, 200_000, np.random.default_rng(100 + m), replacement=replacement)
    assert chi2_pvalue(tokens, p) > SIGNIFICANCE
    assert accepted.min() >= -1 and accepted.max() < m


@pytest.mark.parametrize("replacement", [True, False])
def test_fixed_residual_bug_is_detected(replacement):
    """Checking every candidate against p itself (no recursive residual) fails the same test."""
    p, q = PAIRS["random"]
    tokens, _ = vr.multi_draft_step(p, q, 3, 200_000, np.random.default_rng(7), replacement=replacement,
                                    residual="fixed")
    assert chi2_pvalue(tokens, p) < SIGNIFICANCE


@pytest.mark.parametrize("name", list(PAIRS))
def test_multi_draft_accept_probabilities_match_simulation(name):
    """Which candidate is accepted follows multi_draft_accept_probabilities (chi-square over m + 1 outcomes)."""
    p, q = PAIRS[name]
    m = 3
    probs = vr.multi_draft_accept_probabilities(p, q, m)
    _, accepted = vr.multi_draft_step(p, q, m, 200_000, np.random.default_rng(9))
    law = np.concatenate([probs, [1.0 - probs.sum()]])
    assert chi2_pvalue(np.where(accepted < 0, m, accepted), law) > SIGNIFICANCE


def test_multi_draft_accept_probabilities_hand_values():
    """p = (.5, .3, .2), q = (.2, .3, .5): beta_0 = .7, residual (1, 0, 0), beta_1 = .2, so (.7, .3 * .2)."""
    a = vr.multi_draft_accept_probabilities([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 3)
    assert_allclose(a, [0.7, 0.06, 0.3 * 0.8 * 0.2], rtol=1e-13)
    one = vr.multi_draft_accept_probabilities(PAIRS["random"][0], PAIRS["random"][1], 1)
    assert one[0] == pytest.approx(sd.acceptance_rate(*PAIRS["random"]), rel=1e-14)
    # as sibling accept in a tree they satisfy the "sum to at most 1" rule
    tr.tree_expected_tokens([-1] * 3, a)


def test_multi_draft_validation():
    p, q = PAIRS["random"]
    with pytest.raises(ValueError, match=r"n_candidates must be a whole number in \[1, 64\]"):
        vr.multi_draft_step(p, q, 0, 10, 0)
    with pytest.raises(ValueError, match="residual must be"):
        vr.multi_draft_step(p, q, 2, 10, 0, residual="none")
    with pytest.raises(TypeError, match="replacement must be True or False"):
        vr.multi_draft_step(p, q, 2, 10, 0, replacement=1)
    with pytest.raises(TypeError, match="unseeded"):
        vr.multi_draft_step(p, q, 2, 10, None)
    with pytest.raises(ValueError, match="same vocabulary"):
        vr.multi_draft_step(p, q[:5] / q[:5].sum(), 2, 10, 0)


def test_best_by_budget_is_the_running_best_and_attained():
    cv = 1.0 + 0.02 * np.arange(1, 41)
    r = tr.best_tree_for_speedup([0.6, 0.2, 0.1], 40, cv, c_draft=0.03)
    b = r.best_by_budget
    assert (np.diff(b) >= 0).all()
    assert abs(b[-1] - r.speedup) <= 1e-12 * r.speedup
    # every budget's best is achieved by some tree of at most that many nodes (check by re-searching)
    for n in (1, 5, 12, 40):
        sub = tr.best_tree_for_speedup([0.6, 0.2, 0.1], n, cv[:n], c_draft=0.03)
        assert abs(sub.speedup - b[n - 1]) <= 1e-12 * b[n - 1]


def test_tree_verify_cost_grows_with_nodes_on_the_calibrated_roofline():
    h = sd.hardware
    n = np.arange(1, 129)
    ideal = tr.tree_verify_cost(h.LLAMA_8B, h.H100_IDEAL, n)
    calibrated = tr.tree_verify_cost(h.LLAMA_8B, h.H100, n)
    assert (ideal == 1.0).all()
    assert (np.diff(calibrated) > 0).all() and calibrated[0] > 1.0


def test_tree_verify_cost_follows_the_tree_mask():
    """With ``parents``, each pass token attends to its ancestors in the pass and itself: for a chain of n that
    is (1 + sum_{d=1..n} (d + 1)) / (n + 1) tokens on average, for n siblings (1 + 2n) / (n + 1)."""
    h = sd.hardware
    n = 15
    chain_mean = Fraction(1 + n * (n + 1) // 2 + n, n + 1)
    star_mean = Fraction(1 + 2 * n, n + 1)
    for parents, mean in ((sd.trees.chain_parents(n), chain_mean), ([-1] * n, star_mean)):
        got = sd.trees.tree_verify_cost(h.LLAMA_8B, h.H100, n, batch=32, context=2048, parents=parents)
        want = h.verify_cost(h.LLAMA_8B, h.H100, n, 32, 2048, ancestors=float(mean))
        assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="n_nodes"):
        sd.trees.tree_verify_cost(h.LLAMA_8B, h.H100, n, parents=[-1] * (n - 1))

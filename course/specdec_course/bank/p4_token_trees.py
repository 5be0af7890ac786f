"""Exercises of the chapter "Token trees"."""

from __future__ import annotations

import numpy as np

from specdec import calibration as cal
from specdec import verification
from specdec.drafts import drafters
from specdec.roofline import hardware as hw
from specdec.verification import trees

from .._chapters import Chapter
from .._forms import Float
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part4-engines/04-token-trees", "Token trees")


# 1. E[L] of a given tree.
register(Exercise(
    label="token-trees-1",
    chapter=CHAPTER,
    question=("A draft tree with parents [-1, -1, 0, 0, 2] and accept [0.5, 0.3, 0.6, 0.2, 0.7] (each node's "
              "acceptance given its parent's): how many tokens does a round emit on average?"),
    statement=("A draft tree has parents `[{{parents}}]` (-1 is the root) and accept `[{{accept}}]` (each node's "
               "probability of being accepted given that its parent was). How many tokens does a round emit on "
               "average?"),
    params={"parents": (-1, -1, 0, 0, 2), "accept": (0.5, 0.3, 0.6, 0.2, 0.7)},
    vary=lambda rng: {"accept": tuple(grid(rng, 0.1, 0.9, 0.05) for _ in range(5))},
    answer=Float("tokens per round", decimals=3),
    reference=lambda p: float(trees.tree_expected_tokens(list(p.parents), list(p.accept))),
    hints=("E[L] = 1 + the sum over nodes of the product of accept along the node's path from the root.",),
    mistakes=(
        Mistake("no-bonus", lambda p: float(trees.tree_expected_tokens(list(p.parents), list(p.accept))) - 1.0,
                "The round also emits the target's own token."),
        Mistake("sum-accept", lambda p: 1.0 + float(np.sum(p.accept)),
                "A deeper node counts only if every node on its path is accepted."),
    ),
))


# 2. The best tree of a given size under the rank model.
def _best(p, n_nodes=None):
    return float(trees.best_tree(p.n_nodes if n_nodes is None else n_nodes, list(p.ranks)).expected_tokens)


def _vary_2(rng):
    first = grid(rng, 0.4, 0.8, 0.05)
    second = grid(rng, 0.05, min(0.3, 1 - first - 0.05), 0.05)
    return {"ranks": (first, second, grid(rng, 0.05, min(second, 1 - first - second), 0.05)),
            "n_nodes": int(rng.integers(6, 16))}


register(Exercise(
    label="token-trees-2",
    chapter=CHAPTER,
    question=("A draft whose best candidate is accepted with probability 0.6, its second with 0.2 and its third "
              "with 0.1, at every depth (given the parent was): the largest E[L] any tree of 10 nodes reaches."),
    statement=("A draft's first, second and third candidates are accepted with probabilities {{ranks}}, at every "
               "depth (given that the parent was accepted). What is the largest $E[L]$ a tree of {{n_nodes}} nodes "
               "can reach?"),
    params={"ranks": (0.6, 0.2, 0.1), "n_nodes": 10},
    vary=_vary_2,
    answer=Float("tokens per round", decimals=3),
    reference=_best,
    hints=("sd.trees.best_tree(n_nodes, rank_accept) finds the best tree under this rank model.",),
    mistakes=(
        Mistake("chain", lambda p: float(trees.tree_expected_tokens(trees.chain_parents(p.n_nodes),
                                                                    [p.ranks[0]] * p.n_nodes)),
                "A chain of best candidates is one tree, not the best."),
        Mistake("one-fewer", lambda p: _best(p, p.n_nodes - 1), "Use all the nodes."),
    ),
))


# 3. The tree size with the best speedup on a calibrated GPU.
_MEDUSA_RANKS = trees.rank_accept_from_topk(np.array(drafters.MEDUSA_TOPK_VICUNA_7B.value))
_GPUS = {"H100": hw.H100, "A100": hw.A100}


def _best_tree(p, c_verify=None):
    if c_verify is None:
        c_verify = hw.verify_cost(cal.LLAMA2_7B, _GPUS[p.gpu], np.arange(1, p.max_nodes + 1), p.batch, p.context)
    return trees.best_tree_for_speedup(_MEDUSA_RANKS, p.max_nodes, c_verify)


register(Exercise(
    label="token-trees-3",
    chapter=CHAPTER,
    question=("The Medusa heads of Vicuna 7B (sd.drafters.medusa_rank_accept()) verified on one calibrated H100 at "
              "batch 1, context 512 (heads in the verification pass, c_draft = 0): what speedup does the best tree "
              "of at most 64 nodes give?"),
    statement=("With the Medusa heads' rates (`sd.drafters.medusa_rank_accept()`), verified for Vicuna 7B on one "
               "calibrated **{{gpu}}** (`sd.hardware.{{gpu}}`) at batch {{batch}}, context {{context}}, "
               "heads in the verification pass ($c_d = 0$): what speedup does the best tree of at most "
               "{{max_nodes}} nodes give?"),
    params={"gpu": "H100", "batch": 1, "context": 512, "max_nodes": 64},
    vary=lambda rng: {"gpu": pick(rng, tuple(_GPUS)), "batch": int(rng.integers(1, 9)),
                      "context": 256 * int(rng.integers(1, 17))},
    answer=Float("a ratio", decimals=3),
    reference=lambda p: float(_best_tree(p).speedup),
    hints=("c_verify of n nodes is sd.hardware.verify_cost(model, hardware, n, batch, context) for n = 1 .. the "
           "largest size; pass the array to sd.trees.best_tree_for_speedup.",),
    mistakes=(
        Mistake("ideal", lambda p: float(_best_tree(p, c_verify=1.0).speedup),
                "On the ideal roofline verification is free: use the calibrated GPU."),
        Mistake("largest", lambda p: float(trees.best_tree(p.max_nodes, _MEDUSA_RANKS).expected_tokens
                                           / hw.verify_cost(cal.LLAMA2_7B, _GPUS[p.gpu], p.max_nodes, p.batch,
                                                            p.context)),
                "That is the largest tree; a smaller one can verify in fewer tiles."),
    ),
))


# 4. Several independent candidates, verified one after another (SpecInfer).
def _multi(p, n=None):
    return float(verification.multi_draft_accept_probabilities(np.array(p.p), np.array(p.q),
                                                               p.n if n is None else n).sum())


def _vary_4(rng):
    p = rng.dirichlet(np.ones(4) * 2.0)
    q = rng.dirichlet(np.ones(4) * 2.0)
    as_tuple = (lambda d: tuple(round(float(x), 2) for x in d[:-1]) + (round(1 - sum(round(float(x), 2)
                                                                                   for x in d[:-1]), 2),))
    return {"p": as_tuple(p), "q": as_tuple(q), "n": int(rng.integers(2, 5))}


register(Exercise(
    label="token-trees-4",
    chapter=CHAPTER,
    question=("SpecInfer-style verification of three candidates drawn independently from q = [0.1, 0.4, 0.3, 0.2] "
              "for a target p = [0.5, 0.25, 0.15, 0.1]: the probability that one of the candidates is accepted."),
    statement=("SpecInfer-style verification of {{n}} candidates drawn independently from $q = [{{q}}]$, for a target "
               "$p = [{{p}}]$: what is the probability that one of the candidates is accepted?"),
    params={"p": (0.5, 0.25, 0.15, 0.1), "q": (0.1, 0.4, 0.3, 0.2), "n": 3},
    vary=_vary_4,
    answer=Float("a probability", decimals=3),
    reference=_multi,
    hints=("sd.verification.multi_draft_accept_probabilities gives each candidate's chance of being the accepted "
           "one; add them.",),
    mistakes=(
        Mistake("one", lambda p: _multi(p, 1), "That is a single candidate."),
        Mistake("independent", lambda p: 1.0 - (1.0 - float(verification.acceptance_probability(
            np.array(p.p), np.array(p.q)))) ** p.n,
                "Each later candidate is checked against a residual that shrinks after every rejection, not p."),
    ),
))


# 5. The reader's from-scratch tree_tokens, changed: acceptance fades with depth.
_TREE_5 = (-1, -1, 0, 0, 2)


def _decayed(p, decay=None, scale=1.0):
    d = p.decay if decay is None else decay
    return float(trees.tree_expected_tokens(list(p.parents), [scale * a for a in p.accept], depth_decay=d))


def _vary_5(rng):
    first, below = grid(rng, 0.4, 0.8, 0.05), grid(rng, 0.4, 0.8, 0.05)
    accept = (first, grid(rng, 0.05, round(0.95 - first, 2), 0.05), below,
              grid(rng, 0.05, round(0.95 - below, 2), 0.05), grid(rng, 0.3, 0.9, 0.05))
    return {"accept": accept, "decay": grid(rng, 0.5, 0.95, 0.05)}


register(Exercise(
    label="token-trees-5",
    chapter=CHAPTER,
    question=("Change the chapter's from-scratch tree_tokens so that node i's accept is multiplied by "
              "0.8 ** (depth(i) - 1): E[L] of the tree with parents [-1, -1, 0, 0, 2] and accept "
              "[0.6, 0.3, 0.7, 0.2, 0.5]."),
    statement=("Change the chapter's `tree_tokens` so that acceptance fades with depth: node $i$'s `accept` is "
               "multiplied by ${{decay}}^{\\,d_i - 1}$, where $d_i$ is its depth (1 for a child of the root). "
               "What is $E[L]$ of the tree with parents `[{{parents}}]` and accept `[{{accept}}]`?"),
    params={"parents": _TREE_5, "accept": (0.6, 0.3, 0.7, 0.2, 0.5), "decay": 0.8},
    vary=_vary_5,
    answer=Float("tokens per round", decimals=3),
    reference=_decayed,
    hints=("In the loop, carry each node's depth (its parent's depth + 1, or 1 under the root) and multiply "
           "accept[i] by decay ** (depth - 1) before taking the product along the path.",),
    mistakes=(
        Mistake("no-decay", lambda p: _decayed(p, decay=1.0),
                "That is the tree without the decay: scale each node's accept by its depth's factor."),
        Mistake("decay-from-root", lambda p: _decayed(p, scale=p.decay),
                "A child of the root (depth 1) keeps its accept; the factor applies from the second level on."),
        Mistake("no-bonus", lambda p: _decayed(p) - 1.0, "The round also emits the target's own token."),
    ),
))

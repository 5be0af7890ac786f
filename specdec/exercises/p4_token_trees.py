"""Exercises of Part IV, chapter 4: "Token trees"."""

from __future__ import annotations

import numpy as np

from .. import calibration as cal
from .. import drafters, trees, verification
from .. import hardware as hw
from ._registry import Exercise, Mistake, register

CHAPTER = "Part IV · 4 Token trees"

_PARENTS = [-1, -1, 0, 0, 2]
_ACCEPT = [0.5, 0.3, 0.6, 0.2, 0.7]

register(Exercise(
    label="token-trees-1",
    chapter=CHAPTER,
    question=("A draft tree with parents [-1, -1, 0, 0, 2] and accept [0.5, 0.3, 0.6, 0.2, 0.7] (each node's "
              "acceptance given its parent's): how many tokens does a round emit on average?"),
    kind="numeric",
    reference=lambda: float(trees.tree_expected_tokens(_PARENTS, _ACCEPT)),
    hints=("E[L] = 1 + the sum over nodes of the product of accept along the node's path from the root.",),
    rtol=1e-9,
    mistakes=(
        Mistake("no-bonus", lambda: float(trees.tree_expected_tokens(_PARENTS, _ACCEPT)) - 1.0,
                "The round also emits the target's own token."),
        Mistake("sum-accept", lambda: 1.0 + float(np.sum(_ACCEPT)),
                "A deeper node counts only if every node on its path is accepted."),
    ),
))

register(Exercise(
    label="token-trees-2",
    chapter=CHAPTER,
    question=("A draft whose best candidate is accepted with probability 0.6, its second with 0.2 and its third "
              "with 0.1, at every depth (given the parent was): the largest E[L] any tree of 10 nodes reaches."),
    kind="numeric",
    reference=lambda: trees.best_tree(10, [0.6, 0.2, 0.1]).expected_tokens,
    hints=("sd.trees.best_tree(n_nodes, rank_accept) finds the best tree under this rank model.",),
    rtol=1e-9,
    mistakes=(
        Mistake("chain", lambda: float(trees.tree_expected_tokens(trees.chain_parents(10), [0.6] * 10)),
                "A chain of 10 best candidates is one tree, not the best."),
        Mistake("nine", lambda: trees.best_tree(9, [0.6, 0.2, 0.1]).expected_tokens, "Use all 10 nodes."),
    ),
))


def _best_nodes_h100():
    ra = trees.rank_accept_from_topk(np.array(drafters.MEDUSA_TOPK_VICUNA_7B.value))
    cv = hw.verify_cost(cal.LLAMA2_7B, cal.H100_CALIBRATED, np.arange(1, 65), 1, 512)
    return trees.best_tree_for_speedup(ra, 64, cv).tree.n_nodes


register(Exercise(
    label="token-trees-3",
    chapter=CHAPTER,
    question=("The Medusa heads of Vicuna 7B (sd.widgets.medusa_rank_accept()) verified on one calibrated H100 at "
              "batch 1, context 512 (heads in the verification pass, c_draft = 0): how many nodes has the tree "
              "with the best speedup, among trees of at most 64 nodes?"),
    kind="numeric",
    reference=_best_nodes_h100,
    hints=("c_verify of n nodes is sd.hardware.verify_cost(model, hardware, n, 1, 512) for n = 1 .. 64; pass it to "
           "sd.trees.best_tree_for_speedup.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("ideal", lambda: trees.best_tree_for_speedup(
            trees.rank_accept_from_topk(np.array(drafters.MEDUSA_TOPK_VICUNA_7B.value)), 64, 1.0).tree.n_nodes,
            "On the ideal roofline verification is free: use the calibrated H100."),
    ),
))

_P = [0.5, 0.25, 0.15, 0.1]
_Q = [0.1, 0.4, 0.3, 0.2]

register(Exercise(
    label="token-trees-4",
    chapter=CHAPTER,
    question=("SpecInfer-style verification of three candidates drawn independently from q = [0.1, 0.4, 0.3, 0.2] "
              "for a target p = [0.5, 0.25, 0.15, 0.1]: the probability that one of the candidates is accepted."),
    kind="numeric",
    reference=lambda: float(verification.multi_draft_accept_probabilities(_P, _Q, 3).sum()),
    hints=("sd.verification.multi_draft_accept_probabilities gives each candidate's chance of being the accepted "
           "one; add them.",),
    rtol=1e-9,
    mistakes=(
        Mistake("one", lambda: float(verification.multi_draft_accept_probabilities(_P, _Q, 1).sum()),
                "That is a single candidate."),
        Mistake("independent", lambda: 1.0 - (1.0 - float(verification.acceptance_probability(_P, _Q))) ** 3,
                "Each later candidate is checked against a residual that shrinks after every rejection, not p."),
    ),
))

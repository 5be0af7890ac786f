"""Exercises of Part II, chapter 4: "Draft cost in three arrangements"."""

from __future__ import annotations

from .. import drafts, hardware
from ..acceptance import expected_tokens, expected_tokens_per_position
from ._registry import Exercise, Mistake, register

CHAPTER = "Part II · 4 Draft cost in three arrangements"

#: draft-arrangements-1: Medusa-style heads on Llama 3.1 8B (vocabulary 128256).
HEADS = dict(vocab_size=128256, n_heads=4, c_verify=1.0)


def _head_cost(n_resblocks=1):
    t = hardware.LLAMA_8B
    return drafts.multi_head_draft_cost(drafts.medusa_head_params(t.d_model, HEADS["vocab_size"], n_resblocks),
                                        t.n_params)


def _ref_1():
    c = _head_cost()
    return (c, HEADS["n_heads"] * c + HEADS["c_verify"])


register(Exercise(
    label="draft-arrangements-1",
    chapter=CHAPTER,
    question=("Medusa-style heads (one residual block and a vocabulary projection each) on Llama 3.1 8B "
              "(sd.hardware.LLAMA_8B, vocabulary 128256): give (c_draft per head, round cost with 4 heads "
              "and c_verify = 1)."),
    kind="numeric",
    reference=_ref_1,
    hints=("One head has d*d + d + d*V parameters; in a bandwidth-bound step its cost is its share of the "
           "target's parameters.",),
    rtol=1e-4,
    mistakes=(
        Mistake("no-resblock", lambda: (_head_cost(0), HEADS["n_heads"] * _head_cost(0) + HEADS["c_verify"]),
                "Each head also has a d x d residual block before its vocabulary projection."),
        Mistake("one-head", lambda: (_head_cost(), _head_cost() + HEADS["c_verify"]),
                "The round runs every head: multiply the per-head cost by the number of heads."),
    ),
))


def _acc4():
    return drafts.MEDUSA_TOP1_VICUNA_7B[:4]


def _ref_2():
    a = _acc4()
    return (expected_tokens_per_position(drafts.conditional_rates_from_marginals(a, "independent")),
            expected_tokens_per_position(drafts.conditional_rates_from_marginals(a, "nested")))


register(Exercise(
    label="draft-arrangements-2",
    chapter=CHAPTER,
    question=("Using the first four Medusa head accuracies for Vicuna-7B (sd.drafts.MEDUSA_TOP1_VICUNA_7B[:4]), "
              "give (E[L] if the heads err independently, E[L] if errors are nested)."),
    kind="numeric",
    reference=_ref_2,
    hints=("Independent: the chance that heads 1..i are all right is the product of their accuracies. "
           "Nested: it is the smallest of them. E[L] is 1 plus the sum of these chances.",),
    rtol=1e-6,
    mistakes=(
        Mistake("swapped", lambda: _ref_2()[::-1], "The two values are in the wrong order: independent first."),
        Mistake("mean-alpha", lambda: (expected_tokens(sum(_acc4()) / 4, 4),) * 2,
                "A constant alpha equal to the mean accuracy is neither reading: acceptance depends on the position."),
    ),
))

#: draft-arrangements-3: the toy draft-size model.
TOY = dict(k=3, c_verify=1.1, alpha_ref=0.75, ratio_ref=0.1)


def _ref_3():
    t = TOY
    return drafts.optimal_draft_ratio(t["k"], t["c_verify"], t["alpha_ref"], t["ratio_ref"])[0]


register(Exercise(
    label="draft-arrangements-3",
    chapter=CHAPTER,
    question=("In the chapter's toy model with alpha = 0.75 at a size ratio of 0.1, k = 3 and c_verify = 1.1, "
              "which draft size ratio r (draft over target) maximizes the speedup? (within 2%)"),
    kind="numeric",
    reference=_ref_3,
    hints=("Evaluate sd.drafts.separate_draft_speedup over many ratios between 1e-4 and 1 (log-spaced) "
           "and take the best.",),
    rtol=0.02,
    mistakes=(
        Mistake("biggest-draft", lambda: 1.0,
                "The largest draft has the best acceptance but costs as much as the target."),
        Mistake("anchor", lambda: TOY["ratio_ref"],
                "That is the anchor of the toy curve, not the optimum of the speedup."),
    ),
))

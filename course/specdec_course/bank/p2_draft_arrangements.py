"""Exercises of the chapter "Draft cost in three arrangements"."""

from __future__ import annotations

from specdec import drafts
from specdec.acceptance import expected_tokens, expected_tokens_per_position
from specdec.roofline import hardware

from .._chapters import Chapter
from .._forms import Flag, Float, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part2-cost-accounting/04-draft-arrangements", "Draft cost in three arrangements")

#: draft-arrangements-1: Medusa-style heads on Llama 3.1 8B (vocabulary 128256).
HEADS = dict(vocab_size=128256, n_heads=4, c_verify=1.0)

_MODELS = {"LLAMA_8B": "Llama 3.1 8B", "LLAMA_70B": "Llama 3.1 70B", "LLAMA_1B": "Llama 3.2 1B"}


def _head_cost(p, n_resblocks=1):
    t = getattr(hardware, p.model)
    return float(drafts.multi_head_draft_cost(drafts.medusa_head_params(t.d_model, p.vocab_size, n_resblocks),
                                              t.n_params))


def _ref_1(p, n_resblocks=1, heads=None):
    c = _head_cost(p, n_resblocks)
    return (c, (p.n_heads if heads is None else heads) * c + p.c_verify)


register(Exercise(
    label="draft-arrangements-1",
    chapter=CHAPTER,
    question=("Medusa-style heads (one residual block and a vocabulary projection each) on Llama 3.1 8B "
              "(vocabulary 128256): give (c_draft per head, round cost with 4 heads and c_verify = 1)."),
    statement=("Put Medusa-style heads (one residual block and a vocabulary projection each) on {{model_name}} "
               "(`sd.hardware.{{model}}`, vocabulary {{vocab_size}}). What is $c_d$ per head, and what does a round "
               "with {{n_heads}} heads cost (with $c_v = {{c_verify}}$)? Answer with the tuple "
               "`(c_draft, round_cost)`."),
    params={**HEADS, "model": "LLAMA_8B", "model_name": _MODELS["LLAMA_8B"]},
    vary=lambda rng: (lambda model: {"model": model, "model_name": _MODELS[model], "n_heads": int(rng.integers(2, 7)),
                                     "c_verify": grid(rng, 1.0, 1.2, 0.05)})(pick(rng, tuple(_MODELS))),
    answer=Seq((Float("a fraction of a target step", decimals=4), Float("in target steps", decimals=3)),
               names=("c_draft", "round_cost")),
    reference=_ref_1,
    hints=("One head has d*d + d + d*V parameters; in a bandwidth-bound step its cost is its share of the "
           "target's parameters.",),
    mistakes=(
        Mistake("no-resblock", lambda p: _ref_1(p, n_resblocks=0),
                "Each head also has a d x d residual block before its vocabulary projection."),
        Mistake("one-head", lambda p: _ref_1(p, heads=1),
                "The round runs every head: multiply the per-head cost by the number of heads."),
    ),
))


def _accuracies(p):
    return drafts.MEDUSA_TOP1_VICUNA_7B[: p.n_heads]


def _ref_2(p):
    a = _accuracies(p)
    return (float(expected_tokens_per_position(drafts.conditional_rates_from_marginals(a, "independent"))),
            float(expected_tokens_per_position(drafts.conditional_rates_from_marginals(a, "nested"))))


register(Exercise(
    label="draft-arrangements-2",
    chapter=CHAPTER,
    question=("Using the first two Medusa head accuracies for Vicuna-7B (sd.drafts.MEDUSA_TOP1_VICUNA_7B[:2]), "
              "give (E[L] if the heads err independently, E[L] if errors are nested)."),
    statement=("Use the first {{n_heads}} Medusa head accuracies for Vicuna-7B, "
               "`sd.drafts.MEDUSA_TOP1_VICUNA_7B[:{{n_heads}}]`. Give $E[L]$ with {{n_heads}} heads if the heads err "
               "independently, and if their errors are nested, as the tuple `(independent, nested)`."),
    params={"n_heads": 2},
    vary=lambda rng: {"n_heads": int(pick(rng, (3, 4, 5)))},
    answer=Seq((Float("tokens per round", decimals=3),) * 2, names=("independent", "nested")),
    reference=_ref_2,
    hints=("Independent: the chance that heads 1..i are all right is the product of their accuracies. "
           "Nested: it is the smallest of them. E[L] is 1 plus the sum of these chances.",),
    mistakes=(
        Mistake("swapped", lambda p: _ref_2(p)[::-1], "The two values are in the wrong order: independent first."),
        Mistake("mean-alpha", lambda p: (float(expected_tokens(sum(_accuracies(p)) / p.n_heads, p.n_heads)),) * 2,
                "A constant alpha equal to the mean accuracy is neither reading: acceptance depends on the position."),
    ),
))

#: draft-arrangements-3: the toy draft-size model.
TOY = dict(k=3, c_verify=1.1, alpha_ref=0.75, ratio_ref=0.1)


def _best_ratio(p):
    return float(drafts.optimal_draft_ratio(p.k, p.c_verify, p.alpha_ref, p.ratio_ref)[0])


def _eight_b_ratio():
    return hardware.LLAMA_8B.n_params / hardware.LLAMA_70B.n_params


register(Exercise(
    label="draft-arrangements-3",
    chapter=CHAPTER,
    question=("In the chapter's toy model with alpha = 0.75 at a size ratio of 0.1, k = 3 and c_verify = 1.1, "
              "which draft size ratio r maximizes the speedup, and is the 8B draft for the 70B larger than it?"),
    statement=("With the chapter's toy acceptance curve anchored at $\\alpha = {{alpha_ref}}$ for a size ratio of "
               "{{ratio_ref}}, $k = {{k}}$ and $c_v = {{c_verify}}$, which draft size ratio $r$ (draft over target) "
               "maximizes the speedup? Is the 8B draft for the 70B larger than that? Answer with the tuple "
               "`(best_ratio, eight_b_is_larger)`."),
    params=TOY,
    vary=lambda rng: {"k": int(rng.integers(2, 7)), "c_verify": grid(rng, 1.0, 1.3, 0.05),
                      "alpha_ref": grid(rng, 0.6, 0.85, 0.05), "ratio_ref": pick(rng, (0.05, 0.1, 0.2))},
    answer=Seq((Float("a size ratio", rel=0.02), Flag("whether the 8B draft is larger than the best one")),
               names=("best_ratio", "eight_b_is_larger")),
    reference=lambda p: (_best_ratio(p), bool(_eight_b_ratio() > _best_ratio(p))),
    hints=("Evaluate sd.drafts.separate_draft_speedup over many ratios between 1e-4 and 1 (log-spaced) "
           "and take the best.",),
    mistakes=(
        Mistake("biggest-draft", lambda p: (1.0, False),
                "The largest draft has the best acceptance but costs as much as the target."),
        Mistake("anchor", lambda p: (p.ratio_ref, bool(_eight_b_ratio() > p.ratio_ref)),
                "That is the anchor of the toy curve, not the optimum of the speedup."),
    ),
))

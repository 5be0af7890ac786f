"""Exercises of the chapter "Why a decode step wastes arithmetic, and the verification pass"."""

from __future__ import annotations

import numpy as np

from specdec.acceptance import acceptance_rate
from specdec.roofline import hardware as hw
from specdec.verification import sampling as sm

from .._chapters import Chapter
from .._forms import Float, Letter, Seq
from .._registry import Exercise, Mistake, pick, register

CHAPTER = Chapter("book/part2-cost-accounting/01-verification-pass",
                  "Why a decode step wastes arithmetic, and the verification pass")

#: The pair of exercises verification-pass-1 and -2 (target p, draft q over five tokens).
P = np.array([0.40, 0.25, 0.20, 0.10, 0.05])
Q = np.array([0.20, 0.40, 0.20, 0.00, 0.20])


def _vary_pair(rng):
    """Two distributions over five tokens in steps of 0.01; the draft misses one token, and they differ."""
    while True:
        p = rng.multinomial(100, rng.dirichlet(np.full(5, 2.0))) / 100
        q = rng.multinomial(100, rng.dirichlet(np.full(5, 1.0))) / 100
        if (p > 0).all() and (q == 0).any() and 0.3 <= np.minimum(p, q).sum() <= 0.9:
            return {"P": tuple(float(x) for x in p), "Q": tuple(float(x) for x in q)}


def _arrays(p):
    return np.asarray(p.P, dtype=float), np.asarray(p.Q, dtype=float)


def _unweighted_ratio(p):
    # averaging min(1, p/q) over the vocabulary instead of over draws from q
    target, draft = _arrays(p)
    with np.errstate(divide="ignore"):
        ratio = np.where(draft > 0, np.minimum(1.0, target / np.where(draft > 0, draft, 1.0)), 1.0)
    return float(ratio.mean())


_PAIR = {"P": tuple(float(x) for x in P), "Q": tuple(float(x) for x in Q)}
_PAIR_STATEMENT = "The target assigns $p = ({{P}})$ to five tokens and the draft $q = ({{Q}})$."

register(Exercise(
    label="verification-pass-1",
    chapter=CHAPTER,
    question=("For the target p = course.p2_verification_pass.P and the draft q = ...Q, what is the "
              "probability that one draft token is accepted?"),
    statement=_PAIR_STATEMENT + " What is the probability that one draft token is accepted?",
    params=_PAIR,
    vary=_vary_pair,
    answer=Float("a probability", decimals=2),
    reference=lambda p: float(acceptance_rate(*_arrays(p))),
    hints=("A draft token x is proposed with probability q(x) and kept with probability min(1, p(x)/q(x)); "
           "sum the product over x.",),
    mistakes=(
        Mistake("rejection", lambda p: 1.0 - float(acceptance_rate(*_arrays(p))),
                "That is the probability that the draft is rejected, not accepted."),
        Mistake("unweighted-ratio", _unweighted_ratio,
                "You averaged the acceptance ratio over the vocabulary; weight each token by how often the draft "
                "proposes it."),
    ),
))

register(Exercise(
    label="verification-pass-2",
    chapter=CHAPTER,
    question=("For the same pair, give the distribution (an array over the five tokens) that a rejected "
              "draft token is replaced from."),
    statement=_PAIR_STATEMENT + (" Give the distribution (an array over the five tokens) that a rejected draft "
                                 "token is replaced from."),
    params=_PAIR,
    vary=_vary_pair,
    answer=Seq((Float("probabilities", decimals=3),) * 5, array=True),
    reference=lambda p: sm.residual_distribution(*_arrays(p)),
    hints=("Only tokens the draft under-proposes (p > q) can be needed after a rejection; normalize what is left.",),
    mistakes=(
        Mistake("unnormalized", lambda p: np.maximum(_arrays(p)[0] - _arrays(p)[1], 0.0),
                "Right shape, but it does not sum to 1: normalize it."),
        Mistake("from-target", lambda p: _arrays(p)[0],
                "Drawing the replacement from p double-counts the tokens the draft already proposes; that is a "
                "real bug."),
        Mistake("raw-difference", lambda p: _arrays(p)[0] - _arrays(p)[1],
                "A probability cannot be negative: only the positive part of the difference is kept."),
    ),
))

register(Exercise(
    label="verification-pass-3",
    chapter=CHAPTER,
    question="Why do speculative sampling's emitted tokens follow the target distribution exactly?",
    answer=Letter("ABCD"),
    choices={
        "A": ("Because for every token x, P(emit x) = min(p(x), q(x)) + P(reject) * r(x), and the residual r is "
              "chosen so that this sum equals p(x)."),
        "B": "Because the draft model is trained to imitate the target, so its samples are already close to p.",
        "C": "Because the target model re-samples every position from p and the draft tokens are only a hint.",
        "D": "Because a rejected draft is re-drawn from the draft until one is accepted.",
    },
    reference=lambda p: "A",
    hints=("Write down the probability of emitting a given token x: through acceptance, and through a rejection "
           "followed by a replacement.",),
    mistakes=(
        Mistake("closeness", lambda p: "B",
                "How close the draft is changes how often drafts are accepted (the speed), not which distribution "
                "comes out."),
        Mistake("resample", lambda p: "C",
                "If the target re-sampled every position, no draft token would ever be kept and nothing would be "
                "saved."),
        Mistake("redraw-draft", lambda p: "D",
                "Redrawing from the draft until acceptance is rejection sampling of a different kind; follow what "
                "happens after one rejection."),
    ),
))

#: Presets of verification-pass-4's variants: attribute name in sd.hardware -> what the statement calls it.
_MODELS = {"LLAMA_70B": "Llama 3.1 70B", "LLAMA_8B": "Llama 3.1 8B"}
_GPUS = {"H100": "H100 SXM", "A100": "A100 80GB SXM"}


def _utilization(p, flops_per_param=2.0, gpus=None):
    model, gpu = getattr(hw, p.model), getattr(hw, p.gpu + "_IDEAL").scaled(p.n_gpus if gpus is None else gpus)
    return float(hw.utilization(model, gpu, p.batch)) * flops_per_param / 2.0


register(Exercise(
    label="verification-pass-4",
    chapter=CHAPTER,
    question=("Llama 3.1 70B in bf16 decodes one sequence on 4 A100 80GB SXM GPUs. What fraction of the group's "
              "peak FLOP/s does one decode step use (ideal roofline, the lower bound)?"),
    statement=("{{model_name}} in bf16 decodes a batch of {{batch}} on {{n_gpus}} {{gpu_name}} GPUs "
               "(`sd.hardware.{{model}}`, `sd.hardware.{{gpu}}_IDEAL.scaled({{n_gpus}})`). Using the ideal roofline (the lower bound), what "
               "fraction of the group's peak FLOP/s does one decode step use? Compute it from the weight bytes, the "
               "bandwidth and $2N$ FLOPs per token."),
    params={"model": "LLAMA_70B", "model_name": "Llama 3.1 70B", "gpu": "A100", "gpu_name": "A100 80GB SXM",
            "n_gpus": 4, "batch": 1},
    vary=lambda rng: (lambda model, gpu: {"model": model, "model_name": _MODELS[model], "gpu": gpu,
                                          "gpu_name": _GPUS[gpu], "n_gpus": int(pick(rng, (1, 2, 4, 8))),
                                          "batch": int(rng.integers(1, 33))})(
        pick(rng, tuple(_MODELS)), pick(rng, tuple(_GPUS))),
    answer=Float("a fraction of the peak, not a percentage", sig=2),
    reference=_utilization,
    hints=("The step time is the weight read, weight_bytes / bandwidth; the work is 2 FLOPs per parameter "
           "for each token of the batch.",),
    mistakes=(
        Mistake("one-flop-per-parameter", lambda p: _utilization(p, flops_per_param=1.0),
                "Count a multiply and an add per parameter per token."),
        Mistake("one-gpu-flops", lambda p: _utilization(p, gpus=1) * p.n_gpus,
                "The group has all its GPUs' arithmetic as well as all their bandwidth."),
    ),
))

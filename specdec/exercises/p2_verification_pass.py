"""Exercises of Part II, chapter 1: "Why a decode step wastes arithmetic, and the verification pass"."""

from __future__ import annotations

import numpy as np

from .. import hardware as hw
from .. import sampling as sm
from ..acceptance import acceptance_rate
from ._registry import Exercise, Mistake, register

CHAPTER = "Part II · 1 Why a decode step wastes arithmetic, and the verification pass"

#: The pair of exercises verification-pass-1 and -2 (target p, draft q over five tokens).
P = np.array([0.40, 0.25, 0.20, 0.10, 0.05])
Q = np.array([0.20, 0.40, 0.20, 0.00, 0.20])


def _unweighted_ratio():
    # averaging min(1, p/q) over the vocabulary instead of over draws from q
    with np.errstate(divide="ignore"):
        ratio = np.where(Q > 0, np.minimum(1.0, P / np.where(Q > 0, Q, 1.0)), 1.0)
    return float(ratio.mean())


register(Exercise(
    label="verification-pass-1",
    chapter=CHAPTER,
    question=("For the target p = sd.exercises.p2_verification_pass.P and the draft q = ...Q, what is the "
              "probability that one draft token is accepted?"),
    kind="numeric",
    reference=lambda: acceptance_rate(P, Q),
    hints=("A draft token x is proposed with probability q(x) and kept with probability min(1, p(x)/q(x)); "
           "sum the product over x.",),
    rtol=1e-9,
    atol=1e-12,
    mistakes=(
        Mistake("rejection", lambda: 1.0 - acceptance_rate(P, Q),
                "That is the probability that the draft is rejected, not accepted."),
        Mistake("unweighted-ratio", _unweighted_ratio,
                "You averaged the acceptance ratio over the vocabulary; weight each token by how often the draft proposes it."),
    ),
))


register(Exercise(
    label="verification-pass-2",
    chapter=CHAPTER,
    question=("For the same pair, give the distribution (an array over the five tokens) that a rejected "
              "draft token is replaced from."),
    kind="numeric",
    reference=lambda: sm.residual_distribution(P, Q),
    hints=("Only tokens the draft under-proposes (p > q) can be needed after a rejection; normalize what is left.",),
    rtol=1e-9,
    atol=1e-12,
    mistakes=(
        Mistake("unnormalized", lambda: np.maximum(P - Q, 0.0),
                "Right shape, but it does not sum to 1: normalize it."),
        Mistake("from-target", lambda: P.copy(),
                "Drawing the replacement from p double-counts the tokens the draft already proposes; that is a real bug."),
        Mistake("raw-difference", lambda: P - Q,
                "A probability cannot be negative: only the positive part of the difference is kept."),
    ),
))


register(Exercise(
    label="verification-pass-3",
    chapter=CHAPTER,
    question="Why do speculative sampling's emitted tokens follow the target distribution exactly?",
    kind="choice",
    choices={
        "A": "Because the draft model is trained to imitate the target, so its samples are already close to p.",
        "B": ("Because for every token x, P(emit x) = min(p(x), q(x)) + P(reject) * r(x), and the residual r is "
              "chosen so that this sum equals p(x)."),
        "C": "Because the target model re-samples every position from p and the draft tokens are only a hint.",
        "D": "Because a rejected draft is re-drawn from the draft until one is accepted.",
    },
    reference=lambda: "B",
    hints=("Write down the probability of emitting a given token x: through acceptance, and through a rejection "
           "followed by a replacement.",),
    mistakes=(
        Mistake("closeness", lambda: "A",
                "How close the draft is changes how often drafts are accepted (the speed), not which distribution comes out."),
        Mistake("resample", lambda: "C",
                "If the target re-sampled every position, no draft token would ever be kept and nothing would be saved."),
        Mistake("redraw-draft", lambda: "D",
                "Redrawing from the draft until acceptance is rejection sampling of a different kind; follow what happens after one rejection."),
    ),
))


def _utilization():
    return hw.utilization(hw.LLAMA_70B, hw.H100.scaled(8), batch=1)


register(Exercise(
    label="verification-pass-4",
    chapter=CHAPTER,
    question=("Llama 3.1 70B in bf16 decodes one sequence on 8 H100 SXM GPUs (sd.hardware.LLAMA_70B, "
              "sd.hardware.H100.scaled(8)). What fraction of the group's peak FLOP/s does one decode step use "
              "(roofline model)?"),
    kind="numeric",
    reference=_utilization,
    hints=("The step time is the weight read, weight_bytes / bandwidth; the work is 2 FLOPs per parameter "
           "for one token.",),
    rtol=1e-3,
    mistakes=(
        Mistake("one-flop-per-parameter", lambda: _utilization() / 2,
                "Count a multiply and an add per parameter per token."),
        Mistake("one-gpu-flops", lambda: _utilization() * 8,
                "The group has eight GPUs' arithmetic as well as eight GPUs' bandwidth."),
    ),
))

"""Exercises of Part IV, chapter 3: "Verification rules"."""

from __future__ import annotations

import numpy as np

from .. import sampling, synthetic, verification
from ._registry import Exercise, Mistake, register

CHAPTER = "Part IV · 3 Verification rules"

_P = np.array([0.5, 0.3, 0.15, 0.05])
_Q = np.full(4, 0.25)

register(Exercise(
    label="verification-rules-1",
    chapter=CHAPTER,
    question=("Target p = [0.5, 0.3, 0.15, 0.05], draft q uniform over the four tokens: with rejection sampling, "
              "what is the probability that the draft token is accepted?"),
    kind="numeric",
    reference=lambda: float(verification.acceptance_probability(_P, _Q, "rejection")),
    hints=("A proposed x is kept with probability min(1, p(x) / q(x)); average over x ~ q.",),
    rtol=1e-9,
    mistakes=(
        Mistake("sampled-match", lambda: float(verification.acceptance_probability(_P, _Q, "sampled-match")),
                "That is the chance that the draft's token equals an independent sample of the target."),
    ),
))

register(Exercise(
    label="verification-rules-2",
    chapter=CHAPTER,
    question=("An n-gram draft proposes token 1 deterministically and the target is p = [0.5, 0.3, 0.15, 0.05]. "
              "If the proposal is rejected, from which distribution is the replacement token drawn? Answer the "
              "array of four probabilities."),
    kind="numeric",
    reference=lambda: verification.one_hot_residual(_P, 1),
    hints=("The residual is norm(max(p - q, 0)) with q one-hot at the proposed token.",),
    rtol=1e-9,
    mistakes=(
        Mistake("target", lambda: _P.copy(), "Drawing from p itself would emit the rejected token too often."),
        Mistake("unnormalized", lambda: np.where(np.arange(4) == 1, 0.0, _P),
                "The residual must be renormalized to sum to 1."),
    ),
))

_PT = np.array([0.6, 0.2, 0.1, 0.05, 0.05])
_QT = np.full(5, 0.2)


def _typical():
    acc = float(verification.acceptance_probability(_PT, _QT, "typical"))
    tv = float(sampling.total_variation(_PT, verification.emitted_distribution(_PT, _QT, "typical")))
    return (acc, tv)


register(Exercise(
    label="verification-rules-3",
    chapter=CHAPTER,
    question=("Typical acceptance with Medusa's defaults (epsilon 0.09, delta 0.3), target p = [0.6, 0.2, 0.1, "
              "0.05, 0.05], a uniform draft over the five tokens, and a fresh target sample after a rejection: the "
              "probability that the draft token is accepted, and the total-variation distance between the emitted "
              "token's distribution and p. Answer the tuple (acceptance, distance)."),
    kind="numeric",
    reference=_typical,
    hints=("sd.verification.acceptance_probability(..., 'typical') and emitted_distribution(..., 'typical'); "
           "sd.sampling.total_variation compares two distributions.",),
    rtol=1e-6,
    mistakes=(
        Mistake("exact", lambda: (_typical()[0], 0.0), "Typical acceptance does not emit tokens that follow p."),
        Mistake("swapped", lambda: tuple(reversed(_typical())), "The tuple is (acceptance, distance)."),
    ),
))


def _temperature_pair():
    t, d = synthetic.synthetic_logit_pair("peaked", vocab=500, n_contexts=128, noise=2.0, rng=7)
    return (float(verification.mean_acceptance(t, d, 1.0, "rejection")),
            float(verification.mean_acceptance(t, d, 1.0, "one-hot")))


register(Exercise(
    label="verification-rules-4",
    chapter=CHAPTER,
    question=("sd.synthetic.synthetic_logit_pair('peaked', vocab=500, n_contexts=128, noise=2.0, rng=7) at "
              "temperature 1: the mean acceptance when the draft samples (sum of min(p, q)) and when it proposes "
              "its greedy token as vLLM does by default. Answer the tuple (sampled, greedy)."),
    kind="numeric",
    reference=_temperature_pair,
    hints=("sd.verification.mean_acceptance(target_logits, draft_logits, temperature, rule) with rule "
           "'rejection' and 'one-hot'.",),
    rtol=1e-6,
    mistakes=(
        Mistake("swapped", lambda: tuple(reversed(_temperature_pair())), "The tuple is (sampled, greedy)."),
    ),
))

register(Exercise(
    label="verification-rules-5",
    chapter=CHAPTER,
    question="Which verification rules emit tokens that follow the target's distribution exactly?",
    kind="choice",
    choices={
        "A": "Rejection sampling and its one-hot form; typical acceptance too, since it only accepts plausible tokens.",
        "B": ("Rejection sampling, its one-hot form (n-gram and greedy drafts) and accepting a draft token that "
              "equals the target's own sample; greedy token match reproduces greedy decoding; typical acceptance "
              "is lossy."),
        "C": "Only rejection sampling with the draft's full probabilities; one-hot drafts bias the output.",
        "D": "All of them, because a rejected draft token is always replaced by the target's token.",
    },
    reference=lambda: "B",
    hints=("Compute each rule's emitted distribution with sd.verification.emitted_distribution and compare it "
           "with p.",),
    mistakes=(
        Mistake("typical-exact", lambda: "A", "Typical acceptance's emitted distribution is not p (check it)."),
        Mistake("one-hot-biased", lambda: "C", "The one-hot residual is p without the rejected token: exact."),
        Mistake("all", lambda: "D", "The replacement's distribution matters: it must correct for what was accepted."),
    ),
))

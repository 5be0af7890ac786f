"""Exercises of the chapter "Verification rules"."""

from __future__ import annotations

import numpy as np

from specdec import verification
from specdec.verification import sampling, synthetic

from .._chapters import Chapter
from .._forms import Float, Letter, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part4-engines/03-verification-rules", "Verification rules")


def _distribution(rng, n):
    """A distribution over ``n`` tokens in hundredths (each at least 0.01), largest first (for variants)."""
    cuts = np.sort(rng.choice(np.arange(1, 100), n - 1, replace=False))
    parts = np.diff(np.concatenate(([0], cuts, [100])))
    return tuple(round(float(x) / 100, 2) for x in sorted(parts, reverse=True))


# 1. Rejection sampling's acceptance probability.
def _accept(p, rule="rejection"):
    return float(verification.acceptance_probability(np.array(p.p), np.full(len(p.p), 1 / len(p.p)), rule))


register(Exercise(
    label="verification-rules-1",
    chapter=CHAPTER,
    question=("Target p = [0.58, 0.24, 0.11, 0.07], draft q uniform over the four tokens: with rejection sampling, "
              "what is the probability that the draft token is accepted?"),
    statement=("Target $p = [{{p}}]$ and a draft $q$ uniform over the {{n}} tokens: with rejection sampling, what is "
               "the probability that the draft token is accepted?"),
    params={"p": (0.58, 0.24, 0.11, 0.07), "n": 4},
    vary=lambda rng: (lambda n: {"p": _distribution(rng, n), "n": n})(int(rng.integers(3, 7))),
    answer=Float("a probability", decimals=3),
    reference=_accept,
    hints=("A proposed x is kept with probability min(1, p(x) / q(x)); average over x ~ q.",),
    mistakes=(
        Mistake("sampled-match", lambda p: _accept(p, "sampled-match"),
                "That is the chance that the draft's token equals an independent sample of the target."),
    ),
))


# 2. The replacement distribution of a one-hot (n-gram) draft.
register(Exercise(
    label="verification-rules-2",
    chapter=CHAPTER,
    question=("An n-gram draft proposes token 1 deterministically and the target is p = [0.58, 0.24, 0.11, 0.07]. "
              "If the proposal is rejected, from which distribution is the replacement token drawn? Answer the "
              "array of four probabilities."),
    statement=("An n-gram draft proposes token {{token}} (counting from 0) deterministically and the target is "
               "$p = [{{p}}]$. If the proposal is rejected, from which distribution is the replacement token drawn? "
               "Answer with the array of {{n}} probabilities."),
    params={"p": (0.58, 0.24, 0.11, 0.07), "n": 4, "token": 1},
    vary=lambda rng: (lambda n: {"p": _distribution(rng, n), "n": n, "token": int(rng.integers(0, n))})(
        int(rng.integers(3, 6))),
    answer=lambda p: Seq((Float("probabilities", decimals=3),) * p.n, array=True),
    reference=lambda p: verification.one_hot_residual(np.array(p.p), p.token),
    hints=("The residual is norm(max(p - q, 0)) with q one-hot at the proposed token.",),
    mistakes=(
        Mistake("target", lambda p: np.array(p.p), "Drawing from p itself would emit the rejected token too often."),
        Mistake("unnormalized", lambda p: np.where(np.arange(p.n) == p.token, 0.0, np.array(p.p)),
                "The residual must be renormalized to sum to 1."),
    ),
))


# 3. Typical acceptance: how often, and how far from p.
def _typical(p):
    target = np.array(p.p)
    draft = np.full(target.size, 1 / target.size)
    accept = float(verification.acceptance_probability(target, draft, "typical"))
    distance = float(sampling.total_variation(target, verification.emitted_distribution(target, draft, "typical")))
    return (accept, distance)


register(Exercise(
    label="verification-rules-3",
    chapter=CHAPTER,
    question=("Typical acceptance with Medusa's defaults (epsilon 0.09, delta 0.3), target p = [0.6, 0.2, 0.1, "
              "0.05, 0.05], a uniform draft over the five tokens, and a fresh target sample after a rejection: the "
              "probability that the draft token is accepted, and the total-variation distance between the emitted "
              "token's distribution and p. Answer the tuple (acceptance, distance)."),
    statement=("Typical acceptance with Medusa's defaults ($\\epsilon = 0.09$, $\\delta = 0.3$), target "
               "$p = [{{p}}]$, a draft uniform over the {{n}} tokens, and a fresh target sample after a rejection: "
               "what is the probability that the draft token is accepted, and the total-variation distance between "
               "the emitted token's distribution and $p$? Answer with the tuple `(acceptance, distance)`."),
    params={"p": (0.6, 0.2, 0.1, 0.05, 0.05), "n": 5},
    vary=lambda rng: (lambda n: {"p": _distribution(rng, n), "n": n})(int(rng.integers(4, 7))),
    answer=Seq((Float("a probability", decimals=3), Float("a total-variation distance", decimals=3)),
               names=("acceptance", "distance")),
    reference=_typical,
    hints=("sd.verification.acceptance_probability(..., 'typical') and emitted_distribution(..., 'typical'); "
           "sd.sampling.total_variation compares two distributions.",),
    mistakes=(
        Mistake("exact", lambda p: (_typical(p)[0], 0.0), "Typical acceptance does not emit tokens that follow p."),
        Mistake("swapped", lambda p: tuple(reversed(_typical(p))), "The tuple is (acceptance, distance)."),
    ),
))


# 4. A sampled draft token or the draft's greedy token (vLLM's default).
def _pair(p):
    target, draft = synthetic.synthetic_logit_pair(p.workload, vocab=500, n_contexts=128, noise=p.noise, rng=p.seed)
    return (float(verification.mean_acceptance(target, draft, p.temperature, "rejection")),
            float(verification.mean_acceptance(target, draft, p.temperature, "one-hot")))


register(Exercise(
    label="verification-rules-4",
    chapter=CHAPTER,
    question=("sd.synthetic.synthetic_logit_pair('peaked', vocab=500, n_contexts=128, noise=2.0, rng=7) at "
              "temperature 1: the mean acceptance when the draft samples (sum of min(p, q)) and when it proposes "
              "its greedy token as vLLM does by default. Answer the tuple (sampled, greedy)."),
    statement=("For `sd.synthetic.synthetic_logit_pair(\"{{workload}}\", vocab=500, n_contexts=128, noise={{noise}}, "
               "rng={{seed}})` at temperature {{temperature}}, what is the mean acceptance when the draft samples its "
               "token, and when it proposes its greedy token as vLLM does by default? Answer with the tuple "
               "`(sampled, greedy)`."),
    params={"workload": "peaked", "noise": 2.0, "seed": 7, "temperature": 1.0},
    vary=lambda rng: {"workload": pick(rng, ("peaked", "flat")), "noise": grid(rng, 0.5, 2.5, 0.5),
                      "seed": int(rng.integers(0, 100)), "temperature": grid(rng, 0.5, 1.2, 0.1)},
    answer=Seq((Float("a mean acceptance", decimals=3),) * 2, names=("sampled", "greedy")),
    reference=_pair,
    hints=("sd.verification.mean_acceptance(target_logits, draft_logits, temperature, rule) with rule "
           "'rejection' and 'one-hot'.",),
    mistakes=(
        Mistake("swapped", lambda p: tuple(reversed(_pair(p))), "The tuple is (sampled, greedy)."),
    ),
))

# 5. Which rules are exact.
register(Exercise(
    label="verification-rules-5",
    chapter=CHAPTER,
    question="Which verification rules emit tokens that follow the target's distribution exactly?",
    answer=Letter("ABCD"),
    choices={
        "A": "Rejection sampling and its one-hot form; typical acceptance too, since it only accepts plausible tokens.",
        "B": "Only rejection sampling with the draft's full probabilities; one-hot drafts bias the output.",
        "C": ("Rejection sampling, its one-hot form (n-gram and greedy drafts) and accepting a draft token that "
              "equals the target's own sample; greedy token match reproduces greedy decoding; typical acceptance "
              "is lossy."),
        "D": "All of them, because a rejected draft token is always replaced by the target's token.",
    },
    reference=lambda p: "C",
    hints=("Compute each rule's emitted distribution with sd.verification.emitted_distribution and compare it "
           "with p.",),
    mistakes=(
        Mistake("typical-exact", lambda p: "A", "Typical acceptance's emitted distribution is not p (check it)."),
        Mistake("one-hot-biased", lambda p: "B", "The one-hot residual is p without the rejected token: exact."),
        Mistake("all", lambda p: "D", "The replacement's distribution matters: it must correct for what was accepted."),
    ),
))

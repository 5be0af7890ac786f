"""Exercises of the chapter "The acceptance rate and the tokens it yields"."""

from __future__ import annotations

import numpy as np

from specdec import acceptance as acc
from specdec.acceptance import estimation as est
from specdec.acceptance import expected_tokens

from .._chapters import Chapter
from .._forms import Float, Letter, Seq
from .._registry import Exercise, Mistake, grid, register

CHAPTER = Chapter("book/part2-cost-accounting/02-acceptance-rate", "The acceptance rate and the tokens it yields")

#: Draft lengths of the source's worked numbers at alpha = 0.8.
SOURCE_KS = (1, 2, 4, 8)

#: A short serving log for acceptance-rate-2: accepted drafts per round at k = 4.
SHORT_LOG = np.array([4, 1, 4, 0, 3, 4, 2, 4, 4, 1])
SHORT_LOG_K = 4


register(Exercise(
    label="acceptance-rate-1",
    chapter=CHAPTER,
    question=("Expected tokens per round at alpha = 0.8 for k = 1, 2, 4, 8 (a tuple of four numbers), to compare "
              "with the source's rounded 1.8, 2.44, 3.36 and 4.33."),
    statement=("Compute the expected tokens per round at $\\alpha = {{alpha}}$ for $k$ = {{ks}} (a tuple of four "
               "numbers)."),
    params={"alpha": 0.8, "ks": SOURCE_KS},
    vary=lambda rng: {"alpha": grid(rng, 0.6, 0.9, 0.05),
                      "ks": tuple(int(k) for k in np.sort(rng.choice(np.arange(1, 11), 4, replace=False)))},
    answer=Seq((Float("tokens per round", decimals=4),) * 4),
    shows_value=True,  # the chapter computes this table; the exercise is to reproduce it
    reference=lambda p: tuple(float(expected_tokens(p.alpha, k)) for k in p.ks),
    hints=("E[L] = 1 + alpha + ... + alpha**k: the target always adds one token of its own.",),
    mistakes=(
        Mistake("no-bonus", lambda p: tuple(float(expected_tokens(p.alpha, k)) - 1 for k in p.ks),
                "Those are the accepted drafts only; every round also emits the target's own token."),
        Mistake("linear", lambda p: tuple(1 + p.alpha * k for k in p.ks),
                "Draft i is only emitted if drafts 1 .. i-1 were accepted too: the probabilities multiply."),
    ),
))


def _estimate(p):
    return est.estimate_alpha(np.asarray(p.log), p.k)


def _answer_2(p, alpha=None, width_factor=1.0):
    fit = _estimate(p)
    if fit.stops == 0 or fit.accepted == 0:
        raise ValueError("the log needs at least one acceptance and one rejection")
    return (float(fit.alpha) if alpha is None else alpha, float(fit.high - fit.low) * width_factor)


def _vary_log(rng):
    k = int(rng.integers(3, 7))
    alpha = grid(rng, 0.5, 0.9, 0.05)
    # accepted drafts per round: the first rejection ends the round, k accepted at most
    counts = np.minimum(rng.geometric(1 - alpha, size=10) - 1, k)
    return {"k": k, "log": tuple(int(c) for c in counts)}


register(Exercise(
    label="acceptance-rate-2",
    chapter=CHAPTER,
    question=("A serving log records the accepted drafts of ten rounds at k = 4: "
              "course.p2_acceptance_rate.SHORT_LOG. Estimate alpha by maximum likelihood, and give the width "
              "of its 95% interval."),
    statement=("A log records the accepted drafts of ten rounds at $k = {{k}}$: {{log}}. Estimate $\\alpha$ by "
               "maximum likelihood, by hand and then with `sd.estimation.estimate_alpha`, and give the width "
               "(high minus low) of its 95% interval. Answer with the tuple `(alpha, width)`."),
    params={"k": SHORT_LOG_K, "log": tuple(int(c) for c in SHORT_LOG)},
    vary=_vary_log,
    answer=Seq((Float("an acceptance rate", decimals=3), Float("the interval high minus low", decimals=2)),
               names=("alpha", "width")),
    reference=_answer_2,
    hints=("Every accepted draft is a success; a round that stopped before k ended with exactly one rejection, "
           "and a round with all k accepted saw none. The interval comes with the estimate.",),
    mistakes=(
        Mistake("accepted-over-drafted", lambda p: _answer_2(p, alpha=sum(p.log) / (p.k * len(p.log))),
                "That is accepted / drafted, the engine's metric: drafts after a rejection never had a chance."),
        Mistake("failure-every-round", lambda p: _answer_2(p, alpha=sum(p.log) / (sum(p.log) + len(p.log))),
                "A round in which all k drafts were accepted did not end with a rejection."),
        Mistake("half-width", lambda p: _answer_2(p, width_factor=0.5),
                "That is the half-width; the width is the high end minus the low end."),
    ),
))


register(Exercise(
    label="acceptance-rate-3",
    chapter=CHAPTER,
    question=("An engine running k = 4 prints a draft acceptance rate (accepted / drafted) of 0.48. "
              "What per-position alpha does that correspond to?"),
    statement=("An engine running $k = {{k}}$ prints a draft acceptance rate (accepted / drafted) of {{rate}}. "
               "What per-position $\\alpha$ does it correspond to?"),
    params={"k": 4, "rate": 0.48},
    vary=lambda rng: {"k": int(rng.integers(2, 9)), "rate": grid(rng, 0.3, 0.8, 0.05)},
    answer=Float("an acceptance rate", decimals=3),
    reference=lambda p: float(acc.alpha_from_draft_acceptance_rate(p.rate, p.k)),
    hints=("accepted / drafted = (E[L] - 1) / k; solve for alpha (sd.acceptance has the inverse).",),
    mistakes=(
        Mistake("rate-is-alpha", lambda p: p.rate,
                "accepted / drafted is not alpha for k > 1: it counts drafts that were never checked."),
        Mistake("forgot-plus-one", lambda p: float(acc.alpha_from_mean_acceptance_length(p.rate * p.k, p.k)),
                "rate x k is the mean number of accepted drafts; the tokens per round also include the target's "
                "token."),
    ),
))


register(Exercise(
    label="acceptance-rate-4",
    chapter=CHAPTER,
    question=("A team measured alpha = 0.82 for a draft/target pair on code at temperature 0 and plans a chat "
              "product that samples prose at temperature 1. Which statement is right?"),
    answer=Letter("ABCD"),
    choices={
        "A": "Use 0.82: the acceptance rate is a property of the model pair.",
        "B": "Acceptance always rises with temperature, so 0.82 is a safe lower bound.",
        "C": ("Re-measure on the new workload and temperature: alpha depends on the text and on how the draft's "
              "distribution differs from the target's there, and it can move either way with temperature."),
        "D": "Acceptance always falls with temperature, so 0.82 is a safe upper bound and planning with it is "
             "conservative.",
    },
    reference=lambda p: "C",
    hints=("alpha = sum(min(p, q)) is computed from the two distributions on the text being generated.",),
    mistakes=(
        Mistake("pair-property", lambda p: "A",
                "The same pair accepts at very different rates on peaked and flat text."),
        Mistake("always-falls", lambda p: "D",
                "The chapter's figure shows a case where acceptance rises with temperature; and an upper bound is "
                "not a conservative plan."),
        Mistake("always-rises", lambda p: "B",
                "The chapter's figure shows cases where acceptance falls with temperature."),
    ),
))

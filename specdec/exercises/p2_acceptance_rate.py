"""Exercises of Part II, chapter 2: "The acceptance rate and the tokens it yields"."""

from __future__ import annotations

import numpy as np

from .. import acceptance as acc
from .. import estimation as est
from ..acceptance import expected_tokens
from ._registry import Exercise, Mistake, register

CHAPTER = "Part II · 2 The acceptance rate and the tokens it yields"

#: Draft lengths of the source's worked numbers at alpha = 0.8.
SOURCE_KS = (1, 2, 4, 8)

#: A short serving log for acceptance-rate-2: accepted drafts per round at k = 4.
SHORT_LOG = np.array([4, 1, 4, 0, 3, 4, 2, 4, 4, 1])
SHORT_LOG_K = 4


register(Exercise(
    label="acceptance-rate-1",
    chapter=CHAPTER,
    question="Expected tokens per round at alpha = 0.8 for k = 1, 2, 4, 8 (a tuple of four numbers).",
    kind="numeric",
    reference=lambda: tuple(expected_tokens(0.8, k) for k in SOURCE_KS),
    hints=("E[L] = 1 + alpha + ... + alpha**k: the target always adds one token of its own.",),
    rtol=1e-6,
    mistakes=(
        Mistake("no-bonus", lambda: tuple(expected_tokens(0.8, k) - 1 for k in SOURCE_KS),
                "Those are the accepted drafts only; every round also emits the target's own token."),
        Mistake("linear", lambda: tuple(1 + 0.8 * k for k in SOURCE_KS),
                "Draft i is only emitted if drafts 1 .. i-1 were accepted too: the probabilities multiply."),
    ),
))


def _log_mle():
    return est.estimate_alpha(SHORT_LOG, SHORT_LOG_K).alpha


register(Exercise(
    label="acceptance-rate-2",
    chapter=CHAPTER,
    question=("A serving log records the accepted drafts of ten rounds at k = 4: "
              "sd.exercises.p2_acceptance_rate.SHORT_LOG. Estimate alpha by maximum likelihood."),
    kind="numeric",
    reference=_log_mle,
    hints=("Every accepted draft is a success; a round that stopped before k ended with exactly one rejection, "
           "and a round with all k accepted saw none.",),
    rtol=1e-9,
    mistakes=(
        Mistake("accepted-over-drafted", lambda: SHORT_LOG.sum() / (SHORT_LOG_K * SHORT_LOG.size),
                "That is accepted / drafted, the engine's metric: drafts after a rejection never had a chance."),
        Mistake("failure-every-round", lambda: SHORT_LOG.sum() / (SHORT_LOG.sum() + SHORT_LOG.size),
                "A round in which all k drafts were accepted did not end with a rejection."),
    ),
))


register(Exercise(
    label="acceptance-rate-3",
    chapter=CHAPTER,
    question=("An engine running k = 5 prints a draft acceptance rate (accepted / drafted) of 0.55. "
              "What per-position alpha does that correspond to?"),
    kind="numeric",
    reference=lambda: acc.alpha_from_draft_acceptance_rate(0.55, 5),
    hints=("accepted / drafted = (E[L] - 1) / k; solve for alpha (sd.sampling has the inverse).",),
    rtol=1e-6,
    mistakes=(
        Mistake("rate-is-alpha", lambda: 0.55,
                "accepted / drafted is not alpha for k > 1: it counts drafts that were never checked."),
        Mistake("forgot-plus-one", lambda: acc.alpha_from_mean_acceptance_length(0.55 * 5, 5),
                "0.55 x 5 is the mean number of accepted drafts; the tokens per round also include the target's token."),
    ),
))


register(Exercise(
    label="acceptance-rate-4",
    chapter=CHAPTER,
    question=("A team measured alpha = 0.82 for a draft/target pair on code at temperature 0 and plans a chat "
              "product that samples prose at temperature 1. Which statement is right?"),
    kind="choice",
    choices={
        "A": "Use 0.82: the acceptance rate is a property of the model pair.",
        "B": ("Re-measure on the new workload and temperature: alpha depends on the text and on how the draft's "
              "distribution differs from the target's there, and it can move either way with temperature."),
        "C": "Acceptance always rises with temperature, so 0.82 is a safe lower bound.",
        "D": "Acceptance always falls with temperature, so 0.82 is a safe upper bound and planning with it is conservative.",
    },
    reference=lambda: "B",
    hints=("alpha = sum(min(p, q)) is computed from the two distributions on the text being generated.",),
    mistakes=(
        Mistake("pair-property", lambda: "A",
                "The same pair accepts at very different rates on peaked and flat text."),
        Mistake("always-falls", lambda: "D",
                "The chapter's figure shows a case where acceptance rises with temperature; and an upper bound is not a conservative plan."),
        Mistake("always-rises", lambda: "C",
                "The chapter's figure shows cases where acceptance falls with temperature."),
    ),
))

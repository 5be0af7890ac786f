"""Exercises of Part III, chapter 3: "What serving engines print"."""

from __future__ import annotations

from .. import economics
from ..acceptance import alpha_from_draft_acceptance_rate, alpha_from_mean_acceptance_length
from ..estimation import read_engine_counters
from ._registry import Exercise, Mistake, register

CHAPTER = "Part III · 3 What serving engines print"

#: The engine counters of exercises serving-metrics-3 and -4 (rounds, drafted, accepted) and the costs.
COUNTERS = (12_000, 48_000, 25_200)
C_DRAFT, C_VERIFY = 0.04, 1.1


register(Exercise(
    label="serving-metrics-1",
    chapter=CHAPTER,
    question="An engine drafting k = 5 tokens per round prints a draft acceptance rate of 0.55. What is alpha?",
    kind="numeric",
    reference=lambda: alpha_from_draft_acceptance_rate(0.55, 5),
    hints=("The rate is accepted drafts over drafted tokens, (E[L] - 1) / k; drafts after a rejection count as "
           "drafted although they never had a chance.",),
    rtol=1e-3,
    mistakes=(
        Mistake("rate-is-alpha", lambda: 0.55,
                "The printed rate is not alpha: it also counts the drafts discarded after the first rejection."),
        Mistake("rate-as-length", lambda: alpha_from_mean_acceptance_length(1.0 + 0.55, 5),
                "You treated the rate as accepted drafts per round; it is accepted drafts per drafted token."),
    ),
))


register(Exercise(
    label="serving-metrics-2",
    chapter=CHAPTER,
    question=("An engine drafting k = 3 tokens per round prints a mean acceptance length of 2.8, counting the bonus "
              "token (1 + accepted / rounds). What is alpha?"),
    kind="numeric",
    reference=lambda: alpha_from_mean_acceptance_length(2.8, 3),
    hints=("Solve E[L](alpha, 3) = 2.8 for alpha (E[L] includes the target's token).",),
    rtol=1e-3,
    mistakes=(
        Mistake("as-without-bonus", lambda: alpha_from_mean_acceptance_length(2.8, 3, include_bonus=False),
                "You read 2.8 as accepted drafts per round; this engine's length already includes the target's token."),
        Mistake("naive-fraction", lambda: (2.8 - 1.0) / 3,
                "(length - 1) / k is the draft acceptance rate, not alpha."),
    ),
))


def _reading():
    return read_engine_counters(*COUNTERS)


def _ref_speedup_same_k():
    r = _reading()
    return r.mean_acceptance_length / (r.k * C_DRAFT + C_VERIFY)


register(Exercise(
    label="serving-metrics-3",
    chapter=CHAPTER,
    question=("Over a window an engine counts 12,000 rounds, 48,000 drafted tokens and 25,200 accepted drafts. With "
              "c_draft = 0.04 and c_verify = 1.1, what speedup does the cost model predict at the same k?"),
    kind="numeric",
    reference=_ref_speedup_same_k,
    hints=("k is drafted / rounds; E[L] is 1 + accepted / rounds; speedup = E[L] / (k c_draft + c_verify).",),
    rtol=1e-3,
    mistakes=(
        Mistake("no-bonus", lambda: (_reading().accepted_per_round) / (_reading().k * C_DRAFT + C_VERIFY),
                "Your tokens per round leave out the target's own token."),
        Mistake("rate-as-alpha", lambda: economics.speedup_from_costs(_reading().draft_acceptance_rate, _reading().k,
                                                                      C_DRAFT, C_VERIFY),
                "You used the draft acceptance rate as alpha; at the same k you do not need alpha at all."),
    ),
))


def _ref_speedup_k6():
    r = _reading()
    return economics.speedup_from_costs(r.alpha, 6, C_DRAFT, C_VERIFY)


register(Exercise(
    label="serving-metrics-4",
    chapter=CHAPTER,
    question=("With the same counters and costs as serving-metrics-3 (and c_verify still 1.1), what speedup does the "
              "i.i.d. model predict if the engine drafted k = 6 tokens per round instead?"),
    kind="numeric",
    reference=_ref_speedup_k6,
    hints=("First convert the counters to alpha at the k they were measured with, then evaluate the speedup at k = 6.",),
    rtol=1e-3,
    mistakes=(
        Mistake("rate-as-alpha", lambda: economics.speedup_from_costs(_reading().draft_acceptance_rate, 6, C_DRAFT,
                                                                      C_VERIFY),
                "You used the draft acceptance rate as alpha; convert it first, it depends on the k it was measured at."),
        Mistake("kept-length", lambda: _reading().mean_acceptance_length / (6 * C_DRAFT + C_VERIFY),
                "You kept the measured tokens per round; with more drafts per round E[L] changes too."),
    ),
))

"""Exercises of Part I, chapter 1: "Expected tokens per round".

Every expected answer is computed with ``specdec`` when an answer is
checked; every typical mistake is computed too (never typed).
"""

from __future__ import annotations

import numpy as np

from .. import acceptance
from ._registry import Exercise, Mistake, register

CHAPTER = "Part I · 1 Expected tokens per round"


def _tail_sum(alpha, k_low, k_high):
    """E[L](alpha, k_high) - E[L](alpha, k_low), through specdec."""
    return acceptance.expected_tokens(alpha, k_high) - acceptance.expected_tokens(alpha, k_low)


# 1. The source's self-check item: expected tokens for alpha = 0.75, k = 5.
register(Exercise(
    label="expected-tokens-1",
    chapter=CHAPTER,
    question="How many tokens does one speculative round emit on average when alpha = 0.75 and k = 5?",
    kind="numeric",
    reference=lambda: acceptance.expected_tokens(0.75, 5),
    hints=("Count the accepted drafts (each survives with probability alpha until the first rejection), "
           "then add the one token the target always contributes.",),
    rtol=1e-3,
    mistakes=(
        Mistake("forgot-bonus", lambda: acceptance.expected_tokens(0.75, 5) - 1.0,
                "That counts only the accepted drafts: every round also emits one token from the target."),
        Mistake("exponent-k", lambda: (1 - 0.75**5) / (1 - 0.75),
                "Check the exponent in the numerator of the closed form: the series has k + 1 terms."),
        Mistake("untruncated", lambda: 1 / (1 - 0.75),
                "That is the geometric series without an end: a round has only k drafts, so the series stops."),
    ),
))


# 2. The distribution of L (as an array over L = 1 .. k + 1).
register(Exercise(
    label="expected-tokens-2",
    chapter=CHAPTER,
    question=("For alpha = 0.75 and k = 3, give the distribution of L as an array "
              "[P(L = 1), P(L = 2), P(L = 3), P(L = 4)]."),
    kind="numeric",
    reference=lambda: acceptance.accepted_tokens_pmf(0.75, 3),
    hints=("L = n + 1 when n drafts are accepted; the last value is the probability that all k drafts survive.",),
    rtol=1e-3,
    atol=1e-9,
    mistakes=(
        Mistake("untruncated", lambda: 0.75 ** np.arange(4) * (1 - 0.75),
                "Your probabilities do not sum to 1: the last case has no rejection after it."),
        Mistake("reversed", lambda: acceptance.accepted_tokens_pmf(0.75, 3)[::-1],
                "The values are right but in the wrong order: start with P(L = 1)."),
    ),
))


# 3. Choosing k for a target number of tokens per round.
def _smallest_k(alpha, tokens, k_max=64, offset=0.0):
    ks = np.arange(1, k_max + 1)
    return int(ks[np.argmax(acceptance.expected_tokens(alpha, ks) - offset >= tokens)])


register(Exercise(
    label="expected-tokens-3",
    chapter=CHAPTER,
    question="At alpha = 0.85, what is the smallest k for which a round emits at least 4 tokens on average?",
    kind="numeric",
    reference=lambda: _smallest_k(0.85, 4.0),
    hints=("Evaluate E[L] for k = 1, 2, 3, ... (sd.expected_tokens accepts an array of k).",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("forgot-bonus", lambda: _smallest_k(0.85, 4.0, offset=1.0),
                "You counted accepted drafts only; the target's own token also counts toward the 4."),
        Mistake("one-short", lambda: _smallest_k(0.85, 4.0) - 1,
                "At that k the average is still just below 4 tokens."),
    ),
))


# 4. Diminishing returns.
register(Exercise(
    label="expected-tokens-4",
    chapter=CHAPTER,
    question=("At alpha = 0.9, how many extra tokens per round do you gain by drafting k = 10 "
              "instead of k = 4?"),
    kind="numeric",
    reference=lambda: _tail_sum(0.9, 4, 10),
    hints=("The draft in position i adds alpha**i tokens on average; sum the positions you add.",),
    rtol=1e-3,
    mistakes=(
        Mistake("constant-gain", lambda: 6 * 0.9**5,
                "Each extra draft adds less than the one before it (it must survive one more test)."),
        Mistake("ceiling-gain", lambda: float(10 - 4),
                "That is the gain at alpha = 1; with alpha below 1 later drafts rarely survive."),
        Mistake("off-by-one", lambda: _tail_sum(0.9, 3, 9),
                "The gain of going from k to k + 1 is alpha**(k + 1), not alpha**k: check your exponents."),
    ),
))


# 5. A function exercise: E[L] from the distribution, not the closed form.
def _reference_from_pmf(alpha, k):
    pmf = acceptance.accepted_tokens_pmf(alpha, k)
    return float((np.arange(1, k + 2) * pmf).sum())


def _cases(rng):
    fixed = [(0.8, 5), (0.5, 3), (0.95, 8), (0.0, 4), (1.0, 6)]
    drawn = [(float(a), int(k)) for a, k in zip(rng.uniform(0.0, 1.0, 8).round(3), rng.integers(1, 20, 8))]
    return fixed + drawn


register(Exercise(
    label="expected-tokens-5",
    chapter=CHAPTER,
    question=("Write a function expected_from_pmf(alpha, k) that returns E[L] by summing L times P(L) over "
              "L = 1 .. k + 1 (use sd.accepted_tokens_pmf, not the closed form)."),
    kind="function",
    reference=_reference_from_pmf,
    hints=("sd.accepted_tokens_pmf(alpha, k)[n] is the probability of n accepted drafts, i.e. of L = n + 1.",),
    rtol=1e-9,
    atol=1e-12,
    cases=_cases,
    n_visible=2,
    mistakes=(
        Mistake("weights-n", lambda alpha, k: float((np.arange(k + 1) * acceptance.accepted_tokens_pmf(alpha, k)).sum()),
                "Your weights are the accepted drafts n, not the emitted tokens L = n + 1."),
    ),
))

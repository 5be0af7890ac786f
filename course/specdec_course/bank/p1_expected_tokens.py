"""Exercises of the chapter "Expected tokens per round".

Every expected answer is computed with ``specdec`` from the exercise's inputs
when an answer is checked; every typical mistake is computed too (never typed).
"""

from __future__ import annotations

import numpy as np

from specdec import acceptance

from .._chapters import Chapter
from .._forms import Float, Function, Integer, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part1-speedup-bounds/01-expected-tokens", "Expected tokens per round")


def _tail_sum(alpha, k_low, k_high):
    """E[L](alpha, k_high) - E[L](alpha, k_low), through specdec."""
    return acceptance.expected_tokens(alpha, k_high) - acceptance.expected_tokens(alpha, k_low)


# 1. The source's self-check item: expected tokens for alpha = 0.75, k = 5.
register(Exercise(
    label="expected-tokens-1",
    chapter=CHAPTER,
    question="How many tokens does one speculative round emit on average when alpha = 0.75 and k = 5?",
    statement="How many tokens does one speculative round emit on average when $\\alpha = {{alpha}}$ and $k = {{k}}$?",
    params={"alpha": 0.75, "k": 5},
    vary=lambda rng: {"alpha": grid(rng, 0.55, 0.95, 0.05), "k": int(rng.integers(2, 9))},
    answer=Float("tokens per round", decimals=2),
    reference=lambda p: acceptance.expected_tokens(p.alpha, p.k),
    hints=("Count the accepted drafts (each survives with probability alpha until the first rejection), "
           "then add the one token the target always contributes.",),
    mistakes=(
        Mistake("forgot-bonus", lambda p: acceptance.expected_tokens(p.alpha, p.k) - 1.0,
                "That counts only the accepted drafts: every round also emits one token from the target."),
        Mistake("exponent-k", lambda p: (1 - p.alpha**p.k) / (1 - p.alpha),
                "Check the exponent in the numerator of the closed form: the series has k + 1 terms."),
        Mistake("untruncated", lambda p: 1 / (1 - p.alpha),
                "That is the geometric series without an end: a round has only k drafts, so the series stops."),
    ),
))


# 2. The distribution of L (as an array over L = 1 .. k + 1) and its most likely value.
def _mode(pmf):
    order = np.argsort(pmf)
    if abs(pmf[order[-1]] - pmf[order[-2]]) < 1e-6:
        raise ValueError("two values of L are equally likely")
    return int(order[-1]) + 1


def _pmf_and_mode(p, pmf=None):
    pmf = acceptance.accepted_tokens_pmf(p.alpha, p.k) if pmf is None else pmf
    return (pmf, _mode(acceptance.accepted_tokens_pmf(p.alpha, p.k)))


register(Exercise(
    label="expected-tokens-2",
    chapter=CHAPTER,
    question=("For alpha = 0.75 and k = 3, give the distribution of L as an array "
              "[P(L = 1), ..., P(L = 4)] and the most likely value of L."),
    statement=("For $\\alpha = {{alpha}}$ and $k = {{k}}$, give the distribution of $L$ as an array "
               "$[P(L=1), \\dots, P(L={{k_plus_1}})]$, and the most likely value of $L$. "
               "Answer with the tuple `(distribution, most_likely)`."),
    params={"alpha": 0.75, "k": 3, "k_plus_1": 4},
    vary=lambda rng: (lambda k: {"alpha": grid(rng, 0.5, 0.95, 0.01), "k": k, "k_plus_1": k + 1})(
        int(rng.integers(2, 8))),
    answer=lambda p: Seq((Seq((Float("probabilities", decimals=3),) * (p.k + 1), array=True),
                          Integer("a value of L")), names=("distribution", "most_likely")),
    reference=_pmf_and_mode,
    hints=("L = n + 1 when n drafts are accepted; the last value is the probability that all k drafts survive.",),
    mistakes=(
        Mistake("untruncated", lambda p: _pmf_and_mode(p, p.alpha ** np.arange(p.k + 1) * (1 - p.alpha)),
                "Your probabilities do not sum to 1: the last case has no rejection after it."),
        Mistake("reversed", lambda p: _pmf_and_mode(p, acceptance.accepted_tokens_pmf(p.alpha, p.k)[::-1]),
                "The values are right but in the wrong order: start with P(L = 1)."),
        Mistake("mode-as-index", lambda p: (acceptance.accepted_tokens_pmf(p.alpha, p.k), _pmf_and_mode(p)[1] - 1),
                "Your most likely value is the array index n of the largest probability; L = n + 1."),
    ),
))


# 3. Choosing k for a target number of tokens per round.
def _smallest_k(alpha, tokens, k_max=64, offset=0.0):
    ks = np.arange(1, k_max + 1)
    reached = acceptance.expected_tokens(alpha, ks) - offset >= tokens
    if not reached.any():
        raise ValueError("no k up to k_max reaches the target")
    return int(ks[np.argmax(reached)])


def _vary_3(rng):
    alpha = grid(rng, 0.7, 0.99, 0.01)
    return {"alpha": alpha, "tokens": pick(rng, [t / 2 for t in range(5, 81) if t / 2 < 0.9 / (1 - alpha)])}


register(Exercise(
    label="expected-tokens-3",
    chapter=CHAPTER,
    question="At alpha = 0.85, what is the smallest k for which a round emits at least 4 tokens on average?",
    statement=("At $\\alpha = {{alpha}}$, what is the smallest $k$ for which a round emits at least {{tokens}} "
               "tokens on average?"),
    params={"alpha": 0.85, "tokens": 4.0},
    vary=_vary_3,
    answer=Integer("a draft length k"),
    reference=lambda p: _smallest_k(p.alpha, p.tokens),
    hints=("Evaluate E[L] for k = 1, 2, 3, ... (sd.expected_tokens accepts an array of k).",),
    mistakes=(
        Mistake("forgot-bonus", lambda p: _smallest_k(p.alpha, p.tokens, offset=1.0),
                "You counted accepted drafts only; the target's own token also counts toward the target."),
        Mistake("one-short", lambda p: _smallest_k(p.alpha, p.tokens) - 1,
                "At that k the average is still just below the target."),
    ),
))


# 4. Diminishing returns.
def _vary_4(rng):
    k_low = int(rng.integers(2, 6))
    return {"alpha": grid(rng, 0.6, 0.95, 0.05), "k_low": k_low, "k_high": k_low + int(rng.integers(3, 9))}


register(Exercise(
    label="expected-tokens-4",
    chapter=CHAPTER,
    question=("At alpha = 0.9, how many extra tokens per round do you gain by drafting k = 10 "
              "instead of k = 4?"),
    statement=("At $\\alpha = {{alpha}}$, how many extra tokens per round do you gain by drafting $k = {{k_high}}$ "
               "instead of $k = {{k_low}}$?"),
    params={"alpha": 0.9, "k_low": 4, "k_high": 10},
    vary=_vary_4,
    answer=Float("tokens per round", decimals=2),
    reference=lambda p: _tail_sum(p.alpha, p.k_low, p.k_high),
    hints=("The draft in position i adds alpha**i tokens on average; sum the positions you add.",),
    mistakes=(
        Mistake("constant-gain", lambda p: (p.k_high - p.k_low) * p.alpha ** (p.k_low + 1),
                "Each extra draft adds less than the one before it (it must survive one more test)."),
        Mistake("ceiling-gain", lambda p: float(p.k_high - p.k_low),
                "That is the gain at alpha = 1; with alpha below 1 later drafts rarely survive."),
        Mistake("off-by-one", lambda p: _tail_sum(p.alpha, p.k_low - 1, p.k_high - 1),
                "The gain of going from k to k + 1 is alpha**(k + 1), not alpha**k: check your exponents."),
    ),
))


# 5. A function exercise: E[L] from the distribution, not the closed form.
def _reference_from_pmf(alpha, k):
    pmf = acceptance.accepted_tokens_pmf(alpha, k)
    return float((np.arange(1, k + 2) * pmf).sum())


def _cases(rng):
    fixed = [(0.8, 5), (0.5, 3), (0.95, 8), (0.0, 4), (1.0, 6)]
    drawn = [(float(a), int(k)) for a, k in zip(rng.uniform(0.0, 1.0, 8).round(3), rng.integers(1, 20, 8), strict=False)]
    return fixed + drawn


register(Exercise(
    label="expected-tokens-5",
    chapter=CHAPTER,
    question=("Write a function expected_from_pmf(alpha, k) that returns E[L] by summing L times P(L) over "
              "L = 1 .. k + 1 (use sd.accepted_tokens_pmf, not the closed form)."),
    answer=Function("expected_from_pmf(alpha, k)", returns=Float("tokens per round", rel=1e-9)),
    reference=_reference_from_pmf,
    hints=("sd.accepted_tokens_pmf(alpha, k)[n] is the probability of n accepted drafts, i.e. of L = n + 1.",),
    cases=_cases,
    n_visible=2,
    mistakes=(
        Mistake("weights-n",
                lambda alpha, k: float((np.arange(k + 1) * acceptance.accepted_tokens_pmf(alpha, k)).sum()),
                "Your weights are the accepted drafts n, not the emitted tokens L = n + 1."),
    ),
))


# 6. Change the chapter's from-scratch derivation: acceptance decays with the draft position.
def _decaying(p, first=0):
    """Conditional rates alpha * r**(i - 1) of positions i = 1 .. k (``first=1`` shifts the exponent)."""
    return p.alpha * p.r ** np.arange(first, first + p.k)


def _vary_6(rng):
    alpha = grid(rng, 0.8, 0.95, 0.05)
    return {"alpha": alpha, "r": pick(rng, [r for r in (0.85, 0.88, 0.9, 0.92, 0.95, 0.97) if r != alpha]),
            "k": int(rng.integers(3, 9))}


register(Exercise(
    label="expected-tokens-6",
    chapter=CHAPTER,
    question=("Change the chapter's from-scratch derivation so that draft i is accepted (given the drafts "
              "before it were) with probability alpha * r**(i - 1): what is E[L] for alpha = 0.9, r = 0.95, "
              "k = 6?"),
    statement=("Give acceptance a per-position decay in the chapter's from-scratch derivation: draft $i$ is "
               "accepted, given that the drafts before it were, with probability $\\alpha r^{i-1}$. What is "
               "$E[L]$ for $\\alpha = {{alpha}}$, $r = {{r}}$ and $k = {{k}}$?"),
    params={"alpha": 0.9, "r": 0.95, "k": 6},
    vary=_vary_6,
    answer=Float("tokens per round", decimals=2),
    reference=lambda p: acceptance.expected_tokens_per_position(_decaying(p)),
    hints=("The first n drafts all survive with probability alpha_1 * ... * alpha_n; change both pieces of "
           "the pmf (the rounds that stop at a rejection, and the round that accepts all k drafts).",),
    mistakes=(
        Mistake("no-decay", lambda p: acceptance.expected_tokens(p.alpha, p.k),
                "That is E[L] with the same alpha at every position: the rates must fall by a factor r per "
                "position."),
        Mistake("forgot-bonus", lambda p: acceptance.expected_tokens_per_position(_decaying(p)) - 1.0,
                "That counts only the accepted drafts: every round also emits one token from the target."),
        Mistake("decay-from-first", lambda p: acceptance.expected_tokens_per_position(_decaying(p, first=1)),
                "The first draft is accepted with probability alpha itself (r**0 = 1): check the exponent of r."),
        Mistake("rates-not-multiplied", lambda p: 1.0 + float(_decaying(p).sum()),
                "alpha * r**(i - 1) is the rate given that the drafts before draft i were accepted: the "
                "probability of reaching draft i is the product of the rates up to it."),
    ),
))

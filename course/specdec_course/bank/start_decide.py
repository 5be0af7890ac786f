"""Exercises of the chapter "Decide for your service" (Start here, unnumbered).

Every expected answer is computed with ``specdec`` (``sd.decide`` and its
helpers) from the exercise's inputs; every typical mistake is computed too.
"""

from __future__ import annotations

import numpy as np

from specdec.acceptance import expected_tokens
from specdec.decision import decide, fit_round_times

from .._chapters import Chapter
from .._forms import Float
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/start/decide-for-your-service", "Decide for your service")


# 1. A printed length and a printed rate that cannot describe the same window at the configured k.
def _tokens_per_draft(p, length=None):
    length = p.length if length is None else length
    return (length - 1.0) / (p.rate_pct / 100.0)


def _vary_1(rng):
    k = int(rng.integers(3, 7))
    length = grid(rng, 2.2, min(4.4, k + 0.6), 0.05)
    # the rate as an older SGLang prints it, length / (k + 1), read as if it were vLLM's
    return {"k": k, "length": length, "rate_pct": round(100.0 * length / (k + 1), 1)}


register(Exercise(
    label="decide-for-your-service-1",
    chapter=CHAPTER,
    question=("A vLLM server configured with num_speculative_tokens = 4 logs 'Mean acceptance length: 3.10' and "
              "'Avg Draft acceptance rate: 62.0%' for the same window. How many draft tokens per draft do the two "
              "numbers imply together?"),
    statement=("A vLLM server configured with `num_speculative_tokens` = {{k}} logs, for one window, "
               "`Mean acceptance length: {{length:.2f}}` and `Avg Draft acceptance rate: {{rate_pct:.1f}}%`. "
               "How many draft tokens per draft do these two numbers imply together?"),
    params={"k": 4, "length": 3.10, "rate_pct": 62.0},
    vary=_vary_1,
    answer=Float("draft tokens per draft", decimals=2),
    reference=_tokens_per_draft,
    hints=("The length is 1 + accepted / drafts; the rate is accepted / draft tokens. Divide one by the other "
           "after removing what the length counts that was never drafted.",),
    mistakes=(
        Mistake("configured-k", lambda p: float(p.k),
                "That is the configured k; the question is what the two printed numbers imply together."),
        Mistake("bonus-left-in", lambda p: p.length / (p.rate_pct / 100.0),
                "The length counts the target's own token, which was never drafted: take it out first."),
        Mistake("percent", lambda p: (p.length - 1.0) / p.rate_pct,
                "The rate is printed in percent: 62.0% is 0.62."),
    ),
))


# 2. One draft step or the whole draft round: the mix-up decide cannot see.
def _mixup(p, per_step=None):
    per_step = p.t_round if per_step is None else per_step
    return float(decide(t0=p.t0, t_draft_step=per_step, t_verify=p.t_verify, k=p.k,
                        mean_acceptance_length=p.length).speedup)


def _vary_2(rng):
    k = int(rng.integers(3, 7))
    t0 = grid(rng, 8.0, 20.0, 0.5)
    return {"t0": t0, "t_verify": round(t0 * grid(rng, 1.05, 1.4, 0.05), 1), "k": k,
            "length": grid(rng, 2.4, min(4.2, k + 0.5), 0.1),
            "t_round": round(k * t0 * grid(rng, 0.05, 0.12, 0.01), 1)}


register(Exercise(
    label="decide-for-your-service-2",
    chapter=CHAPTER,
    question=("With t0 = 12 ms, a 14 ms verification pass at k = 4 and a mean acceptance length of 3.1, the "
              "profiler shows 4.4 ms for all four draft steps of a round. A colleague passes 4.4 ms as "
              "t_draft_step. What speedup does sd.decide report then?"),
    statement=("With $T_0$ = {{t0}} ms, a {{t_verify}} ms verification pass at $k = {{k}}$ and a mean acceptance "
               "length of {{length}}, a profiler shows {{t_round}} ms for all {{k}} draft steps of a round together. "
               "A colleague passes {{t_round}} ms as `t_draft_step`. What speedup does `sd.decide` report then?"),
    params={"t0": 12.0, "t_verify": 14.0, "k": 4, "length": 3.1, "t_round": 4.4},
    vary=_vary_2,
    answer=Float("a ratio", decimals=2),
    reference=_mixup,
    hints=("t_draft_step is one draft step: decide multiplies it by k. Call sd.decide with the colleague's "
           "inputs.",),
    mistakes=(
        Mistake("read-correctly", lambda p: _mixup(p, per_step=p.t_round / p.k),
                "That is the speedup with the profiler's time read as the whole round; the question asks what the "
                "mix-up reports."),
        Mistake("no-bonus", lambda p: _mixup(p) * (p.length - 1.0) / p.length,
                "Tokens per round include the target's own token (the mean acceptance length already counts it)."),
    ),
))


# 3. The round-time line from benchmark runs at three k.
def _runs(p):
    return dict(zip(p.ks, p.tpots, strict=False)), dict(zip(p.ks, p.lengths, strict=False))


def _slope(p, tokens=None):
    tpot, length = _runs(p)
    if tokens is None:
        return float(fit_round_times(tpot, length).slope)
    ks = list(p.ks)
    return float(np.polyfit(ks, [tpot[k] * tokens(length[k]) for k in ks], 1)[0])


def _vary_3(rng):
    ks = pick(rng, ((2, 4, 6), (3, 5, 7), (2, 3, 4)))
    alpha = grid(rng, 0.6, 0.85, 0.01)
    intercept, slope = grid(rng, 8.0, 20.0, 0.5), grid(rng, 0.8, 2.5, 0.1)
    lengths = tuple(round(float(expected_tokens(alpha, k)), 2) for k in ks)
    tpots = tuple(round((intercept + slope * k) / length, 2) for k, length in zip(ks, lengths, strict=False))
    return {"ks": ks, "tpots": tpots, "lengths": lengths}


register(Exercise(
    label="decide-for-your-service-3",
    chapter=CHAPTER,
    question=("Benchmark runs of a service at k = 3, 5 and 7 print Mean TPOT 9.62, 9.05 and 9.31 ms with "
              "speculation on, and acceptance lengths 2.71, 3.37 and 3.72. Fit the round time as A + S k by least "
              "squares: what is S, in ms per draft position?"),
    statement=("Benchmark runs of a service at $k$ = {{ks}} print a Mean TPOT of {{tpots}} ms with speculation on, "
               "and acceptance lengths of {{lengths}} (in the same order). Fit the round time as $A + S\\,k$ by "
               "least squares. What is $S$, in ms per draft position?"),
    params={"ks": (3, 5, 7), "tpots": (9.62, 9.05, 9.31), "lengths": (2.71, 3.37, 3.72)},
    vary=_vary_3,
    answer=Float("ms per draft position", decimals=2),
    reference=_slope,
    hints=("A round emits E[L] tokens at one TPOT each, so its time is TPOT x E[L]; fit that against k.",),
    mistakes=(
        Mistake("tpot-line", lambda p: _slope(p, tokens=lambda length: 1.0),
                "You fitted the time per token; the line is in the time per round (TPOT x acceptance length)."),
        Mistake("accepted-only", lambda p: _slope(p, tokens=lambda length: length - 1.0),
                "A round emits the accepted drafts and the target's own token: use the whole acceptance length."),
    ),
))


# 4. The break-even point in the units a dashboard shows.
def _decision_4(p):
    return decide(t0=p.t0, t_draft_step=p.t_step, t_verify=dict(zip(p.ks, p.t_verify, strict=False)), k=p.k,
                  mean_acceptance_length=p.length)


def _vary_4(rng):
    t0 = grid(rng, 10.0, 24.0, 1.0)
    base, per_position = t0 * grid(rng, 0.9, 1.3, 0.05), t0 * grid(rng, 0.2, 0.6, 0.05)
    return {"t0": t0, "t_step": round(t0 * grid(rng, 0.05, 0.12, 0.01), 1),
            "t_verify": tuple(round(base + per_position * k, 1) for k in (2, 4, 6)),
            "k": int(pick(rng, (2, 4, 6))), "length": grid(rng, 2.5, 3.5, 0.1)}


register(Exercise(
    label="decide-for-your-service-4",
    chapter=CHAPTER,
    question=("At concurrency 32 the chapter's service measures t0 = 15 ms, a draft step of 1.2 ms and "
              "verification passes of 27, 39 and 51 ms at k = 2, 4 and 6. Which mean acceptance length (as vLLM "
              "prints it) must the service reach at k = 4 to break even?"),
    statement=("At a high concurrency a service measures $T_0$ = {{t0}} ms, a draft step of {{t_step}} ms and "
               "verification passes of {{t_verify}} ms at $k$ = {{ks}} (no overhead). Which mean acceptance length, "
               "as vLLM prints it, must the service reach at $k = {{k}}$ to break even?"),
    params={"t0": 15.0, "t_step": 1.2, "t_verify": (27.0, 39.0, 51.0), "ks": (2, 4, 6), "k": 4, "length": 3.3},
    vary=_vary_4,
    answer=Float("tokens per round (a mean acceptance length)", decimals=2),
    reference=lambda p: float(_decision_4(p).break_even_length),
    hints=("A round breaks even when the tokens it emits equal its cost in target steps: k c_d + c_v.",),
    mistakes=(
        Mistake("no-draft", lambda p: dict(zip(p.ks, p.t_verify, strict=False))[p.k] / p.t0,
                "The round also pays for its k draft steps."),
        Mistake("alpha-not-length", lambda p: float(_decision_4(p).break_even_alpha),
                "That is the break-even alpha; the question asks for the mean acceptance length a dashboard shows."),
        Mistake("draft-rate", lambda p: (float(_decision_4(p).break_even_length) - 1.0) / p.k,
                "That is the threshold as a draft acceptance rate; the question asks for the mean acceptance "
                "length."),
    ),
))

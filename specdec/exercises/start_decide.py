"""Exercises of the first chapter, "Decide for your service" (Start here)."""

from __future__ import annotations

import numpy as np

from ..decision import decide, fit_round_times, parse_time
from ._registry import Exercise, Mistake, register

CHAPTER = "Start here · Decide for your service"

#: Exercise 1: what a vLLM log line printed, at num_speculative_tokens = 4 (the figures of issue 16).
LOGGED_LENGTH, LOGGED_RATE, CONFIGURED_K = 3.1, 0.62, 4

#: Exercise 2: the issue's example times (ms) and the profiler's whole draft round at k = 4.
EXAMPLE_TIMES = dict(t0="12ms", t_verify="14ms", k=4, mean_acceptance_length=3.1)
DRAFT_ROUND = "4.4ms"

#: Exercise 3: benchmark runs of another service at k = 3, 5, 7 (illustrative): Mean TPOT (ms) with
#: speculation on, and the same runs' acceptance length.
RUNS_TPOT = {3: "9.62ms", 5: "9.05ms", 7: "9.31ms"}
RUNS_LENGTH = {3: 2.71, 5: 3.37, 7: 3.72}

#: Exercise 4: the chapter's service at concurrency 32 (illustrative times).
BATCH32 = dict(t0="15ms", t_draft_step="1.3ms", t_verify={2: "27ms", 4: "39ms", 6: "51ms"}, k=4,
               mean_acceptance_length=3.3)


register(Exercise(
    label="decide-for-your-service-1",
    chapter=CHAPTER,
    question=("A vLLM server configured with num_speculative_tokens = 4 logs 'Mean acceptance length: 3.10' and "
              "'Avg Draft acceptance rate: 62.0%' for the same window. How many draft tokens per draft do the two "
              "numbers imply?"),
    kind="numeric",
    reference=lambda: (LOGGED_LENGTH - 1.0) / LOGGED_RATE,
    hints=("The length is 1 + accepted / drafts; the rate is accepted / draft tokens. Divide one by the other "
           "after removing what the length counts that was never drafted.",),
    rtol=1e-3,
    mistakes=(
        Mistake("configured-k", lambda: float(CONFIGURED_K),
                "That is the configured k; the question is what the two printed numbers imply together."),
        Mistake("bonus-left-in", lambda: LOGGED_LENGTH / LOGGED_RATE,
                "The length counts the target's own token, which was never drafted: take it out first."),
    ),
))


def _ref_mixup():
    return decide(t_draft_step=DRAFT_ROUND, **EXAMPLE_TIMES).speedup


register(Exercise(
    label="decide-for-your-service-2",
    chapter=CHAPTER,
    question=("With t0 = 12 ms, a 14 ms verification pass at k = 4 and a mean acceptance length of 3.1, the "
              "profiler shows 4.4 ms for all four draft steps of a round. A colleague passes 4.4 ms as "
              "t_draft_step. What speedup does sd.decide report then?"),
    kind="numeric",
    reference=_ref_mixup,
    hints=("t_draft_step is one draft step: decide multiplies it by k. Call sd.decide with the colleague's "
           "inputs.",),
    rtol=1e-3,
    mistakes=(
        Mistake("read-correctly", lambda: decide(t_draft_round=DRAFT_ROUND, **EXAMPLE_TIMES).speedup,
                "That is the speedup with 4.4 ms read as the whole round; the question asks what the mix-up "
                "reports."),
        Mistake("no-bonus", lambda: _ref_mixup() * (EXAMPLE_TIMES["mean_acceptance_length"] - 1.0)
                / EXAMPLE_TIMES["mean_acceptance_length"],
                "Tokens per round include the target's own token (the mean acceptance length already counts it)."),
    ),
))


def _ref_slope():
    return fit_round_times(RUNS_TPOT, RUNS_LENGTH).slope


def _line_slope(per_round_tokens):
    """Least-squares slope of TPOT x tokens(k) against k (tokens: a function of the run's acceptance length)."""
    ks = sorted(RUNS_TPOT)
    return float(np.polyfit(ks, [parse_time(RUNS_TPOT[k]) * per_round_tokens(RUNS_LENGTH[k]) for k in ks], 1)[0])


register(Exercise(
    label="decide-for-your-service-3",
    chapter=CHAPTER,
    question=("Benchmark runs of a service at k = 3, 5 and 7 print Mean TPOT 9.62, 9.05 and 9.31 ms with "
              "speculation on, and acceptance lengths 2.71, 3.37 and 3.72. Fit the round time as A + S k by least "
              "squares: what is S, in ms per draft position?"),
    kind="numeric",
    reference=_ref_slope,
    hints=("A round emits E[L] tokens at one TPOT each, so its time is TPOT x E[L]; fit that against k.",),
    rtol=1e-3,
    mistakes=(
        Mistake("tpot-line", lambda: _line_slope(lambda length: 1.0),
                "You fitted the time per token; the line is in the time per round (TPOT x acceptance length)."),
        Mistake("accepted-only", lambda: _line_slope(lambda length: length - 1.0),
                "A round emits the accepted drafts and the target's own token: use the whole acceptance length."),
    ),
))


def _ref_break_even_length():
    return decide(**BATCH32).break_even_length


register(Exercise(
    label="decide-for-your-service-4",
    chapter=CHAPTER,
    question=("At concurrency 32 the chapter's service measures t0 = 15 ms, a draft step of 1.3 ms and "
              "verification passes of 27, 39 and 51 ms at k = 2, 4 and 6. Which mean acceptance length (as vLLM "
              "prints it) must the service reach at k = 4 to break even?"),
    kind="numeric",
    reference=_ref_break_even_length,
    hints=("A round breaks even when the tokens it emits equal its cost in target steps: k c_d + c_v.",),
    rtol=1e-3,
    mistakes=(
        Mistake("no-draft", lambda: 39.0 / 15.0,
                "The round also pays for its k draft steps."),
        Mistake("alpha-not-length", lambda: decide(**BATCH32).break_even_alpha,
                "That is the break-even alpha; the question asks for the mean acceptance length a dashboard shows."),
    ),
))

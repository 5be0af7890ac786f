"""Exercises of the chapter "When speculation does not help"."""

from __future__ import annotations

import math

import numpy as np

from specdec import acceptance, economics
from specdec.economics import request
from specdec.roofline import hardware as hw
from specdec.serving import deployment

from .._chapters import Chapter
from .._forms import Float, Integer, Letter
from .._registry import Exercise, Mistake, grid, register

CHAPTER = Chapter("book/part1-speedup-bounds/04-when-it-does-not-help", "When speculation does not help")

register(Exercise(
    label="no-help-1",
    chapter=CHAPTER,
    question="Why does a high batch size reduce the benefit of speculative decoding?",
    answer=Letter("ABCD"),
    choices={
        "A": "Sequences in a large batch interfere with each other, so the draft's acceptance rate falls.",
        "B": "Sampling overhead per round grows faster with batch than the decode step does.",
        "C": "The candidates' KV entries no longer fit in memory at high batch.",
        "D": ("A plain decode step at high batch already uses most of the arithmetic that the weight read leaves "
              "idle, so the extra positions of verification and the draft's steps must be paid for in FLOPs: "
              "c_verify climbs toward k + 1 while E[L] stays the same."),
    },
    reference=lambda p: "D",
    hints=("Compare how a decode step's time and its arithmetic grow with batch on the roofline.",),
    mistakes=(
        Mistake("acceptance", lambda p: "A",
                "Acceptance depends on how well the draft's distribution matches the target's, not on the batch."),
        Mistake("candidate-memory", lambda p: "C",
                "Candidate entries are k per sequence, a tiny fraction (k / context) of the cache already there."),
    ),
))


def _speedup(p, alpha=None):
    alpha = p.alpha if alpha is None else alpha
    return economics.speedup(alpha, p.k, p.t0, p.t_draft, p.t_verify, p.t_overhead)


register(Exercise(
    label="no-help-2",
    chapter=CHAPTER,
    question=("With the worked example's times (T0 = 5.2, T_draft = 2.5 for k = 5, T_verify = 6.0, "
              "T_overhead = 0.5 ms), what is the speedup if the acceptance rate drops to 0.5?"),
    statement=("A deployment's round has these times: $T_0$ = {{t0}} ms, $T_\\text{draft}$ = {{t_draft}} ms for "
               "$k = {{k}}$ drafts, $T_\\text{verify}$ = {{t_verify}} ms, $T_\\text{overhead}$ = {{t_overhead}} ms. "
               "What is the speedup if the acceptance rate drops to {{alpha}}?"),
    params={**economics.WORKED_EXAMPLE.value, "alpha": 0.5},
    vary=lambda rng: (lambda k: {"alpha": grid(rng, 0.3, 0.65, 0.01), "k": k, "t_draft": round(0.5 * k, 1)})(
        int(rng.integers(3, 10))),
    answer=Float("a ratio", decimals=2),
    reference=_speedup,
    hints=("Recompute E[L] at the new acceptance rate; the round time does not change.",),
    mistakes=(
        Mistake("rounded-tokens", lambda p: p.t0 * round(float(acceptance.expected_tokens(p.alpha, p.k)), 1)
                / (p.t_draft + p.t_verify + p.t_overhead),
                "You used E[L] rounded to one decimal, as the source prints it; compute E[L] to more digits."),
        Mistake("quick-estimate", lambda p: economics.quick_estimate(p.alpha, p.k, p.t0, p.t_draft, p.t_verify),
                "That is the source's quick estimate; the question asks for T0 E[L] / T_round."),
    ),
))


# 3. A one-off setup cost per request: the longest output that speculation makes slower.
def _break_even_length(p, speedup=None):
    return request.break_even_output_length(p.t_setup, p.tpot, p.speedup if speedup is None else speedup)


def _longest_slower(length):
    """The largest whole number of output tokens N with N < N* (those requests are slower)."""
    if length <= 2:
        raise ValueError("every request with two or more tokens gains")
    return int(math.ceil(length) - 1)


register(Exercise(
    label="no-help-3",
    chapter=CHAPTER,
    question=("Speculation costs a one-off 20 ms per request, TPOT is 5.2 ms and the per-token speedup is the "
              "worked example's. What is the longest output, in whole tokens, that speculation makes slower?"),
    statement=("Speculation costs a one-off {{t_setup}} ms per request (loading the draft's state, say), TPOT is "
               "{{tpot}} ms and speculation makes every decode step after the first token {{speedup:.2f}} times "
               "faster. What is the longest output, in whole tokens, for which a request is slower with "
               "speculation than without?"),
    params={"t_setup": 20.0, "tpot": economics.WORKED_EXAMPLE.value["t0"],
            "speedup": float(economics.speedup(**economics.WORKED_EXAMPLE.value))},
    vary=lambda rng: {"t_setup": grid(rng, 10.0, 120.0, 5.0), "tpot": grid(rng, 4.0, 12.0, 0.2),
                      "speedup": grid(rng, 1.3, 2.6, 0.05)},
    answer=Integer("a number of output tokens"),
    reference=lambda p: _longest_slower(_break_even_length(p)),
    hints=("Each decode token saves TPOT (1 - 1/S); the first output token comes with the prefill and saves nothing. "
           "Find the length N* where the savings equal the setup, then the longest whole length below it.",),
    mistakes=(
        Mistake("first-token", lambda p: _longest_slower(_break_even_length(p)) - 1,
                "You counted the first output token as a decode token; it comes with the prefill."),
        Mistake("first-not-slower", lambda p: _longest_slower(_break_even_length(p)) + 1,
                "At that length speculation has already paid back its setup: the request is not slower."),
        Mistake("s-minus-1", lambda p: _longest_slower(1.0 + p.t_setup / (p.tpot * (p.speedup - 1.0))),
                "Check the saving per token: speculation turns TPOT into TPOT / S, a saving of TPOT (1 - 1/S)."),
    ),
))


def _pair(calibrated=True):
    return hw.LLAMA_70B, hw.LLAMA_8B, (hw.H100 if calibrated else hw.H100_IDEAL).scaled(8)


register(Exercise(
    label="no-help-4",
    chapter=CHAPTER,
    question=("On the calibrated model (Llama 3.1 70B target, Llama 3.1 8B draft, 8x H100 SXM, context 0, k = 5, "
              "alpha = 0.75), at what batch does speculation first become slower than plain decoding?"),
    statement=("On the calibrated model (Llama 3.1 70B target, Llama 3.1 8B draft, 8 H100 SXM, context 0, "
               "$k = {{k}}$, $\\alpha = {{alpha}}$), at what batch does speculation first become slower than plain "
               "decoding?"),
    params={"k": 5, "alpha": 0.75},
    vary=lambda rng: {"k": int(rng.integers(2, 11)), "alpha": grid(rng, 0.5, 0.95, 0.01)},
    answer=Integer("a batch size"),
    reference=lambda p: int(deployment.break_even_batch(*_pair(), alpha=p.alpha, k=p.k)),
    hints=("sd.deployment.break_even_batch scans the batches; or evaluate sd.deployment.speculative_speedup over "
           "an array of batches and find the first below 1.",),
    mistakes=(
        Mistake("ideal-roofline", lambda p: int(deployment.break_even_batch(*_pair(calibrated=False), alpha=p.alpha,
                                                                            k=p.k)),
                "That is the ideal roofline's answer, the lower bound on times; use the calibrated preset."),
        Mistake("ridge", lambda p: int(np.ceil(hw.ridge_batch(hw.LLAMA_70B, _pair()[2]))),
                "That is the ridge batch of a plain step; speculation has already stopped paying before it."),
    ),
))

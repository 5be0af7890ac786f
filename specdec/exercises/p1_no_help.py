"""Exercises of Part I, chapter 4: "When speculation does not help"."""

from __future__ import annotations

import numpy as np

from .. import economics
from .. import hardware as hw
from .. import deployment
from .. import request
from ._registry import Exercise, Mistake, register

CHAPTER = "Part I · 4 When speculation does not help"

register(Exercise(
    label="no-help-1",
    chapter=CHAPTER,
    question="Why does a high batch size reduce the benefit of speculative decoding?",
    kind="choice",
    choices={
        "A": "Sequences in a large batch interfere with each other, so the draft's acceptance rate falls.",
        "B": ("A plain decode step at high batch already uses most of the arithmetic that the weight read leaves "
              "idle, so the extra positions of verification and the draft's steps must be paid for in FLOPs: "
              "c_verify climbs toward k + 1 while E[L] stays the same."),
        "C": "The candidates' KV entries no longer fit in memory at high batch.",
        "D": "Sampling overhead per round grows faster with batch than the decode step does.",
    },
    reference=lambda: "B",
    hints=("Compare how a decode step's time and its arithmetic grow with batch on the roofline.",),
    mistakes=(
        Mistake("acceptance", lambda: "A",
                "Acceptance depends on how well the draft's distribution matches the target's, not on the batch."),
        Mistake("candidate-memory", lambda: "C",
                "Candidate entries are k per sequence, a tiny fraction (k / context) of the cache already there."),
    ),
))

# The source's worked example (ms).
_K, _T0, _TD, _TV, _TO = 5, 5.2, 2.5, 6.0, 0.5

register(Exercise(
    label="no-help-2",
    chapter=CHAPTER,
    question=("With the worked example's times (T0 = 5.2, T_draft = 2.5 for k = 5, T_verify = 6.0, "
              "T_overhead = 0.5 ms), what is the speedup if the acceptance rate drops to 0.5?"),
    kind="numeric",
    reference=lambda: economics.speedup(0.5, _K, _T0, _TD, _TV, _TO),
    hints=("Recompute E[L] at alpha = 0.5 and k = 5; the round time does not change.",),
    rtol=1e-3,
    mistakes=(
        Mistake("rounded-tokens", lambda: _T0 * 2.0 / (_TD + _TV + _TO),
                "You used the source's rounded 2.0 tokens per round; compute E[L] to more digits."),
        Mistake("quick-estimate", lambda: economics.quick_estimate(0.5, _K, _T0, _TD, _TV),
                "That is the source's quick estimate; the question asks for T0 E[L] / T_round."),
    ),
))

_SETUP, _TPOT = 20.0, 5.2


def _s_example():
    return economics.speedup(0.8, _K, _T0, _TD, _TV, _TO)


register(Exercise(
    label="no-help-3",
    chapter=CHAPTER,
    question=("Speculation costs a one-off 20 ms per request, TPOT is 5.2 ms and the per-token speedup is the "
              "worked example's. Below how many output tokens does speculation make a request slower?"),
    kind="numeric",
    reference=lambda: request.break_even_output_length(_SETUP, _TPOT, _s_example()),
    hints=("Each decode token saves TPOT (1 - 1/S); the first output token comes with the prefill and saves nothing.",),
    rtol=1e-3,
    mistakes=(
        Mistake("first-token", lambda: request.break_even_output_length(_SETUP, _TPOT, _s_example()) - 1.0,
                "You counted the first output token as a decode token; it comes with the prefill."),
        Mistake("s-minus-1", lambda: 1.0 + _SETUP / (_TPOT * (_s_example() - 1.0)),
                "Check the saving per token: speculation turns TPOT into TPOT / S, a saving of TPOT (1 - 1/S)."),
    ),
))


def _pair():
    return hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8)


def _first_batch_verify_above_one():
    target, _, group = _pair()
    batches = np.arange(1, 4097)
    return int(batches[np.argmax(hw.verify_cost(target, group, _K, batch=batches) > 1.0)])


register(Exercise(
    label="no-help-4",
    chapter=CHAPTER,
    question=("On the roofline model (Llama 3.1 70B target, Llama 3.1 8B draft, 8x H100 SXM, context 0, k = 5, "
              "alpha = 0.7), at what batch does speculation first become slower than plain decoding?"),
    kind="numeric",
    reference=lambda: deployment.break_even_batch(*_pair(), alpha=0.7, k=_K),
    hints=("sd.deployment.break_even_batch scans the batches; or evaluate sd.deployment.speculative_speedup over "
           "an array of batches and find the first below 1.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("verify-compute-bound", _first_batch_verify_above_one,
                "That is where verification starts to cost more than one step; the speedup is still above 1 there."),
        Mistake("ridge", lambda: float(np.ceil(hw.ridge_batch(hw.LLAMA_70B, hw.H100.scaled(8)))),
                "That is the ridge batch of a plain step; speculation has already stopped paying before it."),
    ),
))

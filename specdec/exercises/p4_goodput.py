"""Exercises of Part IV, chapter 6: "Throughput at a latency target"."""

from __future__ import annotations

import numpy as np

from .. import calibration as cal
from .. import goodput
from .. import hardware as hw
from ..acceptance import accepted_tokens_pmf
from ._registry import Exercise, Mistake, register

CHAPTER = "Part IV · 6 Throughput at a latency target"


def _curve():
    prof = goodput.latency_profile([200] * 1000, accepted_tokens_pmf(0.8, 4), rng=0)
    c = goodput.serving_curve([64], [0.030], prof)
    return (float(c.throughput[0]), float(c.tpot[0]) * 1e3)


register(Exercise(
    label="goodput-1",
    chapter=CHAPTER,
    question=("1000 requests of 200 tokens each, speculation with alpha = 0.8 and k = 4 "
              "(sd.goodput.latency_profile with sd.accepted_tokens_pmf(0.8, 4), rng=0), a round of 30 ms at batch "
              "64: the throughput in tokens/s and the median TPOT in ms. Answer the tuple (throughput, tpot_ms)."),
    kind="numeric",
    reference=_curve,
    hints=("sd.goodput.serving_curve([batch], [round_time], profile) gives both; TPOT is the round time times "
           "the median rounds per token.",),
    rtol=1e-9,
    mistakes=(
        Mistake("plain", lambda: (64 / 0.030, 30.0), "That is plain decoding: one token per round."),
    ),
))

_LENGTHS = None


def _lengths():
    global _LENGTHS
    if _LENGTHS is None:
        _LENGTHS = goodput.output_lengths(2000, 256, rng=1)
    return _LENGTHS


def _goodputs():
    r = goodput.compare_at_equal_latency(hw.LLAMA_70B, hw.LLAMA_8B, cal.H100_CALIBRATED.scaled(8), 0.8, 5, 2048,
                                         0.025, _lengths())
    return (r.baseline.throughput, r.speculative.throughput)


register(Exercise(
    label="goodput-2",
    chapter=CHAPTER,
    question=("Llama 3.1 70B with an 8B draft on 8 calibrated H100s, alpha = 0.8, k = 5, context 2048, the "
              "chapter's request sample (sd.goodput.output_lengths(2000, 256, rng=1)): the goodput of plain decoding "
              "and of speculation at a median TPOT target of 25 ms. Answer the tuple (plain, speculative) in "
              "tokens/s."),
    kind="numeric",
    reference=_goodputs,
    hints=("sd.goodput.compare_at_equal_latency(target, draft, hardware, alpha, k, context, tpot_target, lengths).",),
    rtol=1e-6,
    mistakes=(
        Mistake("swapped", lambda: tuple(reversed(_goodputs())), "The tuple is (plain, speculative)."),
    ),
))


def _crossover(alpha=0.7):
    r = goodput.compare_at_equal_latency(hw.LLAMA_70B, hw.LLAMA_8B, cal.H100_CALIBRATED.scaled(8), alpha, 5, 2048,
                                         0.012, _lengths())
    targets = np.arange(6.0, 60.5, 0.5) * 1e-3
    plain = goodput.goodput_curve(r.baseline_curve, targets)
    spec = goodput.goodput_curve(r.speculative_curve, targets)
    return float(targets[np.argmax(plain > spec)] * 1e3)


register(Exercise(
    label="goodput-3",
    chapter=CHAPTER,
    question=("Same setup with alpha = 0.7: on the grid of median TPOT targets 6.0, 6.5, ..., 60 ms, the smallest "
              "target at which plain decoding's goodput exceeds speculation's (in ms)."),
    kind="numeric",
    reference=_crossover,
    hints=("Compute both goodput curves on the grid with sd.goodput.goodput_curve and find the first target where "
           "the plain one is larger.",),
    rtol=0.0,
    atol=1e-9,
    mistakes=(
        Mistake("alpha-08", lambda: _crossover(0.8), "That is the crossover at alpha = 0.8."),
    ),
))

register(Exercise(
    label="goodput-4",
    chapter=CHAPTER,
    question="Why can speculation lower a replica's maximum throughput and still raise its goodput at a TPOT target?",
    kind="choice",
    choices={
        "A": "Because goodput counts only accepted draft tokens.",
        "B": ("Because at the largest batch speculation's extra arithmetic makes each token dearer, but a tight TPOT "
              "target caps the batch of plain decoding far below that, while speculation's several tokens per round "
              "let it run a larger batch within the same per-token latency."),
        "C": "Because speculation frees memory, so more sequences fit.",
        "D": "Because continuous batching removes the cost of verification.",
    },
    reference=lambda: "B",
    hints=("Compare the batch each setup may run under the target with the batch each can fit in memory.",),
    mistakes=(
        Mistake("memory", lambda: "C", "The draft and its KV cache take memory: fewer sequences fit, not more."),
        Mistake("accepted", lambda: "A", "Goodput counts every output token of requests that meet the target."),
    ),
))

"""Exercises of the chapter "Throughput at a latency target"."""

from __future__ import annotations

import functools

import numpy as np

from specdec.acceptance import accepted_tokens_pmf
from specdec.roofline import hardware as hw
from specdec.serving import goodput

from .._chapters import Chapter
from .._forms import Float, Letter, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part4-engines/06-goodput", "Throughput at a latency target")


# 1. One point of a serving curve.
def _curve(p):
    profile = goodput.latency_profile([p.n_tokens] * 1000, accepted_tokens_pmf(p.alpha, p.k), rng=0)
    curve = goodput.serving_curve([p.batch], [p.round_ms / 1e3], profile)
    return (float(curve.throughput[0]), float(curve.tpot[0]) * 1e3)


register(Exercise(
    label="goodput-1",
    chapter=CHAPTER,
    question=("1000 requests of 200 tokens each, speculation with alpha = 0.8 and k = 4 "
              "(sd.goodput.latency_profile with sd.accepted_tokens_pmf(0.8, 4), rng=0), a round of 30 ms at batch "
              "64: the throughput in tokens/s and the median TPOT in ms. Answer the tuple (throughput, tpot_ms)."),
    statement=("1000 requests of {{n_tokens}} tokens each, speculation with $\\alpha = {{alpha}}$ and $k = {{k}}$ "
               "(`goodput.latency_profile` with `sd.accepted_tokens_pmf({{alpha}}, {{k}})` and `rng=0`), a round of "
               "{{round_ms}} ms at batch {{batch}}: what are the throughput in tokens/s and the median TPOT in ms? "
               "Answer with the tuple `(throughput, tpot_ms)`."),
    params={"n_tokens": 200, "alpha": 0.8, "k": 4, "round_ms": 30.0, "batch": 64},
    vary=lambda rng: {"n_tokens": int(pick(rng, (100, 200, 400))), "alpha": grid(rng, 0.6, 0.9, 0.05),
                      "k": int(rng.integers(2, 7)), "round_ms": grid(rng, 15.0, 45.0, 1.0),
                      "batch": int(pick(rng, (16, 32, 64, 128)))},
    answer=Seq((Float("tokens/s", sig=4), Float("ms per token", decimals=2)), names=("throughput", "tpot_ms")),
    reference=_curve,
    hints=("sd.goodput.serving_curve([batch], [round_time], profile) gives both; TPOT is the round time times "
           "the median rounds per token.",),
    mistakes=(
        Mistake("plain", lambda p: (p.batch / (p.round_ms / 1e3), p.round_ms),
                "That is plain decoding: one token per round."),
        Mistake("seconds", lambda p: (_curve(p)[0], _curve(p)[1] / 1e3), "Give the TPOT in milliseconds."),
    ),
))


@functools.lru_cache(maxsize=1)
def _lengths():
    """The chapter's request sample."""
    return goodput.output_lengths(2000, 256, rng=1)


@functools.lru_cache(maxsize=64)
def _comparison(alpha, k, tpot_target_ms):
    return goodput.compare_at_equal_latency(hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8), alpha, k, 2048,
                                            tpot_target_ms / 1e3, _lengths())


# 2. Goodput of plain decoding and of speculation at a TPOT target.
def _goodputs(p):
    r = _comparison(p.alpha, p.k, p.target_ms)
    return (float(r.baseline.throughput), float(r.speculative.throughput))


register(Exercise(
    label="goodput-2",
    chapter=CHAPTER,
    question=("Llama 3.1 70B with an 8B draft on 8 calibrated H100s, alpha = 0.8, k = 5, context 2048, the "
              "chapter's request sample (sd.goodput.output_lengths(2000, 256, rng=1)): the goodput of plain decoding "
              "and of speculation at a median TPOT target of 25 ms. Answer the tuple (plain, speculative) in "
              "tokens/s."),
    statement=("The chapter's setup (Llama 3.1 70B with a Llama 3.1 8B draft on 8 calibrated H100s, context 2048, "
               "the request sample `goodput.output_lengths(2000, 256, rng=1)`), with $\\alpha = {{alpha}}$ and "
               "$k = {{k}}$: what are the goodputs of plain decoding and of speculation at a median TPOT target of "
               "{{target_ms}} ms? Answer with the tuple `(plain, speculative)` in tokens/s."),
    params={"alpha": 0.8, "k": 5, "target_ms": 25.0},
    vary=lambda rng: {"alpha": grid(rng, 0.6, 0.9, 0.05), "k": int(rng.integers(3, 7)),
                      "target_ms": grid(rng, 12.0, 40.0, 1.0)},
    answer=Seq((Float("tokens/s", sig=3),) * 2, names=("plain", "speculative")),
    reference=_goodputs,
    hints=("sd.goodput.compare_at_equal_latency(target, draft, hardware, alpha, k, context, tpot_target, lengths); "
           "the TPOT target is in seconds.",),
    mistakes=(
        Mistake("swapped", lambda p: tuple(reversed(_goodputs(p))), "The tuple is (plain, speculative)."),
    ),
))


# 3. Where plain decoding's goodput overtakes speculation's.
def _crossover(p, alpha=None):
    r = _comparison(p.alpha if alpha is None else alpha, p.k, 12.0)
    targets = np.arange(6.0, 60.5, 0.5) * 1e-3
    plain = goodput.goodput_curve(r.baseline_curve, targets)
    speculative = goodput.goodput_curve(r.speculative_curve, targets)
    if not np.any(plain > speculative):
        raise ValueError("speculation wins at every target of the grid")
    return float(targets[np.argmax(plain > speculative)] * 1e3)


register(Exercise(
    label="goodput-3",
    chapter=CHAPTER,
    question=("Same setup with alpha = 0.7: on the grid of median TPOT targets 6.0, 6.5, ..., 60 ms, the smallest "
              "target at which plain decoding's goodput exceeds speculation's (in ms)."),
    statement=("The same setup with $\\alpha = {{alpha}}$ and $k = {{k}}$: on the grid of median TPOT targets 6.0, "
               "6.5, ..., 60 ms, what is the smallest target at which plain decoding's goodput exceeds "
               "speculation's?"),
    params={"alpha": 0.7, "k": 5},
    vary=lambda rng: {"alpha": grid(rng, 0.5, 0.95, 0.01), "k": int(rng.integers(2, 11))},
    answer=Float("in ms, a point of the grid", decimals=1),
    reference=_crossover,
    hints=("Compute both goodput curves on the grid with sd.goodput.goodput_curve and find the first target where "
           "the plain one is larger.",),
    mistakes=(
        Mistake("alpha-08", lambda p: _crossover(p, alpha=0.8), "That is the crossover at alpha = 0.8."),
    ),
))

# 4. Lower peak throughput, higher goodput.
register(Exercise(
    label="goodput-4",
    chapter=CHAPTER,
    question="Why can speculation lower a replica's maximum throughput and still raise its goodput at a TPOT target?",
    answer=Letter("ABCD"),
    choices={
        "A": "Because goodput counts only accepted draft tokens.",
        "B": "Because speculation frees memory, so more sequences fit.",
        "C": "Because continuous batching removes the cost of verification.",
        "D": ("Because at the largest batch speculation's extra arithmetic makes each token dearer, but a tight TPOT "
              "target caps the batch of plain decoding far below that, while speculation's several tokens per round "
              "let it run a larger batch within the same per-token latency."),
    },
    reference=lambda p: "D",
    hints=("Compare the batch each setup may run under the target with the batch each can fit in memory.",),
    mistakes=(
        Mistake("memory", lambda p: "B", "The draft and its KV cache take memory: fewer sequences fit, not more."),
        Mistake("accepted", lambda p: "A", "Goodput counts every output token of requests that meet the target."),
    ),
))

"""Exercises of the chapter "Why verification is not free"."""

from __future__ import annotations

import numpy as np

from specdec.roofline import hardware as hw

from .._chapters import Chapter
from .._forms import Flag, Float, Integer, Letter, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part1-speedup-bounds/03-verification-cost", "Why verification is not free")

#: The source's rule of thumb: a verification pass costs 1.0 to 1.5 plain decode steps.
RULE = (1.0, 1.5)


def _pair(calibrated=False):
    return hw.LLAMA_70B, (hw.H100 if calibrated else hw.H100_IDEAL).scaled(8)


def _cv(k, batch=1, calibrated=False):
    target, group = _pair(calibrated)
    return float(hw.verify_cost(target, group, k, batch=batch))


# 1. The worked example's ratio, the rule of thumb and the roofline's prediction.
def _answer_1(p, ratio=None):
    ratio = p.t_verify / p.t0 if ratio is None else ratio
    return (ratio, bool(RULE[0] <= ratio <= RULE[1]), _cv(p.k, calibrated=True))


register(Exercise(
    label="verification-cost-1",
    chapter=CHAPTER,
    question=("A deployment measures T0 = 7.5 ms, T_verify = 9.3 ms, T_overhead = 0.4 ms at batch 1: what is "
              "T_verify / T0, is it inside the source's rule of thumb (1.0 to 1.5), and what c_verify does the "
              "calibrated model give at batch 1?"),
    statement=("A deployment measures, at batch 1, $T_0$ = {{t0}} ms, $T_\\text{verify}$ = {{t_verify}} ms and "
               "$T_\\text{overhead}$ = {{t_overhead}} ms with $k = {{k}}$ drafts. What is $T_\\text{verify}/T_0$? "
               "Is it inside the source's rule of thumb (1.0 to 1.5)? And what $c_v$ does the calibrated model give "
               "for a batch of one sequence (Llama 3.1 70B on 8 H100 SXM, calibrated, context 0)? Answer with the tuple "
               "`(ratio, inside, model)`."),
    params={"t0": 7.5, "t_verify": 9.3, "t_overhead": 0.4, "k": 4},
    vary=lambda rng: (lambda t0: {"t0": t0, "t_verify": round(t0 * grid(rng, 1.0, 1.9, 0.05), 1),
                                  "t_overhead": grid(rng, 0.2, 1.0, 0.1), "k": int(rng.integers(3, 8))})(
        grid(rng, 4.0, 14.0, 0.2)),
    answer=Seq((Float("T_verify / T0", decimals=2), Flag("whether the ratio is inside the rule of thumb"),
                Float("c_verify on the calibrated model, in target steps", decimals=2)), names=("ratio", "inside", "model")),
    reference=_answer_1,
    hints=("Divide the verification time by one plain decode step (the overhead is a separate line of the round); "
           "then ask what a pass over k + 1 tokens of one sequence costs when the weights' read dominates.",),
    mistakes=(
        Mistake("with-overhead", lambda p: _answer_1(p, (p.t_verify + p.t_overhead) / p.t0),
                "You added the overhead; the rule of thumb is about the verification pass alone."),
        Mistake("inverted", lambda p: _answer_1(p, p.t0 / p.t_verify), "Your ratio is upside down: T_verify over T0."),
        Mistake("roofline-k-plus-1", lambda p: _answer_1(p)[:2] + (float(p.k + 1),),
                "At batch 1 the pass is memory-bound: its k + 1 positions share one read of the weights, so c_v stays near 1."),
    ),
))

_CV = Float("in target steps", decimals=2)


# 2. c_verify at a large batch.
register(Exercise(
    label="verification-cost-2",
    chapter=CHAPTER,
    question=("On the ideal roofline (the lower bound): Llama 3.1 70B on 8x H100 SXM, context 0: what is c_verify for k = 5 "
              "drafts at batch 128?"),
    statement=("On the ideal roofline, the lower bound (Llama 3.1 70B on 8 H100 SXM, context 0), what is $c_v$ for $k = {{k}}$ "
               "drafts at batch {{batch}}?"),
    params={"k": 5, "batch": 128},
    vary=lambda rng: {"k": int(rng.integers(3, 9)), "batch": int(pick(rng, range(64, 513, 16)))},
    answer=_CV,
    reference=lambda p: _cv(p.k, p.batch),
    hints=("sd.hardware.verify_cost(target, hardware, k, batch=...) compares a pass over k + 1 tokens per "
           "sequence with a pass over one.",),
    mistakes=(
        Mistake("k-not-k-plus-1", lambda p: _cv(p.k - 1, p.batch),
                "You verified k tokens per sequence; the pass also carries the last accepted token, k + 1 in all."),
        Mistake("ceiling", lambda p: float(p.k + 1),
                "That is the compute-bound ceiling k + 1; at this batch the pass is not fully compute-bound yet."),
    ),
))


# 3. Where verification leaves the rule of thumb.
def _first_batch_above(threshold, k, batch_max=4096):
    target, group = _pair()
    batches = np.arange(1, batch_max + 1)
    cv = hw.verify_cost(target, group, k, batch=batches)
    if not (cv > threshold).any():
        raise ValueError("no batch up to batch_max exceeds the threshold")
    return int(batches[np.argmax(cv > threshold)])


register(Exercise(
    label="verification-cost-3",
    chapter=CHAPTER,
    question=("Same model and hardware, k = 5, context 0: what is the smallest batch at which c_verify exceeds "
              "1.5, the top of the source's rule of thumb?"),
    statement=("On the ideal roofline, the lower bound (Llama 3.1 70B on 8 H100 SXM, context 0, $k = {{k}}$ drafts), what is the "
               "smallest batch at which $c_v$ exceeds {{threshold}}?"),
    params={"k": 5, "threshold": 1.5},
    vary=lambda rng: {"k": int(rng.integers(2, 13)), "threshold": grid(rng, 1.1, 3.0, 0.05)},
    answer=Integer("a batch size"),
    reference=lambda p: _first_batch_above(p.threshold, p.k),
    hints=("Evaluate sd.hardware.verify_cost over an array of batches and find the first one above the threshold; "
           "or solve B (k + 1) / R = threshold with R the ridge batch.",),
    mistakes=(
        Mistake("above-one", lambda p: _first_batch_above(1.0, p.k),
                "That is where verification first costs more than one step; the question asks for a higher cost."),
        Mistake("ridge", lambda p: int(np.ceil(hw.ridge_batch(*_pair()))),
                "That is the ridge batch, where a plain decode step turns compute-bound; verification "
                "carries k + 1 tokens per sequence and gets there sooner."),
    ),
))

register(Exercise(
    label="verification-cost-4",
    chapter=CHAPTER,
    question="Why is verification not free, and when is it nearly free?",
    answer=Letter("ABCD"),
    choices={
        "A": "The target runs k + 1 separate forward passes, one per position, so it always costs k + 1 steps.",
        "B": ("The k + 1 positions share one read of the weights and the KV cache, so at small batch it costs "
              "about one step; it grows when the extra arithmetic exceeds what that read leaves idle (large batch), "
              "plus candidate KV writes and implementation overheads."),
        "C": "Rejected candidates' KV entries must be copied back to host memory, which takes as long as a decode step.",
        "D": "Attention is recomputed for every candidate by reading the whole KV cache once per candidate.",
    },
    reference=lambda p: "B",
    hints=("Think of a pass as bytes moved and arithmetic done, and ask which of the two grows with k.",),
    mistakes=(
        Mistake("separate-passes", lambda p: "A", "Verification is one forward pass over all the positions at once."),
        Mistake("kv-per-candidate", lambda p: "D",
                "In one pass the cached keys and values are read once and used by every new position."),
    ),
))

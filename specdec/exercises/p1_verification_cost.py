"""Exercises of Part I, chapter 3: "Why verification is not free"."""

from __future__ import annotations

import numpy as np

from .. import hardware as hw
from ._registry import Exercise, Mistake, register

CHAPTER = "Part I · 3 Why verification is not free"

# The worked example of the first source (ms).
_T0, _T_VERIFY, _T_OVERHEAD = 5.2, 6.0, 0.5


def _pair():
    return hw.LLAMA_70B, hw.H100.scaled(8)


register(Exercise(
    label="verification-cost-1",
    chapter=CHAPTER,
    question=("In the source's worked example T0 = 5.2 ms, T_verify = 6.0 ms and T_overhead = 0.5 ms. "
              "What is T_verify / T0, and is it inside the source's rule of thumb?"),
    kind="numeric",
    reference=lambda: _T_VERIFY / _T0,
    hints=("Divide the verification time by one plain decode step; the overhead is a separate line of the round.",),
    rtol=1e-4,
    mistakes=(
        Mistake("with-overhead", lambda: (_T_VERIFY + _T_OVERHEAD) / _T0,
                "You added the overhead; the rule of thumb is about the verification pass alone."),
        Mistake("inverted", lambda: _T0 / _T_VERIFY, "Your ratio is upside down: T_verify over T0."),
    ),
))


def _cv(k, batch):
    target, group = _pair()
    return hw.verify_cost(target, group, k, batch=batch)


register(Exercise(
    label="verification-cost-2",
    chapter=CHAPTER,
    question=("On the roofline model, Llama 3.1 70B on 8x H100 SXM, context 0: what is c_verify for k = 5 "
              "drafts at batch 128?"),
    kind="numeric",
    reference=lambda: _cv(5, 128),
    hints=("sd.hardware.verify_cost(target, hardware, k, batch=...) compares a pass over k + 1 tokens per "
           "sequence with a pass over one.",),
    rtol=1e-3,
    mistakes=(
        Mistake("k-not-k-plus-1", lambda: _cv(4, 128),
                "You verified k tokens per sequence; the pass also carries the last accepted token, k + 1 in all."),
        Mistake("ceiling", lambda: 6.0,
                "That is the compute-bound ceiling k + 1; at this batch the pass is not fully compute-bound yet."),
    ),
))


def _first_batch_above(threshold, k=5, batch_max=4096):
    target, group = _pair()
    batches = np.arange(1, batch_max + 1)
    cv = hw.verify_cost(target, group, k, batch=batches)
    return int(batches[np.argmax(cv > threshold)])


register(Exercise(
    label="verification-cost-3",
    chapter=CHAPTER,
    question=("Same model and hardware, k = 5, context 0: what is the smallest batch at which c_verify exceeds "
              "1.5, the top of the source's rule of thumb?"),
    kind="numeric",
    reference=lambda: _first_batch_above(1.5),
    hints=("Evaluate sd.hardware.verify_cost over an array of batches and find the first one above 1.5; "
           "or solve B (k + 1) / R = 1.5 with R the ridge batch.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("above-one", lambda: _first_batch_above(1.0),
                "That is where verification first costs more than one step; the question asks for 1.5."),
        Mistake("ridge", lambda: int(np.ceil(hw.ridge_batch(*_pair()))),
                "That is the ridge batch, where a plain decode step turns compute-bound; verification "
                "carries k + 1 tokens per sequence and gets there sooner."),
    ),
))

register(Exercise(
    label="verification-cost-4",
    chapter=CHAPTER,
    question="Why is verification not free, and when is it nearly free?",
    kind="choice",
    choices={
        "A": "The target runs k + 1 separate forward passes, one per position, so it always costs k + 1 steps.",
        "B": ("The k + 1 positions share one read of the weights and the KV cache, so at small batch it costs "
              "about one step; it grows when the extra arithmetic exceeds what that read leaves idle (large batch), "
              "plus candidate KV writes and implementation overheads."),
        "C": "Rejected candidates' KV entries must be copied back to host memory, which takes as long as a decode step.",
        "D": "Attention is recomputed for every candidate by reading the whole KV cache once per candidate.",
    },
    reference=lambda: "B",
    hints=("Think of a pass as bytes moved and arithmetic done, and ask which of the two grows with k.",),
    mistakes=(
        Mistake("separate-passes", lambda: "A", "Verification is one forward pass over all the positions at once."),
        Mistake("kv-per-candidate", lambda: "D",
                "In one pass the cached keys and values are read once and used by every new position."),
    ),
))

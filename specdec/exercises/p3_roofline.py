"""Exercises of Part III, chapter 1: "The roofline model"."""

from __future__ import annotations

from .. import deployment, memory
from .. import hardware as hw
from ._registry import Exercise, Mistake, register

CHAPTER = "Part III · 1 The roofline model"

_TP8 = hw.H100.scaled(8)
_TP4 = hw.H100.scaled(4)


def _ridges():
    int8 = hw.Model(hw.LLAMA_8B.n_params, 32, 4096, 8, 128, bytes_per_param=1)
    return (hw.ridge_batch(hw.LLAMA_8B, hw.A100), hw.ridge_batch(int8, hw.A100))


register(Exercise(
    label="roofline-1",
    chapter=CHAPTER,
    question=("Ridge batch of Llama 3.1 8B on one A100 80GB: with bf16 weights, and with 8-bit weights "
              "(bytes_per_param = 1, same FLOP/s). Answer the tuple (bf16, int8) in tokens per step."),
    kind="numeric",
    reference=_ridges,
    hints=("At the ridge the weight read (N * bytes_per_param / BW) takes as long as the arithmetic (2 N B / F).",),
    rtol=1e-3,
    mistakes=(
        Mistake("no-bytes", lambda: (hw.A100.flops / hw.A100.bandwidth,) * 2,
                "Your ridge does not change with the number format: smaller weights are read faster."),
        Mistake("no-half", lambda: tuple(2 * r for r in _ridges()),
                "Each parameter costs two FLOPs per token (a multiply and an add)."),
        Mistake("inverted", lambda: tuple(1 / r for r in _ridges()),
                "Your ratio is upside down: the ridge is a large number of tokens."),
    ),
))


def _cv():
    return hw.verify_cost(hw.LLAMA_70B, _TP8, k=8, batch=48)


register(Exercise(
    label="roofline-2",
    chapter=CHAPTER,
    question=("c_verify = T_verify / T0 for Llama 3.1 70B on 8 H100 SXM at batch 48, context 0, k = 8 drafts."),
    kind="numeric",
    reference=_cv,
    hints=("The verification pass processes k + 1 tokens per sequence; the plain step one. Which of the two "
           "passes is compute-bound at this batch?",),
    rtol=1e-3,
    mistakes=(
        Mistake("k-tokens", lambda: hw.step_time(hw.LLAMA_70B, _TP8, 48, 0, 8) / hw.step_time(hw.LLAMA_70B, _TP8, 48),
                "Verifying k drafts processes one more token than k per sequence."),
        Mistake("no-amortization", lambda: 9.0,
                "That would be the cost if nothing were shared; the plain step at this batch is still memory-bound."),
        Mistake("memory-only", lambda: 1.0,
                "Check the tokens per step of the verification pass against the ridge point."),
    ),
))


def _be():
    return deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_1B, _TP8, alpha=0.7, k=4)


register(Exercise(
    label="roofline-3",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 8 H100 SXM with a Llama 3.2 1B draft, alpha = 0.7, k = 4, context 0: the smallest "
              "batch at which speculation's roofline speedup falls below 1."),
    kind="numeric",
    reference=_be,
    hints=("Scan the batch with sd.deployment.speculative_speedup, or solve (k+1) B / ridge = E[L] - k c_draft.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("off-by-one", lambda: _be() - 1, "That batch still has a speedup of at least 1."),
        Mistake("8b-draft", lambda: deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, _TP8, alpha=0.7, k=4),
                "That is the answer for the 8B draft."),
        Mistake("alpha-08", lambda: deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_1B, _TP8, alpha=0.8, k=4),
                "Check the acceptance rate you used."),
    ),
))


def _lost():
    return memory.concurrency_lost_to_draft(hw.LLAMA_70B, _TP4, 1024, draft=hw.LLAMA_8B, k=5)


register(Exercise(
    label="roofline-4",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 4 H100 SXM (320 GB), sequences of 1024 tokens: how many fewer sequences fit once "
              "the Llama 3.1 8B draft shares the memory, with 5 candidate KV slots per sequence?"),
    kind="numeric",
    reference=_lost,
    hints=("With the draft, subtract its weights from the free memory, and each sequence keeps context + k tokens "
           "of KV cache in the target and in the draft.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("weights-only", lambda: memory.max_concurrent_sequences(hw.LLAMA_70B, _TP4, 1024)
                - memory.max_concurrent_sequences(hw.LLAMA_70B, _TP4, 1024, extra_bytes=hw.LLAMA_8B.weight_bytes),
                "The draft keeps its own KV cache for every sequence too."),
        Mistake("no-slots", lambda: memory.concurrency_lost_to_draft(hw.LLAMA_70B, _TP4, 1024, draft=hw.LLAMA_8B),
                "Remember the k candidate slots per sequence."),
    ),
))

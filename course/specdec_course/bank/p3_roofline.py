"""Exercises of the chapter "The roofline model"."""

from __future__ import annotations

from specdec.roofline import hardware as hw
from specdec.roofline import memory
from specdec.serving import deployment

from .._chapters import Chapter
from .._forms import Float, Integer, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part3-beyond/01-roofline-model", "The roofline model")

_TP8 = hw.H100_IDEAL.scaled(8)


def _int8(model):
    return hw.Model(model.n_params, model.n_layers, model.d_model, model.n_kv_heads, model.head_dim, bytes_per_param=1)


def _ridges(p):
    return (float(hw.ridge_batch(hw.LLAMA_8B, hw.A100_IDEAL)), float(hw.ridge_batch(_int8(hw.LLAMA_8B), hw.A100_IDEAL)))


register(Exercise(
    label="roofline-1",
    chapter=CHAPTER,
    question=("Ridge batch of Llama 3.1 8B on one A100 80GB, on the ideal roofline (the lower bound): with bf16 weights, and with 8-bit weights "
              "(bytes_per_param = 1, same FLOP/s). Answer the tuple (bf16, int8) in tokens per step."),
    answer=Seq((Float("tokens per step", decimals=1),) * 2, names=("bf16", "int8")),
    reference=_ridges,
    hints=("At the ridge the weight read (N * bytes_per_param / BW) takes as long as the arithmetic (2 N B / F).",),
    mistakes=(
        Mistake("no-bytes", lambda p: (hw.A100_IDEAL.flops / hw.A100_IDEAL.bandwidth,) * 2,
                "Your ridge does not change with the number format: smaller weights are read faster."),
        Mistake("no-half", lambda p: tuple(2 * r for r in _ridges(p)),
                "Each parameter costs two FLOPs per token (a multiply and an add)."),
        Mistake("inverted", lambda p: tuple(1 / r for r in _ridges(p)),
                "Your ratio is upside down: the ridge is a large number of tokens."),
    ),
))


def _cv(p, k=None):
    return float(hw.verify_cost(hw.LLAMA_70B, _TP8, k=p.k if k is None else k, batch=p.batch))


register(Exercise(
    label="roofline-2",
    chapter=CHAPTER,
    question=("c_verify = T_verify / T0 for Llama 3.1 70B on 8 H100 SXM on the ideal roofline (the lower bound), "
              "at batch 48, context 0, k = 8 drafts."),
    statement=("Llama 3.1 70B on 8 H100 SXM on the ideal roofline (the lower bound), context 0: what is "
               "$c_v = T_\\text{verify}/T_0$ at batch {{batch}} for $k = {{k}}$ drafts?"),
    params={"k": 8, "batch": 48},
    vary=lambda rng: {"k": int(rng.integers(3, 10)), "batch": int(pick(rng, range(16, 257, 8)))},
    answer=Float("in target steps", decimals=2),
    reference=_cv,
    hints=("The verification pass processes k + 1 tokens per sequence; the plain step one. Which of the two "
           "passes is compute-bound at this batch?",),
    mistakes=(
        Mistake("k-tokens", lambda p: float(hw.step_time(hw.LLAMA_70B, _TP8, p.batch, 0, p.k)
                                            / hw.step_time(hw.LLAMA_70B, _TP8, p.batch)),
                "Verifying k drafts processes one more token than k per sequence."),
        Mistake("no-amortization", lambda p: float(p.k + 1),
                "That would be the cost if nothing were shared; the plain step at this batch is still memory-bound."),
        Mistake("memory-only", lambda p: 1.0,
                "Check the tokens per step of the verification pass against the ridge point."),
    ),
))


def _be(p, draft=None, alpha=None):
    draft = hw.LLAMA_1B if draft is None else draft
    return int(deployment.break_even_batch(hw.LLAMA_70B, draft, _TP8, alpha=p.alpha if alpha is None else alpha,
                                           k=p.k))


register(Exercise(
    label="roofline-3",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 8 H100 SXM with a Llama 3.2 1B draft, alpha = 0.7, k = 4, context 0: the smallest "
              "batch at which speculation's speedup on the ideal roofline (the lower bound) falls below 1."),
    statement=("Llama 3.1 70B on 8 H100 SXM with a Llama 3.2 1B draft, $\\alpha = {{alpha}}$, $k = {{k}}$, "
               "context 0: what is the smallest batch at which the speedup on the ideal roofline (the lower bound) falls below 1?"),
    params={"alpha": 0.7, "k": 4},
    vary=lambda rng: {"alpha": grid(rng, 0.5, 0.95, 0.01), "k": int(rng.integers(2, 11))},
    answer=Integer("a batch size"),
    reference=_be,
    hints=("Scan the batch with sd.deployment.speculative_speedup, or solve (k+1) B / ridge = E[L] - k c_draft.",),
    mistakes=(
        Mistake("off-by-one", lambda p: _be(p) - 1, "That batch still has a speedup of at least 1."),
        Mistake("8b-draft", lambda p: _be(p, draft=hw.LLAMA_8B), "That is the answer for the 8B draft."),
        Mistake("alpha-plus", lambda p: _be(p, alpha=min(p.alpha + 0.1, 0.95)), "Check the acceptance rate you used."),
    ),
))


def _lost(p, k=None):
    return int(memory.concurrency_lost_to_draft(hw.LLAMA_70B, hw.H100_IDEAL.scaled(p.n_gpus), p.context, draft=hw.LLAMA_8B,
                                                k=p.k if k is None else k))


register(Exercise(
    label="roofline-4",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 4 H100 SXM (320 GB), sequences of 1024 tokens: how many fewer sequences fit once "
              "the Llama 3.1 8B draft shares the memory, with 5 candidate KV slots per sequence?"),
    statement=("Llama 3.1 70B on {{n_gpus}} H100 SXM, sequences of {{context}} tokens: how many fewer sequences fit "
               "once the Llama 3.1 8B draft shares the memory, with $k = {{k}}$ candidate KV slots per sequence?"),
    params={"n_gpus": 4, "context": 1024, "k": 5},
    vary=lambda rng: {"n_gpus": int(pick(rng, (2, 4, 8))), "context": 256 * int(rng.integers(1, 33)),
                      "k": int(rng.integers(2, 13))},
    answer=Integer("a number of sequences"),
    reference=_lost,
    hints=("With the draft, subtract its weights from the free memory, and each sequence keeps context + k tokens "
           "of KV cache in the target and in the draft.",),
    mistakes=(
        Mistake("weights-only", lambda p: int(
            memory.max_concurrent_sequences(hw.LLAMA_70B, hw.H100_IDEAL.scaled(p.n_gpus), p.context)
            - memory.max_concurrent_sequences(hw.LLAMA_70B, hw.H100_IDEAL.scaled(p.n_gpus), p.context,
                                              extra_bytes=hw.LLAMA_8B.weight_bytes)),
                "The draft keeps its own KV cache for every sequence too."),
        Mistake("no-slots", lambda p: _lost(p, k=0), "Remember the k candidate slots per sequence."),
    ),
))


def _weights_in(model, weight_bytes, kv_bytes=2):
    """``model`` with ``weight_bytes`` per weight and ``kv_bytes`` per KV-cache element."""
    return hw.Model(model.n_params, model.n_layers, model.d_model, model.n_kv_heads, model.head_dim,
                    bytes_per_param=weight_bytes, kv_bytes_per_elem=kv_bytes, n_heads=model.n_heads)


def _cv_8bit(p, weight_bytes=1, kv_bytes=2, tokens=None):
    model = _weights_in(hw.LLAMA_70B, weight_bytes, kv_bytes)
    if tokens is None:
        return float(hw.verify_cost(model, _TP8, k=p.k, batch=p.batch, context=p.context))
    return float(hw.step_time(model, _TP8, p.batch, p.context, tokens) / hw.step_time(model, _TP8, p.batch, p.context))


register(Exercise(
    label="roofline-5",
    chapter=CHAPTER,
    question=("Change the from-scratch roofline_step_time to 8-bit weights (1 byte per weight; KV cache and "
              "arithmetic stay bf16), the ideal roofline: c_verify for Llama 3.1 70B on 8 H100 SXM at batch 96, context 2048, k = 5."),
    statement=("Change your from-scratch `roofline_step_time` to weight-only 8-bit quantization: 1 byte per weight, "
               "while the KV cache and the arithmetic stay in bf16. For Llama 3.1 70B on 8 H100 SXM (your function is the "
               "ideal roofline, the lower bound), what is then "
               "$c_v = T_\\text{verify}/T_0$ at batch {{batch}}, context {{context}}, for $k = {{k}}$ drafts?"),
    params={"batch": 96, "context": 2048, "k": 5},
    vary=lambda rng: {"batch": int(pick(rng, range(16, 257, 16))), "context": int(pick(rng, (0, 512, 1024, 2048,
                                                                                           4096))),
                      "k": int(rng.integers(3, 9))},
    answer=Float("in target steps", decimals=2),
    reference=_cv_8bit,
    hints=("Only the weights' line changes. The FLOPs stay the same, so the ridge point halves: at this batch, "
           "which of the two passes is compute-bound now?",),
    mistakes=(
        Mistake("bf16", lambda p: _cv_8bit(p, weight_bytes=2),
                "That is c_v with bf16 weights: set the bytes per weight to 1."),
        Mistake("kv-too", lambda p: _cv_8bit(p, kv_bytes=1),
                "Only the weights are 8-bit here; the KV cache stays in bf16 (2 bytes per element)."),
        Mistake("k-tokens", lambda p: _cv_8bit(p, tokens=p.k),
                "Verifying k drafts processes k + 1 tokens per sequence (the last accepted token and the drafts)."),
    ),
))

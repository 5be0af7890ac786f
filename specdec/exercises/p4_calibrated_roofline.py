"""Exercises of Part IV, chapter 1: "A calibrated roofline"."""

from __future__ import annotations

from .. import calibration as cal
from .. import deployment
from .. import hardware as hw
from ._registry import Exercise, Mistake, register

CHAPTER = "Part IV · 1 A calibrated roofline"

_H8 = cal.H100_CALIBRATED.scaled(8)


def _t0_a100():
    return hw.step_time(hw.LLAMA_8B, cal.A100_CALIBRATED, 1, 1024) * 1e3


register(Exercise(
    label="calibrated-roofline-1",
    chapter=CHAPTER,
    question=("Llama 3.1 8B on one calibrated A100 (specdec.calibration.A100_CALIBRATED), batch 1, 1024 tokens of "
              "context: how long is a plain decode step, in milliseconds?"),
    kind="numeric",
    reference=_t0_a100,
    hints=("sd.hardware.step_time with the calibrated preset adds the fixed cost, the achievable bandwidth and the "
           "KV writes; answer in milliseconds.",),
    rtol=1e-3,
    mistakes=(
        Mistake("ideal", lambda: hw.step_time(hw.LLAMA_8B, hw.A100, 1, 1024) * 1e3,
                "That is the ideal roofline: use the calibrated A100."),
        Mistake("seconds", lambda: _t0_a100() / 1e3, "Check the unit: milliseconds."),
        Mistake("no-context", lambda: hw.step_time(hw.LLAMA_8B, cal.A100_CALIBRATED) * 1e3,
                "The step also reads the 1024 cached tokens' keys and values."),
    ),
))


def _cv():
    return hw.verify_cost(hw.LLAMA_70B, _H8, 8, 16, 4096)


register(Exercise(
    label="calibrated-roofline-2",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 8 calibrated H100s at batch 16 and 4096 tokens of context: c_verify for k = 8 "
              "drafts (a ratio)?"),
    kind="numeric",
    reference=_cv,
    hints=("c_verify = T(batch, context, k + 1 new tokens) / T(batch, context, 1); sd.hardware.verify_cost "
           "computes it on any hardware.",),
    rtol=1e-3,
    mistakes=(
        Mistake("ideal", lambda: hw.verify_cost(hw.LLAMA_70B, hw.H100.scaled(8), 8, 16, 4096),
                "On the ideal roofline this pass is free; use the calibrated group."),
        Mistake("k-tokens", lambda: hw.step_time(hw.LLAMA_70B, _H8, 16, 4096, 8) / hw.step_time(hw.LLAMA_70B, _H8,
                                                                                              16, 4096),
                "Verifying k drafts processes k + 1 tokens per sequence."),
        Mistake("batch-one", lambda: hw.verify_cost(hw.LLAMA_70B, _H8, 8, 1, 4096), "Check the batch."),
    ),
))


def _tp_pair():
    one = cal.A100_CALIBRATED
    return (hw.step_time(hw.LLAMA_1B, one.scaled(4)) * 1e3, hw.step_time(hw.LLAMA_1B, one) * 1e3)


register(Exercise(
    label="calibrated-roofline-3",
    chapter=CHAPTER,
    question=("A Llama 3.2 1B draft on calibrated A100s, batch 1, context 0: its step time on a tensor-parallel "
              "group of 4 and on a single GPU, in milliseconds. Answer the tuple (tp4, tp1)."),
    kind="numeric",
    reference=_tp_pair,
    hints=("A100_CALIBRATED.scaled(4) is the group; each of its 16 layers pays two all-reduces there.",),
    rtol=1e-3,
    mistakes=(
        Mistake("ideal", lambda: (hw.step_time(hw.LLAMA_1B, hw.A100.scaled(4)) * 1e3,
                                  hw.step_time(hw.LLAMA_1B, hw.A100) * 1e3),
                "That is the ideal roofline, where tensor parallelism is free."),
        Mistake("swapped", lambda: tuple(reversed(_tp_pair())), "The tuple is (tp4, tp1)."),
    ),
))


def _break_even():
    return deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, _H8, 0.7, 4, kv_write=True)


register(Exercise(
    label="calibrated-roofline-4",
    chapter=CHAPTER,
    question=("The worked example's pair (Llama 3.1 70B target, 8B draft) on 8 calibrated H100s at context 0, "
              "alpha = 0.7, k = 4: the first batch at which speculation loses."),
    kind="numeric",
    reference=_break_even,
    hints=("sd.deployment.break_even_batch scans the batches; pass kv_write=True, the calibrated model's default.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("ideal", lambda: deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8), 0.7, 4),
                "That is the ideal roofline's answer."),
        Mistake("off-by-one", lambda: _break_even() - 1, "That batch still has a speedup of at least 1."),
        Mistake("worked-example", lambda: deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, _H8, 0.8, 5,
                                                                      kv_write=True),
                "Check alpha and k."),
    ),
))

register(Exercise(
    label="calibrated-roofline-5",
    chapter=CHAPTER,
    question="In the calibrated model, what makes c_verify exceed 1 at batch 1?",
    kind="choice",
    choices={
        "A": "The fixed cost per forward pass, which verification pays k + 1 times.",
        "B": ("The arithmetic of the k extra tokens, which the weight read does not hide because memory traffic and "
              "arithmetic barely overlap; the fixed cost and the all-reduces, which do not grow with k, dilute it."),
        "C": "The all-reduces, whose latency grows with the number of tokens in the pass.",
        "D": "Reading the KV cache once per draft token.",
    },
    reference=lambda: "B",
    hints=("Write the step time as fixed + memory + (1 - overlap) x compute + all-reduces and ask which term "
           "grows with the tokens in the pass.",),
    mistakes=(
        Mistake("fixed", lambda: "A", "A verification is one forward pass: it pays the fixed cost once."),
        Mistake("allreduce", lambda: "C", "At batch 1 the all-reduce messages are tiny; their latency does not grow "
                                          "with the tokens."),
        Mistake("kv", lambda: "D", "The pass reads the cache once for all its tokens."),
    ),
))

"""Exercises of the chapter "A calibrated roofline"."""

from __future__ import annotations

from specdec.roofline import hardware as hw
from specdec.serving import deployment

from .._chapters import Chapter
from .._forms import Float, Integer, Letter, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part4-engines/01-calibrated-roofline", "A calibrated roofline")

#: Model presets of the variants: attribute name in ``sd.hardware`` -> what the statement calls it.
_MODELS = {"LLAMA_8B": "Llama 3.1 8B", "LLAMA_1B": "Llama 3.2 1B"}


def _group(n_gpus):
    return hw.H100.scaled(n_gpus)


# 1. A plain decode step on a calibrated GPU.
def _t0(p, hardware=None, context=None):
    hardware = hw.A100 if hardware is None else hardware
    context = p.context if context is None else context
    return float(hw.step_time(getattr(hw, p.model), hardware, p.batch, context)) * 1e3


register(Exercise(
    label="calibrated-roofline-1",
    chapter=CHAPTER,
    question=("Llama 3.1 8B on one calibrated A100 (specdec.roofline.hardware.A100), batch 1, 1024 tokens of "
              "context: how long is a plain decode step, in milliseconds?"),
    statement=("{{model_name}} (`sd.hardware.{{model}}`) on one calibrated A100 (`sd.hardware.A100`), "
               "batch {{batch}}, {{context}} tokens of context: how long is a plain decode step, in milliseconds?"),
    params={"model": "LLAMA_8B", "model_name": "Llama 3.1 8B", "batch": 1, "context": 1024},
    vary=lambda rng: (lambda model: {"model": model, "model_name": _MODELS[model],
                                     "batch": int(pick(rng, (1, 2, 3, 4, 6, 8, 12, 16, 24, 32))),
                                     "context": int(pick(rng, (512, 1024, 1536, 2048, 3072, 4096, 6144,
                                                               8192, 12288, 16384)))})(
        pick(rng, tuple(_MODELS))),
    answer=Float("in ms", decimals=2),
    reference=_t0,
    hints=("sd.hardware.step_time with the calibrated preset adds the fixed cost, the achievable bandwidth and the "
           "KV writes; answer in milliseconds.",),
    mistakes=(
        Mistake("ideal", lambda p: _t0(p, hardware=hw.A100_IDEAL), "That is the ideal roofline: use the calibrated A100."),
        Mistake("seconds", lambda p: _t0(p) / 1e3, "Check the unit: milliseconds."),
        Mistake("no-context", lambda p: _t0(p, context=0),
                "The step also reads the cached tokens' keys and values."),
    ),
))


# 2. The verification cost on a calibrated 8-GPU group.
def _cv(p, hardware=None, batch=None):
    hardware = _group(8) if hardware is None else hardware
    batch = p.batch if batch is None else batch
    return float(hw.verify_cost(hw.LLAMA_70B, hardware, p.k, batch, p.context))


def _cv_k_tokens(p):
    group = _group(8)
    return float(hw.step_time(hw.LLAMA_70B, group, p.batch, p.context, p.k)
                 / hw.step_time(hw.LLAMA_70B, group, p.batch, p.context))


register(Exercise(
    label="calibrated-roofline-2",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 8 calibrated H100s at batch 16 and 4096 tokens of context: c_verify for k = 8 "
              "drafts (a ratio)?"),
    statement=("Llama 3.1 70B on 8 calibrated H100s (`sd.hardware.H100.scaled(8)`) at batch {{batch}} "
               "with {{context}} tokens of context: what is $c_v$ for $k = {{k}}$ drafts?"),
    params={"batch": 16, "context": 4096, "k": 8},
    vary=lambda rng: {"batch": int(pick(rng, (4, 8, 16, 32, 64))), "context": int(pick(rng, (1024, 2048, 4096, 8192))),
                      "k": int(rng.integers(2, 9))},
    answer=Float("in target steps", decimals=2),
    reference=_cv,
    hints=("c_verify = T(batch, context, k + 1 new tokens) / T(batch, context, 1); sd.hardware.verify_cost "
           "computes it on any hardware.",),
    mistakes=(
        Mistake("ideal", lambda p: _cv(p, hardware=hw.H100_IDEAL.scaled(8)),
                "That is the ideal roofline; use the calibrated group."),
        Mistake("k-tokens", _cv_k_tokens, "Verifying k drafts processes k + 1 tokens per sequence."),
        Mistake("batch-one", lambda p: _cv(p, batch=1), "Check the batch."),
    ),
))


# 3. Tensor parallelism for a small draft.
def _tp_pair(p, calibrated=True):
    one = hw.A100 if calibrated else hw.A100_IDEAL
    model = getattr(hw, p.model)
    return (float(hw.step_time(model, one.scaled(p.tp))) * 1e3, float(hw.step_time(model, one)) * 1e3)


register(Exercise(
    label="calibrated-roofline-3",
    chapter=CHAPTER,
    question=("A Llama 3.2 1B draft on calibrated A100s, batch 1, context 0: its step time on a tensor-parallel "
              "group of 4 and on a single GPU, in milliseconds. Answer the tuple (group, single)."),
    statement=("A {{model_name}} draft (`sd.hardware.{{model}}`) on calibrated A100s at batch 1, context 0: what is "
               "its step time on a tensor-parallel group of {{tp}} GPUs, and on a single GPU? Answer with the tuple "
               "`(group, single)`, in milliseconds."),
    params={"model": "LLAMA_1B", "model_name": "Llama 3.2 1B", "tp": 4},
    vary=lambda rng: (lambda model: {"model": model, "model_name": _MODELS[model], "tp": int(pick(rng, (2, 4, 8)))})(
        pick(rng, tuple(_MODELS))),
    answer=Seq((Float("in ms", decimals=3),) * 2, names=("group", "single")),
    reference=_tp_pair,
    hints=("sd.hardware.A100.scaled(n) is the group; each layer pays two all-reduces there.",),
    mistakes=(
        Mistake("ideal", lambda p: _tp_pair(p, calibrated=False),
                "That is the ideal roofline, where tensor parallelism is free."),
        Mistake("swapped", lambda p: tuple(reversed(_tp_pair(p))), "The tuple is (group, single)."),
    ),
))


# 4. The batch at which speculation starts to lose.
def _break_even(p, alpha=None, k=None):
    return int(deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, _group(8), p.alpha if alpha is None else alpha,
                                           p.k if k is None else k, kv_write=True))


register(Exercise(
    label="calibrated-roofline-4",
    chapter=CHAPTER,
    question=("The worked example's pair (Llama 3.1 70B target, 8B draft) on 8 calibrated H100s at context 0, "
              "alpha = 0.7, k = 4: the first batch at which speculation loses."),
    statement=("The worked example's pair (Llama 3.1 70B target, Llama 3.1 8B draft) on 8 calibrated H100s at "
               "context 0, with $\\alpha = {{alpha}}$ and $k = {{k}}$: at what batch does speculation first lose "
               "(a speedup below 1)?"),
    params={"alpha": 0.7, "k": 4},
    vary=lambda rng: {"alpha": grid(rng, 0.5, 0.95, 0.01), "k": int(rng.integers(2, 11))},
    answer=Integer("a batch size"),
    reference=_break_even,
    hints=("sd.deployment.break_even_batch scans the batches; pass kv_write=True, the calibrated model's default.",),
    mistakes=(
        Mistake("ideal", lambda p: int(deployment.break_even_batch(hw.LLAMA_70B, hw.LLAMA_8B, hw.H100_IDEAL.scaled(8),
                                                                   p.alpha, p.k)),
                "That is the ideal roofline's answer (a lower bound on the costs)."),
        Mistake("off-by-one", lambda p: _break_even(p) - 1, "That batch still has a speedup of at least 1."),
        Mistake("worked-example", lambda p: _break_even(p, alpha=0.8, k=5), "Check alpha and k."),
    ),
))

# 5. What makes c_verify exceed 1 at batch 1 in the calibrated model.
register(Exercise(
    label="calibrated-roofline-5",
    chapter=CHAPTER,
    question="In the calibrated model, what makes c_verify exceed 1 at batch 1?",
    answer=Letter("ABCD"),
    choices={
        "A": "The fixed cost per forward pass, which verification pays k + 1 times.",
        "B": ("What grows with the pass's tokens: KV writes, attention and, past one GEMM tile, arithmetic the "
              "weight read does not hide; the fixed cost and the all-reduces, which do not grow with k, dilute it."),
        "C": "The all-reduces, whose latency grows with the number of tokens in the pass.",
        "D": "Reading the KV cache once per draft token.",
    },
    reference=lambda p: "B",
    hints=("Write the step time as fixed + memory + the compute beyond the first tile that does not overlap + "
           "all-reduces, and ask which term grows with the tokens in the pass.",),
    mistakes=(
        Mistake("fixed", lambda p: "A", "A verification is one forward pass: it pays the fixed cost once."),
        Mistake("allreduce", lambda p: "C", "At batch 1 the all-reduce messages are tiny; their latency does not "
                                            "grow with the tokens."),
        Mistake("kv", lambda p: "D", "The pass reads the cache once for all its tokens."),
    ),
))

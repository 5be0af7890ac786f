"""Exercises of Part II, chapter 5: "Latency, throughput and memory"."""

from __future__ import annotations

from .. import acceptance
from .. import deployment, memory
from .. import hardware as hw
from .. import regimes as rg
from ._registry import Exercise, Mistake, register

CHAPTER = "Part II · 5 Latency, throughput and memory"


def _pair(n_gpus=8):
    return hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(n_gpus)


# --- 1: inter-token latency at batch 1 ------------------------------------------------------
_A1, _K1 = 0.7, 4


def _latency_ms():
    return deployment.speculative_latency(*_pair(), _A1, _K1).speculative * 1e3


def _t0_ms():
    target, _, group = _pair()
    return hw.step_time(target, group) * 1e3


register(Exercise(
    label="latency-throughput-1",
    chapter=CHAPTER,
    question=("On the roofline model (Llama 3.1 70B target, Llama 3.1 8B draft, 8x H100 SXM, batch 1, context 0), "
              "what is the inter-token latency in milliseconds with alpha = 0.7 and k = 4?"),
    kind="numeric",
    reference=_latency_ms,
    hints=("Seconds per token with speculation are the round time divided by E[L]; "
           "sd.deployment.speculative_latency returns both sides.",),
    rtol=1e-3,
    mistakes=(
        Mistake("free-draft", lambda: _t0_ms() / acceptance.expected_tokens(_A1, _K1),
                "You divided one decode step by E[L]; the round also pays for k draft steps."),
        Mistake("no-change", _t0_ms,
                "That is the latency without speculation."),
    ),
))

# --- 2: the capacity plan -------------------------------------------------------------------
_DEMAND, _CTX2, _A2, _K2 = 400_000.0, 2048, 0.8, 5


def _plan():
    target, draft, group = _pair()
    cap = rg.capacity_comparison(target, draft, group, _A2, _K2, _CTX2)
    latency_speedup = deployment.speculative_speedup(target, draft, group, _A2, _K2, batch=1)
    return rg.capacity_plan(_DEMAND, cap.throughput_baseline, cap.throughput_speculative, latency_speedup)


register(Exercise(
    label="latency-throughput-2",
    chapter=CHAPTER,
    question=("A pool must serve 400,000 output tokens/s of 2,048-token-context requests with Llama 3.1 70B on "
              "8x H100 replicas, each running as many sequences as fit in memory. With the 8B draft (alpha 0.8, "
              "k 5, roofline model), how many replicas are needed?"),
    kind="numeric",
    reference=lambda: _plan().replicas_needed,
    hints=("Use tokens/s per replica at the batch the speculative replica can hold "
           "(sd.regimes.capacity_comparison), not the batch-1 latency speedup.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("latency-speedup", lambda: _plan().replicas_mistaken,
                "You divided the plain plan by the batch-1 speedup: that is the latency result, not throughput."),
        Mistake("no-change", lambda: _plan().replicas_baseline,
                "That is the plan without speculation; the speculative replica holds fewer sequences."),
    ),
))

# --- 3: sequences lost to the draft ---------------------------------------------------------
_CTX3, _K3 = 8192, 5


register(Exercise(
    label="latency-throughput-3",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 4x H100 SXM (bf16), 8,192-token contexts. How many concurrent sequences are lost "
              "when a Llama 3.1 8B draft with its own KV cache and k = 5 candidate slots shares the memory?"),
    kind="numeric",
    reference=lambda: memory.concurrency_lost_to_draft(*_pair(4)[::2], _CTX3, draft=hw.LLAMA_8B, k=_K3),
    hints=("Subtract the draft's weights before dividing the free memory by the per-sequence KV bytes, and count "
           "the draft's KV cache per token too (sd.memory.max_concurrent_sequences).",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("weights-only", lambda: memory.concurrency_lost_to_draft(hw.LLAMA_70B, hw.H100.scaled(4), _CTX3,
                                                                     extra_bytes=hw.LLAMA_8B.weight_bytes),
                "You counted the draft's weights but not the draft's own KV cache per sequence."),
        Mistake("remaining", lambda: memory.max_concurrent_sequences(hw.LLAMA_70B, hw.H100.scaled(4), _CTX3,
                                                                 draft=hw.LLAMA_8B, k=_K3),
                "That is how many sequences still fit; the question asks how many are lost."),
    ),
))

# --- 4: Little's law --------------------------------------------------------------------------
register(Exercise(
    label="latency-throughput-4",
    chapter=CHAPTER,
    question=("On one replica held at a fixed batch of 64 sequences, speculation lowers the time per output token "
              "by 40 %. What happens to the replica's tokens/s?"),
    kind="choice",
    choices={
        "A": "It rises by a factor 1 / 0.6, about 1.67: at a fixed batch, tokens/s = batch / (seconds per token).",
        "B": "It does not change: speculation improves latency, not throughput.",
        "C": "It falls, because verification adds arithmetic.",
        "D": "It cannot be told without knowing the acceptance rate.",
    },
    reference=lambda: "A",
    hints=("Each of the 64 sequences emits one token every 'time per token'; count tokens per second for all.",),
    mistakes=(
        Mistake("latency-only", lambda: "B",
                "Latency and throughput part ways only when the batch changes; here it is held fixed."),
        Mistake("arithmetic", lambda: "C",
                "The added arithmetic is already inside the measured time per token."),
    ),
))

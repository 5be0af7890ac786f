"""Exercises of the chapter "Latency, throughput and memory"."""

from __future__ import annotations

from specdec import acceptance
from specdec.roofline import hardware as hw
from specdec.roofline import memory
from specdec.serving import deployment
from specdec.serving import regimes as rg

from .._chapters import Chapter
from .._forms import Float, Integer, Letter, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part2-cost-accounting/05-latency-throughput-memory", "Latency, throughput and memory")


def _pair(n_gpus=8):
    return hw.LLAMA_70B, hw.LLAMA_8B, hw.H100_IDEAL.scaled(n_gpus)


# --- 1: inter-token latency at batch 1 ------------------------------------------------------
def _latency_ms(p):
    return float(deployment.speculative_latency(*_pair(), p.alpha, p.k).speculative) * 1e3


def _t0_ms():
    target, _, group = _pair()
    return float(hw.step_time(target, group)) * 1e3


register(Exercise(
    label="latency-throughput-1",
    chapter=CHAPTER,
    question=("On the ideal roofline, the lower bound (Llama 3.1 70B target, Llama 3.1 8B draft, 8x H100 SXM, batch 1, context 0), "
              "what is the inter-token latency in milliseconds with alpha = 0.7 and k = 4?"),
    statement=("On the ideal roofline, the lower bound (Llama 3.1 70B target, Llama 3.1 8B draft, 8 H100 SXM, batch 1, context 0), "
               "what is the inter-token latency in milliseconds with $\\alpha = {{alpha}}$ and $k = {{k}}$?"),
    params={"alpha": 0.7, "k": 4},
    vary=lambda rng: {"alpha": grid(rng, 0.5, 0.92, 0.01), "k": int(rng.integers(2, 9))},
    answer=Float("in ms per token", decimals=2),
    reference=_latency_ms,
    hints=("Seconds per token with speculation are the round time divided by E[L]; "
           "sd.deployment.speculative_latency returns both sides.",),
    mistakes=(
        Mistake("free-draft", lambda p: _t0_ms() / float(acceptance.expected_tokens(p.alpha, p.k)),
                "You divided one decode step by E[L]; the round also pays for k draft steps."),
        Mistake("no-change", lambda p: _t0_ms(), "That is the latency without speculation."),
    ),
))


# --- 2: the capacity plan -------------------------------------------------------------------
def _plan(p):
    target, draft, group = _pair()
    cap = rg.capacity_comparison(target, draft, group, p.alpha, p.k, p.context)
    latency_speedup = deployment.speculative_speedup(target, draft, group, p.alpha, p.k, batch=1)
    return rg.capacity_plan(p.demand, cap.throughput_baseline, cap.throughput_speculative, latency_speedup)


register(Exercise(
    label="latency-throughput-2",
    chapter=CHAPTER,
    question=("400,000 output tokens/s of 2,048-token-context requests, Llama 3.1 70B on 8x H100 replicas holding as "
              "many sequences as fit, 8B draft (alpha 0.8, k 5): how many replicas are needed, and how many would a "
              "plan based on the batch-1 latency speedup buy?"),
    statement=("A pool must serve {{demand:,.0f}} output tokens/s of {{context:,}}-token-context requests with "
               "Llama 3.1 70B on 8 H100 SXM replicas, each running as many sequences as fit in memory. With the "
               "Llama 3.1 8B draft ($\\alpha = {{alpha}}$, $k = {{k}}$, ideal roofline: the lower bound), how many replicas are "
               "needed? How many would a plan based on the batch-1 latency speedup buy? Answer with the tuple "
               "`(needed, latency_plan)`."),
    params={"demand": 400_000.0, "context": 2048, "alpha": 0.8, "k": 5},
    vary=lambda rng: {"demand": grid(rng, 150_000.0, 900_000.0, 50_000.0), "context": pick(rng, (1024, 2048, 4096)),
                      "alpha": grid(rng, 0.6, 0.9, 0.05), "k": int(rng.integers(3, 7))},
    answer=Seq((Integer("replicas"),) * 2, names=("needed", "latency_plan")),
    reference=lambda p: (int(_plan(p).replicas_needed), int(_plan(p).replicas_mistaken)),
    hints=("Use tokens/s per replica at the batch the speculative replica can hold "
           "(sd.regimes.capacity_comparison), not the batch-1 latency speedup.",),
    mistakes=(
        Mistake("latency-speedup", lambda p: (int(_plan(p).replicas_mistaken),) * 2,
                "You divided the plain plan by the batch-1 speedup: that is the latency result, not throughput."),
        Mistake("no-change", lambda p: (int(_plan(p).replicas_baseline), int(_plan(p).replicas_mistaken)),
                "That is the plan without speculation; the speculative replica holds fewer sequences."),
        Mistake("swapped", lambda p: (int(_plan(p).replicas_mistaken), int(_plan(p).replicas_needed)),
                "The two values are in the wrong order: the replicas needed first."),
    ),
))


# --- 3: sequences lost to the draft ---------------------------------------------------------
def _lost(p):
    target, draft, group = _pair(p.n_gpus)
    return int(memory.concurrency_lost_to_draft(target, group, p.context, draft=draft, k=p.k))


register(Exercise(
    label="latency-throughput-3",
    chapter=CHAPTER,
    question=("Llama 3.1 70B on 4x H100 SXM (bf16), 8,192-token contexts. How many concurrent sequences are lost "
              "when a Llama 3.1 8B draft with its own KV cache and k = 5 candidate slots shares the memory?"),
    statement=("Llama 3.1 70B on {{n_gpus}} H100 SXM (bf16), {{context:,}}-token contexts. How many concurrent "
               "sequences are lost when a Llama 3.1 8B draft with its own KV cache and $k = {{k}}$ candidate slots "
               "shares the memory?"),
    params={"n_gpus": 4, "context": 8192, "k": 5},
    vary=lambda rng: {"n_gpus": int(pick(rng, (2, 4, 8))), "context": 1024 * int(rng.integers(1, 33)),
                      "k": int(rng.integers(2, 13))},
    answer=Integer("a number of sequences"),
    reference=_lost,
    hints=("Subtract the draft's weights before dividing the free memory by the per-sequence KV bytes, and count "
           "the draft's KV cache per token too (sd.memory.max_concurrent_sequences).",),
    mistakes=(
        Mistake("weights-only", lambda p: int(memory.concurrency_lost_to_draft(
            hw.LLAMA_70B, hw.H100_IDEAL.scaled(p.n_gpus), p.context, extra_bytes=hw.LLAMA_8B.weight_bytes)),
                "You counted the draft's weights but not the draft's own KV cache per sequence."),
        Mistake("remaining", lambda p: int(memory.max_concurrent_sequences(
            hw.LLAMA_70B, hw.H100_IDEAL.scaled(p.n_gpus), p.context, draft=hw.LLAMA_8B, k=p.k)),
                "That is how many sequences still fit; the question asks how many are lost."),
    ),
))

# --- 4: Little's law --------------------------------------------------------------------------
register(Exercise(
    label="latency-throughput-4",
    chapter=CHAPTER,
    question=("On one replica held at a fixed batch of 64 sequences, speculation lowers the time per output token "
              "by 40 %. What happens to the replica's tokens/s?"),
    answer=Letter("ABCD"),
    choices={
        "A": "It does not change.",
        "B": "It falls.",
        "C": "It rises, by a factor of 1 / 0.6.",
        "D": "It cannot be told without knowing the acceptance rate.",
    },
    reference=lambda p: "C",
    hints=("Each of the 64 sequences emits one token every 'time per token'; count tokens per second for all.",),
    mistakes=(
        Mistake("latency-only", lambda p: "A",
                "Latency and throughput part ways only when the batch changes; here it is held fixed."),
        Mistake("arithmetic", lambda p: "B",
                "The added arithmetic is already inside the measured time per token."),
    ),
))

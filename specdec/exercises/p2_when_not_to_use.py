"""Exercises of Part II, chapter 6: "When not to use it"."""

from __future__ import annotations

from .. import economics
from .. import deployment
from .. import hardware as hw
from .. import regimes as rg
from ._registry import Exercise, Mistake, register

CHAPTER = "Part II · 6 When not to use it"


def _pair():
    return hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8)


def _s(alpha, k=5, batch=1, context=0):
    return deployment.speculative_speedup(*_pair(), alpha, k, batch=batch, context=context)


# --- 1: Amdahl ---------------------------------------------------------------------------------
_TTFT, _TPOT, _N = 600.0, 5.2, 100


def _p1():
    return rg.prefill_share(_TTFT, _TPOT, _N)


register(Exercise(
    label="when-not-to-use-1",
    chapter=CHAPTER,
    question=("A request has TTFT 600 ms, TPOT 5.2 ms and 100 output tokens. Speculation (70B/8B on 8x H100, "
              "alpha 0.8, k 5, batch 1, roofline) speeds up its decode. What is the end-to-end speedup?"),
    kind="numeric",
    reference=lambda: rg.end_to_end_speedup(_s(0.8), _p1()),
    hints=("Only the decode part (every token after the first) speeds up; the prefill part stays as it is.",),
    rtol=1e-3,
    mistakes=(
        Mistake("decode-only", lambda: _s(0.8),
                "That is the decode speedup; the request also spends time in prefill."),
        Mistake("average-speedups", lambda: _p1() + (1 - _p1()) * _s(0.8),
                "You averaged the speedups; average the times instead (the slow part weighs more)."),
    ),
))

# --- 2: largest prefill share -----------------------------------------------------------------
_A2 = 0.6


register(Exercise(
    label="when-not-to-use-2",
    chapter=CHAPTER,
    question=("With alpha = 0.6 (70B/8B on 8x H100, k 5, batch 1, roofline), up to what prefill share of request "
              "time does speculation still give an end-to-end speedup of at least 1.1?"),
    kind="numeric",
    reference=lambda: rg.max_prefill_share(_s(_A2), 1.1),
    hints=("Set 1 / (p + (1 - p) / S) equal to 1.1 and solve for p.",),
    rtol=1e-3,
    mistakes=(
        Mistake("speedup-share", lambda: 1 - 1.1 / _s(_A2),
                "You scaled the speedup by the decode share; Amdahl's law adds times, not speedups."),
    ),
))

# --- 3: smallest alpha that helps ----------------------------------------------------------------
_K3 = 3


def _costs():
    target, draft, group = _pair()
    return hw.draft_cost(draft, target, group), hw.verify_cost(target, group, _K3)


register(Exercise(
    label="when-not-to-use-3",
    chapter=CHAPTER,
    question=("70B/8B on 8x H100 at batch 1, context 0, k = 3 (roofline costs). Above which acceptance rate does "
              "speculation 'help' in this book's sense (speedup above 1.1)?"),
    kind="numeric",
    reference=lambda: economics.break_even_alpha(_K3, rg.HELPS_ABOVE * _costs()[0], rg.HELPS_ABOVE * _costs()[1]),
    hints=("Speedup > 1.1 means E[L] > 1.1 (k c_d + c_v): a break-even problem with both costs scaled by 1.1.",),
    rtol=1e-3,
    mistakes=(
        Mistake("break-even", lambda: economics.break_even_alpha(_K3, *_costs()),
                "That is where the speedup reaches 1; 'helps' asks for 1.1."),
    ),
))

# --- 4: prompt-heavy is not prefill-dominated ------------------------------------------------------
_PROMPT, _OUT, _A4 = 6000, 60, 0.75


def _service():
    target, draft, group = _pair()
    ttft = hw.step_time(target, group, batch=1, context=0, new_tokens=_PROMPT)
    tpot = hw.step_time(target, group, batch=1, context=_PROMPT)
    s = _s(_A4, context=_PROMPT)
    return ttft, tpot, s


register(Exercise(
    label="when-not-to-use-4",
    chapter=CHAPTER,
    question=("A summarization service sends 6,000-token prompts and gets 60-token answers, one request at a time, "
              "on 70B/8B on 8x H100 (alpha 0.75, k 5). On the roofline (TTFT = one prefill pass of the prompt, TPOT "
              "and decode speedup at context 6,000), what is the end-to-end speedup of a request?"),
    kind="numeric",
    reference=lambda: rg.end_to_end_speedup(_service()[2], rg.prefill_share(_service()[0], _service()[1], _OUT)),
    hints=("Compute the prefill share from times, not from token counts: a prompt token is far cheaper than a "
           "decoded one.",),
    rtol=1e-3,
    mistakes=(
        Mistake("token-share", lambda: rg.end_to_end_speedup(_service()[2], _PROMPT / (_PROMPT + _OUT)),
                "You used the share of tokens in the prompt; the prefill share is a share of time."),
        Mistake("decode-only", lambda: _service()[2],
                "That is the decode speedup alone; the request also waits for its prefill."),
    ),
))

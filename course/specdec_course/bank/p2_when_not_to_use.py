"""Exercises of the chapter "When not to use it"."""

from __future__ import annotations

from specdec import economics
from specdec.decision import policy
from specdec.economics import request
from specdec.roofline import hardware as hw
from specdec.serving import deployment
from specdec.serving import regimes as rg

from .._chapters import Chapter
from .._forms import Float, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part2-cost-accounting/06-when-not-to-use", "When not to use it")

_SPEEDUP = Float("a ratio", decimals=2)
_DRAFTS = {"LLAMA_8B": "Llama 3.1 8B", "LLAMA_1B": "Llama 3.2 1B"}


def _pair(draft="LLAMA_8B"):
    return hw.LLAMA_70B, getattr(hw, draft), hw.H100_IDEAL.scaled(8)


def _s(alpha, k=5, batch=1, context=0, draft="LLAMA_8B"):
    return float(deployment.speculative_speedup(*_pair(draft), alpha, k, batch=batch, context=context))


# --- 1: Amdahl ---------------------------------------------------------------------------------
def _share_1(p):
    return float(rg.prefill_share(p.ttft, p.tpot, p.n_tokens))


register(Exercise(
    label="when-not-to-use-1",
    chapter=CHAPTER,
    question=("A request has TTFT 600 ms, TPOT 5.2 ms and 100 output tokens. Speculation (70B/8B on 8x H100, "
              "alpha 0.8, k 5, batch 1, ideal roofline) speeds up its decode. What is the end-to-end speedup?"),
    statement=("A request has TTFT {{ttft}} ms, TPOT {{tpot}} ms and {{n_tokens}} output tokens. Speculation "
               "(Llama 3.1 70B with a Llama 3.1 8B draft on 8 H100 SXM, $\\alpha = {{alpha}}$, $k = {{k}}$, "
               "batch 1, ideal roofline) speeds up its decode. What is the end-to-end speedup?"),
    params={"ttft": 600.0, "tpot": economics.WORKED_EXAMPLE.value["t0"], "n_tokens": 100,
            "alpha": economics.WORKED_EXAMPLE.value["alpha"], "k": economics.WORKED_EXAMPLE.value["k"]},
    vary=lambda rng: {"ttft": grid(rng, 200.0, 1200.0, 50.0), "tpot": grid(rng, 4.0, 9.0, 0.2),
                      "n_tokens": int(pick(rng, (40, 60, 100, 150, 200, 300, 500))),
                      "alpha": grid(rng, 0.6, 0.9, 0.05), "k": int(rng.integers(3, 8))},
    answer=_SPEEDUP,
    reference=lambda p: float(request.end_to_end_speedup(_s(p.alpha, p.k), _share_1(p))),
    hints=("Only the decode part (every token after the first) speeds up; the prefill part stays as it is.",),
    mistakes=(
        Mistake("decode-only", lambda p: _s(p.alpha, p.k),
                "That is the decode speedup; the request also spends time in prefill."),
        Mistake("average-speedups", lambda p: _share_1(p) + (1 - _share_1(p)) * _s(p.alpha, p.k),
                "You averaged the speedups; average the times instead (the slow part weighs more)."),
    ),
))


# --- 2: largest prefill share -----------------------------------------------------------------
def _max_share(p):
    s = _s(p.alpha, p.k)
    if s <= p.required * 1.01:
        raise ValueError("the decode speedup does not reach the required end-to-end speedup")
    return float(rg.max_prefill_share(s, p.required))


register(Exercise(
    label="when-not-to-use-2",
    chapter=CHAPTER,
    question=("With alpha = 0.6 (70B/8B on 8x H100, k 5, batch 1, ideal roofline), up to what prefill share of request "
              "time does speculation still give an end-to-end speedup of at least 1.1?"),
    statement=("With $\\alpha = {{alpha}}$ (Llama 3.1 70B with a Llama 3.1 8B draft on 8 H100 SXM, $k = {{k}}$, "
               "batch 1, ideal roofline), up to what prefill share of request time does speculation still give an "
               "end-to-end speedup of at least {{required}}?"),
    params={"alpha": 0.6, "k": 5, "required": 1.1},
    vary=lambda rng: {"alpha": grid(rng, 0.55, 0.9, 0.05), "k": int(rng.integers(3, 8)),
                      "required": pick(rng, (1.05, 1.1, 1.2, 1.3))},
    answer=Float("a share of the request time", decimals=2),
    reference=_max_share,
    hints=("Set 1 / (p + (1 - p) / S) equal to the required speedup and solve for p.",),
    mistakes=(
        Mistake("speedup-share", lambda p: 1 - p.required / _s(p.alpha, p.k),
                "You scaled the speedup by the decode share; Amdahl's law adds times, not speedups."),
    ),
))


# --- 3: smallest alpha that helps ----------------------------------------------------------------
def _costs(p):
    target, draft, group = _pair(p.draft)
    return float(hw.draft_cost(draft, target, group)), float(hw.verify_cost(target, group, p.k))


register(Exercise(
    label="when-not-to-use-3",
    chapter=CHAPTER,
    question=("70B/8B on 8x H100 at batch 1, context 0, k = 3 (ideal-roofline costs, the lower bound). Above which acceptance rate does "
              "speculation 'help' in this book's sense (speedup above 1.1)?"),
    statement=("Llama 3.1 70B with a {{draft_name}} draft on 8 H100 SXM at batch 1, context 0, $k = {{k}}$ "
               "(ideal-roofline costs, the lower bound). Above which acceptance rate does speculation \"help\" in this book's sense "
               "(speedup above 1.1)?"),
    params={"k": 3, "draft": "LLAMA_8B", "draft_name": _DRAFTS["LLAMA_8B"]},
    vary=lambda rng: (lambda draft: {"k": int(rng.integers(1, 25)), "draft": draft, "draft_name": _DRAFTS[draft]})(
        pick(rng, tuple(_DRAFTS))),
    answer=Float("an acceptance rate", decimals=3),
    reference=lambda p: float(economics.break_even_alpha(p.k, policy.HELPS_ABOVE * _costs(p)[0],
                                                         policy.HELPS_ABOVE * _costs(p)[1])),
    hints=("Speedup > 1.1 means E[L] > 1.1 (k c_d + c_v): a break-even problem with both costs scaled by 1.1.",),
    mistakes=(
        Mistake("break-even", lambda p: float(economics.break_even_alpha(p.k, *_costs(p))),
                "That is where the speedup reaches 1; 'helps' asks for 1.1."),
    ),
))


# --- 4: prompt-heavy is not prefill-dominated ------------------------------------------------------
def _service(p):
    target, _, group = _pair()
    ttft = hw.step_time(target, group, batch=1, context=0, new_tokens=p.prompt)
    tpot = hw.step_time(target, group, batch=1, context=p.prompt)
    return float(ttft), float(tpot), _s(p.alpha, p.k, context=p.prompt)


def _answer_4(p, share=None):
    ttft, tpot, s = _service(p)
    share = float(rg.prefill_share(ttft, tpot, p.output)) if share is None else share
    return (share, float(request.end_to_end_speedup(s, share)))


register(Exercise(
    label="when-not-to-use-4",
    chapter=CHAPTER,
    question=("6,000-token prompts, 60-token answers, one request at a time, 70B/8B on 8x H100 (alpha 0.75, k 5), "
              "roofline: what share of a request's time is prefill, and what is its end-to-end speedup?"),
    statement=("A summarization service sends {{prompt:,}}-token prompts and gets {{output}}-token answers, one "
               "request at a time, on Llama 3.1 70B with a Llama 3.1 8B draft on 8 H100 SXM ($\\alpha = {{alpha}}$, "
               "$k = {{k}}$). On the ideal roofline (TTFT = one prefill pass of the prompt, TPOT and decode speedup at "
               "context {{prompt:,}}), what share of a request's time is prefill, and what is the end-to-end "
               "speedup? Answer with the tuple `(prefill_share, speedup)`."),
    params={"prompt": 6000, "output": 60, "alpha": 0.75, "k": 5},
    vary=lambda rng: {"prompt": int(pick(rng, range(2000, 12001, 500))), "output": int(pick(rng, range(30, 301, 10))),
                      "alpha": grid(rng, 0.6, 0.9, 0.05), "k": int(rng.integers(3, 8))},
    answer=Seq((Float("a share of the request time", decimals=2), _SPEEDUP), names=("prefill_share", "speedup")),
    reference=_answer_4,
    hints=("Compute the prefill share from times, not from token counts: a prompt token is far cheaper than a "
           "decoded one.",),
    mistakes=(
        Mistake("token-share", lambda p: _answer_4(p, share=p.prompt / (p.prompt + p.output)),
                "You used the share of tokens in the prompt; the prefill share is a share of time."),
        Mistake("decode-only", lambda p: (_answer_4(p)[0], _service(p)[2]),
                "That is the decode speedup alone; the request also waits for its prefill."),
    ),
))

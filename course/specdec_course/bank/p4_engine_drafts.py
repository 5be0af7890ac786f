"""Exercises of the chapter "Drafts in today's engines"."""

from __future__ import annotations

from specdec import calibration as cal
from specdec import economics
from specdec.acceptance import expected_tokens
from specdec.drafts import drafters
from specdec.roofline import hardware as hw

from .._chapters import Chapter
from .._forms import Float, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part4-engines/02-engine-drafts", "Drafts in today's engines")


# 1. A multi-token-prediction module of depth 1.
def _mtp(p, tokens=None):
    tokens = float(drafters.mtp_expected_tokens(p.accept)) if tokens is None else tokens
    return (tokens, float(drafters.implied_round_cost(tokens, p.speedup)))


register(Exercise(
    label="engine-drafts-1",
    chapter=CHAPTER,
    question=("A depth-1 multi-token-prediction module whose second token is accepted 87 % of the time, measured at "
              "1.8x the plain decoding speed: its tokens per step E[L] and the implied round cost in plain steps. "
              "Answer the tuple (E[L], cost)."),
    statement=("A depth-1 multi-token-prediction module's second token is accepted {{accept_pct}} % of the time, and "
               "the model decodes at {{speedup}}x its plain speed. What are its tokens per step $E[L]$ and the implied "
               "round cost in plain steps? Answer with the tuple `(tokens, cost)`."),
    params={"accept": 0.87, "accept_pct": 87, "speedup": 1.8},
    vary=lambda rng: (lambda pct: {"accept": pct / 100, "accept_pct": pct, "speedup": grid(rng, 1.3, 1.9, 0.05)})(
        int(rng.integers(60, 96))),
    answer=Seq((Float("tokens per step", decimals=2), Float("in plain decode steps", decimals=3)),
               names=("tokens", "cost")),
    reference=_mtp,
    hints=("Depth 1 is a chain of k = 1 draft: E[L] = 1 + acceptance. A round costs E[L] / speedup plain steps.",),
    mistakes=(
        Mistake("no-bonus", lambda p: (p.accept, p.accept / p.speedup), "Each step also emits the target's own token."),
        Mistake("inverted", lambda p: (_mtp(p)[0], p.speedup / _mtp(p)[0]),
                "The cost is tokens per round over the speedup."),
    ),
))


# 2. What a Spec-Bench row implies.
_BENCH_MODELS = {"vicuna-7b": "Vicuna 7B", "vicuna-13b": "Vicuna 13B"}


def _bench_row(model, method):
    table = drafters.spec_bench_table(model)
    j = list(table["method"]).index(method)
    return (float(table["implied_round_cost"][j]), float(table["chain_equivalent_alpha"][j]))


def _vary_2(rng):
    model = pick(rng, tuple(_BENCH_MODELS))
    return {"model": model, "model_name": _BENCH_MODELS[model],
            "method": pick(rng, tuple(drafters.spec_bench_table(model)["method"]))}


register(Exercise(
    label="engine-drafts-2",
    chapter=CHAPTER,
    question=("Spec-Bench's EAGLE-2 row for Vicuna 13B (sd.drafters.SPEC_BENCH_A100['vicuna-13b']): the implied round "
              "cost in plain steps and the chain-equivalent acceptance rate, the per-position rate an unlimited "
              "chain would need to reach its acceptance length. Answer the tuple (cost, alpha_chain)."),
    statement=("Spec-Bench's {{method}} row for {{model_name}} (`sd.drafters.SPEC_BENCH_A100[\"{{model}}\"]`): what "
               "round cost, in plain decode steps, does it imply, and what is its chain-equivalent acceptance rate "
               "(the per-position rate an unlimited chain would need to reach the same acceptance length; a floor "
               "on the real rate only for a chain)? Answer with the tuple `(cost, alpha_chain)`."),
    params={"model": "vicuna-13b", "model_name": "Vicuna 13B", "method": "EAGLE2"},
    vary=_vary_2,
    answer=Seq((Float("in plain decode steps", decimals=3), Float("an acceptance rate", decimals=3)),
               names=("cost", "alpha_chain")),
    reference=lambda p: _bench_row(p.model, p.method),
    hints=("Tokens per step over the speedup is the cost of a round; a chain of k drafts with per-position rate "
           "alpha emits at most 1 / (1 - alpha) tokens, whatever k is: solve E[L] = 1 / (1 - alpha).",),
    mistakes=(
        Mistake("other-model", lambda p: _bench_row("vicuna-7b" if p.model == "vicuna-13b" else "vicuna-13b",
                                                    p.method),
                "That is the other model's row."),
        Mistake("inverted-cost", lambda p: (1.0 / _bench_row(p.model, p.method)[0], _bench_row(p.model, p.method)[1]),
                "The cost is tokens per step divided by the speedup, not the other way round."),
    ),
))


# 3. Prompt lookup (n-gram drafting) with a calibrated verification cost.
def _ngram(p, match=None, c_verify=None):
    if c_verify is None:
        c_verify = float(hw.verify_cost(cal.LLAMA2_7B, hw.A100, p.k, 16, 512))
    return float(drafters.ngram_round(p.match if match is None else match, p.first, p.cont, p.k,
                                      c_verify=c_verify).speedup)


register(Exercise(
    label="engine-drafts-3",
    chapter=CHAPTER,
    question=("Prompt lookup proposing k = 8 tokens: a match is found in 60 % of rounds, the first proposed token is "
              "right 70 % of the time and each later one 85 % (given the earlier ones were). With the verification "
              "cost of Vicuna 7B on the calibrated A100 (batch 16, context 512) and a free lookup, what speedup does "
              "it give?"),
    statement=("Prompt lookup proposes $k = {{k}}$ tokens. A match is found in {{match_pct}} % of rounds; the first "
               "proposed token is right {{first_pct}} % of the time, each later one {{cont_pct}} % (given the earlier "
               "ones were). With the calibrated verification cost of Vicuna 7B on one A100 (batch 16, context 512) "
               "and a free lookup, what speedup does it give?"),
    params={"k": 8, "match": 0.6, "match_pct": 60, "first": 0.7, "first_pct": 70, "cont": 0.85, "cont_pct": 85},
    vary=lambda rng: (lambda m, f, c: {"k": int(rng.integers(3, 11)), "match": m / 100, "match_pct": m,
                                       "first": f / 100, "first_pct": f, "cont": c / 100, "cont_pct": c})(
        int(pick(rng, (30, 40, 50, 60, 70, 80))), int(pick(rng, (50, 60, 70, 80))), int(pick(rng, (75, 80, 85, 90)))),
    answer=Float("a ratio", decimals=2),
    reference=_ngram,
    hints=("sd.drafters.ngram_round(match_prob, first_accept, continue_prob, k, c_verify=...); c_verify of k "
           "drafts from sd.hardware.verify_cost on sd.hardware.A100 (calibrated) at batch 16.",),
    mistakes=(
        Mistake("ideal-cost", lambda p: _ngram(p, c_verify=1.0), "That assumes verification costs exactly one plain "
                                                                  "step."),
        Mistake("always-match", lambda p: _ngram(p, match=1.0), "Rounds without a match are plain decode steps."),
    ),
))


# 4. A published acceptance rate through Theorem 3.8.
register(Exercise(
    label="engine-drafts-4",
    chapter=CHAPTER,
    question=("Leviathan et al.'s Table 3 gives the bigram draft of T5-XXL on English-German an acceptance rate of "
              "0.19 with sampling (temperature 1). With gamma = 3 and c = 0, what walltime improvement does "
              "Theorem 3.8 give?"),
    statement=("Leviathan et al.'s Table 3 gives the bigram draft of T5-XXL on English-German an acceptance rate of "
               "0.19 with sampling (temperature 1). With $\\gamma = {{gamma}}$ and $c = {{c}}$, what walltime "
               "improvement does Theorem 3.8 give?"),
    params={"gamma": 3, "c": 0.0},
    vary=lambda rng: {"gamma": int(rng.integers(2, 13)), "c": grid(rng, 0.0, 0.05, 0.001)},
    answer=Float("a ratio", decimals=3),
    reference=lambda p: float(economics.improvement_factor(0.19, p.gamma, p.c)),
    hints=("Theorem 3.8 is (1 - alpha^(gamma+1)) / ((1 - alpha)(gamma c + 1)).",),
    mistakes=(
        Mistake("greedy-alpha", lambda p: float(economics.improvement_factor(0.2, p.gamma, p.c)),
                "That is the greedy (temperature 0) acceptance rate."),
        Mistake("gamma-tokens", lambda p: float(expected_tokens(0.19, p.gamma - 1)) / (p.gamma * p.c + 1),
                "A round emits up to gamma + 1 tokens."),
    ),
))


# 5. The cost of a small draft model on a calibrated GPU.
LLAMA_160M = hw.Model(n_params=162_417_408, n_layers=12, d_model=768, n_kv_heads=12, head_dim=64)


#: The calibrated GPUs a variant may ask about (the book's statement names the A100).
_DRAFT_GPUS = {"A100": "A100", "H100 SXM": "H100", "H200 SXM": "H200"}


def _gpu(p, ideal=False):
    name = _DRAFT_GPUS[p.gpu] + ("_IDEAL" if ideal else "")
    return getattr(hw, name)


def _c_draft(p, hardware=None):
    hardware = _gpu(p) if hardware is None else hardware
    return float(hw.draft_cost(LLAMA_160M, cal.LLAMA2_7B, hardware, p.batch, p.context))


def _vary_5(rng):
    # batch x context stays below 98,304 tokens of Vicuna 7B's KV cache (48 GB), so the pair fits in memory
    batch = int(rng.integers(1, 97))
    return {"gpu": str(pick(rng, tuple(_DRAFT_GPUS))), "batch": batch,
            "context": 128 * int(rng.integers(0, min(64, 98_304 // (128 * batch)) + 1))}


register(Exercise(
    label="engine-drafts-5",
    chapter=CHAPTER,
    question=("A 160M draft (JackFram/llama-160m: hidden 768, 12 layers, 12 heads and KV heads, 162,417,408 "
              "parameters) for Vicuna 7B on the calibrated A100 at batch 1, context 512: what is c_d?"),
    statement=("A 160M draft (`JackFram/llama-160m`: hidden 768, 12 layers, 12 attention and KV heads of 64, "
               "162,417,408 parameters) for Vicuna 7B on one calibrated {{gpu}} at batch {{batch}}, context "
               "{{context}}: what is $c_d$?"),
    params={"gpu": "A100", "batch": 1, "context": 512},
    vary=_vary_5,
    answer=Float("a fraction of a target step", sig=3),
    reference=_c_draft,
    hints=("Build sd.hardware.Model(n_params=..., n_layers=12, d_model=768, n_kv_heads=12, head_dim=64) and call "
           "sd.hardware.draft_cost with the calibrated GPU (sd.hardware.A100, H100 or H200).",),
    mistakes=(
        Mistake("ideal", lambda p: _c_draft(p, hardware=_gpu(p, ideal=True)),
                "On the ideal roofline a draft costs only its weight read; use the calibrated A100."),
        Mistake("size-ratio", lambda p: LLAMA_160M.n_params / cal.LLAMA2_7B.n_params,
                "The size ratio ignores the fixed cost every pass pays."),
    ),
))

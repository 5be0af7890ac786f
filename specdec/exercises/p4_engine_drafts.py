"""Exercises of Part IV, chapter 2: "Drafts in today's engines"."""

from __future__ import annotations

from .. import calibration as cal
from .. import drafters, economics
from .. import hardware as hw
from ._registry import Exercise, Mistake, register

CHAPTER = "Part IV · 2 Drafts in today's engines"


def _mtp():
    el = float(drafters.mtp_expected_tokens(0.87))
    return (el, float(drafters.implied_round_cost(el, 1.8)))


register(Exercise(
    label="engine-drafts-1",
    chapter=CHAPTER,
    question=("A depth-1 multi-token-prediction module whose second token is accepted 87 % of the time, measured at "
              "1.8x the plain decoding speed: its tokens per step E[L] and the implied round cost in plain steps. "
              "Answer the tuple (E[L], cost)."),
    kind="numeric",
    reference=_mtp,
    hints=("Depth 1 is a chain of k = 1 draft: E[L] = 1 + acceptance. A round costs E[L] / speedup plain steps.",),
    rtol=1e-3,
    mistakes=(
        Mistake("no-bonus", lambda: (0.87, 0.87 / 1.8), "Each step also emits the target's own token."),
        Mistake("inverted", lambda: (_mtp()[0], 1.8 / _mtp()[0]), "The cost is tokens per round over the speedup."),
    ),
))


def _eagle2_13b():
    t = drafters.spec_bench_table("vicuna-13b")
    j = t["method"].index("EAGLE2")
    return (float(t["implied_round_cost"][j]), float(t["alpha_lower_bound"][j]))


register(Exercise(
    label="engine-drafts-2",
    chapter=CHAPTER,
    question=("Spec-Bench's EAGLE-2 row for Vicuna 13B (sd.drafters.SPEC_BENCH_A100['vicuna-13b']): the implied round "
              "cost in plain steps and the smallest per-position acceptance rate consistent with its acceptance "
              "length. Answer the tuple (cost, alpha_min)."),
    kind="numeric",
    reference=_eagle2_13b,
    hints=("sd.drafters.spec_bench_table('vicuna-13b') lists both; or compute E[L] / speedup and 1 - 1 / E[L].",),
    rtol=1e-3,
    mistakes=(
        Mistake("vicuna-7b", lambda: (float(drafters.implied_round_cost(4.34, 2.36)),
                                      float(drafters.alpha_lower_bound(4.34))), "That is the Vicuna 7B row."),
    ),
))


def _ngram():
    cv = float(hw.verify_cost(cal.LLAMA2_7B, cal.A100_CALIBRATED, 8, 1, 512))
    return float(drafters.ngram_round(0.6, 0.7, 0.85, 8, c_verify=cv).speedup)


register(Exercise(
    label="engine-drafts-3",
    chapter=CHAPTER,
    question=("Prompt lookup proposing k = 8 tokens: a match is found in 60 % of rounds, the first proposed token is "
              "right 70 % of the time and each later one 85 % (given the earlier ones were). With the verification "
              "cost of Vicuna 7B on the calibrated A100 (batch 1, context 512) and a free lookup, what speedup does "
              "it give?"),
    kind="numeric",
    reference=_ngram,
    hints=("sd.drafters.ngram_round(match_prob, first_accept, continue_prob, k, c_verify=...); c_verify of 8 "
           "drafts from sd.hardware.verify_cost on calibration.A100_CALIBRATED.",),
    rtol=1e-3,
    mistakes=(
        Mistake("ideal-cost", lambda: float(drafters.ngram_round(0.6, 0.7, 0.85, 8).speedup),
                "That assumes verification costs exactly one plain step."),
        Mistake("always-match", lambda: float(drafters.ngram_round(
            1.0, 0.7, 0.85, 8, c_verify=float(hw.verify_cost(cal.LLAMA2_7B, cal.A100_CALIBRATED, 8, 1, 512))).speedup),
            "Rounds without a match are plain decode steps."),
    ),
))

register(Exercise(
    label="engine-drafts-4",
    chapter=CHAPTER,
    question=("Leviathan et al.'s Table 3 gives the bigram draft of T5-XXL on English-German an acceptance rate of "
              "0.19 with sampling (temperature 1). With gamma = 3 and c = 0, what walltime improvement does "
              "Theorem 3.8 give?"),
    kind="numeric",
    reference=lambda: float(economics.improvement_factor(0.19, 3, 0.0)),
    hints=("Theorem 3.8 at c = 0 is E[L] = (1 - alpha^(gamma+1)) / (1 - alpha).",),
    rtol=1e-4,
    mistakes=(
        Mistake("greedy-alpha", lambda: float(economics.improvement_factor(0.2, 3, 0.0)),
                "That is the greedy (temperature 0) acceptance rate."),
        Mistake("gamma-tokens", lambda: float((1 - 0.19 ** 3) / (1 - 0.19)), "A round emits up to gamma + 1 tokens."),
    ),
))


def _llama160m():
    m = hw.Model(n_params=162_417_408, n_layers=12, d_model=768, n_kv_heads=12, head_dim=64)
    return float(hw.draft_cost(m, cal.LLAMA2_7B, cal.A100_CALIBRATED, 1, 512))


register(Exercise(
    label="engine-drafts-5",
    chapter=CHAPTER,
    question=("A 160M draft (JackFram/llama-160m: hidden 768, 12 layers, 12 heads and KV heads, 162,417,408 "
              "parameters) for Vicuna 7B on the calibrated A100 at batch 1, context 512: what is c_d?"),
    kind="numeric",
    reference=_llama160m,
    hints=("Build sd.hardware.Model(n_params=..., n_layers=12, d_model=768, n_kv_heads=12, head_dim=64) and call "
           "sd.hardware.draft_cost with calibration.A100_CALIBRATED.",),
    rtol=1e-3,
    mistakes=(
        Mistake("ideal", lambda: float(hw.draft_cost(hw.Model(n_params=162_417_408, n_layers=12, d_model=768,
                                                              n_kv_heads=12, head_dim=64), cal.LLAMA2_7B, hw.A100,
                                                     1, 512)),
                "On the ideal roofline a draft costs only its weight read; use the calibrated A100."),
        Mistake("size-ratio", lambda: 162_417_408 / cal.LLAMA2_7B.n_params,
                "The size ratio ignores the fixed cost every pass pays."),
    ),
))


"""Exercises of Part IV, chapter 5: "Dynamic speculation length"."""

from __future__ import annotations

from .. import dynamic
from ._registry import Exercise, Mistake, register

CHAPTER = "Part IV · 5 Dynamic speculation length"

register(Exercise(
    label="dynamic-k-1",
    chapter=CHAPTER,
    question=("With an oracle that drafts exactly the tokens that will be accepted, at alpha = 0.75: the expected "
              "tokens per target call, and (the book's cost accounting) the walltime improvement when a draft step "
              "costs c = 0.05 target steps. Answer the tuple (tokens, improvement)."),
    kind="numeric",
    reference=lambda: (float(dynamic.oracle_expected_tokens(0.75)), float(dynamic.oracle_improvement_factor(0.75,
                                                                                                           0.05))),
    hints=("The oracle's round emits N + 1 tokens with N geometric: E = 1 / (1 - alpha); it costs N c + 1 steps.",),
    rtol=1e-9,
    mistakes=(
        Mistake("free-draft", lambda: (4.0, 4.0), "The oracle's drafts still cost c each."),
        Mistake("no-bonus", lambda: (3.0, float(dynamic.oracle_improvement_factor(0.75, 0.05))),
                "The target adds its own token to every round."),
    ),
))

register(Exercise(
    label="dynamic-k-2",
    chapter=CHAPTER,
    question=("How much faster is the oracle than the best fixed gamma at alpha = 0.85 and c = 0.1 (both on "
              "Theorem 3.8's assumption that a verification costs one target step)? Answer the ratio."),
    kind="numeric",
    reference=lambda: float(dynamic.oracle_gain(0.85, 0.1)),
    hints=("sd.dynamic.oracle_gain divides the oracle's improvement by the best fixed gamma's.",),
    rtol=1e-9,
    mistakes=(
        Mistake("tokens-only", lambda: float(dynamic.oracle_gain(0.85, 0.0)), "Count the draft's cost c."),
    ),
))


def _heuristic():
    s = dynamic.hf_heuristic_update(20.0, 20, 20)
    s = dynamic.hf_heuristic_update(s, 5, 22)
    return float(dynamic.hf_heuristic_update(s, 21, 21))


register(Exercise(
    label="dynamic-k-3",
    chapter=CHAPTER,
    question=("HF's heuristic schedule starts at 20 drafts. Round 1 accepts all 20; round 2 accepts 5 of the 22 it "
              "drafts; round 3 accepts all 21. What is num_assistant_tokens after round 3?"),
    kind="numeric",
    reference=_heuristic,
    hints=("+2 after a round in which every draft matched, -1 (down to 1) otherwise.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("halving", lambda: 22.0 / 2 + 2, "The rule steps down by 1, not by half."),
    ),
))


def _sim():
    a = dynamic.beta_alphas(300, 0.6, 1.0, rng=11)
    runs = dynamic.compare_schedules(a, 200, rng=2, k=4, c_draft=0.05, c_verify=1.0,
                                     policies=("fixed", "per-request-optimal"))
    return (runs["fixed"].speedup, runs["per-request-optimal"].speedup)


register(Exercise(
    label="dynamic-k-4",
    chapter=CHAPTER,
    question=("300 requests with alpha drawn by sd.dynamic.beta_alphas(300, 0.6, 1.0, rng=11), 200 tokens each, "
              "c_draft = 0.05 and c_verify = 1: the pooled speedup of a fixed k = 4 and of the best k per request "
              "(sd.dynamic.compare_schedules with rng=2). Answer the tuple (fixed, per-request)."),
    kind="numeric",
    reference=_sim,
    hints=("compare_schedules(alphas, n_tokens, rng, k=..., c_draft=..., c_verify=..., policies=(...)) returns "
           "one ScheduleRun per policy; read .speedup.",),
    rtol=1e-9,
    mistakes=(
        Mistake("swapped", lambda: tuple(reversed(_sim())), "The tuple is (fixed, per-request)."),
    ),
))

"""Exercises of the chapter "Dynamic speculation length"."""

from __future__ import annotations

from specdec.serving import dynamic

from .._chapters import Chapter
from .._forms import Float, Integer, Seq
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part4-engines/05-dynamic-k", "Dynamic speculation length")


# 1. The oracle that drafts exactly the tokens that will be accepted.
def _oracle(p):
    return (float(dynamic.oracle_expected_tokens(p.alpha)), float(dynamic.oracle_improvement_factor(p.alpha, p.c)))


register(Exercise(
    label="dynamic-k-1",
    chapter=CHAPTER,
    question=("With an oracle that drafts exactly the tokens that will be accepted, at alpha = 0.75: the expected "
              "tokens per target call, and (the book's cost accounting) the walltime improvement when a draft step "
              "costs c = 0.05 target steps. Answer the tuple (tokens, improvement)."),
    statement=("An oracle drafts exactly the tokens that will be accepted, at $\\alpha = {{alpha}}$. What are the "
               "expected tokens per target call, and (the book's accounting) the walltime improvement when a draft "
               "step costs $c = {{c}}$ target steps? Answer with the tuple `(tokens, improvement)`."),
    params={"alpha": 0.75, "c": 0.05},
    vary=lambda rng: {"alpha": grid(rng, 0.6, 0.9, 0.05), "c": grid(rng, 0.01, 0.15, 0.01)},
    answer=Seq((Float("tokens per target call", decimals=3), Float("a ratio", decimals=3)),
               names=("tokens", "improvement")),
    reference=_oracle,
    hints=("The oracle's round emits N + 1 tokens with N geometric: E = 1 / (1 - alpha); it costs N c + 1 steps.",),
    mistakes=(
        Mistake("free-draft", lambda p: (_oracle(p)[0], _oracle(p)[0]), "The oracle's drafts still cost c each."),
        Mistake("no-bonus", lambda p: (_oracle(p)[0] - 1.0, _oracle(p)[1]),
                "The target adds its own token to every round."),
    ),
))

# 2. The oracle against the best fixed gamma.
register(Exercise(
    label="dynamic-k-2",
    chapter=CHAPTER,
    question=("How much faster is the oracle than the best fixed gamma at alpha = 0.85 and c = 0.1 (both on "
              "Theorem 3.8's assumption that a verification costs one target step)? Answer the ratio."),
    statement=("How much faster is the oracle than the best fixed $\\gamma$ at $\\alpha = {{alpha}}$ and "
               "$c = {{c}}$, with Theorem 3.8's assumption that a verification costs one target step? Answer with "
               "the ratio of the two walltime improvements."),
    params={"alpha": 0.85, "c": 0.1},
    vary=lambda rng: {"alpha": grid(rng, 0.6, 0.9, 0.05), "c": grid(rng, 0.02, 0.2, 0.01)},
    answer=Float("a ratio", decimals=3),
    reference=lambda p: float(dynamic.oracle_gain(p.alpha, p.c)),
    hints=("sd.dynamic.oracle_gain divides the oracle's improvement by the best fixed gamma's.",),
    mistakes=(
        Mistake("tokens-only", lambda p: float(dynamic.oracle_gain(p.alpha, 0.0)), "Count the draft's cost c."),
    ),
))


# 3. Hugging Face's heuristic schedule.
def _wrong_rule(p, up=2, on_miss=lambda value: max(1.0, value - 1.0)):
    """A schedule with another step up or another step down (the typical misreadings of the rule)."""
    value = float(p.start)
    for matches, candidates in p.rounds:
        value = value + up if matches == candidates else on_miss(value)
    return int(value)


def _heuristic_ref(p):
    value = float(p.start)
    for matches, candidates in p.rounds:
        value = float(dynamic.hf_heuristic_update(value, matches, candidates))
    return int(value)


def _vary_3(rng):
    start = int(pick(rng, tuple(range(3, 41))))
    value, rounds = float(start), []
    for _ in range(4):
        drafted = int(value)
        matches = drafted if rng.random() < 0.5 else int(rng.integers(0, drafted))
        rounds.append((matches, drafted))
        value = float(dynamic.hf_heuristic_update(value, matches, drafted))
    return {"start": start, "rounds": tuple(rounds), "described": _describe_rounds(rounds)}


def _describe_rounds(rounds):
    parts = []
    for i, (matches, drafted) in enumerate(rounds, start=1):
        parts.append(f"round {i} accepts all {drafted}" if matches == drafted
                     else f"round {i} accepts {matches} of the {drafted} it drafts")
    return "; ".join(parts)


register(Exercise(
    label="dynamic-k-3",
    chapter=CHAPTER,
    question=("HF's heuristic schedule starts at 20 drafts. Round 1 accepts all 20; round 2 all 22; round 3 accepts "
              "7 of the 24 it drafts; round 4 accepts all 23. What is num_assistant_tokens after round 4?"),
    statement=("Hugging Face's heuristic schedule starts at {{start}} drafts; {{described}}. What is "
               "`num_assistant_tokens` after the last round?"),
    params={"start": 20, "rounds": ((20, 20), (22, 22), (7, 24), (23, 23)),
            "described": _describe_rounds(((20, 20), (22, 22), (7, 24), (23, 23)))},
    vary=_vary_3,
    answer=Integer("a number of draft tokens"),
    reference=_heuristic_ref,
    hints=("+2 after a round in which every draft matched, -1 (down to 1) otherwise.",),
    mistakes=(
        Mistake("halving", lambda p: _wrong_rule(p, on_miss=lambda value: max(1.0, value // 2)),
                "The rule steps down by 1, not by half."),
        Mistake("plus-one", lambda p: _wrong_rule(p, up=1), "A round in which every draft matched adds 2."),
    ),
))


# 4. A fixed k against the best k per request, simulated.
def _runs(p):
    alphas = dynamic.beta_alphas(p.n_requests, p.mean, p.concentration, rng=p.seed)
    runs = dynamic.compare_schedules(alphas, p.n_tokens, rng=2, k=p.k, c_draft=p.c_draft, c_verify=1.0,
                                     policies=("fixed", "per-request-optimal"))
    return (float(runs["fixed"].speedup), float(runs["per-request-optimal"].speedup))


register(Exercise(
    label="dynamic-k-4",
    chapter=CHAPTER,
    question=("300 requests with alpha drawn by sd.dynamic.beta_alphas(300, 0.6, 1.0, rng=11), 200 tokens each, "
              "c_draft = 0.05 and c_verify = 1: the pooled speedup of a fixed k = 4 and of the best k per request "
              "(sd.dynamic.compare_schedules with rng=2). Answer the tuple (fixed, per-request)."),
    statement=("{{n_requests}} requests with $\\alpha$ drawn by `dynamic.beta_alphas({{n_requests}}, {{mean}}, "
               "{{concentration}}, rng={{seed}})`, {{n_tokens}} tokens each, $c_d = {{c_draft}}$ and $c_v = 1$: what "
               "are the pooled speedups of a fixed $k = {{k}}$ and of the best $k$ per request "
               "(`dynamic.compare_schedules` with `rng=2`)? Answer with the tuple `(fixed, per_request)`."),
    params={"n_requests": 300, "mean": 0.6, "concentration": 1.0, "seed": 11, "n_tokens": 200, "c_draft": 0.05,
            "k": 4},
    vary=lambda rng: {"mean": grid(rng, 0.5, 0.8, 0.05), "concentration": grid(rng, 0.5, 4.0, 0.5),
                      "seed": int(rng.integers(0, 100)), "c_draft": grid(rng, 0.02, 0.1, 0.01),
                      "k": int(rng.integers(2, 7))},
    answer=Seq((Float("a ratio", decimals=3),) * 2, names=("fixed", "per_request")),
    reference=_runs,
    hints=("compare_schedules(alphas, n_tokens, rng, k=..., c_draft=..., c_verify=..., policies=(...)) returns "
           "one ScheduleRun per policy; read .speedup.",),
    mistakes=(
        Mistake("swapped", lambda p: tuple(reversed(_runs(p))), "The tuple is (fixed, per_request)."),
    ),
))

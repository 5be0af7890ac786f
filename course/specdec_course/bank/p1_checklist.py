"""Exercises of the chapter "The decision checklist"."""

from __future__ import annotations

from specdec import economics
from specdec.decision import checklist as wl

from .._chapters import Chapter
from .._forms import Flag, Float, Seq
from .._registry import Exercise, Mistake, grid, register

CHAPTER = Chapter("book/part1-speedup-bounds/05-decision-checklist", "The decision checklist")

#: The workload of exercises checklist-1 and checklist-2 (ms).
CODE_COMPLETION = wl.Workload(ttft=80.0, tpot=12.0, batch=8, alpha=0.75, k=4, t0=11.5, t_draft=6.5, t_verify=13.0,
                              t_overhead=0.8, mean_output_tokens=16, t_setup=4.0, name="code completion")

_FIELDS = ("ttft", "tpot", "batch", "alpha", "k", "t0", "t_draft", "t_verify", "t_overhead", "mean_output_tokens",
           "t_setup")


def _workload(p, **changes):
    return wl.Workload(**{name: changes.get(name, p[name]) for name in _FIELDS}, name="exercise")


def _vary_workload(rng):
    k = int(rng.integers(2, 7))
    t0 = grid(rng, 6.0, 20.0, 0.5)
    return {"ttft": grid(rng, 40.0, 400.0, 20.0), "tpot": t0, "batch": int(rng.choice([1, 4, 8, 16, 24, 48, 64])),
            "alpha": grid(rng, 0.5, 0.9, 0.05), "k": k, "t0": t0,
            "t_draft": round(t0 * grid(rng, 0.2, 0.8, 0.05), 1), "t_verify": round(t0 * grid(rng, 1.0, 1.3, 0.05), 1),
            "t_overhead": grid(rng, 0.2, 1.0, 0.1), "mean_output_tokens": int(rng.choice([8, 12, 16, 30, 60, 200])),
            "t_setup": grid(rng, 1.0, 8.0, 1.0)}


_WORKLOAD_STATEMENT = ("A service measures (ms): TTFT {{ttft}}, TPOT {{tpot}}, batch {{batch}}, $\\alpha = {{alpha}}$ "
                       "with $k = {{k}}$, $T_0$ = {{t0}}, $T_\\text{draft}$ = {{t_draft}} for the whole round, "
                       "$T_\\text{verify}$ = {{t_verify}}, $T_\\text{overhead}$ = {{t_overhead}}, "
                       "{{mean_output_tokens}} output tokens on average, setup {{t_setup}}.")


def _flags(assessment):
    return tuple(bool(c.passed) for c in assessment.checks)


def _ref_flags(p):
    return _flags(wl.assess(_workload(p)))


def _flags_per_step_draft(p):
    # reading "T_draft < 0.5 T0" per draft step: the round may cost up to 0.5 * k * T0
    return _flags(wl.assess(_workload(p), draft_fraction=0.5 * p.k))


def _flags_literal_tpot(p):
    # reading "TPOT >> TTFT" literally: one TPOT against TTFT
    literal = wl.assess(_workload(p, mean_output_tokens=2))
    return (_flags(literal)[0],) + _ref_flags(p)[1:]


_CODE = {name: getattr(CODE_COMPLETION, name) for name in _FIELDS}

register(Exercise(
    label="checklist-1",
    chapter=CHAPTER,
    question=("Apply the checklist to the code-completion workload (course.p1_checklist.CODE_COMPLETION): "
              "which of the five checks pass, in the source's order?"),
    statement=_WORKLOAD_STATEMENT + (" Which of the source's five checks pass? Answer with a tuple of five flags in "
                                     "the source's order (True or 1 for pass)."),
    params=_CODE,
    vary=_vary_workload,
    answer=Seq((Flag(),) * 5, names=("decode_bound", "small_batch", "acceptance", "cheap_draft", "long_output")),
    reference=_ref_flags,
    hints=("Use the chapter's reading of each check: decode time is TPOT x (output tokens - 1) against TTFT, "
           "and T_draft is the draft time of the whole round.",),
    mistakes=(
        Mistake("per-step-draft", _flags_per_step_draft,
                "Your draft check reads T_draft as one draft step; in the source T_draft is the whole round's drafting."),
        Mistake("literal-tpot", _flags_literal_tpot,
                "Your decode check compares a single TPOT with TTFT; compare the request's whole decode time."),
    ),
))


def _ref_speedups(p, overhead=True):
    return (economics.speedup(p.alpha, p.k, p.t0, p.t_draft, p.t_verify, p.t_overhead if overhead else 0.0),
            economics.quick_estimate(p.alpha, p.k, p.t0, p.t_draft, p.t_verify))


register(Exercise(
    label="checklist-2",
    chapter=CHAPTER,
    question=("For the same code-completion workload, compute the exact speedup T0 E[L] / T_round and the "
              "source's quick estimate; answer with the tuple (exact, quick)."),
    statement=_WORKLOAD_STATEMENT + (" Compute the exact speedup $T_0\\,E[L]/T_\\text{round}$ and the source's "
                                     "quick estimate. Answer with the tuple `(exact, quick)`."),
    params=_CODE,
    vary=_vary_workload,
    answer=Seq((Float("speedups", decimals=2),) * 2, names=("exact", "quick")),
    reference=_ref_speedups,
    hints=("The exact round time is T_draft + T_verify + T_overhead; the quick estimate divides E[L] by "
           "1 + T_draft/T0 + T_verify/T0.",),
    mistakes=(
        Mistake("swapped", lambda p: _ref_speedups(p)[::-1],
                "The two numbers are in the wrong order: exact first, then the quick estimate."),
        Mistake("no-overhead", lambda p: _ref_speedups(p, overhead=False),
                "Your exact speedup leaves out the per-round overhead."),
    ),
))

register(Exercise(
    label="checklist-3",
    chapter=CHAPTER,
    question=("A draft step costs c_draft = 0.08 of a target step and verification plus overhead costs "
              "c_verify = 1.15. With k = 4, what is the break-even acceptance rate?"),
    statement=("One draft step costs $c_d = {{c_draft}}$ of a target step, the verification pass plus overhead "
               "costs $c_v = {{c_verify}}$, and $k = {{k}}$. Above which acceptance rate does speculation win?"),
    params={"k": 4, "c_draft": 0.08, "c_verify": 1.15},
    vary=lambda rng: {"k": int(rng.integers(2, 7)), "c_draft": grid(rng, 0.02, 0.15, 0.01),
                      "c_verify": grid(rng, 1.0, 1.5, 0.05)},
    answer=Float("an acceptance rate", decimals=3),
    reference=lambda p: economics.break_even_alpha(p.k, p.c_draft, p.c_verify),
    hints=("Solve k c_draft + c_verify = E[L](alpha) = 1 + alpha + ... + alpha^k for alpha "
           "(sd.break_even_alpha does it).",),
    mistakes=(
        Mistake("cdraft-per-round", lambda p: economics.break_even_alpha(p.k, p.c_draft / p.k, p.c_verify),
                "You treated c_draft as the cost of the whole round's drafting; it is one draft step."),
        Mistake("forgot-bonus", lambda p: economics.break_even_alpha(p.k, p.c_draft, p.c_verify + 1.0),
                "You left out the token the target adds every round: E[L] starts at 1."),
    ),
))


def _chat():
    return wl.EXAMPLES["chat"]


def _required(p, c_verify=None):
    c_draft = p.t_draft / (p.k * p.t0)
    c_verify = (p.t_verify + p.t_overhead) / p.t0 if c_verify is None else c_verify
    return economics.required_alpha(p.target, p.k, c_draft, c_verify)


_CHAT = {name: getattr(_chat(), name) for name in ("k", "t0", "t_draft", "t_verify", "t_overhead")}

register(Exercise(
    label="checklist-4",
    chapter=CHAPTER,
    question=("For the chat-assistant workload (sd.checklist.EXAMPLES['chat']), what is the smallest acceptance "
              "rate at which the exact speedup reaches the source's 1.3 rule?"),
    statement=("A chat assistant's round drafts $k = {{k}}$ tokens in $T_\\text{draft}$ = {{t_draft}} ms, verifies in "
               "$T_\\text{verify}$ = {{t_verify}} ms and spends $T_\\text{overhead}$ = {{t_overhead}} ms; a plain "
               "step takes $T_0$ = {{t0}} ms. What is the smallest acceptance rate at which the **exact** speedup "
               "reaches {{target}}?"),
    params={**_CHAT, "target": 1.3},
    # wide enough for 40 students to get 40 different two-decimal answers under any course key
    vary=lambda rng: (lambda k, t0: {"k": k, "t0": t0, "t_draft": round(grid(rng, 0.04, 0.15, 0.01) * t0 * k, 1),
                                     "t_verify": round(t0 * grid(rng, 1.0, 1.3, 0.05), 1),
                                     "target": grid(rng, 1.1, 1.8, 0.05)})(int(rng.integers(2, 8)),
                                                                            grid(rng, 4.0, 12.0, 0.2)),
    answer=Float("an acceptance rate", decimals=2),
    reference=_required,
    hints=("Speedup >= target means E[L] >= target x (k c_d + c_v): a break-even problem with every cost "
           "scaled by the target (sd.economics.required_alpha).",),
    mistakes=(
        Mistake("quick-estimate", lambda p: _required(p, economics.quick_estimate_costs(p.k, p.t0, p.t_draft,
                                                                                       p.t_verify)[1]),
                "That is where the source's quick estimate reaches the target; the question asks for the exact "
                "speedup."),
        Mistake("break-even", lambda p: _required(p.replace(target=1.0)),
                "That acceptance rate only breaks even (speedup 1); the question asks for more."),
    ),
))

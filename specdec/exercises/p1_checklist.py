"""Exercises of Part I, chapter 5: "The decision checklist"."""

from __future__ import annotations

from .. import economics
from .. import checklist as wl
from ._registry import Exercise, Mistake, register

CHAPTER = "Part I · 5 The decision checklist"

#: The workload of exercises checklist-1 and checklist-2 (ms).
CODE_COMPLETION = wl.Workload(ttft=80.0, tpot=12.0, batch=8, alpha=0.75, k=4, t0=11.5, t_draft=6.5, t_verify=13.0,
                              t_overhead=0.8, mean_output_tokens=16, t_setup=4.0, name="code completion")


def _flags(assessment):
    return tuple(int(c.passed) for c in assessment.checks)


def _ref_flags():
    return _flags(wl.assess(CODE_COMPLETION))


def _flags_per_step_draft():
    # reading "T_draft < 0.5 T0" per draft step: the round may cost up to 0.5 * k * T0
    return _flags(wl.assess(CODE_COMPLETION, draft_fraction=0.5 * CODE_COMPLETION.k))


def _flags_literal_tpot():
    # reading "TPOT >> TTFT" literally: one TPOT against TTFT
    literal = wl.assess(CODE_COMPLETION.replace(mean_output_tokens=2))
    return (_flags(literal)[0],) + _ref_flags()[1:]


register(Exercise(
    label="checklist-1",
    chapter=CHAPTER,
    question=("Apply the checklist to the code-completion workload (sd.exercises.p1_checklist.CODE_COMPLETION): "
              "give a tuple of five flags, 1 for pass and 0 for fail, in the source's order."),
    kind="numeric",
    reference=_ref_flags,
    hints=("Use the chapter's reading of each check: decode time is TPOT x (output tokens - 1) against TTFT, "
           "and T_draft is the draft time of the whole round.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("per-step-draft", _flags_per_step_draft,
                "Your draft check reads T_draft as one draft step; in the source T_draft is the whole round's drafting."),
        Mistake("literal-tpot", _flags_literal_tpot,
                "Your decode check compares a single TPOT with TTFT; compare the request's whole decode time."),
    ),
))


def _ref_speedups():
    w = CODE_COMPLETION
    return (economics.speedup(w.alpha, w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead),
            economics.quick_estimate(w.alpha, w.k, w.t0, w.t_draft, w.t_verify))


register(Exercise(
    label="checklist-2",
    chapter=CHAPTER,
    question=("For the same code-completion workload, compute the exact speedup T0 E[L] / T_round and the "
              "source's quick estimate; answer with the tuple (exact, quick)."),
    kind="numeric",
    reference=_ref_speedups,
    hints=("The exact round time is T_draft + T_verify + T_overhead; the quick estimate divides E[L] by "
           "1 + T_draft/T0 + T_verify/T0.",),
    rtol=1e-3,
    mistakes=(
        Mistake("swapped", lambda: _ref_speedups()[::-1],
                "The two numbers are in the wrong order: exact first, then the quick estimate."),
        Mistake("no-overhead", lambda: (economics.speedup(CODE_COMPLETION.alpha, CODE_COMPLETION.k, CODE_COMPLETION.t0,
                                                          CODE_COMPLETION.t_draft, CODE_COMPLETION.t_verify),
                                        _ref_speedups()[1]),
                "Your exact speedup leaves out the per-round overhead."),
    ),
))

# Self-check item 6 of the source: the break-even acceptance rate for given costs.
_K, _CD, _CV = 4, 0.08, 1.15

register(Exercise(
    label="checklist-3",
    chapter=CHAPTER,
    question=(f"A draft step costs c_draft = {_CD} of a target step and verification plus overhead costs "
              f"c_verify = {_CV}. With k = {_K}, what is the break-even acceptance rate?"),
    kind="numeric",
    reference=lambda: economics.break_even_alpha(_K, _CD, _CV),
    hints=("Solve k c_draft + c_verify = E[L](alpha) = 1 + alpha + ... + alpha^k for alpha "
           "(sd.break_even_alpha does it).",),
    rtol=1e-4,
    mistakes=(
        Mistake("cdraft-per-round", lambda: economics.break_even_alpha(_K, _CD / _K, _CV),
                "You treated c_draft as the cost of the whole round's drafting; it is one draft step."),
        Mistake("forgot-bonus", lambda: economics.break_even_alpha(_K, _CD, _CV + 1.0),
                "You left out the token the target adds every round: E[L] starts at 1."),
    ),
))


def _quick_verify_cost():
    w = wl.EXAMPLES["chat"]
    return economics.quick_estimate_costs(w.k, w.t0, w.t_draft, w.t_verify)[1]


def _chat_required(speedup_target, verify):
    w = wl.EXAMPLES["chat"]
    return economics.required_alpha(speedup_target, w.k, w.c_draft, verify)


register(Exercise(
    label="checklist-4",
    chapter=CHAPTER,
    question=("For the chat-assistant workload (sd.checklist.EXAMPLES['chat']), what is the smallest acceptance "
              "rate at which the exact speedup reaches the source's 1.3 rule?"),
    kind="numeric",
    reference=lambda: _chat_required(1.3, wl.EXAMPLES["chat"].c_verify),
    hints=("Speedup >= 1.3 means E[L] >= 1.3 (k c_draft + c_verify): a break-even problem with every cost "
           "scaled by 1.3 (sd.economics.required_alpha).",),
    rtol=1e-4,
    mistakes=(
        Mistake("quick-estimate", lambda: _chat_required(1.3, _quick_verify_cost()),
                "That is where the source's quick estimate reaches 1.3; the question asks for the exact speedup."),
        Mistake("break-even", lambda: _chat_required(1.0, wl.EXAMPLES["chat"].c_verify),
                "That acceptance rate only breaks even (speedup 1); the rule asks for 1.3."),
    ),
))

"""Exercises of Part I, chapter 2: "The speedup formula".

Every expected answer is computed with ``specdec`` from the inputs stated in
the question; every typical mistake is computed too (never typed).
"""

from __future__ import annotations

import numpy as np

from .. import acceptance, economics
from ._registry import Exercise, Mistake, register

CHAPTER = "Part I · 2 The speedup formula"

#: Inputs of exercise speedup-formula-1 (times in ms).
SELF_CHECK = {"alpha": 0.7, "k": 4, "t0": 12.0, "t_draft": 4.0, "t_verify": 14.0, "t_overhead": 1.0}

#: The first source's worked example (times in ms).
WORKED = {"alpha": 0.8, "k": 5, "t0": 5.2, "t_draft": 2.5, "t_verify": 6.0, "t_overhead": 0.5}


def _speedup(p, **changes):
    q = {**p, **changes}
    return economics.speedup(q["alpha"], q["k"], q["t0"], q["t_draft"], q["t_verify"], q["t_overhead"])


# 1. The source's self-check item: a speedup from given times and acceptance.
_S = SELF_CHECK
register(Exercise(
    label="speedup-formula-1",
    chapter=CHAPTER,
    question=(f"A target decode step takes T0 = {_S['t0']:g} ms. One round drafts k = {_S['k']} tokens in "
              f"T_draft = {_S['t_draft']:g} ms, verifies in T_verify = {_S['t_verify']:g} ms and spends "
              f"T_overhead = {_S['t_overhead']:g} ms; alpha = {_S['alpha']:g}. What is the speedup?"),
    kind="numeric",
    reference=lambda: _speedup(SELF_CHECK),
    hints=("Plain decoding would need E[L] target steps for the tokens one round emits on average; "
           "divide that time by the round's time.",),
    rtol=1e-3,
    mistakes=(
        Mistake("quick-estimate", lambda: economics.quick_estimate(_S["alpha"], _S["k"], _S["t0"], _S["t_draft"], _S["t_verify"]),
                "That is the source's quick estimate, which charges an extra target step per round and no overhead."),
        Mistake("no-overhead", lambda: _speedup(SELF_CHECK, t_overhead=0.0),
                "Your round time leaves out the overhead."),
        Mistake("theoretical", lambda: acceptance.expected_tokens(_S["alpha"], _S["k"]),
                "That is the speedup only if a whole round cost one target step; use the round's real time."),
        Mistake("all-accepted", lambda: _S["t0"] * (_S["k"] + 1) / (_S["t_draft"] + _S["t_verify"] + _S["t_overhead"]),
                "You assumed every draft is accepted; use the expected number of tokens per round."),
    ),
))


# 2. From the time form to the cost-fraction form.
_W = WORKED
register(Exercise(
    label="speedup-formula-2",
    chapter=CHAPTER,
    question=("Express the worked example (T0 = 5.2 ms, T_draft = 2.5 ms for k = 5, T_verify = 6.0 ms, "
              "T_overhead = 0.5 ms) in the cost-fraction form: give the tuple (c_draft, c_verify), where c_draft "
              "is ONE draft step and c_verify includes the overhead, both as fractions of T0."),
    kind="numeric",
    reference=lambda: economics.costs_from_times(_W["k"], _W["t0"], _W["t_draft"], _W["t_verify"], _W["t_overhead"]),
    hints=("T_draft covers all k draft steps; the overhead is paid once per round, like verification.",),
    rtol=1e-3,
    mistakes=(
        Mistake("draft-per-round", lambda: (_W["t_draft"] / _W["t0"], (_W["t_verify"] + _W["t_overhead"]) / _W["t0"]),
                "Your c_draft is the whole round's drafting; the cost form counts one draft step."),
        Mistake("no-overhead", lambda: (_W["t_draft"] / (_W["k"] * _W["t0"]), _W["t_verify"] / _W["t0"]),
                "Your c_verify leaves out the per-round overhead, so the two forms would give different speedups."),
    ),
))


# 3. Inverting the formula: what verification time gives a target speedup?
def _verify_for(target, tokens):
    return _W["t0"] * tokens / target - _W["t_draft"] - _W["t_overhead"]


register(Exercise(
    label="speedup-formula-3",
    chapter=CHAPTER,
    question=("Keep the worked example's other inputs. How fast (in ms) must verification be for the "
              "speedup to reach exactly 2.5x?"),
    kind="numeric",
    reference=lambda: _verify_for(2.5, acceptance.expected_tokens(_W["alpha"], _W["k"])),
    hints=("Solve T0 E[L] / (T_draft + T_verify + T_overhead) = 2.5 for T_verify, with E[L] unrounded.",),
    rtol=1e-3,
    mistakes=(
        Mistake("rounded-tokens", lambda: _verify_for(2.5, round(acceptance.expected_tokens(_W["alpha"], _W["k"]), 1)),
                "Close: you used E[L] rounded to one decimal, as the source prints it; use the exact value."),
        Mistake("no-overhead", lambda: _verify_for(2.5, acceptance.expected_tokens(_W["alpha"], _W["k"])) + _W["t_overhead"],
                "The round also spends the overhead; leave room for it."),
    ),
))


# 4. The best k when verification grows with k.
def _best_k(slope, k_max=16):
    ks = np.arange(1, k_max + 1)
    per_step = _W["t_draft"] / _W["k"]
    curve = economics.speedup(_W["alpha"], ks, _W["t0"], per_step * ks, _W["t_verify"] + slope * (ks - _W["k"]),
                              _W["t_overhead"])
    return int(ks[np.argmax(curve)])


register(Exercise(
    label="speedup-formula-4",
    chapter=CHAPTER,
    question=("In the worked example, let each draft step cost 0.5 ms (so T_draft = 0.5 k ms) and let "
              "verification grow by 0.4 ms per extra draft position: T_verify = 6.0 + 0.4 (k - 5) ms. "
              "Overhead stays 0.5 ms and alpha = 0.8. Which k in 1..16 gives the highest speedup?"),
    kind="numeric",
    reference=lambda: _best_k(0.4),
    hints=("Evaluate sd.speedup on an array of k with the times rescaled for each k, and take the argmax.",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("constant-verify", lambda: _best_k(0.0),
                "That is the best k when verification time does not grow; include the 0.4 ms per position."),
    ),
))

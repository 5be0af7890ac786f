"""Exercises of Part II, chapter 3: "The break-even condition"."""

from __future__ import annotations

import numpy as np

from .. import drafts, economics
from ..acceptance import expected_tokens
from ._registry import Exercise, Mistake, register

CHAPTER = "Part II · 3 The break-even condition"

#: break-even-1: measured times (ms) of a small deployment.
MEASURED = dict(k=3, t0=20.0, t_draft_step=1.5, t_verify=23.0)


def _costs():
    m = MEASURED
    return m["t_draft_step"] / m["t0"], m["t_verify"] / m["t0"]


def _ref_1():
    c_draft, c_verify = _costs()
    return economics.break_even_alpha(MEASURED["k"], c_draft, c_verify)


register(Exercise(
    label="break-even-1",
    chapter=CHAPTER,
    question=("A deployment measures T0 = 20 ms per target step, 1.5 ms per draft step and 23 ms per "
              "verification pass (overhead included) with k = 3. What is the break-even acceptance rate?"),
    kind="numeric",
    reference=_ref_1,
    hints=("Turn the times into fractions of T0, add up the round cost k c_d + c_v, then solve "
           "1 + alpha + alpha^2 + alpha^3 = cost for alpha in (0, 1).",),
    rtol=1e-4,
    mistakes=(
        Mistake("no-draft-cost", lambda: economics.break_even_alpha(MEASURED["k"], 0.0, _costs()[1]),
                "Your round cost leaves out the k draft steps."),
        Mistake("one-draft-step", lambda: economics.break_even_alpha(MEASURED["k"], _costs()[0] / MEASURED["k"],
                                                                     _costs()[1]),
                "1.5 ms is the cost of ONE draft step; the round runs k of them."),
        Mistake("linearized", lambda: MEASURED["k"] * _costs()[0] + _costs()[1] - 1.0,
                "That is the k = 1 answer (cost - 1); with k = 3 the condition is a cubic in alpha."),
    ),
))

#: break-even-2: two configurations with their measured alpha.
CONFIG_A = dict(alpha=0.45, k=3, c_draft=0.03, c_verify=1.05)
CONFIG_B = dict(alpha=0.65, k=8, c_draft=0.25, c_verify=1.4)


def _letter(a_wins: bool, b_wins: bool) -> str:
    return {(True, True): "A", (True, False): "B", (False, True): "C", (False, False): "D"}[(a_wins, b_wins)]


def _wins(config) -> bool:
    c = config
    return c["alpha"] > economics.break_even_alpha(c["k"], c["c_draft"], c["c_verify"])


register(Exercise(
    label="break-even-2",
    chapter=CHAPTER,
    question=("Configuration 1: alpha = 0.45, k = 3, c_draft = 0.03, c_verify = 1.05. Configuration 2: "
              "alpha = 0.65, k = 8, c_draft = 0.25, c_verify = 1.4. Which is a net saving?"),
    kind="choice",
    reference=lambda: _letter(_wins(CONFIG_A), _wins(CONFIG_B)),
    choices={"A": "both", "B": "only configuration 1", "C": "only configuration 2", "D": "neither"},
    hints=("Compare each measured alpha with that configuration's own break-even alpha "
           "(or compute E[L] / (k c_d + c_v) and compare it with 1).",),
    mistakes=(
        Mistake("alpha-rule", lambda: _letter(CONFIG_A["alpha"] > 0.6, CONFIG_B["alpha"] > 0.6),
                "A fixed rule such as 'alpha above 0.6' ignores the costs: the threshold depends on k, c_d and c_v."),
    ),
))

#: break-even-3: verification cost growing with k.
GROWING = dict(alpha=0.75, c_draft=0.05, base=1.1, per_draft=0.08)


def _ref_3():
    g = GROWING
    return economics.optimal_k(g["alpha"], g["c_draft"], drafts.verify_cost_linear(np.arange(1, 65), g["base"],
                                                                                  g["per_draft"]), k_max=64)


def _min_threshold_k():
    g = GROWING
    ks = np.arange(1, 65)
    return economics.lowest_break_even_alpha(g["c_draft"], drafts.verify_cost_linear(ks, g["base"], g["per_draft"]),
                                             k_max=64)[0]


register(Exercise(
    label="break-even-3",
    chapter=CHAPTER,
    question=("With alpha = 0.75, c_draft = 0.05 and a verification pass costing c_v(k) = 1.1 + 0.08 k, "
              "which k (1 to 64) gives the largest speedup?"),
    kind="numeric",
    reference=_ref_3,
    hints=("Evaluate E[L](alpha, k) / (k c_d + c_v(k)) for every k and take the largest; "
           "sd.drafts.verify_cost_linear gives c_v(k).",),
    rtol=0.0,
    atol=0.0,
    mistakes=(
        Mistake("constant-verify", lambda: economics.optimal_k(GROWING["alpha"], GROWING["c_draft"], GROWING["base"]),
                "You held the verification cost fixed; here it grows with k."),
        Mistake("min-threshold", _min_threshold_k,
                "That k has the lowest break-even alpha, which is not the k with the largest speedup at the "
                "measured alpha."),
    ),
))

#: break-even-4: the largest affordable verification pass.
BUDGET = dict(alpha=0.6, k=4, c_draft=0.05)


def _ref_4():
    b = BUDGET
    return expected_tokens(b["alpha"], b["k"]) - b["k"] * b["c_draft"]


register(Exercise(
    label="break-even-4",
    chapter=CHAPTER,
    question=("A draft with c_draft = 0.05 runs k = 4 drafts per round and is measured at alpha = 0.6. "
              "Up to what verification cost c_verify (in target steps) is speculation still a net saving?"),
    kind="numeric",
    reference=_ref_4,
    hints=("At break-even the round cost equals E[L]; solve k c_d + c_v = E[L] for c_v.",),
    rtol=1e-6,
    mistakes=(
        Mistake("no-draft-cost", lambda: expected_tokens(BUDGET["alpha"], BUDGET["k"]),
                "The budget E[L] also has to pay for the k draft steps."),
        Mistake("no-bonus", lambda: expected_tokens(BUDGET["alpha"], BUDGET["k"]) - 1 - BUDGET["k"] * BUDGET["c_draft"],
                "E[L] counts the target's own token too: a round yields 1 + alpha + ... + alpha^k tokens."),
    ),
))

"""Exercises of the chapter "The break-even condition"."""

from __future__ import annotations

import numpy as np

from specdec import drafts, economics
from specdec.acceptance import expected_tokens

from .._chapters import Chapter
from .._forms import Float, Integer, Letter, Seq
from .._registry import Exercise, Mistake, grid, register

CHAPTER = Chapter("book/part2-cost-accounting/03-break-even", "The break-even condition")

#: break-even-1: measured times (ms) of a small deployment.
MEASURED = dict(k=3, t0=20.0, t_draft_step=1.5, t_verify=23.0)


def _costs(p):
    return p.t_draft_step / p.t0, p.t_verify / p.t0


def _ref_1(p):
    c_draft, c_verify = _costs(p)
    return economics.break_even_alpha(p.k, c_draft, c_verify)


def _vary_1(rng):
    t0 = grid(rng, 10.0, 40.0, 2.0)
    return {"k": int(rng.integers(2, 7)), "t0": t0, "t_draft_step": round(t0 * grid(rng, 0.02, 0.12, 0.01), 1),
            "t_verify": round(t0 * grid(rng, 1.0, 1.4, 0.05) * 2) / 2}


register(Exercise(
    label="break-even-1",
    chapter=CHAPTER,
    question=("A deployment measures T0 = 20 ms per target step, 1.5 ms per draft step and 23 ms per "
              "verification pass (overhead included) with k = 3. What is the break-even acceptance rate?"),
    statement=("A deployment measures $T_0$ = {{t0}} ms per target step, {{t_draft_step}} ms per draft step and "
               "{{t_verify}} ms per verification pass (overhead included), with $k = {{k}}$. Compute the break-even "
               "$\\alpha$ by hand (set up the polynomial and solve it numerically, e.g. by a few bisection steps) "
               "and with `specdec`."),
    params=MEASURED,
    vary=_vary_1,
    answer=Float("an acceptance rate", decimals=3),
    reference=_ref_1,
    hints=("Turn the times into fractions of T0, add up the round cost k c_d + c_v, then solve "
           "1 + alpha + ... + alpha^k = cost for alpha in (0, 1).",),
    mistakes=(
        Mistake("no-draft-cost", lambda p: economics.break_even_alpha(p.k, 0.0, _costs(p)[1]),
                "Your round cost leaves out the k draft steps."),
        Mistake("one-draft-step", lambda p: economics.break_even_alpha(p.k, _costs(p)[0] / p.k, _costs(p)[1]),
                "The draft time given is the cost of ONE draft step; the round runs k of them."),
        Mistake("linearized", lambda p: p.k * _costs(p)[0] + _costs(p)[1] - 1.0,
                "That is the k = 1 answer (cost - 1); with more drafts the condition is a polynomial of degree k "
                "in alpha."),
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
    answer=Letter("ABCD"),
    reference=lambda p: _letter(_wins(CONFIG_A), _wins(CONFIG_B)),
    choices={"A": "both", "B": "only configuration 1", "C": "only configuration 2", "D": "neither"},
    hints=("Compare each measured alpha with that configuration's own break-even alpha "
           "(or compute E[L] / (k c_d + c_v) and compare it with 1).",),
    mistakes=(
        Mistake("alpha-rule", lambda p: _letter(CONFIG_A["alpha"] > 0.6, CONFIG_B["alpha"] > 0.6),
                "A fixed rule such as 'alpha above 0.6' ignores the costs: the threshold depends on k, c_d and c_v."),
    ),
))


#: break-even-3: verification cost growing with k.
GROWING = dict(alpha=0.75, c_draft=0.05, base=1.1, per_draft=0.08, k_max=64)


def _verify_costs(p, per_draft=None):
    per_draft = p.per_draft if per_draft is None else per_draft
    return drafts.verify_cost_linear(np.arange(1, p.k_max + 1), p.base, per_draft)


def _best(p, per_draft=None):
    return int(economics.optimal_k(p.alpha, p.c_draft, _verify_costs(p, per_draft), k_max=p.k_max))


def _lowest_threshold_k(p):
    return int(economics.lowest_break_even_alpha(p.c_draft, _verify_costs(p), k_max=p.k_max)[0])


register(Exercise(
    label="break-even-3",
    chapter=CHAPTER,
    question=("With alpha = 0.75, c_draft = 0.05 and c_v(k) = 1.1 + 0.08 k: which k (1 to 64) gives the largest "
              "speedup, and which k has the lowest break-even alpha?"),
    statement=("With $\\alpha = {{alpha}}$, $c_d = {{c_draft}}$ and a verification pass that costs "
               "$c_v(k) = {{base}} + {{per_draft}}\\,k$, which $k$ between 1 and {{k_max}} gives the largest "
               "speedup, and which $k$ has the lowest break-even $\\alpha$? Answer with the tuple "
               "`(best_k, lowest_threshold_k)`."),
    params=GROWING,
    vary=lambda rng: {"alpha": grid(rng, 0.5, 0.97, 0.01), "c_draft": grid(rng, 0.005, 0.15, 0.005),
                      "base": grid(rng, 1.0, 1.5, 0.05), "per_draft": grid(rng, 0.005, 0.2, 0.005)},
    answer=Seq((Integer("draft lengths k"),) * 2, names=("best_k", "lowest_threshold_k")),
    reference=lambda p: (_best(p), _lowest_threshold_k(p)),
    hints=("Evaluate E[L](alpha, k) / (k c_d + c_v(k)) for every k and take the largest; the threshold asks where "
           "the speedup reaches 1, which is a different question (sd.economics.lowest_break_even_alpha).",),
    mistakes=(
        Mistake("constant-verify", lambda p: (_best(p, per_draft=0.0), _lowest_threshold_k(p)),
                "You held the verification cost fixed; here it grows with k."),
        Mistake("same-k", lambda p: (_lowest_threshold_k(p), _lowest_threshold_k(p)),
                "The k with the lowest break-even alpha is not the k with the largest speedup at the measured "
                "alpha."),
        Mistake("swapped", lambda p: (_lowest_threshold_k(p), _best(p)),
                "The two values are in the wrong order: the best k first."),
    ),
))

#: break-even-4: the largest affordable verification pass.
BUDGET = dict(alpha=0.6, k=4, c_draft=0.05)


register(Exercise(
    label="break-even-4",
    chapter=CHAPTER,
    question=("A draft with c_draft = 0.05 runs k = 4 drafts per round and is measured at alpha = 0.6. "
              "Up to what verification cost c_verify (in target steps) is speculation still a net saving?"),
    statement=("A draft with $c_d = {{c_draft}}$ runs $k = {{k}}$ drafts per round and is measured at "
               "$\\alpha = {{alpha}}$. Up to what verification cost $c_v$ (in target steps, overhead included) is "
               "speculation still a net saving?"),
    params=BUDGET,
    vary=lambda rng: {"alpha": grid(rng, 0.5, 0.9, 0.05), "k": int(rng.integers(2, 9)),
                      "c_draft": grid(rng, 0.02, 0.12, 0.01)},
    answer=Float("in target steps", decimals=2),
    reference=lambda p: float(expected_tokens(p.alpha, p.k)) - p.k * p.c_draft,
    hints=("At break-even the round cost equals E[L]; solve k c_d + c_v = E[L] for c_v.",),
    mistakes=(
        Mistake("no-draft-cost", lambda p: float(expected_tokens(p.alpha, p.k)),
                "The budget E[L] also has to pay for the k draft steps."),
        Mistake("no-bonus", lambda p: float(expected_tokens(p.alpha, p.k)) - 1 - p.k * p.c_draft,
                "E[L] counts the target's own token too: a round yields 1 + alpha + ... + alpha^k tokens."),
    ),
))

#: break-even-5: the from-scratch polynomial with a fixed overhead per round (times in ms).
OVERHEAD = dict(k=3, c_draft=0.05, c_verify=1.2, t0=5.2, t_overhead=0.8)


def _break_even_with_overhead(p):
    c_draft, c_verify = economics.costs_from_times(p.k, p.t0, p.k * p.c_draft * p.t0, p.c_verify * p.t0,
                                                   p.t_overhead)
    return economics.break_even_alpha(p.k, c_draft, c_verify)


register(Exercise(
    label="break-even-5",
    chapter=CHAPTER,
    question=("The from-scratch break-even example (k = 3, c_draft = 0.05, c_verify = 1.2) also pays a fixed "
              "overhead of 0.8 ms per round, with T0 = 5.2 ms. What is the new break-even acceptance rate?"),
    statement=("Each round of the from-scratch example ($k = {{k}}$, $c_d = {{c_draft}}$, $c_v = {{c_verify}}$) "
               "also pays a fixed overhead $T_\\text{overhead}$ = {{t_overhead}} ms, on a target whose decode step "
               "takes $T_0$ = {{t0}} ms. Add the overhead to the round cost of the from-scratch sympy cell, as a "
               "fraction of $T_0$, re-run it and report the new break-even $\\alpha$."),
    params=OVERHEAD,
    vary=lambda rng: {"k": int(rng.integers(2, 6)), "c_draft": grid(rng, 0.02, 0.1, 0.01),
                      "c_verify": grid(rng, 1.0, 1.3, 0.05), "t0": grid(rng, 4.0, 20.0, 0.2),
                      "t_overhead": grid(rng, 0.2, 2.0, 0.1)},
    answer=Float("an acceptance rate", decimals=3),
    reference=_break_even_with_overhead,
    hints=("The overhead is paid once per round, like the verification pass: add T_overhead / T0 to the round "
           "cost k c_d + c_v, then find the root in (0, 1) of 1 + alpha + ... + alpha^k - cost.",),
    mistakes=(
        Mistake("no-overhead", lambda p: economics.break_even_alpha(p.k, p.c_draft, p.c_verify),
                "That is the break-even without the overhead; add it to the round cost."),
        Mistake("overhead-in-ms", lambda p: economics.break_even_alpha(p.k, p.c_draft, p.c_verify + p.t_overhead),
                "The overhead is a time; divide it by T0 to express it in target steps, like c_d and c_v."),
        Mistake("overhead-per-draft",
                lambda p: economics.break_even_alpha(p.k, p.c_draft + p.t_overhead / p.t0, p.c_verify),
                "The overhead is paid once per round, not once per draft step."),
    ),
))

"""Exercises of the chapter "The speedup formula".

Every expected answer is computed with ``specdec`` from the exercise's inputs;
every typical mistake is computed too (never typed).
"""

from __future__ import annotations

import numpy as np

from specdec import acceptance, economics

from .._chapters import Chapter
from .._forms import Float, Integer, Seq
from .._registry import Exercise, Mistake, grid, register

CHAPTER = Chapter("book/part1-speedup-bounds/02-speedup-formula", "The speedup formula")

#: Inputs of exercise speedup-formula-1 (times in ms).
SELF_CHECK = {"alpha": 0.7, "k": 4, "t0": 12.0, "t_draft": 4.0, "t_verify": 14.0, "t_overhead": 1.0}

_SPEEDUP = Float("a ratio", decimals=2)


def _speedup(p, **changes):
    q = {**dict(p), **changes}
    return economics.speedup(q["alpha"], q["k"], q["t0"], q["t_draft"], q["t_verify"], q["t_overhead"])


def _vary_times(rng):
    """A round's times (ms) around a plain step T0: drafts cheap, verification a little above T0."""
    k = int(rng.integers(2, 7))
    t0 = grid(rng, 6.0, 20.0, 1.0)
    per_step = grid(rng, 0.05, 0.15, 0.01) * t0
    return {"alpha": grid(rng, 0.55, 0.9, 0.05), "k": k, "t0": t0,
            "t_draft": round(per_step * k, 1), "t_verify": round(t0 * grid(rng, 1.0, 1.3, 0.05), 1),
            "t_overhead": grid(rng, 0.2, 1.5, 0.1)}


_TIMES_STATEMENT = ("A target decode step takes $T_0 = {{t0}}$ ms. One round drafts $k = {{k}}$ tokens in "
                    "$T_\\text{draft} = {{t_draft}}$ ms, verifies in $T_\\text{verify} = {{t_verify}}$ ms and "
                    "spends $T_\\text{overhead} = {{t_overhead}}$ ms; the acceptance rate is $\\alpha = {{alpha}}$.")


# 1. The source's self-check item: a speedup from given times and acceptance.
register(Exercise(
    label="speedup-formula-1",
    chapter=CHAPTER,
    question=("T0 = 12 ms, k = 4 drafts in T_draft = 4 ms, T_verify = 14 ms, T_overhead = 1 ms, alpha = 0.7: "
              "what is the speedup?"),
    statement=_TIMES_STATEMENT + " What is the speedup?",
    params=SELF_CHECK,
    vary=_vary_times,
    answer=_SPEEDUP,
    reference=_speedup,
    hints=("Plain decoding would need E[L] target steps for the tokens one round emits on average; "
           "divide that time by the round's time.",),
    mistakes=(
        Mistake("quick-estimate", lambda p: economics.quick_estimate(p.alpha, p.k, p.t0, p.t_draft, p.t_verify),
                "That is the source's quick estimate, which charges an extra target step per round and no overhead."),
        Mistake("no-overhead", lambda p: _speedup(p, t_overhead=0.0),
                "Your round time leaves out the overhead."),
        Mistake("theoretical", lambda p: acceptance.expected_tokens(p.alpha, p.k),
                "That is the speedup only if a whole round cost one target step; use the round's real time."),
        Mistake("all-accepted", lambda p: p.t0 * (p.k + 1) / (p.t_draft + p.t_verify + p.t_overhead),
                "You assumed every draft is accepted; use the expected number of tokens per round."),
    ),
))


# 2. From the time form to the cost-fraction form.
def _costs(p):
    return economics.costs_from_times(p.k, p.t0, p.t_draft, p.t_verify, p.t_overhead)


register(Exercise(
    label="speedup-formula-2",
    chapter=CHAPTER,
    question=("Express a second setup (T0 = 8.0 ms, T_draft = 2.4 ms for k = 4, T_verify = 9.0 ms, "
              "T_overhead = 0.6 ms) in the cost-fraction form: the tuple (c_draft, c_verify), c_draft for ONE draft "
              "step and c_verify including the overhead, as fractions of T0."),
    statement=("A target decode step takes $T_0 = {{t0}}$ ms; drafting $k = {{k}}$ tokens takes "
               "$T_\\text{draft} = {{t_draft}}$ ms, verification $T_\\text{verify} = {{t_verify}}$ ms and the round's "
               "overhead $T_\\text{overhead} = {{t_overhead}}$ ms. Express these in the cost-fraction form: give the "
               "tuple $(c_d, c_v)$, where $c_d$ is **one** draft step and $c_v$ the verification pass **including** "
               "the overhead, both as fractions of $T_0$."),
    # not the worked example: the chapter's explorer shows the worked example's c_d and c_v
    params={"alpha": 0.75, "k": 4, "t0": 8.0, "t_draft": 2.4, "t_verify": 9.0, "t_overhead": 0.6},
    vary=_vary_times,
    answer=Seq((Float("fractions of T0", decimals=3),) * 2, names=("c_draft", "c_verify")),
    reference=_costs,
    hints=("T_draft covers all k draft steps; the overhead is paid once per round, like verification.",),
    mistakes=(
        Mistake("draft-per-round", lambda p: (p.t_draft / p.t0, (p.t_verify + p.t_overhead) / p.t0),
                "Your c_draft is the whole round's drafting; the cost form counts one draft step."),
        Mistake("no-overhead", lambda p: (p.t_draft / (p.k * p.t0), p.t_verify / p.t0),
                "Your c_verify leaves out the per-round overhead, so the two forms would give different speedups."),
    ),
))


# 3. Inverting the formula: what verification time gives a target speedup?
def _verify_for(p, tokens=None):
    tokens = acceptance.expected_tokens(p.alpha, p.k) if tokens is None else tokens
    t_verify = p.t0 * tokens / p.target - p.t_draft - p.t_overhead
    if t_verify < 0.5 * p.t0:
        raise ValueError("this target needs a verification pass faster than half a decode step")
    return t_verify


def _vary_3(rng):
    k = int(rng.integers(3, 8))
    return {"alpha": grid(rng, 0.7, 0.9, 0.05), "k": k, "t_draft": round(0.5 * k, 1),
            "target": grid(rng, 1.5, 2.5, 0.1)}


register(Exercise(
    label="speedup-formula-3",
    chapter=CHAPTER,
    question=("Keep the worked example's other inputs. How fast (in ms) must verification be for the "
              "speedup to reach exactly 2.5x?"),
    statement=("A target decode step takes $T_0 = {{t0}}$ ms; a round drafts $k = {{k}}$ tokens in "
               "$T_\\text{draft} = {{t_draft}}$ ms and spends $T_\\text{overhead} = {{t_overhead}}$ ms; "
               "$\\alpha = {{alpha}}$. How fast (in ms) must verification be for the speedup to reach exactly "
               "{{target}}x?"),
    params={**economics.WORKED_EXAMPLE.value, "target": 2.5},
    vary=_vary_3,
    answer=Float("in ms", decimals=2),
    reference=_verify_for,
    hints=("Solve T0 E[L] / (T_draft + T_verify + T_overhead) = target for T_verify, with E[L] unrounded.",),
    mistakes=(
        Mistake("rounded-tokens", lambda p: p.t0 * round(float(acceptance.expected_tokens(p.alpha, p.k)), 1)
                / p.target - p.t_draft - p.t_overhead,
                "Close: you used E[L] rounded to one decimal, as the source prints it; use the exact value."),
        Mistake("no-overhead", lambda p: _verify_for(p) + p.t_overhead,
                "The round also spends the overhead; leave room for it."),
    ),
))


# 4. The best k when verification grows with k.
def _best_k(p, slope=None):
    slope = p.slope if slope is None else slope
    ks = np.arange(1, p.k_max + 1)
    curve = economics.speedup(p.alpha, ks, p.t0, p.per_step * ks, p.t_verify + slope * (ks - p.k), p.t_overhead)
    return int(ks[np.argmax(curve)])


register(Exercise(
    label="speedup-formula-4",
    chapter=CHAPTER,
    question=("Worked example with 0.4 ms per draft step and T_verify = 6.0 + 0.1 (k - 5) ms: which k in 1..16 "
              "gives the highest speedup?"),
    statement=("A target decode step takes $T_0 = {{t0}}$ ms. Each draft step costs {{per_step}} ms (so "
               "$T_\\text{draft} = {{per_step}}\\,k$ ms), and verification grows by {{slope}} ms per extra draft "
               "position: $T_\\text{verify} = {{t_verify}} + {{slope}}\\,(k - {{k}})$ ms. The overhead is "
               "{{t_overhead}} ms and $\\alpha = {{alpha}}$. Which $k$ between 1 and {{k_max}} gives the highest "
               "speedup?"),
    params={**economics.WORKED_EXAMPLE.value, "per_step": 0.4, "slope": 0.1, "k_max": 16},
    # verification never faster than a plain step: T_verify(1) = 6.0 - 4 slope >= T0 = 5.2 needs slope <= 0.2
    vary=lambda rng: {"alpha": grid(rng, 0.7, 0.9, 0.05), "per_step": grid(rng, 0.3, 0.8, 0.1),
                      "slope": grid(rng, 0.02, 0.2, 0.02)},
    answer=Integer("a draft length k"),
    reference=_best_k,
    hints=("Evaluate sd.speedup on an array of k with the times rescaled for each k, and take the argmax.",),
    mistakes=(
        Mistake("constant-verify", lambda p: _best_k(p, slope=0.0),
                "That is the best k when verification time does not grow; include the growth per position."),
    ),
))

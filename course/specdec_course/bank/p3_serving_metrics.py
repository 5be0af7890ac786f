"""Exercises of the chapter "What serving engines print"."""

from __future__ import annotations

from specdec import economics
from specdec.acceptance import (
    alpha_from_draft_acceptance_rate,
    alpha_from_mean_acceptance_length,
    draft_acceptance_rate,
)
from specdec.acceptance.estimation import read_engine_counters

from .._chapters import Chapter
from .._forms import Float
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part3-beyond/03-serving-metrics", "What serving engines print")

#: The engine counters of exercises serving-metrics-3 and -4 (rounds, drafted, accepted) and the costs.
COUNTERS = (12_000, 48_000, 25_200)
C_DRAFT, C_VERIFY = 0.04, 1.1

_SPEEDUP = Float("a ratio", decimals=2)


# 1. The printed rate depends on k: what the engine prints after a change of k.
def _rate_at(p, k):
    return float(draft_acceptance_rate(alpha_from_draft_acceptance_rate(p.rate, p.k), k))


register(Exercise(
    label="serving-metrics-1",
    chapter=CHAPTER,
    question=("An engine drafting k = 5 tokens per round prints a draft acceptance rate of 0.55. What rate will it "
              "print after you switch it to k = 3, if acceptance is i.i.d.?"),
    statement=("An engine drafting $k = {{k}}$ tokens per round prints a draft acceptance rate (accepted / drafted) "
               "of {{rate}}. What rate will it print after you switch it to $k = {{new_k}}$, if acceptance is "
               "i.i.d. with the same $\\alpha$?"),
    params={"k": 5, "rate": 0.55, "new_k": 3},
    vary=lambda rng: (lambda k: {"k": k, "rate": grid(rng, 0.3, 0.75, 0.05),
                                 "new_k": int(pick(rng, [j for j in range(1, 9) if j != k]))})(int(rng.integers(2, 9))),
    answer=Float("a draft acceptance rate", decimals=3),
    reference=lambda p: _rate_at(p, p.new_k),
    hints=("The rate is (E[L] - 1) / k: convert it to alpha at the k it was measured with, then back at the new k.",),
    mistakes=(
        Mistake("same-rate", lambda p: p.rate,
                "The printed rate depends on k: drafts after the first rejection count as drafted."),
        Mistake("alpha", lambda p: float(alpha_from_draft_acceptance_rate(p.rate, p.k)),
                "That is alpha; the engine prints accepted drafts over drafted tokens at the new k."),
    ),
))


register(Exercise(
    label="serving-metrics-2",
    chapter=CHAPTER,
    question=("An engine drafting k = 3 tokens per round prints a mean acceptance length of 2.8, counting the bonus "
              "token (1 + accepted / rounds). What is alpha?"),
    statement=("An engine drafting $k = {{k}}$ tokens per round prints a mean acceptance length of {{length}}, "
               "counting the bonus token ($1 +$ accepted / rounds). What is $\\alpha$?"),
    params={"k": 3, "length": 2.8},
    vary=lambda rng: (lambda k: {"k": k, "length": round(1 + k * grid(rng, 0.3, 0.8, 0.05), 2)})(
        int(rng.integers(2, 8))),
    answer=Float("an acceptance rate", decimals=3),
    reference=lambda p: float(alpha_from_mean_acceptance_length(p.length, p.k)),
    hints=("Solve E[L](alpha, k) = length for alpha (E[L] includes the target's token).",),
    mistakes=(
        Mistake("as-without-bonus", lambda p: float(alpha_from_mean_acceptance_length(p.length, p.k,
                                                                                       include_bonus=False)),
                "You read the length as accepted drafts per round; this engine's length already includes the "
                "target's token."),
        Mistake("naive-fraction", lambda p: (p.length - 1.0) / p.k,
                "(length - 1) / k is the draft acceptance rate, not alpha."),
    ),
))


def _reading(p):
    return read_engine_counters(p.rounds, p.drafted, p.accepted)


def _ref_same_k(p):
    r = _reading(p)
    return float(r.mean_acceptance_length / (r.k * p.c_draft + p.c_verify))


def _vary_counters(rng):
    rounds = int(pick(rng, range(4000, 20001, 1000)))
    k = int(rng.integers(2, 7))
    return {"rounds": rounds, "drafted": rounds * k, "accepted": int(round(rounds * k * grid(rng, 0.3, 0.75, 0.05))),
            "c_draft": grid(rng, 0.02, 0.08, 0.01), "c_verify": grid(rng, 1.0, 1.3, 0.05)}


_COUNTERS = {"rounds": COUNTERS[0], "drafted": COUNTERS[1], "accepted": COUNTERS[2], "c_draft": C_DRAFT,
             "c_verify": C_VERIFY}
_COUNTERS_STATEMENT = ("Over a window an engine counts {{rounds:,}} rounds, {{drafted:,}} drafted tokens and "
                       "{{accepted:,}} accepted drafts; $c_d = {{c_draft}}$ and $c_v = {{c_verify}}$.")

register(Exercise(
    label="serving-metrics-3",
    chapter=CHAPTER,
    question=("Over a window an engine counts 12,000 rounds, 48,000 drafted tokens and 25,200 accepted drafts. With "
              "c_draft = 0.04 and c_verify = 1.1, what speedup does the cost model predict at the same k?"),
    statement=_COUNTERS_STATEMENT + " What speedup does the cost model predict at the same $k$?",
    params=_COUNTERS,
    vary=_vary_counters,
    answer=_SPEEDUP,
    reference=_ref_same_k,
    hints=("k is drafted / rounds; E[L] is 1 + accepted / rounds; speedup = E[L] / (k c_draft + c_verify).",),
    mistakes=(
        Mistake("no-bonus", lambda p: float(_reading(p).accepted_per_round / (_reading(p).k * p.c_draft + p.c_verify)),
                "Your tokens per round leave out the target's own token."),
        Mistake("rate-as-alpha", lambda p: float(economics.speedup_from_costs(
            _reading(p).draft_acceptance_rate, _reading(p).k, p.c_draft, p.c_verify)),
                "You used the draft acceptance rate as alpha; at the same k you do not need alpha at all."),
    ),
))


def _ref_new_k(p):
    return float(economics.speedup_from_costs(_reading(p).alpha, p.new_k, p.c_draft, p.c_verify))


register(Exercise(
    label="serving-metrics-4",
    chapter=CHAPTER,
    question=("With the same counters and costs as serving-metrics-3 (and c_verify still 1.1), what speedup does the "
              "i.i.d. model predict if the engine drafted k = 6 tokens per round instead?"),
    statement=_COUNTERS_STATEMENT + (" What speedup does the i.i.d. model predict if the engine drafted "
                                     "$k = {{new_k}}$ tokens per round instead (same $c_v$)?"),
    params={**_COUNTERS, "new_k": 6},
    vary=lambda rng: {**_vary_counters(rng), "new_k": int(rng.integers(2, 10))},
    answer=_SPEEDUP,
    reference=_ref_new_k,
    hints=("First convert the counters to alpha at the k they were measured with, then evaluate the speedup at the "
           "new k.",),
    mistakes=(
        Mistake("rate-as-alpha", lambda p: float(economics.speedup_from_costs(
            _reading(p).draft_acceptance_rate, p.new_k, p.c_draft, p.c_verify)),
                "You used the draft acceptance rate as alpha; convert it first, it depends on the k it was measured at."),
        Mistake("kept-length", lambda p: float(_reading(p).mean_acceptance_length / (p.new_k * p.c_draft + p.c_verify)),
                "You kept the measured tokens per round; with more drafts per round E[L] changes too."),
    ),
))

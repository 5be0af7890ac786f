"""Exercises of the chapter "Published results, recomputed"."""

from __future__ import annotations

from specdec import acceptance, economics
from specdec import literature as lit

from .._chapters import Chapter
from .._forms import Float
from .._registry import Exercise, Mistake, grid, register

CHAPTER = Chapter("book/part3-beyond/02-published-results", "Published results, recomputed")

#: Row of Leviathan et al.'s Tables 2 and 4 used in published-results-1: CNNDM, T5-small, T = 0.
T5_ROW = 6


def _row():
    r = lit.leviathan_t5_expected()
    return float(r["alpha"][T5_ROW]), int(r["gamma"][T5_ROW]), float(r["c"][T5_ROW])


def _ref_expected(p):
    a, g, c = _row()
    return float(economics.improvement_factor(a, g, c))


def _no_bonus_expected(p):
    a, g, c = _row()
    return float(acceptance.mean_acceptance_length(a, g, include_bonus=False) / (g * c + 1.0))


def _no_cost_expected(p):
    a, g, _ = _row()
    return float(economics.improvement_factor(a, g, 0.0))


register(Exercise(
    label="published-results-1",
    chapter=CHAPTER,
    question=("Leviathan et al. report alpha = 0.65, gamma = 5 and c = 0.02 for T5-small drafting for T5-XXL on "
              "CNN/DailyMail at temperature 0. Compute the expected walltime improvement of their Theorem 3.8."),
    answer=Float("a ratio", decimals=3),
    reference=_ref_expected,
    hints=("Expected tokens per round include the target's own token; divide by the round's cost gamma * c + 1.",),
    mistakes=(
        Mistake("no-bonus", _no_bonus_expected,
                "Your tokens per round count only accepted drafts; every round also emits one token from the target."),
        Mistake("no-draft-cost", _no_cost_expected,
                "You left out the draft model's time: the round costs gamma * c + 1 target steps, not 1."),
    ),
))


def _ref_chen_ratio(p=None):
    return float(lit.chen_speedups_from_times()["from_times"][0])


register(Exercise(
    label="published-results-2",
    chapter=CHAPTER,
    question=("Chen et al.'s Table 1 prints a mean token time of 14.1 ms for plain sampling and 7.52 ms for speculative "
              "sampling (XSum, nucleus). What speedup do these two times imply? (Compare it with the printed 1.92x.)"),
    answer=Float("a ratio", decimals=3),
    reference=_ref_chen_ratio,
    hints=("Speedup is the baseline's time per token divided by the speculative time per token.",),
    mistakes=(
        Mistake("inverted", lambda p: 1.0 / _ref_chen_ratio(),
                "Your ratio is upside down: a speedup above 1 means the speculative time per token is the smaller one."),
        Mistake("copied-printed", lambda p: float(lit.CHEN_CHINCHILLA["speedup_printed"].value[0]),
                "That is the table's printed speed-up column; compute the ratio of the two printed times instead."),
    ),
))


def _chen_costs():
    c_draft = float(lit.CHEN_CHINCHILLA["draft_ms"].value) / float(lit.CHEN_CHINCHILLA["baseline_ms"].value)
    return int(lit.CHEN_CHINCHILLA["k"].value), c_draft


register(Exercise(
    label="published-results-3",
    chapter=CHAPTER,
    question=("Chen et al. measure 2.46x on HumanEval with K = 4. Take one draft step to cost 1.8/14.1 of a target "
              "step and the verification pass to cost one target step. Which i.i.d. acceptance rate alpha reproduces "
              "2.46x?"),
    answer=Float("an acceptance rate", decimals=3),
    reference=lambda p: float(lit.implied_alpha(2.46, *_chen_costs(), 1.0)),
    hints=("Multiply the speedup by the round cost K c_draft + c_verify to get the E[L] you need, then invert "
           "E[L](alpha, K) (sd.acceptance.alpha_from_mean_acceptance_length).",),
    mistakes=(
        Mistake("no-draft-cost", lambda p: float(lit.implied_alpha(2.46, _chen_costs()[0], 0.0, 1.0)),
                "Your round costs one target step only; the four draft steps cost time too."),
        Mistake("no-bonus", lambda p: float(acceptance.alpha_from_mean_acceptance_length(
            2.46 * (_chen_costs()[0] * _chen_costs()[1] + 1.0), _chen_costs()[0], include_bonus=False)),
                "You solved for accepted drafts per round; the tokens per round include the target's own token."),
    ),
))


def _bonus_error(p):
    return lit.bonus_token_error(p.alpha, p.k, p.c_draft, p.c_verify)


register(Exercise(
    label="published-results-4",
    chapter=CHAPTER,
    question=("A calculator computes tokens per round as alpha (1 - alpha^k) / (1 - alpha). At alpha = 0.7, k = 4, "
              "c_draft = 0.05 and c_verify = 1, by how much (correct speedup minus the calculator's) does it "
              "understate the speedup?"),
    statement=("A calculator computes tokens per round as $\\alpha(1-\\alpha^k)/(1-\\alpha)$. At "
               "$\\alpha = {{alpha}}$, $k = {{k}}$, $c_d = {{c_draft}}$ and $c_v = {{c_verify}}$, by how much "
               "(correct speedup minus the calculator's) does it understate the speedup?"),
    params={"alpha": 0.7, "k": 4, "c_draft": 0.05, "c_verify": 1.0},
    vary=lambda rng: {"alpha": grid(rng, 0.5, 0.9, 0.05), "k": int(rng.integers(2, 9)),
                      "c_draft": grid(rng, 0.02, 0.1, 0.01), "c_verify": grid(rng, 1.0, 1.3, 0.05)},
    answer=Float("a difference of speedups", decimals=2),
    reference=lambda p: float(_bonus_error(p)["understatement"]),
    hints=("Compare the calculator's formula with E[L]; the difference in tokens is the same for every alpha.",),
    mistakes=(
        Mistake("ratio", lambda p: float(_bonus_error(p)["ratio"]),
                "That is the ratio of the two speedups; the question asks for their difference."),
        Mistake("tokens-not-speedup", lambda p: 1.0,
                "That is the difference in tokens per round; divide by the round's cost to get the difference in "
                "speedup."),
    ),
))

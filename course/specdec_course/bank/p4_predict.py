"""Exercises of the chapter "Predicting a published setup"."""

from __future__ import annotations

from specdec import predict

from .._chapters import Chapter
from .._forms import Float, Letter
from .._registry import Exercise, Mistake, grid, pick, register

CHAPTER = Chapter("book/part4-engines/07-predict", "Predicting a published setup")

_ENGINES = ("sglang", "vllm", "gpt-fast")


# 1. One call: a separate draft under an engine profile.
def _speedup(p, engine=None, tau=None):
    return float(predict.predict_speedup("llama-3.1-8b", "llama-3.2-1b", k=p.k, tau=p.tau if tau is None else tau,
                                         gpu="h100-sxm", engine=p.engine if engine is None else engine).speedup)


register(Exercise(
    label="predict-1",
    chapter=CHAPTER,
    question=("Llama 3.1 8B with a Llama 3.2 1B draft on one H100 under the vllm profile, k = 4, a measured tau of "
              "2.6, batch 1, context 0: the predicted speedup?"),
    statement=("Llama 3.1 8B with a Llama 3.2 1B draft on one H100 under the `{{engine}}` profile, $k = {{k}}$, a "
               "measured $\\tau$ of {{tau}}, batch 1, context 0: what speedup does `sd.predict_speedup` predict?"),
    params={"engine": "vllm", "k": 4, "tau": 2.6},
    vary=lambda rng: {"engine": pick(rng, _ENGINES), "k": int(rng.integers(2, 8)), "tau": grid(rng, 1.8, 3.0, 0.05)},
    answer=Float("a ratio", decimals=2),
    reference=_speedup,
    hints=("One call: sd.predict_speedup(target, draft, k=..., tau=..., gpu=..., engine=...).",),
    mistakes=(
        Mistake("no-engine", lambda p: float(predict.predict_speedup("llama-3.1-8b", "llama-3.2-1b", k=p.k, tau=p.tau,
                                                                     gpu="h100-sxm").speedup),
                "Name the engine profile: its fixed cost per pass changes the round."),
        Mistake("alpha", lambda p: float(p.tau), "tau is not the speedup: the round costs more than one step."),
    ),
))


# 2. What an eager engine's launch cost does to a head pass.
register(Exercise(
    label="predict-2",
    chapter=CHAPTER,
    question="Under an eager profile, what does one EAGLE head pass pay in launch costs?",
    answer=Letter("ABC"),
    choices={
        "A": "As much as a plain step of the target.",
        "B": "One layer's worth, as the profile's cost is per layer.",
        "C": "Nothing: launch costs belong to the target's pass only.",
    },
    reference=lambda p: "B",
    hints=("The profiles fit the eager cost per layer of a pass: how many layers does a head pass run?",),
    mistakes=(
        Mistake("per-step", lambda p: "A", "The eager cost grows with the layers a pass runs; a head has one."),
        Mistake("never", lambda p: "C", "Every pass launches its kernels from Python, the head's too."),
    ),
))

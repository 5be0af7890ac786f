"""Exercises of the chapter "Predicting a published setup"."""

from __future__ import annotations

from .. import predict
from ._chapters import Chapter
from ._forms import Float, Letter
from ._registry import Exercise, Mistake, grid, pick, register

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
              "3.0, batch 1, context 0: the predicted speedup?"),
    statement=("Llama 3.1 8B with a Llama 3.2 1B draft on one H100 under the `{{engine}}` profile, $k = {{k}}$, a "
               "measured $\\tau$ of {{tau}}, batch 1, context 0: what speedup does `sd.predict_speedup` predict?"),
    params={"engine": "vllm", "k": 4, "tau": 3.0},
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


# 2. What an eager engine's cost per step does to a round.
register(Exercise(
    label="predict-2",
    chapter=CHAPTER,
    question="Under an eager profile, how many times does one EAGLE round pay the eager cost per step?",
    answer=Letter("ABC"),
    choices={
        "A": "Once per forward pass: each head pass and the verification.",
        "B": "Once per round, as plain decoding pays it once per step.",
        "C": "Never: it belongs to plain decoding only.",
    },
    reference=lambda p: "B",
    hints=("The profiles find the eager cost per step, not per layer: what does a loop iteration do?",),
    mistakes=(
        Mistake("per-pass", lambda p: "A", "A one-layer head pass is not a loop iteration of the decoder."),
        Mistake("never", lambda p: "C", "A round is one iteration of the decoding loop."),
    ),
))

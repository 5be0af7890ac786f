"""Exercises of the chapter "Measure your machine"."""

from __future__ import annotations

from specdec.roofline import hardware as hw
from specdec.roofline import measure as ms

from .._chapters import Chapter
from .._forms import Float, Seq
from .._registry import Exercise, Mistake, grid, register

CHAPTER = Chapter("book/part3-beyond/04-measure-your-machine", "Measure your machine")

#: The example laptop of the exercises: 50 GB/s, 1 TFLOP/s float32, 16 GB.
LAPTOP = hw.Hardware(bandwidth=50e9, flops=1e12, memory=16e9, name="example laptop")

_LAPTOP = {"bandwidth_gb": 50.0, "tflops": 1.0, "d": 4096}


def _laptop(p):
    return hw.Hardware(bandwidth=p.bandwidth_gb * 1e9, flops=p.tflops * 1e12, memory=16e9, name="laptop")


_LAPTOP_STATEMENT = ("A laptop reads memory at {{bandwidth_gb}} GB/s and computes {{tflops}} TFLOP/s in float32 "
                     "(`sd.hardware.Hardware(bandwidth={{bandwidth_gb}}e9, flops={{tflops}}e12, memory=16e9)`).")


def _vary_laptop(rng):
    return {"bandwidth_gb": grid(rng, 20.0, 120.0, 10.0), "tflops": grid(rng, 0.5, 4.0, 0.5),
            "d": int(rng.choice([2048, 4096, 8192]))}


register(Exercise(
    label="measure-1",
    chapter=CHAPTER,
    question=("On the example laptop (course.p3_measure.LAPTOP), at how many tokens t does the predicted "
              "time of a 4096 x 4096 float32 product turn compute-bound? (Include the activations' bytes.)"),
    statement=_LAPTOP_STATEMENT + (" At how many tokens $t$ does the predicted time of a ${{d}} \\times {{d}}$ "
                                   "float32 product turn compute-bound? Include the bytes of the token vectors."),
    params=_LAPTOP,
    vary=_vary_laptop,
    answer=Float("a number of tokens", decimals=1),
    reference=lambda p: float(ms.matmul_knee(p.d, _laptop(p), 4)),
    hints=("Set b (d^2 + 2 d t) / BW equal to 2 d^2 t / F and solve for t.",),
    mistakes=(
        Mistake("weights-only", lambda p: _laptop(p).flops / _laptop(p).bandwidth * 4 / 2,
                "Close: that ignores the bytes of the token vectors read and written."),
        Mistake("float64", lambda p: float(ms.matmul_knee(p.d, _laptop(p), 8)), "Check the bytes per float32 number."),
    ),
))


def _times(p):
    return tuple(float(x) for x in ms.predict_matmul_time(p.d, [1, 128], _laptop(p), 4))


register(Exercise(
    label="measure-2",
    chapter=CHAPTER,
    question=("Predicted seconds per 4096 x 4096 float32 product on the example laptop for t = 1 and t = 128 "
              "tokens; answer the tuple (t = 1, t = 128)."),
    statement=_LAPTOP_STATEMENT + (" Predict the seconds per ${{d}} \\times {{d}}$ float32 product for $t = 1$ and "
                                   "for $t = 128$ tokens; answer with the tuple `(t1, t128)`."),
    params=_LAPTOP,
    vary=_vary_laptop,
    answer=Seq((Float("in seconds", sig=3),) * 2, names=("t1", "t128")),
    reference=_times,
    hints=("Each time is the larger of bytes / bandwidth and FLOPs / FLOP/s.",),
    mistakes=(
        Mistake("sum", lambda p: tuple(float(x) for x in (ms.matmul_bytes(p.d, [1, 128]) / _laptop(p).bandwidth
                                                          + ms.matmul_flops(p.d, [1, 128]) / _laptop(p).flops)),
                "The roofline takes the larger of the two times, not their sum."),
        Mistake("memory-only", lambda p: tuple(float(x) for x in ms.matmul_bytes(p.d, [1, 128]) / _laptop(p).bandwidth),
                "At one of the two token counts the arithmetic takes longer than the memory traffic."),
    ),
))


def _laptop_1b(p):
    return (float(hw.step_time(hw.LLAMA_1B, LAPTOP)), float(hw.ridge_batch(hw.LLAMA_1B, LAPTOP)))


register(Exercise(
    label="measure-3",
    chapter=CHAPTER,
    question=("Plug the example laptop into the hardware model: the plain decode step T0 (seconds) of Llama 3.2 1B "
              "with bf16 weights, and its ridge batch. Answer the tuple (T0, ridge)."),
    answer=Seq((Float("in seconds", sig=3), Float("tokens per step", decimals=1)), names=("T0", "ridge")),
    reference=_laptop_1b,
    hints=("sd.hardware.step_time and sd.hardware.ridge_batch take a Model and a Hardware.",),
    mistakes=(
        Mistake("float32", lambda p: tuple(2 * x for x in _laptop_1b(p)),
                "The model's weights are bf16: two bytes per parameter."),
        Mistake("swapped", lambda p: _laptop_1b(p)[::-1], "The two numbers are in the wrong order."),
    ),
))

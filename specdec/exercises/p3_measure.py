"""Exercises of Part III, chapter 4: "Measure your machine"."""

from __future__ import annotations

from .. import hardware as hw
from .. import measure as ms
from ._registry import Exercise, Mistake, register

CHAPTER = "Part III · 4 Measure your machine"

#: The example laptop of the exercises: 50 GB/s, 1 TFLOP/s float32, 16 GB.
LAPTOP = hw.Hardware(bandwidth=50e9, flops=1e12, memory=16e9, name="example laptop")


register(Exercise(
    label="measure-1",
    chapter=CHAPTER,
    question=("On the example laptop (sd.exercises.p3_measure.LAPTOP), at how many tokens t does the predicted "
              "time of a 4096 x 4096 float32 product turn compute-bound? (Include the activations' bytes.)"),
    kind="numeric",
    reference=lambda: ms.matmul_knee(4096, LAPTOP, 4),
    hints=("Set b (d^2 + 2 d t) / BW equal to 2 d^2 t / F and solve for t.",),
    rtol=1e-3,
    mistakes=(
        Mistake("weights-only", lambda: LAPTOP.flops / LAPTOP.bandwidth * 4 / 2,
                "Close: that ignores the bytes of the token vectors read and written."),
        Mistake("float64", lambda: ms.matmul_knee(4096, LAPTOP, 8), "Check the bytes per float32 number."),
    ),
))

register(Exercise(
    label="measure-2",
    chapter=CHAPTER,
    question=("Predicted seconds per 4096 x 4096 float32 product on the example laptop for t = 1 and t = 128 "
              "tokens; answer the tuple (t = 1, t = 128)."),
    kind="numeric",
    reference=lambda: tuple(float(x) for x in ms.predict_matmul_time(4096, [1, 128], LAPTOP, 4)),
    hints=("Each time is the larger of bytes / bandwidth and FLOPs / FLOP/s.",),
    rtol=1e-3,
    mistakes=(
        Mistake("sum", lambda: tuple(float(x) for x in (ms.matmul_bytes(4096, [1, 128]) / LAPTOP.bandwidth
                                                        + ms.matmul_flops(4096, [1, 128]) / LAPTOP.flops)),
                "The roofline takes the larger of the two times, not their sum."),
        Mistake("memory-only", lambda: tuple(float(x) for x in ms.matmul_bytes(4096, [1, 128]) / LAPTOP.bandwidth),
                "At one of the two token counts the arithmetic takes longer than the memory traffic."),
    ),
))


def _laptop_1b():
    return (hw.step_time(hw.LLAMA_1B, LAPTOP), hw.ridge_batch(hw.LLAMA_1B, LAPTOP))


register(Exercise(
    label="measure-3",
    chapter=CHAPTER,
    question=("Plug the example laptop into the hardware model: the plain decode step T0 (seconds) of Llama 3.2 1B "
              "with bf16 weights, and its ridge batch. Answer the tuple (T0, ridge)."),
    kind="numeric",
    reference=_laptop_1b,
    hints=("sd.hardware.step_time and sd.hardware.ridge_batch take a Model and a Hardware.",),
    rtol=1e-3,
    mistakes=(
        Mistake("float32", lambda: (2 * hw.step_time(hw.LLAMA_1B, LAPTOP), 2 * hw.ridge_batch(hw.LLAMA_1B, LAPTOP)),
                "The model's weights are bf16: two bytes per parameter."),
        Mistake("swapped", lambda: _laptop_1b()[::-1], "The two numbers are in the wrong order."),
    ),
))

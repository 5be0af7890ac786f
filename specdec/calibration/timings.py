"""Published timings of plain decoding and prefill: what the calibrated roofline is fitted to and checked against.

Each timing is a :class:`Measurement` (a :class:`specdec.sources.Cited` value, fitted or checked,
with its band, engine and fabric); :func:`measured_time` converts it to seconds and
:func:`model_time` prices the same pass on a roofline. Re-exported by :mod:`specdec.calibration`.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from specdec._validate import check_choice, check_count, check_instance
from specdec.roofline._calibration_terms import Calibration
from specdec.roofline.catalogue import medusa_heads
from specdec.roofline.hardware import A100, H100, H200, LLAMA_8B, LLAMA_70B, Hardware, Model, _step_time, model_preset
from specdec.roofline.presets import _calibrated, _ideal, _scaled, head_preset
from specdec.sources import Cited

__all__ = [
    "Measurement", "MEASUREMENTS", "FABRICS", "LLAMA2_7B", "LLAMA2_13B", "LLAMA2_70B", "LLAMA_70B_FP8",
    "EAGLE_HEAD_7B", "VICUNA_68M", "MEDUSA_HEADS_7B_PARAMS", "measured_time", "model_time", "device_for",
]


# --------------------------------------------------------------------------
# presets the measurements need (public configurations and datasheets)
# --------------------------------------------------------------------------

LLAMA2_7B = model_preset("llama-2-7b")
"""Llama 2 7B, also Vicuna 7B and LLaMA2-Chat 7B: the catalogue's ``"llama-2-7b"`` (hidden 4096, 32 layers,
32 heads and 32 key/value heads, intermediate 11008, vocab 32000, untied): 6,738,415,616 parameters."""

LLAMA2_13B = model_preset("llama-2-13b")
"""Llama 2 13B, also Vicuna 13B: the catalogue's ``"llama-2-13b"`` (hidden 5120, 40 layers, 40 heads and key/value
heads, intermediate 13824, vocab 32000, untied): 13,015,864,320 parameters."""

LLAMA2_70B = model_preset("llama-2-70b")
"""Llama 2 70B: the catalogue's ``"llama-2-70b"`` (hidden 8192, 80 layers, 64 heads, 8 key/value heads,
intermediate 28672, vocab 32000, untied): 68,976,648,192 parameters."""

LLAMA_70B_FP8 = model_preset("llama-3.1-70b", "fp8", name="Llama 3.3 70B (fp8 weights)")
"""Llama 3.3 70B (the shape of Llama 3.1 70B) with 8-bit weights; the KV cache is kept in bf16."""

EAGLE_HEAD_7B = head_preset("vicuna-7b", "eagle", name="EAGLE head (Vicuna 7B)")
"""One EAGLE draft step for Vicuna 7B: the head's parameters (one decoder layer and the fusion layer, by its
architecture: 0.236 B, the README's 0.24 B) plus the target's LM head it reuses (4096 x 32000); see
:func:`specdec.roofline.catalogue.eagle_head`."""

VICUNA_68M = model_preset("vicuna-68m")
"""Spec-Bench's SpS draft for Vicuna 7B (``double7/vicuna-68m``, the shape of ``JackFram/llama-68m``: hidden 768,
2 layers, 12 heads, intermediate 3072, vocab 32000, untied): 68,030,208 parameters."""

#: Parameters of Spec-Bench's four Medusa-1 heads for Vicuna 7B: each a 4096 x 4096 residual layer with bias and its
#: own 4096 x 32000 LM head (``medusa/model/medusa_model.py`` at the Medusa commit of :mod:`specdec.drafts.drafters`).
MEDUSA_HEADS_7B_PARAMS = medusa_heads("vicuna-7b", 4)["params"]


# --------------------------------------------------------------------------
# the measurements
# --------------------------------------------------------------------------

#: What a :class:`Measurement` times: one decode step, one prefill pass, or a whole request.
_KINDS = ("decode", "prefill", "request")


@dataclass(frozen=True)
class Measurement:
    """One published timing the calibration is fitted to or checked against.

    The fields a pricing reads (``model``, ``device``, ``kind`` and the counts) are checked when it is
    built, so :func:`model_time` and the fits price it without checking them again.

    Defined in chapter "A calibrated roofline".

    Attributes
    ----------
    key : str
        Short identifier (tables and tests).
    label : str
        What was measured, in a few words.
    model : specdec.roofline.hardware.Model
    device : specdec.roofline.hardware.Hardware
        One GPU (its calibrated preset, e.g. :data:`specdec.roofline.hardware.H100`);
        the measurement runs on ``tp`` of them.
    tp : int
        Tensor-parallel degree.
    batch, context, new_tokens : int
        The pass: sequences, cached tokens per sequence (an average over the
        decode for ``kind="decode"``), tokens per sequence in the pass.
    kind : str
        ``"decode"`` (seconds per decode step), ``"prefill"`` (one pass over
        ``new_tokens`` tokens) or ``"request"`` (a prefill of ``new_tokens``
        tokens and ``decode_steps`` decode steps, end to end).
    quoted : specdec.sources.Cited
        The printed value with its unit (``"tokens/s"`` or ``"ms"``), source,
        where it is printed and its status.
    role : str
        ``"fit"`` or ``"check"``.
    tolerance : float
        Largest relative residual the chapter states for it.
    engine : str
        The software that produced it.
    decode_steps : int
        For ``kind="request"``.
    fabric : str
        The interconnect the all-reduces cross (a key of ``FABRICS``;
        empty on one GPU): each fabric has its own all-reduce latency.
    """

    key: str
    label: str
    model: Model
    device: Hardware
    tp: int
    batch: int
    context: int
    new_tokens: int
    kind: str
    quoted: Cited
    role: str
    tolerance: float
    engine: str
    decode_steps: int = 0
    fabric: str = ""

    def __post_init__(self) -> None:
        # the fields every pricing reads, checked once here (the kernels of model_time and the fits trust them)
        check_instance(self.model, Model, "model")
        check_instance(self.device, Hardware, "device")
        check_choice(self.kind, "kind", _KINDS)
        for name, minimum in (("tp", 1), ("batch", 1), ("context", 0), ("new_tokens", 1), ("decode_steps", 0)):
            check_count(getattr(self, name), name, minimum)


#: The interconnects the measurements' all-reduces cross; each gets its own fitted latency.
FABRICS = {
    "a100-cube-mesh-nccl": "8x A100 SXM on a hybrid cube mesh (a partial NVLink mesh, power-limited to 330 W), "
                           "NCCL through PyTorch (gpt-fast's box)",
    "a100-nvswitch-trtllm": "A100 SXM over NVSwitch, TensorRT-LLM's own all-reduce kernels (an assumption: the "
                            "performance page names neither the box nor the fabric)",
    "hopper-nvswitch": "H100/H200 SXM over NVSwitch (HGX), the engine's all-reduce (vLLM's custom one-shot kernel "
                       "for small messages)",
}
_FABRIC_OF_ENGINE = {"gpt-fast": "a100-cube-mesh-nccl", "TensorRT-LLM v0.5": "a100-nvswitch-trtllm"}


_GPT_FAST = Cited(None, "gpt-fast", "README.md, 'Benchmarks' and 'Tensor Parallelism' tables (8x A100-80GB power limited to 330 W, "
                  "batch size 1, 5-token prompt)", "verified",
                  "GitHub pytorch-labs/gpt-fast README.md at commit 0f925b5d4ce457b89a7ca6c9ce50f42bf2576945")
_GPT_FAST_31 = Cited(None, "gpt-fast", "README.md, 'Tensor Parallelism' table (Llama-3.1-8B and Llama-3.1-70B rows) and "
                     "'Benchmarks' table (8-bit and 4-bit rows); 8x A100-80GB at 330 W, batch 1, 5-token prompt",
                     "verified", "GitHub pytorch-labs/gpt-fast README.md at commit 32971d3129541c5bfb4f715abc33d1c5f408d204 "
                     "(a later README than the fitted rows')")
_TRT = Cited(None, "trtllm-perf", "docs/source/performance.md, 'Low Latency', A100 GPUs (FP16), batch size 1, "
             "1st token latency (data from v0.5)", "verified",
             "GitHub NVIDIA/TensorRT-LLM docs/source/performance.md at commit 138f96d45f90b9667426f7c47297d8c06bafac73")
_NIM = Cited(None, "nim-perf", "Performance, Llama-3.3-70b-instruct, version 1.8.0, 2 x H100 80G, fp8 TP2, concurrency 1",
             "verified", "docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance (search-tool copy of the page)")
_VLLM = Cited(None, "vllm-ci", "Performance Benchmark, latency tests: input 32 tokens, output 128 tokens, fixed batch 8, "
              "mean latency", "verified", "buildkite.com/vllm/performance-benchmark/builds/9515 (search-tool copy)")


def _m(key: str, label: str, model: Model, device: Hardware, tp: int, batch: int, context: int, new_tokens: int,
       kind: str, value: float, unit: str, src: Cited, role: str, tolerance: float, engine: str,
       decode_steps: int = 0, note: str = "") -> Measurement:
    quoted = replace(src, value={"value": value, "unit": unit}, note=note)
    fabric = "" if tp == 1 else _FABRIC_OF_ENGINE.get(engine, "hopper-nvswitch")
    return Measurement(key, label, model, device, tp, batch, context, new_tokens, kind, quoted, role, tolerance,
                       engine, decode_steps, fabric)


_FIT, _CHECK = "fit", "check"

#: Every measurement, in the order of the chapter's table.
MEASUREMENTS: tuple[Measurement, ...] = (
    *(_m(f"gptfast-7b-tp{tp}", f"Llama 2 7B decode, TP{tp}", LLAMA2_7B, A100, tp, 1, 100, 1, "decode", v, "tokens/s",
         _GPT_FAST, _FIT, 0.08, "gpt-fast", note="context: a 5-token prompt and up to 200 new tokens, about 100")
      for tp, v in ((1, 104.9), (2, 168.84), (4, 254.02), (8, 328.43))),
    *(_m(f"gptfast-70b-tp{tp}", f"Llama 2 70B decode, TP{tp}", LLAMA2_70B, A100, tp, 1, 100, 1, "decode", v,
         "tokens/s", _GPT_FAST, _FIT, 0.08, "gpt-fast") for tp, v in ((2, 21.32), (4, 38.01), (8, 62.50))),
    *(_m(f"trt-{name}-{n}", f"{model.name} first token, {n} tokens, TP{tp}", model, A100, tp, 1, 0, n, "prefill", v,
         "ms", _TRT, _FIT, 0.08, "TensorRT-LLM v0.5")
      for name, model, tp, n, v in (("7b", LLAMA2_7B, 1, 128, 16), ("7b", LLAMA2_7B, 1, 2048, 133),
                                    ("70b", LLAMA2_70B, 4, 128, 47), ("70b", LLAMA2_70B, 4, 2048, 377))),
    _m("sglang-8b", "Llama 3.1 8B decode, TP1", LLAMA_8B, H100, 1, 1, 512, 1, "decode", 158.34, "tokens/s",
       Cited(None, "li2025eagle3", "Table 4 (bs = 1, 1x H100, LLaMA-Instruct 3.1 8B, MT-bench, SGLang w/o speculation)",
             "verified", "a text extraction of arXiv 2503.01840v3"), _FIT, 0.10, "SGLang v0.4.4",
       note="context: MT-bench prompts and answers, about 512 tokens"),
    _m("sglang-7b", "Llama 2 7B decode, TP1", LLAMA2_7B, H100, 1, 1, 512, 1, "decode", 156.0, "tokens/s",
       Cited(None, "sglang-docs", "'Performance Highlights' (Llama-2-7b-chat-hf, 1x H100, standard decoding, '~156 tokens/s')",
             "verified", "GitHub sgl-project/sglang docs/backend/speculative_decoding.md at commit "
             "e26285a06d9fba5bde4609413dd2041c53e2623c"), _FIT, 0.10, "SGLang", note="approximate ('~')"),
    _m("nim-70b-5000", "Llama 3.3 70B fp8 decode, TP2, 5000 in / 500 out", LLAMA_70B_FP8, H100, 2, 1, 5250, 1,
       "decode", 18.58, "ms", _NIM, _CHECK, 0.10, "NIM 1.8.0", note="inter-token latency; the KV precision is not stated"),
    _m("nim-70b-500", "Llama 3.3 70B fp8 decode, TP2, 500 in / 2000 out", LLAMA_70B_FP8, H100, 2, 1, 1500, 1,
       "decode", 18.91, "ms", _NIM, _CHECK, 0.10, "NIM 1.8.0"),
    _m("vllm-8b-h200", "Llama 3.1 8B request at batch 8, TP1", LLAMA_8B, H200, 1, 8, 0, 32, "request", 833.421, "ms",
       _VLLM, _FIT, 0.10, "vLLM (CI)", decode_steps=127),
    _m("vllm-70b-h200", "Llama 3 70B request at batch 8, TP4", LLAMA_70B, H200, 4, 8, 0, 32, "request", 2077.53, "ms",
       _VLLM, _FIT, 0.10, "vLLM (CI)", decode_steps=127, note="Llama 3 70B has the shape of Llama 3.1 70B"),
    *(_m(f"gptfast31-{name}-tp{tp}", f"Llama 3.1 {name.upper()} decode, TP{tp}", model, A100, tp, 1, 100, 1, "decode",
         v, "tokens/s", _GPT_FAST_31, _CHECK, 0.10, "gpt-fast")
      for name, model, tp, v in (("8b", LLAMA_8B, 1, 93.83), ("8b", LLAMA_8B, 2, 149.10), ("8b", LLAMA_8B, 4, 217.21),
                                 ("8b", LLAMA_8B, 8, 276.01), ("70b", LLAMA_70B, 2, 16.03),
                                 ("70b", LLAMA_70B, 4, 37.45), ("70b", LLAMA_70B, 8, 58.78))),
    *(_m(f"gptfast-{key}", label, model, A100, tp, 1, 100, 1, "decode", v, "tokens/s", _GPT_FAST_31, _CHECK, 0.15,
         "gpt-fast", note="weight-only quantization (int8; int4 with groups of 32)")
      for key, label, model, tp, v in (
          ("7b-int8", "Llama 2 7B int8 weights, TP1", model_preset("llama-2-7b", "int8-weight-only"), 1, 155.58),
          ("7b-int4", "Llama 2 7B int4 weights, TP1", model_preset("llama-2-7b", "int4-weight-only"), 1, 196.80),
          ("8b-int8", "Llama 3.1 8B int8 weights, TP1", model_preset("llama-3.1-8b", "int8-weight-only"), 1, 137.64),
          ("70b-int8-tp8", "Llama 2 70B int8 weights, TP8", model_preset("llama-2-70b", "int8-weight-only"), 8,
           80.44),
          ("70b-int4-tp8", "Llama 2 70B int4 weights, TP8", model_preset("llama-2-70b", "int4-weight-only"), 8,
           90.77))),
)


def measured_time(measurement: Measurement) -> float:
    """The measurement in seconds (per decode step, per pass or per request).

    Defined in chapter "A calibrated roofline".

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> round(cal.measured_time(cal.MEASUREMENTS[0]) * 1e3, 3)       # 104.9 tokens/s
    9.533
    """
    return _measured_time(check_instance(measurement, Measurement, "measurement"))


def _measured_time(m: Measurement) -> float:
    """:func:`measured_time` of a Measurement; checks nothing."""
    v = m.quoted.value
    return 1.0 / v["value"] if v["unit"] == "tokens/s" else v["value"] * 1e-3


def device_for(measurement: Measurement, calibration: Calibration | None = None) -> Hardware:
    """The hardware a measurement ran on (its GPU times its ``tp``) with ``calibration`` (``None``: the ideal roofline).

    Defined in chapter "A calibrated roofline".

    Examples
    --------
    >>> from specdec import timings
    >>> timings.device_for(timings.MEASUREMENTS[3]).name
    '8x A100 80GB SXM, ideal roofline (lower bound)'
    """
    measurement = check_instance(measurement, Measurement, "measurement")
    hw = measurement.device.scaled(measurement.tp) if measurement.tp > 1 else measurement.device
    return hw.ideal() if calibration is None else hw.calibrated(calibration)


def model_time(measurement: Measurement, calibration: Calibration | None = None) -> float:
    """What the roofline predicts for a measurement, in seconds.

    ``calibration=None`` is the ideal roofline (the lower bound). A ``"request"`` is its
    prefill pass plus each decode step at its growing context.

    Defined in chapter "A calibrated roofline".

    Examples
    --------
    >>> from specdec import calibration as cal
    >>> m = cal.MEASUREMENTS[0]
    >>> round(cal.model_time(m) * 1e3, 2), round(cal.model_time(m, cal.A100_CALIBRATION) * 1e3, 2)
    (6.64, 9.17)
    """
    m = check_instance(measurement, Measurement, "measurement")
    if calibration is not None:
        check_instance(calibration, Calibration, "calibration")
    return _model_time(m, calibration)


def _device_for(m: Measurement, calibration: Calibration | None) -> Hardware:
    """:func:`device_for` of a Measurement and a Calibration (or None); checks nothing."""
    hw = _scaled(m.device, m.tp) if m.tp > 1 else m.device
    return _ideal(hw) if calibration is None else _calibrated(hw, calibration)


def _model_time(m: Measurement, calibration: Calibration | None) -> float:
    """:func:`model_time` of a Measurement and a Calibration (or None); checks nothing."""
    hw = _device_for(m, calibration)
    b, c = float(m.batch), float(m.context)
    if m.kind == "decode":
        return float(_step_time(m.model, hw, b, c, 1.0, None))
    first = float(_step_time(m.model, hw, b, c, float(m.new_tokens), None))
    if m.kind == "prefill":
        return first
    contexts = (m.context + m.new_tokens + np.arange(m.decode_steps)).astype(float)
    return first + float(np.sum(_step_time(m.model, hw, b, contexts, 1.0, None)))

"""Engine profiles: each engine's fixed cost per step and launch regime, fitted to its own plain-decoding timings.

An :class:`EngineProfile` holds what belongs to the engine, not the hardware: ``step_overhead``
(seconds per pass that do not scale with the work) and the launch regime, ``"graphs"`` or
``"eager"`` (an extra cost per layer per pass, fitted per GPU; a GPU without an eager timing
carries the named GPU's). :meth:`EngineProfile.on` returns the calibrated hardware. No speculative
speedup enters any fit; :data:`FITTED` lists the timings fitted, :data:`HELD_OUT` those only checked.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from specdec._validate import check_choice, check_count, check_instance
from specdec.calibration import (
    A100_CALIBRATION,
    FIXED_COSTS,
    H100_CALIBRATION,
    LLAMA2_7B,
    MEASUREMENTS,
    Calibration,
    Measurement,
    measured_time,
    model_time,
)
from specdec.roofline.catalogue import GPU_SPECS
from specdec.roofline.hardware import A100, Hardware, gpu_preset, model_preset
from specdec.sources import Cited

if TYPE_CHECKING:
    from specdec.roofline.presets import Model

__all__ = ["EngineProfile", "PROFILES", "EAGER_MEASUREMENTS", "FITTED", "HELD_OUT", "profile", "fit_eager_overhead",
           "base_calibration"]

_CHAPTER = "A calibrated roofline"

# --------------------------------------------------------------------------
# the eager timings (plain decoding, batch 1)
# --------------------------------------------------------------------------

_RTX3090 = gpu_preset("rtx-3090").calibrated(A100_CALIBRATION)
_EAGLE_T4 = Cited(None, "li2024eagle", "Table 4 (LLaMA2-Chat 7B, RTX 3090, MT-bench, temperature 0, tokens/s: Hugging Face FP16 "
                  "24.5, gpt-fast FP16 55.1)", "verified", "a transcription of arXiv 2401.15077v3 HTML (search-tool index "
                  "id 58869229422)")
_MEDUSA_BARS = Cited(None, "medusa-repo", "assets/size_speedup.png, 'Speedup on different model sizes', the 'w/o Medusa' bars "
                     "(Vicuna 7B, 13B, 33B), read off the chart to about 0.5 tokens/s", "secondary",
                     "the image in GitHub FasterDecoding/Medusa at commit e2a5d20c048a9b0a4092e6933c34313687422518, "
                     "read by eye against its grid (0-80 tokens/s)")


def _meas(key: str, label: str, model: Model, device: Hardware, value: float, src: Cited, role: str,
          engine: str, note: str = "") -> Measurement:
    quoted = replace(src, value={"value": value, "unit": "tokens/s"}, note=note)
    return Measurement(key, label, model, device, 1, 1, 512, 1, "decode", quoted, role, 0.10, engine)


#: Plain-decoding timings of eager engines (and gpt-fast on the same RTX 3090), batch 1, context about 512.
EAGER_MEASUREMENTS: tuple[Measurement, ...] = (
    _meas("hf-3090-7b", "LLaMA2-Chat 7B, Hugging Face FP16", LLAMA2_7B, _RTX3090, 24.5, _EAGLE_T4, "fit", "hf-eager"),
    _meas("gptfast-3090-7b", "LLaMA2-Chat 7B, gpt-fast FP16", LLAMA2_7B, _RTX3090, 55.1, _EAGLE_T4, "check", "gpt-fast",
          note="checks the RTX 3090 preset with the A100's graph-mode terms"),
    *(_meas(f"medusa-a100-{size}", f"Vicuna {size.upper()} without Medusa", model_preset(f"vicuna-{size}"), A100, v,
            _MEDUSA_BARS, "fit", "research",
            note="the paper runs its experiments on one A100 (not re-read here); approximate bar heights")
      for size, v in (("7b", 46.8), ("13b", 35.9), ("33b", 18.1))),
)


def _graph_time(m: Measurement) -> float:
    return model_time(m, replace(base_calibration(m.device), step_overhead=FIXED_COSTS["gpt-fast"]))


def fit_eager_overhead(measurements: Sequence[Measurement]) -> dict:
    """Fit the eager launch cost per layer on one GPU to eager plain-decoding timings.

    The eager step is the graph-mode step (gpt-fast's fixed cost) plus ``n_layers * layer``, with
    ``layer = sum(x y w^2) / sum(x^2 w^2)`` (``x = n_layers``, ``y`` the excess over the graph step,
    ``w = 1 / measured``, clipped at 0).

    Notes
    -----
    On the A100 (7B to 33B) a per-layer cost misses by up to 12 %: part of the cost is per step.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    measurements : sequence of Measurement
        Batch-1 decodes on one GPU.

    Returns
    -------
    dict
        ``layer`` (seconds per layer per pass), ``residuals`` (array), ``keys``.

    Examples
    --------
    >>> from specdec import profiles
    >>> a100 = [m for m in profiles.EAGER_MEASUREMENTS if m.engine == "research"]
    >>> r = profiles.fit_eager_overhead(a100)
    >>> round(r["layer"] * 1e3, 3), [round(float(x), 2) for x in r["residuals"]]
    (0.295, [-0.12, 0.05, 0.1])
    """
    ms = list(measurements)
    if not ms or any(not isinstance(m, Measurement) for m in ms):
        raise ValueError("measurements must be a non-empty sequence of Measurement objects")
    if len({m.device.name for m in ms}) != 1:
        raise ValueError("measurements must all be on one GPU (the eager cost is fitted per GPU)")
    y = np.array([measured_time(m) for m in ms])
    g = np.array([_graph_time(m) for m in ms])
    layers = np.array([float(m.model.n_layers) for m in ms])
    w = 1.0 / y
    layer = max(0.0, float(np.sum((y - g) * layers * w**2) / np.sum(layers**2 * w**2)))
    pred = g + layer * layers
    return {"layer": layer, "residuals": pred / y - 1.0, "keys": tuple(m.key for m in ms)}


# --------------------------------------------------------------------------
# profiles
# --------------------------------------------------------------------------

_FAMILY = {"a100-40gb": "ampere", "a100-80gb": "ampere", "rtx-3090": "ampere", "l40s": "ampere",
           "h100-sxm": "hopper", "h200-sxm": "hopper", "b200": "hopper"}


def _gpu_key(hardware: Hardware) -> str:
    for key in sorted(GPU_SPECS, key=lambda k: -len(GPU_SPECS[k].name)):
        if GPU_SPECS[key].name in hardware.name:
            return key
    return ""


def base_calibration(hardware: Hardware) -> Calibration:
    """The hardware terms a profile starts from on a GPU, before the engine's fixed cost.

    A100s, the RTX 3090 and the L40S take :data:`specdec.calibration.A100_CALIBRATION`; H100, H200
    and B200 take :data:`specdec.calibration.H100_CALIBRATION`; an unknown GPU keeps its own, or the
    A100's.

    Notes
    -----
    Carried, not fitted: the A100's fractions on the RTX 3090 and L40S (checked on the RTX 3090 by
    gpt-fast's 55.1 tokens/s) and the A100 mesh's all-reduce latency (no PCIe timing); Hopper's terms
    on the B200 (no published Blackwell series separates them).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    hardware : specdec.roofline.hardware.Hardware

    Returns
    -------
    Calibration

    Examples
    --------
    >>> import specdec as sd
    >>> sd.profiles.base_calibration(sd.hardware.H200).name
    'H100 (Hopper fit: SGLang, vLLM; A100 fractions carried)'
    """
    return _base_calibration(check_instance(hardware, Hardware, "hardware"))


def _base_calibration(hw: Hardware) -> Calibration:
    """:func:`base_calibration` without its check of ``hardware``."""
    key = _gpu_key(hw)
    if key:
        return H100_CALIBRATION if _FAMILY[key] == "hopper" else A100_CALIBRATION
    return hw.calibration if hw.calibration is not None else A100_CALIBRATION


@dataclass(frozen=True)
class EngineProfile:
    """An engine as the calibrated roofline sees it: a fixed cost per step and a launch regime.

    Defined in chapter "A calibrated roofline".

    Attributes
    ----------
    name : str
        The key in :data:`PROFILES`.
    label : str
        What it stands for.
    step_overhead : float
        Seconds per forward pass under CUDA graphs (the engine's own fitted
        value, or the carried one its ``derivation`` names).
    launch : str
        ``"graphs"`` or ``"eager"``.
    eager_overhead : dict
        For ``launch="eager"``: GPU catalogue key -> seconds per layer per
        pass the eager launches add, fitted on that GPU (see
        ``derivation``); other GPUs take ``eager_overhead[carry_from]``.
    carry_from : str
        The GPU whose eager cost a GPU without its own timing takes.
    measurements : tuple of str
        Keys of the timings fitted (in :data:`FITTED`).
    derivation : str
        How the terms were obtained, and which are carried over.

    Examples
    --------
    >>> import specdec as sd
    >>> p = sd.profiles.profile("research")
    >>> p.launch, round(p.eager_overhead["a100-80gb"] * 1e3, 3)
    ('eager', 0.295)
    """

    name: str
    label: str
    step_overhead: float
    launch: str
    measurements: tuple
    derivation: str
    eager_overhead: dict | None = None
    carry_from: str = ""

    def __post_init__(self) -> None:
        check_choice(self.launch, "launch", ("graphs", "eager"))
        if self.launch == "eager" and not self.eager_overhead:
            raise ValueError("eager_overhead must name at least one GPU for an eager profile")

    def eager_cost(self, gpu: str) -> float:
        """Seconds per layer per pass the eager launches add on a GPU (catalogue key); 0 under graphs."""
        if self.launch == "graphs":
            return 0.0
        check_choice(gpu, "gpu", tuple(GPU_SPECS))
        assert self.eager_overhead is not None  # every eager profile has one
        return float(self.eager_overhead.get(gpu, self.eager_overhead[self.carry_from]))

    def on(self, hardware: Hardware | str, tp: int = 1, *, base: Calibration | None = None) -> Hardware:
        """A :class:`specdec.roofline.hardware.Hardware` calibrated for this engine on a GPU.

        :func:`base_calibration` with the fixed cost ``step_overhead`` and, for an eager engine, the
        GPU's eager cost per layer.

        Parameters
        ----------
        hardware : specdec.roofline.hardware.Hardware or str
            One GPU (a preset, calibrated or not) or a catalogue key.
        tp : int, optional
            Tensor-parallel GPUs, >= 1 (multiplies ``hardware``). Default 1.
        base : specdec.calibration.Calibration, optional
            The hardware terms to start from instead of :func:`base_calibration`
            (e.g. a bootstrap replicate's, :func:`specdec.calibration.fit_uncertainty.hopper_calibrations`,
            to carry the fit's uncertainty into a prediction).

        Returns
        -------
        specdec.roofline.hardware.Hardware

        Examples
        --------
        >>> import specdec as sd
        >>> h = sd.hardware
        >>> a100 = sd.profiles.profile("hf-eager").on("a100-80gb")
        >>> round(float(h.step_time(h.model_preset("vicuna-7b"), a100, 1, 512)) * 1e3, 1)
        18.8
        """
        if isinstance(hardware, str):
            hw = gpu_preset(check_choice(hardware, "hardware", tuple(GPU_SPECS)))
        else:
            hw = check_instance(hardware, Hardware, "hardware")
        n = check_count(tp, "tp")
        key = _gpu_key(hw)
        cal = base_calibration(hw) if base is None else check_instance(base, Calibration, "base")
        layer = self.eager_cost(key) if key else self.eager_cost(self.carry_from)
        cal = replace(cal, step_overhead=self.step_overhead, layer_overhead=layer,
                      name=f"{cal.name}; engine profile '{self.name}'")
        one = hw.ideal() if hw.tp == 1 else hw
        out = one.calibrated(cal)
        out = replace(out, name=out.base_name + f" ({self.name})")
        return out.scaled(n) if n > 1 else out


def _eager_fit(engine: str) -> dict[str, Any]:
    return fit_eager_overhead([m for m in EAGER_MEASUREMENTS if m.engine == engine and m.role == "fit"])


_HF_3090 = _eager_fit("hf-eager")
_RESEARCH_A100 = _eager_fit("research")
_GRAPH = "CUDA graphs"

#: The engine profiles, by key.
PROFILES: dict[str, EngineProfile] = {p.name: p for p in (
    EngineProfile("hf-eager", "Hugging Face transformers, eager PyTorch", FIXED_COSTS["gpt-fast"], "eager",
                  _HF_3090["keys"],
                  "eager cost per layer on the RTX 3090 fitted to EAGLE's Table 4 (Hugging Face FP16, 24.5 tokens/s) "
                  "over the graph-mode step of the same GPU; on the A100 the research profile's value (the same Hugging "
                  "Face eager code underneath); other GPUs carry the A100's (the cost is the host's launches)",
                  {"rtx-3090": _HF_3090["layer"], "a100-80gb": _RESEARCH_A100["layer"],
                   "a100-40gb": _RESEARCH_A100["layer"]}, "a100-80gb"),
    EngineProfile("research", "EAGLE/Medusa research code (Hugging Face eager underneath)", FIXED_COSTS["gpt-fast"],
                  "eager", _RESEARCH_A100["keys"],
                  "eager cost per layer on the A100 fitted to Medusa's baseline bars (Vicuna 7B, 13B, 33B without "
                  "Medusa; residuals -12 %, +5 %, +10 %: part of the cost is per step, which this term leaves out); "
                  "the RTX 3090 takes the hf-eager fit; other GPUs carry the A100's",
                  {"a100-80gb": _RESEARCH_A100["layer"], "a100-40gb": _RESEARCH_A100["layer"],
                   "rtx-3090": _HF_3090["layer"]}, "a100-80gb"),
    EngineProfile("sglang", "SGLang (CUDA graphs)", FIXED_COSTS["SGLang"], "graphs",
                  tuple(m.key for m in MEASUREMENTS if m.engine.startswith("SGLang")),
                  "fixed cost fitted to SGLang's batch-1 decodes on one H100 (specdec.calibration.fit_hopper)"),
    EngineProfile("vllm", "vLLM (CUDA graphs)", FIXED_COSTS["vLLM"], "graphs",
                  tuple(m.key for m in MEASUREMENTS if m.engine.startswith("vLLM")),
                  "fixed cost fitted to vLLM's CI requests on H200, jointly with Hopper's all-reduce latency "
                  "(specdec.calibration.fit_hopper)"),
    EngineProfile("trtllm", "TensorRT-LLM (CUDA graphs)", FIXED_COSTS["gpt-fast"], "graphs",
                  tuple(m.key for m in MEASUREMENTS if m.engine.startswith("TensorRT")),
                  "no batch-1 decode timing found: the decode step's fixed cost is carried from gpt-fast (both "
                  "capture the step in a graph); TensorRT-LLM's own fitted fixed cost, "
                  f"{FIXED_COSTS['TensorRT-LLM v0.5'] * 1e3:.2f} ms, belongs to its first-token latencies (a "
                  "per-request cost) and prices its prefills"),
    EngineProfile("gpt-fast", "gpt-fast (torch.compile, CUDA graphs)", FIXED_COSTS["gpt-fast"], "graphs",
                  tuple(m.key for m in MEASUREMENTS if m.engine == "gpt-fast" and m.role == "fit"),
                  "fixed cost and all-reduce latency fitted to gpt-fast's batch-1 decodes on 8x A100 "
                  "(specdec.calibration.fit_calibration)"),
)}


def profile(name: str) -> EngineProfile:
    """An engine profile by key: ``"hf-eager"``, ``"research"``, ``"sglang"``, ``"vllm"``, ``"trtllm"``, ``"gpt-fast"``.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    name : str
        A key of :data:`PROFILES`.

    Returns
    -------
    EngineProfile

    Examples
    --------
    >>> import specdec as sd
    >>> sd.profiles.profile("sglang").launch
    'graphs'
    """
    return PROFILES[check_choice(name, "name", tuple(PROFILES))]


#: Every timing a fit uses (calibration, Hopper, engine profiles), in one place. No speculative speedup is among them.
FITTED: tuple[Measurement, ...] = tuple(m for m in MEASUREMENTS + EAGER_MEASUREMENTS if m.role == "fit")

#: Every timing only checked (never fitted).
HELD_OUT: tuple[Measurement, ...] = tuple(m for m in MEASUREMENTS + EAGER_MEASUREMENTS if m.role == "check")


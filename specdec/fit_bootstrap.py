"""Bootstrap samples of the calibration's fitted terms, for the intervals of a prediction.

A *residual bootstrap*: each stage of the calibration is fitted once, its
relative residuals are resampled with replacement onto its fitted times
(``measured* = predicted / (1 + r*)``), and the stage is refitted to those
synthetic timings. Every timing keeps its setup, so every term stays
identified in every draw. The stages, in order:

1. the A100 terms (fractions of the peaks, overlap, link efficiency,
   gpt-fast's and TensorRT-LLM's fixed costs, the A100 all-reduce) by
   :func:`specdec.calibration.fit_calibration`;
2. Hopper's terms (SGLang's and vLLM's fixed costs, the NVSwitch
   all-reduce) by :func:`specdec.calibration.fit_hopper`, on that draw's
   A100 terms;
3. the research code's eager cost per step on the A100 by
   :func:`specdec.profiles.fit_eager_overhead`.

A term fitted to a single timing (the eager cost on the RTX 3090) has no
residual to resample: the interval leaves its uncertainty out.
:func:`engine_hardware` turns a sample into the hardware an engine profile
runs on; :func:`specdec.predict.predict_speedup` prices the round on every
sample, and its interval is the central range of those speedups.

Defined in chapter "Predicting a published setup".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from . import profiles
from ._validate import check_choice, check_count, check_instance
from .calibration import A100_CALIBRATION, FIXED_COSTS, H100_CALIBRATION, fit_calibration, fit_hopper
from .presets import Hardware
from .timings import MEASUREMENTS

__all__ = ["CalibrationSample", "calibration_samples", "engine_hardware"]

_CHAPTER = "Predicting a published setup"
_A100 = "A100 80GB SXM"
_HOPPER = ("H100 SXM", "H200 SXM")


@dataclass(frozen=True)
class CalibrationSample:
    """One bootstrap draw of the fitted terms.

    Defined in chapter "Predicting a published setup".

    Attributes
    ----------
    ampere, hopper : specdec.calibration.Calibration
        The GPU families' terms (fixed cost: gpt-fast's on Ampere, SGLang's on Hopper).
    fixed : dict
        Fixed cost per pass by :data:`specdec.calibration.FIXED_COSTS` key, seconds.
    eager_scale : float
        This draw's A100 eager cost over the profiles' fitted value.
    """

    ampere: object
    hopper: object
    fixed: dict
    eager_scale: float


def _synthetic(measurements, predicted, residuals, rng):
    """The measurements with times ``predicted / (1 + r*)``, ``r*`` drawn from ``residuals``."""
    out = []
    for m, t, r in zip(measurements, predicted, rng.choice(residuals, size=len(measurements))):
        time = float(t) / (1.0 + float(r))
        unit = m.quoted.value["unit"]
        value = 1.0 / time if unit == "tokens/s" else time * 1e3
        out.append(replace(m, quoted=replace(m.quoted, value={"value": value, "unit": unit})))
    return out


@functools.lru_cache(maxsize=1)
def _base_fits():
    a100 = [m for m in MEASUREMENTS if m.role == "fit" and m.device.name.startswith(_A100)]
    hopper = [m for m in MEASUREMENTS if m.role == "fit" and m.device.name.startswith(_HOPPER)]
    research = [m for m in profiles.EAGER_MEASUREMENTS if m.engine == "research" and m.role == "fit"]
    a = fit_calibration(a100)
    h = fit_hopper(a.calibration, hopper)
    e = profiles.fit_eager_overhead(research)
    e_pred = np.array([1.0 / m.quoted.value["value"] for m in research]) * (1.0 + e["residuals"])
    return (a100, a), (hopper, h), (research, e_pred, e)


def _fit_sample(rng) -> CalibrationSample:
    (a100, a0), (hopper, h0), (research, e_pred, e0) = _base_fits()
    a = fit_calibration(_synthetic(a100, a0.predicted, a0.residuals, rng))
    h = fit_hopper(a.calibration, _synthetic(hopper, h0.predicted, h0.residuals, rng))
    eager = profiles.fit_eager_overhead(_synthetic(research, e_pred, e0["residuals"], rng))
    fixed = {key: a.terms.get(f"step_overhead[{key}]", h.terms.get(f"step_overhead[{key}]", value))
             for key, value in FIXED_COSTS.items()}
    return CalibrationSample(a.calibration, h.calibration, fixed, eager["eager_step"] / e0["eager_step"])


@functools.lru_cache(maxsize=8)
def calibration_samples(n=64, seed=0) -> tuple:
    """``n`` bootstrap samples of the fitted terms, drawn with a seeded generator (cached).

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    n : int, optional
        Samples, 8 to 1000. Default 64.
    seed : int, optional
        Seed of :func:`numpy.random.default_rng`, >= 0. Default 0.

    Returns
    -------
    tuple of CalibrationSample

    Examples
    --------
    >>> from specdec import fit_bootstrap
    >>> samples = fit_bootstrap.calibration_samples(16)
    >>> len(samples), 0.5 < samples[0].ampere.bw_efficiency <= 1.0
    (16, True)
    """
    n = check_count(n, "n", 8, 1000)
    rng = np.random.default_rng(check_count(seed, "seed", 0))
    return tuple(_fit_sample(rng) for _ in range(n))


def engine_hardware(sample, engine, hardware):
    """One GPU calibrated for an engine profile with a sample's terms, and the eager cost per loop iteration.

    The GPU keeps its family's terms (:func:`specdec.profiles.base_calibration`:
    Ampere and Ada take the A100's, Hopper and Blackwell Hopper's), drawn from
    ``sample``; the fixed cost per pass is the engine's (``trtllm``,
    ``hf-eager`` and ``research`` carry gpt-fast's, as their profiles do), and
    an eager engine's cost per step is the profile's scaled by the sample's
    A100 eager fit (the RTX 3090's own value is not resampled).

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    sample : CalibrationSample
    engine : str
        A key of :data:`specdec.profiles.PROFILES`.
    hardware : specdec.hardware.Hardware
        One GPU (its ideal preset, e.g. ``gpu_preset("a100-80gb")``).

    Returns
    -------
    tuple
        ``(Hardware, eager)``: the GPU with the graph-mode fixed cost, and
        the eager cost per loop iteration in seconds (0 under graphs).

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec import fit_bootstrap
    >>> s = fit_bootstrap.calibration_samples(16)[0]
    >>> one, eager = fit_bootstrap.engine_hardware(s, "sglang", sd.hardware.gpu_preset("h100-sxm"))
    >>> one.calibration.step_overhead == s.fixed["SGLang"], eager
    (True, 0.0)
    """
    check_instance(sample, CalibrationSample, "sample")
    check_choice(engine, "engine", tuple(profiles.PROFILES))
    one = check_instance(hardware, Hardware, "hardware")
    prof = profiles.profile(engine)
    hopper = profiles.base_calibration(one) is H100_CALIBRATION
    terms = sample.hopper if hopper else sample.ampere
    own = {"sglang": "SGLang", "vllm": "vLLM"}.get(engine, "gpt-fast")
    fixed = sample.fixed[own]
    base = profiles.base_calibration(one)
    cal = replace(base, bw_efficiency=terms.bw_efficiency, flops_efficiency=terms.flops_efficiency,
                  overlap=terms.overlap, link_efficiency=terms.link_efficiency,
                  allreduce_latency=terms.allreduce_latency if base.allreduce_latency in (
                      A100_CALIBRATION.allreduce_latency, H100_CALIBRATION.allreduce_latency) else
                  base.allreduce_latency, step_overhead=fixed, name=f"{base.name}; bootstrap sample")
    eager = 0.0
    if prof.launch == "eager":
        on = prof.on(one)
        eager = on.calibration.step_overhead - prof.step_overhead
        if "RTX 3090" not in one.name:
            eager *= sample.eager_scale
    return one.ideal().calibrated(cal), eager

"""The terms a calibration adds to the ideal roofline, and the two fitted calibrations.

A private module so that :mod:`specdec.roofline.hardware` can define the calibrated
presets (its defaults) without importing :mod:`specdec.calibration`, which
holds the measurements and the fit and imports :mod:`specdec.roofline.hardware`. The
public names are :class:`specdec.calibration.Calibration`,
:data:`specdec.calibration.IDEAL`, :data:`specdec.calibration.A100_CALIBRATION`
and :data:`specdec.calibration.H100_CALIBRATION`.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from specdec._validate import check_bool, check_nonnegative, describe

__all__ = ["Calibration", "IDEAL", "A100_CALIBRATION", "H100_CALIBRATION", "FIXED_COSTS", "ALLREDUCE_LATENCIES"]


# --------------------------------------------------------------------------
# the calibration terms
# --------------------------------------------------------------------------

_FRACTIONS = ("bw_efficiency", "flops_efficiency", "link_efficiency")
_TIMES = ("step_overhead", "layer_overhead", "allreduce_latency")
_FLAGS = ("communication", "kv_write", "causal_attention")


@dataclass(frozen=True)
class Calibration:
    """What a real engine pays beyond the ideal roofline; every default is the ideal value.

    Attach it with :meth:`specdec.roofline.hardware.Hardware.calibrated`; the step
    functions of :mod:`specdec.roofline.hardware` then add these terms (see that
    module's docstring for the formula).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    bw_efficiency, flops_efficiency : float, optional
        Achievable fraction of the peak memory bandwidth and of the peak
        FLOP/s, in (0, 1]. Default 1.
    overlap : float, optional
        How far memory traffic and arithmetic overlap, in [0, 1]: 1 (default)
        is the roofline's ``max``, 0 adds the two times.
    step_overhead : float, optional
        Seconds per forward pass that do not scale with the work (launches
        under CUDA graphs, sampling, scheduling), >= 0.
    layer_overhead : float, optional
        Seconds per layer per forward pass (kernel launches in eager mode), >= 0.
    allreduce_latency : float, optional
        Seconds per all-reduce across a tensor-parallel group, >= 0.
    link_efficiency : float, optional
        Achievable fraction of the interconnect's bandwidth, in (0, 1].
    communication : bool, optional
        Price the two all-reduces per layer of tensor parallelism. Default False.
    kv_write : bool, optional
        The default of the step functions' ``kv_write``. Default False.
    causal_attention : bool, optional
        Count attention among the new tokens of a pass. Default False.
    gemm_tile : int, optional
        Rows per tile of the matrix-product kernels, >= 1 (:mod:`specdec.roofline.kernels`):
        a pass computes its tokens rounded up to whole tiles, the first
        tile's arithmetic hides under the weight read and ``overlap`` applies
        to the rest. Default 1 (no tiles: the arithmetic is linear in the tokens).
    name : str, optional
        Label, e.g. where the values were fitted.

    Examples
    --------
    >>> from specdec.calibration import IDEAL, Calibration
    >>> IDEAL.is_ideal, Calibration(bw_efficiency=0.8).is_ideal
    (True, False)
    """

    bw_efficiency: float = 1.0
    flops_efficiency: float = 1.0
    overlap: float = 1.0
    step_overhead: float = 0.0
    layer_overhead: float = 0.0
    allreduce_latency: float = 0.0
    link_efficiency: float = 1.0
    communication: bool = False
    kv_write: bool = False
    causal_attention: bool = False
    gemm_tile: int = 1
    name: str = "ideal"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for attr in _FRACTIONS + _TIMES + ("overlap",):
            value = getattr(self, attr)
            if np.ndim(value) != 0:
                raise TypeError(f"{attr} must be a single number, got an array of shape {np.shape(value)}")
            value = float(check_nonnegative(value, attr))
            if attr in _FRACTIONS and not 0.0 < value <= 1.0:
                raise ValueError(f"{attr} must be in (0, 1]; got {value!r}")
            if attr == "overlap" and value > 1.0:
                raise ValueError(f"overlap must be in [0, 1]; got {value!r}")
            set_(self, attr, value)
        for attr in _FLAGS:
            set_(self, attr, check_bool(getattr(self, attr), attr))
        tile = self.gemm_tile
        if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)) or tile < 1:
            raise ValueError(f"gemm_tile must be a whole number >= 1; got {describe(tile)}")
        set_(self, "gemm_tile", int(tile))
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a string, got {describe(self.name)}")

    @property
    def is_ideal(self) -> bool:
        """True when no term departs from the ideal roofline (``kv_write`` and ``name`` aside)."""
        return (all(getattr(self, a) == 1.0 for a in _FRACTIONS + ("overlap",))
                and all(getattr(self, a) == 0.0 for a in _TIMES) and not self.communication
                and not self.causal_attention and self.gemm_tile == 1)


#: The ideal roofline: every term of :class:`Calibration` at its ideal value.
IDEAL = Calibration()


# --------------------------------------------------------------------------
# the fitted calibrations (rounded; tests re-run the fits in specdec.calibration)
# --------------------------------------------------------------------------

#: Fixed cost per pass of each engine, seconds, as fitted (rounded) by :func:`specdec.calibration.fit_calibration`
#: (gpt-fast, TensorRT-LLM) and :func:`specdec.calibration.fit_hopper` (SGLang, vLLM). TensorRT-LLM's is fitted to
#: first-token latencies: a per-request cost, not a decode step's.
FIXED_COSTS = {"gpt-fast": 0.44e-3, "TensorRT-LLM v0.5": 4.34e-3, "SGLang": 0.49e-3, "vLLM": 2.05e-3}

#: All-reduce latency per fabric (``specdec.calibration.FABRICS``), seconds, as fitted (rounded).
ALLREDUCE_LATENCIES = {"a100-cube-mesh-nccl": 22.2e-6, "a100-nvswitch-trtllm": 64.8e-6, "hopper-nvswitch": 26.8e-6}

A100_CALIBRATION = Calibration(bw_efficiency=0.76, flops_efficiency=0.76, overlap=0.2,
                               step_overhead=FIXED_COSTS["gpt-fast"],
                               allreduce_latency=ALLREDUCE_LATENCIES["a100-cube-mesh-nccl"], link_efficiency=0.66,
                               communication=True, kv_write=True, causal_attention=True, gemm_tile=64,
                               name="A100 (fitted: gpt-fast, TensorRT-LLM)")
"""Fitted by :func:`specdec.calibration.fit_calibration` to the eleven A100 measurements of
:data:`specdec.calibration.MEASUREMENTS` (gpt-fast decode at TP 1-8, TensorRT-LLM first-token latency), with one
fixed cost per engine and one all-reduce latency per fabric, GEMMs in tiles of 64 rows; values rounded: 76 % of
peak bandwidth and of peak FLOP/s, overlap 0.2 beyond the first tile, gpt-fast's 0.44 ms per pass and 22.2 us per
all-reduce on its partial mesh, 66 % of the NVLink bandwidth."""

H100_CALIBRATION = replace(A100_CALIBRATION, step_overhead=FIXED_COSTS["SGLang"],
                           allreduce_latency=ALLREDUCE_LATENCIES["hopper-nvswitch"],
                           name="H100 (Hopper fit: SGLang, vLLM; A100 fractions carried)")
"""Hopper's own fixed cost (SGLang's batch-1 decodes on H100) and NVSwitch all-reduce latency (vLLM's CI requests
on H200, jointly with vLLM's fixed cost), fitted by :func:`specdec.calibration.fit_hopper`; the fractions of the
peaks, the overlap, the link efficiency and the GEMM tile are carried over from the A100 fit (an assumption: no
published Hopper series separates them)."""

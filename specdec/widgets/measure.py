"""Explorer for "Measure your machine": the matrix-product roofline of any machine.

Presentation only: the numbers come from :mod:`specdec.roofline.measure` and the
figure from :func:`specdec.plots.matmul_prediction` (redrawn for each
setting). A :class:`specdec.widgets.Explorer`.
"""

from __future__ import annotations

import math

from specdec.roofline.hardware import Hardware
from specdec.roofline.measure import matmul_knee, predict_matmul_time

from .._validate import check_positive
from ..plots import new_figure
from ..plots.measure import matmul_prediction
from ._base import Explorer, choice

__all__ = ["MatmulRooflineExplorer", "matmul_roofline_explorer", "MATMUL_SIZES"]

#: Weight matrix sizes offered by the explorer.
MATMUL_SIZES = (1024, 2048, 4096, 8192, 16384)
_BYTES = (("bf16 / fp16 (2 bytes)", 2), ("float32 (4 bytes)", 4))
#: Bandwidths (GB/s) and peaks (GFLOP/s) on the selection sliders, roughly even on a log scale; a starting
#: value not listed is added.
_BANDWIDTHS = (1, 2, 3, 5, 8, 10, 15, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1500,
               2000, 3000, 4000, 5000, 6000, 8000, 10000)
_PEAKS = (10, 20, 50, 100, 200, 300, 500, 1000, 1500, 2000, 3000, 5000, 10000, 20000, 50000, 100000, 200000,
          500000, 1000000)


def _grid(value, grid, name, low, high, unit):
    v = float(check_positive(value, name, f"({unit})"))
    if not low <= v <= high:
        raise ValueError(f"{name} must be in [{low:g}, {high:g}] {unit}; got {v:g}")
    return v, sorted({float(g) for g in grid} | {v})


class MatmulRooflineExplorer(Explorer):
    """Bandwidth, FLOP/s, matrix size and number format over the chapter's prediction figure.

    ``values`` holds the control values, the machine's ``bandwidth``
    (bytes/s) and ``flops`` (FLOP/s), ``t1`` (seconds at ``t = 1``),
    ``knee`` (tokens, :func:`specdec.roofline.measure.matmul_knee`), ``ridge``
    (``F / BW * b / 2``) and ``growth`` (time at ``t = 64`` over time at ``t = 1``).

    Defined in chapter "Measure your machine".
    """

    name = "matmul-roofline"
    title = "Matrix-product roofline explorer"

    def __init__(self, bandwidth_gbs=80.0, gflops=2000.0, d=4096, bytes_per_elem=4):
        bw, bandwidths = _grid(bandwidth_gbs, _BANDWIDTHS, "bandwidth_gbs", 1, 1e4, "GB/s")
        fl, peaks = _grid(gflops, _PEAKS, "gflops", 10, 1e6, "GFLOP/s")
        controls = {
            "bandwidth_gbs": choice(bw, bandwidths, "bandwidth (GB/s)", name="bandwidth_gbs", slider=True),
            "gflops": choice(fl, peaks, "peak (GFLOP/s)", name="gflops", slider=True),
            "d": choice(d, list(MATMUL_SIZES), "d"),
            "bytes_per_elem": choice(bytes_per_elem, list(_BYTES), "format", name="bytes_per_elem"),
        }
        fig, self.axes = new_figure(7.0, 3.2, ncols=2)
        super().__init__(controls, figure=fig)

    @staticmethod
    def hardware_for(v) -> Hardware:
        """The machine of the control values ``v``."""
        return Hardware(bandwidth=v["bandwidth_gbs"] * 1e9, flops=v["gflops"] * 1e9, memory=16e9, name="this machine")

    def compute(self, state=None) -> dict:
        """The product's times, knee and ridge for the controls (or ``state``), from :mod:`specdec.roofline.measure`."""
        v = self.state(state)
        hw, d, b = self.hardware_for(v), v["d"], v["bytes_per_elem"]
        t1, t64 = (float(t) for t in predict_matmul_time(d, [1, 64], hw, b))
        v.update(bandwidth=hw.bandwidth, flops=hw.flops, t1=t1, knee=float(matmul_knee(d, hw, b)),
                 ridge=hw.flops / hw.bandwidth * b / 2, growth=t64 / t1)
        return v

    def rows(self, v) -> list:
        knee = f"{v['knee']:.1f} tokens" if math.isfinite(v["knee"]) else "never (d too small)"
        return [("t1", "time of one product at t = 1", f"{v['t1'] * 1e3:.3f} ms"),
                ("knee", "knee (weights + token vectors)", knee),
                ("ridge", "weights-only ridge F / BW x b / 2", f"{v['ridge']:.1f} tokens"),
                ("growth", "time at t = 64 / time at t = 1", f"{v['growth']:.2f}")]

    def draw(self, v):
        matmul_prediction(v["d"], self.hardware_for(v), v["bytes_per_elem"], axes=self.axes)
        return tuple(v[name] for name in self.controls)

    def alt_text(self, v) -> str:
        knee = f"the knee at {v['knee']:.1f} tokens dotted" if math.isfinite(v["knee"]) else "no knee"
        return (f"Left: predicted milliseconds of a {v['d']} x {v['d']} product with {v['bytes_per_elem']}-byte "
                f"numbers against the tokens t multiplied at once, on {v['bandwidth_gbs']:g} GB/s and "
                f"{v['gflops']:g} GFLOP/s: {v['t1'] * 1e3:.3f} ms at t = 1, {knee}. Right: milliseconds per token, "
                f"falling like 1/t up to the knee.")


def matmul_roofline_explorer(bandwidth_gbs=80.0, gflops=2000.0, d=4096, bytes_per_elem=4) -> MatmulRooflineExplorer:
    """Interactive matrix-product roofline; defaults are the chapter's example desktop and ``d = 4096``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    bandwidth_gbs : float, optional
        Memory bandwidth in GB/s, in [1, 10000]. Default 80.
    gflops : float, optional
        Peak arithmetic in GFLOP/s, in [10, 1000000]. Default 2000.
    d : int, optional
        One of ``MATMUL_SIZES``. Default 4096.
    bytes_per_elem : {2, 4}, optional
        Bytes per number. Default 4 (float32).

    Returns
    -------
    MatmulRooflineExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.matmul_roofline_explorer()
    >>> round(w.values["knee"], 1), round(w.values["t1"] * 1e3, 3)
    (51.3, 0.839)
    """
    return MatmulRooflineExplorer(bandwidth_gbs=bandwidth_gbs, gflops=gflops, d=d, bytes_per_elem=bytes_per_elem)

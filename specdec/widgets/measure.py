"""Explorer for "Measure your machine": the matrix-product roofline of any machine.

Presentation only: the numbers come from :mod:`specdec.measure` and the
figure from :func:`specdec.plots.measure.matmul_prediction`.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._validate import check_integer, check_positive
from ..hardware import Hardware
from ..measure import matmul_knee, predict_matmul_time
from ..plots.measure import matmul_prediction
from ._render import figure_png, table_html

__all__ = ["MatmulRooflineExplorer", "matmul_roofline_explorer", "MATMUL_SIZES"]

#: Weight matrix sizes offered by the explorer.
MATMUL_SIZES = (1024, 2048, 4096, 8192, 16384)
_BYTES = (("bf16 / fp16 (2 bytes)", 2), ("float32 (4 bytes)", 4))


class MatmulRooflineExplorer(widgets.VBox):
    """Bandwidth, FLOP/s, matrix size and number format over the chapter's prediction figure.

    ``values`` holds the numbers of the last update: ``t1`` (seconds at
    ``t = 1``), ``knee`` (tokens), ``ridge`` (``F / BW * b / 2``),
    ``growth`` (time at ``t = 64`` over time at ``t = 1``) and the control values.

    Defined in chapter "Measure your machine".
    """

    def __init__(self, bandwidth_gbs=80.0, gflops=2000.0, d=4096, bytes_per_elem=4, dpi: int = 72):
        bw = float(check_positive(bandwidth_gbs, "bandwidth_gbs", "(GB/s)"))
        fl = float(check_positive(gflops, "gflops", "(GFLOP/s)"))
        if not 1 <= bw <= 1e4:
            raise ValueError(f"bandwidth_gbs must be in [1, 10000] GB/s; got {bw:g}")
        if not 10 <= fl <= 1e6:
            raise ValueError(f"gflops must be in [10, 1000000] GFLOP/s; got {fl:g}")
        if d not in MATMUL_SIZES:
            raise ValueError(f"d must be one of {list(MATMUL_SIZES)}; got {d!r}")
        if bytes_per_elem not in (2, 4):
            raise ValueError(f"bytes_per_elem must be 2 or 4; got {bytes_per_elem!r}")
        self.dpi = int(check_integer(dpi, "dpi", minimum=30, maximum=300))
        style = {"description_width": "initial"}
        self.controls = {
            "bandwidth": widgets.FloatLogSlider(value=bw, base=10, min=0, max=4, step=0.05,
                                                description="bandwidth (GB/s)", style=style,
                                                continuous_update=False, readout_format=".3g"),
            "flops": widgets.FloatLogSlider(value=fl, base=10, min=1, max=6, step=0.05,
                                            description="peak (GFLOP/s)", style=style, continuous_update=False,
                                            readout_format=".3g"),
            "d": widgets.Dropdown(options=list(MATMUL_SIZES), value=d, description="d", style=style),
            "bytes": widgets.Dropdown(options=list(_BYTES), value=bytes_per_elem, description="format",
                                      style=style),
        }
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.values: dict = {}
        row1 = widgets.HBox([self.controls["bandwidth"], self.controls["flops"]])
        row2 = widgets.HBox([self.controls["d"], self.controls["bytes"]])
        super().__init__([row1, row2, self.readout, self.image])
        for control in self.controls.values():
            control.observe(lambda change: self.update(), names="value")
        self.update()

    def hardware(self) -> Hardware:
        """The machine the sliders describe."""
        return Hardware(bandwidth=self.controls["bandwidth"].value * 1e9, flops=self.controls["flops"].value * 1e9,
                        memory=16e9, name="sliders")

    def compute(self) -> dict:
        """Numbers for the current controls (no drawing)."""
        hw, d, b = self.hardware(), int(self.controls["d"].value), int(self.controls["bytes"].value)
        t1, t64 = np.asarray(predict_matmul_time(d, [1, 64], hw, b), dtype=float)
        return {"bandwidth": hw.bandwidth, "flops": hw.flops, "d": d, "bytes_per_elem": b, "t1": float(t1),
                "knee": float(matmul_knee(d, hw, b)), "ridge": hw.flops / hw.bandwidth * b / 2,
                "growth": float(t64 / t1)}

    def update(self) -> dict:
        """Recompute, refresh the read-out and the figure; return the numbers."""
        v = self.compute()
        knee = f"{v['knee']:.1f} tokens" if np.isfinite(v["knee"]) else "never (d too small)"
        self.readout.value = table_html([
            ("time of one product at t = 1", f"{v['t1'] * 1e3:.3f} ms"),
            ("knee (weights + token vectors)", knee),
            ("weights-only ridge F / BW x b / 2", f"{v['ridge']:.1f} tokens"),
            ("time at t = 64 / time at t = 1", f"{v['growth']:.2f}"),
        ])
        fig = matmul_prediction(v["d"], self.hardware(), v["bytes_per_elem"])
        self.image.value = figure_png(fig, self.dpi)
        self.values = v
        return v


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

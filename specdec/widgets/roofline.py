"""Explorers of the roofline: one forward pass on a GPU, the cost of verifying on it, and a machine's matrix products.

Presentation only: the numbers come from :mod:`specdec.roofline.hardware`,
:mod:`specdec.roofline.memory`, :mod:`specdec.roofline.measure` and
:mod:`specdec.serving.deployment`; the figures from :class:`specdec.plots.RooflineView`,
:func:`specdec.plots.verify_cost_overview` (its moving curves carry ``gid`` tags) and
:func:`specdec.plots.matmul_prediction` (redrawn for each setting).
"""

from __future__ import annotations

import math

import numpy as np

from specdec.roofline import hardware as _hw
from specdec.roofline.hardware import GPUS, MODELS, Hardware, ridge_batch, utilization
from specdec.roofline.measure import matmul_knee, predict_matmul_time
from specdec.roofline.memory import max_concurrent_sequences
from specdec.serving.deployment import break_even_batch, speculative_costs

from .._validate import check_integer, check_positive, check_probability
from ..plots import new_figure
from ..plots.roofline import RooflineView, matmul_prediction, verify_cost_overview
from ._base import Explorer, choice, float_slider, int_slider, tagged_lines

__all__ = [
    "RooflineExplorer",
    "roofline_explorer",
    "ROOFLINE_BATCHES",
    "ROOFLINE_CONTEXTS",
    "VerifyCostExplorer",
    "verify_cost_explorer",
    "MatmulRooflineExplorer",
    "matmul_roofline_explorer",
    "MATMUL_SIZES",
]


#: Batch choices on the explorer's slider.
ROOFLINE_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
#: Context choices on the explorer's slider (tokens already cached per sequence).
ROOFLINE_CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
_N_GPUS = (1, 2, 4, 8)


class RooflineExplorer(Explorer):
    """Pick target, draft, GPU, GPU count, batch, context, k and alpha; see the roofline costs.

    The read-out lists ``T0``, ``T_verify``, ``c_verify``, ``c_draft``, the
    speedup, utilization, the ridge and break-even batches and the memory
    headroom; the figure is :class:`specdec.plots.RooflineView`.
    ``values`` holds the numbers of the last update (keys ``t0``,
    ``t_verify``, ``c_verify``, ``c_draft``, ``speedup``, ``utilization``,
    ``ridge_batch``, ``break_even_batch``, ``max_sequences``,
    ``max_sequences_with_draft``, ``fits``, plus the control values).

    Defined in chapter "The roofline model".
    """

    name = "roofline"
    title = "Roofline explorer"

    def __init__(self, target="llama-3.1-70b", draft="llama-3.1-8b", gpu="h100-sxm", n_gpus=8, batch=1, context=0,
                 k=5, alpha=0.8):
        kk = int(check_integer(k, "k", minimum=1, maximum=10))
        a = float(check_probability(alpha, "alpha"))
        wide = {"label_width": "12em", "width": "26em"}
        controls = {
            "target": choice(target, list(MODELS), "target", **wide),
            "draft": choice(draft, list(MODELS), "draft", **wide),
            "gpu": choice(gpu, list(GPUS), "GPU", name="gpu", **wide),
            "n_gpus": choice(n_gpus, list(_N_GPUS), "GPUs (tensor parallel)", name="n_gpus", **wide),
            "batch": choice(batch, list(ROOFLINE_BATCHES), "batch", slider=True, **wide),
            "context": choice(context, list(ROOFLINE_CONTEXTS), "context (tokens)", slider=True, **wide),
            "k": int_slider(kk, 1, 10, "k", **wide),
            "alpha": float_slider(a, 0.0, 1.0, 0.01, "alpha", **wide),
        }
        self.controls = controls
        v = self._inputs(self.state())
        self.view = RooflineView(v["target_model"], v["draft_model"], v["hardware"], a, kk, batch, context)
        super().__init__(controls, figure=self.view.figure, dynamic=self.view.dynamic_artists)

    @staticmethod
    def _inputs(v) -> dict:
        v = dict(v)
        v["target_model"] = MODELS[v["target"]]
        v["draft_model"] = MODELS[v["draft"]]
        v["hardware"] = GPUS[v["gpu"]].scaled(v["n_gpus"]) if v["n_gpus"] > 1 else GPUS[v["gpu"]]
        return v

    def compute(self, state=None) -> dict:
        """The numbers for the controls (or ``state``), from :mod:`specdec.serving.deployment` and friends; no drawing."""
        v = self._inputs(self.state(state))
        tm, dm, hw = v["target_model"], v["draft_model"], v["hardware"]
        b, c, k, a = v["batch"], v["context"], v["k"], v["alpha"]
        r = speculative_costs(tm, dm, hw, a, k, b, c)
        ctx = max(c, 1)
        v.update(
            t0=float(r.t0), t_verify=float(r.t_verify), c_verify=float(r.c_verify), c_draft=float(r.c_draft),
            speedup=float(r.speedup), expected_tokens=float(r.expected_tokens),
            utilization=float(utilization(tm, hw, b, 1, c)),
            ridge_batch=ridge_batch(tm, hw),
            break_even_batch=break_even_batch(tm, dm, hw, a, k, c),
            max_sequences=int(max_concurrent_sequences(tm, hw, ctx)),
            max_sequences_with_draft=int(max_concurrent_sequences(tm, hw, ctx, draft=dm, k=k)),
            fits=bool(r.fits),
        )
        return v

    def rows(self, v) -> list:
        be = v["break_even_batch"]
        return [
            ("t0", "plain decode step T0", f"{v['t0'] * 1e3:.3f} ms"),
            ("t_verify", f"verification of k + 1 = {v['k'] + 1} tokens, T_verify", f"{v['t_verify'] * 1e3:.3f} ms"),
            ("c_verify", "c_verify = T_verify / T0", f"{v['c_verify']:.3f}"),
            ("c_draft", "c_draft (one draft step / T0)", f"{v['c_draft']:.4f}"),
            ("speedup", "E[L] and speedup E[L] / (k c_draft + c_verify)",
             f"{v['expected_tokens']:.3f} tokens, {v['speedup']:.3f}x"),
            ("utilization", "plain step uses this fraction of peak FLOP/s", f"{v['utilization']:.2%}"),
            ("ridge_batch", "ridge point (tokens per step)", f"{v['ridge_batch']:.0f}"),
            ("break_even_batch", "speculation loses from batch", "never (up to 4096)" if be != be else f"{be:.0f}"),
            ("max_sequences", "sequences that fit: target only / with draft",
             f"{v['max_sequences']} / {v['max_sequences_with_draft']}"),
            ("fits", "this batch fits in memory with the draft", "yes" if v["fits"] else "no"),
        ]

    def draw(self, v):
        return self.view.update(v["target_model"], v["draft_model"], v["hardware"], v["alpha"], v["k"], v["batch"],
                                v["context"], keep_ylim=True)

    def alt_text(self, v) -> str:
        return (f"Left: c_verify = T_verify / T0 against k for {v['target']} on {v['n_gpus']} x {v['gpu']} at batch "
                f"{v['batch']} and context {v['context']}, under k + 1; k = {v['k']} ringed at {v['c_verify']:.2f}. "
                f"Right: the roofline speedup with a {v['draft']} draft against batch, at alpha {v['alpha']:.2f}; "
                f"{v['speedup']:.2f}x at batch {v['batch']}; the ridge point, batch {v['ridge_batch']:.0f}, dotted.")


def roofline_explorer(target="llama-3.1-70b", draft="llama-3.1-8b", gpu="h100-sxm", n_gpus=8, batch=1, context=0,
                      k=5, alpha=0.8) -> RooflineExplorer:
    """Interactive roofline explorer; defaults are the first source's 70B/8B pair on 8 H100s.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    target, draft : str, optional
        Keys of :data:`specdec.roofline.hardware.MODELS`.
    gpu : str, optional
        Key of :data:`specdec.roofline.hardware.GPUS`.
    n_gpus : {1, 2, 4, 8}, optional
        Tensor-parallel group size.
    batch : int, optional
        One of ``ROOFLINE_BATCHES``.
    context : int, optional
        One of ``ROOFLINE_CONTEXTS``.
    k : int, optional
        Drafts per round, in [1, 10].
    alpha : float, optional
        Acceptance rate in [0, 1].

    Returns
    -------
    RooflineExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.roofline_explorer()
    >>> round(w.values["t0"] * 1e3, 2), round(w.values["c_verify"], 3), w.values["break_even_batch"]
    (11.72, 1.007, 107.0)
    """
    return RooflineExplorer(target=target, draft=draft, gpu=gpu, n_gpus=n_gpus, batch=batch, context=context, k=k,
                            alpha=alpha)


class VerifyCostExplorer(Explorer):
    """Context and "your batch" sliders over the chapter's verification-cost figure.

    ``values``: ``batch``, ``context``, ``k``, ``t0`` and ``t_verify``
    (seconds), ``c_verify``, ``utilization``.

    Defined in chapter "Why verification is not free".
    """

    name = "verify-cost"
    title = "Verification-cost explorer"

    def __init__(self, target, hardware, batch=64, context=0, k=5):
        _hw.validate_setup(target, None, hardware)
        self.target, self.hardware = target, hardware
        self.batch_slider = int_slider(batch, 1, 512, "your batch")
        self.context_slider = int_slider(context, 0, 131072, "context", step=1024)
        self.k_slider = int_slider(k, 1, 10, "k")
        self.batches = (1, 32, 64, 128, 256)
        self.contexts = (0, 4096, 32768)
        figure = verify_cost_overview(target, hardware, batches=self.batches, contexts=self.contexts,
                                      extra_batch=int(batch), context=int(context), k_fixed=int(k), dynamic=True)
        self.lines = tagged_lines(figure)
        super().__init__({"batch": self.batch_slider, "context": self.context_slider, "k": self.k_slider},
                         figure=figure, dynamic=self.lines.values())

    def compute(self, state=None) -> dict:
        """Numbers for the sliders (or ``state``), from :mod:`specdec.roofline.hardware`; no drawing."""
        v = self.state(state)
        b, c, k = v["batch"], v["context"], v["k"]
        t, hw = self.target, self.hardware
        v.update(t0=_hw.step_time(t, hw, b, c), t_verify=_hw.step_time(t, hw, b, c, k + 1),
                 c_verify=_hw.verify_cost(t, hw, k, batch=b, context=c), utilization=_hw.utilization(t, hw, b, context=c))
        return v

    def rows(self, v) -> list:
        return [
            ("t0", "T0, one decode step", f"{v['t0'] * 1e3:.2f} ms"),
            ("t_verify", f"T_verify over k + 1 = {v['k'] + 1} tokens", f"{v['t_verify'] * 1e3:.2f} ms"),
            ("c_verify", "c_verify = T_verify / T0", f"{v['c_verify']:.3f}"),
            ("in_rule", "within the source's 1.0 to 1.5?", "yes" if v["c_verify"] <= 1.5 else "no"),
            ("utilization", "FLOP/s used by a plain step", f"{v['utilization']:.1%}"),
        ]

    def draw(self, v):
        lines, t, hw = self.lines, self.target, self.hardware
        ks = np.asarray(lines["extra"].get_xdata())
        for b in self.batches:
            lines[f"batch-{b}"].set_ydata(_hw.verify_cost(t, hw, ks, batch=b, context=v["context"]))
        lines["extra"].set_ydata(_hw.verify_cost(t, hw, ks, batch=v["batch"], context=v["context"]))
        for c in self.contexts:
            line = lines[f"context-{c}"]
            line.set_ydata(_hw.verify_cost(t, hw, v["k"], batch=np.asarray(line.get_xdata()), context=c))
        lines["ceiling"].set_ydata([v["k"] + 1, v["k"] + 1])
        return None                       # fixed axes: one background

    def alt_text(self, v) -> str:
        return (f"Left: c_verify against k for batches 1 to 256 and your batch {v['batch']} (black) at context "
                f"{v['context']:,}, under the ceiling k + 1, with the source's 1.0 to 1.5 band. Right: c_verify at "
                f"k = {v['k']} against batch for contexts 0, 4,096 and 32,768. At your batch: c_verify "
                f"{v['c_verify']:.2f}.")


def verify_cost_explorer(target=None, hardware=None, batch=64, context=0, k=5) -> VerifyCostExplorer:
    """Explore ``c_verify`` against ``k``, batch and context on the roofline model.

    Defaults reproduce the chapter's static figure (the black "your batch"
    curve starts on batch 64, one of the figure's curves).

    Defined in chapter "Why verification is not free".

    Parameters
    ----------
    target : specdec.roofline.hardware.Model, optional
        Default Llama 3.1 70B.
    hardware : specdec.roofline.hardware.Hardware, optional
        Default 8 calibrated H100 SXM (``specdec.roofline.hardware.H100.scaled(8)``).
    batch, context, k : int, optional
        Initial slider values.

    Returns
    -------
    VerifyCostExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.verify_cost_explorer()
    >>> round(w.values["c_verify"], 3)
    1.99
    """
    target = _hw.LLAMA_70B if target is None else target
    hardware = _hw.H100.scaled(8) if hardware is None else hardware
    return VerifyCostExplorer(target, hardware, batch=batch, context=context, k=k)


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

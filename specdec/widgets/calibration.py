"""Explorers of the calibrated roofline: a round's terms and the speedup against batch, calibrated or ideal.

Presentation only: the numbers come from :mod:`specdec.calibration` and :mod:`specdec.roofline.hardware`;
the figure is :func:`specdec.plots.calibration_overview`, redrawn for each setting.
"""

from __future__ import annotations

import math

from specdec.roofline.hardware import (
    GPUS,
    LLAMA_1B,
    LLAMA_8B,
    LLAMA_70B,
    draft_cost,
    step_time,
    verify_cost,
)
from specdec.serving.deployment import break_even_batch, speculative_speedup

from .._validate import check_integer, check_nonnegative, check_probability
from ..plots import new_figure
from ..plots.calibration import calibration_overview
from ._base import CONTEXT_STEPS, Explorer, choice, float_slider, int_slider, roofline_choice

__all__ = [
    "CalibrationExplorer",
    "calibration_explorer",
]


_MODELS = {"Llama 3.1 70B": LLAMA_70B, "Llama 3.1 8B": LLAMA_8B, "Llama 3.2 1B": LLAMA_1B}
_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class CalibrationExplorer(Explorer):
    """Target, draft, GPU, GPU count, roofline, fixed cost, batch, context, k and alpha: the round's costs.

    ``values`` holds ``t0``, ``t_verify``, ``t_draft_step`` (seconds),
    ``c_verify``, ``c_draft``, ``speedup`` and ``break_even_batch`` (``nan``:
    none up to 4096) with the control values; the figure is
    :func:`specdec.plots.calibration_overview`, redrawn for each setting.

    Defined in chapter "A calibrated roofline".
    """

    name = "calibration"
    title = "Calibrated roofline explorer"

    def __init__(self, target="Llama 3.1 70B", draft="Llama 3.1 8B", gpu="h100-sxm", n_gpus=8, calibrated=True,
                 step_overhead_ms=None, batch=1, context=0, k=5, alpha=0.8):
        base = GPUS.get(gpu) if isinstance(gpu, str) else None
        if base is None:
            raise ValueError(f"gpu must be one of {list(GPUS)}; got {gpu!r}")
        fixed = base.calibration.step_overhead * 1e3 if step_overhead_ms is None else \
            float(check_nonnegative(step_overhead_ms, "step_overhead_ms", "(ms)"))
        wide = {"label_width": "9em", "width": "23em"}
        controls = {
            "target": choice(target, list(_MODELS), "target", **wide),
            "draft": choice(draft, list(_MODELS), "draft", **wide),
            "gpu": choice(gpu, list(GPUS), "GPU", name="gpu", **wide),
            "n_gpus": choice(n_gpus, [1, 2, 4, 8], "GPUs", name="n_gpus", **wide),
            "calibrated": roofline_choice(calibrated, **wide),
            "step_overhead_ms": float_slider(fixed, 0.0, 5.0, 0.05, "fixed cost (ms)", **wide),
            "batch": choice(batch, list(_BATCHES), "batch", slider=True, **wide),
            "context": choice(context, list(CONTEXT_STEPS), "context", slider=True, **wide),
            "k": int_slider(check_integer(k, "k", minimum=1, maximum=10), 1, 10, "k", **wide),
            "alpha": float_slider(check_probability(alpha, "alpha"), 0.3, 0.95, 0.01, "alpha", **wide),
        }
        fig, self.axes = new_figure(7.0, 3.4, ncols=2)
        super().__init__(controls, figure=fig)

    def _hardware(self, s):
        one = GPUS[s["gpu"]]
        one = one.calibrated(one.calibration, step_overhead=s["step_overhead_ms"] * 1e-3) if s["calibrated"] else \
            one.ideal()
        return one.scaled(s["n_gpus"]) if s["n_gpus"] > 1 else one

    def compute(self, state=None) -> dict:
        """The round's costs for the controls (or ``state``), from :mod:`specdec.roofline.hardware` and friends."""
        v = self.state(state)
        hw, t, d = self._hardware(v), _MODELS[v["target"]], _MODELS[v["draft"]]
        b, c, k, a = v["batch"], v["context"], v["k"], v["alpha"]
        kv = not hw.is_ideal
        v.update(hardware=hw, t0=float(step_time(t, hw, b, c)), t_verify=float(step_time(t, hw, b, c, k + 1)),
                 t_draft_step=float(step_time(d, hw, b, c)), c_verify=float(verify_cost(t, hw, k, b, c)),
                 c_draft=float(draft_cost(d, t, hw, b, c)),
                 speedup=float(speculative_speedup(t, d, hw, a, k, b, c, kv_write=kv)),
                 break_even_batch=float(break_even_batch(t, d, hw, a, k, c, kv_write=kv)))
        return v

    def rows(self, v) -> list:
        be = v["break_even_batch"]
        return [("t0", "plain step T0", f"{v['t0'] * 1e3:.2f} ms"),
                ("t_verify", f"verification of k + 1 = {v['k'] + 1} tokens", f"{v['t_verify'] * 1e3:.2f} ms"),
                ("c_verify", "c_v = T_verify / T0", f"{v['c_verify']:.3f}"),
                ("t_draft_step", "one draft step", f"{v['t_draft_step'] * 1e3:.2f} ms"),
                ("c_draft", "c_d = draft step / T0", f"{v['c_draft']:.3f}"),
                ("speedup", "speedup", f"{v['speedup']:.2f}x"),
                ("break_even_batch", "first losing batch", "none up to 4096" if math.isnan(be) else f"{be:.0f}")]

    def draw(self, v):
        calibration_overview(_MODELS[v["target"]], _MODELS[v["draft"]], v["hardware"], v["alpha"], v["k"],
                             v["batch"], v["context"], axes=self.axes)
        return tuple(v[name] for name in self.controls)

    def alt_text(self, v) -> str:
        return (f"Left: the plain step ({v['t0'] * 1e3:.2f} ms), the verification of k = {v['k']} drafts "
                f"({v['t_verify'] * 1e3:.2f} ms) and one draft step ({v['t_draft_step'] * 1e3:.2f} ms) of "
                f"{v['target']} with {v['draft']} on {v['hardware'].name}, split into fixed cost, binding resource, "
                f"the part not overlapped and all-reduces, at batch {v['batch']} and context {v['context']}. Right: "
                f"speedup against batch on this and the ideal roofline at alpha {v['alpha']:.2f}; "
                f"{v['speedup']:.2f}x at batch {v['batch']}.")


def calibration_explorer(target="Llama 3.1 70B", draft="Llama 3.1 8B", gpu="h100-sxm", n_gpus=8, calibrated=True,
                         step_overhead_ms=None, batch=1, context=0, k=5, alpha=0.8) -> CalibrationExplorer:
    """The calibrated-roofline explorer: a round's passes, their costs and speculation's speedup.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    target, draft : {"Llama 3.1 70B", "Llama 3.1 8B", "Llama 3.2 1B"}, optional
    gpu : str, optional
        A key of :data:`specdec.roofline.hardware.GPUS` (calibrated presets).
    n_gpus : {1, 2, 4, 8}, optional
    calibrated : bool, optional
        The calibrated roofline (True) or the ideal one.
    step_overhead_ms : float, optional
        Fixed cost per pass in ms, >= 0 (default: the GPU's calibration).
    batch : one of 1, 2, 4, ..., 256, optional
    context : one of 0, 512, 1024, ..., 32768, optional
    k : int, optional
        Drafts per round, in [1, 10].
    alpha : float, optional
        Acceptance rate in [0, 1].

    Returns
    -------
    CalibrationExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.calibration_explorer()
    >>> round(w.values["t0"] * 1e3, 2), round(w.values["speedup"], 2)
    (11.72, 1.61)
    """
    return CalibrationExplorer(target=target, draft=draft, gpu=gpu, n_gpus=n_gpus, calibrated=calibrated,
                               step_overhead_ms=step_overhead_ms, batch=batch, context=context, k=k, alpha=alpha)

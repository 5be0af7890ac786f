"""Explorers for Part IV, "Speculation as engines run it".

Presentation only: the numbers come from :mod:`specdec.calibration`,
:mod:`specdec.drafters`, :mod:`specdec.verification`, :mod:`specdec.trees`,
:mod:`specdec.dynamic` and :mod:`specdec.goodput`; the figures from
:mod:`specdec.plots.calibration` and :mod:`specdec.plots.engines`.

Every explorer is an ipywidgets ``VBox`` (controls, the figure as a PNG, a
read-out table) whose display bundle also carries a static ``text/html``
snapshot: its controls drawn disabled at their values, the read-out, and one
line on how to make it live. ``values`` holds the numbers of the last update.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from .. import calibration as cal
from ..deployment import break_even_batch, speculative_speedup
from ..hardware import LLAMA_1B, LLAMA_8B, LLAMA_70B, step_time
from ..plots import calibration as calibration_plots
from ._render import figure_png, table_html

__all__ = [
    "calibration_explorer",
]

_RUN_LINE = "Static snapshot at the values above: run the notebook (Jupyter) to move the controls."


def _control_html(name: str, control) -> str:
    label = html.escape(getattr(control, "description", "") or name)
    value = control.value
    if isinstance(control, widgets.Checkbox):
        field = f"<input type='checkbox' disabled{' checked' if value else ''}>"
    elif isinstance(control, (widgets.Dropdown, widgets.SelectionSlider, widgets.ToggleButtons)):
        options = [o if isinstance(o, str) else str(o) for o in control.options]
        label_of = dict(zip(control.options, options)) if not isinstance(control.options, dict) else {}
        shown = html.escape(label_of.get(value, str(value)))
        field = f"<select disabled><option selected>{shown}</option></select>"
    else:
        fmt = getattr(control, "readout_format", "d" if isinstance(value, (int, np.integer)) else ".2f")
        shown = format(value, fmt) if fmt else str(value)
        field = (f"<input type='range' disabled min='{control.min}' max='{control.max}' step='{control.step}' "
                 f"value='{value}'> <code>{html.escape(shown)}</code>")
    return f"<label style='margin-right:14px;white-space:nowrap'>{label} {field}</label>"


class _Explorer(widgets.VBox):
    """Controls, a figure and a read-out; subclasses define ``title``, ``_controls`` and ``_render``."""

    title = "Explorer"

    def __init__(self, controls: dict, dpi: int = 72):
        self.controls = controls
        self.dpi = int(dpi)
        self.image = widgets.Image(format="png")
        self.readout = widgets.HTML()
        self.values: dict = {}
        self._rows: list = []
        items = list(controls.values())
        rows = [widgets.HBox(items[i:i + 3]) for i in range(0, len(items), 3)]
        for control in items:
            control.observe(self._changed, names="value")
        super().__init__(children=[*rows, self.image, self.readout])
        self.update()

    def _changed(self, _change) -> None:
        self.update()

    def current(self) -> dict:
        """The control values by name."""
        return {name: control.value for name, control in self.controls.items()}

    def update(self) -> None:
        """Recompute the figure and the read-out from the controls."""
        fig, rows, values = self._render(**self.current())
        self.image.value = figure_png(fig, self.dpi)
        self._rows = rows
        self.readout.value = table_html(rows)
        self.values = {**values, **self.current()}

    def snapshot_html(self) -> str:
        """The static view stored in the notebook: disabled controls, the read-out, how to run it."""
        controls = "".join(_control_html(name, c) for name, c in self.controls.items())
        return (f"<div class='specdec-explorer' style='border:1px solid #ccc;padding:6px 10px;margin:4px 0'>"
                f"<p><strong>{html.escape(self.title)}</strong></p><p>{controls}</p>{table_html(self._rows)}"
                f"<p style='font-size:smaller;color:#555'>{html.escape(_RUN_LINE)}</p></div>")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"{self.title} (an explorer: run the notebook to use it)"
        bundle["text/html"] = self.snapshot_html()
        return bundle


def _slider(value, lo, hi, step, description, fmt=".2f"):
    kind = widgets.IntSlider if isinstance(value, int) and isinstance(step, int) else widgets.FloatSlider
    extra = {} if kind is widgets.IntSlider else {"readout_format": fmt}
    return kind(value=value, min=lo, max=hi, step=step, description=description, continuous_update=False, **extra)


def _choices(value, options, description):
    if value not in (options if not isinstance(options, dict) else options.values()):
        raise ValueError(f"{description} must be one of {list(options)}; got {value!r}")
    return widgets.Dropdown(options=options, value=value, description=description)


# --------------------------------------------------------------------------
# A calibrated roofline
# --------------------------------------------------------------------------

_MODELS = {"Llama 3.1 70B": LLAMA_70B, "Llama 3.1 8B": LLAMA_8B, "Llama 3.2 1B": LLAMA_1B}
_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
_CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768)


class CalibrationExplorer(_Explorer):
    """Target, draft, GPU, GPU count, roofline, fixed cost, batch, context, k and alpha: the round's costs.

    Defined in chapter "A calibrated roofline".
    """

    title = "A calibrated roofline: the round's passes and speculation's speedup"

    def __init__(self, target="Llama 3.1 70B", draft="Llama 3.1 8B", gpu="h100-sxm", n_gpus=8, calibrated=True,
                 step_overhead_ms=None, batch=1, context=0, k=5, alpha=0.8, dpi=72):
        base = cal.CALIBRATED_GPUS.get(gpu)
        if base is None:
            raise ValueError(f"gpu must be one of {list(cal.CALIBRATED_GPUS)}; got {gpu!r}")
        fixed = base.calibration.step_overhead * 1e3 if step_overhead_ms is None else float(step_overhead_ms)
        super().__init__({
            "target": _choices(target, list(_MODELS), "target"), "draft": _choices(draft, list(_MODELS), "draft"),
            "gpu": _choices(gpu, list(cal.CALIBRATED_GPUS), "GPU"), "n_gpus": _choices(n_gpus, [1, 2, 4, 8], "GPUs"),
            "calibrated": widgets.Checkbox(value=bool(calibrated), description="calibrated"),
            "step_overhead_ms": _slider(fixed, 0.0, 5.0, 0.05, "fixed (ms)"),
            "batch": widgets.SelectionSlider(options=_BATCHES, value=batch, description="batch",
                                             continuous_update=False),
            "context": widgets.SelectionSlider(options=_CONTEXTS, value=context, description="context",
                                               continuous_update=False),
            "k": _slider(int(k), 1, 10, 1, "k"), "alpha": _slider(float(alpha), 0.3, 0.95, 0.01, "alpha"),
        }, dpi)

    def _render(self, target, draft, gpu, n_gpus, calibrated, step_overhead_ms, batch, context, k, alpha):
        one = cal.CALIBRATED_GPUS[gpu]
        one = one.calibrated(one.calibration, step_overhead=step_overhead_ms * 1e-3) if calibrated else one.ideal()
        hw = one.scaled(n_gpus) if n_gpus > 1 else one
        t, d = _MODELS[target], _MODELS[draft]
        fig = calibration_plots.calibration_overview(t, d, hw, alpha, k, batch, context)
        kv = not hw.is_ideal
        t0 = float(step_time(t, hw, batch, context))
        tv = float(step_time(t, hw, batch, context, k + 1))
        td = float(step_time(d, hw, batch, context))
        s = float(speculative_speedup(t, d, hw, alpha, k, batch, context, kv_write=kv))
        be = break_even_batch(t, d, hw, alpha, k, context, kv_write=kv)
        values = {"t0": t0, "t_verify": tv, "t_draft_step": td, "c_verify": tv / t0, "c_draft": td / t0,
                  "speedup": s, "break_even_batch": be}
        rows = [("T0 (plain step)", f"{t0 * 1e3:.2f} ms"), ("T_verify", f"{tv * 1e3:.2f} ms"),
                ("c_v = T_verify / T0", f"{tv / t0:.3f}"), ("draft step", f"{td * 1e3:.2f} ms"),
                ("c_d", f"{td / t0:.3f}"), ("speedup", f"{s:.2f}x"),
                ("first losing batch", "none up to 4096" if not np.isfinite(be) else f"{be:.0f}")]
        return fig, rows, values


def calibration_explorer(**kwargs):
    """The calibrated-roofline explorer (see :class:`CalibrationExplorer` for the arguments).

    Defined in chapter "A calibrated roofline".
    """
    return CalibrationExplorer(**kwargs)

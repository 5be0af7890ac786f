"""Explorer of Part II, chapter 5: latency and throughput against batch (presentation only).

Numbers from :mod:`specdec.hardware` and :mod:`specdec.regimes`; the figure is
:func:`specdec.plots.latency_throughput_vs_batch`, redrawn curve by curve
over a cached background (fixed log-log axes).
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import deployment as _dep
from .. import hardware as _hw
from .. import regimes as _rg
from ..plots.capacity import latency_throughput_batches, latency_throughput_curves, latency_throughput_vs_batch
from ._render import Blitter, table_html

__all__ = ["LatencyThroughputExplorer", "latency_throughput_explorer", "RegimeExplorer", "regime_explorer"]


class LatencyThroughputExplorer(widgets.VBox):
    """batch, alpha, k and context sliders over the chapter's latency/throughput figure.

    Defined in chapter "Latency, throughput and memory" (Part II, chapter 5).
    """

    def __init__(self, target, draft, hardware, alpha=0.8, k=5, context=2048, batch=256, batch_max=1024, dpi=72):
        _hw.validate_setup(target, draft, hardware)
        if draft is None:
            raise TypeError("draft must be a specdec.hardware.Model")
        self.target, self.draft, self.hardware, self.batch_max = target, draft, hardware, int(batch_max)
        self.batch_slider = widgets.IntSlider(value=int(batch), min=1, max=self.batch_max, description="batch",
                                              continuous_update=False)
        self.alpha_slider = widgets.FloatSlider(value=float(alpha), min=0.0, max=0.99, step=0.01, description="alpha",
                                                continuous_update=False)
        self.k_slider = widgets.IntSlider(value=int(k), min=1, max=12, description="k", continuous_update=False)
        self.context_slider = widgets.IntSlider(value=int(context), min=256, max=32768, step=256,
                                                description="context", continuous_update=False)
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.batches = latency_throughput_batches(self.batch_max)
        self.figure = latency_throughput_vs_batch(target, draft, hardware, alpha=float(alpha), k=int(k),
                                                  context=int(context), batch_max=self.batch_max,
                                                  mark_batch=int(batch))
        self._blit = Blitter(self.figure, int(dpi))
        self.values: dict = {}
        super().__init__([widgets.HBox([self.batch_slider, self.alpha_slider]),
                          widgets.HBox([self.k_slider, self.context_slider]), self.readout, self.image])
        for s in (self.batch_slider, self.alpha_slider, self.k_slider, self.context_slider):
            s.observe(lambda change: self.update(), names="value")
        self.update(draw=False)
        self.image.value = self._blit.initial_png()

    def compute(self) -> dict:
        """Numbers for the current sliders (no drawing)."""
        b, a = int(self.batch_slider.value), float(self.alpha_slider.value)
        k, c = int(self.k_slider.value), int(self.context_slider.value)
        r = _dep.speculative_costs(self.target, self.draft, self.hardware, a, k, b, c)
        curves = latency_throughput_curves(self.target, self.draft, self.hardware, a, k, c, self.batches)
        cap = curves.pop("cap")
        return {
            "batch": b, "alpha": a, "k": k, "context": c,
            "latency_baseline": float(r.latency_baseline), "latency_speculative": float(r.latency_speculative),
            "throughput_baseline": float(r.throughput_baseline),
            "throughput_speculative": float(r.throughput_speculative),
            "latency_ratio": float(r.latency_speculative / r.latency_baseline),
            "throughput_ratio": float(r.throughput_speculative / r.throughput_baseline),
            "fits": bool(r.fits), "fits_baseline": bool(r.fits_baseline),
            "capacity": cap, "curves": curves,
        }

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the numbers."""
        v = self.compute()
        cap = v["capacity"]
        fit = {(True, True): "both fit", (False, True): "only plain decoding fits",
               (False, False): "neither fits"}.get((v["fits"], v["fits_baseline"]), "both fit")
        self.readout.value = table_html([
            (f"at batch {v['batch']}: ms per token, plain -> speculative",
             f"{v['latency_baseline'] * 1e3:.2f} -> {v['latency_speculative'] * 1e3:.2f}"),
            ("latency ratio (speculative / plain)", f"{v['latency_ratio']:.3f}"),
            ("tokens/s ratio at the same batch", f"{v['throughput_ratio']:.3f}"),
            ("memory at this batch", fit),
            ("sequences that fit, plain / speculative", f"{cap.batch_baseline:,} / {cap.batch_speculative:,}"),
            ("at capacity: latency ratio", f"{cap.latency_ratio:.3f}"),
            ("at capacity: tokens/s ratio", f"{cap.throughput_ratio:.3f}"),
        ])
        if draw:
            lines, curves = self._blit.lines, v["curves"]
            for gid, key in (("lat-base", "lat_base"), ("lat-spec", "lat_spec"), ("thr-base", "thr_base"),
                             ("thr-spec", "thr_spec")):
                lines[gid].set_ydata(curves[key])
            lines["lat-base-cap"].set_data([cap.batch_baseline], [cap.latency_baseline * 1e3])
            lines["lat-spec-cap"].set_data([cap.batch_speculative], [cap.latency_speculative * 1e3])
            lines["thr-base-cap"].set_data([cap.batch_baseline], [cap.throughput_baseline])
            lines["thr-spec-cap"].set_data([cap.batch_speculative], [cap.throughput_speculative])
            for gid in ("lat-mark", "thr-mark"):
                lines[gid].set_xdata([v["batch"], v["batch"]])
            self.image.value = self._blit.png()
        self.values = v
        return v


def latency_throughput_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, context=2048, batch=256):
    """Explore per-sequence latency and per-replica throughput against batch.

    Defaults reproduce the chapter's static figure (Llama 3.1 70B with a
    Llama 3.1 8B draft on 8x H100 SXM, alpha 0.8, k 5, context 2,048, the
    dotted line at batch 256).

    Defined in chapter "Latency, throughput and memory" (Part II, chapter 5).

    Parameters
    ----------
    target, draft : specdec.hardware.Model, optional
        Default Llama 3.1 70B and Llama 3.1 8B.
    hardware : specdec.hardware.Hardware, optional
        Default 8x H100 SXM.
    alpha, k, context, batch : optional
        Initial slider values.

    Returns
    -------
    LatencyThroughputExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.latency_throughput_explorer()
    >>> round(w.values["throughput_ratio"], 3), w.values["capacity"].batch_speculative
    (0.973, 512)
    """
    target = _hw.LLAMA_70B if target is None else target
    draft = _hw.LLAMA_8B if draft is None else draft
    hardware = _hw.H100.scaled(8) if hardware is None else hardware
    return LatencyThroughputExplorer(target, draft, hardware, alpha=alpha, k=k, context=context, batch=batch)


class RegimeExplorer(widgets.VBox):
    """Sliders for one deployment; the read-out places it on the chapter's regime maps.

    Defined in chapter "When not to use it" (Part II, chapter 6).
    """

    def __init__(self, target, draft, hardware, alpha=0.8, k=5, batch=1, context=0, prefill_share=0.0):
        _hw.validate_setup(target, draft, hardware)
        self.target, self.draft, self.hardware = target, draft, hardware
        self.alpha_slider = widgets.FloatSlider(value=float(alpha), min=0.0, max=0.99, step=0.01, description="alpha",
                                                continuous_update=False)
        self.k_slider = widgets.IntSlider(value=int(k), min=1, max=12, description="k", continuous_update=False)
        self.batch_slider = widgets.IntSlider(value=int(batch), min=1, max=1024, description="batch",
                                              continuous_update=False)
        self.context_slider = widgets.IntSlider(value=int(context), min=0, max=32768, step=256,
                                                description="context", continuous_update=False)
        self.prefill_slider = widgets.FloatSlider(value=float(prefill_share), min=0.0, max=1.0, step=0.01,
                                                  description="prefill share", continuous_update=False)
        self.readout = widgets.HTML()
        self.values: dict = {}
        super().__init__([widgets.HBox([self.alpha_slider, self.k_slider, self.batch_slider]),
                          widgets.HBox([self.context_slider, self.prefill_slider]), self.readout])
        for s in (self.alpha_slider, self.k_slider, self.batch_slider, self.context_slider, self.prefill_slider):
            s.observe(lambda change: self.update(), names="value")
        self.update()

    def update(self) -> dict:
        """Recompute the diagnosis and refresh the read-out; return the numbers."""
        d = _rg.diagnose(self.target, self.draft, self.hardware, float(self.alpha_slider.value),
                         int(self.k_slider.value), int(self.batch_slider.value), int(self.context_slider.value),
                         float(self.prefill_slider.value))
        fmt = lambda x, spec: "none" if not np.isfinite(x) else format(x, spec)  # noqa: E731
        self.readout.value = table_html([
            ("decode speedup at this batch and context", f"{d.decode_speedup:.3f}"),
            ("end-to-end speedup (prefill included)", f"{d.end_to_end_speedup:.3f}"),
            ("regime", d.verdict),
            ("alpha needed to help at batch 1", fmt(d.alpha_to_help, ".3f")),
            ("batch where verification turns compute-bound", fmt(d.verify_compute_batch, ".0f")),
            ("largest prefill share that still helps", fmt(d.max_prefill_share, ".2f")),
            ("reasons that apply", ", ".join(d.reasons) or "none"),
        ])
        self.values = {"diagnosis": d}
        return self.values


def regime_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, batch=1, context=0, prefill_share=0.0):
    """Place a deployment on the regime maps: speedups, regime and the reasons that apply.

    Defaults: the chapter's pair (Llama 3.1 70B with a Llama 3.1 8B draft on
    8x H100 SXM) at alpha 0.8, k 5, batch 1, context 0, no prefill.

    Defined in chapter "When not to use it" (Part II, chapter 6).

    Parameters
    ----------
    target, draft : specdec.hardware.Model, optional
    hardware : specdec.hardware.Hardware, optional
    alpha, k, batch, context, prefill_share : optional
        Initial slider values.

    Returns
    -------
    RegimeExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.regime_explorer(batch=256)
    >>> w.values["diagnosis"].verdict
    'hurts'
    """
    target = _hw.LLAMA_70B if target is None else target
    draft = _hw.LLAMA_8B if draft is None else draft
    hardware = _hw.H100.scaled(8) if hardware is None else hardware
    return RegimeExplorer(target, draft, hardware, alpha=alpha, k=k, batch=batch, context=context,
                          prefill_share=prefill_share)

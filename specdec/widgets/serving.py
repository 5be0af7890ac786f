"""Explorers of "Latency, throughput and memory" and "When not to use it" (presentation only).

Numbers from :mod:`specdec.serving.deployment`, :mod:`specdec.roofline.hardware` and
:mod:`specdec.serving.regimes`; the figure is
:func:`specdec.plots.latency_throughput_vs_batch`, redrawn curve by curve
over one background (fixed log-log axes).
"""

from __future__ import annotations

import numpy as np

from specdec.roofline import hardware as _hw
from specdec.serving import deployment as _dep
from specdec.serving import regimes as _rg

from ..plots.serving import latency_throughput_batches, latency_throughput_curves, latency_throughput_vs_batch
from ._base import Explorer, float_slider, int_slider

__all__ = ["LatencyThroughputExplorer", "latency_throughput_explorer", "RegimeExplorer", "regime_explorer"]


class LatencyThroughputExplorer(Explorer):
    """batch, alpha, k and context sliders over the chapter's latency/throughput figure.

    ``values``: the sliders, ``latency_baseline``, ``latency_speculative``
    (seconds per token), ``throughput_baseline``,
    ``throughput_speculative`` (tokens/s), their ratios, ``fits``,
    ``fits_baseline``, ``capacity`` (a
    :class:`specdec.serving.regimes.CapacityComparison`) and ``curves``.

    Defined in chapter "Latency, throughput and memory".
    """

    name = "latency-throughput"
    title = "Latency and throughput explorer"

    def __init__(self, target, draft, hardware, alpha=0.8, k=5, context=2048, batch=256, batch_max=1024):
        _hw.validate_setup(target, draft, hardware)
        if draft is None:
            raise TypeError("draft must be a specdec.roofline.hardware.Model")
        self.target, self.draft, self.hardware, self.batch_max = target, draft, hardware, int(batch_max)
        self.batch_slider = int_slider(batch, 1, self.batch_max, "batch")
        self.alpha_slider = float_slider(alpha, 0.0, 0.99, 0.01, "alpha")
        self.k_slider = int_slider(k, 1, 12, "k")
        self.context_slider = int_slider(context, 256, 32768, "context", step=256)
        self.batches = latency_throughput_batches(self.batch_max)
        figure = latency_throughput_vs_batch(target, draft, hardware, alpha=float(alpha), k=int(k),
                                             context=int(context), batch_max=self.batch_max, mark_batch=int(batch))
        self.lines = {line.get_gid(): line for ax in figure.axes for line in ax.lines if line.get_gid()}
        super().__init__({"batch": self.batch_slider, "alpha": self.alpha_slider, "k": self.k_slider,
                          "context": self.context_slider}, figure=figure, dynamic=self.lines.values())

    def compute(self, state=None) -> dict:
        """Numbers for the sliders (or ``state``), from :mod:`specdec.serving.deployment`; no drawing."""
        v = self.state(state)
        b, a, k, c = v["batch"], v["alpha"], v["k"], v["context"]
        r = _dep.speculative_costs(self.target, self.draft, self.hardware, a, k, b, c)
        curves = latency_throughput_curves(self.target, self.draft, self.hardware, a, k, c, self.batches)
        cap = curves.pop("cap")
        v.update(
            latency_baseline=float(r.latency_baseline), latency_speculative=float(r.latency_speculative),
            throughput_baseline=float(r.throughput_baseline), throughput_speculative=float(r.throughput_speculative),
            latency_ratio=float(r.latency_speculative / r.latency_baseline),
            throughput_ratio=float(r.throughput_speculative / r.throughput_baseline),
            fits=bool(r.fits), fits_baseline=bool(r.fits_baseline), capacity=cap, curves=curves,
        )
        return v

    def rows(self, v) -> list:
        cap = v["capacity"]
        fit = {(True, True): "both fit", (False, True): "only plain decoding fits",
               (False, False): "neither fits"}.get((v["fits"], v["fits_baseline"]), "both fit")
        return [
            ("latency", f"at batch {v['batch']}: ms per token, plain -> speculative",
             f"{v['latency_baseline'] * 1e3:.2f} -> {v['latency_speculative'] * 1e3:.2f}"),
            ("latency_ratio", "latency ratio (speculative / plain)", f"{v['latency_ratio']:.3f}"),
            ("throughput_ratio", "tokens/s ratio at the same batch", f"{v['throughput_ratio']:.3f}"),
            ("memory", "memory at this batch", fit),
            ("capacity", "sequences that fit, plain / speculative", f"{cap.batch_baseline:,} / {cap.batch_speculative:,}"),
            ("capacity_latency_ratio", "at capacity: latency ratio", f"{cap.latency_ratio:.3f}"),
            ("capacity_throughput_ratio", "at capacity: tokens/s ratio", f"{cap.throughput_ratio:.3f}"),
        ]

    def draw(self, v):
        lines, curves, cap = self.lines, v["curves"], v["capacity"]
        for gid, key in (("lat-base", "lat_base"), ("lat-spec", "lat_spec"), ("thr-base", "thr_base"),
                         ("thr-spec", "thr_spec")):
            lines[gid].set_ydata(curves[key])
        lines["lat-base-cap"].set_data([cap.batch_baseline], [cap.latency_baseline * 1e3])
        lines["lat-spec-cap"].set_data([cap.batch_speculative], [cap.latency_speculative * 1e3])
        lines["thr-base-cap"].set_data([cap.batch_baseline], [cap.throughput_baseline])
        lines["thr-spec-cap"].set_data([cap.batch_speculative], [cap.throughput_speculative])
        for gid in ("lat-mark", "thr-mark"):
            lines[gid].set_xdata([v["batch"], v["batch"]])
            lines[gid].set_visible(True)
        return None                       # fixed log-log axes: one background

    def alt_text(self, v) -> str:
        cap = v["capacity"]
        return (f"Log-log charts against batch at alpha {v['alpha']:.2f}, k = {v['k']}, context {v['context']:,}: "
                f"left, milliseconds per token for plain and speculative decoding; right, tokens per second per "
                f"replica; each curve ends where memory is full (plain at {cap.batch_baseline:,} sequences, "
                f"speculative at {cap.batch_speculative:,}); a dotted line marks batch {v['batch']}.")


def latency_throughput_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, context=2048, batch=256):
    """Explore per-sequence latency and per-replica throughput against batch.

    Defaults reproduce the chapter's static figure (Llama 3.1 70B with a
    Llama 3.1 8B draft on 8x H100 SXM, alpha 0.8, k 5, context 2,048, the
    dotted line at batch 256).

    Defined in chapter "Latency, throughput and memory".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model, optional
        Default Llama 3.1 70B and Llama 3.1 8B.
    hardware : specdec.roofline.hardware.Hardware, optional
        Default 8 calibrated H100 SXM (``specdec.roofline.hardware.H100.scaled(8)``).
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
    (0.885, 512)
    """
    target = _hw.LLAMA_70B if target is None else target
    draft = _hw.LLAMA_8B if draft is None else draft
    hardware = _hw.H100.scaled(8) if hardware is None else hardware
    return LatencyThroughputExplorer(target, draft, hardware, alpha=alpha, k=k, context=context, batch=batch)


class RegimeExplorer(Explorer):
    """Sliders for one deployment; the read-out places it on the chapter's regime maps.

    ``values``: the sliders, ``diagnosis`` (a
    :class:`specdec.serving.regimes.Diagnosis`) and its ``decode_speedup``,
    ``end_to_end_speedup``, ``verdict`` and ``reasons``.

    Defined in chapter "When not to use it".
    """

    name = "regime"
    title = "Regime explorer"

    def __init__(self, target, draft, hardware, alpha=0.8, k=5, batch=1, context=0, prefill_share=0.0):
        _hw.validate_setup(target, draft, hardware)
        self.target, self.draft, self.hardware = target, draft, hardware
        self.alpha_slider = float_slider(alpha, 0.0, 0.99, 0.01, "alpha")
        self.k_slider = int_slider(k, 1, 12, "k")
        self.batch_slider = int_slider(batch, 1, 1024, "batch")
        self.context_slider = int_slider(context, 0, 32768, "context", step=256)
        self.prefill_slider = float_slider(prefill_share, 0.0, 1.0, 0.01, "prefill share")
        super().__init__({"alpha": self.alpha_slider, "k": self.k_slider, "batch": self.batch_slider,
                          "context": self.context_slider, "prefill_share": self.prefill_slider},
                         columns=[["alpha", "k", "batch"], ["context", "prefill_share"]])

    def compute(self, state=None) -> dict:
        """The diagnosis for the sliders (or ``state``), from :func:`specdec.serving.regimes.diagnose`."""
        v = self.state(state)
        d = _rg.diagnose(self.target, self.draft, self.hardware, v["alpha"], v["k"], v["batch"], v["context"],
                         v["prefill_share"])
        v.update(diagnosis=d, decode_speedup=d.decode_speedup, end_to_end_speedup=d.end_to_end_speedup,
                 verdict=d.verdict, reasons=d.reasons)
        return v

    def rows(self, v) -> list:
        d = v["diagnosis"]
        fmt = lambda x, spec: "none" if not np.isfinite(x) else format(x, spec)  # noqa: E731
        return [
            ("decode_speedup", "decode speedup at this batch and context", f"{d.decode_speedup:.3f}"),
            ("end_to_end_speedup", "end-to-end speedup (prefill included)", f"{d.end_to_end_speedup:.3f}"),
            ("verdict", "regime", d.verdict),
            ("alpha_to_help", "alpha needed to help at batch 1", fmt(d.alpha_to_help, ".3f")),
            ("verify_compute_batch", "batch where verification turns compute-bound", fmt(d.verify_compute_batch, ".0f")),
            ("max_prefill_share", "largest prefill share that still helps", fmt(d.max_prefill_share, ".2f")),
            ("reasons", "reasons that apply", ", ".join(d.reasons) or "none"),
        ]


def regime_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, batch=1, context=0, prefill_share=0.0):
    """Place a deployment on the regime maps: speedups, regime and the reasons that apply.

    Defaults: the chapter's pair (Llama 3.1 70B with a Llama 3.1 8B draft on
    8x H100 SXM) at alpha 0.8, k 5, batch 1, context 0, no prefill.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model, optional
    hardware : specdec.roofline.hardware.Hardware, optional
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

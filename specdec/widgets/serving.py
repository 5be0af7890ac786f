"""Explorers of serving: latency and throughput under batching, regimes, batch and context, dynamic k, goodput.

Presentation only: the numbers come from :mod:`specdec.serving.deployment`, :mod:`specdec.serving.regimes`,
:mod:`specdec.serving.dynamic`, :mod:`specdec.serving.goodput`, :mod:`specdec.roofline.hardware` and
:mod:`specdec.roofline.memory`; the figures from :mod:`specdec.plots.serving`, redrawn curve by
curve over one background, or moved in place.
"""

from __future__ import annotations

import math

import numpy as np

from specdec.roofline import hardware as _hw
from specdec.roofline import memory as _mem
from specdec.roofline.hardware import (
    A100,
    H100,
    LLAMA_8B,
    LLAMA_70B,
    draft_cost,
    verify_cost,
)
from specdec.serving import deployment as _dep
from specdec.serving import dynamic, goodput
from specdec.serving import regimes as _rg

from .. import calibration as cal
from .._validate import check_integer, check_positive, check_probability
from ..plots import new_figure
from ..plots.serving import GoodputView, ScheduleSpeedupsView, latency_throughput_vs_batch, no_help_context
from ._base import CONTEXT_STEPS, Explorer, choice, float_slider, int_slider, roofline_choice, tagged_lines

__all__ = [
    "LatencyThroughputExplorer",
    "latency_throughput_explorer",
    "RegimeExplorer",
    "regime_explorer",
    "BatchContextExplorer",
    "batch_context_explorer",
    "DynamicKExplorer",
    "dynamic_k_explorer",
    "GoodputExplorer",
    "goodput_explorer",
]


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
        self.batches = _dep.batch_grid(self.batch_max)
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
        curves = _dep.latency_throughput_in_memory(self.target, self.draft, self.hardware, a, k, self.batches, c)
        cap = _rg.capacity_comparison(self.target, self.draft, self.hardware, a, k, max(int(c), 1))
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
        for gid, key, scale in (("lat-base", "latency_baseline", 1e3), ("lat-spec", "latency_speculative", 1e3),
                                ("thr-base", "throughput_baseline", 1.0), ("thr-spec", "throughput_speculative", 1.0)):
            lines[gid].set_ydata(curves[key] * scale)
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


def latency_throughput_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, context=2048, batch=256) -> LatencyThroughputExplorer:
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


def regime_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, batch=1, context=0, prefill_share=0.0) -> RegimeExplorer:
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


class BatchContextExplorer(Explorer):
    """alpha, k, longest context and draft KV budget over the chapter's long-context figure.

    ``values``: the sliders, ``fits`` (sequences that fit), ``c_verify``,
    ``c_draft_full``, ``c_draft_capped``, ``speedup_full``,
    ``speedup_capped``, ``break_even_batch``, ``candidate_kv_bytes``,
    ``context_kv_bytes`` at the read-out batch and the long context.

    Defined in chapter "When speculation does not help".
    """

    name = "batch-context"
    title = "Batch and context explorer"

    def __init__(self, target, draft, hardware, alpha=0.8, k=5, contexts=(1024, 8192, 32768), kv_budget=512,
                 batch=32):
        _hw.validate_setup(target, draft, hardware)
        self.target, self.draft, self.hardware = target, draft, hardware
        self.fixed_contexts = tuple(int(c) for c in contexts[:-1])
        self.alpha_slider = float_slider(alpha, 0.3, 0.99, 0.01, "alpha")
        self.k_slider = int_slider(k, 1, 10, "k")
        self.context_slider = int_slider(contexts[-1], 1024, 131072, "long context", step=1024)
        self.budget_slider = int_slider(kv_budget, 64, 8192, "draft KV cap", step=64)
        self.batch_slider = int_slider(batch, 1, 512, "read-out batch")
        self.batch_max = 512
        figure = no_help_context(target, draft, hardware, alpha, k, contexts, kv_budget, batch_max=self.batch_max,
                                 dynamic=True)
        self.lines = tagged_lines(figure)
        super().__init__({"alpha": self.alpha_slider, "k": self.k_slider, "batch": self.batch_slider,
                          "context": self.context_slider, "kv_budget": self.budget_slider},
                         columns=[["alpha", "k", "batch"], ["context", "kv_budget"]],
                         figure=figure, dynamic=self.lines.values())

    def compute(self, state=None) -> dict:
        """Numbers at the read-out batch and the long context (no drawing)."""
        v = self.state(state)
        a, k, c, budget, b = v["alpha"], v["k"], v["context"], v["kv_budget"], v["batch"]
        t, d, hw = self.target, self.draft, self.hardware
        full = _dep.speculative_costs(t, d, hw, a, k, b, c)
        cd_cap = _hw.draft_cost(d, t, hw, b, c, kv_budget=budget)
        capped = _dep.speculative_costs(t, d, hw, a, k, b, c, draft_cost_override=cd_cap)
        v.update(
            fits=int(_mem.max_concurrent_sequences(t, hw, c)),
            c_verify=float(full.c_verify),
            c_draft_full=float(full.c_draft), c_draft_capped=float(cd_cap),
            speedup_full=float(full.speedup), speedup_capped=float(capped.speedup),
            break_even_batch=_dep.break_even_batch(t, d, hw, a, k, context=c),
            candidate_kv_bytes=_mem.candidate_kv_bytes(t, b, k),
            context_kv_bytes=float(_mem.kv_cache_bytes(t, b, c)),
        )
        return v

    def rows(self, v) -> list:
        fits = "" if v["batch"] <= v["fits"] else f" (does not fit: at most {v['fits']} sequences)"
        bb = v["break_even_batch"]
        return [
            ("setting", f"at batch {v['batch']}, context {v['context']:,}{fits}", ""),
            ("c_verify", "c_verify", f"{v['c_verify']:.3f}"),
            ("c_draft", "c_draft: full cache / capped", f"{v['c_draft_full']:.3f} / {v['c_draft_capped']:.3f}"),
            ("speedup", "speedup: full-cache draft / capped draft",
             f"{v['speedup_full']:.2f} / {v['speedup_capped']:.2f}"),
            ("break_even_batch", "full-cache draft breaks even at batch",
             "never (up to 4096)" if not np.isfinite(bb) else f"{bb:.0f}"),
            ("kv_bytes", "candidate KV (B k m_KV) / context KV (B C m_KV)",
             f"{v['candidate_kv_bytes'] / 2**20:.0f} MiB / {v['context_kv_bytes'] / 2**30:.1f} GiB"),
        ]

    def draw(self, v):
        lines = self.lines
        contexts = self.fixed_contexts + (v["context"],)
        for panel, budget in enumerate((None, v["kv_budget"])):
            for i, c in enumerate(contexts):
                b, sp = _dep.speedup_up_to_capacity(self.target, self.draft, self.hardware, v["alpha"], v["k"], c,
                                              budget, self.batch_max)
                lines[f"{panel}-{i}"].set_data(b, sp)
                lines[f"{panel}-{i}-end"].set_data(b[-1:], sp[-1:])
                lines[f"{panel}-{i}-end"].set_visible(bool(b.size < self.batch_max))
        return None                       # fixed axes: one background

    def alt_text(self, v) -> str:
        contexts = ", ".join(f"{c:,}" for c in self.fixed_contexts + (v["context"],))
        return (f"Speedup against batch at alpha {v['alpha']:.2f} and k = {v['k']} for contexts {contexts}; left, a "
                f"draft that reads its whole KV cache, right, one capped at {v['kv_budget']:,} tokens; each curve "
                f"ends where memory is full. At batch {v['batch']}, context {v['context']:,}: "
                f"{v['speedup_full']:.2f}x full, {v['speedup_capped']:.2f}x capped.")


def batch_context_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, contexts=(1024, 8192, 32768),
                           kv_budget=512, batch=32) -> BatchContextExplorer:
    """Explore speculation's speedup against batch and context, with a full or capped draft KV cache.

    Defaults reproduce the chapter's long-context figure.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    target, draft : specdec.roofline.hardware.Model, optional
        Default Llama 3.1 70B and Llama 3.1 8B.
    hardware : specdec.roofline.hardware.Hardware, optional
        Default 8 calibrated H100 SXM (``specdec.roofline.hardware.H100.scaled(8)``).
    alpha, k : optional
        Initial acceptance rate and draft length.
    contexts : sequence of int, optional
        Contexts drawn; the last one follows the "long context" slider.
    kv_budget : int, optional
        Initial draft KV cap (tokens).
    batch : int, optional
        Batch of the numeric read-out.

    Returns
    -------
    BatchContextExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.batch_context_explorer()
    >>> w.values["speedup_capped"] > w.values["speedup_full"]
    True
    """
    target = _hw.LLAMA_70B if target is None else target
    draft = _hw.LLAMA_8B if draft is None else draft
    hardware = _hw.H100.scaled(8) if hardware is None else hardware
    return BatchContextExplorer(target, draft, hardware, alpha=alpha, k=k, contexts=contexts, kv_budget=kv_budget,
                                batch=batch)


# dynamic speculation length
class DynamicKExplorer(Explorer):
    """Mean and spread of the requests' acceptance, the fixed k and the heuristic's start: four policies.

    ``values`` holds ``speedup`` and ``mean_draft_length``, dicts by policy,
    of :func:`specdec.serving.dynamic.compare_schedules` on 400 requests drawn by
    :func:`specdec.serving.dynamic.beta_alphas` (256 tokens each), with the control values.

    Defined in chapter "Dynamic speculation length".
    """

    name = "dynamic-k"
    title = "Draft-length policy explorer"
    n_requests, n_tokens = 400, 256

    def __init__(self, mean=0.7, concentration=2.0, k=5, start=20, c_draft=None, c_verify=None):
        a100 = A100
        self.c_draft = float(draft_cost(cal.VICUNA_68M, cal.LLAMA2_7B, a100, 1, 512)) if c_draft is None else c_draft
        self.c_verify = verify_cost(cal.LLAMA2_7B, a100, np.arange(1, 65), 1, 512) if c_verify is None else c_verify
        controls = {
            "mean": float_slider(check_probability(mean, "mean"), 0.3, 0.95, 0.01, "mean alpha"),
            "concentration": float_slider(check_positive(concentration, "concentration"), 0.3, 100.0, 0.1,
                                          "concentration", ".1f"),
            "k": int_slider(check_integer(k, "k", minimum=1, maximum=16), 1, 16, "fixed k"),
            "start": int_slider(check_integer(start, "start", minimum=1, maximum=30), 1, 30, "heuristic's start"),
        }
        self.controls = controls
        v = self.compute(self.state())
        fig, ax = new_figure(6.4, 3.8)
        self.view = ScheduleSpeedupsView({"requests": v["runs"]}, self._title(v), ax=ax)
        super().__init__(controls, figure=fig, dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """Each policy's speedup for the controls (or ``state``), from :mod:`specdec.serving.dynamic`."""
        v = self.state(state)
        alphas = dynamic.beta_alphas(self.n_requests, v["mean"], v["concentration"], rng=3)
        runs = dynamic.compare_schedules(alphas, self.n_tokens, 5, k=v["k"], start=float(v["start"]),
                                         c_draft=self.c_draft, c_verify=self.c_verify)
        v.update(runs=runs, speedup={p: r.speedup for p, r in runs.items()},
                 mean_draft_length={p: r.mean_draft_length for p, r in runs.items()})
        return v

    def rows(self, v) -> list:
        return [(policy, policy, f"{v['speedup'][policy]:.3f}x, {v['mean_draft_length'][policy]:.1f} drafts per round")
                for policy in v["runs"]]

    @staticmethod
    def _title(v) -> str:
        return f"{DynamicKExplorer.n_requests} requests, mean alpha {v['mean']:.2f}, concentration {v['concentration']:g}"

    def draw(self, v):
        return self.view.update({"requests": v["runs"]}, self._title(v))

    def alt_text(self, v) -> str:
        speeds = ", ".join(f"{policy} {s:.2f}x" for policy, s in v["speedup"].items())
        return (f"Bars: speedup over plain decoding of each draft-length policy on {self.n_requests} requests whose "
                f"acceptance has mean {v['mean']:.2f} and concentration {v['concentration']:g} (fixed k = {v['k']}, "
                f"heuristic starting at {v['start']}): {speeds}; a line marks 1.")


def dynamic_k_explorer(mean=0.7, concentration=2.0, k=5, start=20, c_draft=None, c_verify=None) -> DynamicKExplorer:
    """The draft-length explorer: fixed k, the heuristic, the best k per request and the oracle.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    mean : float, optional
        Mean acceptance of the requests, in [0, 1].
    concentration : float, optional
        Beta concentration of the requests' acceptance, > 0 (small: spread out).
    k : int, optional
        The fixed policy's k, in [1, 16].
    start : int, optional
        The heuristic's first k, in [1, 30].
    c_draft : float, optional
        Cost of a draft step (default: the 68M draft of Vicuna 7B on a calibrated A100).
    c_verify : array_like, optional
        Verification cost for k = 1, 2, ... (default: Vicuna 7B on a calibrated A100, k up to 64).

    Returns
    -------
    DynamicKExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.dynamic_k_explorer()
    >>> w.values["speedup"]["oracle"] >= w.values["speedup"]["fixed"]
    True
    """
    return DynamicKExplorer(mean=mean, concentration=concentration, k=k, start=start, c_draft=c_draft,
                            c_verify=c_verify)


def _ratio_text(ratio: float) -> str:
    if math.isinf(ratio):
        return "only speculation meets it"
    return "neither meets it" if math.isnan(ratio) else f"{ratio:.2f}"


# goodput at a latency target
class GoodputExplorer(Explorer):
    """TPOT target, alpha, k, context and roofline: goodput with and without speculation (70B/8B on 8 H100).

    ``values`` holds ``goodput_baseline`` and ``goodput_speculative``
    (tokens/s), their batches, ``goodput_ratio`` and ``capacity_ratio`` of
    :func:`specdec.serving.goodput.compare_at_equal_latency`, its ``comparison``
    and the control values.

    Defined in chapter "Throughput at a latency target".
    """

    name = "goodput"
    title = "Goodput explorer"
    #: The TPOT targets of the right panel, seconds.
    targets = tuple(np.linspace(0.006, 0.06, 109).tolist())

    def __init__(self, tpot_ms=12.0, alpha=0.8, k=5, context=2048, calibrated=True, lengths=None):
        self.lengths = goodput.output_lengths(2000, 256, rng=1) if lengths is None else lengths
        controls = {
            "tpot_ms": float_slider(check_positive(tpot_ms, "tpot_ms", "(ms)"), 6.0, 60.0, 0.5, "TPOT target (ms)",
                                    ".1f"),
            "alpha": float_slider(check_probability(alpha, "alpha"), 0.3, 0.95, 0.01, "alpha"),
            "k": int_slider(check_integer(k, "k", minimum=1, maximum=10), 1, 10, "k"),
            "context": choice(context, list(CONTEXT_STEPS[1:]), "context", slider=True),
            "calibrated": roofline_choice(calibrated),
        }
        self.controls = controls
        v = self.compute(self.state())
        fig, axes = new_figure(7.0, 3.4, ncols=2)
        self.view = GoodputView(v["comparison"], self.targets, v["tpot_ms"] * 1e-3, axes=axes)
        super().__init__(controls, figure=fig, dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """Goodput of both setups for the controls (or ``state``), from :mod:`specdec.serving.goodput`."""
        v = self.state(state)
        g = (H100 if v["calibrated"] else H100.ideal()).scaled(8)
        r = goodput.compare_at_equal_latency(LLAMA_70B, LLAMA_8B, g, v["alpha"], v["k"], v["context"],
                                             v["tpot_ms"] * 1e-3, self.lengths)
        v.update(comparison=r, goodput_baseline=r.baseline.throughput, goodput_speculative=r.speculative.throughput,
                 batch_baseline=r.baseline.batch, batch_speculative=r.speculative.batch,
                 goodput_ratio=r.goodput_ratio, capacity_ratio=r.capacity_throughput_ratio)
        return v

    def rows(self, v) -> list:
        return [("goodput_baseline", "plain decoding",
                 f"{v['goodput_baseline']:.0f} tokens/s at batch {v['batch_baseline']}"),
                ("goodput_speculative", "speculative",
                 f"{v['goodput_speculative']:.0f} tokens/s at batch {v['batch_speculative']}"),
                ("goodput_ratio", "goodput ratio", _ratio_text(v["goodput_ratio"])),
                ("capacity_ratio", "at the largest batch that fits", f"{v['capacity_ratio']:.2f}")]

    def draw(self, v):
        return self.view.update(v["comparison"], v["tpot_ms"] * 1e-3)

    def alt_text(self, v) -> str:
        q = v["comparison"].baseline_curve.quantile * 100
        return (f"Left: p{q:.0f} TPOT against throughput as the batch grows, plain decoding and speculation with k = "
                f"{v['k']} at alpha {v['alpha']:.2f} and context {v['context']}, the target {v['tpot_ms']:.1f} ms "
                f"dotted. Right: goodput against the TPOT target; at {v['tpot_ms']:.1f} ms "
                f"{v['goodput_baseline']:.0f} against {v['goodput_speculative']:.0f} tokens/s.")


def goodput_explorer(tpot_ms=12.0, alpha=0.8, k=5, context=2048, calibrated=True, lengths=None) -> GoodputExplorer:
    """The goodput explorer: throughput under a TPOT target, with and without speculation.

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    tpot_ms : float, optional
        TPOT target in ms, > 0.
    alpha : float, optional
        Acceptance rate in [0, 1].
    k : int, optional
        Drafts per round, in [1, 10].
    context : one of 512, 1024, ..., 32768, optional
    calibrated : bool, optional
        Calibrated H100s (True) or the ideal roofline.
    lengths : array_like, optional
        Output lengths of the requests (default:
        ``specdec.serving.goodput.output_lengths(2000, 256, rng=1)``).

    Returns
    -------
    GoodputExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.goodput_explorer(tpot_ms=8.0)
    >>> w.values["goodput_baseline"] == 0.0 < w.values["goodput_speculative"]
    True
    """
    return GoodputExplorer(tpot_ms=tpot_ms, alpha=alpha, k=k, context=context, calibrated=calibrated,
                           lengths=lengths)

"""Explorers for Part I, chapters 3 and 4 (verification cost; batch and context).

Presentation only: the numbers come from :mod:`specdec.hardware` and
:mod:`specdec.deployment` and :mod:`specdec.memory`, the figures from :mod:`specdec.plots.bounds`. Each
explorer is an ``ipywidgets.VBox``: sliders, a read-out, and the figure as a
PNG image (the last state is embedded in the saved notebook). Each has an
``update()`` method returning the numbers it shows, which the benchmark times.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import deployment as _dep
from .. import hardware as _hw
from .. import memory as _mem
from ..plots.bounds import no_help_context, no_help_context_curve, verify_cost_overview
from ._render import Blitter, table_html

__all__ = ["VerifyCostExplorer", "verify_cost_explorer", "BatchContextExplorer", "batch_context_explorer"]



class VerifyCostExplorer(widgets.VBox):
    """Context and "your batch" sliders over the chapter's verification-cost figure.

    Defined in chapter "Why verification is not free" (Part I, chapter 3).
    """

    def __init__(self, target, hardware, batch=64, context=0, k=5, dpi=72):
        _hw.validate_setup(target, None, hardware)
        self.target, self.hardware, self.dpi = target, hardware, int(dpi)
        self.batch_slider = widgets.IntSlider(value=int(batch), min=1, max=512, description="your batch",
                                              continuous_update=False)
        self.context_slider = widgets.IntSlider(value=int(context), min=0, max=131072, step=1024,
                                                description="context", continuous_update=False)
        self.k_slider = widgets.IntSlider(value=int(k), min=1, max=10, description="k", continuous_update=False)
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.batches = (1, 32, 64, 128, 256)
        self.contexts = (0, 4096, 32768)
        self.figure = verify_cost_overview(target, hardware, batches=self.batches, contexts=self.contexts,
                                           extra_batch=int(batch), context=int(context), k_fixed=int(k), dynamic=True)
        self._blit = Blitter(self.figure, self.dpi)
        self.values: dict = {}
        super().__init__([widgets.HBox([self.batch_slider, self.context_slider, self.k_slider]), self.readout,
                          self.image])
        for s in (self.batch_slider, self.context_slider, self.k_slider):
            s.observe(lambda change: self.update(), names="value")
        self.update(draw=False)           # the figure was drawn at these values already
        self.image.value = self._blit.initial_png()

    def compute(self) -> dict:
        """Numbers for the current sliders (no drawing)."""
        b, c, k = int(self.batch_slider.value), int(self.context_slider.value), int(self.k_slider.value)
        t0 = _hw.step_time(self.target, self.hardware, b, c)
        return {
            "batch": b, "context": c, "k": k,
            "t0": t0,
            "t_verify": _hw.step_time(self.target, self.hardware, b, c, k + 1),
            "c_verify": _hw.verify_cost(self.target, self.hardware, k, batch=b, context=c),
            "utilization": _hw.utilization(self.target, self.hardware, b, context=c),
        }

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the numbers."""
        v = self.compute()
        self.readout.value = table_html([
            ("T0, one decode step", f"{v['t0'] * 1e3:.2f} ms"),
            (f"T_verify over k + 1 = {v['k'] + 1} tokens", f"{v['t_verify'] * 1e3:.2f} ms"),
            ("c_verify = T_verify / T0", f"{v['c_verify']:.3f}"),
            ("within the source's 1.0 to 1.5?", "yes" if v["c_verify"] <= 1.5 else "no"),
            ("FLOP/s used by a plain step", f"{v['utilization']:.1%}"),
        ])
        if draw:
            lines, t, hw = self._blit.lines, self.target, self.hardware
            ks = np.asarray(lines["extra"].get_xdata())
            for b in self.batches:
                lines[f"batch-{b}"].set_ydata(_hw.verify_cost(t, hw, ks, batch=b, context=v["context"]))
            lines["extra"].set_ydata(_hw.verify_cost(t, hw, ks, batch=v["batch"], context=v["context"]))
            for c in self.contexts:
                line = lines[f"context-{c}"]
                line.set_ydata(_hw.verify_cost(t, hw, v["k"], batch=np.asarray(line.get_xdata()), context=c))
            lines["ceiling"].set_ydata([v["k"] + 1, v["k"] + 1])
            self.image.value = self._blit.png()
        self.values = v
        return v


def verify_cost_explorer(target=None, hardware=None, batch=64, context=0, k=5):
    """Explore ``c_verify`` against ``k``, batch and context on the roofline model.

    Defaults reproduce the chapter's static figure (the black "your batch"
    curve starts on batch 64, one of the figure's curves).

    Defined in chapter "Why verification is not free" (Part I, chapter 3).

    Parameters
    ----------
    target : specdec.hardware.Model, optional
        Default Llama 3.1 70B.
    hardware : specdec.hardware.Hardware, optional
        Default 8x H100 SXM.
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
    1.301
    """
    target = _hw.LLAMA_70B if target is None else target
    hardware = _hw.H100.scaled(8) if hardware is None else hardware
    return VerifyCostExplorer(target, hardware, batch=batch, context=context, k=k)


class BatchContextExplorer(widgets.VBox):
    """alpha, k, longest context and draft KV budget over the chapter's long-context figure.

    Defined in chapter "When speculation does not help" (Part I, chapter 4).
    """

    def __init__(self, target, draft, hardware, alpha=0.8, k=5, contexts=(1024, 8192, 32768), kv_budget=512,
                 batch=32, dpi=72):
        _hw.validate_setup(target, draft, hardware)
        self.target, self.draft, self.hardware, self.dpi = target, draft, hardware, int(dpi)
        self.fixed_contexts = tuple(int(c) for c in contexts[:-1])
        self.alpha_slider = widgets.FloatSlider(value=float(alpha), min=0.3, max=0.99, step=0.01, description="alpha",
                                                continuous_update=False)
        self.k_slider = widgets.IntSlider(value=int(k), min=1, max=10, description="k", continuous_update=False)
        self.context_slider = widgets.IntSlider(value=int(contexts[-1]), min=1024, max=131072, step=1024,
                                                description="long context", continuous_update=False)
        self.budget_slider = widgets.IntSlider(value=int(kv_budget), min=64, max=8192, step=64,
                                               description="draft KV cap", continuous_update=False)
        self.batch_slider = widgets.IntSlider(value=int(batch), min=1, max=512, description="read-out batch",
                                              continuous_update=False)
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.batch_max = 512
        self.figure = no_help_context(target, draft, hardware, alpha, k, contexts, kv_budget,
                                      batch_max=self.batch_max, dynamic=True)
        self._blit = Blitter(self.figure, self.dpi)
        self.values: dict = {}
        super().__init__([
            widgets.HBox([self.alpha_slider, self.k_slider, self.batch_slider]),
            widgets.HBox([self.context_slider, self.budget_slider]),
            self.readout, self.image,
        ])
        for s in (self.alpha_slider, self.k_slider, self.context_slider, self.budget_slider, self.batch_slider):
            s.observe(lambda change: self.update(), names="value")
        self.update(draw=False)           # the figure was drawn at these values already
        self.image.value = self._blit.initial_png()

    def compute(self) -> dict:
        """Numbers at the read-out batch and the long context (no drawing)."""
        a, k = float(self.alpha_slider.value), int(self.k_slider.value)
        c, budget, b = int(self.context_slider.value), int(self.budget_slider.value), int(self.batch_slider.value)
        t, d, hw = self.target, self.draft, self.hardware
        full = _dep.speculative_costs(t, d, hw, a, k, b, c)
        cd_cap = _hw.draft_cost(d, t, hw, b, c, kv_budget=budget)
        capped = _dep.speculative_costs(t, d, hw, a, k, b, c, draft_cost_override=cd_cap)
        return {
            "alpha": a, "k": k, "context": c, "kv_budget": budget, "batch": b,
            "fits": int(_mem.max_concurrent_sequences(t, hw, c)),
            "c_verify": float(full.c_verify),
            "c_draft_full": float(full.c_draft), "c_draft_capped": float(cd_cap),
            "speedup_full": float(full.speedup), "speedup_capped": float(capped.speedup),
            "break_even_batch": _dep.break_even_batch(t, d, hw, a, k, context=c),
            "candidate_kv_bytes": _mem.candidate_kv_bytes(t, b, k),
            "context_kv_bytes": float(_mem.kv_cache_bytes(t, b, c)),
        }

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the numbers."""
        v = self.compute()
        fits = "" if v["batch"] <= v["fits"] else f" (does not fit: at most {v['fits']} sequences)"
        bb = v["break_even_batch"]
        self.readout.value = table_html([
            (f"at batch {v['batch']}, context {v['context']:,}{fits}", ""),
            ("c_verify", f"{v['c_verify']:.3f}"),
            ("c_draft: full cache / capped", f"{v['c_draft_full']:.3f} / {v['c_draft_capped']:.3f}"),
            ("speedup: full-cache draft / capped draft", f"{v['speedup_full']:.2f} / {v['speedup_capped']:.2f}"),
            ("full-cache draft breaks even at batch", "never (up to 4096)" if not np.isfinite(bb) else f"{bb:.0f}"),
            ("candidate KV (B k m_KV) / context KV (B C m_KV)",
             f"{v['candidate_kv_bytes'] / 2**20:.0f} MiB / {v['context_kv_bytes'] / 2**30:.1f} GiB"),
        ])
        if draw:
            lines = self._blit.lines
            contexts = self.fixed_contexts + (v["context"],)
            for panel, budget in enumerate((None, v["kv_budget"])):
                for i, c in enumerate(contexts):
                    b, sp = no_help_context_curve(self.target, self.draft, self.hardware, v["alpha"], v["k"], c,
                                                  budget, self.batch_max)
                    lines[f"{panel}-{i}"].set_data(b, sp)
                    lines[f"{panel}-{i}-end"].set_data(b[-1:], sp[-1:])
                    lines[f"{panel}-{i}-end"].set_visible(bool(b.size < self.batch_max))
            self.image.value = self._blit.png()
        self.values = v
        return v


def batch_context_explorer(target=None, draft=None, hardware=None, alpha=0.8, k=5, contexts=(1024, 8192, 32768),
                           kv_budget=512, batch=32):
    """Explore speculation's speedup against batch and context, with a full or capped draft KV cache.

    Defaults reproduce the chapter's long-context figure.

    Defined in chapter "When speculation does not help" (Part I, chapter 4).

    Parameters
    ----------
    target, draft : specdec.hardware.Model, optional
        Default Llama 3.1 70B and Llama 3.1 8B.
    hardware : specdec.hardware.Hardware, optional
        Default 8x H100 SXM.
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

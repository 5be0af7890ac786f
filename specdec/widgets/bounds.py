"""Explorers for "Why verification is not free" and "When speculation does not help".

Presentation only: the numbers come from :mod:`specdec.roofline.hardware`,
:mod:`specdec.serving.deployment` and :mod:`specdec.roofline.memory`, the figures from
:mod:`specdec.plots.bounds` (their moving curves carry ``gid`` tags).
"""

from __future__ import annotations

import numpy as np

from specdec.roofline import hardware as _hw
from specdec.roofline import memory as _mem
from specdec.serving import deployment as _dep

from ..plots.bounds import no_help_context, no_help_context_curve, verify_cost_overview
from ._base import Explorer, float_slider, int_slider

__all__ = ["VerifyCostExplorer", "verify_cost_explorer", "BatchContextExplorer", "batch_context_explorer"]



def _tagged_lines(figure) -> dict:
    """The lines of a figure that carry a ``gid``, by gid (the curves an explorer moves)."""
    return {line.get_gid(): line for ax in figure.axes for line in ax.lines if line.get_gid()}


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
        self.lines = _tagged_lines(figure)
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


def verify_cost_explorer(target=None, hardware=None, batch=64, context=0, k=5):
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
        self.lines = _tagged_lines(figure)
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
                b, sp = no_help_context_curve(self.target, self.draft, self.hardware, v["alpha"], v["k"], c,
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
                           kv_budget=512, batch=32):
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

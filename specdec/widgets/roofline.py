"""Explorer for "The roofline model".

Presentation only: the numbers come from :mod:`specdec.roofline.hardware`,
:mod:`specdec.serving.deployment` and :mod:`specdec.roofline.memory`, the figure from
:class:`specdec.plots.RooflineView`.
"""

from __future__ import annotations

from specdec.roofline.hardware import GPUS, MODELS, ridge_batch, utilization
from specdec.roofline.memory import max_concurrent_sequences
from specdec.serving.deployment import break_even_batch, speculative_costs

from .._validate import check_integer, check_probability
from ..plots.roofline import RooflineView
from ._base import Explorer, choice, float_slider, int_slider

__all__ = ["RooflineExplorer", "roofline_explorer", "ROOFLINE_BATCHES", "ROOFLINE_CONTEXTS"]

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

"""The explorer of predictions: one published configuration, its predicted speedup and its round.

Presentation only: the numbers come from :func:`specdec.predict.predict_speedup`
(the prediction, its interval and the round's parts) and the figure from
:func:`specdec.plots.round_against_plain`.
"""

from __future__ import annotations

from specdec import predict
from specdec.calibration import profiles
from specdec.predict.heldout import track_record
from specdec.roofline import catalogue

from ..plots import new_figure
from ..plots.predict import round_against_plain
from ._base import Explorer, choice, float_slider, int_slider

__all__ = ["PredictExplorer", "predict_explorer"]

#: Targets the explorer offers (catalogue keys).
TARGETS = ("llama-3.1-8b", "llama-3.1-70b", "llama-2-7b", "llama-2-70b", "vicuna-7b", "vicuna-13b", "vicuna-33b",
           "qwen3-8b", "deepseek-v3")
#: Drafts the explorer offers: head kinds, lookups and two separate models.
DRAFTS = ("eagle", "eagle2", "eagle3", "medusa", "mtp", "ngram", "vicuna-68m", "llama-3.2-1b")
_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128)
_CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384)


class PredictExplorer(Explorer):
    """Target, draft, proposal, GPU, GPU count, engine, batch, context and tau: the predicted speedup.

    ``values`` holds ``prediction`` (a :class:`specdec.predict.Prediction`),
    ``speedup``, ``low``, ``high``, ``t0``, ``t_draft``, ``t_verify`` and
    ``t_overhead`` (seconds), ``record`` (the engine profile's
    :func:`specdec.predict.heldout.track_record`) and ``band`` (the
    prediction read against it) with the control values. A chain of ``k``
    drafts is proposed when ``nodes`` is 0, else a tree of ``nodes`` draft
    tokens and depth ``k`` expanding ``width`` nodes per level (0: unstated,
    the mean level size). The explorer refuses (with a warning instead of
    a number) a ``tau`` above the tokens a round can yield, a tree shape
    that cannot exist, and a draft the catalogue has no head for.

    Defined in chapter "Predicting a published setup".
    """

    name = "predict"
    title = "Prediction explorer"

    def __init__(self, target="llama-3.1-8b", draft="eagle3", k=3, nodes=0, width=0, gpu="h100-sxm", n_gpus=1,
                 engine="sglang", batch=1, context=0, tau=3.0):
        wide = {"label_width": "8em", "width": "22em"}
        controls = {
            "target": choice(target, list(TARGETS), "target", **wide),
            "draft": choice(draft, list(DRAFTS), "draft", **wide),
            "k": int_slider(k, 1, 8, "k / depth", **wide),
            "nodes": int_slider(nodes, 0, 63, "tree nodes", **wide),
            "width": int_slider(width, 0, 16, "tree width", **wide),
            "tau": float_slider(tau, 1.0, 7.0, 0.05, "tau", **wide),
            "gpu": choice(gpu, list(catalogue.GPU_SPECS), "GPU", name="gpu", **wide),
            "n_gpus": choice(n_gpus, [1, 2, 4, 8], "GPUs", name="n_gpus", **wide),
            "engine": choice(engine, list(profiles.PROFILES), "engine", **wide),
            "batch": choice(batch, list(_BATCHES), "batch", slider=True, **wide),
            "context": choice(context, list(_CONTEXTS), "context", slider=True, **wide),
        }
        fig, self.ax = new_figure(7.0, 2.2)
        super().__init__(controls, figure=fig)

    def domain(self, s) -> list:
        """A tau above the round's tokens, a tree no deeper than its nodes allow, a head the target lacks."""
        out = []
        tokens = s["k"] + 1
        if s["nodes"] and s["nodes"] < s["k"]:
            out.append(("nodes", f"a tree of depth {s['k']} needs at least {s['k']} nodes; got {s['nodes']}"))
        if s["width"] and not s["nodes"]:
            out.append(("width", "a width describes a tree: set tree nodes above 0, or the width to 0"))
        elif s["width"] > s["nodes"]:
            out.append(("width", f"a tree of {s['nodes']} nodes cannot expand {s['width']} per level"))
        if s["tau"] > tokens:
            out.append(("tau", f"a round of depth {s['k']} yields at most {tokens} tokens; tau {s['tau']:.2f} is "
                               f"more"))
        if s["draft"] in ("ngram", "vicuna-68m", "llama-3.2-1b") and s["nodes"]:
            out.append(("nodes", f"draft {s['draft']!r} proposes a chain here: set tree nodes to 0"))
        if s["draft"] in ("eagle", "eagle2", "eagle3", "medusa", "mtp"):
            try:
                predict.head_model(s["target"], s["draft"])
            except (ValueError, KeyError) as exc:
                out.append(("draft", f"no {s['draft']} head for {s['target']} in the catalogue ({exc})"))
        return out

    def compute(self, state=None) -> dict:
        """The prediction for the controls (or ``state``), from :func:`specdec.predict.predict_speedup`."""
        v = self.state(state)
        shape = {"k": v["k"]} if not v["nodes"] else {"n_nodes": v["nodes"], "depth": v["k"], "width": v["width"] or None}
        p = predict.predict_speedup(v["target"], v["draft"], tau=v["tau"], gpu=v["gpu"], n_gpus=v["n_gpus"],
                                    engine=v["engine"], batch=v["batch"], context=v["context"], **shape)
        record = track_record(v["engine"])
        v.update(prediction=p, speedup=p.speedup, low=p.interval[0], high=p.interval[1], t0=p.t0, t_draft=p.t_draft,
                 t_verify=p.t_verify, t_overhead=p.t_overhead, record=record, band=record.band(p.speedup))
        return v

    def rows(self, v) -> list:
        p = v["prediction"]
        return [("speedup", f"predicted speedup ({p.confidence:.0%} interval)",
                 f"{v['speedup']:.2f}x [{v['low']:.2f}, {v['high']:.2f}]"),
                ("t0", "plain step T0", f"{v['t0'] * 1e3:.2f} ms"),
                ("t_draft", "draft passes of a round", f"{v['t_draft'] * 1e3:.2f} ms"),
                ("t_verify", "verification pass", f"{v['t_verify'] * 1e3:.2f} ms"),
                ("t_overhead", "overhead per round", f"{v['t_overhead'] * 1e3:.2f} ms"),
                ("engine", "engine profile used", p.engine),
                ("band", f"read against the held-out record ({v['record'].whose}, {v['record'].rows} published "
                         f"speedups)", f"{v['band'][0]:.2f}x to {v['band'][1]:.2f}x")]

    def draw(self, v):
        round_against_plain(v["prediction"], ax=self.ax)
        return tuple(v[name] for name in self.controls)

    def alt_text(self, v) -> str:
        p = v["prediction"]
        return (f"Two bars: plain decoding of tau = {v['tau']:.2f} tokens takes {v['tau'] * v['t0'] * 1e3:.2f} ms; "
                f"one speculative round of {v['draft']} on {v['target']} takes "
                f"{(v['t_draft'] + v['t_verify'] + v['t_overhead']) * 1e3:.2f} ms (draft passes, verification, "
                f"overhead) on {p.hardware}: {v['speedup']:.2f}x, interval {v['low']:.2f} to {v['high']:.2f}.")


def predict_explorer(target="llama-3.1-8b", draft="eagle3", k=3, nodes=0, width=0, gpu="h100-sxm", n_gpus=1,
                     engine="sglang", batch=1, context=0, tau=3.0) -> PredictExplorer:
    """The prediction explorer: a configuration's predicted speedup, its interval and the round's parts.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    target : str, optional
        A catalogue key of ``specdec.widgets.predict.TARGETS``.
    draft : str, optional
        One of ``specdec.widgets.predict.DRAFTS``: a head kind, ``"ngram"``, or a separate model's key.
    k : int, optional
        Chain length, or the tree's depth when ``nodes`` > 0; in [1, 8].
    nodes : int, optional
        Draft tokens of a tree, in [0, 63]; 0 proposes a chain.
    width : int, optional
        Nodes a tree expands per level, in [0, 16]; 0 leaves it unstated (the mean level size).
    gpu : str, optional
        A key of :data:`specdec.roofline.catalogue.GPU_SPECS`.
    n_gpus : {1, 2, 4, 8}, optional
        Tensor-parallel size.
    engine : str, optional
        A key of :data:`specdec.calibration.profiles.PROFILES`.
    batch : one of 1, 2, 4, ..., 128, optional
    context : one of 0, 512, ..., 16384, optional
    tau : float, optional
        Measured mean tokens per round, in [1, k + 1].

    Returns
    -------
    PredictExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.predict_explorer()
    >>> w.values["speedup"] == sd.predict_speedup("llama-3.1-8b", "eagle3", tau=3.0, k=3, engine="sglang").speedup
    True
    """
    return PredictExplorer(target=target, draft=draft, k=k, nodes=nodes, width=width, gpu=gpu, n_gpus=n_gpus,
                           engine=engine, batch=batch, context=context, tau=tau)

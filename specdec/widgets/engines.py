"""Explorers for Part IV, "Speculation as engines run it".

Presentation only: the numbers come from :mod:`specdec.calibration`,
:mod:`specdec.drafts.drafters`, :mod:`specdec.verification`, :mod:`specdec.verification.trees`,
:mod:`specdec.serving.dynamic` and :mod:`specdec.serving.goodput`; the figures from
:func:`specdec.plots.calibration_overview` (redrawn in full) and the views of
:mod:`specdec.plots.engines` (moved in place). Each explorer is a
:class:`specdec.widgets.Explorer`; the numbers it shows come from
:mod:`specdec.drafts.drafters` and the other core modules.
"""

from __future__ import annotations

import math

import numpy as np

from specdec import verification
from specdec.drafts.drafters import medusa_rank_accept, prompt_lookup_run
from specdec.roofline.hardware import (
    A100,
    GPUS,
    H100,
    LLAMA_1B,
    LLAMA_8B,
    LLAMA_70B,
    draft_cost,
    step_time,
    verify_cost,
)
from specdec.serving import dynamic, goodput
from specdec.serving.deployment import break_even_batch, speculative_speedup
from specdec.verification import synthetic, trees

from .. import calibration as cal
from .._validate import check_integer, check_nonnegative, check_positive, check_probability
from ..plots import new_figure
from ..plots.calibration import calibration_overview
from ..plots.engines import GoodputView, PromptLookupView, ScheduleSpeedupsView, TreeView, VerificationRulesView
from ._base import Explorer, choice, float_slider, int_slider

__all__ = [
    "CalibrationExplorer", "calibration_explorer",
    "PromptLookupExplorer", "prompt_lookup_explorer",
    "VerificationExplorer", "verification_explorer",
    "TreeExplorer", "tree_explorer",
    "DynamicKExplorer", "dynamic_k_explorer",
    "GoodputExplorer", "goodput_explorer",
]

_CALIBRATED = [("calibrated", True), ("ideal roofline (lower bound)", False)]


def _roofline_choice(value, **layout):
    if not isinstance(value, bool):
        raise TypeError(f"calibrated must be True or False; got {value!r}")
    return choice(value, _CALIBRATED, "roofline", name="calibrated", **layout)


def _ratio_text(ratio: float) -> str:
    if math.isinf(ratio):
        return "only speculation meets it"
    return "neither meets it" if math.isnan(ratio) else f"{ratio:.2f}"


# --------------------------------------------------------------------------
# A calibrated roofline
# --------------------------------------------------------------------------

_MODELS = {"Llama 3.1 70B": LLAMA_70B, "Llama 3.1 8B": LLAMA_8B, "Llama 3.2 1B": LLAMA_1B}
_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
_CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768)


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
            "calibrated": _roofline_choice(calibrated, **wide),
            "step_overhead_ms": float_slider(fixed, 0.0, 5.0, 0.05, "fixed cost (ms)", **wide),
            "batch": choice(batch, list(_BATCHES), "batch", slider=True, **wide),
            "context": choice(context, list(_CONTEXTS), "context", slider=True, **wide),
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


# --------------------------------------------------------------------------
# Drafts in today's engines: prompt lookup
# --------------------------------------------------------------------------

class PromptLookupExplorer(Explorer):
    """Copy rate and copy length of the text, proposal length and n-gram size: what prompt lookup gains.

    ``values`` holds ``n_rounds``, ``match_rate``, ``tokens_per_round`` and
    ``speedup`` (Vicuna 7B on a calibrated A100, lookup free) of
    :func:`specdec.drafts.drafters.prompt_lookup_run`, its ``run`` and the control values.

    Defined in chapter "Drafts in today's engines".
    """

    name = "prompt-lookup"
    title = "Prompt lookup explorer"
    max_proposed = 20

    def __init__(self, copy_prob=0.1, mean_copy_length=20.0, num_pred=10, max_ngram=3):
        n = int(check_integer(num_pred, "num_pred", minimum=1, maximum=self.max_proposed))
        controls = {
            "copy_prob": float_slider(check_probability(copy_prob, "copy_prob"), 0.0, 0.5, 0.01, "copy probability"),
            "mean_copy_length": float_slider(check_positive(mean_copy_length, "mean_copy_length", "(tokens)"), 1.0,
                                             60.0, 1.0, "mean copy length", ".0f"),
            "num_pred": int_slider(n, 1, self.max_proposed, "tokens proposed"),
            "max_ngram": int_slider(check_integer(max_ngram, "max_ngram", minimum=1, maximum=6), 1, 6, "n-gram"),
        }
        self.controls = controls
        self.view = PromptLookupView(self.compute(self.state())["run"], max_proposed=self.max_proposed)
        super().__init__(controls, figure=self.view.figure, dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """The run and its numbers for the controls (or ``state``), from :mod:`specdec.drafts.drafters`."""
        v = self.state(state)
        run = prompt_lookup_run(v["copy_prob"], v["mean_copy_length"], v["num_pred"], v["max_ngram"])
        costs = verify_cost(cal.LLAMA2_7B, A100, np.arange(1, v["num_pred"] + 1), 1, 512)
        v.update(run=run, n_rounds=run.n_rounds, match_rate=run.match_rate, tokens_per_round=run.tokens_per_round,
                 speedup=run.speedup(costs))
        return v

    def rows(self, v) -> list:
        return [("n_rounds", "rounds (target passes)", f"{v['n_rounds']}"),
                ("match_rate", "share of rounds with a match", f"{v['match_rate']:.1%}"),
                ("tokens_per_round", "tokens per round", f"{v['tokens_per_round']:.3f}"),
                ("speedup", "speedup (c_d = 0)", f"{v['speedup']:.2f}x")]

    def draw(self, v):
        return self.view.update(v["run"])

    def alt_text(self, v) -> str:
        return (f"Bar chart: how many of the {v['num_pred']} proposed tokens each of the {v['n_rounds']} rounds "
                f"accepted, on text that starts a copy with probability {v['copy_prob']:.2f} (mean length "
                f"{v['mean_copy_length']:.0f}); {v['match_rate']:.0%} of rounds found a match; "
                f"{v['tokens_per_round']:.2f} tokens per round.")


def prompt_lookup_explorer(copy_prob=0.1, mean_copy_length=20.0, num_pred=10, max_ngram=3) -> PromptLookupExplorer:
    """The prompt-lookup explorer on synthetic text that repeats itself (Vicuna 7B, calibrated A100).

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    copy_prob : float, optional
        Probability that a copy starts at a position, in [0, 1].
    mean_copy_length : float, optional
        Mean copied span in tokens, >= 1.
    num_pred : int, optional
        Tokens proposed per round, in [1, 20].
    max_ngram : int, optional
        Longest n-gram looked up, in [1, 6].

    Returns
    -------
    PromptLookupExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.prompt_lookup_explorer()
    >>> w.values["tokens_per_round"] == sd.drafters.prompt_lookup_run().tokens_per_round
    True
    """
    return PromptLookupExplorer(copy_prob=copy_prob, mean_copy_length=mean_copy_length, num_pred=num_pred,
                                max_ngram=max_ngram)


# --------------------------------------------------------------------------
# Verification rules
# --------------------------------------------------------------------------

class VerificationExplorer(Explorer):
    """Temperature and typical acceptance's thresholds: what each rule emits and accepts on the example pair.

    ``values[rule]`` is ``{"acceptance", "total_variation"}`` of
    :func:`specdec.verification.compare_rules` for every rule of
    :data:`specdec.verification.RULES`, with the control values.

    Defined in chapter "Verification rules".
    """

    name = "verification-rules"
    title = "Verification rules explorer"

    def __init__(self, temperature=1.0, epsilon=verification.MEDUSA_EPSILON, delta=verification.MEDUSA_DELTA):
        controls = {
            "temperature": float_slider(check_positive(temperature, "temperature"), 0.1, 2.0, 0.05, "temperature"),
            "epsilon": float_slider(check_probability(epsilon, "epsilon"), 0.0, 0.5, 0.01, "epsilon"),
            "delta": float_slider(check_probability(delta, "delta"), 0.0, 1.0, 0.01, "delta"),
        }
        self.controls = controls
        v = self.compute(self.state())
        fig, ax = new_figure(7.0, 3.6)
        self.view = VerificationRulesView(v["p"], v["q"], epsilon=v["epsilon"], delta=v["delta"], ax=ax)
        super().__init__(controls, figure=fig, dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """Each rule's acceptance and distance to the target for the controls (or ``state``)."""
        v = self.state(state)
        p = synthetic.temper_distribution(synthetic.EXAMPLE_TARGET, v["temperature"])
        q = synthetic.temper_distribution(synthetic.EXAMPLE_DRAFT, v["temperature"])
        rules = verification.compare_rules(p, q, epsilon=v["epsilon"], delta=v["delta"])
        v.update(p=p, q=q)
        v.update({rule: {"acceptance": r["acceptance"], "total_variation": r["total_variation"]}
                  for rule, r in rules.items()})
        return v

    def rows(self, v) -> list:
        return [(rule, rule, f"accepts {v[rule]['acceptance']:.3f}, distance to p {v[rule]['total_variation']:.3f}")
                for rule in verification.RULES]

    def draw(self, v):
        self.view.update(v["p"], v["q"], epsilon=v["epsilon"], delta=v["delta"])

    def alt_text(self, v) -> str:
        accepts = ", ".join(f"{rule} {v[rule]['acceptance']:.2f}" for rule in verification.RULES)
        return (f"Grouped bars: for each token of the example pair at temperature {v['temperature']:.2f}, the target "
                f"probability and the probability each rule emits it (typical acceptance with epsilon "
                f"{v['epsilon']:.2f}, delta {v['delta']:.2f}). Acceptance: {accepts}.")


def verification_explorer(temperature=1.0, epsilon=verification.MEDUSA_EPSILON,
                          delta=verification.MEDUSA_DELTA) -> VerificationExplorer:
    """The verification-rules explorer on the book's example pair.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    temperature : float, optional
        Sampling temperature of both models, > 0.
    epsilon, delta : float, optional
        Typical acceptance's thresholds, in [0, 1] (Medusa's defaults).

    Returns
    -------
    VerificationExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.verification_explorer()
    >>> w.values["rejection"]["total_variation"] < 1e-12 < w.values["typical"]["total_variation"]
    True
    """
    return VerificationExplorer(temperature=temperature, epsilon=epsilon, delta=delta)


# --------------------------------------------------------------------------
# Token trees
# --------------------------------------------------------------------------

class TreeExplorer(Explorer):
    """Node budget, depth and roofline: the best tree for Vicuna 7B's Medusa heads and what it gains.

    ``values`` holds ``nodes_used``, ``expected_tokens`` (of
    :func:`specdec.verification.trees.best_tree`), ``c_verify`` (of
    :func:`specdec.verification.trees.tree_verify_cost`, batch 1, context 512, A100),
    ``speedup`` (heads in the pass, ``c_d = 0``), the ``tree`` and the control values.

    Defined in chapter "Token trees".
    """

    name = "token-tree"
    title = "Token tree explorer"

    def __init__(self, n_nodes=14, max_depth=3, calibrated=True):
        controls = {
            "n_nodes": int_slider(check_integer(n_nodes, "n_nodes", minimum=1, maximum=64), 1, 64, "nodes"),
            "max_depth": int_slider(check_integer(max_depth, "max_depth", minimum=1, maximum=5), 1, 5, "depth"),
            "calibrated": _roofline_choice(calibrated),
        }
        self.controls = controls
        fig, ax = new_figure(6.4, 3.6)
        self.view = TreeView(self.compute(self.state())["tree"], ax=ax)
        super().__init__(controls, figure=fig)

    def compute(self, state=None) -> dict:
        """The best tree and its speedup for the controls (or ``state``), from :mod:`specdec.verification.trees`."""
        v = self.state(state)
        tree = trees.best_tree(v["n_nodes"], medusa_rank_accept(), v["max_depth"])
        hw = A100 if v["calibrated"] else A100.ideal()
        cv = float(trees.tree_verify_cost(cal.LLAMA2_7B, hw, max(tree.n_nodes, 1), 1, 512))
        v.update(tree=tree, nodes_used=tree.n_nodes, expected_tokens=tree.expected_tokens, c_verify=cv,
                 speedup=tree.expected_tokens / cv)
        return v

    def rows(self, v) -> list:
        return [("nodes_used", "nodes used", f"{v['nodes_used']}"),
                ("expected_tokens", "E[L]", f"{v['expected_tokens']:.3f}"),
                ("c_verify", "c_verify of the tree", f"{v['c_verify']:.3f}"),
                ("speedup", "speedup (heads in the pass)", f"{v['speedup']:.3f}x")]

    def draw(self, v):
        return self.view.update(v["tree"])

    def alt_text(self, v) -> str:
        return (f"The best draft tree of {v['nodes_used']} nodes, at most {v['max_depth']} deep, for the Medusa heads "
                f"of Vicuna 7B, drawn by depth from left to right and by rank from top to bottom, nodes shaded by the "
                f"probability they are accepted; E[L] = {v['expected_tokens']:.3f}.")


def tree_explorer(n_nodes=14, max_depth=3, calibrated=True) -> TreeExplorer:
    """The token-tree explorer: the best tree for a node budget and what it gains.

    Defined in chapter "Token trees".

    Parameters
    ----------
    n_nodes : int, optional
        Node budget, in [1, 64].
    max_depth : int, optional
        Deepest level, in [1, 5] (Vicuna 7B has five heads).
    calibrated : bool, optional
        The calibrated A100 roofline (True) or the ideal one.

    Returns
    -------
    TreeExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.tree_explorer()
    >>> w.values["nodes_used"], round(w.values["expected_tokens"], 3)
    (14, 2.199)
    """
    return TreeExplorer(n_nodes=n_nodes, max_depth=max_depth, calibrated=calibrated)


# --------------------------------------------------------------------------
# Dynamic speculation length
# --------------------------------------------------------------------------

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


# --------------------------------------------------------------------------
# Throughput at a latency target
# --------------------------------------------------------------------------

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
            "context": choice(context, list(_CONTEXTS[1:]), "context", slider=True),
            "calibrated": _roofline_choice(calibrated),
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

"""Explorers of verification: exact speculative sampling, the verification rules, token trees.

Presentation only: the numbers come from :mod:`specdec.verification`, :mod:`specdec.verification.sampling`,
:mod:`specdec.verification.synthetic`, :mod:`specdec.verification.trees` and the roofline's costs
(:mod:`specdec.roofline.hardware`); the figures from :mod:`specdec.plots.verification`. A slider
moves the artists that change (bar heights, line data, titles) over one cached background per
set of axis limits.
"""

from __future__ import annotations

import numpy as np

from specdec import verification
from specdec.drafts.drafters import medusa_rank_accept
from specdec.roofline.hardware import (
    A100,
)
from specdec.verification import sampling as sm
from specdec.verification import synthetic, trees
from specdec.verification import synthetic as syn

from .. import calibration as cal
from .._validate import check_integer, check_positive, check_probability
from ..acceptance import (
    acceptance_rate,
    expected_tokens,
)
from ..plots import new_figure
from ..plots.verification import TreeView, VerificationRulesView, sampling_residual
from ._base import Explorer, float_slider, int_slider, roofline_choice

__all__ = [
    "SamplingResidualExplorer",
    "sampling_residual_explorer",
    "VerificationExplorer",
    "verification_explorer",
    "TreeExplorer",
    "tree_explorer",
]


def _top(initial, needed):
    """Upper y limit: ``initial`` while the data fits, else ``needed`` rounded up to a tenth (at most 1.05)."""
    if needed <= initial * (1 + 1e-9):     # rounding noise must not move the limit (nor redraw the background)
        return initial
    return float(min(np.ceil(round(needed * 10, 9)) / 10, 1.05))


class SamplingResidualExplorer(Explorer):
    """Draft mismatch and temperature sliders on the chapter's target/draft pair.

    ``values``: the sliders, ``p`` and ``q`` (the tempered pair), ``alpha``
    (the acceptance rate), ``residual`` and ``expected_tokens`` at ``k``.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".
    """

    name = "residual"
    title = "Residual-distribution explorer"

    def __init__(self, mismatch=1.0, temperature=1.0, k=4):
        m = float(check_probability(mismatch, "mismatch"))
        t = float(check_positive(temperature, "temperature"))
        self.k = int(check_integer(k, "k", minimum=1))
        self.mismatch = float_slider(m, 0.0, 1.0, 0.05, "mismatch")
        self.temperature = float_slider(t, 0.2, 3.0, 0.1, "temperature", ".1f")
        p, q = self._pq(m, t)
        figure = sampling_residual(p, q)
        ax0, ax1 = figure.axes
        self.tops = (ax0.get_ylim()[1], ax1.get_ylim()[1])
        bars = [patch for ax in (ax0, ax1) for container in ax.containers for patch in container]
        super().__init__({"mismatch": self.mismatch, "temperature": self.temperature}, figure=figure,
                         dynamic=bars + [ax0.lines[0], ax0.title, ax1.title])

    @staticmethod
    def _pq(mismatch, temperature):
        q = syn.interpolate_draft(syn.EXAMPLE_TARGET, syn.EXAMPLE_DRAFT, mismatch)
        return syn.temper_distribution(syn.EXAMPLE_TARGET, temperature), syn.temper_distribution(q, temperature)

    def compute(self, state=None) -> dict:
        """The pair, its acceptance rate and residual for the sliders (or ``state``)."""
        v = self.state(state)
        p, q = self._pq(v["mismatch"], v["temperature"])
        alpha = acceptance_rate(p, q)
        v.update(p=p, q=q, alpha=alpha, rejection=sm.total_variation(p, q), residual=sm.residual_distribution(p, q),
                 excess=sm.residual_distribution(p, q, normalize=False), accepted=sm.accepted_mass(p, q),
                 expected_tokens=expected_tokens(alpha, self.k), k=self.k)
        return v

    def rows(self, v) -> list:
        return [("alpha", "acceptance rate alpha = sum(min(p, q))", f"{v['alpha']:.4f}"),
                ("rejection", "rejection probability = TV(p, q)", f"{v['rejection']:.4f}"),
                ("expected_tokens", f"E[L] at k = {v['k']} (if every position looked like this)",
                 f"{v['expected_tokens']:.3f}")]

    def draw(self, v):
        ax0, ax1 = self.figure.axes
        p, q, alpha = v["p"], v["q"], v["alpha"]
        for container, heights in zip(ax0.containers + ax1.containers, (p, q, v["residual"], v["excess"]), strict=False):
            for patch, h in zip(container, heights, strict=False):
                patch.set_height(float(h))
        m = v["accepted"]
        ax0.lines[0].set_ydata(np.r_[m, m[-1]])
        ax0.set_title(f"acceptance rate sum(min(p, q)) = {alpha:.2f}", fontsize=10)
        ax1.set_title(f"replacement after a rejection (prob. {v['rejection']:.2f})", fontsize=10)
        tops = (_top(self.tops[0], 1.05 * max(p.max(), q.max())), _top(self.tops[1], 1.05 * v["residual"].max()))
        ax0.set_ylim(0, tops[0])
        ax1.set_ylim(0, tops[1])
        return tops

    def alt_text(self, v) -> str:
        return (f"Left: bars of the target p and the draft q over {v['p'].size} tokens at mismatch "
                f"{v['mismatch']:.2f} and temperature {v['temperature']:.1f}, with min(p, q) outlined: acceptance rate "
                f"{v['alpha']:.2f}. Right: the residual distribution a rejected draft is replaced from.")


def sampling_residual_explorer(mismatch=1.0, temperature=1.0, k=4) -> SamplingResidualExplorer:
    """Explore the residual distribution and the acceptance rate of a target/draft pair.

    The draft is ``(1 - mismatch) * p + mismatch * q`` for the chapter's
    example pair, and both are re-sampled at ``temperature``. Defaults equal
    the chapter's static residual figure (mismatch 1, temperature 1).

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".

    Parameters
    ----------
    mismatch : float
        Initial draft mismatch in [0, 1].
    temperature : float
        Initial temperature, > 0.
    k : int
        Draft length for the E[L] read-out.

    Returns
    -------
    SamplingResidualExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.sampling_residual_explorer()
    >>> round(w.values["alpha"], 2)
    0.77
    """
    return SamplingResidualExplorer(mismatch, temperature, k)


# verification rules
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


# token trees
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
            "calibrated": roofline_choice(calibrated),
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

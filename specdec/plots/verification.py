"""Figures of verification: exact speculative sampling, the verification rules, token trees.

Presentation only: every number drawn comes from :mod:`specdec.verification` (the rules),
:mod:`specdec.verification.sampling`, :mod:`specdec.verification.synthetic` and
:mod:`specdec.verification.trees`. Each function returns a :class:`matplotlib.figure.Figure`
made with :func:`specdec.plots.new_figure`, or draws into axes passed in (the explorers redraw
into the same figure).
"""

from __future__ import annotations

import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize

from specdec.verification import sampling as sm
from specdec.verification import synthetic as syn
from specdec.verification.trees import best_tree_for_speedup

from .._validate import check_integer
from ..acceptance import acceptance_rate
from ..verification import RULES, compare_rules, mean_acceptance
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, figure_axes, figure_axes_array

__all__ = [
    "sampling_residual",
    "sampling_exactness",
    "verification_rules_bars",
    "VerificationRulesView",
    "acceptance_vs_temperature",
    "tree_budget_curves",
    "draw_tree",
    "TreeView",
]


SCHEME_COLORS = {"speculative": COLORS["target"], "correction from target": COLORS["accent"],
                 "draft only": COLORS["draft"]}


def sampling_residual(p=syn.EXAMPLE_TARGET, q=syn.EXAMPLE_DRAFT, axes=None):
    """Target and draft side by side with their overlap, and the residual distribution.

    Left: bars of ``p`` and ``q`` per token with ``min(p, q)`` (the mass that
    is accepted) outlined; right: the residual ``normalize(max(p - q, 0))``
    a rejected draft is replaced from.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    axes : sequence of two matplotlib Axes, optional
        Draw into these (cleared first) instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    pa, qa = np.asarray(p, float), np.asarray(q, float)
    alpha = acceptance_rate(pa, qa)
    residual = sm.residual_distribution(pa, qa)
    fig, (ax0, ax1) = figure_axes_array(axes, 2, CONTENT_WIDTH, 3.3)
    x = np.arange(pa.size)
    w = 0.4
    ax0.bar(x - w / 2, pa, w, color=COLORS["target"], label="target p")
    ax0.bar(x + w / 2, qa, w, color=COLORS["draft"], label="draft q")
    accepted = sm.accepted_mass(pa, qa)
    ax0.step(np.r_[x - 0.5, x[-1] + 0.5], np.r_[accepted, accepted[-1]], where="post",
             color="black", lw=1.2, label="min(p, q): accepted mass")
    ax0.set_xticks(x)
    ax0.set_xlabel("token")
    ax0.set_ylabel("probability")
    ax0.set_title(f"acceptance rate sum(min(p, q)) = {alpha:.2f}", fontsize=10)
    ax0.legend(frameon=False, fontsize=8)
    excess = sm.residual_distribution(pa, qa, normalize=False)
    ax1.bar(x, residual, 0.6, color=COLORS["verify"], label="residual (normalized)")
    ax1.bar(x, excess, 0.3, color="black", alpha=0.5, label="max(p - q, 0)")
    ax1.set_xticks(x)
    ax1.set_xlabel("token")
    ax1.set_ylabel("probability")
    ax1.set_title(f"replacement after a rejection (prob. {sm.total_variation(pa, qa):.2f})", fontsize=10)
    ax1.legend(frameon=False, fontsize=8)
    return fig


def sampling_exactness(p=syn.EXAMPLE_TARGET, q=syn.EXAMPLE_DRAFT, sizes=None, seed=0, axes=None, convergence=None):
    """Emitted-token frequencies converge to the target only for the exact scheme.

    Left: total-variation distance between the empirical distribution of the
    first ``n`` emitted tokens and ``p``, against ``n`` (log-log), for
    speculative sampling, the "correction from target" bug and plain draft
    sampling. Right: the frequencies at the largest ``n`` next to ``p``.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    sizes : array_like of int, optional
        Sample sizes; default 28 log-spaced sizes from 31 to 10**6.
    seed : int
        Seed of the simulation.
    axes : sequence of two Axes, optional
    convergence : dict, optional
        A result of :func:`specdec.verification.sampling.convergence_to_target` to draw
        instead of simulating (``sizes`` and ``seed`` are then ignored).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if convergence is not None:
        conv = convergence
    elif sizes is None:
        sizes = np.unique(np.logspace(1.5, 6, 28).astype(int))
    if convergence is None:
        conv = sm.convergence_to_target(p, q, sizes, np.random.default_rng(seed))
    pa = np.asarray(p, float)
    n = conv["sizes"]
    fig, (ax0, ax1) = figure_axes_array(axes, 2, CONTENT_WIDTH, 3.4)
    for name, color in SCHEME_COLORS.items():
        tv = sm.total_variation(conv[name], pa)
        ax0.loglog(n, tv, marker="o", ms=2.5, color=color, label=name)
    ax0.loglog(n, 0.5 * np.sqrt(pa.size / n), color=COLORS["baseline"], ls=":", lw=1,
               label="sampling noise scale ~ 1/sqrt(n)")
    ax0.set_xlabel("emitted tokens n")
    ax0.set_ylabel("TV distance to target p")
    ax0.legend(frameon=False, fontsize=8)
    ax0.set_title("distance to the target as samples grow", fontsize=10)
    x = np.arange(pa.size)
    w = 0.27
    for j, (name, color) in enumerate(SCHEME_COLORS.items()):
        ax1.bar(x + (j - 1) * w, conv[name][-1], w, color=color, label=name)
    ax1.scatter(x, pa, marker="_", s=260, color="black", zorder=3, label="target p")
    ax1.set_xticks(x)
    ax1.set_xlabel("token")
    ax1.set_ylabel("frequency")
    ax1.set_title(f"frequencies after n = {int(n[-1]):,} tokens", fontsize=10)
    ax1.legend(fontsize=8, loc="upper right")     # framed: it sits over the bars
    return fig


# verification rules
class VerificationRulesView:
    """The figure of :func:`verification_rules_bars`, updatable in place for its explorer.

    :meth:`update` sets the bars and the legend's acceptance probabilities
    (``dynamic_artists``; the axes do not change: the greedy rule's bar
    is always 1).

    Defined in chapter "Verification rules".

    Arguments as in :func:`verification_rules_bars` (``ax`` for its ``axes``).

    Examples
    --------
    >>> import specdec as sd
    >>> view = sd.plots.VerificationRulesView(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT)
    >>> view.legend.get_texts()[1].get_text()
    'rejection (accepts 0.77)'
    """

    def __init__(self, p, q, *, epsilon=0.09, delta=0.3, ax=None):
        size = np.asarray(p).size
        self.figure, self.ax = figure_axes(ax, 7.2, 3.8)
        ax = self.ax
        names = ["target p", *RULES]
        width = 0.8 / len(names)
        x = np.arange(size)
        self.containers = [ax.bar(x + (i - len(names) / 2 + 0.5) * width, np.zeros(size), width,
                                  color=SEQUENCE[i % len(SEQUENCE)], label=name,
                                  edgecolor="black" if i == 0 else "none", lw=0.6)
                           for i, name in enumerate(names)]
        ax.set_xticks(x, [str(i) for i in x])
        ax.set_xlim(-0.6, size - 0.4)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("token")
        ax.set_ylabel("probability of being emitted")
        self.legend = ax.legend(fontsize=7, ncol=2, loc="upper right")
        self.update(p, q, epsilon=epsilon, delta=delta)

    @property
    def dynamic_artists(self) -> list:
        """The bars and the legend (the axes stay as they are)."""
        return [patch for container in self.containers for patch in container] + [self.legend]

    def update(self, p, q, *, epsilon=0.09, delta=0.3) -> None:
        """Draw the rules of :func:`specdec.verification.compare_rules` for ``p``, ``q`` and the thresholds."""
        rules = compare_rules(p, q, epsilon=epsilon, delta=delta)
        heights = [np.asarray(p, dtype=float)] + [rules[rule]["emitted"] for rule in RULES]
        for container, height in zip(self.containers, heights, strict=False):
            for patch, h in zip(container, height, strict=False):
                patch.set_height(float(h))
        for text, rule in zip(self.legend.get_texts()[1:], RULES, strict=False):
            text.set_text(f"{rule} (accepts {rules[rule]['acceptance']:.2f})")


def verification_rules_bars(p, q, *, epsilon=0.09, delta=0.3, axes=None):
    """The token one verified position emits, rule by rule, against the target ``p``.

    One group of bars per token: the target ``p`` and the exact emitted
    distribution under each rule (:func:`specdec.verification.compare_rules`;
    ``"one-hot"`` with the draft's greedy token). The legend gives each
    rule's acceptance probability. The chapter's explorer moves this figure
    in place (:class:`VerificationRulesView`).

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p, q : array_like, shape (V,)
    epsilon, delta : float, optional
        Typical acceptance's thresholds.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    return VerificationRulesView(p, q, epsilon=epsilon, delta=delta, ax=axes).figure


def acceptance_vs_temperature(workloads, temperatures, axes=None):
    """Mean acceptance against sampling temperature: the draft's sample vs its greedy (one-hot) token.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    workloads : dict
        Name -> ``(target_logits, draft_logits)`` (e.g. from
        :func:`specdec.verification.synthetic.synthetic_logit_pair`).
    temperatures : array_like
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    t = np.asarray(temperatures, float)
    fig, ax = figure_axes(axes, 6.4, 5.0)
    for i, (name, (tl, dl)) in enumerate(workloads.items()):
        color = SEQUENCE[i % len(SEQUENCE)]
        ax.plot(t, mean_acceptance(tl, dl, t, "rejection"), color=color, marker="o", ms=3,
                label=f"{name}: draft samples, sum min(p, q)")
        ax.plot(t, mean_acceptance(tl, dl, t, "one-hot"), color=color, ls="--", marker="s", ms=3,
                label=f"{name}: draft proposes its greedy token (vLLM default)")
    ax.set_xlabel("sampling temperature")
    ax.set_ylabel("mean acceptance probability")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1, frameon=False)
    return fig


# token trees
def tree_budget_curves(rank_accept, max_nodes, costs, c_draft=0.0, axes=None):
    """Best expected tokens and best speedup against the node budget, for several verification costs.

    Defined in chapter "Token trees".

    Parameters
    ----------
    rank_accept : array_like
        As in :func:`specdec.verification.trees.best_tree`.
    max_nodes : int
    costs : dict
        Name -> ``c_verify`` array of length ``max_nodes``.
    c_draft : float, optional
        Per tree level.
    axes : pair of matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    n = int(check_integer(max_nodes, "max_nodes", minimum=1))
    fig, axes = figure_axes(axes, 9.6, 3.6, ncols=2)
    nodes = np.arange(1, n + 1)
    first = True
    labelled = set()   # one label per best node count (curves that share it share the label)
    for i, (name, cv) in enumerate(costs.items()):
        r = best_tree_for_speedup(rank_accept, n, cv, c_draft)
        if first:
            axes[0].plot(nodes, r.expected_tokens.max(axis=0), color=COLORS["draft"])
            first = False
        color = SEQUENCE[i % len(SEQUENCE)]
        axes[1].plot(nodes, r.best_by_budget, color=color, label=name)
        axes[1].plot([r.tree.n_nodes], [r.speedup], marker="o", color=color)
        if r.tree.n_nodes not in labelled:
            labelled.add(r.tree.n_nodes)
            axes[1].annotate(f"{r.tree.n_nodes} nodes", (r.tree.n_nodes, r.speedup), textcoords="offset points",
                             xytext=(4, 4), fontsize=7, color=color)
    axes[0].set_xlabel("node budget")
    axes[0].set_ylabel("best E[L] (tokens per round)")
    axes[1].set_xlabel("node budget")
    axes[1].set_ylabel("best speedup within the budget")
    axes[0].set_xscale("log", base=2)
    axes[1].set_xscale("log", base=2)
    axes[1].legend(fontsize=7)
    return fig


class TreeView:
    """The figure of :func:`draw_tree`, redrawn in place for its explorer (the colour bar is made once).

    :meth:`update` draws a new tree on the same axes and returns its key
    (its parents and ranks): the whole figure depends only on it.

    Defined in chapter "Token trees".

    Parameters
    ----------
    tree : specdec.verification.trees.DraftTree
    ax : matplotlib Axes, optional
    max_label : int, optional
        Nodes up to this count get their rank written in.

    Examples
    --------
    >>> import specdec as sd
    >>> view = sd.plots.TreeView(sd.trees.best_tree(3, [0.6, 0.2]))
    >>> view.ax.get_title()
    '3 nodes, E[L] = 2.176'
    """

    #: Nothing moves over a fixed background: each tree is a background of its own.
    dynamic_artists: tuple = ()

    def __init__(self, tree, ax=None, max_label=24):
        self.figure, self.ax = figure_axes(ax, 6.4, 3.6)
        self.max_label = int(check_integer(max_label, "max_label", minimum=0))
        self.figure.colorbar(ScalarMappable(Normalize(0, 1), "viridis"), ax=self.ax, label="P(node accepted)")
        self.key = None
        self.update(tree)

    def update(self, tree):
        """Draw ``tree`` (unless it is the one shown); return its key."""
        key = (tuple(tree.parents.tolist()), tuple(tree.rank.tolist()))
        if key == self.key:
            return key
        ax = self.ax
        ax.clear()
        n = tree.n_nodes
        children = {i: [] for i in range(-1, n)}
        for i in np.argsort(tree.rank, kind="stable"):
            children[int(tree.parents[i])].append(int(i))
        y = np.zeros(n)
        leaf = [0.0]

        def place(node):  # depth-first in rank order: leaves get 0, 1, 2, ...; a parent sits at its children's mean
            kids = children[node]
            if not kids:
                y[node] = leaf[0]
                leaf[0] += 1.0
                return y[node]
            values = [place(c) for c in kids]
            if node >= 0:
                y[node] = float(np.mean(values))
            return float(np.mean(values))

        root_y = place(-1) if n else 0.0
        x = tree.depth.astype(float)
        ax.scatter([0], [root_y], s=120, color=COLORS["baseline"], zorder=3)
        for i in range(n):
            px, py = (0.0, root_y) if tree.parents[i] < 0 else (x[tree.parents[i]], y[tree.parents[i]])
            ax.plot([px, x[i]], [py, y[i]], color="#999999", lw=0.8, zorder=1)
        ax.scatter(x, y, c=tree.path_probability, cmap="viridis", vmin=0, vmax=1, s=90, zorder=3)
        if n <= self.max_label:
            for i in range(n):
                ax.annotate(str(int(tree.rank[i])), (x[i], y[i]), ha="center", va="center", fontsize=7,
                            color="white")
        ax.invert_yaxis()
        ax.set_xticks(range(int(x.max()) + 1 if n else 1))
        ax.set_xlabel("depth (0 = the last accepted token)")
        ax.set_yticks([])
        ax.set_title(f"{n} nodes, E[L] = {tree.expected_tokens:.3f}", fontsize=9)
        self.key = key
        return key


def draw_tree(tree, axes=None, max_label=24):
    """A draft tree drawn by depth (left to right) and rank (top to bottom), nodes shaded by path probability.

    The chapter's explorer redraws this figure in place (:class:`TreeView`).

    Defined in chapter "Token trees".

    Parameters
    ----------
    tree : specdec.verification.trees.DraftTree
    axes : matplotlib Axes, optional
    max_label : int, optional
        Nodes up to this count get their rank written in.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return TreeView(tree, axes, max_label).figure

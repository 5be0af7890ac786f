"""Figures for Part IV: "Drafts in today's engines", "Verification rules", "Token trees",
"Dynamic speculation length" and "Throughput at a latency target".

Presentation only: every number drawn comes from :mod:`specdec.drafts.drafters`,
:mod:`specdec.verification`, :mod:`specdec.verification.trees`, :mod:`specdec.serving.dynamic`,
:mod:`specdec.serving.goodput` and :mod:`specdec.roofline.hardware`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize

from specdec.drafts.drafters import simulate_prompt_lookup, synthetic_copy_text
from specdec.roofline.hardware import draft_cost, step_time_parts
from specdec.serving.dynamic import compare_schedules, oracle_gain
from specdec.serving.goodput import goodput_curve
from specdec.verification.trees import best_tree_for_speedup

from .._validate import check_integer, check_probability
from ..verification import RULES, compare_rules, mean_acceptance
from ._style import COLORS, SEQUENCE, new_figure, nice_ceiling

__all__ = [
    "draft_round_costs",
    "prompt_lookup_vs_copy",
    "prompt_lookup_histogram",
    "PromptLookupView",
    "draft_cost_floor",
    "verification_rules_bars",
    "VerificationRulesView",
    "acceptance_vs_temperature",
    "tree_budget_curves",
    "draw_tree",
    "TreeView",
    "schedule_speedups",
    "ScheduleSpeedupsView",
    "oracle_gain_curves",
    "goodput_curves",
    "GoodputView",
]

_FAMILY_COLORS = {"head": COLORS["target"], "head + retrieval": COLORS["neutral"], "parallel heads": COLORS["verify"],
                  "n-gram": COLORS["draft"], "n-gram / retrieval": COLORS["accent"], "n-gram (Jacobi)": "#F0E442",
                  "separate small model": COLORS["overhead"], "multi-token prediction": "#000000"}


def _axes(axes, width=6.4, height=4.0, ncols=1):
    if axes is None:
        return new_figure(width, height, ncols=ncols)
    for ax in np.atleast_1d(axes):
        ax.clear()
    return np.atleast_1d(axes)[0].figure, axes


# --------------------------------------------------------------------------
# Drafts in today's engines
# --------------------------------------------------------------------------

#: Label offset (points) and alignment of methods whose default label would cover a neighbour's.
_LABEL_PLACES = {"PLD": ((-5, 0), "right", "center"), "REST": ((5, -6), "left", "center")}


def draft_round_costs(rows, speedups=(1.0, 1.5, 2.0, 2.5, 3.0), axes=None):
    """Published tokens per round against the implied round cost, one marker per method, iso-speedup lines.

    A method at ``(E[L], cost)`` has speedup ``E[L] / cost``: the dotted
    lines are constant speedup.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    rows : list of dict
        From :func:`specdec.drafts.drafters.draft_catalogue`.
    speedups : sequence of float, optional
        Iso-speedup lines drawn.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = _axes(axes, 6.6, 4.4)
    xs = np.array([r["mean_accepted_tokens"] for r in rows])
    x = np.linspace(1.0, xs.max() * 1.08, 50)
    top = max(2.1, max(r["implied_round_cost"] for r in rows) * 1.1)
    for s in speedups:
        ax.plot(x, x / s, color=COLORS["baseline"], lw=0.8, ls=":")
        xe = min(x[-1], 0.97 * top * s)   # label where the line leaves the plot
        ax.annotate(f"{s:g}x", (xe, xe / s), fontsize=7, color=COLORS["baseline"], ha="right", va="bottom")
    seen = set()
    for r in rows:
        fam = r["family"]
        ax.scatter([r["mean_accepted_tokens"]], [r["implied_round_cost"]], color=_FAMILY_COLORS.get(fam, "#999999"),
                   s=30, zorder=3, label=None if fam in seen else fam,
                   marker="s" if r["status"] != "verified" else "o")
        seen.add(fam)
        offset, ha, va = _LABEL_PLACES.get(r["method"], ((4, 3), "left", "baseline"))
        ax.annotate(r["method"], (r["mean_accepted_tokens"], r["implied_round_cost"]), textcoords="offset points",
                    xytext=offset, fontsize=7, ha=ha, va=va)
    ax.set_xlabel("published tokens per round E[L] (bonus token included)")
    ax.set_ylabel("implied round cost E[L] / speedup (plain steps)")
    ax.set_ylim(0.9, top)
    # lower right: below the 3x line, where no method sits (upper left hid the 1x label)
    ax.legend(fontsize=7, loc="lower right")
    return fig


def prompt_lookup_vs_copy(copy_probs, c_verify, *, mean_copy_length=20.0, n_tokens=8000, prompt_tokens=1000,
                          vocab=32000, max_ngram=3, num_pred=10, rng=0, axes=None):
    """Prompt lookup on synthetic text that repeats itself: tokens per round and speedup against the copy rate.

    Each point simulates :func:`specdec.drafts.drafters.simulate_prompt_lookup` on
    :func:`specdec.drafts.drafters.synthetic_copy_text` with that copy probability;
    the speedup prices every round with ``c_verify`` (a round without a
    match is a plain step).

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    copy_probs : sequence of float
        Probability of starting a copy at a position.
    c_verify : array_like, shape (num_pred,)
        Verification cost of ``j`` proposed tokens, entry ``j - 1``.
    mean_copy_length, n_tokens, prompt_tokens, vocab, max_ngram, num_pred, rng
        The synthetic text and the lookup (seeded).
    axes : pair of matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    cps = np.asarray(check_probability(copy_probs, "copy_probs"))
    fig, axes = _axes(axes, 9.0, 3.6, ncols=2)
    tokens, speed, match = [], [], []
    for i, cp in enumerate(cps):
        text = synthetic_copy_text(int(n_tokens), int(vocab), float(cp), float(mean_copy_length), rng=int(rng) + i)
        run = simulate_prompt_lookup(text, int(prompt_tokens), int(max_ngram), int(num_pred))
        tokens.append(run.tokens_per_round)
        speed.append(run.speedup(c_verify))
        match.append(run.match_rate)
    axes[0].plot(cps, tokens, marker="o", color=COLORS["draft"], label="tokens per round")
    axes[0].plot(cps, 1 + np.array(match), marker=".", ls="--", color=COLORS["baseline"],
                 label="1 + share of rounds with a match")
    axes[0].set_xlabel("copy probability of the text")
    axes[0].set_ylabel("tokens per round")
    axes[0].legend(fontsize=7)
    axes[1].plot(cps, speed, marker="o", color=COLORS["target"])
    axes[1].axhline(1.0, color=COLORS["baseline"], lw=1)
    axes[1].set_xlabel("copy probability of the text")
    axes[1].set_ylabel("speedup (c_d = 0, priced c_v)")
    axes[0].set_title(f"prompt lookup: n-grams up to {int(max_ngram)}, {int(num_pred)} proposed", fontsize=8)
    axes[1].set_title(f"copies of {mean_copy_length:g} tokens on average", fontsize=8)
    return fig


class PromptLookupView:
    """The figure of :func:`prompt_lookup_histogram`, updatable in place for its explorer.

    Bars for 0 to ``max_proposed`` accepted tokens are made once (those
    beyond a run's proposal length are hidden). :meth:`update` sets their
    heights and the title (``dynamic_artists``) and returns the key of the
    rest: the bars shown and the y limit.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    run : specdec.drafts.drafters.PromptLookupRun
    max_proposed : int, optional
        Most proposed tokens any later run will have (default: this run's).
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> text = np.tile(np.arange(20), 11)
    >>> view = sd.plots.PromptLookupView(sd.drafters.simulate_prompt_lookup(text, 40, num_pred=5))
    >>> view.ax.get_title()
    '30 rounds, 6.00 tokens per round'
    """

    def __init__(self, run, max_proposed=None, ax=None):
        n = int(run.proposed.max(initial=0)) if max_proposed is None else \
            int(check_integer(max_proposed, "max_proposed", minimum=0))
        self.figure, self.ax = _axes(ax, 6.4, 3.4)
        ax = self.ax
        self.matched = ax.bar(np.arange(n + 1), np.zeros(n + 1), color=COLORS["draft"], label="rounds with a match")
        self.unmatched = ax.bar([0], [0.0], color=COLORS["baseline"], label="rounds without a match (plain steps)")
        ax.set_xlabel("proposed tokens accepted in the round")
        ax.set_ylabel("rounds")
        ax.set_title(" ", fontsize=9)
        self.legend = ax.legend(fontsize=7, loc="upper right")
        self.key = None
        self.update(run)

    @property
    def dynamic_artists(self) -> list:
        """The bars, the title and the legend over them (the rest depends only on the key)."""
        return [*self.matched.patches, *self.unmatched.patches, self.ax.title, self.legend]

    def update(self, run):
        """Show ``run``; return ``(bars shown, y limit)``, the key of everything but the bars and title."""
        shown = int(run.proposed.max(initial=0))
        if shown >= len(self.matched.patches):
            raise ValueError(f"run proposes up to {shown} tokens; this view has bars up to "
                             f"{len(self.matched.patches) - 1}")
        counts = np.bincount(run.accepted, minlength=len(self.matched.patches))
        for i, (patch, height) in enumerate(zip(self.matched.patches, counts, strict=False)):
            patch.set_height(float(height))
            patch.set_visible(i <= shown)
        self.unmatched.patches[0].set_height(float((run.proposed == 0).sum()))
        self.ax.set_title(f"{run.n_rounds} rounds, {run.tokens_per_round:.2f} tokens per round", fontsize=9)
        top = nice_ceiling(max(float(counts.max()), 1.0) * 1.08)
        key = (shown, top)
        if key != self.key:
            self.ax.set_xlim(-0.7, shown + 0.7)
            self.ax.set_ylim(0, top)
            self.key = key
        return key


def prompt_lookup_histogram(run, axes=None):
    """How many proposed tokens each round of a prompt-lookup run accepted (0 includes rounds without a match).

    The chapter's explorer moves this figure in place (:class:`PromptLookupView`).

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    run : specdec.drafts.drafters.PromptLookupRun
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    return PromptLookupView(run, ax=axes).figure


def draft_cost_floor(drafts, target, hardware, context=512, axes=None):
    """c_draft against draft size on a hardware's ideal roofline and calibration: the fixed cost is a floor.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    drafts : sequence of specdec.roofline.hardware.Model
    target : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
        A calibrated GPU (its ideal roofline is drawn too).
    context : int, optional
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = _axes(axes, 6.4, 4.0)
    size = np.array([d.n_params for d in drafts])
    order = np.argsort(size)
    for hw, color, name in ((hardware.ideal(), COLORS["baseline"], "ideal roofline (lower bound)"),
                            (hardware, COLORS["target"], "calibrated")):
        cd = np.array([float(draft_cost(d, target, hw, 1, context)) for d in drafts])
        ax.plot(size[order], cd[order], marker="o", color=color, label=name)
        for d, c in zip(drafts, cd, strict=False):
            ax.annotate(d.name, (d.n_params, c), textcoords="offset points", xytext=(4, -10 if hw.is_ideal else 4),
                        fontsize=7, color=color)
    t0 = step_time_parts(target, hardware, 1, context)
    ax.axhline(float(t0["fixed"] / t0["total"]), color=COLORS["accent"], ls=":", lw=1,
               label="fixed cost / T0 (the floor)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("draft parameters")
    ax.set_ylabel("c_d (one draft step / one target step)")
    ax.set_title(f"target {target.name} on {hardware.name}, batch 1, context {int(context)}", fontsize=8)
    ax.legend(fontsize=7, loc="upper left")
    return fig


# --------------------------------------------------------------------------
# Verification rules
# --------------------------------------------------------------------------

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
        self.figure, self.ax = _axes(ax, 7.2, 3.8)
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
    fig, ax = _axes(axes, 6.4, 5.0)
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


# --------------------------------------------------------------------------
# Token trees
# --------------------------------------------------------------------------

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
    fig, axes = _axes(axes, 9.6, 3.6, ncols=2)
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
        self.figure, self.ax = _axes(ax, 6.4, 3.6)
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


# --------------------------------------------------------------------------
# Dynamic speculation length
# --------------------------------------------------------------------------

_POLICY_NAMES = {"fixed": "fixed k", "hf-heuristic": "HF heuristic (+2 / -1)",
                 "per-request-optimal": "best k per request", "oracle": "oracle"}


class ScheduleSpeedupsView:
    """The figure of :func:`schedule_speedups`, updatable in place for its explorer.

    One group of bars per workload, one bar per policy. :meth:`update` sets
    the bars and the title (``dynamic_artists``, with the line at 1 and
    the legend drawn over them) and returns the y limit, the key of the rest.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    results : dict
        Workload label -> the dict :func:`specdec.serving.dynamic.compare_schedules` returns.
    title : str, optional
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> import specdec as sd
    >>> alphas = sd.dynamic.beta_alphas(20, 0.7, 2.0, rng=0)
    >>> view = sd.plots.ScheduleSpeedupsView({"w": sd.dynamic.compare_schedules(alphas, 40, 0)})
    >>> len(view.dynamic_artists)
    7
    """

    def __init__(self, results, title=None, ax=None):
        labels = list(results)
        self.figure, self.ax = _axes(ax, 6.8, 4.0)
        ax = self.ax
        x = np.arange(len(labels))
        self.bars = {policy: ax.bar(x + (i - 1.5) * 0.2, np.zeros(len(labels)), 0.2, color=SEQUENCE[i],
                                    label=_POLICY_NAMES[policy]) for i, policy in enumerate(_POLICY_NAMES)}
        ax.set_xticks(x, labels, fontsize=8)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.set_ylabel("speedup over plain decoding")
        self.one = ax.axhline(1.0, color=COLORS["baseline"], lw=1)
        ax.set_title(" ", fontsize=9)
        self.legend = ax.legend(fontsize=7, ncol=2, loc="lower left")
        self.labels, self.key = labels, None
        self.update(results, title)

    @property
    def dynamic_artists(self) -> list:
        """The bars, the line at 1, the title and the legend."""
        return [p for bars in self.bars.values() for p in bars] + [self.one, self.ax.title, self.legend]

    def update(self, results, title=None):
        """Show ``results`` (the same workload labels); return the y limit."""
        if list(results) != self.labels:
            raise ValueError(f"results must have the workloads {self.labels}; got {list(results)}")
        for policy, bars in self.bars.items():
            for patch, label in zip(bars, self.labels, strict=False):
                patch.set_height(float(results[label][policy].speedup))
        self.ax.set_title(title or " ", fontsize=9)
        top = nice_ceiling(max(1.0, max(r[p].speedup for r in results.values() for p in self.bars)) * 1.1)
        if top != self.key:
            self.ax.set_ylim(0, top)
            self.key = top
        return top


def schedule_speedups(alpha_sets, n_tokens, *, k=5, start=20.0, k_max=64, c_draft=0.0, c_verify=1.0, rng=0,
                      axes=None):
    """Speedup of each draft-length policy on workloads whose acceptance spreads more and more.

    The chapter's explorer moves this figure in place (:class:`ScheduleSpeedupsView`).

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alpha_sets : dict
        Label -> per-request acceptance rates (e.g. :func:`specdec.serving.dynamic.beta_alphas`).
    n_tokens, k, start, k_max, c_draft, c_verify, rng
        As in :func:`specdec.serving.dynamic.compare_schedules`.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    results = {lab: compare_schedules(a, n_tokens, rng, k=k, start=start, k_max=k_max, c_draft=c_draft,
                                      c_verify=c_verify) for lab, a in alpha_sets.items()}
    return ScheduleSpeedupsView(results, ax=axes).figure


def oracle_gain_curves(alphas, cs, axes=None):
    """How much an oracle draft length beats the best fixed one, against alpha, one line per draft cost.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alphas : array_like
        Acceptance rates in [0, 1).
    cs : sequence of float
        Draft-to-target step ratios.
    axes : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    a = np.asarray(alphas, float)
    fig, ax = _axes(axes, 6.4, 3.8)
    for i, c in enumerate(cs):
        ax.plot(a, (np.asarray(oracle_gain(a, c)) - 1) * 100, color=SEQUENCE[i % len(SEQUENCE)], label=f"c = {c:g}")
    ax.axhline(60, color=COLORS["accent"], ls=":", lw=1, label="the paper's 'up to ~60%'")
    ax.set_xlabel("alpha")
    ax.set_ylabel("oracle over best fixed gamma (%)")
    ax.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------
# Throughput at a latency target
# --------------------------------------------------------------------------

class GoodputView:
    """The figure of :func:`goodput_curves`, updatable in place for its explorer.

    :meth:`update` moves the curves, the operating points and the target
    lines (``dynamic_artists``, with the legends over them) and returns
    the axis limits (snapped to round numbers), the key of the rest.

    Defined in chapter "Throughput at a latency target".

    Arguments as in :func:`goodput_curves`.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> h = sd.hardware
    >>> n = sd.goodput.output_lengths(200, 64, rng=1)
    >>> r = sd.goodput.compare_at_equal_latency(h.LLAMA_70B, h.LLAMA_8B, h.H100.scaled(8), 0.8, 5, 2048, 0.016, n)
    >>> view = sd.plots.GoodputView(r, np.linspace(0.012, 0.06, 9), 0.016)
    >>> view.key
    ((10.0, 100000.0), 80.0, 15000.0)
    """

    _SIDES = (("baseline", COLORS["target"], "plain decoding"), ("speculative", COLORS["draft"], "speculative"))

    def __init__(self, comparison, tpot_targets, tpot_target=None, axes=None):
        self.targets = np.asarray(tpot_targets, float)
        self.figure, axes = _axes(axes, 10.0, 3.8, ncols=2)
        self.axes = left, right = list(axes)
        self.curves, self.points, self.goodputs = {}, {}, {}
        for side, color, name in self._SIDES:
            (self.curves[side],) = left.plot([], [], color=color, label=name)
            (self.points[side],) = left.plot([], [], marker="o", color=color, ls="none")
            (self.goodputs[side],) = right.plot(self.targets * 1e3, np.zeros(self.targets.size), color=color,
                                                label=name)
        self.target_h = left.axhline(0.0, color=COLORS["accent"], ls=":", lw=1, label="TPOT target")
        self.target_v = right.axvline(0.0, color=COLORS["accent"], ls=":", lw=1)
        q = comparison.baseline_curve.quantile
        left.set_xlabel("throughput per replica (tokens/s)")
        left.set_ylabel(f"TPOT, p{q * 100:.0f} (ms)")
        left.set_xscale("log")
        right.set_xlabel(f"TPOT target, p{q * 100:.0f} (ms)")
        right.set_ylabel("goodput (tokens/s)")
        right.set_xlim(self.targets.min() * 1e3, self.targets.max() * 1e3)
        self.legends = [left.legend(fontsize=7, loc="upper left"), right.legend(fontsize=7, loc="upper left")]
        self.key = None
        self.update(comparison, tpot_target)

    @property
    def dynamic_artists(self) -> list:
        """Curves, points, target lines and the legends over them."""
        return [*self.curves.values(), *self.points.values(), *self.goodputs.values(), self.target_h, self.target_v,
                *self.legends]

    def update(self, comparison, tpot_target=None):
        """Show ``comparison`` (and the target line at ``tpot_target`` seconds); return the limits' key."""
        left, right = self.axes
        throughput, tpot, goodput = [], [], []
        for side, _, _ in self._SIDES:
            curve = getattr(comparison, f"{side}_curve")
            fits = curve.fits
            self.curves[side].set_data(curve.throughput[fits], curve.tpot[fits] * 1e3)
            g = getattr(comparison, side)
            self.points[side].set_data([g.throughput], [g.tpot * 1e3])
            self.points[side].set_visible(bool(g.feasible))
            values = np.asarray(goodput_curve(curve, self.targets), dtype=float)
            self.goodputs[side].set_ydata(values)
            throughput.append(curve.throughput[fits])
            tpot.append(curve.tpot[fits] * 1e3)
            goodput.append(values)
        shown = tpot_target is not None
        ms = float(tpot_target) * 1e3 if shown else 0.0
        self.target_h.set_ydata([ms, ms])
        self.target_v.set_xdata([ms, ms])
        self.target_h.set_visible(shown)
        self.target_v.set_visible(shown)
        x = np.concatenate(throughput)
        x = x[np.isfinite(x) & (x > 0)]
        lo, hi = (float(x.min()), float(x.max())) if x.size else (1.0, 10.0)
        decades = (float(10 ** np.floor(np.log10(lo))), float(10 ** np.ceil(np.log10(hi * 1.0001))))
        y = np.concatenate(tpot + [np.array([ms])])
        top_tpot = nice_ceiling(max(float(y.max()), 1e-3) * 1.05)
        top_goodput = nice_ceiling(max(float(np.concatenate(goodput).max()), 1.0) * 1.08)
        key = (decades, top_tpot, top_goodput)
        if key != self.key:
            left.set_xlim(*decades)
            left.set_ylim(0, top_tpot)
            right.set_ylim(0, top_goodput)
            self.key = key
        return key


def goodput_curves(comparison, tpot_targets, tpot_target=None, axes=None):
    """TPOT against throughput as the batch grows, and goodput against the TPOT target, with and without speculation.

    The chapter's explorer moves this figure in place (:class:`GoodputView`).

    Defined in chapter "Throughput at a latency target".

    Parameters
    ----------
    comparison : specdec.serving.goodput.EqualLatencyComparison
    tpot_targets : array_like
        Targets (seconds) for the right panel.
    tpot_target : float, optional
        The comparison's own target, drawn on both panels.
    axes : pair of matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    return GoodputView(comparison, tpot_targets, tpot_target, axes).figure

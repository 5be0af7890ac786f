"""Figures of draft methods: draft cost in the three arrangements, today's engines' drafts, prompt lookup.

Presentation only: every number drawn comes from :mod:`specdec.drafts`, :mod:`specdec.drafts.drafters`,
:mod:`specdec.economics` and :func:`specdec.roofline.hardware.draft_cost`; measured arrangements are
the cited table :func:`specdec.drafts.drafters.spec_bench_table` returns, passed in.
"""

from __future__ import annotations

import numpy as np

from specdec.drafts.drafters import simulate_prompt_lookup, synthetic_copy_text
from specdec.roofline.hardware import draft_cost, step_time_parts

from .. import drafts as _drafts
from .._validate import check_integer, check_probability
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, figure_axes, new_figure, nice_ceiling

__all__ = [
    "draft_size_tradeoff",
    "arrangement_thresholds",
    "arrangements_measured",
    "draft_round_costs",
    "prompt_lookup_vs_copy",
    "prompt_lookup_histogram",
    "PromptLookupView",
    "draft_cost_floor",
]


def draft_size_tradeoff(ks=(2, 4, 8), c_verify=1.0, alpha_ref=0.8, ratio_ref=0.1, draft_overhead=0.0,
                        marks=None, n_points=400):
    """Cost and (toy) acceptance of a separate draft model against its size, and the speedup they give.

    Left: ``c_draft = r + draft_overhead`` and the TOY acceptance curve
    :func:`specdec.drafts.toy_draft_alpha` against the size ratio ``r``
    (log axis). Right: the speedup :func:`specdec.drafts.separate_draft_speedup`
    for each ``k`` in ``ks``, with a dot at each curve's best size
    (:func:`specdec.drafts.optimal_draft_ratio`). ``marks`` draws labelled
    vertical lines at given ratios (e.g. real model pairs).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    ks : sequence of int, optional
        Draft counts, one curve each.
    c_verify, alpha_ref, ratio_ref, draft_overhead : float, optional
        As in :func:`specdec.drafts.separate_draft_speedup`.
    marks : dict, optional
        ``label -> size ratio`` to mark on both panels.
    n_points : int, optional
        Points on the size axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.draft_size_tradeoff(marks={"8B / 70B": 0.114})
    >>> len(fig.axes)
    2
    """
    r = np.logspace(-4, 0, int(n_points))
    alpha = _drafts.toy_draft_alpha(r, alpha_ref, ratio_ref)
    fig, (left, right) = new_figure(CONTENT_WIDTH, 3.6, ncols=2)
    left.plot(r, alpha, color=COLORS["verify"], lw=2, label=r"TOY acceptance $\alpha(r)$")
    left.plot(r, r + draft_overhead, color=COLORS["draft"], lw=2, label=r"draft cost $c_d = r$"
              + (f" + {draft_overhead:g}" if draft_overhead else ""))
    left.plot([ratio_ref], [alpha_ref], "o", color=COLORS["verify"], ms=6)
    left.set_xscale("log")
    left.set_ylim(0, 1.02)
    left.set_xlabel("draft size / target size, r")
    left.set_ylabel("fraction")
    left.set_title(f"toy model anchored at alpha = {alpha_ref:g} for r = {ratio_ref:g}", fontsize=10)
    left.legend(fontsize=8, frameon=False, loc="upper left")
    left.grid(alpha=0.3, which="both")
    top = 1.0
    for i, k in enumerate(ks):
        color = SEQUENCE[i % len(SEQUENCE)]
        s = _drafts.separate_draft_speedup(r, int(k), c_verify, alpha_ref, ratio_ref, draft_overhead)
        best_r, best_s = _drafts.optimal_draft_ratio(int(k), c_verify, alpha_ref, ratio_ref, draft_overhead,
                                                     ratios=r)
        right.plot(r, s, color=color, lw=2, label=f"k = {int(k)}: best r {best_r:.3f}, {best_s:.2f}x")
        right.plot([best_r], [best_s], "o", color=color, ms=6)
        top = max(top, best_s)
    right.axhline(1.0, color=COLORS["baseline"], lw=1)
    right.set_xscale("log")
    right.set_ylim(0, top * 1.4)                 # room for the legend above the curves
    right.set_xlabel("draft size / target size, r")
    right.set_ylabel("speedup")
    right.set_title(f"speedup with c_verify = {c_verify:g}", fontsize=10)
    right.legend(fontsize=8, frameon=False, loc="upper left")
    right.grid(alpha=0.3, which="both")
    for label, ratio in (marks or {}).items():
        for ax in (left, right):
            ax.axvline(ratio, color=COLORS["baseline"], lw=0.8, ls=":")
        right.text(ratio, 0.05 * top, f" {label}", rotation=90, fontsize=8, color=COLORS["baseline"], va="bottom")
    return fig


def arrangement_thresholds(arrangements, k_max=None):
    """Break-even alpha and achieved (equivalent) alpha against k, for several arrangements.

    Left: for each :class:`specdec.drafts.DraftArrangement`, its break-even
    alpha at each ``k`` (solid) and the constant alpha that yields the same
    E[L] as its per-position rates (dashed, markers,
    :func:`specdec.drafts.equivalent_alpha`): where the dashed line is above
    the solid one of the same colour, that arrangement is a net saving.
    Right: the resulting speedup against ``k``, best ``k`` ringed.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    arrangements : sequence of specdec.drafts.DraftArrangement
    k_max : int, optional
        Largest ``k`` shown (default: the largest ``k_max`` of the arrangements;
        each arrangement is drawn up to its own ``k_max``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> arr = [sd.drafts.DraftArrangement("a", 0.1, (0.8,) * 6), sd.drafts.DraftArrangement("b", 0.0, (0.6, 0.4, 0.3))]
    >>> len(sd.plots.arrangement_thresholds(arr).axes)
    2
    """
    arrangements = list(arrangements)
    km = max(a.k_max for a in arrangements) if k_max is None else int(k_max)
    fig, (left, right) = new_figure(CONTENT_WIDTH, 4.2, ncols=2)
    top = 1.0
    for i, arr in enumerate(arrangements):
        color = SEQUENCE[i % len(SEQUENCE)]
        ks = np.arange(1, min(arr.k_max, km) + 1)
        be = np.asarray(arr.break_even_alpha(ks), dtype=float)
        eq = np.array([arr.equivalent_alpha(int(k)) for k in ks])
        left.plot(ks, be, "-", color=color, lw=2)
        left.plot(ks, eq, "--", marker="o", ms=4, color=color, lw=1.2)
        s = np.asarray(arr.speedup(ks), dtype=float)
        right.plot(ks, s, "-o", ms=4, color=color, lw=2, label=arr.name)
        best = int(ks[np.argmax(s)])
        right.plot([best], [s[best - 1]], "o", mfc="none", mec="black", ms=11, mew=1.5)
        top = max(top, float(s.max()))
    for ax in (left, right):
        ax.xaxis.get_major_locator().set_params(integer=True)
    left.set_xlim(1, km)
    left.set_ylim(0, 1.02)
    left.set_xlabel("k (drafts per round)")
    left.set_ylabel(r"acceptance rate $\alpha$")
    left.set_title("threshold (solid) vs what the draft\nachieves (dashed)", fontsize=9)
    from matplotlib.lines import Line2D

    styles = [Line2D([], [], color="black", lw=2, label=r"break-even $\alpha$ (left)"),
              Line2D([], [], color="black", lw=1.2, ls="--", marker="o", ms=4,
                     label=r"achieved (equivalent) $\alpha$ (left)")]
    left.grid(alpha=0.3)
    right.axhline(1.0, color=COLORS["baseline"], lw=1)
    right.set_xlim(1, km)
    right.set_ylim(0, top * 1.12)
    right.set_xlabel("k (drafts per round)")
    right.set_ylabel("speedup")
    right.set_title("speedup (best k ringed)", fontsize=9)
    right.grid(alpha=0.3)
    # one legend under both panels: the two line styles, then one colour per arrangement
    fig.legend(handles=styles + right.get_lines()[: 2 * len(arrangements): 2], fontsize=8, frameon=False,
               loc="outside lower center", ncols=2)
    return fig


def arrangements_measured(table, families, highlight=None):
    """Speedup and tokens per step of the draft arrangements measured on one setup.

    Top: the overall speedup of each method (horizontal bars, leaderboard
    order), coloured by its arrangement. Bottom: the same methods placed by
    their mean accepted tokens per target forward pass (bonus token
    included) and the round cost those two numbers imply, in plain decode
    steps (tokens per step divided by speedup).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    table : dict
        As returned by :func:`specdec.drafts.drafters.spec_bench_table`.
    families : dict
        ``method -> arrangement label``; methods not listed are drawn as
        "other".
    highlight : sequence of str, optional
        Methods whose labels are drawn in bold.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import specdec as sd
    >>> fig = sd.plots.arrangements_measured(sd.drafters.spec_bench_table(), {"SpS": "separate draft model"})
    >>> len(fig.axes)
    2
    """
    methods = list(table["method"])
    speed = np.asarray(table["speedup"], dtype=float)
    tokens = np.asarray(table["mean_accepted_tokens"], dtype=float)
    cost = np.asarray(table["implied_round_cost"], dtype=float)
    labels = [families.get(m, "other") for m in methods]
    order = list(dict.fromkeys(labels))
    color_of = {lab: SEQUENCE[i % len(SEQUENCE)] for i, lab in enumerate(order)}
    bold = set(highlight or ())
    fig, (top, bottom) = new_figure(7.4, 8.6, nrows=2, gridspec_kw={"height_ratios": [1.0, 1.1]})
    y = np.arange(len(methods))[::-1]
    top.barh(y, speed, color=[color_of[lab] for lab in labels], alpha=0.85, height=0.7)
    for yi, s, m in zip(y, speed, methods, strict=False):
        top.text(s + 0.03, yi, f"{s:.2f}x", va="center", fontsize=10, fontweight="bold" if m in bold else "normal")
    top.set_yticks(y)
    top.set_yticklabels(methods, fontsize=10)
    for tick, m in zip(top.get_yticklabels(), methods, strict=False):
        if m in bold:
            tick.set_fontweight("bold")
    top.axvline(1.0, color=COLORS["baseline"], lw=1)
    top.set_xlim(0, speed.max() * 1.45)
    top.set_xlabel("overall speedup over plain decoding", fontsize=10)
    top.grid(alpha=0.3, axis="x")
    for lab in order:
        top.barh([np.nan], [np.nan], color=color_of[lab], label=lab)
    top.legend(fontsize=9.5, frameon=False, loc="lower right")
    offsets = {}
    for t, c, m, lab in zip(tokens, cost, methods, labels, strict=False):
        bottom.plot([t], [c], "o", color=color_of[lab], ms=9)
        near = [n for n, (t2, c2) in offsets.items() if abs(t2 - t) < 0.35 and abs(c2 - c) < 0.04]
        dy = -13 if near else 5
        offsets[m] = (t, c)
        bottom.annotate(m, (t, c), xytext=(6, dy), textcoords="offset points", fontsize=10,
                        fontweight="bold" if m in bold else "normal")
    bottom.set_xlabel("mean accepted tokens per target pass (bonus token included)", fontsize=10)
    bottom.set_ylabel("implied round cost (plain decode steps)", fontsize=10)
    bottom.set_xlim(1.0, tokens.max() * 1.22)
    bottom.set_ylim(min(1.0, cost.min()) - 0.05, cost.max() * 1.08)
    bottom.axhline(1.0, color=COLORS["baseline"], lw=0.8, ls=":")
    bottom.tick_params(labelsize=9.5)
    top.tick_params(axis="x", labelsize=9.5)
    bottom.grid(alpha=0.3)
    return fig


_FAMILY_COLORS = {"head": COLORS["target"], "head + retrieval": COLORS["neutral"], "parallel heads": COLORS["verify"],
                  "n-gram": COLORS["draft"], "n-gram / retrieval": COLORS["accent"], "n-gram (Jacobi)": "#F0E442",
                  "separate small model": COLORS["overhead"], "multi-token prediction": "#000000"}


# today's draft methods: round costs, prompt lookup, the draft-cost floor

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
    fig, ax = figure_axes(axes, 6.6, 4.4)
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
    fig, axes = figure_axes(axes, 9.0, 3.6, ncols=2)
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
        self.figure, self.ax = figure_axes(ax, 6.4, 3.4)
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
    fig, ax = figure_axes(axes, 6.4, 4.0)
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

"""Explorers of draft methods: prompt lookup on a text that copies from its prompt.

Presentation only: the numbers come from :func:`specdec.drafts.drafters.prompt_lookup_run`; the figure
is :class:`specdec.plots.PromptLookupView`, moved in place.
"""

from __future__ import annotations

import numpy as np

from specdec.drafts.drafters import prompt_lookup_run
from specdec.roofline.hardware import A100, verify_cost

from .. import calibration as cal
from .._validate import check_integer, check_positive, check_probability
from ..plots.drafts import PromptLookupView
from ._base import Explorer, float_slider, int_slider

__all__ = [
    "PromptLookupExplorer",
    "prompt_lookup_explorer",
]


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

"""Explorer for "Expected tokens per round" (Part I, chapter 1).

Presentation only: the numbers come from ``specdec`` (``expected_tokens``,
``accepted_tokens_pmf``) and the figure from
:class:`specdec.plots.ExpectedTokensOverview`. A headline explorer: live in
the HTML book through ``specdec-live.js``.
"""

from __future__ import annotations

from .._validate import check_integer, check_probability
from ..acceptance import accepted_tokens_pmf, expected_tokens
from ..plots.acceptance import ExpectedTokensOverview
from ._base import Explorer, float_slider, int_slider

__all__ = ["ExpectedTokensExplorer", "expected_tokens_explorer"]


class ExpectedTokensExplorer(Explorer):
    """Sliders for alpha and k; shows E[L], the distribution of L and the next draft's gain.

    ``values`` holds the numbers of the last update (a dict with keys
    ``alpha``, ``k``, ``expected_tokens``, ``pmf`` (of the accepted drafts
    ``N = L - 1``), ``ceiling`` (k + 1), ``fraction_of_ceiling``,
    ``p_all_accepted`` (alpha**k) and ``next_draft_gain``
    (E[L](k+1) - E[L](k))), so tests and readers can check them against
    ``specdec``.

    Defined in chapter "Expected tokens per round".
    """

    name = "expected-tokens"
    title = "Expected tokens explorer"
    live = True

    def __init__(self, alpha: float = 0.8, k: int = 5, k_max: int = 12):
        a = float(check_probability(alpha, "alpha"))
        self.k_max = int(check_integer(k_max, "k_max", minimum=2, maximum=64))
        kk = int(check_integer(k, "k", minimum=1, maximum=self.k_max))
        self.alpha_slider = float_slider(a, 0.0, 1.0, 0.01, "alpha")
        self.k_slider = int_slider(kk, 1, self.k_max, "k (drafts per round)")
        self.view = ExpectedTokensOverview(a, kk, self.k_max)
        super().__init__({"alpha": self.alpha_slider, "k": self.k_slider}, figure=self.view.figure,
                         dynamic=self.view.dynamic_artists)

    def compute(self, state=None) -> dict:
        """The numbers for the slider values (or ``state``), from specdec; no drawing."""
        s = self.state(state)
        a, k = s["alpha"], s["k"]
        tokens = expected_tokens(a, k)
        pmf = accepted_tokens_pmf(a, k)
        return {
            "alpha": a,
            "k": k,
            "expected_tokens": tokens,
            "pmf": pmf,
            "ceiling": k + 1,
            "fraction_of_ceiling": tokens / (k + 1),
            "p_all_accepted": float(pmf[-1]),
            "next_draft_gain": expected_tokens(a, k + 1) - tokens,
        }

    def rows(self, v) -> list:
        return [
            ("expected_tokens", "expected tokens per round, E[L]", f"{v['expected_tokens']:.4f}"),
            ("ceiling", "ceiling k + 1 (every draft accepted)", f"{v['ceiling']}"),
            ("fraction_of_ceiling", "E[L] as a fraction of the ceiling", f"{v['fraction_of_ceiling']:.1%}"),
            ("p_all_accepted", "P(all k drafts accepted) = alpha^k", f"{v['p_all_accepted']:.4f}"),
            ("next_draft_gain", "tokens gained by one more draft (k -> k+1)", f"{v['next_draft_gain']:.4f}"),
        ]

    def draw(self, v):
        self.view.update(v["alpha"], v["k"])
        return self.view.limits_key

    def alt_text(self, v) -> str:
        return (f"Left: bar chart of the distribution of L, the tokens one round emits, at alpha {v['alpha']:.2f} "
                f"and k {v['k']}; the last bar, every draft accepted, has probability {v['p_all_accepted']:.3f}; "
                f"a dashed line marks E[L] = {v['expected_tokens']:.2f}. Right: E[L] against k from 1 to "
                f"{self.k_max} under the ceiling k + 1, k = {v['k']} circled, and an arrow: one more draft adds "
                f"{v['next_draft_gain']:.3f} tokens.")

    def live_constants(self) -> dict:
        return {"k_max": self.k_max}


def expected_tokens_explorer(alpha: float = 0.8, k: int = 5, k_max: int = 12) -> ExpectedTokensExplorer:
    """Interactive E[L] explorer: alpha and k sliders, the distribution of L, the next draft's gain.

    Defaults equal the chapter's static figure (alpha = 0.8, k = 5). Live in
    the HTML book (no kernel needed there).

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    alpha : float, optional
        Initial acceptance rate in [0, 1]. Default 0.8.
    k : int, optional
        Initial draft length, whole number in [1, k_max]. Default 5.
    k_max : int, optional
        Largest k on the slider and the figure, in [2, 64]. Default 12.

    Returns
    -------
    ExpectedTokensExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.expected_tokens_explorer()
    >>> round(w.values["expected_tokens"], 4)
    3.6893
    >>> w.k_slider.value = 6
    >>> round(w.values["expected_tokens"], 4)
    3.9514
    """
    return ExpectedTokensExplorer(alpha=alpha, k=k, k_max=k_max)

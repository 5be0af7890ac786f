"""Explorers of the decision: ``decide`` for a service's measurements, and the decision checklist.

Presentation only. The decide explorer runs :func:`specdec.decision.decide` for its sliders and shows
its verdict, key figures and figure (:func:`specdec.plots.decision_figure`, redrawn for each
setting). The checklist explorer applies :func:`specdec.decision.checklist.assess`; it is a headline
explorer, live in the HTML book through ``specdec-live.js``, which applies the same rules with the
thresholds it reads from the explorer's configuration
(:data:`specdec.decision.policy.CHECKLIST_THRESHOLDS`, :data:`specdec.decision.policy.WORTH_IT_SPEEDUP`).
"""

from __future__ import annotations

import math

from specdec.decision import checklist as _wl
from specdec.decision import policy as _policy

from .. import decision as _decision
from .._validate import check_integer, check_positive
from ..decision import TIME_TOLERANCE
from ..plots import new_figure
from ..plots.decision import decision_figure
from ._base import Explorer, float_slider, int_slider, refusal_rows, table_html
from ._domain import step_above_tpot, verify_below_step

__all__ = [
    "DecideExplorer",
    "decide_explorer",
    "ChecklistExplorer",
    "checklist_explorer",
    "checklist_html",
]


def _ms(value, name):
    """A time in ms from a number (ms) or a string with a unit."""
    return float(_decision.parse_time(value, name, "ms"))


class DecideExplorer(Explorer):
    """Sliders for the measured acceptance and times; shows decide's verdict and figure live.

    ``values`` holds the control values (ms; ``t_verify_<k>`` per measured
    k), the ``decision`` (the report of :func:`specdec.decision.decide`) and
    its ``verdict``, ``alpha``, ``speedup``, ``best_k``, ``best_speedup``,
    ``break_even_alpha``, ``margin`` and ``warnings``; ``decision`` is the
    report of the last valid update (``None`` after an invalid one).

    The model's domain: a verification time below ``t0`` at a measured k,
    or a ``t0`` more than ``specdec.decision.TIME_TOLERANCE`` (5 %) above
    ``tpot_off``, is refused with a warning instead of a verdict (``decide``
    itself reports them as warnings of a measurement).

    Defined in chapter "Decide for your service".
    """

    name = "decide"
    title = "Decision explorer"

    def __init__(self, t0="12ms", t_draft_step="1.1ms", t_verify=None, k=4, mean_acceptance_length=3.3,
                 num_drafts=12_000, t_overhead="0ms", tpot_off=None, tpot_on=None):
        self.k = int(check_integer(k, "k", minimum=1, maximum=16))
        tv = {self.k: "14ms"} if t_verify is None else t_verify
        if not isinstance(tv, dict) or not tv:
            raise TypeError("t_verify must be a dict {k: time} with at least one measured k")
        length = float(check_positive(mean_acceptance_length, "mean_acceptance_length", "(tokens per round)"))
        if not 1.0 <= length <= self.k + 1:
            raise ValueError(f"mean_acceptance_length must be in [1, k + 1] = [1, {self.k + 1}]; got {length:g}")
        self.num_drafts = None if num_drafts is None else float(check_positive(num_drafts, "num_drafts", "(rounds)"))
        self.tpot = None if tpot_off is None else (tpot_off, tpot_on)
        wide = {"label_width": "14em", "width": "28em"}
        controls = {
            "mean_acceptance_length": float_slider(length, 1.0, self.k + 1.0, 0.01,
                                                   f"acceptance length (k = {self.k})", **wide),
            "t0": float_slider(_ms(t0, "t0"), 1.0, 60.0, 0.1, "t0, target step (ms)", **wide),
            "t_draft_step": float_slider(_ms(t_draft_step, "t_draft_step"), 0.0, 10.0, 0.05, "draft step (ms)",
                                         **wide),
            "t_overhead": float_slider(_ms(t_overhead, "t_overhead"), 0.0, 10.0, 0.1, "overhead per round (ms)",
                                       **wide),
        }
        for kk in sorted(tv):
            controls[f"t_verify_{kk}"] = float_slider(_ms(tv[kk], f"t_verify at k = {kk}"), 1.0, 120.0, 0.1,
                                                      f"verification at k = {kk} (ms)", **wide)
        fig, self.axes = new_figure(6.4, 7.0, nrows=2)
        super().__init__(controls, columns=[list(controls)], figure=fig)

    @property
    def decision(self):
        """The report of the last valid update (``None`` after an invalid setting)."""
        return self.values.get("decision")

    def domain(self, state) -> list:
        refused = []
        if self.tpot is not None:
            tpot_off = _ms(self.tpot[0], "tpot_off")
            refused.append(step_above_tpot(state["t0"], tpot_off, _decision.TIME_TOLERANCE, step="t0",
                                           tpot_name="tpot_off"))
        for key in self.controls:
            if key.startswith("t_verify_"):
                kk = int(key.rsplit("_", 1)[1])
                refused.append(verify_below_step(state[key], state["t0"], kk, verify=f"verification at k = {kk}",
                                                 step="t0"))
        return [r for r in refused if r]

    def _inputs(self, v) -> dict:
        tv = {int(key.rsplit("_", 1)[1]): t for key, t in v.items() if key.startswith("t_verify_")}
        inputs = dict(t0=v["t0"], t_draft_step=v["t_draft_step"], t_verify=tv, t_overhead=v["t_overhead"], k=self.k)
        length = v["mean_acceptance_length"]
        if self.num_drafts is None:
            inputs["mean_acceptance_length"] = length
        else:
            n = self.num_drafts
            inputs["counters"] = (n, n * self.k, (length - 1.0) * n)
        if self.tpot is not None:
            inputs.update(tpot_off=self.tpot[0], tpot_on=self.tpot[1])
        return inputs

    def compute(self, state=None) -> dict:
        """decide's report for the sliders (or ``state``); raises its ValueError for invalid measurements."""
        v = self.state(state)
        d = _decision.decide(**self._inputs(v))
        v.update(decision=d, verdict=d.verdict, alpha=d.alpha, speedup=d.speedup, best_k=d.best_k,
                 best_speedup=d.best_speedup, break_even_alpha=d.break_even_alpha, margin=d.margin,
                 warnings=list(d.warnings))
        return v

    def rows(self, v) -> list:
        d = v["decision"]
        none = math.isnan(d.break_even_alpha)
        rows = [("verdict", "verdict", d.verdict), ("alpha", "alpha", f"{d.alpha:.3f}"),
                ("speedup", f"speedup at k = {d.k}", f"{d.speedup:.2f}x"),
                ("best_k", "best k", f"{d.best_k} ({d.best_speedup:.2f}x)"),
                ("break_even_alpha", f"break-even alpha at k = {d.k}", "none" if none else f"{d.break_even_alpha:.3f}"),
                ("margin", "margin", "" if none else f"{d.margin:+.3f}"),
                ("warnings", "warnings", str(len(d.warnings)))]
        if d.alpha_interval is not None:
            rows.insert(2, ("alpha_interval", f"{d.confidence:.0%} interval",
                            f"{d.alpha_interval[0]:.3f} .. {d.alpha_interval[1]:.3f}"))
        return rows + [(f"warning_{i}", f"warning {i}", w) for i, w in enumerate(d.warnings, 1)]

    def draw(self, v):
        decision_figure(v["decision"], axes=self.axes)
        return tuple(v[name] for name in self.controls)

    def alt_text(self, v) -> str:
        d = v["decision"]
        return (f"Top: speedup against k under the measured verification times, k = {d.k} marked at "
                f"{d.speedup:.2f}x, the best k = {d.best_k} at {d.best_speedup:.2f}x, with the break-even and "
                f"worth-it lines. Bottom: speedup at k = {d.k} against alpha, the measured alpha {d.alpha:.3f} "
                f"marked. Verdict: {d.verdict}.")


def decide_explorer(t0="12ms", t_draft_step="1.1ms", t_verify=None, k=4, mean_acceptance_length=3.3,
                    num_drafts=12_000, t_overhead="0ms", tpot_off=None, tpot_on=None) -> DecideExplorer:
    """Interactive :func:`specdec.decision.decide`: sliders for the measurements, the verdict and figure live.

    Its defaults are the chapter's worked example, so the first view equals
    the figure beside it. With ``num_drafts`` the acceptance is passed as
    counters of that many rounds (so the report has an interval); with
    ``num_drafts=None`` as a mean acceptance length.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    t0, t_draft_step, t_overhead : float or str, optional
        Target step, one draft step and per-round overhead (ms, or strings with a unit).
    t_verify : dict, optional
        ``{k: time}`` of measured verification passes (one slider each). Default ``{k: "14ms"}``.
    k : int, optional
        Draft length at which acceptance was measured, 1 to 16. Default 4.
    mean_acceptance_length : float, optional
        Starting mean acceptance length, in [1, k + 1]. Default 3.3.
    num_drafts : float or None, optional
        Rounds behind the acceptance (for the interval), > 0. Default 12,000.
    tpot_off, tpot_on : str, optional
        Measured TPOTs without and with speculation (fixed; checked by decide).

    Returns
    -------
    DecideExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.decide_explorer(t_verify={2: "13.1ms", 4: "14ms", 6: "15.1ms"})
    >>> w.decision.verdict, w.decision.k
    ('speculate', 4)
    """
    return DecideExplorer(t0, t_draft_step, t_verify, k, mean_acceptance_length, num_drafts, t_overhead, tpot_off,
                          tpot_on)


def _rows(a) -> list:
    """The read-out of an assessment: one row per check, then the speedups and the verdict."""
    rows = [(f"check-{c.key}", c.question, f"{'pass' if c.passed else 'FAIL'}: {c.reason}") for c in a.checks]
    n_star = a.break_even_output_length
    rows += [
        ("expected_tokens", "E[L] (tokens per round)", f"{a.expected_tokens:.3f}"),
        ("speedup", f"exact speedup T0 E[L] / T_round (rule: {a.worth_it_threshold:g})", f"{a.speedup:.3f}"),
        ("quick_estimate", "the source's quick estimate", f"{a.quick_estimate:.3f}"),
        ("request_speedup", "whole-request speedup (TTFT and setup included)", f"{a.request_speedup:.3f}"),
        ("break_even_output_length", "speculation pays off above (output tokens)",
         "never" if n_star == float("inf") else f"{n_star:.1f}"),
        ("verdict", "verdict", a.verdict),
    ]
    return rows


def _refused(w) -> list:
    """The checklist's domain: T0 no longer than the TPOT it is measured from, T_verify no shorter than T0."""
    u = w.time_unit
    return [r for r in (step_above_tpot(w.t0, w.tpot, TIME_TOLERANCE, u),
                        verify_below_step(w.t_verify, w.t0, w.k, u)) if r]


def checklist_html(**values) -> str:
    """The checklist explorer's read-out, as HTML, for the given :class:`specdec.decision.checklist.Workload` fields.

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    **values
        Keyword arguments of :class:`specdec.decision.checklist.Workload`.

    Returns
    -------
    str
        The assessment's checks, speedups and verdict as an HTML table (an
        error message naming the field if the inputs are invalid; the
        warnings instead of a verdict where the model forbids them, as the
        explorer shows).

    Examples
    --------
    >>> import specdec as sd
    >>> from dataclasses import asdict
    >>> "<table" in sd.widgets.checklist_html(**asdict(sd.checklist.EXAMPLES["chat"]))
    True
    """
    try:
        w = _wl.Workload(**values)
        refused = _refused(w)
        return table_html(refusal_rows([text for _, text in refused]) if refused else _rows(_wl.assess(w)))
    except (ValueError, TypeError) as exc:
        return f"<p style='color:#D55E00'>{exc}</p>"


class ChecklistExplorer(Explorer):
    """A slider for every field of a workload; the read-out is :func:`specdec.decision.checklist.assess` on it.

    ``values`` holds the last update's ``assessment`` (a
    :class:`specdec.decision.checklist.Assessment`), its ``verdict``,
    ``expected_tokens``, ``speedup``, ``quick_estimate``,
    ``request_speedup``, ``break_even_output_length`` and ``passed`` (check
    key -> bool), with the slider values.

    The model's domain: a T0 more than ``TIME_TOLERANCE`` (5 %) above the
    TPOT it is measured from, or a T_verify below T0, is refused with a
    warning instead of the checks and the verdict.

    Defined in chapter "The decision checklist".
    """

    name = "checklist"
    title = "Decision checklist explorer"
    live = True

    def __init__(self, workload=None):
        w = _wl.EXAMPLES["chat"] if workload is None else workload
        if not isinstance(w, _wl.Workload):
            raise TypeError(f"workload must be a specdec.decision.checklist.Workload, got {type(w).__name__}")
        u = w.time_unit
        self.fixed = {"time_unit": w.time_unit, "name": w.name}
        wide = {"label_width": "12em", "width": "31em"}

        def fslider(value, lo, hi, step, text):
            return float_slider(value, lo, hi, step, text, ".4g", **wide)     # no exponent up to 9,999

        controls = {
            "ttft": fslider(w.ttft, 1.0, 5000.0, 1.0, f"TTFT ({u})"),
            "tpot": fslider(w.tpot, 0.5, 100.0, 0.1, f"TPOT ({u})"),
            "batch": int_slider(w.batch, 1, 256, "batch", **wide),
            "alpha": fslider(w.alpha, 0.0, 1.0, 0.01, "alpha"),
            "k": int_slider(w.k, 1, 16, "k (drafts per round)", **wide),
            "t0": fslider(w.t0, 0.5, 100.0, 0.1, f"T0 ({u})"),
            "t_draft": fslider(w.t_draft, 0.0, 100.0, 0.1, f"T_draft, round ({u})"),
            "t_verify": fslider(w.t_verify, 0.5, 200.0, 0.1, f"T_verify ({u})"),
            "t_overhead": fslider(w.t_overhead, 0.0, 20.0, 0.1, f"T_overhead ({u})"),
            "mean_output_tokens": fslider(w.mean_output_tokens, 1.0, 2000.0, 1.0, "mean output (tokens)"),
            "t_setup": fslider(w.t_setup, 0.0, 200.0, 0.5, f"setup ({u})"),
        }
        super().__init__(controls)

    def domain(self, state) -> list:
        return _refused(_wl.Workload(**state, **self.fixed))

    def compute(self, state=None) -> dict:
        """The assessment for the slider values (or ``state``), from :func:`specdec.decision.checklist.assess`."""
        s = self.state(state)
        a = _wl.assess(_wl.Workload(**s, **self.fixed))
        return {**s, "assessment": a, "verdict": a.verdict, "expected_tokens": a.expected_tokens,
                "speedup": a.speedup, "quick_estimate": a.quick_estimate, "request_speedup": a.request_speedup,
                "break_even_output_length": a.break_even_output_length,
                "passed": {c.key: c.passed for c in a.checks}}

    def rows(self, v) -> list:
        return _rows(v["assessment"])

    def live_constants(self) -> dict:
        return {"thresholds": dict(_policy.CHECKLIST_THRESHOLDS), "worth_it": _policy.WORTH_IT_SPEEDUP,
                "t0_tolerance": TIME_TOLERANCE, **self.fixed}


def checklist_explorer(workload=None) -> ChecklistExplorer:
    """Sliders for every field of a workload, showing the checklist assessment live.

    Defaults equal ``workload`` (the chapter's "chat assistant" example when
    omitted), so the first view matches the static table beside it. Live in
    the HTML book (no kernel needed there).

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    workload : specdec.decision.checklist.Workload, optional
        Starting values. Default ``specdec.decision.checklist.EXAMPLES["chat"]``.

    Returns
    -------
    ChecklistExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> box = sd.widgets.checklist_explorer()
    >>> box.values["verdict"] == sd.checklist.assess(sd.checklist.EXAMPLES["chat"]).verdict
    True
    """
    return ChecklistExplorer(workload)

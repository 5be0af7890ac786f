"""The decision checklist, live (Part I, chapter 5). Presentation only: :func:`specdec.decision.checklist.assess` decides.

A headline explorer: live in the HTML book through ``specdec-live.js``,
which applies the same rules with the thresholds it reads from the
explorer's configuration (:data:`specdec.decision.policy.CHECKLIST_THRESHOLDS`,
:data:`specdec.decision.policy.WORTH_IT_SPEEDUP`).
"""

from __future__ import annotations

from specdec.decision import checklist as _wl
from specdec.decision import policy as _policy

from ..decision import TIME_TOLERANCE
from ._base import Explorer, float_slider, int_slider, refusal_rows, table_html
from ._domain import step_above_tpot, verify_below_step

__all__ = ["ChecklistExplorer", "checklist_explorer", "checklist_html"]


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

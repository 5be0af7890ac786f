"""The deployment checklist: should this workload speculate?

:func:`assess` applies the first source's five-question checklist to a measured :class:`Workload`
and returns every check with pass/fail and the reason, next to the exact speedup, the source's
quick estimate and the whole-request figures of :mod:`specdec.economics.request`. Times of one
workload share one unit (only ratios enter); ``t_draft`` is a whole round's drafting; decode time is
``tpot * (mean_output_tokens - 1)``. For what engines print, use :func:`specdec.decision.decide`,
which gives the same speedup and ``worth_it`` answer where the inputs overlap.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field, fields
from typing import Any

from specdec._validate import (
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_scalar,
    describe,
)
from specdec.acceptance import _expected_tokens_array
from specdec.decision.policy import CHECKLIST_THRESHOLDS, WORTH_IT_SPEEDUP
from specdec.economics import WORKED_EXAMPLE, _costs_from_times, _quick_estimate, _speedup, round_time
from specdec.economics.request import _break_even_output_length, _decode_time, _request_speedup
from specdec.tables import Table

__all__ = [
    "Workload",
    "Check",
    "Assessment",
    "AssessmentTable",
    "assess",
    "assessment_table",
    "EXAMPLES",
]

@dataclass(frozen=True, kw_only=True)
class Workload:
    """A measured serving workload, the input of :func:`assess`.

    Every argument is keyword-only and validated; times share one unit.

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    ttft : float
        Time to first token of a request (prefill + first token), > 0.
    tpot : float
        Time per output token after the first, without speculation, > 0.
    batch : int
        Concurrent sequences in a decode step, whole number >= 1.
    alpha : float
        Measured per-position acceptance rate, in [0, 1].
    k : int
        Draft tokens per round, whole number >= 1.
    t0 : float
        One target decode step at this batch, > 0 (usually close to ``tpot``).
    t_draft : float
        Draft time of one round, all ``k`` draft steps together, >= 0.
    t_verify : float
        The target's verification pass over the ``k + 1`` positions, > 0.
    t_overhead : float, optional
        Per-round sampling, acceptance test and KV rollback, >= 0. Default 0.
    mean_output_tokens : float
        Mean number of output tokens per request, >= 1 (a mean, so it need
        not be whole).
    t_setup : float, optional
        Fixed per-request cost of speculation, paid once (for example the
        draft model's prefill of the prompt), >= 0. Default 0.
    time_unit : str, optional
        Name of the time unit, used only in messages. Default ``"ms"``.
    name : str, optional
        Label shown in tables.

    Examples
    --------
    The first source's worked example (70B target, 8B draft, times in ms),
    with a TTFT and an output length of our choosing:

    >>> import specdec as sd
    >>> w = sd.checklist.Workload(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2,
    ...                          t_draft=2.5, t_verify=6.0, t_overhead=0.5, mean_output_tokens=300)
    >>> w.t_round
    9.0
    >>> round(w.c_draft, 4)
    0.0962
    """

    ttft: float
    tpot: float
    batch: int
    alpha: float
    k: int
    t0: float
    t_draft: float
    t_verify: float
    t_overhead: float = 0.0
    mean_output_tokens: float
    t_setup: float = 0.0
    time_unit: str = "ms"
    name: str = ""

    def __post_init__(self) -> None:
        unit = f"({self.time_unit})" if isinstance(self.time_unit, str) else "(time)"
        if not isinstance(self.time_unit, str):
            raise TypeError(f"time_unit must be a string, got {describe(self.time_unit)}")
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a string, got {describe(self.name)}")
        values = {
            "ttft": check_scalar(self.ttft, "ttft", check_positive, unit),
            "tpot": check_scalar(self.tpot, "tpot", check_positive, unit),
            "batch": check_scalar(self.batch, "batch", check_integer, minimum=1),
            "alpha": check_scalar(self.alpha, "alpha", check_probability),
            "k": check_scalar(self.k, "k", check_integer, minimum=1),
            "t0": check_scalar(self.t0, "t0", check_positive, unit),
            "t_draft": check_scalar(self.t_draft, "t_draft", check_nonnegative, unit),
            "t_verify": check_scalar(self.t_verify, "t_verify", check_positive, unit),
            "t_overhead": check_scalar(self.t_overhead, "t_overhead", check_nonnegative, unit),
            "mean_output_tokens": check_scalar(self.mean_output_tokens, "mean_output_tokens", check_positive, "(tokens)"),
            "t_setup": check_scalar(self.t_setup, "t_setup", check_nonnegative, unit),
        }
        if float(values["mean_output_tokens"]) < 1.0:
            raise ValueError(f"mean_output_tokens must be >= 1 (the first token comes with the prefill); got {describe(self.mean_output_tokens)}")
        for key, arr in values.items():
            kind = int if key in ("batch", "k") else float
            object.__setattr__(self, key, kind(arr.reshape(())))

    # Derived quantities -------------------------------------------------
    @property
    def t_round(self) -> float:
        """Round time ``t_draft + t_verify + t_overhead`` (:func:`specdec.economics.round_time`)."""
        return float(round_time(self.t_draft, self.t_verify, self.t_overhead))

    @property
    def c_draft(self) -> float:
        """One draft step as a fraction of ``t0``: ``t_draft / (k * t0)`` (:func:`specdec.economics.costs_from_times`)."""
        return float(_costs_from_times(self.k, self.t0, self.t_draft, self.t_verify, self.t_overhead)[0])

    @property
    def c_verify(self) -> float:
        """Verification plus overhead as a fraction of ``t0`` (:func:`specdec.economics.costs_from_times`)."""
        return float(_costs_from_times(self.k, self.t0, self.t_draft, self.t_verify, self.t_overhead)[1])

    @property
    def decode_time(self) -> float:
        """Decode time of a mean request, :func:`specdec.economics.request.decode_time`."""
        return float(_decode_time(self.tpot, self.mean_output_tokens))

    def replace(self, **changes: Any) -> Workload:
        """Return a copy with some fields changed (validated again)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return Workload(**values)


@dataclass(frozen=True)
class Check:
    """One row of the decision checklist, as returned inside an :class:`Assessment`.

    Defined in chapter "The decision checklist".

    Attributes
    ----------
    key : str
        Short identifier (``"decode-bottleneck"``, ``"low-batch"``,
        ``"acceptance"``, ``"cheap-draft"``, ``"long-output"``).
    question : str
        The checklist question.
    criterion : str
        The test applied, with its threshold.
    value : float
        The measured quantity compared with ``threshold``.
    threshold : float
        The threshold of the test.
    passed : bool
        Whether the workload passes.
    reason : str
        One sentence with the numbers that decided it.
    if_failed : str
        The advice when the check fails.
    """

    key: str
    question: str
    criterion: str
    value: float
    threshold: float
    passed: bool
    reason: str
    if_failed: str


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "infinite"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.3g}"


@dataclass(frozen=True, repr=False)
class Assessment:
    """The checklist applied to one :class:`Workload` (see :func:`assess`).

    Defined in chapter "The decision checklist".

    Attributes
    ----------
    workload : Workload
        The input.
    checks : tuple of Check
        The five checks of the source's checklist, in its order.
    expected_tokens : float
        E[L] at the workload's ``alpha`` and ``k``.
    speedup : float
        Exact per-token speedup ``t0 * E[L] / t_round``.
    quick_estimate : float
        The source's quick estimate ``E[L] / (1 + t_draft/t0 + t_verify/t0)``.
    request_speedup : float
        Speedup of a whole mean request, TTFT and setup included.
    break_even_output_length : float
        Output length (tokens) above which speculation shortens a request;
        ``inf`` when the per-token speedup is <= 1.
    worth_it_threshold : float
        The source's 1.3 rule.
    """

    workload: Workload
    checks: tuple
    expected_tokens: float
    speedup: float
    quick_estimate: float
    request_speedup: float
    break_even_output_length: float
    worth_it_threshold: float = WORTH_IT_SPEEDUP

    @property
    def all_passed(self) -> bool:
        """True when every checklist item passes."""
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> tuple:
        """Keys of the checks that fail."""
        return tuple(c.key for c in self.checks if not c.passed)

    @property
    def worth_it(self) -> bool:
        """True when the exact speedup reaches the source's 1.3 rule."""
        return self.speedup >= self.worth_it_threshold

    @property
    def quick_worth_it(self) -> bool:
        """True when the source's quick estimate reaches the 1.3 rule."""
        return self.quick_estimate >= self.worth_it_threshold

    @property
    def verdict(self) -> str:
        """One-line recommendation combining the checks and the speedup."""
        t = self.worth_it_threshold
        if self.speedup < 1.0:
            return f"do not speculate: it would be slower (speedup {self.speedup:.2f})"
        if self.speedup < t:
            return f"probably not worth it: speedup {self.speedup:.2f} is below the {t:g} rule"
        if self.request_speedup < 1.0:
            return f"do not speculate: the per-token speedup {self.speedup:.2f} does not pay back the setup cost on requests this short"
        if self.all_passed:
            return f"speculate: every check passes and the speedup is {self.speedup:.2f}"
        return (f"worth a benchmark: speedup {self.speedup:.2f} clears the {t:g} rule, "
                f"but check(s) {', '.join(self.failed)} fail")

    def _rows(self) -> list[tuple[str, str, str]]:
        rows = [(c.question, "pass" if c.passed else "FAIL", c.reason) for c in self.checks]
        rows.append(("Exact speedup (T0 E[L] / T_round)", "pass" if self.worth_it else "FAIL",
                     f"{self.speedup:.2f} against the {self.worth_it_threshold:g} rule"))
        rows.append(("Source's quick estimate", "pass" if self.quick_worth_it else "FAIL",
                     f"{self.quick_estimate:.2f} against the {self.worth_it_threshold:g} rule"))
        rows.append(("Whole-request speedup (TTFT and setup included)", "pass" if self.request_speedup > 1 else "FAIL",
                     f"{self.request_speedup:.2f}; " + (
                         f"speculation pays off above {_fmt(self.break_even_output_length)} output tokens"
                         if math.isfinite(self.break_even_output_length) else "no output length pays off")))
        return rows

    def table(self) -> Table:
        """The checklist as a :class:`specdec.tables.Table` (check, result, why)."""
        return Table(("check", "result", "why"), tuple(self._rows()), ("l", "c", "l"))

    def to_markdown(self) -> str:
        """Markdown: the verdict in one line, then one table row per check."""
        title = self.workload.name or "Workload"
        return f"**{title}**: {self.verdict}\n\n" + self.table().to_markdown()

    def to_html(self) -> str:
        """HTML with the same content as :meth:`to_markdown`."""
        title = html.escape(self.workload.name or "Workload")
        return f"<p><b>{title}</b>: {html.escape(self.verdict)}</p>" + self.table().to_html()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        # The text a reader sees (and a notebook stores as text/plain): the table, with its numbers rounded
        # as the table shows them, not the dataclass fields at full float precision.
        return self.to_markdown()


def assess(workload: Workload, *, decode_ratio: float = CHECKLIST_THRESHOLDS["decode_ratio"],
           max_batch: float = CHECKLIST_THRESHOLDS["max_batch"], min_alpha: float = CHECKLIST_THRESHOLDS["min_alpha"],
           draft_fraction: float = CHECKLIST_THRESHOLDS["draft_fraction"],
           min_output_tokens: float = CHECKLIST_THRESHOLDS["min_output_tokens"],
           worth_it: float = WORTH_IT_SPEEDUP) -> Assessment:
    """Apply the first source's decision checklist to a measured workload.

    The five checks, in the source's order (thresholds by keyword):

    1. **Decode is the bottleneck:** ``tpot * (mean_output_tokens - 1) >= decode_ratio * ttft`` (2).
    2. **Batch is low:** ``batch < max_batch`` (32).
    3. **Acceptance is high enough:** ``alpha > min_alpha`` (0.6).
    4. **Draft is cheap:** ``t_draft < draft_fraction * t0`` (0.5), ``t_draft`` a whole round's drafting.
    5. **Output is long:** ``mean_output_tokens > min_output_tokens`` (20).

    Alongside: E[L], :func:`specdec.economics.speedup`, :func:`specdec.economics.quick_estimate`,
    :func:`specdec.economics.request.request_speedup` and
    :func:`specdec.economics.request.break_even_output_length`.

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    workload : Workload
        The measured workload.
    decode_ratio : float, optional
        Decode time must be at least this multiple of TTFT, > 0.
    max_batch : int, optional
        Batch must be below this, >= 1.
    min_alpha : float, optional
        Acceptance must exceed this, in [0, 1].
    draft_fraction : float, optional
        Round drafting time must be below this fraction of ``t0``, > 0.
    min_output_tokens : float, optional
        Mean output must exceed this many tokens, >= 0.
    worth_it : float, optional
        The "worth the complexity" speedup, > 0 (source: 1.3).

    Returns
    -------
    Assessment
        Checks, speedups and verdict; displays as a table in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.checklist.Workload(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2,
    ...                          t_draft=2.5, t_verify=6.0, t_overhead=0.5, mean_output_tokens=300)
    >>> a = sd.checklist.assess(w)
    >>> a.all_passed, round(a.speedup, 3), round(a.quick_estimate, 3)
    (True, 2.132, 1.4)
    >>> [c.key for c in a.checks]
    ['decode-bottleneck', 'low-batch', 'acceptance', 'cheap-draft', 'long-output']

    The same workload through :func:`specdec.decision.decide`, as an engine would report it:

    >>> d = sd.decide(t0=5.2, t_draft_round=2.5, t_verify=6.0, t_overhead=0.5, k=5,
    ...               mean_acceptance_length=a.expected_tokens)
    >>> round(d.speedup, 3), d.verdict, a.worth_it
    (2.132, 'speculate', True)

    See Also
    --------
    specdec.decision.decide : the verdict from an engine's metrics and measured times.
    """
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a specdec.decision.checklist.Workload, got {type(workload).__name__}")
    dr = float(check_scalar(decode_ratio, "decode_ratio", check_positive))
    mb = int(check_scalar(max_batch, "max_batch", check_integer, minimum=1))
    ma = float(check_scalar(min_alpha, "min_alpha", check_probability))
    df = float(check_scalar(draft_fraction, "draft_fraction", check_positive))
    mo = float(check_scalar(min_output_tokens, "min_output_tokens", check_nonnegative, "(tokens)"))
    wi = float(check_scalar(worth_it, "worth_it", check_positive))

    w = workload
    u = w.time_unit
    dec = w.decode_time
    ratio = dec / w.ttft
    checks = (
        Check("decode-bottleneck", "Is decode the bottleneck?", f"decode time >= {dr:g} x TTFT",
              ratio, dr, bool(ratio >= dr),
              f"decode takes {_fmt(dec)} {u} ({_fmt(w.mean_output_tokens - 1)} tokens x TPOT {_fmt(w.tpot)} {u}), "
              f"{_fmt(ratio)} x the TTFT of {_fmt(w.ttft)} {u}",
              "Don't bother: the prefill dominates; optimize it instead."),
        Check("low-batch", "Is the batch small?", f"batch < {mb}", float(w.batch), float(mb), bool(w.batch < mb),
              f"batch {w.batch} {'<' if w.batch < mb else '>='} {mb}",
              "At high batch the arithmetic is already busy; batching helps more."),
        Check("acceptance", "Is the acceptance rate high enough?", f"alpha > {ma:g}", w.alpha, ma, bool(w.alpha > ma),
              f"alpha = {w.alpha:.3g} {'>' if w.alpha > ma else '<='} {ma:g}",
              "A poorly matched draft makes decoding slower."),
        Check("cheap-draft", "Is the draft cheap enough?", f"T_draft (all k steps) < {df:g} x T0",
              w.t_draft / w.t0, df, bool(w.t_draft < df * w.t0),
              f"drafting {w.k} tokens takes {_fmt(w.t_draft)} {u} = {_fmt(w.t_draft / w.t0)} x T0 "
              f"({_fmt(w.c_draft)} x T0 per draft step)",
              "Consider n-gram or multi-head drafting instead."),
        Check("long-output", "Is the output long enough?", f"mean output > {mo:g} tokens",
              w.mean_output_tokens, mo, bool(w.mean_output_tokens > mo),
              f"{_fmt(w.mean_output_tokens)} tokens {'>' if w.mean_output_tokens > mo else '<='} {mo:g}",
              "Fixed overheads dominate short outputs."),
    )
    # The workload was validated when it was made: the kernels below check nothing again.
    e_l = _expected_tokens_array(w.alpha, w.k)
    s = _speedup(w.alpha, w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead)
    q = _quick_estimate(w.alpha, w.k, w.t0, w.t_draft, w.t_verify)
    req = _request_speedup(w.mean_output_tokens, s, w.tpot, w.t_setup, w.ttft)
    n_star = _break_even_output_length(w.t_setup, w.tpot, s)
    return Assessment(w, checks, float(e_l), float(s), float(q), float(req), float(n_star), wi)


@dataclass(frozen=True, repr=False)
class AssessmentTable:
    """Several assessments side by side (rows: checks; columns: workloads).

    Defined in chapter "The decision checklist".

    Returned by :func:`assessment_table`; displays as a Markdown table in a
    notebook and has a :meth:`to_html` form.
    """

    assessments: tuple = field(default_factory=tuple)

    def _grid(self) -> tuple[list[str], list[Any]]:
        names = [a.workload.name or f"workload {i + 1}" for i, a in enumerate(self.assessments)]
        rows = []
        for j, check in enumerate(self.assessments[0].checks):
            cells = [("pass" if a.checks[j].passed else "FAIL") + ": " + a.checks[j].reason for a in self.assessments]
            rows.append((check.question, cells))
        rows.append(("E[L] (tokens per round)", [f"{a.expected_tokens:.2f}" for a in self.assessments]))
        rows.append(("Exact speedup", [f"{a.speedup:.2f}" for a in self.assessments]))
        rows.append(("Quick estimate (source)", [f"{a.quick_estimate:.2f}" for a in self.assessments]))
        rows.append(("Whole-request speedup", [f"{a.request_speedup:.2f}" for a in self.assessments]))
        rows.append(("Verdict", [a.verdict for a in self.assessments]))
        return names, rows

    def table(self) -> Table:
        """The comparison as a :class:`specdec.tables.Table`."""
        names, rows = self._grid()
        return Table(("check", *names), tuple((q, *cells) for q, cells in rows), ("l",) * (1 + len(names)))

    def to_markdown(self) -> str:
        """Markdown version of the table."""
        return self.table().to_markdown()

    def to_html(self) -> str:
        """HTML version of the table."""
        return self.table().to_html()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        return self.to_markdown()


def assessment_table(*assessments: Any) -> AssessmentTable:
    """Put several :class:`Assessment` results side by side for a chapter.

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    *assessments : Assessment
        One or more results of :func:`assess`.

    Returns
    -------
    AssessmentTable
        Displays as a Markdown table; ``.to_html()`` gives HTML.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.checklist.Workload(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2,
    ...                          t_draft=2.5, t_verify=6.0, t_overhead=0.5, mean_output_tokens=300, name="chat")
    >>> print(sd.checklist.assessment_table(sd.checklist.assess(w)).to_markdown().splitlines()[0])
    | check | chat |
    """
    if not assessments:
        raise ValueError("assessments must contain at least one Assessment")
    for i, a in enumerate(assessments):
        if not isinstance(a, Assessment):
            raise TypeError(f"assessments[{i}] must be an Assessment (from assess), got {type(a).__name__}")
    return AssessmentTable(tuple(assessments))

#: Two contrasting workloads used in the chapter "The decision checklist".
#: "chat" takes the first source's worked example
#: (:data:`specdec.economics.WORKED_EXAMPLE`: alpha, k and the times) and adds a TTFT, an output length and a
#: setup cost of our choosing; "batch-summaries" is an illustrative
#: high-concurrency job with long prompts and a weaker draft. Times in ms.
EXAMPLES = {
    "chat": Workload(ttft=120.0, tpot=WORKED_EXAMPLE.value["t0"], batch=1, **WORKED_EXAMPLE.value,
                     mean_output_tokens=400, t_setup=3.0, name="chat assistant"),
    "batch-summaries": Workload(ttft=2500.0, tpot=22.0, batch=64, alpha=0.65, k=5, t0=21.0, t_draft=9.0,
                                t_verify=48.0, t_overhead=2.0, mean_output_tokens=120, t_setup=40.0,
                                name="batch summaries"),
}

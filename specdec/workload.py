"""Workload-level decisions: the deployment checklist and short-output economics.

The formulas of :mod:`specdec.economics` answer "how much faster is one
round?". A deployment decision needs more: how much of a request's time is
decode at all, whether the batch leaves idle arithmetic, whether the output
is long enough to pay back a fixed setup cost. This module turns the first
source's decision checklist into a function, :func:`assess`, that takes a
measured :class:`Workload` and returns every check with pass/fail and the
reason, next to the exact speedup and the source's quick estimate.

Conventions (see the chapter "The decision checklist", Part I, chapter 5):

* All times of one :class:`Workload` are in the same unit (``time_unit``,
  milliseconds by default); only ratios of times enter the checks.
* ``t_draft`` is the draft time of a whole round (all ``k`` draft steps),
  as in the first source's worked example and in the book's notation.
* The decode time of a request is ``tpot * (mean_output_tokens - 1)``: the
  first output token arrives with the prefill (TTFT), every later one costs
  one TPOT. This is how serving benchmarks define TPOT.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field, fields

import numpy as np

from ._validate import (
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    is_scalar_input,
    to_output,
)
from .acceptance import _expected_tokens_array
from . import hardware as _hw
from .economics import break_even_alpha, quick_estimate, speedup
from .tables import Table

__all__ = [
    "Workload",
    "Check",
    "Assessment",
    "AssessmentTable",
    "assess",
    "assessment_table",
    "CHECKLIST_THRESHOLDS",
    "WORTH_IT_SPEEDUP",
    "decode_time",
    "request_speedup",
    "break_even_output_length",
    "setup_time_for_break_even",
    "required_alpha",
    "EXAMPLES",
    "wasted_draft_fraction",
    "candidate_kv_bytes",
    "capped_draft_cost",
]

#: The first source's checklist thresholds, keyed by the keyword of :func:`assess`.
CHECKLIST_THRESHOLDS = {
    "decode_ratio": 2.0,      # our reading of "TPOT >> TTFT" (see assess)
    "max_batch": 32,          # "Is batch size low (<32)?"
    "min_alpha": 0.6,         # "Is acceptance rate > 0.6?"
    "draft_fraction": 0.5,    # "T_draft < 0.5 x T0" (T_draft = whole round)
    "min_output_tokens": 20,  # "Average output > 20 tokens"
}

#: The source's rule: an estimated speedup below this is "probably not worth the complexity".
WORTH_IT_SPEEDUP = 1.3


def _scalar(value, name: str, check, *args, **kwargs):
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a single number for a Workload; got an array of shape {np.shape(value)}")
    return check(value, name, *args, **kwargs)


@dataclass(frozen=True, kw_only=True)
class Workload:
    """A measured serving workload, the input of :func:`assess`.

    Every argument is keyword-only and validated; times share one unit.

    Defined in chapter "The decision checklist" (Part I, chapter 5).

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
    >>> w = sd.workload.Workload(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2,
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
            raise TypeError(f"time_unit must be a string, got {self.time_unit!r}")
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a string, got {self.name!r}")
        values = {
            "ttft": _scalar(self.ttft, "ttft", check_positive, unit),
            "tpot": _scalar(self.tpot, "tpot", check_positive, unit),
            "batch": _scalar(self.batch, "batch", check_integer, minimum=1),
            "alpha": _scalar(self.alpha, "alpha", check_probability),
            "k": _scalar(self.k, "k", check_integer, minimum=1),
            "t0": _scalar(self.t0, "t0", check_positive, unit),
            "t_draft": _scalar(self.t_draft, "t_draft", check_nonnegative, unit),
            "t_verify": _scalar(self.t_verify, "t_verify", check_positive, unit),
            "t_overhead": _scalar(self.t_overhead, "t_overhead", check_nonnegative, unit),
            "mean_output_tokens": _scalar(self.mean_output_tokens, "mean_output_tokens", check_positive, "(tokens)"),
            "t_setup": _scalar(self.t_setup, "t_setup", check_nonnegative, unit),
        }
        if float(values["mean_output_tokens"]) < 1.0:
            raise ValueError(f"mean_output_tokens must be >= 1 (the first token comes with the prefill); got {self.mean_output_tokens!r}")
        for key, arr in values.items():
            kind = int if key in ("batch", "k") else float
            object.__setattr__(self, key, kind(np.asarray(arr).reshape(())))

    # Derived quantities -------------------------------------------------
    @property
    def t_round(self) -> float:
        """Round time ``t_draft + t_verify + t_overhead``."""
        return self.t_draft + self.t_verify + self.t_overhead

    @property
    def c_draft(self) -> float:
        """One draft step as a fraction of ``t0``: ``t_draft / (k * t0)``."""
        return self.t_draft / (self.k * self.t0)

    @property
    def c_verify(self) -> float:
        """Verification plus overhead as a fraction of ``t0``."""
        return (self.t_verify + self.t_overhead) / self.t0

    @property
    def decode_time(self) -> float:
        """Decode time of a mean request, ``tpot * (mean_output_tokens - 1)``."""
        return self.tpot * (self.mean_output_tokens - 1.0)

    def replace(self, **changes) -> "Workload":
        """Return a copy with some fields changed (validated again)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return Workload(**values)


@dataclass(frozen=True)
class Check:
    """One row of the decision checklist, as returned inside an :class:`Assessment`.

    Defined in chapter "The decision checklist" (Part I, chapter 5).

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


@dataclass(frozen=True)
class Assessment:
    """The checklist applied to one :class:`Workload` (see :func:`assess`).

    Defined in chapter "The decision checklist" (Part I, chapter 5).

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

    def _rows(self):
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

    def table(self):
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


def decode_time(tpot, mean_output_tokens):
    """Decode time of a request: every output token after the first costs one TPOT.

    ``decode_time = tpot * (mean_output_tokens - 1)``; the first token comes
    with the prefill and is counted in TTFT.

    Defined in chapter "The decision checklist" (Part I, chapter 5).

    Parameters
    ----------
    tpot : float or array_like
        Time per output token after the first, > 0 (any time unit).
    mean_output_tokens : float or array_like
        Output tokens per request, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Decode time, in the unit of ``tpot``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.workload.decode_time(20.0, 101)
    2000.0
    """
    tp = check_positive(tpot, "tpot", "(time)")
    n = _check_output_tokens(mean_output_tokens, "mean_output_tokens")
    return to_output(tp * (n - 1.0), is_scalar_input(tpot, mean_output_tokens))


def _check_output_tokens(value, name):
    n = check_positive(value, name, "(tokens)")
    if (n < 1).any():
        raise ValueError(f"{name} must be >= 1 (the first token comes with the prefill); got {n[n < 1].flat[0]!r}")
    return n


def request_speedup(n_output_tokens, speedup, tpot, t_setup=0.0, ttft=0.0):
    r"""Speedup of a whole request when speculation costs a fixed setup time.

    .. math:: S_\text{req}(N) = \frac{\text{TTFT} + (N-1)\,\text{TPOT}}
              {\text{TTFT} + T_\text{setup} + (N-1)\,\text{TPOT} / S}

    The first of the ``N`` output tokens comes with the prefill; speculation
    shortens only the ``N - 1`` decode tokens, by the per-token speedup
    ``S``, and pays ``t_setup`` once (for example the draft's own prefill of
    the prompt). Tokens are treated as a continuous amount: the last round's
    overshoot is ignored.

    Defined in chapter "When speculation does not help" (Part I, chapter 4).

    Parameters
    ----------
    n_output_tokens : float or array_like
        Output tokens per request, >= 1.
    speedup : float or array_like
        Per-token decode speedup ``S`` (for example :func:`specdec.speedup`), > 0.
    tpot : float or array_like
        Plain time per output token, > 0.
    t_setup : float or array_like, optional
        One-off cost of speculation per request, >= 0, same unit as ``tpot``.
    ttft : float or array_like, optional
        Time to first token, >= 0 (0 compares decode phases only).

    Returns
    -------
    float or numpy.ndarray
        Ratio of plain to speculative request time; > 1 means faster.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.workload.request_speedup(11, 2.0, 5.0, t_setup=5.0)
    1.6666666666666667
    """
    n = _check_output_tokens(n_output_tokens, "n_output_tokens")
    s = check_positive(speedup, "speedup")
    tp = check_positive(tpot, "tpot", "(time)")
    ts = check_nonnegative(t_setup, "t_setup", "(time)")
    tf = check_nonnegative(ttft, "ttft", "(time)")
    d = tp * (n - 1.0)
    num = tf + d
    den = tf + ts + d / s
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)  # N = 1, no TTFT, no setup: equal
    return to_output(out, is_scalar_input(n_output_tokens, speedup, tpot, t_setup, ttft))


def break_even_output_length(t_setup, tpot, speedup):
    r"""Output length below which speculation makes a request slower.

    Speculation wins when ``t_setup + (N-1) TPOT / S < (N-1) TPOT``, i.e. for

    .. math:: N > N^* = 1 + \frac{T_\text{setup}}{\text{TPOT}\,(1 - 1/S)} .

    ``N*`` is ``inf`` when ``S <= 1`` (no length pays back the setup) and 1
    when there is no setup cost. It does not depend on TTFT, which both
    sides pay.

    Defined in chapter "When speculation does not help" (Part I, chapter 4).

    Parameters
    ----------
    t_setup : float or array_like
        One-off cost of speculation per request, >= 0.
    tpot : float or array_like
        Plain time per output token, > 0, same unit as ``t_setup``.
    speedup : float or array_like
        Per-token decode speedup, > 0.

    Returns
    -------
    float or numpy.ndarray
        ``N*`` in tokens (not rounded).

    Examples
    --------
    A 10 ms setup, 5 ms per token and a 2x per-token speedup: the setup is
    paid back after 4 decode tokens.

    >>> import specdec as sd
    >>> sd.workload.break_even_output_length(10.0, 5.0, 2.0)
    5.0
    >>> sd.workload.break_even_output_length(10.0, 5.0, 0.9)
    inf
    """
    ts = check_nonnegative(t_setup, "t_setup", "(time)")
    tp = check_positive(tpot, "tpot", "(time)")
    s = check_positive(speedup, "speedup")
    saving = 1.0 - 1.0 / s  # fraction of each decode token's time saved
    with np.errstate(divide="ignore", invalid="ignore"):
        n = 1.0 + ts / (tp * saving)
    n = np.where(saving > 0, np.where(ts == 0, 1.0, n), np.inf)
    return to_output(n, is_scalar_input(t_setup, tpot, speedup))


def setup_time_for_break_even(n_output_tokens, tpot, speedup):
    r"""The setup cost that makes ``N`` output tokens the break-even length.

    Inverse of :func:`break_even_output_length`:
    ``T_setup = (N - 1) * TPOT * (1 - 1/S)``, clipped at 0 when ``S <= 1``.
    Use it to ask what setup cost a quoted threshold ("fewer than 10 tokens")
    implies.

    Defined in chapter "When speculation does not help" (Part I, chapter 4).

    Parameters
    ----------
    n_output_tokens : float or array_like
        Break-even output length, >= 1.
    tpot : float or array_like
        Plain time per output token, > 0.
    speedup : float or array_like
        Per-token decode speedup, > 0.

    Returns
    -------
    float or numpy.ndarray
        Setup time in the unit of ``tpot``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.workload.setup_time_for_break_even(5.0, 5.0, 2.0)
    10.0
    """
    n = _check_output_tokens(n_output_tokens, "n_output_tokens")
    tp = check_positive(tpot, "tpot", "(time)")
    s = check_positive(speedup, "speedup")
    out = np.maximum((n - 1.0) * tp * (1.0 - 1.0 / s), 0.0)
    return to_output(out, is_scalar_input(n_output_tokens, tpot, speedup))


def required_alpha(target_speedup, k, c_draft, c_verify):
    r"""Smallest acceptance rate at which a round reaches a given speedup.

    Solves :math:`E[L](\alpha) = S^\ast\,(k\,c_d + c_v)`: the speedup
    :math:`E[L] / (k c_d + c_v)` reaches :math:`S^\ast` exactly when the
    round, with every cost scaled by :math:`S^\ast`, breaks even. So this is
    :func:`specdec.break_even_alpha` on the scaled costs; with
    ``target_speedup = 1`` it is the break-even acceptance rate itself, and
    with 1.3 it is the acceptance the source's "worth it" rule demands.

    Returns ``0.0`` when any ``alpha`` reaches the target and ``nan`` when
    none does (even ``alpha = 1`` gives ``k + 1`` tokens, too few).

    Defined in chapter "The decision checklist" (Part I, chapter 5).

    Parameters
    ----------
    target_speedup : float or array_like
        The speedup to reach, > 0 (1 for break-even, 1.3 for the source's rule).
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float or array_like
        Verification plus per-round overhead as a fraction of a target step, > 0.

    Returns
    -------
    float or numpy.ndarray
        The acceptance rate in [0, 1), ``0.0`` or ``nan``.

    Examples
    --------
    The worked example (c_draft = 2.5 / (5 x 5.2), c_verify = 6.5 / 5.2):

    >>> import specdec as sd
    >>> round(sd.workload.required_alpha(1.3, 5, 2.5 / 26, 6.5 / 5.2), 4)
    0.571
    """
    s = check_positive(target_speedup, "target_speedup")
    kk = check_integer(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    out = break_even_alpha(kk, s * cd, s * cv)
    return to_output(out, is_scalar_input(target_speedup, k, c_draft, c_verify))


def assess(workload, *, decode_ratio=CHECKLIST_THRESHOLDS["decode_ratio"], max_batch=CHECKLIST_THRESHOLDS["max_batch"],
           min_alpha=CHECKLIST_THRESHOLDS["min_alpha"], draft_fraction=CHECKLIST_THRESHOLDS["draft_fraction"],
           min_output_tokens=CHECKLIST_THRESHOLDS["min_output_tokens"], worth_it=WORTH_IT_SPEEDUP):
    """Apply the first source's decision checklist to a measured workload.

    The five checks, in the source's order, each with the source's
    threshold (change them by keyword):

    1. **Decode is the bottleneck.** The source writes "TPOT >> TTFT". Read
       literally this compares one token's time with a whole prefill and
       almost always fails; what matters is that decode dominates a
       request. We test ``tpot * (mean_output_tokens - 1) >= decode_ratio *
       ttft`` (default 2: decode is at least two thirds of the request, so a
       2x faster decode saves at least a third of it).
    2. **Batch is low:** ``batch < max_batch`` (32).
    3. **Acceptance is high enough:** ``alpha > min_alpha`` (0.6).
    4. **Draft is cheap:** ``t_draft < draft_fraction * t0`` (0.5) with
       ``t_draft`` the time of the whole round's drafting (all ``k`` steps),
       the meaning ``T_draft`` has everywhere else in the source. Read per
       draft step, the check would accept rounds whose drafting alone costs
       ``k / 2`` target steps.
    5. **Output is long:** ``mean_output_tokens > min_output_tokens`` (20).

    Alongside the checks: E[L], the exact speedup :func:`specdec.speedup`,
    the source's :func:`specdec.quick_estimate`, the whole-request speedup
    :func:`request_speedup` and :func:`break_even_output_length`.

    Defined in chapter "The decision checklist" (Part I, chapter 5).

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
    >>> w = sd.workload.Workload(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2,
    ...                          t_draft=2.5, t_verify=6.0, t_overhead=0.5, mean_output_tokens=300)
    >>> a = sd.workload.assess(w)
    >>> a.all_passed, round(a.speedup, 3), round(a.quick_estimate, 3)
    (True, 2.132, 1.4)
    >>> [c.key for c in a.checks]
    ['decode-bottleneck', 'low-batch', 'acceptance', 'cheap-draft', 'long-output']
    """
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a specdec.workload.Workload, got {type(workload).__name__}")
    dr = float(_scalar(decode_ratio, "decode_ratio", check_positive))
    mb = int(_scalar(max_batch, "max_batch", check_integer, minimum=1))
    ma = float(_scalar(min_alpha, "min_alpha", check_probability))
    df = float(_scalar(draft_fraction, "draft_fraction", check_positive))
    mo = float(_scalar(min_output_tokens, "min_output_tokens", check_nonnegative, "(tokens)"))
    wi = float(_scalar(worth_it, "worth_it", check_positive))

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
    e_l = float(_expected_tokens_array(np.asarray(w.alpha), np.asarray(w.k)))
    s = speedup(w.alpha, w.k, w.t0, w.t_draft, w.t_verify, w.t_overhead)
    q = quick_estimate(w.alpha, w.k, w.t0, w.t_draft, w.t_verify)
    req = request_speedup(w.mean_output_tokens, s, w.tpot, w.t_setup, w.ttft)
    n_star = break_even_output_length(w.t_setup, w.tpot, s)
    return Assessment(w, checks, e_l, s, q, req, n_star, wi)


@dataclass(frozen=True)
class AssessmentTable:
    """Several assessments side by side (rows: checks; columns: workloads).

    Defined in chapter "The decision checklist" (Part I, chapter 5).

    Returned by :func:`assessment_table`; displays as a Markdown table in a
    notebook and has a :meth:`to_html` form.
    """

    assessments: tuple = field(default_factory=tuple)

    def _grid(self):
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

    def table(self):
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


def assessment_table(*assessments):
    """Put several :class:`Assessment` results side by side for a chapter.

    Defined in chapter "The decision checklist" (Part I, chapter 5).

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
    >>> w = sd.workload.Workload(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2,
    ...                          t_draft=2.5, t_verify=6.0, t_overhead=0.5, mean_output_tokens=300, name="chat")
    >>> print(sd.workload.assessment_table(sd.workload.assess(w)).to_markdown().splitlines()[0])
    | check | chat |
    """
    if not assessments:
        raise ValueError("assessments must contain at least one Assessment")
    for i, a in enumerate(assessments):
        if not isinstance(a, Assessment):
            raise TypeError(f"assessments[{i}] must be an Assessment (from assess), got {type(a).__name__}")
    return AssessmentTable(tuple(assessments))



def wasted_draft_fraction(alpha, k):
    r"""Expected fraction of drafted tokens that verification throws away.

    A round drafts ``k`` tokens and keeps ``E[L] - 1`` of them on average
    (the last emitted token is the target's own), so the discarded fraction is

    .. math:: 1 - \frac{E[L] - 1}{k} = 1 - \frac{\alpha (1 - \alpha^k)}{k (1 - \alpha)} .

    Defined in chapter "When speculation does not help" (Part I, chapter 4).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance rate, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Fraction in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> sd.workload.wasted_draft_fraction(0.5, 5)
    0.80625
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    out = 1.0 - (_expected_tokens_array(a, kk) - 1.0) / kk
    return to_output(out, is_scalar_input(alpha, k))


def candidate_kv_bytes(model, batch, k):
    """KV-cache bytes written for the draft candidates of one round: ``B * k * m_KV``.

    The first source's "candidate KV cache memory ``B x gamma x m_KV/token``":
    verification writes keys and values for the ``k`` candidate positions of
    every sequence, and the rejected ones are rolled back. Compare with the
    context's own cache, ``B * C * m_KV`` (:func:`specdec.hardware.kv_cache_bytes`):
    the ratio is ``k / C``.

    Defined in chapter "When speculation does not help" (Part I, chapter 4).

    Parameters
    ----------
    model : specdec.hardware.Model
        The target model (sets ``m_KV``, bytes per token).
    batch : int or array_like of int
        Concurrent sequences, >= 1.
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.workload.candidate_kv_bytes(sd.hardware.LLAMA_70B, 32, 5) / 2**20   # MiB
    50.0
    """
    if not isinstance(model, _hw.Model):
        raise TypeError(f"model must be a specdec.hardware.Model, got {type(model).__name__}")
    b = check_integer(batch, "batch", minimum=1)
    kk = check_integer(k, "k", minimum=1)
    out = b.astype(float) * kk * model.kv_bytes_per_token
    return to_output(out, is_scalar_input(batch, k))


def capped_draft_cost(draft, target, hardware, batch=1, context=0, kv_budget=None):
    r"""``c_draft`` on the roofline for a draft whose KV cache is capped at ``kv_budget`` tokens.

    .. math:: c_d = \frac{T_\text{draft}(B, \min(C, \text{budget}), 1)}{T_\text{target}(B, C, 1)}

    Drafts with a sparse or windowed KV cache (StreamingLLM-style, as used by
    MagicDec) read a fixed amount of cache per sequence however long the
    context, while the target reads all of it. At large batch and long
    context the target's step is dominated by its KV reads, so ``c_draft``
    falls and speculation's speedup *grows* with batch. With
    ``kv_budget=None`` this is :func:`specdec.hardware.draft_cost` (full cache).
    Pass the result as ``draft_cost_override`` to
    :func:`specdec.hardware.speculative_costs`. (A capped cache usually lowers
    ``alpha`` as well; that is not modelled here.)

    Defined in chapter "When speculation does not help" (Part I, chapter 4).

    Parameters
    ----------
    draft, target : specdec.hardware.Model
    hardware : specdec.hardware.Hardware
        Both models run here.
    batch : int or array_like of int
        Concurrent sequences, >= 1.
    context : int or array_like of int
        Tokens cached per sequence, >= 0.
    kv_budget : int, optional
        Largest number of cached tokens the draft attends to, >= 0.

    Returns
    -------
    float or numpy.ndarray
        One draft step as a fraction of one target step.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> hw = h.H100.scaled(8)
    >>> round(sd.workload.capped_draft_cost(h.LLAMA_8B, h.LLAMA_70B, hw, 32, 32768), 3)
    0.317
    >>> round(sd.workload.capped_draft_cost(h.LLAMA_8B, h.LLAMA_70B, hw, 32, 32768, kv_budget=512), 3)
    0.038
    """
    b = check_integer(batch, "batch", minimum=1)
    c = check_integer(context, "context", minimum=0)
    if kv_budget is None:
        return _hw.draft_cost(draft, target, hardware, batch, context)
    if np.ndim(kv_budget) != 0:
        raise ValueError(f"kv_budget must be a single whole number >= 0; got an array of shape {np.shape(kv_budget)}")
    budget = int(check_integer(kv_budget, "kv_budget", minimum=0))
    t_draft = _hw.step_time(draft, hardware, b, np.minimum(c, budget))
    t_target = _hw.step_time(target, hardware, b, c)
    return to_output(np.asarray(t_draft) / np.asarray(t_target), is_scalar_input(batch, context))


#: Two contrasting workloads used in the chapter "The decision checklist".
#: "chat" takes the first source's worked example times (70B target, 8B
#: draft, T0 = 5.2 ms, T_draft = 2.5 ms for k = 5, T_verify = 6.0 ms,
#: T_overhead = 0.5 ms, alpha = 0.8) and adds a TTFT, an output length and a
#: setup cost of our choosing; "batch-summaries" is an illustrative
#: high-concurrency job with long prompts and a weaker draft. Times in ms.
EXAMPLES = {
    "chat": Workload(ttft=120.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0,
                     t_overhead=0.5, mean_output_tokens=400, t_setup=3.0, name="chat assistant"),
    "batch-summaries": Workload(ttft=2500.0, tpot=22.0, batch=64, alpha=0.65, k=5, t0=21.0, t_draft=9.0,
                                t_verify=48.0, t_overhead=2.0, mean_output_tokens=120, t_setup=40.0,
                                name="batch summaries"),
}

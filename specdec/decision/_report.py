"""The report of :func:`specdec.decision.decide`: the figures, the verdict and its reasons, in text, Markdown and JSON.

A private part of :mod:`specdec.decision` (which re-exports :class:`Decision`):
:class:`Decision` holds what ``decide`` computed and prints it three ways;
:func:`verdict_and_reasons` is the rule that turns the figures into one of
four verdicts, each with sentences carrying the numbers that decided.

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from specdec._units import TIME_UNITS
from specdec._units import format_number as num
from specdec.acceptance import _expected_tokens_array
from specdec.acceptance.engine_metrics import printed_figures
from specdec.acceptance.estimation import EngineReading
from specdec.decision.policy import RETUNE_GAIN
from specdec.tables import Table

__all__ = ["Decision", "verdict_and_reasons", "SCHEMA_VERSION", "CSV_FIELDS"]

#: Version of the layout of :meth:`Decision.to_dict` (and so of ``--json``); raised when a key changes meaning
#: or disappears. 2: ``schema_version``, ``engine``, ``notes`` and ``times_ms`` added (and since, without a new
#: version because nothing changed meaning, ``best_within_measured``).
SCHEMA_VERSION = 2
#: Columns of :meth:`Decision.to_csv` (times in milliseconds whatever the report's unit).
CSV_FIELDS = ("schema_version", "verdict", "engine", "k", "alpha", "alpha_low", "alpha_high", "expected_tokens",
              "speedup", "speedup_low", "speedup_high", "best_k", "best_speedup", "break_even_alpha", "margin",
              "t0_ms", "t_draft_step_ms", "t_verify_ms", "t_overhead_ms", "t_round_ms", "measured_speedup",
              "n_warnings", "best_k_within_measured", "best_speedup_within_measured")


#: The row of :func:`specdec.acceptance.engine_metrics.printed_figures` that each engine calls its acceptance rate.
_RATE_ROW: dict[str | None, tuple[str, str]] = {"vllm-v0": ("vLLM V0 (up to 0.9)", "Draft acceptance rate"),
             "sglang-legacy": ("SGLang, older (commit 78ac30c2)", "accept rate")}


def _printed_rate(engine: str | None, alpha: float, k: int) -> str:
    """The acceptance rate ``engine`` prints at ``alpha`` (i.i.d., ``k`` drafts): its name and value, as words."""
    wanted = _RATE_ROW.get(engine, ("vLLM V1", "Avg Draft acceptance rate"))
    _, printed_as, definition, value = next(row for row in printed_figures(alpha, k) if row[:2] == wanted)
    if engine in _RATE_ROW:
        return f"{wanted[0]}'s {printed_as} {value:.3f}, {definition}"
    return f"accepted / drafted {value:.3f}, the rate vLLM V1 and SGLang print"


@dataclass(frozen=True)
class Decision:
    """The report of :func:`decide`: the numbers, the verdict, its reasons, the warnings.

    Prints as text, Markdown (:meth:`to_markdown`) and JSON (:meth:`to_json`); times in ``time_unit``.

    Defined in chapter "Decide for your service".

    Attributes
    ----------
    alpha : float
        Per-position acceptance rate (i.i.d. model).
    alpha_interval : tuple of float or None
        ``(low, high)`` at ``confidence`` when counts were given.
    alpha_source, alpha_estimator : str
        Which measurement alpha came from, and how it was computed.
    k : int
        Draft tokens per round at which acceptance was measured.
    expected_tokens : float
        E[L] at ``k``: tokens per round.
    speedup : float
        ``t0 * E[L] / t_round`` at ``k``.
    speedup_interval : tuple of float or None
        The speedup at the ends of the alpha interval.
    best_k, best_speedup : int, float
        The best draft length and its speedup under ``verify_model``. A best k above the measured ``k`` rests on
        an extrapolated E[L] (an assumption, said in the report).
    best_within_measured : tuple or None
        ``(k, speedup)``: with per-position counts (E[L] measured up to ``k``), the best draft length no longer
        than the measured ``k``; None otherwise (the notes then say E[L] at other k is the i.i.d. model's).
    verify_model : dict
        How verification time grows with ``k``: ``kind``, ``intercept``,
        ``slope`` (time per draft position), ``measured`` ({k: time}), a
        sentence ``description``.
    sensitivity : dict or None
        With one measured k: best k and speedup if verification instead grew
        linearly from ``t0`` at k = 0 through the measured point.
    break_even_alpha : float
        The alpha at which speculation at ``k`` only breaks even (0.0 when any
        alpha wins, ``nan`` when none does).
    margin : float
        ``alpha - break_even_alpha``.
    verdict : str
        ``"speculate"``, ``"retune k"``, ``"not worth it"`` or ``"do not speculate"``.
    reasons, warnings : tuple of str
        Sentences with the numbers that decided, and the contradictions found.
    speedup_by_k : tuple of dict
        One row per k = 1 .. ``k_max``: ``k``, ``expected_tokens``,
        ``t_verify`` (the model's), ``speedup``, and with an alpha interval
        ``speedup_low`` and ``speedup_high`` (the speedup at its ends).
    counters : specdec.acceptance.estimation.EngineReading or None
        The counters as read by :func:`specdec.acceptance.estimation.read_engine_counters`.
    engine : str or None
        The engine the acceptance came from (named, or detected from the counters' form).
    notes : tuple of str
        How the inputs were read and which figures are assumptions (E[L] beyond the measured k).
    """

    alpha: float
    alpha_interval: tuple | None
    confidence: float
    alpha_source: str
    alpha_estimator: str
    k: int
    expected_tokens: float
    speedup: float
    speedup_interval: tuple | None
    best_k: int
    best_speedup: float
    verify_model: dict
    sensitivity: dict | None
    break_even_alpha: float
    margin: float
    break_even_length: float
    break_even_rate: float
    worth_it: float
    worth_it_alpha: float
    verdict: str
    reasons: tuple
    warnings: tuple
    time_unit: str
    t0: float
    t_draft_step: float
    t_draft_round: float
    t_verify: float
    t_overhead: float
    t_round: float
    c_draft: float
    c_verify: float
    speedup_by_k: tuple
    counters: EngineReading | None = None
    alpha_mle: tuple | None = None
    per_position: dict | None = None
    measured_speedup: float | None = None
    inputs: dict = field(default_factory=dict)
    engine: str | None = None
    notes: tuple = ()
    best_within_measured: tuple | None = None

    # -- text ---------------------------------------------------------------
    def _alpha_line(self) -> str:
        text = f"alpha = {self.alpha:.3f}"
        if self.alpha_interval is not None:
            lo, hi = self.alpha_interval
            text += f" ({self.confidence:.0%} interval {lo:.3f} .. {hi:.3f})"
        return text + f", from {self.alpha_source}"

    def _mle_line(self) -> str:
        assert self.alpha_mle is not None  # the line is written only when the counts give one
        a, lo, hi = self.alpha_mle
        return (f"maximum-likelihood alpha from the per-position counts (accepted / (accepted + rounds that stopped "
                f"before k)): {a:.3f} ({self.confidence:.0%} Wilson interval {lo:.3f} .. {hi:.3f})")

    def _cost_line(self) -> str:
        u = self.time_unit
        parts = [f"t0 = {num(self.t0)} {u}",
                 f"draft {self.k} x {num(self.t_draft_step)} = {num(self.t_draft_round)} {u}",
                 f"verify {num(self.t_verify)} {u}"]
        if self.t_overhead:
            parts.append(f"overhead {num(self.t_overhead)} {u}")
        return (", ".join(parts) + f": round {num(self.t_round)} {u} = {self.t_round / self.t0:.2f} target steps")

    def _best_line(self) -> str:
        line = f"best k = {self.best_k}: {self.best_speedup:.2f}x, with {self.verify_model['description']}"
        if self.best_k > self.k and self.best_within_measured is not None:
            kw, sw = self.best_within_measured
            line += (f"; beyond the measured k = {self.k}, so its E[L] is extrapolated: an assumption (within the "
                     f"measured k: best k = {kw}, {sw:.2f}x)")
        return line

    def _sensitivity_line(self) -> str | None:
        s = self.sensitivity
        if s is None:
            return None
        return (f"if verification instead grew {num(s['slope'])} {self.time_unit} per draft position "
                f"(a line from t0 at k = 0 through the measured point): best k = {s['best_k']}, "
                f"{s['best_speedup']:.2f}x")

    def _break_even_line(self) -> str:
        be = self.break_even_alpha
        if math.isnan(be):
            return (f"no alpha breaks even at k = {self.k}: a round costs {self.t_round / self.t0:.2f} target steps, "
                    f"more than the k + 1 = {self.k + 1} tokens it can emit")
        if be == 0.0:
            return f"any alpha > 0 breaks even at k = {self.k}: a round costs less than one target step"
        rate = _printed_rate(self.engine, be, self.k)
        return (f"break-even at k = {self.k}: alpha = {be:.3f} (mean acceptance length "
                f"{self.break_even_length:.2f}; {rate}); margin {self.margin:+.3f}")

    def __str__(self) -> str:
        lines = [f"Verdict: {self.verdict} ({self.speedup:.2f}x at k = {self.k})", ""]
        lines.append(self._alpha_line())
        if self.alpha_mle is not None:
            lines.append(self._mle_line())
        lines.append(f"E[L] = {self.expected_tokens:.2f} tokens per round at k = {self.k}")
        lines.append(self._cost_line())
        sp = f"speedup at k = {self.k}: {self.speedup:.2f}x"
        if self.speedup_interval is not None:
            sp += f" ({self.speedup_interval[0]:.2f} .. {self.speedup_interval[1]:.2f} over the alpha interval)"
        if self.measured_speedup is not None:
            sp += f"; measured TPOT ratio {self.measured_speedup:.2f}x"
        lines.append(sp)
        lines.append(self._best_line())
        sens = self._sensitivity_line()
        if sens:
            lines.append(sens)
        lines.append(self._break_even_line())
        lines.append("")
        lines.append("Reasons:")
        lines.extend(f"  - {r}" for r in self.reasons)
        if self.warnings:
            lines.append("")
            lines.append("Warnings:")
            lines.extend(f"  - {w}" for w in self.warnings)
        if self.notes:
            lines.append("")
            lines.append("Notes:")
            lines.extend(f"  - {n}" for n in self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"Decision(verdict={self.verdict!r}, alpha={self.alpha:.4g}, k={self.k}, "
                f"speedup={self.speedup:.4g}, best_k={self.best_k}, warnings={len(self.warnings)})")

    # -- Markdown -----------------------------------------------------------
    def to_markdown(self) -> str:
        """The report as Markdown: verdict, a table of the key figures, speedup by k, reasons, warnings."""
        u = self.time_unit
        alpha_cell = f"{self.alpha:.3f}"
        if self.alpha_interval is not None:
            alpha_cell += f" ({self.confidence:.0%} interval {self.alpha_interval[0]:.3f} .. {self.alpha_interval[1]:.3f})"
        be = self.break_even_alpha
        be_cell = ("none (no alpha pays)" if math.isnan(be) else
                   f"{be:.3f} (margin {self.margin:+.3f})")
        rows = [
            ("alpha", alpha_cell, self.alpha_source),
            (f"E[L] at k = {self.k}", f"{self.expected_tokens:.2f}", "tokens per round"),
            ("round time", f"{num(self.t_round)} {u}",
             f"{self.k} x {num(self.t_draft_step)} draft + {num(self.t_verify)} verify"
             + (f" + {num(self.t_overhead)} overhead" if self.t_overhead else "")),
            (f"speedup at k = {self.k}", f"{self.speedup:.2f}x",
             f"t0 x E[L] / round = {num(self.t0)} x {self.expected_tokens:.2f} / {num(self.t_round)}"),
            ("best k", f"{self.best_k} ({self.best_speedup:.2f}x)", self.verify_model["description"]
             + (f"; E[L] beyond the measured k = {self.k} is extrapolated: an assumption"
                if self.best_k > self.k and self.best_within_measured is not None else "")),
            (f"break-even alpha at k = {self.k}", be_cell,
             "" if math.isnan(be) else f"mean acceptance length {self.break_even_length:.2f}"),
        ]
        out = [f"**Verdict: {self.verdict}** ({self.speedup:.2f}x at k = {self.k})", "",
               Table(("", "value", "how"), tuple(rows), ("l", "l", "l")).to_markdown()]
        if self.alpha_mle is not None:
            out += ["", self._mle_line()[0].upper() + self._mle_line()[1:] + "."]
        sens = self._sensitivity_line()
        if sens:
            out += ["", f"Sensitivity: {sens}."]
        by_k = []
        for r in self.speedup_by_k:
            if r["k"] <= max(self.k, self.best_k) + 3:
                mark = " **(best)**" if r["k"] == self.best_k else (" (measured)" if r["k"] == self.k else "")
                by_k.append((f"{r['k']}{mark}", f"{r['expected_tokens']:.2f}", num(r["t_verify"]),
                             f"{r['speedup']:.2f}"))
        out += ["", "Speedup by k under the verification model:", "",
                Table(("k", "E[L]", f"t_verify model ({u})", "speedup"), tuple(by_k), ("r",) * 4).to_markdown()]
        row = self.speedup_by_k[self.k - 1] if self.k <= len(self.speedup_by_k) else None
        if row is not None and f"{row['speedup']:.2f}" != f"{self.speedup:.2f}":
            out += ["", f"At the measured k = {self.k} the table uses the model's verification time, "
                        f"{num(row['t_verify'])} {u}; the measured {num(self.t_verify)} {u} gives the "
                        f"{self.speedup:.2f}x above."]
        out += ["", "Reasons:", ""] + [f"- {r}" for r in self.reasons]
        if self.warnings:
            out += ["", "Warnings:", ""] + [f"- {w}" for w in self.warnings]
        if self.notes:
            out += ["", "Notes:", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(out)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    # -- JSON ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """The report as plain Python data (floats, ints, str, lists, dicts; ``nan`` as None)."""
        def f(x: float | None) -> float | None:
            if x is None:
                return None
            x = float(x)
            return None if math.isnan(x) else x

        def pair(p: tuple[float, float] | None) -> list[float | None] | None:
            return None if p is None else [f(p[0]), f(p[1])]

        to_ms = 10.0 ** (TIME_UNITS[self.time_unit] + 3)
        out = {
            "schema_version": SCHEMA_VERSION,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "warnings": list(self.warnings),
            "alpha": f(self.alpha),
            "alpha_interval": pair(self.alpha_interval),
            "confidence": f(self.confidence) if self.alpha_interval is not None else None,
            "alpha_source": self.alpha_source,
            "alpha_estimator": self.alpha_estimator,
            "k": int(self.k),
            "expected_tokens": f(self.expected_tokens),
            "speedup": f(self.speedup),
            "speedup_interval": pair(self.speedup_interval),
            "measured_speedup": f(self.measured_speedup),
            "best_k": int(self.best_k),
            "best_speedup": f(self.best_speedup),
            "best_within_measured": None if self.best_within_measured is None else {
                "k": int(self.best_within_measured[0]), "speedup": f(self.best_within_measured[1])},
            "verify_model": {
                "kind": self.verify_model["kind"],
                "intercept": f(self.verify_model["intercept"]),
                "slope": f(self.verify_model["slope"]),
                "measured": {str(k): f(v) for k, v in self.verify_model["measured"].items()},
                "description": self.verify_model["description"],
            },
            "sensitivity": None if self.sensitivity is None else {
                key: (int(v) if key == "best_k" else f(v)) for key, v in self.sensitivity.items()},
            "break_even_alpha": f(self.break_even_alpha),
            "margin": f(self.margin),
            "break_even_mean_acceptance_length": f(self.break_even_length),
            "break_even_draft_acceptance_rate": f(self.break_even_rate),
            "worth_it_speedup": f(self.worth_it),
            "worth_it_alpha": f(self.worth_it_alpha),
            "engine": self.engine,
            "notes": list(self.notes),
            "time_unit": self.time_unit,
            "times_ms": {key: f(getattr(self, key) * to_ms) for key in
                         ("t0", "t_draft_step", "t_draft_round", "t_verify", "t_overhead", "t_round")},
            "times": {"t0": f(self.t0), "t_draft_step": f(self.t_draft_step), "t_draft_round": f(self.t_draft_round),
                      "t_verify": f(self.t_verify), "t_overhead": f(self.t_overhead), "t_round": f(self.t_round)},
            "c_draft": f(self.c_draft),
            "c_verify": f(self.c_verify),
            "speedup_by_k": [{key: (int(v) if key == "k" else f(v)) for key, v in r.items()} for r in self.speedup_by_k],
            "counters": None if self.counters is None else {
                "source": self.counters.source,
                "num_drafts": f(self.counters.num_drafts), "num_draft_tokens": f(self.counters.num_draft_tokens),
                "num_accepted_tokens": f(self.counters.num_accepted_tokens),
                "accepted_per_position": (None if self.counters.accepted_per_position is None
                                          else [f(c) for c in self.counters.accepted_per_position]),
                "mean_acceptance_length": f(self.counters.mean_acceptance_length),
                "draft_acceptance_rate": f(self.counters.draft_acceptance_rate),
                "tokens_per_draft": f(self.counters.mean_draft_length)},
            "alpha_mle": None if self.alpha_mle is None else {
                "alpha": f(self.alpha_mle[0]), "interval": [f(self.alpha_mle[1]), f(self.alpha_mle[2])]},
            "per_position": None if self.per_position is None else {
                key: [f(x) for x in v] for key, v in self.per_position.items()},
            "inputs": self.inputs,
        }
        return out

    def to_csv(self, header: bool = True, digits: int = 12) -> str:
        """The key figures as one flat CSV row (with a header line), times in milliseconds: for spreadsheets."""
        if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
            raise ValueError(f"digits must be a whole number in [1, 17]; got {digits!r}")
        import csv
        import io

        to_ms = 10.0 ** (TIME_UNITS[self.time_unit] + 3)
        lo, hi = self.alpha_interval or (None, None)
        slo, shi = self.speedup_interval or (None, None)
        bw = self.best_within_measured
        values = dict(schema_version=SCHEMA_VERSION, verdict=self.verdict, engine=self.engine or "", k=self.k,
                      alpha=self.alpha, alpha_low=lo, alpha_high=hi, expected_tokens=self.expected_tokens,
                      speedup=self.speedup, speedup_low=slo, speedup_high=shi, best_k=self.best_k,
                      best_speedup=self.best_speedup, break_even_alpha=self.break_even_alpha, margin=self.margin,
                      t0_ms=self.t0 * to_ms, t_draft_step_ms=self.t_draft_step * to_ms,
                      t_verify_ms=self.t_verify * to_ms, t_overhead_ms=self.t_overhead * to_ms,
                      t_round_ms=self.t_round * to_ms, measured_speedup=self.measured_speedup,
                      n_warnings=len(self.warnings),
                      best_k_within_measured=None if bw is None else bw[0],
                      best_speedup_within_measured=None if bw is None else bw[1])

        def cell(v: str | float | None) -> str:
            if v is None or (isinstance(v, float) and math.isnan(v)):
                return ""
            return f"{v:.{digits}g}" if isinstance(v, float) else str(v)

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if header:
            writer.writerow(CSV_FIELDS)
        writer.writerow([cell(values[key]) for key in CSV_FIELDS])
        return buffer.getvalue()

    def to_json(self, indent: int | None = 2, digits: int = 12) -> str:
        """The report as JSON text; floats rounded to ``digits`` significant digits (1 to 17), ``nan`` as null."""
        if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
            raise ValueError(f"digits must be a whole number in [1, 17]; got {digits!r}")

        def rounded(obj: Mapping) -> Any:
            if isinstance(obj, float):
                return float(f"{obj:.{digits}g}")
            if isinstance(obj, dict):
                return {k: rounded(v) for k, v in obj.items()}
            if isinstance(obj, list):
                return [rounded(v) for v in obj]
            return obj
        return json.dumps(rounded(self.to_dict()), indent=indent, ensure_ascii=False, allow_nan=False)




def verdict_and_reasons(*, k: int, alpha: float, s_k: float, s_interval: tuple[float, ...] | None, best_k: int,
                        best_s: float, be: float, be_length: float, margin: float, wi: float, wi_alpha: float,
                        t_round_steps: float, sensitivity: dict[str, float] | None, conf: float, unit: str, drift: bool,
                        measured_k: int | None = None) -> tuple[str, list[str]]:
    """The verdict and its reasons, from the figures at the measured k and the best k.

    ``"speculate"`` when the speedup at ``k`` reaches the ``worth_it`` rule;
    ``"retune k"`` when only another ``k`` (better by more than :data:`specdec.decision.policy.RETUNE_GAIN`) does;
    ``"not worth it"`` between 1 and the rule; ``"do not speculate"`` below 1.

    Defined in chapter "Decide for your service".
    """
    reasons: list[str] = []
    assumed = (f" (E[L] beyond the measured k = {measured_k} is extrapolated: an assumption)"
               if measured_k is not None and best_k > measured_k else "")
    better = best_k != k and best_s > s_k * (1.0 + RETUNE_GAIN)  # retuning k pays only beyond RETUNE_GAIN
    if s_k >= wi:
        verdict = "speculate"
        reasons.append(f"at k = {k} speculation gives {s_k:.2f}x, above the {wi:g}x worth-it rule")
    elif better and best_s >= wi:
        verdict = "retune k"
        reasons.append(f"at k = {k} speculation gives only {s_k:.2f}x, but k = {best_k} would give {best_s:.2f}x "
                       f"under the verification model{assumed}: measure at k = {best_k} to confirm")
    elif max(s_k, best_s) >= 1.0:
        verdict = "not worth it"
        best = f" (k = {best_k}: {best_s:.2f}x)" if better else ""
        reasons.append(f"at k = {k} speculation gives {s_k:.2f}x{best}, below the {wi:g}x worth-it rule: "
                       f"probably not worth the complexity")
    else:
        verdict = "do not speculate"
        reasons.append(f"speculation is slower: {s_k:.2f}x at k = {k}, at best {best_s:.2f}x (k = {best_k})")
    if math.isnan(be):
        reasons.append(f"no alpha can pay at k = {k}: a round costs {t_round_steps:.2f} target steps, more than the "
                       f"{k + 1} tokens it can emit")
    elif be == 0.0:
        reasons.append(f"a round costs {t_round_steps:.2f} target steps, less than one: any alpha > 0 pays")
    else:
        reasons.append(f"alpha = {alpha:.3f} against a break-even alpha of {be:.3f} at k = {k} (mean acceptance "
                       f"length {be_length:.2f}): margin {margin:+.3f}")
    if math.isfinite(wi_alpha) and wi_alpha > 0 and verdict != "do not speculate":
        reasons.append(f"the {wi:g}x rule needs alpha >= {wi_alpha:.3f} at k = {k} "
                       f"(mean acceptance length {float(_expected_tokens_array(wi_alpha, k)):.2f})")
    if s_interval is not None and s_interval[0] < 1.0 <= s_interval[1]:
        reasons.append(f"uncertain: over the {conf:.0%} alpha interval the speedup ranges {s_interval[0]:.2f} .. "
                       f"{s_interval[1]:.2f}, across break-even; collect more rounds")
    if verdict == "speculate":
        if better:
            reasons.append(f"k = {best_k} would give {best_s:.2f}x under the verification model{assumed}")
        elif best_k == k:
            reasons.append(f"k = {k} is also the best k under the verification model")
        else:
            reasons.append(f"k = {k} is within {RETUNE_GAIN:.0%} of the best k under the verification model "
                           f"(k = {best_k}: {best_s:.2f}x){assumed}")
    if sensitivity is not None and sensitivity["best_k"] != best_k:
        reasons.append(f"the best k depends on how verification grows with k: {best_k} if constant, "
                       f"{sensitivity['best_k']} if it grows {num(sensitivity['slope'])} {unit} per position; "
                       f"measure verification at a second k")
    if drift:
        reasons.append("acceptance falls with draft position (see warnings): the i.i.d. model overstates long drafts")
    return verdict, reasons

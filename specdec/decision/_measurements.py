"""The measurements :func:`specdec.decision.decide` reads, each validated, and their consistency checks.

:func:`read_measurements` turns ``decide``'s keyword arguments into one :class:`Measurements`
record, raising for impossible inputs and warning, with the numbers, when measurements contradict
each other: a draft round that is not ``k`` steps, a draft step not shorter than the target step,
verification faster than a plain step or falling with ``k``, a length and a rate (or counters)
that disagree, what :func:`specdec.acceptance.estimation.read_engine_counters` reports, and a
TPOT ratio far from the model's speedup. "Agree" is within the rounding of the values as written
(:func:`specdec._units.printed_half_unit`).

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import math
import numbers
import os
import pathlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._units import TIME_UNITS, parse_time, printed_half_unit
from specdec._units import format_number as num
from specdec._validate import describe
from specdec.acceptance._engine_formats import _read_engine_source, check_engine, check_labels, check_source
from specdec.acceptance.engine_metrics import EngineSource, rate_reading
from specdec.acceptance.estimation import EngineReading, _read_one_argument

__all__ = ["TIME_TOLERANCE", "SPEEDUP_TOLERANCE", "K_LIMIT", "TIME_LIMIT_S", "Measurements", "read_measurements", "verify_at",
           "check_tpot", "real_number", "whole_number", "fit_line", "duration"]

#: Relative tolerance for two measured times that should agree (a draft round
#: against k draft steps; t0 against the TPOT without speculation).
TIME_TOLERANCE = 0.05
#: Relative tolerance between a measured TPOT ratio and the model's speedup.
SPEEDUP_TOLERANCE = 0.10
#: Largest draft length read (``k`` and ``k_max``): engines cap speculative tokens far below this.
K_LIMIT = 64
#: Longest time read, in seconds: no decode step, draft step or verification pass takes a minute.
TIME_LIMIT_S = 60.0


def real_number(value: Any, name: str) -> float:
    """A finite real number (not bool, not str), or a TypeError/ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {describe(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number; got {describe(x)}")
    return x


def whole_number(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """A whole number in range (``5.0`` is accepted, ``2.5`` is not), or an error naming ``name``."""
    x = real_number(value, name)
    rng = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    if x != round(x) or x < minimum or (maximum is not None and x > maximum):
        raise ValueError(f"{name} must be a whole number {rng}; got {describe(value)}")
    return int(round(x))


def duration(value: Any, name: str, unit: str, positive: bool) -> float:
    """A time parsed by :func:`parse_time`, checked to be > 0 (``positive``) or >= 0."""
    x = parse_time(value, name, unit)
    limit = TIME_LIMIT_S / 10.0 ** TIME_UNITS[unit]
    if x > limit:
        raise ValueError(f"{name} must be at most {num(limit)} {unit} ({TIME_LIMIT_S:g} s: no step of one model "
                         f"takes longer); got {x:.4g} {unit}")
    if positive and not x > 0:
        raise ValueError(f"{name} must be a time > 0; got {num(x, 12)} {unit}")
    if not positive and not x >= 0:
        raise ValueError(f"{name} must be a time >= 0; got {num(x, 12)} {unit}")
    return float(x)


def _verify_points(t_verify: Any, unit: str) -> dict[int, float]:
    """``{k: time}`` from a mapping, or ``{0: time}`` for one time whose k is the measured k."""
    if not isinstance(t_verify, Mapping):
        return {0: duration(t_verify, "t_verify", unit, positive=True)}
    if not t_verify:
        raise ValueError("t_verify must give at least one verification time; got an empty mapping")
    points: dict[int, float] = {}
    for raw_k, raw_t in t_verify.items():
        kk = None
        if isinstance(raw_k, numbers.Integral) and not isinstance(raw_k, (bool, np.bool_)):
            kk = int(raw_k)
        elif isinstance(raw_k, float) and raw_k.is_integer():
            kk = int(raw_k)
        elif isinstance(raw_k, str) and raw_k.strip().isdigit():
            kk = int(raw_k)
        if kk is None or kk < 1:
            raise ValueError(f"t_verify keys must be whole numbers k >= 1 (the draft length of each measurement); "
                             f"got {describe(raw_k)}")
        if kk in points:
            raise ValueError(f"t_verify gives k = {kk} twice")
        points[kk] = duration(raw_t, f"t_verify at k = {kk}", unit, positive=True)
    return dict(sorted(points.items()))


def _length(value: Any) -> float:
    x = real_number(value, "mean_acceptance_length")
    if x < 1.0:
        raise ValueError(f"mean_acceptance_length must be >= 1 tokens per round (vLLM and SGLang count the target's "
                         f"own token, so 1 means nothing accepted); got {describe(value)}")
    return x


def _rate(value: Any) -> float:
    if isinstance(value, str) and value.strip().endswith("%"):
        raise ValueError(f"draft_acceptance_rate must be a percentage in [0%, 100%]; got {describe(value)}")
    x = real_number(value, "draft_acceptance_rate")
    if not 0.0 <= x <= 1.0:
        hint = (f"; if {num(x)} is a percentage, write it with its sign ({num(x)}%, i.e. {num(x / 100)})"
                if 1.0 < x <= 100.0 else "")
        raise ValueError(f"draft_acceptance_rate must be a fraction in [0, 1] or a percentage with its % sign; got "
                         f"{describe(value)}{hint}")
    return x


def _read_counters(counters: Any, before: Any, k_hint: int | None, conf: float,
                   labels: dict[str, Any] | None) -> tuple[EngineReading | None, EngineSource | None]:
    """The counters through the one reader (impossible per-position counts as warnings, strict=False), or the
    mean of a form without counts: (reading or None, EngineSource or None)."""
    if isinstance(counters, EngineReading):
        if before is not None:
            raise ValueError("counters_before applies to raw counters; this reading was already made (pass the "
                             "earlier snapshot to read_engine_counters as before=)")
        if labels is not None:
            raise ValueError("labels applies to counters read here; this reading was already made")
        return counters, None
    if not isinstance(counters, (Mapping, str, bytes, os.PathLike, list, tuple, EngineSource)):
        raise TypeError(f"counters must be a dict of counters, the /metrics text, a file path, a sequence (num_drafts, "
                        f"num_draft_tokens, num_accepted_tokens[, accepted_per_position]) or an EngineReading; "
                        f"got {type(counters).__name__}")
    check_labels(labels)
    src = check_source(counters) if isinstance(counters, EngineSource) else _read_engine_source(counters, labels, k_hint,
                                                                                              "counters")
    if isinstance(before, EngineSource):
        before = check_source(before)
    if src.counters is None:
        if before is not None:
            raise ValueError(f"counters_before applies to counts; counters ({src.form}) holds only a mean")
        return None, src
    reading = _read_one_argument(src, before, labels, k_hint, False, conf)   # k_hint and conf checked by the caller
    if not isinstance(counters, EngineSource):
        from specdec.acceptance.engine_metrics import source_label

        reading = replace(reading, source=f"{source_label(counters)}: {src.form}"
                          + (" (the window between two snapshots)" if before is not None else ""))
    return reading, src


def _measured_k(k: Any, points: dict, reading: EngineReading | None, checked: bool = False) -> int:
    """The k at which acceptance was measured: given, or the only k of t_verify, or from the counters."""
    if k is not None:
        return k if checked else whole_number(k, "k", minimum=1, maximum=K_LIMIT)
    if len(points) == 1 and 0 not in points:
        return next(iter(points))
    if reading is not None and (reading.fixed_k or reading.accepted_per_position is not None):
        return int(reading.k)
    raise ValueError("k is required: the number of draft tokens per round when acceptance was measured")


def _draft_step(step_v: float | None, round_v: float | None, k: int, t0: float, u: str, warnings: list) -> float:
    """One draft step's time; a round and a step given together are cross-checked (the round wins)."""
    if step_v is not None and round_v is not None:
        expected_round = k * step_v
        if abs(round_v - expected_round) > TIME_TOLERANCE * max(round_v, expected_round):
            hint = ""
            if k > 1 and abs(round_v - step_v) <= TIME_TOLERANCE * max(round_v, step_v):
                hint = " (the two are nearly equal: was one of them passed as the other?)"
            warnings.append(f"t_draft_round = {num(round_v)} {u} is not k x t_draft_step = {k} x {num(step_v)} "
                            f"= {num(expected_round)} {u}{hint}; using the measured round, "
                            f"{num(round_v)} {u} ({num(round_v / k)} {u} per step)")
    step = round_v / k if round_v is not None else step_v
    assert step is not None  # read_measurements requires a draft step or a draft round
    if step >= t0:
        hint = ("; was the whole round's draft time passed as t_draft_step?"
                if round_v is None and k > 1 else "")
        warnings.append(f"one draft step costs {num(step)} {u}, not less than the target step t0 = {num(t0)} {u}"
                        f"{hint}")
    return step


def fit_line(ks: ArrayLike, ts: ArrayLike) -> tuple[float, float, float]:
    """Least-squares line ``t = intercept + slope k`` through two or more points: (intercept, slope, rms residual)."""
    ks = np.asarray(ks, dtype=float)
    ts = np.asarray(ts, dtype=float)
    k_mean, t_mean = float(ks.mean()), float(ts.mean())
    slope = float(((ks - k_mean) * (ts - t_mean)).sum() / ((ks - k_mean) ** 2).sum())
    intercept = t_mean - slope * k_mean
    rms = float(np.sqrt(np.mean((ts - (intercept + slope * ks)) ** 2)))
    return intercept, slope, rms


def _fit_verification(points: dict[int, float], unit: str, warnings: list) -> dict:
    """Verification time as a + b k: least squares over the measured k (b >= 0), or constant for one k."""
    ts = np.array(list(points.values()), dtype=float)
    measured_text = ", ".join(f"{num(t)} {unit} at k = {k}" for k, t in points.items())
    if len(points) == 1:
        return {"kind": "constant", "intercept": float(ts[0]), "slope": 0.0, "measured": dict(points),
                "description": f"verification time constant in k (one k measured: {measured_text})"}
    intercept, slope, rms = fit_line(list(points), ts)
    t_mean = float(ts.mean())
    if slope < 0:
        warnings.append(f"verification time falls with k in the measurements ({measured_text}; fitted slope "
                        f"{num(slope)} {unit} per draft position): a pass over more positions cannot be cheaper, "
                        f"so these were probably measured under different loads; verification is taken as "
                        f"constant at their mean, {num(t_mean)} {unit}")
        return {"kind": "constant (mean of measurements)", "intercept": float(t_mean), "slope": 0.0,
                "measured": dict(points),
                "description": f"verification time constant in k, at the mean of {measured_text}"}
    desc = (f"verification time {num(intercept)} + {num(slope)} x k {unit} (least squares over "
            f"{measured_text})")
    if len(points) > 2:
        desc = desc[:-1] + f"; rms residual {num(rms)} {unit})"
    return {"kind": "linear fit", "intercept": intercept, "slope": slope, "rms_residual": rms,
            "measured": dict(points), "description": desc}


def verify_at(model: dict, k: ArrayLike, floor: float) -> float | np.ndarray:
    """The verification model's time at ``k`` (array-like), never below ``floor``."""
    return np.maximum(model["intercept"] + model["slope"] * np.asarray(k, dtype=float), floor)


def _verification(points: dict, k: int, t0: float, u: str, warnings: list) -> tuple[dict[str, Any], float, float]:
    """The verification model, the time at the measured k, and the model's floor."""
    for kk, tv in points.items():
        if tv < t0:
            warnings.append(f"t_verify = {num(tv)} {u} at k = {kk} is below t0 = {num(t0)} {u}: a verification pass "
                            f"over k + 1 = {kk + 1} positions cannot be faster than one plain decode step at the same "
                            f"batch and context; were they measured under the same load?")
    model = _fit_verification(points, u, warnings)
    floor = min(t0, min(points.values()))
    if k in points:
        return model, points[k], floor
    if len(points) >= 2:
        tv_k = float(verify_at(model, k, floor))
        model["description"] += f"; {num(tv_k)} {u} at the measured k = {k}, from the fit"
        return model, tv_k, floor
    only = next(iter(points))
    raise ValueError(f"t_verify was measured at k = {only} only, but acceptance at k = {k}: give the verification "
                     f"time at k = {k}, or at a second k so that it can be fitted")


def _check_length_against_rate(length: float, rate: float, k: int, warnings: list, engine: str | None = None) -> None:
    """A mean acceptance length and a draft acceptance rate agree at k when L = 1 + rate * k (within rounding),
    or, for a named engine, when L is the length that engine's rate stands for."""
    if engine not in (None, "vllm", "sglang"):
        implied = rate_reading(rate, k, engine)
        slope = {"vllm-v0": max(float(sum(i * rate ** (i - 1) for i in range(1, k + 1))), 1.0),
                 "sglang-legacy": k + 1.0}[engine]
        if abs(implied - length) > printed_half_unit(length) + slope * printed_half_unit(rate):
            warnings.append(f"engine {engine!r}: a printed rate of {num(rate)} stands for a mean acceptance length "
                            f"of {implied:.2f} at k = {k}, not {num(length)} (different windows, or another engine "
                            f"version?); alpha is taken from the mean acceptance length")
        return
    tol = printed_half_unit(length) + k * printed_half_unit(rate)
    implied_length = 1.0 + rate * k
    if abs(implied_length - length) <= tol:
        return
    if rate > 0:
        per_draft = (length - 1.0) / rate
        text = (f"a mean acceptance length of {num(length)} and a draft acceptance rate of {num(rate)} imply "
                f"{per_draft:.2f} draft tokens per draft, not k = {k}")
        per_draft_tol = (printed_half_unit(length) + per_draft * printed_half_unit(rate)) / rate
        whole = round(per_draft)
        if whole >= 1 and whole != k and abs(per_draft - whole) <= per_draft_tol:
            text += f" (they agree at k = {whole}: is k right?)"
    else:
        text = (f"a draft acceptance rate of 0 means no draft was accepted, but the mean acceptance length is "
                f"{num(length)}")
    text += (f"; at k = {k} a length of {num(length)} means a rate of {(length - 1) / k:.3f}, and a rate of "
             f"{num(rate)} a length of {implied_length:.2f}")
    sglang_tol = printed_half_unit(rate) + printed_half_unit(length) / (k + 1)
    if abs(rate - length / (k + 1)) <= sglang_tol:
        text += (f"; {num(rate)} = {num(length)} / (k + 1) has the form of SGLang's 'accept rate' (accept len / "
                 f"speculative_num_draft_tokens), which is not vLLM's draft acceptance rate")
    elif engine is None and abs(rate_reading(rate, k, "vllm-v0") - length) <= printed_half_unit(length) + k * \
            printed_half_unit(rate):
        text += (f"; a rate of {num(rate)} read as alpha (vLLM V0's 'Draft acceptance rate') gives exactly this "
                 f"length: pass engine='vllm-v0' if it came from vLLM V0")
    warnings.append(text + "; alpha is taken from the mean acceptance length")


def _check_counters_against_metrics(reading: EngineReading, length_in: float | None, rate_in: float | None,
                                    warnings: list) -> None:
    """Counters and printed metrics of the same window agree within the printed rounding."""
    a, n, d = (num(x, 12) for x in (reading.num_accepted_tokens, reading.num_drafts, reading.num_draft_tokens))
    if length_in is not None and abs(reading.mean_acceptance_length - length_in) > printed_half_unit(length_in):
        warnings.append(f"the counters give a mean acceptance length of {reading.mean_acceptance_length:.3f} "
                        f"(1 + {a} / {n}), not {num(length_in)}; different windows? using the counters")
    if rate_in is not None and abs(reading.draft_acceptance_rate - rate_in) > printed_half_unit(rate_in):
        warnings.append(f"the counters give a draft acceptance rate of {reading.draft_acceptance_rate:.4f} "
                        f"({a} / {d}), not {num(rate_in)}; different windows? using the counters")


def check_tpot(tpot: tuple | None, s_k: float, t0: float, u: str, warnings: list) -> float | None:
    """The measured TPOT ratio (off / on), checked against the model's speedup and against t0."""
    if tpot is None:
        return None
    measured = tpot[0] / tpot[1]
    if abs(measured - s_k) > SPEEDUP_TOLERANCE * s_k:
        warnings.append(f"the measured TPOT ratio {num(tpot[0])} / {num(tpot[1])} = {measured:.2f}x differs from "
                        f"the model's {s_k:.2f}x by more than {SPEEDUP_TOLERANCE:.0%}: the times and the acceptance "
                        f"do not describe the same run (or per-round overhead is missing from t_overhead)")
    if t0 > tpot[0] * (1 + TIME_TOLERANCE):
        warnings.append(f"t0 = {num(t0)} {u} is longer than the time per output token without speculation, "
                        f"{num(tpot[0])} {u}: a decode step cannot take longer than the token it produces")
    return measured


@dataclass
class Measurements:
    """Every input of :func:`specdec.decision.decide`, validated and in one time unit, with the warnings so far.

    Defined in chapter "Decide for your service".

    Attributes
    ----------
    unit : str
        The time unit of every time below.
    t0, t_draft_step, t_overhead : float
        Target step, one draft step (from the round when a round was given), overhead.
    t_draft_step_given, t_draft_round_given : float or None
        The draft times as given.
    k : int
        Draft length at which acceptance was measured.
    points : dict
        Measured verification times ``{k: time}``.
    model : dict
        The verification model (``kind``, ``intercept``, ``slope``, ``measured``, ``description``).
    t_verify : float
        Verification time at ``k`` (measured, or from the model).
    floor : float
        The verification model's lower bound.
    reading : EngineReading or None
        The counters, read by :func:`specdec.acceptance.estimation.read_engine_counters`.
    length, rate : float or None
        The mean acceptance length and draft acceptance rate as given.
    tpot : tuple of float or None
        ``(tpot_off, tpot_on)``.
    warnings : list of str
        Contradictions found.
    engine : str or None
        The engine (given, or detected from the counters' form).
    engine_given : bool
        Whether the engine was named by the caller.
    notes : list of str
        How the counters were read.
    rate_length : float or None
        The mean acceptance length the draft acceptance rate stands for, read as ``engine``'s (vLLM V1's when
        no engine is known).
    length_source : str or None
        Where a mean acceptance length read from the counters came from.
    """

    unit: str
    t0: float
    t_draft_step: float
    t_draft_step_given: float | None
    t_draft_round_given: float | None
    t_overhead: float
    k: int
    points: dict
    model: dict
    t_verify: float
    floor: float
    reading: EngineReading | None
    length: float | None
    rate: float | None
    tpot: tuple | None
    warnings: list
    engine: str | None = None
    engine_given: bool = False
    notes: list = field(default_factory=list)
    rate_length: float | None = None
    length_source: str | None = None


def read_measurements(*, t0: float | str, t_verify: float | str | Mapping[str, Any], k: int | None,
                      t_draft_step: float | str | None, t_draft_round: float | str | None, t_overhead: float | str,
                      mean_acceptance_length: float | None, draft_acceptance_rate: float | None, counters: Any,
                      counters_before: dict[str, int] | pathlib.Path | None, tpot_off: float | str | None,
                      tpot_on: float | str | None, confidence: float, unit: str, engine: str | None = None,
                      labels: dict[str, Any] | None = None) -> Measurements:
    """Validate every measurement of :func:`specdec.decision.decide` and check them against each other.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    t0, t_verify, k, t_draft_step, t_draft_round, t_overhead, mean_acceptance_length, draft_acceptance_rate, \
counters, counters_before, tpot_off, tpot_on, engine, labels
        As for :func:`specdec.decision.decide`.
    confidence : float
        Level of the counters' intervals, in (0, 1) (already validated).
    unit : str
        The time unit of bare numbers (already validated).

    Returns
    -------
    Measurements
    """
    u = unit
    warnings: list[str] = []
    t0_v = duration(t0, "t0", u, positive=True)
    points = _verify_points(t_verify, u)
    if t_draft_step is None and t_draft_round is None:
        raise ValueError("t_draft_step or t_draft_round is required: the time of one draft step, or of all k "
                         "draft steps of a round")
    step_v = None if t_draft_step is None else duration(t_draft_step, "t_draft_step", u, positive=False)
    round_v = None if t_draft_round is None else duration(t_draft_round, "t_draft_round", u, positive=False)
    over_v = duration(t_overhead, "t_overhead", u, positive=False)
    length_in = None if mean_acceptance_length is None else _length(mean_acceptance_length)
    rate_in = None if draft_acceptance_rate is None else _rate(draft_acceptance_rate)
    engine_given = None if engine is None else check_engine(engine)
    if counters is None and length_in is None and rate_in is None:
        raise ValueError("counters, mean_acceptance_length or draft_acceptance_rate is required: "
                         "the acceptance measured by the engine")
    k_hint = None
    if k is not None:
        k_hint = whole_number(k, "k", minimum=1, maximum=K_LIMIT)
    elif len(points) == 1 and 0 not in points:
        k_hint = next(iter(points))
    if counters is None and counters_before is not None:
        raise ValueError("counters_before needs counters: the later snapshot whose window it opens")
    if counters is None and labels is not None:
        raise ValueError("labels selects series of counters: give counters too")
    reading, src = (None, None) if counters is None else _read_counters(counters, counters_before, k_hint,
                                                                         confidence, labels)
    notes: list[str] = []
    length_source = None
    if src is not None and src.counters is None:
        if length_in is not None:
            raise ValueError(f"counters ({src.form}) already gives a mean acceptance length "
                             f"({src.mean_acceptance_length:.4g}); give mean_acceptance_length or these counters")
        length_in = _length(src.mean_acceptance_length)
        if k_hint is None and src.k is not None:
            k_hint = src.k
        length_source = f"{src.form}: mean acceptance length {src.mean_acceptance_length:.4g}"
    if src is not None:
        notes += list(src.notes)
    elif reading is not None:
        notes += list(reading.notes)
    detected = src.engine if src is not None else (None if reading is None else reading.engine)
    if engine_given is not None and detected is not None and detected != engine_given and not (
            detected == "sglang?" and engine_given.startswith("sglang")):
        shown = src if src else reading
        assert shown is not None  # detected comes from one of them
        raise ValueError(f"engine is {engine_given!r}, but the counters are {shown.form} "
                         f"({detected}); give the engine that printed them, or leave engine out")
    engine_v = engine_given or (None if detected is None else detected.rstrip("?"))
    tpot_from_file = None if src is None else src.tpot_on_ms
    if tpot_on is None and tpot_from_file is not None:
        if tpot_off is not None:
            tpot_on = f"{tpot_from_file!r}ms"
            notes.append(f"tpot_on = {tpot_from_file:.4g} ms from the benchmark result (mean_tpot_ms)")
        else:
            notes.append(f"the benchmark measured a TPOT of {tpot_from_file:.4g} ms with speculation on; give "
                         f"tpot_off (the same benchmark without speculation) to compare the model with it")
    if (tpot_off is None) != (tpot_on is None):
        raise ValueError(f"{'tpot_on' if tpot_on is None else 'tpot_off'} is missing: give tpot_off and tpot_on "
                         "together (time per output token with speculation off and on)")
    tpot = None if tpot_off is None else (duration(tpot_off, "tpot_off", u, positive=True),
                                          duration(tpot_on, "tpot_on", u, positive=True))
    k_v = _measured_k(k_hint, points, reading, checked=k is not None)  # a k given was checked above
    if reading is not None:
        if reading.k != k_v:
            raise ValueError(f"counters were read with k = {reading.k} draft positions, but k = {k_v}")
        warnings += list(reading.warnings)
    if 0 in points:  # a single time given without its k: it is the time at the measured k
        points = {k_v: points[0]}
    step = _draft_step(step_v, round_v, k_v, t0_v, u, warnings)
    model, tv_k, floor = _verification(points, k_v, t0_v, u, warnings)
    if length_in is not None and length_in > k_v + 1:
        raise ValueError(f"mean_acceptance_length must be <= k + 1 = {k_v + 1} tokens per round at k = {k_v} "
                         f"(k drafts and one target token); got {describe(length_in)}")
    rate_length = None
    if rate_in is not None:
        rate_length = rate_reading(rate_in, k_v, engine_v or "vllm")
        if not 1.0 - 1e-12 <= rate_length <= k_v + 1 + 1e-12:
            raise ValueError(f"draft_acceptance_rate {num(rate_in)} read as {engine_v or 'vllm'}'s rate stands for a mean "
                             f"acceptance length of {rate_length:.3g}, outside [1, k + 1] = [1, {k_v + 1}]: not a "
                             f"rate this engine prints at k = {k_v}")
    if rate_in is not None and length_in is not None:
        _check_length_against_rate(length_in, rate_in, k_v, warnings, engine_v if engine_given else None)
    if reading is not None:
        _check_counters_against_metrics(reading, length_in, rate_in if engine_v in (None, "vllm", "sglang")
                                        else None, warnings)
    return Measurements(unit=u, t0=t0_v, t_draft_step=step, t_draft_step_given=step_v, t_draft_round_given=round_v,
                        t_overhead=over_v, k=k_v, points=points, model=model, t_verify=tv_k, floor=floor,
                        reading=reading, length=length_in, rate=rate_in, tpot=tpot, warnings=warnings,
                        engine=engine_v, engine_given=engine_given is not None, notes=notes,
                        rate_length=rate_length, length_source=length_source)


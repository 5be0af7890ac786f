"""Decide for your service: from an engine's metrics and a few measured times to a verdict.

:func:`decide` checks measurements in the forms engines and benchmarks print against each other
and returns a :class:`Decision`: alpha (with an interval when counts are given), E[L] and the
speedup at the measured ``k``, the best ``k``, the break-even alpha and the margin to it, and a
verdict with its reasons, as text, Markdown (:meth:`Decision.to_markdown`), JSON
(:meth:`Decision.to_json`) or CSV (:meth:`Decision.to_csv`). ``python -m specdec decide`` is the
command line. Counters are read by :func:`specdec.acceptance.estimation.read_engine_counters`; what
each engine's printed figures mean is in :data:`specdec.acceptance.engine_metrics.ENGINES`.

The JSON report starts with ``schema_version`` (:data:`SCHEMA_VERSION`), raised whenever a key
changes meaning or disappears; ``times_ms`` holds every time in milliseconds whatever
``time_unit`` is (the CSV row too).

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from specdec._datafiles import read_data_file
from specdec._units import TIME_UNITS, parse_time
from specdec._units import format_number as num
from specdec._validate import describe
from specdec.acceptance import _alpha_for_expected_tokens, _expected_tokens_array, alpha_from_mean_acceptance_length
from specdec.acceptance.engine_metrics import ENGINES, rate_reading
from specdec.decision import _report
from specdec.decision._measurements import (
    K_LIMIT,
    SPEEDUP_TOLERANCE,
    TIME_TOLERANCE,
    Measurements,
    check_tpot,
    duration,
    fit_line,
    read_measurements,
    real_number,
    verify_at,
    whole_number,
)
from specdec.decision._report import Decision, verdict_and_reasons
from specdec.decision.policy import WORTH_IT_SPEEDUP
from specdec.economics import _break_even_alpha, _required_alpha, _speedup

if TYPE_CHECKING:
    from specdec.acceptance.estimation import EngineReading

__all__ = ["decide", "Decision", "fit_round_times", "RoundTimeFit", "read_fields", "parse_time", "TIME_UNITS",
           "TIME_TOLERANCE", "SPEEDUP_TOLERANCE", "SCHEMA_VERSION", "ENGINES"]


#: Version of the layout of :meth:`Decision.to_dict` (and so of ``to_json`` and ``--json``): raised when a key
#: changes meaning or disappears. 2 added ``schema_version``, ``engine``, ``notes`` and ``times_ms``.
SCHEMA_VERSION = _report.SCHEMA_VERSION

def read_fields(path: Any) -> Any:
    """Read a TOML or JSON file of measurements (the ``--from FILE`` of the command line).

    Other names are tried as JSON, then TOML (``tomllib`` or ``tomli``).

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    dict or list
        The parsed content.
    """
    return read_data_file(pathlib.Path(path), "file")


@dataclass(frozen=True)
class _Acceptance:
    alpha: float
    source: str
    estimator: str
    interval: tuple | None = None
    mle: tuple | None = None
    per_position: dict | None = None
    drift: bool = False


_ESTIMATORS = {
    "fixed draft length": "method of moments: the alpha whose E[L] at k equals the counters' mean acceptance length; "
                          "delta-method interval (mean length +- z sd(L) / sqrt(rounds), sd(L) from the i.i.d. model, "
                          "mapped through the inverse of E[L]); assumes i.i.d. acceptance across positions and rounds",
    "mean draft length": "method of moments at the counters' mean draft length (rounds drafted fewer than k): the "
                         "alpha whose E[L] at that mean equals the mean acceptance length, which reads alpha low when "
                         "lengths vary; approximate delta-method interval",
    "per-position counts": "accepted drafts over the checks made at every position (per-position draft counts); "
                           "Wilson interval",
}


_RATE_MEANINGS = {
    "vllm": "accepted / drafted, vLLM V1's 'Avg Draft acceptance rate'",
    "sglang": "accepted / drafted, SGLang's 'accept rate' (0.5 and later)",
    "vllm-v0": "vLLM V0's 'Draft acceptance rate', an estimate of alpha itself",
    "sglang-legacy": "older SGLang's 'accept rate', accept len / (k + 1)",
}


def _acceptance(m: Measurements) -> _Acceptance:
    """alpha from the counters, else the mean acceptance length, else the draft acceptance rate."""
    k = m.k
    r = m.reading
    if r is not None:
        per_position = None
        if r.per_position is not None:
            assert r.conditional is not None  # a reading gives both or neither
            per_position = {"unconditional": r.per_position.tolist(), "conditional": r.conditional.tolist()}
        source = (f"counters: {num(r.num_accepted_tokens, 12)} accepted of {num(r.num_draft_tokens, 12)} drafted in "
                  f"{num(r.num_drafts, 12)} rounds, mean acceptance length {r.mean_acceptance_length:.3f}")
        estimator = _ESTIMATORS[r.alpha_method]
        if r.n_requests is not None:
            estimator += f"; the interval is a {r.interval_method}, which keeps each request's rounds together"
        return _Acceptance(float(r.alpha), source, estimator, r.alpha_interval, r.alpha_mle,
                           per_position, r.drift == "falls")
    if m.length is not None:
        source = f"mean acceptance length {num(m.length)} at k = {k}"
        if m.length_source is not None:
            source = f"{m.length_source} at k = {k} (a mean only: no interval)"
        return _Acceptance(
            alpha=float(_alpha_for_expected_tokens(m.length, k)),  # read_measurements kept it in [1, k + 1]
            source=source,
            estimator="the alpha whose E[L] at k equals the mean acceptance length (i.i.d. acceptance); no interval "
                      "without counts")
    engine = m.engine or "vllm"
    assert m.rate is not None  # neither counters nor a length: a rate was given
    if engine in ("vllm", "sglang"):
        source = f"draft acceptance rate {num(m.rate)} at k = {k} (accepted / drafted, not alpha)"
        estimator = ("the alpha whose (E[L] - 1) / k equals the draft acceptance rate (i.i.d. acceptance, every "
                     "round drafting k); no interval without counts")
    elif engine == "vllm-v0":
        source = f"vLLM V0 draft acceptance rate {num(m.rate)} (its estimate of alpha)"
        estimator = "vLLM V0's rate taken as alpha (positions passed / positions tested); no interval without counts"
    else:
        source = f"older SGLang accept rate {num(m.rate)} at k = {k} (accept len / (k + 1))"
        estimator = ("the alpha whose E[L] at k equals (k + 1) x the accept rate (i.i.d. acceptance); no interval "
                     "without counts")
    if engine == "vllm-v0":
        alpha = float(m.rate)
    else:
        assert m.rate_length is not None  # set with the rate for every engine but vLLM V0
        alpha = float(alpha_from_mean_acceptance_length(m.rate_length, k))
    return _Acceptance(alpha=alpha, source=source, estimator=estimator)


def _length_curve(acc: _Acceptance, m: Measurements, ks: np.ndarray) -> tuple[np.ndarray, str]:
    """E[L] at each k of ``ks``: measured up to the measured k when per-position counts exist (their partial sums),
    the i.i.d. model elsewhere (scaled to pass through a measured E[L] at k), and a note saying which is which."""
    k = m.k
    alpha = acc.alpha
    ks = np.asarray(ks)
    iid = np.asarray(_expected_tokens_array(alpha, ks), dtype=float)
    r = m.reading
    if r is not None and r.per_position is not None and r.per_position.size == k:
        assert r.conditional is not None  # a reading gives both or neither
        measured = 1.0 + np.cumsum(r.per_position)
        c = float(r.conditional[-1]) if r.drift else alpha
        tail = r.per_position[-1]
        beyond = np.array([measured[-1] + tail * sum(c ** j for j in range(1, int(kk) - k + 1)) for kk in ks])
        el = np.where(ks <= k, measured[np.minimum(ks, k) - 1], beyond)
        how = ("the last measured conditional rate" if r.drift else "the i.i.d. alpha")
        note = (f"E[L] up to the measured k = {k} comes from the measured per-position rates; beyond k = {k} it is "
                f"extrapolated with {how}, {c:.3f} per further position: an assumption, not a measurement")
        return el, note
    e_k = r.mean_acceptance_length if r is not None else float(_expected_tokens_array(alpha, k))
    e_iid = float(_expected_tokens_array(alpha, k))
    if r is not None and abs(e_iid - e_k) > 1e-9 * e_k and e_iid > 1.0:
        el = 1.0 + (e_k - 1.0) * (iid - 1.0) / (e_iid - 1.0)
        note = (f"E[L] at k = {k} is the measured {e_k:.3f}; at other k the i.i.d. model is scaled to pass through "
                f"it (rounds drafted fewer than k tokens): an assumption, not a measurement")
        return el, note
    return iid, (f"E[L] at k other than the measured k = {k} comes from the i.i.d. model at alpha = {alpha:.3f}: "
                 f"an assumption, not a measurement")


def _speedup_table(acc: _Acceptance, m: Measurements, model: dict, k_max: int,
                   interval: tuple[float, float] | None = None) -> tuple[tuple[Any, ...], int, float, str]:
    """Speedup at k = 1 .. k_max under a verification model (and at the ends of an alpha interval); the best k
    (first maximum) and its speedup, and the note on where E[L] came from."""
    alpha = acc.alpha
    ks = np.arange(1, k_max + 1)
    tv = np.asarray(verify_at(model, ks, m.floor))
    el, note = _length_curve(acc, m, ks)
    cost = m.t_draft_step * ks + tv + m.t_overhead
    s = m.t0 * el / cost

    def iid(a: float) -> np.ndarray:
        return np.asarray(_speedup(a, ks, m.t0, m.t_draft_step * ks, tv, m.t_overhead), dtype=float)

    best = int(ks[int(np.argmax(s))])  # first maximum: ties go to the smaller k
    rows = [{"k": int(k), "expected_tokens": float(e), "t_verify": float(v), "speedup": float(x)}
            for k, e, v, x in zip(ks, el, tv, s, strict=True)]
    if interval is not None:
        base = iid(alpha)
        for row, lo, hi, b, x in zip(rows, iid(interval[0]), iid(interval[1]), base, s, strict=True):
            row.update(speedup_low=float(x * lo / b), speedup_high=float(x * hi / b))
    return tuple(rows), best, float(s[best - 1]), note


def _verdict_word(s_k: float, wi: float) -> str:
    return "speculate" if s_k >= wi else ("not worth it" if s_k >= 1.0 else "do not speculate")


def _rate_readings(m: Measurements, t_round: float, wi: float) -> str:
    """A warning for a bare rate with no engine named: every reading, its alpha, speedup and verdict at k."""
    k = m.k
    assert m.rate is not None  # called for a bare rate only
    parts, verdicts, alphas, speedups = [], set(), [], []
    for engine in ("vllm", "vllm-v0", "sglang-legacy"):
        length = rate_reading(m.rate, k, engine)
        label = _RATE_MEANINGS[engine] if engine != "vllm" else (
            "accepted / drafted (vLLM V1's 'Avg Draft acceptance rate', SGLang 0.5's 'accept rate')")
        if not 1.0 <= length <= k + 1:
            parts.append(f"as {label}: impossible at k = {k} (a mean length of {length:.2f})")
            continue
        alpha = m.rate if engine == "vllm-v0" else float(alpha_from_mean_acceptance_length(length, k))
        s_k = m.t0 * length / t_round
        verdict = _verdict_word(s_k, wi)
        verdicts.add(verdict)
        alphas.append(alpha)
        speedups.append(s_k)
        parts.append(f"as {label}: alpha {alpha:.3f}, {s_k:.2f}x, \"{verdict}\"")
    same = ("the verdict is the same under each reading" if len(verdicts) == 1 else
            "the readings give different verdicts")
    apart = ("only the first reading is possible" if len(alphas) == 1 else
             f"the readings lie {max(alphas) - min(alphas):.3f} apart in alpha ({min(alphas):.3f} to "
             f"{max(alphas):.3f}) and {max(speedups) - min(speedups):.2f}x apart in speedup ({min(speedups):.2f}x "
             f"to {max(speedups):.2f}x)")
    return (f"a draft acceptance rate of {num(m.rate)} with no engine named can be read three ways at k = {k}: "
            + "; ".join(parts) + f"; {apart}; {same}. It is read here as accepted / drafted; name the engine "
            f"(engine=..., --engine {'|'.join(e for e in ENGINES if e != 'trtllm')}) to settle it")


@dataclass(frozen=True)
class RoundTimeFit:
    """Round times from benchmark runs at several k, and the least-squares line through them (:func:`fit_round_times`).

    Defined in chapter "Decide for your service".

    Attributes
    ----------
    k : tuple of int
        The draft lengths of the runs.
    mean_acceptance_length, tpot_on : tuple of float
        The runs' measurements, in the order of ``k``.
    round_time : tuple of float
        ``TPOT_on(k) x E[L](k)``: the time of one round (tokens per round times time per token).
    intercept, slope : float
        The line ``round_time = intercept + slope k``: the intercept is the verification pass's fixed part plus
        the per-round overhead, the slope one draft step plus the verification cost of one more position.
    rms_residual : float
        Root-mean-square distance of the round times from the line (0 with two runs).
    time_unit : str
        Unit of the times.
    fitted : tuple of float
        The line's round time at each ``k``.
    """

    k: tuple
    mean_acceptance_length: tuple
    tpot_on: tuple
    round_time: tuple
    intercept: float
    slope: float
    rms_residual: float
    time_unit: str
    fitted: tuple = ()

    def t_verify(self, t_draft_step: float | str, t_overhead: float | str = 0.0) -> dict:
        """Verification time at each k, ``round_time - k t_draft_step - t_overhead``, for ``decide(t_verify=...)``.

        The draft step (and the overhead) must come from elsewhere, e.g. a profiler trace: the line cannot
        split them off.

        Parameters
        ----------
        t_draft_step : float or str
            One draft step (a number in ``time_unit`` or a string with its unit), >= 0.
        t_overhead : float or str, optional
            Per-round overhead to keep out of the verification time, >= 0. Default 0.

        Returns
        -------
        dict
            ``{k: time}`` in ``time_unit``.
        """
        u = self.time_unit
        step = duration(t_draft_step, "t_draft_step", u, positive=False)
        over = duration(t_overhead, "t_overhead", u, positive=False)
        out = {k: t - k * step - over for k, t in zip(self.k, self.round_time, strict=True)}
        bad = [k for k, t in out.items() if not t > 0]
        if bad:
            raise ValueError(f"t_draft_step = {num(step)} {u} leaves no time for verification at k = {bad[0]} "
                             f"(round {num(dict(zip(self.k, self.round_time, strict=True))[bad[0]])} {u}): is it one step?")
        return out

    def __str__(self) -> str:
        runs = ", ".join(f"{num(t)} {self.time_unit} at k = {k}" for k, t in zip(self.k, self.round_time, strict=True))
        return (f"round time {num(self.intercept)} + {num(self.slope)} x k {self.time_unit} (least squares over "
                f"{runs}; rms residual {num(self.rms_residual)} {self.time_unit})")


def fit_round_times(tpot_on: Mapping[str, Any], mean_acceptance_length: Mapping[str, Any],
                    time_unit: str = "ms") -> RoundTimeFit:
    r"""Round times from benchmark runs at two or more k, and the line through them.

    :math:`T(k) = \mathrm{TPOT}_\mathrm{on}(k)\,E[L](k)` per run (e.g. ``vllm bench serve``'s "Mean
    TPOT (ms)" and "Acceptance length"), and the least-squares line ``intercept + slope k``: slope
    :math:`t_\mathrm{step} + b`, intercept :math:`a + t_\mathrm{overhead}`.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    tpot_on : mapping
        ``{k: time}``: time per output token with speculation on, per run (numbers in ``time_unit`` or strings
        with their unit).
    mean_acceptance_length : mapping
        ``{k: length}``: the same runs' mean acceptance length, bonus token included, in ``[1, k + 1]``.
    time_unit : str, optional
        Unit of bare numbers and of the result. Default ``"ms"``.

    Returns
    -------
    RoundTimeFit

    Examples
    --------
    >>> import specdec as sd
    >>> fit = sd.decision.fit_round_times({2: "6.5ms", 4: "5.8ms"}, {2: 2.4, 4: 3.2})
    >>> [round(t, 2) for t in fit.round_time], round(fit.slope, 3), round(fit.intercept, 2)
    ([15.6, 18.56], 1.48, 12.64)
    """
    if not isinstance(time_unit, str) or time_unit not in TIME_UNITS:
        raise ValueError(f"time_unit must be one of {', '.join(TIME_UNITS)}; got {describe(time_unit)}")
    for name, value in (("tpot_on", tpot_on), ("mean_acceptance_length", mean_acceptance_length)):
        if not isinstance(value, Mapping):
            raise TypeError(f"{name} must be a mapping {{k: value}} with one entry per run; got {describe(value)}")
    tpot_by_k = {whole_number(k, "tpot_on keys (k)"): v for k, v in tpot_on.items()}
    lengths_by_k = {whole_number(k, "mean_acceptance_length keys (k)"): v for k, v in mean_acceptance_length.items()}
    ks = sorted(tpot_by_k)
    if len(ks) < 2 or len(ks) != len(tpot_on):
        raise ValueError(f"tpot_on needs runs at two or more different k; got k = {describe(list(tpot_on))}")
    if sorted(lengths_by_k) != ks:
        raise ValueError(f"mean_acceptance_length must give the same k as tpot_on ({describe(ks)}); got "
                         f"{describe(sorted(lengths_by_k))}")
    tpots, lengths = [], []
    for k in ks:
        tpots.append(duration(tpot_by_k[k], f"tpot_on at k = {k}", time_unit, positive=True))
        length = real_number(lengths_by_k[k], f"mean_acceptance_length at k = {k}")
        if not 1.0 <= length <= k + 1:
            raise ValueError(f"mean_acceptance_length at k = {k} must be in [1, k + 1] = [1, {k + 1}]; got "
                             f"{describe(lengths_by_k[k])}")
        lengths.append(length)
    rounds = [t * length for t, length in zip(tpots, lengths, strict=True)]
    intercept, slope, rms = fit_line(ks, rounds)
    return RoundTimeFit(tuple(ks), tuple(lengths), tuple(tpots), tuple(rounds), intercept, slope, rms, time_unit,
                        tuple(intercept + slope * k for k in ks))


def decide(*, t0: float | str, t_verify: float | str | Mapping[str, Any], k: int | None = None,
           t_draft_step: float | str | None = None, t_draft_round: float | str | None = None,
           t_overhead: float | str = 0.0, mean_acceptance_length: float | None = None,
           draft_acceptance_rate: float | None = None,
           counters: Mapping[str, Any] | str | bytes | pathlib.Path | Sequence[Any] | EngineReading | None = None,
           counters_before: dict[str, int] | pathlib.Path | None = None, tpot_off: float | str | None = None,
           tpot_on: float | str | None = None, confidence: float = 0.95, k_max: int = 16,
           worth_it: float = WORTH_IT_SPEEDUP, time_unit: str = "ms", engine: str | None = None,
           labels: dict[str, Any] | None = None) -> Decision:
    r"""Does speculative decoding pay for this service, by how much, with which k?

    Acceptance in any form engines print (counters, a mean acceptance length or a draft acceptance
    rate; several are cross-checked), the draft time per step or per round, the verification time at
    one or more ``k`` and the plain step ``t0``; keyword-only. The model (stated in the report):

    * i.i.d. acceptance, :math:`E[L] = \sum_{i=0}^{k} \alpha^i`; alpha from the counters (method of
      moments with :func:`specdec.acceptance.estimation.moment_alpha_interval`, plus the MLE
      ``S / (S + F)`` with per-position counts), else the mean acceptance length, else the rate;
    * speedup :math:`T_0 E[L] / (k\,t_\text{step} + T_\text{verify}(k) + T_\text{overhead})`;
    * verification ``a + b k`` (``b >= 0``) by least squares from two or more ``k``; from one ``k``
      constant (the report also shows the best ``k`` were it linear from ``t0`` at ``k = 0``);
      floored at the smaller of ``t0`` and the smallest measured time; the best ``k`` is the first
      maximum over ``1 .. k_max``, or the measured ``k`` when that is faster;
    * break-even alpha :func:`specdec.economics.break_even_alpha`, the alpha for ``worth_it``
      :func:`specdec.economics.required_alpha`.

    Numbers "agree" when equal within the rounding of the values as written (``3.1`` is
    [3.05, 3.15]). Contradictions become ``warnings``; impossible inputs raise ``ValueError``.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    t0 : float or str
        One plain target decode step at the operating batch, > 0 (a number in
        ``time_unit`` or a string with its unit, ``"12ms"``).
    t_verify : float, str or mapping
        The verification pass at ``k`` (> 0), or a mapping ``{k: time}`` of
        passes measured at several ``k``.
    k : int, optional
        Draft tokens per round when acceptance was measured (vLLM's
        ``num_speculative_tokens``), in [1, 64]. Needed unless ``t_verify`` has a
        single key, the per-position counts have ``k`` entries, or the
        counters' draft tokens per draft is a whole number.
    t_draft_step : float or str, optional
        One draft step (one draft token), >= 0.
    t_draft_round : float or str, optional
        All ``k`` draft steps of a round together, >= 0. Give this or
        ``t_draft_step`` (both: they are cross-checked, the round is used).
    t_overhead : float or str, optional
        Per-round sampling, acceptance test and KV rollback, >= 0. Default 0.
    mean_acceptance_length : float, optional
        Tokens per round with the bonus token (vLLM's "Mean acceptance
        length", SGLang's "accept len"), in [1, k + 1].
    draft_acceptance_rate : float, optional
        A printed acceptance rate as a fraction, in [0, 1] (vLLM's log
        prints a percentage: 62.0% is 0.62; the command line takes ``62%``),
        read as ``engine``'s (vLLM V1 and SGLang 0.5: accepted / drafted; vLLM V0: alpha; older
        SGLang: accept len / (k + 1)). With no engine named, accepted / drafted, and a warning
        gives every reading.
    counters : mapping, str, bytes, pathlib.Path, sequence or EngineReading, optional
        Whatever the engine printed, detected by its form
        (:func:`specdec.acceptance.engine_metrics.read_engine_source`): vLLM V1 and V0
        ``/metrics`` pages, vLLM's "SpecDecoding metrics" and "Speculative
        metrics" log lines, SGLang's "Decode batch" lines and
        ``sglang:spec_accept_length`` gauges (a mean only: no interval), a
        ``vllm bench serve --save-result`` JSON (its ``mean_tpot_ms`` is taken
        as ``tpot_on``), a Prometheus ``/api/v1/query`` answer,
        ``LLM.get_metrics()``, per-request counts (the interval then resamples
        whole requests); also a dict keyed by vLLM's metric names or the plain
        names (``num_drafts``, ``num_draft_tokens``, ``num_accepted_tokens``,
        ``accepted_per_position``), a file (a path, or a string without
        whitespace; gzip and a UTF-8 byte-order mark are read) holding any of
        these, a sequence ``(num_drafts, num_draft_tokens,
        num_accepted_tokens[, accepted_per_position])``, or a reading already
        made. Impossible per-position counts are warnings here
        (``strict=False``).
    counters_before : same forms as ``counters``, optional
        An earlier snapshot of the same counters: the window is the
        difference (engines count from their start).
    tpot_off, tpot_on : float or str, optional
        Measured time per output token with speculation off and on at the
        operating concurrency (both or neither); their ratio is checked
        against the model's speedup.
    confidence : float, optional
        Level of the alpha interval, in (0, 1). Default 0.95.
    k_max : int, optional
        Largest ``k`` searched for the best ``k``, in [1, 64]. Default 16.
    worth_it : float, optional
        The speedup below which speculation is "not worth it", > 1
        (the checklist's rule, 1.3).
    time_unit : str, optional
        Unit of bare numbers and of the report: ``"s"``, ``"ms"`` or ``"us"``.
    engine : str, optional
        Who printed the acceptance, one of :data:`specdec.acceptance.engine_metrics.ENGINES` (``"vllm"``,
        ``"vllm-v0"``, ``"sglang"``, ``"sglang-legacy"``, ``"trtllm"``):
        it says what ``draft_acceptance_rate`` means. Detected from the form
        of ``counters`` when left out; naming another engine than the form's
        is an error.
    labels : dict, optional
        ``{label: value}``: read only the series of ``counters`` carrying
        these labels (one model or one engine of a page holding several),
        e.g. ``{"model_name": "m"}``.

    Returns
    -------
    Decision

    Examples
    --------
    >>> import specdec as sd
    >>> d = sd.decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, mean_acceptance_length=3.1)
    >>> round(d.alpha, 3), round(d.speedup, 2), d.verdict
    (0.758, 2.02, 'speculate')
    """
    if not isinstance(time_unit, str) or time_unit not in TIME_UNITS:
        raise ValueError(f"time_unit must be one of {', '.join(TIME_UNITS)}; got {describe(time_unit)}")
    conf = real_number(confidence, "confidence")
    if not 0.0 < conf < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {describe(confidence)}")
    km = whole_number(k_max, "k_max", minimum=1, maximum=K_LIMIT)
    wi = real_number(worth_it, "worth_it")
    if wi <= 1.0:
        raise ValueError(f"worth_it must be a speedup > 1; got {describe(worth_it)}")
    m = read_measurements(t0=t0, t_verify=t_verify, k=k, t_draft_step=t_draft_step, t_draft_round=t_draft_round,
                          t_overhead=t_overhead, mean_acceptance_length=mean_acceptance_length,
                          draft_acceptance_rate=draft_acceptance_rate, counters=counters,
                          counters_before=counters_before, tpot_off=tpot_off,
                          tpot_on=tpot_on, confidence=conf, unit=time_unit, engine=engine, labels=labels)
    u, k_v, t0_v, step, tv_k, over_v = m.unit, m.k, m.t0, m.t_draft_step, m.t_verify, m.t_overhead
    acc = _acceptance(m)
    alpha = acc.alpha

    # -- the figures at the measured k -------------------------------------
    draft_round = step * k_v
    el_iid = float(_expected_tokens_array(alpha, k_v))
    el = float(m.reading.mean_acceptance_length) if m.reading is not None else el_iid  # measured, when counted
    t_round = draft_round + tv_k + over_v
    s_k = t0_v * el / t_round
    c_draft = step / t0_v
    c_verify = (tv_k + over_v) / t0_v
    s_interval = None if acc.interval is None else tuple(
        float(_speedup(a, k_v, t0_v, draft_round, tv_k, over_v)) * el / el_iid for a in acc.interval)
    be = float(_break_even_alpha(k_v, c_draft, c_verify))
    be_length = k_v * c_draft + c_verify  # E[L] must exceed the round's cost in target steps
    be_rate = (be_length - 1.0) / k_v if math.isfinite(be) else float("nan")
    margin = alpha - be if math.isfinite(be) else float("nan")
    wi_alpha = float(_required_alpha(wi, k_v, c_draft, c_verify))

    # -- best k under the verification model (and the other model, with one k) --
    rows, best_k, best_s, curve_note = _speedup_table(acc, m, m.model, km, acc.interval)
    if k_v <= km and s_k > best_s:
        # the search includes the measured k, at its measured verification time: the best k never shows less
        best_k, best_s = k_v, s_k
    # with per-position counts E[L] is measured up to k: the best k within it, and a caveat on any best k above it
    counted = m.reading is not None and m.reading.per_position is not None and m.reading.per_position.size == k_v
    within = [(r["k"], s_k if r["k"] == k_v else r["speedup"]) for r in rows if r["k"] <= k_v]
    best_within = max(within, key=lambda row: (row[1], -row[0])) if within and counted else None
    sensitivity = None
    if len(m.points) == 1:
        slope = max((tv_k - t0_v) / k_v, 0.0)
        line = {"intercept": tv_k - slope * k_v, "slope": slope}
        _, line_best, line_s, _ = _speedup_table(acc, m, line, km)
        sensitivity = {"slope": slope, "best_k": line_best, "best_speedup": line_s}

    warnings = m.warnings
    measured = check_tpot(m.tpot, s_k, t0_v, u, warnings)
    if m.rate is not None and m.length is None and m.reading is None and not m.engine_given:
        warnings.append(_rate_readings(m, t_round, wi))
    notes = list(m.notes) + [curve_note]
    verdict, reasons = verdict_and_reasons(
        k=k_v, alpha=alpha, s_k=s_k, s_interval=s_interval, best_k=best_k, best_s=best_s, be=be,
        be_length=be_length, margin=margin, wi=wi, wi_alpha=wi_alpha, t_round_steps=t_round / t0_v,
        sensitivity=sensitivity, conf=conf, unit=u, drift=acc.drift, measured_k=k_v if counted else None)

    inputs = {"t0": t0_v, "t_draft_step": m.t_draft_step_given, "t_draft_round": m.t_draft_round_given,
              "t_verify": {str(kk): v for kk, v in m.points.items()}, "t_overhead": over_v, "k": k_v,
              "mean_acceptance_length": m.length, "draft_acceptance_rate": m.rate,
              "counters": None if m.reading is None else m.reading.source,
              "tpot_off": None if m.tpot is None else m.tpot[0], "tpot_on": None if m.tpot is None else m.tpot[1],
              "engine": m.engine, "labels": None if labels is None else {str(a): str(b) for a, b in labels.items()}}
    return Decision(
        alpha=alpha, alpha_interval=acc.interval, confidence=conf, alpha_source=acc.source,
        alpha_estimator=acc.estimator, k=k_v, expected_tokens=el, speedup=s_k, speedup_interval=s_interval,
        best_k=best_k, best_speedup=best_s, verify_model=m.model, sensitivity=sensitivity,
        break_even_alpha=be, margin=margin, break_even_length=be_length, break_even_rate=be_rate,
        worth_it=wi, worth_it_alpha=wi_alpha, verdict=verdict, reasons=tuple(reasons), warnings=tuple(warnings),
        time_unit=u, t0=t0_v, t_draft_step=step, t_draft_round=draft_round, t_verify=tv_k, t_overhead=over_v,
        t_round=t_round, c_draft=c_draft, c_verify=c_verify, speedup_by_k=rows, counters=m.reading,
        alpha_mle=acc.mle, per_position=acc.per_position, measured_speedup=measured, inputs=inputs,
        engine=m.engine, notes=tuple(notes), best_within_measured=best_within,
    )

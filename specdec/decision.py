"""Decide for your service: from an engine's metrics and a few measured times to a verdict.

:func:`decide` takes measurements in the forms serving engines and benchmarks
print them, checks them against each other, and returns a :class:`Decision`:
alpha (with an interval when counts are given), E[L] and the speedup at the
measured ``k``, the best ``k`` under a stated model of how verification grows
with ``k``, the break-even alpha and the margin to it, and a verdict with its
reasons. The report prints as text (``str``), Markdown (:meth:`Decision.to_markdown`)
and JSON (:meth:`Decision.to_json`). ``python -m specdec decide`` is the same
function on the command line (:mod:`specdec.cli`).

What the engines print (checked in their source code)
-----------------------------------------------------
* **vLLM** (V1 engine, ``vllm/v1/spec_decode/metrics.py``) counts, over a
  window, ``num_drafts`` (verification rounds, one per request per step),
  ``num_draft_tokens`` (tokens proposed), ``num_accepted_tokens`` (drafts
  accepted) and ``num_accepted_tokens_per_pos`` (rounds whose draft at
  position ``i`` was accepted; ``k`` entries). Prometheus exports them as
  ``vllm:spec_decode_num_drafts``, ``vllm:spec_decode_num_draft_tokens``,
  ``vllm:spec_decode_num_accepted_tokens`` and
  ``vllm:spec_decode_num_accepted_tokens_per_pos`` (label ``position``,
  0-based); the ``/metrics`` text appends ``_total`` to each. The log line
  ``SpecDecoding metrics: Mean acceptance length: ..., Accepted: N tokens,
  Drafted: N tokens, Per-position acceptance rate: ..., Avg Draft acceptance
  rate: ...%`` derives **mean acceptance length = 1 + accepted / drafts**
  (the bonus token counted: this is E[L]) and **draft acceptance rate =
  accepted / draft tokens** (printed as a percentage). The rate is *not*
  alpha: drafts after the first rejection count as drafted but never had a
  chance. Per-position rates are accepted at position ``i`` / drafts.
* **SGLang** (``python/sglang/srt/managers/scheduler_metrics_mixin.py``)
  logs ``Decode batch, ... accept len: X, accept rate: Y, ...`` and exports
  the gauges ``sglang:spec_accept_length`` and ``sglang:spec_accept_rate``.
  Its accept length is (accepted drafts + one token per request) / rounds,
  bonus included like vLLM's, so it is E[L] too. Its accept rate is that
  same numerator over rounds x ``speculative_num_draft_tokens`` (``k + 1``
  for a chain draft): **E[L] / (k + 1)**, not vLLM's ``(E[L] - 1) / k``.
  Pass SGLang's accept length as ``mean_acceptance_length``; do not pass
  its accept rate as ``draft_acceptance_rate`` (decide recognizes the
  pattern and says so in its warning).

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import json
import math
import numbers
import pathlib
import re
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Mapping

import numpy as np

# --- every specdec function decide uses, in one block (repoint here when modules move) ---
from .acceptance import (
    alpha_from_draft_acceptance_rate,
    alpha_from_mean_acceptance_length,
    expected_tokens,
    tokens_per_round_variance,
)
from .checklist import WORTH_IT_SPEEDUP
from .economics import break_even_alpha, required_alpha, speedup
from .estimation import wilson_interval
# ------------------------------------------------------------------------------------------

__all__ = [
    "decide",
    "Decision",
    "Counters",
    "read_counters",
    "read_fields",
    "parse_time",
    "TIME_UNITS",
    "COUNTER_NAMES",
]

#: Time units accepted in strings such as ``"12ms"``, as powers of ten of a second.
TIME_UNITS = {"s": 0, "ms": -3, "us": -6, "\u00b5s": -6, "\u03bcs": -6, "ns": -9}

#: Accepted names of each counter in a mapping or file: the plain names, then
#: vLLM's Prometheus names (with and without the ``_total`` of the /metrics text).
COUNTER_NAMES = {
    "num_drafts": ("num_drafts", "vllm:spec_decode_num_drafts", "vllm:spec_decode_num_drafts_total"),
    "num_draft_tokens": ("num_draft_tokens", "vllm:spec_decode_num_draft_tokens",
                         "vllm:spec_decode_num_draft_tokens_total"),
    "num_accepted_tokens": ("num_accepted_tokens", "vllm:spec_decode_num_accepted_tokens",
                            "vllm:spec_decode_num_accepted_tokens_total"),
    "accepted_per_position": ("accepted_per_position", "num_accepted_tokens_per_pos",
                              "vllm:spec_decode_num_accepted_tokens_per_pos",
                              "vllm:spec_decode_num_accepted_tokens_per_pos_total"),
}

#: Relative tolerance for two measured times that should agree (a draft round
#: against k draft steps; a measured speedup against the model's).
TIME_TOLERANCE = 0.05
SPEEDUP_TOLERANCE = 0.10

_TIME_RE = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan)\s*([^\s\d.+-][^\s]*)?\s*$",
                      re.IGNORECASE)


# --------------------------------------------------------------------------
# small helpers (formatting and input parsing)
# --------------------------------------------------------------------------


def _num(x: float, digits: int = 3) -> str:
    """A number for prose: ``digits`` significant digits, no exponent for everyday sizes."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "infinite"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"
    text = f"{x:.{digits}g}"
    if "e" in text:
        text = f"{x:.{digits + 3}f}".rstrip("0").rstrip(".")
    return text


def _plain(x: Any) -> str:
    """A received value for an error message: plain numbers, never ``np.float64(...)``."""
    if isinstance(x, (bool, np.bool_)):
        return repr(bool(x))
    if isinstance(x, numbers.Integral):
        return str(int(x))
    if isinstance(x, numbers.Real):
        return repr(float(x))
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _real(value: Any, name: str) -> float:
    """A finite real number (not bool, not str) or a TypeError/ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {_plain(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number; got {_plain(x)}")
    return x


def _printed_half_unit(x: float) -> float:
    """Half a unit in the last decimal of ``x`` as written (its shortest repr).

    ``3.1`` was printed with one decimal, so it stands for [3.05, 3.15]; a
    computed float with 17 digits stands for itself (a 1e-9 relative floor).
    """
    text = repr(float(x))
    if "e" in text or "E" in text:
        mantissa, exponent = text.lower().split("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        half = 0.5 * 10.0 ** (int(exponent) - decimals)
    else:
        decimals = len(text.split(".")[1]) if "." in text else 0
        half = 0.5 * 10.0 ** (-decimals)
    return max(half, 1e-9 * abs(x))


def parse_time(value: Any, name: str = "time", unit: str = "ms") -> float:
    """A duration as a number in ``unit``: from a string with a unit, or a number already in ``unit``.

    Strings carry their unit: ``"12ms"``, ``"1.1 ms"``, ``"0.012s"``,
    ``"850us"`` (also ``"850µs"``), ``"3e-3 s"``. Numbers are taken to be in
    ``unit`` already. The result is checked to be finite; the sign is left
    to the caller.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    value : str or float
        The duration.
    name : str
        Parameter name for error messages.
    unit : str
        The unit of the result (and of bare numbers): one of :data:`TIME_UNITS`.

    Returns
    -------
    float
        The duration in ``unit``.

    Examples
    --------
    >>> from specdec.decision import parse_time
    >>> parse_time("1.1ms"), parse_time("850us"), parse_time(12.0)
    (1.1, 0.85, 12.0)
    >>> parse_time("0.5 s", unit="s")
    0.5
    """
    if unit not in TIME_UNITS:
        raise ValueError(f"unit must be one of {', '.join(TIME_UNITS)}; got {_plain(unit)}")
    if isinstance(value, str):
        match = _TIME_RE.match(value)
        if match is None:
            raise ValueError(f"{name} must be a duration such as '12ms' (units {', '.join(TIME_UNITS)}); "
                             f"got {value!r}")
        number, src = match.group(1), match.group(2)
        if src is None:
            raise ValueError(f"{name} needs a unit: {value!r} could be seconds or milliseconds "
                             f"(write e.g. '{number}ms'; units {', '.join(TIME_UNITS)})")
        if src not in TIME_UNITS:
            raise ValueError(f"{name} has an unknown unit {src!r} in {value!r} (use {', '.join(TIME_UNITS)})")
        x = float(number)
        if not math.isfinite(x):
            raise ValueError(f"{name} must be a finite duration; got {value!r}")
        shift = TIME_UNITS[src] - TIME_UNITS[unit]
        return x if shift == 0 else (x * 10.0 ** shift if shift > 0 else x / 10.0 ** (-shift))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a duration: a number in {unit} or a string such as '12ms'; "
                        f"got {_plain(value)}")
    return _real(value, name)


# --------------------------------------------------------------------------
# counters
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Counters:
    """An engine's speculative decoding counters over one window.

    Defined in chapter "Decide for your service".

    Attributes
    ----------
    num_drafts : float
        Verification rounds (vLLM: ``vllm:spec_decode_num_drafts``), > 0.
    num_draft_tokens : float
        Draft tokens proposed, > 0.
    num_accepted_tokens : float
        Draft tokens accepted, in [0, num_draft_tokens].
    accepted_per_position : tuple of float or None
        Rounds whose draft at position 1, 2, ..., k was accepted.
    source : str
        Where they came from (for the report).
    """

    num_drafts: float
    num_draft_tokens: float
    num_accepted_tokens: float
    accepted_per_position: tuple | None = None
    source: str = "counters"

    @property
    def mean_acceptance_length(self) -> float:
        """``1 + accepted / drafts``: vLLM's "Mean acceptance length" (bonus token counted)."""
        return 1.0 + self.num_accepted_tokens / self.num_drafts

    @property
    def draft_acceptance_rate(self) -> float:
        """``accepted / draft tokens``: vLLM's "Draft acceptance rate" (not alpha)."""
        return self.num_accepted_tokens / self.num_draft_tokens

    @property
    def tokens_per_draft(self) -> float:
        """``draft tokens / drafts``: k when every round drafted k tokens."""
        return self.num_draft_tokens / self.num_drafts


def _counter_value(value: Any, name: str) -> float:
    x = _real(value, name)
    if x < 0:
        raise ValueError(f"{name} must be a count >= 0; got {_plain(value)}")
    return x


def _per_position(value: Any, name: str) -> tuple:
    if isinstance(value, Mapping):
        try:
            keys = sorted(int(p) for p in value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} positions must be whole numbers (vLLM's 0-based 'position' label); "
                             f"got {sorted(map(str, value))}") from exc
        if keys != list(range(keys[0], keys[0] + len(keys))) or keys[0] not in (0, 1):
            raise ValueError(f"{name} must cover positions 0..k-1 (vLLM's label) or 1..k without gaps; got {keys}")
        by_int = {int(p): v for p, v in value.items()}
        value = [by_int[p] for p in keys]
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"{name} must be a list of counts (one per draft position); got {_plain(value)}")
    if len(value) == 0:
        raise ValueError(f"{name} must have one count per draft position; got an empty list")
    return tuple(_counter_value(v, f"{name}[{i}]") for i, v in enumerate(value))


def _from_mapping(data: Mapping, source: str) -> Counters:
    found: dict[str, Any] = {}
    known = {alias: key for key, aliases in COUNTER_NAMES.items() for alias in aliases}
    for raw_key, value in data.items():
        key = str(raw_key)
        if key in known:
            canonical = known[key]
            if canonical in found and found[canonical][1] != value:
                raise ValueError(f"counters give {canonical} twice with different values "
                                 f"({found[canonical][0]} and {key})")
            found[canonical] = (key, value)
        elif not key.startswith(("vllm:", "sglang:", "#")):
            raise ValueError(f"counters has an unknown field {key!r}; known fields: "
                             f"{', '.join(COUNTER_NAMES)} (or vLLM's names, e.g. {COUNTER_NAMES['num_drafts'][1]})")
    missing = [key for key in ("num_drafts", "num_draft_tokens", "num_accepted_tokens") if key not in found]
    if missing:
        raise ValueError(f"counters lacks {', '.join(missing)} (names accepted: "
                         + "; ".join(" or ".join(COUNTER_NAMES[m]) for m in missing) + ")")
    n = _counter_value(found["num_drafts"][1], "num_drafts")
    d = _counter_value(found["num_draft_tokens"][1], "num_draft_tokens")
    a = _counter_value(found["num_accepted_tokens"][1], "num_accepted_tokens")
    if n <= 0:
        raise ValueError(f"num_drafts must be > 0 (rounds in the window); got {_plain(found['num_drafts'][1])}")
    if d <= 0:
        raise ValueError(f"num_draft_tokens must be > 0; got {_plain(found['num_draft_tokens'][1])}")
    if a > d:
        raise ValueError(f"num_accepted_tokens must be <= num_draft_tokens = {_num(d, 12)} "
                         f"(a draft token is accepted at most once); got {_num(a, 12)}")
    per = _per_position(found["accepted_per_position"][1], "accepted_per_position") \
        if "accepted_per_position" in found else None
    return Counters(n, d, a, per, source)


_PROM_LINE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)")
_PROM_LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


def _from_prometheus(text: str, source: str) -> Counters:
    """vLLM's /metrics text: sum each counter over its label sets (engines), per-position by label."""
    totals: dict[str, float] = {}
    per_pos: dict[int, float] = {}
    wanted = {alias: key for key, aliases in COUNTER_NAMES.items() for alias in aliases[1:]}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _PROM_LINE.match(line)
        if match is None or match.group(1) not in wanted:
            continue
        key = wanted[match.group(1)]
        try:
            value = float(match.group(3))
        except ValueError as exc:
            raise ValueError(f"counters file {source}: cannot read the value in {line!r}") from exc
        if key == "accepted_per_position":
            labels = dict(_PROM_LABEL.findall(match.group(2) or ""))
            if "position" not in labels:
                raise ValueError(f"counters file {source}: {match.group(1)} without a position label: {line!r}")
            pos = int(labels["position"])
            per_pos[pos] = per_pos.get(pos, 0.0) + value
        else:
            totals[key] = totals.get(key, 0.0) + value
    if not totals:
        raise ValueError(f"counters file {source} has no vLLM speculative decoding counters "
                         f"(looked for {COUNTER_NAMES['num_drafts'][2]} and the others)")
    data: dict[str, Any] = dict(totals)
    if per_pos:
        data["accepted_per_position"] = per_pos
    return _from_mapping(data, source)


def _load_file(path: pathlib.Path, what: str) -> Any:
    """JSON or TOML by extension; other extensions: JSON, else TOML, else None (caller decides)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{what} {str(path)!r} cannot be read: {exc.strerror or exc}") from exc
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{what} {str(path)!r} is not valid JSON: {exc}") from exc
    if suffix == ".toml":
        return _parse_toml(text, path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return _parse_toml(text, path, what)
    except ValueError:
        return text


def _parse_toml(text: str, path: pathlib.Path, what: str) -> Any:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - depends on the Python version
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ValueError(f"{what} {str(path)!r} is TOML, which needs Python >= 3.11 or the tomli package "
                             f"on this Python: pip install tomli (or give the file as JSON)") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} {str(path)!r} is not valid TOML: {exc}") from exc


def read_fields(path: Any) -> Any:
    """Read a TOML or JSON file of measurements (the ``--from FILE`` of the command line).

    ``.toml`` and ``.json`` files are read as such; any other name is tried
    as JSON, then as TOML. TOML needs Python >= 3.11 (``tomllib``) or the
    ``tomli`` package; without either the error says so.

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
    p = pathlib.Path(path)
    data = _load_file(p, "file")
    if isinstance(data, str):
        raise ValueError(f"file {str(p)!r} is neither JSON nor TOML")
    return data


def read_counters(source: Any) -> Counters:
    """Read an engine's speculative decoding counters from the forms they come in.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    source : Counters, mapping, sequence, str or pathlib.Path
        * a mapping with ``num_drafts``, ``num_draft_tokens``,
          ``num_accepted_tokens`` and optionally ``accepted_per_position``
          (a list, or a mapping from vLLM's 0-based ``position`` label to a
          count), or with vLLM's metric names
          (``vllm:spec_decode_num_drafts`` ..., with or without ``_total``);
          other ``vllm:``/``sglang:`` keys are ignored, any other key is an error;
        * a sequence ``(num_drafts, num_draft_tokens, num_accepted_tokens[,
          accepted_per_position])``;
        * a path to a JSON or TOML file holding such a mapping, or to a
          saved vLLM ``/metrics`` page (Prometheus text; counters summed over
          engines).

        Counters are totals since the server started; for a window, subtract
        two snapshots first.

    Returns
    -------
    Counters

    Examples
    --------
    >>> from specdec.decision import read_counters
    >>> c = read_counters({"vllm:spec_decode_num_drafts": 1000,
    ...                    "vllm:spec_decode_num_draft_tokens": 4000,
    ...                    "vllm:spec_decode_num_accepted_tokens": 2100})
    >>> c.mean_acceptance_length, c.draft_acceptance_rate
    (3.1, 0.525)
    """
    if isinstance(source, Counters):
        return source
    if isinstance(source, Mapping):
        return _from_mapping(source, "counters")
    if isinstance(source, (str, pathlib.PurePath)):
        path = pathlib.Path(source)
        data = _load_file(path, "counters file")
        if isinstance(data, Mapping):
            return _from_mapping(data, str(path))
        if isinstance(data, str):
            return _from_prometheus(data, str(path))
        raise ValueError(f"counters file {str(path)!r} must hold a mapping of counter names to values")
    if isinstance(source, (list, tuple)):
        if len(source) not in (3, 4):
            raise ValueError("counters as a sequence must be (num_drafts, num_draft_tokens, num_accepted_tokens"
                             f"[, accepted_per_position]); got {len(source)} items")
        keys = ("num_drafts", "num_draft_tokens", "num_accepted_tokens", "accepted_per_position")
        return _from_mapping(dict(zip(keys, source)), "counters")
    raise TypeError(f"counters must be a mapping, a sequence, a file path or Counters; got {type(source).__name__}")


# --------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """The report of :func:`decide`: the numbers, the verdict, its reasons, the warnings.

    Prints as text (``str(decision)``), Markdown (:meth:`to_markdown`, also
    shown by Jupyter) and JSON (:meth:`to_json`, :meth:`to_dict`). Times are
    in ``time_unit``.

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
        The best draft length and its speedup under ``verify_model``.
    verify_model : dict
        How verification time grows with ``k``: ``kind``, ``intercept``,
        ``slope`` (time per draft position), ``measured`` ({k: time}), a
        sentence ``description``.
    sensitivity : dict or None
        With one measured k: best k and speedup if verification instead grew
        linearly from ``t0`` at k = 0 through the measured point.
    break_even_alpha : float
        The alpha at which speculation at ``k`` only breaks even (0.0 when any
        alpha wins, nan when none does).
    margin : float
        ``alpha - break_even_alpha``.
    verdict : str
        ``"speculate"``, ``"retune k"``, ``"not worth it"`` or ``"do not speculate"``.
    reasons, warnings : tuple of str
        Sentences with the numbers that decided, and the contradictions found.
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
    counters: Counters | None = None
    alpha_mle: tuple | None = None
    per_position: dict | None = None
    measured_speedup: float | None = None
    inputs: dict = field(default_factory=dict)

    # -- text ---------------------------------------------------------------
    def _alpha_line(self) -> str:
        text = f"alpha = {self.alpha:.3f}"
        if self.alpha_interval is not None:
            lo, hi = self.alpha_interval
            text += f" ({self.confidence:.0%} interval {lo:.3f} .. {hi:.3f})"
        return text + f", from {self.alpha_source}"

    def _mle_line(self) -> str:
        a, lo, hi = self.alpha_mle
        return (f"maximum-likelihood alpha from the per-position counts (accepted / (accepted + rounds that stopped "
                f"before k)): {a:.3f} ({self.confidence:.0%} Wilson interval {lo:.3f} .. {hi:.3f})")

    def _cost_line(self) -> str:
        u = self.time_unit
        parts = [f"t0 = {_num(self.t0)} {u}",
                 f"draft {self.k} x {_num(self.t_draft_step)} = {_num(self.t_draft_round)} {u}",
                 f"verify {_num(self.t_verify)} {u}"]
        if self.t_overhead:
            parts.append(f"overhead {_num(self.t_overhead)} {u}")
        return (", ".join(parts) + f": round {_num(self.t_round)} {u} = {self.t_round / self.t0:.2f} target steps")

    def _best_line(self) -> str:
        return f"best k = {self.best_k}: {self.best_speedup:.2f}x, with {self.verify_model['description']}"

    def _sensitivity_line(self) -> str | None:
        s = self.sensitivity
        if s is None:
            return None
        return (f"if verification instead grew {_num(s['slope'])} {self.time_unit} per draft position "
                f"(a line from t0 at k = 0 through the measured point): best k = {s['best_k']}, "
                f"{s['best_speedup']:.2f}x")

    def _break_even_line(self) -> str:
        be = self.break_even_alpha
        if math.isnan(be):
            return (f"no alpha breaks even at k = {self.k}: a round costs {self.t_round / self.t0:.2f} target steps, "
                    f"more than the k + 1 = {self.k + 1} tokens it can emit")
        if be == 0.0:
            return f"any alpha > 0 breaks even at k = {self.k}: a round costs less than one target step"
        return (f"break-even at k = {self.k}: alpha = {be:.3f} (mean acceptance length {self.break_even_length:.2f}, "
                f"vLLM draft acceptance rate {self.break_even_rate:.3f}); margin {self.margin:+.3f}")

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
            ("round time", f"{_num(self.t_round)} {u}",
             f"{self.k} x {_num(self.t_draft_step)} draft + {_num(self.t_verify)} verify"
             + (f" + {_num(self.t_overhead)} overhead" if self.t_overhead else "")),
            (f"speedup at k = {self.k}", f"{self.speedup:.2f}x",
             f"t0 x E[L] / round = {_num(self.t0)} x {self.expected_tokens:.2f} / {_num(self.t_round)}"),
            ("best k", f"{self.best_k} ({self.best_speedup:.2f}x)", self.verify_model["description"]),
            (f"break-even alpha at k = {self.k}", be_cell,
             "" if math.isnan(be) else f"mean acceptance length {self.break_even_length:.2f}"),
        ]
        out = [f"**Verdict: {self.verdict}** ({self.speedup:.2f}x at k = {self.k})", "",
               "| | value | how |", "|---|---|---|"]
        out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
        if self.alpha_mle is not None:
            out += ["", self._mle_line()[0].upper() + self._mle_line()[1:] + "."]
        sens = self._sensitivity_line()
        if sens:
            out += ["", f"Sensitivity: {sens}."]
        out += ["", "Speedup by k under the verification model:", "",
                "| k | E[L] | t_verify model (" + u + ") | speedup |", "|---:|---:|---:|---:|"]
        shown = [r for r in self.speedup_by_k if r["k"] <= max(self.k, self.best_k) + 3]
        for r in shown:
            mark = " **(best)**" if r["k"] == self.best_k else (" (measured)" if r["k"] == self.k else "")
            out.append(f"| {r['k']}{mark} | {r['expected_tokens']:.2f} | {_num(r['t_verify'])} | {r['speedup']:.2f} |")
        out += ["", "Reasons:", ""] + [f"- {r}" for r in self.reasons]
        if self.warnings:
            out += ["", "Warnings:", ""] + [f"- {w}" for w in self.warnings]
        return "\n".join(out)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    # -- JSON ---------------------------------------------------------------
    def to_dict(self) -> dict:
        """The report as plain Python data (floats, ints, str, lists, dicts; nan as None)."""
        def f(x):
            if x is None:
                return None
            x = float(x)
            return None if math.isnan(x) else x

        def pair(p):
            return None if p is None else [f(p[0]), f(p[1])]

        out = {
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
            "time_unit": self.time_unit,
            "times": {"t0": f(self.t0), "t_draft_step": f(self.t_draft_step), "t_draft_round": f(self.t_draft_round),
                      "t_verify": f(self.t_verify), "t_overhead": f(self.t_overhead), "t_round": f(self.t_round)},
            "c_draft": f(self.c_draft),
            "c_verify": f(self.c_verify),
            "speedup_by_k": [{"k": int(r["k"]), "expected_tokens": f(r["expected_tokens"]),
                              "t_verify": f(r["t_verify"]), "speedup": f(r["speedup"])} for r in self.speedup_by_k],
            "counters": None if self.counters is None else {
                "num_drafts": f(self.counters.num_drafts), "num_draft_tokens": f(self.counters.num_draft_tokens),
                "num_accepted_tokens": f(self.counters.num_accepted_tokens),
                "accepted_per_position": (None if self.counters.accepted_per_position is None
                                          else [f(c) for c in self.counters.accepted_per_position]),
                "mean_acceptance_length": f(self.counters.mean_acceptance_length),
                "draft_acceptance_rate": f(self.counters.draft_acceptance_rate),
                "tokens_per_draft": f(self.counters.tokens_per_draft)},
            "alpha_mle": None if self.alpha_mle is None else {
                "alpha": f(self.alpha_mle[0]), "interval": [f(self.alpha_mle[1]), f(self.alpha_mle[2])]},
            "per_position": None if self.per_position is None else {
                key: [f(x) for x in v] for key, v in self.per_position.items()},
            "inputs": self.inputs,
        }
        return out

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text; floats rounded to 12 significant digits, nan as null."""
        def rounded(obj):
            if isinstance(obj, float):
                return float(f"{obj:.12g}")
            if isinstance(obj, dict):
                return {k: rounded(v) for k, v in obj.items()}
            if isinstance(obj, list):
                return [rounded(v) for v in obj]
            return obj
        return json.dumps(rounded(self.to_dict()), indent=indent, ensure_ascii=False, allow_nan=False)


# --------------------------------------------------------------------------
# decide
# --------------------------------------------------------------------------


def _verify_points(t_verify: Any, unit: str) -> dict[int, float]:
    """``{k: time}`` from a mapping, or ``{0: time}`` for one time whose k is the measured k."""
    if not isinstance(t_verify, Mapping):
        return {0: _time(t_verify, "t_verify", unit, positive=True)}
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
                             f"got {_plain(raw_k)}")
        if kk in points:
            raise ValueError(f"t_verify gives k = {kk} twice")
        points[kk] = _time(raw_t, f"t_verify at k = {kk}", unit, positive=True)
    return dict(sorted(points.items()))


def _time(value: Any, name: str, unit: str, positive: bool) -> float:
    """A time parsed by :func:`parse_time`, checked to be > 0 (``positive``) or >= 0."""
    x = parse_time(value, name, unit)
    if positive and not x > 0:
        raise ValueError(f"{name} must be a time > 0; got {_num(x, 12)} {unit}")
    if not positive and not x >= 0:
        raise ValueError(f"{name} must be a time >= 0; got {_num(x, 12)} {unit}")
    return float(x)


def _whole(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    x = _real(value, name)
    rng = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    if x != round(x) or x < minimum or (maximum is not None and x > maximum):
        raise ValueError(f"{name} must be a whole number {rng}; got {_plain(value)}")
    return int(round(x))


def _fit_verify(points: dict[int, float], unit: str, warnings: list) -> dict:
    """Verification time as a + b k: least squares over the measured k (b >= 0), or constant for one k."""
    ks = np.array(list(points), dtype=float)
    ts = np.array(list(points.values()), dtype=float)
    measured_text = ", ".join(f"{_num(t)} {unit} at k = {k}" for k, t in points.items())
    if len(points) == 1:
        return {"kind": "constant", "intercept": float(ts[0]), "slope": 0.0, "measured": dict(points),
                "description": f"verification time constant in k (one k measured: {measured_text})"}
    k_mean, t_mean = ks.mean(), ts.mean()
    slope = float(((ks - k_mean) * (ts - t_mean)).sum() / ((ks - k_mean) ** 2).sum())
    intercept = float(t_mean - slope * k_mean)
    if slope < 0:
        warnings.append(f"verification time falls with k in the measurements ({measured_text}; fitted slope "
                        f"{_num(slope)} {unit} per draft position): a pass over more positions cannot be cheaper, "
                        f"so these were probably measured under different loads; verification is taken as "
                        f"constant at their mean, {_num(t_mean)} {unit}")
        return {"kind": "constant (mean of measurements)", "intercept": float(t_mean), "slope": 0.0,
                "measured": dict(points),
                "description": f"verification time constant in k, at the mean of {measured_text}"}
    fitted = intercept + slope * ks
    rms = float(np.sqrt(np.mean((ts - fitted) ** 2)))
    desc = (f"verification time {_num(intercept)} + {_num(slope)} x k {unit} (least squares over "
            f"{measured_text})")
    if len(points) > 2:
        desc = desc[:-1] + f"; rms residual {_num(rms)} {unit})"
    return {"kind": "linear fit", "intercept": intercept, "slope": slope, "measured": dict(points),
            "description": desc}


def _verify_at(model: dict, k, floor: float):
    return np.maximum(model["intercept"] + model["slope"] * np.asarray(k, dtype=float), floor)


def _speedup_table(alpha: float, t0: float, step: float, overhead: float, model: dict, floor: float, k_max: int):
    ks = np.arange(1, k_max + 1)
    tv = _verify_at(model, ks, floor)
    el = np.asarray(expected_tokens(alpha, ks), dtype=float)
    s = np.asarray(speedup(alpha, ks, t0, step * ks, tv, overhead), dtype=float)
    best = int(ks[int(np.argmax(s))])  # first maximum: ties go to the smaller k
    rows = tuple({"k": int(k), "expected_tokens": float(e), "t_verify": float(v), "speedup": float(x)}
                 for k, e, v, x in zip(ks, el, tv, s))
    return rows, best, float(s[best - 1])


def decide(*, t0, t_verify, k=None, t_draft_step=None, t_draft_round=None, t_overhead=0.0,
           mean_acceptance_length=None, draft_acceptance_rate=None, counters=None,
           tpot_off=None, tpot_on=None, confidence=0.95, k_max=16, worth_it=WORTH_IT_SPEEDUP,
           time_unit="ms"):
    r"""Does speculative decoding pay for this service, by how much, with which k?

    Give the acceptance in any of the forms engines print (raw counters, a
    mean acceptance length or a draft acceptance rate; several forms are
    cross-checked), the draft time per step *or* per round, the verification
    time at one or more ``k``, and the plain decode step ``t0``. Every
    argument is keyword-only.

    Model and estimators (stated in the report):

    * acceptance is i.i.d. with probability alpha per position, so
      :math:`E[L] = \sum_{i=0}^{k} \alpha^i` (:func:`specdec.expected_tokens`);
    * alpha comes from the first available of: counters, whose mean
      acceptance length ``1 + accepted / drafts`` is inverted at ``k``
      (method of moments; with its delta-method interval: mean length
      :math:`\pm z\,\sigma_L/\sqrt{n}` with :math:`\sigma_L` from the i.i.d.
      model, mapped through the inverse of E[L]), so the model reproduces the
      measured E[L] at ``k`` exactly; else the mean acceptance length; else
      the draft acceptance rate (:math:`(E[L] - 1)/k`). With per-position
      counts the maximum-likelihood alpha ``S / (S + F)`` and its Wilson
      interval are reported too, with ``F`` the rounds that stopped before k;
    * the speedup is :math:`T_0 E[L] / (k\,t_\text{step} + T_\text{verify}(k) + T_\text{overhead})`
      (:func:`specdec.speedup`), the draft time proportional to ``k``;
    * verification time is fitted as ``a + b k`` by least squares when two or
      more ``k`` were measured (``b >= 0``); with one ``k`` it is taken as
      constant and the report shows the best ``k`` if it instead grew
      linearly from ``t0`` at ``k = 0`` through the measured point; the model
      is floored at the smaller of ``t0`` and the smallest measured time;
    * the break-even alpha at ``k`` is :func:`specdec.break_even_alpha`; the
      alpha for the ``worth_it`` speedup is
      :func:`specdec.workload.required_alpha`.

    Two numbers "agree" when they are equal within the rounding of the
    values as written (``3.1`` stands for [3.05, 3.15]; ``0.62`` for
    [0.615, 0.625]). Contradictions become ``warnings``; impossible inputs
    raise ``ValueError`` naming the parameter.

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
        ``num_speculative_tokens``), >= 1. Needed unless ``t_verify`` has a
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
        vLLM's "Draft acceptance rate", accepted / drafted, in [0, 1] (its log
        prints a percentage: 62.0% is 0.62). Not SGLang's accept rate.
    counters : mapping, sequence, str or Counters, optional
        Raw counters of one window; see :func:`read_counters`.
    tpot_off, tpot_on : float or str, optional
        Measured time per output token with speculation off and on at the
        operating concurrency (both or neither); their ratio is checked
        against the model's speedup.
    confidence : float, optional
        Level of the alpha interval, in (0, 1). Default 0.95.
    k_max : int, optional
        Largest ``k`` searched for the best ``k``, >= 1. Default 16.
    worth_it : float, optional
        The speedup below which speculation is "not worth it", > 1
        (the checklist's rule, 1.3).
    time_unit : str, optional
        Unit of bare numbers and of the report: ``"s"``, ``"ms"`` or ``"us"``.

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
    warnings: list[str] = []
    if not isinstance(time_unit, str) or time_unit not in TIME_UNITS:
        raise ValueError(f"time_unit must be one of {', '.join(TIME_UNITS)}; got {_plain(time_unit)}")
    u = time_unit
    conf = _real(confidence, "confidence")
    if not 0.0 < conf < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {_plain(confidence)}")
    km = _whole(k_max, "k_max", minimum=1, maximum=1024)
    wi = _real(worth_it, "worth_it")
    if wi <= 1.0:
        raise ValueError(f"worth_it must be a speedup > 1; got {_plain(worth_it)}")

    # -- inputs, each validated on its own ---------------------------------
    t0_v = _time(t0, "t0", u, positive=True)
    points = _verify_points(t_verify, u)
    if t_draft_step is None and t_draft_round is None:
        raise ValueError("t_draft_step or t_draft_round is required: the time of one draft step, or of all k "
                         "draft steps of a round")
    step_v = None if t_draft_step is None else _time(t_draft_step, "t_draft_step", u, positive=False)
    round_v = None if t_draft_round is None else _time(t_draft_round, "t_draft_round", u, positive=False)
    over_v = _time(t_overhead, "t_overhead", u, positive=False)
    if (tpot_off is None) != (tpot_on is None):
        raise ValueError(f"{'tpot_on' if tpot_on is None else 'tpot_off'} is missing: give tpot_off and tpot_on "
                         "together (time per output token with speculation off and on)")
    tpot = None if tpot_off is None else (_time(tpot_off, "tpot_off", u, positive=True),
                                          _time(tpot_on, "tpot_on", u, positive=True))
    cnt = None if counters is None else read_counters(counters)
    length_in = None if mean_acceptance_length is None else _length(mean_acceptance_length)
    rate_in = None if draft_acceptance_rate is None else _rate(draft_acceptance_rate)
    if cnt is None and length_in is None and rate_in is None:
        raise ValueError("counters, mean_acceptance_length or draft_acceptance_rate is required: "
                         "the acceptance measured by the engine")
    k_v = _measured_k(k, points, cnt)
    if 0 in points:  # a single time given without its k: it is the time at the measured k
        points = {k_v: points[0]}

    # -- cross-checks and derived inputs ------------------------------------
    step = _draft_step(step_v, round_v, k_v, t0_v, u, warnings)
    draft_round = step * k_v
    model, tv_k, floor = _verification(points, k_v, t0_v, u, warnings)
    if length_in is not None and length_in > k_v + 1:
        raise ValueError(f"mean_acceptance_length must be <= k + 1 = {k_v + 1} tokens per round at k = {k_v} "
                         f"(k drafts and one target token); got {_plain(mean_acceptance_length)}")
    if rate_in is not None and length_in is not None:
        _check_length_against_rate(length_in, rate_in, k_v, warnings)
    if cnt is not None:
        acc = _alpha_from_counters(cnt, k_v, length_in, rate_in, conf, warnings)
    elif length_in is not None:
        acc = _Acceptance(
            alpha=float(alpha_from_mean_acceptance_length(length_in, k_v)),
            source=f"mean acceptance length {_num(length_in)} at k = {k_v}",
            estimator="the alpha whose E[L] at k equals the mean acceptance length (i.i.d. acceptance); no interval "
                      "without counts")
    else:
        acc = _Acceptance(
            alpha=float(alpha_from_draft_acceptance_rate(rate_in, k_v)),
            source=f"draft acceptance rate {_num(rate_in)} at k = {k_v} (accepted / drafted, not alpha)",
            estimator="the alpha whose (E[L] - 1) / k equals the draft acceptance rate (i.i.d. acceptance, every "
                      "round drafting k); no interval without counts")
    alpha = acc.alpha

    # -- the figures at the measured k -------------------------------------
    el = float(expected_tokens(alpha, k_v))
    s_k = float(speedup(alpha, k_v, t0_v, draft_round, tv_k, over_v))
    t_round = draft_round + tv_k + over_v
    c_draft = step / t0_v
    c_verify = (tv_k + over_v) / t0_v
    s_interval = None if acc.interval is None else tuple(
        float(speedup(a, k_v, t0_v, draft_round, tv_k, over_v)) for a in acc.interval)
    be = float(break_even_alpha(k_v, c_draft, c_verify))
    be_length = k_v * c_draft + c_verify  # E[L] must exceed the round's cost in target steps
    be_rate = (be_length - 1.0) / k_v if math.isfinite(be) else float("nan")
    margin = alpha - be if math.isfinite(be) else float("nan")
    wi_alpha = float(required_alpha(wi, k_v, c_draft, c_verify))

    # -- best k under the verification model (and the other model, with one k) --
    rows, best_k, best_s = _speedup_table(alpha, t0_v, step, over_v, model, floor, km)
    sensitivity = None
    if len(points) == 1:
        slope = max((tv_k - t0_v) / k_v, 0.0)
        line = {"intercept": tv_k - slope * k_v, "slope": slope}
        _, line_best, line_s = _speedup_table(alpha, t0_v, step, over_v, line, floor, km)
        sensitivity = {"slope": slope, "best_k": line_best, "best_speedup": line_s}

    # -- measured TPOT ratio ------------------------------------------------
    measured = None
    if tpot is not None:
        measured = tpot[0] / tpot[1]
        if abs(measured - s_k) > SPEEDUP_TOLERANCE * s_k:
            warnings.append(f"the measured TPOT ratio {_num(tpot[0])} / {_num(tpot[1])} = {measured:.2f}x differs from "
                            f"the model's {s_k:.2f}x by more than {SPEEDUP_TOLERANCE:.0%}: the times and the acceptance "
                            f"do not describe the same run (or per-round overhead is missing from t_overhead)")
        if t0_v > tpot[0] * (1 + TIME_TOLERANCE):
            warnings.append(f"t0 = {_num(t0_v)} {u} is longer than the time per output token without speculation, "
                            f"{_num(tpot[0])} {u}: a decode step cannot take longer than the token it produces")

    verdict, reasons = _verdict(
        k=k_v, alpha=alpha, s_k=s_k, s_interval=s_interval, best_k=best_k, best_s=best_s, be=be,
        be_length=be_length, margin=margin, wi=wi, wi_alpha=wi_alpha, t_round_steps=t_round / t0_v,
        sensitivity=sensitivity, conf=conf, unit=u, drift=bool(acc.per_position and acc.per_position["drift"]))

    inputs = {"t0": t0_v, "t_draft_step": step_v, "t_draft_round": round_v, "t_verify": {str(kk): v for kk, v in
              points.items()}, "t_overhead": over_v, "k": k_v, "mean_acceptance_length": length_in,
              "draft_acceptance_rate": rate_in, "counters": None if cnt is None else cnt.source,
              "tpot_off": None if tpot is None else tpot[0], "tpot_on": None if tpot is None else tpot[1]}
    return Decision(
        alpha=alpha, alpha_interval=acc.interval, confidence=conf, alpha_source=acc.source,
        alpha_estimator=acc.estimator, k=k_v, expected_tokens=el, speedup=s_k, speedup_interval=s_interval,
        best_k=best_k, best_speedup=best_s, verify_model=model, sensitivity=sensitivity,
        break_even_alpha=be, margin=margin, break_even_length=be_length, break_even_rate=be_rate,
        worth_it=wi, worth_it_alpha=wi_alpha, verdict=verdict, reasons=tuple(reasons), warnings=tuple(warnings),
        time_unit=u, t0=t0_v, t_draft_step=step, t_draft_round=draft_round, t_verify=tv_k, t_overhead=over_v,
        t_round=t_round, c_draft=c_draft, c_verify=c_verify, speedup_by_k=rows, counters=cnt,
        alpha_mle=acc.mle, per_position=(None if acc.per_position is None else
                                         {key: v for key, v in acc.per_position.items() if key != "drift"}),
        measured_speedup=measured, inputs=inputs,
    )


# --------------------------------------------------------------------------
# the stages of decide
# --------------------------------------------------------------------------


def _length(value: Any) -> float:
    x = _real(value, "mean_acceptance_length")
    if x < 1.0:
        raise ValueError(f"mean_acceptance_length must be >= 1 tokens per round (vLLM and SGLang count the target's "
                         f"own token, so 1 means nothing accepted); got {_plain(value)}")
    return x


def _rate(value: Any) -> float:
    x = _real(value, "draft_acceptance_rate")
    if not 0.0 <= x <= 1.0:
        hint = (f" (vLLM's log prints it as a percentage: {_num(x)}% is {_num(x / 100)})"
                if 1.0 < x <= 100.0 else "")
        raise ValueError(f"draft_acceptance_rate must be in [0, 1]{hint}; got {_plain(value)}")
    return x


def _measured_k(k: Any, points: dict, cnt: Counters | None) -> int:
    """The k at which acceptance was measured: given, or the only k of t_verify, or from the counters."""
    if k is not None:
        return _whole(k, "k", minimum=1)
    if len(points) == 1 and 0 not in points:
        return next(iter(points))
    if cnt is not None and cnt.accepted_per_position is not None:
        return len(cnt.accepted_per_position)
    if cnt is not None and abs(cnt.tokens_per_draft - round(cnt.tokens_per_draft)) <= 1e-9 * cnt.tokens_per_draft:
        return int(round(cnt.tokens_per_draft))
    raise ValueError("k is required: the number of draft tokens per round when acceptance was measured")


def _draft_step(step_v, round_v, k: int, t0: float, u: str, warnings: list) -> float:
    """One draft step's time; a round and a step given together are cross-checked (the round wins)."""
    if step_v is not None and round_v is not None:
        expected_round = k * step_v
        if abs(round_v - expected_round) > TIME_TOLERANCE * max(round_v, expected_round):
            hint = ""
            if k > 1 and abs(round_v - step_v) <= TIME_TOLERANCE * max(round_v, step_v):
                hint = " (the two are nearly equal: was one of them passed as the other?)"
            warnings.append(f"t_draft_round = {_num(round_v)} {u} is not k x t_draft_step = {k} x {_num(step_v)} "
                            f"= {_num(expected_round)} {u}{hint}; using the measured round, "
                            f"{_num(round_v)} {u} ({_num(round_v / k)} {u} per step)")
    step = round_v / k if round_v is not None else step_v
    if step >= t0:
        hint = ("; was the whole round's draft time passed as t_draft_step?"
                if round_v is None and k > 1 else "")
        warnings.append(f"one draft step costs {_num(step)} {u}, not less than the target step t0 = {_num(t0)} {u}"
                        f"{hint}")
    return step


def _verification(points: dict, k: int, t0: float, u: str, warnings: list):
    """The verification model, the time at the measured k, and the model's floor."""
    for kk, tv in points.items():
        if tv < t0:
            warnings.append(f"t_verify = {_num(tv)} {u} at k = {kk} is below t0 = {_num(t0)} {u}: a verification pass "
                            f"over k + 1 = {kk + 1} positions cannot be faster than one plain decode step at the same "
                            f"batch and context; were they measured under the same load?")
    model = _fit_verify(points, u, warnings)
    floor = min(t0, min(points.values()))
    if k in points:
        return model, points[k], floor
    if len(points) >= 2:
        tv_k = float(_verify_at(model, k, floor))
        model["description"] += f"; {_num(tv_k)} {u} at the measured k = {k}, from the fit"
        return model, tv_k, floor
    only = next(iter(points))
    raise ValueError(f"t_verify was measured at k = {only} only, but acceptance at k = {k}: give the verification "
                     f"time at k = {k}, or at a second k so that it can be fitted")


def _check_length_against_rate(length: float, rate: float, k: int, warnings: list) -> None:
    """A mean acceptance length and a draft acceptance rate agree at k when L = 1 + rate * k (within rounding)."""
    tol = _printed_half_unit(length) + k * _printed_half_unit(rate)
    implied_length = 1.0 + rate * k
    if abs(implied_length - length) <= tol:
        return
    if rate > 0:
        per_draft = (length - 1.0) / rate
        text = (f"a mean acceptance length of {_num(length)} and a draft acceptance rate of {_num(rate)} imply "
                f"{per_draft:.2f} draft tokens per draft, not k = {k}")
        per_draft_tol = (_printed_half_unit(length) + per_draft * _printed_half_unit(rate)) / rate
        whole = round(per_draft)
        if whole >= 1 and whole != k and abs(per_draft - whole) <= per_draft_tol:
            text += f" (they agree at k = {whole}: is k right?)"
    else:
        text = (f"a draft acceptance rate of 0 means no draft was accepted, but the mean acceptance length is "
                f"{_num(length)}")
    text += (f"; at k = {k} a length of {_num(length)} means a rate of {(length - 1) / k:.3f}, and a rate of "
             f"{_num(rate)} a length of {implied_length:.2f}")
    sglang_tol = _printed_half_unit(rate) + _printed_half_unit(length) / (k + 1)
    if abs(rate - length / (k + 1)) <= sglang_tol:
        text += (f"; {_num(rate)} = {_num(length)} / (k + 1) has the form of SGLang's 'accept rate' (accept len / "
                 f"speculative_num_draft_tokens), which is not vLLM's draft acceptance rate")
    warnings.append(text + "; alpha is taken from the mean acceptance length")


@dataclass(frozen=True)
class _Acceptance:
    alpha: float
    source: str
    estimator: str
    interval: tuple | None = None
    mle: tuple | None = None
    per_position: dict | None = None


def _alpha_from_counters(cnt: Counters, k: int, length_in, rate_in, conf: float, warnings: list) -> _Acceptance:
    """Method-of-moments alpha from the counters, its delta-method interval, and the counters' cross-checks."""
    kbar = cnt.tokens_per_draft
    if kbar > k * (1 + 1e-9):
        raise ValueError(f"counters: num_draft_tokens / num_drafts = {_num(kbar, 4)} draft tokens per draft is more "
                         f"than k = {k}")
    fixed_k = kbar >= k * (1 - 1e-9)
    if not fixed_k:
        warnings.append(f"counters: {_num(kbar, 4)} draft tokens per draft, fewer than k = {k} (some rounds drafted "
                        f"fewer tokens, e.g. n-gram misses or requests near their end); alpha is estimated as if every "
                        f"round drafted {k}, which understates it")
    length_c = cnt.mean_acceptance_length  # <= 1 + kbar <= k + 1, since accepted <= drafted
    if length_in is not None and abs(length_c - length_in) > _printed_half_unit(length_in):
        warnings.append(f"the counters give a mean acceptance length of {length_c:.3f} (1 + "
                        f"{_num(cnt.num_accepted_tokens, 12)} / {_num(cnt.num_drafts, 12)}), not {_num(length_in)}; "
                        f"different windows? using the counters")
    if rate_in is not None and abs(cnt.draft_acceptance_rate - rate_in) > _printed_half_unit(rate_in):
        warnings.append(f"the counters give a draft acceptance rate of {cnt.draft_acceptance_rate:.4f} "
                        f"({_num(cnt.num_accepted_tokens, 12)} / {_num(cnt.num_draft_tokens, 12)}), not "
                        f"{_num(rate_in)}; different windows? using the counters")
    per_position = mle = None
    if cnt.accepted_per_position is not None:
        per_position = _check_per_position(cnt, k, warnings)
        if per_position is not None and fixed_k:
            s_acc = cnt.num_accepted_tokens
            f_rej = cnt.num_drafts - cnt.accepted_per_position[-1]  # rounds that stopped before k
            if s_acc + f_rej > 0:
                lo, hi = wilson_interval(s_acc, s_acc + f_rej, conf)
                mle = (s_acc / (s_acc + f_rej), float(lo), float(hi))
    alpha = float(alpha_from_mean_acceptance_length(length_c, k))
    if cnt.num_accepted_tokens <= 0 or cnt.num_accepted_tokens >= cnt.num_drafts * k:
        # alpha = 0 or 1: the i.i.d. variance vanishes; the exact MLE's Wilson interval instead
        # (nothing accepted: 0 of num_drafts checks passed; everything: every accepted draft passed)
        trials = cnt.num_drafts if cnt.num_accepted_tokens <= 0 else cnt.num_accepted_tokens
        lo, hi = wilson_interval(cnt.num_accepted_tokens, trials, conf)
        interval = (float(lo), float(hi))
    else:
        z = NormalDist().inv_cdf(0.5 + conf / 2)
        sd = math.sqrt(float(tokens_per_round_variance(alpha, k)) / cnt.num_drafts)
        ends = [min(max(length_c + sign * z * sd, 1.0), k + 1.0) for sign in (-1.0, 1.0)]
        interval = tuple(float(alpha_from_mean_acceptance_length(e, k)) for e in ends)
    source = (f"counters: {_num(cnt.num_accepted_tokens, 12)} accepted of {_num(cnt.num_draft_tokens, 12)} drafted "
              f"in {_num(cnt.num_drafts, 12)} rounds, mean acceptance length {length_c:.3f}")
    estimator = ("method of moments: the alpha whose E[L] at k equals the counters' mean acceptance length; "
                 "delta-method interval (mean length +- z sd(L) / sqrt(rounds), sd(L) from the i.i.d. model, mapped "
                 "through the inverse of E[L]); assumes i.i.d. acceptance across positions and rounds")
    return _Acceptance(alpha, source, estimator, interval, mle, per_position)


def _verdict(*, k, alpha, s_k, s_interval, best_k, best_s, be, be_length, margin, wi, wi_alpha, t_round_steps,
             sensitivity, conf, unit, drift):
    """The verdict and its reasons, from the figures at the measured k and the best k."""
    reasons: list[str] = []
    better = best_k != k and best_s > s_k * 1.02  # retuning k pays only if it gains more than 2 %
    if s_k >= wi:
        verdict = "speculate"
        reasons.append(f"at k = {k} speculation gives {s_k:.2f}x, above the {wi:g}x worth-it rule")
    elif better and best_s >= wi:
        verdict = "retune k"
        reasons.append(f"at k = {k} speculation gives only {s_k:.2f}x, but k = {best_k} would give {best_s:.2f}x "
                       f"under the verification model: measure at k = {best_k} to confirm")
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
                       f"(mean acceptance length {float(expected_tokens(wi_alpha, k)):.2f})")
    if s_interval is not None and s_interval[0] < 1.0 <= s_interval[1]:
        reasons.append(f"uncertain: over the {conf:.0%} alpha interval the speedup ranges {s_interval[0]:.2f} .. "
                       f"{s_interval[1]:.2f}, across break-even; collect more rounds")
    if verdict == "speculate":
        if better:
            reasons.append(f"k = {best_k} would give {best_s:.2f}x under the verification model")
        elif best_k == k:
            reasons.append(f"k = {k} is also the best k under the verification model")
        else:
            reasons.append(f"k = {k} is within 2% of the best k under the verification model (k = {best_k}: "
                           f"{best_s:.2f}x)")
    if sensitivity is not None and sensitivity["best_k"] != best_k:
        reasons.append(f"the best k depends on how verification grows with k: {best_k} if constant, "
                       f"{sensitivity['best_k']} if it grows {_num(sensitivity['slope'])} {unit} per position; "
                       f"measure verification at a second k")
    if drift:
        reasons.append("acceptance falls with draft position (see warnings): the i.i.d. model overstates long drafts")
    return verdict, reasons


def _check_per_position(cnt: Counters, k: int, warnings: list) -> dict | None:
    """Cross-check per-position counts; return conditional rates, or None when they contradict."""
    per = np.array(cnt.accepted_per_position, dtype=float)
    if per.size != k:
        raise ValueError(f"counters: accepted_per_position has {per.size} entries but k = {k} (one per draft "
                         f"position, as vLLM's num_accepted_tokens_per_pos)")
    ok = True
    rises = [i for i in range(1, k) if per[i] > per[i - 1]]
    if rises:
        i = rises[0]
        warnings.append(f"counters: accepted_per_position rises from {_num(per[i - 1], 12)} at position {i} to "
                        f"{_num(per[i], 12)} at position {i + 1}; a draft is accepted only after every draft before it, "
                        f"so the counts must not increase")
        ok = False
    if per[0] > cnt.num_drafts:
        warnings.append(f"counters: {_num(per[0], 12)} rounds accepted position 1, more than the "
                        f"{_num(cnt.num_drafts, 12)} rounds counted")
        ok = False
    total = float(per.sum())
    if abs(total - cnt.num_accepted_tokens) > 0.5 + 1e-9 * cnt.num_accepted_tokens:
        warnings.append(f"counters: accepted_per_position sums to {_num(total, 12)}, not num_accepted_tokens = "
                        f"{_num(cnt.num_accepted_tokens, 12)}; snapshots of different windows?")
        ok = False
    if not ok:
        return None
    reached = np.concatenate(([cnt.num_drafts], per[:-1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        conditional = np.where(reached > 0, per / np.maximum(reached, 1e-300), np.nan)
    out = {"unconditional": (per / cnt.num_drafts).tolist(), "conditional": conditional.tolist(), "drift": False}
    last = max((i for i in range(k) if reached[i] > 0), default=0)
    if last > 0:
        lo1, hi1 = wilson_interval(per[0], reached[0], 0.95)
        lo2, hi2 = wilson_interval(per[last], reached[last], 0.95)
        if hi2 < lo1 or hi1 < lo2:
            direction = "falls" if conditional[last] < conditional[0] else "rises"
            warnings.append(f"acceptance {direction} with draft position: {conditional[0]:.3f} at position 1, "
                            f"{conditional[last]:.3f} at position {last + 1} (95% Wilson intervals do not overlap); "
                            f"the single-alpha model {'overstates' if direction == 'falls' else 'understates'} "
                            f"long drafts")
            out["drift"] = direction == "falls"
    return out

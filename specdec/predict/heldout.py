"""Predictions of the held-out published speedups: the mapping rules applied, the table and the median error.

:data:`specdec.predict.validation_rows.VALIDATION_ROWS` holds published, measured
speedups that the calibration does not use, with the procedure that chose
them and the rules (M1 to M8) that turn a row into a predictor's inputs,
fixed before any prediction. :func:`prediction_inputs` applies those rules
and the decisions below, taken where a rule leaves a choice, before any
error was looked at, the same for every row:

* **D1, names.** A target or draft named as on the Hugging Face hub maps to
  the catalogue key without its version or chat suffix (``vicuna-7b-v1.3``
  is ``"vicuna-7b"``, ``llama-2-70b-chat-hf`` is ``"llama-2-70b"``);
  DeepSeek-R1 has DeepSeek-V3's architecture and shape
  (:data:`specdec.roofline.catalogue.MODEL_ALIASES`).
* **D2, tree shape.** ``tree_tokens`` counts the target's own token, so the
  tree has ``tree_tokens - 1`` draft nodes; ``tree_depth`` draft passes;
  ``tree_topk`` nodes expanded per level (unstated: the mean level size,
  :func:`specdec.predict.round_plan`). Medusa runs one head per level
  (``tree_depth`` heads). Lookahead decoding takes ``(W, N, G)`` as the
  row's note states them.
* **D3, baseline.** A speedup over "Hugging Face" decoding takes ``T0`` from
  the ``"hf-eager"`` profile; a ``"same-engine"`` baseline from the row's
  own engine.
* **D4, precision.** Unstated precision is bf16; fp16 and bf16 weigh 2
  bytes; nvfp4 is the catalogue's ``"nvfp4"`` (0.5625 bytes per weight, fp8
  arithmetic), and the MTP or EAGLE module of an nvfp4 target is nvfp4 too.
* **D5, lookup.** A prompt or n-gram lookup costs nothing on the GPU
  (``lookup_time = 0``): no source prints its time.
* **D6, metric.** Latency and throughput speedups are priced alike: every
  sequence of the batch runs the same rounds.
* **D8, eager engines.** The profiles fit an eager engine's launch cost
  per layer (:mod:`specdec.calibration.profiles`), and every pass pays it for its own
  layers: a one-layer head pass once, the target's pass for all its layers.
  Nothing else is charged per round.
* **D7, the error.** ``predicted / measured - 1``; the summary is the median
  of its absolute value over the rows.
* **D9, engines outside the profiles** (second collection, fixed before its
  rows were priced). An ``"other:<name>"`` engine is priced with the profile
  of its launch regime: CUDA graphs take ``"gpt-fast"``'s (a captured step,
  no serving scheduler), eager code takes ``"research"``'s. Sequoia runs
  its rounds under CUDA graphs.

Defined in chapter "Predicting a published setup".
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from specdec._validate import check_choice, check_instance, check_positive
from specdec.calibration.profiles import EAGER_MEASUREMENTS, FITTED, PROFILES
from specdec.predict import Prediction, one_layer_module, predict_speedup
from specdec.predict.validation_rows import VALIDATION_ROWS, PublishedSpeedup
from specdec.roofline import catalogue
from specdec.roofline.presets import head_preset
from specdec.tables import Table, records_table

if TYPE_CHECKING:
    from specdec.roofline.catalogue import ModelSpec

__all__ = ["HeldOutCheck", "prediction_inputs", "check_rows", "median_absolute_error",
           "heldout_table", "fit_table", "TrackRecord", "track_record", "MIN_PROFILE_ROWS", "fixed_cost_once"]

_CHAPTER = "Predicting a published setup"

#: Row GPU names (M1) -> catalogue keys.
_GPU_KEYS = {"A100-40GB": "a100-40gb", "A100-80GB": "a100-80gb", "RTX3090": "rtx-3090", "L40S": "l40s",
             "H100": "h100-sxm", "H200": "h200-sxm", "B200": "b200"}
#: D9: the launch regime of each engine outside the profiles, and the profile a regime takes.
_OTHER_ENGINES = {"sequoia": "graphs"}
_PROFILE_OF_REGIME = {"graphs": "gpt-fast", "eager": "research"}
_SUFFIX = re.compile(r"(-v\d+\.\d+|-chat-hf|-chat|-hf|-instruct)+$")
_LOOKAHEAD = re.compile(r"N=(\d+), W=(\d+), G=(\d+)")


def _spec(name: str) -> ModelSpec:
    key = _SUFFIX.sub("", name)
    key = catalogue.MODEL_ALIASES.get(key, key)
    if key in catalogue.MODEL_SPECS:
        return catalogue.MODEL_SPECS[key]
    raise ValueError(f"target {name!r} has no catalogue entry (looked up as {key!r})")


def _priced_profile(row: PublishedSpeedup) -> str:
    """The engine profile a row is priced with: its own, or (D9) its launch regime's."""
    if row.engine.startswith("other:"):
        return _PROFILE_OF_REGIME[_OTHER_ENGINES[row.engine[len("other:"):]]]
    return row.engine


def prediction_inputs(row: PublishedSpeedup) -> dict:
    """The keyword arguments of :func:`specdec.predict.predict_speedup` for a held-out row.

    Applies the mapping rules M1 to M8 of :mod:`specdec.predict.validation_rows`
    and the decisions D1 to D9 of this module's docstring.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    row : specdec.predict.validation_rows.PublishedSpeedup

    Returns
    -------
    dict
        ``target``, ``draft`` and the other arguments.

    Examples
    --------
    >>> from specdec import heldout, validation_rows
    >>> args = heldout.prediction_inputs(validation_rows.VALIDATION_ROWS[0])
    >>> args["draft"], args["n_nodes"], args["depth"], args["width"], args["gpu"]
    ('eagle2', 59, 6, 10, 'rtx-3090')
    """
    check_instance(row, PublishedSpeedup, "row")
    weights = row.precision or "bf16"
    spec = _spec(row.target)
    args = {"target": spec.key, "tau": row.tau, "gpu": _GPU_KEYS[row.gpu], "n_gpus": row.gpu_count,
            "parallelism": "layers" if row.parallelism == "layer-split" else "tp", "batch": row.batch,
            "engine": row.engine, "weights": weights}
    args["context"] = row.context if row.context is not None else (
        1024 if re.search(r"summar|cnn|xsum|retriev|natural questions", row.dataset, re.I) else 512)
    args["engine"] = _priced_profile(row)
    args["baseline_engine"] = "hf-eager" if "hugging face" in row.baseline.lower() else args["engine"]
    kind = {"medusa2": "medusa"}.get(row.draft_kind, row.draft_kind)
    if kind == "model":
        if row.draft_model not in catalogue.MODEL_SPECS:
            raise ValueError(f"draft model {row.draft_model!r} has no catalogue entry")
        args["draft"] = row.draft_model
    else:
        args["draft"] = kind
    if kind == "lookahead":
        found = _LOOKAHEAD.search(row.note)
        assert found is not None  # every lookahead row notes its (N, W, G)
        n, w, g = (int(x) for x in found.groups())
        args["lookahead"] = (w, n, g)
        return args
    if row.tree_tokens is not None:
        args.update(n_nodes=row.tree_tokens - 1, depth=row.tree_depth, width=row.tree_topk)
    else:
        args["k"] = row.k
    if kind == "medusa":
        assert row.tree_depth is not None  # every Medusa row gives its tree
        args["head"] = head_preset(spec.key, "medusa", row.tree_depth)
    elif kind in ("eagle", "eagle2", "mtp") and weights == "nvfp4":   # D4: the head in the target's nvfp4
        args["head"] = one_layer_module(spec, weights, name="MTP module" if kind == "mtp" else "EAGLE head")
    return args


@dataclass(frozen=True)
class HeldOutCheck:
    """One held-out row, its prediction and the error.

    Defined in chapter "Predicting a published setup".

    Attributes
    ----------
    row : specdec.predict.validation_rows.PublishedSpeedup
    prediction : specdec.predict.Prediction
    error : float
        ``prediction.speedup / row.speedup - 1``.
    """

    row: PublishedSpeedup
    prediction: Prediction
    error: float


def check_rows(rows: Sequence[PublishedSpeedup] | None = None) -> tuple:
    """Predict every held-out row and compare it with its measured speedup.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    rows : sequence of specdec.predict.validation_rows.PublishedSpeedup, optional
        Default: :data:`specdec.predict.validation_rows.VALIDATION_ROWS`.

    Returns
    -------
    tuple of HeldOutCheck

    Examples
    --------
    >>> from specdec import heldout
    >>> checks = heldout.check_rows()
    >>> len(checks) >= 20
    True
    """
    if rows is None:
        return _default_checks()
    return _checks(tuple(rows))


@functools.lru_cache(maxsize=1)
def _default_checks() -> tuple:
    return _checks(VALIDATION_ROWS)


def _checks(rows: tuple[PublishedSpeedup, ...]) -> tuple:
    out = []
    for row in rows:
        args = prediction_inputs(row)
        target, draft = args.pop("target"), args.pop("draft")
        p = predict_speedup(target, draft, **args)
        out.append(HeldOutCheck(row, p, p.speedup / row.speedup - 1.0))
    return tuple(out)


def median_absolute_error(checks: Sequence[HeldOutCheck]) -> float:
    """The median of ``|predicted / measured - 1|`` over checks.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    checks : sequence of HeldOutCheck
        At least one.

    Returns
    -------
    float

    Examples
    --------
    >>> from specdec import heldout
    >>> 0 <= heldout.median_absolute_error(heldout.check_rows()) < 1
    True
    """
    return float(statistics.median(abs(c.error) for c in _as_checks(checks)))


def _as_checks(checks: Sequence[HeldOutCheck]) -> tuple:
    """``checks`` as a non-empty tuple of HeldOutCheck, or a TypeError/ValueError naming ``checks``."""
    if isinstance(checks, (str, bytes)) or not isinstance(checks, Sequence):
        raise TypeError(f"checks must be a sequence of HeldOutCheck; got {type(checks).__name__}")
    out = tuple(checks)
    wrong = [c for c in out if not isinstance(c, HeldOutCheck)]
    if wrong:    # one check of the sequence: the first element that is not a HeldOutCheck, named as checks
        check_instance(wrong[0], HeldOutCheck, "checks")
    if not out:
        raise ValueError("checks must hold at least one HeldOutCheck")
    return out


def fixed_cost_once(check: HeldOutCheck) -> float:
    """A check's error if its round paid the engine's fixed cost once, not once per draft pass.

    Every draft pass of :func:`specdec.predict.predict_speedup` pays the profile's ``step_overhead``;
    this gives each back, keeping the verification's (a what-if for engines that run the whole draft in
    one captured graph or inside the target's forward; the predictions do not use it).

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    check : HeldOutCheck

    Returns
    -------
    float
        ``predicted / measured - 1`` with the draft passes' fixed costs removed.

    Examples
    --------
    >>> from specdec import heldout
    >>> lookup = next(c for c in heldout.check_rows() if c.row.draft_kind == "pld")
    >>> heldout.fixed_cost_once(lookup) == lookup.error        # no draft pass: nothing changes
    True
    """
    c = check_instance(check, HeldOutCheck, "check")
    p = c.prediction
    fixed = PROFILES[_priced_profile(c.row)].step_overhead
    return p.tau * p.t0 / (p.t_round - len(p.plan.draft_tokens) * fixed) / c.row.speedup - 1.0


#: A profile with fewer held-out rows than this gets the record of every row instead.
MIN_PROFILE_ROWS = 3


@dataclass(frozen=True)
class TrackRecord:
    """How published speedups compared with their predictions: the held-out rows of one profile, or all.

    Defined in chapter "Predicting a published setup".

    Attributes
    ----------
    requested : str or None
        The engine profile asked for (``None``: none).
    profile : str or None
        The profile whose rows these are; ``None`` when every row is pooled
        (no profile asked for, or fewer than :data:`MIN_PROFILE_ROWS` rows under it).
    ratios : tuple of float
        ``measured / predicted`` of each row, ascending.
    keys : tuple of str
        The rows' keys, in the order of ``ratios``.
    """

    requested: str | None
    profile: str | None
    ratios: tuple
    keys: tuple

    @property
    def rows(self) -> int:
        """Rows in the record."""
        return len(self.ratios)

    @property
    def too_high(self) -> int:
        """Rows whose prediction exceeded the measured speedup."""
        return sum(r < 1 for r in self.ratios)

    @property
    def low(self) -> float:
        """The smallest ``measured / predicted``."""
        return self.ratios[0]

    @property
    def median(self) -> float:
        """The median ``measured / predicted``."""
        return float(statistics.median(self.ratios))

    @property
    def high(self) -> float:
        """The largest ``measured / predicted``."""
        return self.ratios[-1]

    @property
    def coverage(self) -> float:
        """``(rows - 1) / (rows + 1)``: the chance that one more exchangeable row falls between ``low`` and ``high``."""
        return (self.rows - 1) / (self.rows + 1)

    def band(self, speedup: float) -> tuple:
        """``(speedup * low, speedup * high)``: a prediction read against the record.

        Parameters
        ----------
        speedup : float
            A predicted speedup, > 0.

        Returns
        -------
        tuple of float
        """
        s = float(check_positive(speedup, "speedup"))
        return s * self.low, s * self.high

    @property
    def whose(self) -> str:
        """Whose rows these are, in words: ``"profile 'sglang'"`` or ``"every profile"`` (and why)."""
        if self.profile is not None:
            return f"profile '{self.profile}'"
        if self.requested is not None:
            return f"every profile (fewer than {MIN_PROFILE_ROWS} rows under '{self.requested}')"
        return "every profile"

    def sentence(self, speedup: float | None = None) -> str:
        """The record in one sentence; with ``speedup``, the band it gives that prediction."""
        text = (f"Held-out record, {self.whose}: on {self.rows} published speedups, measured / predicted ran from "
                f"{self.low:.2f} to {self.high:.2f} (median {self.median:.2f}; {self.too_high} predicted too high), a range "
                f"that holds one more such setup with chance {self.coverage:.0%} if setups are exchangeable")
        if speedup is None:
            return text + "."
        lo, hi = self.band(speedup)
        return text + f". This prediction read against it: {lo:.2f}x to {hi:.2f}x."


def track_record(engine: str | None = None, checks: Sequence[HeldOutCheck] | None = None) -> TrackRecord:
    """How far to trust a prediction: the held-out rows' ``measured / predicted`` under an engine profile.

    The interval of a :class:`specdec.predict.Prediction` covers the calibration's uncertainty only;
    the record shows what the mapping and the unpriced work did on published setups.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    engine : str, optional
        A key of :data:`specdec.calibration.profiles.PROFILES`; default ``None``, every row. The record
        holds the rows run on that engine (an engine outside the profiles, priced by D9 with one of them,
        is not that profile's); a profile with fewer than :data:`MIN_PROFILE_ROWS` of them gets every row's
        record.
    checks : sequence of HeldOutCheck, optional
        Default :func:`check_rows`.

    Returns
    -------
    TrackRecord

    Examples
    --------
    >>> from specdec import heldout
    >>> record = heldout.track_record("research")
    >>> record.profile, record.rows == sum(c.row.engine == "research" for c in heldout.check_rows())
    ('research', True)
    >>> heldout.track_record("vllm").profile is None   # no held-out row ran on vllm: every row
    True
    """
    if engine is not None:
        check_choice(engine, "engine", tuple(PROFILES))
    pool = check_rows() if checks is None else _as_checks(checks)
    mine = [c for c in pool if engine is not None and c.row.engine == engine]   # run on that engine (not D9's)
    chosen, profile = (mine, engine) if len(mine) >= MIN_PROFILE_ROWS else (list(pool), None)
    pairs = sorted((c.row.speedup / c.prediction.speedup, c.row.key) for c in chosen)
    return TrackRecord(engine, profile, tuple(r for r, _ in pairs), tuple(k for _, k in pairs))


def _short(where: str) -> str:
    """The first clause of a 'where' (file, table or section), without its parenthesis."""
    return re.split(r"[,;(]", where, maxsplit=1)[0].strip()


def _setup(row: PublishedSpeedup) -> str:
    par = "" if row.gpu_count == 1 else f" x{row.gpu_count} ({row.parallelism})"
    engine = row.engine
    if engine.startswith("other:"):     # D9: name the profile that priced it
        engine = f"{engine[len('other:'):]} (as {_priced_profile(row)})"
    return f"{row.gpu}{par}, batch {row.batch}, {engine}"


def heldout_table(checks: Sequence[HeldOutCheck]) -> Table:
    """The held-out rows as a Markdown table: citation, setup, tau, measured, predicted with interval, error.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    checks : sequence of HeldOutCheck

    Returns
    -------
    specdec.tables.Table

    Examples
    --------
    >>> from specdec import heldout
    >>> table = heldout.heldout_table(heldout.check_rows()[:1])
    >>> table.header[-1]
    'error'
    """
    rows = []
    for c in checks:
        c = check_instance(c, HeldOutCheck, "checks")
        r, p = c.row, c.prediction
        lo, hi = p.interval
        draft = r.draft_model if r.draft_kind == "model" else r.draft_kind
        rows.append([f"{r.target}, {draft}", _setup(r), f"{r.quoted.source}: {_short(r.quoted.where)}",
                     f"{r.tau:.2f}", f"{r.speedup:.2f}", f"{p.speedup:.2f} [{lo:.2f}, {hi:.2f}]",
                     f"{c.error:+.0%}"])
    return records_table(["target, draft", "setup", "source", "tau", "measured", "predicted [interval]", "error"],
                         rows, fmt="{}", align=("l", "l", "l", "r", "r", "r", "r"))


def fit_table() -> Table:
    """Every timing a fit uses (:data:`specdec.calibration.profiles.FITTED`), as a Markdown table: none is a speedup.

    Defined in chapter "Predicting a published setup".

    Returns
    -------
    specdec.tables.Table

    Examples
    --------
    >>> from specdec import heldout
    >>> heldout.fit_table().header[0]
    'measurement'
    """
    eager = {m.key for m in EAGER_MEASUREMENTS}
    rows = [[m.label, m.engine, f"{m.tp}x {m.device.base_name}", "{value:g} {unit}".format(**m.quoted.value),
             m.quoted.source, "engine profile" if m.key in eager else "calibration"] for m in FITTED]
    return records_table(["measurement", "engine", "GPUs", "printed", "source", "fits"], rows, fmt="{}",
                         align=("l", "l", "l", "r", "l", "l"))

"""How sure the calibration is: a seeded bootstrap of every fit, term intervals, and the verdicts that move.

:func:`bootstrap` refits every term on timings multiplied by ``exp(e)``, ``e`` normal at each fit
group's :func:`residual_scale` (A100, Hopper on top of it, eager); :func:`term_intervals` gives each
term's interval, :func:`hopper_calibrations` the replicates as calibrations, and
:func:`headline_sensitivity` the headline numbers over the replicates and one term at a time.

Notes
-----
The A100 fit has eleven timings for eight terms. Case resampling is not used: dropping one of
TensorRT-LLM's four timings leaves its terms unidentified.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_count,
    check_fraction_open,
    check_instance,
    check_integer,
    check_probability,
    check_rng,
)
from specdec.calibration import (
    A100_CALIBRATION,
    H100_CALIBRATION,
    MEASUREMENTS,
    Calibration,
    fit_calibration,
    fit_hopper,
)
from specdec.calibration.profiles import EAGER_MEASUREMENTS, fit_eager_overhead
from specdec.calibration.timings import _measured_time
from specdec.roofline.hardware import H100_IDEAL, LLAMA_8B, LLAMA_70B, _step_time
from specdec.roofline.presets import _calibrated, _evolve, _scaled
from specdec.serving.deployment import _speculative_kernel
from specdec.sources import Cited

if TYPE_CHECKING:
    from specdec.calibration.timings import Measurement

__all__ = ["Replicate", "residual_scale", "bootstrap", "term_intervals", "hopper_calibrations",
           "headline_numbers", "headline_sensitivity"]


@dataclass(frozen=True)
class Replicate:
    """One bootstrap replicate: every fitted term, and the A100 and H100 calibrations they make.

    Defined in chapter "A calibrated roofline".

    Attributes
    ----------
    terms : dict
        Term name -> value (the names of ``specdec.calibration.FitResult.terms``,
        plus ``eager_layer[a100-80gb]``).
    a100, h100 : Calibration
        The replicate's A100 calibration (gpt-fast's fixed cost and fabric)
        and its Hopper calibration (SGLang's fixed cost, Hopper's all-reduce).
    """

    terms: dict
    a100: Calibration
    h100: Calibration


def _log_residuals(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    return np.log(np.asarray(pred, dtype=float) / np.asarray(y, dtype=float))


def residual_scale(log_residuals: ArrayLike, n_params: int) -> float:
    """Residual scale of a fit: ``sqrt(sum(r**2) / (n - p))`` over log residuals (``n - p`` floored at 1).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    log_residuals : array_like
        ``log(predicted / measured)`` of each fitted timing.
    n_params : int
        Fitted terms, >= 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from specdec import fit_uncertainty as fu
    >>> fu.residual_scale([0.03, -0.04], 1)
    0.05
    """
    r = np.asarray(log_residuals, dtype=float)
    p = check_count(n_params, "n_params", minimum=0)
    return float(np.sqrt(np.sum(r**2) / max(1, r.size - p)))


def _perturb(ms: list[Measurement], factors: np.ndarray) -> list[Measurement]:
    out = []
    for m, f in zip(ms, factors, strict=True):
        t = _measured_time(m) * float(f)
        q = m.quoted
        out.append(_evolve(m, quoted=Cited({"value": t * 1e3, "unit": "ms"}, q.source, q.where, q.status,
                                           q.checked_in, note="bootstrap replicate")))
    return out


def _groups() -> tuple[list[Measurement], list[Measurement], list[Measurement]]:
    a100 = [m for m in MEASUREMENTS if m.role == "fit" and m.device.name.startswith("A100")]
    hopper = [m for m in MEASUREMENTS if m.role == "fit" and not m.device.name.startswith("A100")]
    eager = [m for m in EAGER_MEASUREMENTS if m.role == "fit" and m.engine == "research"]
    return a100, hopper, eager


def _scales() -> tuple[float, float, float]:
    a100, hopper, eager = _groups()
    fa = fit_calibration()
    fh = fit_hopper(A100_CALIBRATION)
    fe = fit_eager_overhead(eager)
    return (residual_scale(_log_residuals(fa.measured, fa.predicted), 8),
            residual_scale(_log_residuals(fh.measured, fh.predicted), 3),
            residual_scale(np.log1p(fe["residuals"]), 1))


def bootstrap(n: int = 100, seed: int | np.random.Generator = 0, *, grid_step: float = 0.01) -> list[Replicate]:
    """Refit every calibration term on ``n`` perturbed copies of the fitted timings (a seeded parametric bootstrap).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    n : int, optional
        Replicates, >= 2. Default 100.
    seed : int or numpy.random.Generator, optional
        Default 0.
    grid_step : float, optional
        Step of the ``bw_efficiency`` and ``flops_efficiency`` grids, in (0, 0.1]. Default 0.01.

    Returns
    -------
    list of Replicate
        A replicate whose A100 fit has no grid point with non-negative linear terms is drawn again.

    Examples
    --------
    >>> from specdec import fit_uncertainty as fu
    >>> reps = fu.bootstrap(4, seed=1)
    >>> len(reps), sorted(reps[0].terms)[:2]
    (4, ['allreduce_latency[a100-cube-mesh-nccl]', 'allreduce_latency[a100-nvswitch-trtllm]'])
    """
    n = check_count(n, "n", minimum=2)
    rng = check_rng(seed, "seed")
    step = float(check_fraction_open(grid_step, "grid_step"))
    if step > 0.1:
        raise ValueError(f"grid_step must be in (0, 0.1]; got {step!r}")
    a100, hopper, eager = _groups()
    sa, sh, se = _scales()
    out: list[Replicate] = []
    redrawn = 0
    while len(out) < n:
        try:
            fa = fit_calibration(_perturb(a100, np.exp(rng.normal(0.0, sa, len(a100)))),
                                 bw=(0.60, 1.0, step), flops=(0.40, 1.0, step))
        except ValueError:          # no grid point with non-negative linear terms: redraw this replicate
            redrawn += 1
            if redrawn > 10 * n:
                raise
            continue
        fh = fit_hopper(fa.calibration, _perturb(hopper, np.exp(rng.normal(0.0, sh, len(hopper)))))
        fe = fit_eager_overhead(_perturb(eager, np.exp(rng.normal(0.0, se, len(eager)))))
        terms = dict(fa.terms)
        terms.update({k: v for k, v in fh.terms.items() if "[" in k})
        terms["eager_layer[a100-80gb]"] = fe["layer"]
        out.append(Replicate(terms, fa.calibration, fh.calibration))
    return out


def _check_replicates(replicates: Sequence[Replicate]) -> list[Replicate]:
    reps = list(replicates)
    if len(reps) < 2 or not all(isinstance(r, Replicate) for r in reps):
        raise ValueError("replicates must be a sequence of at least 2 Replicate objects (from bootstrap)")
    return reps


def term_intervals(replicates: Sequence[Replicate], level: float = 0.9) -> dict:
    """Each term's central ``level`` interval over the replicates, with the point estimate of the stored fit.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    replicates : sequence of Replicate
        From :func:`bootstrap`.
    level : float, optional
        In (0, 1). Default 0.9.

    Returns
    -------
    dict
        Term name -> ``(low, high)``.

    Examples
    --------
    >>> from specdec import fit_uncertainty as fu
    >>> iv = fu.term_intervals(fu.bootstrap(8, seed=2))
    >>> lo, hi = iv["overlap"]
    >>> 0.0 <= lo <= hi <= 1.0
    True
    """
    return _term_intervals(_check_replicates(replicates), float(check_fraction_open(level, "level")))


def _term_intervals(reps: list[Replicate], q: float) -> dict:
    """:func:`term_intervals` of checked replicates and a level ``q`` in (0, 1); checks nothing."""
    tails = (100 * (1 - q) / 2, 100 * (1 + q) / 2)
    names = sorted(set.intersection(*(set(r.terms) for r in reps)))
    return {k: tuple(float(v) for v in np.percentile([r.terms[k] for r in reps], tails)) for k in names}


def hopper_calibrations(replicates: Sequence[Replicate]) -> list:
    """The replicates' H100 calibrations (the book's default GPU), to carry an interval into any prediction.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    replicates : sequence of Replicate

    Returns
    -------
    list of Calibration

    Examples
    --------
    >>> from specdec import fit_uncertainty as fu
    >>> cals = fu.hopper_calibrations(fu.bootstrap(3, seed=0))
    >>> len(cals), cals[0].gemm_tile
    (3, 64)
    """
    return [r.h100 for r in _check_replicates(replicates)]


def headline_numbers(calibration: Calibration | None = None, *, alpha: float = 0.8, k: int = 5) -> dict:
    """The worked example's headline numbers on 8 H100s with one H100 calibration.

    Llama 3.1 70B target, 8B draft on the same GPUs, context 0: ``t0_ms``, ``speedup_1``,
    ``speedup_32`` and ``break_even`` (the first batch at which speculation loses).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    calibration : Calibration, optional
        Default :data:`specdec.calibration.H100_CALIBRATION`.
    alpha : float, optional
        Default 0.8.
    k : int, optional
        Default 5.

    Returns
    -------
    dict

    Examples
    --------
    >>> from specdec import fit_uncertainty as fu
    >>> h = fu.headline_numbers()
    >>> round(h["t0_ms"], 2), h["break_even"]
    (11.72, 107.0)
    """
    c = H100_CALIBRATION if calibration is None else check_instance(calibration, Calibration, "calibration")
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1).astype(float)
    check_broadcast(alpha=a, k=kk, batch=_HEADLINE_BATCHES)
    for value, name in ((alpha, "alpha"), (k, "k")):   # the break-even scan takes single numbers
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single number here, got an array of shape {np.shape(value)}")
    return _headline_numbers(c, a, kk)


#: The batches of headline_numbers' speedups, and of its break-even scan (break_even_batch's default range).
_HEADLINE_BATCHES, _SCAN_BATCHES = np.array([1.0, 32.0]), np.arange(1, 4097).astype(float)


def _headline_numbers(c: Calibration, a: np.ndarray, kk: np.ndarray) -> dict:
    """:func:`headline_numbers` of a Calibration, a checked ``alpha`` and ``k`` (float arrays); checks nothing."""
    group = _scaled(_calibrated(H100_IDEAL, c), 8)
    zero = np.asarray(0.0)
    s = np.asarray(_speculative_kernel(LLAMA_70B, LLAMA_8B, group, a, kk, _HEADLINE_BATCHES, zero, zero, None, None,
                                       True)["s"])
    scan = np.asarray(_speculative_kernel(LLAMA_70B, LLAMA_8B, group, a, kk, _SCAN_BATCHES, zero, zero, None, None,
                                          True)["s"])
    below = np.nonzero(scan < 1.0)[0]
    t0 = float(_step_time(LLAMA_70B, group, 1.0, 0.0, 1.0, None))
    return {"t0_ms": t0 * 1e3, "speedup_1": float(s[0]), "speedup_32": float(s[1]),
            "break_even": float(_SCAN_BATCHES[below[0]]) if below.size else float("nan")}


#: The Hopper calibration's terms that headline_sensitivity moves one at a time, with the replicate term they follow.
_H100_TERMS = {"bw_efficiency": "bw_efficiency", "flops_efficiency": "flops_efficiency", "overlap": "overlap",
               "link_efficiency": "link_efficiency", "step_overhead": "step_overhead[SGLang]",
               "allreduce_latency": "allreduce_latency[hopper-nvswitch]"}


def headline_sensitivity(replicates: Sequence[Replicate], level: float = 0.9) -> dict:
    """How the headline numbers move: over all replicates, and with one term at a time at its interval's ends.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    replicates : sequence of Replicate
    level : float, optional
        In (0, 1). Default 0.9.

    Returns
    -------
    dict
        ``"all"``: headline name -> ``(low, high)`` over the replicates;
        ``"point"``: :func:`headline_numbers` of the stored calibration;
        ``"by_term"``: H100 calibration field -> headline name -> ``(value
        at the term's low end, value at its high end)``, every other term at
        the stored value.

    Examples
    --------
    >>> from specdec import fit_uncertainty as fu
    >>> s = fu.headline_sensitivity(fu.bootstrap(6, seed=3))
    >>> sorted(s["by_term"])[:3]
    ['allreduce_latency', 'bw_efficiency', 'flops_efficiency']
    """
    reps = _check_replicates(replicates)
    q = float(check_fraction_open(level, "level"))
    tails = (100 * (1 - q) / 2, 100 * (1 + q) / 2)
    a, kk = np.asarray(0.8), np.asarray(5.0)     # headline_numbers' defaults
    per = [_headline_numbers(r.h100, a, kk) for r in reps]
    names = ("t0_ms", "speedup_1", "speedup_32", "break_even")
    overall = {k: tuple(float(v) for v in np.percentile([p[k] for p in per], tails)) for k in names}
    iv = _term_intervals(reps, q)
    by_term = {}
    for field_name, term in _H100_TERMS.items():
        lo, hi = iv[term]
        low = _headline_numbers(replace(H100_CALIBRATION, **{field_name: lo}), a, kk)
        high = _headline_numbers(replace(H100_CALIBRATION, **{field_name: hi}), a, kk)
        by_term[field_name] = {k: (low[k], high[k]) for k in names}
    return {"all": overall, "point": _headline_numbers(H100_CALIBRATION, a, kk), "by_term": by_term}


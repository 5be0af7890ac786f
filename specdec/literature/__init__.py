"""Published numbers (inputs, each with its citation) and their recomputation.

Every number quoted from a paper, a leaderboard or an engine's source code lives here as a
:class:`~specdec.sources.Cited` input naming its source (a key of :data:`specdec.sources.SOURCES`),
where in it, the copy it was read in and its ``status`` (see :class:`~specdec.sources.Cited`).
Everything else (speedups, implied acceptance rates, rounding intervals, the bonus-token error)
is computed from those inputs with :mod:`specdec.acceptance` and :mod:`specdec.economics`.

Leviathan et al.'s results are numbered as in arXiv 2211.17192v2: expected tokens per run is
their Equation (1), the walltime improvement Theorem 3.8
(:func:`specdec.economics.improvement_factor`), the guaranteed gain Corollary 3.9
(:func:`leviathan_minimum_speedup`), the arithmetic operations Theorem 3.11
(:func:`specdec.economics.operations_factor`).

Defined in chapters "Published results, recomputed" and "What serving
engines print".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_whole,
    describe,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import _alpha_for_expected_tokens, _expected_tokens_array
from specdec.economics import (
    _improvement_factor,
    _operations_factor,
    _speedup_from_costs,
    improvement_factor,
    optimal_k,
)
from specdec.literature._engine_quotes import (
    SGLANG_DEFINITIONS,
    VLLM_COUNTERS,
    VLLM_DEFINITIONS,
    metric_readings,
    misread_alphas,
)
from specdec.sources._published_inputs import (  # the quoted inputs, kept in their own file
    CHEN_CHINCHILLA,
    EAGLE_CLAIMS,
    LEVIATHAN_C_BOUND,
    LEVIATHAN_T5,
    LEVIATHAN_TABLE1,
    LEVIATHAN_TABLE3,
    MAGICDEC_BLOG,
    MAGICDEC_CLAIM,
    MEDUSA_RATE_OVERHEAD,
    MEDUSA_SECTION_3_1,
    MEDUSA_SPEEDUPS,
    SPEC_BENCH_A100_EARLIER,
)

__all__ = [
    "LEVIATHAN_TABLE1", "LEVIATHAN_TABLE3", "LEVIATHAN_C_BOUND", "LEVIATHAN_T5", "CHEN_CHINCHILLA",
    "MEDUSA_SPEEDUPS", "MEDUSA_SECTION_3_1", "MEDUSA_RATE_OVERHEAD",
    "EAGLE_CLAIMS", "MAGICDEC_CLAIM", "MAGICDEC_BLOG", "SPEC_BENCH_A100_EARLIER",
    "VLLM_COUNTERS", "VLLM_DEFINITIONS", "SGLANG_DEFINITIONS",
    "leviathan_table1", "leviathan_t5_expected", "leviathan_optimal_gamma", "leviathan_minimum_speedup",
    "chen_speedups_from_times", "implied_alpha", "implied_draft_cost", "chen_implied_alpha",
    "medusa_speedup", "medusa_check",
    "bonus_token_error",
    "metric_readings", "misread_alphas",
    "rounding_interval", "leviathan_table3",
]

def leviathan_table3(tolerance: float = 0.01) -> dict[str, Any]:
    """Leviathan et al.'s Table 3: alpha of every model pair at T = 0 and T = 1, with the direction of change.

    The values are printed to two decimals, so a difference of at most
    ``tolerance`` (default 0.01, the largest gap two roundings of equal
    values can show) cannot tell a change from none; ``direction`` is the
    sign of the printed difference and ``beyond_rounding`` says whether
    the difference is larger than ``tolerance``.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    tolerance : float, optional
        Largest printed difference treated as indistinguishable from no
        change, in [0, 1]. Default 0.01.

    Returns
    -------
    dict
        ``target``, ``draft`` (lists of names, table order), ``alpha_t0``,
        ``alpha_t1``, ``change`` (``alpha_t1 - alpha_t0``, rounded to two
        decimals as printed differences are), ``direction`` (list of
        ``"falls"``, ``"flat"``, ``"rises"``) and ``beyond_rounding``
        (bool array).

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.literature.leviathan_table3()
    >>> {d: t["direction"].count(d) for d in ("falls", "flat", "rises")}
    {'falls': 12, 'flat': 3, 'rises': 1}
    >>> int(t["beyond_rounding"].sum())
    9
    """
    if np.ndim(tolerance) != 0:
        raise TypeError(f"tolerance must be a single number, got an array of shape {np.shape(tolerance)}")
    tol = float(check_probability(tolerance, "tolerance"))
    a0 = np.asarray(LEVIATHAN_TABLE3["alpha_t0"].value, dtype=float)
    a1 = np.asarray(LEVIATHAN_TABLE3["alpha_t1"].value, dtype=float)
    change = np.round(a1 - a0, 2)
    direction = ["falls" if d < 0 else "rises" if d > 0 else "flat" for d in change]
    return {"target": list(LEVIATHAN_TABLE3["target"].value), "draft": list(LEVIATHAN_TABLE3["draft"].value),
            "alpha_t0": a0, "alpha_t1": a1, "change": change, "direction": direction,
            "beyond_rounding": np.abs(change) > tol + 1e-12}


def _t5_column(name: str) -> np.ndarray:
    return np.asarray(LEVIATHAN_T5[name].value)


# --------------------------------------------------------------------------
# Leviathan et al.
# --------------------------------------------------------------------------


def leviathan_table1(c: float = 0.0, c_hat: float = 0.0, decimals: int = 2) -> dict[str, Any]:
    """Recompute Leviathan et al.'s Table 1: speed and arithmetic for six (alpha, gamma) cases.

    Speed is :func:`specdec.economics.improvement_factor` (their Theorem 3.8) and
    operations :func:`specdec.economics.operations_factor` (Theorem 3.11), both at the
    table's ``c = c_hat = 0`` unless given, beside the printed columns
    (``LEVIATHAN_TABLE1``, read in arXiv 2211.17192v2).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    c : float, optional
        Draft-to-target step time ratio, >= 0. Default 0 (the table's).
    c_hat : float, optional
        Draft-to-target arithmetic ratio, >= 0. Default 0.
    decimals : int, optional
        Decimals of the printed values, in [0, 6]. Default 2.

    Returns
    -------
    dict
        ``alpha``, ``gamma`` (the cases), ``speed`` and ``operations``
        (ndarrays, unitless factors relative to plain decoding),
        ``speed_printed`` and ``operations_printed`` (the table's values,
        meaningful at ``c = c_hat = 0``), and ``speed_matches`` /
        ``operations_matches`` (bool arrays: our value rounds to the printed one).

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.literature.leviathan_table1()
    >>> [round(float(x), 2) for x in t["speed"]]
    [1.96, 2.53, 2.44, 3.69, 2.71, 6.86]
    >>> [round(float(x), 2) for x in t["operations"]]
    [1.53, 1.58, 1.23, 1.63, 1.11, 1.6]
    >>> bool(t["speed_matches"].all() and t["operations_matches"].all())
    True
    """
    c = float(check_nonnegative(c, "c", "(ratio of draft to target step time)"))
    c_hat = float(check_nonnegative(c_hat, "c_hat", "(ratio of draft to target arithmetic)"))
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=6))
    alpha = np.asarray(LEVIATHAN_TABLE1["alpha"].value, dtype=float)
    gamma = np.asarray(LEVIATHAN_TABLE1["gamma"].value, dtype=np.int64)
    k_float = gamma.astype(np.float64)  # as check_whole returns it
    speed = np.asarray(_improvement_factor(alpha, k_float, np.asarray(c)))
    operations = np.asarray(_operations_factor(alpha, k_float, np.asarray(c_hat)))
    speed_printed = np.asarray(LEVIATHAN_TABLE1["speed_printed"].value, dtype=float)
    operations_printed = np.asarray(LEVIATHAN_TABLE1["operations_printed"].value, dtype=float)
    return {
        "alpha": alpha,
        "gamma": gamma,
        "speed": speed,
        "operations": operations,
        "speed_printed": speed_printed,
        "operations_printed": operations_printed,
        "speed_matches": np.abs(np.round(speed, d) - speed_printed) < 1e-9,
        "operations_matches": np.abs(np.round(operations, d) - operations_printed) < 1e-9,
    }


def rounding_interval(alpha: ArrayLike, k: ArrayLike, c: ArrayLike, alpha_half_width: float = 0.005,
                      c_half_width: float = 0.005) -> tuple[float | np.ndarray, ...]:
    """Range of Theorem 3.8's improvement factor over inputs printed to two decimals.

    The factor increases with ``alpha`` and decreases with ``c``, so its
    extremes over the box ``alpha +- alpha_half_width``, ``c +- c_half_width``
    sit at opposite corners. A printed value is *consistent* with the
    printed inputs when it lies in this interval widened by its own rounding.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Printed acceptance rates in [0, 1].
    k : int or array_like of int
        Draft tokens per round (their gamma), >= 1.
    c : float or array_like
        Printed draft-to-target cost ratios, >= 0.
    alpha_half_width, c_half_width : float, optional
        Half the last printed digit, >= 0. Default 0.005 each.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(low, high)`` improvement factors.

    Examples
    --------
    >>> import specdec as sd
    >>> low, high = sd.literature.rounding_interval(0.71, 3, 0.11)
    >>> round(low, 3), round(high, 3)
    (1.898, 1.971)
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    cc = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    ha = float(check_nonnegative(alpha_half_width, "alpha_half_width"))
    hc = float(check_nonnegative(c_half_width, "c_half_width"))
    check_broadcast(alpha=a, k=kk, c=cc)
    k_float = kk.astype(np.float64)  # as check_whole returns it
    low = _improvement_factor(np.clip(a - ha, 0.0, 1.0), k_float, cc + hc)
    high = _improvement_factor(np.clip(a + ha, 0.0, 1.0), k_float, np.maximum(cc - hc, 0.0))
    scalar = is_scalar_input(alpha, k, c)
    return to_output(low, scalar), to_output(high, scalar)


def leviathan_t5_expected(printed_decimals: int = 1) -> dict[str, Any]:
    """Recompute the "expected" column of Leviathan et al.'s T5-XXL results (Table 4).

    Uses the printed alpha, gamma and c of each row in Theorem 3.8 and
    compares with the printed expected and measured speedups.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    printed_decimals : int, optional
        Decimals of the printed speedups, >= 0. Default 1.

    Returns
    -------
    dict
        ``computed`` (Theorem 3.8 at the printed inputs), ``low``/``high``
        (its range over the inputs' rounding), ``printed`` (Table 4's EXP),
        ``measured`` (Table 2), ``rounds_to_printed`` (bool: computed rounds
        to the printed value), ``consistent`` (bool: printed within the
        rounding range, widened by half a printed digit) and the inputs
        ``task``, ``draft``, ``temperature``, ``gamma``, ``alpha``, ``c``.

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.leviathan_t5_expected()
    >>> round(float(r["computed"][0]), 3), float(r["printed"][0])
    (3.157, 3.2)
    """
    d = int(check_integer(printed_decimals, "printed_decimals", minimum=0, maximum=6))
    alpha, gamma, c = _t5_column("alpha"), _t5_column("gamma"), _t5_column("c")
    computed = improvement_factor(alpha, gamma, c)
    low, high = rounding_interval(alpha, gamma, c)
    printed = _t5_column("expected").astype(float)
    half = 0.5 * 10.0 ** (-d)
    return {
        "task": _t5_column("task"), "draft": _t5_column("draft"), "temperature": _t5_column("temperature"),
        "gamma": gamma, "alpha": alpha, "c": c,
        "computed": computed, "low": low, "high": high,
        "printed": printed, "measured": _t5_column("measured").astype(float),
        "rounds_to_printed": np.abs(np.round(computed, d) - printed) < 1e-9,
        "consistent": (printed >= low - half - 1e-12) & (printed <= high + half + 1e-12),
    }


def leviathan_optimal_gamma(alpha: ArrayLike, c: ArrayLike, k_max: int = 64) -> int | np.ndarray:
    """Optimal gamma for Leviathan et al.'s walltime model (their Figure 3).

    Maximizes Theorem 3.8's improvement factor over ``gamma = 1 .. k_max``,
    i.e. :func:`specdec.economics.optimal_k` with ``c_draft = c`` and ``c_verify = 1``.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    c : float or array_like
        Draft-to-target step time ratio, >= 0.
    k_max : int, optional
        Largest gamma considered, whole number >= 1. Default 64.

    Returns
    -------
    int or numpy.ndarray of int
        The best gamma (broadcast shape of ``alpha`` and ``c``).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.literature.leviathan_optimal_gamma(0.8, 0.05)
    8
    """
    check_nonnegative(c, "c", "(ratio of draft to target step time)")
    return optimal_k(alpha, c, 1.0, k_max)


def leviathan_minimum_speedup(alpha: ArrayLike, c: ArrayLike) -> float | np.ndarray:
    """Leviathan et al.'s Corollary 3.9: with alpha > c, gamma = 1 already gives (1 + alpha)/(1 + c).

    Theorem 3.8 at ``gamma = 1`` is exactly ``(1 + alpha) / (1 + c)``, which
    exceeds 1 whenever ``alpha > c``; the optimal gamma can only do better
    (their Corollary 3.9, Section 3.3 of arXiv 2211.17192v2).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    c : float or array_like
        Draft-to-target step time ratio, >= 0.

    Returns
    -------
    float or numpy.ndarray
        The guaranteed improvement factor.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.literature.leviathan_minimum_speedup(0.6, 0.1), 4)
    1.4545
    """
    a = check_probability(alpha, "alpha")
    cc = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    check_broadcast(alpha=a, c=cc)
    return to_output((1.0 + a) / (1.0 + cc), is_scalar_input(alpha, c))


# --------------------------------------------------------------------------
# Chen et al.
# --------------------------------------------------------------------------


def chen_speedups_from_times(decimals: int = 2) -> dict[str, Any]:
    """Speedups implied by Chen et al.'s printed mean token times, beside the printed speedups.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    decimals : int, optional
        Decimals of the printed speedups, >= 0. Default 2.

    Returns
    -------
    dict
        ``rows`` (labels), ``from_times`` (14.1 ms / speculative ms),
        ``printed``, ``difference`` (printed - from_times) and
        ``matches`` (bool: from_times rounds to printed).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.chen_speedups_from_times()
    >>> [round(float(x), 3) for x in r["from_times"]]
    [1.875, 2.014, 2.461]
    >>> r["matches"].tolist()
    [False, True, True]
    """
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=6))
    base = float(CHEN_CHINCHILLA["baseline_ms"].value)
    spec = np.asarray(CHEN_CHINCHILLA["speculative_ms"].value, dtype=float)
    printed = np.asarray(CHEN_CHINCHILLA["speedup_printed"].value, dtype=float)
    ratio = base / spec
    return {
        "rows": np.asarray(CHEN_CHINCHILLA["rows"].value),
        "from_times": ratio,
        "printed": printed,
        "difference": printed - ratio,
        "matches": np.abs(np.round(ratio, d) - printed) < 1e-9,
    }


def implied_alpha(speedup: ArrayLike, k: ArrayLike, c_draft: ArrayLike,
                  c_verify: ArrayLike = 1.0) -> float | np.ndarray:
    """The acceptance rate that makes the i.i.d. model reproduce a measured speedup.

    Solves ``E[L](alpha, k) = speedup * (k * c_draft + c_verify)`` for alpha
    (E[L] is increasing in alpha, so the answer is unique), using
    :func:`specdec.acceptance.alpha_for_expected_tokens`.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    speedup : float or array_like
        Measured speedup over plain decoding, > 0.
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float or array_like, optional
        Verification pass as a fraction of a target step, > 0. Default 1.

    Returns
    -------
    float or numpy.ndarray
        alpha in [0, 1].

    Raises
    ------
    ValueError
        If the required E[L] lies outside ``[1, k + 1]`` (no alpha can
        produce that speedup under these costs).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.literature.implied_alpha(2.0, 4, 0.1), 4)
    0.7051
    """
    s = check_positive(speedup, "speedup", "(ratio)")
    kk = check_integer(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    shape = check_broadcast(speedup=s, k=kk, c_draft=cd, c_verify=cv)
    k_float = kk.astype(np.float64)  # as check_whole returns it
    needed = np.broadcast_to(s * (k_float * cd + cv), shape)
    bad = (needed < 1.0) | (needed > np.broadcast_to(kk, shape) + 1.0)
    if np.any(bad):
        val = np.broadcast_to(s, shape)[bad].flat[0]
        raise ValueError(f"speedup {describe(val)} needs E[L] outside [1, k + 1] at these costs; "
                         "no acceptance rate reproduces it")
    alpha = _alpha_for_expected_tokens(needed, np.broadcast_to(k_float, shape))
    return to_output(alpha, is_scalar_input(speedup, k, c_draft, c_verify))


def implied_draft_cost(speedup: ArrayLike, alpha: ArrayLike, k: ArrayLike,
                       c_verify: ArrayLike = 1.0) -> float | np.ndarray:
    r"""The draft cost at which the i.i.d. model reproduces a measured speedup.

    Solves :math:`S = E[L](\alpha, k) / (k\,c_d + c_v)` for :math:`c_d`:

    .. math:: c_d = \frac{E[L](\alpha, k) / S - c_v}{k}

    With ``c_verify = 1`` this inverts Leviathan et al.'s Theorem 3.8 for
    their ``c``: the cost ratio a measured walltime improvement implies at a
    printed alpha and gamma.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    speedup : float or array_like
        Measured speedup over plain decoding, > 0.
    alpha : float or array_like
        Acceptance rate in [0, 1].
    k : int or array_like of int
        Draft tokens per round (their gamma), >= 1.
    c_verify : float or array_like, optional
        Verification pass as a fraction of a target step, > 0. Default 1.

    Returns
    -------
    float or numpy.ndarray
        ``c_draft`` as a fraction of one target step (>= 0).

    Raises
    ------
    ValueError
        If the speedup exceeds ``E[L] / c_verify``: even free drafts could
        not produce it, so no draft cost reproduces it.

    Examples
    --------
    >>> import specdec as sd
    >>> c = sd.literature.implied_draft_cost(2.0, 0.8, 4)
    >>> round(c, 4), round(sd.improvement_factor(0.8, 4, c), 12)
    (0.1702, 2.0)
    """
    s = check_positive(speedup, "speedup", "(ratio)")
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    shape = check_broadcast(speedup=s, alpha=a, k=kk, c_verify=cv)
    c = np.broadcast_to((_expected_tokens_array(a, kk.astype(np.float64)) / s - cv) / kk, shape)
    if np.any(c < 0):
        val = np.broadcast_to(s, shape)[c < 0].flat[0]
        raise ValueError(f"speedup {describe(val)} exceeds E[L] / c_verify at this alpha and k: even free drafts "
                         "could not produce it, so no draft cost reproduces it")
    return to_output(c, is_scalar_input(speedup, alpha, k, c_verify))


def chen_implied_alpha(c_draft: float | None = None, c_verify: float = 1.0, use: str = "printed") -> np.ndarray:
    """Implied alpha for each row of Chen et al.'s Table 1 under the i.i.d. model.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    c_draft : float, optional
        Draft step cost as a fraction of a target step, >= 0. Default:
        1.8 ms / 14.1 ms (the 4B draft's time per token and the target's,
        Section 6 and Table 1; status secondary, see ``CHEN_CHINCHILLA``).
    c_verify : float, optional
        Verification pass as a fraction of a target step, > 0. Default 1:
        the idealization that scoring K tokens costs one target step (the
        paper's abstract calls the two latencies "comparable"). The implied
        alpha is conditional on it: a costlier pass needs a higher alpha for
        the same speedup.
    use : {"printed", "times"}
        Solve from the printed speedups or from the ratio of printed times.

    Returns
    -------
    numpy.ndarray
        One alpha per row (XSum nucleus, XSum greedy, HumanEval nucleus).

    Examples
    --------
    >>> import specdec as sd
    >>> [round(float(a), 3) for a in sd.literature.chen_implied_alpha()]
    [0.724, 0.748, 0.851]
    """
    if use not in ("printed", "times"):
        raise ValueError(f"use must be 'printed' or 'times'; got {describe(use)}")
    if c_draft is None:
        c_draft = float(CHEN_CHINCHILLA["draft_ms"].value) / float(CHEN_CHINCHILLA["baseline_ms"].value)
    r = chen_speedups_from_times()
    s = r["printed"] if use == "printed" else r["from_times"]
    return np.asarray(implied_alpha(s, int(CHEN_CHINCHILLA["k"].value), c_draft, c_verify))


# --------------------------------------------------------------------------
# Medusa and per-position acceptance
# --------------------------------------------------------------------------


def medusa_speedup(acceleration_rate: ArrayLike, overhead: ArrayLike) -> float | np.ndarray:
    """Medusa's decomposition: speedup = acceleration rate / overhead.

    The acceleration rate is tokens per target forward pass (our E[L]); the
    overhead is one Medusa step's time relative to a plain decoding step (our
    ``k * c_draft + c_verify`` folded into one number).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    acceleration_rate : float or array_like
        Mean tokens per step, >= 1.
    overhead : float or array_like
        Step time relative to plain decoding, > 0.

    Returns
    -------
    float or numpy.ndarray
        Speedup over plain decoding.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.literature.medusa_speedup(3.0, 1.2), 3)
    2.5
    """
    r = check_positive(acceleration_rate, "acceleration_rate", "(tokens per step)")
    if np.any(r < 1.0):
        raise ValueError(f"acceleration_rate must be >= 1 token per step; got {describe(r[r < 1.0].flat[0])}")
    o = check_positive(overhead, "overhead", "(relative step time)")
    check_broadcast(acceleration_rate=r, overhead=o)
    return to_output(r / o, is_scalar_input(acceleration_rate, overhead))


def medusa_check(decimals: int = 2) -> dict[str, Any]:
    """Check Medusa's identity, speedup = acceleration rate / overhead, on their Table 1.

    The four Medusa-2 rows of Table 1 (``MEDUSA_RATE_OVERHEAD`` and
    ``MEDUSA_SPEEDUPS``, status secondary).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    decimals : int, optional
        Decimals of the printed speedups. Default 2.

    Returns
    -------
    dict
        ``models``, ``rate``, ``overhead``, ``computed`` (rate / overhead),
        ``speedup`` (Table 1, column S_Medusa), ``difference`` (speedup -
        computed), ``low`` / ``high`` (rate / overhead over the inputs'
        rounding, half a unit of their last printed digit) and ``consistent``
        (bool: the printed speedup lies in that range widened by its own
        rounding).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.medusa_check()
    >>> round(float(r["computed"][0]), 3)
    2.844
    >>> r["consistent"].tolist()
    [True, True, False, False]
    """
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=6))
    pairs = MEDUSA_RATE_OVERHEAD.value
    models = list(pairs)
    rate = np.array([pairs[m][0] for m in models])
    over = np.array([pairs[m][1] for m in models])
    printed = np.array([MEDUSA_SPEEDUPS.value[m] for m in models])
    computed = medusa_speedup(rate, over)
    half = 0.5 * 10.0 ** (-d)          # the inputs and the speedup are all printed to d decimals
    low, high = (rate - half) / (over + half), (rate + half) / (over - half)
    return {"models": np.array(models), "rate": rate, "overhead": over, "computed": computed,
            "speedup": printed, "difference": printed - computed, "low": low, "high": high,
            "consistent": (printed >= low - half - 1e-12) & (printed <= high + half + 1e-12)}


# --------------------------------------------------------------------------
# the bonus-token error
# --------------------------------------------------------------------------


def bonus_token_error(alpha: ArrayLike, k: ArrayLike, c_draft: ArrayLike, c_verify: ArrayLike = 1.0) -> dict[str, Any]:
    """How much a calculator that omits the target's token understates the speedup.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float or array_like, optional
        Verification pass as a fraction of a target step, > 0. Default 1.

    Returns
    -------
    dict
        ``correct`` (speedup with E[L]), ``without_bonus`` (with E[L] - 1),
        ``understatement`` (correct - without_bonus, = 1 / round cost),
        ``ratio`` (without_bonus / correct).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.bonus_token_error(0.8, 5, 0.05)
    >>> round(r["correct"], 3), round(r["without_bonus"], 3)
    (2.951, 2.151)
    """
    a = check_probability(alpha, "alpha")
    kk = check_whole(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    check_broadcast(alpha=a, k=kk, c_draft=cd, c_verify=cv)
    scalar = is_scalar_input(alpha, k, c_draft, c_verify)
    correct = to_output(_speedup_from_costs(a, kk, cd, cv), scalar)
    cost = np.asarray(kk * cd + cv)
    wrong = np.asarray(correct) - 1.0 / cost
    return {
        "correct": correct,
        "without_bonus": to_output(wrong, scalar),
        "understatement": to_output(1.0 / cost, scalar),
        "ratio": to_output(wrong / np.asarray(correct), scalar),
    }

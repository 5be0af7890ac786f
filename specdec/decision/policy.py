"""The verdict policy: every threshold a verdict of the book uses, named once.

Every verdict (the checklist, the regime maps, :func:`specdec.decision.decide`) takes its threshold
from here:

* :data:`WORTH_IT_SPEEDUP` = 1.3: the first source's "probably not worth the complexity" rule
  (:func:`specdec.decision.checklist.assess`, :func:`specdec.decision.decide`);
* :data:`HELPS_ABOVE` = 1.1 and :data:`HURTS_BELOW` = 0.95: the regimes of :func:`classify_speedup`
  and :mod:`specdec.serving.regimes` (neutral in between);
* :data:`RETUNE_GAIN` = 2 %: ``decide`` says "retune k" only when another ``k`` beats the measured
  one by more;
* :data:`CHECKLIST_THRESHOLDS`: the first source's five checklist questions.

Defined in chapters "The decision checklist" and "When not to use it".

Examples
--------
>>> from specdec import policy
>>> policy.WORTH_IT_SPEEDUP, policy.HELPS_ABOVE, policy.HURTS_BELOW
(1.3, 1.1, 0.95)
>>> [policy.REGIME_NAMES[c] for c in policy.classify_speedup([1.35, 1.02, 0.9])]
['helps', 'neutral', 'hurts']
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import check_positive, describe, is_scalar_input, to_output

__all__ = [
    "WORTH_IT_SPEEDUP",
    "HELPS_ABOVE",
    "HURTS_BELOW",
    "RETUNE_GAIN",
    "CHECKLIST_THRESHOLDS",
    "HELPS",
    "NEUTRAL",
    "HURTS",
    "REGIME_NAMES",
    "check_thresholds",
    "classify_speedup",
]

#: The first source's rule: an estimated speedup below this is "probably not worth the complexity".
WORTH_IT_SPEEDUP = 1.3
#: Speedup above which speculation "helps" (see the module docstring).
HELPS_ABOVE = 1.1
#: Speedup below which speculation "hurts" (see the module docstring).
HURTS_BELOW = 0.95

#: "retune k" needs the best k to beat the measured k by more than this fraction of its speedup.
RETUNE_GAIN = 0.02

#: The first source's checklist thresholds, keyed by the keyword of :func:`specdec.decision.checklist.assess`.
CHECKLIST_THRESHOLDS = {
    "decode_ratio": 2.0,      # our reading of "TPOT >> TTFT" (see assess)
    "max_batch": 32,          # "Is batch size low (<32)?"
    "min_alpha": 0.6,         # "Is acceptance rate > 0.6?"
    "draft_fraction": 0.5,    # "T_draft < 0.5 x T0" (T_draft = whole round)
    "min_output_tokens": 20,  # "Average output > 20 tokens"
}

#: Regime codes returned by :func:`classify_speedup`.
HELPS, NEUTRAL, HURTS = 1, 0, -1
#: Names of the regime codes.
REGIME_NAMES = {HELPS: "helps", NEUTRAL: "neutral", HURTS: "hurts"}


def check_thresholds(helps_above: float, hurts_below: float) -> tuple[float, float]:
    """Validate a pair of regime thresholds and return them as floats.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    helps_above, hurts_below : float
        Thresholds of "helps" and "hurts", > 0, with ``hurts_below <= helps_above``.

    Returns
    -------
    tuple of float
        ``(helps_above, hurts_below)``.

    Examples
    --------
    >>> from specdec import policy
    >>> policy.check_thresholds(1.3, 1)
    (1.3, 1.0)
    """
    for value, name in ((helps_above, "helps_above"), (hurts_below, "hurts_below")):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single number, got an array of shape {np.shape(value)}")
    ha = float(check_positive(helps_above, "helps_above", "(speedup)"))
    hb = float(check_positive(hurts_below, "hurts_below", "(speedup)"))
    if hb > ha:
        raise ValueError(f"hurts_below must be <= helps_above; got hurts_below={describe(hb)} > helps_above={describe(ha)}")
    return ha, hb


def classify_speedup(speedup: ArrayLike, helps_above: float = HELPS_ABOVE,
                     hurts_below: float = HURTS_BELOW) -> int | np.ndarray:
    """Classify speedups as helps (1), neutral (0) or hurts (-1).

    ``1`` where ``speedup > helps_above``, ``-1`` where ``speedup < hurts_below``,
    ``0`` otherwise (both thresholds count as neutral).

    Defined in chapter "When not to use it".

    Parameters
    ----------
    speedup : float or array_like
        Speedups (ratio of plain to speculative time), > 0.
    helps_above : float, optional
        Threshold of "helps", > 0. Default :data:`HELPS_ABOVE` (1.1).
    hurts_below : float, optional
        Threshold of "hurts", > 0 and <= ``helps_above``. Default
        :data:`HURTS_BELOW` (0.95).

    Returns
    -------
    int or numpy.ndarray of int
        Regime codes :data:`HELPS`, :data:`NEUTRAL`, :data:`HURTS`.

    Examples
    --------
    >>> from specdec import policy
    >>> policy.classify_speedup([2.35, 1.05, 0.64])
    array([ 1,  0, -1])
    """
    s = check_positive(speedup, "speedup", "(ratio)")
    ha, hb = check_thresholds(helps_above, hurts_below)
    return to_output(_classify_speedup(s, ha, hb), is_scalar_input(speedup), kind=int)


def _classify_speedup(s: float | np.ndarray, ha: float, hb: float) -> np.ndarray:
    """:func:`classify_speedup` of checked speedups and thresholds; checks nothing."""
    return np.where(s > ha, HELPS, np.where(s < hb, HURTS, NEUTRAL)).astype(np.int64)

"""An independent chi-square reference for the statistical tests (no scipy in the environment).

Shared by tests/test_sampling.py, test_estimation.py and test_verification.py; its own quantiles are
checked against published table values in test_verification.py::test_chi2_reference_quantiles.
"""

from __future__ import annotations

import math

import numpy as np


def chi2_sf(x: float, df: int) -> float:
    """1 - P(df/2, x/2) by the series of the regularized lower incomplete gamma function."""
    s, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    if z > s + 40 * math.sqrt(s) + 40:  # far in the tail: the value is ~ 0
        return 0.0
    term = 1.0 / s
    total = term
    n = 1
    while term > 1e-17 * total:
        term *= z / (s + n)
        total += term
        n += 1
    return max(0.0, 1.0 - math.exp(s * math.log(z) - z - math.lgamma(s)) * total)


def chi2_pvalue(tokens: np.ndarray, p: np.ndarray) -> float:
    """Pearson goodness-of-fit p-value of ``tokens`` against ``p`` (0 if a p = 0 token occurs)."""
    p = np.asarray(p, float)
    counts = np.bincount(tokens, minlength=p.size).astype(float)
    if counts[p == 0].sum() > 0:
        return 0.0
    support = p > 0
    if support.sum() < 2:
        return 1.0
    expected = p[support] * tokens.size
    stat = float(((counts[support] - expected) ** 2 / expected).sum())
    return chi2_sf(stat, int(support.sum()) - 1)

"""Verification rules: how the target decides which draft tokens to keep.

The rules of :data:`RULES`: ``"rejection"`` (Leviathan et al.'s speculative sampling, exact),
``"one-hot"`` (the same rule for a deterministic proposal, exact), ``"greedy"`` (token match
against ``argmax p``, exact at temperature 0), ``"typical"`` (Medusa's typical acceptance, lossy)
and ``"sampled-match"`` (accept when the target's own sample matches, exact); their acceptance
probabilities, emitted distributions and simulations, and multi-candidate verification.

Notes
-----
The typical rule as read in Cai et al., Medusa (arXiv 2401.10774), and its code
(``FasterDecoding/Medusa``, ``medusa/model/utils.py``, ``evaluate_posterior`` and
``get_typical_one_token`` at commit e2a5d20c048a9b0a4092e6933c34313687422518; the defaults
:data:`MEDUSA_EPSILON`, :data:`MEDUSA_DELTA` as ``medusa_generate`` passes them).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# All imports from other specdec modules are in this one block, so that they
# can be repointed when the package is restructured.
from specdec._validate import (
    check_distribution,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    check_size,
    to_output,
)
from specdec.acceptance import _acceptance_rate
from specdec.verification.sampling import _residual, _step, _total_variation

__all__ = [
    "MEDUSA_DELTA",
    "MEDUSA_EPSILON",
    "MEDUSA_LOG_OFFSET",
    "RULES",
    "acceptance_probability",
    "emitted_distribution",
    "chi_square_test",
    "compare_rules",
    "entropy",
    "mean_acceptance",
    "multi_draft_accept_probabilities",
    "multi_draft_step",
    "one_hot_residual",
    "typical_threshold",
    "verify_step",
]

#: The verification rules this module knows, in the order the chapter teaches them.
RULES = ("rejection", "one-hot", "greedy", "typical", "sampled-match")
#: Medusa's ``posterior_threshold`` as ``medusa_generate`` passes it (the paper's epsilon).
MEDUSA_EPSILON = 0.09
#: Medusa's ``posterior_alpha`` as ``medusa_generate`` passes it (the paper's delta; the code
#: comments recommend ``sqrt(posterior_threshold)``).
MEDUSA_DELTA = 0.3
#: The offset inside the logarithm of Medusa's entropy, ``log(p + 1e-5)``.
MEDUSA_LOG_OFFSET = 1e-5

_CHAPTER = "Verification rules"


def _count(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum, maximum=maximum))


def _check_rule(rule: Any) -> str:
    if rule not in RULES:
        raise ValueError(f"rule must be one of {list(RULES)}; got {rule!r}")
    return rule


def _pair(p: ArrayLike, q: ArrayLike, q_name: str = "q") -> tuple[np.ndarray, np.ndarray]:
    pa = check_distribution(p, "p")
    qa = check_distribution(q, q_name)
    if pa.shape[-1] != qa.shape[-1]:
        raise ValueError(f"p and {q_name} must cover the same vocabulary: last axes {pa.shape[-1]} and "
                         f"{qa.shape[-1]} differ")
    try:
        np.broadcast_shapes(pa.shape, qa.shape)
    except ValueError as exc:
        raise ValueError(f"p and {q_name} shapes {pa.shape} and {qa.shape} do not broadcast") from exc
    return pa, qa


def _typical_args(epsilon: float, delta: float, log_offset: float) -> tuple[float, float, float]:
    eps = float(check_probability(epsilon, "epsilon")) if np.ndim(epsilon) == 0 else None
    dl = float(check_nonnegative(delta, "delta")) if np.ndim(delta) == 0 else None
    off = float(check_nonnegative(log_offset, "log_offset")) if np.ndim(log_offset) == 0 else None
    if eps is None or dl is None or off is None:
        raise TypeError("epsilon, delta and log_offset must be single numbers")
    return eps, dl, off


def entropy(p: ArrayLike, log_offset: float = 0.0) -> float | np.ndarray:
    r"""Entropy of a distribution in nats, :math:`H(p) = -\sum_x p(x) \log(p(x) + c)`.

    ``log_offset = 0`` is the Shannon entropy (``0 log 0 = 0``); Medusa's code uses
    :data:`MEDUSA_LOG_OFFSET`.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p : array_like
        Distribution(s) over the vocabulary (last axis).
    log_offset : float, optional
        The constant added inside the logarithm, >= 0. Default 0.

    Returns
    -------
    float or numpy.ndarray
        Nats, >= 0 up to the offset's effect.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.verification.entropy([0.5, 0.5]), 6)       # log 2
    0.693147
    """
    pa = check_distribution(p, "p")
    off = float(check_nonnegative(log_offset, "log_offset")) if np.ndim(log_offset) == 0 else None
    if off is None:
        raise TypeError("log_offset must be a single number")
    return to_output(_entropy(pa, off), pa.ndim == 1)


def _entropy(pa: np.ndarray, off: float) -> np.ndarray:
    """Entropy of validated distribution(s) ``pa`` with offset ``off``, in nats; checks nothing."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pa > 0, pa * np.log(pa + off), 0.0)
    return -terms.sum(axis=-1)


def typical_threshold(p: ArrayLike, epsilon: float = MEDUSA_EPSILON, delta: float = MEDUSA_DELTA,
                      log_offset: float = MEDUSA_LOG_OFFSET) -> float | np.ndarray:
    r"""Medusa's typical-acceptance threshold, :math:`\min(\epsilon, \delta\, e^{-H(p)})`.

    A draft token ``x`` is accepted when ``p(x)`` is strictly above it.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p : array_like
        Target distribution(s), last axis over the vocabulary.
    epsilon : float, optional
        Hard threshold, in [0, 1]. Default 0.09 (Medusa's ``posterior_threshold``).
    delta : float, optional
        Entropy-scaled threshold factor, >= 0. Default 0.3 (``posterior_alpha``).
    log_offset : float, optional
        Constant inside the entropy's logarithm, >= 0. Default 1e-5 as in
        Medusa's code; 0 gives the paper's formula.

    Returns
    -------
    float or numpy.ndarray
        Probability threshold(s).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.verification.typical_threshold([0.5, 0.5]), 6)   # min(0.09, 0.3 / 2)
    0.09
    >>> round(sd.verification.typical_threshold([0.25] * 4), 6)   # 0.3 * exp(-log 4)
    0.075003
    """
    eps, dl, off = _typical_args(epsilon, delta, log_offset)
    pa = check_distribution(p, "p")
    return to_output(_typical_threshold(pa, eps, dl, off), pa.ndim == 1)


def _typical_threshold(pa: np.ndarray, eps: float, dl: float, off: float) -> np.ndarray:
    """``min(eps, dl * exp(-H(pa)))`` on validated arguments; checks nothing."""
    h = np.asarray(_entropy(pa, off))
    return np.minimum(eps, dl * np.exp(-h))


def acceptance_probability(p: ArrayLike, q: ArrayLike, rule: str = "rejection", *, epsilon: float = MEDUSA_EPSILON,
                           delta: float = MEDUSA_DELTA, log_offset: float = MEDUSA_LOG_OFFSET) -> float | np.ndarray:
    r"""Probability that a draft token is accepted under each verification rule.

    ======================  ==============================================
    rule                    acceptance probability
    ======================  ==============================================
    ``"rejection"``         :math:`\sum_x \min(p(x), q(x))`
    ``"one-hot"``           :math:`p(t)` for the proposed token ``t`` (pass ``q`` one-hot)
    ``"greedy"``            :math:`q(\arg\max p)` (the draft hits the target's argmax)
    ``"typical"``           :math:`\sum_x q(x)\,[p(x) > \min(\epsilon, \delta e^{-H(p)})]`
    ``"sampled-match"``     :math:`\sum_x p(x)\, q(x)`
    ======================  ==============================================


    Defined in chapter "Verification rules".

    Parameters
    ----------
    p, q : array_like
        Target and draft distributions (last axis); they broadcast. For
        ``"greedy"`` with a greedy draft pass ``q`` one-hot at its argmax.
    rule : str, optional
        One of :data:`RULES`. Default ``"rejection"``.
    epsilon, delta, log_offset : float, optional
        Typical-acceptance parameters (see :func:`typical_threshold`).

    Returns
    -------
    float or numpy.ndarray
        Probability in [0, 1]; a ``float`` for 1-D inputs.

    Examples
    --------
    >>> import specdec as sd
    >>> p, q = [0.7, 0.25, 0.05], [0.3, 0.3, 0.4]
    >>> [round(sd.verification.acceptance_probability(p, q, r), 4)
    ...  for r in ("rejection", "greedy", "typical", "sampled-match")]
    [0.6, 0.3, 0.6, 0.305]
    >>> sd.verification.acceptance_probability(p, [0, 1, 0], "one-hot")   # p(1)
    0.25
    """
    rule = _check_rule(rule)
    pa, qa = _pair(p, q)
    if rule == "one-hot":
        _check_one_hot(qa)
    typical = _typical_args(epsilon, delta, log_offset) if rule == "typical" else None
    return _acceptance(pa, qa, rule, typical)


def _acceptance(pa: np.ndarray, qa: np.ndarray, rule: str,
                typical: tuple[float, float, float] | None) -> float | np.ndarray:
    """:func:`acceptance_probability` on validated arguments (``typical``: epsilon, delta, log_offset); checks
    nothing."""
    scalar = pa.ndim == 1 and qa.ndim == 1
    if rule in ("rejection", "one-hot"):
        return to_output(_acceptance_rate(pa, qa), scalar)
    pb, qb = np.broadcast_arrays(pa, qa)
    if rule == "greedy":
        top = np.argmax(pb, axis=-1)
        out = np.take_along_axis(qb, top[..., None], axis=-1)[..., 0]
    elif rule == "typical":
        assert typical is not None  # acceptance_probability validated it for this rule
        thr = np.asarray(_typical_threshold(pb, *typical))
        out = (qb * (pb > thr[..., None])).sum(axis=-1)
    else:
        out = (pb * qb).sum(axis=-1)
    return to_output(np.clip(out, 0.0, 1.0), scalar)


def _check_one_hot(qa: np.ndarray) -> None:
    if not np.all((qa == 0) | (qa == 1)):
        raise ValueError("q must be one-hot (a single 1, zeros elsewhere) for the 'one-hot' rule: the draft "
                         "proposes one token deterministically")


def one_hot_residual(p: ArrayLike, token: int) -> np.ndarray:
    """The distribution a rejected deterministic proposal is replaced from: ``p`` without ``token``.

    ``norm(max(p - onehot(token), 0))``, computed both that way and as ``p`` with ``token`` removed
    and renormalized, checked to agree to 1e-12. ``p`` itself when ``p(token) = 1``.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p : array_like, shape (V,)
        Target distribution.
    token : int
        The proposed token, in ``0 .. V - 1``.

    Returns
    -------
    numpy.ndarray, shape (V,)
        The residual distribution.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.verification.one_hot_residual([0.5, 0.3, 0.2], 0).round(12).tolist()
    [0.0, 0.6, 0.4]
    """
    pa = check_distribution(p, "p")
    if pa.ndim != 1:
        raise ValueError(f"p must be a 1-D probability vector; got shape {pa.shape}")
    if np.ndim(token) != 0:
        raise TypeError("token must be a single token id")
    t = int(check_integer(token, "token", minimum=0, maximum=pa.size - 1))
    if pa[t] >= 1.0:
        return pa.copy()
    removed = pa.copy()
    removed[t] = 0.0
    removed /= removed.sum()
    onehot = np.zeros_like(pa)
    onehot[t] = 1.0
    via_residual = _residual(pa, onehot)
    if np.max(np.abs(via_residual - removed)) > 1e-12:  # pragma: no cover - an identity, checked in the tests
        raise AssertionError("the one-hot residual and p-without-the-token disagree")
    return removed


def emitted_distribution(p: ArrayLike, q: ArrayLike, rule: str = "rejection", *, correction: str = "target",
                         epsilon: float = MEDUSA_EPSILON, delta: float = MEDUSA_DELTA,
                         log_offset: float = MEDUSA_LOG_OFFSET) -> np.ndarray:
    r"""Exact distribution of the token one verified position emits, under each rule.

    * ``"rejection"``, ``"one-hot"``: ``p`` (the residual correction).
    * ``"greedy"``: a point mass at ``argmax p`` (the target's greedy token).
    * ``"sampled-match"``: ``p`` (the emitted token is the target's sample).
    * ``"typical"``: :math:`P(x) = q(x)[p(x) > \tau] + (1 - Q_\tau)\, c(x)`,
      with :math:`Q_\tau` the draft mass the threshold lets through and ``c`` the correction:
      ``"target"`` (a fresh sample from ``p``), ``"argmax"`` (Medusa's ``fast`` mode) or
      ``"typical"`` (``p`` restricted to tokens at or above the threshold).

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    rule : str, optional
        One of :data:`RULES`.
    correction : {"target", "argmax", "typical"}, optional
        What the target emits after a typical-acceptance rejection.
    epsilon, delta, log_offset : float, optional
        Typical-acceptance parameters.

    Returns
    -------
    numpy.ndarray, shape (V,)
        Sums to 1.

    Examples
    --------
    >>> import specdec as sd
    >>> p, q = [0.7, 0.25, 0.05], [0.3, 0.3, 0.4]
    >>> sd.verification.emitted_distribution(p, q, "typical").round(4).tolist()   # not p
    [0.58, 0.4, 0.02]
    """
    rule = _check_rule(rule)
    pa, qa = _pair(p, q)
    if pa.ndim != 1 or qa.ndim != 1:
        raise ValueError(f"p and q must be 1-D probability vectors; got shapes {pa.shape} and {qa.shape}")
    if correction not in ("target", "argmax", "typical"):
        raise ValueError(f"correction must be 'target', 'argmax' or 'typical'; got {correction!r}")
    if rule == "one-hot":
        _check_one_hot(qa)
    typical = _typical_args(epsilon, delta, log_offset) if rule == "typical" else None
    return _emitted(pa, qa, rule, correction, typical)


def _emitted(pa: np.ndarray, qa: np.ndarray, rule: str, correction: str,
             typical: tuple[float, float, float] | None) -> np.ndarray:
    """:func:`emitted_distribution` on validated 1-D arguments; checks nothing."""
    if rule in ("rejection", "one-hot", "sampled-match"):
        return pa.copy()
    top = np.zeros_like(pa)
    top[int(np.argmax(pa))] = 1.0
    if rule == "greedy":
        return top
    assert typical is not None  # emitted_distribution validated it for this rule
    thr = float(_typical_threshold(pa, *typical))
    keep = pa > thr
    passed = qa * keep
    if correction == "target":
        c = pa
    elif correction == "argmax":
        c = top
    else:
        allowed = np.where(pa >= thr, pa, 0.0)
        c = allowed / allowed.sum()
    # rounding can leave -1e-25 where the emitted mass is 0: clip it, so the result is a distribution
    return np.maximum(passed + (1.0 - passed.sum()) * c, 0.0)


def compare_rules(p: ArrayLike, q: ArrayLike, *, epsilon: float = MEDUSA_EPSILON,
                  delta: float = MEDUSA_DELTA) -> dict[str, Any]:
    """Every rule of :data:`RULES` on one position: what it accepts, what it emits, how far that is from ``p``.

    The draft proposes from ``q``, except under ``"one-hot"`` (``q`` one-hot at ``argmax q``).

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    epsilon, delta : float, optional
        Typical acceptance's thresholds (Medusa's defaults).

    Returns
    -------
    dict
        Rule -> ``{"acceptance": float, "emitted": numpy.ndarray,
        "total_variation": float}``: :func:`acceptance_probability`,
        :func:`emitted_distribution` and its total-variation distance to ``p``.

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.verification.compare_rules([0.7, 0.25, 0.05], [0.3, 0.3, 0.4])
    >>> {rule: round(v["acceptance"], 3) for rule, v in r.items()}
    {'rejection': 0.6, 'one-hot': 0.05, 'greedy': 0.3, 'typical': 0.6, 'sampled-match': 0.305}
    >>> {rule: round(v["total_variation"], 3) for rule, v in r.items()}     # only greedy and typical change p
    {'rejection': 0.0, 'one-hot': 0.0, 'greedy': 0.3, 'typical': 0.15, 'sampled-match': 0.0}
    """
    pa, qa = _pair(p, q)
    if pa.ndim != 1 or qa.ndim != 1:
        raise ValueError(f"p and q must be 1-D probability vectors; got shapes {pa.shape} and {qa.shape}")
    typical = _typical_args(epsilon, delta, MEDUSA_LOG_OFFSET)
    greedy_draft = np.zeros_like(qa)
    greedy_draft[int(np.argmax(qa))] = 1.0
    out = {}
    for rule in RULES:
        draft = greedy_draft if rule == "one-hot" else qa
        args = typical if rule == "typical" else None
        emitted = _emitted(pa, draft, rule, "target", args)
        out[rule] = {"acceptance": float(_acceptance(pa, draft, rule, args)), "emitted": emitted,
                     "total_variation": float(_total_variation(pa, emitted))}
    return out


def verify_step(p: ArrayLike, q: ArrayLike, size: int, rng: np.random.Generator | int, rule: str = "rejection", *,
                correction: str = "target", epsilon: float = MEDUSA_EPSILON, delta: float = MEDUSA_DELTA,
                log_offset: float = MEDUSA_LOG_OFFSET) -> tuple[np.ndarray, np.ndarray]:
    """Simulate ``size`` independent single-position verifications under a rule.

    The draft token is drawn from ``q`` (one-hot for ``"one-hot"``, which is checked);
    ``"rejection"`` and ``"one-hot"`` run :func:`specdec.verification.sampling.speculative_step`'s kernel
    (the same draws).

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    size : int
        Independent trials, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    rule : str, optional
        One of :data:`RULES`.
    correction : {"target", "argmax", "typical"}, optional
        The typical rule's correction (see :func:`emitted_distribution`).
    epsilon, delta, log_offset : float, optional
        Typical-acceptance parameters.

    Returns
    -------
    tokens : numpy.ndarray of int64, shape (size,)
        Emitted token ids.
    accepted : numpy.ndarray of bool, shape (size,)
        Whether the draft token was accepted.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> t, a = sd.verification.verify_step([0.7, 0.25, 0.05], [0.3, 0.3, 0.4], 100_000, 0, "typical")
    >>> round(float(a.mean()), 2), (np.bincount(t, minlength=3) / t.size).round(2).tolist()
    (0.6, [0.58, 0.4, 0.02])
    """
    rule = _check_rule(rule)
    pa, qa = _pair(p, q)
    if pa.ndim != 1 or qa.ndim != 1:
        raise ValueError(f"p and q must be 1-D probability vectors; got shapes {pa.shape} and {qa.shape}")
    if np.ndim(size) != 0:
        raise TypeError("size must be a single whole number")
    n = int(check_integer(size, "size", minimum=1))
    g = check_rng(rng)
    if correction not in ("target", "argmax", "typical"):
        raise ValueError(f"correction must be 'target', 'argmax' or 'typical'; got {correction!r}")
    if rule == "one-hot":
        _check_one_hot(qa)
    if rule in ("rejection", "one-hot"):
        check_size(2.0 * n, "size", "the trials")  # speculative_step's limit
        return _step(pa, qa, n, g, "residual")
    v = pa.size
    x = g.choice(v, size=n, p=qa)
    if rule == "greedy":
        top = int(np.argmax(pa))
        return np.full(n, top, dtype=np.int64), x == top
    if rule == "sampled-match":
        y = g.choice(v, size=n, p=pa)
        return y.astype(np.int64), x == y
    eps, dl, off = _typical_args(epsilon, delta, log_offset)
    thr = float(_typical_threshold(pa, eps, dl, off))
    ok = pa[x] > thr
    tokens = x.astype(np.int64)
    bad = ~ok
    n_bad = int(bad.sum())
    if n_bad:
        if correction == "target":
            tokens[bad] = g.choice(v, size=n_bad, p=pa)
        elif correction == "argmax":
            tokens[bad] = int(np.argmax(pa))
        else:
            allowed = np.where(pa >= thr, pa, 0.0)
            tokens[bad] = g.choice(v, size=n_bad, p=allowed / allowed.sum())
    return tokens, ok


# --------------------------------------------------------------------------
# multi-draft verification (SpecInfer-style recursive rejection sampling)
# --------------------------------------------------------------------------


def _check_pq(p: ArrayLike, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    pa = check_distribution(p, "p")
    qa = check_distribution(q, "q")
    if pa.ndim != 1 or qa.ndim != 1 or pa.shape != qa.shape:
        raise ValueError(f"p and q must be 1-D probability vectors over the same vocabulary; got shapes "
                         f"{pa.shape} and {qa.shape}")
    return pa, qa


def _residual_chain(pa: np.ndarray, qa: np.ndarray, m: int) -> np.ndarray:
    """r_0 = p, r_{i+1} = residual(r_i, q): the targets candidate i is checked against."""
    out = [pa]
    for _ in range(m):
        r = out[-1]
        out.append(_residual(r / r.sum(), qa))
    return np.array(out)


def multi_draft_accept_probabilities(p: ArrayLike, q: ArrayLike, n_candidates: int) -> np.ndarray:
    r"""Probability that candidate ``j`` is the one accepted, for ``m`` i.i.d. candidates from ``q``.

    Recursive rejection sampling checks candidate ``j`` against
    :math:`r_j`, where :math:`r_0 = p` and
    :math:`r_{j+1} = \mathrm{norm}(\max(r_j - q, 0))`; candidate ``j`` is
    reached with probability :math:`\prod_{i<j} (1 - \beta_i)` and accepted
    with :math:`\beta_j = \sum_x \min(r_j(x), q(x))`.

    Defined in chapter "Token trees".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    n_candidates : int
        Candidates drawn i.i.d. from ``q``, in [1, 1000].

    Returns
    -------
    numpy.ndarray, shape (n_candidates,)
        Probability that candidate ``j`` (0-based) is accepted.

    Examples
    --------
    >>> import specdec as sd
    >>> a = sd.verification.multi_draft_accept_probabilities([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 2)
    >>> a.round(4).tolist(), round(float(a.sum()), 4)
    ([0.7, 0.06], 0.76)
    """
    pa, qa = _check_pq(p, q)
    m = _count(n_candidates, "n_candidates", maximum=1000)
    chain = _residual_chain(pa, qa, m)
    beta = np.minimum(chain[:m], qa).sum(axis=1)
    reach = np.concatenate([[1.0], np.cumprod(1.0 - beta)[:-1]])
    return reach * beta


def _sample_rows(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One inverse-CDF draw per row of ``probs`` (rows need not be normalized)."""
    c = np.cumsum(probs, axis=1)
    idx = (c <= u[:, None] * c[:, -1:]).sum(axis=1)
    return np.minimum(idx, probs.shape[1] - 1)


def multi_draft_step(p: ArrayLike, q: ArrayLike, n_candidates: int, size: int, rng: np.random.Generator | int, *,
                     replacement: bool = True, residual: str = "recursive") -> tuple[np.ndarray, np.ndarray]:
    """Simulate one position verified against several draft candidates.

    ``n_candidates`` tokens are drawn from ``q`` (independently, or without
    replacement: each later candidate from ``q`` with the earlier ones
    removed and renormalized). Candidate ``j`` is accepted with probability
    ``min(1, r_j(x) / q_j(x))``, where ``q_j`` is the distribution it was
    drawn from and ``r_j`` the current target: ``r_0 = p`` and after each
    rejection ``r_{j+1} = norm(max(r_j - q_j, 0))``. The first accepted
    candidate is emitted; if all are rejected a token is drawn from the last
    residual; the token follows ``p`` for either way of drawing. ``residual="fixed"`` checks every
    candidate against ``p`` itself (a deliberate bug for the tests; not ``p``).

    Defined in chapter "Token trees".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    n_candidates : int
        Candidates per position, in [1, 64].
    size : int
        Independent trials, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    replacement : bool, optional
        Draw candidates i.i.d. (default) or without replacement.
    residual : {"recursive", "fixed"}, optional
        The exact algorithm (default) or the flawed one.

    Returns
    -------
    tokens : numpy.ndarray of int64, shape (size,)
        Emitted token ids.
    accepted : numpy.ndarray of int64, shape (size,)
        Index of the accepted candidate, or -1 when every candidate was rejected.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> t, j = sd.verification.multi_draft_step([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 2, 200_000, rng=0)
    >>> (np.bincount(t, minlength=3) / t.size).round(2).tolist()   # p
    [0.5, 0.3, 0.2]
    >>> round(float((j >= 0).mean()), 2)       # multi_draft_accept_probabilities sums to 0.76
    0.76
    """
    pa, qa = _check_pq(p, q)
    m = _count(n_candidates, "n_candidates", maximum=64)
    n = _count(size, "size")
    g = check_rng(rng)
    if not isinstance(replacement, (bool, np.bool_)):
        raise TypeError(f"replacement must be True or False; got {replacement!r}")
    if residual not in ("recursive", "fixed"):
        raise ValueError(f"residual must be 'recursive' or 'fixed'; got {residual!r}")
    v = pa.size
    tokens = np.full(n, -1, dtype=np.int64)
    accepted = np.full(n, -1, dtype=np.int64)
    alive = np.arange(n)
    if replacement:
        chain = _residual_chain(pa, qa, m)
        if residual == "fixed":
            chain = np.vstack([np.repeat(pa[None, :], m, axis=0), _residual(pa, qa)[None, :]])
        for j in range(m):  # loop over candidates; trials vectorized
            if alive.size == 0:
                break
            x = g.choice(v, size=alive.size, p=qa)
            ok = g.random(alive.size) * qa[x] < chain[j][x]
            tokens[alive[ok]] = x[ok]
            accepted[alive[ok]] = j
            alive = alive[~ok]
        if alive.size:
            last = chain[m] / chain[m].sum()
            tokens[alive] = g.choice(v, size=alive.size, p=last)
        return tokens, accepted
    r = np.repeat(pa[None, :], n, axis=0)
    drawn = np.zeros((n, v), dtype=bool)
    for j in range(m):
        if alive.size == 0:
            break
        qj = np.where(drawn[alive], 0.0, qa)
        mass = qj.sum(axis=1)
        live = mass > 0
        alive, qj, mass = alive[live], qj[live], mass[live]
        if alive.size == 0:
            break
        qj = qj / mass[:, None]
        x = _sample_rows(qj, g.random(alive.size))
        rows = np.arange(alive.size)
        target = r[alive] if residual == "recursive" else np.broadcast_to(pa, qj.shape)
        ok = g.random(alive.size) * qj[rows, x] < target[rows, x]
        tokens[alive[ok]] = x[ok]
        accepted[alive[ok]] = j
        bad = ~ok
        if residual == "recursive" and bad.any():
            nr = np.maximum(target[bad] - qj[bad], 0.0)
            s = nr.sum(axis=1, keepdims=True)
            r[alive[bad]] = np.where(s > 0, nr / np.where(s > 0, s, 1.0), target[bad])
        drawn[alive[bad], x[bad]] = True
        alive = alive[bad]
    rest = np.flatnonzero(tokens < 0)
    if rest.size:
        final = r[rest] if residual == "recursive" else np.broadcast_to(_residual(pa, qa), (rest.size, v))
        tokens[rest] = _sample_rows(final, g.random(rest.size))
    return tokens, accepted


# --------------------------------------------------------------------------
# checking a simulation, and acceptance over many contexts
# --------------------------------------------------------------------------


def _upper_gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x): series below a + 1, continued fraction above."""
    if x <= 0.0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        while abs(term) > 1e-16 * abs(total):
            n += 1.0
            term *= x / n
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    b, c, d = x + 1.0 - a, 1.0 / 1e-300, 1.0 / (x + 1.0 - a)
    h = d
    for i in range(1, 10_000):  # Lentz's continued fraction
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return math.exp(log_front) * h


def chi_square_test(tokens: ArrayLike, p: ArrayLike) -> dict[str, Any]:
    """Pearson's goodness-of-fit test of sampled tokens against a distribution.

    The statistic is :math:`\\sum_x (n_x - N p(x))^2 / (N p(x))` over the
    tokens with ``p > 0``; its p-value is the chi-square tail with (support
    size - 1) degrees of freedom, computed here from the regularized
    incomplete gamma function. A token with ``p = 0`` that occurs gives a p-value of 0.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    tokens : array_like of int, 1-D
        Sampled token ids, each in ``0 .. V - 1``.
    p : array_like, shape (V,)
        The distribution to test against.

    Returns
    -------
    dict
        ``statistic``, ``dof`` and ``p_value``.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> t = np.random.default_rng(0).choice(3, size=10_000, p=[0.5, 0.3, 0.2])
    >>> sd.verification.chi_square_test(t, [0.5, 0.3, 0.2])["p_value"] > 0.01
    True
    >>> sd.verification.chi_square_test(t, [0.4, 0.4, 0.2])["p_value"] < 1e-10
    True
    """
    pa = check_distribution(p, "p")
    if pa.ndim != 1:
        raise ValueError(f"p must be a 1-D distribution; got shape {pa.shape}")
    t = check_integer(tokens, "tokens", minimum=0, maximum=pa.size - 1)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"tokens must be a non-empty 1-D array of token ids; got shape {t.shape}")
    counts = np.bincount(t.astype(np.int64), minlength=pa.size).astype(float)
    support = pa > 0
    dof = int(support.sum()) - 1
    if counts[~support].sum() > 0:
        return {"statistic": math.inf, "dof": dof, "p_value": 0.0}
    expected = pa[support] * t.size
    stat = float(np.sum((counts[support] - expected) ** 2 / expected))
    p_value = 1.0 if dof < 1 else _upper_gamma_q(dof / 2.0, stat / 2.0)
    return {"statistic": stat, "dof": dof, "p_value": p_value}


def mean_acceptance(target_logits: ArrayLike, draft_logits: ArrayLike, temperature: ArrayLike, rule: str = "rejection",
                    *, epsilon: float = MEDUSA_EPSILON, delta: float = MEDUSA_DELTA) -> float | np.ndarray:
    """Average acceptance probability over many contexts at a sampling temperature.

    Both models' logits are tempered (softmax of ``logits / temperature``). ``"one-hot"``: the
    draft proposes its ``argmax`` at every temperature, accepted with ``p_T(token)``;
    ``"rejection"``: ``sum(min(p_T, q_T))``.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    target_logits, draft_logits : array_like, shape (n_contexts, V)
        E.g. :func:`specdec.verification.synthetic.synthetic_logit_pair`.
    temperature : float or array_like
        Sampling temperature(s), > 0.
    rule : {"rejection", "one-hot", "typical", "sampled-match"}, optional

    Returns
    -------
    float or numpy.ndarray
        Mean over contexts, one per temperature.

    Examples
    --------
    >>> import specdec as sd
    >>> t, d = sd.synthetic.synthetic_logit_pair("flat", vocab=200, n_contexts=64, noise=0.5, rng=0)
    >>> a = sd.verification.mean_acceptance(t, d, [0.5, 1.0], "rejection")
    >>> b = sd.verification.mean_acceptance(t, d, [0.5, 1.0], "one-hot")
    >>> bool((b <= a).all())
    True
    """
    tl = np.asarray(target_logits, dtype=float)
    dl = np.asarray(draft_logits, dtype=float)
    if tl.ndim != 2 or tl.shape != dl.shape:
        raise ValueError(f"target_logits and draft_logits must be 2-D of the same shape; got {tl.shape} and "
                         f"{dl.shape}")
    temps = check_positive(temperature, "temperature")
    if rule not in ("rejection", "one-hot", "typical", "sampled-match"):
        raise ValueError(f"rule must be 'rejection', 'one-hot', 'typical' or 'sampled-match'; got {rule!r}")
    typical = _typical_args(epsilon, delta, MEDUSA_LOG_OFFSET) if rule == "typical" else None
    out = []
    for t in np.atleast_1d(temps):  # loop over temperatures; contexts vectorized
        p = np.exp((tl - tl.max(axis=1, keepdims=True)) / t)
        p /= p.sum(axis=1, keepdims=True)
        if rule == "one-hot":
            q = np.zeros_like(p)
            q[np.arange(q.shape[0]), np.argmax(dl, axis=1)] = 1.0
        else:
            q = np.exp((dl - dl.max(axis=1, keepdims=True)) / t)
            q /= q.sum(axis=1, keepdims=True)
        pa, qa = _pair(p, q)  # the tempered distributions (non-finite logits give nan and are refused here)
        out.append(float(np.mean(_acceptance(pa, qa, "rejection" if rule == "one-hot" else rule, typical))))
    return to_output(np.array(out).reshape(np.shape(temps)), np.ndim(temperature) == 0)

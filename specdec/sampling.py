"""Exact speculative sampling, its simulation, and estimating alpha from logs.

Conventions (Leviathan et al.): ``p`` is the *target* next-token
distribution, ``q`` the *draft*'s, both over the same vocabulary along the
last axis. (Chen et al. swap the letters.)

One position of the algorithm:

1. draw a draft token ``x ~ q``;
2. accept it with probability ``min(1, p(x) / q(x))``;
3. otherwise emit a token drawn from the *residual*
   ``normalize(max(p - q, 0))``.

The emitted token then follows ``p`` exactly. A round chains ``k`` such
positions, stops at the first rejection, and when all ``k`` drafts survive
the target adds a *bonus* token drawn from its own distribution at position
``k + 1``. Every simulator here is vectorized over trials or rounds with a
seeded :class:`numpy.random.Generator` and samples by inverse CDF
(cumulative sums and :func:`numpy.searchsorted`).

The second half of the module turns serving logs into alpha: the maximum
likelihood estimate under the capped geometric model with a Wilson score
interval, per-position rates, and conversions between the metrics serving
engines print (draft acceptance rate, mean acceptance length) and alpha.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import (
    as_float_array,
    check_distribution,
    check_fraction_open,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    is_scalar_input,
    to_output,
)
from .acceptance import expected_tokens

__all__ = [
    "speculative_step",
    "flawed_speculative_step",
    "residual_distribution",
    "emitted_token_distribution",
    "total_variation",
    "running_frequencies",
    "convergence_to_target",
    "EXAMPLE_TARGET",
    "temper_distribution",
    "interpolate_draft",
    "EXAMPLE_DRAFT",
    "RoundSimulation",
    "simulate_rounds",
    "synthetic_bigram_pair",
    "simulate_bigram_rounds",
    "generate_bigram",
    "simulate_accepted_counts",
    "simulate_accepted_counts_per_position",
    "AlphaEstimate",
    "PerPositionEstimate",
    "estimate_alpha",
    "estimate_alpha_per_position",
    "wilson_interval",
    "draft_acceptance_rate",
    "alpha_from_draft_acceptance_rate",
    "mean_acceptance_length",
    "alpha_from_mean_acceptance_length",
    "softmax_with_temperature",
    "synthetic_logit_pair",
    "acceptance_vs_temperature",
    "WORKLOAD_SHAPES",
]

# --------------------------------------------------------------------------
# argument helpers
# --------------------------------------------------------------------------


def _check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Accept a Generator or an integer seed; refuse ``None`` (unseeded)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"{name} as a seed must be a whole number >= 0; got {rng!r}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"{name} must be a numpy.random.Generator (e.g. np.random.default_rng(0)) or an "
        f"integer seed; got {type(rng).__name__} (unseeded randomness is not allowed)"
    )


def _check_count(value: Any, name: str, minimum: int = 1) -> int:
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a single whole number >= {minimum}; got shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum))


def _check_pair(p: Any, q: Any, p_name: str = "p", q_name: str = "q") -> tuple[np.ndarray, np.ndarray]:
    pa = check_distribution(p, p_name)
    qa = check_distribution(q, q_name)
    if pa.shape[-1] != qa.shape[-1]:
        raise ValueError(
            f"{p_name} and {q_name} must cover the same vocabulary: last axes "
            f"{pa.shape[-1]} and {qa.shape[-1]} differ"
        )
    return pa, qa


def _check_vector_pair(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    pa, qa = _check_pair(p, q)
    if pa.ndim != 1 or qa.ndim != 1:
        raise ValueError(
            f"p and q must be 1-D probability vectors over the vocabulary; got shapes {pa.shape} and {qa.shape}"
        )
    return pa, qa


# --------------------------------------------------------------------------
# inverse-CDF sampling
# --------------------------------------------------------------------------


def _cdf(probs: np.ndarray) -> np.ndarray:
    """Cumulative sums along the last axis, scaled so the last entry is exactly 1.

    Dividing by the total maps every entry equal to the total to exactly 1.0,
    so a uniform draw in [0, 1) can never land on a trailing zero-probability
    token; entries after a zero probability repeat exactly, so a
    zero-probability token owns an empty interval.
    """
    c = np.cumsum(probs, axis=-1)
    return c / c[..., -1:]


def _sample(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF samples: ``probs`` is (V,) shared or (n, V) one row per draw."""
    cdf = _cdf(probs)
    if cdf.ndim == 1 and cdf.size <= 64:
        # small vocabulary: count the thresholds below u, one vectorized pass per
        # token (branch-free, about 3x faster than a binary search per draw)
        idx = np.zeros(u.shape, dtype=np.uint8)
        for c in cdf[:-1]:
            np.add(idx, u >= c, out=idx, casting="unsafe")
        return idx.astype(np.int64)
    if cdf.ndim == 1:
        idx = np.searchsorted(cdf, u, side="right")
    else:
        idx = (cdf <= u[:, None]).sum(axis=1)
    return np.minimum(idx, probs.shape[-1] - 1)


def _residual(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """normalize(max(p - q, 0)); where p == q (never rejected) fall back to p."""
    r = np.maximum(p - q, 0.0)
    s = r.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = r / s
    return np.where(s > 0, out, p)


# --------------------------------------------------------------------------
# one position
# --------------------------------------------------------------------------


def residual_distribution(p, q):
    r"""The residual distribution a rejected draft is replaced from.

    .. math:: r(x) = \frac{\max(p(x) - q(x), 0)}{\sum_y \max(p(y) - q(y), 0)}

    When ``p == q`` the residual is undefined (a rejection never happens);
    ``p`` is returned in that case.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p : array_like
        Target distribution over the vocabulary (last axis), sums to 1.
    q : array_like
        Draft distribution, same vocabulary, sums to 1.

    Returns
    -------
    numpy.ndarray
        The residual distribution, broadcast shape of ``p`` and ``q``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.residual_distribution([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]).tolist()
    [1.0, 0.0, 0.0]
    """
    pa, qa = _check_pair(p, q)
    try:
        return _residual(*np.broadcast_arrays(pa, qa))
    except ValueError as exc:
        raise ValueError(f"p and q shapes {pa.shape} and {qa.shape} do not broadcast") from exc


def emitted_token_distribution(p, q, correction="residual"):
    r"""Exact distribution of the token one position emits.

    .. math:: P(\text{emit } x) = \min(p(x), q(x)) + (1 - \alpha)\, c(x),
              \qquad \alpha = \sum_y \min(p(y), q(y))

    where ``c`` is the correction distribution. With the residual
    (``correction="residual"``) this equals ``p`` exactly; the other options
    are the bugs the book warns about: ``"target"`` redraws the correction
    from ``p`` and ``"none"`` keeps the draft token (plain draft sampling,
    the result is ``q``).

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p, q : array_like
        Target and draft distributions (last axis), each summing to 1.
    correction : {"residual", "target", "none"}
        Where a rejected draft's replacement comes from.

    Returns
    -------
    numpy.ndarray
        Probability of emitting each token; sums to 1.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.emitted_token_distribution([0.5, 0.5], [0.9, 0.1]).round(12).tolist()
    [0.5, 0.5]
    >>> sd.sampling.emitted_token_distribution([0.5, 0.5], [0.9, 0.1], "target").round(12).tolist()
    [0.7, 0.3]
    """
    pa, qa = _check_pair(p, q)
    if correction not in ("residual", "target", "none"):
        raise ValueError(f"correction must be 'residual', 'target' or 'none'; got {correction!r}")
    if correction == "none":
        return np.broadcast_arrays(pa, qa)[1].copy()
    m = np.minimum(pa, qa)
    reject = 1.0 - m.sum(axis=-1, keepdims=True)
    c = _residual(pa, qa) if correction == "residual" else np.broadcast_arrays(pa, qa)[0]
    return m + reject * c


def total_variation(p, q):
    r"""Total-variation distance between distributions, ``sum(|p - q|) / 2``.

    ``1 - total_variation(p, q)`` is the acceptance rate ``sum(min(p, q))``.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p, q : array_like
        Distributions (or empirical frequencies) along the last axis; they
        broadcast. Entries >= 0.

    Returns
    -------
    float or numpy.ndarray
        Distance in [0, 1]; a ``float`` for 1-D inputs.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.sampling.total_variation([0.5, 0.5], [0.9, 0.1]), 12)
    0.4
    """
    pa, qa = _check_pair(p, q)
    try:
        out = 0.5 * np.abs(pa - qa).sum(axis=-1)
    except ValueError as exc:
        raise ValueError(f"p and q shapes {pa.shape} and {qa.shape} do not broadcast") from exc
    return to_output(out, pa.ndim == 1 and qa.ndim == 1)


def running_frequencies(tokens, vocab, sizes):
    """Empirical token frequencies of the first ``n`` samples, for each ``n`` in ``sizes``.

    Counts come from the sorted positions of each token (no loop over the
    samples), so a convergence curve costs one simulation of the largest size.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    tokens : array_like of int, 1-D
        Token ids in ``0 .. vocab - 1``.
    vocab : int
        Vocabulary size, >= 1.
    sizes : array_like of int
        Prefix lengths, each in ``1 .. len(tokens)``.

    Returns
    -------
    numpy.ndarray, shape (len(sizes), vocab)
        Row ``j`` is the frequency of each token among the first ``sizes[j]``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.running_frequencies([0, 1, 1, 1], 2, [1, 4]).tolist()
    [[1.0, 0.0], [0.25, 0.75]]
    """
    v = _check_count(vocab, "vocab")
    t = check_integer(tokens, "tokens", minimum=0, maximum=v - 1)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"tokens must be a non-empty 1-D array of token ids; got shape {t.shape}")
    n = np.atleast_1d(check_integer(sizes, "sizes", minimum=1, maximum=t.size))
    counts = np.empty((n.size, v))
    for token in range(v):  # loop over the vocabulary, not the samples
        counts[:, token] = np.searchsorted(np.flatnonzero(t == token), n, side="left")
    return counts / n[:, None]


#: The book's worked example (Part II, chapter 1): a target distribution over
#: eight tokens and a draft that over-rates token 1, under-rates token 3 and
#: never proposes token 6. ``sum(min(p, q)) = 0.77``.
EXAMPLE_TARGET = np.array([0.30, 0.22, 0.15, 0.12, 0.09, 0.06, 0.04, 0.02])
EXAMPLE_DRAFT = np.array([0.18, 0.30, 0.20, 0.05, 0.12, 0.10, 0.00, 0.05])


def temper_distribution(p, t):
    r"""Re-sample a distribution at temperature ``t``: ``p**(1/t)`` renormalized.

    Equivalent to :func:`softmax_with_temperature` of ``log p``; tokens with
    probability 0 stay at 0.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p : array_like
        Distribution along the last axis.
    t : float
        Temperature, finite and > 0.

    Returns
    -------
    numpy.ndarray
        The tempered distribution.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.temper_distribution([0.2, 0.8, 0.0], 0.5).round(4).tolist()
    [0.0588, 0.9412, 0.0]
    """
    pa = check_distribution(p, "p")
    tt = float(check_positive(t, "t", "(temperature)"))
    with np.errstate(divide="ignore"):
        z = np.log(pa) / tt
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def interpolate_draft(p, q, mismatch):
    """A draft between a perfect copy of ``p`` (``mismatch = 0``) and ``q`` (``mismatch = 1``).

    Returns ``(1 - mismatch) * p + mismatch * q``, the knob of the chapter's
    explorer.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    mismatch : float
        Weight of ``q``, in [0, 1].

    Returns
    -------
    numpy.ndarray
        A distribution over the same vocabulary.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.interpolate_draft([1.0, 0.0], [0.0, 1.0], 0.25).tolist()
    [0.75, 0.25]
    """
    pa, qa = _check_vector_pair(p, q)
    w = float(check_probability(mismatch, "mismatch"))
    return (1.0 - w) * pa + w * qa


def convergence_to_target(p, q, sizes, rng):
    """Empirical emitted-token frequencies of three schemes as the sample grows.

    Runs one simulation of ``max(sizes)`` trials for each scheme and reports
    the running frequencies (:func:`running_frequencies`):

    * ``"speculative"``: :func:`speculative_step` (exact);
    * ``"correction from target"``: the bug of redrawing rejections from ``p``;
    * ``"draft only"``: plain sampling from the draft ``q``.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    sizes : array_like of int
        Sample sizes at which to report frequencies, each >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed (one generator drives all three schemes).

    Returns
    -------
    dict
        Scheme name -> array of shape ``(len(sizes), V)``; also ``"sizes"``.

    Examples
    --------
    >>> import specdec as sd
    >>> out = sd.sampling.convergence_to_target(sd.sampling.EXAMPLE_TARGET, sd.sampling.EXAMPLE_DRAFT, [100, 10_000], 0)
    >>> out["speculative"].shape
    (2, 8)
    """
    pa, qa = _check_vector_pair(p, q)
    n = np.atleast_1d(check_integer(sizes, "sizes", minimum=1))
    if n.ndim != 1:
        raise ValueError(f"sizes must be 1-D; got shape {n.shape}")
    g = _check_rng(rng)
    total = int(n.max())
    v = pa.size
    out = {"sizes": n}
    out["speculative"] = running_frequencies(_step(pa, qa, total, g, "residual")[0], v, n)
    out["correction from target"] = running_frequencies(_step(pa, qa, total, g, "target")[0], v, n)
    out["draft only"] = running_frequencies(_step(pa, qa, total, g, "none")[0], v, n)
    return out


def _step(pa: np.ndarray, qa: np.ndarray, size: int, rng: np.random.Generator, correction: str):
    x = _sample(qa, rng.random(size))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(qa > 0, np.minimum(pa / qa, 1.0), 0.0)
    if correction == "none":
        return x, np.ones(size, dtype=bool)
    accepted = rng.random(size) < ratio[x]
    tokens = x.copy()
    rejected = ~accepted
    n_rej = int(rejected.sum())
    if n_rej:
        source = _residual(pa, qa) if correction == "residual" else pa
        tokens[rejected] = _sample(source, rng.random(n_rej))
    return tokens, accepted


def speculative_step(p, q, size, rng):
    r"""Run ``size`` independent single-position speculative sampling trials.

    Each trial draws a draft token ``x ~ q``, accepts it with probability
    ``min(1, p(x) / q(x))``, and otherwise emits a token drawn from the
    residual ``normalize(max(p - q, 0))``. The emitted tokens follow ``p``
    exactly, and a trial is accepted with probability
    ``sum(min(p, q))`` (:func:`specdec.acceptance_rate`).

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p : array_like, shape (V,)
        Target next-token distribution (entries >= 0, summing to 1).
    q : array_like, shape (V,)
        Draft next-token distribution over the same vocabulary.
    size : int
        Number of independent trials, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator (or a seed). ``None`` is refused.

    Returns
    -------
    tokens : numpy.ndarray of int64, shape (size,)
        Emitted token ids in ``0 .. V-1``.
    accepted : numpy.ndarray of bool, shape (size,)
        Whether the draft token was accepted (``tokens`` is then the draft).

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> tokens, accepted = sd.sampling.speculative_step([0.5, 0.5], [0.9, 0.1], 100_000, np.random.default_rng(0))
    >>> round(float(accepted.mean()), 2), round(float((tokens == 0).mean()), 2)
    (0.6, 0.5)
    """
    pa, qa = _check_vector_pair(p, q)
    n = _check_count(size, "size")
    return _step(pa, qa, n, _check_rng(rng), "residual")


def flawed_speculative_step(p, q, size, rng, flaw="correction-from-target"):
    """A deliberately wrong speculative step, to show what exactness rules out.

    ``flaw="correction-from-target"`` redraws a rejected token from ``p``
    instead of the residual (a bug real implementations have shipped);
    ``flaw="no-verification"`` keeps every draft token, i.e. plain sampling
    from the draft ``q``. Neither follows ``p``; the book's tests use the
    first to show that the exactness test has power. Do not use it to
    generate text.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions.
    size : int
        Number of trials, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    flaw : {"correction-from-target", "no-verification"}
        Which mistake to make.

    Returns
    -------
    tokens, accepted : numpy.ndarray
        As :func:`speculative_step`.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> t, _ = sd.sampling.flawed_speculative_step([0.5, 0.5], [0.9, 0.1], 100_000, np.random.default_rng(0))
    >>> round(float((t == 0).mean()), 2)  # the target says 0.5
    0.7
    """
    pa, qa = _check_vector_pair(p, q)
    n = _check_count(size, "size")
    kinds = {"correction-from-target": "target", "no-verification": "none"}
    if flaw not in kinds:
        raise ValueError(f"flaw must be one of {sorted(kinds)}; got {flaw!r}")
    return _step(pa, qa, n, _check_rng(rng), kinds[flaw])


# --------------------------------------------------------------------------
# whole rounds
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundSimulation:
    """Outcome of many independent speculative rounds.

    Attributes
    ----------
    tokens : numpy.ndarray of int64, shape (n_rounds, k + 1)
        Emitted tokens of each round, left-aligned, padded with -1.
    draft_tokens : numpy.ndarray of int64, shape (n_rounds, k)
        The k tokens the draft proposed.
    n_accepted : numpy.ndarray of int64, shape (n_rounds,)
        Accepted drafts per round, 0..k.
    bonus : numpy.ndarray of bool, shape (n_rounds,)
        True where all k drafts were accepted and the target added a bonus token.
    k : int
        Draft tokens per round.
    """

    tokens: np.ndarray
    draft_tokens: np.ndarray
    n_accepted: np.ndarray
    bonus: np.ndarray
    k: int

    @property
    def n_emitted(self) -> np.ndarray:
        """Tokens emitted per round, ``L = n_accepted + 1``."""
        return self.n_accepted + 1

    @property
    def mean_tokens(self) -> float:
        """Average tokens emitted per round (estimates E[L])."""
        return float(self.n_emitted.mean())

    @property
    def n_rounds(self) -> int:
        return int(self.n_accepted.shape[0])


def _run_rounds(p_rows, q_rows, k: int, n: int, rng: np.random.Generator, context: np.ndarray | None):
    """Shared engine. ``p_rows(i, prev, idx)`` / ``q_rows(i, prev, idx)`` give the
    target/draft distribution at draft position ``i`` (0-based; ``i == k`` is
    the bonus position) for the rounds ``idx`` whose previous token is ``prev``;
    they return (V,) when shared or (len(idx), V)."""
    all_idx = np.arange(n)
    draft = np.empty((n, k), dtype=np.int64)
    prev = context
    for i in range(k):  # the draft proposes autoregressively
        qi = q_rows(i, prev, all_idx)
        draft[:, i] = _sample(qi, rng.random(n))
        prev = draft[:, i]
    tokens = np.full((n, k + 1), -1, dtype=np.int64)
    n_acc = np.zeros(n, dtype=np.int64)
    alive = all_idx
    for i in range(k):  # the target checks position i for rounds still alive
        if alive.size == 0:
            break
        prev = None if context is None else (context[alive] if i == 0 else draft[alive, i - 1])
        pi = p_rows(i, prev, alive)
        qi = q_rows(i, prev, alive)
        x = draft[alive, i]
        if pi.ndim == 1:
            px, qx = pi[x], qi[x]
        else:
            rows = np.arange(alive.size)
            px, qx = pi[rows, x], qi[rows, x]
        ok = rng.random(alive.size) * qx < px
        tokens[alive[ok], i] = x[ok]
        bad = ~ok
        if bad.any():
            pb = pi if pi.ndim == 1 else pi[bad]
            qb = qi if qi.ndim == 1 else qi[bad]
            tokens[alive[bad], i] = _sample(_residual(pb, qb), rng.random(int(bad.sum())))
        n_acc[alive[ok]] += 1
        alive = alive[ok]
    bonus = np.zeros(n, dtype=bool)
    if alive.size:
        prev = None if context is None else draft[alive, k - 1]
        pk = p_rows(k, prev, alive)
        tokens[alive, k] = _sample(pk, rng.random(alive.size))
        bonus[alive] = True
    return RoundSimulation(tokens=tokens, draft_tokens=draft, n_accepted=n_acc, bonus=bonus, k=k)


def simulate_rounds(p, q, k, n_rounds, rng):
    """Simulate independent speculative rounds with fixed per-position distributions.

    At draft position ``i`` (1..k) the draft proposes from ``q[i]`` and the
    target checks with ``p[i]``; the first rejection is replaced by a draw
    from the residual and ends the round; when all ``k`` drafts survive, a
    bonus token is drawn from ``p[k + 1]``. Vectorized over rounds (the only
    Python loop is over the ``k`` positions).

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    p : array_like, shape (V,) or (k + 1, V)
        Target distributions: one shared row, or one per draft position plus
        the bonus position.
    q : array_like, shape (V,) or (k, V)
        Draft distributions: one shared row, or one per draft position.
    k : int
        Draft tokens per round, >= 1.
    n_rounds : int
        Number of independent rounds, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    RoundSimulation
        Emitted tokens, draft tokens, accepted counts and bonus flags.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> p, q = [0.6, 0.3, 0.1], [0.3, 0.3, 0.4]   # sum(min(p, q)) = 0.7
    >>> sim = sd.sampling.simulate_rounds(p, q, 4, 200_000, np.random.default_rng(1))
    >>> round(sim.mean_tokens, 2), round(sd.expected_tokens(0.7, 4), 2)
    (2.77, 2.77)
    """
    kk = _check_count(k, "k")
    n = _check_count(n_rounds, "n_rounds")
    pa, qa = _check_pair(p, q)
    if pa.ndim == 2 and pa.shape[0] != kk + 1:
        raise ValueError(
            f"p must have shape (V,) or (k + 1, V) = ({kk + 1}, V): one row per draft position plus "
            f"the bonus position; got shape {pa.shape}"
        )
    if qa.ndim == 2 and qa.shape[0] != kk:
        raise ValueError(f"q must have shape (V,) or (k, V) = ({kk}, V); got shape {qa.shape}")
    if pa.ndim > 2 or qa.ndim > 2:
        raise ValueError(f"p and q must be 1-D or 2-D; got shapes {pa.shape} and {qa.shape}")

    def p_rows(i, prev, idx):
        return pa if pa.ndim == 1 else pa[i]

    def q_rows(i, prev, idx):
        return qa if qa.ndim == 1 else qa[min(i, kk - 1)]

    return _run_rounds(p_rows, q_rows, kk, n, _check_rng(rng), None)


def softmax_with_temperature(logits, t):
    r"""Softmax of ``logits / t`` along the last axis.

    .. math:: \mathrm{softmax}(z / t)_x = \frac{e^{z_x / t}}{\sum_y e^{z_y / t}}

    ``t`` broadcasts against the leading axes of ``logits``: a 1-D array of
    temperatures with a 1-D ``logits`` gives one distribution per
    temperature, shape ``t.shape + (V,)``.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    logits : array_like
        Unnormalized log-probabilities, vocabulary on the last axis (finite).
    t : float or array_like
        Temperature, finite and > 0 (lower is more peaked).

    Returns
    -------
    numpy.ndarray
        Probabilities summing to 1 along the last axis.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.softmax_with_temperature([0.0, 0.0], 0.5).tolist()
    [0.5, 0.5]
    >>> sd.sampling.softmax_with_temperature([2.0, 0.0], [1.0, 2.0]).round(4).tolist()
    [[0.8808, 0.1192], [0.7311, 0.2689]]
    """
    z = as_float_array(logits, "logits")
    if z.ndim == 0 or z.shape[-1] == 0:
        raise ValueError(f"logits must have a vocabulary axis (last axis); got shape {z.shape}")
    if not np.isfinite(z).all():
        raise ValueError("logits must be finite")
    tt = check_positive(t, "t", "(temperature)")
    try:
        scaled = z / tt[..., None]
    except ValueError as exc:
        raise ValueError(f"t with shape {tt.shape} does not broadcast against logits {z.shape[:-1]}") from exc
    scaled = scaled - scaled.max(axis=-1, keepdims=True)
    e = np.exp(scaled)
    return e / e.sum(axis=-1, keepdims=True)


def synthetic_bigram_pair(vocab, rng, peak=2.0, noise=0.5, temperature=1.0):
    """A small synthetic bigram target "language model" and a noisy draft copy.

    The target's logits for "next token given previous token" are
    ``peak * N(0, 1)`` per entry of a ``vocab x vocab`` table; the draft's
    are the target's plus ``noise * N(0, 1)``. Both are turned into
    row-stochastic tables by :func:`softmax_with_temperature`, so row ``a``
    is the next-token distribution after token ``a``: distributions depend
    on the prefix, as in a real model.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    vocab : int
        Vocabulary size, >= 2.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    peak : float
        Scale of the target logits (larger = more peaked), > 0.
    noise : float
        Scale of the draft's logit noise, >= 0 (0 = a perfect draft).
    temperature : float
        Sampling temperature applied to both, > 0.

    Returns
    -------
    target, draft : numpy.ndarray, shape (vocab, vocab)
        Row-stochastic transition tables.

    Examples
    --------
    >>> import specdec as sd
    >>> target, draft = sd.sampling.synthetic_bigram_pair(5, 0)
    >>> target.shape, bool(abs(target.sum(axis=1) - 1).max() < 1e-12)
    ((5, 5), True)
    """
    v = _check_count(vocab, "vocab", minimum=2)
    g = _check_rng(rng)
    pk = float(check_positive(peak, "peak"))
    nz = float(check_nonnegative(noise, "noise"))
    tt = float(check_positive(temperature, "temperature"))
    z = pk * g.standard_normal((v, v))
    zd = z + nz * g.standard_normal((v, v))
    return softmax_with_temperature(z, tt), softmax_with_temperature(zd, tt)


def _check_tables(target, draft):
    pa, qa = _check_pair(target, draft, "target", "draft")
    if pa.ndim != 2 or pa.shape[0] != pa.shape[1] or qa.shape != pa.shape:
        raise ValueError(
            f"target and draft must be square (V, V) transition tables of the same shape; "
            f"got {pa.shape} and {qa.shape}"
        )
    return pa, qa


def simulate_bigram_rounds(target, draft, k, n_rounds, rng, context=None):
    """Simulate independent speculative rounds on a bigram model pair.

    Each round starts after a context token; the draft proposes ``k`` tokens
    autoregressively from its table, and the target checks draft position
    ``i`` with its own row for the token before it (the context token or
    draft ``i - 1``): the distributions depend on the prefix. Rejection
    draws from the residual of those two rows; a bonus token follows
    ``target[draft_k]`` when all ``k`` survive. Vectorized over rounds.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    target, draft : array_like, shape (V, V)
        Row-stochastic transition tables (row = previous token).
    k : int
        Draft tokens per round, >= 1.
    n_rounds : int
        Number of rounds, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    context : int or array_like of int, optional
        Previous token of each round (scalar or shape (n_rounds,)); default
        token 0 for every round.

    Returns
    -------
    RoundSimulation

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> target, draft = sd.sampling.synthetic_bigram_pair(8, 0)
    >>> sim = sd.sampling.simulate_bigram_rounds(target, draft, 3, 1000, np.random.default_rng(1))
    >>> sim.tokens.shape, bool((sim.bonus == (sim.n_accepted == 3)).all())
    ((1000, 4), True)
    """
    pa, qa = _check_tables(target, draft)
    kk = _check_count(k, "k")
    n = _check_count(n_rounds, "n_rounds")
    v = pa.shape[0]
    ctx = np.zeros(n, dtype=np.int64) if context is None else check_integer(context, "context", 0, v - 1)
    ctx = np.broadcast_to(ctx, (n,)).astype(np.int64) if ctx.ndim == 0 or ctx.shape == (n,) else None
    if ctx is None:
        raise ValueError(f"context must be a token id or have shape (n_rounds,) = ({n},)")
    return _run_rounds(lambda i, prev, idx: pa[prev], lambda i, prev, idx: qa[prev], kk, n, _check_rng(rng), ctx)


def generate_bigram(target, draft, k, n_tokens, n_sequences, rng, start=0):
    """Generate text with speculative rounds on a bigram pair, many sequences at once.

    Runs rounds back to back (each round's context is the last emitted
    token) until every sequence has ``n_tokens`` tokens; tokens past
    ``n_tokens`` in the last round are dropped. Rounds within one sequence
    are sequential by nature; the work is vectorized across sequences. If
    the scheme is exact, the generated text is a Markov chain with the
    *target's* transition table.

    Defined in chapter "Why a decode step wastes arithmetic, and the
    verification pass" (Part II, chapter 1).

    Parameters
    ----------
    target, draft : array_like, shape (V, V)
        Row-stochastic transition tables.
    k : int
        Draft tokens per round, >= 1.
    n_tokens : int
        Tokens to generate per sequence, >= 1.
    n_sequences : int
        Independent sequences, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    start : int
        Token preceding every sequence.

    Returns
    -------
    sequences : numpy.ndarray of int64, shape (n_sequences, n_tokens)
    rounds : numpy.ndarray of int64, shape (n_sequences,)
        Speculative rounds each sequence needed.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> target, draft = sd.sampling.synthetic_bigram_pair(6, 0)
    >>> seqs, rounds = sd.sampling.generate_bigram(target, draft, 4, 50, 10, np.random.default_rng(2))
    >>> seqs.shape, bool((rounds <= 50).all() and (rounds >= 10).all())
    ((10, 50), True)
    """
    pa, qa = _check_tables(target, draft)
    kk = _check_count(k, "k")
    m = _check_count(n_tokens, "n_tokens")
    s = _check_count(n_sequences, "n_sequences")
    v = pa.shape[0]
    st = int(check_integer(start, "start", 0, v - 1)) if np.ndim(start) == 0 else None
    if st is None:
        raise ValueError("start must be a single token id")
    g = _check_rng(rng)
    seqs = np.full((s, m), -1, dtype=np.int64)
    filled = np.zeros(s, dtype=np.int64)
    rounds = np.zeros(s, dtype=np.int64)
    last = np.full(s, st, dtype=np.int64)
    active = np.arange(s)
    cols = np.arange(kk + 1)
    while active.size:
        sim = _run_rounds(lambda i, prev, idx: pa[prev], lambda i, prev, idx: qa[prev],
                          kk, active.size, g, last[active])
        emitted = sim.n_emitted
        pos = filled[active][:, None] + cols[None, :]
        keep = (cols[None, :] < emitted[:, None]) & (pos < m)
        r, c = np.nonzero(keep)
        seqs[active[r], pos[r, c]] = sim.tokens[r, c]
        filled[active] = np.minimum(filled[active] + emitted, m)
        rounds[active] += 1
        last[active] = sim.tokens[np.arange(active.size), emitted - 1]
        active = active[filled[active] < m]
    return seqs, rounds


# --------------------------------------------------------------------------
# accepted counts and estimating alpha
# --------------------------------------------------------------------------


def simulate_accepted_counts(alpha, k, n_rounds, rng):
    """Accepted drafts per round under i.i.d. acceptance (the capped geometric model).

    Each draft is accepted with probability ``alpha`` until the first
    rejection, at most ``k``: ``N = min(G, k)`` with ``P(G >= n) = alpha**n``.
    Drawn in one vectorized call by inverse CDF (``searchsorted`` on the
    ``k + 1`` cumulative probabilities for a scalar ``alpha``; the geometric
    law's closed-form inverse for an array of alphas).

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability in [0, 1]. An array gives one row
        of rounds per entry.
    k : int
        Draft tokens per round, >= 1.
    n_rounds : int
        Rounds per alpha, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    numpy.ndarray of int64
        Shape ``np.shape(alpha) + (n_rounds,)``; entries in ``0 .. k``.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> counts = sd.sampling.simulate_accepted_counts(0.8, 4, 200_000, np.random.default_rng(0))
    >>> round(float(counts.mean()) + 1, 2), round(sd.expected_tokens(0.8, 4), 2)
    (3.36, 3.36)
    """
    a = check_probability(alpha, "alpha")
    kk = _check_count(k, "k")
    n = _check_count(n_rounds, "n_rounds")
    g = _check_rng(rng)
    if a.ndim == 0:
        # inverse CDF of the (k+1)-point law: N = #{n < k : P(N <= n) <= u},
        # with P(N <= n) = 1 - alpha**(n+1); exact at alpha = 0 and alpha = 1.
        cdf = 1.0 - float(a) ** np.arange(1, kk + 1)
        return np.searchsorted(cdf, g.random(n), side="right").astype(np.int64)
    u = g.random(a.shape + (n,))
    a_ = a[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        # P(G >= m) = P(log1p(-u) <= m log(alpha)) = alpha**m
        geo = np.floor(np.log1p(-u) / np.log(a_))
    geo = np.where(a_ >= 1.0, kk, np.where(a_ <= 0.0, 0, np.nan_to_num(geo, nan=kk, posinf=kk)))
    return np.minimum(geo, kk).astype(np.int64)


def simulate_accepted_counts_per_position(alphas, n_rounds, rng):
    """Accepted drafts per round when the acceptance rate depends on the position.

    Draft ``i`` is accepted with probability ``alphas[i-1]`` given that
    drafts ``1 .. i-1`` were; ``k = len(alphas)``.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    alphas : array_like, shape (k,)
        Conditional acceptance rates, each in [0, 1].
    n_rounds : int
        Rounds, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    numpy.ndarray of int64, shape (n_rounds,)
        Accepted drafts per round, 0..k.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> c = sd.sampling.simulate_accepted_counts_per_position([0.9, 0.7, 0.5], 100_000, np.random.default_rng(0))
    >>> round(float(c.mean()) + 1, 2), round(sd.expected_tokens_per_position([0.9, 0.7, 0.5]), 2)
    (2.85, 2.84)
    """
    a = check_probability(alphas, "alphas")
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"alphas must be a 1-D array with one rate per draft position; got shape {a.shape}")
    n = _check_count(n_rounds, "n_rounds")
    u = _check_rng(rng).random((n, a.size))
    ok = u < a
    # number of leading accepts = index of the first rejection (or k)
    return np.where(ok.all(axis=1), a.size, np.argmin(ok, axis=1)).astype(np.int64)


def _check_counts(accepted_counts, k) -> tuple[np.ndarray, int]:
    kk = _check_count(k, "k")
    c = as_float_array(accepted_counts, "accepted_counts")
    if c.ndim == 0 or c.shape[-1] == 0:
        raise ValueError(f"accepted_counts must be a non-empty array of per-round counts; got shape {c.shape}")
    if np.isnan(c).any() or (c != np.round(c)).any():
        raise ValueError("accepted_counts must be whole numbers (accepted drafts per round)")
    if (c < 0).any() or (c > kk).any():
        bad = c[(c < 0) | (c > kk)].flat[0]
        raise ValueError(f"accepted_counts must be in 0..k = 0..{kk}; got {bad:g}")
    return c.astype(np.int64), kk


def wilson_interval(successes, trials, confidence=0.95):
    r"""Wilson score interval for a binomial-like proportion.

    .. math:: \frac{\hat a + \frac{z^2}{2n} \pm z\sqrt{\frac{\hat a(1-\hat a)}{n} + \frac{z^2}{4n^2}}}{1 + z^2/n}

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    successes : float or array_like
        Successes, >= 0.
    trials : float or array_like
        Trials, >= successes and > 0.
    confidence : float
        Two-sided confidence level in (0, 1).

    Returns
    -------
    low, high : float or numpy.ndarray
        Interval end points in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> [round(x, 4) for x in sd.sampling.wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    s = check_nonnegative(successes, "successes")
    n = check_positive(trials, "trials")
    if (s > n).any():
        raise ValueError("successes must not exceed trials")
    conf = float(check_fraction_open(confidence, "confidence"))
    z = _normal_quantile(0.5 + conf / 2)
    a = s / n
    denom = 1 + z**2 / n
    centre = (a + z**2 / (2 * n)) / denom
    half = z * np.sqrt(a * (1 - a) / n + z**2 / (4 * n**2)) / denom
    scalar = is_scalar_input(successes, trials)
    return to_output(np.clip(centre - half, 0, 1), scalar), to_output(np.clip(centre + half, 0, 1), scalar)


def _normal_quantile(prob: float) -> float:
    """Standard normal quantile via :class:`statistics.NormalDist` (no scipy)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(prob)


@dataclass(frozen=True)
class AlphaEstimate:
    """Maximum-likelihood alpha with a Wilson score interval.

    Attributes
    ----------
    alpha, low, high : float or numpy.ndarray
        Estimate and interval end points (arrays when several logs are
        estimated at once along the leading axes).
    n_rounds : int
        Rounds per log.
    accepted : int or numpy.ndarray
        S, total accepted drafts.
    stops : int or numpy.ndarray
        F, rounds that stopped before k (each is one observed rejection).
    confidence : float
        Confidence level of the interval.
    """

    alpha: Any
    low: Any
    high: Any
    n_rounds: int
    accepted: Any
    stops: Any
    confidence: float

    def __str__(self) -> str:
        if np.ndim(self.alpha) == 0:
            return (f"alpha = {self.alpha:.3f} ({self.confidence:.0%} interval {self.low:.3f} .. "
                    f"{self.high:.3f}; {self.accepted} accepted drafts, {self.stops} rejections, "
                    f"{self.n_rounds} rounds)")
        return f"AlphaEstimate over {np.shape(self.alpha)} logs of {self.n_rounds} rounds"


def estimate_alpha(accepted_counts, k, confidence=0.95):
    r"""Maximum-likelihood alpha from accepted drafts per round, with an interval.

    Under the capped geometric model every accepted draft is a success and
    every round that stopped before ``k`` drafts ended with exactly one
    rejection (a round with all ``k`` accepted saw no rejection). The
    likelihood is :math:`\alpha^S (1-\alpha)^F` with ``S`` the total
    accepted drafts and ``F`` the rounds with fewer than ``k`` accepted, so

    .. math:: \hat\alpha = \frac{S}{S + F}.

    The interval is the Wilson score interval with ``S`` successes in
    ``S + F`` Bernoulli checks (the likelihood has the binomial form because
    stopping at the first rejection is a stopping rule that does not change
    it). Its coverage is close to nominal; the book's tests check it over
    repeated simulated logs.

    When the rate is not constant across positions (multi-head drafts,
    long drafts), use :func:`estimate_alpha_per_position` as well.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    accepted_counts : array_like of int
        Accepted drafts per round, each in ``0 .. k``. Rounds on the last
        axis; leading axes are separate logs estimated independently.
    k : int
        Draft tokens proposed per round, >= 1.
    confidence : float
        Two-sided confidence level of the interval, in (0, 1).

    Returns
    -------
    AlphaEstimate
        ``.alpha``, ``.low``, ``.high``, ``.n_rounds``, ``.accepted`` (S),
        ``.stops`` (F), ``.confidence``.

    Examples
    --------
    >>> import specdec as sd
    >>> est = sd.sampling.estimate_alpha([4, 2, 0, 4, 3], k=4)   # S = 13, F = 3
    >>> round(est.alpha, 4), est.accepted, est.stops
    (0.8125, 13, 3)
    """
    c, kk = _check_counts(accepted_counts, k)
    conf = float(check_fraction_open(confidence, "confidence"))
    s = c.sum(axis=-1)
    f = (c < kk).sum(axis=-1)
    n_checks = s + f
    # n_checks >= 1 always: a non-empty log has either a rejection or k >= 1 accepts
    alpha = s / n_checks
    low, high = wilson_interval(s, n_checks, conf)
    scalar = c.ndim == 1
    as_int = (lambda x: int(x)) if scalar else np.asarray
    return AlphaEstimate(
        alpha=to_output(alpha, scalar), low=to_output(low, scalar), high=to_output(high, scalar),
        n_rounds=int(c.shape[-1]), accepted=as_int(s), stops=as_int(f), confidence=conf,
    )


@dataclass(frozen=True)
class PerPositionEstimate:
    """Conditional acceptance rate at each draft position.

    Attributes
    ----------
    alphas, low, high : numpy.ndarray, shape (k,)
        Estimate and Wilson interval per position (NaN where no round reached
        the position).
    reached : numpy.ndarray of int64, shape (k,)
        Rounds that reached position i (at least i - 1 accepted): the denominator.
    passed : numpy.ndarray of int64, shape (k,)
        Rounds with at least i accepted: the numerator.
    """

    alphas: np.ndarray
    low: np.ndarray
    high: np.ndarray
    reached: np.ndarray
    passed: np.ndarray


def estimate_alpha_per_position(accepted_counts, k, confidence=0.95):
    r"""Conditional acceptance rate at each draft position, from accepted counts.

    .. math:: \hat\alpha_i = \frac{\#\{\text{rounds with} \ge i \text{ accepted}\}}
                                 {\#\{\text{rounds with} \ge i - 1 \text{ accepted}\}}

    Position ``i``'s draft is checked only in rounds that accepted the
    ``i - 1`` before it, so these are the rates multi-head and tree methods
    report; plug them into :func:`specdec.expected_tokens_per_position`.
    If they drift with ``i`` the single-alpha model is a poor fit. Their
    ``reached``-weighted pooled rate equals :func:`estimate_alpha`.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    accepted_counts : array_like of int, 1-D
        Accepted drafts per round, each in ``0 .. k``.
    k : int
        Draft tokens per round, >= 1.
    confidence : float
        Level of the per-position Wilson intervals, in (0, 1).

    Returns
    -------
    PerPositionEstimate

    Examples
    --------
    >>> import specdec as sd
    >>> est = sd.sampling.estimate_alpha_per_position([0, 1, 2, 2, 2], k=2)
    >>> est.alphas.tolist(), est.reached.tolist()
    ([0.8, 0.75], [5, 4])
    """
    c, kk = _check_counts(accepted_counts, k)
    if c.ndim != 1:
        raise ValueError(f"accepted_counts must be 1-D here (one log); got shape {c.shape}")
    conf = float(check_fraction_open(confidence, "confidence"))
    hist = np.bincount(c, minlength=kk + 1)
    at_least = hist[::-1].cumsum()[::-1]  # at_least[j] = #rounds with >= j accepted
    reached = at_least[:kk]
    passed = at_least[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        alphas = np.where(reached > 0, passed / np.maximum(reached, 1), np.nan)
    low, high = wilson_interval(passed, np.maximum(reached, 1), conf)
    low = np.where(reached > 0, low, np.nan)
    high = np.where(reached > 0, high, np.nan)
    return PerPositionEstimate(alphas=alphas, low=low, high=high, reached=reached.astype(np.int64),
                               passed=passed.astype(np.int64))


# --------------------------------------------------------------------------
# serving metrics and their inverses
# --------------------------------------------------------------------------


def draft_acceptance_rate(alpha, k):
    r"""Fraction of drafted tokens accepted, as serving engines print it.

    .. math:: \text{rate} = \frac{E[\text{accepted drafts}]}{k} = \frac{E[L] - 1}{k}
              = \frac{\alpha - \alpha^{k+1}}{k(1-\alpha)}

    This is *not* alpha: drafts after the first rejection are counted as
    drafted but never had a chance, so the rate is below alpha for
    ``k > 1`` (at ``alpha = 0.8, k = 4`` it is 0.59).

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Accepted / drafted, in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.sampling.draft_acceptance_rate(0.8, 4), 4)
    0.5904
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    out = (np.asarray(expected_tokens(a, kk)) - 1.0) / kk
    return to_output(np.clip(out, 0.0, 1.0), is_scalar_input(alpha, k))


def mean_acceptance_length(alpha, k, include_bonus=True):
    """Mean tokens per round as serving engines print it ("acceptance length").

    With ``include_bonus=True`` (the usual convention, e.g. the mean
    acceptance length of EAGLE papers) this is ``E[L]``, counting the
    target's own token; with ``False`` it is the mean number of accepted
    drafts, ``E[L] - 1``.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.
    include_bonus : bool
        Whether the target's token (correction or bonus) is counted.

    Returns
    -------
    float or numpy.ndarray
        Tokens per round: in [1, k + 1] with the bonus, [0, k] without.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.sampling.mean_acceptance_length(0.8, 4), 4)
    3.3616
    >>> round(sd.sampling.mean_acceptance_length(0.8, 4, include_bonus=False), 4)
    2.3616
    """
    if not isinstance(include_bonus, (bool, np.bool_)):
        raise TypeError(f"include_bonus must be True or False; got {include_bonus!r}")
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    out = np.asarray(expected_tokens(a, kk)) - (0.0 if include_bonus else 1.0)
    return to_output(out, is_scalar_input(alpha, k))


def _el_and_slope(a: np.ndarray, k: np.ndarray, k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """E(a) = sum_{i<=k} a^i and E'(a) by Horner with a per-element degree k."""
    e = np.zeros(a.shape)
    d = np.zeros(a.shape)
    for i in range(k_max, -1, -1):  # loop over the polynomial degree, not data
        d = d * a + e
        e = e * a + (i <= k)
    return e, d


def _solve_alpha(target_el: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Vectorized solver for alpha in [0, 1] with E[L](alpha, k) = target_el.

    E is a polynomial with positive coefficients, so it is increasing and
    convex on [0, 1]. Twelve bisection halvings shrink the bracket to
    2.4e-4; Newton's method started from the bracket's upper end then
    converges monotonically from the right (convexity) and quadratically;
    any step that leaves the bracket is replaced by a halving. The ends
    (E = 1 and E = k + 1) are returned exactly.
    """
    t, kk = np.broadcast_arrays(np.asarray(target_el, float), np.asarray(k))
    k_max = int(kk.max()) if kk.size else 1
    lo = np.zeros(t.shape)
    hi = np.ones(t.shape)
    for _ in range(12):
        mid = 0.5 * (lo + hi)
        below = _el_and_slope(mid, kk, k_max)[0] < t
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    x = hi
    for _ in range(8):
        e, d = _el_and_slope(x, kk, k_max)
        below = e < t
        lo = np.where(below, x, lo)
        hi = np.where(below, hi, x)
        step = x - (e - t) / d
        x = np.where((step >= lo) & (step <= hi), step, 0.5 * (lo + hi))
    x = np.where(t <= 1.0, 0.0, x)
    return np.where(t >= kk + 1.0, 1.0, x)


def alpha_from_draft_acceptance_rate(rate, k):
    """Invert :func:`draft_acceptance_rate`: the alpha behind an engine's accepted/drafted.

    Solves ``(E[L](alpha, k) - 1) / k = rate`` with a vectorized, bracketed
    Newton iteration (E[L] is increasing in alpha, so the solution is unique).

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    rate : float or array_like
        Accepted drafts / drafted tokens, in [0, 1].
    k : int or array_like of int
        Draft tokens per round the engine used, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Per-position alpha in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.sampling.alpha_from_draft_acceptance_rate(0.5904, 4), 4)
    0.8
    """
    r = check_probability(rate, "rate")
    kk = check_integer(k, "k", minimum=1)
    return to_output(_solve_alpha(1.0 + r * kk, kk), is_scalar_input(rate, k))


def alpha_from_mean_acceptance_length(length, k, include_bonus=True):
    """Invert :func:`mean_acceptance_length`: the alpha behind a mean acceptance length.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    length : float or array_like
        Mean tokens per round: in [1, k + 1] with ``include_bonus=True``,
        in [0, k] without.
    k : int or array_like of int
        Draft tokens per round, >= 1.
    include_bonus : bool
        Whether ``length`` counts the target's own token.

    Returns
    -------
    float or numpy.ndarray
        Per-position alpha in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.sampling.alpha_from_mean_acceptance_length(3.3616, 4), 4)
    0.8
    """
    if not isinstance(include_bonus, (bool, np.bool_)):
        raise TypeError(f"include_bonus must be True or False; got {include_bonus!r}")
    ln = as_float_array(length, "length")
    kk = check_integer(k, "k", minimum=1)
    el = ln + (0.0 if include_bonus else 1.0)
    lo_txt = "1" if include_bonus else "0"
    hi_txt = "k + 1" if include_bonus else "k"
    bad = np.isnan(el) | (el < 1.0) | (el > kk + 1.0)
    if bad.any():
        val = np.broadcast_to(ln, bad.shape)[bad].flat[0]
        raise ValueError(f"length must be in [{lo_txt}, {hi_txt}] tokens per round; got {val!r}")
    return to_output(_solve_alpha(el, kk), is_scalar_input(length, k))


# --------------------------------------------------------------------------
# temperature and workloads
# --------------------------------------------------------------------------

#: Shapes of the two synthetic workloads: (head size, head slope, tail slope)
#: of the log-probability profile over ranks (see :func:`synthetic_logit_pair`).
WORKLOAD_SHAPES = {"peaked": (1, 3.0, 3.0), "flat": (30, 0.5, 3.0)}


def synthetic_logit_pair(kind="peaked", vocab=1000, n_contexts=128, noise=1.0, sharpness=1.0, rng=0):
    r"""Target logits for a synthetic workload and a draft that is a noisy copy.

    In each context the target's logit of the token of rank ``r`` is
    ``-a * log(r)`` for the ``h`` most plausible tokens (the *head*) and
    continues with slope ``b`` beyond it (the *tail*), over a random
    permutation of the vocabulary:

    * ``"peaked"`` (code-like): ``h = 1, a = b = 3``, a Zipf profile where
      one continuation carries most of the mass;
    * ``"flat"`` (prose-like): ``h = 30, a = 0.5, b = 3``: thirty nearly
      equally plausible continuations, then a steep tail.

    The draft's logits are ``sharpness * target + noise * N(0, 1)`` per
    token: ``noise`` scrambles the ranking, ``sharpness < 1`` makes the draft
    under-confident without changing the ranking.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    kind : {"peaked", "flat"}
        Workload shape.
    vocab : int
        Vocabulary size, >= 2.
    n_contexts : int
        Independent contexts (rows), >= 1.
    noise : float
        Standard deviation of the draft's logit noise, >= 0 (nats).
    sharpness : float
        Factor on the target's logits in the draft, > 0 (1 = same confidence).
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    target_logits, draft_logits : numpy.ndarray, shape (n_contexts, vocab)

    Examples
    --------
    >>> import specdec as sd
    >>> zt, zd = sd.sampling.synthetic_logit_pair("flat", vocab=50, n_contexts=4)
    >>> zt.shape, zd.shape
    ((4, 50), (4, 50))
    """
    if kind not in WORKLOAD_SHAPES:
        raise ValueError(f"kind must be one of {sorted(WORKLOAD_SHAPES)}; got {kind!r}")
    head, a, b = WORKLOAD_SHAPES[kind]
    v = _check_count(vocab, "vocab", minimum=2)
    m = _check_count(n_contexts, "n_contexts")
    sigma = float(check_nonnegative(noise, "noise", "(nats)"))
    sharp = float(check_positive(sharpness, "sharpness"))
    g = _check_rng(rng)
    rank = np.arange(1, v + 1)
    h = min(head, v)
    profile = np.where(rank <= h, -a * np.log(rank), -a * np.log(h) - b * np.log(rank / h))
    perm = np.argsort(g.random((m, v)), axis=1)
    target = profile[perm]
    draft = sharp * target + sigma * g.standard_normal((m, v))
    return target, draft


def acceptance_vs_temperature(target_logits, draft_logits, temperatures):
    r"""Acceptance rate ``sum(min(p, q))`` when both models sample at temperature ``t``.

    Both logit arrays are divided by the same temperature, turned into
    distributions, and the acceptance rate is averaged over the contexts
    (leading rows): the workload's alpha at that temperature.

    Defined in chapter "The acceptance rate and the tokens it yields"
    (Part II, chapter 2).

    Parameters
    ----------
    target_logits, draft_logits : array_like, shape (V,) or (n_contexts, V)
        Logits of the target and the draft, same shape.
    temperatures : float or array_like
        Temperatures, each finite and > 0.

    Returns
    -------
    float or numpy.ndarray
        Mean acceptance rate per temperature, shape of ``temperatures``.

    Examples
    --------
    >>> import specdec as sd
    >>> zt, zd = sd.sampling.synthetic_logit_pair("peaked", vocab=200, n_contexts=64)
    >>> a = sd.sampling.acceptance_vs_temperature(zt, zd, [0.2, 1.0])
    >>> bool(a[0] > a[1])
    True
    """
    zt = as_float_array(target_logits, "target_logits")
    zd = as_float_array(draft_logits, "draft_logits")
    if zt.shape != zd.shape or zt.ndim not in (1, 2):
        raise ValueError(f"target_logits and draft_logits must have the same shape (V,) or (n, V); got {zt.shape} and {zd.shape}")
    tt = check_positive(temperatures, "temperatures", "(temperature)")
    t_flat = tt.reshape(-1)
    zt2 = zt.reshape(-1, zt.shape[-1])
    zd2 = zd.reshape(-1, zd.shape[-1])
    p = softmax_with_temperature(zt2[None, :, :], t_flat[:, None])
    q = softmax_with_temperature(zd2[None, :, :], t_flat[:, None])
    acc = np.minimum(p, q).sum(axis=-1).mean(axis=-1)
    return to_output(acc.reshape(tt.shape), np.ndim(temperatures) == 0)

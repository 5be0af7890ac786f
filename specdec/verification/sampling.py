"""Exact speculative sampling and its simulation.

``p`` is the target's next-token distribution, ``q`` the draft's (Leviathan et al.'s letters),
over the same vocabulary along the last axis. One position: draw ``x ~ q``, accept with
probability ``min(1, p(x) / q(x))``, else emit from :func:`residual_distribution`; a round chains
``k`` positions and adds a bonus token when all survive. Simulators are vectorized and take a
seeded :class:`numpy.random.Generator`; :func:`flawed_speculative_step` is deliberately wrong.
Probability vectors may be float16, float32 or float64; everything is computed in float64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_bool,
    check_choice,
    check_count,
    check_distribution_pair,
    check_integer,
    check_rng,
    check_size,
    to_output,
)

__all__ = [
    "speculative_step",
    "flawed_speculative_step",
    "residual_distribution",
    "accepted_mass",
    "emitted_token_distribution",
    "total_variation",
    "running_frequencies",
    "convergence_to_target",
    "RoundSimulation",
    "simulate_rounds",
    "simulate_bigram_rounds",
    "generate_bigram",
    "transition_frequencies",
]


def _check_vector_pair(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    pa, qa = check_distribution_pair(p, q)
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
        idx: np.ndarray = np.zeros(u.shape, dtype=np.uint8)
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


def residual_distribution(p: ArrayLike, q: ArrayLike, normalize: bool = True) -> np.ndarray:
    r"""The residual distribution a rejected draft is replaced from.

    .. math:: r(x) = \frac{\max(p(x) - q(x), 0)}{\sum_y \max(p(y) - q(y), 0)}

    ``p`` when ``p == q``. With ``normalize=False`` the numerator alone, which sums to
    ``1 - alpha``.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

    Parameters
    ----------
    p : array_like
        Target distribution over the vocabulary (last axis), sums to 1.
    q : array_like
        Draft distribution, same vocabulary, sums to 1.
    normalize : bool, optional
        Divide by the total (default) or return the excess mass itself.

    Returns
    -------
    numpy.ndarray
        The residual distribution (or the excess mass), broadcast shape of
        ``p`` and ``q``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.residual_distribution([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]).tolist()
    [1.0, 0.0, 0.0]
    >>> sd.sampling.residual_distribution([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], normalize=False).round(12).tolist()
    [0.3, 0.0, 0.0]
    """
    norm = check_bool(normalize, "normalize")
    pa, qa = check_distribution_pair(p, q)
    pa, qa = np.broadcast_arrays(pa, qa)
    return _residual(pa, qa) if norm else np.maximum(pa - qa, 0.0)


def accepted_mass(p: ArrayLike, q: ArrayLike) -> np.ndarray:
    r"""Probability that token ``x`` is both proposed and accepted: :math:`\min(p(x), q(x))`.

    Its sum is the acceptance rate (:func:`specdec.acceptance.acceptance_rate`).

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

    Parameters
    ----------
    p, q : array_like
        Target and draft distributions over the same vocabulary (last axis).

    Returns
    -------
    numpy.ndarray
        ``min(p, q)`` elementwise, broadcast shape.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.accepted_mass([0.5, 0.5], [0.9, 0.1]).tolist()
    [0.5, 0.1]
    """
    pa, qa = check_distribution_pair(p, q)
    return np.minimum(pa, qa)


def emitted_token_distribution(p: ArrayLike, q: ArrayLike, correction: str = "residual") -> np.ndarray:
    r"""Exact distribution of the token one position emits.

    .. math:: P(\text{emit } x) = \min(p(x), q(x)) + (1 - \alpha)\, c(x),
              \qquad \alpha = \sum_y \min(p(y), q(y))

    where ``c`` is the correction: ``"residual"`` (gives ``p``), ``"target"`` (redraws from ``p``)
    or ``"none"`` (keeps the draft token, gives ``q``).

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    pa, qa = check_distribution_pair(p, q)
    check_choice(correction, "correction", ("residual", "target", "none"))
    if correction == "none":
        return np.broadcast_arrays(pa, qa)[1].copy()
    m = np.minimum(pa, qa)
    reject = 1.0 - m.sum(axis=-1, keepdims=True)
    c = _residual(pa, qa) if correction == "residual" else np.broadcast_arrays(pa, qa)[0]
    return m + reject * c


def total_variation(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    r"""Total-variation distance between distributions, ``sum(|p - q|) / 2``.

    ``1 - total_variation(p, q)`` is the acceptance rate ``sum(min(p, q))``.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    pa, qa = check_distribution_pair(p, q)
    return _total_variation(pa, qa)


def _total_variation(pa: np.ndarray, qa: np.ndarray) -> float | np.ndarray:
    """:func:`total_variation` of validated float64 arrays; checks nothing."""
    out = 0.5 * np.abs(pa - qa).sum(axis=-1)
    return to_output(out, pa.ndim == 1 and qa.ndim == 1)


def running_frequencies(tokens: ArrayLike, vocab: int, sizes: ArrayLike) -> np.ndarray:
    """Empirical token frequencies of the first ``n`` samples, for each ``n`` in ``sizes``.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    v = check_count(vocab, "vocab")
    t = check_integer(tokens, "tokens", minimum=0, maximum=v - 1)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"tokens must be a non-empty 1-D array of token ids; got shape {t.shape}")
    n = np.atleast_1d(check_integer(sizes, "sizes", minimum=1, maximum=t.size))
    check_size(float(n.size) * v, "sizes", "the table of frequencies (len(sizes) x vocab)")
    return _running_frequencies(t, v, n)


def _running_frequencies(t: np.ndarray, v: int, n: np.ndarray) -> np.ndarray:
    """:func:`running_frequencies` of validated int64 tokens ``t`` and 1-D prefix lengths ``n``; checks nothing."""
    counts = np.empty((n.size, v))
    for token in range(v):  # loop over the vocabulary, not the samples
        counts[:, token] = np.searchsorted(np.flatnonzero(t == token), n, side="left")
    return counts / n[:, None]


def convergence_to_target(p: ArrayLike, q: ArrayLike, sizes: ArrayLike,
                          rng: np.random.Generator | int) -> dict[str, Any]:
    """Empirical emitted-token frequencies of three schemes as the sample grows.

    One simulation of ``max(sizes)`` trials per scheme, through :func:`running_frequencies`:

    * ``"speculative"``: :func:`speculative_step` (exact);
    * ``"correction from target"``: the bug of redrawing rejections from ``p``;
    * ``"draft only"``: plain sampling from the draft ``q``.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    >>> out = sd.sampling.convergence_to_target(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT, [100, 10_000], 0)
    >>> out["speculative"].shape
    (2, 8)
    """
    pa, qa = _check_vector_pair(p, q)
    n = np.atleast_1d(check_integer(sizes, "sizes", minimum=1))
    if n.ndim != 1:
        raise ValueError(f"sizes must be 1-D; got shape {n.shape}")
    g = check_rng(rng)
    total = int(n.max())
    check_size(3.0 * total, "sizes", "the largest simulation")
    v = pa.size
    out = {"sizes": n}
    tokens = _step(pa, qa, total, g, "residual")[0]
    check_size(float(n.size) * v, "sizes", "the table of frequencies (len(sizes) x vocab)")  # running_frequencies'
    out["speculative"] = _running_frequencies(tokens, v, n)
    out["correction from target"] = _running_frequencies(_step(pa, qa, total, g, "target")[0], v, n)
    out["draft only"] = _running_frequencies(_step(pa, qa, total, g, "none")[0], v, n)
    return out


def _step(pa: np.ndarray, qa: np.ndarray, size: int, rng: np.random.Generator,
          correction: str) -> tuple[np.ndarray, np.ndarray]:
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


def speculative_step(p: ArrayLike, q: ArrayLike, size: int,
                     rng: np.random.Generator | int) -> tuple[np.ndarray, np.ndarray]:
    r"""Run ``size`` independent single-position speculative sampling trials.

    Draw ``x ~ q``, accept with probability ``min(1, p(x) / q(x))``, else emit from
    :func:`residual_distribution`.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    n = check_count(size, "size")
    check_size(2.0 * n, "size", "the trials")
    return _step(pa, qa, n, check_rng(rng), "residual")


def flawed_speculative_step(p: ArrayLike, q: ArrayLike, size: int, rng: np.random.Generator | int,
                            flaw: str = "correction-from-target") -> tuple[np.ndarray, np.ndarray]:
    """A deliberately wrong speculative step, to show what exactness rules out.

    ``flaw="correction-from-target"`` redraws a rejected token from ``p`` instead of the residual;
    ``flaw="no-verification"`` keeps every draft token (sampling from ``q``). Neither follows ``p``.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    n = check_count(size, "size")
    check_size(2.0 * n, "size", "the trials")
    kinds = {"correction-from-target": "target", "no-verification": "none"}
    check_choice(flaw, "flaw", sorted(kinds))
    return _step(pa, qa, n, check_rng(rng), kinds[flaw])


# --------------------------------------------------------------------------
# whole rounds
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundSimulation:
    """Outcome of many independent speculative rounds (see :func:`simulate_rounds`).

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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


def _run_rounds(p_rows: Callable[..., Any], q_rows: Callable[..., Any], k: int, n: int, rng: np.random.Generator,
                context: np.ndarray | None) -> RoundSimulation:
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


def simulate_rounds(p: ArrayLike, q: ArrayLike, k: int, n_rounds: int,
                    rng: np.random.Generator | int) -> RoundSimulation:
    """Simulate independent speculative rounds with fixed per-position distributions.

    At draft position ``i`` (1..k) the draft proposes from ``q[i]`` and the
    target checks with ``p[i]``; the first rejection is replaced from the residual and ends the
    round; when all ``k`` survive a bonus token is drawn from ``p[k + 1]``.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    kk = check_count(k, "k")
    n = check_count(n_rounds, "n_rounds")
    check_size(n * (2.0 * kk + 2.0), "n_rounds", "the simulated rounds (n_rounds x (2k + 2) tokens)")
    pa, qa = check_distribution_pair(p, q, broadcast=False)  # (k + 1, V) against (k, V) is allowed here
    if pa.ndim == 2 and pa.shape[0] != kk + 1:
        raise ValueError(
            f"p must have shape (V,) or (k + 1, V) = ({kk + 1}, V): one row per draft position plus "
            f"the bonus position; got shape {pa.shape}"
        )
    if qa.ndim == 2 and qa.shape[0] != kk:
        raise ValueError(f"q must have shape (V,) or (k, V) = ({kk}, V); got shape {qa.shape}")
    if pa.ndim > 2 or qa.ndim > 2:
        raise ValueError(f"p and q must be 1-D or 2-D; got shapes {pa.shape} and {qa.shape}")

    def p_rows(i: int, prev: np.ndarray | None, idx: ArrayLike) -> np.ndarray:
        return pa if pa.ndim == 1 else pa[i]

    def q_rows(i: int, prev: ArrayLike | None, idx: ArrayLike) -> np.ndarray:
        return qa if qa.ndim == 1 else qa[min(i, kk - 1)]

    return _run_rounds(p_rows, q_rows, kk, n, check_rng(rng), None)


def _check_tables(target: ArrayLike, draft: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    pa, qa = check_distribution_pair(target, draft, "target", "draft")
    if pa.ndim != 2 or pa.shape[0] != pa.shape[1] or qa.shape != pa.shape:
        raise ValueError(
            f"target and draft must be square (V, V) transition tables of the same shape; "
            f"got {pa.shape} and {qa.shape}"
        )
    return pa, qa


def simulate_bigram_rounds(target: ArrayLike, draft: ArrayLike, k: int, n_rounds: int, rng: np.random.Generator | int,
                           context: ArrayLike | None = None) -> RoundSimulation:
    """Simulate independent speculative rounds on a bigram model pair.

    The draft proposes ``k`` tokens autoregressively from its table after a context token; the
    target checks position ``i`` with its row for the token before it; a bonus token follows
    ``target[draft_k]`` when all ``k`` survive.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    >>> target, draft = sd.synthetic.synthetic_bigram_pair(8, 0)
    >>> sim = sd.sampling.simulate_bigram_rounds(target, draft, 3, 1000, np.random.default_rng(1))
    >>> sim.tokens.shape, bool((sim.bonus == (sim.n_accepted == 3)).all())
    ((1000, 4), True)
    """
    pa, qa = _check_tables(target, draft)
    kk = check_count(k, "k")
    n = check_count(n_rounds, "n_rounds")
    check_size(n * (2.0 * kk + 2.0), "n_rounds", "the simulated rounds (n_rounds x (2k + 2) tokens)")
    v = pa.shape[0]
    ctx: np.ndarray | None
    ctx = np.zeros(n, dtype=np.int64) if context is None else check_integer(context, "context", 0, v - 1)
    ctx = np.broadcast_to(ctx, (n,)).astype(np.int64) if ctx.ndim == 0 or ctx.shape == (n,) else None
    if ctx is None:
        raise ValueError(f"context must be a token id or have shape (n_rounds,) = ({n},)")
    return _run_rounds(lambda i, prev, idx: pa[prev], lambda i, prev, idx: qa[prev], kk, n, check_rng(rng), ctx)


def generate_bigram(target: ArrayLike, draft: ArrayLike, k: int, n_tokens: int, n_sequences: int,
                    rng: np.random.Generator | int, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Generate text with speculative rounds on a bigram pair, many sequences at once.

    Rounds back to back (each round's context is the last emitted token) until every sequence has
    ``n_tokens`` tokens; the last round's surplus is dropped.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    >>> target, draft = sd.synthetic.synthetic_bigram_pair(6, 0)
    >>> seqs, rounds = sd.sampling.generate_bigram(target, draft, 4, 50, 10, np.random.default_rng(2))
    >>> seqs.shape, bool((rounds <= 50).all() and (rounds >= 10).all())
    ((10, 50), True)
    """
    pa, qa = _check_tables(target, draft)
    kk = check_count(k, "k")
    m = check_count(n_tokens, "n_tokens")
    s = check_count(n_sequences, "n_sequences")
    check_size(float(s) * max(m, kk + 1.0) * 2.0, "n_sequences", "the generated sequences")
    v = pa.shape[0]
    st = int(check_integer(start, "start", 0, v - 1)) if np.ndim(start) == 0 else None
    if st is None:
        raise ValueError("start must be a single token id")
    g = check_rng(rng)
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


def transition_frequencies(sequences: ArrayLike, vocab: int, start: int = 0) -> np.ndarray:
    """Empirical transition table of generated token sequences.

    Row ``a`` is the frequency of each token right after token ``a``,
    counted over every sequence, with ``start`` as the token before each
    sequence's first one (as :func:`generate_bigram` uses it).

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

    Parameters
    ----------
    sequences : array_like of int, shape (n_sequences, n_tokens)
        Token ids in ``[0, vocab)``, at least one token per sequence.
    vocab : int
        Vocabulary size, >= 1.
    start : int, optional
        Token preceding every sequence, in ``[0, vocab)``. Default 0.

    Returns
    -------
    numpy.ndarray of float64, shape (vocab, vocab)
        Row-stochastic where a token occurred as a predecessor; rows of
        tokens that never did are ``nan``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.sampling.transition_frequencies([[1, 1, 0], [0, 1, 1]], vocab=2)
    array([[0.33333333, 0.66666667],
           [0.33333333, 0.66666667]])
    """
    v = check_count(vocab, "vocab")
    st = int(check_integer(start, "start", 0, v - 1)) if np.ndim(start) == 0 else None
    if st is None:
        raise ValueError("start must be a single token id")
    seqs = np.asarray(sequences)
    if seqs.ndim != 2 or seqs.shape[1] < 1 or not np.issubdtype(seqs.dtype, np.integer):
        raise ValueError(f"sequences must be a 2-D array of token ids with at least one column; got shape "
                         f"{seqs.shape} and dtype {seqs.dtype}")
    if seqs.size and (seqs.min() < 0 or seqs.max() >= v):
        raise ValueError(f"sequences must hold token ids in [0, {v}); got values from {int(seqs.min())} "
                         f"to {int(seqs.max())}")
    prev = np.concatenate([np.full((seqs.shape[0], 1), st, dtype=np.int64), seqs[:, :-1]], axis=1).ravel()
    counts = np.zeros((v, v))
    np.add.at(counts, (prev, seqs.ravel()), 1.0)
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, counts / totals, np.nan)

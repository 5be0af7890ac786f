"""Block verification: accept a chain of drafts jointly, exactly, and never fewer than token by token.

Sun et al. (``BLOCK_ABSTRACT``, arXiv 2403.10444) keep the longest prefix whose coin succeeds:

.. math::

    b_0 = 1, \\qquad b_i = \\min\\Big(1,\\ b_{i-1}\\,\\frac{p_i(x_i)}{q_i(x_i)}\\Big), \\qquad
    r_i = \\sum_v \\big(b_i\\,p_{i+1}(v) - q_{i+1}(v)\\big)_+ ,

.. math::

    h_i = \\frac{r_i}{r_i + 1 - b_i}\\ (i < k), \\quad h_k = b_k, \\qquad
    \\tau = \\max\\{\\, i : \\eta_i \\le h_i \\,\\}\\ (0 \\text{ if none}),

with independent uniform ``eta_i``. The round emits ``x_1 .. x_tau`` and
one more token: from ``p_{k+1}`` when ``tau = k``, else from the residual
proportional to :math:`(b_\\tau p_{\\tau+1} - q_{\\tau+1})_+`. Here ``p_i``
and ``q_i`` are the target's and the draft's next-token distributions at
draft position ``i`` (given the context and ``x_1 .. x_{i-1}``). :func:`block_verify` runs one
round; :func:`round_distribution` enumerates a round's exact law on a small vocabulary.

Notes
-----
Sun et al.'s Algorithm 2; SGLang's reference test of its block-verification kernel states the
same ``h_i``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import check_integer, check_rng
from specdec.sources import Cited

__all__ = ["BLOCK_ABSTRACT", "BLOCK_EXAMPLE", "RULES", "block_weights", "block_verify", "token_verify",
           "round_distribution", "expected_accepted", "context_free"]

_CHAPTER = "Verification rules"

BLOCK_ABSTRACT = Cited(
    {"wall_clock_speedup_over_token": (0.05, 0.08)}, "sun2024block", "Abstract", "verified",
    "arXiv 2403.10444v3 abstract (arxiv.org/html/2403.10444v3, search-tool pages index)",
    note="'modest but consistent wall-clock speedups over the standard token verification algorithm of 5%-8%'; "
         "the paper proves block verification optimal in expected tokens per round among valid verifiers")

BLOCK_EXAMPLE = Cited(
    {"p": (1 / 3, 2 / 3), "q": (2 / 3, 1 / 3), "k": 2, "token_accepted": 10 / 9, "block_accepted": 11 / 9,
     "optimal_with_joint_probabilities": 12 / 9},
    "sun2024block", "Section 1, motivating example (context-independent target and draft on the vocabulary {a, b})",
    "secondary", "a public summary of the paper (chatpaper.com/es/paper/1125) giving the three expectations and "
    "that the target favours b and the draft a; the values 1/3 and 2/3 are the book's reading, not transcribed",
    note="expected accepted draft tokens per round; with 1/3 and 2/3 the book's enumeration gives 10/9 and 11/9, "
         "the summary's two values")

#: The verification rules :func:`round_distribution` knows.
RULES = ("token", "block")


def _rows(p: ArrayLike, q: ArrayLike,
          draft: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pa, qa = _tables(p, q)
    x = check_integer(draft, "draft", minimum=0, maximum=pa.shape[1] - 1)
    return pa, qa, _drafted(qa, x)


def _tables(p: ArrayLike, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``p`` (k + 1, V) and ``q`` (k, V) as float arrays of probability rows, or raise."""
    pa = np.asarray(p, dtype=float)
    qa = np.asarray(q, dtype=float)
    if pa.ndim != 2 or qa.ndim != 2 or pa.shape[0] != qa.shape[0] + 1 or pa.shape[1] != qa.shape[1]:
        raise ValueError(f"p must have shape (k + 1, V) and q shape (k, V); got {pa.shape} and {qa.shape}")
    if qa.shape[0] < 1:
        raise ValueError("q must have at least one row (k >= 1 draft tokens)")
    for name, a in (("p", pa), ("q", qa)):
        if not np.isfinite(a).all() or (a < 0).any() or not np.allclose(a.sum(axis=1), 1.0, atol=1e-9):
            raise ValueError(f"every row of {name} must be a probability vector (>= 0, summing to 1)")
    return pa, qa


def _drafted(qa: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The drafted tokens ``x`` (int64, in range), checked for shape and for ``q > 0`` at their positions."""
    if x.shape != (qa.shape[0],):
        raise ValueError(f"draft must have shape ({qa.shape[0]},); got {x.shape}")
    if (qa[np.arange(x.size), x] <= 0).any():
        raise ValueError("every draft token must have q > 0 at its position (it was sampled from q)")
    return x


def _weights(pa: np.ndarray, qa: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = x.size
    b = np.ones(k + 1)
    for i in range(1, k + 1):
        b[i] = min(1.0, b[i - 1] * pa[i - 1, x[i - 1]] / qa[i - 1, x[i - 1]])
    h = np.empty(k)
    for i in range(1, k):
        r = np.maximum(b[i] * pa[i] - qa[i], 0.0).sum()
        den = r + 1.0 - b[i]
        h[i - 1] = 1.0 if den <= 0.0 else r / den
    h[k - 1] = b[k]
    return b, h


def block_weights(p: ArrayLike, q: ArrayLike, draft: ArrayLike) -> tuple[np.ndarray, ...]:
    """The prefix weights ``b_0 .. b_k`` and acceptance probabilities ``h_1 .. h_k`` of a block.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p : array_like, shape (k + 1, V)
        Target distributions at draft positions 1 .. k + 1 (row ``i``
        conditions on the context and ``x_1 .. x_i``).
    q : array_like, shape (k, V)
        Draft distributions at positions 1 .. k.
    draft : array_like of int, shape (k,)
        The drafted tokens, each with ``q > 0`` at its position.

    Returns
    -------
    tuple of numpy.ndarray
        ``b`` (shape ``(k + 1,)``, ``b[0] = 1``) and ``h`` (shape ``(k,)``).

    Examples
    --------
    The paper's binary example, draft ``(a, a)``: each ``a`` halves the weight.

    >>> import specdec as sd
    >>> p, q = [[1/3, 2/3]] * 3, [[2/3, 1/3]] * 2
    >>> b, h = sd.block_verify.block_weights(p, q, [0, 0])
    >>> b.round(4).tolist(), h.round(4).tolist()
    ([1.0, 0.5, 0.25], [0.0, 0.25])
    """
    return _weights(*_rows(p, q, draft))


def _residual_row(pa: np.ndarray, qa: np.ndarray, b: np.ndarray, i: int) -> np.ndarray:
    if i == qa.shape[0]:
        return pa[i]
    res = np.maximum(b[i] * pa[i] - qa[i], 0.0)
    tot = res.sum()
    return pa[i] if tot <= 0.0 else res / tot  # tot = 0 only where tau = i has probability 0


def block_verify(p: ArrayLike, q: ArrayLike, draft: ArrayLike,
                 rng: np.random.Generator | int) -> tuple[int, ...]:
    """One round of block verification: how many drafts are kept, and the token the target adds.

    Draw ``eta_1 .. eta_k`` uniform, keep ``x_1 .. x_tau`` with ``tau`` the
    largest ``i`` with ``eta_i <= h_i`` (:func:`block_weights`), then sample
    the next token from ``p_{k+1}`` (all kept) or the block residual.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p, q, draft
        As in :func:`block_weights`.
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    tuple of int
        ``(tau, token)``: drafts kept, in [0, k], and the added token.

    Examples
    --------
    >>> import specdec as sd
    >>> p, q = [[0.5, 0.5]] * 3, [[0.5, 0.5]] * 2       # draft = target: all kept
    >>> sd.block_verify.block_verify(p, q, [1, 0], rng=0)[0]
    2
    """
    pa, qa, x = _rows(p, q, draft)
    g = check_rng(rng)
    b, h = _weights(pa, qa, x)
    hits = np.flatnonzero(g.random(x.size) <= h)
    tau = int(hits[-1]) + 1 if hits.size else 0
    row = _residual_row(pa, qa, b, tau)
    return tau, int(g.choice(row.size, p=row))


def token_verify(p: ArrayLike, q: ArrayLike, draft: ArrayLike,
                 rng: np.random.Generator | int) -> tuple[int, ...]:
    """One round of token-wise verification (accept ``x_i`` with ``min(1, p/q)``, stop at the first rejection).

    Defined in chapter "Verification rules".

    Parameters
    ----------
    p, q, draft, rng
        As in :func:`block_verify`.

    Returns
    -------
    tuple of int
        ``(tau, token)``.

    Examples
    --------
    >>> import specdec as sd
    >>> p, q = [[0.5, 0.5]] * 3, [[0.5, 0.5]] * 2
    >>> sd.block_verify.token_verify(p, q, [1, 0], rng=0)[0]
    2
    """
    pa, qa, x = _rows(p, q, draft)
    g = check_rng(rng)
    u = g.random(x.size)
    tau = 0
    while tau < x.size and u[tau] * qa[tau, x[tau]] <= pa[tau, x[tau]]:
        tau += 1
    if tau == x.size:
        row = pa[tau]
    else:
        res = np.maximum(pa[tau] - qa[tau], 0.0)
        row = res / res.sum()
    return tau, int(g.choice(row.size, p=row))


def _outcomes(pa: np.ndarray, qa: np.ndarray, x: np.ndarray, rule: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """Exact P(tau = i) for i = 0..k and the row the added token is drawn from."""
    k = x.size
    if rule == "block":
        b, h = _weights(pa, qa, x)
        tail = np.ones(k + 1)  # tail[i] = prod_{j > i} (1 - h_j)
        for i in range(k - 1, -1, -1):
            tail[i] = tail[i + 1] * (1.0 - h[i])
        probs = np.concatenate([[tail[0]], h * tail[1:]])
        rows = [_residual_row(pa, qa, b, i) for i in range(k + 1)]
        return probs, rows
    acc = np.minimum(1.0, pa[np.arange(k), x] / qa[np.arange(k), x])
    reach = np.concatenate([[1.0], np.cumprod(acc)])
    probs = reach.copy()
    probs[:k] *= 1.0 - acc
    rows = []
    for i in range(k):
        res = np.maximum(pa[i] - qa[i], 0.0)
        rows.append(pa[i] if res.sum() <= 0.0 else res / res.sum())
    rows.append(pa[k])
    return probs, rows


def _check_rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}")
    return rule


def round_distribution(target: Callable[..., Any], draft: Callable[..., Any], vocab: int, k: int,
                       rule: str = "block") -> dict[str, Any]:
    """Exact law of the tokens one round emits, by enumerating every draft of ``k`` tokens.

    ``target(prefix)`` and ``draft(prefix)`` return next-token distributions after a tuple of
    tokens; each emitted tuple (``tau + 1`` tokens) maps to its probability. Enumerates
    ``vocab ** k`` drafts.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    target, draft : callable
        ``tuple of int -> array_like of shape (vocab,)``, probability vectors.
    vocab : int
        Vocabulary size, in [2, 64].
    k : int
        Draft tokens per round, >= 1, with ``vocab ** k <= 200_000``.
    rule : {"block", "token"}, optional
        Verification rule (:data:`RULES`). Default ``"block"``.

    Returns
    -------
    dict
        ``{emitted tuple: probability}``; the probabilities sum to 1.

    Examples
    --------
    >>> import specdec as sd
    >>> law = sd.block_verify.round_distribution(lambda s: [0.5, 0.5], lambda s: [0.5, 0.5], 2, 1)
    >>> sorted(law.items())                      # draft = target: the draft is always kept
    [((0, 0), 0.25), ((0, 1), 0.25), ((1, 0), 0.25), ((1, 1), 0.25)]
    """
    return _round_law(target, draft, *_round_args(target, draft, vocab, k, rule))


def _round_args(target: Any, draft: Any, vocab: Any, k: Any, rule: Any) -> tuple[int, int, str]:
    """Validated ``(vocab, k, rule)`` of :func:`round_distribution`."""
    rule = _check_rule(rule)
    if not callable(target) or not callable(draft):
        raise TypeError("target and draft must be callables: tuple of tokens -> next-token distribution")
    v = int(check_integer(vocab, "vocab", minimum=2, maximum=64)) if np.ndim(vocab) == 0 else None
    kk = int(check_integer(k, "k", minimum=1)) if np.ndim(k) == 0 else None
    if v is None or kk is None:
        raise TypeError("vocab and k must be single whole numbers")
    if v ** kk > 200_000:
        raise ValueError(f"vocab ** k must be <= 200000 drafts to enumerate; got {v}^{kk} = {v ** kk}")
    return v, kk, rule


def _round_law(target: Callable[..., Any], draft: Callable[..., Any], v: int, kk: int, rule: str) -> dict[str, Any]:
    """:func:`round_distribution` on validated arguments; checks only the rows the two models return."""
    law: dict = {}
    for x in itertools.product(range(v), repeat=kk):
        qs = [np.asarray(draft(x[:i]), dtype=float) for i in range(kk)]
        weight = float(np.prod([qs[i][x[i]] for i in range(kk)]))
        if weight <= 0.0:
            continue
        ps = [np.asarray(target(x[:i]), dtype=float) for i in range(kk + 1)]
        pa, qa = _tables(np.array(ps), np.array(qs))
        xa = _drafted(qa, np.array(x, dtype=np.int64))  # enumerated ids, in range by construction
        probs, rows = _outcomes(pa, qa, xa, rule)
        for tau in range(kk + 1):
            if probs[tau] <= 0.0:
                continue
            for y in np.flatnonzero(rows[tau] > 0):
                key = (*x[:tau], int(y))
                law[key] = law.get(key, 0.0) + float(weight * probs[tau] * rows[tau][y])
    return law


def expected_accepted(target: Callable[..., Any], draft: Callable[..., Any], vocab: int, k: int,
                      rule: str = "block") -> float:
    """Expected drafts kept per round (``E[L] - 1``), exactly, from :func:`round_distribution`.

    Defined in chapter "Verification rules".

    Parameters
    ----------
    target, draft, vocab, k, rule
        As in :func:`round_distribution`.

    Returns
    -------
    float

    Examples
    --------
    The paper's binary example (``BLOCK_EXAMPLE``): 10/9 token by token, 11/9 as a block.

    >>> import specdec as sd
    >>> bv = sd.block_verify
    >>> p, q = bv.context_free([1/3, 2/3]), bv.context_free([2/3, 1/3])
    >>> round(bv.expected_accepted(p, q, 2, 2, "token") * 9, 6), round(bv.expected_accepted(p, q, 2, 2) * 9, 6)
    (10.0, 11.0)
    """
    law = _round_law(target, draft, *_round_args(target, draft, vocab, k, rule))
    return float(sum(prob * (len(seq) - 1) for seq, prob in law.items()))


def context_free(distribution: ArrayLike) -> Callable:
    """A next-token model that ignores the prefix: ``prefix -> distribution`` (for the exact enumerations).

    Defined in chapter "Verification rules".

    Parameters
    ----------
    distribution : array_like, shape (V,)
        A probability vector.

    Returns
    -------
    callable

    Examples
    --------
    >>> import specdec as sd
    >>> sd.block_verify.context_free([0.25, 0.75])((1, 0)).tolist()
    [0.25, 0.75]
    """
    d = np.asarray(distribution, dtype=float)
    if d.ndim != 1 or d.size < 2 or (d < 0).any() or not np.isclose(d.sum(), 1.0, atol=1e-9):
        raise ValueError("distribution must be a 1-D probability vector with at least 2 entries")
    d = d.copy()
    d.setflags(write=False)
    return lambda prefix: d

"""Synthetic workloads: example distributions, model pairs and temperature.

Small stand-ins for target and draft models whose acceptance rate is known exactly:

* ``EXAMPLE_TARGET``, ``EXAMPLE_DRAFT``, :func:`interpolate_draft`, :func:`temper_distribution`:
  the worked example and explorer knobs of chapter "Why a decode step wastes arithmetic, and
  the verification pass";
* :func:`synthetic_bigram_pair`: a bigram model and a noisy draft copy (prefix-dependent);
* :func:`synthetic_logit_pair` with :data:`WORKLOAD_SHAPES`, :func:`softmax_with_temperature`,
  :func:`acceptance_vs_temperature`, :func:`temperature_curve`: peaked and flat workloads at a temperature;
* :func:`heterogeneous_alphas`, :func:`beta_acceptance_mixture`: requests that accept at
  different rates (a Beta distribution of per-request alpha).

Every generator takes a seeded :class:`numpy.random.Generator` or an integer seed; unseeded
randomness is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    as_float_array,
    check_broadcast,
    check_choice,
    check_count,
    check_distribution,
    check_distribution_pair,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    check_scalar,
    check_size,
    to_output,
)
from specdec.acceptance import acceptance_rate

__all__ = [
    "EXAMPLE_TARGET",
    "EXAMPLE_DRAFT",
    "temper_distribution",
    "interpolate_draft",
    "softmax_with_temperature",
    "synthetic_bigram_pair",
    "WORKLOAD_SHAPES",
    "synthetic_logit_pair",
    "acceptance_vs_temperature",
    "TEMPERATURE_GRID",
    "temperature_curve",
    "AcceptanceMixture",
    "beta_acceptance_mixture",
    "heterogeneous_alphas",
]

#: The book's worked example (chapter "Why a decode step wastes arithmetic, and the
#: verification pass"): a target distribution over
#: eight tokens and a draft that over-rates token 1, under-rates token 3 and
#: never proposes token 6. ``sum(min(p, q)) = 0.77``.
EXAMPLE_TARGET = np.array([0.30, 0.22, 0.15, 0.12, 0.09, 0.06, 0.04, 0.02])
EXAMPLE_DRAFT = np.array([0.18, 0.30, 0.20, 0.05, 0.12, 0.10, 0.00, 0.05])


def temper_distribution(p: ArrayLike, t: float) -> np.ndarray:
    r"""Re-sample a distribution at temperature ``t``: ``p**(1/t)`` renormalized.

    Equivalent to :func:`softmax_with_temperature` of ``log p``; tokens with
    probability 0 stay at 0.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

    Parameters
    ----------
    p : array_like
        Distribution along the last axis; float16 and float32 vectors are accepted to their dtype's precision; results are computed in float64.
    t : float
        Temperature, finite and > 0.

    Returns
    -------
    numpy.ndarray
        The tempered distribution.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.synthetic.temper_distribution([0.2, 0.8, 0.0], 0.5).round(4).tolist()
    [0.0588, 0.9412, 0.0]
    """
    pa = check_distribution(p, "p")
    tt = float(check_scalar(t, "t", check_positive, "(temperature)"))
    with np.errstate(divide="ignore"):
        z = np.log(pa) / tt
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def interpolate_draft(p: ArrayLike, q: ArrayLike, mismatch: float) -> np.ndarray:
    """A draft between a perfect copy of ``p`` (``mismatch = 0``) and ``q`` (``mismatch = 1``).

    Returns ``(1 - mismatch) * p + mismatch * q``, the knob of the chapter's
    explorer.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

    Parameters
    ----------
    p, q : array_like, shape (V,)
        Target and draft distributions; float16 and float32 vectors are accepted to their dtype's precision; results are computed in float64.
    mismatch : float
        Weight of ``q``, in [0, 1].

    Returns
    -------
    numpy.ndarray
        A distribution over the same vocabulary.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.synthetic.interpolate_draft([1.0, 0.0], [0.0, 1.0], 0.25).tolist()
    [0.75, 0.25]
    """
    pa, qa = check_distribution_pair(p, q)
    if pa.ndim != 1 or qa.ndim != 1:
        raise ValueError(f"p and q must be 1-D probability vectors over the vocabulary; got shapes {pa.shape} and "
                         f"{qa.shape}")
    w = float(check_scalar(mismatch, "mismatch", check_probability))
    return (1.0 - w) * pa + w * qa


def softmax_with_temperature(logits: ArrayLike, t: ArrayLike) -> np.ndarray:
    r"""Softmax of ``logits / t`` along the last axis.

    .. math:: \mathrm{softmax}(z / t)_x = \frac{e^{z_x / t}}{\sum_y e^{z_y / t}}

    ``t`` broadcasts against the leading axes of ``logits``: a 1-D array of
    temperatures with a 1-D ``logits`` gives one distribution per
    temperature, shape ``t.shape + (V,)``.

    Defined in chapter "The acceptance rate and the tokens it yields".

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
    >>> sd.synthetic.softmax_with_temperature([0.0, 0.0], 0.5).tolist()
    [0.5, 0.5]
    >>> sd.synthetic.softmax_with_temperature([2.0, 0.0], [1.0, 2.0]).round(4).tolist()
    [[0.8808, 0.1192], [0.7311, 0.2689]]
    """
    z = as_float_array(logits, "logits")
    if z.ndim == 0 or z.shape[-1] == 0:
        raise ValueError(f"logits must have a vocabulary axis (last axis); got shape {z.shape}")
    if not np.isfinite(z).all():
        raise ValueError("logits must be finite")
    tt = check_positive(t, "t", "(temperature)")
    check_broadcast(t=tt, logits=z[..., 0])
    scaled = z / tt[..., None]
    scaled = scaled - scaled.max(axis=-1, keepdims=True)
    e = np.exp(scaled)
    return e / e.sum(axis=-1, keepdims=True)


def synthetic_bigram_pair(vocab: int, rng: np.random.Generator | int, peak: float = 2.0, noise: float = 0.5,
                          temperature: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """A small synthetic bigram target "language model" and a noisy draft copy.

    The target's logits for "next token given previous token" are
    ``peak * N(0, 1)`` per entry of a ``vocab x vocab`` table; the draft's
    are the target's plus ``noise * N(0, 1)``. Both are turned into
    row-stochastic tables by :func:`softmax_with_temperature`, so row ``a``
    is the next-token distribution after token ``a``: distributions depend
    on the prefix, as in a real model.

    Defined in chapter "Why a decode step wastes arithmetic, and the verification pass".

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
    >>> target, draft = sd.synthetic.synthetic_bigram_pair(5, 0)
    >>> target.shape, bool(abs(target.sum(axis=1) - 1).max() < 1e-12)
    ((5, 5), True)
    """
    v = check_count(vocab, "vocab", minimum=2)
    check_size(4.0 * v * v, "vocab", "the transition tables (vocab x vocab)")
    g = check_rng(rng)
    pk = float(check_positive(peak, "peak"))
    nz = float(check_nonnegative(noise, "noise"))
    tt = float(check_positive(temperature, "temperature"))
    z = pk * g.standard_normal((v, v))
    zd = z + nz * g.standard_normal((v, v))
    return softmax_with_temperature(z, tt), softmax_with_temperature(zd, tt)



#: Shapes of the two synthetic workloads: (head size, head slope, tail slope)
#: of the log-probability profile over ranks (see :func:`synthetic_logit_pair`).
WORKLOAD_SHAPES = {"peaked": (1, 3.0, 3.0), "flat": (30, 0.5, 3.0)}


def synthetic_logit_pair(kind: str = "peaked", vocab: int = 1000, n_contexts: int = 128, noise: float = 1.0,
                         sharpness: float = 1.0, rng: np.random.Generator | int = 0) -> tuple[np.ndarray, np.ndarray]:
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

    Defined in chapter "The acceptance rate and the tokens it yields".

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
    >>> zt, zd = sd.synthetic.synthetic_logit_pair("flat", vocab=50, n_contexts=4)
    >>> zt.shape, zd.shape
    ((4, 50), (4, 50))
    """
    check_choice(kind, "kind", sorted(WORKLOAD_SHAPES))
    v = check_count(vocab, "vocab", minimum=2)
    m = check_count(n_contexts, "n_contexts")
    check_size(3.0 * m * v, "vocab", "the logits (n_contexts x vocab, target and draft)")
    sigma = float(check_nonnegative(noise, "noise", "(nats)"))
    sharp = float(check_positive(sharpness, "sharpness"))
    return _logit_pair(kind, v, m, sigma, sharp, check_rng(rng))


def _logit_pair(kind: str, v: int, m: int, sigma: float, sharp: float,
                g: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`synthetic_logit_pair` on validated arguments; checks nothing."""
    head, a, b = WORKLOAD_SHAPES[kind]
    rank = np.arange(1, v + 1)
    h = min(head, v)
    profile = np.where(rank <= h, -a * np.log(rank), -a * np.log(h) - b * np.log(rank / h))
    perm = np.argsort(g.random((m, v)), axis=1)
    target = profile[perm]
    draft = sharp * target + sigma * g.standard_normal((m, v))
    return target, draft


def acceptance_vs_temperature(target_logits: ArrayLike, draft_logits: ArrayLike,
                              temperatures: ArrayLike) -> float | np.ndarray:
    r"""Acceptance rate ``sum(min(p, q))`` when both models sample at temperature ``t``.

    Both logit arrays are divided by the same temperature, turned into
    distributions, and the acceptance rate is averaged over the contexts
    (leading rows): the workload's alpha at that temperature.

    Defined in chapter "The acceptance rate and the tokens it yields".

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
    >>> zt, zd = sd.synthetic.synthetic_logit_pair("peaked", vocab=200, n_contexts=64)
    >>> a = sd.synthetic.acceptance_vs_temperature(zt, zd, [0.2, 1.0])
    >>> bool(a[0] > a[1])
    True
    """
    zt = as_float_array(target_logits, "target_logits")
    zd = as_float_array(draft_logits, "draft_logits")
    if zt.shape != zd.shape or zt.ndim not in (1, 2):
        raise ValueError(f"target_logits and draft_logits must have the same shape (V,) or (n, V); got {zt.shape} and {zd.shape}")
    tt = check_positive(temperatures, "temperatures", "(temperature)")
    return to_output(_acceptance_curve(zt, zd, tt), np.ndim(temperatures) == 0)


def _acceptance_curve(zt: np.ndarray, zd: np.ndarray, tt: np.ndarray) -> np.ndarray:
    """:func:`acceptance_vs_temperature` on validated arguments, shape of ``tt``.

    The tempered distributions it builds are checked by the softmax and the acceptance rate (under their names,
    ``logits``, ``t``, ``p``, ``q``): a temperature small enough to overflow is refused there.
    """
    t_flat = tt.reshape(-1)
    zt2 = zt.reshape(-1, zt.shape[-1])
    zd2 = zd.reshape(-1, zd.shape[-1])
    p = softmax_with_temperature(zt2[None, :, :], t_flat[:, None])
    q = softmax_with_temperature(zd2[None, :, :], t_flat[:, None])
    acc = np.asarray(acceptance_rate(p, q)).mean(axis=-1)
    return acc.reshape(tt.shape)


#: Temperatures of the chapter's acceptance-against-temperature curves: 0.1, 0.2, ..., 2.0.
TEMPERATURE_GRID = np.round(np.linspace(0.1, 2.0, 20), 10)


@lru_cache(maxsize=64)
def _temperature_curve(kind: str, noise: float, sharpness: float, vocab: int, n_contexts: int, seed: int,
                       temperatures: tuple[float, ...]) -> np.ndarray:
    zt, zd = _logit_pair(kind, vocab, n_contexts, noise, sharpness, np.random.default_rng(seed))
    curve = np.asarray(_acceptance_curve(zt, zd, np.asarray(temperatures, dtype=float)))
    curve.setflags(write=False)
    return curve


def temperature_curve(kind: str = "peaked", noise: float = 1.0, sharpness: float = 1.0, vocab: int = 200,
                      n_contexts: int = 32, seed: int = 0, temperatures: ArrayLike | None = None) -> np.ndarray:
    """Acceptance rate against temperature for one synthetic workload, memoized.

    :func:`acceptance_vs_temperature` over the logits of
    :func:`synthetic_logit_pair` drawn with ``seed``; a call with the same
    arguments returns the same read-only array without recomputing it.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    kind : {"peaked", "flat"}
        Workload shape.
    noise : float
        Standard deviation of the draft's logit noise, >= 0 (nats).
    sharpness : float
        Factor on the target's logits in the draft, > 0.
    vocab : int
        Vocabulary size, >= 2.
    n_contexts : int
        Independent contexts, >= 1.
    seed : int
        Seed of the logits, >= 0.
    temperatures : array_like, optional
        A 1-D array of temperatures, each > 0. Default :data:`TEMPERATURE_GRID`.

    Returns
    -------
    numpy.ndarray
        Mean acceptance rate per temperature (read-only).

    Examples
    --------
    >>> import specdec as sd
    >>> a = sd.synthetic.temperature_curve("peaked", temperatures=[0.2, 1.0])
    >>> bool(a[0] > a[1]), a.flags.writeable
    (True, False)
    """
    check_choice(kind, "kind", sorted(WORKLOAD_SHAPES))
    t = TEMPERATURE_GRID if temperatures is None else check_positive(temperatures, "temperatures", "(temperature)")
    if np.ndim(t) != 1 or np.size(t) == 0:
        raise ValueError(f"temperatures must be a non-empty 1-D array; got shape {np.shape(t)}")
    key = (float(check_scalar(noise, "noise", check_nonnegative)), float(check_scalar(sharpness, "sharpness", check_positive)),
           check_count(vocab, "vocab", minimum=2), check_count(n_contexts, "n_contexts"),
           check_count(seed, "seed", minimum=0))
    check_size(3.0 * key[3] * key[2], "vocab", "the logits (n_contexts x vocab, target and draft)")
    return _temperature_curve(kind, *key, tuple(float(x) for x in np.asarray(t, float)))


# ---------------------------------------------------------------------------
# requests that accept at different rates
# ---------------------------------------------------------------------------


def _beta_parameters(mean: float, concentration: float) -> tuple[float, float]:
    """Validated ``(a, b)`` of a Beta distribution with this mean and ``a + b = concentration``."""
    m = float(check_scalar(mean, "mean", check_probability))
    c = float(check_scalar(concentration, "concentration", check_positive, "(a + b of the Beta distribution)"))
    if not 0.0 < m < 1.0:
        raise ValueError(f"mean must be strictly between 0 and 1; got {m:g}")
    return m * c, (1.0 - m) * c


@dataclass(frozen=True)
class AcceptanceMixture:
    """A workload whose requests accept at different rates, summarized exactly.

    Each request has its own acceptance rate, drawn from a Beta distribution
    with mean ``mean`` and ``a + b = concentration``; within a request the
    drafts are accepted independently at that rate. Returned by
    :func:`beta_acceptance_mixture`.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Attributes
    ----------
    mean, concentration : float
        The Beta distribution of per-request alpha.
    k : int
        Drafts per round.
    alpha_sd : float
        Standard deviation of per-request alpha.
    expected_tokens : float
        ``E[L]`` of the workload: the average over requests of ``E[L](alpha, k)``.
    pooled_alpha : float
        What the pooled maximum-likelihood estimate ``S / (S + F)`` of a long
        log of such requests converges to: expected accepted drafts over
        expected checked drafts, ``sum_{i=1..k} E[alpha^i] / sum_{i=0..k-1} E[alpha^i]``.
    expected_tokens_at_pooled : float
        The constant-alpha formula at ``pooled_alpha``.
    expected_tokens_at_mean : float
        The constant-alpha formula at ``mean``.
    """

    mean: float
    concentration: float
    k: int
    alpha_sd: float
    expected_tokens: float
    pooled_alpha: float
    expected_tokens_at_pooled: float
    expected_tokens_at_mean: float


def beta_acceptance_mixture(mean: float, concentration: float, k: int) -> AcceptanceMixture:
    r"""Tokens per round and the pooled alpha of a workload with Beta-distributed per-request alpha.

    With per-request alpha :math:`A \sim \mathrm{Beta}(a, b)`, :math:`a = m c`,
    :math:`b = (1 - m) c`, the moments are exact,
    :math:`E[A^i] = \prod_{j=0}^{i-1} (a + j) / (a + b + j)`, so

    .. math:: E[L] = \sum_{i=0}^{k} E[A^i], \qquad
              \alpha_\text{pooled} = \frac{\sum_{i=1}^{k} E[A^i]}{\sum_{i=0}^{k-1} E[A^i]}

    (a round reaches draft position ``i`` with probability ``A^(i-1)`` and accepts it with
    probability ``A``).

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    mean : float
        Mean per-request acceptance rate, strictly between 0 and 1.
    concentration : float
        ``a + b`` of the Beta distribution, > 0 (large: requests alike;
        small: very different requests).
    k : int
        Drafts per round, in [1, 10_000].

    Returns
    -------
    AcceptanceMixture

    Examples
    --------
    >>> import specdec as sd
    >>> m = sd.synthetic.beta_acceptance_mixture(0.8, 10.0, 4)
    >>> round(m.expected_tokens, 4), round(m.pooled_alpha, 4), round(m.expected_tokens_at_mean, 4)
    (3.4615, 0.8205, 3.3616)
    """
    a, b = _beta_parameters(mean, concentration)
    kk = check_count(k, "k", minimum=1, maximum=10_000)
    j = np.arange(kk)
    moments = np.concatenate([[1.0], np.cumprod((a + j) / (a + b + j))])   # E[A^0] .. E[A^k]
    expected = float(moments.sum())
    pooled = float(moments[1:].sum() / moments[:-1].sum())
    at_pooled = float(np.sum(pooled ** np.arange(kk + 1)))
    at_mean = float(np.sum((a / (a + b)) ** np.arange(kk + 1)))
    sd = float(np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0))))
    return AcceptanceMixture(mean=a / (a + b), concentration=a + b, k=kk, alpha_sd=sd, expected_tokens=expected,
                             pooled_alpha=pooled, expected_tokens_at_pooled=at_pooled, expected_tokens_at_mean=at_mean)


def heterogeneous_alphas(mean: float, concentration: float, size: int | tuple[int, ...],
                         rng: np.random.Generator | int) -> np.ndarray:
    """Per-request acceptance rates drawn from a Beta distribution with a given mean.

    The sampling side of :func:`beta_acceptance_mixture`: pass the result to
    :func:`specdec.acceptance.estimation.simulate_accepted_counts` to simulate a log in
    which every request keeps its own rate for all its rounds.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    mean : float
        Mean acceptance rate, strictly between 0 and 1.
    concentration : float
        ``a + b`` of the Beta distribution, > 0.
    size : int or tuple of int
        Shape of the result (for example ``(n_logs, n_requests)``); at most
        ``specdec._validate.MAX_ELEMENTS`` values.
    rng : numpy.random.Generator or int
        Seeded generator (or a seed).

    Returns
    -------
    numpy.ndarray
        Acceptance rates in [0, 1], float64, of shape ``size``.

    Examples
    --------
    >>> import numpy as np
    >>> import specdec as sd
    >>> a = sd.synthetic.heterogeneous_alphas(0.8, 10.0, 100_000, np.random.default_rng(0))
    >>> round(float(a.mean()), 2), round(float(a.std()), 2)
    (0.8, 0.12)
    """
    a, b = _beta_parameters(mean, concentration)
    shape = (size,) if np.ndim(size) == 0 else tuple(size)  # type: ignore[arg-type]
    dims = [check_count(n, "size", minimum=1) for n in shape]
    check_size(float(np.prod(dims, dtype=float)), "size")
    g = check_rng(rng)
    return g.beta(a, b, size=tuple(dims))

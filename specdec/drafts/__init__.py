"""Where the drafts come from, and what that does to the break-even threshold.

Three arrangements produce draft tokens: a **separate draft model** (``c_draft`` about its size
relative to the target; :func:`toy_draft_alpha` is a toy, not a fitted law, for how alpha rises
with size), **prediction heads** on the target (``c_draft`` near 0, acceptance falling with the
head's position: :func:`conditional_rates_from_marginals`) and **self-speculation** (``c_draft``
about the share of layers used). :func:`verify_cost_linear` is the stated linear model of a
verification pass that grows with ``k``; the best ``k`` under it is
:func:`specdec.economics.optimal_k`. Functions broadcast over scalars and arrays.

Defined in chapters "The break-even condition" and "Draft cost in three arrangements".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    as_float_array,
    check_broadcast,
    check_choice,
    check_fraction_open,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    describe,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import _alpha_for_expected_tokens, _expected_tokens_array, _expected_tokens_per_position
from specdec.economics import _speedup_from_costs, break_even_alpha, round_cost

__all__ = [
    "verify_cost_linear",
    "speedup_grid",
    "toy_draft_alpha",
    "separate_draft_speedup",
    "optimal_draft_ratio",
    "medusa_head_params",
    "multi_head_draft_cost",
    "self_speculation_draft_cost",
    "conditional_rates_from_marginals",
    "equivalent_alpha",
    "DraftArrangement",
    "MEDUSA_TOP1_VICUNA_7B",
    "MEDUSA_TOP1_SOURCE",
]

#: Top-1 accuracy of Medusa-1 heads 1 to 5 on Vicuna-7B (fraction of positions
#: where head ``i`` predicts the token ``i + 1`` places ahead exactly), as
#: logged on the last training batch of the authors' run. Each head is scored
#: against the *dataset's* next tokens (ShareGPT conversations), not against
#: the base model's own predictions, which is what verification checks; and
#: these are *marginal* accuracies of each head on its own, not conditional
#: acceptance rates. They illustrate the shape of per-head rates; they are not
#: measured acceptance (chapter "Draft cost in three arrangements" compares the
#: arrangements on Spec-Bench's measurements instead).
MEDUSA_TOP1_VICUNA_7B = (0.5603876709938049, 0.31635186076164246, 0.2010437250137329,
                         0.14736579358577728, 0.11754472553730012)
#: Where :data:`MEDUSA_TOP1_VICUNA_7B` comes from.
MEDUSA_TOP1_SOURCE = ("FasterDecoding/Medusa repository (Cai et al. 2024), file assets/medusa_acc.csv, "
                      "row '7b', columns train/medusa0_top1 .. train/medusa4_top1 (training-batch accuracies "
                      "against the dataset's tokens)")


def verify_cost_linear(k: ArrayLike, base: ArrayLike = 1.0, per_draft: ArrayLike = 0.1) -> float | np.ndarray:
    r"""A stated linear model of the verification pass: :math:`c_v(k) = c_0 + \beta k`.

    One target weight read (``base``) plus arithmetic proportional to the
    ``k`` drafted positions (``per_draft`` each). It is the simplest model
    with the property the second source describes ("close to 1 for small
    k and grows as k grows"); the roofline model of :mod:`specdec.roofline.hardware`
    gives a curve that is flat up to the hardware's ridge and then grows.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    k : int or array_like of int
        Draft tokens per round, >= 1.
    base : float or array_like, optional
        Cost of the pass with no drafts, as a fraction of a target step, > 0.
        Default 1.
    per_draft : float or array_like, optional
        Extra cost per drafted position, fraction of a target step, >= 0.
        Default 0.1.

    Returns
    -------
    float or numpy.ndarray
        ``c_verify`` as a fraction of one target decode step.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.drafts.verify_cost_linear(4, base=1.0, per_draft=0.05)
    1.2
    """
    kk = check_integer(k, "k", minimum=1)
    b = check_positive(base, "base", "(fraction of a target step)")
    beta = check_nonnegative(per_draft, "per_draft", "(fraction of a target step per draft)")
    check_broadcast(k=kk, base=b, per_draft=beta)
    return to_output(b + beta * kk, is_scalar_input(k, base, per_draft))


def speedup_grid(alphas: ArrayLike, ks: ArrayLike, c_draft: float, base: float = 1.0,
                 per_draft: float = 0.0) -> np.ndarray:
    r"""Speedup over an (alpha, k) grid with :math:`c_v(k) = c_0 + \beta k`.

    ``result[i, j] = E[L](alphas[i], ks[j]) / (ks[j] c_draft + c_v(ks[j]))``.
    With ``per_draft = 0`` it is :func:`specdec.economics.speedup_from_costs` with a
    constant verification cost.

    Defined in chapter "The break-even condition".

    Parameters
    ----------
    alphas : array_like
        1-D acceptance rates in [0, 1].
    ks : array_like of int
        1-D draft counts, >= 1.
    c_draft : float
        One draft step as a fraction of a target step, >= 0.
    base, per_draft : float, optional
        Verification model, as in :func:`verify_cost_linear`.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(alphas), len(ks))``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.drafts.speedup_grid([0.0, 1.0], [1, 3], 0.0, base=1.0).tolist()
    [[1.0, 1.0], [2.0, 4.0]]
    """
    a = check_probability(alphas, "alphas").reshape(-1)
    kk = check_integer(ks, "ks", minimum=1).reshape(-1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    if cd.ndim:
        raise ValueError(f"c_draft must be a single number here; got shape {cd.shape}")
    cv = verify_cost_linear(kk, base, per_draft)
    if np.ndim(cv) and np.ndim(cv) > 1:
        raise ValueError("base and per_draft must be single numbers here")
    k_float = kk.astype(np.float64)  # as check_whole returns it
    return _expected_tokens_array(a[:, None], k_float[None, :]) / np.asarray(k_float * float(cd) + cv)[None, :]


def toy_draft_alpha(size_ratio: ArrayLike, alpha_ref: float = 0.8, ratio_ref: float = 0.1) -> float | np.ndarray:
    r"""TOY MODEL: acceptance of a separate draft model as a function of its size.

    .. math:: \alpha(r) = r^{s}, \qquad s = \ln \alpha_\text{ref} / \ln r_\text{ref}

    where ``r`` is the draft's size over the target's: through ``alpha_ref`` at ``ratio_ref``
    and 1 at ``r = 1``. An illustration with one free parameter, **not** fitted to any
    measurement.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    size_ratio : float or array_like
        Draft size over target size, in (0, 1].
    alpha_ref : float, optional
        Acceptance at ``ratio_ref``, in (0, 1). Default 0.8.
    ratio_ref : float, optional
        Reference size ratio, in (0, 1). Default 0.1.

    Returns
    -------
    float or numpy.ndarray
        Toy acceptance rate in (0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.drafts.toy_draft_alpha(0.01, alpha_ref=0.8, ratio_ref=0.1), 4)
    0.64
    """
    r, a_ref, r_ref = _check_toy(size_ratio, alpha_ref, ratio_ref)
    check_broadcast(size_ratio=r, alpha_ref=a_ref, ratio_ref=r_ref)
    return to_output(_toy_draft_alpha(r, a_ref, r_ref), is_scalar_input(size_ratio, alpha_ref, ratio_ref))


def _check_toy(size_ratio: ArrayLike, alpha_ref: ArrayLike, ratio_ref: ArrayLike) -> tuple[np.ndarray, ...]:
    r = check_positive(size_ratio, "size_ratio", "(draft size over target size)")
    if (r > 1).any():
        raise ValueError(f"size_ratio must be in (0, 1]; got {describe(r[r > 1].flat[0])}")
    return r, check_fraction_open(alpha_ref, "alpha_ref"), check_fraction_open(ratio_ref, "ratio_ref")


def _toy_draft_alpha(r: np.ndarray, a_ref: np.ndarray, r_ref: np.ndarray) -> np.ndarray:
    """:func:`toy_draft_alpha` of checked arrays."""
    return np.exp(np.log(a_ref) / np.log(r_ref) * np.log(r))


def separate_draft_speedup(size_ratio: ArrayLike, k: ArrayLike, c_verify: ArrayLike = 1.0, alpha_ref: float = 0.8,
                           ratio_ref: float = 0.1, draft_overhead: ArrayLike = 0.0) -> float | np.ndarray:
    r"""Speedup of a separate draft model of relative size ``r`` (toy acceptance).

    ``c_draft = r + draft_overhead`` (a bandwidth-bound draft step reads its
    own weights, ``r`` of the target's, plus any fixed per-step overhead)
    and ``alpha = toy_draft_alpha(r, alpha_ref, ratio_ref)``; the speedup is
    :math:`E[L] / (k\,c_d + c_v)`.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    size_ratio : float or array_like
        Draft size over target size, in (0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_verify : float or array_like, optional
        Verification pass, fraction of a target step, > 0. Default 1.
    alpha_ref, ratio_ref : float, optional
        Anchor of the toy acceptance curve (:func:`toy_draft_alpha`).
    draft_overhead : float or array_like, optional
        Fixed cost per draft step beyond the weight read (kernel launches,
        sampling), fraction of a target step, >= 0. Default 0.

    Returns
    -------
    float or numpy.ndarray
        Speedup (> 1 is a net saving).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.drafts.separate_draft_speedup(0.1, 4), 4)
    2.4011
    """
    r, a_ref, r_ref = _check_toy(size_ratio, alpha_ref, ratio_ref)
    kk = check_integer(k, "k", minimum=1)
    result = _separate_draft_speedup(r, a_ref, r_ref, kk, c_verify, draft_overhead)
    return to_output(result, is_scalar_input(size_ratio, k, c_verify, draft_overhead))


def _separate_draft_speedup(r: np.ndarray, a_ref: np.ndarray, r_ref: np.ndarray, kk: np.ndarray, c_verify: ArrayLike,
                            draft_overhead: ArrayLike) -> np.ndarray:
    """:func:`separate_draft_speedup` with ``size_ratio``, ``alpha_ref``, ``ratio_ref`` and ``k`` checked."""
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    ov = check_nonnegative(draft_overhead, "draft_overhead", "(fraction of a target step)")
    check_broadcast(size_ratio=r, alpha_ref=a_ref, ratio_ref=r_ref, k=kk, c_verify=cv, draft_overhead=ov)
    return _speedup_from_costs(_toy_draft_alpha(r, a_ref, r_ref), kk, r + ov, cv)


def optimal_draft_ratio(k: int, c_verify: float = 1.0, alpha_ref: float = 0.8, ratio_ref: float = 0.1,
                        draft_overhead: float = 0.0, ratios: ArrayLike | None = None) -> tuple[float, ...]:
    """The draft size (over the target's) that maximizes :func:`separate_draft_speedup`.

    A grid search over ``ratios`` (default: 2001 log-spaced points from
    1e-4 to 1), so the answer is as fine as the grid.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    k : int
        Draft tokens per round, >= 1.
    c_verify, alpha_ref, ratio_ref, draft_overhead : float, optional
        As in :func:`separate_draft_speedup`.
    ratios : array_like, optional
        Candidate size ratios in (0, 1].

    Returns
    -------
    tuple of float
        ``(best_ratio, best_speedup)``.

    Examples
    --------
    >>> import specdec as sd
    >>> r, s = sd.drafts.optimal_draft_ratio(4)
    >>> 0.01 < r < 0.1 and s > sd.drafts.separate_draft_speedup(0.1, 4)
    True
    """
    kk = int(check_integer(k, "k", minimum=1))
    grid = np.logspace(-4, 0, 2001) if ratios is None else as_float_array(ratios, "ratios").reshape(-1)
    r, a_ref, r_ref = _check_toy(grid, alpha_ref, ratio_ref)
    s = _separate_draft_speedup(r, a_ref, r_ref, np.asarray(kk, dtype=np.int64), c_verify, draft_overhead)
    if s.ndim != 1:
        raise ValueError("c_verify, alpha_ref, ratio_ref and draft_overhead must be single numbers here")
    i = int(np.argmax(s))
    return float(grid[i]), float(s[i])


def medusa_head_params(d_model: int, vocab_size: int, n_resblocks: int = 1) -> int:
    """Parameters of one Medusa head: ``n_resblocks`` residual blocks and a vocabulary projection.

    Each residual block is a ``d_model x d_model`` linear layer with bias;
    the projection is ``d_model x vocab_size`` without bias (the structure
    of ``MedusaModel`` in the FasterDecoding/Medusa repository).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    d_model : int
        Hidden size of the target, >= 1.
    vocab_size : int
        Vocabulary size, >= 1.
    n_resblocks : int, optional
        Residual blocks per head, >= 0. Default 1.

    Returns
    -------
    int
        Number of parameters of one head.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.drafts.medusa_head_params(4096, 32000)   # Vicuna-7B sizes
    147853312
    """
    d = int(check_integer(d_model, "d_model", minimum=1))
    v = int(check_integer(vocab_size, "vocab_size", minimum=1))
    n = int(check_integer(n_resblocks, "n_resblocks", minimum=0))
    return n * (d * d + d) + d * v


def multi_head_draft_cost(head_params: ArrayLike, target_params: ArrayLike) -> float | np.ndarray:
    """``c_draft`` of one prediction head: its weight read over the target's.

    In a bandwidth-bound decode the heads' extra cost is reading their own
    weights; they run on the target's last hidden state inside the same
    pass, so there is no separate forward pass. One head drafts one
    position, so this is the cost per draft token.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    head_params : float or array_like
        Parameters of one head, >= 0.
    target_params : float or array_like
        Parameters of the target model, > 0.

    Returns
    -------
    float or numpy.ndarray
        ``c_draft`` as a fraction of one target step.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.drafts.multi_head_draft_cost(147_853_312, 6.74e9), 4)
    0.0219
    """
    h = check_nonnegative(head_params, "head_params", "(parameters)")
    t = check_positive(target_params, "target_params", "(parameters)")
    check_broadcast(head_params=h, target_params=t)
    return to_output(h / t, is_scalar_input(head_params, target_params))


def self_speculation_draft_cost(layer_fraction: ArrayLike, shared_fraction: ArrayLike = 0.0) -> float | np.ndarray:
    r"""``c_draft`` when the draft is a fraction of the target's own layers.

    .. math:: c_d = \text{shared} + f\,(1 - \text{shared})

    where ``f`` is the fraction of the transformer layers the draft runs
    and ``shared`` the fraction of the target's weights every draft step
    reads anyway (embedding lookup is negligible; the output projection is
    not). Bandwidth-bound: cost follows the bytes read.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    layer_fraction : float or array_like
        Fraction of layers in the draft, in (0, 1].
    shared_fraction : float or array_like, optional
        Fraction of the weights read by every draft step regardless, in
        [0, 1). Default 0.

    Returns
    -------
    float or numpy.ndarray
        ``c_draft`` as a fraction of one target step.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.drafts.self_speculation_draft_cost(0.5, shared_fraction=0.1)
    0.55
    """
    f = check_positive(layer_fraction, "layer_fraction", "(fraction of layers)")
    if (f > 1).any():
        raise ValueError(f"layer_fraction must be in (0, 1]; got {describe(f[f > 1].flat[0])}")
    s = check_probability(shared_fraction, "shared_fraction")
    if (s >= 1).any():
        raise ValueError("shared_fraction must be in [0, 1); got 1.0")
    check_broadcast(layer_fraction=f, shared_fraction=s)
    return to_output(s + f * (1.0 - s), is_scalar_input(layer_fraction, shared_fraction))


def conditional_rates_from_marginals(accuracies: ArrayLike, assumption: str = "independent") -> np.ndarray:
    r"""Per-position acceptance rates from each head's own (marginal) accuracy.

    The marginals :math:`a_i = P(A_i)` do not fix :math:`P(A_1 \cap \dots \cap A_i)`; two
    readings bracket it: ``"independent"`` (rate :math:`a_i`) and ``"nested"`` (the Frechet
    bound, rate :math:`\min_{j \le i} a_j / \min_{j < i} a_j`).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    accuracies : array_like
        Marginal accuracies along the last axis, each in [0, 1].
    assumption : {"independent", "nested"}
        How the heads' errors relate.

    Returns
    -------
    numpy.ndarray
        Conditional rates for :func:`specdec.acceptance.expected_tokens_per_position`.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.drafts.conditional_rates_from_marginals([0.5, 0.25], "nested").tolist()
    [0.5, 0.5]
    """
    a = check_probability(accuracies, "accuracies")
    if a.ndim == 0 or a.shape[-1] == 0:
        raise ValueError(f"accuracies must have at least one position on its last axis; got shape {a.shape}")
    if isinstance(assumption, str) and assumption == "independent":
        return a.copy()
    check_choice(assumption, "assumption", ("independent", "nested"))
    joint = np.minimum.accumulate(a, axis=-1)
    previous = np.concatenate([np.ones(a.shape[:-1] + (1,)), joint[..., :-1]], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(previous > 0, joint / previous, 0.0)
    return rates


def equivalent_alpha(alphas: ArrayLike) -> float | np.ndarray:
    """The constant acceptance rate giving the same E[L] as per-position rates.

    Solves ``expected_tokens(alpha, k) = expected_tokens_per_position(alphas)``
    with ``k = alphas.shape[-1]``, so position-dependent drafts can be placed
    against a break-even threshold that assumes a constant alpha
    (:func:`specdec.acceptance.alpha_for_expected_tokens`).

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    alphas : array_like
        Conditional acceptance rates along the last axis, in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        Equivalent constant alpha in [0, 1].

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.drafts.equivalent_alpha([0.8, 0.8, 0.8]), 12)
    0.8
    """
    a = check_probability(alphas, "alphas")
    e = np.asarray(_expected_tokens_per_position(a), dtype=float)
    k = a.shape[-1]
    return to_output(_alpha_for_expected_tokens(np.minimum(e, k + 1.0), k), a.ndim == 1)


@dataclass(frozen=True)
class DraftArrangement:
    """One way of producing drafts: its cost per draft and its per-position acceptance.

    Defined in chapter "Draft cost in three arrangements".

    Parameters
    ----------
    name : str
        Label for tables and legends.
    c_draft : float
        One draft token's cost as a fraction of a target step, >= 0.
    alphas : tuple of float
        Conditional acceptance rate of draft positions 1, 2, ... (its length
        is the largest ``k`` the arrangement supports; a constant-alpha
        draft repeats one value).
    c_verify : float, optional
        Verification pass with no drafts, fraction of a target step, > 0.
    per_draft : float, optional
        Growth of the verification pass per drafted position (as in
        :func:`verify_cost_linear`), >= 0. Default 0.

    Examples
    --------
    >>> import specdec as sd
    >>> arr = sd.drafts.DraftArrangement("heads", 0.02, (0.6, 0.5, 0.4))
    >>> round(arr.expected_tokens(2), 4)
    1.9
    """

    name: str
    c_draft: float
    alphas: tuple
    c_verify: float = 1.0
    per_draft: float = 0.0

    def __post_init__(self) -> None:
        check_nonnegative(self.c_draft, "c_draft", "(fraction of a target step)")
        a = check_probability(self.alphas, "alphas")
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"alphas must be a non-empty 1-D sequence of rates; got shape {a.shape}")
        check_positive(self.c_verify, "c_verify", "(fraction of a target step)")
        check_nonnegative(self.per_draft, "per_draft", "(fraction of a target step per draft)")
        object.__setattr__(self, "alphas", tuple(float(x) for x in a))

    @property
    def k_max(self) -> int:
        """Largest ``k`` the arrangement supports (number of listed positions)."""
        return len(self.alphas)

    def _ks(self, k: ArrayLike) -> np.ndarray:
        return check_integer(k, "k", minimum=1, maximum=self.k_max)

    def expected_tokens(self, k: ArrayLike) -> float | np.ndarray:
        """E[L] with the first ``k`` positions (``k`` may be an array)."""
        kk = self._ks(k)
        prods = np.concatenate([[1.0], np.cumprod(self.alphas)])
        cums = np.cumsum(prods)  # cums[j] = 1 + sum_{i<=j} prod
        return to_output(cums[kk], np.ndim(k) == 0)

    def c_verify_at(self, k: ArrayLike) -> float | np.ndarray:
        """Verification cost at ``k`` drafts: ``c_verify + per_draft * k``."""
        self._ks(k)
        return verify_cost_linear(k, self.c_verify, self.per_draft)

    def round_cost(self, k: ArrayLike) -> float | np.ndarray:
        """Cost of one round, ``k c_draft + c_v(k)``, in target steps (:func:`specdec.economics.round_cost`)."""
        kk = self._ks(k)
        return round_cost(k if np.ndim(k) == 0 else kk, self.c_draft, self.c_verify_at(k))

    def speedup(self, k: ArrayLike) -> float | np.ndarray:
        """E[L] over the round cost at ``k`` drafts."""
        return to_output(np.asarray(self.expected_tokens(k)) / np.asarray(self.round_cost(k)), np.ndim(k) == 0)

    def equivalent_alpha(self, k: int) -> float | np.ndarray:
        """Constant alpha with the same E[L] as the first ``k`` positions (scalar ``k``)."""
        kk = int(self._ks(k))
        return equivalent_alpha(np.asarray(self.alphas[:kk]))

    def break_even_alpha(self, k: ArrayLike) -> float | np.ndarray:
        """Constant-alpha threshold at this arrangement's costs (``k`` may be an array)."""
        kk = self._ks(k)
        return break_even_alpha(kk if np.ndim(k) else int(kk), self.c_draft,
                                self.c_verify + self.per_draft * kk)

    def best_k(self) -> int:
        """The ``k`` in ``1 .. k_max`` with the largest speedup (ties: smaller ``k``)."""
        ks = np.arange(1, self.k_max + 1)
        return int(ks[np.argmax(self.speedup(ks))])

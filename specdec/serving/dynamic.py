"""Dynamic speculation length: an oracle bound, HF's heuristic schedule, and simulations.

The oracle bound of Leviathan et al., section 3.5 (:func:`oracle_expected_tokens`,
:func:`oracle_improvement_factor`, :func:`oracle_gain`), Hugging Face's ``"heuristic"`` schedule
(:func:`hf_heuristic_update`, :data:`HF_HEURISTIC`, which carries the commits read), and a
simulation of draft-length policies on workloads whose acceptance varies by request
(:func:`beta_alphas`) or inside a request (:func:`regime_alphas`): :func:`simulate_schedule`,
:func:`compare_schedules`.

Notes
-----
The simulation starts every request from ``start``, i.e. HF's ``"heuristic_transient"`` form
(``"heuristic"`` keeps the value across ``generate`` calls). A round with ``k = 0`` is a plain
decode step costing 1; speedup is total tokens over total cost, pooled over requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# All imports from other specdec modules are in this one block, so that they
# can be repointed when the package is restructured.
from specdec._validate import (
    check_fraction_open,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import _expected_tokens_array
from specdec.economics import _optimal_k
from specdec.sources import Cited

__all__ = [
    "HF_HEURISTIC",
    "POLICIES",
    "ScheduleRun",
    "beta_alphas",
    "compare_schedules",
    "hf_heuristic_update",
    "oracle_expected_tokens",
    "oracle_gain",
    "oracle_improvement_factor",
    "regime_alphas",
    "simulate_schedule",
]

#: Hugging Face transformers' ``"heuristic"`` schedule as read in the code (see the
#: module docstring for the commits): start value, increase after a round whose
#: drafts all matched, decrease otherwise, and the floor.
HF_HEURISTIC: Cited = Cited(
    {"start": 20.0, "increase": 2.0, "decrease": 1.0, "minimum": 1.0}, "hf-transformers",
    "candidate_generator.py, AssistedCandidateGenerator.update_candidate_strategy; default num_assistant_tokens "
    "in configuration_utils.py", "verified",
    "huggingface/transformers src/transformers/generation/candidate_generator.py (update_candidate_strategy) at "
    "02dba3191ce987d960b0b4ccca7556ca81a8bad6; default num_assistant_tokens = 20 in configuration_utils.py at "
    "008f5c8c29be84d4721dc6d1e0fcd72300580be4")

#: Draft-length policies :func:`simulate_schedule` knows.
POLICIES = ("fixed", "hf-heuristic", "per-request-optimal", "oracle")

_CHAPTER = "Dynamic speculation length"




def _count(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum, maximum=maximum))


# --------------------------------------------------------------------------
# the oracle bound (Leviathan et al., section 3.5)
# --------------------------------------------------------------------------


def oracle_expected_tokens(alpha: ArrayLike) -> float | np.ndarray:
    r"""Expected tokens per target call with an oracle for gamma: :math:`1 / (1 - \alpha)`.

    Leviathan et al., section 3.5: ``N + 1`` tokens per round with :math:`P(N \ge n) = \alpha^n`,
    the limit of :func:`specdec.acceptance.expected_tokens` as ``k`` grows.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        Tokens per round, >= 1; ``inf`` at ``alpha = 1``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.dynamic.oracle_expected_tokens(0.8)
    5.000000000000001
    """
    a = check_probability(alpha, "alpha")
    with np.errstate(divide="ignore"):
        out = np.where(a < 1.0, 1.0 / (1.0 - a), np.inf)
    return to_output(out, is_scalar_input(alpha))


def oracle_improvement_factor(alpha: ArrayLike, c: ArrayLike) -> float | np.ndarray:
    r"""Walltime improvement with an oracle gamma, counting the draft's cost.

    A round costs ``N c + 1`` target steps for ``N + 1`` tokens; the improvement is the ratio of
    expectations:

    .. math:: \frac{E[N] + 1}{c\,E[N] + 1}
              = \frac{1 / (1-\alpha)}{1 + c\,\alpha / (1-\alpha)}
              = \frac{1}{1 - \alpha + c\,\alpha}

    At ``c = 0`` it is :func:`oracle_expected_tokens`. The book's accounting, with Theorem 3.8's
    assumption that a verification costs one target step.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    c : float or array_like
        One draft step as a fraction of a target step (their ``c``), >= 0.

    Returns
    -------
    float or numpy.ndarray
        Improvement factor (``inf`` at ``alpha = 1, c = 0``).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.dynamic.oracle_improvement_factor(0.8, 0.05), 4)
    4.1667
    """
    a = check_probability(alpha, "alpha")
    cc = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    return to_output(_oracle_improvement_factor(a, cc), is_scalar_input(alpha, c))


def _oracle_improvement_factor(a: np.ndarray, cc: np.ndarray) -> np.ndarray:
    """:func:`oracle_improvement_factor` of checked arrays; checks nothing."""
    denom = 1.0 - a + cc * a
    with np.errstate(divide="ignore"):
        return np.where(denom > 0, 1.0 / np.where(denom > 0, denom, 1.0), np.inf)


def oracle_gain(alpha: ArrayLike, c: ArrayLike, k_max: int = 64) -> float | np.ndarray:
    """How much an oracle gamma beats the best fixed gamma: the paper's "up to ~60%".

    :func:`oracle_improvement_factor` divided by Theorem 3.8's improvement at
    the best fixed gamma (:func:`specdec.economics.improvement_factor` at
    :func:`specdec.economics.optimal_k` with ``c_verify = 1``).

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1).
    c : float or array_like
        Draft-to-target step time ratio, >= 0.
    k_max : int, optional
        Largest fixed gamma considered, >= 1. Default 64.

    Returns
    -------
    float or numpy.ndarray
        Ratio >= 1.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.dynamic.oracle_gain(0.9, 0.05), 3)
    1.475
    """
    a = check_probability(alpha, "alpha")
    if (a >= 1.0).any():
        raise ValueError("alpha must be below 1 here (at alpha = 1 both the oracle and a fixed gamma grow without bound)")
    cc = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    km = _count(k_max, "k_max")
    k = _optimal_k(a, cc, np.ones((km,)), km).astype(float)
    fixed = _expected_tokens_array(a, k) / (k * cc + 1.0)   # Theorem 3.8's improvement at that k
    out = np.asarray(_oracle_improvement_factor(a, cc)) / fixed
    return to_output(out, is_scalar_input(alpha, c))


# --------------------------------------------------------------------------
# Hugging Face's heuristic schedule
# --------------------------------------------------------------------------


def hf_heuristic_update(num_assistant_tokens: ArrayLike, num_matches: ArrayLike,
                        num_candidates: ArrayLike) -> float | np.ndarray:
    """One step of HF assisted generation's ``"heuristic"`` schedule.

    ``num_assistant_tokens + 2`` when every candidate matched
    (``num_matches == num_candidates``), else
    ``max(1, num_assistant_tokens - 1)``. The next round drafts ``int()`` of the result.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    num_assistant_tokens : float or array_like
        Current value of the schedule, >= 1 (HF keeps it as a float).
    num_matches : int or array_like of int
        Drafts the target accepted this round, in ``0 .. num_candidates``.
    num_candidates : int or array_like of int
        Drafts proposed this round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        The schedule's next value.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.dynamic.hf_heuristic_update(20.0, 20, 20), sd.dynamic.hf_heuristic_update(20.0, 3, 20)
    (22.0, 19.0)
    >>> sd.dynamic.hf_heuristic_update(1.0, 0, 1)
    1.0
    """
    n = check_nonnegative(num_assistant_tokens, "num_assistant_tokens", "(tokens)")
    if (n < 1).any():
        raise ValueError(f"num_assistant_tokens must be >= 1; got {float(n[n < 1].flat[0])!r}")
    c = check_integer(num_candidates, "num_candidates", minimum=1)
    m = check_integer(num_matches, "num_matches", minimum=0)
    if (np.broadcast_to(m, np.broadcast_shapes(m.shape, c.shape)) > c).any():
        raise ValueError("num_matches must be at most num_candidates")
    h = HF_HEURISTIC.value
    out = np.where(m == c, n + h["increase"], np.maximum(h["minimum"], n - h["decrease"]))
    return to_output(out, is_scalar_input(num_assistant_tokens, num_matches, num_candidates))


# --------------------------------------------------------------------------
# workloads whose acceptance varies
# --------------------------------------------------------------------------


def beta_alphas(n_requests: int, mean: float, concentration: float, rng: np.random.Generator | int) -> np.ndarray:
    r"""Per-request acceptance rates drawn from a Beta distribution.

    :math:`\alpha \sim \mathrm{Beta}(m \kappa, (1 - m) \kappa)`: mean ``m``,
    variance :math:`m (1 - m) / (\kappa + 1)`.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    n_requests : int
        Requests, >= 1.
    mean : float
        Mean acceptance rate, in (0, 1).
    concentration : float
        ``kappa``, > 0 (larger = more alike).
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    numpy.ndarray, shape (n_requests,)

    Examples
    --------
    >>> import specdec as sd
    >>> a = sd.dynamic.beta_alphas(100_000, 0.7, 4.0, rng=0)
    >>> round(float(a.mean()), 2), round(float(a.var()), 3)   # 0.7, 0.7 * 0.3 / 5
    (0.7, 0.042)
    """
    n = _count(n_requests, "n_requests")
    m = float(check_fraction_open(mean, "mean")) if np.ndim(mean) == 0 else None
    k = float(check_positive(concentration, "concentration")) if np.ndim(concentration) == 0 else None
    if m is None or k is None:
        raise TypeError("mean and concentration must be single numbers")
    return check_rng(rng).beta(m * k, (1.0 - m) * k, size=n)


def regime_alphas(n_requests: int, n_segments: int, alphas: ArrayLike, switch_prob: float,
                  rng: np.random.Generator | int) -> np.ndarray:
    """Acceptance that switches between regimes inside each request (a Markov chain).

    The first segment's regime is uniform; each next one keeps it with probability ``1 -
    switch_prob``, else jumps uniformly to another. Use with ``segment_tokens`` in
    :func:`simulate_schedule`.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    n_requests : int
        Requests, >= 1.
    n_segments : int
        Segments per request, >= 1.
    alphas : array_like, shape (n_regimes,)
        Acceptance rate of each regime, in [0, 1]; at least 2 regimes.
    switch_prob : float
        Probability of leaving the current regime at a segment boundary, in [0, 1].
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    numpy.ndarray, shape (n_requests, n_segments)

    Examples
    --------
    >>> import specdec as sd
    >>> a = sd.dynamic.regime_alphas(3, 4, [0.9, 0.4], 0.0, rng=1)
    >>> bool(((a == a[:, :1]).all()))      # no switches: one regime per request
    True
    """
    n = _count(n_requests, "n_requests")
    s = _count(n_segments, "n_segments")
    al = check_probability(alphas, "alphas")
    if al.ndim != 1 or al.size < 2:
        raise ValueError(f"alphas must list at least two regimes (1-D); got shape {al.shape}")
    sw = float(check_probability(switch_prob, "switch_prob")) if np.ndim(switch_prob) == 0 else None
    if sw is None:
        raise TypeError("switch_prob must be a single number")
    g = check_rng(rng)
    r = al.size
    regime = np.empty((n, s), dtype=np.int64)
    regime[:, 0] = g.integers(0, r, size=n)
    for j in range(1, s):  # loop over segments; requests vectorized
        jump = g.random(n) < sw
        other = (regime[:, j - 1] + g.integers(1, r, size=n)) % r
        regime[:, j] = np.where(jump, other, regime[:, j - 1])
    return al[regime]


# --------------------------------------------------------------------------
# simulation
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleRun:
    """Outcome of a draft-length policy over many requests (one entry per request).

    Defined in chapter "Dynamic speculation length".

    Attributes
    ----------
    policy : str
        The policy simulated.
    tokens : numpy.ndarray of int64
        Tokens generated per request (``n_tokens`` each).
    rounds : numpy.ndarray of int64
        Target verification passes (rounds) per request.
    drafted : numpy.ndarray of int64
        Draft tokens proposed per request.
    accepted : numpy.ndarray of int64
        Draft tokens accepted per request.
    cost : numpy.ndarray
        Time per request in target decode steps.
    """

    policy: str
    tokens: np.ndarray
    rounds: np.ndarray
    drafted: np.ndarray
    accepted: np.ndarray
    cost: np.ndarray

    @property
    def tokens_per_round(self) -> float:
        """Pooled tokens per target pass, ``sum(tokens) / sum(rounds)``."""
        return float(self.tokens.sum() / self.rounds.sum())

    @property
    def mean_rounds(self) -> float:
        """Average rounds per request."""
        return float(self.rounds.mean())

    @property
    def speedup(self) -> float:
        """Pooled speedup over plain decoding, ``sum(tokens) / sum(cost)``."""
        return float(self.tokens.sum() / self.cost.sum())

    @property
    def mean_draft_length(self) -> float:
        """Average drafts per round."""
        return float(self.drafted.sum() / self.rounds.sum())

    @property
    def draft_acceptance_rate(self) -> float:
        """Accepted over drafted (``nan`` when nothing was drafted)."""
        d = self.drafted.sum()
        return float(self.accepted.sum() / d) if d else float("nan")


def _cost_table(c_draft: float, c_verify: ArrayLike, k_max: int) -> tuple[np.ndarray, float, np.ndarray]:
    """cost[k] of a round drafting k tokens, k = 0 .. k_max (k = 0 is a plain step)."""
    cd = float(check_nonnegative(c_draft, "c_draft", "(target decode steps)")) if np.ndim(c_draft) == 0 else None
    if cd is None:
        raise TypeError("c_draft must be a single number")
    cv = check_positive(c_verify, "c_verify", "(target decode steps)")
    if cv.ndim == 0:
        cv = np.full(k_max, float(cv))
    elif cv.shape != (k_max,):
        raise ValueError(f"c_verify must be a single number or one value per k = 1 .. k_max, shape ({k_max},); "
                         f"got shape {cv.shape}")
    ks = np.arange(1, k_max + 1)
    return np.concatenate([[1.0], ks * cd + cv]), cd, cv


def _best_k(alpha: np.ndarray, cd: float, cv: np.ndarray, k_max: int) -> np.ndarray:
    """argmax_k E[L](alpha, k) / (k c_d + c_v(k)) for a c_v that may vary with k."""
    if np.all(cv == cv[0]):
        cv0 = np.asarray(cv[0], dtype=np.float64)
        return _optimal_k(alpha, np.asarray(cd, dtype=np.float64), np.broadcast_to(cv0[..., None], cv0.shape + (k_max,)),
                       k_max)
    ks = np.arange(1, k_max + 1)
    s = _expected_tokens_array(alpha[..., None], ks.astype(float)) / (ks * cd + cv)
    return ks[np.argmax(s, axis=-1)]


def _alpha_inputs(alpha: ArrayLike, segment_tokens: int | None) -> tuple[np.ndarray, int | None]:
    a = check_probability(alpha, "alpha")
    if a.ndim == 1:
        if segment_tokens is not None:
            raise ValueError("segment_tokens needs a 2-D alpha (one row of segments per request)")
        return a[:, None], None
    if a.ndim == 2:
        if segment_tokens is None:
            raise ValueError("a 2-D alpha (requests x segments) needs segment_tokens, the tokens per segment")
        return a, _count(segment_tokens, "segment_tokens")
    raise ValueError(f"alpha must be 1-D (one rate per request) or 2-D (requests x segments); got shape {a.shape}")


def simulate_schedule(alpha: ArrayLike, n_tokens: int, policy: str, rng: np.random.Generator | int, *, k: int = 5,
                      start: float = HF_HEURISTIC.value["start"], k_max: int = 64, c_draft: float = 0.0,
                      c_verify: ArrayLike = 1.0, segment_tokens: int | None = None) -> ScheduleRun:
    """Simulate a draft-length policy on requests whose acceptance rate varies.

    A round drafts ``k_r`` tokens and emits ``N + 1`` with ``N = min(G, k_r)``,
    :math:`P(G \\ge n) = \\alpha^n` at the request's current alpha; ``k_r`` is at most the tokens
    left minus one. Policies:

    ``"fixed"``
        ``k_r = k``.
    ``"hf-heuristic"``
        ``k_r = int(s)`` with ``s`` starting at ``start`` and updated by
        :func:`hf_heuristic_update` after every round.
    ``"per-request-optimal"``
        ``k_r`` maximizes the speedup at the request's current alpha (it
        knows alpha, not the outcome).
    ``"oracle"``
        ``k_r = min(G, k_max)``: exactly the drafts that will be accepted.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alpha : array_like, shape (n_requests,) or (n_requests, n_segments)
        Acceptance rate of each request, or of each segment of
        ``segment_tokens`` tokens (the last segment extends to the end).
    n_tokens : int
        Tokens per request, in [1, 1_000_000].
    policy : str
        One of :data:`POLICIES`.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    k : int, optional
        The fixed policy's drafts per round, in [1, k_max]. Default 5.
    start : float, optional
        The heuristic's starting value, >= 1. Default 20 (HF's default).
    k_max : int, optional
        Longest draft any policy may propose, in [1, 4096]. Default 64.
    c_draft : float, optional
        One draft step in target decode steps, >= 0. Default 0.
    c_verify : float or array_like, shape (k_max,), optional
        Verification of ``k`` drafts (entry ``k - 1``) in target decode
        steps, > 0. Default 1 (Theorem 3.8's assumption).
    segment_tokens : int, optional
        Tokens per segment for a 2-D ``alpha``.

    Returns
    -------
    ScheduleRun

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> alphas = np.full(200, 0.8)
    >>> run = sd.dynamic.simulate_schedule(alphas, 4000, "fixed", rng=0, k=4)
    >>> round(run.tokens_per_round, 2), round(sd.expected_tokens(0.8, 4), 2)
    (3.36, 3.36)
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {list(POLICIES)}; got {policy!r}")
    inputs = _schedule_inputs(alpha, n_tokens, k, start, k_max, c_draft, c_verify, segment_tokens)
    return _simulate(policy, check_rng(rng), *inputs)


def _schedule_inputs(alpha: ArrayLike, n_tokens: int, k: int, start: float, k_max: int, c_draft: float,
                     c_verify: ArrayLike, segment_tokens: int | None) -> tuple:
    """The checked inputs of :func:`simulate_schedule` but the policy and the generator, in :func:`_simulate`'s
    order."""
    a, seg = _alpha_inputs(alpha, segment_tokens)
    total = _count(n_tokens, "n_tokens", maximum=1_000_000)
    km = _count(k_max, "k_max", maximum=4096)
    kk = _count(k, "k", maximum=km)
    if np.ndim(start) != 0:
        raise TypeError("start must be a single number")
    st = float(check_nonnegative(start, "start", "(tokens)"))
    if st < 1.0:
        raise ValueError(f"start must be >= 1; got {st!r}")
    cost_of, cd, cv = _cost_table(c_draft, c_verify, km)
    return a, seg, total, km, kk, st, cost_of, cd, cv


def _simulate(policy: str, g: np.random.Generator, a: np.ndarray, seg: int | None, total: int, km: int, kk: int,
              st: float, cost_of: np.ndarray, cd: float, cv: np.ndarray) -> ScheduleRun:
    """:func:`simulate_schedule` of checked inputs (from :func:`_schedule_inputs`); checks nothing."""
    n_req, n_seg = a.shape
    emitted = np.zeros(n_req, dtype=np.int64)
    rounds = np.zeros(n_req, dtype=np.int64)
    drafted = np.zeros(n_req, dtype=np.int64)
    accepted = np.zeros(n_req, dtype=np.int64)
    cost = np.zeros(n_req)
    state = np.full(n_req, st)
    best_per_segment = _best_k(a, cd, cv, km) if policy == "per-request-optimal" else None
    active = np.arange(n_req)
    while active.size:  # one iteration = one round of every unfinished request
        seg_idx = np.zeros(active.size, dtype=np.int64) if seg is None else np.minimum(emitted[active] // seg, n_seg - 1)
        al = a[active, seg_idx]
        u = 1.0 - g.random(active.size)  # in (0, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            run = np.floor(np.log(u) / np.log(al))
        run = np.where(al >= 1.0, km, np.where(al <= 0.0, 0.0, np.nan_to_num(run, nan=km, posinf=km)))
        run = np.minimum(run, km).astype(np.int64)
        room = total - emitted[active] - 1
        if policy == "fixed":
            kr = np.full(active.size, kk)
        elif policy == "hf-heuristic":
            kr = np.minimum(state[active].astype(np.int64), km)
        elif policy == "per-request-optimal":
            assert best_per_segment is not None
            kr = best_per_segment[active, seg_idx]
        else:
            kr = run.copy()
        kr = np.minimum(kr, room)
        n_acc = np.minimum(run, kr)
        emitted[active] += n_acc + 1
        rounds[active] += 1
        drafted[active] += kr
        accepted[active] += n_acc
        cost[active] += cost_of[kr]
        if policy == "hf-heuristic":
            upd = kr > 0
            full = n_acc == kr
            s = state[active]
            s = np.where(upd & full, s + HF_HEURISTIC.value["increase"],
                         np.where(upd, np.maximum(HF_HEURISTIC.value["minimum"], s - HF_HEURISTIC.value["decrease"]), s))
            state[active] = s
        active = active[emitted[active] < total]
    return ScheduleRun(policy=policy, tokens=emitted, rounds=rounds, drafted=drafted, accepted=accepted, cost=cost)


def compare_schedules(alpha: ArrayLike, n_tokens: int, rng: int | np.random.Generator, *, k: int = 5,
                      start: float = HF_HEURISTIC.value["start"], k_max: int = 64, c_draft: float = 0.0,
                      c_verify: float = 1.0, segment_tokens: int | None = None,
                      policies: Sequence[str] = POLICIES) -> dict[str, Any]:
    """Run several draft-length policies on the same workload.

    Each policy gets a fresh generator with the same seed from ``rng``.

    Defined in chapter "Dynamic speculation length".

    Parameters
    ----------
    alpha, n_tokens, k, start, k_max, c_draft, c_verify, segment_tokens
        As in :func:`simulate_schedule`.
    rng : int or numpy.random.Generator
        A seed (or a generator, from which one seed is drawn).
    policies : sequence of str, optional
        Which of :data:`POLICIES` to run (default all).

    Returns
    -------
    dict
        Policy name -> :class:`ScheduleRun`.

    Examples
    --------
    >>> import specdec as sd
    >>> alphas = sd.dynamic.beta_alphas(500, 0.7, 2.0, rng=0)
    >>> runs = sd.dynamic.compare_schedules(alphas, 256, rng=1, c_draft=0.05)
    >>> sorted(runs) == sorted(sd.dynamic.POLICIES)
    True
    """
    if isinstance(rng, np.random.Generator):
        seed = int(rng.integers(0, 2**63 - 1))
    else:
        seed = None
        check_rng(rng)
        seed = int(rng)
    if isinstance(policies, str) or not all(p in POLICIES for p in policies):
        raise ValueError(f"policies must be a sequence drawn from {list(POLICIES)}; got {policies!r}")
    inputs = _schedule_inputs(alpha, n_tokens, k, start, k_max, c_draft, c_verify, segment_tokens)
    return {p: _simulate(p, np.random.default_rng(seed), *inputs) for p in policies}

"""Model-free drafts that copy from the text so far: n-gram / prompt lookup.

The closed-form repetition model (:func:`ngram_round`), the two matching rules engines use
(Spec-Bench's PLD, :func:`prompt_lookup_proposal`; vLLM's ``ngram`` proposer,
:func:`vllm_ngram_proposal`), synthetic self-copying text (:func:`synthetic_copy_text`) and
greedy-verified runs of either rule over it (:func:`simulate_prompt_lookup`). The cited settings
live in :mod:`specdec.drafts.drafters`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import expected_tokens_per_position

__all__ = ["NgramRound", "PromptLookupRun", "ngram_round", "prompt_lookup_proposal", "prompt_lookup_run",
           "simulate_prompt_lookup", "synthetic_copy_text", "vllm_ngram_proposal", "LOOKUP_RULES"]

_CHAPTER = "Drafts in today's engines"

# --------------------------------------------------------------------------
# n-gram / prompt-lookup drafts
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class NgramRound:
    """Expected tokens, cost and speedup of an n-gram draft under the repetition model.

    Defined in chapter "Drafts in today's engines".

    Attributes
    ----------
    expected_tokens : float or numpy.ndarray
        Tokens per round.
    expected_cost : float or numpy.ndarray
        Target decode steps per round.
    speedup : float or numpy.ndarray
        ``expected_tokens / expected_cost``.
    """

    expected_tokens: Any
    expected_cost: Any
    speedup: Any


def ngram_round(match_prob: ArrayLike, first_accept: ArrayLike, continue_prob: ArrayLike, k: int, c_verify: float = 1.0,
                lookup_cost: float = 0.0) -> NgramRound:
    r"""Tokens per round and speedup of a prompt-lookup (n-gram) draft.

    A round finds a match with probability ``m`` and proposes ``k`` tokens (else it is a plain
    step); the first is right with probability ``a_1``, each further one with ``beta``:

    .. math:: E[L] = (1 - m) + m\, E[L](a_1, \beta, \ldots, \beta),
              \qquad \text{cost} = (1 - m) + m\,(c_v + c_\text{lookup})

    with the per-position ``E[L]`` of :func:`specdec.acceptance.expected_tokens_per_position`.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    match_prob : float or array_like
        ``m``, in [0, 1].
    first_accept : float or array_like
        ``a_1``, in [0, 1].
    continue_prob : float or array_like
        ``beta``, in [0, 1].
    k : int
        Tokens proposed per match (``num_pred_tokens``), >= 1.
    c_verify : float, optional
        Verification of ``k`` proposed tokens, target decode steps, > 0.
    lookup_cost : float, optional
        The n-gram search, target decode steps, >= 0. Default 0.

    Returns
    -------
    NgramRound

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.drafters.ngram_round(0.5, 0.6, 0.8, 10)
    >>> round(r.expected_tokens, 4), round(r.speedup, 4)
    (2.3389, 2.3389)
    """
    m = check_probability(match_prob, "match_prob")
    a1 = check_probability(first_accept, "first_accept")
    b = check_probability(continue_prob, "continue_prob")
    if np.ndim(k) != 0:
        raise TypeError("k must be a single whole number")
    kk = int(check_integer(k, "k", minimum=1))
    cv = check_positive(c_verify, "c_verify", "(target decode steps)")
    lc = check_nonnegative(lookup_cost, "lookup_cost", "(target decode steps)")
    a1b, bb = np.broadcast_arrays(a1, b)
    rates = np.concatenate([a1b[..., None], np.repeat(bb[..., None], kk - 1, axis=-1)], axis=-1)
    el_match = np.asarray(expected_tokens_per_position(rates))
    el = (1.0 - m) + m * el_match
    cost = (1.0 - m) + m * (cv + lc)
    scalar = is_scalar_input(match_prob, first_accept, continue_prob, c_verify, lookup_cost)
    return NgramRound(expected_tokens=to_output(el, scalar), expected_cost=to_output(cost, scalar),
                      speedup=to_output(el / cost, scalar))


def _count(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum, maximum=maximum))


def synthetic_copy_text(n_tokens: int, vocab: int, copy_prob: float, mean_copy_length: float,
                        rng: np.random.Generator | int) -> np.ndarray:
    """A token sequence that sometimes repeats earlier spans (a model of code edits, RAG, summaries).

    Built left to right: at each position outside a copy, with probability
    ``copy_prob`` a copy starts at a uniform earlier position and continues with probability
    ``1 - 1 / mean_copy_length``; otherwise a fresh token is drawn uniformly.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    n_tokens : int
        Length, in [2, 1_000_000].
    vocab : int
        Vocabulary size, >= 2.
    copy_prob : float
        Probability of starting a copy at a position, in [0, 1].
    mean_copy_length : float
        Mean copied span in tokens, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.

    Returns
    -------
    numpy.ndarray of int64, shape (n_tokens,)

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.drafters.synthetic_copy_text(1000, 50_000, 0.0, 1.0, rng=0)
    >>> len(set(t.tolist())) > 980        # no copies: almost all tokens distinct
    True
    """
    n = _count(n_tokens, "n_tokens", minimum=2, maximum=1_000_000)
    v = _count(vocab, "vocab", minimum=2)
    cp = float(check_probability(copy_prob, "copy_prob")) if np.ndim(copy_prob) == 0 else None
    if cp is None:
        raise TypeError("copy_prob must be a single number")
    mc = float(check_positive(mean_copy_length, "mean_copy_length", "(tokens)")) if np.ndim(mean_copy_length) == 0 \
        else None
    if mc is None or mc < 1.0:
        raise ValueError(f"mean_copy_length must be a single number >= 1 token; got {mean_copy_length!r}")
    g = check_rng(rng)
    keep = 1.0 - 1.0 / mc
    u_start = g.random(n)
    u_keep = g.random(n)
    src_u = g.random(n)
    fresh = g.integers(0, v, size=n)
    out = np.empty(n, dtype=np.int64)
    out[0] = fresh[0]
    src = -1  # position being copied from, -1 outside a copy
    for i in range(1, n):  # sequential by nature: a copy can copy a copy
        if src >= 0 and u_keep[i] < keep:
            src += 1
        elif u_start[i] < cp:
            src = int(src_u[i] * i)
        else:
            src = -1
        out[i] = out[src] if src >= 0 else fresh[i]
    return out


def prompt_lookup_proposal(tokens: ArrayLike, max_ngram: int = 3, num_pred: int = 10) -> np.ndarray:
    """The tokens a prompt-lookup draft proposes after ``tokens`` (Spec-Bench's PLD rule).

    For ``n = max_ngram, ..., 1``: find the earlier positions where the last
    ``n`` tokens occur; take the first (leftmost) occurrence whose following
    ``num_pred`` tokens all lie inside the sequence and which does not
    overlap the final n-gram; propose those ``num_pred`` tokens. If no ``n``
    gives such an occurrence, propose nothing.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    tokens : array_like of int, 1-D
        The context so far (prompt and generated tokens).
    max_ngram : int, optional
        Longest n-gram tried, >= 1. Default 3 (Spec-Bench's default).
    num_pred : int, optional
        Tokens proposed, >= 1. Default 10 (Spec-Bench's default).

    Returns
    -------
    numpy.ndarray of int64
        The proposal (empty when nothing matches).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.drafters.prompt_lookup_proposal([5, 6, 7, 8, 9, 1, 5, 6], max_ngram=2, num_pred=3).tolist()
    [7, 8, 9]
    """
    t = check_integer(tokens, "tokens", minimum=0)
    if t.ndim != 1:
        raise ValueError(f"tokens must be 1-D; got shape {t.shape}")
    mn = _count(max_ngram, "max_ngram")
    k = _count(num_pred, "num_pred")
    return _lookup(t, mn, k)


def _lookup(t: np.ndarray, max_ngram: int, k: int) -> np.ndarray:
    length = t.size
    for n in range(min(max_ngram, length), 0, -1):
        tail = t[length - n:]
        # start positions s with t[s:s+n] == tail, s + n + k <= length, s + n < length - n
        last = min(length - n - k, length - 2 * n - 1)
        if last < 0:
            continue
        s = _first_match(t, tail, last)
        if s is not None:
            return t[s + n:s + n + k].copy()
    return np.zeros(0, dtype=np.int64)


def _first_match(t: np.ndarray, tail: np.ndarray, last: int) -> int | None:
    """The first start s <= last with t[s:s + len(tail)] == tail (vectorized over s), or None."""
    ok = t[:last + 1] == tail[0]
    for j in range(1, tail.size):
        ok &= t[j:last + 1 + j] == tail[j]
    hits = np.flatnonzero(ok)
    return int(hits[0]) if hits.size else None


def vllm_ngram_proposal(tokens: ArrayLike, min_ngram: int, max_ngram: int, num_pred: int) -> np.ndarray:
    """The tokens vLLM's ``ngram`` proposer drafts after ``tokens``.

    vLLM's rule (``vllm/v1/spec_decode/ngram_proposer.py``,
    ``_find_longest_matched_ngram_and_propose_tokens``): the longest
    ``n`` in ``[min_ngram, max_ngram]`` such that the last ``n`` tokens
    occur earlier in the context; among the occurrences of that n-gram the
    leftmost; propose the up to ``num_pred`` tokens that follow it (fewer
    if the context ends first; the occurrence may overlap the final
    n-gram). Nothing when no ``n >= min_ngram`` matches. Defaults:
    ``specdec.drafts.drafters.VLLM_NGRAM_DEFAULTS``.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    tokens : array_like of int, 1-D
        The context so far.
    min_ngram : int
        ``prompt_lookup_min``, >= 1.
    max_ngram : int
        ``prompt_lookup_max``, >= ``min_ngram``.
    num_pred : int
        ``num_speculative_tokens``, >= 1.

    Returns
    -------
    numpy.ndarray of int64
        The proposal (empty when nothing matches).

    Examples
    --------
    The example of vLLM's docstring: ``[4, 2, 3]`` has no earlier match,
    ``[2, 3]`` has one, and only three tokens follow it.

    >>> import specdec as sd
    >>> sd.lookup.vllm_ngram_proposal([1, 2, 3, 4, 2, 3], 2, 3, 4).tolist()
    [4, 2, 3]
    """
    t = check_integer(tokens, "tokens", minimum=0)
    if t.ndim != 1:
        raise ValueError(f"tokens must be 1-D; got shape {t.shape}")
    lo = _count(min_ngram, "min_ngram")
    hi = _count(max_ngram, "max_ngram")
    if hi < lo:
        raise ValueError(f"max_ngram must be >= min_ngram = {lo}; got {hi}")
    return _vllm_lookup(t, lo, hi, _count(num_pred, "num_pred"))


def _vllm_lookup(t: np.ndarray, min_ngram: int, max_ngram: int, k: int) -> np.ndarray:
    length = t.size
    for n in range(min(max_ngram, length - 1), min_ngram - 1, -1):
        tail = t[length - n:]
        last = length - n - 1  # earlier start positions s <= length - n - 1: one token follows
        s = _first_match(t, tail, last)
        if s is not None:
            return t[s + n:s + n + k].copy()
    return np.zeros(0, dtype=np.int64)


#: The matching rules :func:`simulate_prompt_lookup` can run.
LOOKUP_RULES = ("spec-bench", "vllm")


@dataclass(frozen=True)
class PromptLookupRun:
    """Rounds of prompt-lookup drafting verified against a fixed (greedy) text.

    Defined in chapter "Drafts in today's engines".

    Attributes
    ----------
    proposed : numpy.ndarray of int64
        Tokens proposed in each round (0 when no match).
    accepted : numpy.ndarray of int64
        Tokens accepted in each round.
    """

    proposed: np.ndarray
    accepted: np.ndarray

    @property
    def n_rounds(self) -> int:
        """Rounds (target passes) needed."""
        return int(self.proposed.size)

    @property
    def tokens_per_round(self) -> float:
        """Mean tokens per round, ``mean(accepted) + 1`` (the text's last round may be cut short)."""
        return float(self.accepted.mean() + 1.0)

    @property
    def match_rate(self) -> float:
        """Share of rounds in which the lookup proposed something (the model's ``m``)."""
        return float((self.proposed > 0).mean())

    def speedup(self, c_verify: ArrayLike) -> float:
        """Tokens per plain decode step when a round verifying ``j`` proposals costs ``c_verify[j - 1]``.

        A round without a proposal is a plain step (cost 1); the lookup
        itself is free (``c_draft = 0``). ``c_verify`` has one entry per
        proposal length 1 .. ``max(proposed)`` or more, e.g.
        :func:`specdec.roofline.hardware.verify_cost` over ``k = 1 .. num_pred``.
        """
        cv = check_positive(c_verify, "c_verify", "(target decode steps)")
        if cv.ndim != 1 or cv.size < int(self.proposed.max(initial=0)):
            raise ValueError(f"c_verify must be 1-D with at least {int(self.proposed.max(initial=0))} entries")
        cost = np.where(self.proposed > 0, cv[np.maximum(self.proposed, 1) - 1], 1.0)
        return float((self.accepted + 1).sum() / cost.sum())


def simulate_prompt_lookup(text: ArrayLike, prompt_tokens: int, max_ngram: int = 3, num_pred: int = 10, *,
                           rule: str = "spec-bench", min_ngram: int = 1) -> PromptLookupRun:
    """Run prompt-lookup drafting with greedy verification over a fixed text.

    The text is the target's greedy output: after ``prompt_tokens``, each round proposes with
    ``rule``, accepts the longest prefix that agrees with the text and adds the next token.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    text : array_like of int, 1-D
        Prompt followed by the output, e.g. from :func:`synthetic_copy_text`.
    prompt_tokens : int
        Tokens of ``text`` given before generation starts, in [1, len(text) - 1].
    max_ngram, num_pred : int, optional
        As in :func:`prompt_lookup_proposal`.
    rule : {"spec-bench", "vllm"}, optional
        Matching rule (``LOOKUP_RULES``). Default ``"spec-bench"``.
    min_ngram : int, optional
        Shortest n-gram, >= 1 and <= ``max_ngram``; only the ``"vllm"``
        rule has one (Spec-Bench's goes down to 1). Default 1.

    Returns
    -------
    PromptLookupRun

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> text = np.tile(np.arange(20), 11)              # the same 20 tokens, eleven times
    >>> run = sd.drafters.simulate_prompt_lookup(text, 40, max_ngram=3, num_pred=5)
    >>> run.tokens_per_round                           # every proposal right: 5 + 1 tokens
    6.0
    >>> sd.lookup.simulate_prompt_lookup(text, 40, 5, 5, rule="vllm", min_ngram=5).tokens_per_round
    6.0
    """
    if rule not in LOOKUP_RULES:
        raise ValueError(f"rule must be one of {LOOKUP_RULES}; got {rule!r}")
    t = check_integer(text, "text", minimum=0)
    if t.ndim != 1 or t.size < 2:
        raise ValueError(f"text must be 1-D with at least 2 tokens; got shape {t.shape}")
    p0 = _count(prompt_tokens, "prompt_tokens", maximum=t.size - 1)
    mn = _count(max_ngram, "max_ngram")
    k = _count(num_pred, "num_pred")
    lo = _count(min_ngram, "min_ngram", maximum=mn)
    if rule == "spec-bench" and lo != 1:
        raise ValueError(f"min_ngram applies to rule='vllm' only (Spec-Bench's rule goes down to 1); got {lo}")
    pos = p0
    proposed, accepted = [], []
    while pos < t.size:  # rounds are sequential: each depends on the text so far
        prop = _lookup(t[:pos], mn, k) if rule == "spec-bench" else _vllm_lookup(t[:pos], lo, mn, k)
        room = t.size - pos - 1
        prop = prop[:room]
        truth = t[pos:pos + prop.size]
        agree = prop == truth
        n_acc = int(np.argmin(agree)) if not agree.all() else int(prop.size)
        proposed.append(int(prop.size))
        accepted.append(n_acc)
        pos += n_acc + 1
    return PromptLookupRun(proposed=np.array(proposed, dtype=np.int64), accepted=np.array(accepted, dtype=np.int64))


def prompt_lookup_run(copy_prob: float = 0.1, mean_copy_length: float = 20.0, num_pred: int = 10, max_ngram: int = 3,
                      n_tokens: int = 8000, prompt_tokens: int = 1000, vocab: int = 32000, rng: int = 0, *,
                      rule: str = "spec-bench", min_ngram: int = 1) -> PromptLookupRun:
    """The chapter's prompt-lookup run: a synthetic text with copies, then prompt lookup over it.

    Arguments as in :func:`specdec.drafts.drafters.synthetic_copy_text` and :func:`specdec.drafts.drafters.simulate_prompt_lookup`
    (``rng`` seeds the text; ``rule`` and ``min_ngram`` choose the matching rule); returns a :class:`specdec.drafts.drafters.PromptLookupRun`.
    Defined in chapter "Drafts in today's engines".

    Examples
    --------
    >>> import specdec as sd
    >>> run = sd.drafters.prompt_lookup_run(n_tokens=3000, prompt_tokens=500)
    >>> run.n_rounds == run.proposed.size and run.tokens_per_round > 1
    True
    """
    text = synthetic_copy_text(n_tokens, vocab, copy_prob, mean_copy_length, rng=rng)
    return simulate_prompt_lookup(text, prompt_tokens, max_ngram, num_pred, rule=rule, min_ngram=min_ngram)

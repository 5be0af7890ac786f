"""Suffix decoding: a model-free draft read from a suffix tree of the prompt and earlier outputs.

SuffixDecoding (Oliaro et al., arXiv 2411.04975; ``SUFFIX_ABSTRACT``) proposes up to
``factor * match_length + offset`` tokens (:func:`suffix_max_spec`; vLLM's defaults in
``specdec.drafts.drafters.VLLM_SUFFIX_DEFAULTS``). Like n-gram lookup it runs no model, so a round
costs ``S = E[L] / (c_v(k) + c_lookup)`` (:func:`suffix_speedup`) and a measured speedup
implies the tokens per round (:func:`model_free_tokens`). The paper's speedups
(``SUFFIX_ABSTRACT``) and ArcticInference's throughputs (``ARCTIC_SUFFIX_BENCHMARKS``) give no
acceptance length; the one found is vLLM's port at one draft token (``SUFFIX_VLLM_MTBENCH``).

Defined in chapter "Drafts in today's engines".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import check_nonnegative, check_positive, check_tokens_per_round, is_scalar_input, to_output
from specdec.drafts.drafters import VLLM_SUFFIX_DEFAULTS
from specdec.sources import Cited

__all__ = ["ARCTIC_SUFFIX_BENCHMARKS", "SUFFIX_ABSTRACT", "SUFFIX_VLLM_MTBENCH", "measured_speedups", "model_free_tokens",
           "suffix_max_spec", "suffix_speedup"]

_CHAPTER = "Drafts in today's engines"

SUFFIX_ABSTRACT = Cited(
    {"speedup_up_to": 5.3, "over_eagle_2_3": 2.8, "over_token_recycling": 1.9}, "oliaro2024suffix", "Abstract",
    "verified", "arXiv 2411.04975v3 HTML (arxiv.org/html/2411.04975v3, search-tool pages index)",
    note="'speedups of up to 5.3x ... 2.8x faster than model-based approaches like EAGLE-2/3 and 1.9x faster than "
         "model-free approaches such as Token Recycling', on SWE-Bench and AgenticSQL; an earlier OpenReview "
         "version of the abstract gave 3.9x, 2.2x and 1.6x")

ARCTIC_SUFFIX_BENCHMARKS = Cited(
    {"workloads": ("ShareGPT", "HumanEval", "SWE-Bench", "Mixed"),
     "tokens_per_s": {"No Spec": (76.0, 77.2, 75.8, 82.9), "N-gram": (91.2, 100.0, 175.0, 112.0),
                      "EAGLE": (102.0, 112.0, None, None), "Suffix": (113.0, 148.0, 286.0, 155.0),
                      "Arctic + Suffix": (179.0, 217.0, 302.0, 209.0)}},
    "arctic-inference", "docs/suffix-decoding.rst, 'Key Benchmarks' (vLLM v0.8.4)", "verified",
    "GitHub snowflakedb/ArcticInference docs/suffix-decoding.rst at commit 4eb0d8ed473e13ef3dde2f94e45be3945910680a",
    note="EAGLE's SWE-Bench and Mixed cells read 'Error' (stored as None); the table names neither model nor GPU "
         "(the page's usage example serves Llama-3.1-8B-Instruct); details are in a Snowflake blog post not read here")


SUFFIX_VLLM_MTBENCH = Cited(
    {"num_spec_tokens": 1, "prompts": 80, "num_drafts": 1986, "num_accepted_tokens": 1226,
     "mean_acceptance_length": 1.62, "acceptance_at_token_0": 0.62}, "vllm-pr-24852",
    "pull request description, 'Test Result', suffix decode (examples/offline_inference/spec_decode.py "
    "--num_spec_tokens 1 --dataset-path philschmid/mt-bench --method suffix)", "verified",
    "the pull request thread as stored in the search tool's issues index (github.com/vllm-project/vllm/pull/24852)",
    note="an acceptance length measured for suffix decoding, at one draft token per round; the model and GPU are "
         "the example script's defaults, not stated in the description")


def suffix_max_spec(match_length: ArrayLike, max_spec_factor: float | None = None,
                    offset: float = 0.0) -> float | np.ndarray:
    """Most tokens suffix decoding proposes after a match of ``match_length`` tokens.

    ``max_spec = max_spec_factor * match_length + offset`` (ArcticInference's
    rule; vLLM's ``suffix_decoding_max_spec_factor`` without the offset),
    at least 0.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    match_length : float or array_like
        Tokens matched in the suffix tree, >= 0.
    max_spec_factor : float, optional
        >= 0. Default vLLM's, ``specdec.drafts.drafters.VLLM_SUFFIX_DEFAULTS``.
    offset : float, optional
        Added tokens (negative to speculate less). Default 0.

    Returns
    -------
    float or numpy.ndarray
        Tokens, >= 0.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.suffix.suffix_max_spec([2, 8, 20]).tolist()      # vLLM's factor 1.0
    [2.0, 8.0, 20.0]
    """
    m = check_nonnegative(match_length, "match_length", "(tokens)")
    f = VLLM_SUFFIX_DEFAULTS.value["max_spec_factor"] if max_spec_factor is None else max_spec_factor
    fa = check_nonnegative(f, "max_spec_factor")
    if np.ndim(offset) != 0 or not np.isfinite(float(offset)):
        raise ValueError(f"offset must be a single finite number of tokens; got {offset!r}")
    return to_output(np.maximum(fa * m + float(offset), 0.0), is_scalar_input(match_length, f))


def suffix_speedup(expected_tokens: ArrayLike, c_verify: ArrayLike, lookup_cost: ArrayLike = 0.0) -> float | np.ndarray:
    """Speedup of a model-free draft: ``E[L] / (c_v + c_lookup)``.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    expected_tokens : float or array_like
        Tokens per round, >= 1.
    c_verify : float or array_like
        The verification pass, target decode steps, > 0.
    lookup_cost : float or array_like, optional
        The tree lookup, target decode steps, >= 0. Default 0.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> import specdec as sd
    >>> sd.suffix.suffix_speedup(3.0, 1.2)
    2.5
    """
    e = check_tokens_per_round(expected_tokens, "expected_tokens")
    cv = check_positive(c_verify, "c_verify", "(target decode steps)")
    lc = check_nonnegative(lookup_cost, "lookup_cost", "(target decode steps)")
    return to_output(e / (cv + lc), is_scalar_input(expected_tokens, c_verify, lookup_cost))


def model_free_tokens(speedup: ArrayLike, c_verify: float, lookup_cost: float = 0.0) -> float | np.ndarray:
    """Tokens per round a model-free draft must average to reach a measured speedup.

    The inverse of :func:`suffix_speedup`: ``E[L] = S (c_v + c_lookup)``.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    speedup : float or array_like
        Measured speedup, > 0.
    c_verify, lookup_cost
        As in :func:`suffix_speedup`.

    Returns
    -------
    float or numpy.ndarray
        Tokens per round.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.suffix.model_free_tokens(2.5, 1.2)
    3.0
    """
    s = check_positive(speedup, "speedup")
    cv = check_positive(c_verify, "c_verify", "(target decode steps)")
    lc = check_nonnegative(lookup_cost, "lookup_cost", "(target decode steps)")
    return to_output(s * (cv + lc), is_scalar_input(speedup, c_verify, lookup_cost))


def measured_speedups() -> dict[str, Any]:
    """Each method's throughput over no speculation in ArcticInference's table, per workload.

    Defined in chapter "Drafts in today's engines".

    Returns
    -------
    dict
        ``{method: {workload: speedup}}`` for every method but "No Spec";
        a cell the table reports as an error is left out.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.suffix.measured_speedups()["Suffix"]["SWE-Bench"], 3)
    3.773
    """
    v = ARCTIC_SUFFIX_BENCHMARKS.value
    base = v["tokens_per_s"]["No Spec"]
    return {m: {w: t / b for w, t, b in zip(v["workloads"], row, base, strict=True) if t is not None}
            for m, row in v["tokens_per_s"].items() if m != "No Spec"}

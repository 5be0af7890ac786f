"""Drafts in today's engines: heads, multi-token prediction, n-gram lookup, small models.

The published numbers of the four draft families (heads such as EAGLE and Medusa, MTP modules,
n-gram lookup, separate small models), each a :class:`specdec.sources.Cited` record, and what is
computed from them: implied round costs (:func:`implied_round_cost`, :func:`spec_bench_table`,
:func:`draft_catalogue`), alpha floors (:func:`alpha_lower_bound`), MTP rounds
(:func:`mtp_expected_tokens`, :func:`mtp_reuse_round`) and Leviathan et al.'s bigram check. The
lookup simulations of :mod:`specdec.drafts.lookup` are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# All imports from other specdec modules are in this one block, so that they
# can be repointed when the package is restructured.
from specdec._validate import (
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_tokens_per_round,
    is_scalar_input,
    to_output,
)
from specdec.acceptance import expected_tokens, expected_tokens_per_position
from specdec.drafts.lookup import (
    NgramRound,
    PromptLookupRun,
    ngram_round,
    prompt_lookup_proposal,
    prompt_lookup_run,
    simulate_prompt_lookup,
    synthetic_copy_text,
)
from specdec.economics import improvement_factor
from specdec.sources import Cited
from specdec.verification import MEDUSA_DELTA, MEDUSA_EPSILON
from specdec.verification.trees import rank_accept_from_topk

__all__ = [
    "DEEPSEEK_V3_MTP", "EAGLE2_ABSTRACT", "EAGLE3_ABSTRACT", "EAGLE_HEAD_PARAMS",
    "EAGLE_README_SPEEDUPS", "HF_DEFAULTS", "LEVIATHAN_BIGRAM", "LEVIATHAN_ORACLE",
    "MEDUSA_TOPK_VICUNA_7B", "MEDUSA_TYPICAL_DEFAULTS", "SGLANG_EAGLE_H100", "SPEC_BENCH_A100",
    "SPEC_BENCH_PLD_SETTINGS", "SPEC_BENCH_SPS_DRAFT", "SPEC_BENCH_TASKS", "NgramRound", "PromptLookupRun",
    "alpha_lower_bound", "chain_equivalent_alpha", "DRAFT_STRUCTURE", "STRUCTURES", "implied_round_cost", "leviathan_bigram_check", "mtp_expected_tokens", "ngram_round",
    "prompt_lookup_proposal", "simulate_prompt_lookup", "spec_bench_table", "synthetic_copy_text",
    "medusa_rank_accept", "prompt_lookup_run", "draft_catalogue", "VLLM_NGRAM_DEFAULTS", "VLLM_DRAFT_TP",
    "VLLM_BLOCK_VERIFICATION", "VLLM_SUFFIX_DEFAULTS", "VLLM_MTP_PER_POSITION", "MtpRound", "mtp_reuse_round",
]

_CHAPTER = "Drafts in today's engines"

# sources and quoted inputs ------------------------------------------------

_LEVIATHAN_TEX = ("a transcription of arXiv 2211.17192v2 built from its TeX source (search-tool code index, "
                  "file id 61952915204)")

LEVIATHAN_BIGRAM = Cited(
    {"alpha": 0.2, "gamma": 3, "c": 0.0, "speedup": 1.25}, "leviathan2023",
    "Section 3.6 (Approximation Models); repeated in Section 4.2", "verified", _LEVIATHAN_TEX,
    note="Section 3.6: 'For example, for the English-German translation task, with M_p being T5-XXL 11B and M_q "
         "being a trivial bigram model, we get alpha ~ 0.2 which leads to an inference speed improvement factor "
         "of 1.25X with gamma=3.' Section 4.2 adds 'since c=0 in this case'.")

LEVIATHAN_ORACLE = Cited(
    {"oracle_tokens": "1/(1-alpha)", "gain_over_fixed_gamma": 0.6}, "leviathan2023",
    "Section 3.5 (Choosing gamma), last paragraph", "verified", _LEVIATHAN_TEX,
    note="'To get an upper bound on the additional improvement factor, assume we had an oracle for gamma. We would "
         "then have E(# generated tokens) = 1/(1-alpha). For typical values of c and alpha, and assuming unbounded "
         "compute resources, the enhanced walltime improvement factor can be up to ~60% higher than the "
         "improvement factor with a fixed gamma.' (~60% is given as approximate)")

#: Spec-Bench tasks in the leaderboard's column order.
SPEC_BENCH_TASKS = ("Multi-turn Conversation", "Translation", "Summarization", "Question Answering",
                    "Mathematical Reasoning", "Retrieval-aug. Generation")

_SPEC_BENCH_WHERE = ("Leaderboard.md, 'Leaderboard on A100' (single A100 80GB, greedy decoding, FP16, batch size 1, "
                     "PyTorch 2.5.1), mean speedup over 3 runs and '#Mean Accepted Tokens' per decoding step "
                     "(1.00 for vanilla decoding)")
_SPEC_BENCH_CHECKED = "GitHub hemingkx/Spec-Bench Leaderboard.md at commit fd2c1cd7d2201ef71db4c5f4e455008f017967bf"

# (per-task speedups in SPEC_BENCH_TASKS order, #mean accepted tokens, overall speedup)
SPEC_BENCH_A100 = {
    "vicuna-7b": Cited({
        "SAMD[EAGLE2]": ((3.30, 2.01, 3.19, 2.36, 2.96, 2.52), 4.58, 2.73),
        "EAGLE2": ((2.84, 1.88, 2.34, 2.15, 2.79, 2.13), 4.34, 2.36),
        "Recycling": ((2.37, 2.02, 2.27, 2.08, 2.53, 2.02), 2.73, 2.22),
        "EAGLE": ((2.45, 1.77, 2.08, 1.93, 2.44, 1.87), 3.58, 2.10),
        "Hydra": ((2.43, 1.89, 1.83, 1.97, 2.45, 1.80), 3.26, 2.07),
        "Medusa": ((1.97, 1.65, 1.57, 1.65, 1.94, 1.49), 2.31, 1.71),
        "PLD": ((1.60, 1.06, 2.66, 1.19, 1.62, 1.86), 1.75, 1.66),
        "SpS": ((1.66, 1.13, 1.71, 1.50, 1.47, 1.66), 2.28, 1.52),
        "REST": ((1.63, 1.31, 1.36, 1.66, 1.21, 1.73), 1.82, 1.48),
        "Lookahead": ((1.47, 1.14, 1.36, 1.25, 1.57, 1.22), 1.64, 1.34),
    }, "xia2024specbench", _SPEC_BENCH_WHERE + ", Vicuna-7B-v1.3", "verified", _SPEC_BENCH_CHECKED),
    "vicuna-13b": Cited({
        "EAGLE3": ((3.48, 2.36, 3.14, 2.94, 3.42, 2.78), 5.71, 3.02),
        "SAMD[EAGLE2]": ((3.38, 2.11, 2.96, 2.35, 3.16, 2.67), 4.52, 2.77),
        "EAGLE2": ((2.95, 1.96, 2.43, 2.20, 2.95, 2.25), 4.43, 2.46),
        "Hydra": ((2.58, 1.99, 1.94, 2.08, 2.62, 1.95), 3.35, 2.20),
        "Recycling": ((2.30, 2.02, 2.10, 2.05, 2.60, 1.94), 2.73, 2.17),
        "EAGLE": ((2.52, 1.84, 2.12, 1.91, 2.52, 2.01), 3.64, 2.16),
        "Medusa": ((2.05, 1.71, 1.62, 1.69, 2.08, 1.61), 2.39, 1.80),
        "PLD": ((1.54, 1.03, 2.30, 1.05, 1.65, 1.82), 1.67, 1.56),
        "SpS": ((1.67, 1.15, 1.71, 1.43, 1.58, 1.70), 2.19, 1.54),
        "REST": ((1.52, 1.17, 1.37, 1.53, 1.19, 1.55), 1.82, 1.38),
        "Lookahead": ((1.43, 1.09, 1.28, 1.18, 1.59, 1.21), 1.63, 1.30),
    }, "xia2024specbench", _SPEC_BENCH_WHERE + ", Vicuna-13B-v1.3", "verified", _SPEC_BENCH_CHECKED),
}

SPEC_BENCH_PLD_SETTINGS = Cited(
    {"max_ngram_size": 3, "num_pred_tokens": 10}, "xia2024specbench",
    "model/pld/pld.py, defaults of find_candidate_pred_tokens", "verified",
    "GitHub hemingkx/Spec-Bench at commit fd2c1cd7d2201ef71db4c5f4e455008f017967bf")

SPEC_BENCH_SPS_DRAFT = Cited(
    {"draft": "vicuna-68m", "target": "vicuna-7b-v1.3"}, "xia2024specbench",
    "eval.sh (Drafter_PATH=.../vicuna-68m, model id vicuna-7b-v1.3-sps-68m)", "verified",
    "GitHub hemingkx/Spec-Bench at commit fd2c1cd7d2201ef71db4c5f4e455008f017967bf")

EAGLE_README_SPEEDUPS = Cited(
    {"EAGLE": 3.0, "EAGLE-2": 4.0, "EAGLE-3": 5.6}, "eagle-repo",
    "README: 'faster than vanilla decoding (13B)' for each version", "verified",
    "GitHub SafeAILab/EAGLE README at commit cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b",
    note="setting not stated next to the claims; the README's demo runs Vicuna 13B on 2x RTX 3090 at fp16")

EAGLE2_ABSTRACT = Cited(
    {"speedup": (3.05, 4.26), "faster_than_eagle1": (0.20, 0.40)}, "li2024eagle2", "Abstract", "verified",
    "copies of the arXiv abstract (2406.16858) in the search index",
    note="'with EAGLE-2 achieving speedup ratios 3.05x-4.26x, which is 20%-40% faster than EAGLE-1'")

EAGLE3_ABSTRACT = Cited(
    {"speedup_up_to": 6.5, "over_eagle2": 1.4, "sglang_throughput_batch64": 1.38}, "li2025eagle3", "Abstract",
    "verified", "copies of the arXiv abstract (2503.01840) in the search index",
    note="'EAGLE-3 achieves a speedup ratio up to 6.5x, with about 1.4x improvement over EAGLE-2. In the SGLang "
         "framework, EAGLE-3 achieves a 1.38x throughput improvement at a batch size of 64.'")

EAGLE_HEAD_PARAMS = Cited(
    {"Vicuna 7B": 0.24e9, "Vicuna 13B": 0.37e9, "Vicuna 33B": 0.56e9, "LLaMA2-Chat 70B": 0.99e9}, "eagle-repo",
    "README, 'EAGLE Weights' table (# EAGLE Parameters)", "verified",
    "GitHub SafeAILab/EAGLE README at commit 01aa1191ed81ac6855e119ef55d279cf4c925217")

DEEPSEEK_V3_MTP = Cited(
    {"mtp_depth": 1, "second_token_acceptance": (0.85, 0.90), "tps_factor": 1.8}, "deepseek2024v3",
    "Section 5.4.3 (Multi-Token Prediction Evaluation); depth D = 1 in Section 4.2", "secondary",
    "several public notes quoting the paragraph verbatim ('the acceptance rate of the second token prediction "
    "ranges between 85% and 90% across various generation topics ... delivering 1.8 times TPS'); not read in the PDF",
    note="batch size, hardware and whether TPS is per user or per system are not stated in that section")

MEDUSA_TOPK_VICUNA_7B = Cited(
    ((0.5603876709938049, 0.6717196702957153, 0.7271371483802795, 0.7599403262138367, 0.7799453139305115),
     (0.31635186076164246, 0.4235834777355194, 0.4850894510746002, 0.5282057523727417, 0.5625),
     (0.2010437250137329, 0.28789758682250977, 0.3475397527217865, 0.3834492862224579, 0.4168737530708313),
     (0.14736579358577728, 0.22502483427524567, 0.27373260259628296, 0.3108846843242645, 0.3397117257118225),
     (0.11754472553730012, 0.18663020431995392, 0.23459243774414065, 0.2721172869205475, 0.2998260259628296)),
    "medusa-repo", "assets/medusa_acc.csv, row '7b', columns train/medusa{0..4}_top{1..5}", "verified",
    "GitHub FasterDecoding/Medusa at commit e2a5d20c048a9b0a4092e6933c34313687422518",
    note="training-set top-k accuracy of heads 1-5 (row i = head i + 1, column r = top-(r + 1)); marginal "
         "accuracies of each head on its own, logged at the end of training")

MEDUSA_TYPICAL_DEFAULTS = Cited(
    {"epsilon": MEDUSA_EPSILON, "delta": MEDUSA_DELTA, "log_offset": 1e-5}, "medusa-repo",
    "medusa/model/medusa_model.py (medusa_generate: posterior_threshold=0.09, posterior_alpha=0.3) and "
    "medusa/model/utils.py (evaluate_posterior)", "verified",
    "GitHub FasterDecoding/Medusa at commit e2a5d20c048a9b0a4092e6933c34313687422518")

HF_DEFAULTS = Cited(
    {"4.40.0": {"num_assistant_tokens": 5, "num_assistant_tokens_schedule": "heuristic"},
     "5.24.0": {"num_assistant_tokens": 20, "num_assistant_tokens_schedule": "constant",
                "assistant_confidence_threshold": 0.4}},
    "hf-transformers", "generation/configuration_utils.py (defaults of the assisted-generation fields)", "verified",
    "the released wheels of transformers 4.40.0 and 5.24.0 (read by the book's engine research; 4.57.6 already has "
    "the 5.24.0 defaults)")

SGLANG_EAGLE_H100 = Cited(
    {"model": "meta-llama/Llama-2-7b-chat-hf", "hardware": "1x H100",
     "tokens_per_s": {"EAGLE official code": 200.0, "SGLang (no speculation)": 156.0, "SGLang + EAGLE": 297.0,
                      "SGLang + EAGLE + torch.compile": 316.0},
     "settings": {"speculative-num-steps": 5, "speculative-eagle-topk": 8, "speculative-num-draft-tokens": 64}},
    "sglang-docs", "'Performance Highlights' (all values approximate, '~')", "verified",
    "GitHub sgl-project/sglang docs/backend/speculative_decoding.md at commit e26285a06d9fba5bde4609413dd2041c53e2623c",
    note="batch size not stated (a single stream is implied); the settings are those of the launch command shown "
         "below the figures")


EAGLE_LARGE_DRAFT_REMARK = Cited(
    {"figure_1_caption": "Employing a 7B model as the draft model for a 13B model results in slow speeds due to the "
                         "high overhead of the 7B model, rendering it less efficient than vanilla autoregressive "
                         "decoding.",
     "section_4_1": "For the 13B model, we observed no improvement in speed. For the 33B and 70B models, the speedup "
                    "ratios were 1.12x and 1.88x, respectively.",
     "draft_lengths": (2, 10), "speedup_33b": 1.12, "speedup_70b": 1.88},
    "li2024eagle", "Figure 1 caption and Section 4.1 (MT-bench, greedy, batch 1; draft lengths 2 to 10 searched)",
    "verified", "a transcription of arXiv 2401.15077v3 HTML (search-tool index id 58869229422)",
    note="the 13B row is marked N/A in Figure 1; the acceptance rate of the 7B draft is not printed")

EAGLE3_TABLE1_VICUNA13B = Cited(
    {"EAGLE": 3.07, "EAGLE-3": 5.58}, "li2025eagle3", "Table 1 (Vicuna 13B, MT-bench, temperature 0, speedup)",
    "secondary", "a public review note that checked the table against arXiv 2503.01840v3",
    note="agrees with the README's rounded '3x' and '5.6' (EAGLE_README_SPEEDUPS)")


VLLM_MTP_PER_POSITION = Cited(
    {"num_speculative_tokens": 2, "concurrency": (1, 4, 8), "overall": (0.5750, 0.5560, 0.5718),
     "position_0": (0.7694, 0.7570, 0.7860), "position_1": (0.3807, 0.3550, 0.3576)},
    "vllm-pr-41044", "comment of 2026-04-28, table 'Per-position acceptance rates' (DeepSeek V4, method 'mtp', "
    "num_speculative_tokens=2, TP 2, fp8 KV cache, random 1024-token inputs and outputs)", "verified",
    "the pull request thread as stored in the search tool's issues index (github.com/vllm-project/vllm/pull/41044)",
    note="vLLM's per-position rates are unconditional (accepted at position i / drafts), so position 1 is the share "
         "of rounds accepting both drafts; the run is on an SM120 evaluation branch, after the PR's fix")


_VLLM_CONFIG = "GitHub vllm-project/vllm vllm/config/speculative.py at commit 002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443"

VLLM_NGRAM_DEFAULTS = Cited(
    {"prompt_lookup_min": 5, "prompt_lookup_max": 5, "num_speculative_tokens": None}, "vllm-repo",
    "vllm/config/speculative.py, SpeculativeConfig.__post_init__ (method 'ngram': both 5 when neither is given; "
    "one given sets the other); num_speculative_tokens has no default for ngram", "verified", _VLLM_CONFIG,
    note="the code comments the 5s as 'arbitrarily chosen'; the field docstring's 'Defaults to 1' for "
         "prompt_lookup_min is not what __post_init__ does. Matching rule read in vllm/v1/spec_decode/"
         "ngram_proposer.py (_find_longest_matched_ngram_and_propose_tokens) at commit "
         "016e8ede870e3c087fdcdfb36ed3622112712f10: longest n-gram in [min, max], leftmost occurrence, up to k tokens")

VLLM_DRAFT_TP = Cited(
    {"allowed": "1 or the target's tensor-parallel size"}, "vllm-repo",
    "vllm/config/speculative.py, field draft_tensor_parallel_size ('Can only be 1 or the same as the target "
    "model's tensor parallel size')", "verified", _VLLM_CONFIG)

VLLM_BLOCK_VERIFICATION = Cited(
    {"rejection_sample_method": ("standard", "synthetic", "block"), "default": "standard"}, "vllm-repo",
    "vllm/config/speculative.py, field rejection_sample_method ('block' uses block verification (Sun et al.))",
    "verified", _VLLM_CONFIG)

VLLM_SUFFIX_DEFAULTS = Cited(
    {"max_tree_depth": 24, "max_cached_requests": 10000, "max_spec_factor": 1.0, "min_token_prob": 0.1},
    "vllm-repo", "vllm/config/speculative.py, fields suffix_decoding_* (method 'suffix')", "verified", _VLLM_CONFIG,
    note="max_spec_tokens = max_spec_factor * prefix_match_length (field docstring)")


# --------------------------------------------------------------------------
# computed from the inputs
# --------------------------------------------------------------------------


def leviathan_bigram_check(decimals: int = 2) -> dict[str, Any]:
    """Reproduce Leviathan et al.'s bigram example: alpha = 0.2, gamma = 3, c = 0 gives 1.25x.

    Theorem 3.8 at ``c = 0`` is :math:`(1 - \\alpha^{\\gamma+1}) / (1 - \\alpha)`;
    at the quoted inputs it is 1.248, which rounds to the quoted 1.25.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    decimals : int, optional
        Decimals of the quoted speedup, in [0, 6]. Default 2.

    Returns
    -------
    dict
        ``computed`` (float), ``quoted`` (1.25), ``rounds_to_quoted`` (bool),
        and the inputs ``alpha``, ``gamma``, ``c``.

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.drafters.leviathan_bigram_check()
    >>> round(r["computed"], 4), r["quoted"], r["rounds_to_quoted"]
    (1.248, 1.25, True)
    """
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=6)) if np.ndim(decimals) == 0 else None
    if d is None:
        raise TypeError("decimals must be a single whole number")
    v = LEVIATHAN_BIGRAM.value
    computed = float(improvement_factor(v["alpha"], v["gamma"], v["c"]))
    return {"alpha": v["alpha"], "gamma": v["gamma"], "c": v["c"], "computed": computed, "quoted": v["speedup"],
            "rounds_to_quoted": abs(round(computed, d) - v["speedup"]) < 1e-9}


def implied_round_cost(mean_accepted_tokens: ArrayLike, speedup: ArrayLike) -> float | np.ndarray:
    """Round cost in target decode steps implied by a measured acceptance length and speedup.

    ``cost = E[L] / speedup``: draft steps, verification and every overhead in one number (the
    book's ``k c_d + c_v``).

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    mean_accepted_tokens : float or array_like
        Tokens per target pass (bonus included, 1 for plain decoding), >= 1.
    speedup : float or array_like
        Measured speedup over plain decoding, > 0.

    Returns
    -------
    float or numpy.ndarray
        Target decode steps per round.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.drafters.implied_round_cost(4.34, 2.36), 3)   # Spec-Bench EAGLE-2, Vicuna-7B, A100
    1.839
    """
    e = check_tokens_per_round(mean_accepted_tokens, "mean_accepted_tokens")
    s = check_positive(speedup, "speedup")
    return to_output(e / s, is_scalar_input(mean_accepted_tokens, speedup))


#: How each draft method's candidates are arranged: "chain" (one proposal per round) or "tree".
DRAFT_STRUCTURE = {"SAMD[EAGLE2]": "tree", "EAGLE3": "tree", "EAGLE2": "tree", "EAGLE": "tree", "Hydra": "tree",
                   "Medusa": "tree", "Recycling": "tree", "REST": "tree", "Lookahead": "tree", "PLD": "chain",
                   "SpS": "chain", "MTP (depth 1)": "chain"}

#: The structures :func:`alpha_lower_bound` knows.
STRUCTURES = ("chain", "tree")


def chain_equivalent_alpha(mean_accepted_tokens: ArrayLike) -> float | np.ndarray:
    r"""The per-position acceptance rate an unlimited chain needs to emit ``E[L]`` tokens per round.

    :math:`\alpha_\text{chain} = 1 - 1/E[L]` solves :math:`E[L] = 1/(1 - \alpha)`,
    the tokens per round of a chain as ``k`` grows without bound. A floor for a chain
    (:func:`alpha_lower_bound`); for a tree only a label.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    mean_accepted_tokens : float or array_like
        Tokens per round, >= 1.

    Returns
    -------
    float or numpy.ndarray
        In [0, 1).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.drafters.chain_equivalent_alpha(4.34), 4)   # Spec-Bench EAGLE-2, a tree
    0.7696
    """
    e = check_tokens_per_round(mean_accepted_tokens, "mean_accepted_tokens")
    return to_output(1.0 - 1.0 / e, is_scalar_input(mean_accepted_tokens))


def alpha_lower_bound(mean_accepted_tokens: ArrayLike, structure: str = "chain") -> float | np.ndarray:
    r"""Smallest per-position acceptance rate of a *chain* draft consistent with its mean acceptance length.

    :math:`\alpha \ge 1 - 1/E[L]`, since :math:`E[L](\alpha, k) < 1 / (1 - \alpha)` for every ``k``.
    A tree has no such bound (``structure="tree"`` is refused; see :func:`chain_equivalent_alpha`).

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    mean_accepted_tokens : float or array_like
        Tokens per round, >= 1.
    structure : {"chain"}, optional
        The draft's structure (:data:`STRUCTURES`); only ``"chain"`` has
        the bound. Default ``"chain"``.

    Returns
    -------
    float or numpy.ndarray
        Alpha in [0, 1).

    Raises
    ------
    ValueError
        For ``structure="tree"`` or an unknown structure.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.drafters.alpha_lower_bound(2.28), 4)      # Spec-Bench SpS, a chain
    0.5614
    """
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {STRUCTURES}; got {structure!r}")
    if structure == "tree":
        raise ValueError("structure='tree': 1 - 1/E[L] bounds the acceptance rate of a chain only; a tree tries "
                         "several candidates per position. Use chain_equivalent_alpha for the chain-equivalent rate")
    e = check_tokens_per_round(mean_accepted_tokens, "mean_accepted_tokens")
    return to_output(1.0 - 1.0 / e, is_scalar_input(mean_accepted_tokens))


def spec_bench_table(model: str = "vicuna-7b") -> dict[str, Any]:
    """Spec-Bench's A100 leaderboard with the implied round cost and alpha bound of each method.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    model : {"vicuna-7b", "vicuna-13b"}, optional
        Which target's table. Default ``"vicuna-7b"``.

    Returns
    -------
    dict
        ``method`` (list of names, leaderboard order), ``mean_accepted_tokens``,
        ``speedup`` (overall), ``task_speedups`` (n_methods x 6, in
        :data:`SPEC_BENCH_TASKS` order), ``implied_round_cost``
        (:func:`implied_round_cost`), ``structure`` (list, "chain" or "tree",
        :data:`DRAFT_STRUCTURE`), ``chain_equivalent_alpha``
        (:func:`chain_equivalent_alpha`, every row) and ``alpha_lower_bound``
        (:func:`alpha_lower_bound` for chains, missing for trees, which have no floor); numpy arrays
        except ``method`` and ``structure``.

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.drafters.spec_bench_table()
    >>> t["method"][6], round(float(t["implied_round_cost"][6]), 3)     # PLD: c_d ~ 0
    ('PLD', 1.054)
    >>> import math
    >>> t["structure"][1], math.isnan(t["alpha_lower_bound"][1])   # EAGLE-2: a tree, no floor
    ('tree', True)
    """
    if model not in SPEC_BENCH_A100:
        raise ValueError(f"model must be one of {sorted(SPEC_BENCH_A100)}; got {model!r}")
    rows = SPEC_BENCH_A100[model].value
    names = list(rows)
    tasks = np.array([rows[m][0] for m in names], dtype=float)
    # the package's own transcription (tests/test_drafters.py checks its rows); the three formulas below are
    # those of implied_round_cost, chain_equivalent_alpha and alpha_lower_bound, which the tests compare
    acc = np.array([rows[m][1] for m in names], dtype=float)
    sp = np.array([rows[m][2] for m in names], dtype=float)
    structure = [DRAFT_STRUCTURE[m] for m in names]
    chain = np.array([st == "chain" for st in structure])
    equivalent = 1.0 - 1.0 / acc
    return {"method": names, "mean_accepted_tokens": acc, "speedup": sp, "task_speedups": tasks,
            "implied_round_cost": acc / sp, "structure": structure,
            "chain_equivalent_alpha": equivalent, "alpha_lower_bound": np.where(chain, equivalent, np.nan)}


#: Draft family of each Spec-Bench method (how its drafts are produced).
_FAMILY = {"SAMD[EAGLE2]": "head + retrieval", "EAGLE3": "head", "EAGLE2": "head", "EAGLE": "head",
           "Hydra": "head", "Medusa": "parallel heads", "Recycling": "n-gram / retrieval", "PLD": "n-gram",
           "REST": "n-gram / retrieval", "Lookahead": "n-gram (Jacobi)", "SpS": "separate small model"}


def draft_catalogue() -> list[dict[str, Any]]:
    """One row per draft method with its cited acceptance length and speedup and the implied round cost.

    Every Spec-Bench A100 method on Vicuna-7B (EAGLE-3 on Vicuna-13B, the only model it is reported
    for), plus DeepSeek-V3's MTP module (``1 + acceptance`` at the middle of the quoted 85-90 %).

    Defined in chapter "Drafts in today's engines".

    Returns
    -------
    list of dict
        Keys ``method``, ``family``, ``structure`` ("chain" or "tree"),
        ``target``, ``mean_accepted_tokens``, ``speedup``,
        ``implied_round_cost``, ``source``, ``status``.

    Examples
    --------
    >>> import specdec as sd
    >>> rows = sd.drafters.draft_catalogue()
    >>> [r["method"] for r in rows if r["family"] == "n-gram"]
    ['PLD']
    >>> round(rows[-1]["implied_round_cost"], 3)        # DeepSeek-V3 MTP
    1.042
    """
    rows = []
    for model, keep in (("vicuna-7b", None), ("vicuna-13b", {"EAGLE3"})):
        q = SPEC_BENCH_A100[model]
        for name, (_, acc, sp) in q.value.items():
            if keep is not None and name not in keep:
                continue
            rows.append({"method": name, "family": _FAMILY.get(name, "other"), "structure": DRAFT_STRUCTURE[name],
                         "target": model,
                         "mean_accepted_tokens": acc, "speedup": sp, "implied_round_cost": float(implied_round_cost(acc, sp)),
                         "source": q.source, "status": q.status})
    lo, hi = DEEPSEEK_V3_MTP.value["second_token_acceptance"]
    acc = float(mtp_expected_tokens(0.5 * (lo + hi)))
    sp = DEEPSEEK_V3_MTP.value["tps_factor"]
    rows.append({"method": "MTP (depth 1)", "family": "multi-token prediction", "structure": "chain",
                 "target": "DeepSeek-V3",
                 "mean_accepted_tokens": acc, "speedup": sp, "implied_round_cost": float(implied_round_cost(acc, sp)),
                 "source": DEEPSEEK_V3_MTP.source, "status": DEEPSEEK_V3_MTP.status})
    return rows


def mtp_expected_tokens(acceptance: ArrayLike) -> float | np.ndarray:
    """Tokens per round of a depth-1 multi-token-prediction draft (DeepSeek-V3 style).

    One extra token is predicted per step and accepted with probability
    ``acceptance``: ``E[L] = 1 + acceptance`` (:func:`specdec.acceptance.expected_tokens` with ``k = 1``).

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    acceptance : float or array_like
        Acceptance rate of the second token, in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        Tokens per step, in [1, 2].

    Examples
    --------
    >>> import specdec as sd
    >>> lo, hi = sd.drafters.DEEPSEEK_V3_MTP.value["second_token_acceptance"]
    >>> round(sd.drafters.mtp_expected_tokens(lo), 2), round(sd.drafters.mtp_expected_tokens(hi), 2)
    (1.85, 1.9)
    """
    a = check_probability(acceptance, "acceptance")
    return to_output(np.asarray(expected_tokens(a, 1)), is_scalar_input(acceptance))


@dataclass(frozen=True)
class MtpRound:
    """Tokens, cost and speedup of one MTP module reused for ``k`` draft tokens.

    Defined in chapter "Drafts in today's engines".

    Attributes
    ----------
    rates : numpy.ndarray
        Per-position acceptance rates, shape ``(k,)``.
    expected_tokens, cost, speedup : float
        ``E[L]``, ``k c_d + c_v`` in target steps, and their ratio.
    """

    rates: np.ndarray
    expected_tokens: float
    cost: float
    speedup: float


def mtp_reuse_round(first_accept: float, decay: float, k: int, c_draft: float, c_verify: float) -> MtpRound:
    r"""One depth-1 MTP module run ``k`` times in a chain, with an acceptance that falls per position.

    Position ``i`` is accepted (given the earlier ones) with :math:`a_i = a_1 \, d^{\,i-1}`, an
    **assumption** beyond the one cited fall (``VLLM_MTP_PER_POSITION``, ``k = 2``); ``E[L]`` from
    :func:`specdec.acceptance.expected_tokens_per_position`, cost :math:`k\,c_d + c_v(k)`.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    first_accept : float
        ``a_1``, in [0, 1] (DeepSeek-V3: 0.85 to 0.90).
    decay : float
        ``d``, the assumed factor per further position, in [0, 1].
    k : int
        Draft tokens per round, in [1, 64].
    c_draft : float
        One MTP pass, target decode steps, >= 0.
    c_verify : float
        The verification pass over ``k`` drafts, target decode steps, > 0.

    Returns
    -------
    MtpRound

    Examples
    --------
    With no fall (``d = 1``) and free drafting and verification this is the
    chain's closed form :math:`(1 - a^{k+1})/(1 - a)`:

    >>> import specdec as sd
    >>> r = sd.drafters.mtp_reuse_round(0.8, 1.0, 3, 0.0, 1.0)
    >>> round(r.expected_tokens, 4), round((1 - 0.8 ** 4) / 0.2, 4)
    (2.952, 2.952)
    """
    for value, name in ((first_accept, "first_accept"), (decay, "decay"), (c_draft, "c_draft"),
                        (c_verify, "c_verify")):
        if np.ndim(value) != 0:
            raise TypeError(f"{name} must be a single number")
    a1 = float(check_probability(first_accept, "first_accept"))
    d = float(check_probability(decay, "decay"))
    if np.ndim(k) != 0:
        raise TypeError("k must be a single whole number")
    kk = int(check_integer(k, "k", minimum=1, maximum=64))
    cd = float(check_nonnegative(c_draft, "c_draft", "(target decode steps)"))
    cv = float(check_positive(c_verify, "c_verify", "(target decode steps)"))
    rates = a1 * d ** np.arange(kk, dtype=float)
    tokens = float(expected_tokens_per_position(rates))
    cost = kk * cd + cv
    return MtpRound(rates=rates, expected_tokens=tokens, cost=cost, speedup=tokens / cost)



def medusa_rank_accept() -> np.ndarray:
    """Per-depth, per-rank acceptance of Vicuna 7B's Medusa heads (rows: heads 1-5, columns: ranks 1-5).

    ``specdec.drafts.drafters.MEDUSA_TOPK_VICUNA_7B`` through :func:`specdec.verification.trees.rank_accept_from_topk`.
    Defined in chapter "Token trees".

    Examples
    --------
    >>> import specdec as sd
    >>> sd.drafters.medusa_rank_accept().shape
    (5, 5)
    """
    return rank_accept_from_topk(np.array(MEDUSA_TOPK_VICUNA_7B.value))

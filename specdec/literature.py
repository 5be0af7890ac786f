"""Published numbers (inputs, each with its citation) and their recomputation.

Every number quoted from a paper, a leaderboard or an engine's source code
lives here as a :class:`Quoted` input that names its source (a key of
``SOURCES``, which records the arXiv version or the repository commit),
the table, figure, section or file it comes from, the copy it was read in,
and how it was checked for this book (``status``):

``"verified"``
    read in the work itself: the paper's PDF or a transcription of its
    arXiv HTML/TeX source (the copy is named in ``checked_in``), the
    authors' own repository at a recorded commit, or an engine's released
    source code;
``"secondary"``
    read only in somebody else's transcription or notes that quote the
    paper (``checked_in`` names them); very likely right, not checked
    against the paper itself;
``"unverified"``
    recalled but not found in any copy available while writing; the book
    labels such numbers *illustrative* and never calls them published.

Everything else (speedups, implied acceptance rates, rounding intervals,
the bonus-token error) is *computed* here from those inputs with the core
formulas of :mod:`specdec.acceptance` and :mod:`specdec.economics`; reading
an engine's counters is :mod:`specdec.estimation`. The chapters show the
computed values; the tests pin them against independent arithmetic.

Leviathan et al.'s results are numbered as in arXiv 2211.17192v2: the
expected tokens per run is their Equation (1), the walltime improvement
Theorem 3.8 (:func:`specdec.economics.improvement_factor`), the guaranteed gain
Corollary 3.9 (:func:`leviathan_minimum_speedup`) and the arithmetic
operations Theorem 3.11 (:func:`specdec.economics.operations_factor`).

Defined in chapters "Published results, recomputed" and "What serving
engines print".
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    check_broadcast,
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    describe,
    is_scalar_input,
    to_output,
)
from ._citations import SOURCES, Quoted, Source
from ._engine_quotes import SGLANG_DEFINITIONS, VLLM_COUNTERS, VLLM_DEFINITIONS, metric_readings, misread_alphas
from .acceptance import alpha_for_expected_tokens, expected_tokens
from .economics import improvement_factor, operations_factor, optimal_k, round_cost, speedup_from_costs

__all__ = [
    "Source", "Quoted", "SOURCES",
    "LEVIATHAN_TABLE1", "LEVIATHAN_C_BOUND", "LEVIATHAN_T5", "CHEN_CHINCHILLA",
    "MEDUSA_SPEEDUPS", "MEDUSA_SECTION_3_1", "MEDUSA_RATE_OVERHEAD",
    "EAGLE_CLAIMS", "MAGICDEC_CLAIM", "MAGICDEC_BLOG", "SPEC_BENCH_A100_EARLIER",
    "VLLM_COUNTERS", "VLLM_DEFINITIONS", "SGLANG_DEFINITIONS",
    "leviathan_table1", "leviathan_t5_expected", "leviathan_optimal_gamma", "leviathan_minimum_speedup",
    "chen_speedups_from_times", "implied_alpha", "implied_draft_cost", "chen_implied_alpha",
    "medusa_speedup", "medusa_check",
    "bonus_token_error",
    "metric_readings", "misread_alphas",
    "rounding_interval",
]

# --------------------------------------------------------------------------
# sources and quoted inputs
# --------------------------------------------------------------------------


#: Where Leviathan et al.'s numbers were read (every Leviathan value below was checked in both copies).
_LEVIATHAN_COPIES = (
    "the arXiv 2211.17192v2 PDF (page 1: 'arXiv:2211.17192v2 [cs.LG] 18 May 2023'; sha256 8967e2daab74178b"
    "8a73a6f0b0780c5cbb40f9f6dcbd5c456b24a89c128c52ed) and crops of its typeset tables (table-01.png .. "
    "table-04.png), GitHub para1lel/asabook at commit 327ef6f5c4300c18563664db1180c61d269f8322; and a "
    "transcription built from the paper's TeX source (search-tool index file id 61971968668; para1lel/asabook "
    "at 4391ce9e22b8712da368322d1a1879deea221946, docs/en/papers/speculative-decoding.md)")

# Leviathan et al., Table 1 (Section 3.5, "Choosing gamma"): operations and
# speed against plain decoding for six (alpha, gamma) cases at c = c_hat = 0,
# printed as "1.53X" etc. Caption: "The total number of arithmetic operations
# and the inference speed vs the baseline, for various values of gamma and
# alpha, assuming c = c_hat = 0."
LEVIATHAN_TABLE1 = {
    "alpha": Quoted((0.6, 0.7, 0.8, 0.8, 0.9, 0.9), "leviathan2023", "Table 1 (Section 3.5), column alpha",
                    "verified", _LEVIATHAN_COPIES, note="the six (alpha, gamma) cases of Table 1, with c = c_hat = 0"),
    "gamma": Quoted((2, 3, 2, 5, 2, 10), "leviathan2023", "Table 1 (Section 3.5), column gamma", "verified",
                    _LEVIATHAN_COPIES),
    "operations_printed": Quoted((1.53, 1.58, 1.23, 1.63, 1.11, 1.60), "leviathan2023",
                                 "Table 1 (Section 3.5), column Operations", "verified", _LEVIATHAN_COPIES,
                                 note="printed 1.53X, 1.58X, 1.23X, 1.63X, 1.11X, 1.60X (Theorem 3.11 at c_hat = 0)"),
    "speed_printed": Quoted((1.96, 2.53, 2.44, 3.69, 2.71, 6.86), "leviathan2023",
                            "Table 1 (Section 3.5), column Speed", "verified", _LEVIATHAN_COPIES,
                            note="printed 1.96X, 2.53X, 2.44X, 3.69X, 2.71X, 6.86X (Theorem 3.8 at c = 0)"),
}

#: Leviathan et al.'s bound on the cost coefficient c, which their own Table 4 exceeds (c = 0.11 for T5-large).
LEVIATHAN_C_BOUND = Quoted(
    0.05, "leviathan2023", "Section 3.3 (Walltime Improvement), the paragraph after Definition 3.7", "verified",
    _LEVIATHAN_COPIES,
    note="'In our experiments where M_q is typically a couple of orders of magnitude smaller than M_p, c was always "
         "less than 0.05 and often negligibly close to 0.' Table 4 (Appendix A.3), whose c values were 'estimated "
         "... based on profiler traces', lists 0.11 for T5-large (800M parameters, about 14 times smaller than the "
         "11B target, not two orders of magnitude).")


# Leviathan et al., Table 2 (T5-XXL 11B target, TPU-v4, batch 1): draft,
# temperature, gamma, alpha, measured speed; Table 4 (Appendix A.3): cost
# ratio c per draft and the "expected" (EXP) column. Row order:
# EnDe T=0 (small, base, large), EnDe T=1, CNNDM T=0, CNNDM T=1.
_T5_ROWS = (
    # task, draft, temp, gamma, alpha, c, expected (Table 4), measured (Table 2)
    ("EnDe", "T5-small", 0, 7, 0.75, 0.02, 3.2, 3.4),
    ("EnDe", "T5-base", 0, 7, 0.80, 0.04, 3.3, 2.8),
    ("EnDe", "T5-large", 0, 7, 0.82, 0.11, 2.5, 1.7),
    ("EnDe", "T5-small", 1, 7, 0.62, 0.02, 2.3, 2.6),
    ("EnDe", "T5-base", 1, 5, 0.68, 0.04, 2.4, 2.4),
    ("EnDe", "T5-large", 1, 3, 0.71, 0.11, 2.0, 1.4),
    ("CNNDM", "T5-small", 0, 5, 0.65, 0.02, 2.4, 3.1),
    ("CNNDM", "T5-base", 0, 5, 0.73, 0.04, 2.6, 3.0),
    ("CNNDM", "T5-large", 0, 3, 0.74, 0.11, 2.0, 2.2),
    ("CNNDM", "T5-small", 1, 5, 0.53, 0.02, 1.9, 2.3),
    ("CNNDM", "T5-base", 1, 3, 0.55, 0.04, 1.8, 2.2),
    ("CNNDM", "T5-large", 1, 3, 0.56, 0.11, 1.6, 1.7),
)
LEVIATHAN_T5 = {
    "task": Quoted(tuple(r[0] for r in _T5_ROWS), "leviathan2023", "Tables 2 (Section 4.1) and 4 (Appendix A.3)",
                   "verified", _LEVIATHAN_COPIES, note="the text writes 'CCN/DM', the tables 'CNNDM'"),
    "draft": Quoted(tuple(r[1] for r in _T5_ROWS), "leviathan2023", "Tables 2 and 4, column M_q", "verified",
                    _LEVIATHAN_COPIES),
    "temperature": Quoted(tuple(r[2] for r in _T5_ROWS), "leviathan2023", "Tables 2 and 4, column Temp", "verified",
                          _LEVIATHAN_COPIES),
    "gamma": Quoted(tuple(r[3] for r in _T5_ROWS), "leviathan2023", "Tables 2 and 4, column gamma", "verified",
                    _LEVIATHAN_COPIES),
    "alpha": Quoted(tuple(r[4] for r in _T5_ROWS), "leviathan2023", "Tables 2, 3 and 4, column alpha", "verified",
                    _LEVIATHAN_COPIES, note="T5-base EnDe at T = 0 is printed '0.8' in Tables 2 and 4, '0.80' in Table 3"),
    "c": Quoted(tuple(r[5] for r in _T5_ROWS), "leviathan2023", "Table 4 (Appendix A.3), column c", "verified",
                _LEVIATHAN_COPIES, note="0.02 (T5-small), 0.04 (T5-base), 0.11 (T5-large), 'estimated ... based on "
                                        "profiler traces' (Appendix A.3)"),
    "expected": Quoted(tuple(r[6] for r in _T5_ROWS), "leviathan2023", "Table 4 (Appendix A.3), column EXP",
                       "verified", _LEVIATHAN_COPIES),
    "measured": Quoted(tuple(r[7] for r in _T5_ROWS), "leviathan2023", "Table 2 (column Speed) = Table 4 (column EMP)",
                       "verified", _LEVIATHAN_COPIES),
}

# Leviathan et al., Table 3 (Section 4.2, "Empirical alpha Values"): alpha of
# every target/draft pair with argmax (T=0) and standard sampling (T=1),
# "evaluated ... on 10K tokens generated by Mp". Caption footnote: LaMDA's
# outputs always go through a top-40 filter, which affects standard sampling
# only. Rows in the table's order: (target, draft, alpha at T=0, alpha at T=1).
_LEVIATHAN_TABLE3_CHECKED = (
    "arXiv 2211.17192v2 (PDF whose first page reads 'arXiv:2211.17192v2 [cs.LG] 18 May 2023') and a crop of its "
    "typeset Table 3, both in the public repository para1lel/asabook at commit "
    "327ef6f5c4300c18563664db1180c61d269f8322 (docs/.vuepress/public/paper/speculative-decoding.pdf, "
    "docs/papers/speculative-decoding/table-03.png); the same 32 cells in that repository's transcription from "
    "the TeX source (docs/en/papers/speculative-decoding.md at commit 4391ce9e22b8712da368322d1a1879deea221946)")
_LEVIATHAN_TABLE3_ROWS = (
    ("GPT-like (97M)", "Unigram", 0.03, 0.03),
    ("GPT-like (97M)", "Bigram", 0.05, 0.05),
    ("GPT-like (97M)", "GPT-like (6M)", 0.88, 0.89),
    ("T5-XXL (EnDe)", "Unigram", 0.08, 0.07),
    ("T5-XXL (EnDe)", "Bigram", 0.20, 0.19),
    ("T5-XXL (EnDe)", "T5-small", 0.75, 0.62),
    ("T5-XXL (EnDe)", "T5-base", 0.80, 0.68),
    ("T5-XXL (EnDe)", "T5-large", 0.82, 0.71),
    ("T5-XXL (CNNDM)", "Unigram", 0.13, 0.08),
    ("T5-XXL (CNNDM)", "Bigram", 0.23, 0.16),
    ("T5-XXL (CNNDM)", "T5-small", 0.65, 0.53),
    ("T5-XXL (CNNDM)", "T5-base", 0.73, 0.55),
    ("T5-XXL (CNNDM)", "T5-large", 0.74, 0.56),
    ("LaMDA (137B)", "LaMDA (100M)", 0.61, 0.57),
    ("LaMDA (137B)", "LaMDA (2B)", 0.71, 0.71),
    ("LaMDA (137B)", "LaMDA (8B)", 0.75, 0.74),
)
LEVIATHAN_TABLE3 = {
    "target": Quoted(tuple(r[0] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023", "Table 3 (column Mp)",
                     "verified", _LEVIATHAN_TABLE3_CHECKED),
    "draft": Quoted(tuple(r[1] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023", "Table 3 (column Mq)",
                    "verified", _LEVIATHAN_TABLE3_CHECKED),
    "alpha_t0": Quoted(tuple(r[2] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023",
                       "Table 3 (column alpha, rows Smpl t=0: argmax sampling)", "verified", _LEVIATHAN_TABLE3_CHECKED),
    "alpha_t1": Quoted(tuple(r[3] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023",
                       "Table 3 (column alpha, rows Smpl t=1: standard sampling)", "verified",
                       _LEVIATHAN_TABLE3_CHECKED,
                       note="the caption's footnote: LaMDA's outputs always go through a top-40 filter, which has "
                            "no effect on argmax but some effect on standard sampling"),
}


def leviathan_table3(tolerance=0.01):
    """Leviathan et al.'s Table 3: alpha of every model pair at T = 0 and T = 1, with the direction of change.

    The values are printed to two decimals, so a difference of at most
    ``tolerance`` (default 0.01, the largest gap two roundings of equal
    values can show) cannot tell a change from none; ``direction`` is the
    sign of the printed difference and ``beyond_rounding`` says whether
    the difference is larger than ``tolerance``.

    Defined in chapter "The acceptance rate and the tokens it yields".

    Parameters
    ----------
    tolerance : float, optional
        Largest printed difference treated as indistinguishable from no
        change, in [0, 1]. Default 0.01.

    Returns
    -------
    dict
        ``target``, ``draft`` (lists of names, table order), ``alpha_t0``,
        ``alpha_t1``, ``change`` (``alpha_t1 - alpha_t0``, rounded to two
        decimals as printed differences are), ``direction`` (list of
        ``"falls"``, ``"flat"``, ``"rises"``) and ``beyond_rounding``
        (bool array).

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.literature.leviathan_table3()
    >>> {d: t["direction"].count(d) for d in ("falls", "flat", "rises")}
    {'falls': 12, 'flat': 3, 'rises': 1}
    >>> int(t["beyond_rounding"].sum())
    9
    """
    if np.ndim(tolerance) != 0:
        raise TypeError(f"tolerance must be a single number, got an array of shape {np.shape(tolerance)}")
    tol = float(check_probability(tolerance, "tolerance"))
    a0 = np.asarray(LEVIATHAN_TABLE3["alpha_t0"].value, dtype=float)
    a1 = np.asarray(LEVIATHAN_TABLE3["alpha_t1"].value, dtype=float)
    change = np.round(a1 - a0, 2)
    direction = ["falls" if d < 0 else "rises" if d > 0 else "flat" for d in change]
    return {"target": list(LEVIATHAN_TABLE3["target"].value), "draft": list(LEVIATHAN_TABLE3["draft"].value),
            "alpha_t0": a0, "alpha_t1": a1, "change": change, "direction": direction,
            "beyond_rounding": np.abs(change) > tol + 1e-12}


__all__ += ["LEVIATHAN_TABLE3", "leviathan_table3"]

# Chen et al. (2023), Table 1: Chinchilla 70B target, 4B draft, K = 4, batch 1.
_CHEN_TABLE1_COPIES = (
    "no copy of the paper itself was found; three third-party transcriptions that agree: a literal transcription "
    "of Table 1 extracted from the PDF (search-tool index file id 58850665321), reading notes of "
    "arXiv:2302.01318v1 (file id 60007856507) and research notes (file id 62503443262)")
_CHEN_DRAFT_COPIES = (
    "no copy of the paper itself; notes quoting Section 6 (file ids 62503443262, 60007856507, 59497550818) and a "
    "section index of an HTML copy that places the sentence in Section 6, Results (file id 62246815934)")
CHEN_CHINCHILLA = {
    "rows": Quoted(("XSum, nucleus", "XSum, greedy", "HumanEval, nucleus"), "chen2023", "Table 1 (Section 6.1)",
                   "secondary", _CHEN_TABLE1_COPIES),
    "baseline_ms": Quoted(14.1, "chen2023", "Table 1 (Section 6.1), mean token time of the ArS rows", "secondary",
                          _CHEN_TABLE1_COPIES),
    "speculative_ms": Quoted((7.52, 7.00, 5.73), "chen2023", "Table 1 (Section 6.1), mean token time of the SpS rows",
                             "secondary", _CHEN_TABLE1_COPIES),
    "speedup_printed": Quoted((1.92, 2.01, 2.46), "chen2023", "Table 1 (Section 6.1), column speed up", "secondary",
                              _CHEN_TABLE1_COPIES,
                              note="14.1 / 7.52 does not round to the printed 1.92 (the other two rows agree with "
                                   "their times); all three copies print both numbers, so the copies cannot tell "
                                   "which is wrong, or whether 1.92 is a mean of per-sample ratios"),
    "k": Quoted(4, "chen2023", "Table 1 (Section 6.1): batch size 1 and K = 4", "secondary", _CHEN_TABLE1_COPIES),
    "draft_ms": Quoted(1.8, "chen2023", "Section 6 (Results): a 4B-parameter, 8-layer draft sampling at 1.8 ms per "
                       "token on the same 16 TPU v4 as the target", "secondary", _CHEN_DRAFT_COPIES,
                       note="one blog copy attributes 1.8 ms to a 7B draft; the notes agree it is the 4B draft (a 7B "
                            "candidate is discussed in Section 5, Choice of draft models)"),
    "abstract_speedup": Quoted((2.0, 2.5), "chen2023", "Abstract", "verified",
                               "the arXiv abstract as shown on huggingface.co/papers/2302.01318 (documentation index)",
                               note="'achieving a 2-2.5x decoding speedup in a distributed setup'; the abstract also says "
                                    "the latency of parallel scoring of short continuations 'is comparable to that of "
                                    "sampling a single token from the larger target model'"),
}

_MEDUSA_TABLE1_COPIES = ("two independent transcriptions of Table 1 that agree (search-tool index file ids 59153731412 "
                         "and 65722840415); the paper's own transcription (file id 69112891374) renders the table as "
                         "an image")

#: Medusa-2 speedups per model: Table 1's S_Medusa column (not Figure 3(b), which is per MT-bench category).
MEDUSA_SPEEDUPS = Quoted({"Vicuna-7B": 2.83, "Zephyr-7B": 2.66, "Vicuna-13B": 2.83, "Vicuna-33B": 2.35},
                         "cai2024medusa", "Table 1 ('Comparison of various Medusa-2 models'), column S_Medusa",
                         "secondary", _MEDUSA_TABLE1_COPIES,
                         note="the Vicuna-7B and Vicuna-13B values (2.83x) are also in Section 3.1's text, read in "
                              "a transcription of v3 from its TeX source (MEDUSA_SECTION_3_1)")

#: Medusa-1 (frozen backbone) and Medusa-2 (backbone fine-tuned with the heads) in Section 3.1's text.
MEDUSA_SECTION_3_1 = Quoted({"Vicuna-7B": {"Medusa-1": 2.18, "Medusa-2": 2.83},
                             "Vicuna-13B": {"Medusa-1": 2.33, "Medusa-2": 2.83}},
                            "cai2024medusa", "Section 3.1 (speedups over the default Hugging Face implementation, "
                            "Vicuna v1.5, batch size 1)", "verified",
                            "a transcription of arXiv 2401.10774v3 from its TeX source (search-tool index file id "
                            "69112891374)",
                            note="Medusa-2 fine-tunes the backbone, so its speedup is against a changed model (Table 1 "
                                 "reports the quality change); its sampling mode, typical acceptance, is not exact")

MEDUSA_RATE_OVERHEAD = Quoted({"Vicuna-7B": (3.47, 1.22), "Zephyr-7B": (3.14, 1.18), "Vicuna-13B": (3.51, 1.23),
                               "Vicuna-33B": (3.01, 1.27)},
                              "cai2024medusa", "Table 1, columns acceleration rate and overhead (Medusa-2)",
                              "secondary", _MEDUSA_TABLE1_COPIES,
                              note="overhead: time of one Medusa step (heads and a tree of candidates) over one plain "
                                   "decoding step")

EAGLE_CLAIMS = Quoted({"speedup_llama2_chat_70b": (2.7, 3.5)}, "li2024eagle", "Abstract", "verified",
                      "a transcription of the arXiv 2401.15077v3 HTML (search-tool index file id 58869229422)",
                      note="'For LLaMA2-Chat 70B, EAGLE achieved a latency speedup ratio of 2.7x-3.5x, doubled "
                           "throughput, while maintaining the distribution of the generated text.'")

MAGICDEC_CLAIM = Quoted({"speedup": 2.51, "model": "Llama3.1-8B", "batch": (32, 256)}, "chen2024magicdec",
                        "Abstract of v4", "verified",
                        "arxiv.org/abs/2408.11049v4 (a copy saved 2025-03-27, search-tool index file id 4724328028)",
                        note="'For moderate to long sequences, we demonstrate up to 2.51x speedup for Llama3.1-8B when "
                             "serving batch sizes ranging from 32 to 256 on various types of hardware and tasks.'")

#: MagicDec's earlier figures (1.84x on 8 A100): the authors' blog, not the v4 abstract.
MAGICDEC_BLOG = Quoted({"speedup": 1.84, "model": "LLaMA-3.1-8B", "draft": "self-speculation (StreamingLLM KV)",
                        "hardware": "8 x A100", "batch": 32, "prefill": 100_000, "llama2_7b_32k_speedup": 2.0},
                       "magicdec-blog", "Table 2 ('End-to-end Speculative Decoding Speedups for Various Target-Draft "
                       "pairs on 8xA100s') and the sentence introducing it", "verified",
                       "GitHub Infini-AI-Lab/MagicDec at commit 09cd671c01bc87f7570d3243c46200a96f0fc0b4, "
                       "pages/index.html",
                       note="'speedups of up to 2x for LLaMA-2-7B-32K and 1.84x for LLaMA-3.1-8B on 8 A100 GPUs'; the "
                            "same numbers are in an earlier arXiv abstract whose version (v2 or v3) could not be "
                            "confirmed; v1's abstract has no numbers")

#: Spec-Bench's A100 leaderboard for Vicuna-7B-v1.3 before its 2025 update: (#mean accepted tokens, overall speedup).
SPEC_BENCH_A100_EARLIER = Quoted(
    {"EAGLE": (3.61, 2.29), "Hydra": (3.24, 2.09), "Medusa": (2.32, 1.78), "PLD": (1.73, 1.59), "SpS": (2.28, 1.49),
     "REST": (1.82, 1.48), "Lookahead": (1.66, 1.27)},
    "specbench-repo", "Leaderboard.md, 'Leaderboard on A100', Vicuna-7B-v1.3 (single A100 80GB with 64 CPU cores, "
    "PyTorch 2.0.1, CUDA 11.4, greedy decoding, FP16, batch size 1): #Mean Accepted Tokens and Overall", "verified",
    "GitHub hemingkx/Spec-Bench, Leaderboard.md at commit b8baa2a0eef58dc536cda59628c6d651c286379e (2024-04-22), "
    "unchanged up to d5c4c58f41af3c91f93152654425e26b40664e3d (2025-03-20)",
    note="replaced at fd2c1cd7d2201ef71db4c5f4e455008f017967bf (2025-04-22, PyTorch 2.5.1) by the table in "
         "specdec.drafters.SPEC_BENCH_A100; the tokens per step include the target's own token; the speedup is "
         "a mean of per-sample throughput ratios against Hugging Face decoding, prefill included")

def _t5_column(name: str) -> np.ndarray:
    return np.asarray(LEVIATHAN_T5[name].value)


# --------------------------------------------------------------------------
# Leviathan et al.
# --------------------------------------------------------------------------


def leviathan_table1(c=0.0, c_hat=0.0, decimals=2):
    """Recompute Leviathan et al.'s Table 1: speed and arithmetic for six (alpha, gamma) cases.

    Speed is :func:`specdec.economics.improvement_factor` (their Theorem 3.8) and
    operations :func:`specdec.economics.operations_factor` (Theorem 3.11), both at the
    table's ``c = c_hat = 0`` unless given, beside the printed columns
    (``LEVIATHAN_TABLE1``, read in arXiv 2211.17192v2).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    c : float, optional
        Draft-to-target step time ratio, >= 0. Default 0 (the table's).
    c_hat : float, optional
        Draft-to-target arithmetic ratio, >= 0. Default 0.
    decimals : int, optional
        Decimals of the printed values, in [0, 6]. Default 2.

    Returns
    -------
    dict
        ``alpha``, ``gamma`` (the cases), ``speed`` and ``operations``
        (ndarrays, unitless factors relative to plain decoding),
        ``speed_printed`` and ``operations_printed`` (the table's values,
        meaningful at ``c = c_hat = 0``), and ``speed_matches`` /
        ``operations_matches`` (bool arrays: our value rounds to the printed one).

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.literature.leviathan_table1()
    >>> [round(float(x), 2) for x in t["speed"]]
    [1.96, 2.53, 2.44, 3.69, 2.71, 6.86]
    >>> [round(float(x), 2) for x in t["operations"]]
    [1.53, 1.58, 1.23, 1.63, 1.11, 1.6]
    >>> bool(t["speed_matches"].all() and t["operations_matches"].all())
    True
    """
    c = float(check_nonnegative(c, "c", "(ratio of draft to target step time)"))
    c_hat = float(check_nonnegative(c_hat, "c_hat", "(ratio of draft to target arithmetic)"))
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=6))
    alpha = np.asarray(LEVIATHAN_TABLE1["alpha"].value, dtype=float)
    gamma = np.asarray(LEVIATHAN_TABLE1["gamma"].value, dtype=np.int64)
    speed = np.asarray(improvement_factor(alpha, gamma, c))
    operations = np.asarray(operations_factor(alpha, gamma, c_hat))
    speed_printed = np.asarray(LEVIATHAN_TABLE1["speed_printed"].value, dtype=float)
    operations_printed = np.asarray(LEVIATHAN_TABLE1["operations_printed"].value, dtype=float)
    return {
        "alpha": alpha,
        "gamma": gamma,
        "speed": speed,
        "operations": operations,
        "speed_printed": speed_printed,
        "operations_printed": operations_printed,
        "speed_matches": np.abs(np.round(speed, d) - speed_printed) < 1e-9,
        "operations_matches": np.abs(np.round(operations, d) - operations_printed) < 1e-9,
    }


def rounding_interval(alpha, k, c, alpha_half_width=0.005, c_half_width=0.005):
    """Range of Theorem 3.8's improvement factor over inputs printed to two decimals.

    The factor increases with ``alpha`` and decreases with ``c``, so its
    extremes over the box ``alpha +- alpha_half_width``, ``c +- c_half_width``
    sit at opposite corners. A printed value is *consistent* with the
    printed inputs when it lies in this interval widened by its own rounding.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Printed acceptance rates in [0, 1].
    k : int or array_like of int
        Draft tokens per round (their gamma), >= 1.
    c : float or array_like
        Printed draft-to-target cost ratios, >= 0.
    alpha_half_width, c_half_width : float, optional
        Half the last printed digit, >= 0. Default 0.005 each.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(low, high)`` improvement factors.

    Examples
    --------
    >>> import specdec as sd
    >>> low, high = sd.literature.rounding_interval(0.71, 3, 0.11)
    >>> round(low, 3), round(high, 3)
    (1.898, 1.971)
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    cc = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    ha = float(check_nonnegative(alpha_half_width, "alpha_half_width"))
    hc = float(check_nonnegative(c_half_width, "c_half_width"))
    low = improvement_factor(np.clip(a - ha, 0.0, 1.0), kk, cc + hc)
    high = improvement_factor(np.clip(a + ha, 0.0, 1.0), kk, np.maximum(cc - hc, 0.0))
    scalar = is_scalar_input(alpha, k, c)
    return to_output(low, scalar), to_output(high, scalar)


def leviathan_t5_expected(printed_decimals=1):
    """Recompute the "expected" column of Leviathan et al.'s T5-XXL results (Table 4).

    Uses the printed alpha, gamma and c of each row in Theorem 3.8 and
    compares with the printed expected and measured speedups.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    printed_decimals : int, optional
        Decimals of the printed speedups, >= 0. Default 1.

    Returns
    -------
    dict
        ``computed`` (Theorem 3.8 at the printed inputs), ``low``/``high``
        (its range over the inputs' rounding), ``printed`` (Table 4's EXP),
        ``measured`` (Table 2), ``rounds_to_printed`` (bool: computed rounds
        to the printed value), ``consistent`` (bool: printed within the
        rounding range, widened by half a printed digit) and the inputs
        ``task``, ``draft``, ``temperature``, ``gamma``, ``alpha``, ``c``.

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.leviathan_t5_expected()
    >>> round(float(r["computed"][0]), 3), float(r["printed"][0])
    (3.157, 3.2)
    """
    d = int(check_integer(printed_decimals, "printed_decimals", minimum=0, maximum=6))
    alpha, gamma, c = _t5_column("alpha"), _t5_column("gamma"), _t5_column("c")
    computed = improvement_factor(alpha, gamma, c)
    low, high = rounding_interval(alpha, gamma, c)
    printed = _t5_column("expected").astype(float)
    half = 0.5 * 10.0 ** (-d)
    return {
        "task": _t5_column("task"), "draft": _t5_column("draft"), "temperature": _t5_column("temperature"),
        "gamma": gamma, "alpha": alpha, "c": c,
        "computed": computed, "low": low, "high": high,
        "printed": printed, "measured": _t5_column("measured").astype(float),
        "rounds_to_printed": np.abs(np.round(computed, d) - printed) < 1e-9,
        "consistent": (printed >= low - half - 1e-12) & (printed <= high + half + 1e-12),
    }


def leviathan_optimal_gamma(alpha, c, k_max=64):
    """Optimal gamma for Leviathan et al.'s walltime model (their Figure 3).

    Maximizes Theorem 3.8's improvement factor over ``gamma = 1 .. k_max``,
    i.e. :func:`specdec.economics.optimal_k` with ``c_draft = c`` and ``c_verify = 1``.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    c : float or array_like
        Draft-to-target step time ratio, >= 0.
    k_max : int, optional
        Largest gamma considered, whole number >= 1. Default 64.

    Returns
    -------
    int or numpy.ndarray of int
        The best gamma (broadcast shape of ``alpha`` and ``c``).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.literature.leviathan_optimal_gamma(0.8, 0.05)
    8
    """
    check_nonnegative(c, "c", "(ratio of draft to target step time)")
    return optimal_k(alpha, c, 1.0, k_max)


def leviathan_minimum_speedup(alpha, c):
    """Leviathan et al.'s Corollary 3.9: with alpha > c, gamma = 1 already gives (1 + alpha)/(1 + c).

    Theorem 3.8 at ``gamma = 1`` is exactly ``(1 + alpha) / (1 + c)``, which
    exceeds 1 whenever ``alpha > c``; the optimal gamma can only do better
    (their Corollary 3.9, Section 3.3 of arXiv 2211.17192v2).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    c : float or array_like
        Draft-to-target step time ratio, >= 0.

    Returns
    -------
    float or numpy.ndarray
        The guaranteed improvement factor.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.literature.leviathan_minimum_speedup(0.6, 0.1), 4)
    1.4545
    """
    a = check_probability(alpha, "alpha")
    cc = check_nonnegative(c, "c", "(ratio of draft to target step time)")
    check_broadcast(alpha=a, c=cc)
    return to_output((1.0 + a) / (1.0 + cc), is_scalar_input(alpha, c))


# --------------------------------------------------------------------------
# Chen et al.
# --------------------------------------------------------------------------


def chen_speedups_from_times(decimals=2):
    """Speedups implied by Chen et al.'s printed mean token times, beside the printed speedups.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    decimals : int, optional
        Decimals of the printed speedups, >= 0. Default 2.

    Returns
    -------
    dict
        ``rows`` (labels), ``from_times`` (14.1 ms / speculative ms),
        ``printed``, ``difference`` (printed - from_times) and
        ``matches`` (bool: from_times rounds to printed).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.chen_speedups_from_times()
    >>> [round(float(x), 3) for x in r["from_times"]]
    [1.875, 2.014, 2.461]
    >>> r["matches"].tolist()
    [False, True, True]
    """
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=6))
    base = float(CHEN_CHINCHILLA["baseline_ms"].value)
    spec = np.asarray(CHEN_CHINCHILLA["speculative_ms"].value, dtype=float)
    printed = np.asarray(CHEN_CHINCHILLA["speedup_printed"].value, dtype=float)
    ratio = base / spec
    return {
        "rows": np.asarray(CHEN_CHINCHILLA["rows"].value),
        "from_times": ratio,
        "printed": printed,
        "difference": printed - ratio,
        "matches": np.abs(np.round(ratio, d) - printed) < 1e-9,
    }


def implied_alpha(speedup, k, c_draft, c_verify=1.0):
    """The acceptance rate that makes the i.i.d. model reproduce a measured speedup.

    Solves ``E[L](alpha, k) = speedup * (k * c_draft + c_verify)`` for alpha
    (E[L] is increasing in alpha, so the answer is unique), using
    :func:`specdec.acceptance.alpha_for_expected_tokens`.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    speedup : float or array_like
        Measured speedup over plain decoding, > 0.
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float or array_like, optional
        Verification pass as a fraction of a target step, > 0. Default 1.

    Returns
    -------
    float or numpy.ndarray
        alpha in [0, 1].

    Raises
    ------
    ValueError
        If the required E[L] lies outside ``[1, k + 1]`` (no alpha can
        produce that speedup under these costs).

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.literature.implied_alpha(2.0, 4, 0.1), 4)
    0.7051
    """
    s = check_positive(speedup, "speedup", "(ratio)")
    kk = check_integer(k, "k", minimum=1)
    cd = check_nonnegative(c_draft, "c_draft", "(fraction of a target step)")
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    shape = check_broadcast(speedup=s, k=kk, c_draft=cd, c_verify=cv)
    needed = np.broadcast_to(s * round_cost(kk, cd, cv), shape)
    bad = (needed < 1.0) | (needed > np.broadcast_to(kk, shape) + 1.0)
    if np.any(bad):
        val = np.broadcast_to(s, shape)[bad].flat[0]
        raise ValueError(f"speedup {describe(val)} needs E[L] outside [1, k + 1] at these costs; "
                         "no acceptance rate reproduces it")
    return to_output(alpha_for_expected_tokens(needed, kk), is_scalar_input(speedup, k, c_draft, c_verify))


def implied_draft_cost(speedup, alpha, k, c_verify=1.0):
    r"""The draft cost at which the i.i.d. model reproduces a measured speedup.

    Solves :math:`S = E[L](\alpha, k) / (k\,c_d + c_v)` for :math:`c_d`:

    .. math:: c_d = \frac{E[L](\alpha, k) / S - c_v}{k}

    With ``c_verify = 1`` this inverts Leviathan et al.'s Theorem 3.8 for
    their ``c``: the cost ratio a measured walltime improvement implies at a
    printed alpha and gamma.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    speedup : float or array_like
        Measured speedup over plain decoding, > 0.
    alpha : float or array_like
        Acceptance rate in [0, 1].
    k : int or array_like of int
        Draft tokens per round (their gamma), >= 1.
    c_verify : float or array_like, optional
        Verification pass as a fraction of a target step, > 0. Default 1.

    Returns
    -------
    float or numpy.ndarray
        ``c_draft`` as a fraction of one target step (>= 0).

    Raises
    ------
    ValueError
        If the speedup exceeds ``E[L] / c_verify``: even free drafts could
        not produce it, so no draft cost reproduces it.

    Examples
    --------
    >>> import specdec as sd
    >>> c = sd.literature.implied_draft_cost(2.0, 0.8, 4)
    >>> round(c, 4), round(sd.improvement_factor(0.8, 4, c), 12)
    (0.1702, 2.0)
    """
    s = check_positive(speedup, "speedup", "(ratio)")
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    cv = check_positive(c_verify, "c_verify", "(fraction of a target step)")
    shape = check_broadcast(speedup=s, alpha=a, k=kk, c_verify=cv)
    c = np.broadcast_to((expected_tokens(a, kk) / s - cv) / kk, shape)
    if np.any(c < 0):
        val = np.broadcast_to(s, shape)[c < 0].flat[0]
        raise ValueError(f"speedup {describe(val)} exceeds E[L] / c_verify at this alpha and k: even free drafts "
                         "could not produce it, so no draft cost reproduces it")
    return to_output(c, is_scalar_input(speedup, alpha, k, c_verify))


def chen_implied_alpha(c_draft=None, c_verify=1.0, use="printed"):
    """Implied alpha for each row of Chen et al.'s Table 1 under the i.i.d. model.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    c_draft : float, optional
        Draft step cost as a fraction of a target step, >= 0. Default:
        1.8 ms / 14.1 ms (the 4B draft's time per token and the target's,
        Section 6 and Table 1; status secondary, see ``CHEN_CHINCHILLA``).
    c_verify : float, optional
        Verification pass as a fraction of a target step, > 0. Default 1:
        the idealization that scoring K tokens costs one target step (the
        paper's abstract calls the two latencies "comparable"). The implied
        alpha is conditional on it: a costlier pass needs a higher alpha for
        the same speedup.
    use : {"printed", "times"}
        Solve from the printed speedups or from the ratio of printed times.

    Returns
    -------
    numpy.ndarray
        One alpha per row (XSum nucleus, XSum greedy, HumanEval nucleus).

    Examples
    --------
    >>> import specdec as sd
    >>> [round(float(a), 3) for a in sd.literature.chen_implied_alpha()]
    [0.724, 0.748, 0.851]
    """
    if use not in ("printed", "times"):
        raise ValueError(f"use must be 'printed' or 'times'; got {describe(use)}")
    if c_draft is None:
        c_draft = float(CHEN_CHINCHILLA["draft_ms"].value) / float(CHEN_CHINCHILLA["baseline_ms"].value)
    r = chen_speedups_from_times()
    s = r["printed"] if use == "printed" else r["from_times"]
    return np.asarray(implied_alpha(s, int(CHEN_CHINCHILLA["k"].value), c_draft, c_verify))


# --------------------------------------------------------------------------
# Medusa and per-position acceptance
# --------------------------------------------------------------------------


def medusa_speedup(acceleration_rate, overhead):
    """Medusa's decomposition: speedup = acceleration rate / overhead.

    The acceleration rate is tokens per target forward pass (our E[L]); the
    overhead is one Medusa step's time relative to a plain decoding step (our
    ``k * c_draft + c_verify`` folded into one number).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    acceleration_rate : float or array_like
        Mean tokens per step, >= 1.
    overhead : float or array_like
        Step time relative to plain decoding, > 0.

    Returns
    -------
    float or numpy.ndarray
        Speedup over plain decoding.

    Examples
    --------
    >>> import specdec as sd
    >>> round(sd.literature.medusa_speedup(3.0, 1.2), 3)
    2.5
    """
    r = check_positive(acceleration_rate, "acceleration_rate", "(tokens per step)")
    if np.any(r < 1.0):
        raise ValueError(f"acceleration_rate must be >= 1 token per step; got {describe(r[r < 1.0].flat[0])}")
    o = check_positive(overhead, "overhead", "(relative step time)")
    check_broadcast(acceleration_rate=r, overhead=o)
    return to_output(r / o, is_scalar_input(acceleration_rate, overhead))


def medusa_check(decimals=2):
    """Check Medusa's identity, speedup = acceleration rate / overhead, on their Table 1.

    The four Medusa-2 rows of Table 1 (``MEDUSA_RATE_OVERHEAD`` and
    ``MEDUSA_SPEEDUPS``, status secondary).

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    decimals : int, optional
        Decimals of the printed speedups. Default 2.

    Returns
    -------
    dict
        ``models``, ``rate``, ``overhead``, ``computed`` (rate / overhead),
        ``speedup`` (Table 1, column S_Medusa), ``difference`` (speedup -
        computed), ``low`` / ``high`` (rate / overhead over the inputs'
        rounding, half a unit of their last printed digit) and ``consistent``
        (bool: the printed speedup lies in that range widened by its own
        rounding).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.medusa_check()
    >>> round(float(r["computed"][0]), 3)
    2.844
    >>> r["consistent"].tolist()
    [True, True, False, False]
    """
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=6))
    pairs = MEDUSA_RATE_OVERHEAD.value
    models = list(pairs)
    rate = np.array([pairs[m][0] for m in models])
    over = np.array([pairs[m][1] for m in models])
    printed = np.array([MEDUSA_SPEEDUPS.value[m] for m in models])
    computed = medusa_speedup(rate, over)
    half = 0.5 * 10.0 ** (-d)          # the inputs and the speedup are all printed to d decimals
    low, high = (rate - half) / (over + half), (rate + half) / (over - half)
    return {"models": np.array(models), "rate": rate, "overhead": over, "computed": computed,
            "speedup": printed, "difference": printed - computed, "low": low, "high": high,
            "consistent": (printed >= low - half - 1e-12) & (printed <= high + half + 1e-12)}


# --------------------------------------------------------------------------
# the bonus-token error
# --------------------------------------------------------------------------


def bonus_token_error(alpha, k, c_draft, c_verify=1.0):
    """How much a calculator that omits the target's token understates the speedup.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    alpha : float or array_like
        Acceptance rate in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.
    c_draft : float or array_like
        One draft step as a fraction of a target step, >= 0.
    c_verify : float or array_like, optional
        Verification pass as a fraction of a target step, > 0. Default 1.

    Returns
    -------
    dict
        ``correct`` (speedup with E[L]), ``without_bonus`` (with E[L] - 1),
        ``understatement`` (correct - without_bonus, = 1 / round cost),
        ``ratio`` (without_bonus / correct).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.bonus_token_error(0.8, 5, 0.05)
    >>> round(r["correct"], 3), round(r["without_bonus"], 3)
    (2.951, 2.151)
    """
    correct = speedup_from_costs(alpha, k, c_draft, c_verify)
    cost = np.asarray(round_cost(k, c_draft, c_verify))
    scalar = is_scalar_input(alpha, k, c_draft, c_verify)
    wrong = np.asarray(correct) - 1.0 / cost
    return {
        "correct": correct,
        "without_bonus": to_output(wrong, scalar),
        "understatement": to_output(1.0 / cost, scalar),
        "ratio": to_output(wrong / np.asarray(correct), scalar),
    }

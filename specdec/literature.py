"""Published numbers (inputs, each with its citation) and their recomputation.

Every number quoted from a paper lives here as a :class:`Quoted` input that
names its source, the table/figure/section it comes from and how it was
checked for this book (``status``):

``"verified"``
    read in a copy of the paper's own table or abstract (a transcription or
    the arXiv abstract), cited with where it was read;
``"secondary"``
    read in a secondary summary of the paper that quotes the table, not in
    the paper itself; treat it as very likely but not checked against the PDF;
``"unverified"``
    recalled but not found in any copy available while writing; the book
    labels such numbers *illustrative* and never calls them published.

Everything else (speedups, implied acceptance rates, rounding intervals,
the bonus-token error) is *computed* here from those inputs with the core
formulas of :mod:`specdec.acceptance` and :mod:`specdec.economics`; reading
an engine's counters is :mod:`specdec.estimation`. The chapters glue the
computed values; the tests pin them against independent arithmetic.

Defined in chapters "Published results, recomputed" and "What serving
engines print".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
from .acceptance import (
    alpha_for_expected_tokens,
    draft_acceptance_rate,
    expected_tokens,
    mean_acceptance_length,
)
from .economics import improvement_factor, operations_factor, optimal_k, round_cost, speedup_from_costs
from .estimation import EngineReading

__all__ = [
    "Source", "Quoted", "SOURCES",
    "LEVIATHAN_TABLE1", "LEVIATHAN_T5", "CHEN_CHINCHILLA", "MEDUSA_SPEEDUPS", "MEDUSA_RATE_OVERHEAD",
    "EAGLE_CLAIMS", "MAGICDEC_CLAIM", "VLLM_COUNTERS",
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


@dataclass(frozen=True)
class Source:
    """A cited work (the references page lists the same fields).

    Defined in chapter "Published results, recomputed".
    """

    key: str
    authors: str
    title: str
    venue: str
    arxiv: str = ""


@dataclass(frozen=True)
class Quoted:
    """One number (or row of numbers) quoted from a source, with where and how it was checked.

    ``value`` is the number as printed (a float, or a tuple for a row);
    ``where`` names the table, figure or section; ``status`` is
    ``"verified"``, ``"secondary"`` or ``"unverified"`` (see the module
    docstring); ``checked_in`` says what copy it was read in.

    Defined in chapter "Published results, recomputed".
    """

    value: Any
    source: str
    where: str
    status: str
    checked_in: str = ""
    note: str = ""

    def __post_init__(self):
        if self.status not in ("verified", "secondary", "unverified"):
            raise ValueError(f"status must be 'verified', 'secondary' or 'unverified'; got {describe(self.status)}")
        if self.source not in SOURCES:
            raise ValueError(f"source must be a key of SOURCES; got {describe(self.source)}")


SOURCES: dict[str, Source] = {
    "leviathan2023": Source(
        "leviathan2023", "Yaniv Leviathan, Matan Kalman, Yossi Matias",
        "Fast Inference from Transformers via Speculative Decoding", "ICML 2023", "2211.17192"),
    "chen2023": Source(
        "chen2023", "Charlie Chen, Sebastian Borgeaud, Geoffrey Irving, Jean-Baptiste Lespiau, Laurent Sifre, John Jumper",
        "Accelerating Large Language Model Decoding with Speculative Sampling", "arXiv preprint 2023", "2302.01318"),
    "cai2024medusa": Source(
        "cai2024medusa", "Tianle Cai, Yuhong Li, Zhengyang Geng, Hongwu Peng, Jason D. Lee, Deming Chen, Tri Dao",
        "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads", "ICML 2024", "2401.10774"),
    "li2024eagle": Source(
        "li2024eagle", "Yuhui Li, Fangyun Wei, Chao Zhang, Hongyang Zhang",
        "EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty", "ICML 2024", "2401.15077"),
    "chen2024magicdec": Source(
        "chen2024magicdec", "Jian Chen, Vashisth Tiwari, Ranajoy Sadhukhan, Zhuoming Chen, and others",
        "MagicDec: Breaking the Latency-Throughput Tradeoff for Long Context Generation with Speculative Decoding",
        "arXiv preprint (version 4 cited)", "2408.11049"),
    "vllm-metrics": Source(
        "vllm-metrics", "vLLM project; NVIDIA NeMo AutoModel and AIPerf documentation",
        "Speculative decoding metrics (Prometheus counters spec_decode_num_drafts / num_draft_tokens / "
        "num_accepted_tokens) and their derived acceptance length and rate",
        "online documentation (docs.vllm.ai; docs.nvidia.com/aiperf; docs.nvidia.com/nemo/automodel)"),
}

_SECONDARY_T5 = ("two independent secondary summaries of the paper quoting Tables 2-4 "
                 "(study notes in public repositories); not checked against the PDF")

# Leviathan et al., Table 1: (alpha, gamma) cases at c = c_hat = 0. The
# cases are those listed in the paper's Table 1 (as given in this book's
# issue); two of the printed "operations" cells were seen quoted in a
# secondary summary (Section 3.5 discussion of Table 1). The printed speed
# column could not be checked, so the book shows our computed values as ours.
LEVIATHAN_TABLE1 = {
    "alpha": Quoted((0.6, 0.7, 0.8, 0.8, 0.9, 0.9), "leviathan2023", "Table 1 (column alpha)", "unverified",
                    note="the six (alpha, gamma) cases of Table 1, with c = c_hat = 0"),
    "gamma": Quoted((2, 3, 2, 5, 2, 10), "leviathan2023", "Table 1 (column gamma)", "unverified"),
    "operations_printed": Quoted({(0.8, 5): 1.63, (0.9, 2): 1.11}, "leviathan2023", "Table 1 (column operations)",
                                 "secondary", _SECONDARY_T5,
                                 note="only these two cells were seen; the others are not quoted here"),
}

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
    "task": Quoted(tuple(r[0] for r in _T5_ROWS), "leviathan2023", "Table 2", "secondary", _SECONDARY_T5),
    "draft": Quoted(tuple(r[1] for r in _T5_ROWS), "leviathan2023", "Table 2", "secondary", _SECONDARY_T5),
    "temperature": Quoted(tuple(r[2] for r in _T5_ROWS), "leviathan2023", "Table 2", "secondary", _SECONDARY_T5),
    "gamma": Quoted(tuple(r[3] for r in _T5_ROWS), "leviathan2023", "Table 2", "secondary", _SECONDARY_T5),
    "alpha": Quoted(tuple(r[4] for r in _T5_ROWS), "leviathan2023", "Tables 2 and 3", "secondary", _SECONDARY_T5),
    "c": Quoted(tuple(r[5] for r in _T5_ROWS), "leviathan2023", "Table 4 (column c)", "secondary", _SECONDARY_T5,
                note="c = 0.02 (T5-small) and 0.11 (T5-large) are quoted in the summaries; 0.04 (T5-base) is "
                     "recalled and agrees with a summary's recomputed expected column"),
    "expected": Quoted(tuple(r[6] for r in _T5_ROWS), "leviathan2023", "Table 4 (column EXP)", "secondary",
                       _SECONDARY_T5),
    "measured": Quoted(tuple(r[7] for r in _T5_ROWS), "leviathan2023", "Table 2 (column speed)", "secondary",
                       _SECONDARY_T5),
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
CHEN_CHINCHILLA = {
    "rows": Quoted(("XSum, nucleus", "XSum, greedy", "HumanEval, nucleus"), "chen2023", "Table 1", "verified",
                   "a literal transcription of Table 1 (public notes) and a second notes page quoting it"),
    "baseline_ms": Quoted(14.1, "chen2023", "Table 1 (mean token time, ArS rows)", "verified",
                          "a literal transcription of Table 1"),
    "speculative_ms": Quoted((7.52, 7.00, 5.73), "chen2023", "Table 1 (mean token time, SpS rows)", "verified",
                             "a literal transcription of Table 1"),
    "speedup_printed": Quoted((1.92, 2.01, 2.46), "chen2023", "Table 1 (speed up)", "verified",
                              "a literal transcription of Table 1"),
    "k": Quoted(4, "chen2023", "Section 4 (K = 4 in Table 1)", "verified", "two notes pages quoting Table 1's setup"),
    "draft_ms": Quoted(1.8, "chen2023", "Section 4 (draft model sampling time per token)", "unverified",
                       note="a secondary summary gives c ~ 0.128, which is 1.8 / 14.1"),
}

# Medusa: Medusa-2 speedups in Figure 3(b) (a machine reading of the chart),
# and the (acceleration rate, overhead) pairs behind them, recalled, not checked.
MEDUSA_SPEEDUPS = Quoted({"Vicuna-7B": 2.83, "Zephyr-7B": 2.66, "Vicuna-13B": 2.83, "Vicuna-33B": 2.35},
                         "cai2024medusa", "Figure 3(b) (Medusa-2 speedup by model)", "secondary",
                         "a machine transcription of the figure")
MEDUSA_RATE_OVERHEAD = Quoted({"Vicuna-7B": (3.47, 1.22), "Zephyr-7B": (3.14, 1.18), "Vicuna-13B": (3.51, 1.23),
                               "Vicuna-33B": (3.01, 1.27)},
                              "cai2024medusa", "Table 1 (acceleration rate, overhead, speedup)", "unverified",
                              note="recalled; the book uses these only as an illustrative check of the identity")

EAGLE_CLAIMS = Quoted({"speedup_llama2_chat_70b": (2.7, 3.5)}, "li2024eagle", "Abstract", "verified",
                      "the arXiv abstract (quoted in two summaries)")

MAGICDEC_CLAIM = Quoted({"speedup": 2.51, "model": "Llama3.1-8B", "batch": (32, 256)}, "chen2024magicdec",
                        "Abstract", "verified", "the arXiv abstract (2408.11049v4)")

VLLM_COUNTERS = Quoted(("vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total",
                        "vllm:spec_decode_num_accepted_tokens_total",
                        "vllm:spec_decode_num_accepted_tokens_per_pos_total"),
                       "vllm-metrics", "metrics reference; accept_length = 1 + accepted / drafts, "
                       "acceptance_rate = accepted / draft_tokens, per-position rate = accepted_per_pos / drafts",
                       "verified",
                       "NVIDIA NeMo AutoModel bench_vllm and AIPerf documentation pages; vLLM's source, "
                       "vllm/v1/spec_decode/metrics.py (see specdec.engine_metrics.VLLM_METRICS for the commits read)")


def _t5_column(name: str) -> np.ndarray:
    return np.asarray(LEVIATHAN_T5[name].value)


# --------------------------------------------------------------------------
# Leviathan et al.
# --------------------------------------------------------------------------


def leviathan_table1(c=0.0, c_hat=0.0):
    """Recompute Leviathan et al.'s Table 1: speed and arithmetic for six (alpha, gamma) cases.

    Speed is :func:`specdec.improvement_factor` (their Theorem 3.8) and
    operations :func:`specdec.operations_factor` (Theorem 3.11), both at the
    table's ``c = c_hat = 0`` unless given.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    c : float, optional
        Draft-to-target step time ratio, >= 0. Default 0 (the table's).
    c_hat : float, optional
        Draft-to-target arithmetic ratio, >= 0. Default 0.

    Returns
    -------
    dict
        ``alpha``, ``gamma`` (the cases), ``speed`` and ``operations``
        (ndarrays, unitless factors relative to plain decoding).

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.literature.leviathan_table1()
    >>> [round(float(x), 2) for x in t["speed"]]
    [1.96, 2.53, 2.44, 3.69, 2.71, 6.86]
    >>> [round(float(x), 2) for x in t["operations"]]
    [1.53, 1.58, 1.23, 1.63, 1.11, 1.6]
    """
    c = float(check_nonnegative(c, "c", "(ratio of draft to target step time)"))
    c_hat = float(check_nonnegative(c_hat, "c_hat", "(ratio of draft to target arithmetic)"))
    alpha = np.asarray(LEVIATHAN_TABLE1["alpha"].value, dtype=float)
    gamma = np.asarray(LEVIATHAN_TABLE1["gamma"].value, dtype=np.int64)
    return {
        "alpha": alpha,
        "gamma": gamma,
        "speed": improvement_factor(alpha, gamma, c),
        "operations": operations_factor(alpha, gamma, c_hat),
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
    i.e. :func:`specdec.optimal_k` with ``c_draft = c`` and ``c_verify = 1``.

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
    """Leviathan et al.'s corollary: with alpha > c, gamma = 1 already gives (1 + alpha)/(1 + c).

    Theorem 3.8 at ``gamma = 1`` is exactly ``(1 + alpha) / (1 + c)``, which
    exceeds 1 whenever ``alpha > c``; the optimal gamma can only do better.

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
        1.8 ms / 14.1 ms (the draft time recalled from Section 4; unverified).
    c_verify : float, optional
        Verification pass as a fraction of a target step, > 0. Default 1
        (the paper's observation that scoring K tokens costs about one step).
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
    """Check Medusa's identity on the (illustrative) acceleration-rate and overhead pairs.

    Defined in chapter "Published results, recomputed".

    Parameters
    ----------
    decimals : int, optional
        Decimals of the printed speedups. Default 2.

    Returns
    -------
    dict
        ``models``, ``rate``, ``overhead``, ``computed`` (rate / overhead),
        ``speedup`` (Figure 3(b)), ``difference`` (speedup - computed).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.literature.medusa_check()
    >>> round(float(r["computed"][0]), 3)
    2.844
    """
    int(check_integer(decimals, "decimals", minimum=0, maximum=6))
    pairs = MEDUSA_RATE_OVERHEAD.value
    models = list(pairs)
    rate = np.array([pairs[m][0] for m in models])
    over = np.array([pairs[m][1] for m in models])
    printed = np.array([MEDUSA_SPEEDUPS.value[m] for m in models])
    computed = medusa_speedup(rate, over)
    return {"models": np.array(models), "rate": rate, "overhead": over, "computed": computed,
            "speedup": printed, "difference": printed - computed}


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


# --------------------------------------------------------------------------
# serving metrics
# --------------------------------------------------------------------------


def metric_readings(alpha, k):
    """The numbers an engine would print for a given alpha and k, side by side.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    dict
        ``alpha``, ``draft_acceptance_rate`` ((E[L] - 1) / k),
        ``length_with_bonus`` (E[L]) and ``length_without_bonus`` (E[L] - 1).

    Examples
    --------
    >>> import specdec as sd
    >>> m = sd.literature.metric_readings(0.8, 4)
    >>> round(m["draft_acceptance_rate"], 4), round(m["length_with_bonus"], 4)
    (0.5904, 3.3616)
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    shape = check_broadcast(alpha=a, k=kk)
    scalar = is_scalar_input(alpha, k)
    return {
        "alpha": to_output(np.broadcast_to(a, shape), scalar),
        "draft_acceptance_rate": draft_acceptance_rate(alpha, k),
        "length_with_bonus": mean_acceptance_length(alpha, k),
        "length_without_bonus": mean_acceptance_length(alpha, k, include_bonus=False),
    }


def misread_alphas(reading):
    """The alphas a reader gets from an engine reading by each common misreading.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    reading : specdec.estimation.EngineReading
        From :func:`specdec.estimation.read_engine_counters`.

    Returns
    -------
    dict
        ``correct`` (the i.i.d. alpha), ``rate_as_alpha`` (the draft
        acceptance rate taken as alpha), ``length_without_bonus_as_with``
        (E[L] - 1 fed to the with-bonus inversion, clipped to alpha >= 0),
        ``length_with_bonus_as_without`` (E[L] fed to the without-bonus
        inversion; ``nan`` when E[L] > k makes that impossible).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.estimation.read_engine_counters(1000, 4000, 2362)
    >>> m = sd.literature.misread_alphas(r)
    >>> round(m["rate_as_alpha"], 4)
    0.5905
    """
    if not isinstance(reading, EngineReading):
        raise TypeError(f"reading must be an EngineReading (from specdec.estimation.read_engine_counters); "
                        f"got {type(reading).__name__}")
    k = reading.k
    el = reading.mean_acceptance_length
    m = reading.mean_draft_length if reading.mean_draft_length else float(k)
    wrong_with = float(alpha_for_expected_tokens(max(el - 1.0, 1.0), m)) if el - 1.0 >= 1.0 else 0.0
    wrong_without = float(alpha_for_expected_tokens(el + 1.0, m)) if el <= m else float("nan")
    return {
        "correct": reading.alpha,
        "rate_as_alpha": reading.draft_acceptance_rate,
        "length_without_bonus_as_with": wrong_with,
        "length_with_bonus_as_without": wrong_without,
    }
